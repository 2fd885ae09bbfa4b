//! Command-line arguments and the commands. Settings are resolved here, once, and handed
//! to the engine; the commands stay thin.

mod align;
mod bench;
mod bench_near;
mod check;
mod crawl;
mod dedup;
mod demo;
mod eval;
mod extract;
mod index;
mod near;
mod optimize;
mod progress;
mod serve;
mod stats;
mod verify;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use tessera_engine::{
    AlignConfig, CollectionConfig, CollectionKind, CrossLanguage, Engine, EngineOptions, ExtractConfig,
    FingerprintSettings, SearchConfig, TranslatedSearchConfig,
};

/// Tessera finds borrowed text and near-duplicates.
#[derive(Debug, Parser)]
#[command(name = "tessera", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Worker threads (default: all cores).
    #[arg(long, global = true, env = "TESSERA_THREADS")]
    threads: Option<usize>,
    /// No progress bars.
    #[arg(long, short, global = true)]
    quiet: bool,
    /// Longest text kept from one document, in MiB: a longer one fails by name (a text
    /// file over 4 times it is refused unread).
    #[arg(long, global = true, env = "TESSERA_MAX_TEXT_MB", value_name = "MIB",
          default_value_t = tessera_engine::DEFAULT_MAX_TEXT_BYTES >> 20)]
    max_text_mb: u64,
}

/// The text cap given on the command line, set once by [`run`].
static MAX_TEXT_BYTES: std::sync::OnceLock<u64> = std::sync::OnceLock::new();

#[derive(Debug, Subcommand)]
enum Command {
    /// Add files and folders (recursively) to a collection of an index.
    Index(index::IndexArgs),
    /// Check a document for borrowings against every collection.
    Check(check::CheckArgs),
    /// Show what extraction makes of files: text, metadata, origins, warnings.
    Extract(extract::ExtractArgs),
    /// Collections, documents and sizes of an index.
    Stats(stats::StatsArgs),
    /// Check every byte of an index (checksums and decoding); exit 1 naming a damaged file.
    Verify(verify::VerifyArgs),
    /// Index a bundled sample, check a document, print the report and write report.html.
    Demo(demo::DemoArgs),
    /// Align each listed suspect with its listed source (the PAN pairwise task; no index).
    Align(align::AlignArgs),
    /// Measure detection quality on an evaluation corpus.
    #[command(subcommand)]
    Eval(eval::EvalCommand),
    /// Cluster near-duplicate documents (folders, or JSONL/CSV/TSV/Parquet records, also
    /// gzip/zstd); a JSONL line per document (id, cluster, kept, similarity), the kept and
    /// removed records on request, and a summary on stderr.
    Dedup(dedup::DedupArgs),
    /// The documents of an index nearest to one document, with their similarities: ranked
    /// by the exact Jaccard similarity of the shingle sets; candidates share an LSH band, a
    /// near SimHash, or hold at least half of the document's shingles (a page contained in
    /// a longer one is found); documents sharing nothing are never listed.
    Near(near::NearArgs),
    /// Delete documents from an index by id.
    Delete(near::DeleteArgs),
    /// Merge an index's segments (each collection down to --max-segments) and purge deleted
    /// documents; adds and deletes also merge as they go, by a tiered policy.
    Optimize(optimize::OptimizeArgs),
    /// Crawl the web politely into a collection, adding only pages not already
    /// contained in an indexed document.
    Crawl(crawl::CrawlArgs),
    /// Print speed and size figures.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Internal: extract one document sent on stdin (the isolated PDF parser).
    #[command(name = "__extract-worker", hide = true)]
    ExtractWorker,
    /// Serve the HTTP API and the web page over an index.
    Serve(serve::ServeArgs),
}

/// Output formats of reports and statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human-readable, for a terminal.
    Text,
    /// Machine-readable JSON.
    Json,
    /// A self-contained HTML page.
    Html,
    /// A PDF to file (reports of `check` only; A4, font embedded). Written with `-o FILE`
    /// or to a redirected standard output, never to a terminal.
    Pdf,
}

