//! Step 1, exact runs: equal shingle hashes on one diagonal at consecutive positions,
//! chosen longest first without overlaps, merged across small gaps into blocks.

use foldhash::{HashMap, HashMapExt};
use tessera_normalize::Span;

use super::Passage;
use crate::{AlignConfig, Query};

/// An exact shared run: suspect shingles `[s, s + len)` equal source shingles `[t, t + len)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Run {
    s: usize,
    t: usize,
    len: usize,
}

/// A suspect's shingle hashes with their positions, sorted by hash, so that a source's
/// shingles can be looked up in it: made once per suspect, it saves each source's
/// alignment a pass over the whole suspect (a long suspect is aligned with a source per
/// 500 of its shingles, so that pass made its check quadratic; docs/performance.md).
#[derive(Debug, Clone, Default)]
pub(super) struct ShingleIndex {
    entries: Vec<(u64, u32)>,
    /// Where the entries of each value of a hash's top `bits` bits start (one more for the
    /// end): hashes are uniform, so a look-up reads a bucket of one or two entries instead
    /// of binary searching the whole list (a miss per step; a tenth of a PAN-sized check).
    starts: Vec<u32>,
    bits: u32,
}

impl ShingleIndex {
    pub(super) fn new(hashes: &[u64]) -> Self {
        let mut entries: Vec<(u64, u32)> = hashes.iter().enumerate().map(|(i, &h)| (h, i as u32)).collect();
        entries.sort_unstable();
        // About one entry per bucket: 4 bytes a shingle beside the entries' 16.
        let bits = entries.len().max(1).ilog2();
        let mut starts = Vec::with_capacity((1 << bits) + 1);
        let mut next = 0;
        for bucket in 0..=(1u64 << bits) {
            while next < entries.len() && Self::bucket_of(entries[next].0, bits) < bucket {
                next += 1;
            }
            starts.push(next as u32);
        }
        Self { entries, starts, bits }
    }

    fn bucket_of(h: u64, bits: u32) -> u64 {
        // `checked_shr`: a shift by 64 (no bits, one bucket) is 0.
        h.checked_shr(64 - bits).unwrap_or(0)
    }

    /// Whether this indexes `hashes` (as many shingles; made from them by contract).
    pub(super) fn indexes(&self, hashes: &[u64]) -> bool {
        self.entries.len() == hashes.len()
    }

    /// The suspect shingles of hash `h`, in text order.
    fn positions(&self, h: u64) -> impl Iterator<Item = usize> + '_ {
        let bucket = Self::bucket_of(h, self.bits) as usize;
        let (from, to) = match (self.starts.get(bucket), self.starts.get(bucket + 1)) {
            (Some(&from), Some(&to)) => (from as usize, to as usize),
            // Only the default index (no entries) has no buckets.
            _ => (0, 0),
        };
        let bucket = &self.entries[from..to];
        let start = bucket.partition_point(|e| e.0 < h);
        bucket[start..].iter().take_while(move |e| e.0 == h).map(|e| e.1 as usize)
    }
}

