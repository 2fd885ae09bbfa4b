//! Near-duplicate detection: sketches of documents and clustering.
//!
//! # Overview
//! Everything here works on the 64-bit word-shingle hashes of
//! [`tessera_fingerprint::Shingler`] (or, for SimHash and lexical signatures, on the
//! normalizer's term hashes), so it shares the engine's normalization:
//! - [`MinHasher`]: MinHash [`Signature`]s with N functions (128 by default) of a
//!   documented multiply-add-shift family; [`LshParams`] cuts them into bands (chosen
//!   from a threshold by minimising weighted false-positive and false-negative areas),
//!   [`LshIndex`] and [`candidate_pairs`] find documents sharing a band.
//! - Samples: [`bottom_k`] and "hash mod M" ([`mod_m`], with a log-size floor for short
//!   documents). Sketches of short documents take cyclic shingles, which the fingerprint
//!   stage makes ([`tessera_fingerprint::shingles_for_sketch`]).
//! - [`simhash`]: 64-bit SimHash with tf-idf weights ([`Idf`]); [`SimhashTables`] and
//!   [`all_pairs`] find fingerprints within Hamming distance `k` with Manku, Jain and Das
//!   Sarma's permuted sorted tables ([`TableDesign`] picks the tables from `k` and the
//!   collection size); the results equal a brute-force scan.
//! - Lexical signatures: [`local_signature`] (top-k frequent terms) and
//!   [`global_signature`] (top-k tf-idf).
//! - Similarities: estimated ([`Signature::jaccard`]) and exact ([`jaccard`]) Jaccard,
//!   [`containment`] both ways, cosine of character-shingle profiles ([`CharProfile`]).
//! - [`cluster`]: candidate pairs verified against the kept document of each cluster
//!   (no chaining), deterministic whatever the thread count; [`cluster_minhash`] and
//!   [`cluster_simhash`] wire the candidates and the checks.
//!
//! # Example
//! ```
//! use tessera_near::{LshParams, MinHashConfig, MinHasher, cluster_minhash};
//!
//! let hasher = MinHasher::new(MinHashConfig::default())?;
//! let doc: Vec<u64> = (0..300u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
//! let mut copy = doc.clone();
//! copy[10] = 42; // one shingle edited
//! let other: Vec<u64> = (1000..1300u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
//! let signatures = [hasher.sign(&doc), hasher.sign(&other), hasher.sign(&copy)];
//! let params = LshParams::optimal(0.8, 128, 0.5, 0.5)?;
//! let clusters = cluster_minhash(&signatures, params, 0.8)?;
//! assert_eq!(clusters.kept, [0, 1, 0]);
//! # Ok::<(), tessera_near::Error>(())
//! ```
//!
//! This crate owns the algorithms only: it reads and writes no file. The on-disk sketch
//! store (band and SimHash tables in segments) is a component of the index's segment
//! layer, `tessera_index::sketch`, which builds its tables with the types here
//! ([`LshParams::band_key`], [`TableDesign::permutations`]).
//!
//! # When to use this
//! To deduplicate a collection (`tessera dedup`), or to ask whether a document is a
//! near-copy of one already seen. For finding *which passages* were borrowed, use the
//! search stage instead: sketches say "these documents are alike", not where.
#![deny(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod cluster;
mod error;
mod lexical;
mod lsh;
mod minhash;
mod rng;
mod sample;
mod simhash;
mod simhash_tables;
mod similarity;

pub use cluster::{Clustering, cluster, cluster_minhash, cluster_simhash};
pub use error::{Error, Result};
pub use lexical::{global_signature, local_signature, signature_overlap};
pub use lsh::{LshIndex, LshParams, MAX_BUCKET_PREDECESSORS, bucket_positions, candidate_pairs, candidate_probability};
pub use minhash::{MAX_PERMUTATIONS, MinHashConfig, MinHasher, Signature};
pub use rng::{SplitMix64, mix64};
pub use sample::{bottom_k, bottom_k_jaccard, mod_m, mod_m_containment};
pub use simhash::{Idf, hamming, simhash, simhash_weighted, term_frequencies};
pub use simhash_tables::{
    MAX_DISTANCE, MAX_TABLES, Permutation, SimhashTables, TableDesign, all_pairs, all_pairs_brute_force,
};
pub use similarity::{CharProfile, Similarities, containment, intersection, jaccard, shingle_set};
