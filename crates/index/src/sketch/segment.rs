//! One segment of the sketch store: an immutable, checksummed file holding the sketches
//! of some documents, read through a memory map. Two layouts are read: the bucketed one
//! of format versions 3 (written here) and 2 (`NEAR-<n>.seg`: band records behind a
//! directory of their keys' top bits, so a band look-up is two cache lines; version 3
//! holds the signatures only when the store keeps them) and format version 1 (the whole
//! store in one `NEAR` file, sorted key arrays searched by bisection). The byte-by-byte
//! layouts are in `docs/design.md`, section 12.5.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use rayon::prelude::*;

use tessera_near::{LshParams, MinHashConfig, Permutation, Signature, TableDesign, hamming};

use super::{LiveSegment, StoreEntry, StoreSettings, corrupt, io};
use crate::Result;

/// Magic bytes of a segment file (versions 2 and 3).
pub const SEGMENT_MAGIC: [u8; 8] = *b"TSRNSEG\0";
pub(super) const SEGMENT_VERSION: u32 = 3;
/// Segment flag (header offset 52, version 3): the file holds the signatures.
pub(super) const FLAG_SIGNATURES: u32 = 1;
pub(super) const HEADER: usize = 64;
/// Bytes of one band or table record: `u64` key, `u32` ordinal.
const RECORD: usize = 12;
/// The directory never gets more than `2^MAX_DIR_BITS` buckets.
const MAX_DIR_BITS: u32 = 28;

pub(super) fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

pub(super) fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Directory bits for `n` records: about two records per bucket.
fn dir_bits(n: usize) -> u32 {
    if n <= 2 { 0 } else { (usize::BITS - (n - 1).leading_zeros() - 1).min(MAX_DIR_BITS) }
}

fn top_bits(v: u64, bits: u32) -> usize {
    if bits == 0 { 0 } else { (v >> (64 - bits)) as usize }
}

/// Which layout the file has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// Version 1: key arrays and ordinal arrays apart, no directory.
    V1,
    /// Versions 2 and 3: `(key, ordinal)` records with a directory per band.
    Bucketed { bits: u32 },
}

/// The header fields every layout has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SegmentHeader {
    pub settings: StoreSettings,
    pub design: TableDesign,
    pub n: usize,
}

/// An opened segment.
#[derive(Debug)]
pub(super) struct Segment {
    map: memmap2::Mmap,
    header: SegmentHeader,
    perms: Vec<Permutation>,
    layout: Layout,
    /// Where the signatures start (meaningful when `settings.signatures`).
    signatures: usize,
    directory: usize,
    band_records: usize,
    table_records: usize,
    /// v1 only: where the ordinals of the band tables start.
    ordinals: usize,
}

/// crc32 of the first `len` bytes of `file`, read with `read` calls rather than through
/// the map: the pages then stay out of the process's resident set (queries touch only
/// what they search).
fn checksum(mut file: &File, len: u64) -> std::io::Result<u32> {
    use std::io::{Read, Seek, SeekFrom};
    file.seek(SeekFrom::Start(0))?;
    let mut hasher = crc32fast::Hasher::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut left = len;
    while left > 0 {
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = file.read(&mut buf[..want])?;
        if n == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "file shorter than its map"));
        }
        hasher.update(&buf[..n]);
        left -= n as u64;
    }
    Ok(hasher.finalize())
}

