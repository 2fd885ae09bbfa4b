//! The one add path: files, texts and crawled pages go into a collection through an
//! [`AddSession`], which applies the add-only-if-new rule when asked to.
//!
//! Every surface (`tessera index [--if-new]`, the server's `POST /api/documents`, the
//! crawler) adds through here, so the rule, its default threshold and its valid range
//! exist once.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use rayon::prelude::*;
use tessera_core::AddMode;
use tessera_extract::Extracted;
use tessera_fingerprint::ShingleConfig;
use tessera_index::{CollectionConfig, DocId, DocMeta, FullTerms, IndexReader, IndexWriter, MergeStats, NewDocument};

use crate::writer::WriterGuard;
use crate::{Engine, Error, Fingerprint, Result, describe_error};

/// One document ready to be added: extracted and fingerprinted.
#[derive(Debug)]
pub struct Prepared {
    /// Where it came from (path, `archive!/member` or URL).
    pub origin: String,
    /// Extracted text and title.
    pub extracted: Extracted,
    /// Its fingerprints.
    pub fingerprint: Fingerprint,
}

/// What became of one document offered to an [`AddSession`].
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum AddOutcome {
    /// Added under this id (durable at the session's next commit).
    Added {
        /// The new document.
        doc: DocId,
    },
    /// Not new: `into` holds `containment` of its distinct shingle hashes, and the
    /// document's origin is attached to it (at the next commit).
    Seen {
        /// The containing document.
        into: DocId,
        /// The share of the document's distinct shingle hashes `into` holds.
        containment: f64,
    },
    /// Not new, and the containing document was added from this very origin before (a
    /// folder indexed again, or a page offered again after a crash): nothing to do. Under
    /// [`AddMode::SkipRepeats`] the containment is 1 (the same shingle hashes).
    AlreadyIndexed {
        /// The document.
        doc: DocId,
        /// The share of the document's distinct shingle hashes it holds.
        containment: f64,
    },
}

/// A document left out by the add-only-if-new rule.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SeenDocument {
    /// Where it came from.
    pub origin: String,
    /// The indexed document that contains it.
    pub into: DocId,
    /// Where `into` was added from.
    pub into_origin: String,
    /// The share of its distinct shingle hashes `into` holds, in `[0, 1]`.
    pub containment: f64,
    /// Whether `into` was added from this very origin (nothing was attached).
    pub same_origin: bool,
}

/// A file or member that could not be added.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FailedDocument {
    /// The file, `archive!/member` or URL.
    pub origin: String,
    /// Why.
    pub reason: String,
}

/// What an add did.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct AddSummary {
    /// Documents added.
    pub added: u64,
    /// Bytes of text added.
    pub bytes: u64,
    /// Documents not added: not new (with [`AddMode::IfNew`]) or repeats (with
    /// [`AddMode::SkipRepeats`]: `same_origin` true).
    pub seen: Vec<SeenDocument>,
    /// Files and members that failed (the rest were still added).
    pub failed: Vec<FailedDocument>,
    /// Seconds spent.
    pub seconds: f64,
    /// The documents added, in the order they were added: where each came from and its
    /// id (not in the JSON summary: one entry per document of an add of millions).
    #[serde(skip)]
    pub documents: Vec<(String, DocId)>,
}

/// Progress of a long add, for progress bars.
#[derive(Debug, Clone, Copy)]
pub struct AddProgress {
    /// Files (or texts) done so far (added, seen or failed).
    pub done: u64,
    /// Files in all (0 when unknown).
    pub total: u64,
}

/// A document added in this session and not committed yet, as the if-new rule sees it.
#[derive(Debug)]
struct Fresh {
    doc: DocId,
    origin: String,
}

/// The distinct shingle hashes of the uncommitted documents ([`Fresh`]), inverted: the
/// if-new rule counts a new document's hashes in it once instead of intersecting its set
/// with each uncommitted document's (which, at a batch of 256 pages, cost as much as the
/// look-ups in the committed segments).
#[derive(Debug, Default)]
struct FreshPostings {
    /// Hash -> its last entry in `entries`.
    heads: foldhash::HashMap<u64, u32>,
    /// `(index in fresh, previous entry of the same hash or NONE)`.
    entries: Vec<(u32, u32)>,
}