/// Where the index lives.
#[derive(Debug, Args)]
pub struct IndexDir {
    /// Index directory.
    #[arg(long = "index", short = 'i', env = "TESSERA_INDEX", value_name = "DIR")]
    pub dir: PathBuf,
}

/// Settings used when an index is created (an existing index keeps its own).
#[derive(Debug, Args, Clone)]
pub struct CreateArgs {
    /// Words per shingle.
    #[arg(long, default_value_t = FingerprintSettings::default().shingles.size)]
    pub shingle_size: usize,
    /// Keep stop words.
    #[arg(long)]
    pub keep_stop_words: bool,
    /// Do not stem words.
    #[arg(long)]
    pub no_stemming: bool,
}

impl CreateArgs {
    fn settings(&self) -> FingerprintSettings {
        let mut s = FingerprintSettings::default();
        s.shingles.size = self.shingle_size;
        s.normalizer.stop_words = !self.keep_stop_words;
        s.normalizer.stemming = !self.no_stemming;
        s
    }
}

/// Search settings (they do not change fingerprints, so any value works with any index).
#[derive(Debug, Args, Clone)]
pub struct SearchArgs {
    /// Rounds of the greedy revision (sources per collection at most), for a suspect up
    /// to `--shingles-per-round` times as many shingles (about words).
    #[arg(long, default_value_t = SearchConfig::default().max_rounds)]
    pub max_rounds: usize,
    /// A longer suspect gets one round per this many shingles (and twice as many
    /// candidates), so a long text made of many sources is not cut short; 0: no more
    /// than `--max-rounds` whatever the length.
    #[arg(long, default_value_t = SearchConfig::default().shingles_per_round)]
    pub shingles_per_round: usize,
    /// A suspect of more tokens (about words) than this is aligned in parts of about as
    /// many, each with statistics of its own; 0: in one part whatever its length.
    #[arg(long, default_value_t = SearchConfig::default().part_tokens)]
    pub part_tokens: usize,
    /// A suspect text of more bytes than this is searched in chunks of about as many,
    /// one after another, so memory stays bounded whatever the text's length; 0: in one
    /// chunk.
    #[arg(long, default_value_t = EngineOptions::default().chunk_bytes)]
    pub chunk_bytes: usize,
    /// Shingles allowed between two exact runs of one block.
    #[arg(long, default_value_t = SearchConfig::default().align.max_gap)]
    pub max_gap: usize,
    /// Matched shingles a block needs.
    #[arg(long, default_value_t = SearchConfig::default().align.min_block_shingles)]
    pub min_block_shingles: u32,
    /// Suspect characters a source's blocks must cover (collections of kind source).
    #[arg(long, default_value_t = SearchConfig::default().min_source_chars)]
    pub min_source_chars: usize,
    /// Source characters a source's blocks must cover (collections of kind source).
    #[arg(long, default_value_t = SearchConfig::default().min_source_side_chars)]
    pub min_source_side_chars: usize,
    /// Stage 1 skips hashes held by more documents than this.
    #[arg(long, default_value_t = SearchConfig::default().max_postings_per_hash)]
    pub max_postings_per_hash: usize,
    /// Stage 1: distinct shared hashes that make a source a candidate.
    #[arg(long, default_value_t = SearchConfig::default().min_shared_hashes)]
    pub min_shared_hashes: u32,
    /// The same for collections that keep their texts (sentence seeding).
    #[arg(long, default_value_t = SearchConfig::default().text_min_shared_hashes)]
    pub text_min_shared_hashes: u32,
    /// Stage 1: look up only the suspect's own shingles, not also its shingles with one
    /// word swapped for a WordNet synonym (those find reworded passages that share no
    /// three-word phrase with their source; a check takes about 40 % longer with them).
    #[arg(long)]
    pub no_synonym_lookups: bool,
    /// Stage 1: do not also look up the suspect's shingles with one word dropped or two
    /// neighbours swapped (those find passages reworded by inserting and reordering
    /// words, in any language; a check takes about 10 % longer with them).
    #[arg(long)]
    pub no_edit_lookups: bool,
    /// Other sources holding a passage a source was found on, aligned there and listed
    /// as its copies ("also in"; they count once a reviewer disables the source), at
    /// most this many per source; 0 finds none.
    #[arg(long, default_value_t = SearchConfig::default().max_copies)]
    pub max_copies: usize,
    /// Look for passages translated from sources in another language: `auto` when a
    /// bilingual dictionary is installed (Debian's mueller7-dict for Russian <-> English)
    /// and the languages differ, `on` (an error without a dictionary), or `off`.
    #[arg(long, default_value_t = SearchConfig::default().cross_language)]
    pub cross_language: CrossLanguage,
    /// How the translated stage picks its candidates, as a JSON object of
    /// `TranslatedSearchConfig` fields (e.g. '{"max_candidates":20}').
    #[arg(long, value_name = "JSON", value_parser = parse_translated_config)]
    pub translated_config: Option<TranslatedSearchConfig>,
    /// Further alignment settings as a JSON object of `AlignConfig` fields (e.g.
    /// '{"seed_cosine":0.4,"max_sentence_gap":3}'); flags above win over it.
    #[arg(long, value_name = "JSON", value_parser = parse_align_config)]
    pub align_config: Option<AlignConfig>,
}

