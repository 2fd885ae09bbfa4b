//! Clustering near-duplicates: candidate pairs, each verified against the kept document
//! of the cluster it would join.

use rayon::prelude::*;

use crate::lsh::{LshParams, candidate_pairs};
use crate::simhash::hamming;
use crate::simhash_tables::{TableDesign, all_pairs};
use crate::{Result, Signature};

/// The clusters of a collection: for every document, its cluster's kept document and its
/// similarity to it (1 for kept documents).
#[derive(Debug, Clone, PartialEq)]
pub struct Clustering {
    /// `kept[i]`: the kept document of document `i`'s cluster (`kept[i] == i` when `i`
    /// is kept). The cluster id is its kept document.
    pub kept: Vec<u32>,
    /// Similarity of document `i` to `kept[i]`.
    pub similarity: Vec<f64>,
}

impl Clustering {
    /// Number of clusters (kept documents).
    pub fn clusters(&self) -> usize {
        self.kept.iter().enumerate().filter(|&(i, &k)| k as usize == i).count()
    }

    /// Documents that are near-duplicates of a kept one.
    pub fn duplicates(&self) -> usize {
        self.kept.len() - self.clusters()
    }
}

/// Clusters `n` documents from candidate pairs `(earlier, later)`.
///
/// Documents are taken in order (index order: the first of a cluster is kept). A document
/// `j` looks at its candidates `c < j`; each candidate stands for its cluster's kept
/// document `kept[c]`, and `j` joins the kept document with the best `score(kept, j)`
/// (ties: the smaller id) if any is `Some`; otherwise `j` is kept. Because every member
/// is verified against the kept document itself, not against the neighbour that led to
/// it, clusters cannot chain (seed 003). Scores are computed in parallel, assignment in
/// order, so the result does not depend on the thread count. `score` must return `Some`
/// only for accepted pairs.
pub fn cluster<F>(n: usize, pairs: &[(u32, u32)], score: F) -> Clustering
where
    F: Fn(u32, u32) -> Option<f64> + Sync,
{
    // Pairs grouped by the later document.
    let mut by_later: Vec<(u32, u32)> =
        pairs.iter().filter(|p| p.0 < p.1 && (p.1 as usize) < n).map(|&(a, b)| (b, a)).collect();
    by_later.par_sort_unstable();
    by_later.dedup();
    let direct: Vec<Option<f64>> = by_later.par_iter().map(|&(j, c)| score(c, j)).collect();
    let mut kept: Vec<u32> = (0..n as u32).collect();
    let mut similarity = vec![1.0; n];
    let mut i = 0;
    let mut tried: Vec<(u32, Option<f64>)> = Vec::new();
    while i < by_later.len() {
        let j = by_later[i].0;
        tried.clear();
        let mut best: Option<(f64, u32)> = None;
        while i < by_later.len() && by_later[i].0 == j {
            let c = by_later[i].1;
            let r = kept[c as usize];
            let s = if r == c {
                direct[i]
            } else if let Some(&(_, s)) = tried.iter().find(|t| t.0 == r) {
                s
            } else {
                score(r, j)
            };
            tried.push((r, s));
            if let Some(s) = s
                && best.is_none_or(|(bs, br)| s > bs || (s == bs && r < br))
            {
                best = Some((s, r));
            }
            i += 1;
        }
        if let Some((s, r)) = best {
            kept[j as usize] = r;
            similarity[j as usize] = s;
        }
    }
    Clustering { kept, similarity }
}

/// Clusters MinHash signatures: candidates share an LSH band of `params`, and a document
/// joins a kept one when their estimated Jaccard similarity is at least `threshold`.
pub fn cluster_minhash(signatures: &[Signature], params: LshParams, threshold: f64) -> Result<Clustering> {
    if let Some(s) = signatures.first() {
        params.validate(s.0.len())?;
    }
    let pairs = candidate_pairs(signatures, params);
    Ok(cluster(signatures.len(), &pairs, |a, b| {
        let s = signatures[a as usize].jaccard(&signatures[b as usize]);
        (s >= threshold).then_some(s)
    }))
}

