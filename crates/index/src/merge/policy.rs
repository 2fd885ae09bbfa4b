//! [`MergePolicy`]: which segments of a collection, or of the sketch store (`sketch`),
//! to merge next. Both kinds of segments are measured the same way (live bytes), so one
//! policy, with one set of settings, serves every segment of an index directory.
//!
//! A tiered (log-structured) policy in the spirit of tantivy's `LogMergePolicy` and
//! Lucene's `TieredMergePolicy`: segments are grouped in tiers by their live size (file
//! bytes times the live fraction of their documents), a tier being a factor of
//! `segments_per_tier` wide above `floor_bytes`; when a tier holds `segments_per_tier`
//! segments, its smallest ones are merged into one segment of the next tier. So a
//! collection fed by many small commits keeps at most `segments_per_tier - 1` segments
//! per tier, `O(log(size))` segments in all, and every byte is rewritten
//! `O(log(size))` times. Segments whose deleted fraction reaches `deletes_ratio` are
//! rewritten to drop them, and no merge produces a segment larger than
//! `max_merged_bytes` (estimated from the live sizes of its inputs).

use serde::{Deserialize, Serialize};

use crate::manifest::SegmentEntry;

/// Settings of the tiered merge policy (see the module docs of `merge`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MergePolicy {
    /// Segments of one tier that trigger their merge (at least 2; default 8).
    pub segments_per_tier: usize,
    /// Segments smaller than this count as this size, so tiny segments form one tier
    /// (default 4 MiB).
    pub floor_bytes: u64,
    /// Upper bound on the estimated size of a merged segment; segments above half of it
    /// are merged no more, except to purge deletes (default 1 GiB). A merge holds the
    /// merged segment in memory (about twice its size on disk), so this also bounds a
    /// merge's memory.
    pub max_merged_bytes: u64,
    /// Fraction of deleted documents at which a segment is rewritten without them
    /// (default 0.2).
    pub deletes_ratio: f64,
}

impl Default for MergePolicy {
    fn default() -> MergePolicy {
        MergePolicy { segments_per_tier: 8, floor_bytes: 4 << 20, max_merged_bytes: 1 << 30, deletes_ratio: 0.2 }
    }
}

/// What the policy knows about one segment.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SegmentStat {
    /// Position in the collection's (or the sketch store's) segment list.
    pub index: usize,
    /// The segment's id (ties between equal sizes go to the older, lower id).
    pub id: u64,
    pub docs: u64,
    pub deleted: u64,
    pub file_len: u64,
}

impl SegmentStat {
    /// Statistics of `entry`; `deleted` holds every deleted id of the index, ascending.
    pub(crate) fn of(index: usize, entry: &SegmentEntry, deleted: &[u64]) -> SegmentStat {
        let dead = entry
            .doc_ranges
            .iter()
            .map(|r| {
                let from = deleted.partition_point(|&d| d < r.base);
                let to = deleted.partition_point(|&d| d < r.base + r.count);
                (to - from) as u64
            })
            .sum();
        SegmentStat { index, id: entry.id, docs: entry.doc_count, deleted: dead, file_len: entry.file_len }
    }

    /// File bytes scaled by the live fraction of the documents.
    pub(crate) fn live_bytes(&self) -> u64 {
        if self.docs == 0 {
            return 0;
        }
        let live = self.docs - self.deleted.min(self.docs);
        (u128::from(self.file_len) * u128::from(live) / u128::from(self.docs)) as u64
    }

    fn deleted_fraction(&self) -> f64 {
        if self.docs == 0 { 0.0 } else { self.deleted as f64 / self.docs as f64 }
    }
}

impl MergePolicy {
    fn tier_base(&self) -> u64 {
        self.segments_per_tier.max(2) as u64
    }

    /// The tier of a segment of `bytes` live bytes: 0 below `floor * base`, then one
    /// more per factor `base`.
    fn tier(&self, bytes: u64) -> u32 {
        let base = self.tier_base();
        let mut t = 0;
        let mut bound = self.floor_bytes.max(1).saturating_mul(base);
        while bytes >= bound && bound < u64::MAX {
            t += 1;
            bound = bound.saturating_mul(base);
        }
        t
    }

    /// The next merge of one collection, as positions in its segment list (ascending),
    /// or `None` when the collection needs none. Deterministic; O(segments log segments).
    pub(crate) fn pick(&self, segments: &[SegmentStat]) -> Option<Vec<usize>> {
        let base = self.tier_base() as usize;
        let max_input = self.max_merged_bytes / 2;
        let mut eligible: Vec<&SegmentStat> =
            segments.iter().filter(|s| s.live_bytes() <= max_input && s.deleted < s.docs).collect();
        // Lowest tier first, then by size and id: merging small segments is cheapest.
        eligible.sort_by_key(|s| (self.tier(s.live_bytes()), s.live_bytes(), s.id));
        let mut start = 0;
        while start < eligible.len() {
            let tier = self.tier(eligible[start].live_bytes());
            let end = start + eligible[start..].iter().take_while(|s| self.tier(s.live_bytes()) == tier).count();
            if end - start >= base {
                let mut picked = Vec::new();
                let mut bytes = 0u64;
                for s in &eligible[start..end] {
                    if picked.len() == base || bytes.saturating_add(s.live_bytes()) > self.max_merged_bytes {
                        break;
                    }
                    bytes += s.live_bytes();
                    picked.push(s.index);
                }
                if picked.len() >= 2 {
                    picked.sort_unstable();
                    return Some(picked);
                }
            }
            start = end;
        }
        // No tier is full: purge the segment with the most deletes, if enough.
        segments
            .iter()
            .filter(|s| s.deleted > 0 && s.deleted_fraction() >= self.deletes_ratio)
            .max_by(|a, b| a.deleted_fraction().total_cmp(&b.deleted_fraction()).then(b.id.cmp(&a.id)))
            .map(|s| vec![s.index])
    }
}

