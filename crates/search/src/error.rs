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
    /// A collection read from elsewhere (a shard of the index) did not answer.
    #[error("{0}")]
    Sources(String),
}
