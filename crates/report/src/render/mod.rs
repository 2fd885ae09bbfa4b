//! Renderers: one per output format, behind the [`Render`] trait.

mod html;
mod json;
mod pdf;
mod text;

pub use html::HtmlRenderer;
pub use json::JsonRenderer;
pub use pdf::PdfRenderer;
pub use text::TextRenderer;

use tessera_search::TextSpan;

use crate::model::{Block, BlockKind, ChangeKind, FoundBy, Report};

/// Draws a report in one format.
///
/// Implementations are deterministic: the same report gives the same bytes.
pub trait Render {
    /// Writes `report` to `out`.
    ///
    /// # Errors
    ///
    /// Fails only when writing to `out` fails.
    fn render(&self, report: &Report, out: &mut dyn std::io::Write) -> std::io::Result<()>;

    /// Renders `report` into a string.
    ///
    /// # Errors
    ///
    /// Never for the renderers of this crate (they write valid UTF-8 to memory).
    fn render_to_string(&self, report: &Report) -> std::io::Result<String> {
        let mut buf = Vec::new();
        self.render(report, &mut buf)?;
        String::from_utf8(buf).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }
}

/// The source colours: a strong colour (number badges, underlines; white text on it
/// has a contrast of at least 4.5:1) and a light fill (dark text on it at least 9:1),
/// twelve hues that stay apart; the web page uses the same list (`app.js`), and so does the PDF. Source 13
/// and on take the colours again with a striped fill, 25 and on with a dotted one, and
/// the number on each block still tells them apart.
pub(crate) const PALETTE: [(&str, &str); 12] = [
    ("#c2410c", "#ffd8a8"),
    ("#1864ab", "#a5d8ff"),
    ("#a61e4d", "#fcc2d7"),
    ("#5f3dc4", "#d0bfff"),
    ("#0b7285", "#99e9f2"),
    ("#8a5a00", "#ffe066"),
    ("#862e9c", "#eebefa"),
    ("#4d7c0f", "#d8f5a2"),
    ("#c92a2a", "#ffc9c9"),
    ("#364fc7", "#bac8ff"),
    ("#7c4a2d", "#ecd5c0"),
    ("#495057", "#dee2e6"),
];

/// A percentage as shown to people: two decimals, no rounding before this point.
fn fmt_percent(p: f64) -> String {
    format!("{p:.2}%")
}

/// `text` cut to at most `max` characters, with an ellipsis in the middle when cut, and
/// line breaks and tabs shown as spaces.
fn shorten(text: &str, max: usize) -> String {
    let flat: Vec<char> = text.chars().map(|c| if c.is_whitespace() { ' ' } else { c }).collect();
    if flat.len() <= max {
        return flat.into_iter().collect();
    }
    let keep = max.saturating_sub(1);
    let head = keep - keep / 2;
    let tail = keep / 2;
    let mut out: String = flat[..head].iter().collect();
    out.push('…');
    out.extend(&flat[flat.len() - tail..]);
    out
}

/// What a source's entry says of copies (every renderer words it alike), by the numbers
/// the reader sees: "also in sources 4, 7" (other sources holding passages of this
/// one's blocks, [`Source::copies`](crate::Source::copies)) and "holds passages of
/// source 1 too" ([`Source::copy_of`](crate::Source::copy_of)). Empty for a source
/// with neither.
pub(crate) fn copy_lines(report: &Report, source: &crate::Source) -> Vec<String> {
    let numbers = |docs: &[tessera_core::DocId]| -> Option<(usize, String)> {
        let numbers: Vec<String> =
            docs.iter().filter_map(|&d| report.source(d)).map(|s| s.number.to_string()).collect();
        (!numbers.is_empty()).then(|| (numbers.len(), numbers.join(", ")))
    };
    let plural = |n: usize| if n == 1 { "source" } else { "sources" };
    let mut lines = Vec::new();
    if let Some((n, list)) = numbers(&source.copies) {
        lines.push(format!("also in {} {list}", plural(n)));
    }
    if let Some((n, list)) = numbers(&source.copy_of) {
        lines.push(format!("holds passages of {} {list} too", plural(n)));
    }
    lines
}

