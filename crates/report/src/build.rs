//! Building a report from the revisions of every collection.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use tessera_core::DocId;
use tessera_normalize::Span;
use tessera_search::{Revision, TextSpan};

use crate::citations::{self, Detect};
use crate::diff::{Comparison, WordDiffer};
use crate::model::{
    Block, BlockId, BlockKind, FoundBy, Label, Report, ReportFilters, ReportOptions, SCHEMA_VERSION, SentencePair,
    Source, SourceInfo, Suspect, SuspectInfo, Totals,
};

impl Report {
    /// Builds the report of `suspect` from the revisions of every collection.
    ///
    /// `revisions` come in priority order: where sources overlap, a character is counted
    /// for the source met first (revision order, then each revision's greedy order).
    /// `sources` gives the metadata (and, when kept, the text) of the sources; a source
    /// missing there is shown with its collection and id only.
    ///
    /// A block from a collection of kind citation is a citation. A block from any other
    /// collection is a borrowing, unless (with [`ReportOptions::detect_quotations`] and
    /// [`ReportOptions::detect_bibliography`], both on by default) at least
    /// [`INSIDE_PERCENT`](crate::INSIDE_PERCENT) percent of its letters and digits lie
    /// in quoted passages with a reference next to them or in the bibliography section
    /// of the suspect: then it is a citation too. [`Block::reason`] says why.
    ///
    /// A block whose source's text is known is first cut at the suspect's quotation marks
    /// that the source lacks, its parts without a word of the source dropped (a borrowing
    /// never runs past a quotation mark into the writer's words); each block gets its
    /// [`label`](Block::label) from the comparison of its two sides.
    ///
    /// Sources get their [`number`](crate::Source::number) from their shares (1 is the
    /// largest share in report) and `sources` is ordered by it. Blocks whose source text
    /// is known get their word-level [`diff`](Block::diff).
    ///
    /// Input never panics: spans are clamped to the texts, empty blocks and blocks
    /// shorter than [`ReportOptions::min_block_chars`] are dropped, a document met twice
    /// keeps its first rank.
    #[must_use]
    pub fn build(
        suspect: SuspectInfo,
        revisions: &[Revision],
        sources: &[SourceInfo],
        options: &ReportOptions,
    ) -> Report {
        let text = suspect.text;
        let suspect_index = CharIndex::new(&text);
        let mut infos: BTreeMap<DocId, &SourceInfo> = BTreeMap::new();
        for info in sources {
            infos.entry(info.doc).or_insert(info);
        }

        let mut report_sources: Vec<Source> = Vec::new();
        let mut source_texts: BTreeMap<DocId, Option<CharIndex<'_>>> = BTreeMap::new();
        let mut blocks: Vec<Block> = Vec::new();
        let mut differ = WordDiffer::new();
        // The suspect's quotation marks, found once the first block needs them.
        let mut quotations: Option<Vec<(usize, usize)>> = None;
        for revision in revisions {
            let detected_kind = BlockKind::from_collection(revision.kind);
            let reason = (detected_kind == BlockKind::Citation)
                .then(|| format!("citation collection \"{}\"", revision.collection));
            for found in &revision.sources {
                if let Entry::Vacant(slot) = source_texts.entry(found.doc) {
                    let info = infos.get(&found.doc).copied();
                    let text = info.and_then(|i| i.text.as_deref()).filter(|_| options.source_excerpts);
                    slot.insert(text.map(CharIndex::new));
                    let rank = u32::try_from(report_sources.len() + 1).unwrap_or(u32::MAX);
                    report_sources.push(new_source(found.doc, rank, revision, info, text.is_some()));
                }
                let source_text = source_texts.get(&found.doc).and_then(Option::as_ref);
                for block in &found.blocks {
                    let Some(suspect_span) = suspect_index.fit(block.suspect) else {
                        continue;
                    };
                    let len = (suspect_span.chars.end - suspect_span.chars.start) as u64;
                    if len < options.min_block_chars {
                        continue;
                    }
                    let Some((st, source_span)) = source_text.and_then(|st| st.fit(block.source).map(|s| (st, s)))
                    else {
                        // Without the source's text there is nothing to compare.
                        blocks.push(new_block(
                            &suspect_index,
                            found,
                            block,
                            &reason,
                            detected_kind,
                            Side::of(&suspect_index, suspect_span),
                            None,
                        ));
                        continue;
                    };
                    let suspect_excerpt = suspect_index.slice(&suspect_span);
                    let source_excerpt = st.slice(&source_span);
                    let Some(comparison) = differ.compare(&source_excerpt, source_span, &suspect_excerpt, suspect_span)
                    else {
                        let known = Known { text: st, span: source_span, excerpt: source_excerpt, comparison: None };
                        let side = Side { span: suspect_span, excerpt: suspect_excerpt };
                        blocks.push(new_block(&suspect_index, found, block, &reason, detected_kind, side, Some(known)));
                        continue;
                    };
                    let quotations = quotations.get_or_insert_with(|| citations::quotation_marks(&text));
                    let pieces = quote_cuts(&suspect_index, suspect_span, st, source_span, &comparison, quotations);
                    if pieces.is_empty() {
                        let known = Known {
                            text: st,
                            span: source_span,
                            excerpt: source_excerpt,
                            comparison: Some(comparison),
                        };
                        let side = Side { span: suspect_span, excerpt: suspect_excerpt };
                        blocks.push(new_block(&suspect_index, found, block, &reason, detected_kind, side, Some(known)));
                        continue;
                    }
                    // Cut at quotation marks the source does not have: each part is judged
                    // on its own (a quotation is a quotation, the writer's words around it
                    // are no borrowing).
                    let words = comparison.matched.len().max(1);
                    for (piece_suspect, piece_source, matched) in pieces {
                        let suspect_excerpt = suspect_index.slice(&piece_suspect);
                        let source_excerpt = st.slice(&piece_source);
                        let comparison = differ.compare(&source_excerpt, piece_source, &suspect_excerpt, piece_suspect);
                        let known = Known { text: st, span: piece_source, excerpt: source_excerpt, comparison };
                        let side = Side { span: piece_suspect, excerpt: suspect_excerpt };
                        let mut piece =
                            new_block(&suspect_index, found, block, &reason, detected_kind, side, Some(known));
                        // The block's shingles, shared out by matched words.
                        piece.matched_shingles =
                            u32::try_from(u64::from(block.matched_shingles) * matched as u64 / words as u64)
                                .unwrap_or(u32::MAX);
                        blocks.push(piece);
                    }
                }
            }
        }

        citations::classify(
            &text,
            &mut blocks,
            Detect { quotations: options.detect_quotations, bibliography: options.detect_bibliography },
        );
        blocks.sort_by_key(|b| {
            (b.suspect_span.chars.start, b.source, b.suspect_span.chars.end, b.source_span.chars.start)
        });
        for (i, block) in blocks.iter_mut().enumerate() {
            block.id = BlockId(u32::try_from(i).unwrap_or(u32::MAX));
        }
        let char_len = suspect_index.char_len as u64;
        let mut report = Report {
            schema_version: SCHEMA_VERSION,
            suspect: Suspect {
                name: suspect.name,
                title: suspect.title,
                char_len,
                byte_len: text.len() as u64,
                partial: false,
                missing_collections: Vec::new(),
                warnings: suspect.warnings,
                text,
            },
            totals: Totals::default(),
            sources: report_sources,
            blocks,
            segments: Vec::new(),
            filters: ReportFilters::default(),
        };
        report.recompute();
        report
    }

