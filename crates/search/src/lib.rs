//! Search: find the sources of a suspect in one collection and align the borrowed
//! fragments.
//!
//! What it owns: stage 1 (ranking candidates from the index's postings), stage 2 (the
//! greedy revision) and alignment with offsets on both sides. It must never write an
//! index, extract files or build reports.
//!
//! # Overview
//! Seed 000's two stages: stage 1 ranks the collection's documents by the distinct
//! suspect shingle hashes they share (postings look-ups); stage 2 builds a *revision*
//! greedily, taking the best candidate, aligning it with the suspect into *blocks*, and
//! taking the hashes it explains away from the other candidates before re-ranking.
//! Alignment ([`align`], [`align_pair`]) works on the two texts' hash sequences (exact
//! runs) and, when both texts' terms and sentences are known, on their sentences
//! (tf-idf sentence pairs, clustered and extended into passages), and maps every block
//! back to exact byte and char spans on both sides.
//!
//! The suspect is a [`Query`] made from its fingerprint: the fingerprint stage
//! (`tessera-fingerprint`) makes the fingerprint, its sentences and its WordNet
//! neighbours (`Query::from` a `SuspectFingerprint`, or [`Query::from_fingerprint`]);
//! a source is read from its snapshot in the index ([`Query::from_snapshot`]).
//!
//! # Example
//! ```
//! use tessera_fingerprint::{Fingerprinter, ShingleConfig};
//! use tessera_normalize::NormalizerConfig;
//! use tessera_search::{AlignConfig, Query, align_pair};
//!
//! let mut fp = Fingerprinter::new(NormalizerConfig::default(), ShingleConfig::default())?;
//! let passage = "The river freezes early in November and the ice stays until late April. \
//!     During these months trucks drive across the frozen surface to reach the villages. \
//!     Every spring the melting ice blocks the narrow channels and floods the meadows.";
//! let source_text = format!("Fishing boats sold herring to the southern ports. {passage}");
//! let suspect_text = format!("My essay begins with a summer in the mountains. {passage}");
//! let suspect = Query::from(fp.suspect(&suspect_text));
//! let source = Query::from_fingerprint(fp.fingerprint(&source_text), fp.shingle_size(), None);
//! let blocks = align_pair(&suspect, &source, &[], &AlignConfig::default());
//! assert_eq!(blocks.len(), 1);
//! // The whole passage: from its opening stop word ("The") to its full stop.
//! let bytes = blocks[0].source.bytes;
//! assert_eq!(&source_text[bytes.start..bytes.end], passage);
//! # Ok::<(), tessera_fingerprint::Error>(())
//! ```
//!
//! # When to use this
//! Through the engine, which fingerprints suspects as their index was built and searches
//! every collection: use [`Searcher`] directly only against an open
//! [`tessera_index::IndexReader`], or [`align_pair`] for two texts at hand.
#![deny(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod align;
mod config;
mod error;
mod evidence;
mod parts;
mod query;
mod revision;
mod searcher;
mod sources;
mod stage1;
mod translated;

pub use align::{PreparedSuspect, align, align_pair, align_prepared, align_translated};
pub use config::{AlignConfig, CrossLanguage, SearchConfig, TranslatedConfig};
pub use error::Error;
pub use evidence::Evidence;
pub use query::Query;
pub use revision::{Block, Revision, SentencePair, SourceMatch, TextSpan, WordMatch};
pub use searcher::{SearchProgress, Searcher, covered_chars};
pub use sources::{IndexCollection, Sources};
pub use tessera_core::{CollectionKind, DocId};
pub use translated::{CrossQuery, MIN_PROBE_HITS, Translate, TranslatedSearchConfig};