impl Segment {
    /// Opens a version-1 store file or a version-2 segment file and verifies it: magic,
    /// version, settings, length, checksum.
    pub(super) fn open(path: &Path) -> Result<Segment> {
        let file = File::open(path).map_err(io(path))?;
        // SAFETY: store files are never modified in place: a new one is written to a
        // temporary file and renamed, and a file is deleted only once no manifest names
        // it, which leaves existing maps valid on Unix. As for segments of the index, an
        // index directory must not be edited by other programs.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io(path))?;
        let b = &map[..];
        if b.len() < HEADER + 4 {
            return Err(corrupt(path, "not a sketch store"));
        }
        let version = u32_at(b, 8);
        // Versions 1 and 2 always hold the signatures; version 3 says so in its flags.
        let (layout, held) = match (&b[..8], version) {
            (m, 1) if m == super::STORE_MAGIC => (Layout::V1, true),
            (m, 2) if m == SEGMENT_MAGIC => (Layout::Bucketed { bits: u32_at(b, 48) }, true),
            (m, SEGMENT_VERSION) if m == SEGMENT_MAGIC => {
                let flags = u32_at(b, 52);
                if flags & !FLAG_SIGNATURES != 0 {
                    return Err(corrupt(path, format!("unknown segment flags {flags:#x}")));
                }
                (Layout::Bucketed { bits: u32_at(b, 48) }, flags & FLAG_SIGNATURES != 0)
            }
            (m, v) if m == super::STORE_MAGIC || m == SEGMENT_MAGIC => {
                return Err(corrupt(path, format!("store format version {v}, this build reads 1 to 3")));
            }
            _ => return Err(corrupt(path, "not a sketch store")),
        };
        let p = u32_at(b, 12) as usize;
        let seed = u64_at(b, 16);
        let (bands, rows, k, m) =
            (u32_at(b, 24) as usize, u32_at(b, 28) as usize, u32_at(b, 32), u32_at(b, 36) as usize);
        let n = u64_at(b, 40);
        let settings_hash = match layout {
            Layout::V1 => u64_at(b, 48),
            Layout::Bucketed { .. } => u64_at(b, 56),
        };
        let lsh = LshParams { bands, rows };
        lsh.validate(p).map_err(|e| corrupt(path, e.to_string()))?;
        let design = TableDesign::with_blocks(k, m).map_err(|e| corrupt(path, e.to_string()))?;
        let perms = design.permutations();
        let t = perms.len() as u128;
        let (nn, pp, bb) = (u128::from(n), p as u128, bands as u128);
        let held_pp = if held { pp } else { 0 };
        let expected = match layout {
            Layout::V1 => nn * (8 * (2 + bb + t) + 4 * (pp + bb + t)) + HEADER as u128 + 4,
            Layout::Bucketed { bits } => {
                if bits > MAX_DIR_BITS {
                    return Err(corrupt(path, format!("directory of 2^{bits} buckets")));
                }
                nn * (16 + 4 * held_pp + RECORD as u128 * (bb + t))
                    + bb * 4 * ((1u128 << bits) + 1)
                    + HEADER as u128
                    + 4
            }
        };
        if expected != b.len() as u128 {
            return Err(corrupt(path, format!("{} bytes, the header implies {expected}", b.len())));
        }
        let body = b.len() - 4;
        if checksum(&file, body as u64).map_err(io(path))? != u32_at(b, body) {
            return Err(corrupt(path, "checksum mismatch"));
        }
        let n = n as usize;
        let t = perms.len();
        let settings = StoreSettings {
            minhash: MinHashConfig { num_perm: p, seed },
            lsh,
            simhash_distance: k,
            settings_hash,
            signatures: held,
        };
        let (signatures, directory, band_records, table_records, ordinals) = match layout {
            Layout::V1 => {
                let keys = HEADER + 16 * n;
                let sigs = keys + 8 * n * (bands + t);
                (sigs, 0, keys, keys + 8 * n * bands, sigs + 4 * p * n)
            }
            Layout::Bucketed { bits } => {
                let sigs = HEADER + 16 * n;
                let dir = sigs + if held { 4 * p * n } else { 0 };
                let records = dir + 4 * bands * ((1 << bits) + 1);
                (sigs, dir, records, records + RECORD * n * bands, 0)
            }
        };
        Ok(Segment {
            map,
            header: SegmentHeader { settings, design, n },
            perms,
            layout,
            signatures,
            directory,
            band_records,
            table_records,
            ordinals,
        })
    }

    pub(super) fn header(&self) -> &SegmentHeader {
        &self.header
    }

    pub(super) fn is_v1(&self) -> bool {
        self.layout == Layout::V1
    }

    pub(super) fn file_len(&self) -> u64 {
        self.map.len() as u64
    }

    pub(super) fn len(&self) -> usize {
        self.header.n
    }

    pub(super) fn doc(&self, i: usize) -> u64 {
        u64_at(&self.map, HEADER + 8 * i)
    }

    pub(super) fn simhash(&self, i: usize) -> u64 {
        u64_at(&self.map, HEADER + 8 * (self.header.n + i))
    }

