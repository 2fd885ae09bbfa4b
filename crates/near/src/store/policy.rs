//! [`StorePolicy`]: which segments of the sketch store to merge after an update.
//!
//! The tiered rule of the index's `MergePolicy` (crates/index, `merge/policy.rs`), counted
//! in live documents instead of bytes (a sketch costs the same bytes whatever the
//! document): segments are grouped in tiers, a tier being a factor of
//! `segments_per_tier` wide above `floor_docs`; when a tier holds `segments_per_tier`
//! segments, its smallest ones are merged into one segment of a higher tier. So a store
//! fed by many small commits keeps at most `segments_per_tier - 1` segments per tier,
//! `O(log(size))` in all, and every sketch is rewritten `O(log(size))` times. A segment
//! whose deleted fraction reaches `deletes_ratio` is rewritten without them. The index's
//! type is not reused: its `pick` is internal to the index crate, sized in bytes, and
//! this crate does not depend on the index.

/// Settings of the sketch store's tiered merge policy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StorePolicy {
    /// Segments of one tier that trigger their merge (at least 2; default 8).
    pub segments_per_tier: usize,
    /// Segments with fewer live documents count as this many, so small segments form
    /// one tier (default 4,096: about 3 MB of sketches).
    pub floor_docs: u64,
    /// Upper bound on the live documents of a merged segment; segments above half of it
    /// are merged no more, except to purge deletes (default 1,000,000: a merge holds its
    /// output's sketches in memory, about 600 bytes a document).
    pub max_merged_docs: u64,
    /// Fraction of deleted documents at which a segment is rewritten without them
    /// (default 0.2).
    pub deletes_ratio: f64,
}

impl Default for StorePolicy {
    fn default() -> StorePolicy {
        StorePolicy { segments_per_tier: 8, floor_docs: 4096, max_merged_docs: 1_000_000, deletes_ratio: 0.2 }
    }
}

/// What the policy knows about one segment.
#[derive(Debug, Clone, Copy)]
pub(super) struct SegmentStat {
    /// The segment's file number (ties between equal sizes go to the older).
    pub number: u64,
    pub docs: u64,
    pub deleted: u64,
}

impl SegmentStat {
    fn live(&self) -> u64 {
        self.docs - self.deleted.min(self.docs)
    }

    fn deleted_fraction(&self) -> f64 {
        if self.docs == 0 { 0.0 } else { self.deleted as f64 / self.docs as f64 }
    }
}

impl StorePolicy {
    fn base(&self) -> u64 {
        self.segments_per_tier.max(2) as u64
    }

    fn tier(&self, live: u64) -> u32 {
        let base = self.base();
        let mut t = 0;
        let mut bound = self.floor_docs.max(1).saturating_mul(base);
        while live >= bound && bound < u64::MAX {
            t += 1;
            bound = bound.saturating_mul(base);
        }
        t
    }

    /// The next merge, as positions in `segments` (ascending), or `None`. Deterministic.
    pub(super) fn pick(&self, segments: &[SegmentStat]) -> Option<Vec<usize>> {
        let base = self.base() as usize;
        let max_input = self.max_merged_docs / 2;
        let mut eligible: Vec<(usize, &SegmentStat)> =
            segments.iter().enumerate().filter(|(_, s)| s.live() <= max_input && s.deleted < s.docs).collect();
        eligible.sort_by_key(|(_, s)| (self.tier(s.live()), s.live(), s.number));
        let mut start = 0;
        while start < eligible.len() {
            let tier = self.tier(eligible[start].1.live());
            let end = start + eligible[start..].iter().take_while(|(_, s)| self.tier(s.live()) == tier).count();
            if end - start >= base {
                let mut picked = Vec::new();
                let mut docs = 0u64;
                for (i, s) in &eligible[start..end] {
                    if picked.len() == base || docs.saturating_add(s.live()) > self.max_merged_docs {
                        break;
                    }
                    docs += s.live();
                    picked.push(*i);
                }
                if picked.len() >= 2 {
                    picked.sort_unstable();
                    return Some(picked);
                }
            }
            start = end;
        }
        // No tier is full: purge the segment with the largest share of deletes, if enough
        // (a segment of deleted documents only is dropped this way too).
        segments
            .iter()
            .enumerate()
            .filter(|(_, s)| s.deleted > 0 && s.deleted_fraction() >= self.deletes_ratio)
            .max_by(|(_, a), (_, b)| {
                a.deleted_fraction().total_cmp(&b.deleted_fraction()).then(b.number.cmp(&a.number))
            })
            .map(|(i, _)| vec![i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(s: &[(u64, u64)]) -> Vec<SegmentStat> {
        s.iter().enumerate().map(|(i, &(docs, deleted))| SegmentStat { number: i as u64, docs, deleted }).collect()
    }

    fn policy() -> StorePolicy {
        StorePolicy { segments_per_tier: 3, floor_docs: 10, max_merged_docs: 1000, deletes_ratio: 0.5 }
    }

    #[test]
    fn a_full_tier_merges_its_smallest() {
        assert_eq!(policy().pick(&stats(&[(1, 0), (2, 0)])), None);
        assert_eq!(policy().pick(&stats(&[(40, 0), (1, 0), (2, 0), (3, 0), (4, 0)])), Some(vec![1, 2, 3]));
    }

    #[test]
    fn large_segments_stay_unless_mostly_deleted() {
        assert_eq!(policy().pick(&stats(&[(600, 0), (600, 0), (600, 0)])), None);
        assert_eq!(policy().pick(&stats(&[(600, 0), (600, 300), (600, 200)])), Some(vec![1]));
        assert_eq!(policy().pick(&stats(&[(5, 5)])), Some(vec![0]));
    }

    #[test]
    fn many_small_commits_keep_few_segments() {
        let p = StorePolicy { floor_docs: 4, ..StorePolicy::default() };
        let mut segs: Vec<SegmentStat> = Vec::new();
        for number in 0..2000u64 {
            segs.push(SegmentStat { number, docs: 3, deleted: 0 });
            while let Some(pick) = p.pick(&segs) {
                let docs = pick.iter().map(|&i| segs[i].live()).sum();
                for &i in pick.iter().rev() {
                    segs.remove(i);
                }
                segs.push(SegmentStat { number: 10_000 + number, docs, deleted: 0 });
            }
            assert!(segs.len() <= 7 * 4, "{} segments", segs.len());
        }
        assert_eq!(segs.iter().map(|s| s.docs).sum::<u64>(), 6000);
    }
}
