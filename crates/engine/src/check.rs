//! The one check path: a suspect is prepared once (its text, title, extraction's
//! notices and its fingerprints), each collection of a fixed view of the index is
//! searched, and the report is built from the revisions.
//!
//! `tessera check` runs it at once ([`Engine::check`]); the server runs the same steps
//! itself to schedule them (one search per collection, each with a timeout, a partial
//! report while some are late), so both give the same report for the same document.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use tessera_extract::Extracted;
use tessera_index::{CollectionInfo, DocId, DocMeta, IndexReader};
use tessera_report::{Notice, Report, SourceInfo, SuspectInfo};
use tessera_search::{Query, Revision, SearchProgress};

use crate::chunks::{JoinedRevision, SharedChunks, TextChunk};
use crate::{Engine, Error, Result};

/// A suspect ready to be searched: what the report shows of it (name, title, text,
/// extraction's notices) and its fingerprints, or, for a text longer than
/// [`EngineOptions::chunk_bytes`](crate::EngineOptions::chunk_bytes), its chunks, each fingerprinted when
/// its turn comes in a search (`crate::chunks`).
#[derive(Debug, Clone)]
pub struct Suspect {
    info: SuspectInfo,
    fingerprints: Fingerprints,
}

/// A suspect's fingerprints: of the whole text, or made chunk by chunk.
#[derive(Debug, Clone)]
enum Fingerprints {
    Whole(Arc<Query>),
    Chunks(Vec<TextChunk>),
}

impl Suspect {
    /// What `searchers` collections searched at once share of this suspect's chunks
    /// (`None` for a suspect searched whole).
    fn shared_chunks(&self, searchers: usize) -> Option<SharedChunks> {
        match &self.fingerprints {
            Fingerprints::Whole(_) => None,
            Fingerprints::Chunks(chunks) => Some(SharedChunks::new(chunks.len(), searchers)),
        }
    }

    /// Name, title, text and notices, as the report shows them.
    pub fn info(&self) -> &SuspectInfo {
        &self.info
    }

    /// Extraction's notices as sentences for a person (bypass attempts, pages without
    /// text, invalid bytes), in order.
    pub fn warnings(&self) -> Vec<String> {
        self.info.warnings.iter().map(|n| n.message.clone()).collect()
    }
}

/// A fixed view of the index (the last commit when it was taken), or of the shards of
/// one ([`Engine::sharded_view`]): every search of one check runs on the same view,
/// whatever is committed meanwhile. Cheap to clone.
#[derive(Debug, Clone)]
pub struct IndexView {
    source: ViewSource,
}

#[derive(Debug, Clone)]
enum ViewSource {
    Index(Arc<IndexReader>),
    Shards(Arc<crate::shards::ShardedView>),
}

/// One collection of a view, as a search reads it.
enum ViewSources<'v> {
    Index(tessera_search::IndexCollection<'v>, &'v IndexReader),
    Shards(crate::shards::ShardSources<'v>),
}

impl ViewSources<'_> {
    fn sources(&self) -> &dyn tessera_search::Sources {
        match self {
            Self::Index(c, _) => c,
            Self::Shards(s) => s,
        }
    }

    fn text(&self, doc: DocId) -> Result<Option<String>> {
        match self {
            Self::Index(_, reader) => Ok(reader.text(doc)?),
            Self::Shards(s) => s.text(doc),
        }
    }
}

impl IndexView {
    pub(crate) fn new(reader: IndexReader) -> Self {
        Self { source: ViewSource::Index(Arc::new(reader)) }
    }

    pub(crate) fn sharded(view: crate::shards::ShardedView) -> Self {
        Self { source: ViewSource::Shards(Arc::new(view)) }
    }

    /// The index this view reads; an error for a view of shards (what needs one index:
    /// submissions, answering a shard's requests).
    pub(crate) fn index(&self) -> Result<&IndexReader> {
        match &self.source {
            ViewSource::Index(reader) => Ok(reader),
            ViewSource::Shards(_) => {
                Err(Error::Shards("this needs one index, not a view of the shards of one".to_owned()))
            }
        }
    }

    /// How many shards this view reads (1 for one index).
    pub fn shards(&self) -> usize {
        match &self.source {
            ViewSource::Index(_) => 1,
            ViewSource::Shards(view) => view.shards(),
        }
    }

