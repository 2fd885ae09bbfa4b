//! [`IndexWriter`]: adds documents and commits them atomically, within a memory budget.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::durable::sync_dir;
use crate::error::IoContext;
use crate::lock::DirLock;
use crate::manifest::{
    CollectionEntry, DocRange, MANIFEST_TMP_FILE, Manifest, SEGMENTS_DIR, SegmentEntry, segment_path, valid_name,
};
use crate::merge::{self, FinishedMerge, MergePolicy, MergeStats, MergeTask, SegmentStat};
use crate::segment::SegmentBuilder;
use crate::{CollectionConfig, DocId, DocMeta, Error, FullTerms, Result, Snapshot};

/// Settings of a writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriterOptions {
    /// Bytes the writer may buffer before it writes a segment file. Memory use follows
    /// this, not the size of the collection. Default 256 MiB.
    pub memory_budget: usize,
}

impl Default for WriterOptions {
    fn default() -> WriterOptions {
        WriterOptions { memory_budget: 256 << 20 }
    }
}

/// A document to add.
#[derive(Debug, Clone)]
pub struct NewDocument<'a> {
    /// Its metadata.
    pub meta: DocMeta,
    /// Its snapshot; its hashes become the document's postings.
    pub snapshot: &'a Snapshot,
    /// Its text, stored only if the collection keeps texts.
    pub text: Option<&'a str>,
}

/// What a commit wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CommitStats {
    /// Documents made visible.
    pub docs: u64,
    /// Segment files added (written since the previous commit, including earlier flushes).
    pub segments: u64,
    /// Distinct `(key, doc)` postings in those segments.
    pub postings: u64,
    /// Bytes of those segment files.
    pub bytes: u64,
}

/// The single writer of an index. Holds the `LOCK` file until dropped.
///
/// Documents are buffered per collection; when the estimated buffered bytes exceed the
/// memory budget the largest buffer is written as a segment file that no manifest
/// references yet. [`IndexWriter::commit`] writes the remaining buffers and publishes all
/// new segments with one manifest swap. Dropping the writer without committing deletes
/// the files it wrote and leaves the index as it was.
#[derive(Debug)]
pub struct IndexWriter {
    dir: PathBuf,
    _lock: DirLock,
    options: WriterOptions,
    /// The last committed manifest plus what was changed since (collections created,
    /// documents deleted, origins attached, segment ids taken).
    manifest: Manifest,
    /// The last manifest this writer stored (committed or merged): what a merge
    /// publishes its change to, leaving uncommitted changes out.
    committed: Manifest,
    buffers: BTreeMap<String, Buffer>,
    /// Segment files written since the last commit.
    pending: Vec<PendingSegment>,
    /// Something changed since the last commit (a collection or a document was added).
    dirty: bool,
    /// Set while a manifest naming `pending` may have been published: then the pending
    /// files must survive a drop (the next writer's clean-up decides from the manifest).
    maybe_published: bool,
    poisoned: bool,
    uncommitted_docs: u64,
}

#[derive(Debug)]
struct PendingSegment {
    collection: String,
    entry: SegmentEntry,
    path: PathBuf,
    postings: u64,
}

#[derive(Debug)]
struct Buffer {
    builder: SegmentBuilder,
    ranges: Vec<DocRange>,
}

impl IndexWriter {
    pub(crate) fn open(dir: &Path, options: WriterOptions) -> Result<IndexWriter> {
        if !dir.is_dir() {
            return Err(Error::NotAnIndex { path: dir.to_path_buf() });
        }
        let lock = DirLock::acquire(dir)?;
        // Read under the lock: another writer may have committed since `Index::open`.
        let manifest = Manifest::load(dir)?;
        remove_orphans(dir, &manifest)?;
        Ok(IndexWriter {
            dir: dir.to_path_buf(),
            _lock: lock,
            options,
            committed: manifest.clone(),
            manifest,
            buffers: BTreeMap::new(),
            pending: Vec::new(),
            dirty: false,
            maybe_published: false,
            poisoned: false,
            uncommitted_docs: 0,
        })
    }

    fn check_usable(&self) -> Result<()> {
        if self.poisoned { Err(Error::WriterPoisoned { path: self.dir.clone() }) } else { Ok(()) }
    }

