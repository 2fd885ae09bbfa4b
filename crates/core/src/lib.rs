//! The words every Tessera stage and surface shares, and nothing else.
//!
//! This crate sits at the bottom of the data flow (every other crate may depend on it;
//! it depends on none of them). It owns:
//!
//! - [`DocId`], a document's id within one index;
//! - [`CollectionKind`] (`"source"` / `"citation"`, parsed and printed here only) and
//!   [`CollectionConfig`], a collection's settings, with the collection name rule
//!   ([`valid_collection_name`]);
//! - [`Span`], a byte range in an original text;
//! - [`AddMode`], how an add treats documents a collection already holds, with the one
//!   rule that turns the surfaces' `if_new` / `force` flags into a mode
//!   ([`AddMode::from_flags`]);
//! - [`wire`], the JSON bodies `tessera serve` takes and answers for adds and errors,
//!   which the crawler's server sink sends and reads.
//!
//! It must never hold behaviour (no I/O, no defaults of fingerprinting, search or dedup:
//! those belong to the engine), so that a word means the same thing everywhere.
//!
//! ```
//! use tessera_core::{AddMode, CollectionKind};
//!
//! let kind: CollectionKind = "citation".parse().unwrap();
//! assert_eq!(kind.to_string(), "citation");
//! assert_eq!(AddMode::from_flags(false, None, true).unwrap(), AddMode::All);
//! assert!(AddMode::from_flags(true, None, true).is_err());
//! ```

mod add_mode;
mod collection;
mod shard;
mod span;
pub mod wire;

pub use add_mode::{AddMode, AddModeError, DEFAULT_MIN_CONTAINMENT};
pub use collection::{CollectionConfig, CollectionKind, UnknownCollectionKind, valid_collection_name};
pub use shard::{next_owned_id, shard_of};
pub use span::Span;

use serde::{Deserialize, Serialize};

/// A document's id, unique within one index (across all its collections), never reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct DocId(pub u64);
