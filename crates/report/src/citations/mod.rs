//! Citations found in the suspect's own text: quoted passages with a reference next to
//! them, and the bibliography section.
//!
//! A block that a source collection reports as a borrowing becomes a citation when it
//! lies (almost) wholly inside one of these *citation zones*:
//!
//! - a **quotation** with a reference ([`find_quotations`]): the zone runs from the
//!   opening mark to the closing mark, and is widened to take in the reference when the
//!   reference is outside the marks;
//! - the **bibliography** ([`find_bibliography`]): from its heading to the next major
//!   heading (an appendix) or the end of the text.
//!
//! "Almost wholly inside" is measured in *word characters* (letters and digits, as
//! [`char::is_alphanumeric`] says): at least [`INSIDE_PERCENT`] percent of the block's
//! word characters lie inside the union of the zones. Spaces and punctuation at the
//! block's edges do not count, so a block that reaches past a closing mark by a comma
//! is still inside; a block with a sentence of its own outside the quotation is not.
//! Blocks are not split here: the report builder has already cut a block whose source's
//! text is known at the suspect's quotation marks (`build.rs`, `quote_cuts`); without it,
//! a block that is half quotation and half paraphrase stays a borrowing.
//!
//! The detectors read arbitrary user text: they never panic, run in linear time
//! (bounded windows around each quotation mark), and return spans on character
//! boundaries inside the text.

mod biblio;
pub(crate) mod quotes;
mod refs;

use tessera_normalize::Span;
use tessera_search::TextSpan;

pub use biblio::find_bibliography;
pub use quotes::{MAX_QUOTE_CHARS, find_quotations};

use crate::model::{Block, BlockKind};

/// Percent of a block's word characters that must lie inside citation zones for the
/// block to count as a citation.
pub const INSIDE_PERCENT: u64 = 90;

/// A quoted passage of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quotation {
    /// From the opening mark to the closing mark, both included.
    pub span: TextSpan,
    /// The opening and the closing mark.
    pub marks: (char, char),
    /// The reference next to it, if any: only quotations with one are citations.
    pub reference: Option<Reference>,
}

/// How a reference is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ReferenceKind {
    /// In square brackets: `[12]`, `[12, p. 5]`, `[1-3]`, `[Иванов, 2010]`,
    /// `[Электронный ресурс]`.
    Bracketed,
    /// In parentheses with a year or a page: `(Author, 2010)`, `(Author 2010: 15)`,
    /// `(Иванов, 2010, с. 5)`, `(p. 5)`, `(ibid.)`.
    Parenthetical,
    /// A footnote mark right after the closing quotation mark: `¹`, `*`, `†`, or plain
    /// digits as PDF extraction leaves them (`»12`).
    Footnote,
}

/// A bibliographic reference next to a quotation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// The reference, brackets included.
    pub span: TextSpan,
    /// How it is written.
    pub kind: ReferenceKind,
    /// Its text with runs of whitespace collapsed to one space.
    pub text: String,
}

/// Which detectors [`classify`] runs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Detect {
    pub quotations: bool,
    pub bibliography: bool,
}

/// A part of the suspect whose borrowed blocks are citations, in chars.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Zone {
    pub start: usize,
    pub end: usize,
    pub reason: String,
}

/// The suspect's characters with their byte offsets: random access for the detectors.
pub(crate) struct Chars {
    chars: Vec<char>,
    /// Byte offset of every [`Self::STEP`]th char: a byte offset per char cost a long
    /// text's report 8 bytes per char (200 MB for a 24 MB text), and spans are few.
    bytes: Vec<usize>,
}

impl Chars {
    const STEP: usize = 64;

    pub(crate) fn new(text: &str) -> Self {
        let mut chars = Vec::with_capacity(text.len());
        let mut bytes = Vec::with_capacity(text.len() / Self::STEP + 1);
        for (b, c) in text.char_indices() {
            if chars.len() % Self::STEP == 0 {
                bytes.push(b);
            }
            chars.push(c);
        }
        if chars.len() % Self::STEP == 0 {
            bytes.push(text.len());
        }
        Self { chars, bytes }
    }