/// The exact shared runs of `suspect` and `source`, suspect shingles marked in `skip` left
/// out; a source hash counts at its first `max_occurrences` positions only. With the
/// suspect's `index`, the source's hashes are looked up in it; without, the suspect's
/// hashes are looked up in the source's (the same runs either way).
pub(super) fn exact_runs(
    suspect: &[u64],
    index: Option<&ShingleIndex>,
    source: &[u64],
    skip: &[bool],
    max_occurrences: usize,
) -> Vec<Run> {
    // Matches grouped by diagonal; a run extends while the next suspect shingle matches
    // the next source shingle.
    let mut matches: Vec<(i64, u32)> = Vec::new();
    let mut add = |i: usize, list: &[u32]| {
        if !skip.get(i).copied().unwrap_or(false) {
            matches.extend(list.iter().map(|&j| (i64::from(j) - i as i64, i as u32)));
        }
    };
    match index.filter(|index| index.indexes(suspect)) {
        Some(index) => {
            // The source's shingles sorted by hash, not a map of lists: one allocation,
            // not one per distinct shingle (most of this step's time went to them).
            let mut by_hash: Vec<(u64, u32)> = source.iter().enumerate().map(|(j, &h)| (h, j as u32)).collect();
            by_hash.sort_unstable();
            let mut list = Vec::new();
            for group in by_hash.chunk_by(|a, b| a.0 == b.0) {
                let mut at = index.positions(group[0].0).peekable();
                if at.peek().is_none() {
                    continue;
                }
                list.clear();
                list.extend(group.iter().take(max_occurrences).map(|e| e.1));
                for i in at {
                    add(i, &list);
                }
            }
        }
        None => {
            let mut positions: HashMap<u64, Vec<u32>> = HashMap::with_capacity(source.len());
            for (j, &h) in source.iter().enumerate() {
                let list = positions.entry(h).or_default();
                if list.len() < max_occurrences {
                    list.push(j as u32);
                }
            }
            for (i, h) in suspect.iter().enumerate() {
                if let Some(list) = positions.get(h) {
                    add(i, list);
                }
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
pub(super) fn choose_runs(mut runs: Vec<Run>) -> Vec<Run> {
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

/// Shingles of the longest part of a run that lies inside suspect tokens `s` and source
/// tokens `t` (a shingle of `k` tokens is inside when all its tokens are).
pub(super) fn longest_within(runs: &[Run], s: Span, t: Span, k: usize) -> usize {
    let k = k.max(1);
    let (s_last, t_last) = (s.end.checked_sub(k), t.end.checked_sub(k));
    let (Some(s_last), Some(t_last)) = (s_last, t_last) else { return 0 };
    runs.iter()
        .map(|r| {
            // Offsets into the run whose suspect and source shingles are both inside.
            let lo = s.start.saturating_sub(r.s).max(t.start.saturating_sub(r.t));
            let hi = (r.len).min((s_last + 1).saturating_sub(r.s)).min((t_last + 1).saturating_sub(r.t));
            hi.saturating_sub(lo)
        })
        .max()
        .unwrap_or(0)
}

/// A block in shingle coordinates before it gets spans.
#[derive(Debug, Clone, Copy)]
pub(super) struct ShingleBlock {
    s_first: usize,
    s_last: usize,
    t_first: usize,
    t_last: usize,
    pub(super) matched: usize,
}

pub(super) fn merge_runs(runs: &[Run], config: &AlignConfig) -> Vec<ShingleBlock> {
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

impl ShingleBlock {
    /// The block in token coordinates.
    pub(super) fn passage(&self, suspect: &Query, source: &Query) -> Option<Passage> {
        let s = suspect.tokens_of_shingles(self.s_first, self.s_last);
        let t = Span { start: self.t_first, end: (self.t_last + suspect.shingle_size).min(source.token_bytes.len()) };
        (s.start < s.end && t.start < t.end).then_some(Passage {
            s,
            t,
            matched: self.matched,
            score: 0.0,
            sentences: false,
        })
    }
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
    use tessera_index::Snapshot;
    use tessera_normalize::Span;

    use super::{ShingleIndex, exact_runs};
    use crate::{AlignConfig, Query, align};

    #[test]
    fn the_suspects_index_finds_the_runs_a_pass_over_the_suspect_finds() {
        // Repeats on both sides, a skipped shingle, and a hash over the occurrence limit.
        let suspect = [1, 2, 3, 9, 1, 2, 3, 4, 7, 7, 7, 5, 6];
        let source = [0, 1, 2, 3, 4, 8, 7, 7, 1, 2, 5, 6, 3];
        let mut skip = vec![false; suspect.len()];
        skip[5] = true;
        let index = ShingleIndex::new(&suspect);
        for max in [1, 2, 8] {
            let scanned = exact_runs(&suspect, None, &source, &skip, max);
            assert!(!scanned.is_empty());
            assert_eq!(exact_runs(&suspect, Some(&index), &source, &skip, max), scanned, "max {max}");
        }
        // An index of another suspect is not used.
        let other = ShingleIndex::new(&suspect[..4]);
        assert_eq!(exact_runs(&suspect, Some(&other), &source, &[], 2), exact_runs(&suspect, None, &source, &[], 2));
    }

    #[test]
    fn a_look_up_in_the_suspects_index_finds_every_position_of_a_hash() {
        // Hashes over the whole range (a bucket per value of their top bits), repeats,
        // and the extremes, for lists of 0 to 2,000 shingles.
        let mut state = 7u64;
        let mut next = || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let z = (state ^ (state >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z ^ (z >> 31)
        };
        for n in [0usize, 1, 2, 3, 5, 64, 100, 2000] {
            let mut hashes: Vec<u64> = (0..n).map(|_| next()).collect();
            for (i, extreme) in [0, u64::MAX, 1 << 63, (1 << 63) - 1].into_iter().enumerate() {
                if i < n {
                    hashes[(i * 7) % n] = extreme;
                }
            }
            for i in (0..n).step_by(5) {
                hashes[i] = hashes[n / 2];
            }
            let index = ShingleIndex::new(&hashes);
            let probes = hashes.iter().copied().chain([0, 1, u64::MAX, u64::MAX - 1, 1 << 63, next(), next()]);
            for h in probes {
                let want: Vec<usize> = (0..n).filter(|&i| hashes[i] == h).collect();
                assert_eq!(index.positions(h).collect::<Vec<_>>(), want, "n {n}, hash {h:#x}");
            }
        }
        assert_eq!(ShingleIndex::default().positions(5).count(), 0);
    }

    /// A query whose token i spans bytes/chars [10 i, 10 i + 5).
    fn query(hashes: &[u64], size: usize) -> Query {
        let n = hashes.len() + size - 1;
        let spans: Vec<Span> = (0..n).map(|i| Span { start: 10 * i, end: 10 * i + 5 }).collect();
        Query {
            hashes: hashes.to_vec(),
            token_bytes: spans.clone(),
            token_chars: spans,
            shingle_size: size,
            ..Query::default()
        }
    }

    fn snapshot(hashes: &[u64], size: usize) -> Snapshot {
        let n = hashes.len() + size - 1;
        let spans: Vec<(u64, u64)> = (0..n as u64).map(|i| (100 + 7 * i, 100 + 7 * i + 4)).collect();
        Snapshot { hashes: hashes.to_vec(), token_bytes: spans.clone(), token_chars: spans, ..Snapshot::default() }
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
