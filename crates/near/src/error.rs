//! Errors of this crate.

/// Errors of the near-duplicate sketches.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A setting is out of its range.
    #[error("invalid setting {name}: {reason}")]
    Config {
        /// The setting.
        name: &'static str,
        /// Why it is rejected.
        reason: String,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A file is damaged or not a sketch store.
    #[error("{path}: corrupt: {reason}")]
    Corrupt {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// Results of this crate.
pub type Result<T> = std::result::Result<T, Error>;

pub(crate) fn config(name: &'static str, reason: impl Into<String>) -> Error {
    Error::Config { name, reason: reason.into() }
}
