//! The sketch store, the near-duplicate component of the segment layer: MinHash
//! signatures, LSH band tables, SimHash fingerprints and permuted SimHash tables of an
//! index's documents (or of a standalone set, Python's `MinHashLSH.save`), in immutable,
//! checksummed, little-endian segment files that queries read through memory maps. The
//! sketches themselves (MinHash, bands, SimHash table designs) are `tessera_near`'s; this
//! module owns only their files, and shares the segment layer's machinery with the
//! index's collections: one manifest, one lock, one merge policy.
//!
//! Format version 4 (the byte-by-byte description is in `docs/design.md`, section 12.5):
//! the store's state (settings, the segment files `NEAR-<number>.seg`, the deleted
//! documents still present in them: tombstones) is the `sketch` section of the
//! directory's `MANIFEST` ([`SketchSection`], manifest format 2), written by the index's
//! manifest writer under the index's `LOCK`. An index's store is updated through its
//! writer ([`IndexWriter::update_sketches`](crate::IndexWriter::update_sketches)); a
//! standalone store's directory is an index directory without collections
//! ([`update_store`], [`write_store`], which wait for its `LOCK`). An update writes one
//! segment of the new documents, adds the deleted ones to the tombstones, merges segments
//! as the [`MergePolicy`] picks them (sized in live bytes, as the index's segments are),
//! then publishes the section with one manifest swap; files no manifest names are removed
//! afterwards. Nothing is rewritten whole on an add. Readers never lock: they retry when
//! a merge removed a segment between reading the manifest and opening it. Signatures are
//! held only when the store's settings say so ([`StoreSettings::signatures`]).
//!
//! Older stores keep their state in a manifest of their own, `NEAR` (format 3, or 2 with
//! signatures always held), with `NEAR.LOCK` beside it, or are one `NEAR` file (format
//! 1). They are read as they are; the first write publishes the section in `MANIFEST`
//! and removes `NEAR` and `NEAR.LOCK` (segments of formats 2 and 3 are kept as they are
//! until merges replace them).

mod segment;

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

mod state;

pub use segment::SEGMENT_MAGIC;
use segment::{Segment, u32_at};
use state::{HEADER, State};
pub use state::{SketchSection, SketchSegment};
use tessera_near::{LshParams, MinHashConfig, Signature};

use crate::manifest::{MANIFEST_FILE, Manifest};
#[cfg(doc)]
use crate::merge::MergePolicy;
use crate::merge::SegmentStat;
use crate::{Error, Result, durable};

/// Magic bytes of a `NEAR` file of formats 1 to 3 (the store's own manifest, or a whole
/// version-1 store).
pub const STORE_MAGIC: [u8; 8] = *b"TSRNEAR\0";
/// The store format version this build writes (it reads 1 to 4): the state in the
/// directory's `MANIFEST`, segments of segment format 3.
pub const STORE_VERSION: u32 = 4;
/// The store's name in its directory: the prefix of its segment files, and the file name
/// of the manifest of stores before format 4.
pub const STORE_FILE: &str = "NEAR";
/// Opening retries when a merge removed a segment the manifest read just before named.
const OPEN_ATTEMPTS: usize = 5;

/// The settings a store was built with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreSettings {
    /// MinHash functions and seed.
    pub minhash: MinHashConfig,
    /// LSH bands and rows.
    pub lsh: LshParams,
    /// The Hamming distance the SimHash tables serve (each segment picks its table
    /// design from it and its own size, [`TableDesign::choose`]).
    pub simhash_distance: u32,
    /// A hash of the fingerprint settings the sketches come from (the store is stale when
    /// the index's differ).
    pub settings_hash: u64,
    /// Whether segments hold each document's signature (`4 P` bytes a document, two
    /// thirds of a store at `P = 128`). Queries need only the band tables; an index's store
    /// does not keep them (a signature derives from the document's snapshot), a store
    /// that is the only copy of its sketches (Python's `MinHashLSH.save`) does.
    pub signatures: bool,
}

/// One document's sketches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreEntry {
    /// The document's id in the index.
    pub doc: u64,
    /// Its MinHash signature (`P` values; read back from a store that does not hold
    /// signatures, it has none).
    pub signature: Signature,
    /// Its SimHash.
    pub simhash: u64,
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::io(path, source)
}

