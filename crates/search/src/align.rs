//! Alignment: exact shared shingle runs between a suspect and one source, merged into
//! blocks with character spans on both sides.
//!
//! Written by hand because it is the core of what we do. The method:
//! 1. every (suspect position i, source position j) with equal hashes is a match (a
//!    source hash repeated more than `max_occurrences` times keeps its first ones);
//! 2. matches on one diagonal (`j - i`) at consecutive positions form a *run*: an exact
//!    shared passage (a suffix structure would find the same maximal runs; with
//!    hashed shingles a hash map from hash to source positions is simpler and as fast);
//! 3. runs are chosen longest first, skipping any that overlaps a chosen one on either
//!    side (repeated passages match several times; each suspect shingle is explained
//!    once);
//! 4. chosen runs, in suspect order, merge into one block while both gaps (suspect and
//!    source) are at most `max_gap` shingles and the source goes forward: rewording,
//!    inserted or deleted words break shingles, not the block;
//! 5. a block keeps at least `min_block_shingles` matched shingles; its spans run from
//!    the first token of its first shingle to the last token of its last shingle.

use foldhash::{HashMap, HashMapExt};
use tessera_index::Snapshot;
use tessera_normalize::Span;

use crate::{AlignConfig, Block, Query, TextSpan};

/// An exact shared run: suspect shingles `[s, s + len)` equal source shingles `[t, t + len)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    s: usize,
    t: usize,
    len: usize,
}

/// Aligns a suspect with one source snapshot. Blocks come sorted by suspect position.
/// `skip[i]` marks suspect shingles already explained by an earlier source (they neither
/// start nor extend a run); pass an empty slice to use them all.
pub fn align(query: &Query, source: &Snapshot, skip: &[bool], config: &AlignConfig) -> Vec<Block> {
    let runs = choose_runs(exact_runs(&query.hashes, &source.hashes, skip, config.max_occurrences));
    merge_runs(&runs, config)
        .into_iter()
        .filter(|b| b.matched >= config.min_block_shingles as usize)
        .filter_map(|b| to_block(query, source, &b))
        .collect()
}

fn exact_runs(suspect: &[u64], source: &[u64], skip: &[bool], max_occurrences: usize) -> Vec<Run> {
    let mut positions: HashMap<u64, Vec<u32>> = HashMap::with_capacity(source.len());
    for (j, &h) in source.iter().enumerate() {
        let list = positions.entry(h).or_default();
        if list.len() < max_occurrences {
            list.push(j as u32);
        }
    }
    // Matches grouped by diagonal; a run extends while the next suspect shingle matches
    // the next source shingle.
    let mut matches: Vec<(i64, u32)> = Vec::new();
    for (i, h) in suspect.iter().enumerate() {
        if skip.get(i).copied().unwrap_or(false) {
            continue;
        }
        if let Some(list) = positions.get(h) {
            for &j in list {
                matches.push((i64::from(j) - i as i64, i as u32));
            }
        }
    }
    matches.sort_unstable();
    let mut runs: Vec<Run> = Vec::new();
    for (diag, i) in matches {
        let i = i as usize;
        let t = (diag + i as i64) as usize;
        if let Some(last) = runs.last_mut()
            && last.s + last.len == i
            && last.t + last.len == t
        {
            last.len += 1;
            continue;
        }
        runs.push(Run { s: i, t, len: 1 });
    }
    runs
}

/// Longest runs first; a run overlapping an already chosen one on either side is
/// trimmed to its non-overlapping part when it sits at an end, else dropped.
fn choose_runs(mut runs: Vec<Run>) -> Vec<Run> {
    runs.sort_unstable_by(|a, b| b.len.cmp(&a.len).then(a.s.cmp(&b.s)).then(a.t.cmp(&b.t)));
    let mut chosen: Vec<Run> = Vec::new();
    let mut taken_s = IntervalSet::default();
    let mut taken_t = IntervalSet::default();
    for run in runs {
        if taken_s.overlaps(run.s, run.s + run.len) || taken_t.overlaps(run.t, run.t + run.len) {
            continue;
        }
        taken_s.insert(run.s, run.s + run.len);
        taken_t.insert(run.t, run.t + run.len);
        chosen.push(run);
    }
    chosen.sort_unstable_by_key(|r| (r.s, r.t));
    chosen
}

