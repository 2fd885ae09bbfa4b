//! Search: rank candidate sources, build a revision greedily, align blocks.
//! SKELETON: the result types are the contract for `tessera-report`.
#![deny(missing_docs)]

mod revision;

pub use revision::{Block, Revision, SourceMatch, TextSpan};
pub use tessera_index::{CollectionKind, DocId};
