//! LSH bands (supershingles) over MinHash signatures.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::Signature;
use crate::error::{Result, config};

/// Bands and rows: a signature of `bands * rows` values (or more; the rest is unused) is
/// cut into `bands` bands of `rows` consecutive values; two documents are candidates when
/// one whole band agrees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LshParams {
    /// Number of bands.
    pub bands: usize,
    /// Values per band.
    pub rows: usize,
}

/// Probability that two documents of Jaccard similarity `s` share at least one band.
pub fn candidate_probability(s: f64, params: LshParams) -> f64 {
    1.0 - (1.0 - s.powi(params.rows as i32)).powi(params.bands as i32)
}

fn check_threshold_and_perm(threshold: f64, num_perm: usize) -> Result<()> {
    if !(threshold > 0.0 && threshold < 1.0) {
        return Err(config("threshold", format!("must be strictly between 0 and 1, got {threshold}")));
    }
    if num_perm == 0 {
        return Err(config("num_perm", "must be at least 1"));
    }
    Ok(())
}

/// Composite Simpson's rule with 200 intervals (the integrands are smooth polynomials).
fn integrate(f: impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    const N: usize = 200;
    let h = (b - a) / N as f64;
    let mut sum = f(a) + f(b);
    for i in 1..N {
        let w = if i % 2 == 1 { 4.0 } else { 2.0 };
        sum += w * f(a + h * i as f64);
    }
    sum * h / 3.0
}

impl LshParams {
    /// Bands and rows for a Jaccard `threshold` with `num_perm` functions, minimising
    /// `fp_weight * FP + fn_weight * FN` over all `bands * rows <= num_perm`, where
    /// `FP = ∫_0^t P(s) ds` and `FN = ∫_t^1 (1 - P(s)) ds` with `P(s) = 1 - (1 - s^r)^b`
    /// (the areas under and above the S-curve on the wrong side of the threshold; the
    /// same criterion as datasketch's `MinHashLSH`). Ties keep the first `(b, r)` in
    /// order of increasing `b`, then `r`.
    pub fn optimal(threshold: f64, num_perm: usize, fp_weight: f64, fn_weight: f64) -> Result<Self> {
        check_threshold_and_perm(threshold, num_perm)?;
        if !(fp_weight >= 0.0 && fn_weight >= 0.0 && fp_weight + fn_weight > 0.0) {
            return Err(config("weights", "must be non-negative and not both zero"));
        }
        let mut best = (f64::INFINITY, Self { bands: 1, rows: num_perm });
        for bands in 1..=num_perm {
            for rows in 1..=num_perm / bands {
                let p = Self { bands, rows };
                let fp = integrate(|s| candidate_probability(s, p), 0.0, threshold);
                let fne = integrate(|s| 1.0 - candidate_probability(s, p), threshold, 1.0);
                let err = fp_weight * fp + fn_weight * fne;
                if err < best.0 {
                    best = (err, p);
                }
            }
        }
        Ok(best.1)
    }

    /// Bands and rows for a run whose candidates are all verified, so that a missed pair
    /// costs more than a false candidate: among `bands * rows <= num_perm`, those that
    /// make a pair of similarity `threshold + margin` a candidate with probability at
    /// least `recall`, the one with the fewest candidates below the threshold (the least
    /// `∫_0^t P(s) ds`); when none reaches `recall`, the one that comes closest. Ties keep
    /// the first `(b, r)` in order of increasing `b`, then `r`.
    pub fn for_recall(threshold: f64, num_perm: usize, margin: f64, recall: f64) -> Result<Self> {
        check_threshold_and_perm(threshold, num_perm)?;
        let above = (threshold + margin).min(1.0);
        let mut best: Option<(bool, f64, Self)> = None;
        for bands in 1..=num_perm {
            for rows in 1..=num_perm / bands {
                let p = Self { bands, rows };
                let hit = candidate_probability(above, p);
                let ok = hit >= recall;
                // Enough recall: fewer false candidates is better; else more recall is.
                let cost = if ok { integrate(|s| candidate_probability(s, p), 0.0, threshold) } else { -hit };
                if best.is_none_or(|(bok, bcost, _)| (ok && !bok) || (ok == bok && cost < bcost)) {
                    best = Some((ok, cost, p));
                }
            }
        }
        best.map(|b| b.2).ok_or_else(|| config("num_perm", "must be at least 1"))
    }

    /// Checks that signatures of `num_perm` values have room for these bands.
    pub fn validate(&self, num_perm: usize) -> Result<()> {
        if self.bands == 0 || self.rows == 0 || self.bands * self.rows > num_perm {
            return Err(config(
                "bands",
                format!("{} bands of {} rows do not fit {num_perm} functions", self.bands, self.rows),
            ));
        }
        Ok(())
    }

