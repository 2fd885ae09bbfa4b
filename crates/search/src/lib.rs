//! Search: find the sources of a suspect in one collection and align the borrowed
//! fragments.
//!
//! Seed 000's two stages: stage 1 ranks the collection's documents by the distinct
//! suspect shingle hashes they share (postings look-ups); stage 2 builds a *revision*
//! greedily, taking the best candidate, aligning it with the suspect into *blocks*, and
//! taking the hashes it explains away from the other candidates before re-ranking.
//! Alignment ([`align`]) works on the snapshot's hash sequence and maps every block back
//! to exact byte and char spans on both sides.
//!
//! Use [`Searcher`] against an open [`tessera_index::IndexReader`]; the engine crate
//! builds the [`Query`] from a document.
#![deny(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod align;
mod config;
mod error;
mod query;
mod revision;
mod searcher;
mod sentence;
mod synonyms;

pub use align::{PreparedSuspect, align, align_pair, align_prepared};
pub use config::{AlignConfig, SearchConfig};
pub use error::Error;
pub use query::Query;
pub use revision::{Block, Revision, SourceMatch, TextSpan};
pub use searcher::Searcher;
pub use sentence::{MAX_SENTENCE_TERMS, sentences};
pub use synonyms::Synonyms;
pub use tessera_index::{CollectionKind, DocId};
