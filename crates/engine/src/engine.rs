//! The engine: open an index, add documents, check a suspect.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tessera_extract::{Document, ExtractConfig, Extracted};
use tessera_index::{CollectionInfo, Index, IndexReader, MergePolicy, VerifyReport, WriterOptions};
use tessera_report::ReportOptions;
use tessera_search::{SearchConfig, Searcher};

use crate::writer::{Merger, WriterGuard, WriterSlot};
use crate::{
    BackgroundMerges, Error, FINGERPRINT_VERSION, FingerprintSettings, Fingerprinter, Fingerprinters, Result,
    WriterMode,
};

/// Engine settings that do not change fingerprints (those live in the index).
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// Extraction limits.
    pub extract: ExtractConfig,
    /// Candidate ranking, revision and alignment settings.
    pub search: SearchConfig,
    /// A suspect text of more bytes than this is searched chunk by chunk: the engine
    /// fingerprints each chunk (with a margin on each side) when its turn comes, searches
    /// it as a suspect of its own and keeps the blocks that start in it, so a check's
    /// memory follows this, not the text's length (a whole text's search held about 56
    /// bytes per byte of text: 1.35 GB for 24 MB, where extraction admits documents of
    /// 256 MiB; docs/performance.md). `0`: one chunk whatever the length.
    pub chunk_bytes: usize,
    /// Report settings.
    pub report: ReportOptions,
    /// Memory the index writer may buffer before it writes a segment.
    pub memory_budget: usize,
    /// Memory the documents in progress are expected to take at most, together: the
    /// server starts a check, and `tessera index` a batch of files, only when their
    /// expected cost ([`crate::memory`]) fits under it; a single document over it runs
    /// alone. Default [`DEFAULT_MEMORY_LIMIT`](crate::memory::DEFAULT_MEMORY_LIMIT).
    pub memory_limit: u64,
    /// Documents prepared in parallel per batch (bounds memory between extraction and
    /// the writer).
    pub batch_size: usize,
    /// Which segments are merged after each commit.
    pub merge: MergePolicy,
    /// How the index's writer is held: per commit with merges inline (one-shot runs), or
    /// for the engine's life with merges in the background (servers, crawlers).
    pub writer: WriterMode,
}

impl Default for EngineOptions {
    fn default() -> Self {
        Self {
            extract: ExtractConfig::default(),
            search: SearchConfig::default(),
            chunk_bytes: 4 << 20,
            report: ReportOptions::default(),
            memory_budget: 256 << 20,
            memory_limit: crate::memory::DEFAULT_MEMORY_LIMIT,
            batch_size: 256,
            merge: MergePolicy::default(),
            writer: WriterMode::default(),
        }
    }
}

/// Tessera's engine: the only glue between the stages. The CLI, the server and the
/// crawler talk to this.
#[derive(Debug)]
pub struct Engine {
    dir: PathBuf,
    index: Index,
    settings: FingerprintSettings,
    fingerprinters: Fingerprinters,
    searcher: Searcher,
    options: EngineOptions,
    /// Whether checks look for translated borrowings, and the lexicon they use.
    pub(crate) cross: crate::CrossLanguageStep,
    /// Dropped before `writer` (fields drop in order): the running merge is published,
    /// then the writer closes.
    merger: Option<Merger>,
    writer: Arc<WriterSlot>,
    /// `(shard, shards)` when the index is a shard of a sharded index (its folder is
    /// named `shard-S-of-N`, [`crate::shards`]): it adds documents only under the ids
    /// it owns.
    shard: Option<(usize, usize)>,
    /// For an engine opened on the shards of an index ([`Engine::open_sharded`]): what
    /// carries its views' requests; its checks read the shards as one index.
    shard_set: Option<SetHandle>,
}

/// A [`ShardSet`](crate::shards::ShardSet) held by an engine.
#[derive(Clone)]
struct SetHandle(Arc<dyn crate::shards::ShardSet>);