/// How a source is named: its title, else its origin, else its id.
fn source_label(title: &str, origin: &str, id: u64) -> String {
    if !title.trim().is_empty() {
        title.trim().to_owned()
    } else if !origin.trim().is_empty() {
        origin.trim().to_owned()
    } else {
        format!("document {id}")
    }
}

/// What the heading of a block in the list of blocks says (the HTML report and the PDF
/// word it alike; the HTML marks some phrases up): its kind, its source, where it is in the
/// document, how sure Tessera is, then what else is known of it.
pub(crate) struct BlockHeading<'a> {
    /// "Borrowing" or "Citation".
    pub kind: &'static str,
    /// "source 3: TITLE", or "document ID" for a source the report does not list.
    pub source: String,
    /// "characters A–B of the document".
    pub place: String,
    /// "87% sure".
    pub sure: String,
    pub flags: Vec<BlockFlag<'a>>,
    /// The block's source is disabled in the report (its blocks count for nothing).
    pub disabled: bool,
    /// The source's number in the report (its colour); 0 for a source it does not list.
    pub number: u32,
}

/// A phrase of a [`BlockHeading`] after the confidence, in this order.
pub(crate) enum BlockFlag<'a> {
    /// What the comparison shows ([`block_label`]).
    FoundBy(&'static str),
    /// Why the block is a citation.
    Reason(&'a str),
    /// "reclassified from borrowing": a reviewer changed the kind Tessera detected.
    Reclassified(&'static str),
    /// "also in source 3's passage": a copy block, counted only once that source is off.
    CopyOf(String),
    /// "source disabled".
    SourceDisabled,
    /// Why a filter takes the block out ([`Exclusion::describe`](crate::Exclusion::describe)).
    Excluded(String),
}

impl BlockHeading<'_> {
    pub(crate) fn of<'a>(report: &Report, block: &'a Block) -> BlockHeading<'a> {
        let found = report.source(block.source);
        let disabled = !found.is_none_or(|s| s.enabled);
        let mut flags = Vec::new();
        if let Some(label) = block_label(block) {
            flags.push(BlockFlag::FoundBy(label));
        }
        if let Some(reason) = &block.reason {
            flags.push(BlockFlag::Reason(reason));
        }
        if block.kind != block.detected_kind {
            flags.push(BlockFlag::Reclassified(block.detected_kind.as_str()));
        }
        if let Some(of) = block.copy_of {
            flags.push(BlockFlag::CopyOf(copy_of_label(report, of)));
        }
        if disabled {
            flags.push(BlockFlag::SourceDisabled);
        }
        if let Some(excluded) = block.excluded {
            flags.push(BlockFlag::Excluded(format!("excluded: {}", excluded.describe(&report.filters))));
        }
        BlockHeading {
            kind: capitalised(block.kind),
            source: found.map_or_else(
                || format!("document {}", block.source.0),
                |s| format!("source {}: {}", s.number, source_label(&s.title, &s.origin, s.id.0)),
            ),
            place: format!(
                "characters {}–{} of the document",
                block.suspect_span.chars.start, block.suspect_span.chars.end
            ),
            sure: format!("{}% sure", block.confidence),
            flags,
            disabled,
            number: found.map_or(0, |s| s.number),
        }
    }
}

impl BlockFlag<'_> {
    /// The phrase as plain text.
    pub(crate) fn text(&self) -> String {
        match self {
            BlockFlag::FoundBy(label) => (*label).to_owned(),
            BlockFlag::Reason(reason) => (*reason).to_owned(),
            BlockFlag::Reclassified(kind) => format!("reclassified from {kind}"),
            BlockFlag::CopyOf(label) => label.clone(),
            BlockFlag::SourceDisabled => "source disabled".to_owned(),
            BlockFlag::Excluded(why) => why.clone(),
        }
    }
}

/// What a copy block says of the source it copies: "the passage of source 3, found here
/// too" (the number the reader sees; the id for a source the report does not list).
pub(crate) fn copy_of_label(report: &Report, of: tessera_core::DocId) -> String {
    match report.source(of) {
        Some(s) => format!("the passage of source {}, found here too", s.number),
        None => format!("the passage of document {}, found here too", of.0),
    }
}