    /// The byte offset of char `c` (at most the text's length).
    fn byte(&self, c: usize) -> usize {
        let c = c.min(self.chars.len());
        let Some(&from) = self.bytes.get(c / Self::STEP) else { return 0 };
        from + self.chars[c / Self::STEP * Self::STEP..c].iter().map(|ch| ch.len_utf8()).sum::<usize>()
    }

    fn len(&self) -> usize {
        self.chars.len()
    }

    fn get(&self, i: usize) -> Option<char> {
        self.chars.get(i).copied()
    }

    /// The span of chars `[start, end)`, clamped to the text.
    fn span(&self, start: usize, end: usize) -> TextSpan {
        let end = end.min(self.len());
        let start = start.min(end);
        TextSpan { bytes: Span { start: self.byte(start), end: self.byte(end) }, chars: Span { start, end } }
    }

    /// Chars `[start, end)` with whitespace runs collapsed to one space, trimmed.
    fn collapsed(&self, start: usize, end: usize) -> String {
        let mut out = String::new();
        let mut space = false;
        for &c in self.chars.get(start..end.min(self.len())).unwrap_or_default() {
            if c.is_whitespace() {
                space = !out.is_empty();
            } else {
                if space {
                    out.push(' ');
                    space = false;
                }
                out.push(c);
            }
        }
        out
    }
}

/// Marks as citations the borrowing blocks that lie inside citation zones of `text`,
/// with the reason. Blocks already detected as citations (citation collections) and
/// blocks of other texts are left alone.
pub(crate) fn classify(text: &str, blocks: &mut [Block], detect: Detect) {
    if !blocks.iter().any(|b| b.detected_kind == BlockKind::Borrowing) {
        return;
    }
    let chars = Chars::new(text);
    let mut zones = Vec::new();
    if detect.quotations {
        for q in quotes::quotations(&chars) {
            let Some(r) = q.reference else { continue };
            let reason = match r.kind {
                ReferenceKind::Footnote => format!("quoted with footnote mark {}", shorten(&r.text)),
                _ => format!("quoted with reference {}", shorten(&r.text)),
            };
            let start = q.span.chars.start.min(r.span.chars.start);
            let end = q.span.chars.end.max(r.span.chars.end);
            zones.push(Zone { start, end, reason });
        }
    }
    if detect.bibliography
        && let Some(span) = biblio::bibliography(&chars)
    {
        zones.push(Zone { start: span.chars.start, end: span.chars.end, reason: "bibliography".to_owned() });
    }
    if zones.is_empty() {
        return;
    }
    zones.sort_by_key(|z| (z.start, z.end));
    let weights = WordWeights::new(&chars);
    for block in blocks.iter_mut().filter(|b| b.detected_kind == BlockKind::Borrowing) {
        if let Some(zone) = weights.inside(block.suspect_span, &zones) {
            block.kind = BlockKind::Citation;
            block.detected_kind = BlockKind::Citation;
            block.reason = Some(zone.reason.clone());
        }
    }
}

/// The zones of every quotation of the text, with a reference or not (what
/// [`ReportFilters::exclude_quotes`](crate::ReportFilters::exclude_quotes) counts as
/// citations): from the opening to the closing mark, widened to a reference next to it.
pub(crate) fn quotation_zones(chars: &Chars) -> Vec<Zone> {
    let mut zones: Vec<Zone> = quotes::quotations(chars)
        .into_iter()
        .map(|q| {
            let (mut start, mut end) = (q.span.chars.start, q.span.chars.end);
            if let Some(r) = &q.reference {
                start = start.min(r.span.chars.start);
                end = end.max(r.span.chars.end);
            }
            Zone { start, end, reason: String::new() }
        })
        .collect();
    zones.sort_by_key(|z| (z.start, z.end));
    zones
}