    /// Enables or disables a source (a reviewer's edit) and recomputes the shares and
    /// totals. Returns `false` when the report has no such source.
    pub fn set_source_enabled(&mut self, doc: DocId, enabled: bool) -> bool {
        let Some(source) = self.sources.iter_mut().find(|s| s.id == doc) else {
            return false;
        };
        source.enabled = enabled;
        self.recompute();
        true
    }

    /// Reclassifies a block as a borrowing or a citation (a reviewer's edit) and
    /// recomputes the shares and totals. Returns `false` when there is no such block.
    pub fn set_block_kind(&mut self, id: BlockId, kind: BlockKind) -> bool {
        let Some(block) = self.blocks.iter_mut().find(|b| b.id == id) else {
            return false;
        };
        block.kind = kind;
        self.recompute();
        true
    }
}

/// Chars a quotation mark may stand from the first or last quoted word in the source and
/// still be the source's own mark (`"«It`, `wife.”`).
const MARK_WINDOW: usize = 3;

/// Where a block that crosses a quotation mark of the suspect is cut: the parts between
/// the marks, each `(suspect span, source span, matched words)`; empty when the block is
/// not cut. A block is cut at the opening and the closing mark of each outermost quotation
/// that holds some of its matched words, unless the source has a quotation mark there too
/// (a passage copied with the dialogue it quotes is one block). A part with no word of the
/// source (the writer's own `Austen writes that`) is dropped: a borrowing never runs past
/// a quotation mark into the writer's words. A part's source span runs from its first to
/// its last matched source word (the block's own ends where the part keeps them).
fn quote_cuts(
    suspect_index: &CharIndex<'_>,
    suspect_span: TextSpan,
    source_index: &CharIndex<'_>,
    source_span: TextSpan,
    comparison: &Comparison,
    quotations: &[(usize, usize)],
) -> Vec<(TextSpan, TextSpan, usize)> {
    let (s, e) = (suspect_span.chars.start, suspect_span.chars.end);
    let matched = &comparison.matched;
    let in_range =
        |from: usize, to: usize| matched.iter().filter(move |m| m.0.chars.start >= from && m.0.chars.end <= to);
    let mut cuts = std::collections::BTreeSet::new();
    // Cuts at an opening mark (the quotation's part keeps the mark) and at a closing one.
    let (mut opens, mut closes) = (Vec::new(), Vec::new());
    let first_quote = quotations.partition_point(|&(_, end)| end <= s);
    for &(open, close) in quotations[first_quote..].iter().take_while(|&&(open, _)| open < e) {
        let (Some(first), Some(last)) = (in_range(open, close).next(), in_range(open, close).next_back()) else {
            continue;
        };
        let before = first.1.chars.start;
        if open > s && !source_index.chars(before.saturating_sub(MARK_WINDOW), before).any(citations::is_quotation_mark)
        {
            cuts.insert(open);
            opens.push(open);
        }
        let after = last.1.chars.end;
        if close < e && !source_index.chars(after, after + MARK_WINDOW).any(citations::is_quotation_mark) {
            cuts.insert(close);
            closes.push(close);
        }
    }
    if cuts.is_empty() {
        return Vec::new();
    }
    let bounds: Vec<usize> = std::iter::once(s).chain(cuts).chain(std::iter::once(e)).collect();
    let mut pieces = Vec::new();
    for pair in bounds.windows(2) {
        let (from, to) = (pair[0], pair[1]);
        let words: Vec<&(TextSpan, TextSpan)> = in_range(from, to).collect();
        if words.is_empty() {
            continue;
        }
        let source_start = if from == s {
            source_span.chars.start
        } else {
            words.iter().map(|w| w.1.chars.start).min().unwrap_or(source_span.chars.start)
        };
        let source_end = if to == e {
            source_span.chars.end
        } else {
            words.iter().map(|w| w.1.chars.end).max().unwrap_or(source_span.chars.end)
        };
        // The part from the block's end or a quotation mark to the block's end or a
        // quotation mark, else from its first to its last matched word (a reference or
        // the writer's words after a closing mark are not borrowed); spaces trimmed.
        let first_word = words.iter().map(|w| w.0.chars.start).min().unwrap_or(from);
        let last_word = words.iter().map(|w| w.0.chars.end).max().unwrap_or(to);
        let from = if from == s || opens.contains(&from) { from } else { first_word };
        let to = if to == e || closes.contains(&to) { to } else { last_word };
        let start = from + suspect_index.chars(from, to).take_while(|c| c.is_whitespace()).count();
        let end = to - suspect_index.chars(start, to).rev().take_while(|c| c.is_whitespace()).count();
        let span = |start: usize, end: usize| TextSpan { bytes: Span { start: 0, end: 0 }, chars: Span { start, end } };
        if let (Some(suspect), Some(source)) =
            (suspect_index.fit(span(start, end)), source_index.fit(span(source_start, source_end)))
        {
            pieces.push((suspect, source, words.len()));
        }
    }
    pieces
}