    /// The little-endian bytes of ordinal `i`'s signature, when the segment holds them.
    fn signature_bytes(&self, i: usize) -> Option<&[u8]> {
        let p = self.header.settings.minhash.num_perm;
        let start = self.signatures + 4 * p * i;
        self.header.settings.signatures.then(|| &self.map[start..start + 4 * p])
    }

    pub(super) fn signature(&self, i: usize) -> Option<Signature> {
        self.signature_bytes(i).map(|b| Signature(b.chunks_exact(4).map(|c| u32_at(c, 0)).collect()))
    }

    /// Ordinal `i`'s entry; its signature has no values when the segment holds none.
    pub(super) fn entry(&self, i: usize) -> StoreEntry {
        StoreEntry {
            doc: self.doc(i),
            signature: self.signature(i).unwrap_or(Signature(Vec::new())),
            simhash: self.simhash(i),
        }
    }

    /// Record `i` (in key order) of band `band`: `(key, ordinal)`.
    fn band_record(&self, band: usize, i: usize) -> (u64, u32) {
        let (n, b) = (self.header.n, &self.map[..]);
        match self.layout {
            Layout::Bucketed { .. } => {
                let at = self.band_records + RECORD * (band * n + i);
                (u64_at(b, at), u32_at(b, at + 8))
            }
            Layout::V1 => {
                (u64_at(b, self.band_records + 8 * (band * n + i)), u32_at(b, self.ordinals + 4 * (band * n + i)))
            }
        }
    }

    /// Reads one byte of every page of the band directories and records, so they are
    /// mapped before queries come (a first touch costs a page fault).
    pub(super) fn warm_bands(&self) {
        let (from, to) = match self.layout {
            Layout::Bucketed { .. } => (self.directory, self.table_records),
            // Version 1: the band keys (their ordinals are read only on a match).
            Layout::V1 => (self.band_records, self.band_records + 8 * self.header.n * self.header.settings.lsh.bands),
        };
        let mut sum = 0u8;
        for at in (from..to).step_by(4096) {
            sum = sum.wrapping_add(self.map[at]);
        }
        std::hint::black_box(sum);
    }

