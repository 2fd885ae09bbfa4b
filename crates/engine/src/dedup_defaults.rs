//! The defaults of collection dedup, in one place.
//!
//! [`DedupConfig::default`](crate::DedupConfig) is made of these values, and every surface
//! reads them from here rather than writing them again: the help of `tessera dedup`
//! (clap's `default_value_t`), the keyword arguments of the Python package
//! (`tessera.DEDUP_DEFAULTS`, which `tessera.dedup`, `tessera.sketch`,
//! `tessera.kernels.DedupPlan` and the Spark job use) and its stubs (`_tessera.pyi` states
//! them as literals; a pytest fails when they differ from these). The LSH bands are not a
//! setting: they follow from the threshold ([`RECALL_MARGIN`](crate::RECALL_MARGIN),
//! [`CANDIDATE_RECALL`](crate::CANDIDATE_RECALL)).

use crate::{DedupMethod, Verify};

/// How documents are compared: MinHash.
pub const METHOD: DedupMethod = DedupMethod::Minhash;
/// MinHash: the Jaccard similarity of the shingle sets at which two documents are
/// near-duplicates.
pub const THRESHOLD: f64 = 0.8;
/// SimHash: the largest Hamming distance between near-duplicates.
pub const MAX_DISTANCE: u32 = 3;
/// MinHash: hash functions per signature.
pub const NUM_PERM: usize = 128;
/// MinHash: seed of the hash functions.
pub const SEED: u64 = 1;
/// MinHash: how candidates are verified (exact while the sets fit [`EXACT_BUDGET`]).
pub const VERIFY: Verify = Verify::Auto;
/// MinHash, [`Verify::Auto`]: bytes of shingle sets kept at most for exact verification
/// (2 GiB: about 270 million distinct shingles, a few gigabytes of text).
pub const EXACT_BUDGET: usize = 2 << 30;
/// Texts with fewer terms than this are shingled cyclically (seed 004).
pub const SHORT_WORDS: usize = 10;
/// Words per shingle: the fingerprint settings' default (pinned by a test).
pub const SHINGLE_SIZE: usize = 3;
/// Stop words are dropped: the fingerprint settings' default (pinned by a test).
pub const STOP_WORDS: bool = true;
/// Words are stemmed: the fingerprint settings' default (pinned by a test).
pub const STEMMING: bool = true;
/// Records: the field (column) holding the text.
pub const TEXT_FIELD: &str = "text";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DedupConfig, FingerprintSettings};

    /// The fingerprint defaults named here are the fingerprint settings' own, so a dedup
    /// run with default settings fingerprints as an index with default settings does.
    #[test]
    fn fingerprint_defaults_are_the_settings_defaults() {
        let f = FingerprintSettings::default();
        assert_eq!(f.shingles.size, SHINGLE_SIZE);
        assert_eq!(f.normalizer.stop_words, STOP_WORDS);
        assert_eq!(f.normalizer.stemming, STEMMING);
        assert_eq!(DedupConfig::default().fingerprint, f);
    }
}
