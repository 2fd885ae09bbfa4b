//! SimHash (Charikar): a 64-bit fingerprint whose Hamming distance tracks the weighted
//! cosine distance of the feature vectors, with tf-idf weights.

use foldhash::HashMap;

use crate::rng::mix64;

/// Document frequencies of features (term hashes) over a collection, for idf weights.
#[derive(Debug, Clone, Default)]
pub struct Idf {
    df: HashMap<u64, u32>,
    docs: u64,
}

impl Idf {
    /// An empty table (every idf is then 1).
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts one document's distinct features.
    pub fn add_document(&mut self, features: &[u64]) {
        let mut distinct = features.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        for f in distinct {
            *self.df.entry(f).or_insert(0) += 1;
        }
        self.docs += 1;
    }

    /// Merges another table (for parallel counting).
    pub fn merge(&mut self, other: Idf) {
        for (f, n) in other.df {
            *self.df.entry(f).or_insert(0) += n;
        }
        self.docs += other.docs;
    }

    /// Documents counted.
    pub fn documents(&self) -> u64 {
        self.docs
    }

    /// `idf(f) = ln((1 + N) / (1 + df(f))) + 1` (smoothed, always positive); 1 with no
    /// documents counted.
    pub fn idf(&self, feature: u64) -> f64 {
        if self.docs == 0 {
            return 1.0;
        }
        let df = self.df.get(&feature).copied().unwrap_or(0);
        ((1.0 + self.docs as f64) / (1.0 + f64::from(df))).ln() + 1.0
    }
}

/// Per distinct feature its count, ascending by feature.
pub fn term_frequencies(features: &[u64]) -> Vec<(u64, u32)> {
    let mut sorted = features.to_vec();
    sorted.sort_unstable();
    let mut out: Vec<(u64, u32)> = Vec::new();
    for f in sorted {
        match out.last_mut() {
            Some((last, c)) if *last == f => *c += 1,
            _ => out.push((f, 1)),
        }
    }
    out
}

/// The SimHash of weighted features: each feature `f` is spread to 64 bits by
/// SplitMix64's mixer (`mix64(f)`: term hashes are xxh3 values already, the mix keeps
/// the bits of related features independent), bit `i` of the result is set when the sum
/// of `+w` over features with bit `i` set and `-w` over the others is positive. No
/// feature (or all weights zero) gives 0.
pub fn simhash_weighted(features: &[(u64, f64)]) -> u64 {
    let mut acc = [0f64; 64];
    for &(f, w) in features {
        let h = mix64(f);
        for (i, a) in acc.iter_mut().enumerate() {
            // Branch-free so the loop vectorises: +w for a set bit, -w otherwise.
            let bit = ((h >> i) & 1) as f64;
            *a += w * (2.0 * bit - 1.0);
        }
    }
    acc.iter().enumerate().fold(0u64, |fp, (i, &a)| if a > 0.0 { fp | (1 << i) } else { fp })
}

/// The SimHash of a document's features (term hashes) with `tf * idf` weights.
pub fn simhash(features: &[u64], idf: &Idf) -> u64 {
    let weighted: Vec<(u64, f64)> =
        term_frequencies(features).into_iter().map(|(f, tf)| (f, f64::from(tf) * idf.idf(f))).collect();
    simhash_weighted(&weighted)
}

/// Hamming distance of two fingerprints.
pub fn hamming(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similar_documents_are_close() {
        let doc: Vec<u64> = (0..400u64).map(|i| mix64(i % 150)).collect();
        let mut edited = doc.clone();
        for x in edited.iter_mut().step_by(80) {
            *x = 7;
        }
        let other: Vec<u64> = (0..400u64).map(|i| mix64(1000 + i % 150)).collect();
        let idf = Idf::new();
        let (a, b, c) = (simhash(&doc, &idf), simhash(&edited, &idf), simhash(&other, &idf));
        assert!(hamming(a, b) <= 6, "{}", hamming(a, b));
        assert!(hamming(a, c) > 16, "{}", hamming(a, c));
        assert_eq!(simhash(&[], &idf), 0);
    }

    #[test]
    fn idf_weights_rare_features_more() {
        let mut idf = Idf::new();
        idf.add_document(&[1, 2, 2]);
        let mut other = Idf::new();
        other.add_document(&[1, 3]);
        idf.merge(other);
        assert_eq!(idf.documents(), 2);
        assert!(idf.idf(2) > idf.idf(1));
        assert!(idf.idf(99) > idf.idf(2));
        assert_eq!(term_frequencies(&[5, 3, 5]), [(3, 1), (5, 2)]);
    }
}