    /// The ordinal of `doc` (doc ids ascending in a segment).
    pub(super) fn ordinal_of(&self, doc: u64) -> Option<usize> {
        let (mut lo, mut hi) = (0usize, self.header.n);
        while lo < hi {
            let mid = usize::midpoint(lo, hi);
            match self.doc(mid).cmp(&doc) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// Where band `band`'s records for `key` may lie: from the directory (versions 2 and 3) or by
    /// bisection (V1). Reading the ranges of every band first, then scanning, lets the
    /// memory reads of different bands overlap (a query's reads are cache misses on a
    /// store of a million documents).
    #[inline]
    pub(super) fn band_range(&self, band: usize, key: u64) -> (usize, usize) {
        let n = self.header.n;
        let b = &self.map[..];
        match self.layout {
            Layout::Bucketed { bits } => {
                let d = self.directory + 4 * (band * ((1 << bits) + 1) + top_bits(key, bits));
                ((u32_at(b, d) as usize).min(n), (u32_at(b, d + 4) as usize).min(n))
            }
            Layout::V1 => {
                let keys = self.band_records + 8 * band * n;
                let (mut lo, mut hi) = (0, n);
                while lo < hi {
                    let mid = usize::midpoint(lo, hi);
                    if u64_at(b, keys + 8 * mid) < key { lo = mid + 1 } else { hi = mid }
                }
                (lo, n)
            }
        }
    }

    /// Reads the first record of `range` in band `band` (a load whose result is not
    /// needed yet: the scans after it find the record in the cache).
    #[inline]
    pub(super) fn band_touch(&self, band: usize, range: (usize, usize)) {
        if range.0 < range.1 {
            let at = match self.layout {
                Layout::Bucketed { .. } => self.band_records + RECORD * (band * self.header.n + range.0),
                Layout::V1 => self.band_records + 8 * (band * self.header.n + range.0),
            };
            std::hint::black_box(u64_at(&self.map[..], at));
        }
    }

    /// Calls `found` with the ordinal of every record of band `band` in `range` whose key
    /// is `key` (records are sorted by key). Ordinals past the segment are left out: the
    /// checksum proves the bytes are those written, not that whoever wrote them kept the
    /// ordinals below `N`.
    #[inline]
    pub(super) fn band_scan(&self, band: usize, key: u64, range: (usize, usize), mut found: impl FnMut(u32)) {
        let n = self.header.n;
        let b = &self.map[..];
        let (lo, hi) = range;
        match self.layout {
            Layout::Bucketed { .. } => {
                let base = self.band_records + RECORD * band * n;
                for i in lo..hi {
                    let at = base + RECORD * i;
                    let k = u64_at(b, at);
                    if k == key {
                        let o = u32_at(b, at + 8);
                        if (o as usize) < n {
                            found(o);
                        }
                    } else if k > key {
                        break;
                    }
                }
            }
            Layout::V1 => {
                let keys = self.band_records + 8 * band * n;
                let mut i = lo;
                while i < hi && u64_at(b, keys + 8 * i) == key {
                    let o = u32_at(b, self.ordinals + 4 * (band * n + i));
                    if (o as usize) < n {
                        found(o);
                    }
                    i += 1;
                }
            }
        }
    }

    /// Calls `found` with each ordinal whose SimHash is within the segment's distance of
    /// `fp` (ordinals past the segment left out).
    pub(super) fn simhash_lookup(&self, fp: u64, mut found: impl FnMut(u32)) {
        let n = self.header.n;
        let bands = self.header.settings.lsh.bands;
        let k = self.header.design.max_distance;
        let b = &self.map[..];
        for (t, perm) in self.perms.iter().enumerate() {
            // Where value `i` and its ordinal are: (start, stride) of each.
            let ((vb, vs), (ob, os)) = match self.layout {
                Layout::V1 => ((self.table_records + 8 * t * n, 8), (self.ordinals + 4 * ((bands + t) * n), 4)),
                Layout::Bucketed { .. } => {
                    let base = self.table_records + RECORD * t * n;
                    ((base, RECORD), (base + 8, RECORD))
                }
            };
            let value = |i: usize| u64_at(b, vb + vs * i);
            let ordinal = |i: usize| u32_at(b, ob + os * i);
            let q = perm.apply(fp);
            let key = perm.key(q);
            let (mut lo, mut hi) = (0, n);
            while lo < hi {
                let mid = usize::midpoint(lo, hi);
                if perm.key(value(mid)) < key { lo = mid + 1 } else { hi = mid }
            }
            while lo < n {
                let v = value(lo);
                if perm.key(v) != key {
                    break;
                }
                let o = ordinal(lo);
                if hamming(v, q) <= k && (o as usize) < n {
                    found(o);
                }
                lo += 1;
            }
        }
    }
}

/// The directory of `records`' values' top `bits` bits: `dir[x]` = records whose top
/// bits are below `x`.
fn directory(records: &[(u64, u32)], bits: u32) -> Vec<u32> {
    let buckets = 1usize << bits;
    let mut dir = vec![0u32; buckets + 1];
    for &(v, _) in records {
        dir[top_bits(v, bits) + 1] += 1;
    }
    for x in 1..=buckets {
        dir[x] += dir[x - 1];
    }
    dir
}

/// `(value, ordinal)` records sorted by value then ordinal, given their [`directory`]: a
/// counting sort on the top bits, then each bucket (about two records) sorted.
fn bucket_sort(records: &[(u64, u32)], bits: u32, dir: &[u32]) -> Vec<(u64, u32)> {
    let mut next = dir.to_vec();
    let mut out = vec![(0u64, 0u32); records.len()];
    for &(v, o) in records {
        let slot = &mut next[top_bits(v, bits)];
        out[*slot as usize] = (v, o);
        *slot += 1;
    }
    for w in dir.windows(2) {
        let (a, b) = (w[0] as usize, w[1] as usize);
        if b - a > 1 {
            out[a..b].sort_unstable();
        }
    }
    out
}

/// A writer that keeps the crc32 of what passes through it, and every [`SYNC_EVERY`]
/// bytes flushes and asks `syncer` to start writing them to disk while it goes on.
struct CrcWriter<W: Write> {
    inner: W,
    crc: crc32fast::Hasher,
    syncer: Option<std::sync::mpsc::Sender<()>>,
    unsynced: usize,
}

/// Bytes between two background syncs of a segment being written: the disk writes what
/// came before while the rest is encoded (the final sync then waits for the tail only).
const SYNC_EVERY: usize = 32 << 20;

impl<W: Write> CrcWriter<W> {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.crc.update(bytes);
        self.inner.write_all(bytes)?;
        self.unsynced += bytes.len();
        if self.unsynced >= SYNC_EVERY
            && let Some(syncer) = &self.syncer
        {
            self.inner.flush()?;
            // A syncer that has stopped only means no early sync: the final one covers all.
            let _ = syncer.send(());
            self.unsynced = 0;
        }
        Ok(())
    }
}

/// Writes `items` through `w`, `width` bytes each, encoded by `encode` on every core
/// (64 Ki items at a time, so memory stays small).
fn put_all<T: Sync, W: Write>(
    w: &mut CrcWriter<W>,
    items: &[T],
    width: usize,
    buf: &mut Vec<u8>,
    encode: impl Fn(&T, &mut [u8]) + Sync,
) -> std::io::Result<()> {
    for chunk in items.chunks(1 << 16) {
        buf.clear();
        buf.resize(chunk.len() * width, 0);
        buf.par_chunks_mut(width * 1024).zip(chunk.par_chunks(1024)).for_each(|(out, items)| {
            for (o, item) in out.chunks_exact_mut(width).zip(items) {
                encode(item, o);
            }
        });
        w.put(buf)?;
    }
    Ok(())
}

/// Writes ordinal `i`'s signature as `P` little-endian u32 into the given bytes.
type SignatureBytes<'a> = Box<dyn Fn(usize, &mut [u8]) + Sync + 'a>;

/// What a new segment holds, before its tables are sorted: documents (ascending) with
/// their SimHashes, the signatures when the store keeps them, and each band's `(key,
/// ordinal)` records in any order.
struct SegmentData<'a> {
    docs: Vec<u64>,
    simhashes: Vec<u64>,
    signatures: Option<SignatureBytes<'a>>,
    bands: Vec<Vec<(u64, u32)>>,
}

