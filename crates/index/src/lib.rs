//! The on-disk index of Tessera: shingle-hash postings, document snapshots, metadata and
//! (optionally) texts, grouped in collections.
//!
//! An index is a directory:
//!
//! ```text
//! MANIFEST            what is committed: collections, their segments, id counters, and
//!                     the sketch component's section
//! LOCK                held by the single writer (std `File::try_lock`)
//! segments/<id>.seg   immutable segment files
//! NEAR-<n>.seg        the near-duplicate sketch component's segments (derived, see [`sketch`])
//! ```
//!
//! This crate is the one segment layer of an index directory: the collections and the
//! [`sketch`] store share its one manifest, its one writer lock, its tiered
//! [`MergePolicy`] and its checksums. It must never hold a rule of search, reports or dedup:
//! it stores what the stages before it compute (fingerprints, sketches) and gives it
//! back, crash-safe.
//!
//! Documents get global [`DocId`]s. A writer buffers documents within a memory budget,
//! spilling segment files as it goes, and [`IndexWriter::commit`] publishes them all at
//! once by swapping the manifest. Readers take no lock: they read one manifest and map
//! the immutable segments it names, so they always see one whole commit. The byte
//! layout, the postings encoding and the crash-safety argument are in `docs/design.md`.
//!
//! # Example
//!
//! ```
//! use tessera_index::{CollectionConfig, CollectionKind, DocMeta, Index, NewDocument,
//!     Snapshot, WriterOptions};
//!
//! # fn main() -> tessera_index::Result<()> {
//! let dir = tempfile::tempdir().expect("temp dir");
//! let index = Index::create(dir.path(), serde_json::json!({ "shingle_size": 5 }))?;
//!
//! let mut writer = index.writer(WriterOptions::default())?;
//! writer.ensure_collection(CollectionConfig {
//!     name: "web".into(),
//!     kind: CollectionKind::Source,
//!     keep_texts: true,
//! })?;
//! let text = "one two three";
//! let snapshot = Snapshot {
//!     hashes: vec![0x9e37_79b9_7f4a_7c15],
//!     token_bytes: vec![(0, 3), (4, 7), (8, 13)],
//!     token_chars: vec![(0, 3), (4, 7), (8, 13)],
//!     terms: vec![11, 22, 33],
//!     sentence_starts: vec![0],
//!     sentence_edges: Vec::new(),
//! };
//! let meta = DocMeta {
//!     title: "Numbers".into(),
//!     origin: "https://example.org/n".into(),
//!     added_at: 1_700_000_000,
//!     byte_len: 13,
//!     char_len: 13,
//!     text_hash: None,
//!     check_id: None,
//! };
//! let id = writer.add("web", NewDocument { meta, snapshot: &snapshot, text: Some(text) })?;
//! writer.commit()?;
//!
//! let reader = index.reader()?;
//! let mut hits = Vec::new();
//! reader
//!     .collection("web")
//!     .expect("committed")
//!     .lookup_sorted(&[0x9e37_79b9_7f4a_7c15], |i, doc| hits.push((i, doc)))?;
//! assert_eq!(hits, [(0, id)]);
//! assert_eq!(reader.snapshot(id)?, snapshot);
//! assert_eq!(reader.text(id)?.as_deref(), Some(text));
//! # Ok(())
//! # }
//! ```
//!
//! # When to use this
//!
//! For the postings and document store of a plagiarism or near-duplicate index where
//! lookups are by exact 64-bit shingle hash and the index must stay small (under 4 bytes
//! per posting) and crash-safe. It is not a general key-value store: deletes mark ids in
//! the manifest (no updates) until a merge drops them.
//!
//! # Merging
//!
//! Every commit adds segments and every look-up visits every segment of its collection,
//! so a long-lived index merges them: [`IndexWriter::merge`] runs what a tiered
//! [`MergePolicy`] picks (call it after each commit: it reads no segment when there is
//! nothing to do), [`IndexWriter::optimize`] merges down to `N` segments per collection
//! and purges every deleted document. For a background thread, [`Index::plan_merge`]
//! hands out a [`MergeTask`] to [`MergeTask::run`] without the writer lock, and
//! [`IndexWriter::finish_merge`] publishes it with one manifest swap. Readers keep their
//! view; a merge interrupted by a crash leaves the index as it was.

#![deny(missing_docs)]

mod bits;
mod docmeta;
mod durable;
mod error;
mod index;
mod lock;
mod manifest;
mod merge;
mod postings;
mod reader;
mod segment;
pub mod sketch;
mod snapshot;
mod store;
mod termdict;
#[cfg(test)]
mod test_util;
mod varint;
mod writer;