impl std::fmt::Debug for SetHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ShardSet({} shards)", self.0.shards())
    }
}

impl Engine {
    /// Opens an existing index.
    pub fn open(dir: &Path, options: EngineOptions) -> Result<Self> {
        let index = Index::open(dir)?;
        Self::with_index(dir, index, options)
    }

    /// Opens the index at `dir`, creating it with `settings` if there is none. An
    /// existing index keeps its own settings.
    pub fn open_or_create(dir: &Path, settings: &FingerprintSettings, options: EngineOptions) -> Result<Self> {
        if let Some(&(_, shards)) = crate::shards::shard_names(dir)?.as_deref().and_then(<[_]>::first) {
            return Err(Error::Shards(format!(
                "{} holds the shards of an index of {shards} shards: add to them with `tessera index --shards \
                 {shards}`",
                dir.display()
            )));
        }
        let blob = serde_json::to_value(settings).map_err(|e| Error::Settings(e.to_string()))?;
        let index = Index::open_or_create(dir, blob)?;
        Self::with_index(dir, index, options)
    }

    fn with_index(dir: &Path, index: Index, options: EngineOptions) -> Result<Self> {
        let incompatible = |reason: String| Error::IncompatibleIndex { path: dir.to_path_buf(), reason };
        let settings: FingerprintSettings =
            serde_json::from_value(index.fingerprint_settings().clone()).map_err(|e| incompatible(e.to_string()))?;
        if settings.version != FINGERPRINT_VERSION {
            return Err(incompatible(format!(
                "fingerprint version {} (this build makes {FINGERPRINT_VERSION})",
                settings.version
            )));
        }
        if settings.normalizer_version != tessera_normalize::FORMAT_VERSION {
            return Err(incompatible(format!(
                "normalization rules version {} (this build applies {})",
                settings.normalizer_version,
                tessera_normalize::FORMAT_VERSION
            )));
        }
        let fingerprinters = Fingerprinters::new(Fingerprinter::new(&settings)?);
        let searcher = Searcher::new(options.search.clone());
        let cross = crate::CrossLanguageStep::new(options.search.cross_language, &settings.normalizer)?;
        let writer =
            Arc::new(WriterSlot::new(dir, WriterOptions { memory_budget: options.memory_budget }, options.writer)?);
        let merger = match options.writer {
            WriterMode::PerCommit => None,
            WriterMode::Resident => Some(Merger::start(Arc::clone(&writer), options.merge)?),
        };
        let shard = crate::shards::shard_of_dir(dir);
        Ok(Self {
            dir: dir.to_path_buf(),
            index,
            settings,
            fingerprinters,
            searcher,
            options,
            cross,
            merger,
            writer,
            shard,
            shard_set: None,
        })
    }

    /// Opens the index at `dir`: the shards of one when `dir` holds shard folders
    /// ([`Engine::open_sharded`]), else an ordinary index ([`Engine::open`]).
    pub fn open_any(dir: &Path, options: EngineOptions) -> Result<Self> {
        match crate::shards::shard_dirs(dir)? {
            Some(_) => Self::open_sharded(dir, options),
            None => Self::open(dir, options),
        }
    }

    /// Opens the shards under `dir` (folders `shard-S-of-N`) in this process, to check
    /// against them as one index: every check of this engine reads a view of all the
    /// shards ([`Engine::view`]). Adds go to the shards themselves (`tessera index
    /// --shards N`, or an engine opened on one shard's folder).
    pub fn open_sharded(dir: &Path, options: EngineOptions) -> Result<Self> {
        let set = crate::shards::LocalShards::open(dir, options)?;
        let mut engine = set.checker()?;
        engine.shard_set = Some(SetHandle(Arc::new(set)));
        Ok(engine)
    }

    /// Whether this engine checks against the shards of an index
    /// ([`Engine::open_sharded`]).
    pub fn is_sharded(&self) -> bool {
        self.shard_set.is_some()
    }

