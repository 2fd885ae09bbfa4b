//! Errors of the engine.

use std::path::PathBuf;

/// An engine operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing a file failed.
    #[error("cannot read or write {}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A document could not be extracted.
    #[error(transparent)]
    Extract(#[from] tessera_extract::Error),
    /// The index failed.
    #[error(transparent)]
    Index(#[from] tessera_index::Error),
    /// Search failed.
    #[error(transparent)]
    Search(#[from] tessera_search::Error),
    /// Settings are invalid.
    #[error("invalid settings: {0}")]
    Settings(String),
    /// The index was built with fingerprint settings this version cannot reproduce.
    #[error("{}: index fingerprint settings are unreadable or of another version: {reason}", path.display())]
    IncompatibleIndex {
        /// The index directory.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A named collection does not exist.
    #[error("no collection named {0:?}; see `tessera stats`")]
    UnknownCollection(String),
    /// The index holds no collection to check against.
    #[error("the index at {} holds no documents yet; add some with `tessera index`", .0.display())]
    EmptyIndex(PathBuf),
}

impl From<tessera_normalize::Error> for Error {
    fn from(e: tessera_normalize::Error) -> Self {
        Error::Settings(e.to_string())
    }
}

impl From<tessera_fingerprint::Error> for Error {
    fn from(e: tessera_fingerprint::Error) -> Self {
        Error::Settings(e.to_string())
    }
}

/// The engine's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