/// The next merge of an `optimize` down to `max_segments` (at least 1) segments: the
/// smallest segments merged into one when there are too many, else a segment holding
/// deleted documents rewritten alone; `None` when done.
pub(crate) fn pick_optimize(segments: &[SegmentStat], max_segments: usize) -> Option<Vec<usize>> {
    let max_segments = max_segments.max(1);
    if segments.len() > max_segments {
        let mut by_size: Vec<&SegmentStat> = segments.iter().collect();
        by_size.sort_by_key(|s| (s.live_bytes(), s.id));
        let mut picked: Vec<usize> = by_size[..segments.len() - max_segments + 1].iter().map(|s| s.index).collect();
        // Fold every segment with deletes in: they would be rewritten next anyway.
        for s in segments {
            if s.deleted > 0 && !picked.contains(&s.index) {
                picked.push(s.index);
            }
        }
        picked.sort_unstable();
        return Some(picked);
    }
    segments.iter().find(|s| s.deleted > 0).map(|s| vec![s.index])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(sizes: &[(u64, u64, u64)]) -> Vec<SegmentStat> {
        sizes
            .iter()
            .enumerate()
            .map(|(i, &(file_len, docs, deleted))| SegmentStat { index: i, id: i as u64, docs, deleted, file_len })
            .collect()
    }

    fn policy() -> MergePolicy {
        MergePolicy { segments_per_tier: 3, floor_bytes: 100, max_merged_bytes: 100_000, deletes_ratio: 0.5 }
    }

    #[test]
    fn nothing_to_do_below_a_full_tier() {
        assert_eq!(policy().pick(&stats(&[(10, 1, 0), (20, 1, 0)])), None);
        // Two small, two of the next tier: no tier has three.
        assert_eq!(policy().pick(&stats(&[(10, 1, 0), (20, 1, 0), (400, 1, 0), (500, 1, 0)])), None);
    }

    #[test]
    fn a_full_tier_merges_its_smallest() {
        let s = stats(&[(400, 1, 0), (10, 1, 0), (20, 1, 0), (30, 1, 0), (40, 1, 0)]);
        assert_eq!(policy().pick(&s), Some(vec![1, 2, 3]));
    }

    #[test]
    fn large_segments_are_left_alone() {
        let s = stats(&[(60_000, 1, 0), (60_000, 1, 0), (60_000, 1, 0)]);
        assert_eq!(policy().pick(&s), None);
        // Unless half their documents are deleted.
        let s = stats(&[(60_000, 10, 0), (60_000, 10, 5), (60_000, 10, 4)]);
        assert_eq!(policy().pick(&s), Some(vec![1]));
    }

    #[test]
    fn merged_size_is_bounded() {
        let p = MergePolicy { max_merged_bytes: 1000, ..policy() };
        let s = stats(&[(400, 1, 0), (450, 1, 0), (480, 1, 0)]);
        assert_eq!(p.pick(&s), Some(vec![0, 1]));
    }

    #[test]
    fn fully_deleted_segments_are_purged() {
        let s = stats(&[(10, 4, 4)]);
        assert_eq!(policy().pick(&s), Some(vec![0]));
    }

    #[test]
    fn tiers() {
        let p = policy();
        assert_eq!((p.tier(0), p.tier(299), p.tier(300), p.tier(899), p.tier(900)), (0, 0, 1, 1, 2));
        assert_eq!(p.tier(u64::MAX), p.tier(u64::MAX - 1));
    }

    /// A stream of tiny segments (one per update, as the sketch store gets them) stays
    /// at a few segments per tier, and no document is lost.
    #[test]
    fn many_small_commits_keep_few_segments() {
        let p = MergePolicy { floor_bytes: 400, ..MergePolicy::default() };
        let mut segs: Vec<SegmentStat> = Vec::new();
        for id in 0..2000u64 {
            segs.push(SegmentStat { index: segs.len(), id, docs: 3, deleted: 0, file_len: 300 });
            while let Some(pick) = p.pick(&segs) {
                let docs = pick.iter().map(|&i| segs[i].docs).sum();
                for &i in pick.iter().rev() {
                    segs.remove(i);
                }
                segs.push(SegmentStat { index: 0, id: 10_000 + id, docs, deleted: 0, file_len: docs * 100 });
                for (i, s) in segs.iter_mut().enumerate() {
                    s.index = i;
                }
            }
            assert!(segs.len() <= 7 * 4, "{} segments", segs.len());
        }
        assert_eq!(segs.iter().map(|s| s.docs).sum::<u64>(), 6000);
    }

    #[test]
    fn optimize_merges_the_smallest_then_purges() {
        let s = stats(&[(500, 5, 0), (10, 1, 0), (20, 1, 0), (700, 5, 1)]);
        assert_eq!(pick_optimize(&s, 3), Some(vec![1, 2, 3]));
        assert_eq!(pick_optimize(&s, 2), Some(vec![0, 1, 2, 3]));
        assert_eq!(pick_optimize(&s, 4), Some(vec![3]));
        assert_eq!(pick_optimize(&stats(&[(500, 5, 0)]), 1), None);
    }
}