    /// True when `sig` is not empty and has room for every band (others take part in no
    /// band: they are never candidates).
    pub fn fits(&self, sig: &Signature) -> bool {
        !sig.is_empty() && sig.0.len() >= self.bands * self.rows
    }

    /// The key of every band of a signature (none when it does not [`LshParams::fits`]): `xxh3_64_with_seed(le_bytes(v_{b*r}) ++ ...
    /// ++ le_bytes(v_{b*r+r-1}), seed = b)` for band `b` (4 bytes per value).
    pub fn band_keys(&self, sig: &Signature) -> Vec<u64> {
        if sig.0.len() < self.bands * self.rows {
            return Vec::new();
        }
        (0..self.bands).map(|band| self.band_key(sig, band)).collect()
    }

    /// The key of band `band` (as [`LshParams::band_keys`]) without allocating when a band
    /// holds at most 64 values. `sig` must have room for the band.
    pub fn band_key(&self, sig: &Signature, band: usize) -> u64 {
        let values = &sig.0[band * self.rows..(band + 1) * self.rows];
        let mut stack = [0u8; 256];
        if values.len() * 4 <= stack.len() {
            for (out, v) in stack.chunks_exact_mut(4).zip(values) {
                out.copy_from_slice(&v.to_le_bytes());
            }
            xxh3_64_with_seed(&stack[..values.len() * 4], band as u64)
        } else {
            let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            xxh3_64_with_seed(&bytes, band as u64)
        }
    }
}

/// Candidates a document takes from one bucket at most: its nearest predecessors in the
/// bucket (a bucket of thousands of exact copies would otherwise give millions of pairs,
/// all resolving to the same kept document).
pub const MAX_BUCKET_PREDECESSORS: usize = 64;

/// Candidate pairs `(earlier, later)` of documents that share a band, ascending and
/// distinct. Empty signatures take part in no pair. Each document is paired with up to
/// [`MAX_BUCKET_PREDECESSORS`] earlier documents of each of its buckets.
pub fn candidate_pairs(signatures: &[Signature], params: LshParams) -> Vec<(u32, u32)> {
    let keys: Vec<Option<Vec<u64>>> =
        signatures.par_iter().map(|s| params.fits(s).then(|| params.band_keys(s))).collect();
    let mut pairs: Vec<(u32, u32)> = (0..params.bands)
        .into_par_iter()
        .flat_map_iter(|band| {
            let mut entries: Vec<(u64, u32)> =
                keys.iter().enumerate().filter_map(|(doc, k)| k.as_ref().map(|k| (k[band], doc as u32))).collect();
            entries.sort_unstable();
            bucket_pairs(&entries)
        })
        .collect();
    pairs.par_sort_unstable();
    pairs.dedup();
    pairs
}

fn bucket_pairs(entries: &[(u64, u32)]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for run in entries.chunk_by(|a, b| a.0 == b.0) {
        out.extend(bucket_positions(run.len()).map(|(earlier, later)| (run[earlier].1, run[later].1)));
    }
    out
}

/// The pairs `(earlier, later)` of positions that a bucket of `len` documents (in
/// document order) gives: each document with its [`MAX_BUCKET_PREDECESSORS`] nearest
/// predecessors. The one statement of the rule, for [`candidate_pairs`] and for jobs that
/// group band keys elsewhere (Spark's shuffle).
pub fn bucket_positions(len: usize) -> impl Iterator<Item = (usize, usize)> {
    (1..len).flat_map(|later| (later.saturating_sub(MAX_BUCKET_PREDECESSORS)..later).map(move |e| (e, later)))
}

/// An in-memory LSH index: per band, `(key, document)` sorted by key. Query by binary
/// search; the same sorted layout is what a band table on disk holds.
#[derive(Debug, Clone)]
pub struct LshIndex {
    params: LshParams,
    bands: Vec<Vec<(u64, u32)>>,
}

impl LshIndex {
    /// Builds the index of `signatures` (document `i` is `signatures[i]`); empty
    /// signatures are left out.
    pub fn build(signatures: &[Signature], params: LshParams) -> Self {
        let keys: Vec<Option<Vec<u64>>> =
            signatures.par_iter().map(|s| params.fits(s).then(|| params.band_keys(s))).collect();
        let bands = (0..params.bands)
            .into_par_iter()
            .map(|band| {
                let mut v: Vec<(u64, u32)> =
                    keys.iter().enumerate().filter_map(|(doc, k)| k.as_ref().map(|k| (k[band], doc as u32))).collect();
                v.sort_unstable();
                v
            })
            .collect();
        Self { params, bands }
    }

