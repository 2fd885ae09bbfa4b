//! Errors of this crate.

use crate::MAX_SHINGLE_SIZE;

/// Errors of this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The shingle size is zero or too large.
    #[error("shingle size must be between 1 and {MAX_SHINGLE_SIZE}, got {0}")]
    ShingleSize(usize),
    /// The normalizer settings are invalid.
    #[error(transparent)]
    Normalizer(#[from] tessera_normalize::Error),
    /// The built-in WordNet table could not be read.
    #[error("synonyms: {0}")]
    Synonyms(String),
    /// A bilingual dictionary is missing, unreadable or damaged (the message names the
    /// file or the folders searched).
    #[error("dictionary: {0}")]
    Dictionary(String),
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
