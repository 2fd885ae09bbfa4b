//! The engine: open an index, add documents, check a suspect.

use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use rayon::prelude::*;
use tessera_extract::{ExtractConfig, Extracted};
use tessera_index::{CollectionConfig, CollectionInfo, DocId, DocMeta, Index, IndexReader, NewDocument, WriterOptions};
use tessera_report::{Report, ReportOptions, SourceInfo, SuspectInfo};
use tessera_search::{Query, Revision, SearchConfig, Searcher};

use crate::{Error, FINGERPRINT_VERSION, Fingerprint, FingerprintSettings, Fingerprinter, Fingerprinters, Result};

/// Engine settings that do not change fingerprints (those live in the index).
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// Extraction limits.
    pub extract: ExtractConfig,
    /// Candidate ranking, revision and alignment settings.
    pub search: SearchConfig,
    /// Report settings.
    pub report: ReportOptions,
    /// Memory the index writer may buffer before it writes a segment.
    pub memory_budget: usize,
    /// Documents prepared in parallel per batch (bounds memory between extraction and
    /// the writer).
    pub batch_size: usize,
}

impl Default for EngineOptions {
    fn default() -> Self {
        Self {
            extract: ExtractConfig::default(),
            search: SearchConfig::default(),
            report: ReportOptions::default(),
            memory_budget: 256 << 20,
            batch_size: 256,
        }
    }
}

/// One document ready to be added: extracted and fingerprinted.
#[derive(Debug)]
pub struct Prepared {
    /// Where it came from (path or URL).
    pub origin: String,
    /// Extracted text and title.
    pub extracted: Extracted,
    /// Its fingerprints.
    pub fingerprint: Fingerprint,
}

/// What an add did.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct AddSummary {
    /// Documents added.
    pub added: u64,
    /// Bytes of text added.
    pub bytes: u64,
    /// Files that failed, with the reason (the rest were still added).
    pub failed: Vec<(String, String)>,
    /// Seconds spent.
    pub seconds: f64,
}

/// Progress of a long add, for progress bars.
#[derive(Debug, Clone, Copy)]
pub struct AddProgress {
    /// Files done so far (added or failed).
    pub done: u64,
    /// Files in all.
    pub total: u64,
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
        Ok(Self { dir: dir.to_path_buf(), index, settings, fingerprinters, searcher, options })
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

    /// The index's writer (one per index at a time; see [`tessera_index::IndexWriter`]),
    /// with this engine's memory budget.
    pub fn writer(&self) -> Result<tessera_index::IndexWriter> {
        Ok(self.index.writer(WriterOptions { memory_budget: self.options.memory_budget })?)
    }

    /// A reader over the last commit.
    pub fn reader(&self) -> Result<IndexReader> {
        Ok(self.index.reader()?)
    }

    /// Collections with their sizes.
    pub fn collections(&self) -> Result<Vec<CollectionInfo>> {
        Ok(self.reader()?.collections())
    }

    /// Extracts and fingerprints one file (one document: an archive is an error; see
    /// [`prepare_documents`](Self::prepare_documents)).
    pub fn prepare_path(&self, path: &Path, fingerprinter: &mut Fingerprinter) -> Result<Prepared> {
        let extracted = tessera_extract::extract_path(path, &self.options.extract)?;
        let fingerprint = fingerprinter.fingerprint(&extracted.text);
        Ok(Prepared { origin: path.display().to_string(), extracted, fingerprint })
    }

    /// Extracts and fingerprints every document in a file: the file itself, or each
    /// member of an archive (named `archive.zip!/member`). Each has its own result.
    pub fn prepare_documents(&self, path: &Path, fingerprinter: &mut Fingerprinter) -> Vec<(String, Result<Prepared>)> {
        let extractor = tessera_extract::Extractor::new(self.options.extract.clone());
        extractor
            .extract_path_documents(path)
            .into_iter()
            .map(|doc| {
                let prepared = doc.result.map_err(Error::from).map(|extracted| {
                    let fingerprint = fingerprinter.fingerprint(&extracted.text);
                    Prepared { origin: doc.name.clone(), extracted, fingerprint }
                });
                (doc.name, prepared)
            })
            .collect()
    }

    /// Adds files and folders (recursively, in sorted order) to a collection, creating it
    /// if needed, and commits once at the end. Files that fail are reported in the
    /// summary and skipped; an index error stops the add and nothing of it is committed.
    pub fn add_paths(
        &self,
        collection: &CollectionConfig,
        paths: &[PathBuf],
        progress: &(dyn Fn(AddProgress) + Sync),
    ) -> Result<AddSummary> {
        let started = Instant::now();
        let files = collect_files(paths)?;
        let total = files.len() as u64;
        let mut writer = self.index.writer(WriterOptions { memory_budget: self.options.memory_budget })?;
        writer.ensure_collection(collection.clone())?;
        let mut summary = AddSummary::default();
        let mut done = 0u64;
        for chunk in files.chunks(self.options.batch_size.max(1)) {
            let prepared: Vec<Vec<(String, Result<Prepared>)>> =
                chunk.par_iter().map(|path| self.with_fingerprinter(|fp| self.prepare_documents(path, fp))).collect();
            for documents in prepared {
                done += 1;
                for (name, result) in documents {
                    match result {
                        Ok(doc) => {
                            summary.bytes += doc.extracted.text.len() as u64;
                            add_prepared(&mut writer, collection, &doc)?;
                            summary.added += 1;
                        }
                        Err(e) => summary.failed.push((name, e.to_string())),
                    }
                }
            }
            progress(AddProgress { done, total });
        }
        writer.commit()?;
        summary.seconds = started.elapsed().as_secs_f64();
        Ok(summary)
    }