impl FreshPostings {
    const NONE: u32 = u32::MAX;

    fn insert(&mut self, fresh: usize, set: &[u64]) {
        for &h in set {
            let at = self.entries.len() as u32;
            let prev = self.heads.insert(h, at).unwrap_or(Self::NONE);
            self.entries.push((fresh as u32, prev));
        }
    }

    /// `counts[i]` += how many of `set`'s hashes uncommitted document `i` holds.
    fn count(&self, set: &[u64], counts: &mut [u32]) {
        for h in set {
            let mut at = self.heads.get(h).copied().unwrap_or(Self::NONE);
            while at != Self::NONE {
                let (fresh, prev) = self.entries[at as usize];
                counts[fresh as usize] += 1;
                at = prev;
            }
        }
    }

    fn clear(&mut self) {
        self.heads.clear();
        self.entries.clear();
    }
}

/// Adds documents to one collection, one at a time, under one [`AddMode`].
///
/// The index writer (one per index at a time) is taken when the first document or
/// attachment needs it and released by [`commit`](Self::commit): with the engine's
/// [`WriterMode::PerCommit`](crate::WriterMode) another writer (a second `tessera index`)
/// is only locked out while a batch is being written; with
/// [`WriterMode::Resident`](crate::WriterMode) the engine keeps it between batches, and
/// another session of the same engine waits for the commit. Dropping a session without a
/// commit drops what it added since its last commit.
/// Under [`AddMode::IfNew`] a session commits by itself once `batch_size` documents await
/// a commit, which bounds the memory the rule keeps per uncommitted document.
pub struct AddSession<'e> {
    engine: &'e Engine,
    collection: CollectionConfig,
    mode: AddMode,
    writer: Option<WriterGuard<'e>>,
    reader: IndexReader,
    /// Bumped whenever `reader` is replaced: look-ups made with an older reader are
    /// redone.
    reader_epoch: u64,
    fresh: Vec<Fresh>,
    fresh_postings: FreshPostings,
    /// Origins to attach to documents of `fresh` once they are committed.
    attach_later: Vec<(DocId, String)>,
    /// Documents added since the last call of [`commit`](Self::commit).
    added: Vec<(String, DocId)>,
    /// Documents committed (by an automatic commit) and not yet returned by `commit`.
    committed: Vec<(String, DocId)>,
    /// Under [`AddMode::SkipRepeats`]: documents written since the last commit (which the
    /// reader does not see yet), by origin and a digest of their shingle hashes.
    uncommitted: HashMap<(String, u64), DocId>,
}

impl std::fmt::Debug for AddSession<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AddSession")
            .field("collection", &self.collection.name)
            .field("mode", &self.mode)
            .field("pending", &self.added.len())
            .finish_non_exhaustive()
    }
}

impl<'e> AddSession<'e> {
    pub(crate) fn new(engine: &'e Engine, collection: CollectionConfig, mode: AddMode) -> Result<Self> {
        if engine.is_sharded() {
            return Err(Error::Shards(
                "documents are added to the shards themselves (`tessera index --shards N`), not through a view of \
                 all of them"
                    .to_owned(),
            ));
        }
        if let AddMode::IfNew { min_containment } = mode {
            AddMode::if_new(Some(min_containment))?;
        }
        let reader = engine.reader()?;
        match reader.collection(&collection.name) {
            Some(existing) => check_compatible(existing.config(), &collection)?,
            None if !tessera_core::valid_collection_name(&collection.name) => {
                return Err(tessera_index::Error::InvalidName(collection.name).into());
            }
            None => {}
        }
        Ok(Self {
            engine,
            collection,
            mode,
            writer: None,
            reader,
            reader_epoch: 0,
            fresh: Vec::new(),
            fresh_postings: FreshPostings::default(),
            attach_later: Vec::new(),
            added: Vec::new(),
            committed: Vec::new(),
            uncommitted: HashMap::new(),
        })
    }