    /// Builds from precomputed band keys (`keys[doc][band]`; a document with fewer keys
    /// than bands is left out of the bands it lacks).
    pub fn from_keys(keys: &[Vec<u64>], params: LshParams) -> Self {
        let bands = (0..params.bands)
            .into_par_iter()
            .map(|band| {
                let mut v: Vec<(u64, u32)> =
                    keys.iter().enumerate().filter_map(|(doc, k)| k.get(band).map(|&key| (key, doc as u32))).collect();
                v.sort_unstable();
                v
            })
            .collect();
        Self { params, bands }
    }

    /// The parameters.
    pub fn params(&self) -> LshParams {
        self.params
    }

    /// Documents sharing at least one band with `sig`, ascending and distinct.
    pub fn query(&self, sig: &Signature) -> Vec<u32> {
        if !self.params.fits(sig) {
            return Vec::new();
        }
        let keys = self.params.band_keys(sig);
        let mut out = Vec::new();
        for (band, key) in self.bands.iter().zip(keys) {
            let start = band.partition_point(|e| e.0 < key);
            out.extend(band[start..].iter().take_while(|e| e.0 == key).map(|e| e.1));
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn bands_for_recall_find_pairs_just_above_the_threshold() {
        for (t, perm) in [(0.5, 128), (0.8, 128), (0.9, 256), (0.7, 64)] {
            let p = LshParams::for_recall(t, perm, 0.03, 0.995).unwrap();
            assert!(p.bands * p.rows <= perm);
            assert!(candidate_probability(t + 0.03, p) >= 0.995, "{t} {p:?}");
            // More bands of the same rows would only add false candidates.
            let balanced = LshParams::optimal(t, perm, 0.5, 0.5).unwrap();
            assert!(candidate_probability(t + 0.03, p) > candidate_probability(t + 0.03, balanced), "{t}");
        }
        assert_eq!(LshParams::for_recall(0.8, 128, 0.03, 0.995).unwrap(), LshParams { bands: 17, rows: 7 });
        assert!(LshParams::for_recall(1.5, 128, 0.03, 0.995).is_err());
    }
    use super::*;
    use crate::{MinHashConfig, MinHasher};

    #[test]
    fn optimal_params_match_datasketch() {
        // datasketch's MinHashLSH(threshold=t, num_perm=128) (weights 0.5 / 0.5) picks
        // b=9, r=13 at 0.8; b=25, r=5 at 0.5; b=5, r=25 at 0.9.
        assert_eq!(LshParams::optimal(0.8, 128, 0.5, 0.5).unwrap(), LshParams { bands: 9, rows: 13 });
        assert_eq!(LshParams::optimal(0.5, 128, 0.5, 0.5).unwrap(), LshParams { bands: 25, rows: 5 });
        assert_eq!(LshParams::optimal(0.9, 128, 0.5, 0.5).unwrap(), LshParams { bands: 5, rows: 25 });
        assert!(LshParams::optimal(1.0, 128, 0.5, 0.5).is_err());
        assert!(LshParams::optimal(0.5, 0, 0.5, 0.5).is_err());
    }

    #[test]
    fn s_curve_is_monotonic() {
        let p = LshParams { bands: 9, rows: 13 };
        assert!(candidate_probability(0.9, p) > 0.9);
        assert!(candidate_probability(0.5, p) < 0.01);
    }

    #[test]
    fn query_finds_near_copies_and_pairs_agree() {
        let h = MinHasher::new(MinHashConfig::default()).unwrap();
        let base: Vec<u64> = (0..500u64).map(crate::rng::mix64).collect();
        let mut near = base.clone();
        near[3] = 1;
        let other: Vec<u64> = (1000..1500u64).map(crate::rng::mix64).collect();
        let sigs = vec![h.sign(&base), h.sign(&other), h.sign(&near), h.sign(&[])];
        let p = LshParams::optimal(0.8, 128, 0.5, 0.5).unwrap();
        let idx = LshIndex::build(&sigs, p);
        assert_eq!(idx.query(&sigs[0]), [0, 2]);
        assert_eq!(idx.query(&sigs[3]), Vec::<u32>::new());
        assert_eq!(candidate_pairs(&sigs, p), [(0, 2)]);
        let keys: Vec<Vec<u64>> = sigs[..3].iter().map(|s| p.band_keys(s)).collect();
        assert_eq!(LshIndex::from_keys(&keys, p).query(&sigs[2]), [0, 2]);
        // A signature too short for the bands is never a candidate, and never panics.
        let short = Signature(vec![1; 10]);
        assert!(idx.query(&short).is_empty());
        assert_eq!(candidate_pairs(&[short.clone(), short], p), []);
    }
}