fn corrupt(path: &Path, reason: impl Into<String>) -> Error {
    Error::corrupt(path, reason)
}

/// A store's refusal of the settings or entries it is given.
fn config(name: &'static str, reason: impl Into<String>) -> Error {
    Error::Sketch(tessera_near::Error::Config { name, reason: reason.into() })
}

/// `dir` and file name of a store path.
fn split(path: &Path) -> (&Path, String) {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    (durable::parent(path), name)
}

/// The file of segment `number` of the store at `path`: `NEAR-000012.seg`.
fn segment_path(path: &Path, number: u64) -> PathBuf {
    let (dir, name) = split(path);
    dir.join(format!("{name}-{number:06}.seg"))
}

/// One segment of an opened store with its deleted ordinals.
#[derive(Debug)]
struct LiveSegment {
    segment: Segment,
    /// The manifest's number (0 for a version-1 store).
    number: u64,
    /// Bit `i` set when ordinal `i` is deleted (empty when none is).
    dead: Vec<u64>,
    deleted: usize,
}

impl LiveSegment {
    fn new(segment: Segment, number: u64, tombstones: &[u64]) -> LiveSegment {
        let mut dead = Vec::new();
        let mut deleted = 0;
        for &doc in tombstones {
            if let Some(i) = segment.ordinal_of(doc) {
                if dead.is_empty() {
                    dead = vec![0u64; segment.len().div_ceil(64)];
                }
                dead[i / 64] |= 1 << (i % 64);
                deleted += 1;
            }
        }
        LiveSegment { segment, number, dead, deleted }
    }

    #[inline]
    fn is_live(&self, i: usize) -> bool {
        self.dead.is_empty() || self.dead[i / 64] & (1 << (i % 64)) == 0
    }

    /// What the merge policy knows of this segment, at position `index`.
    fn stat(&self, index: usize) -> SegmentStat {
        SegmentStat {
            index,
            id: self.number,
            docs: self.segment.len() as u64,
            deleted: self.deleted as u64,
            file_len: self.segment.file_len(),
        }
    }

    fn live_entries(&self) -> impl Iterator<Item = StoreEntry> + '_ {
        (0..self.segment.len()).filter(|&i| self.is_live(i)).map(|i| self.segment.entry(i))
    }
}

/// A sketch store opened for queries (segments memory-mapped; checksums verified on
/// open). Ordinals number the documents of every segment, segment after segment
/// (deleted ones included: [`SketchStore::len`]); candidates are live ordinals only.
#[derive(Debug)]
pub struct SketchStore {
    path: PathBuf,
    settings: StoreSettings,
    segments: Vec<LiveSegment>,
    /// First ordinal of each segment, and the total at the end.
    bases: Vec<usize>,
    live: usize,
    generation: u64,
    tombstones: Vec<u64>,
    /// The format version on disk (the manifest's, or 1).
    version: u32,
}

/// The first 64 bytes of `path`, or fewer when it is shorter.
fn read_header(path: &Path) -> Result<Vec<u8>> {
    let mut head = Vec::with_capacity(HEADER);
    File::open(path).and_then(|f| f.take(HEADER as u64).read_to_end(&mut head)).map_err(io(path))?;
    Ok(head)
}

/// The state of the store at `path` (`<dir>/NEAR`): the `sketch` section of
/// `<dir>/MANIFEST` when it has one, else the store's own `NEAR` manifest (formats 2 and
/// 3); `None` for a version-1 store (one `NEAR` file).
fn read_state(path: &Path) -> Result<Option<State>> {
    let (dir, _) = split(path);
    match Manifest::load(dir) {
        Ok(Manifest { sketch: Some(section), .. }) => {
            return State::from_section(&dir.join(MANIFEST_FILE), &section).map(Some);
        }
        Ok(_) | Err(Error::NotAnIndex { .. }) => {}
        Err(e) => return Err(e),
    }
    legacy_state(path)
}

/// The state in the `NEAR` file at `path` (formats 2 and 3), `None` for a version-1 store.
fn legacy_state(path: &Path) -> Result<Option<State>> {
    let head = read_header(path)?;
    if head.len() >= 12 && head[..8] == STORE_MAGIC && u32_at(&head, 8) == 1 {
        return Ok(None);
    }
    let bytes = std::fs::read(path).map_err(io(path))?;
    State::decode_legacy(path, &bytes).map(Some)
}