    /// The collection this session adds to.
    pub fn collection(&self) -> &CollectionConfig {
        &self.collection
    }

    /// Documents added and not yet returned by [`commit`](Self::commit) (the session
    /// may have committed some by itself: they are returned by the next call).
    pub fn pending(&self) -> usize {
        self.added.len() + self.committed.len()
    }

    /// Where a document of the collection (committed, or added in this session) was
    /// added from.
    pub fn origin_of(&self, doc: DocId) -> Result<String> {
        if let Some((origin, _)) = self.added.iter().chain(&self.committed).find(|(_, d)| *d == doc) {
            return Ok(origin.clone());
        }
        Ok(self.reader.meta(doc)?.origin)
    }

    fn writer(&mut self) -> Result<&mut IndexWriter> {
        if self.writer.is_none() {
            let mut writer = self.engine.writer()?;
            writer.ensure_collection(self.collection.clone())?;
            // Another process (per-commit mode) or session may have committed since the
            // reader was opened: the if-new rule must see what the writer sees.
            self.reader = self.engine.reader()?;
            self.reader_epoch += 1;
            self.writer = Some(writer);
        }
        Ok(self.writer.as_mut().expect("opened just above"))
    }

    /// Adds one prepared document, or (under [`AddMode::IfNew`]) attaches its origin to
    /// the document that contains it.
    pub fn add(&mut self, doc: &Prepared) -> Result<AddOutcome> {
        match self.mode {
            AddMode::All => Ok(AddOutcome::Added { doc: self.write(doc)? }),
            AddMode::SkipRepeats => {
                let digest = hashes_digest(&doc.fingerprint.hashes);
                if let Some(doc) = self.repeat_of(doc, digest)? {
                    return Ok(AddOutcome::AlreadyIndexed { doc, containment: 1.0 });
                }
                let id = self.write(doc)?;
                self.uncommitted.insert((doc.origin.clone(), digest), id);
                Ok(AddOutcome::Added { doc: id })
            }
            AddMode::IfNew { .. } => Ok(self.add_all(std::slice::from_ref(doc))?.remove(0)),
        }
    }

    /// Offers documents in order, with the outcomes [`add`](Self::add) gives one at a
    /// time. Under [`AddMode::IfNew`] the look-ups in the committed segments, most of the
    /// rule's cost, run in parallel (rayon); the decisions, which depend on the documents
    /// added before, are taken in order.
    pub fn add_all(&mut self, docs: &[Prepared]) -> Result<Vec<AddOutcome>> {
        let AddMode::IfNew { min_containment } = self.mode else {
            return docs.iter().map(|d| self.add(d)).collect();
        };
        let mut out = Vec::with_capacity(docs.len());
        let mut rest = docs;
        while !rest.is_empty() {
            // The reader changes when the session commits by itself (a chunk ends there)
            // or takes the writer: what was looked up with the old one is looked up again.
            let room = self.engine.options().batch_size.max(1).saturating_sub(self.fresh.len()).max(1);
            let chunk = &rest[..room.min(rest.len())];
            let epoch = self.reader_epoch;
            let (reader, name) = (&self.reader, &self.collection.name);
            let looked: Vec<(Vec<u64>, Option<Container>)> = chunk
                .par_iter()
                .map(|d| {
                    let set = tessera_near::shingle_set(&d.fingerprint.hashes);
                    let committed = committed_container(reader, name, &set, min_containment)?;
                    Ok((set, committed))
                })
                .collect::<Result<_>>()?;
            let mut used = 0;
            for (doc, (set, committed)) in chunk.iter().zip(looked) {
                out.push(self.add_if_new(doc, set, committed, min_containment)?);
                used += 1;
                if self.reader_epoch != epoch {
                    break;
                }
            }
            rest = &rest[used..];
        }
        Ok(out)
    }

