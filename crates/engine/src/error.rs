//! Errors of the engine.

use std::path::PathBuf;

/// An engine operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing a file failed. The cause names the file and the system's reason
    /// (it comes from `fs_err`), so the message is the cause's.
    #[error("{source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause, naming the file.
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
    /// Another process holds the index's writer.
    #[error(
        "the index at {} is being written by another process; one process writes an index at a time, and a running \
         `tessera serve` keeps the writer while it runs: add through it (POST /api/documents, or \
         `tessera crawl --server URL`), or stop the other process first ({source})",
        path.display()
    )]
    WriterBusy {
        /// The index directory.
        path: PathBuf,
        /// The index's refusal, naming its `LOCK` file.
        source: tessera_index::Error,
    },
    /// A collection's search stopped on a bug (a panic), the other collections' went on.
    #[error("the search of collection {collection:?} stopped: {reason}")]
    SearchStopped {
        /// The collection.
        collection: String,
        /// The panic's message.
        reason: String,
    },
    /// The index holds no collection to check against.
    #[error("the index at {} holds no documents yet; add some with `tessera index`", .0.display())]
    EmptyIndex(PathBuf),
    /// A shard of a sharded index did not answer (or answered with an error): the check
    /// cannot be complete; it may be tried again.
    #[error("shard {shard} of {shards} did not answer: {reason}")]
    ShardUnavailable {
        /// The shard.
        shard: usize,
        /// How many shards the index has.
        shards: usize,
        /// What went wrong.
        reason: String,
    },
    /// The shards of an index do not fit together (settings, collections, their count).
    #[error("the shards do not make one index: {0}")]
    Shards(String),
}

impl From<tessera_core::AddModeError> for Error {
    fn from(e: tessera_core::AddModeError) -> Self {
        Error::Settings(e.to_string())
    }
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

/// The message of `error` followed by every cause under it, joined by ": ", so that a
/// message such as "cannot read x" carries the system's reason. A cause whose text the
/// message already holds is left out: errors that repeat their cause's text in their own
/// (an I/O error that names its path and reason) would otherwise say it twice.
pub fn describe_error(error: &(dyn std::error::Error + 'static)) -> String {
    let mut out = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        let text = e.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        cause = e.source();
    }
    out
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
    /// The document, one of its parts or its text is larger than a limit allows.
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
    /// A part of the index (a shard) did not answer: try again later.
    Unavailable,
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
            Error::Extract(X::TooLarge { .. } | X::TextTooLarge { .. }) => ErrorKind::TooLarge,
            Error::Extract(X::Empty { .. }) => ErrorKind::Empty,
            Error::Extract(X::Archive { .. }) => ErrorKind::Archive,
            Error::Extract(_) => ErrorKind::Unreadable,
            Error::Index(I::InvalidName(_) | I::CollectionMismatch { .. } | I::InvalidDocument(_))
            | Error::Settings(_) => ErrorKind::Invalid,
            Error::Index(I::UnknownCollection(_)) | Error::UnknownCollection(_) => ErrorKind::UnknownCollection,
            Error::Index(I::UnknownDoc(_)) => ErrorKind::UnknownDocument,
            Error::Index(I::Locked { .. }) | Error::WriterBusy { .. } => ErrorKind::Locked,
            Error::EmptyIndex(_) => ErrorKind::EmptyIndex,
            // A collection read from elsewhere fails only when a shard does not answer.
            Error::ShardUnavailable { .. } | Error::Search(tessera_search::Error::Sources(_)) => ErrorKind::Unavailable,
            _ => ErrorKind::Internal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describe_error_adds_the_reason_once() {
        let missing = std::path::Path::new("/no/such/tessera-file");
        let extract = tessera_extract::extract_path(missing, &tessera_extract::ExtractConfig::default()).unwrap_err();
        let text = describe_error(&Error::from(extract));
        assert!(text.starts_with("cannot read /no/such/tessera-file: "), "{text}");
        assert!(text.contains("No such file or directory"), "{text}");

        let io = Error::Io { path: missing.into(), source: fs_err::metadata(missing).unwrap_err() };
        let text = describe_error(&io);
        assert_eq!(text.matches("/no/such/tessera-file").count(), 1, "{text}");
        assert_eq!(text.matches("No such file or directory").count(), 1, "{text}");
    }
}