/// Writes a segment of `entries` (sorted by doc id, distinct) to `path`: a temporary
/// file in the same directory, synced, renamed over `path`. The band keys come from the
/// signatures, which the file holds only when `settings.signatures`. The caller syncs the
/// directory. Returns the file's length.
pub(super) fn write_segment(path: &Path, settings: &StoreSettings, entries: &[&StoreEntry]) -> Result<u64> {
    let lsh = settings.lsh;
    // Every band key of a document at once (one read of each signature), written
    // straight into each band's records: documents go in chunks, each chunk with its
    // slice of every band.
    const CHUNK: usize = 4096;
    let n = entries.len();
    let mut bands: Vec<Vec<(u64, u32)>> = (0..lsh.bands).map(|_| vec![(0, 0); n]).collect();
    let mut chunks: Vec<Vec<&mut [(u64, u32)]>> = (0..n.div_ceil(CHUNK)).map(|_| Vec::new()).collect();
    for band in &mut bands {
        for (c, slice) in band.chunks_mut(CHUNK).enumerate() {
            chunks[c].push(slice);
        }
    }
    chunks.into_par_iter().enumerate().for_each(|(c, mut slices)| {
        for (j, e) in entries[c * CHUNK..n.min((c + 1) * CHUNK)].iter().enumerate() {
            for (band, records) in slices.iter_mut().enumerate() {
                records[j] = (lsh.band_key(&e.signature, band), (c * CHUNK + j) as u32);
            }
        }
    });
    let signatures: Option<SignatureBytes<'_>> = settings.signatures.then(|| {
        Box::new(move |i: usize, out: &mut [u8]| {
            for (c, v) in out.chunks_exact_mut(4).zip(&entries[i].signature.0) {
                c.copy_from_slice(&v.to_le_bytes());
            }
        }) as SignatureBytes<'_>
    });
    let data = SegmentData {
        docs: entries.iter().map(|e| e.doc).collect(),
        simhashes: entries.iter().map(|e| e.simhash).collect(),
        signatures,
        bands,
    };
    write_data(path, settings, data)
}

