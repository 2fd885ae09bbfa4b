//! Who owns each suspect character: the priority rule, shares and totals.
//!
//! Every computation here works on characters (Unicode scalar values) of the suspect,
//! whitespace and punctuation included: a block counts every character of its span.
//!
//! 1. A block counts when its source is enabled and no filter excludes it
//!    ([`Block::excluded`](crate::Block::excluded)); a block excluded as a quotation
//!    counts as a citation.
//! 2. A citation block counts as a citation unless it lies wholly inside one borrowing
//!    block; then it is ignored and the borrowing keeps its characters.
//! 3. Where counting blocks overlap, a citation wins over a borrowing; among blocks of
//!    the winning kind the source with the smallest rank owns the character.
//! 4. A copy block (a passage of another source's blocks found again in its own source,
//!    [`Block::copy_of`](crate::Block::copy_of)) counts only inside that source's blocks,
//!    in one part per block of that source (each part judged by rule 2 on its own, as the
//!    block it stands in for; a copy's part is never the borrowing block of rule 2), and
//!    after every block that is not a copy: it changes
//!    nothing while that source counts, and takes the passage over when a reviewer
//!    disables it (what a reviewer who excludes a source expects: the next source holding
//!    the passage is shown).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use tessera_core::DocId;
use tessera_normalize::Span;
use tessera_search::TextSpan;

use crate::model::{BlockId, BlockKind, Report};

/// A maximal run of suspect characters with one owner: the unit a renderer highlights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Segment {
    /// The run in the suspect's text (chars and bytes).
    pub span: TextSpan,
    /// How the run counts.
    pub kind: BlockKind,
    /// The source the run is counted for.
    pub source: DocId,
    /// The owner's first block (by id) covering the run.
    pub block: BlockId,
}

/// A block that counts, reduced to what the sweep needs.
struct Counted {
    span: TextSpan,
    kind: BlockKind,
    /// Place of the source in rank order (smaller wins).
    priority: usize,
    id: BlockId,
    source: DocId,
    /// A part of a copy block (rule 4).
    copy: bool,
}

impl Report {
    /// The owned runs of the suspect, in text order ([`Report::segments`]); characters no
    /// counting block covers are in no segment. Overlapping blocks are cut at every block
    /// boundary and each piece goes to one owner by the rules of this module, so segments
    /// never overlap and their lengths add up to the borrowed plus cited characters.
    fn owned_segments(&self) -> Vec<Segment> {
        let counted = self.counted_blocks();
        // (char position, byte position, is_start, index into counted)
        let mut events: Vec<(usize, usize, bool, usize)> = Vec::with_capacity(counted.len() * 2);
        for (i, c) in counted.iter().enumerate() {
            events.push((c.span.chars.start, c.span.bytes.start, true, i));
            events.push((c.span.chars.end, c.span.bytes.end, false, i));
        }
        events.sort_unstable_by_key(|&(pos, _, is_start, i)| (pos, is_start, i));

        let mut citations: BTreeSet<(usize, BlockId, usize)> = BTreeSet::new();
        let mut borrowings: BTreeSet<(usize, BlockId, usize)> = BTreeSet::new();
        let mut segments: Vec<Segment> = Vec::new();
        let mut prev: Option<(usize, usize)> = None;
        for &(pos, byte, is_start, i) in &events {
            if let Some((prev_pos, prev_byte)) = prev
                && prev_pos < pos
            {
                let owner = citations
                    .first()
                    .map(|o| (BlockKind::Citation, o))
                    .or_else(|| borrowings.first().map(|o| (BlockKind::Borrowing, o)));
                if let Some((kind, &(_, block, index))) = owner {
                    let span = TextSpan {
                        bytes: Span { start: prev_byte, end: byte },
                        chars: Span { start: prev_pos, end: pos },
                    };
                    push_merged(&mut segments, Segment { span, kind, source: counted[index].source, block });
                }
            }
            prev = Some((pos, byte));
            let c = &counted[i];
            let set = match c.kind {
                BlockKind::Citation => &mut citations,
                BlockKind::Borrowing => &mut borrowings,
            };
            let key = (c.priority, c.id, i);
            if is_start {
                set.insert(key);
            } else {
                set.remove(&key);
            }
        }
        segments
    }

