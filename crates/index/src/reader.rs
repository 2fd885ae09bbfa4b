//! [`IndexReader`]: a consistent, lock-free view of one commit.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use crate::manifest::{DocRange, Manifest, segment_path};
use crate::segment::{Section, SegmentReader, SegmentView};
use crate::{CollectionConfig, DocId, DocMeta, Error, Result, Snapshot};

/// A view of the index as of the commit that was current when it was opened. Later
/// commits do not change it (segments are immutable); open a new reader to see them.
/// Cloning is cheap (the segments are shared).
#[derive(Debug, Clone)]
pub struct IndexReader {
    fingerprint_settings: serde_json::Value,
    collections: Vec<CollectionState>,
    /// Every run of consecutive doc ids, sorted by first id: where each document lives.
    runs: Vec<DocRun>,
    /// Deleted doc ids, ascending.
    deleted: Vec<u64>,
    /// Further places each document was seen at.
    seen_at: BTreeMap<u64, Vec<String>>,
}

#[derive(Debug, Clone)]
struct CollectionState {
    config: CollectionConfig,
    segments: Vec<OpenSegment>,
    doc_count: u64,
}

#[derive(Debug, Clone)]
struct OpenSegment {
    reader: Arc<SegmentReader>,
    ranges: Vec<DocRange>,
    /// Local id of the first doc of each range.
    local_starts: Vec<u64>,
}

#[derive(Debug, Clone, Copy)]
struct DocRun {
    base: u64,
    count: u64,
    collection: u32,
    segment: u32,
    local_base: u64,
}

/// Statistics of one collection, for `tessera stats` and capacity planning.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct CollectionInfo {
    /// The collection's settings.
    pub config: CollectionConfig,
    /// Live documents: committed and not deleted.
    pub docs: u64,
    /// Deleted documents (their bytes stay in the segments until a merge drops them).
    pub deleted: u64,
    /// Segment files.
    pub segments: u64,
    /// Distinct `(key, doc)` postings, summed over segments.
    pub postings: u64,
    /// Distinct truncated keys, summed over segments (a key present in two segments
    /// counts twice).
    pub distinct_keys: u64,
    /// Bytes of the postings directory and postings sections.
    pub postings_bytes: u64,
    /// Bytes of the snapshot sections (offsets and records).
    pub snapshot_bytes: u64,
    /// Bytes of the metadata sections (offsets and records).
    pub meta_bytes: u64,
    /// Bytes of the text sections (offsets and records).
    pub text_bytes: u64,
    /// Bytes of the segment files, footers included.
    pub total_bytes: u64,
}

impl IndexReader {
    pub(crate) fn open(
        dir: &Path,
        manifest: Manifest,
        cache: &mut BTreeMap<u64, Arc<SegmentReader>>,
    ) -> Result<IndexReader> {
        let mut collections = Vec::with_capacity(manifest.collections.len());
        let mut runs = Vec::new();
        let mut live = BTreeMap::new();
        for (ci, c) in manifest.collections.into_iter().enumerate() {
            let mut segments = Vec::with_capacity(c.segments.len());
            let mut doc_count = 0;
            for (si, s) in c.segments.into_iter().enumerate() {
                let reader = match cache.get(&s.id) {
                    Some(r) => Arc::clone(r),
                    None => Arc::new(SegmentReader::open(&segment_path(dir, s.id), s.file_len)?),
                };
                if reader.footer().doc_count != s.doc_count {
                    return Err(Error::corrupt(
                        segment_path(dir, s.id),
                        format!(
                            "segment holds {} documents, the manifest says {}",
                            reader.footer().doc_count,
                            s.doc_count
                        ),
                    ));
                }
                live.insert(s.id, Arc::clone(&reader));
                let mut local_starts = Vec::with_capacity(s.doc_ranges.len());
                let mut local = 0;
                for r in &s.doc_ranges {
                    local_starts.push(local);
                    runs.push(DocRun {
                        base: r.base,
                        count: r.count,
                        collection: ci as u32,
                        segment: si as u32,
                        local_base: local,
                    });
                    local += r.count;
                }
                doc_count += s.doc_count;
                segments.push(OpenSegment { reader, ranges: s.doc_ranges, local_starts });
            }
            collections.push(CollectionState { config: c.config, segments, doc_count });
        }
        // Keep only what this commit uses; dropped segments unmap when their last reader
        // goes.
        *cache = live;
        runs.sort_unstable_by_key(|r| r.base);
        Ok(IndexReader {
            fingerprint_settings: manifest.fingerprint_settings,
            collections,
            runs,
            deleted: manifest.deleted,
            seen_at: manifest.seen_at,
        })
    }