/// Writes the merge of `inputs` (segments of one store) to `path` as [`write_segment`]
/// does: the live documents by id, their band records taken from the inputs'
/// (renumbered), not recomputed, so merges need no signatures. Returns the file's length.
pub(super) fn merge_segments(path: &Path, settings: &StoreSettings, inputs: &[&LiveSegment]) -> Result<u64> {
    // (doc, input, ordinal) of every live document, by doc id.
    let mut live: Vec<(u64, u32, u32)> = Vec::new();
    for (s, input) in inputs.iter().enumerate() {
        let segment = &input.segment;
        live.extend((0..segment.len()).filter(|&i| input.is_live(i)).map(|i| (segment.doc(i), s as u32, i as u32)));
    }
    live.sort_unstable();
    // The new ordinal of each input ordinal (u32::MAX: not live).
    let mut renumber: Vec<Vec<u32>> = inputs.iter().map(|s| vec![u32::MAX; s.segment.len()]).collect();
    for (new, &(_, s, i)) in live.iter().enumerate() {
        renumber[s as usize][i as usize] = new as u32;
    }
    let bands: Vec<Vec<(u64, u32)>> = (0..settings.lsh.bands)
        .into_par_iter()
        .map(|band| {
            let mut records = Vec::with_capacity(live.len());
            for (input, map) in inputs.iter().zip(&renumber) {
                for r in 0..input.segment.len() {
                    let (key, o) = input.segment.band_record(band, r);
                    if let Some(&new) = map.get(o as usize).filter(|&&new| new != u32::MAX) {
                        records.push((key, new));
                    }
                }
            }
            records
        })
        .collect();
    let live = &live;
    let signatures: Option<SignatureBytes<'_>> = settings.signatures.then(|| {
        Box::new(move |i: usize, out: &mut [u8]| {
            let (_, s, o) = live[i];
            if let Some(bytes) = inputs[s as usize].segment.signature_bytes(o as usize) {
                out.copy_from_slice(bytes);
            }
        }) as SignatureBytes<'_>
    });
    let data = SegmentData {
        docs: live.iter().map(|&(doc, _, _)| doc).collect(),
        simhashes: live.iter().map(|&(_, s, i)| inputs[s as usize].segment.simhash(i as usize)).collect(),
        signatures,
        bands,
    };
    write_data(path, settings, data)
}

