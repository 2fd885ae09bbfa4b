//! The sketch store, the near-duplicate component of the segment layer: MinHash
//! signatures, LSH band tables, SimHash fingerprints and permuted SimHash tables of an
//! index's documents (or of a standalone set, Python's `MinHashLSH.save`), in immutable,
//! checksummed, little-endian segment files that queries read through memory maps. The
//! sketches themselves (MinHash, bands, SimHash table designs) are `tessera_near`'s; this
//! module owns only their files, and shares the segment layer's machinery with the
//! index's collections: the lock (`lock.rs`), the tiered [`MergePolicy`], the atomic
//! manifest swap and the crc32 trailer (`durable.rs`).
//!
//! Format version 3 (the byte-by-byte description is in `docs/design.md`, section 12.5):
//! `NEAR` is a small manifest naming the segment files `NEAR-<number>.seg` and the
//! deleted documents still present in them (tombstones). An update writes one segment
//! of the new documents, adds the deleted ones to the tombstones, merges segments as
//! the [`MergePolicy`] picks them (sized in live bytes, as the index's segments are),
//! then swaps the manifest atomically; files no manifest names are removed afterwards.
//! Nothing is rewritten whole on an add. Writers take `NEAR.LOCK` (waiting for it: the
//! index's writer lock is not taken, so `near` brings the store up to date while
//! documents are being added); readers never do: they retry when a merge removed a
//! segment between reading the manifest and opening it. Signatures are held only when
//! the store's settings say so ([`StoreSettings::signatures`]): an index's store derives
//! them from snapshots when it needs one, and merges copy band records instead of
//! recomputing them. Version-2 manifests and segments (signatures always held) are still
//! read, and so is a version-1 store (one `NEAR` file), which the first update turns into
//! version 3.

mod segment;

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

pub use segment::SEGMENT_MAGIC;
use segment::{Segment, u32_at, u64_at};
use tessera_near::{LshParams, MAX_DISTANCE, MinHashConfig, Signature, TableDesign};

use crate::lock::DirLock;
use crate::merge::{MergePolicy, SegmentStat};
use crate::{Error, Result, durable};

/// Magic bytes of a sketch store (the manifest, or a whole version-1 store).
pub const STORE_MAGIC: [u8; 8] = *b"TSRNEAR\0";
/// The store format version this build writes (it reads 1 to 3).
pub const STORE_VERSION: u32 = 3;
/// Manifest header bytes of version 2 (and of a version-1 store's header).
const HEADER: usize = 64;
/// Manifest header bytes of version 3 (version 2's, then u32 flags, u32 reserved).
const HEADER_V3: usize = 72;
/// Manifest flag (version 3): the segments hold the signatures.
const FLAG_SIGNATURES: u32 = 1;
/// Bytes of one segment entry of the manifest.
const SEGMENT_REF: usize = 24;
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

/// A segment named by the manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SegmentRef {
    number: u64,
    docs: u64,
    file_len: u64,
}

/// The manifest (version 3 written, 2 read).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Manifest {
    /// The version read (written: always [`STORE_VERSION`]).
    version: u32,
    settings: StoreSettings,
    /// The highest segment number ever written into this store's directory.
    generation: u64,
    segments: Vec<SegmentRef>,
    /// Deleted documents still held by a segment, ascending.
    tombstones: Vec<u64>,
}