    /// The settings given at create time.
    pub fn fingerprint_settings(&self) -> &serde_json::Value {
        &self.fingerprint_settings
    }

    /// Statistics of every collection, sorted by name.
    pub fn collections(&self) -> Vec<CollectionInfo> {
        self.collections.iter().map(|c| c.info(&self.deleted)).collect()
    }

    /// The collection called `name`.
    pub fn collection(&self, name: &str) -> Option<CollectionReader<'_>> {
        self.collections
            .binary_search_by(|c| c.config.name.as_str().cmp(name))
            .ok()
            .map(|i| CollectionReader { state: &self.collections[i], deleted: &self.deleted })
    }

    /// Committed documents in all collections.
    pub fn doc_count(&self) -> u64 {
        self.collections.iter().map(|c| c.doc_count).sum()
    }

    /// Every committed document id, ascending (deleted ones included: their bytes stay
    /// in the segments; see [`IndexReader::live_docs`]).
    pub fn docs(&self) -> impl Iterator<Item = DocId> + '_ {
        self.runs.iter().flat_map(|r| (r.base..r.base + r.count).map(DocId))
    }

    /// Every committed document id not deleted, ascending.
    pub fn live_docs(&self) -> impl Iterator<Item = DocId> + '_ {
        self.docs().filter(|d| !self.is_deleted(*d))
    }

    /// True when `doc` was deleted.
    pub fn is_deleted(&self, doc: DocId) -> bool {
        self.deleted.binary_search(&doc.0).is_ok()
    }

    /// Deleted document ids, ascending.
    pub fn deleted(&self) -> &[u64] {
        &self.deleted
    }

    /// This view with `docs` taken as deleted too: look-ups never report them (a check
    /// that must not find its own earlier submission). The index is not changed.
    #[must_use]
    pub fn without(&self, docs: &[DocId]) -> IndexReader {
        let mut out = self.clone();
        out.deleted.extend(docs.iter().map(|d| d.0));
        out.deleted.sort_unstable();
        out.deleted.dedup();
        out
    }

    /// Every place `doc` was seen at: its metadata's origin, then the places attached
    /// later (see [`crate::IndexWriter::attach_origin`]).
    pub fn seen_at(&self, doc: DocId) -> Result<Vec<String>> {
        let mut out = vec![self.meta(doc)?.origin];
        out.extend(self.seen_at.get(&doc.0).into_iter().flatten().cloned());
        Ok(out)
    }

    fn locate(&self, doc: DocId) -> Option<(&CollectionState, &OpenSegment, u32)> {
        let i = self.runs.partition_point(|r| r.base <= doc.0).checked_sub(1)?;
        let r = self.runs[i];
        if doc.0 - r.base >= r.count {
            return None;
        }
        let c = &self.collections[r.collection as usize];
        let s = &c.segments[r.segment as usize];
        // Local ids are below the segment's doc count, at most u32::MAX.
        Some((c, s, (r.local_base + doc.0 - r.base) as u32))
    }

    fn view_of(&self, doc: DocId) -> Result<(SegmentView<'_>, u32)> {
        let (_, s, local) = self.locate(doc).ok_or(Error::UnknownDoc(doc))?;
        Ok((s.reader.view()?, local))
    }

    /// The collection holding `doc`.
    pub fn collection_of(&self, doc: DocId) -> Option<&str> {
        self.locate(doc).map(|(c, _, _)| c.config.name.as_str())
    }

    /// Metadata of `doc`.
    pub fn meta(&self, doc: DocId) -> Result<DocMeta> {
        let (v, local) = self.view_of(doc)?;
        v.meta(local)
    }

    /// Snapshot of `doc`.
    pub fn snapshot(&self, doc: DocId) -> Result<Snapshot> {
        let (v, local) = self.view_of(doc)?;
        v.snapshot(local)
    }

    /// Kept text of `doc`: `None` unless its collection keeps texts and one was given.
    pub fn text(&self, doc: DocId) -> Result<Option<String>> {
        let (v, local) = self.view_of(doc)?;
        v.text(local)
    }

    /// Verifies every byte of every segment of this view (see [`crate::Index::verify`]);
    /// stops at the first damage, naming the file.
    pub fn verify(&self) -> Result<VerifyReport> {
        let mut report = VerifyReport { collections: self.collections.len() as u64, ..VerifyReport::default() };
        for c in &self.collections {
            for s in &c.segments {
                let counts = s.reader.verify()?;
                report.segments += 1;
                report.docs += counts.docs;
                report.postings += counts.postings;
                report.buckets += counts.buckets;
                report.records += counts.records;
                report.bytes += s.reader.file_len();
                report.files.push(s.reader.path().to_path_buf());
            }
        }
        Ok(report)
    }
}