/// Writes `data` as a segment file at `path` (through a temporary file, synced, renamed).
/// The band directories are counted first (they come before every record in the file);
/// then the bands' and tables' records are sorted on worker threads in file order while
/// this thread writes those that are done, and the disk is asked to write what came so
/// far every [`SYNC_EVERY`] bytes: sorting, encoding and the disk's writing overlap.
fn write_data(path: &Path, settings: &StoreSettings, data: SegmentData<'_>) -> Result<u64> {
    let p = settings.minhash.num_perm;
    let n = data.docs.len();
    let lsh = settings.lsh;
    let (bands, rows) = (lsh.bands, lsh.rows);
    let design = TableDesign::choose(settings.simhash_distance, n as u64)?;
    let perms = design.permutations();
    let bits = dir_bits(n);
    let dirs: Vec<Vec<u32>> = data.bands.par_iter().map(|records| directory(records, bits)).collect();

    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!("{name}.tmp.{}", std::process::id()));
    let file = File::create(&tmp).map_err(io(&tmp))?;
    let early = file.try_clone().map_err(io(&tmp))?;
    let (syncer, requests) = std::sync::mpsc::channel::<()>();
    let mut w = CrcWriter {
        inner: BufWriter::with_capacity(1 << 20, file),
        crc: crc32fast::Hasher::new(),
        syncer: Some(syncer),
        unsynced: 0,
    };
    let flags = if data.signatures.is_some() { FLAG_SIGNATURES } else { 0 };
    let mut header = Vec::with_capacity(HEADER);
    header.extend_from_slice(&SEGMENT_MAGIC);
    for v in [SEGMENT_VERSION, p as u32] {
        header.extend_from_slice(&v.to_le_bytes());
    }
    header.extend_from_slice(&settings.minhash.seed.to_le_bytes());
    for v in [bands as u32, rows as u32, design.max_distance, design.blocks.len() as u32] {
        header.extend_from_slice(&v.to_le_bytes());
    }
    header.extend_from_slice(&(n as u64).to_le_bytes());
    header.extend_from_slice(&bits.to_le_bytes());
    header.extend_from_slice(&flags.to_le_bytes());
    header.extend_from_slice(&settings.settings_hash.to_le_bytes());
    let ordinals: Vec<usize> = if data.signatures.is_some() { (0..n).collect() } else { Vec::new() };

    // Job j < bands sorts band j's records, then table j - bands's.
    let jobs = bands + perms.len();
    let next_job = std::sync::atomic::AtomicUsize::new(0);
    let (done, sorted) = std::sync::mpsc::channel::<(usize, Vec<(u64, u32)>)>();
    let (data, dirs, perms, next_job) = (&data, &dirs, &perms, &next_job);
    let sort = |job: usize, records: &mut Vec<(u64, u32)>| -> Vec<(u64, u32)> {
        if job < bands {
            return bucket_sort(&data.bands[job], bits, &dirs[job]);
        }
        // The table's unsorted records go in a buffer reused from table to table (first
        // touches of fresh pages are a good part of a sort's cost).
        let perm = &perms[job - bands];
        records.clear();
        records.extend(data.simhashes.iter().enumerate().map(|(i, &fp)| (perm.apply(fp), i as u32)));
        bucket_sort(records, bits, &directory(records, bits))
    };
    // Takes the receiver: when it returns, early on an error too, workers still sorting
    // stop at their next send.
    let write = |w: &mut CrcWriter<BufWriter<File>>,
                 sorted: std::sync::mpsc::Receiver<(usize, Vec<(u64, u32)>)>|
     -> std::io::Result<()> {
        let mut buf = Vec::new();
        w.put(&header)?;
        put_all(w, &data.docs, 8, &mut buf, |d, o| o.copy_from_slice(&d.to_le_bytes()))?;
        put_all(w, &data.simhashes, 8, &mut buf, |f, o| o.copy_from_slice(&f.to_le_bytes()))?;
        if let Some(sign) = &data.signatures {
            put_all(w, &ordinals, 4 * p, &mut buf, |&i, o| sign(i, o))?;
        }
        for d in dirs {
            put_all(w, d, 4, &mut buf, |v, o| o.copy_from_slice(&v.to_le_bytes()))?;
        }
        // Records in job order, whichever worker finishes first.
        let mut waiting = std::collections::BTreeMap::new();
        let mut want = 0;
        while want < jobs {
            let Some(records) = waiting.remove(&want) else {
                let (job, records) =
                    sorted.recv().map_err(|_| std::io::Error::other("a table sort stopped before its end"))?;
                waiting.insert(job, records);
                continue;
            };
            put_all(w, &records, RECORD, &mut buf, |(k, i), o| {
                o[..8].copy_from_slice(&k.to_le_bytes());
                o[8..].copy_from_slice(&i.to_le_bytes());
            })?;
            want += 1;
        }
        let crc = w.crc.clone().finalize();
        w.inner.write_all(&crc.to_le_bytes())?;
        w.inner.flush()?;
        w.inner.get_ref().sync_all()
    };
    let written = std::thread::scope(|scope| {
        for _ in 0..rayon::current_num_threads().clamp(1, jobs.max(1)) {
            let done = done.clone();
            scope.spawn(move || {
                let mut records = Vec::new();
                loop {
                    let job = next_job.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    // Past the last job, or the writer gave up (its receiver is gone).
                    if job >= jobs || done.send((job, sort(job, &mut records))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done);
        // Early syncs of what is written so far (requests that pile up are served by one).
        scope.spawn(move || {
            while requests.recv().is_ok() {
                while requests.try_recv().is_ok() {}
                let _ = early.sync_data();
            }
        });
        let written = write(&mut w, sorted);
        w.syncer = None;
        written
    });
    if let Err(e) = written {
        drop(w);
        let _ = std::fs::remove_file(&tmp);
        return Err(io(&tmp)(e));
    }
    let len = w.inner.get_ref().metadata().map_err(io(&tmp))?.len();
    drop(w);
    std::fs::rename(&tmp, path).map_err(io(path))?;
    Ok(len)
}
