//! The crate's error type. Every variant that concerns a file names it, so a message
//! alone tells an operator which file to look at.

use std::path::PathBuf;

use crate::DocId;

/// Everything that can go wrong while opening, reading or writing an index.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An I/O operation on `path` failed.
    #[error("I/O error on {}", path.display())]
    Io {
        /// The file or directory the operation was about.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A file's bytes do not follow the format (bad magic, checksum, length or offset).
    #[error("corrupt index file {}: {reason}", file.display())]
    Corrupt {
        /// The damaged file (`<memory>` for bytes checked in memory).
        file: PathBuf,
        /// What was wrong.
        reason: String,
    },
    /// A file was written by a format version this build cannot read.
    #[error(
        "index file {} has format version {found}; this build reads version {supported}",
        file.display()
    )]
    VersionUnsupported {
        /// The file.
        file: PathBuf,
        /// The version found in the file.
        found: u32,
        /// The version this build reads and writes.
        supported: u32,
    },
    /// The directory does not exist or holds no `MANIFEST`.
    #[error("{} is not a Tessera index (no MANIFEST)", path.display())]
    NotAnIndex {
        /// The directory (or the missing manifest).
        path: PathBuf,
    },
    /// `Index::create` found an index already there.
    #[error("an index already exists at {}", path.display())]
    AlreadyExists {
        /// The existing manifest.
        path: PathBuf,
    },
    /// Another writer holds the index's lock file.
    #[error("index is locked by another writer: {}", path.display())]
    Locked {
        /// The `LOCK` file.
        path: PathBuf,
    },
    /// No collection of that name exists in the index.
    #[error("unknown collection {0:?}")]
    UnknownCollection(String),
    /// `ensure_collection` was asked for an existing collection with other settings.
    #[error(
        "collection {name:?} exists with kind {existing_kind:?}, keep_texts {existing_keep_texts}; \
         requested kind {requested_kind:?}, keep_texts {requested_keep_texts}"
    )]
    CollectionMismatch {
        /// The collection.
        name: String,
        /// Its stored kind.
        existing_kind: crate::CollectionKind,
        /// Its stored `keep_texts`.
        existing_keep_texts: bool,
        /// The requested kind.
        requested_kind: crate::CollectionKind,
        /// The requested `keep_texts`.
        requested_keep_texts: bool,
    },
    /// A collection name outside `[A-Za-z0-9_.-]{1,64}`.
    #[error("invalid collection name {0:?}: use 1 to 64 of [A-Za-z0-9_.-]")]
    InvalidName(String),
    /// The document id belongs to no committed document of this reader's view.
    #[error("unknown document {}", .0.0)]
    UnknownDoc(DocId),
    /// A document given to the writer is inconsistent (for example token span tables of
    /// different lengths).
    #[error("invalid document: {0}")]
    InvalidDocument(String),
    /// An earlier commit of this writer failed after it may have published the manifest;
    /// drop the writer and open a new one.
    #[error("writer unusable after a failed commit on {}: drop it and open a new one", path.display())]
    WriterPoisoned {
        /// The index directory.
        path: PathBuf,
    },
    /// A finished merge no longer fits the index: one of its source segments is gone
    /// (merged by another merge since it was planned). Nothing was changed; plan again.
    #[error("merge of segments {sources:?} no longer applies to {}", path.display())]
    MergeConflict {
        /// The index directory.
        path: PathBuf,
        /// Ids of the merge's source segments.
        sources: Vec<u64>,
    },
    /// Sketch store settings or entries out of their ranges, or an update the sketch
    /// store cannot take (other settings, a deleted document added again).
    #[error(transparent)]
    Sketch(#[from] tessera_near::Error),
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An [`Error::Corrupt`] about `file`.
    pub(crate) fn corrupt(file: impl Into<PathBuf>, reason: impl Into<String>) -> Error {
        Error::Corrupt { file: file.into(), reason: reason.into() }
    }

    /// Wraps an `io::Error` raised by an operation on `path`.
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io { path: path.into(), source }
    }
}

/// Every I/O call in this crate goes through `.at(path)`, so no error loses its path
/// (the reason we do not need `fs-err`: the path is a field callers can match on).
pub(crate) trait IoContext<T> {
    /// Attaches `path` to an I/O error.
    fn at(self, path: &std::path::Path) -> Result<T>;
}

impl<T> IoContext<T> for std::io::Result<T> {
    fn at(self, path: &std::path::Path) -> Result<T> {
        self.map_err(|e| Error::io(path, e))
    }
}