/// What a full verification checked (every count is summed over segments).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct VerifyReport {
    /// Collections.
    pub collections: u64,
    /// Segment files: footer and every section's crc32.
    pub segments: u64,
    /// Documents.
    pub docs: u64,
    /// Postings decoded.
    pub postings: u64,
    /// Postings buckets, each checked against its crc32 and decoded.
    pub buckets: u64,
    /// Snapshot, metadata and text records, each checked against its crc32 and decoded.
    pub records: u64,
    /// Bytes of the segment files.
    pub bytes: u64,
    /// The segment files, in collection order.
    pub files: Vec<std::path::PathBuf>,
}

impl CollectionInfo {
    /// Adds the statistics of `other`, the same collection in another shard of an index.
    pub fn add(&mut self, other: &CollectionInfo) {
        self.docs += other.docs;
        self.deleted += other.deleted;
        self.segments += other.segments;
        self.postings += other.postings;
        self.distinct_keys += other.distinct_keys;
        self.postings_bytes += other.postings_bytes;
        self.snapshot_bytes += other.snapshot_bytes;
        self.meta_bytes += other.meta_bytes;
        self.text_bytes += other.text_bytes;
        self.total_bytes += other.total_bytes;
    }
}

impl CollectionState {
    /// Statistics; `deleted` is every deleted id of the index, ascending.
    fn info(&self, deleted: &[u64]) -> CollectionInfo {
        let in_range = |r: &DocRange| {
            let from = deleted.partition_point(|&d| d < r.base);
            let to = deleted.partition_point(|&d| d < r.base + r.count);
            (to - from) as u64
        };
        let dead: u64 = self.segments.iter().flat_map(|s| &s.ranges).map(in_range).sum();
        let mut info = CollectionInfo {
            config: self.config.clone(),
            docs: self.doc_count.saturating_sub(dead),
            deleted: dead,
            segments: self.segments.len() as u64,
            postings: 0,
            distinct_keys: 0,
            postings_bytes: 0,
            snapshot_bytes: 0,
            meta_bytes: 0,
            text_bytes: 0,
            total_bytes: 0,
        };
        for s in &self.segments {
            let f = s.reader.footer();
            let len = |sec: Section| f.sections[sec as usize].len;
            info.postings += f.posting_count;
            info.distinct_keys += f.distinct_keys;
            info.postings_bytes += len(Section::PostingsDirectory) + len(Section::Postings);
            info.snapshot_bytes += len(Section::SnapshotOffsets) + len(Section::Snapshots);
            info.meta_bytes += len(Section::MetadataOffsets) + len(Section::Metadata);
            info.text_bytes += len(Section::TextOffsets) + len(Section::Texts);
            info.total_bytes += s.reader.file_len();
        }
        info
    }
}

impl OpenSegment {
    #[inline]
    fn global(&self, local: u32) -> DocId {
        let local = u64::from(local);
        if self.ranges.len() == 1 {
            return DocId(self.ranges[0].base + local);
        }
        let i = self.local_starts.partition_point(|&s| s <= local) - 1;
        DocId(self.ranges[i].base + (local - self.local_starts[i]))
    }

    /// Whether the document is one of this segment's.
    fn holds(&self, doc: DocId) -> bool {
        self.ranges.iter().any(|r| (r.base..r.base + r.count).contains(&doc.0))
    }
}