fn missing(e: &Error) -> bool {
    matches!(e, Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
}

impl SketchStore {
    /// Opens and verifies a store: a manifest and its segments, or a version-1 file
    /// (magic, version, settings, lengths, checksums). The band tables' pages are then
    /// mapped into the process (the checksum pass has just read them into the page cache,
    /// so this costs a few milliseconds a million documents): a fresh process's first
    /// queries take no page faults.
    pub fn open(path: &Path) -> Result<Self> {
        let store = Self::open_unmapped(path)?;
        store.warm_bands();
        Ok(store)
    }

    fn open_unmapped(path: &Path) -> Result<Self> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            match Self::from_state(path, read_state(path)?) {
                // A merge swapped the manifest and removed this segment since: read again.
                Err(e) if missing(&e) && attempt < OPEN_ATTEMPTS => {}
                other => return other,
            }
        }
    }

    /// Opens the segments `state` names, or the version-1 store at `path` (`None`).
    fn from_state(path: &Path, state: Option<State>) -> Result<Self> {
        let Some(state) = state else {
            let segment = Segment::open(path)?;
            let settings = segment.header().settings.clone();
            return Ok(Self::assemble(path, settings, (1, 0), Vec::new(), vec![LiveSegment::new(segment, 0, &[])]));
        };
        let segments = Self::open_segments(path, &state)?;
        Ok(Self::assemble(path, state.settings, (state.version, state.generation), state.tombstones, segments))
    }

    fn open_segments(path: &Path, state: &State) -> Result<Vec<LiveSegment>> {
        state
            .segments
            .iter()
            .map(|r| {
                let file = segment_path(path, r.number);
                let segment = Segment::open(&file)?;
                let h = segment.header();
                if segment.is_v1()
                    || h.settings != state.settings
                    || h.n as u64 != r.docs
                    || segment.file_len() != r.file_len
                {
                    return Err(corrupt(&file, "the segment does not match its manifest"));
                }
                Ok(LiveSegment::new(segment, r.number, &state.tombstones))
            })
            .collect()
    }

    fn assemble(
        path: &Path,
        settings: StoreSettings,
        (version, generation): (u32, u64),
        tombstones: Vec<u64>,
        segments: Vec<LiveSegment>,
    ) -> Self {
        let mut bases = Vec::with_capacity(segments.len() + 1);
        let mut total = 0;
        let mut live = 0;
        for s in &segments {
            bases.push(total);
            total += s.segment.len();
            live += s.segment.len() - s.deleted;
        }
        bases.push(total);
        Self { path: path.to_path_buf(), settings, segments, bases, live, generation, tombstones, version }
    }

    /// The settings.
    pub fn settings(&self) -> &StoreSettings {
        &self.settings
    }

    /// The store's path (`<dir>/NEAR`: its segments are `<dir>/NEAR-<n>.seg`; its state
    /// is in `<dir>/MANIFEST`, or in this file for a store before format 4).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Ordinals: documents of every segment, deleted ones included.
    pub fn len(&self) -> usize {
        self.bases[self.segments.len()]
    }

    /// True when the store has no ordinal.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Live documents (ordinals not deleted).
    pub fn live_len(&self) -> usize {
        self.live
    }

    /// Segment files.
    pub fn segment_count(&self) -> usize {
        self.segments.len()
    }

    /// Deleted documents still held by segments.
    pub fn deleted_count(&self) -> usize {
        self.len() - self.live
    }

    /// The format version of the store on disk (4: a section of `MANIFEST`; 1, 2 or 3:
    /// a `NEAR` file).
    pub fn format_version(&self) -> u32 {
        self.version
    }

    /// Maps the pages of every segment's band tables (the part LSH queries read) into
    /// the process by touching them, so that queries after it take no page faults (the
    /// pages become resident).
    fn warm_bands(&self) {
        for s in &self.segments {
            s.segment.warm_bands();
        }
    }

    #[inline]
    fn locate(&self, i: usize) -> (&LiveSegment, usize) {
        let s = self.bases.partition_point(|&b| b <= i) - 1;
        (&self.segments[s], i - self.bases[s])
    }

    /// Document id of ordinal `i` (`i < len()`).
    pub fn doc(&self, i: usize) -> u64 {
        let (s, i) = self.locate(i);
        s.segment.doc(i)
    }

    /// SimHash of ordinal `i`.
    pub fn simhash(&self, i: usize) -> u64 {
        let (s, i) = self.locate(i);
        s.segment.simhash(i)
    }

    /// Signature of ordinal `i`; `None` when the store does not hold signatures
    /// ([`StoreSettings::signatures`]).
    pub fn signature(&self, i: usize) -> Option<Signature> {
        let (s, i) = self.locate(i);
        s.segment.signature(i)
    }

    /// Whether ordinal `i` is a live document (not deleted).
    pub fn is_live(&self, i: usize) -> bool {
        let (s, i) = self.locate(i);
        s.is_live(i)
    }

    /// The live ordinal of document `doc`, if the store holds it.
    pub fn ordinal_of(&self, doc: u64) -> Option<u32> {
        self.segments.iter().zip(&self.bases).find_map(|(s, &base)| {
            s.segment.ordinal_of(doc).filter(|&i| s.is_live(i)).and_then(|i| u32::try_from(base + i).ok())
        })
    }

    /// Ids of the live documents, ascending.
    pub fn live_docs(&self) -> Vec<u64> {
        let mut docs: Vec<u64> = Vec::with_capacity(self.live);
        for s in &self.segments {
            docs.extend((0..s.segment.len()).filter(|&i| s.is_live(i)).map(|i| s.segment.doc(i)));
        }
        docs.sort_unstable();
        docs
    }

    /// Every live entry, by document id (signatures with no values when the store holds
    /// none).
    pub fn entries(&self) -> Vec<StoreEntry> {
        let mut out: Vec<StoreEntry> = self.segments.iter().flat_map(LiveSegment::live_entries).collect();
        out.sort_by_key(|e| e.doc);
        out
    }

    /// Live ordinals of documents sharing at least one LSH band with `sig`, ascending.
    pub fn lsh_candidates(&self, sig: &Signature) -> Vec<u32> {
        let mut out = Vec::new();
        self.lsh_candidates_into(sig, &mut out);
        out
    }

    /// [`SketchStore::lsh_candidates`] into `out` (cleared first): no allocation once
    /// `out` has room.
    pub fn lsh_candidates_into(&self, sig: &Signature, out: &mut Vec<u32>) {
        out.clear();
        let lsh = self.settings.lsh;
        if sig.0.len() != self.settings.minhash.num_perm || sig.is_empty() {
            return;
        }
        // Bands in passes, so that the cache misses of different bands overlap instead
        // of following each other: every band's directory entry, then the first record
        // of every band's range, then the scans (which hit the cache). At most
        // PASS_BANDS bands a pass, on the stack (a query allocates nothing).
        for first in (0..lsh.bands).step_by(PASS_BANDS) {
            let bands = first..(first + PASS_BANDS).min(lsh.bands);
            let mut keys = [0u64; PASS_BANDS];
            for (band, key) in bands.clone().zip(&mut keys) {
                *key = lsh.band_key(sig, band);
            }
            let mut ranges = [(0usize, 0usize); PASS_BANDS];
            for (s, &base) in self.segments.iter().zip(&self.bases) {
                for ((band, range), &key) in bands.clone().zip(&mut ranges).zip(&keys) {
                    *range = s.segment.band_range(band, key);
                }
                for (band, &range) in bands.clone().zip(&ranges) {
                    s.segment.band_touch(band, range);
                }
                for ((band, &range), &key) in bands.clone().zip(&ranges).zip(&keys) {
                    s.segment.band_scan(band, key, range, |o| {
                        if s.is_live(o as usize) {
                            out.push((base + o as usize) as u32);
                        }
                    });
                }
            }
        }
        out.sort_unstable();
        out.dedup();
    }

    /// Live ordinals of documents whose SimHash is within the store's distance of `fp`,
    /// ascending.
    pub fn simhash_candidates(&self, fp: u64) -> Vec<u32> {
        let mut out = Vec::new();
        for (s, &base) in self.segments.iter().zip(&self.bases) {
            s.segment.simhash_lookup(fp, |o| {
                if s.is_live(o as usize) {
                    out.push((base + o as usize) as u32);
                }
            });
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Bands a query reads in one pass (see `lsh_candidates_into`).
const PASS_BANDS: usize = 64;

mod update;
pub use update::{UpdateReport, update_store, write_store};

#[cfg(test)]
mod tests;