    /// Applies the filters ([`Report::filters`]), then recomputes every source's shares
    /// and the totals from the blocks, the sources' `enabled` flags and the blocks' kinds. Called by the edit methods; call it after
    /// changing the fields by hand.
    pub fn recompute(&mut self) {
        self.apply_filters();
        let total = self.suspect.char_len;
        let limit = usize::try_from(total).unwrap_or(usize::MAX);

        let positions = self.positions();
        let mut spans: Vec<Vec<(usize, usize)>> = vec![Vec::new(); self.sources.len()];
        let mut counts = vec![0u32; self.sources.len()];
        for b in &self.blocks {
            let Some(&at) = positions.get(&b.source) else { continue };
            counts[at] = counts[at].saturating_add(1);
            let (start, end) = (b.suspect_span.chars.start.min(limit), b.suspect_span.chars.end.min(limit));
            if start < end {
                spans[at].push((start, end));
            }
        }
        let mut links = self.copy_links();
        for (source, (spans, count)) in self.sources.iter_mut().zip(spans.iter_mut().zip(counts)) {
            spans.sort_unstable();
            (source.copies, source.copy_of) = links.remove(&source.id).unwrap_or_default();
            source.blocks = count;
            source.text_chars = union_len(spans);
            source.share_in_text = percent(source.text_chars, total);
            source.report_chars = 0;
        }

        let mut borrowed = 0u64;
        let mut cited = 0u64;
        let segments = self.owned_segments();
        for segment in &segments {
            let len = (segment.span.chars.end - segment.span.chars.start) as u64;
            match segment.kind {
                BlockKind::Borrowing => borrowed += len,
                BlockKind::Citation => cited += len,
            }
            if let Some(source) = positions.get(&segment.source).and_then(|&at| self.sources.get_mut(at)) {
                source.report_chars += len;
            }
        }
        for source in &mut self.sources {
            source.share_in_report = percent(source.report_chars, total);
        }

        self.number_sources();

        let original = total.saturating_sub(borrowed + cited);
        self.totals.borrowed_chars = borrowed;
        self.totals.cited_chars = cited;
        self.totals.original_chars = original;
        self.totals.total_chars = total;
        self.totals.borrowings = percent(borrowed, total);
        self.totals.citations = percent(cited, total);
        self.totals.originality = if total == 0 { 100.0 } else { percent(original, total) };
        self.segments = segments;
    }

    /// Position in `sources` of every source id (the first, should one repeat).
    fn positions(&self) -> BTreeMap<DocId, usize> {
        let mut positions = BTreeMap::new();
        for (at, source) in self.sources.iter().enumerate() {
            positions.entry(source.id).or_insert(at);
        }
        positions
    }