impl Manifest {
    fn encode(&self) -> Vec<u8> {
        let s = &self.settings;
        let mut out = Vec::with_capacity(HEADER_V3 + SEGMENT_REF * self.segments.len() + 8 * self.tombstones.len() + 4);
        out.extend_from_slice(&STORE_MAGIC);
        for v in [STORE_VERSION, s.minhash.num_perm as u32] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&s.minhash.seed.to_le_bytes());
        for v in [s.lsh.bands as u32, s.lsh.rows as u32, s.simhash_distance, self.segments.len() as u32] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [self.tombstones.len() as u64, s.settings_hash, self.generation] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let flags = if s.signatures { FLAG_SIGNATURES } else { 0 };
        for v in [flags, 0] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for r in &self.segments {
            for v in [r.number, r.docs, r.file_len] {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        for t in &self.tombstones {
            out.extend_from_slice(&t.to_le_bytes());
        }
        durable::seal(&mut out);
        out
    }

    fn decode(path: &Path, b: &[u8]) -> Result<Manifest> {
        if b.len() < HEADER + 4 || b[..8] != STORE_MAGIC {
            return Err(corrupt(path, "not a sketch store"));
        }
        let version = u32_at(b, 8);
        let header = match version {
            2 => HEADER,
            STORE_VERSION if b.len() >= HEADER_V3 + 4 => HEADER_V3,
            STORE_VERSION => return Err(corrupt(path, "not a sketch store")),
            _ => return Err(corrupt(path, format!("store format version {version}, this build reads 1 to 3"))),
        };
        // Version 2 always holds the signatures.
        let flags = if version == 2 { FLAG_SIGNATURES } else { u32_at(b, 64) };
        if flags & !FLAG_SIGNATURES != 0 {
            return Err(corrupt(path, format!("unknown store flags {flags:#x}")));
        }
        let (segments, tombstones) = (u32_at(b, 36) as u128, u128::from(u64_at(b, 40)));
        let expected = header as u128 + SEGMENT_REF as u128 * segments + 8 * tombstones + 4;
        if expected != b.len() as u128 {
            return Err(corrupt(path, format!("{} bytes, the header implies {expected}", b.len())));
        }
        if durable::unseal(b).is_none() {
            return Err(corrupt(path, "checksum mismatch"));
        }
        let p = u32_at(b, 12) as usize;
        let lsh = LshParams { bands: u32_at(b, 24) as usize, rows: u32_at(b, 28) as usize };
        lsh.validate(p).map_err(|e| corrupt(path, e.to_string()))?;
        let k = u32_at(b, 32);
        if k > MAX_DISTANCE {
            return Err(corrupt(path, format!("SimHash distance {k} above {MAX_DISTANCE}")));
        }
        let settings = StoreSettings {
            minhash: MinHashConfig { num_perm: p, seed: u64_at(b, 16) },
            lsh,
            simhash_distance: k,
            settings_hash: u64_at(b, 48),
            signatures: flags & FLAG_SIGNATURES != 0,
        };
        let generation = u64_at(b, 56);
        let refs: Vec<SegmentRef> = (0..segments as usize)
            .map(|i| {
                let at = header + SEGMENT_REF * i;
                SegmentRef { number: u64_at(b, at), docs: u64_at(b, at + 8), file_len: u64_at(b, at + 16) }
            })
            .collect();
        let mut numbers: Vec<u64> = refs.iter().map(|r| r.number).collect();
        numbers.sort_unstable();
        numbers.dedup();
        if numbers.len() != refs.len() || numbers.last().is_some_and(|&n| n > generation) {
            return Err(corrupt(path, "segment numbers repeat or pass the generation"));
        }
        let start = header + SEGMENT_REF * refs.len();
        let tombstones: Vec<u64> = (0..tombstones as usize).map(|i| u64_at(b, start + 8 * i)).collect();
        if tombstones.windows(2).any(|w| w[0] >= w[1]) {
            return Err(corrupt(path, "tombstones out of order"));
        }
        Ok(Manifest { version, settings, generation, segments: refs, tombstones })
    }
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
        let head = read_header(path)?;
        if head.len() >= 12 && head[..8] == STORE_MAGIC && u32_at(&head, 8) == 1 {
            let segment = Segment::open(path)?;
            let settings = segment.header().settings.clone();
            return Ok(Self::assemble(path, settings, (1, 0), Vec::new(), vec![LiveSegment::new(segment, 0, &[])]));
        }
        let mut attempt = 0;
        loop {
            attempt += 1;
            let bytes = std::fs::read(path).map_err(io(path))?;
            let manifest = Manifest::decode(path, &bytes)?;
            match Self::open_segments(path, &manifest) {
                Ok(segments) => {
                    return Ok(Self::assemble(
                        path,
                        manifest.settings,
                        (manifest.version, manifest.generation),
                        manifest.tombstones,
                        segments,
                    ));
                }
                // A merge swapped the manifest and removed this segment since: read again.
                Err(e) if missing(&e) && attempt < OPEN_ATTEMPTS => {}
                Err(e) => return Err(e),
            }
        }
    }

