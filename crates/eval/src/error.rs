//! Errors of the evaluation crate. Every error that concerns a file names it.

use std::path::PathBuf;

/// Result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong while reading a corpus, reading or writing detections.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing a file or directory failed. The cause names the file and the
    /// system's reason (it comes from `fs_err`), so the message is the cause's.
    #[error("{source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error, naming the file.
        #[source]
        source: std::io::Error,
    },
    /// A file that must be UTF-8 is not.
    #[error("{}: not valid UTF-8 (at byte {valid_up_to})", path.display())]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// Length of the valid UTF-8 prefix.
        valid_up_to: usize,
    },
    /// The XML is not well formed.
    #[error("{}: bad XML near byte {position}: {message}", path.display())]
    Xml {
        /// The file.
        path: PathBuf,
        /// Byte position of the error in the file.
        position: u64,
        /// What the XML parser reported.
        message: String,
    },
    /// A `feature` element lacks a required attribute.
    #[error("{}: <{element}> near byte {position} lacks attribute `{attribute}`", path.display())]
    MissingAttribute {
        /// The file.
        path: PathBuf,
        /// Byte position of the element.
        position: u64,
        /// The element name.
        element: String,
        /// The missing attribute.
        attribute: String,
    },
    /// A numeric attribute does not hold a non-negative integer.
    #[error("{}: attribute `{attribute}`=\"{value}\" near byte {position} is not a non-negative integer", path.display())]
    BadNumber {
        /// The file.
        path: PathBuf,
        /// Byte position of the element.
        position: u64,
        /// The attribute.
        attribute: String,
        /// Its value.
        value: String,
    },
    /// A plagiarism `feature` appears outside a `<document reference="...">`.
    #[error("{}: <feature> near byte {position} is not inside a <document reference=\"...\">", path.display())]
    NoDocument {
        /// The file.
        path: PathBuf,
        /// Byte position of the feature.
        position: u64,
    },
    /// A line of a text table (a `pairs` file, a CSV file) is malformed.
    #[error("{}:{line}: {message}", path.display())]
    BadLine {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A corpus directory holds no subset (no sub-directory with a `pairs` file).
    #[error("{}: no subset directory with a `pairs` file; not a PAN corpus", path.display())]
    NoSubsets {
        /// The corpus root.
        path: PathBuf,
    },
    /// A subset name that the corpus does not have.
    #[error("unknown subset `{name}` (the corpus has: {known})")]
    UnknownSubset {
        /// The requested name.
        name: String,
        /// The corpus' subsets, comma separated.
        known: String,
    },
    /// A document name that cannot be used in a file name.
    #[error("invalid document name `{name}`: {message}")]
    InvalidName {
        /// The name.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// A detection handed to [`crate::write_detections`] belongs to another pair.
    #[error("detection for ({det_suspicious}, {det_source}) passed for pair ({pair_suspicious}, {pair_source})")]
    PairMismatch {
        /// The pair's suspicious document.
        pair_suspicious: String,
        /// The pair's source document.
        pair_source: String,
        /// The detection's suspicious document.
        det_suspicious: String,
        /// The detection's source document.
        det_source: String,
    },
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }
}
