//! Step 4, overlap resolution: passages overlapping on both sides merge, the better of
//! two overlapping on the suspect side only stays, and short passages are dropped.

use tessera_normalize::Span;

use super::{Passage, SentenceAligner};

/// Resolves overlaps: passages overlapping on both sides merge; of two overlapping on
/// the suspect side only, the one with the higher score stays. Sorted by suspect start.
pub(super) fn resolve(mut passages: Vec<Passage>) -> Vec<Passage> {
    passages.sort_by(|a, b| a.s.start.cmp(&b.s.start).then(a.s.end.cmp(&b.s.end)).then(a.t.start.cmp(&b.t.start)));
    let mut out: Vec<Passage> = Vec::new();
    for p in passages {
        match out.last_mut() {
            Some(last) if overlaps(last.s, p.s) => {
                if overlaps(last.t, p.t) {
                    last.s = Span { start: last.s.start.min(p.s.start), end: last.s.end.max(p.s.end) };
                    last.t = Span { start: last.t.start.min(p.t.start), end: last.t.end.max(p.t.end) };
                    last.matched += p.matched;
                    last.sentences |= p.sentences;
                    last.score += p.score;
                } else if p.score > last.score {
                    *last = p;
                }
            }
            _ => out.push(p),
        }
    }
    out
}

/// Whether two token ranges overlap.
pub(super) fn overlaps(a: Span, b: Span) -> bool {
    a.start < b.end && b.start < a.end
}

impl SentenceAligner<'_> {
    /// Whether a passage covers at least `min_passage_chars` suspect characters and
    /// `min_passage_source_chars` source characters.
    pub(super) fn long_enough(&self, p: &Passage) -> bool {
        let len = |c: &[Span], r: Span| match (c.get(r.start), r.end.checked_sub(1).and_then(|e| c.get(e))) {
            (Some(a), Some(b)) => b.end.saturating_sub(a.start),
            _ => 0,
        };
        len(&self.suspect.token_chars, p.s) >= self.config.min_passage_chars
            && len(&self.source.token_chars, p.t) >= self.config.min_passage_source_chars
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::*;
    use super::*;
    use crate::{AlignConfig, align_pair};

    #[test]
    fn overlaps_on_both_sides_merge_and_on_the_suspect_side_the_better_stays() {
        let p = |s: (usize, usize), t: (usize, usize), score: f64| Passage {
            s: Span { start: s.0, end: s.1 },
            t: Span { start: t.0, end: t.1 },
            matched: 1,
            score,
            sentences: false,
        };
        let lone = p((40, 50), (60, 70), 0.5);
        let weak = p((20, 30), (100, 110), 1.0);
        let strong = p((25, 35), (0, 5), 5.0);
        let got = resolve(vec![lone, strong, p((5, 15), (5, 15), 2.0), weak, p((0, 10), (0, 10), 1.0)]);
        let merged = Passage { matched: 2, score: 3.0, sentences: false, ..p((0, 15), (0, 15), 0.0) };
        assert_eq!(got, vec![merged, strong, lone]);
        // The order given does not matter.
        assert_eq!(resolve(got.iter().rev().copied().collect()), got);
        assert!(resolve(Vec::new()).is_empty());
    }

    /// A passage must be long enough on the source side too.
    #[test]
    fn short_source_side_is_dropped() {
        let source = format!("{EN_SOURCE_BEFORE}{EN_SOURCE_PASSAGE}{EN_SOURCE_AFTER}");
        let suspect = format!("{EN_SUSPECT_BEFORE}{EN_OBFUSCATED}{EN_SUSPECT_AFTER}");
        let (q, t) = (text_query(&suspect), text_query(&source));
        let blocks = align_pair(&q, &t, &[], &AlignConfig::default());
        assert_eq!(blocks.len(), 1);
        // Measured from the first word to the last (a block also takes in its sentences'
        // edges).
        let words = blocks[0].source_tokens;
        let source_chars = t.token_chars[words.end - 1].end - t.token_chars[words.start].start;
        let strict = AlignConfig { min_passage_source_chars: source_chars + 1, ..AlignConfig::default() };
        assert!(align_pair(&q, &t, &[], &strict).is_empty());
        let enough = AlignConfig { min_passage_source_chars: source_chars, ..AlignConfig::default() };
        assert_eq!(align_pair(&q, &t, &[], &enough), blocks);
    }
}