/// The outermost quotations of `text` as char ranges `[opening mark, closing mark + 1)`,
/// by start: where a block may be cut so that a quotation is judged on its own.
pub(crate) fn quotation_marks(text: &str) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for q in quotes::quotations(&Chars::new(text)) {
        let (start, end) = (q.span.chars.start, q.span.chars.end);
        // By start, then end: a quotation inside the last one kept is nested.
        if out.last().is_none_or(|&(_, last_end)| start >= last_end) {
            out.push((start, end));
        }
    }
    out
}

/// Whether `c` is a quotation mark of any pair [`find_quotations`] knows.
pub(crate) fn is_quotation_mark(c: char) -> bool {
    matches!(c, '"' | '\'' | '«' | '»' | '„' | '“' | '”' | '‘' | '’' | '‚' | '‹' | '›' | '「' | '」' | '『' | '』')
}

/// The bibliography's zone, if the text has one ([`find_bibliography`]).
pub(crate) fn bibliography_zone(chars: &Chars) -> Option<Zone> {
    biblio::bibliography(chars).map(|span| Zone {
        start: span.chars.start,
        end: span.chars.end,
        reason: "bibliography".to_owned(),
    })
}

/// Word characters (letters and digits) before each char of a text: the weight of any
/// range in `O(1)`, and the one rule of "a block lies inside zones" ([`INSIDE_PERCENT`]).
pub(crate) struct WordWeights(Vec<u64>);

impl WordWeights {
    pub(crate) fn new(chars: &Chars) -> Self {
        let mut words = Vec::with_capacity(chars.len() + 1);
        let mut count = 0u64;
        words.push(0);
        for &c in &chars.chars {
            count += u64::from(c.is_alphanumeric());
            words.push(count);
        }
        Self(words)
    }

    fn weight(&self, s: usize, e: usize) -> u64 {
        let len = self.0.len().saturating_sub(1);
        let at = |i: usize| self.0.get(i.min(len)).copied().unwrap_or(0);
        at(e).saturating_sub(at(s))
    }

    /// The zone overlapping `span` most (the innermost on a tie) when at least
    /// [`INSIDE_PERCENT`] percent of the span's word characters lie inside the union of
    /// `zones` (sorted by start); `None` otherwise, and for a span without word
    /// characters.
    pub(crate) fn inside<'z>(&self, span: TextSpan, zones: &'z [Zone]) -> Option<&'z Zone> {
        let (s, e) = (span.chars.start, span.chars.end);
        let total = self.weight(s, e);
        if total == 0 {
            return None;
        }
        // Union of the zones' overlaps with the span, and the zone overlapping most.
        let mut covered = 0u64;
        let mut covered_to = s;
        let mut best: Option<(u64, usize, &Zone)> = None;
        for zone in zones.iter().take_while(|z| z.start < e) {
            let (from, to) = (zone.start.max(s), zone.end.min(e));
            if from >= to {
                continue;
            }
            let own = self.weight(from, to);
            let len = zone.end - zone.start;
            if best.is_none_or(|(w, l, _)| own > w || (own == w && len < l)) {
                best = Some((own, len, zone));
            }
            let from = from.max(covered_to);
            if to > from {
                covered += self.weight(from, to);
            }
            covered_to = covered_to.max(to);
        }
        best.filter(|_| covered * 100 >= total * INSIDE_PERCENT).map(|(_, _, zone)| zone)
    }
}

/// A reference as a reason shows it: at most 60 characters.
fn shorten(text: &str) -> String {
    const MAX: usize = 60;
    if text.chars().count() <= MAX {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(MAX - 1).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chars_byte_offset_is_where_it_starts_in_the_text() {
        for n in [0, 1, 63, 64, 65, 127, 128, 200] {
            let text: String = (0..n).map(|i| ['a', 'ё', '€', '𝄞'][i % 4]).collect();
            let chars = Chars::new(&text);
            let mut expected: Vec<usize> = text.char_indices().map(|(b, _)| b).collect();
            expected.push(text.len());
            for (c, &b) in expected.iter().enumerate() {
                assert_eq!(chars.byte(c), b, "{n} chars, char {c}");
            }
            assert_eq!(chars.span(n.saturating_sub(3), n + 5).bytes.end, text.len());
        }
    }
}
