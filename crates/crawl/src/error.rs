//! Errors of the crawler.

use std::path::PathBuf;

/// What can go wrong in a crawl (fetch failures of single pages are not errors: they are
/// recorded as outcomes and the crawl goes on).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing the crawl state. The cause names the file and the system's
    /// reason (it comes from `fs_err`), so the message is the cause's.
    #[error("{source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause, naming the file.
        source: std::io::Error,
    },
    /// The crawl state is damaged beyond a torn last record.
    #[error("{file}: corrupt crawl state: {reason}")]
    Corrupt {
        /// The file.
        file: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A setting is invalid.
    #[error("invalid crawl setting: {0}")]
    Config(String),
    /// There is no crawl to resume, or a crawl exists and would be overwritten.
    #[error("{0}")]
    State(String),
    /// The HTTP client could not be built.
    #[error("HTTP client: {0}")]
    Client(String),
    /// The server pages are handed to refused them or could not be reached.
    #[error("handing pages to the server: {0}")]
    Server(String),
    /// The add mode's settings are invalid.
    #[error("invalid crawl setting: {0}")]
    AddMode(#[from] tessera_engine::AddModeError),
    /// The engine (index) failed.
    #[error(transparent)]
    Engine(#[from] tessera_engine::Error),
}

/// Results of the crawler.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }
}
