//! Segment merging: several segments of one collection rewritten as one, deleted
//! documents dropped.
//!
//! A merge runs in three steps so its heavy part needs no writer:
//!
//! 1. **Plan** ([`crate::Index::plan_merge`], [`crate::Index::plan_optimize`] or inside
//!    [`crate::IndexWriter::merge`]): take the merge lock (`MERGE.LOCK`, so one merge runs
//!    at a time per index), read the committed manifest and let the policy pick segments.
//!    Cheap: it reads the manifest, not the segments.
//! 2. **Run** ([`MergeTask::run`], any thread, no writer lock): read every live document
//!    of the sources in doc id order and write them as one new segment to
//!    `segments/merge.tmp`, synced. Documents keep their global ids; local ids follow
//!    doc id order, so the manifest's doc ranges stay ascending. Postings are rebuilt from
//!    the snapshots' full hashes, so a merged segment is byte for byte the segment one
//!    writer would have built from the same documents.
//! 3. **Finish** ([`crate::IndexWriter::finish_merge`], under the writer lock): rename the
//!    file to a fresh segment id, sync the directory, swap the manifest (sources out,
//!    merged segment in at the first source's place, purged ids out of the deleted and
//!    seen-at lists), then delete the source files.
//!
//! Readers keep their snapshot: an open reader has mapped its segments, and on Unix a
//! mapped file stays readable after it is deleted. A reader that read the old manifest
//! but had not yet opened a source when it was deleted reloads the manifest and retries
//! (`Index::reader`). Where deleting fails (a platform that refuses to delete mapped
//! files), the next writer's open removes the leftovers, as it removes every segment
//! file no manifest names.
//!
//! A crash at any point leaves the old or the new manifest, each complete: before the
//! swap the merged file is an orphan (removed by the next writer, or `merge.tmp` by the
//! next merge), after it the sources are.

mod policy;

use std::path::{Path, PathBuf};

pub use policy::MergePolicy;
pub(crate) use policy::{SegmentStat, pick_optimize};

use crate::lock::{DirLock, MERGE_LOCK_FILE};
use crate::manifest::{DocRange, Manifest, SEGMENTS_DIR, SegmentEntry, segment_path};
use crate::segment::{SegmentBuilder, SegmentReader};
use crate::{Error, FullTerms, Result};

/// File name (in `segments/`) a running merge writes its output to.
pub(crate) const MERGE_TMP_FILE: &str = "merge.tmp";

/// What merges did, summed over the merges of one call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MergeStats {
    /// Merges finished.
    pub merges: u64,
    /// Source segments replaced.
    pub segments_merged: u64,
    /// Segments written (a merge of only deleted documents writes none).
    pub segments_written: u64,
    /// Documents copied.
    pub docs: u64,
    /// Deleted documents purged.
    pub purged: u64,
    /// Bytes of the source segments.
    pub bytes_read: u64,
    /// Bytes of the segments written.
    pub bytes_written: u64,
}

impl MergeStats {
    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &MergeStats) {
        self.merges += other.merges;
        self.segments_merged += other.segments_merged;
        self.segments_written += other.segments_written;
        self.docs += other.docs;
        self.purged += other.purged;
        self.bytes_read += other.bytes_read;
        self.bytes_written += other.bytes_written;
    }
}

/// A planned merge: which segments of which collection, and which of their documents to
/// drop. Holds the index's merge lock until it is finished or dropped. `Send`: run it on
/// any thread.
#[derive(Debug)]
pub struct MergeTask {
    dir: PathBuf,
    collection: String,
    keep_texts: bool,
    sources: Vec<SegmentEntry>,
    /// Deleted ids held by the sources, ascending: they are not copied.
    purge: Vec<u64>,
    lock: DirLock,
}

/// A merge whose segment is written and synced but not yet published; hand it to
/// [`crate::IndexWriter::finish_merge`]. Dropping it abandons the merge (its file is
/// removed).
#[derive(Debug)]
pub struct FinishedMerge {
    pub(crate) collection: String,
    pub(crate) sources: Vec<SegmentEntry>,
    pub(crate) purge: Vec<u64>,
    /// The written file, its doc ranges and length; `None` when every document was
    /// deleted.
    pub(crate) output: Option<MergedFile>,
    pub(crate) stats: MergeStats,
    _lock: DirLock,
}

#[derive(Debug)]
pub(crate) struct MergedFile {
    pub path: PathBuf,
    pub ranges: Vec<DocRange>,
    pub doc_count: u64,
    pub file_len: u64,
}

impl Drop for FinishedMerge {
    fn drop(&mut self) {
        if let Some(out) = &self.output {
            // Gone already after a successful finish (renamed).
            let _ = std::fs::remove_file(&out.path);
        }
    }
}

