//! [`MinHashPlan`]: the MinHash side of a dedup run in pieces, for one machine and for
//! a distributed job alike.

use rayon::prelude::*;
use tessera_near::{Clustering, LshParams, MinHashConfig, MinHasher, Signature};

use super::{CANDIDATE_RECALL, DedupConfig, RECALL_MARGIN, check_threshold, round_similarity};
use crate::{Error, Fingerprinter, Fingerprinters, Result, SketchInput};

/// The MinHash side of a dedup run, piece by piece: signatures of texts, band keys,
/// the pairs a bucket of band-sharing documents gives, and the no-chaining clustering of
/// a set of documents in order. [`Deduplicator`](super::Deduplicator) runs them on one machine; a job that
/// spreads the work over a cluster (the Spark job of the Python package) runs the same
/// pieces where its data is, so both give the same answer:
///
/// 1. [`MinHashPlan::signatures`] per document;
/// 2. [`MinHashPlan::band_keys`]: documents sharing a key of one band are a bucket;
/// 3. [`MinHashPlan::bucket_pairs`]: the candidate pairs of a bucket, members in
///    document order;
/// 4. [`MinHashPlan::cluster`] on each connected component of the candidate pairs (the
///    rule only follows candidate pairs, so components are independent), members in
///    document order.
#[derive(Debug, Clone)]
pub struct MinHashPlan {
    config: DedupConfig,
    pub(super) hasher: MinHasher,
    pub(super) params: LshParams,
    pub(super) fingerprinters: Fingerprinters,
}

impl MinHashPlan {
    /// Checks the MinHash settings of `config` (its method is not looked at) and chooses
    /// the LSH bands for its threshold.
    pub fn new(config: &DedupConfig) -> Result<Self> {
        let near = |e: tessera_near::Error| Error::Settings(e.to_string());
        check_threshold(config.threshold)?;
        let hasher = MinHasher::new(MinHashConfig { num_perm: config.num_perm, seed: config.seed }).map_err(near)?;
        let params =
            LshParams::for_recall(config.threshold, config.num_perm, RECALL_MARGIN, CANDIDATE_RECALL).map_err(near)?;
        let fingerprinters = Fingerprinters::new(Fingerprinter::new(&config.fingerprint)?);
        Ok(Self { config: config.clone(), hasher, params, fingerprinters })
    }

    /// The settings.
    pub fn config(&self) -> &DedupConfig {
        &self.config
    }

    /// LSH bands.
    pub fn bands(&self) -> usize {
        self.params.bands
    }

    /// Values per band.
    pub fn rows(&self) -> usize {
        self.params.rows
    }

    fn sketch_input(&self, fp: &mut Fingerprinter, text: &str) -> SketchInput {
        fp.sketch_input(text, self.config.short_words)
    }

    /// The signature of one text: Tessera's normalizer, word shingles of the configured
    /// size (cyclic ones for short texts), MinHash. A text without terms has the empty
    /// signature (every value `u32::MAX`), which is never a candidate.
    pub fn signature(&self, text: &str) -> Signature {
        self.fingerprinters.with(|fp| self.hasher.sign(&self.sketch_input(fp, text).shingles))
    }

    /// The signatures of texts, in parallel, in order.
    pub fn signatures(&self, texts: &[&str]) -> Vec<Signature> {
        texts.par_iter().map(|t| self.signature(t)).collect()
    }

    /// The set whose Jaccard similarity the threshold is about: the text's distinct
    /// shingle hashes (sorted), as [`MinHashPlan::signature`] sees them.
    pub fn shingle_set(&self, text: &str) -> Vec<u64> {
        self.fingerprinters.with(|fp| tessera_near::shingle_set(&self.sketch_input(fp, text).shingles))
    }

    /// The key of each band of a signature; `None` for an empty signature or one of
    /// another length (it takes part in no band).
    pub fn band_keys(&self, signature: &Signature) -> Option<Vec<u64>> {
        (signature.0.len() == self.config.num_perm && self.params.fits(signature))
            .then(|| self.params.band_keys(signature))
    }

    /// The candidate pairs `(earlier, later)` of positions in a bucket of `len`
    /// documents that share one band key, listed in document order (each document is
    /// paired with its nearest predecessors, at most
    /// [`tessera_near::MAX_BUCKET_PREDECESSORS`]).
    pub fn bucket_pairs(len: usize) -> Vec<(u32, u32)> {
        tessera_near::bucket_positions(len).map(|(a, b)| (a as u32, b as u32)).collect()
    }

    /// Clusters documents (`signatures` in document order) from their candidate pairs
    /// `(earlier, later)` (positions; others are ignored): for each document, the
    /// position of its cluster's kept document and its similarity to it, rounded as
    /// `tessera dedup` prints it. Every member is compared with its kept document itself
    /// (estimated Jaccard at least the threshold), so clusters do not chain.
    pub fn cluster(&self, signatures: &[Signature], pairs: &[(u32, u32)]) -> Vec<(u32, f64)> {
        let clustering = self.cluster_signatures(signatures, pairs);
        clustering.kept.iter().zip(&clustering.similarity).map(|(&k, &s)| (k, round_similarity(s))).collect()
    }

    /// [`MinHashPlan::cluster`] with the exact similarity: `sets` are the documents'
    /// [`MinHashPlan::shingle_set`]s, in document order.
    pub fn cluster_sets(&self, sets: &[Vec<u64>], pairs: &[(u32, u32)]) -> Vec<(u32, f64)> {
        let clustering = self.cluster_exact(sets, pairs);
        clustering.kept.iter().zip(&clustering.similarity).map(|(&k, &s)| (k, round_similarity(s))).collect()
    }