    /// The if-new rule for one document whose distinct hashes are `set`, given the best
    /// committed container found with the current reader.
    fn add_if_new(
        &mut self,
        doc: &Prepared,
        set: Vec<u64>,
        committed: Option<Container>,
        min_containment: f64,
    ) -> Result<AddOutcome> {
        match better(committed, self.fresh_container(&set, min_containment)) {
            Some(Container { doc: into, containment, committed: true }) => {
                if self.reader.meta(into)?.origin == doc.origin {
                    return Ok(AddOutcome::AlreadyIndexed { doc: into, containment });
                }
                self.writer()?.attach_origin(into, &doc.origin)?;
                Ok(AddOutcome::Seen { into, containment })
            }
            Some(Container { doc: into, containment, committed: false }) => {
                if self.fresh.iter().any(|f| f.doc == into && f.origin == doc.origin) {
                    return Ok(AddOutcome::AlreadyIndexed { doc: into, containment });
                }
                self.attach_later.push((into, doc.origin.clone()));
                Ok(AddOutcome::Seen { into, containment })
            }
            None => {
                let id = self.write(doc)?;
                self.fresh_postings.insert(self.fresh.len(), &set);
                self.fresh.push(Fresh { doc: id, origin: doc.origin.clone() });
                if self.fresh.len() >= self.engine.options().batch_size.max(1) {
                    let committed = self.commit()?;
                    self.committed.extend(committed);
                }
                Ok(AddOutcome::Added { doc: id })
            }
        }
    }

    /// Adds `doc` under id `id` (or the next id the engine may give after it): the
    /// shard builder gives each document the id one index would.
    pub(crate) fn add_as(&mut self, doc: &Prepared, id: u64) -> Result<DocId> {
        self.writer()?.skip_ids_to(id);
        self.write(doc)
    }

    fn write(&mut self, doc: &Prepared) -> Result<DocId> {
        let collection = self.collection.clone();
        let shingles = self.engine.settings().shingles;
        let engine = self.engine;
        let writer = self.writer()?;
        engine.place_next_id(writer);
        let id = add_prepared(writer, &collection, shingles, doc)?;
        self.added.push((doc.origin.clone(), id));
        Ok(id)
    }

    /// Makes everything of this session durable and visible (one commit, then the
    /// attachments to documents of the same batch), merges segments as the engine's merge
    /// policy picks (nothing to do costs nothing: many small adds do not pile up
    /// segments), releases the writer, and returns the documents committed since the last
    /// call, in the order they were added.
    pub fn commit(&mut self) -> Result<Vec<(String, DocId)>> {
        if let Some(mut writer) = self.writer.take() {
            writer.commit()?;
            if !self.attach_later.is_empty() {
                for (into, origin) in self.attach_later.drain(..) {
                    writer.attach_origin(into, &origin)?;
                }
                writer.commit()?;
            }
            self.engine.merge_after_commit(&mut writer)?;
            drop(writer);
            self.reader = self.engine.reader()?;
        }
        self.fresh.clear();
        self.fresh_postings.clear();
        self.uncommitted.clear();
        let mut out = std::mem::take(&mut self.committed);
        out.append(&mut self.added);
        Ok(out)
    }

    /// The live document of the collection (committed, or written in this session) added
    /// from `doc`'s origin with the same shingle hashes. Candidates are the documents
    /// holding `doc`'s [`REPEAT_PROBES`] smallest distinct hashes (a few postings look-ups,
    /// whatever the document's length); the origin and the whole hash sequence confirm.
    fn repeat_of(&self, doc: &Prepared, digest: u64) -> Result<Option<DocId>> {
        if let Some(&id) = self.uncommitted.get(&(doc.origin.clone(), digest)) {
            return Ok(Some(id));
        }
        let Some(c) = self.reader.collection(&self.collection.name) else { return Ok(None) };
        let distinct = tessera_near::shingle_set(&doc.fingerprint.hashes);
        if distinct.is_empty() {
            return Ok(None);
        }
        let probes = &distinct[..distinct.len().min(REPEAT_PROBES)];
        let mut counts: BTreeMap<DocId, usize> = BTreeMap::new();
        c.lookup_sorted(probes, |_, d| *counts.entry(d).or_insert(0) += 1)?;
        for (candidate, n) in counts {
            if n >= probes.len()
                && self.reader.meta(candidate)?.origin == doc.origin
                && self.reader.snapshot(candidate)?.hashes == doc.fingerprint.hashes
            {
                return Ok(Some(candidate));
            }
        }
        Ok(None)
    }