    /// Creates the collection if absent (visible at the next commit). An existing
    /// collection that keeps no texts starts keeping them when `config` asks for texts
    /// (documents added from then on keep theirs; the earlier ones have none; visible at
    /// the next commit). Fails with [`Error::CollectionMismatch`] if it exists with
    /// another kind or keeps texts and `config` does not, and with
    /// [`Error::InvalidName`] for a name outside `[A-Za-z0-9_.-]{1,64}`.
    pub fn ensure_collection(&mut self, config: CollectionConfig) -> Result<()> {
        self.check_usable()?;
        if !valid_name(&config.name) {
            return Err(Error::InvalidName(config.name));
        }
        let cols = &mut self.manifest.collections;
        match cols.binary_search_by(|c| c.config.name.as_str().cmp(&config.name)) {
            Ok(i) => {
                let existing = &cols[i].config;
                if existing.kind == config.kind && !existing.keep_texts && config.keep_texts {
                    cols[i].config.keep_texts = true;
                    self.dirty = true;
                    // Documents buffered so far were taken without their texts: they go
                    // to a segment of their own, the next buffer keeps texts.
                    if self.buffers.contains_key(&config.name) {
                        self.flush(&config.name)?;
                    }
                    return Ok(());
                }
                if existing.kind != config.kind || existing.keep_texts != config.keep_texts {
                    return Err(Error::CollectionMismatch {
                        name: config.name,
                        existing_kind: existing.kind,
                        existing_keep_texts: existing.keep_texts,
                        requested_kind: config.kind,
                        requested_keep_texts: config.keep_texts,
                    });
                }
            }
            Err(i) => {
                cols.insert(i, CollectionEntry { config, segments: Vec::new() });
                self.dirty = true;
            }
        }
        Ok(())
    }

    /// Adds a document to `collection`; it becomes visible at the next commit. The id is
    /// final once committed.
    pub fn add(&mut self, collection: &str, doc: NewDocument<'_>) -> Result<DocId> {
        self.add_inner(collection, doc, None)
    }

    /// Like [`IndexWriter::add`], with the full 64-bit term hashes of the document's
    /// tokens and the shingle settings its snapshot's hashes were made with. When the
    /// hashes are exactly the shingles of these terms (checked), the segment stores the
    /// terms once (ids into a per-segment dictionary) and derives the hashes when the
    /// snapshot is read: about 8 bytes less per shingle. Otherwise (or when `terms` do
    /// not match the snapshot's 32-bit terms) it is stored as [`IndexWriter::add`] would.
    /// The snapshot read back is identical either way.
    pub fn add_with_terms(&mut self, collection: &str, doc: NewDocument<'_>, full: FullTerms<'_>) -> Result<DocId> {
        self.add_inner(collection, doc, Some(full))
    }

    fn add_inner(&mut self, collection: &str, doc: NewDocument<'_>, full: Option<FullTerms<'_>>) -> Result<DocId> {
        self.check_usable()?;
        let entry = self
            .manifest
            .collections
            .iter()
            .find(|c| c.config.name == collection)
            .ok_or_else(|| Error::UnknownCollection(collection.to_string()))?;
        let keep_texts = entry.config.keep_texts;
        let s = doc.snapshot;
        if s.token_bytes.len() != s.token_chars.len() {
            return Err(Error::InvalidDocument(format!(
                "{} byte spans but {} char spans",
                s.token_bytes.len(),
                s.token_chars.len()
            )));
        }
        if self.buffers.get(collection).is_some_and(|b| b.builder.is_full()) {
            self.flush(collection)?;
        }
        let id = self.manifest.next_doc_id;
        let buffer = self
            .buffers
            .entry(collection.to_string())
            .or_insert_with(|| Buffer { builder: SegmentBuilder::new(keep_texts), ranges: Vec::new() });
        buffer.builder.add(&doc.meta, s, if keep_texts { doc.text } else { None }, full);
        match buffer.ranges.last_mut() {
            Some(r) if r.base + r.count == id => r.count += 1,
            _ => buffer.ranges.push(DocRange { base: id, count: 1 }),
        }
        self.manifest.next_doc_id += 1;
        self.uncommitted_docs += 1;
        self.dirty = true;
        if self.buffered_bytes() > self.options.memory_budget {
            let largest = self
                .buffers
                .iter()
                .max_by_key(|(_, b)| b.builder.heap_bytes())
                .map(|(name, _)| name.clone())
                .expect("a buffer was just filled");
            self.flush(&largest)?;
        }
        Ok(DocId(id))
    }