    /// Adds texts (origin, title, text) to a collection, fingerprinting them in parallel
    /// batches, and commits once at the end. Bounded memory: one batch is prepared at a
    /// time and the writer cuts segments under its budget.
    pub fn add_texts<I>(
        &self,
        collection: &CollectionConfig,
        texts: I,
        progress: &(dyn Fn(AddProgress) + Sync),
    ) -> Result<AddSummary>
    where
        I: IntoIterator<Item = (String, String, String)>,
    {
        let started = Instant::now();
        let mut writer = self.index.writer(WriterOptions { memory_budget: self.options.memory_budget })?;
        writer.ensure_collection(collection.clone())?;
        let mut summary = AddSummary::default();
        let mut iter = texts.into_iter().peekable();
        while iter.peek().is_some() {
            let batch: Vec<(String, String, String)> = iter.by_ref().take(self.options.batch_size.max(1)).collect();
            let prepared: Vec<Prepared> = batch
                .into_par_iter()
                .map(|(origin, title, text)| {
                    let fingerprint = self.with_fingerprinter(|fp| fp.fingerprint(&text));
                    Prepared { origin, extracted: Extracted::from_text(text, Some(title)), fingerprint }
                })
                .collect();
            for doc in &prepared {
                summary.bytes += doc.extracted.text.len() as u64;
                add_prepared(&mut writer, collection, doc)?;
                summary.added += 1;
            }
            progress(AddProgress { done: summary.added, total: 0 });
        }
        writer.commit()?;
        summary.seconds = started.elapsed().as_secs_f64();
        Ok(summary)
    }

    /// Adds documents already extracted and fingerprinted (by [`Engine::fingerprinter`])
    /// to a collection, creating it if needed, and commits once. Returns their ids in
    /// order. The crawler uses it: it fingerprints a page once, for the containment test
    /// and for the add.
    pub fn add_prepared(&self, collection: &CollectionConfig, docs: &[Prepared]) -> Result<Vec<DocId>> {
        let mut writer = self.index.writer(WriterOptions { memory_budget: self.options.memory_budget })?;
        writer.ensure_collection(collection.clone())?;
        let ids = docs.iter().map(|doc| add_prepared(&mut writer, collection, doc)).collect::<Result<Vec<_>>>()?;
        writer.commit()?;
        Ok(ids)
    }

    /// Adds one text to a collection and commits.
    pub fn add_text(&self, collection: &CollectionConfig, origin: &str, title: &str, text: &str) -> Result<DocId> {
        let mut writer = self.index.writer(WriterOptions { memory_budget: self.options.memory_budget })?;
        writer.ensure_collection(collection.clone())?;
        let fingerprint = self.with_fingerprinter(|fp| fp.fingerprint(text));
        let doc = Prepared {
            origin: origin.to_owned(),
            extracted: Extracted::from_text(text.to_owned(), Some(title.to_owned())),
            fingerprint,
        };
        let id = add_prepared(&mut writer, collection, &doc)?;
        writer.commit()?;
        Ok(id)
    }

    /// Checks a file against every collection. An archive is an error
    /// ([`tessera_extract::Error::Archive`]); see [`check_documents`](Self::check_documents).
    pub fn check_path(&self, path: &Path) -> Result<Report> {
        let extracted = tessera_extract::extract_path(path, &self.options.extract)?;
        self.check_extracted(&path.display().to_string(), &extracted)
    }

    /// Checks every document in a file (each member of an archive, named
    /// `archive.zip!/member`), each with its own report or error.
    pub fn check_documents(&self, path: &Path) -> Vec<(String, Result<Report>)> {
        let extractor = tessera_extract::Extractor::new(self.options.extract.clone());
        extractor
            .extract_path_documents(path)
            .into_iter()
            .map(|doc| {
                let report =
                    doc.result.map_err(Error::from).and_then(|extracted| self.check_extracted(&doc.name, &extracted));
                (doc.name, report)
            })
            .collect()
    }

    /// Checks an extracted document: its text, with its title (or a title from `name`)
    /// and extraction's warnings (bypass attempts, pages without text) in the report.
    pub fn check_extracted(&self, name: &str, extracted: &Extracted) -> Result<Report> {
        let title = extracted.title.clone().unwrap_or_else(|| file_title(Path::new(name)));
        let suspect =
            SuspectInfo::new(name, title, extracted.text.as_str()).with_warnings(crate::notices::notices(extracted));
        self.check_suspect(suspect)
    }