/// One collection of an [`IndexReader`].
#[derive(Debug, Clone, Copy)]
pub struct CollectionReader<'a> {
    state: &'a CollectionState,
    deleted: &'a [u64],
}

impl CollectionReader<'_> {
    /// The collection's settings.
    pub fn config(&self) -> &CollectionConfig {
        &self.state.config
    }

    /// Committed documents.
    pub fn doc_count(&self) -> u64 {
        self.state.doc_count
    }

    /// Statistics of the collection.
    pub fn info(&self) -> CollectionInfo {
        self.state.info(self.deleted)
    }

    /// The collection's live documents (not deleted), ascending.
    pub fn live_docs(&self) -> Vec<DocId> {
        let mut out: Vec<DocId> = self
            .state
            .segments
            .iter()
            .flat_map(|s| &s.ranges)
            .flat_map(|r| (r.base..r.base + r.count).map(DocId))
            .filter(|d| self.deleted.binary_search(&d.0).is_err())
            .collect();
        out.sort_unstable();
        out
    }

    /// For each hash of `hashes` (sorted ascending and distinct for speed; any order is
    /// answered correctly), calls `f(index_in_hashes, doc)` for every document whose
    /// postings hold that hash.
    ///
    /// Never misses a document. May report a few false positives: postings store
    /// truncated keys, so an absent hash matches a stored one with probability about
    /// 2^-12 per segment (see `docs/design.md`); verify against the snapshot's full
    /// hashes. Calls come segment by segment; within a segment in ascending index order.
    /// Deleted documents are never reported.
    ///
    /// With several segments and many hashes, the segments are looked up in parallel
    /// (rayon; their hits are then reported in the same order): a check's stage 1 looks
    /// up thousands of hashes in every segment, and decoding postings buckets is most of
    /// its time. (It is [`lookup_sorted_at_most`](Self::lookup_sorted_at_most) without a
    /// limit: one look-up, so both answer alike.)
    pub fn lookup_sorted(&self, hashes: &[u64], f: impl FnMut(usize, DocId)) -> Result<()> {
        self.lookup_sorted_at_most(hashes, usize::MAX, f)
    }

    /// [`lookup_sorted`](Self::lookup_sorted) without the hashes that more than `max_docs`
    /// live documents of the collection hold (all segments together): `f` is called only
    /// for the others, in the same order. Such a hash's documents are dropped as soon as
    /// one segment passes `max_docs` of them, so memory stays within `max_docs` hits per
    /// hash and segment: a check ranks sources by the hashes they share and skips
    /// frequent ones anyway, and in a large collection a frequent shingle has millions of
    /// postings, which collecting first would cost 16 bytes each.
    pub fn lookup_sorted_at_most(&self, hashes: &[u64], max_docs: usize, f: impl FnMut(usize, DocId)) -> Result<()> {
        self.lookup_sorted_bounded(hashes, max_docs, f).map(drop)
    }

    /// [`lookup_sorted_at_most`](Self::lookup_sorted_at_most), also giving the indexes of
    /// the hashes left out for being held by more than `max_docs` documents, ascending: a
    /// shard of an index tells so, and the hash is left out of the whole index when the
    /// shards' documents together pass the limit.
    pub fn lookup_sorted_bounded(
        &self,
        hashes: &[u64],
        max_docs: usize,
        mut f: impl FnMut(usize, DocId),
    ) -> Result<Vec<usize>> {
        use rayon::prelude::*;
        let live = |doc: DocId| self.deleted.is_empty() || self.deleted.binary_search(&doc.0).is_err();
        // One segment's hits of the hashes it holds at most `max_docs` times, and the hashes
        // it holds more often. A segment reports a hash's documents one after the other.
        let segment_hits = |s: &OpenSegment| -> Result<SegmentHits> {
            let (mut hits, mut over) = (Vec::new(), Vec::new());
            let mut run: Option<(usize, usize)> = None;
            s.reader.view()?.postings().lookup(hashes, |i, local| {
                let doc = s.global(local);
                if !live(doc) || over.last() == Some(&i) {
                    return;
                }
                let start = match run {
                    Some((hash, start)) if hash == i => start,
                    _ => {
                        run = Some((i, hits.len()));
                        hits.len()
                    }
                };
                hits.push((i, doc));
                if hits.len() - start > max_docs {
                    hits.truncate(start);
                    over.push(i);
                }
            })?;
            Ok((hits, over))
        };
        let segments = &self.state.segments;
        let per_segment: Vec<SegmentHits> = if segments.len() < 2 || hashes.len() < PARALLEL_LOOKUP_HASHES {
            segments.iter().map(segment_hits).collect::<Result<_>>()?
        } else {
            segments.par_iter().map(segment_hits).collect::<Result<_>>()?
        };
        let mut count = vec![0usize; hashes.len()];
        for (hits, over) in &per_segment {
            for &i in over {
                count[i] = usize::MAX;
            }
            for &(i, _) in hits {
                count[i] = count[i].saturating_add(1);
            }
        }
        for (i, doc) in per_segment.into_iter().flat_map(|(hits, _)| hits) {
            if count[i] <= max_docs {
                f(i, doc);
            }
        }
        Ok(count.iter().enumerate().filter(|&(_, &c)| c > max_docs).map(|(i, _)| i).collect())
    }

    /// The documents holding each of `terms` (low 32 bits of term hashes, as snapshots
    /// store them), through their term keys ([`crate::term_key`]): `f(i, doc)` for each
    /// document holding `terms[i]`, a term held by more than `max_docs` documents left
    /// out, as [`CollectionReader::lookup_sorted_at_most`]. Only segments written with
    /// term postings answer ([`CollectionReader::docs_without_term_postings`] counts the
    /// others' documents); like every look-up, a key may rarely match a document that
    /// does not hold the term (alignment checks the terms).
    pub fn lookup_terms_at_most(&self, terms: &[u32], max_docs: usize, f: impl FnMut(usize, DocId)) -> Result<()> {
        self.lookup_terms_bounded(terms, max_docs, f).map(drop)
    }

    /// [`lookup_terms_at_most`](Self::lookup_terms_at_most), also giving the indexes of the
    /// terms left out for being held by more than `max_docs` documents, ascending (as
    /// [`lookup_sorted_bounded`](Self::lookup_sorted_bounded)).
    pub fn lookup_terms_bounded(
        &self,
        terms: &[u32],
        max_docs: usize,
        mut f: impl FnMut(usize, DocId),
    ) -> Result<Vec<usize>> {
        let mut keyed: Vec<(u64, usize)> = terms.iter().enumerate().map(|(i, &t)| (crate::term_key(t), i)).collect();
        keyed.sort_unstable();
        let keys: Vec<u64> = keyed.iter().map(|&(k, _)| k).collect();
        let with_terms: Vec<bool> = self.state.segments.iter().map(|s| s.reader.footer().has_term_postings()).collect();
        if !with_terms.iter().any(|&w| w) {
            return Ok(Vec::new());
        }
        let segments = &self.state.segments;
        let over = self.lookup_sorted_bounded(&keys, max_docs, |i, doc| {
            let in_term_segment = segments.iter().zip(&with_terms).any(|(s, &w)| w && s.holds(doc));
            if in_term_segment {
                f(keyed[i].1, doc);
            }
        })?;
        let mut over: Vec<usize> = over.into_iter().map(|i| keyed[i].1).collect();
        over.sort_unstable();
        Ok(over)
    }

    /// Live documents of this collection in segments written before term postings
    /// existed: cross-language stage 1 cannot find them (an `optimize` rewrites them).
    pub fn docs_without_term_postings(&self) -> u64 {
        self.state
            .segments
            .iter()
            .filter(|s| !s.reader.footer().has_term_postings())
            .map(|s| s.ranges.iter().map(|r| r.count).sum::<u64>())
            .sum()
    }
}

/// One segment's answer to a bounded look-up: the hits of the hashes it holds at most the
/// limit times, and the indexes of the hashes it holds more often.
type SegmentHits = (Vec<(usize, DocId)>, Vec<usize>);

/// Below this many hashes a look-up runs the segments one after the other (the if-new rule
/// looks up a page's probes, a few dozen: not worth a thread).
const PARALLEL_LOOKUP_HASHES: usize = 256;
