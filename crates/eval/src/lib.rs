//! Evaluation of Tessera's detections against public research corpora.
//!
//! What it owns: reading evaluation corpora (PAN, Clough-Stevenson, the planted sets) and
//! the published measures. It must never depend on another Tessera crate nor tune
//! anything: it only reads data and scores detections.
//!
//! - [`PanCorpus`]: the PAN 2013 text-alignment corpus (source and suspicious
//!   documents, subsets of pairs with their ground-truth XML files).
//! - [`read_detections`] / [`write_detections`]: PAN's per-pair XML files.
//! - [`score`]: the PAN measure (macro-averaged character recall and precision,
//!   granularity, plagdet), and [`score_dir`]: a detection directory scored per
//!   subset and over the entire corpus.
//! - [`read_clough`]: the Clough & Stevenson corpus of plagiarised short answers.
//! - [`plant`] / [`measure_planted`]: planted near-duplicates (copies edited at known
//!   rates) and how a dedup run found them.
//!
//! The data may not be redistributed, so it is not in the repository; tests look for it
//! in [`eval_data_dir`] and skip when it is absent.
//!
//! Offsets and lengths of [`Annotation`]s count Unicode characters, as PAN's do;
//! [`CharOffsets`] converts byte offsets.
#![deny(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod annotation;
pub mod clough;
pub mod corpus;
pub mod error;
pub mod measure;
pub mod offsets;
pub mod planted;
pub mod report;
pub mod rng;
pub mod xml;

use std::path::PathBuf;

pub use annotation::{Annotation, pair_file_name};
pub use clough::{CloughAnswer, CloughCategory, read_clough};
pub use corpus::{Pair, PanCorpus, read_pairs};
pub use error::{Error, Result};
pub use measure::{Scores, plagdet, score, score_suspect_side};
pub use offsets::CharOffsets;
pub use planted::{PlantedDoc, PlantedScores, ScoredPair, measure as measure_planted, plant};
pub use report::{ENTIRE, Report, SubsetScores, score_annotations, score_dir};
pub use xml::{detections_xml, read_annotations, read_detections, write_detections};

/// Environment variable naming the evaluation data directory (the one holding
/// `pan13-training/` and `clough-stevenson/`).
pub const EVAL_DIR_VAR: &str = "TESSERA_EVAL_DIR";

/// The evaluation data directory: `$TESSERA_EVAL_DIR` if set, else `shared/eval`
/// next to the source checkout (`<workspace>/../shared/eval`); `None` when that
/// directory does not exist.
pub fn eval_data_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os(EVAL_DIR_VAR) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/eval"),
    };
    dir.is_dir().then_some(dir)
}