    /// Estimated bytes buffered in memory.
    pub fn buffered_bytes(&self) -> usize {
        self.buffers.values().map(|b| b.builder.heap_bytes()).sum()
    }

    /// Documents added since the last commit.
    pub fn uncommitted_docs(&self) -> u64 {
        self.uncommitted_docs
    }

    /// The id the next document added gets.
    pub fn next_doc_id(&self) -> u64 {
        self.manifest.next_doc_id
    }

    /// Makes the next document added get id `id` or, when `id` was passed already, the
    /// next unused one: the ids skipped stay unused. A shard of an index adds its
    /// documents under the ids it owns (`tessera_core::shard_of`), so the shards' ids never
    /// meet and equal those of one index holding the same documents.
    pub fn skip_ids_to(&mut self, id: u64) {
        if id > self.manifest.next_doc_id {
            self.manifest.next_doc_id = id;
            self.dirty = true;
        }
    }

    /// Writes the buffer of `collection` as a segment file (not yet in the manifest).
    fn flush(&mut self, collection: &str) -> Result<()> {
        let Some(buffer) = self.buffers.remove(collection) else {
            return Ok(());
        };
        let id = self.manifest.next_segment_id;
        self.manifest.next_segment_id += 1;
        let path = segment_path(&self.dir, id);
        let written = buffer.builder.write(&path).inspect_err(|_| {
            let _ = std::fs::remove_file(&path);
        })?;
        self.pending.push(PendingSegment {
            collection: collection.to_string(),
            entry: SegmentEntry {
                id,
                doc_ranges: buffer.ranges,
                doc_count: written.doc_count,
                file_len: written.file_len,
            },
            path,
            postings: written.posting_count,
        });
        Ok(())
    }

    /// Marks a committed document deleted (at the next commit): lookups stop reporting it
    /// and [`crate::IndexReader::live_docs`] skips it; its bytes stay in its segment until
    /// segments are merged. Returns false when it was already deleted.
    pub fn delete(&mut self, doc: DocId) -> Result<bool> {
        self.check_usable()?;
        if !self.is_committed(doc) {
            return Err(Error::UnknownDoc(doc));
        }
        match self.manifest.deleted.binary_search(&doc.0) {
            Ok(_) => Ok(false),
            Err(at) => {
                self.manifest.deleted.insert(at, doc.0);
                self.dirty = true;
                Ok(true)
            }
        }
    }

    /// Records one more place (path or URL) a committed document was seen at (at the next
    /// commit); a place already listed for it is not repeated.
    pub fn attach_origin(&mut self, doc: DocId, origin: &str) -> Result<()> {
        self.check_usable()?;
        if !self.is_committed(doc) {
            return Err(Error::UnknownDoc(doc));
        }
        let places = self.manifest.seen_at.entry(doc.0).or_default();
        if !places.iter().any(|p| p == origin) {
            places.push(origin.to_string());
            self.dirty = true;
        }
        Ok(())
    }

    fn is_committed(&self, doc: DocId) -> bool {
        self.manifest
            .collections
            .iter()
            .flat_map(|c| &c.segments)
            .flat_map(|s| &s.doc_ranges)
            .any(|r| doc.0 >= r.base && doc.0 - r.base < r.count)
    }

    /// Makes everything added since the last commit visible at once, durably: writes the
    /// remaining buffers as segment files, syncs them and the segments directory, then
    /// swaps the manifest (see `docs/design.md`, "Crash safety").
    pub fn commit(&mut self) -> Result<CommitStats> {
        self.check_usable()?;
        if !self.dirty {
            return Ok(CommitStats::default());
        }
        let names: Vec<String> = self.buffers.keys().cloned().collect();
        for name in names {
            self.flush(&name)?;
        }
        sync_dir(&self.dir.join(SEGMENTS_DIR))?;
        let mut next = self.manifest.clone();
        let mut stats = CommitStats::default();
        for p in &self.pending {
            let c = next
                .collections
                .iter_mut()
                .find(|c| c.config.name == p.collection)
                .expect("pending segments belong to known collections");
            stats.docs += p.entry.doc_count;
            stats.segments += 1;
            stats.bytes += p.entry.file_len;
            stats.postings += p.postings;
            c.segments.push(p.entry.clone());
        }
        self.maybe_published = true;
        if let Err(e) = next.store(&self.dir) {
            // The rename may or may not have happened: only a new writer, reading the
            // manifest, can tell which files are live.
            self.poisoned = true;
            return Err(e);
        }
        self.committed = next.clone();
        self.manifest = next;
        self.pending.clear();
        self.maybe_published = false;
        self.uncommitted_docs = 0;
        self.dirty = false;
        Ok(stats)
    }
}