/// A block's suspect side: its span and text.
struct Side {
    span: TextSpan,
    excerpt: String,
}

impl Side {
    fn of(index: &CharIndex<'_>, span: TextSpan) -> Self {
        Self { span, excerpt: index.slice(&span) }
    }
}

/// A block's source side when the source's text is known.
struct Known<'a, 'b> {
    text: &'b CharIndex<'a>,
    span: TextSpan,
    excerpt: String,
    /// `None` when a side is too long to compare.
    comparison: Option<Comparison>,
}

/// A report block from a search block, its suspect side and, when known, its source side
/// (then its diff, label and sentence pairs). The id is set once blocks are sorted.
fn new_block(
    suspect_index: &CharIndex<'_>,
    found: &tessera_search::SourceMatch,
    block: &tessera_search::Block,
    reason: &Option<String>,
    detected_kind: BlockKind,
    side: Side,
    known: Option<Known<'_, '_>>,
) -> Block {
    let found_by = FoundBy::of(&block.evidence);
    let (source_span, source_excerpt, diff, label, pairs) = match known {
        None => (block.source, None, Vec::new(), Label::of(found_by, None), Vec::new()),
        Some(known) => {
            let label = Label::of(found_by, known.comparison.as_ref().map(|c| (c.same_words(), c.kept_share())));
            let st = known.text;
            let (suspect_span, source_span) = (side.span, known.span);
            // Sentence pairs are read side by side: only with the source's text.
            let pairs = block
                .pairs
                .iter()
                .filter_map(|pair| {
                    let suspect = suspect_index.fit(within(pair.suspect, suspect_span))?;
                    let source = st.fit(within(pair.source, source_span))?;
                    let words = pair
                        .words
                        .iter()
                        .filter_map(|w| {
                            Some(tessera_search::WordMatch {
                                suspect: suspect_index.fit(within(w.suspect, suspect))?,
                                source: st.fit(within(w.source, source))?,
                            })
                        })
                        .collect();
                    Some(SentencePair { suspect, source, words })
                })
                .collect();
            let diff = known.comparison.map(|c| c.changes).unwrap_or_default();
            (source_span, Some(known.excerpt), diff, label, pairs)
        }
    };
    Block {
        id: BlockId(0),
        source: found.doc,
        kind: detected_kind,
        detected_kind,
        reason: reason.clone(),
        suspect_span: side.span,
        source_span,
        matched_shingles: block.matched_shingles,
        confidence: percent(block.evidence.confidence()),
        found_by: Some(found_by),
        label: Some(label),
        excluded: None,
        suspect_excerpt: side.excerpt,
        source_excerpt,
        diff,
        pairs,
        copy_of: found.copy_of,
    }
}

