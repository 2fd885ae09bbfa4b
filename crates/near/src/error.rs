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
}

/// Results of this crate.
pub type Result<T> = std::result::Result<T, Error>;

pub(crate) fn config(name: &'static str, reason: impl Into<String>) -> Error {
    Error::Config { name, reason: reason.into() }
}