impl IndexWriter {
    /// Drops everything added, deleted, attached or created since the last commit (the
    /// segment files written for it are removed) and keeps the lock: the writer is as it
    /// was just after its last commit or merge. For a process that keeps its writer open
    /// (a server) when one batch fails. Costs nothing when nothing is pending. Fails with
    /// [`Error::WriterPoisoned`] when a failed commit left the writer unusable: drop it
    /// and open a new one.
    pub fn rollback(&mut self) -> Result<()> {
        self.check_usable()?;
        if !self.dirty && self.pending.is_empty() && self.buffers.is_empty() {
            return Ok(());
        }
        for p in self.pending.drain(..) {
            let _ = std::fs::remove_file(&p.path);
        }
        self.buffers.clear();
        // Segment ids stay unique over the writer's life; document ids never committed
        // are handed out again, as a new writer would.
        let next_segment_id = self.manifest.next_segment_id;
        self.manifest = self.committed.clone();
        self.manifest.next_segment_id = next_segment_id;
        self.dirty = false;
        self.uncommitted_docs = 0;
        Ok(())
    }
}

impl IndexWriter {
    /// Runs the merges `policy` picks in every collection, one after the other, until it
    /// picks none; each is published with its own manifest swap. Only committed segments
    /// are merged; documents added, deleted or attached since the last commit stay
    /// pending. Cheap when there is nothing to do (reads no segment). Returns at once,
    /// merging nothing, while another merge of this index runs (see
    /// [`crate::Index::plan_merge`]).
    pub fn merge(&mut self, policy: &MergePolicy) -> Result<MergeStats> {
        self.merge_loop(|stats| policy.pick(stats))
    }

    /// Merges every collection down to at most `max_segments` segments (at least 1) and
    /// purges every deleted document, whatever their sizes (`max_merged_bytes` is not
    /// applied). Memory: the largest merged segment is built in memory, about twice its
    /// size on disk. Returns at once, merging nothing, while another merge runs.
    pub fn optimize(&mut self, max_segments: usize) -> Result<MergeStats> {
        self.merge_loop(|stats| merge::pick_optimize(stats, max_segments))
    }

    fn merge_loop(&mut self, pick: impl Fn(&[SegmentStat]) -> Option<Vec<usize>>) -> Result<MergeStats> {
        let mut total = MergeStats::default();
        loop {
            self.check_usable()?;
            let Some(lock) = merge::try_merge_lock(&self.dir)? else { return Ok(total) };
            let Some(task) = merge::plan(&self.dir, &self.committed, lock, &pick)? else { return Ok(total) };
            let done = task.run()?;
            total.add(&self.finish_merge(done)?);
        }
    }

    /// The next merge `policy` picks from this writer's committed state, for running
    /// elsewhere ([`MergeTask::run`]) and finishing here; `None` when there is nothing to
    /// do or another merge runs.
    pub fn plan_merge(&self, policy: &MergePolicy) -> Result<Option<MergeTask>> {
        self.check_usable()?;
        let Some(lock) = merge::try_merge_lock(&self.dir)? else { return Ok(None) };
        merge::plan(&self.dir, &self.committed, lock, |stats| policy.pick(stats))
    }