    /// The document added in this session and not committed yet that contains at least
    /// `min` of `set` (sorted, distinct): the highest containment, then the lowest id.
    fn fresh_container(&self, set: &[u64], min: f64) -> Option<Container> {
        if set.is_empty() || self.fresh.is_empty() {
            return None;
        }
        let mut counts = vec![0u32; self.fresh.len()];
        self.fresh_postings.count(set, &mut counts);
        let len = set.len() as f64;
        let mut best = None;
        for (f, &n) in self.fresh.iter().zip(&counts) {
            let containment = f64::from(n) / len;
            if containment >= min {
                best = better(best, Some(Container { doc: f.doc, containment, committed: false }));
            }
        }
        best
    }
}

/// The live committed document of `collection` containing at least `min` of `set`
/// (sorted, distinct): the highest containment, then the lowest id.
///
/// Only `probes` of the set's hashes are looked up, its smallest (a sample of it, as
/// hashes are uniform): a document holding at least `need` of the set misses at most
/// `len - need` of them, so it holds at least `probes - (len - need)` of any `probes`
/// hashes. With `probes = 2 (len - need) + 1` every container is found among the
/// documents holding more than `len - need` probes: at the default 0.9, a fifth of the
/// look-ups, and few false candidates to confirm.
fn committed_container(reader: &IndexReader, collection: &str, set: &[u64], min: f64) -> Result<Option<Container>> {
    let Some(c) = reader.collection(collection) else { return Ok(None) };
    if set.is_empty() {
        return Ok(None);
    }
    let len = set.len();
    let need = ((min * len as f64).ceil() as usize).clamp(1, len);
    let may_miss = len - need;
    let probes = (2 * may_miss + 1).min(len);
    let need_probes = probes - may_miss.min(probes - 1);
    let mut counts: BTreeMap<DocId, usize> = BTreeMap::new();
    c.lookup_sorted(&set[..probes], |_, d| *counts.entry(d).or_insert(0) += 1)?;
    // Postings keys are truncated, so a count may be too high but never too low:
    // candidates are confirmed on their snapshots' full hashes, most probes held first,
    // until none left could beat the best containment found (a candidate holding `n`
    // probes misses at least `probes - n` of the set).
    let mut candidates: Vec<(usize, DocId)> =
        counts.into_iter().filter(|&(_, n)| n >= need_probes).map(|(d, n)| (n, d)).collect();
    candidates.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut best: Option<Container> = None;
    let mut best_seen = 0.0f64;
    for (n, doc) in candidates {
        let bound = (len - (probes - n.min(probes))) as f64 / len as f64;
        if bound < best_seen {
            break;
        }
        let other = tessera_near::shingle_set(&reader.snapshot(doc)?.hashes);
        let containment = tessera_near::containment(set, &other);
        best_seen = best_seen.max(containment);
        if containment >= min {
            best = better(best, Some(Container { doc, containment, committed: true }));
        }
    }
    Ok(best)
}

/// The better container of two: the higher containment, then the lower id.
fn better(a: Option<Container>, b: Option<Container>) -> Option<Container> {
    match (a, b) {
        (Some(x), Some(y)) => {
            Some(if y.containment > x.containment || (y.containment == x.containment && y.doc < x.doc) { y } else { x })
        }
        (x, None) => x,
        (None, y) => y,
    }
}

/// How many of a document's smallest distinct shingle hashes name the candidates for a
/// repeat ([`AddMode::SkipRepeats`]): a repeat holds all of them, and few other documents
/// hold four given hashes.
const REPEAT_PROBES: usize = 4;

/// A digest of a document's shingle hashes in order (for repeats within one session).
fn hashes_digest(hashes: &[u64]) -> u64 {
    use std::hash::{Hash, Hasher};
    // SipHash with fixed keys: the same digest for the same hashes, in any process.
    let mut h = std::hash::DefaultHasher::new();
    hashes.hash(&mut h);
    h.finish()
}

