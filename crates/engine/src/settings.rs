//! Settings that change fingerprints: chosen when an index is created, stored in it, and
//! read back for every query so suspects are fingerprinted the way the index was.

use serde::{Deserialize, Serialize};
use tessera_fingerprint::ShingleConfig;
use tessera_normalize::NormalizerConfig;

/// The version of [`FingerprintSettings`]' meaning. A change to normalization or hashing
/// that alters fingerprints bumps it; an index with another version is refused.
pub const FINGERPRINT_VERSION: u32 = 1;

/// Everything that decides a document's fingerprints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FingerprintSettings {
    /// See [`FINGERPRINT_VERSION`].
    pub version: u32,
    /// The normalization rules' version ([`tessera_normalize::FORMAT_VERSION`]): stop
    /// lists, folding and tokenizing rules that this build applies.
    pub normalizer_version: u32,
    /// Normalizer settings.
    pub normalizer: NormalizerConfig,
    /// Shingle settings.
    pub shingles: ShingleConfig,
}

impl Default for FingerprintSettings {
    fn default() -> Self {
        Self {
            version: FINGERPRINT_VERSION,
            normalizer_version: tessera_normalize::FORMAT_VERSION,
            normalizer: NormalizerConfig::default(),
            shingles: ShingleConfig::default(),
        }
    }
}