pub use error::{Error, Result};
pub use index::Index;
pub use merge::{FinishedMerge, MergePolicy, MergeStats, MergeTask};
pub use reader::{CollectionInfo, CollectionReader, IndexReader, VerifyReport};
pub use segment::check_segment_bytes;
#[doc(hidden)]
pub use segment::check_segment_bytes_ignoring_checksums;
pub use tessera_core::{CollectionConfig, CollectionKind, DocId, valid_collection_name};
pub use tessera_fingerprint::{SentenceEdge, ShingleConfig};
pub use writer::{CommitStats, IndexWriter, NewDocument, WriterOptions};

use serde::{Deserialize, Serialize};

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
    /// A hash of the text as it was added (the engine's, opaque here: xxh3-128 of the
    /// UTF-8 bytes), by which a reader tells whether a file still holds the text a
    /// snapshot was made of, or two documents hold the same text. `None` for documents
    /// of segments of format 5 and earlier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_hash: Option<u128>,
    /// The check that added the document (a submission to a submissions collection),
    /// opaque here. `None` for other documents and in segments of format 5 and earlier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_id: Option<String>,
}

/// The full 64-bit term hashes of a document's tokens and the shingle settings its
/// snapshot's hashes were made with (see [`IndexWriter::add_with_terms`]). When the
/// snapshot's hashes are exactly `Shingler::hashes(terms)` under these settings, a
/// format-3 segment stores the terms (as ids into a per-segment dictionary) and derives
/// the hashes when it reads the snapshot, instead of storing 8 bytes per shingle.
#[derive(Debug, Clone, Copy)]
pub struct FullTerms<'a> {
    /// One term hash per token, whose low 32 bits are the snapshot's `terms`.
    pub terms: &'a [u64],
    /// Shingle size and seed.
    pub shingles: ShingleConfig,
}

/// The postings key of a document's term (the low 32 bits of a term hash, as snapshots
/// store terms): every segment written since term postings exist (footer flag bit 2)
/// posts each document's distinct terms under these keys beside its shingle hashes, so
/// that a suspect in another language finds its sources by its translations
/// (`CollectionReader::lookup_terms_at_most`). The seed keeps term keys apart from
/// shingle hashes (which hash 8-byte terms with the shingle seed).
pub fn term_key(term: u32) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(&term.to_le_bytes(), TERM_KEY_SEED)
}

/// The seed of [`term_key`].
pub const TERM_KEY_SEED: u64 = 0x7465_726d_2d6b_6579; // "term-key"

/// The digital snapshot of a document: what alignment needs, without the text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Snapshot {
    /// Shingle hashes in text order; shingle `i` starts at token `i`.
    pub hashes: Vec<u64>,
    /// Byte span `[start, end)` of every token in the original text.
    pub token_bytes: Vec<(u64, u64)>,
    /// Char span `[start, end)` (Unicode scalar values) of every token in the original text.
    pub token_chars: Vec<(u64, u64)>,
    /// Term of every token: the low 32 bits of the normalizer's term hash (a term hash,
    /// not the word). Empty when unknown (segments of format version 1). Sentence
    /// seeding in alignment compares terms; 32 bits make a collision rare enough to be
    /// noise in tf-idf and Dice, at half the bytes.
    pub terms: Vec<u32>,
    /// Token index where each sentence starts, increasing, the first 0; a sentence ends
    /// where the next starts (the last at the token count). Empty when unknown.
    pub sentence_starts: Vec<u64>,
    /// How far each sentence's text reaches beyond its first and last tokens, one per
    /// sentence start; empty when unknown (segments of format 3 and earlier). Blocks
    /// that start or end with a whole sentence take in its opening words and closing
    /// punctuation.
    pub sentence_edges: Vec<SentenceEdge>,
}

impl Snapshot {
    /// Whether this document's shingle hashes include each of `hashes`. Postings find a
    /// document by a hash's key, which a segment truncates (a false match per absent
    /// look-up is at most 2^-12 per segment, `postings.rs`); this is the exact answer,
    /// which does not depend on how documents fall into segments.
    #[must_use]
    pub fn holds_hashes(&self, hashes: &[u64]) -> Vec<bool> {
        // A candidate is usually asked about a few hashes: scanning is cheaper than
        // sorting its thousands.
        if hashes.len() <= 8 {
            return hashes.iter().map(|h| self.hashes.contains(h)).collect();
        }
        let mut own = self.hashes.clone();
        own.sort_unstable();
        hashes.iter().map(|h| own.binary_search(h).is_ok()).collect()
    }
}