/// What a block is called next to its confidence: its [`Label`](crate::Label) (what the
/// comparison shows), or for a report stored before labels, how it was found.
pub(crate) fn block_label(block: &Block) -> Option<&'static str> {
    block.label.map(crate::Label::words).or_else(|| block.found_by.map(found_by_label))
}

/// The filters a report applies, as one line for its reader after "Filters:"
/// ("quotations counted as citations, bibliography excluded, …"); `None` when all are off.
pub(crate) fn filters_line(report: &Report) -> Option<String> {
    let f = &report.filters;
    if f.is_off() {
        return None;
    }
    let mut parts = Vec::new();
    if f.exclude_quotes {
        parts.push("quotations counted as citations".to_owned());
    }
    if f.exclude_bibliography {
        parts.push("bibliography excluded".to_owned());
    }
    if f.min_words > 0 {
        parts.push(format!("matches under {} words excluded", f.min_words));
    }
    if f.min_percent > 0.0 {
        parts.push(format!("sources under {}% excluded", f.min_percent));
    }
    let excluded = report.blocks.iter().filter(|b| b.excluded.is_some()).count();
    Some(format!("{} ({excluded} of {} blocks affected)", parts.join(", "), report.blocks.len()))
}

/// How a block was found, as reports stored before labels say it.
fn found_by_label(found_by: FoundBy) -> &'static str {
    match found_by {
        FoundBy::Copy => "copied",
        FoundBy::Rewording => "reworded",
        FoundBy::Summary => "summary of a longer passage",
        FoundBy::Translation => "translated from another language",
    }
}

pub(crate) fn capitalised(kind: BlockKind) -> &'static str {
    match kind {
        BlockKind::Borrowing => "Borrowing",
        BlockKind::Citation => "Citation",
    }
}

/// The heading above a block's sentence pairs (the page's app.js words it the same).
pub(crate) fn sentence_pairs_heading(n: usize) -> String {
    let what = if n == 1 {
        "sentence of the document and the source sentence it draws on"
    } else {
        "sentences of the document and the source sentences they draw on"
    };
    format!("Sentence by sentence: {n} {what}")
}

/// Where a block lies in its source: "characters A–B of the source".
pub(crate) fn source_range(block: &Block) -> String {
    format!("characters {}–{} of the source", block.source_span.chars.start, block.source_span.chars.end)
}

/// What a report says in place of a block's source excerpt when the source's text was
/// not kept: "Source text not kept: TITLE, ORIGIN, characters A–B of the source.".
pub(crate) fn source_not_kept(report: &Report, block: &Block) -> String {
    let place = report.source(block.source).map_or_else(String::new, |s| {
        let mut p = source_label(&s.title, &s.origin, s.id.0);
        if !s.title.trim().is_empty() && !s.origin.trim().is_empty() {
            p.push_str(", ");
            p.push_str(s.origin.trim());
        }
        p.push_str(", ");
        p
    });
    format!("Source text not kept: {place}{}.", source_range(block))
}

/// Which excerpt of a block [`excerpt_pieces`] cuts.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Suspect,
    Source,
}

/// How a piece of an excerpt is marked: the word changes of [`Block::diff`] as each side
/// shows them.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Mark {
    /// Words changed (both sides).
    Changed,
    /// Words added in the document (the suspect's side).
    Added,
    /// Words left out of the source (the source's side).
    LeftOut,
    /// Words the suspect has in another place (both sides): the same words, moved.
    Moved,
}

/// A piece of an excerpt: text with its mark, or a caret where the other side has words
/// this one lacks.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Piece {
    Text(String, Option<Mark>),
    Caret,
}

