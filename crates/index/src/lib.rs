//! The on-disk index. SKELETON: the types below are the contract; the storage is being
//! written.

use serde::{Deserialize, Serialize};

/// A document's id, unique within one index (across all its collections), never reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct DocId(pub u64);

/// What a collection's matches mean in a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CollectionKind {
    /// Matches are borrowings.
    #[default]
    Source,
    /// Matches are citations (common expressions, legal and normative texts).
    Citation,
}

/// Settings of one collection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CollectionConfig {
    /// Name, unique within the index (`[A-Za-z0-9_.-]{1,64}`).
    pub name: String,
    /// What its matches mean.
    pub kind: CollectionKind,
    /// Keep each document's original text (off by default: the index keeps digital
    /// snapshots, not texts).
    pub keep_texts: bool,
}

/// Metadata of one indexed document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocMeta {
    /// Title (may be empty).
    pub title: String,
    /// Where the document came from (path or URL) when it was added.
    pub origin: String,
    /// Seconds since the Unix epoch when it was added.
    pub added_at: u64,
    /// Length of the original text in bytes.
    pub byte_len: u64,
    /// Length of the original text in Unicode scalar values.
    pub char_len: u64,
}

/// The digital snapshot of a document: what alignment needs, without the text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Snapshot {
    /// Shingle hashes in text order; shingle `i` starts at token `i`.
    pub hashes: Vec<u64>,
    /// Byte span `[start, end)` of every token in the original text.
    pub token_bytes: Vec<(u64, u64)>,
    /// Char span `[start, end)` (Unicode scalar values) of every token in the original text.
    pub token_chars: Vec<(u64, u64)>,
}
