//! The engine: the one place that glues Tessera's stages together, and the one place
//! that holds their rules.
//!
//! What it owns: the one add path, the one check path, the one deduplicator, the record
//! inputs and every default of dedup, and the check's chunk size. It must never parse
//! command lines, speak HTTP or render for a terminal: surfaces do that and call it.
//!
//! `extract -> normalize -> fingerprint -> index` when documents are added (one add
//! path, [`AddSession`], with the add-only-if-new rule), and `extract -> normalize ->
//! fingerprint -> search -> report` when a suspect is checked (one check path:
//! [`Suspect`], [`Engine::search`], [`Engine::report`]). Collection dedup without an
//! index is the [`Deduplicator`] (its defaults in [`dedup_defaults`], its inputs read by
//! [`records`]). The fingerprint settings are read from the index, so a
//! suspect is always fingerprinted the way its sources were.
//!
//! The CLI, the server, the crawler and the Python package use this crate and the
//! names it exports, never the stages below it: the index's readers and writers stay
//! inside.
//!
//! ```no_run
//! use tessera_engine::{AddMode, CheckedFile, CollectionKind, Engine, EngineOptions, FingerprintSettings};
//! # fn main() -> tessera_engine::Result<()> {
//! let engine = Engine::open_or_create("lib".as_ref(), &FingerprintSettings::default(), EngineOptions::default())?;
//! let coll = engine.collection_config("main", CollectionKind::Source, None)?; // texts kept: DEFAULT_KEEP_TEXTS
//! engine.add_paths(&coll, &["corpus".into()], AddMode::All, &|_| {})?;
//! if let CheckedFile::Document(report) = engine.check_path("thesis.txt".as_ref())? {
//!     println!("{} % original", report.totals.originality * 100.0);
//! }
//! # Ok(()) }
//! ```
#![deny(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod add;
mod check;
mod chunks;
mod dedup;
pub mod dedup_defaults;
mod engine;
mod error;
mod fingerprinter;
pub mod memory;
mod near;
mod notices;
mod pair;
pub mod records;
mod settings;
pub mod shards;
mod submissions;
mod texts;
mod title;
mod translated;
mod writer;

pub use add::{AddOutcome, AddProgress, AddSession, AddSummary, FailedDocument, Prepared, SeenDocument};
pub use check::{CheckProgress, CheckedFile, IndexView, Suspect};
pub use dedup::{
    CANDIDATE_RECALL, DedupConfig, DedupLine, DedupMethod, DedupResult, DedupSummary, Deduplicator, MinHashPlan,
    RECALL_MARGIN, Verified, Verify, exact_key, line_keys, lines_outcome, remove_lines,
};
pub use engine::{Engine, EngineOptions, Sniffed, list_files, verify};
pub use error::{Error, ErrorKind, Result, describe_error};
pub use fingerprinter::{Fingerprint, Fingerprinter, Fingerprinters, SketchInput};
pub use near::{NearAnswer, NearHit, SKETCH_FILE, SKETCH_LSH_THRESHOLD, SKETCH_SIMHASH_DISTANCE};
pub use pair::PairAligner;
pub use settings::{FINGERPRINT_VERSION, FingerprintSettings};
pub use submissions::{Submission, Submitted};
pub use texts::{DEFAULT_KEEP_TEXTS, text_hash};
pub use title::{MAX_TITLE_CHARS, document_title};
pub use translated::CrossLanguageStep;
pub use writer::{BackgroundMerges, WriterMode};

// The shared vocabulary (ids, collection kinds and settings, add modes, wire types).
pub use tessera_core::{
    AddMode, AddModeError, CollectionConfig, CollectionKind, DEFAULT_MIN_CONTAINMENT, DocId, UnknownCollectionKind,
    next_owned_id, shard_of, valid_collection_name, wire,
};
// The names surfaces need from the stages, and nothing else of them.
pub use tessera_extract::{
    DEFAULT_MAX_TEXT_BYTES, Document, ExtractConfig, Extracted, Extractor, Format, HEAD_LEN, Metadata, Trick,
    UnpackLimits, Warning, WorkerCommand,
};
pub use tessera_index::{CollectionInfo, DocMeta, MergePolicy, MergeStats, VerifyReport};
pub use tessera_report::{
    BlockId, BlockKind, EarlierSubmission, FilterError, HtmlRenderer, JsonRenderer, Notice, PdfRenderer, Render,
    Report, ReportFilters, ReportOptions, Source, TextRenderer,
};
pub use tessera_search::{
    AlignConfig, Block, CrossLanguage, Evidence, Revision, SearchConfig, SearchProgress, SourceMatch, TextSpan,
    TranslatedConfig, TranslatedSearchConfig, covered_chars,
};

/// Near-duplicate sketches as building blocks (MinHash signatures, LSH, SimHash and its
/// tables, the on-disk sketch store, merged by the index's [`MergePolicy`]), for
/// benchmarks and bindings that expose them as such. Whole-collection dedup with
/// Tessera's rules is [`Deduplicator`].
pub mod sketch {
    pub use tessera_index::sketch::{SketchStore, StoreEntry, StoreSettings, UpdateReport, update_store, write_store};
    pub use tessera_near::{
        Idf, LshIndex, LshParams, MinHashConfig, MinHasher, Signature, SimhashTables, SplitMix64, TableDesign,
        all_pairs, containment, hamming, jaccard, shingle_set, simhash, simhash_weighted, term_frequencies,
    };
}

/// Runs the extraction worker on standard input and output: a hidden command of the
/// `tessera` binary, which isolated parsers (PDF) run in (see [`WorkerCommand`]).
pub fn serve_extract_worker() -> std::io::Result<()> {
    tessera_extract::worker::serve_stdio()
}

/// Sets the number of worker threads for all parallel work (once, at start-up).
pub fn set_threads(n: usize) -> Result<()> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build_global()
        .map_err(|e| Error::Settings(format!("thread pool: {e}")))
}
