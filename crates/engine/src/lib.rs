//! The engine: the one place that glues Tessera's stages together.
//!
//! `extract -> normalize -> fingerprint -> index` when documents are added, and
//! `extract -> normalize -> fingerprint -> search -> report` when a suspect is checked.
//! The fingerprint settings are read from the index, so a suspect is always
//! fingerprinted the way its sources were. The CLI, the server and the crawler use
//! [`Engine`] and nothing below it.
//!
//! ```no_run
//! use tessera_engine::{Engine, EngineOptions, FingerprintSettings};
//! use tessera_index::{CollectionConfig, CollectionKind};
//! # fn main() -> tessera_engine::Result<()> {
//! let engine = Engine::open_or_create("lib".as_ref(), &FingerprintSettings::default(), EngineOptions::default())?;
//! let coll = CollectionConfig { name: "main".into(), kind: CollectionKind::Source, keep_texts: false };
//! engine.add_paths(&coll, &["corpus".into()], &|_| {})?;
//! let report = engine.check_path("thesis.txt".as_ref())?;
//! # Ok(()) }
//! ```
#![deny(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod engine;
mod error;
mod fingerprinter;
mod notices;
mod settings;
mod sketches;

pub use engine::{AddProgress, AddSummary, Engine, EngineOptions, Prepared, list_files};
pub use error::{Error, Result};
pub use fingerprinter::{Fingerprint, Fingerprinter, Fingerprinters, SketchInput};
pub use settings::{FINGERPRINT_VERSION, FingerprintSettings};
pub use sketches::{IfNewSummary, NearHit, SKETCH_FILE, SKETCH_LSH_THRESHOLD, SKETCH_SIMHASH_DISTANCE, TextIfNew};
pub use tessera_extract as extract;
pub use tessera_index as index;
pub use tessera_near as near;
pub use tessera_report as report;
pub use tessera_search as search;

/// Sets the number of worker threads for all parallel work (once, at start-up).
pub fn set_threads(n: usize) -> Result<()> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build_global()
        .map_err(|e| Error::Settings(format!("thread pool: {e}")))
}