    /// Checks a text against every collection.
    pub fn check_text(&self, name: &str, title: &str, text: &str) -> Result<Report> {
        self.check_suspect(SuspectInfo::new(name, title, text))
    }

    fn check_suspect(&self, suspect: SuspectInfo) -> Result<Report> {
        let reader = self.reader()?;
        let query = self.with_fingerprinter(|fp| fp.query(&suspect.text));
        let revisions = self.search(&reader, &query, None)?;
        let sources = source_infos(&reader, &revisions)?;
        Ok(Report::build(suspect, &revisions, &sources, &self.options.report))
    }

    /// Extracts the text of a document given as bytes (an upload) with this engine's
    /// extraction settings; the format is recognised by content, `name` breaks ties.
    pub fn extract_bytes(&self, name: &str, bytes: &[u8]) -> Result<Extracted> {
        Ok(tessera_extract::extract_bytes(name, bytes, &self.options.extract)?)
    }

    /// Builds the report of a suspect from revisions found with
    /// [`search`](Self::search) (one per collection, possibly only some collections:
    /// the caller marks the missing ones with
    /// [`Report::mark_missing`](tessera_report::Report::mark_missing)).
    pub fn report(&self, reader: &IndexReader, suspect: SuspectInfo, revisions: &[Revision]) -> Result<Report> {
        let sources = source_infos(reader, revisions)?;
        Ok(Report::build(suspect, revisions, &sources, &self.options.report))
    }

    /// Searches the named collections (all when `None`) concurrently, one revision each,
    /// sorted by collection name.
    pub fn search(&self, reader: &IndexReader, query: &Query, collections: Option<&[String]>) -> Result<Vec<Revision>> {
        let names: Vec<String> = match collections {
            Some(names) => {
                for n in names {
                    if reader.collection(n).is_none() {
                        return Err(Error::UnknownCollection(n.clone()));
                    }
                }
                names.to_vec()
            }
            None => reader.collections().into_iter().map(|c| c.config.name).collect(),
        };
        if names.is_empty() {
            return Err(Error::EmptyIndex(self.dir.clone()));
        }
        let mut revisions: Vec<Revision> = names
            .par_iter()
            .map(|name| {
                // Snapshots carry terms and sentences (segment format 2); for older segments a
                // collection that keeps its texts gives alignment the sources' terms and
                // sentences from the text.
                if !reader.collection(name).is_some_and(|c| c.config().keep_texts) {
                    return self.searcher.search(reader, name, query).map_err(Error::from);
                }
                let mut fp = self.fingerprinter();
                let mut source_text = |doc| -> std::result::Result<Option<Query>, tessera_search::Error> {
                    Ok(reader.text(doc)?.map(|text| fp.query(&text)))
                };
                self.searcher.search_with(reader, name, query, &mut source_text).map_err(Error::from)
            })
            .collect::<Result<_>>()?;
        revisions.sort_by(|a, b| a.collection.cmp(&b.collection));
        Ok(revisions)
    }
}

pub(crate) fn add_prepared(
    writer: &mut tessera_index::IndexWriter,
    collection: &CollectionConfig,
    doc: &Prepared,
) -> Result<DocId> {
    let text = &doc.extracted.text;
    let title = doc.extracted.title.clone().unwrap_or_else(|| file_title(Path::new(&doc.origin)));
    let meta = DocMeta {
        title,
        origin: doc.origin.clone(),
        added_at: SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0),
        byte_len: text.len() as u64,
        char_len: text.chars().count() as u64,
    };
    let snapshot = crate::fingerprinter::snapshot(&doc.fingerprint);
    let new = NewDocument { meta, snapshot: &snapshot, text: collection.keep_texts.then_some(text.as_str()) };
    Ok(writer.add(&collection.name, new)?)
}

fn source_infos(reader: &IndexReader, revisions: &[Revision]) -> Result<Vec<SourceInfo>> {
    let mut out = Vec::new();
    for rev in revisions {
        for s in &rev.sources {
            let meta = reader.meta(s.doc)?;
            out.push(SourceInfo {
                doc: s.doc,
                collection: rev.collection.clone(),
                kind: rev.kind,
                title: meta.title,
                origin: meta.origin,
                // The first place is the origin itself.
                seen_at: reader.seen_at(s.doc)?.into_iter().skip(1).collect(),
                text: reader.text(s.doc)?,
            });
        }
    }
    Ok(out)
}

/// A title from a file name when the document has none.
fn file_title(path: &Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// Files under the given paths, recursively, sorted; hidden entries skipped.
/// The files under `paths` as [`Engine::add_paths`] takes them: folders recursively in
/// sorted order, hidden entries skipped.
pub fn list_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    collect_files(paths)
}

fn collect_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| Error::Io { path: p.clone(), source: e })?;
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
    let mut entries: Vec<_> = std::fs::read_dir(dir).map_err(io)?.collect::<std::io::Result<_>>().map_err(io)?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
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