    /// Priority of the source at each position of `sources`: its place in rank order
    /// (position breaks ties between equal ranks, which only a hand-edited report has).
    fn priorities(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.sources.len()).collect();
        order.sort_by_key(|&at| (self.sources[at].rank, at));
        let mut priorities = vec![0; order.len()];
        for (priority, &at) in order.iter().enumerate() {
            priorities[at] = priority;
        }
        priorities
    }

    /// Keeps the sources' numbers when they are exactly `1..=n` (numbers survive
    /// edits); otherwise (a new report, or one written without numbers) numbers them
    /// by share in report, largest first, then share in text, then rank. Then orders
    /// `sources` by number.
    fn number_sources(&mut self) {
        let n = self.sources.len();
        let mut seen = vec![false; n];
        let valid = self.sources.iter().all(|s| {
            let at = (s.number as usize).wrapping_sub(1);
            at < n && !std::mem::replace(&mut seen[at], true)
        });
        if !valid {
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|&a, &b| {
                let (x, y) = (&self.sources[a], &self.sources[b]);
                y.report_chars
                    .cmp(&x.report_chars)
                    .then(y.text_chars.cmp(&x.text_chars))
                    .then(x.rank.cmp(&y.rank))
                    .then(a.cmp(&b))
            });
            for (number, &at) in order.iter().enumerate() {
                self.sources[at].number = u32::try_from(number + 1).unwrap_or(u32::MAX);
            }
        }
        self.sources.sort_by_key(|s| s.number);
    }

    /// The blocks that count, with citations wholly inside a borrowing block dropped.
    fn counted_blocks(&self) -> Vec<Counted> {
        let limit = usize::try_from(self.suspect.char_len).unwrap_or(usize::MAX);
        let positions = self.positions();
        let priorities = self.priorities();
        let copied = self.copied_passages();
        let mut counted: Vec<Counted> = Vec::with_capacity(self.blocks.len());
        for b in &self.blocks {
            let Some(&at) = positions.get(&b.source) else { continue };
            if !self.sources[at].enabled {
                continue;
            }
            // A filter's exclusion (filters.rs): a quotation counts as a citation, the
            // others not at all.
            let Some(kind) = b.excluded.map_or(Some(b.kind), crate::Exclusion::counts_as) else { continue };
            let mut span = b.suspect_span;
            span.chars.start = span.chars.start.min(limit);
            span.chars.end = span.chars.end.min(limit);
            span.bytes.end = span.bytes.end.max(span.bytes.start);
            let counted_block = |span: TextSpan, priority: usize| Counted {
                span,
                kind,
                priority,
                id: b.id,
                source: b.source,
                copy: b.copy_of.is_some(),
            };
            match b.copy_of {
                None if span.chars.start < span.chars.end => counted.push(counted_block(span, priorities[at])),
                None => {}
                Some(of) => {
                    // Rule 4: the parts inside the copied source's blocks, after every
                    // block that is not a copy. One part per block of that source, so
                    // that rule 2 judges each part as it judges the block it stands in
                    // for: a part spanning two of its blocks could swallow a citation
                    // neither holds, or stand out of a borrowing both lie in, and change
                    // what counts while the copied source counts itself.
                    let priority = priorities.len() + priorities[at];
                    for passage in copied.get(&of).map_or(&[][..], Vec::as_slice) {
                        if let Some(part) = intersection(span, *passage) {
                            counted.push(counted_block(part, priority));
                        }
                    }
                }
            }
        }

        // Borrowing spans by start, with the furthest end reached so far: a citation
        // [s, e) lies inside one borrowing iff some borrowing starting at or before s
        // ends at or after e. Copies' parts are left out (rule 4): a copy found on a
        // cited passage would otherwise hide the citation it stands beside.
        let mut borrowing: Vec<(usize, usize)> = counted
            .iter()
            .filter(|c| c.kind == BlockKind::Borrowing && !c.copy)
            .map(|c| (c.span.chars.start, c.span.chars.end))
            .collect();
        borrowing.sort_unstable();
        let mut furthest = Vec::with_capacity(borrowing.len());
        let mut max_end = 0;
        for &(_, end) in &borrowing {
            max_end = max_end.max(end);
            furthest.push(max_end);
        }
        counted.retain(|c| {
            if c.kind != BlockKind::Citation {
                return true;
            }
            let before = borrowing.partition_point(|&(s, _)| s <= c.span.chars.start);
            !(before > 0 && furthest[before - 1] >= c.span.chars.end)
        });
        counted
    }
}

impl Report {
    /// For every source some copy block names, its blocks' suspect spans (enabled or not,
    /// of any kind; not its copies'), sorted: where its copies may count, block by block.
    fn copied_passages(&self) -> BTreeMap<DocId, Vec<TextSpan>> {
        let copied: BTreeSet<DocId> = self.blocks.iter().filter_map(|b| b.copy_of).collect();
        let mut passages: BTreeMap<DocId, Vec<TextSpan>> = BTreeMap::new();
        for b in self.blocks.iter().filter(|b| b.copy_of.is_none() && copied.contains(&b.source)) {
            passages.entry(b.source).or_default().push(b.suspect_span);
        }
        for spans in passages.values_mut() {
            spans.sort_unstable_by_key(|s| (s.chars.start, s.chars.end));
            spans.dedup_by_key(|s| (s.chars.start, s.chars.end));
        }
        passages
    }

