//! Errors of this crate.

/// A search failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The index has no collection of that name.
    #[error("no collection named {0:?} in the index")]
    UnknownCollection(String),
    /// Reading the index failed.
    #[error(transparent)]
    Index(#[from] tessera_index::Error),
}