/// Takes the merge lock of `dir`; `None` when another merge holds it.
pub(crate) fn try_merge_lock(dir: &Path) -> Result<Option<DirLock>> {
    match DirLock::acquire_named(dir, MERGE_LOCK_FILE) {
        Ok(l) => Ok(Some(l)),
        Err(Error::Locked { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Removes the output of a merge that died before finishing; call with the merge lock.
pub(crate) fn remove_stale_output(dir: &Path) -> Result<()> {
    let path = dir.join(SEGMENTS_DIR).join(MERGE_TMP_FILE);
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(path, e)),
        _ => Ok(()),
    }
}

/// Plans the first merge `pick` chooses, collection by collection in name order.
pub(crate) fn plan(
    dir: &Path,
    manifest: &Manifest,
    lock: DirLock,
    pick: impl Fn(&[SegmentStat]) -> Option<Vec<usize>>,
) -> Result<Option<MergeTask>> {
    for c in &manifest.collections {
        let stats: Vec<SegmentStat> =
            c.segments.iter().enumerate().map(|(i, s)| SegmentStat::of(i, s, &manifest.deleted)).collect();
        let Some(mut picked) = pick(&stats) else { continue };
        // Local ids are u32: keep the merged segment within that.
        while picked.len() > 1 && picked.iter().map(|&i| c.segments[i].doc_count).sum::<u64>() > u64::from(u32::MAX) {
            picked.pop();
        }
        if picked.len() == 1 && stats[picked[0]].deleted == 0 {
            continue; // nothing a rewrite would gain
        }
        let sources: Vec<SegmentEntry> = picked.iter().map(|&i| c.segments[i].clone()).collect();
        let mut purge: Vec<u64> = sources
            .iter()
            .flat_map(|s| &s.doc_ranges)
            .flat_map(|r| {
                let from = manifest.deleted.partition_point(|&d| d < r.base);
                let to = manifest.deleted.partition_point(|&d| d < r.base + r.count);
                manifest.deleted[from..to].iter().copied()
            })
            .collect();
        purge.sort_unstable();
        remove_stale_output(dir)?;
        return Ok(Some(MergeTask {
            dir: dir.to_path_buf(),
            collection: c.config.name.clone(),
            keep_texts: c.config.keep_texts,
            sources,
            purge,
            lock,
        }));
    }
    Ok(None)
}

impl MergeTask {
    /// The collection merged.
    pub fn collection(&self) -> &str {
        &self.collection
    }

    /// Ids of the source segments.
    pub fn sources(&self) -> Vec<u64> {
        self.sources.iter().map(|s| s.id).collect()
    }

    /// Writes the merged segment (the heavy part: reads every live document of the
    /// sources). Needs no writer; readers and the writer may work meanwhile. Memory: the
    /// merged segment is built in memory before it is written, about twice its size.
    pub fn run(self) -> Result<FinishedMerge> {
        let mut readers = Vec::with_capacity(self.sources.len());
        let mut docs: Vec<(u64, u32, u32)> = Vec::new();
        let mut stats = MergeStats { merges: 1, segments_merged: self.sources.len() as u64, ..MergeStats::default() };
        for (si, s) in self.sources.iter().enumerate() {
            let reader = SegmentReader::open(&segment_path(&self.dir, s.id), s.file_len)?;
            stats.bytes_read += s.file_len;
            let mut local = 0u32;
            for r in &s.doc_ranges {
                for global in r.base..r.base + r.count {
                    if self.purge.binary_search(&global).is_err() {
                        docs.push((global, si as u32, local));
                    }
                    local += 1;
                }
            }
            readers.push(reader);
        }
        docs.sort_unstable();
        stats.docs = docs.len() as u64;
        stats.purged = self.purge.len() as u64;
        let output = if docs.is_empty() {
            None
        } else {
            let views = readers.iter().map(|r| r.view()).collect::<Result<Vec<_>>>()?;
            let mut builder = SegmentBuilder::new(self.keep_texts);
            let mut ranges: Vec<DocRange> = Vec::new();
            for &(global, si, local) in &docs {
                let v = &views[si as usize];
                let text = if self.keep_texts { v.text(local)? } else { None };
                let (snapshot, full) = v.snapshot_and_terms(local)?;
                let full = full.as_ref().map(|(terms, shingles)| FullTerms { terms, shingles: *shingles });
                builder.add(&v.meta(local)?, &snapshot, text.as_deref(), full);
                match ranges.last_mut() {
                    Some(r) if r.base + r.count == global => r.count += 1,
                    _ => ranges.push(DocRange { base: global, count: 1 }),
                }
            }
            let path = self.dir.join(SEGMENTS_DIR).join(MERGE_TMP_FILE);
            let written = builder.write(&path).inspect_err(|_| {
                let _ = std::fs::remove_file(&path);
            })?;
            stats.segments_written = 1;
            stats.bytes_written = written.file_len;
            Some(MergedFile { path, ranges, doc_count: written.doc_count, file_len: written.file_len })
        };
        Ok(FinishedMerge {
            collection: self.collection,
            sources: self.sources,
            purge: self.purge,
            output,
            stats,
            _lock: self.lock,
        })
    }
}

impl FinishedMerge {
    /// What the merge did (counted once it is finished).
    pub fn stats(&self) -> MergeStats {
        self.stats
    }
}

/// Applies a finished merge to `m`: the sources leave `collection`, `merged` (if any)
/// takes the first source's place, and the purged ids leave the deleted and seen-at
/// lists. `Err` when a source is not in `m` as planned.
pub(crate) fn apply(
    m: &mut Manifest,
    collection: &str,
    sources: &[SegmentEntry],
    merged: Option<SegmentEntry>,
    purge: &[u64],
) -> Result<(), ()> {
    let c = m.collections.iter_mut().find(|c| c.config.name == collection).ok_or(())?;
    let mut first = None;
    for s in sources {
        let at = c.segments.iter().position(|e| e == s).ok_or(())?;
        first = Some(first.map_or(at, |f: usize| f.min(at)));
    }
    let first = first.ok_or(())?;
    let ids: Vec<u64> = sources.iter().map(|s| s.id).collect();
    let mut kept = Vec::with_capacity(c.segments.len());
    for (i, s) in c.segments.drain(..).enumerate() {
        if i == first
            && let Some(merged) = &merged
        {
            kept.push(merged.clone());
        }
        if !ids.contains(&s.id) {
            kept.push(s);
        }
    }
    c.segments = kept;
    m.deleted.retain(|d| purge.binary_search(d).is_err());
    m.seen_at.retain(|d, _| purge.binary_search(d).is_err());
    Ok(())
}