    fn open_segments(path: &Path, manifest: &Manifest) -> Result<Vec<LiveSegment>> {
        manifest
            .segments
            .iter()
            .map(|r| {
                let file = segment_path(path, r.number);
                let segment = Segment::open(&file)?;
                let h = segment.header();
                if segment.is_v1()
                    || h.settings != manifest.settings
                    || h.n as u64 != r.docs
                    || segment.file_len() != r.file_len
                {
                    return Err(corrupt(&file, "the segment does not match its manifest"));
                }
                Ok(LiveSegment::new(segment, r.number, &manifest.tombstones))
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

    /// The store's file (the manifest, or a version-1 store).
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

    /// The format version of the store on disk (1, 2 or 3: its manifest's).
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

/// The advisory writer lock of the store at `path` (`NEAR.LOCK`), waited for.
fn lock(path: &Path) -> Result<DirLock> {
    let (dir, name) = split(path);
    DirLock::wait_named(dir, &format!("{name}.LOCK"))
}

/// The segment number in a file name of this store (`NEAR-000012.seg`, also with a
/// `.tmp.<pid>` suffix), if it is one.
fn number_in(name: &str, file: &str) -> Option<u64> {
    let rest = file.strip_prefix(name)?.strip_prefix('-')?;
    let digits = rest.split('.').next()?;
    rest[digits.len()..].starts_with(".seg").then(|| digits.parse().ok()).flatten()
}

/// The highest segment number found in the directory (files of killed writers count:
/// a number is never reused).
fn highest_number(path: &Path) -> Result<u64> {
    let (dir, name) = split(path);
    let mut highest = 0;
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        if let Some(n) = number_in(&name, &entry.file_name().to_string_lossy()) {
            highest = highest.max(n);
        }
    }
    Ok(highest)
}

/// Removes segment files no manifest names and temporary files of killed writers. Runs
/// under the lock, after the manifest swap; a file it cannot remove is left for the next
/// writer (it holds nothing a reader of the new manifest needs).
fn remove_unnamed(path: &Path, named: &[SegmentRef]) -> Result<()> {
    let (dir, name) = split(path);
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        let file = entry.file_name().to_string_lossy().into_owned();
        let stale = match number_in(&name, &file) {
            Some(n) => file.contains(".tmp.") || !named.iter().any(|r| r.number == n),
            None => file.starts_with(&format!("{name}.tmp.")),
        };
        if stale {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    Ok(())
}

/// Writes `manifest` over `path` atomically: the directory synced first (which makes the
/// segment renames before it durable), then a temporary file, synced, renamed, the
/// directory synced.
fn write_manifest(path: &Path, manifest: &Manifest) -> Result<()> {
    let (dir, name) = split(path);
    durable::sync_dir(dir)?;
    durable::replace(path, &dir.join(format!("{name}.tmp.{}", std::process::id())), &manifest.encode())
}

fn check(settings: &StoreSettings, entries: &[StoreEntry]) -> Result<()> {
    let p = settings.minhash.num_perm;
    settings.lsh.validate(p)?;
    TableDesign::choose(settings.simhash_distance, 1)?;
    if let Some(e) = entries.iter().find(|e| e.signature.0.len() != p) {
        return Err(config("signature", format!("document {} has {} values, not {p}", e.doc, e.signature.0.len())));
    }
    Ok(())
}

/// `entries` sorted by doc id, the first of each id kept.
fn sorted(entries: &[StoreEntry]) -> Vec<&StoreEntry> {
    let mut v: Vec<&StoreEntry> = entries.iter().collect();
    v.sort_by_key(|e| e.doc);
    v.dedup_by_key(|e| e.doc);
    v
}

/// Writes a store holding exactly `entries` (sorted by doc id here) at `path`: one
/// segment and a new manifest, swapped atomically; the previous store's files are
/// removed after the swap.
pub fn write_store(path: &Path, settings: &StoreSettings, entries: &[StoreEntry]) -> Result<()> {
    check(settings, entries)?;
    let _lock = lock(path)?;
    write_whole(path, settings, &sorted(entries))
}

fn write_whole(path: &Path, settings: &StoreSettings, entries: &[&StoreEntry]) -> Result<()> {
    let previous = read_header(path)
        .ok()
        .filter(|h| h.len() >= 12 && matches!(u32_at(h, 8), 2 | STORE_VERSION))
        .and_then(|_| std::fs::read(path).ok())
        .and_then(|b| Manifest::decode(path, &b).ok())
        .map_or(0, |m| m.generation);
    let mut generation = previous.max(highest_number(path)?);
    let mut segments = Vec::new();
    if !entries.is_empty() {
        generation += 1;
        let file_len = segment::write_segment(&segment_path(path, generation), settings, entries)?;
        segments.push(SegmentRef { number: generation, docs: entries.len() as u64, file_len });
    }
    let manifest =
        Manifest { version: STORE_VERSION, settings: settings.clone(), generation, segments, tombstones: Vec::new() };
    write_manifest(path, &manifest)?;
    remove_unnamed(path, &manifest.segments)
}

/// What an update did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UpdateReport {
    /// Documents written in a new segment.
    pub added: usize,
    /// Documents marked deleted.
    pub deleted: usize,
    /// Merges run, and the documents they rewrote.
    pub merges: usize,
    /// Documents the merges rewrote.
    pub merged_docs: usize,
    /// Segments after the update.
    pub segments: usize,
}

/// Updates the store at `path` in place of rewriting it: `add` (documents it does not
/// hold yet; those it holds live are skipped) go into one new segment, `delete` into the
/// tombstones, then segments are merged as `policy` picks them (the index's tiered
/// policy, segments sized in live bytes), and the manifest is swapped
/// atomically. Fails when there is no readable store at `path`, when its settings are not
/// `settings`, or when an added document was deleted from it (ids are never reused);
/// the caller then rebuilds it with [`write_store`]. A version-1 store is rewritten as
/// one version-3 segment; version-2 segments are kept and merged as the policy says.
pub fn update_store(
    path: &Path,
    settings: &StoreSettings,
    add: &[StoreEntry],
    delete: &[u64],
    policy: &MergePolicy,
) -> Result<UpdateReport> {
    check(settings, add)?;
    let _lock = lock(path)?;
    // Opened to be rewritten, not queried: its band tables are not mapped.
    let store = SketchStore::open_unmapped(path)?;
    if store.settings() != settings {
        return Err(config("settings", format!("{} was built with other settings", path.display())));
    }
    let mut added: Vec<&StoreEntry> = Vec::new();
    for e in sorted(add) {
        let held = store.segments.iter().find_map(|s| s.segment.ordinal_of(e.doc).map(|i| s.is_live(i)));
        match held {
            Some(true) => {}
            Some(false) => {
                return Err(config("add", format!("document {} was deleted from {}", e.doc, path.display())));
            }
            None => added.push(e),
        }
    }
    let mut delete: Vec<u64> = delete.iter().copied().filter(|&d| store.ordinal_of(d).is_some()).collect();
    delete.sort_unstable();
    delete.dedup();
    let mut report = UpdateReport { added: added.len(), deleted: delete.len(), ..UpdateReport::default() };
    if store.format_version() == 1 {
        let mut all: Vec<StoreEntry> = store.entries();
        all.retain(|e| delete.binary_search(&e.doc).is_err());
        all.extend(added.into_iter().cloned());
        let all = sorted(&all);
        drop(store);
        write_whole(path, settings, &all)?;
        report.segments = usize::from(!all.is_empty());
        return Ok(report);
    }
    if added.is_empty() && delete.is_empty() {
        report.segments = store.segments.len();
        return Ok(report);
    }
    let SketchStore { segments, tombstones, generation, .. } = store;
    let mut tombstones: Vec<u64> = tombstones.into_iter().chain(delete).collect();
    tombstones.sort_unstable();
    tombstones.dedup();
    let mut generation = generation.max(highest_number(path)?);
    let mut segments: Vec<LiveSegment> = segments
        .into_iter()
        .map(|s| {
            let (segment, number) = (s.segment, s.number);
            LiveSegment::new(segment, number, &tombstones)
        })
        .collect();
    if !added.is_empty() {
        generation += 1;
        let file = segment_path(path, generation);
        segment::write_segment(&file, settings, &added)?;
        segments.push(LiveSegment::new(Segment::open(&file)?, generation, &[]));
    }
    // At most as many merges as segments: each one lowers the count or purges deletes.
    for _ in 0..=segments.len() {
        let stats: Vec<SegmentStat> = segments.iter().enumerate().map(|(i, s)| s.stat(i)).collect();
        let Some(picked) = policy.pick(&stats) else { break };
        let inputs: Vec<&LiveSegment> = picked.iter().map(|&i| &segments[i]).collect();
        let live: usize = inputs.iter().map(|s| s.segment.len() - s.deleted).sum();
        let merged = if live == 0 {
            None
        } else {
            generation += 1;
            let file = segment_path(path, generation);
            segment::merge_segments(&file, settings, &inputs)?;
            Some(LiveSegment::new(Segment::open(&file)?, generation, &[]))
        };
        report.merges += 1;
        report.merged_docs += live;
        let at = picked[0];
        for &i in picked.iter().rev() {
            segments.remove(i);
        }
        if let Some(m) = merged {
            segments.insert(at, m);
        }
    }
    // Tombstones of documents merged away are dropped.
    tombstones.retain(|&d| segments.iter().any(|s| s.segment.ordinal_of(d).is_some_and(|i| !s.is_live(i))));
    let refs: Vec<SegmentRef> = segments
        .iter()
        .map(|s| SegmentRef { number: s.number, docs: s.segment.len() as u64, file_len: s.segment.file_len() })
        .collect();
    report.segments = refs.len();
    let manifest =
        Manifest { version: STORE_VERSION, settings: settings.clone(), generation, segments: refs, tombstones };
    write_manifest(path, &manifest)?;
    drop(segments);
    remove_unnamed(path, &manifest.segments)?;
    Ok(report)
}

#[cfg(test)]
mod tests;