    fn sources(&self, collection: &str) -> Result<ViewSources<'_>> {
        Ok(match &self.source {
            ViewSource::Index(reader) => {
                ViewSources::Index(tessera_search::IndexCollection::new(reader, collection)?, reader)
            }
            ViewSource::Shards(view) => ViewSources::Shards(view.sources(collection)?),
        })
    }

    /// Collections with their sizes, sorted by name.
    pub fn collections(&self) -> Vec<CollectionInfo> {
        match &self.source {
            ViewSource::Index(reader) => reader.collections(),
            ViewSource::Shards(view) => view.collections(),
        }
    }

    /// The names of the collections, sorted.
    pub fn collection_names(&self) -> Vec<String> {
        self.collections().into_iter().map(|c| c.config.name).collect()
    }

    /// A collection's settings.
    pub(crate) fn collection_config(&self, name: &str) -> Option<tessera_core::CollectionConfig> {
        self.collections().into_iter().map(|c| c.config).find(|c| c.name == name)
    }

    /// A document's metadata (title, origin, sizes).
    pub fn meta(&self, doc: DocId) -> Result<DocMeta> {
        match &self.source {
            ViewSource::Index(reader) => Ok(reader.meta(doc)?),
            ViewSource::Shards(view) => view.meta(doc),
        }
    }

    /// A document's kept text.
    pub(crate) fn text(&self, doc: DocId) -> Result<Option<String>> {
        match &self.source {
            ViewSource::Index(reader) => Ok(reader.text(doc)?),
            ViewSource::Shards(view) => view.text(doc),
        }
    }

    /// Whether `doc` is in this view and not deleted (a deleted document is gone once a
    /// merge purged it, and deleted before that).
    pub fn is_live(&self, doc: DocId) -> bool {
        match &self.source {
            ViewSource::Index(reader) => !reader.is_deleted(doc) && reader.meta(doc).is_ok(),
            ViewSource::Shards(view) => view.is_live(doc),
        }
    }

    /// Every place a document was seen at: where it was added from, then the origins
    /// attached to it by the add-only-if-new rule.
    pub fn seen_at(&self, doc: DocId) -> Result<Vec<String>> {
        match &self.source {
            ViewSource::Index(reader) => Ok(reader.seen_at(doc)?),
            ViewSource::Shards(view) => view.seen_at(doc),
        }
    }

    /// Every document (deleted ones too), in id order.
    pub fn docs(&self) -> Result<Vec<DocId>> {
        match &self.source {
            ViewSource::Index(reader) => Ok(reader.docs().collect()),
            ViewSource::Shards(view) => view.docs(),
        }
    }

    /// Fetches `docs` (with their texts) together where that saves round trips.
    fn prefetch(&self, docs: &[DocId], texts: bool) -> Result<()> {
        match &self.source {
            ViewSource::Index(_) => Ok(()),
            ViewSource::Shards(view) => view.prefetch(docs, texts),
        }
    }
}

/// How far a check has come, for progress bars (`tessera check` draws one on a terminal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckProgress<'a> {
    /// The file (`name`) is being read and its text extracted.
    Extracting {
        /// The file.
        name: &'a str,
    },
    /// A document's text of `chars` characters is being fingerprinted.
    Fingerprinting {
        /// The document (the file, or `archive!/member`).
        name: &'a str,
        /// Its length in characters.
        chars: u64,
    },
    /// One collection is being searched (collections are searched concurrently).
    Searching {
        /// The collection.
        collection: &'a str,
        /// Sources aligned so far and candidates left.
        progress: SearchProgress,
    },
    /// The revisions are merged into the report (shares, word-level differences).
    Reporting,
}

/// Every document of a file checked: one report, or one per member of an archive.
#[derive(Debug)]
pub enum CheckedFile {
    /// A document.
    Document(Box<Report>),
    /// An archive: each member (`archive.zip!/member`) with its report or error.
    Archive(Vec<(String, Result<Report>)>),
}