fn parse_translated_config(json: &str) -> std::result::Result<TranslatedSearchConfig, String> {
    serde_json::from_str(json).map_err(|e| format!("not a TranslatedSearchConfig JSON object: {e}"))
}

fn parse_align_config(json: &str) -> std::result::Result<AlignConfig, String> {
    serde_json::from_str(json).map_err(|e| format!("not an alignment settings object: {e}"))
}

impl SearchArgs {
    /// The search settings these flags give.
    pub fn config(&self) -> SearchConfig {
        let defaults = SearchConfig::default();
        SearchConfig {
            max_rounds: self.max_rounds,
            shingles_per_round: self.shingles_per_round,
            part_tokens: self.part_tokens,
            min_source_chars: self.min_source_chars,
            min_source_side_chars: self.min_source_side_chars,
            max_postings_per_hash: self.max_postings_per_hash,
            min_shared_hashes: self.min_shared_hashes,
            text_min_shared_hashes: self.text_min_shared_hashes,
            synonym_lookups: !self.no_synonym_lookups,
            edit_lookups: !self.no_edit_lookups,
            max_copies: self.max_copies,
            cross_language: self.cross_language,
            translated: self.translated_config.clone().unwrap_or_default(),
            align: AlignConfig {
                max_gap: self.max_gap,
                min_block_shingles: self.min_block_shingles,
                ..self.align_config.clone().unwrap_or_else(|| defaults.align.clone())
            },
            ..defaults
        }
    }

    /// Engine options with these search settings.
    pub fn options(&self) -> EngineOptions {
        EngineOptions {
            search: self.config(),
            chunk_bytes: self.chunk_bytes,
            extract: extract_config(),
            ..EngineOptions::default()
        }
    }
}

/// A collection to add to.
#[derive(Debug, Args, Clone)]
pub struct CollectionArgs {
    /// Collection name.
    #[arg(long, short = 'c', default_value = "main")]
    pub collection: String,
    /// What the collection's matches mean (used when it is created).
    #[arg(long, default_value_t = CollectionKind::Source, value_parser = collection_kind_parser())]
    pub kind: CollectionKind,
    /// Keep the documents' texts so reports show source passages: what a new collection
    /// does by default; for an existing collection of fingerprints only, texts are kept
    /// from this add on (documents indexed before show their original file's text while
    /// it is unchanged).
    #[arg(long, conflicts_with = "snapshots_only")]
    pub keep_texts: bool,
    /// Keep fingerprints only, not texts (web-scale collections: reports then show where
    /// a passage is, not its words). Only for a new collection: one that keeps texts
    /// keeps them.
    #[arg(long)]
    pub snapshots_only: bool,
}

/// `--kind`: the collection kinds' own names (`CollectionKind`'s `FromStr`), with help.
fn collection_kind_parser() -> impl clap::builder::TypedValueParser<Value = CollectionKind> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let help = |kind: CollectionKind| match kind {
        CollectionKind::Source => "Matches are borrowings",
        CollectionKind::Citation => "Matches are citations",
    };
    PossibleValuesParser::new(CollectionKind::ALL.map(|kind| PossibleValue::new(kind.as_str()).help(help(kind))))
        .try_map(|name| name.parse::<CollectionKind>())
}

