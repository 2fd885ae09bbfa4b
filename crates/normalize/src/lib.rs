//! Normalization (canonicalisation): turn a text into canonical word tokens that keep
//! their byte span in the original text.
//!
//! SKELETON: the public API below is the contract other crates build on; bodies are
//! being written.

use serde::{Deserialize, Serialize};

/// A half-open byte range `[start, end)` in an original text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

/// One canonical word of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    /// Byte span of the word in the original text.
    pub span: Span,
    /// `xxh3_64` (seed 0) of the canonical term's UTF-8 bytes.
    pub term: u64,
}

/// The result of normalizing one text.
#[derive(Debug, Clone, Default)]
pub struct Normalized {
    /// Canonical tokens in text order.
    pub tokens: Vec<Token>,
}

/// Normalizer settings. Everything here changes fingerprints, so it is stored in the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct NormalizerConfig {
    /// Drop stop words.
    pub stop_words: bool,
    /// Reduce words to Snowball stems.
    pub stemming: bool,
}

impl Default for NormalizerConfig {
    fn default() -> Self {
        Self { stop_words: true, stemming: true }
    }
}

/// Errors of this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A setting is out of range.
    #[error("invalid normalizer setting: {0}")]
    Config(String),
}

/// A built normalizer. Holds a per-instance cache; clone one per thread.
#[derive(Debug, Clone)]
pub struct Normalizer {
    config: NormalizerConfig,
}

impl Normalizer {
    /// Validates the settings and builds the normalizer.
    pub fn new(config: NormalizerConfig) -> Result<Self, Error> {
        Ok(Self { config })
    }

    /// The settings this normalizer was built from.
    pub fn config(&self) -> &NormalizerConfig {
        &self.config
    }

    /// Normalizes a text.
    pub fn normalize(&mut self, _text: &str) -> Normalized {
        unimplemented!("skeleton")
    }
}