    /// [`MinHashPlan::cluster_sets`] from the documents' texts (in document order): the
    /// exact verification a distributed job runs on a component, whose texts it joined
    /// back, so that its answer equals `tessera dedup`'s default (exact) one.
    pub fn cluster_texts(&self, texts: &[&str], pairs: &[(u32, u32)]) -> Vec<(u32, f64)> {
        let sets: Vec<Vec<u64>> = texts.par_iter().map(|t| self.shingle_set(t)).collect();
        self.cluster_sets(&sets, pairs)
    }

    pub(super) fn cluster_exact<S: AsRef<[u64]> + Sync>(&self, sets: &[S], pairs: &[(u32, u32)]) -> Clustering {
        let t = self.config.threshold;
        tessera_near::cluster(sets.len(), pairs, |a, b| {
            let s = tessera_near::jaccard(sets[a as usize].as_ref(), sets[b as usize].as_ref());
            (s >= t).then_some(s)
        })
    }

    pub(super) fn cluster_signatures(&self, signatures: &[Signature], pairs: &[(u32, u32)]) -> Clustering {
        let t = self.config.threshold;
        tessera_near::cluster(signatures.len(), pairs, |a, b| {
            let s = signatures[a as usize].jaccard(&signatures[b as usize]);
            (s >= t).then_some(s)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Deduplicator, Verified, Verify};
    use tessera_extract::ExtractConfig;

    fn text(seed: u64, n: usize) -> String {
        tessera_test_support::words::text(seed, n, 3, 6)
    }

    /// The pieces of [`MinHashPlan`] run as a distributed job runs them (buckets by band
    /// key, pairs per bucket, clustering per connected component) give exactly the
    /// one-machine answer.
    #[test]
    fn the_plan_run_by_components_equals_the_deduplicator() {
        // Families of edited copies (chains a ~ b ~ c where a !~ c too), exact copies
        // (buckets longer than the predecessor cap), empty and short texts.
        let mut docs: Vec<String> = Vec::new();
        for family in 0..12u64 {
            let base = text(100 + family, 120);
            let words: Vec<&str> = base.split(' ').collect();
            for edit in 0..6usize {
                let mut w = words.clone();
                for k in 0..edit * 4 {
                    let n = w.len();
                    w[(k * 7 + edit) % n] = "zzedit";
                }
                docs.push(w.join(" "));
            }
        }
        for _ in 0..(tessera_near::MAX_BUCKET_PREDECESSORS + 10) {
            docs.push(text(7, 80));
        }
        docs.extend(["".to_owned(), "one two".to_owned(), text(8, 5)]);
        let batch: Vec<(String, String)> = docs.iter().enumerate().map(|(i, t)| (i.to_string(), t.clone())).collect();
        for (threshold, verify) in
            [(0.5, Verify::Estimate), (0.8, Verify::Estimate), (0.5, Verify::Auto), (0.8, Verify::Exact)]
        {
            let config = DedupConfig { threshold, verify, ..DedupConfig::default() };
            let mut d = Deduplicator::new(config.clone(), ExtractConfig::default()).unwrap();
            d.add_texts(&batch);
            let expected = d.finish().unwrap();

            let plan = MinHashPlan::new(&config).unwrap();
            let texts: Vec<&str> = docs.iter().map(String::as_str).collect();
            let sigs = plan.signatures(&texts);
            let mut buckets: std::collections::BTreeMap<(usize, u64), Vec<u32>> = Default::default();
            for (doc, sig) in sigs.iter().enumerate() {
                for (band, key) in plan.band_keys(sig).into_iter().flatten().enumerate() {
                    buckets.entry((band, key)).or_default().push(doc as u32);
                }
            }
            let mut parent: Vec<u32> = (0..docs.len() as u32).collect();
            fn root(p: &mut [u32], mut x: u32) -> u32 {
                while p[x as usize] != x {
                    x = p[x as usize];
                }
                x
            }
            let mut edges = Vec::new();
            for members in buckets.values() {
                for (a, b) in MinHashPlan::bucket_pairs(members.len()) {
                    let (a, b) = (members[a as usize], members[b as usize]);
                    edges.push((a, b));
                    let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                    parent[ra.max(rb) as usize] = ra.min(rb);
                }
            }
            let mut components: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
            for doc in 0..docs.len() as u32 {
                let r = root(&mut parent, doc);
                components.entry(r).or_default().push(doc);
            }
            let mut got = vec![(0u32, 1.0f64); docs.len()];
            for members in components.values() {
                let local = |d: u32| members.binary_search(&d).unwrap() as u32;
                let pairs: Vec<(u32, u32)> = edges
                    .iter()
                    .filter(|(a, _)| members.binary_search(a).is_ok())
                    .map(|&(a, b)| (local(a), local(b)))
                    .collect();
                let comp_sigs: Vec<Signature> = members.iter().map(|&d| sigs[d as usize].clone()).collect();
                let clustered = if verify == Verify::Estimate {
                    plan.cluster(&comp_sigs, &pairs)
                } else {
                    let texts: Vec<&str> = members.iter().map(|&d| docs[d as usize].as_str()).collect();
                    plan.cluster_texts(&texts, &pairs)
                };
                for (i, (kept, sim)) in clustered.into_iter().enumerate() {
                    got[members[i] as usize] = (members[kept as usize], sim);
                }
            }
            let want: Vec<(u32, f64)> =
                expected.lines.iter().map(|l| (l.cluster.parse().unwrap(), l.similarity)).collect();
            assert_eq!(got, want, "threshold {threshold} {verify:?}");
            let exact = if verify == Verify::Estimate { Verified::Estimate } else { Verified::Exact };
            assert_eq!(expected.summary.verified, Some(exact));
            assert!(expected.summary.duplicates_removed > 70, "{:?}", expected.summary);
        }
    }
}