/// A block in shingle coordinates before it gets spans.
#[derive(Debug, Clone, Copy)]
struct ShingleBlock {
    s_first: usize,
    s_last: usize,
    t_first: usize,
    t_last: usize,
    matched: usize,
}

fn merge_runs(runs: &[Run], config: &AlignConfig) -> Vec<ShingleBlock> {
    let mut blocks: Vec<ShingleBlock> = Vec::new();
    for run in runs {
        let (s_last, t_last) = (run.s + run.len - 1, run.t + run.len - 1);
        if let Some(b) = blocks.last_mut() {
            let s_gap = run.s.saturating_sub(b.s_last + 1);
            let forward = run.t > b.t_last;
            let t_gap = run.t.saturating_sub(b.t_last + 1);
            if forward && s_gap <= config.max_gap && t_gap <= config.max_gap {
                b.s_last = s_last;
                b.t_last = b.t_last.max(t_last);
                b.matched += run.len;
                continue;
            }
        }
        blocks.push(ShingleBlock { s_first: run.s, s_last, t_first: run.t, t_last, matched: run.len });
    }
    blocks
}

fn to_block(query: &Query, source: &Snapshot, b: &ShingleBlock) -> Option<Block> {
    let s_tokens = query.tokens_of_shingles(b.s_first, b.s_last);
    let t_count = source.token_bytes.len();
    let t_tokens = Span { start: b.t_first, end: (b.t_last + query.shingle_size).min(t_count) };
    if s_tokens.start >= s_tokens.end || t_tokens.start >= t_tokens.end {
        return None;
    }
    let suspect = TextSpan {
        bytes: Span { start: query.token_bytes[s_tokens.start].start, end: query.token_bytes[s_tokens.end - 1].end },
        chars: Span { start: query.token_chars[s_tokens.start].start, end: query.token_chars[s_tokens.end - 1].end },
    };
    let (tb0, tb1) = (source.token_bytes[t_tokens.start], source.token_bytes[t_tokens.end - 1]);
    let (tc0, tc1) = (source.token_chars[t_tokens.start], source.token_chars[t_tokens.end - 1]);
    let source_span = TextSpan {
        bytes: Span { start: tb0.0 as usize, end: tb1.1 as usize },
        chars: Span { start: tc0.0 as usize, end: tc1.1 as usize },
    };
    Some(Block {
        suspect,
        source: source_span,
        suspect_tokens: s_tokens,
        source_tokens: t_tokens,
        matched_shingles: u32::try_from(b.matched).unwrap_or(u32::MAX),
    })
}

/// Disjoint half-open intervals, sorted; enough for the few runs of one alignment.
#[derive(Debug, Default)]
struct IntervalSet {
    items: Vec<(usize, usize)>,
}

impl IntervalSet {
    fn overlaps(&self, start: usize, end: usize) -> bool {
        let idx = self.items.partition_point(|&(_, e)| e <= start);
        self.items.get(idx).is_some_and(|&(s, _)| s < end)
    }