    /// What carries this engine's requests to its shards, when it has shards.
    pub(crate) fn shard_set(&self) -> Option<Arc<dyn crate::shards::ShardSet>> {
        self.shard_set.as_ref().map(|s| Arc::clone(&s.0))
    }

    /// `(shard, shards)` when this index is a shard of a sharded index
    /// ([`crate::shards`]).
    pub fn shard(&self) -> Option<(usize, usize)> {
        self.shard
    }

    /// Before an add: a shard's next document gets the next id the shard owns.
    pub(crate) fn place_next_id(&self, writer: &mut tessera_index::IndexWriter) {
        if let Some((shard, shards)) = self.shard {
            let next = writer.next_doc_id();
            writer.skip_ids_to(tessera_core::next_owned_id(next, shard, shards));
        }
    }

    /// The id the next document added gets (before a shard moves it to one it owns).
    pub fn next_doc_id(&self) -> Result<u64> {
        Ok(self.writer()?.next_doc_id())
    }

    /// The index's writer, exclusively until the guard is dropped: opened now (per-commit
    /// mode) or the one held (resident mode). Waits while another session has it.
    pub(crate) fn writer(&self) -> Result<WriterGuard<'_>> {
        self.writer.lock()
    }

    /// After a commit: merges what the policy picks, inline (per-commit mode) or by asking
    /// the background merger (resident mode, returns at once).
    pub(crate) fn merge_after_commit(&self, writer: &mut WriterGuard<'_>) -> Result<()> {
        match &self.merger {
            Some(merger) => merger.request(),
            None => {
                writer.merge(&self.options.merge)?;
            }
        }
        Ok(())
    }

    /// How this engine holds the index's writer.
    pub fn writer_mode(&self) -> WriterMode {
        self.writer.mode()
    }

    /// Blocks until the background merger has nothing asked for or running (at once in
    /// per-commit mode, where merges run inside each commit), and returns what it did.
    /// `tessera crawl` calls it before it exits, so the crawl ends with the segments the
    /// merge policy allows.
    pub fn wait_for_merges(&self) -> BackgroundMerges {
        self.merger.as_ref().map(Merger::wait).unwrap_or_default()
    }

    /// What the background merger has done so far (nothing in per-commit mode).
    pub fn background_merges(&self) -> BackgroundMerges {
        self.merger.as_ref().map(Merger::status).unwrap_or_default()
    }

    /// The fingerprint settings stored in the index.
    pub fn settings(&self) -> &FingerprintSettings {
        &self.settings
    }

    /// The options this engine was opened with.
    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// A fingerprinter with the index's settings, its word cache empty (for a thread
    /// of your own; [`with_fingerprinter`](Self::with_fingerprinter) reuses a warm one).
    pub fn fingerprinter(&self) -> Fingerprinter {
        self.fingerprinters.template().clone()
    }

    /// Runs `f` with this thread's fingerprinter, whose word cache stays warm across
    /// calls (see [`Fingerprinters`]).
    pub fn with_fingerprinter<R>(&self, f: impl FnOnce(&mut Fingerprinter) -> R) -> R {
        self.fingerprinters.with(f)
    }

    /// The index directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A reader over the last commit.
    pub(crate) fn reader(&self) -> Result<IndexReader> {
        self.one_index()?;
        Ok(self.index.reader()?)
    }

    /// Refuses what reads or writes one index (the sketch store, adds, deletes,
    /// optimize, submissions) on an engine checking shards together: it would touch only
    /// the first shard.
    pub(crate) fn one_index(&self) -> Result<()> {
        if self.is_sharded() {
            return Err(Error::Shards(format!(
                "this needs one index; {} is the first of the shards checked together here: run it on a shard's folder",
                self.dir.display()
            )));
        }
        Ok(())
    }

    /// The search stage with this engine's settings.
    pub(crate) fn searcher(&self) -> &Searcher {
        &self.searcher
    }

    /// Collections with their sizes, sorted by name.
    pub fn collections(&self) -> Result<Vec<CollectionInfo>> {
        Ok(self.view()?.collections())
    }

    /// What `tessera stats --format json` prints (and the Python `Index.stats()` returns):
    /// the index's folder, its fingerprint settings and each collection's sizes.
    pub fn stats_json(&self) -> Result<serde_json::Value> {
        let collections = self.collections()?;
        Ok(serde_json::json!({
            "index": self.dir().display().to_string(),
            "shards": self.shard_set().map_or(1, |s| s.shards()),
            "settings": self.settings(),
            "collections": collections.iter().map(|c| serde_json::json!({
                "name": c.config.name,
                "kind": c.config.kind,
                "keep_texts": c.config.keep_texts,
                "docs": c.docs,
                "deleted": c.deleted,
                "segments": c.segments,
                "postings": c.postings,
                "distinct_keys": c.distinct_keys,
                "postings_bytes": c.postings_bytes,
                "snapshot_bytes": c.snapshot_bytes,
                "text_bytes": c.text_bytes,
                "total_bytes": c.total_bytes,
            })).collect::<Vec<_>>(),
        }))
    }

    /// Extracts the text of a document given as bytes (an upload) with this engine's
    /// extraction settings; the format is recognised by content, `name` breaks ties.
    pub fn extract_bytes(&self, name: &str, bytes: &[u8]) -> Result<Extracted> {
        Ok(tessera_extract::extract_bytes(name, bytes, &self.options.extract)?)
    }

    /// Extracts one file (one document: an archive is an error of kind
    /// [`ErrorKind::Archive`](crate::ErrorKind::Archive)) with this engine's settings.
    pub fn extract_path(&self, path: &Path) -> Result<Extracted> {
        Ok(tessera_extract::extract_path(path, &self.options.extract)?)
    }

    /// Every document of an upload: the upload itself, or each member of an archive
    /// (named `name!/member`), unpacked under this engine's size, ratio and depth limits.
    pub fn extract_documents(&self, name: &str, bytes: &[u8]) -> Vec<Document> {
        tessera_extract::Extractor::new(self.options.extract.clone()).extract_documents(name, bytes)
    }

    /// What an upload's first bytes are: a document this engine reads, an archive of
    /// documents, or an error saying why it is refused (unsupported, binary, empty).
    pub fn sniff(&self, name: &str, head: &[u8]) -> Result<Sniffed> {
        match tessera_extract::Extractor::new(self.options.extract.clone()).detect(name, head) {
            Ok(_) => Ok(Sniffed::Document),
            Err(tessera_extract::Error::Archive { .. }) => Ok(Sniffed::Archive),
            Err(e) => Err(e.into()),
        }
    }
}