impl Engine {
    /// A suspect from an extracted document, with its title (or `title`, or one made
    /// from `name`) and extraction's warnings as notices (locations in characters).
    pub fn suspect_extracted(&self, name: &str, title: Option<String>, extracted: &Extracted) -> Suspect {
        let title =
            crate::title::document_title(title.or_else(|| extracted.title.clone()).as_deref(), &extracted.text, name);
        let info =
            SuspectInfo::new(name, title, extracted.text.as_str()).with_warnings(crate::notices::notices(extracted));
        self.suspect_info(info)
    }

    /// A suspect from a file's bytes (an upload), extracted with this engine's settings;
    /// the format is recognised by content, `name` breaks ties.
    pub fn suspect_bytes(&self, name: &str, title: Option<String>, bytes: &[u8]) -> Result<Suspect> {
        let extracted = self.extract_bytes(name, bytes)?;
        Ok(self.suspect_extracted(name, title, &extracted))
    }

    /// A suspect from a text used as given (pasted, or an archive member extracted
    /// earlier): extraction only looks for bypass tricks in it. Its notices keep their
    /// locations when extraction leaves the text as it is.
    pub fn suspect_text(&self, name: &str, title: Option<String>, text: String) -> Suspect {
        let notices = match self.extract_bytes("pasted.txt", text.as_bytes()) {
            Ok(extracted) if extracted.text == text => crate::notices::notices(&extracted),
            Ok(extracted) => crate::notices::notices(&extracted)
                .into_iter()
                .map(|mut n| {
                    n.locations.clear();
                    n
                })
                .collect(),
            Err(_) => Vec::new(),
        };
        let title = crate::title::document_title(title.as_deref(), &text, name);
        let info = SuspectInfo::new(name, title, text).with_warnings(notices);
        self.suspect_info(info)
    }

    /// A suspect from a text alone: no extraction, no notices (benchmarks, evaluation).
    pub fn suspect_plain(&self, name: &str, title: &str, text: &str) -> Suspect {
        self.suspect_info(SuspectInfo::new(name, title, text))
    }

    fn suspect_info(&self, mut info: SuspectInfo) -> Suspect {
        let search = &self.options().search;
        // A check that could not look across languages says so (unless asked not to).
        if search.cross_language != tessera_search::CrossLanguage::Off
            && let Some(reason) = self.cross.off_because()
        {
            info.warnings.push(Notice {
                kind: "cross_language_off".to_owned(),
                bypass: false,
                message: reason,
                count: 1,
                locations: Vec::new(),
            });
        }
        let fingerprints = match crate::chunks::plan(&info.text, self.options().chunk_bytes) {
            Some(chunks) => Fingerprints::Chunks(chunks),
            None => Fingerprints::Whole(Arc::new(
                self.with_fingerprinter(|fp| crate::fingerprinter::search_query(fp, &info.text, search, &self.cross)),
            )),
        };
        Suspect { info, fingerprints }
    }

    /// A fixed view of the last commit, for one check (of every shard's, for an engine
    /// opened on shards: [`Engine::open_sharded`]).
    pub fn view(&self) -> Result<IndexView> {
        match self.shard_set() {
            Some(set) => self.sharded_view(set),
            None => Ok(IndexView::new(self.reader()?)),
        }
    }

    /// Searches one collection of `view` for `suspect`: one revision.
    pub fn search(&self, view: &IndexView, suspect: &Suspect, collection: &str) -> Result<Revision> {
        self.search_observed(view, suspect, collection, &|_| {})
    }

    /// [`Engine::search`] telling `observe` how far it has come (candidates ranked, then
    /// each one aligned).
    pub fn search_observed(
        &self,
        view: &IndexView,
        suspect: &Suspect,
        collection: &str,
        observe: &dyn Fn(SearchProgress),
    ) -> Result<Revision> {
        self.search_one(view, suspect, collection, None, observe)
    }

