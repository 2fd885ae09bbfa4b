//! [`Index`]: an opened index directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::durable::sync_dir;
use crate::error::IoContext;
use crate::lock::DirLock;
use crate::manifest::{MANIFEST_FILE, Manifest, SEGMENTS_DIR};
use crate::merge::{self, MergePolicy, MergeTask};
use crate::reader::{IndexReader, VerifyReport};
use crate::segment::SegmentReader;
use crate::writer::{IndexWriter, WriterOptions};
use crate::{Error, Result};

/// An opened index directory. Cheap to share: readers and the writer it hands out read
/// the manifest afresh.
#[derive(Debug)]
pub struct Index {
    dir: PathBuf,
    fingerprint_settings: serde_json::Value,
    /// Segments opened by earlier readers, by id. Segment files never change, so an
    /// opened segment can be reused by every later reader without re-checking it.
    cache: Mutex<BTreeMap<u64, Arc<SegmentReader>>>,
}

impl Index {
    /// Creates an empty index in `dir` (created if missing). Fails with
    /// [`Error::AlreadyExists`] if `dir` already holds an index.
    ///
    /// `fingerprint_settings` is stored as is; the engine reads it back with
    /// [`Index::fingerprint_settings`] so queries hash the way the index was built.
    pub fn create(dir: &Path, fingerprint_settings: serde_json::Value) -> Result<Index> {
        std::fs::create_dir_all(dir.join(SEGMENTS_DIR)).at(dir)?;
        // Two processes creating at once: the lock makes one of them see the other's
        // manifest.
        let _lock = DirLock::acquire(dir)?;
        let manifest_path = dir.join(MANIFEST_FILE);
        if manifest_path.exists() {
            return Err(Error::AlreadyExists { path: manifest_path });
        }
        sync_dir(&dir.join(SEGMENTS_DIR))?;
        Manifest::new(fingerprint_settings.clone()).store(dir)?;
        Ok(Index::with(dir, fingerprint_settings))
    }

    /// Opens the index in `dir`. Fails with [`Error::NotAnIndex`] if there is none,
    /// [`Error::Corrupt`] or [`Error::VersionUnsupported`] naming the manifest if it cannot
    /// be read.
    pub fn open(dir: &Path) -> Result<Index> {
        let manifest = Manifest::load(dir)?;
        Ok(Index::with(dir, manifest.fingerprint_settings))
    }

    /// Opens the index in `dir`, creating it with `fingerprint_settings` if there is none.
    /// An existing index keeps its stored settings (compare them with
    /// [`Index::fingerprint_settings`] if that matters to the caller).
    pub fn open_or_create(dir: &Path, fingerprint_settings: serde_json::Value) -> Result<Index> {
        match Index::open(dir) {
            Err(Error::NotAnIndex { .. }) => match Index::create(dir, fingerprint_settings) {
                Err(Error::AlreadyExists { .. }) => Index::open(dir),
                other => other,
            },
            other => other,
        }
    }

    fn with(dir: &Path, fingerprint_settings: serde_json::Value) -> Index {
        Index { dir: dir.to_path_buf(), fingerprint_settings, cache: Mutex::new(BTreeMap::new()) }
    }

    /// The index directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The settings given at create time.
    pub fn fingerprint_settings(&self) -> &serde_json::Value {
        &self.fingerprint_settings
    }

    /// Opens the single writer of this index; fails with [`Error::Locked`] (naming the
    /// `LOCK` file) while another writer, in this or another process, is open.
    pub fn writer(&self, options: WriterOptions) -> Result<IndexWriter> {
        IndexWriter::open(&self.dir, options)
    }

    /// A consistent view of the last commit. Takes no lock; a commit made later is seen
    /// by the next call.
    pub fn reader(&self) -> Result<IndexReader> {
        let mut attempts = 0;
        loop {
            let manifest = Manifest::load(&self.dir)?;
            let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            match IndexReader::open(&self.dir, manifest.clone(), &mut cache) {
                // A merge finished between our manifest read and a segment's open and
                // deleted it: the manifest has changed since, so read it again.
                Err(Error::Io { source, .. })
                    if source.kind() == std::io::ErrorKind::NotFound
                        && attempts < 8
                        && Manifest::load(&self.dir).is_ok_and(|m| m != manifest) =>
                {
                    attempts += 1;
                }
                other => return other,
            }
        }
    }

    /// Plans the next merge `policy` picks from the last commit, for a background
    /// thread: [`MergeTask::run`] it there (no writer needed), then publish it with
    /// [`crate::IndexWriter::finish_merge`]. `None` when no collection needs a merge or
    /// another merge of this index is running (one runs at a time: the task holds the
    /// `MERGE.LOCK` file until it is finished or dropped). Cheap: reads the manifest only.
    pub fn plan_merge(&self, policy: &MergePolicy) -> Result<Option<MergeTask>> {
        let Some(lock) = merge::try_merge_lock(&self.dir)? else { return Ok(None) };
        let manifest = Manifest::load(&self.dir)?;
        merge::plan(&self.dir, &manifest, lock, |stats| policy.pick(stats))
    }

    /// Plans the next merge of an optimize down to `max_segments` segments per collection
    /// (see [`crate::IndexWriter::optimize`]), like [`Index::plan_merge`].
    pub fn plan_optimize(&self, max_segments: usize) -> Result<Option<MergeTask>> {
        let Some(lock) = merge::try_merge_lock(&self.dir)? else { return Ok(None) };
        let manifest = Manifest::load(&self.dir)?;
        merge::plan(&self.dir, &manifest, lock, |stats| merge::pick_optimize(stats, max_segments))
    }

    /// Verifies the whole last commit: the manifest, then every segment's footer, every
    /// section's crc32, every postings bucket (crc32 and decoding), every snapshot,
    /// metadata and text record (crc32 and decoding) and the footers' counts. O(index
    /// size), unlike opening, which checks only the manifest, footers and small sections
    /// and leaves buckets and records to be checked when they are read. Stops at the
    /// first damage with [`Error::Corrupt`] naming the file.
    pub fn verify(&self) -> Result<VerifyReport> {
        self.reader()?.verify()
    }
}