/// Checks every checksum and decodes every structure of every segment of the index at
/// `dir` (its fingerprint settings need not be this build's).
pub fn verify(dir: &Path) -> Result<VerifyReport> {
    Ok(Index::open(dir)?.verify()?)
}

/// What an upload is, from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sniffed {
    /// One document.
    Document,
    /// An archive: each member is a document.
    Archive,
}

/// The files under `paths` as [`Engine::add_paths`] takes them: folders recursively in
/// sorted order, hidden entries skipped.
pub fn list_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    collect_files(paths)
}

fn collect_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        let meta = fs_err::metadata(p).map_err(|e| Error::Io { path: p.clone(), source: e })?;
        if meta.is_dir() {
            walk(p, &mut out)?;
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let io = |e: std::io::Error| Error::Io { path: dir.to_path_buf(), source: e };
    let mut entries: Vec<_> = fs_err::read_dir(dir).map_err(io)?.collect::<std::io::Result<_>>().map_err(io)?;
    entries.sort_by_key(fs_err::DirEntry::file_name);
    for entry in entries {
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        let kind = entry.file_type().map_err(io)?;
        if kind.is_dir() {
            walk(&path, out)?;
        } else if kind.is_file() || (kind.is_symlink() && path.is_file()) {
            out.push(path);
        }
    }
    Ok(())
}