    /// The ids of the other sources holding copies of `doc`'s passages, and of the sources
    /// whose passages `doc` holds as copies, each by rank ([`Source::copies`],
    /// [`Source::copy_of`]).
    fn copy_links(&self) -> BTreeMap<DocId, (Vec<DocId>, Vec<DocId>)> {
        let rank: BTreeMap<DocId, u32> = self.sources.iter().map(|s| (s.id, s.rank)).collect();
        let pairs: BTreeSet<(DocId, DocId)> = self
            .blocks
            .iter()
            .filter_map(|b| b.copy_of.filter(|&of| of != b.source).map(|of| (of, b.source)))
            .collect();
        let mut links: BTreeMap<DocId, (Vec<DocId>, Vec<DocId>)> = BTreeMap::new();
        for &(of, copy) in &pairs {
            links.entry(of).or_default().0.push(copy);
            links.entry(copy).or_default().1.push(of);
        }
        let by_rank = |d: &DocId| (rank.get(d).copied().unwrap_or(u32::MAX), *d);
        for (copies, copy_of) in links.values_mut() {
            copies.sort_by_key(by_rank);
            copy_of.sort_by_key(by_rank);
        }
        links
    }
}

/// The characters two spans share, `None` when they share none.
fn intersection(a: TextSpan, b: TextSpan) -> Option<TextSpan> {
    let (start, start_byte) =
        if a.chars.start >= b.chars.start { (a.chars.start, a.bytes.start) } else { (b.chars.start, b.bytes.start) };
    let (end, end_byte) =
        if a.chars.end <= b.chars.end { (a.chars.end, a.bytes.end) } else { (b.chars.end, b.bytes.end) };
    (start < end).then_some(TextSpan { bytes: Span { start: start_byte, end: end_byte }, chars: Span { start, end } })
}

/// Appends `next`, extending the last segment instead when they continue each other.
fn push_merged(segments: &mut Vec<Segment>, next: Segment) {
    if let Some(last) = segments.last_mut()
        && last.span.chars.end == next.span.chars.start
        && last.kind == next.kind
        && last.source == next.source
        && last.block == next.block
    {
        last.span.chars.end = next.span.chars.end;
        last.span.bytes.end = next.span.bytes.end;
        return;
    }
    segments.push(next);
}

/// Total length of the union of sorted half-open ranges.
pub(crate) fn union_len(sorted: &[(usize, usize)]) -> u64 {
    let mut total = 0u64;
    let mut covered_to = 0usize;
    for &(start, end) in sorted {
        let from = start.max(covered_to);
        if end > from {
            total += (end - from) as u64;
        }
        covered_to = covered_to.max(end);
    }
    total
}

/// `part / whole` in percent, clamped to `[0, 100]`; `0` for an empty whole.
pub(crate) fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        return 0.0;
    }
    #[allow(clippy::cast_precision_loss)] // texts are far below 2^52 characters
    let p = part as f64 * 100.0 / whole as f64;
    p.clamp(0.0, 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_len_merges_overlaps_and_gaps() {
        assert_eq!(union_len(&[]), 0);
        assert_eq!(union_len(&[(0, 5), (3, 8), (10, 12)]), 10);
        assert_eq!(union_len(&[(0, 10), (2, 4)]), 10);
    }

    #[test]
    fn percent_is_clamped() {
        assert!((percent(1, 4) - 25.0).abs() < f64::EPSILON);
        assert!((percent(5, 4) - 100.0).abs() < f64::EPSILON);
        assert!(percent(3, 0).abs() < f64::EPSILON);
    }
}