#[derive(Debug, Clone, Copy)]
struct Container {
    doc: DocId,
    containment: f64,
    committed: bool,
}

/// An existing collection keeps its kind, and once it keeps texts it keeps them; an add
/// that asks otherwise is refused before any work, naming the setting that would make it
/// work. An add asking for texts in a collection of fingerprints only switches them on
/// (see `crate::texts`).
pub(crate) fn check_compatible(existing: &CollectionConfig, wanted: &CollectionConfig) -> Result<()> {
    if existing.keep_texts && !wanted.keep_texts {
        return Err(Error::Settings(format!(
            "collection {:?} keeps its documents' texts, which cannot be switched off: add without \
             --snapshots-only (keep_texts: true or left out) to add to it",
            existing.name
        )));
    }
    if existing.kind != wanted.kind {
        let kind = existing.kind;
        return Err(Error::Settings(format!(
            "collection {:?} is of kind {kind}: add with --kind {kind} (kind: \"{kind}\") to add to it",
            existing.name
        )));
    }
    Ok(())
}

/// Adds one document to the writer. Its full term hashes go along, so the index derives
/// the shingle hashes from them instead of storing them (segment format 3; the snapshot
/// read back is the same).
pub(crate) fn add_prepared(
    writer: &mut IndexWriter,
    collection: &CollectionConfig,
    shingles: ShingleConfig,
    doc: &Prepared,
) -> Result<DocId> {
    let text = &doc.extracted.text;
    let meta = document_meta(doc);
    let snapshot = crate::fingerprinter::snapshot(&doc.fingerprint);
    let new = NewDocument { meta, snapshot: &snapshot, text: collection.keep_texts.then_some(text.as_str()) };
    Ok(writer.add_with_terms(&collection.name, new, FullTerms { terms: &doc.fingerprint.terms, shingles })?)
}

/// The metadata of a document added now: its title by the engine's rule, origin, time,
/// sizes and text hash ([`crate::text_hash`]).
pub(crate) fn document_meta(doc: &Prepared) -> DocMeta {
    let text = &doc.extracted.text;
    DocMeta {
        title: crate::title::document_title(doc.extracted.title.as_deref(), text, &doc.origin),
        origin: doc.origin.clone(),
        added_at: SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0),
        byte_len: text.len() as u64,
        char_len: text.chars().count() as u64,
        text_hash: Some(crate::text_hash(text)),
        check_id: None,
    }
}

