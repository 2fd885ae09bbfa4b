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

/// What kind of failure an [`Error`] is, for surfaces that map errors to statuses or exit
/// codes without knowing the stages' error types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The document's format is not one Tessera reads, or it is binary.
    Unsupported,
    /// The document or one of its parts is larger than a limit allows.
    TooLarge,
    /// The document is empty.
    Empty,
    /// The document cannot be read (damaged, encrypted, a limit of an archive).
    Unreadable,
    /// The input is an archive where one document was expected.
    Archive,
    /// A name or setting given by the caller is not valid (a collection name, a
    /// threshold, a collection's kind or text keeping that differs from the existing).
    Invalid,
    /// No collection of that name.
    UnknownCollection,
    /// No document of that id.
    UnknownDocument,
    /// The index holds no collection yet.
    EmptyIndex,
    /// Another writer holds the index.
    Locked,
    /// Anything else: the index, a file, the system (not the caller's fault).
    Internal,
}

impl Error {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        use tessera_extract::Error as X;
        use tessera_index::Error as I;
        match self {
            Error::Extract(X::Unsupported { .. } | X::Binary { .. }) => ErrorKind::Unsupported,
            Error::Extract(X::TooLarge { .. }) => ErrorKind::TooLarge,
            Error::Extract(X::Empty { .. }) => ErrorKind::Empty,
            Error::Extract(X::Archive { .. }) => ErrorKind::Archive,
            Error::Extract(_) => ErrorKind::Unreadable,
            Error::Index(I::InvalidName(_) | I::CollectionMismatch { .. } | I::InvalidDocument(_))
            | Error::Settings(_) => ErrorKind::Invalid,
            Error::Index(I::UnknownCollection(_)) | Error::UnknownCollection(_) => ErrorKind::UnknownCollection,
            Error::Index(I::UnknownDoc(_)) => ErrorKind::UnknownDocument,
            Error::Index(I::Locked { .. }) => ErrorKind::Locked,
            Error::EmptyIndex(_) => ErrorKind::EmptyIndex,
            _ => ErrorKind::Internal,
        }
    }
}