/// Clusters SimHash fingerprints (`None`: an empty document, never clustered): a
/// document joins a kept one within Hamming distance `max_distance`; the similarity is
/// `1 - distance / 64`. Candidates come from the permuted tables (a design for the
/// collection's size), after collapsing identical fingerprints.
pub fn cluster_simhash(fps: &[Option<u64>], max_distance: u32) -> Result<Clustering> {
    // Identical fingerprints: one representative (the first) per distinct value.
    let mut order: Vec<(u64, u32)> = fps.iter().enumerate().filter_map(|(i, f)| f.map(|f| (f, i as u32))).collect();
    order.par_sort_unstable();
    let mut distinct: Vec<u64> = Vec::new();
    let mut first: Vec<u32> = Vec::new();
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for group in order.chunk_by(|a, b| a.0 == b.0) {
        distinct.push(group[0].0);
        first.push(group[0].1);
        pairs.extend(group[1..].iter().map(|&(_, i)| (group[0].1, i)));
    }
    let design = TableDesign::choose(max_distance, distinct.len() as u64)?;
    pairs.extend(all_pairs(&distinct, &design).into_iter().map(|(a, b)| {
        let (x, y) = (first[a as usize], first[b as usize]);
        (x.min(y), x.max(y))
    }));
    pairs.par_sort_unstable();
    Ok(cluster(fps.len(), &pairs, |a, b| match (fps[a as usize], fps[b as usize]) {
        (Some(x), Some(y)) => {
            let d = hamming(x, y);
            (d <= max_distance).then(|| 1.0 - f64::from(d) / 64.0)
        }
        _ => None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;
    use proptest::prelude::*;

    #[test]
    fn no_chaining_through_a_neighbour() {
        // 0 ~ 1 and 1 ~ 2, but 0 !~ 2: 2 must not join 0's cluster through 1.
        let near = |a: u32, b: u32| (a.abs_diff(b) == 1).then_some(0.9);
        let c = cluster(3, &[(0, 1), (1, 2)], near);
        assert_eq!(c.kept, [0, 0, 2]);
        assert_eq!(c.clusters(), 2);
        assert_eq!(c.duplicates(), 1);
    }

    #[test]
    fn simhash_clusters_copies_and_neighbours() {
        let fps = [Some(0b1111u64), Some(u64::MAX), Some(0b1111), Some(0b0111), None, Some(0)];
        let c = cluster_simhash(&fps, 3).unwrap();
        // 5 is within 3 of document 3 (0b0111), but 3 joined 0 and 5 is 4 away from 0:
        // verified against the kept document, 5 stays alone.
        assert_eq!(c.kept, [0, 1, 0, 0, 4, 5]);
        assert!((c.similarity[3] - (1.0 - 1.0 / 64.0)).abs() < 1e-12);
    }

    fn random_points(seed: u64, n: usize) -> Vec<u64> {
        let mut rng = SplitMix64::new(seed);
        let mut v: Vec<u64> = Vec::with_capacity(n);
        for i in 0..n {
            let r = rng.next_u64();
            if i > 0 && !r.is_multiple_of(3) {
                let mut f = v[(r as usize / 3) % i];
                for _ in 0..rng.next_u64() % 6 {
                    f ^= 1 << (rng.next_u64() % 64);
                }
                v.push(f);
            } else {
                v.push(rng.next_u64());
            }
        }
        v
    }

    proptest! {
        #[test]
        fn clusters_are_verified_and_deterministic(seed in any::<u64>(), n in 1usize..150, k in 0u32..5) {
            let fps: Vec<Option<u64>> = random_points(seed, n).into_iter().map(Some).collect();
            let c = cluster_simhash(&fps, k).unwrap();
            for (i, &r) in c.kept.iter().enumerate() {
                // Kept documents are their own cluster; members are within k of the kept one.
                prop_assert_eq!(c.kept[r as usize], r);
                prop_assert!(r as usize <= i);
                prop_assert!(hamming(fps[i].unwrap(), fps[r as usize].unwrap()) <= k);
            }
            // Two kept documents are never within k of each other when one found the
            // other's cluster as a candidate: with exact candidates (tables), never.
            let kept: Vec<u64> = c.kept.iter().enumerate().filter(|&(i, &r)| r as usize == i).map(|(i, _)| fps[i].unwrap()).collect();
            for a in 0..kept.len() {
                for b in a + 1..kept.len() {
                    prop_assert!(hamming(kept[a], kept[b]) > k);
                }
            }
            let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
            let three = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
            prop_assert_eq!(one.install(|| cluster_simhash(&fps, k).unwrap()), c.clone());
            prop_assert_eq!(three.install(|| cluster_simhash(&fps, k).unwrap()), c);
        }
    }
}