/// A title from a file name when the document has none.
impl Engine {
    /// A session adding documents to `collection` (created at the first commit if
    /// needed) under `mode`.
    pub fn add_session(&self, collection: &CollectionConfig, mode: AddMode) -> Result<AddSession<'_>> {
        AddSession::new(self, collection.clone(), mode)
    }

    /// Extracts and fingerprints every document in a file: the file itself, or each
    /// member of an archive (named `archive.zip!/member`), each with its own result.
    pub fn prepare_documents(&self, path: &Path) -> Vec<(String, Result<Prepared>)> {
        let extractor = tessera_extract::Extractor::new(self.options().extract.clone());
        extractor
            .extract_path_documents(path)
            .into_iter()
            .map(|doc| {
                let prepared =
                    doc.result.map_err(Error::from).map(|extracted| self.prepare(doc.name.clone(), extracted));
                (doc.name, prepared)
            })
            .collect()
    }

    /// Fingerprints an extracted document for an add.
    pub fn prepare(&self, origin: String, extracted: Extracted) -> Prepared {
        let fingerprint = self.with_fingerprinter(|fp| fp.fingerprint(&extracted.text));
        Prepared { origin, extracted, fingerprint }
    }

    /// [`prepare`](Self::prepare) for many documents, in parallel (rayon), in order.
    pub fn prepare_all(&self, documents: Vec<(String, Extracted)>) -> Vec<Prepared> {
        documents.into_par_iter().map(|(origin, extracted)| self.prepare(origin, extracted)).collect()
    }

    /// Adds files and folders (recursively, in sorted order; archives give one document
    /// per member) to a collection under `mode`. Extraction and fingerprinting run in
    /// parallel batches of at most [`EngineOptions::batch_size`] files whose expected
    /// cost ([`Engine::expected_cost`]) fits [`EngineOptions::memory_limit`] together (a
    /// file over it alone), so memory follows the limit, not the folder; files that fail
    /// are listed in the summary and skipped. Under
    /// [`AddMode::All`] the add is one commit at the end (an index error stops it and
    /// nothing of it is committed); under [`AddMode::IfNew`] each batch is committed.
    pub fn add_paths(
        &self,
        collection: &CollectionConfig,
        paths: &[PathBuf],
        mode: AddMode,
        progress: &(dyn Fn(AddProgress) + Sync),
    ) -> Result<AddSummary> {
        let started = Instant::now();
        let files = crate::list_files(paths)?;
        let total = files.len() as u64;
        let mut session = self.add_session(collection, mode)?;
        let mut summary = AddSummary::default();
        let mut done = 0u64;
        for chunk in self.batches_within_memory(&files) {
            let docs = self.prepare_batch(chunk, &mut summary);
            done += chunk.len() as u64;
            for (doc, outcome) in docs.iter().zip(session.add_all(&docs)?) {
                summary.record(doc, outcome, &session)?;
            }
            if matches!(mode, AddMode::IfNew { .. }) {
                summary.documents.extend(session.commit()?);
            }
            progress(AddProgress { done, total });
        }
        summary.documents.extend(session.commit()?);
        summary.seconds = started.elapsed().as_secs_f64();
        Ok(summary)
    }

    /// The documents of a batch of files, extracted and fingerprinted in parallel, in
    /// order; those that fail are listed in `summary` and left out.
    pub(crate) fn prepare_batch(&self, files: &[PathBuf], summary: &mut AddSummary) -> Vec<Prepared> {
        let prepared: Vec<Vec<(String, Result<Prepared>)>> =
            files.par_iter().map(|path| self.prepare_documents(path)).collect();
        let mut docs = Vec::new();
        for (origin, result) in prepared.into_iter().flatten() {
            match result {
                Ok(doc) => docs.push(doc),
                Err(e) => summary.failed.push(FailedDocument { origin, reason: describe_error(&e) }),
            }
        }
        docs
    }

    /// `files` in order, cut into batches of at most [`EngineOptions::batch_size`] files
    /// whose expected cost fits [`EngineOptions::memory_limit`] together.
    pub(crate) fn batches_within_memory<'a>(&self, files: &'a [PathBuf]) -> Vec<&'a [PathBuf]> {
        let (limit, most) = (self.options().memory_limit, self.options().batch_size.max(1));
        let mut batches = Vec::new();
        let (mut start, mut cost) = (0, 0u64);
        for (i, path) in files.iter().enumerate() {
            let this = self.file_cost(path);
            if i > start && (i - start >= most || cost.saturating_add(this) > limit) {
                batches.push(&files[start..i]);
                (start, cost) = (i, 0);
            }
            cost = cost.saturating_add(this);
        }
        if start < files.len() {
            batches.push(&files[start..]);
        }
        batches
    }

    /// The expected cost of extracting and adding a file, from its size and head (a
    /// file that cannot be read costs nothing: it fails at once).
    fn file_cost(&self, path: &Path) -> u64 {
        let Ok(mut file) = std::fs::File::open(path) else { return 0 };
        let size = file.metadata().map_or(0, |m| m.len());
        let mut head = Vec::with_capacity(tessera_extract::HEAD_LEN);
        let _ = std::io::Read::read_to_end(
            &mut std::io::Read::take(&mut file, tessera_extract::HEAD_LEN as u64),
            &mut head,
        );
        self.expected_cost(crate::memory::Work::Index, &path.display().to_string(), &head, size)
    }

    /// Adds texts `(origin, title, text)` to a collection under `mode`, fingerprinting
    /// them in parallel batches (one batch in memory at a time) and committing at the end
    /// (under [`AddMode::IfNew`], each batch).
    pub fn add_texts<I>(
        &self,
        collection: &CollectionConfig,
        texts: I,
        mode: AddMode,
        progress: &(dyn Fn(AddProgress) + Sync),
    ) -> Result<AddSummary>
    where
        I: IntoIterator<Item = (String, String, String)>,
    {
        let started = Instant::now();
        let mut session = self.add_session(collection, mode)?;
        let mut summary = AddSummary::default();
        let mut iter = texts.into_iter().peekable();
        let mut done = 0u64;
        while iter.peek().is_some() {
            let mut batch: Vec<(String, String, String)> =
                iter.by_ref().take(self.options().batch_size.max(1)).collect();
            // A text over the cap for one document fails by name; the others go on.
            batch.retain(|(origin, _, text)| match self.check_text_len(origin, text.len()) {
                Ok(()) => true,
                Err(e) => {
                    summary.failed.push(FailedDocument { origin: origin.clone(), reason: describe_error(&e) });
                    false
                }
            });
            let prepared: Vec<Prepared> = batch
                .into_par_iter()
                .map(|(origin, title, text)| self.prepare(origin, Extracted::from_text(text, Some(title))))
                .collect();
            done += prepared.len() as u64;
            for (doc, outcome) in prepared.iter().zip(session.add_all(&prepared)?) {
                summary.record(doc, outcome, &session)?;
            }
            if matches!(mode, AddMode::IfNew { .. }) {
                summary.documents.extend(session.commit()?);
            }
            progress(AddProgress { done, total: 0 });
        }
        summary.documents.extend(session.commit()?);
        summary.seconds = started.elapsed().as_secs_f64();
        Ok(summary)
    }

    /// Adds one text to a collection under `mode` and commits.
    pub fn add_text(
        &self,
        collection: &CollectionConfig,
        origin: &str,
        title: &str,
        text: &str,
        mode: AddMode,
    ) -> Result<AddOutcome> {
        self.check_text_len(origin, text.len())?;
        let mut session = self.add_session(collection, mode)?;
        let doc = self.prepare(origin.to_owned(), Extracted::from_text(text.to_owned(), Some(title.to_owned())));
        let outcome = session.add(&doc)?;
        session.commit()?;
        Ok(outcome)
    }

    /// Deletes documents by id (one commit; merges then purge them as the merge policy
    /// picks). Returns how many were live before.
    pub fn delete(&self, docs: &[DocId]) -> Result<u64> {
        self.one_index()?;
        let mut writer = self.writer()?;
        let mut n = 0;
        for &d in docs {
            n += u64::from(writer.delete(d)?);
        }
        writer.commit()?;
        self.merge_after_commit(&mut writer)?;
        Ok(n)
    }

    /// Merges every collection down to at most `max_segments` segments (at least 1) and
    /// purges every deleted document (`tessera optimize`). Readers keep their view; a
    /// crash in the middle loses nothing.
    pub fn optimize(&self, max_segments: usize) -> Result<MergeStats> {
        // The one rule for every surface (CLI, Python, server): a collection keeps a segment.
        if max_segments == 0 {
            return Err(Error::Settings("max segments must be at least 1 (a collection keeps one segment)".to_owned()));
        }
        self.one_index()?;
        // A background merge holds the merge lock: let it finish first.
        self.wait_for_merges();
        let mut writer = self.writer()?;
        Ok(writer.optimize(max_segments)?)
    }
}

impl AddSummary {
    fn record(&mut self, doc: &Prepared, outcome: AddOutcome, session: &AddSession<'_>) -> Result<()> {
        let (into, containment, same_origin) = match outcome {
            AddOutcome::Added { .. } => {
                self.added += 1;
                self.bytes += doc.extracted.text.len() as u64;
                return Ok(());
            }
            AddOutcome::Seen { into, containment } => (into, containment, false),
            AddOutcome::AlreadyIndexed { doc, containment } => (doc, containment, true),
        };
        self.seen.push(SeenDocument {
            origin: doc.origin.clone(),
            into,
            into_origin: session.origin_of(into)?,
            containment,
            same_origin,
        });
        Ok(())
    }
}