impl CollectionArgs {
    /// The collection to add to: texts kept as the flags say, else as the collection
    /// chose, else by default (the engine's one rule).
    fn config(&self, engine: &tessera_engine::Engine) -> tessera_engine::Result<CollectionConfig> {
        let keep_texts = match (self.keep_texts, self.snapshots_only) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        };
        engine.collection_config(&self.collection, self.kind, keep_texts)
    }
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<ExitCode> {
    if let Some(n) = cli.threads {
        rayon_threads(n)?;
    }
    if cli.max_text_mb == 0 {
        anyhow::bail!("--max-text-mb must be at least 1");
    }
    let _ = MAX_TEXT_BYTES.set(cli.max_text_mb.saturating_mul(1 << 20));
    let quiet = cli.quiet;
    match cli.command {
        Command::Index(args) => index::run(&args, quiet),
        Command::Check(args) => check::run(&args, quiet),
        Command::Extract(args) => extract::run(&args),
        Command::Stats(args) => stats::run(&args),
        Command::Verify(args) => verify::run(&args),
        Command::Demo(args) => demo::run(&args, quiet),
        Command::Align(args) => align::run(&args, quiet),
        Command::Eval(cmd) => eval::run(cmd, quiet),
        Command::Bench(cmd) => bench::run(cmd, quiet),
        Command::ExtractWorker => {
            tessera_engine::serve_extract_worker().context("extraction worker")?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Dedup(args) => dedup::run(&args, quiet),
        Command::Near(args) => near::run(&args),
        Command::Delete(args) => near::delete(&args),
        Command::Optimize(args) => optimize::run(&args),
        Command::Crawl(args) => crawl::run(&args, quiet),
        Command::Serve(args) => serve::run(&args),
    }
}

/// The exit code of a command that went through `inputs` documents (files, archive
/// members, records, URLs) of which `failed` failed: 0 when none failed; 1 when the one
/// document it had failed (nothing came out, as when the command cannot run); 3 when it had
/// several and some failed (each named; the others' results stand). README.md, "Exit
/// codes", states the whole table.
pub fn inputs_exit_code(inputs: u64, failed: u64) -> ExitCode {
    match failed {
        0 => ExitCode::SUCCESS,
        _ if inputs <= 1 => ExitCode::from(1),
        _ => ExitCode::from(3),
    }
}

/// Extraction settings: native parsers (PDF) run isolated in worker processes, this
/// executable's hidden `__extract-worker` command; the text cap of `--max-text-mb`.
pub fn extract_config() -> ExtractConfig {
    use tessera_engine::WorkerCommand;
    let isolation = std::env::current_exe().ok().map(|exe| WorkerCommand::new(exe, vec!["__extract-worker".into()]));
    let defaults = ExtractConfig::default();
    let max_text_bytes = MAX_TEXT_BYTES.get().copied().unwrap_or(defaults.max_text_bytes);
    ExtractConfig { isolation, max_text_bytes, ..defaults }
}

fn rayon_threads(n: usize) -> Result<()> {
    tessera_engine::set_threads(n).context("setting the thread count")
}

fn open_engine(dir: &IndexDir, options: EngineOptions) -> Result<Engine> {
    Engine::open_any(&dir.dir, options).with_context(|| format!("opening the index at {}", dir.dir.display()))
}

/// Renders a report in a format.
pub fn render(report: &tessera_engine::Report, format: Format, color: bool, out: &mut Vec<u8>) -> Result<()> {
    use tessera_engine::{HtmlRenderer, JsonRenderer, PdfRenderer, Render, TextRenderer};
    let renderer: Box<dyn Render> = match format {
        Format::Text => Box::new(TextRenderer { color, ..TextRenderer::default() }),
        Format::Json => Box::new(JsonRenderer::pretty()),
        Format::Html => Box::new(HtmlRenderer),
        Format::Pdf => Box::new(PdfRenderer::default()),
    };
    renderer.render(report, out).context("rendering the report")
}
