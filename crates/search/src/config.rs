//! Search settings.

use serde::{Deserialize, Serialize};

/// Settings of candidate ranking, revision building and alignment.
///
/// These do not change fingerprints, so a query may use other values than the index was
/// built with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SearchConfig {
    /// Stage 1 skips a suspect hash held by more documents than this (boilerplate and
    /// common phrases say nothing about where a text came from). Alignment still uses it.
    pub max_postings_per_hash: usize,
    /// A source becomes a candidate when it shares at least this many distinct suspect
    /// hashes, and stays one while that many are left unexplained.
    pub min_shared_hashes: u32,
    /// At most this many candidates (the best by shared hashes) enter stage 2.
    pub max_candidates: usize,
    /// Rounds of the greedy revision. Seed 000 uses 10-20; web-derived texts share
    /// boilerplate with many documents, and on PAN 2013 a suspect with 20 true sources
    /// also matched a dozen others, so the default leaves room (a round costs one
    /// snapshot read and one alignment, well under a millisecond).
    pub max_rounds: usize,
    /// In a collection of kind `source`, a source is reported only when its blocks cover
    /// at least this many suspect characters: shorter matches are coincidences (lists of
    /// names, a publisher's address, a common phrase), not borrowings. Collections of
    /// kind `citation` hold short expressions by design and have no such minimum.
    pub min_source_chars: usize,
    /// Alignment settings.
    pub align: AlignConfig,
}

impl Default for SearchConfig {
    fn default() -> Self {
        Self {
            max_postings_per_hash: 1000,
            min_shared_hashes: 3,
            max_candidates: 200,
            max_rounds: 100,
            min_source_chars: 150,
            align: AlignConfig::default(),
        }
    }
}

/// How exact shared shingle runs become blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AlignConfig {
    /// Two runs merge into one block when the gap between them is at most this many
    /// shingles in the suspect and in the source.
    pub max_gap: usize,
    /// A block needs at least this many matched shingles.
    pub min_block_shingles: u32,
    /// A source hash occurring more often than this in one source is matched at its first
    /// occurrences only (bounds the work on repetitive texts).
    pub max_occurrences: usize,
}

impl Default for AlignConfig {
    fn default() -> Self {
        Self { max_gap: 16, min_block_shingles: 3, max_occurrences: 64 }
    }
}