/// A report source before shares are computed.
fn new_source(doc: DocId, rank: u32, revision: &Revision, info: Option<&SourceInfo>, text_kept: bool) -> Source {
    Source {
        id: doc,
        rank,
        number: 0,
        collection: info.map_or_else(|| revision.collection.clone(), |i| i.collection.clone()),
        kind: revision.kind,
        title: info.map(|i| i.title.clone()).unwrap_or_default(),
        origin: info.map(|i| i.origin.clone()).unwrap_or_default(),
        seen_at: info.map(|i| i.seen_at.clone()).unwrap_or_default(),
        enabled: true,
        text_kept,
        blocks: 0,
        text_chars: 0,
        share_in_text: 0.0,
        report_chars: 0,
        share_in_report: 0.0,
        copies: Vec::new(),
        copy_of: Vec::new(),
        text_missing: None,
        submission: None,
    }
}

/// Maps char offsets to byte offsets in `O(STRIDE)` with a checkpoint every `STRIDE`
/// characters, so long texts with many blocks stay linear.
struct CharIndex<'a> {
    text: &'a str,
    /// Byte offset of char `i * STRIDE`.
    checkpoints: Vec<usize>,
    char_len: usize,
}

const STRIDE: usize = 64;

impl<'a> CharIndex<'a> {
    fn new(text: &'a str) -> Self {
        let mut checkpoints = Vec::with_capacity(text.len() / STRIDE + 1);
        let mut char_len = 0;
        for (i, (b, _)) in text.char_indices().enumerate() {
            if i % STRIDE == 0 {
                checkpoints.push(b);
            }
            char_len = i + 1;
        }
        Self { text, checkpoints, char_len }
    }