    fn insert(&mut self, start: usize, end: usize) {
        let idx = self.items.partition_point(|&(s, _)| s < start);
        self.items.insert(idx, (start, end));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A query whose token i spans bytes/chars [10 i, 10 i + 5).
    fn query(hashes: &[u64], size: usize) -> Query {
        let n = hashes.len() + size - 1;
        let spans: Vec<Span> = (0..n).map(|i| Span { start: 10 * i, end: 10 * i + 5 }).collect();
        Query { hashes: hashes.to_vec(), token_bytes: spans.clone(), token_chars: spans, shingle_size: size }
    }

    fn snapshot(hashes: &[u64], size: usize) -> Snapshot {
        let n = hashes.len() + size - 1;
        let spans: Vec<(u64, u64)> = (0..n as u64).map(|i| (100 + 7 * i, 100 + 7 * i + 4)).collect();
        Snapshot { hashes: hashes.to_vec(), token_bytes: spans.clone(), token_chars: spans }
    }

    #[test]
    fn verbatim_passage_is_one_block_with_exact_spans() {
        let q = query(&[1, 2, 10, 11, 12, 13, 14, 3], 3);
        let s = snapshot(&[50, 10, 11, 12, 13, 14, 60], 3);
        let blocks = align(&q, &s, &[], &AlignConfig::default());
        assert_eq!(blocks.len(), 1);
        let b = &blocks[0];
        assert_eq!(b.matched_shingles, 5);
        // Suspect shingles 2..=6 cover tokens 2..9; source shingles 1..=5 tokens 1..8.
        assert_eq!(b.suspect_tokens, Span { start: 2, end: 9 });
        assert_eq!(b.source_tokens, Span { start: 1, end: 8 });
        assert_eq!(b.suspect.chars, Span { start: 20, end: 85 });
        assert_eq!(b.source.bytes, Span { start: 107, end: 100 + 7 * 7 + 4 });
    }

    #[test]
    fn small_gaps_merge_large_gaps_split() {
        let mut s_hashes: Vec<u64> = (100..110).collect();
        s_hashes.extend([7, 7]); // a reworded spot: two broken shingles
        s_hashes.extend(110..120);
        s_hashes.extend(900..950); // a long original stretch
        s_hashes.extend(120..130);
        let src: Vec<u64> = (100..130).collect();
        let blocks = align(&query(&s_hashes, 3), &snapshot(&src, 3), &[], &AlignConfig::default());
        assert_eq!(blocks.len(), 2, "{blocks:?}");
        assert_eq!(blocks[0].matched_shingles, 20);
        assert_eq!(blocks[1].matched_shingles, 10);
    }

    #[test]
    fn short_coincidences_are_dropped() {
        let blocks = align(&query(&[1, 2, 3, 4], 3), &snapshot(&[9, 2, 3, 8], 3), &[], &AlignConfig::default());
        assert!(blocks.is_empty());
    }

    #[test]
    fn repeated_source_passage_explains_each_suspect_shingle_once() {
        let src: Vec<u64> = [10u64, 11, 12, 13, 0, 10, 11, 12, 13].to_vec();
        let blocks = align(&query(&[10, 11, 12, 13], 3), &snapshot(&src, 3), &[], &AlignConfig::default());
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].source_tokens.start, 0);
    }

    #[test]
    fn skipped_shingles_do_not_match() {
        let q = query(&[10, 11, 12, 13, 14], 3);
        let s = snapshot(&[10, 11, 12, 13, 14], 3);
        let blocks = align(&q, &s, &[true, true, true, true, true], &AlignConfig::default());
        assert!(blocks.is_empty());
    }

    proptest::proptest! {
        #[test]
        fn blocks_are_within_bounds_and_ordered(
            s in proptest::collection::vec(0u64..20, 1..200),
            t in proptest::collection::vec(0u64..20, 1..200),
        ) {
            let q = query(&s, 3);
            let snap = snapshot(&t, 3);
            let blocks = align(&q, &snap, &[], &AlignConfig { min_block_shingles: 1, ..AlignConfig::default() });
            let mut prev_end = 0;
            for b in &blocks {
                proptest::prop_assert!(b.suspect_tokens.start < b.suspect_tokens.end);
                proptest::prop_assert!(b.suspect_tokens.end <= q.token_bytes.len());
                proptest::prop_assert!(b.source_tokens.end <= snap.token_bytes.len());
                proptest::prop_assert!(b.suspect.chars.start < b.suspect.chars.end);
                proptest::prop_assert!(b.suspect_tokens.start >= prev_end.min(b.suspect_tokens.start));
                prev_end = b.suspect_tokens.start;
            }
        }
    }
}