    /// Publishes a merge run by [`MergeTask::run`] (planned by this or any earlier writer
    /// of the index): its segment replaces the sources with one manifest swap, then the
    /// source files are deleted. Documents pending in this writer stay pending. Fails
    /// with [`Error::MergeConflict`] (changing nothing) when a source is no longer in the
    /// index.
    pub fn finish_merge(&mut self, mut done: FinishedMerge) -> Result<MergeStats> {
        self.check_usable()?;
        let mut next = self.committed.clone();
        let conflict =
            || Error::MergeConflict { path: self.dir.clone(), sources: done.sources.iter().map(|s| s.id).collect() };
        // Check before renaming anything.
        merge::apply(&mut next.clone(), &done.collection, &done.sources, None, &done.purge).map_err(|()| conflict())?;
        let merged = match done.output.take() {
            None => None,
            Some(out) => {
                let id = self.manifest.next_segment_id;
                self.manifest.next_segment_id += 1;
                let path = segment_path(&self.dir, id);
                if let Err(e) = std::fs::rename(&out.path, &path) {
                    let _ = std::fs::remove_file(&out.path);
                    return Err(Error::io(&path, e));
                }
                Some((
                    SegmentEntry { id, doc_ranges: out.ranges, doc_count: out.doc_count, file_len: out.file_len },
                    path,
                ))
            }
        };
        let entry = merged.as_ref().map(|(e, _)| e.clone());
        let abandon = |merged: &Option<(SegmentEntry, PathBuf)>| {
            if let Some((_, path)) = merged {
                let _ = std::fs::remove_file(path);
            }
        };
        if let Err(e) = sync_dir(&self.dir.join(SEGMENTS_DIR)) {
            abandon(&merged);
            return Err(e);
        }
        merge::apply(&mut next, &done.collection, &done.sources, entry.clone(), &done.purge)
            .map_err(|()| conflict())?;
        next.next_segment_id = self.manifest.next_segment_id;
        if let Err(e) = next.store(&self.dir) {
            // As in `commit`: the rename may have happened; a new writer sorts it out.
            self.poisoned = true;
            return Err(e);
        }
        self.committed = next;
        merge::apply(&mut self.manifest, &done.collection, &done.sources, entry, &done.purge)
            .map_err(|()| conflict())?;
        for s in &done.sources {
            // Open readers keep their maps; where deleting fails, the next writer's
            // open removes the file.
            let _ = std::fs::remove_file(segment_path(&self.dir, s.id));
        }
        Ok(done.stats)
    }
}

impl IndexWriter {
    /// The index directory.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// The last manifest this writer stored (or read at its open).
    pub(crate) fn committed_manifest(&self) -> &Manifest {
        &self.committed
    }

    /// Publishes `change` of the committed manifest with one swap (a component's state:
    /// the sketch store's section, `sketch`), leaving what is pending in this writer
    /// pending, as [`IndexWriter::finish_merge`] does.
    pub(crate) fn publish(&mut self, change: impl Fn(&mut Manifest)) -> Result<()> {
        self.check_usable()?;
        let mut next = self.committed.clone();
        change(&mut next);
        next.next_segment_id = self.manifest.next_segment_id;
        if let Err(e) = next.store(&self.dir) {
            self.poisoned = true;
            return Err(e);
        }
        self.committed = next;
        change(&mut self.manifest);
        Ok(())
    }
}

impl Drop for IndexWriter {
    fn drop(&mut self) {
        if !self.maybe_published {
            for p in &self.pending {
                let _ = std::fs::remove_file(&p.path);
            }
        }
    }
}

/// Deletes what a crashed writer may have left: segment files no manifest references and
/// a stale `MANIFEST.tmp`. Runs under the lock, so no other writer is creating files.
fn remove_orphans(dir: &Path, manifest: &Manifest) -> Result<()> {
    // A merge's output while it runs, else the leftover of one that died. (Looked at
    // first so that indexes that never merged get no `MERGE.LOCK` file.)
    let merge_tmp = dir.join(SEGMENTS_DIR).join(merge::MERGE_TMP_FILE);
    if merge_tmp.exists()
        && let Some(_merge_lock) = merge::try_merge_lock(dir)?
    {
        merge::remove_stale_output(dir)?;
    }
    let tmp = dir.join(MANIFEST_TMP_FILE);
    match std::fs::remove_file(&tmp) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(Error::io(tmp, e)),
        _ => {}
    }
    let live: std::collections::BTreeSet<String> = manifest
        .collections
        .iter()
        .flat_map(|c| &c.segments)
        .map(|s| crate::manifest::segment_file_name(s.id))
        .collect();
    let seg_dir = dir.join(SEGMENTS_DIR);
    if !seg_dir.is_dir() {
        std::fs::create_dir_all(&seg_dir).at(&seg_dir)?;
        return Ok(());
    }
    for entry in std::fs::read_dir(&seg_dir).at(&seg_dir)? {
        let entry = entry.at(&seg_dir)?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.ends_with(".seg") && !live.contains(name) {
            let path = entry.path();
            std::fs::remove_file(&path).at(&path)?;
        }
    }
    Ok(())
}