    /// Byte offset of char `c` (`text.len()` at or past the end).
    fn byte_at(&self, c: usize) -> usize {
        if c >= self.char_len {
            return self.text.len();
        }
        let from = self.checkpoints.get(c / STRIDE).copied().unwrap_or(0);
        self.text[from..].char_indices().nth(c % STRIDE).map_or(self.text.len(), |(b, _)| from + b)
    }

    /// Clamps `span` to the text and derives its byte range from its char range (the
    /// char range is the truth; a search stage that is right gives the same bytes).
    /// `None` when nothing is left.
    fn fit(&self, span: TextSpan) -> Option<TextSpan> {
        let start = span.chars.start.min(self.char_len);
        let end = span.chars.end.min(self.char_len);
        if start >= end {
            return None;
        }
        Some(TextSpan {
            bytes: Span { start: self.byte_at(start), end: self.byte_at(end) },
            chars: Span { start, end },
        })
    }

    /// The chars `[from, to)` of the text (clamped to it).
    fn chars(&self, from: usize, to: usize) -> impl DoubleEndedIterator<Item = char> + '_ {
        let to = to.min(self.char_len);
        let from = from.min(to);
        self.text[self.byte_at(from)..self.byte_at(to)].chars()
    }

    fn slice(&self, span: &TextSpan) -> String {
        self.text.get(span.bytes.start..span.bytes.end).unwrap_or_default().to_owned()
    }
}

/// `span`'s characters cut to those of `outer` (bytes are set again by `fit`).
fn within(span: TextSpan, outer: TextSpan) -> TextSpan {
    let start = span.chars.start.max(outer.chars.start);
    TextSpan { bytes: span.bytes, chars: Span { start, end: span.chars.end.min(outer.chars.end).max(start) } }
}

/// A confidence from 0 to 1 in whole percent.
fn percent(confidence: f64) -> u8 {
    // Clamped first: the cast cannot truncate.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let p = (confidence.clamp(0.0, 1.0) * 100.0).round() as u8;
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(b: (usize, usize), c: (usize, usize)) -> TextSpan {
        TextSpan { bytes: Span { start: b.0, end: b.1 }, chars: Span { start: c.0, end: c.1 } }
    }

    #[test]
    fn fit_keeps_agreeing_spans() {
        let index = CharIndex::new("мир да");
        assert_eq!(index.fit(span((0, 6), (0, 3))), Some(span((0, 6), (0, 3))));
    }

    #[test]
    fn fit_repairs_bytes_from_chars() {
        let index = CharIndex::new("мир да");
        // Bytes cut a letter in half: recomputed from the char range.
        assert_eq!(index.fit(span((1, 3), (4, 6))), Some(span((7, 11), (4, 6))));
    }

    #[test]
    fn fit_clamps_and_drops_empty() {
        let index = CharIndex::new("abc");
        assert_eq!(index.fit(span((1, 10), (1, 10))), Some(span((1, 3), (1, 3))));
        assert_eq!(index.fit(span((5, 9), (5, 9))), None);
        assert_eq!(index.fit(span((2, 2), (2, 2))), None);
    }

    #[test]
    fn byte_at_crosses_checkpoints() {
        let text: String = "ёж".repeat(100);
        let index = CharIndex::new(&text);
        for c in [0, 1, 63, 64, 65, 127, 128, 199, 200, 500] {
            let expected = text.char_indices().nth(c).map_or(text.len(), |(b, _)| b);
            assert_eq!(index.byte_at(c), expected, "char {c}");
        }
    }
}