    /// Searches each of `collections` of `view` on a thread of its own and hands each
    /// collection's revision (or error) to `answer` as soon as that collection is done,
    /// so a caller can hold each collection to a deadline of its own (the server's
    /// per-collection timeouts: a late collection holds back no other, and its answer
    /// still comes). A chunked suspect's chunks are fingerprinted once for all the
    /// collections ([`SharedChunks`]). Returns when every collection has answered; a
    /// search that panics answers [`Error::SearchStopped`].
    pub fn search_each(
        &self,
        view: &IndexView,
        suspect: &Suspect,
        collections: &[String],
        observe: &(dyn Fn(CheckProgress<'_>) + Sync),
        answer: &(dyn Fn(&str, Result<Revision>) + Sync),
    ) {
        let shared = suspect.shared_chunks(collections.len());
        std::thread::scope(|scope| {
            for name in collections {
                let shared = shared.as_ref();
                scope.spawn(move || {
                    let observe_one = |progress| observe(CheckProgress::Searching { collection: name, progress });
                    let search = || self.search_one(view, suspect, name, shared, &observe_one);
                    let result =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(search)).unwrap_or_else(|panic| {
                            let reason = panic
                                .downcast_ref::<&str>()
                                .map(|s| (*s).to_owned())
                                .or_else(|| panic.downcast_ref::<String>().cloned())
                                .unwrap_or_else(|| "a panic".to_owned());
                            Err(Error::SearchStopped { collection: name.clone(), reason })
                        });
                    answer(name, result);
                });
            }
        });
    }

    /// Searches one collection for `suspect`: its whole query, or its chunks one after
    /// another, taken from `shared` when other collections search them too.
    fn search_one(
        &self,
        view: &IndexView,
        suspect: &Suspect,
        collection: &str,
        shared: Option<&SharedChunks>,
        observe: &dyn Fn(SearchProgress),
    ) -> Result<Revision> {
        let chunks = match &suspect.fingerprints {
            Fingerprints::Whole(query) => return self.search_query(view, query, collection, observe),
            Fingerprints::Chunks(chunks) => chunks,
        };
        let own;
        let shared = match shared {
            Some(shared) => shared,
            None => {
                own = SharedChunks::new(chunks.len(), 1);
                &own
            }
        };
        let settings = &self.options().search;
        let mut joined = JoinedRevision::default();
        let mut aligned_before = 0;
        for (i, chunk) in chunks.iter().enumerate() {
            let query = shared.query(i, || {
                let text = &suspect.info.text[chunk.over.clone()];
                self.with_fingerprinter(|fp| crate::fingerprinter::search_query(fp, text, settings, &self.cross))
            });
            let searched = self.search_chunk(view, &query, collection, aligned_before, observe);
            shared.leave(i, if searched.is_ok() { i + 1 } else { chunks.len() });
            let (revision, aligned) = searched?;
            aligned_before += aligned;
            joined.add(chunk, revision, |byte| query.token_bytes.partition_point(|t| t.start < byte));
        }
        Ok(joined.finish().expect("a chunked suspect has chunks"))
    }

    /// One chunk's search of one collection ([`Engine::search_query`]), its progress
    /// counted on from the `before` sources earlier chunks aligned; with the number of
    /// sources it aligned.
    fn search_chunk(
        &self,
        view: &IndexView,
        query: &Query,
        collection: &str,
        before: usize,
        observe: &dyn Fn(SearchProgress),
    ) -> Result<(Revision, usize)> {
        let aligned = std::cell::Cell::new(0);
        let observe_chunk = |progress: SearchProgress| {
            aligned.set(progress.aligned);
            observe(SearchProgress { aligned: before + progress.aligned, ..progress });
        };
        let revision = self.search_query(view, query, collection, &observe_chunk)?;
        Ok((revision, aligned.get()))
    }

    /// Searches one collection of `view` with a suspect's fingerprints, `query`.
    fn search_query(
        &self,
        view: &IndexView,
        query: &Query,
        collection: &str,
        observe: &dyn Fn(SearchProgress),
    ) -> Result<Revision> {
        let sources = view.sources(collection)?;
        // Snapshots carry terms and sentences (segment format 2); for older segments a
        // collection that keeps its texts gives alignment the sources' terms and sentences
        // from the text.
        if !sources.sources().config().keep_texts {
            return Ok(self.searcher().search_sources(sources.sources(), query, None, observe)?);
        }
        let mut fp = self.fingerprinter();
        let mut source_text = |doc| -> std::result::Result<Option<Query>, tessera_search::Error> {
            let text = sources.text(doc).map_err(|e| match e {
                Error::Index(e) => tessera_search::Error::Index(e),
                Error::Search(e) => e,
                e => tessera_search::Error::Sources(e.to_string()),
            })?;
            Ok(text.map(|text| crate::fingerprinter::source_query(&mut fp, &text)))
        };
        Ok(self.searcher().search_sources(sources.sources(), query, Some(&mut source_text), observe)?)
    }

    /// Searches every collection of `view` concurrently ([`Engine::search_each`]):
    /// revisions sorted by collection.
    pub fn search_all(&self, view: &IndexView, suspect: &Suspect) -> Result<Vec<Revision>> {
        self.search_all_observed(view, suspect, &|_| {})
    }

    /// [`Engine::search_all`] telling `observe` how far each collection has come.
    pub fn search_all_observed(
        &self,
        view: &IndexView,
        suspect: &Suspect,
        observe: &(dyn Fn(CheckProgress<'_>) + Sync),
    ) -> Result<Vec<Revision>> {
        let names = view.collection_names();
        if names.is_empty() {
            return Err(Error::EmptyIndex(self.dir().to_path_buf()));
        }
        let answers = std::sync::Mutex::new(std::collections::BTreeMap::new());
        self.search_each(view, suspect, &names, observe, &|name, result| {
            answers.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(name.to_owned(), result);
        });
        answers.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner).into_values().collect()
    }

    /// The report of `suspect` from the revisions found in `view` (some collections may
    /// be `missing`: not answered yet, or failed; the report says so).
    pub fn report(
        &self,
        view: &IndexView,
        suspect: &Suspect,
        revisions: &[Revision],
        missing: &[String],
    ) -> Result<Report> {
        let mut revisions = revisions.to_vec();
        revisions.sort_by(|a, b| a.collection.cmp(&b.collection));
        let (sources, notes) = self.source_infos(view, &revisions, &suspect.info.text)?;
        let mut report = Report::build(suspect.info.clone(), &revisions, &sources, &self.options().report);
        for s in &mut report.sources {
            if let Some(note) = notes.get(&s.id) {
                s.text_missing = if s.text_kept { None } else { note.text_missing.clone() };
                s.submission.clone_from(&note.submission);
            }
        }
        for c in missing {
            report.mark_missing(c.clone());
        }
        Ok(report)
    }

    /// Checks a suspect against every collection of the last commit.
    pub fn check(&self, suspect: &Suspect) -> Result<Report> {
        self.check_observed(suspect, &|_| {})
    }

    /// [`Engine::check`] telling `observe` how far it has come.
    pub fn check_observed(&self, suspect: &Suspect, observe: &(dyn Fn(CheckProgress<'_>) + Sync)) -> Result<Report> {
        self.check_in(&self.view()?, suspect, observe)
    }

    /// Checks a suspect against every collection of `view` (of this index, or of the
    /// shards of one: [`Engine::sharded_view`]).
    pub fn check_in(
        &self,
        view: &IndexView,
        suspect: &Suspect,
        observe: &(dyn Fn(CheckProgress<'_>) + Sync),
    ) -> Result<Report> {
        let revisions = self.search_all_observed(view, suspect, observe)?;
        observe(CheckProgress::Reporting);
        self.report(view, suspect, &revisions, &[])
    }

    /// Checks a file: one report, or one per member of an archive.
    pub fn check_path(&self, path: &Path) -> Result<CheckedFile> {
        self.check_path_observed(path, &|_| {})
    }

    /// [`Engine::check_path`] telling `observe` how far it has come: reading, then for
    /// each document fingerprinting, searching each collection, building the report. A
    /// whole book takes seconds to minutes; this is what a progress bar shows meanwhile.
    pub fn check_path_observed(
        &self,
        path: &Path,
        observe: &(dyn Fn(CheckProgress<'_>) + Sync),
    ) -> Result<CheckedFile> {
        Ok(self.check_path_submitting(path, None, observe)?.0)
    }

    /// [`Engine::check_path_observed`], then each document checked is kept as a
    /// submission ([`Engine::submit`]): the file under `submission`, or each member of an
    /// archive under a check id of its own (`submission`'s collection and time, the
    /// member's title). Returns the submissions made, by document name.
    pub fn check_path_submitting(
        &self,
        path: &Path,
        submission: Option<&crate::Submission>,
        observe: &(dyn Fn(CheckProgress<'_>) + Sync),
    ) -> Result<(CheckedFile, Vec<(String, crate::Submitted)>)> {
        let name = path.display().to_string();
        observe(CheckProgress::Extracting { name: &name });
        let extractor = tessera_extract::Extractor::new(self.options().extract.clone());
        let mut documents = extractor.extract_path_documents(path);
        let submitted = std::sync::Mutex::new(Vec::new());
        let check_one = |name: &str, extracted: &Extracted, submission: Option<crate::Submission>| {
            observe(CheckProgress::Fingerprinting { name, chars: extracted.text.chars().count() as u64 });
            let suspect = self.suspect_extracted(name, None, extracted);
            let (report, done) = self.check_and_submit_observed(&suspect, submission.as_ref(), observe)?;
            if let Some(done) = done {
                submitted.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push((name.to_owned(), done));
            }
            Ok(report)
        };
        if documents.len() == 1 && documents[0].name == name {
            let doc = documents.pop().expect("one document");
            let extracted = doc.result?;
            let report = check_one(&name, &extracted, submission.cloned())?;
            return Ok((CheckedFile::Document(Box::new(report)), submitted.into_inner().unwrap_or_default()));
        }
        let member = |s: &crate::Submission| crate::Submission {
            title: None,
            submitted_at: s.submitted_at,
            ..crate::Submission::new(s.collection.clone(), None)
        };
        let checked = CheckedFile::Archive(
            documents
                .into_iter()
                .map(|doc| {
                    let report = doc
                        .result
                        .map_err(Error::from)
                        .and_then(|extracted| check_one(&doc.name, &extracted, submission.map(member)));
                    (doc.name, report)
                })
                .collect(),
        );
        Ok((checked, submitted.into_inner().unwrap_or_default()))
    }

    /// Checks a text against every collection (no extraction, no notices).
    pub fn check_text(&self, name: &str, title: &str, text: &str) -> Result<Report> {
        self.check(&self.suspect_plain(name, title, text))
    }
}

/// What the engine adds to a report's source: why its text is missing, and the
/// submission it is.
#[derive(Debug, Default)]
struct SourceNote {
    text_missing: Option<String>,
    submission: Option<tessera_report::EarlierSubmission>,
}

impl Engine {
    /// The sources of `revisions` as the report builds them (their texts: kept, or read
    /// from their original files, `crate::texts`), and what the report says of each
    /// beyond that.
    fn source_infos(
        &self,
        view: &IndexView,
        revisions: &[Revision],
        suspect_text: &str,
    ) -> Result<(Vec<SourceInfo>, BTreeMap<DocId, SourceNote>)> {
        let mut out = Vec::new();
        let mut notes = BTreeMap::new();
        let suspect_hash = std::sync::LazyLock::new(|| crate::text_hash(suspect_text));
        let docs: Vec<DocId> = revisions.iter().flat_map(|r| r.sources.iter().map(|s| s.doc)).collect();
        view.prefetch(&docs, true)?;
        // A document may come twice: a source of its own and a copy of another.
        let mut seen = std::collections::BTreeSet::new();
        for rev in revisions {
            let Some(config) = view.collection_config(&rev.collection) else { continue };
            for s in rev.sources.iter().filter(|s| seen.insert(s.doc)) {
                let meta = view.meta(s.doc)?;
                let text = self.source_text(view, s.doc, &meta, &config)?;
                let submission = meta.check_id.as_ref().map(|check_id| tessera_report::EarlierSubmission {
                    check_id: check_id.clone(),
                    submitted_at: tessera_report::date::rfc3339(meta.added_at),
                    identical: meta.text_hash == Some(*suspect_hash),
                });
                notes.insert(s.doc, SourceNote { text_missing: text.as_ref().err().cloned(), submission });
                out.push(SourceInfo {
                    doc: s.doc,
                    collection: rev.collection.clone(),
                    kind: rev.kind,
                    title: meta.title,
                    origin: meta.origin,
                    // The first place is the origin itself.
                    seen_at: view.seen_at(s.doc)?.into_iter().skip(1).collect(),
                    text: text.ok(),
                });
            }
        }
        Ok((out, notes))
    }
}