/// One side's excerpt of `block` cut at its word changes ([`excerpt_pieces`]); nothing
/// for the source's side when its text was not kept.
pub(crate) fn block_excerpt_pieces(block: &Block, side: Side) -> Vec<Piece> {
    let (excerpt, offset) = match side {
        Side::Suspect => (block.suspect_excerpt.as_str(), block.suspect_span.chars.start),
        Side::Source => (block.source_excerpt.as_deref().unwrap_or(""), block.source_span.chars.start),
    };
    let mut marks: Vec<(TextSpan, ChangeKind)> =
        block.diff.iter().map(|c| (if side == Side::Suspect { c.suspect } else { c.source }, c.kind)).collect();
    // Moved words break the text order on one side: each side is cut in its own order.
    marks.sort_by_key(|(span, _)| (span.chars.start, span.chars.end));
    excerpt_pieces(excerpt, offset, &marks, side)
}

/// `excerpt` (which starts at char `offset` of its text) cut at the word changes `marks`
/// (spans on this side, in text order): changed words on both sides, added words on the
/// suspect's side, left-out words on the source's side, a caret where the other side has
/// words this one lacks. The HTML report and the PDF draw these pieces.
pub(crate) fn excerpt_pieces(excerpt: &str, offset: usize, marks: &[(TextSpan, ChangeKind)], side: Side) -> Vec<Piece> {
    let mut pieces = Vec::with_capacity(marks.len() * 2 + 1);
    let mut chars = excerpt.chars();
    let mut at = offset;
    for &(span, kind) in marks {
        let (start, end) = (span.chars.start.max(at), span.chars.end);
        if start > at {
            pieces.push(Piece::Text(chars.by_ref().take(start - at).collect(), None));
            at = start;
        }
        if end <= start {
            if span.chars.start >= at {
                pieces.push(Piece::Caret);
            }
            continue;
        }
        let text: String = chars.by_ref().take(end - start).collect();
        at = end;
        let mark = match (kind, side) {
            (ChangeKind::Changed, _) => Some(Mark::Changed),
            (ChangeKind::Moved, _) => Some(Mark::Moved),
            (ChangeKind::Inserted, Side::Suspect) => Some(Mark::Added),
            (ChangeKind::Deleted, Side::Source) => Some(Mark::LeftOut),
            _ => None,
        };
        pieces.push(Piece::Text(text, mark));
    }
    let rest: String = chars.collect();
    if !rest.is_empty() {
        pieces.push(Piece::Text(rest, None));
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorten_cuts_in_the_middle() {
        assert_eq!(shorten("abcdef", 10), "abcdef");
        assert_eq!(shorten("abcdefghij", 5), "ab…ij");
        assert_eq!(shorten("один\nдва три", 7), "оди…три");
    }

    #[test]
    fn percent_rounds_at_render_time() {
        assert_eq!(fmt_percent(100.0 / 3.0), "33.33%");
        assert_eq!(fmt_percent(0.0), "0.00%");
    }

    /// Pieces follow char offsets (Cyrillic: two bytes a letter), each side shows its own
    /// kinds, and an empty span on this side is a caret.
    #[test]
    fn excerpt_pieces_mark_each_side() {
        let at = |start: usize, end: usize| TextSpan {
            bytes: tessera_normalize::Span { start: 0, end: 0 },
            chars: tessera_normalize::Span { start, end },
        };
        // "мой дом стоит тут", starting at char 10 of its text.
        let marks =
            [(at(14, 17), ChangeKind::Changed), (at(18, 18), ChangeKind::Deleted), (at(24, 27), ChangeKind::Inserted)];
        let text = |s: &str, m| Piece::Text(s.to_owned(), m);
        assert_eq!(
            excerpt_pieces("мой дом стоит тут", 10, &marks, Side::Suspect),
            vec![
                text("мой ", None),
                text("дом", Some(Mark::Changed)),
                text(" ", None),
                Piece::Caret,
                text("стоит ", None),
                text("тут", Some(Mark::Added)),
            ]
        );
        // On the source's side an insertion is not this side's words: left plain.
        let pieces = excerpt_pieces("мой дом стоит тут", 10, &marks, Side::Source);
        assert_eq!(pieces.last(), Some(&text("тут", None)));
        let deleted = [(at(10, 13), ChangeKind::Deleted)];
        assert_eq!(excerpt_pieces("мой", 10, &deleted, Side::Source), vec![text("мой", Some(Mark::LeftOut))]);
    }
}
