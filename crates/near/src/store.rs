//! The sketch store: MinHash signatures, LSH band tables, SimHash fingerprints and
//! permuted SimHash tables of an index's documents, in one immutable, checksummed,
//! little-endian file that queries read through a memory map.
//!
//! Layout (`N` documents, `P` functions, `B` bands, `T` SimHash tables; all integers
//! little-endian; the byte-by-byte description is in `docs/design.md`):
//!
//! ```text
//! 0    header (64 bytes): magic "TSRNEAR\0", u32 version = 1, u32 P, u64 MinHash seed,
//!      u32 B, u32 rows, u32 SimHash distance k, u32 SimHash blocks m, u64 N,
//!      u64 settings hash, u64 reserved = 0
//! 64   doc ids            N x u64, ascending
//!      simhashes          N x u64
//!      band keys          B x N x u64 (band b: keys sorted ascending, ties by ordinal)
//!      table values       T x N x u64 (table t: permuted fingerprints, sorted)
//!      signatures         N x P x u32
//!      band ordinals      B x N x u32 (the document ordinal of each band key)
//!      table ordinals     T x N x u32
//!      crc32              u32 (IEEE) of every byte before it
//! ```

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::simhash_tables::{Permutation, TableDesign};
use crate::{LshParams, MinHashConfig, Signature, hamming};

/// Magic bytes of a sketch store.
pub const STORE_MAGIC: [u8; 8] = *b"TSRNEAR\0";
/// The store format version this build reads and writes.
pub const STORE_VERSION: u32 = 1;
const HEADER: usize = 64;

/// The settings a store was built with (its header).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreSettings {
    /// MinHash functions and seed.
    pub minhash: MinHashConfig,
    /// LSH bands and rows.
    pub lsh: LshParams,
    /// SimHash tables' design.
    pub simhash: TableDesign,
    /// A hash of the fingerprint settings the sketches come from (the store is stale when
    /// the index's differ).
    pub settings_hash: u64,
}

/// One document's sketches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreEntry {
    /// The document's id in the index.
    pub doc: u64,
    /// Its MinHash signature (`P` values).
    pub signature: Signature,
    /// Its SimHash.
    pub simhash: u64,
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io { path: path.to_path_buf(), source }
}

fn corrupt(path: &Path, reason: impl Into<String>) -> Error {
    Error::Corrupt { path: path.to_path_buf(), reason: reason.into() }
}

/// Writes a store of `entries` (sorted by doc id here) to `path` atomically: a temporary
/// file in the same directory, synced, renamed over `path`, directory synced.
pub fn write_store(path: &Path, settings: &StoreSettings, entries: &[StoreEntry]) -> Result<()> {
    let p = settings.minhash.num_perm;
    settings.lsh.validate(p)?;
    if let Some(e) = entries.iter().find(|e| e.signature.0.len() != p) {
        return Err(crate::error::config(
            "signature",
            format!("document {} has {} values, not {p}", e.doc, e.signature.0.len()),
        ));
    }
    let mut entries: Vec<&StoreEntry> = entries.iter().collect();
    entries.sort_by_key(|e| e.doc);
    entries.dedup_by_key(|e| e.doc);
    let n = entries.len();
    let perms = settings.simhash.permutations();
    let (b, rows) = (settings.lsh.bands, settings.lsh.rows);

    let mut out = Vec::with_capacity(HEADER + n * (8 * (2 + b + perms.len()) + 4 * (p + b + perms.len())) + 4);
    out.extend_from_slice(&STORE_MAGIC);
    for v in [STORE_VERSION, p as u32] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&settings.minhash.seed.to_le_bytes());
    for v in [b as u32, rows as u32, settings.simhash.max_distance, settings.simhash.blocks.len() as u32] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for v in [n as u64, settings.settings_hash, 0] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for e in &entries {
        out.extend_from_slice(&e.doc.to_le_bytes());
    }
    for e in &entries {
        out.extend_from_slice(&e.simhash.to_le_bytes());
    }
    let keys: Vec<Vec<u64>> = entries.par_iter().map(|e| settings.lsh.band_keys(&e.signature)).collect();
    let bands: Vec<Vec<(u64, u32)>> = (0..b)
        .into_par_iter()
        .map(|band| {
            let mut v: Vec<(u64, u32)> = keys.iter().enumerate().map(|(i, k)| (k[band], i as u32)).collect();
            v.sort_unstable();
            v
        })
        .collect();
    let tables: Vec<Vec<(u64, u32)>> = perms
        .par_iter()
        .map(|perm| {
            let mut v: Vec<(u64, u32)> =
                entries.iter().enumerate().map(|(i, e)| (perm.apply(e.simhash), i as u32)).collect();
            v.sort_unstable();
            v
        })
        .collect();
    for t in bands.iter().chain(&tables) {
        for (k, _) in t {
            out.extend_from_slice(&k.to_le_bytes());
        }
    }
    for e in &entries {
        for v in &e.signature.0 {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    for t in bands.iter().chain(&tables) {
        for (_, i) in t {
            out.extend_from_slice(&i.to_le_bytes());
        }
    }
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());

    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!("{name}.tmp.{}", std::process::id()));
    let mut f = File::create(&tmp).map_err(io(&tmp))?;
    f.write_all(&out).map_err(io(&tmp))?;
    f.sync_all().map_err(io(&tmp))?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(io(path))?;
    #[cfg(unix)]
    File::open(dir).and_then(|d| d.sync_all()).map_err(io(dir))?;
    Ok(())
}

/// A sketch store opened for queries (memory-mapped; the checksum is verified on open).
#[derive(Debug)]
pub struct SketchStore {
    map: memmap2::Mmap,
    path: PathBuf,
    settings: StoreSettings,
    perms: Vec<Permutation>,
    n: usize,
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

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

impl SketchStore {
    /// Opens and verifies a store: magic, version, settings, length, checksum.
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(io(path))?;
        // SAFETY: stores are never modified in place: a new store is written to a
        // temporary file and renamed over the old one, which leaves existing maps of the
        // old file valid on Unix. As for segments, an index directory must not be edited
        // by other programs.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io(path))?;
        let b = &map[..];
        if b.len() < HEADER + 4 || b[..8] != STORE_MAGIC {
            return Err(corrupt(path, "not a sketch store"));
        }
        let version = u32_at(b, 8);
        if version != STORE_VERSION {
            return Err(corrupt(path, format!("store format version {version}, this build reads {STORE_VERSION}")));
        }
        let p = u32_at(b, 12) as usize;
        let seed = u64_at(b, 16);
        let (bands, rows, k, m) =
            (u32_at(b, 24) as usize, u32_at(b, 28) as usize, u32_at(b, 32), u32_at(b, 36) as usize);
        let n = u64_at(b, 40);
        let settings_hash = u64_at(b, 48);
        let lsh = LshParams { bands, rows };
        lsh.validate(p).map_err(|e| corrupt(path, e.to_string()))?;
        let simhash = TableDesign::with_blocks(k, m).map_err(|e| corrupt(path, e.to_string()))?;
        let perms = simhash.permutations();
        let t = perms.len() as u64;
        let expected = (n as u128)
            * (8 * (2 + bands as u128 + t as u128) + 4 * (p as u128 + bands as u128 + t as u128))
            + HEADER as u128
            + 4;
        if expected != b.len() as u128 {
            return Err(corrupt(path, format!("{} bytes, the header implies {expected}", b.len())));
        }
        let body = b.len() - 4;
        if checksum(&file, body as u64).map_err(io(path))? != u32_at(b, body) {
            return Err(corrupt(path, "checksum mismatch"));
        }
        let n = n as usize;
        let settings = StoreSettings { minhash: MinHashConfig { num_perm: p, seed }, lsh, simhash, settings_hash };
        Ok(Self { map, path: path.to_path_buf(), settings, perms, n })
    }

    /// The settings in the header.
    pub fn settings(&self) -> &StoreSettings {
        &self.settings
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Documents in the store.
    pub fn len(&self) -> usize {
        self.n
    }

    /// True when the store holds no document.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    fn tables(&self) -> usize {
        self.perms.len()
    }

    fn band_key_at(&self, band: usize, i: usize) -> u64 {
        u64_at(&self.map, HEADER + 16 * self.n + 8 * (band * self.n + i))
    }

    fn table_value_at(&self, t: usize, i: usize) -> u64 {
        u64_at(&self.map, HEADER + 16 * self.n + 8 * ((self.settings.lsh.bands + t) * self.n + i))
    }

    fn ordinals_start(&self) -> usize {
        HEADER
            + 8 * self.n * (2 + self.settings.lsh.bands + self.tables())
            + 4 * self.n * self.settings.minhash.num_perm
    }

    fn band_ordinal_at(&self, band: usize, i: usize) -> u32 {
        u32_at(&self.map, self.ordinals_start() + 4 * (band * self.n + i))
    }

    fn table_ordinal_at(&self, t: usize, i: usize) -> u32 {
        u32_at(&self.map, self.ordinals_start() + 4 * ((self.settings.lsh.bands + t) * self.n + i))
    }

    /// Adds a candidate ordinal read from the tables. The checksum proves the bytes are
    /// those written, not that whoever wrote them kept the ordinals below `N`: one that
    /// is not is left out, so no caller indexes past the store with it.
    fn push_ordinal(&self, out: &mut Vec<u32>, ordinal: u32) {
        if (ordinal as usize) < self.n {
            out.push(ordinal);
        }
    }

    /// Document id of ordinal `i`.
    pub fn doc(&self, i: usize) -> u64 {
        u64_at(&self.map, HEADER + 8 * i)
    }

    /// SimHash of ordinal `i`.
    pub fn simhash(&self, i: usize) -> u64 {
        u64_at(&self.map, HEADER + 8 * (self.n + i))
    }

    /// Signature of ordinal `i`.
    pub fn signature(&self, i: usize) -> Signature {
        let p = self.settings.minhash.num_perm;
        let start = HEADER + 8 * self.n * (2 + self.settings.lsh.bands + self.tables()) + 4 * p * i;
        Signature((0..p).map(|j| u32_at(&self.map, start + 4 * j)).collect())
    }

    /// Every entry (to rebuild the store with more documents).
    pub fn entries(&self) -> Vec<StoreEntry> {
        (0..self.n)
            .map(|i| StoreEntry { doc: self.doc(i), signature: self.signature(i), simhash: self.simhash(i) })
            .collect()
    }

    /// Ordinals of documents sharing at least one LSH band with `sig` (ascending).
    pub fn lsh_candidates(&self, sig: &Signature) -> Vec<u32> {
        if sig.is_empty() || sig.0.len() != self.settings.minhash.num_perm {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (band, key) in self.settings.lsh.band_keys(sig).into_iter().enumerate() {
            let (mut lo, mut hi) = (0, self.n);
            while lo < hi {
                let mid = usize::midpoint(lo, hi);
                if self.band_key_at(band, mid) < key { lo = mid + 1 } else { hi = mid }
            }
            let mut i = lo;
            while i < self.n && self.band_key_at(band, i) == key {
                self.push_ordinal(&mut out, self.band_ordinal_at(band, i));
                i += 1;
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Ordinals of documents whose SimHash is within the store's distance of `fp`.
    pub fn simhash_candidates(&self, fp: u64) -> Vec<u32> {
        let k = self.settings.simhash.max_distance;
        let mut out = Vec::new();
        for (t, perm) in self.perms.iter().enumerate() {
            let q = perm.apply(fp);
            let key = perm.key(q);
            let (mut lo, mut hi) = (0, self.n);
            while lo < hi {
                let mid = usize::midpoint(lo, hi);
                if perm.key(self.table_value_at(t, mid)) < key { lo = mid + 1 } else { hi = mid }
            }
            let mut i = lo;
            while i < self.n {
                let v = self.table_value_at(t, i);
                if perm.key(v) != key {
                    break;
                }
                if hamming(v, q) <= k {
                    self.push_ordinal(&mut out, self.table_ordinal_at(t, i));
                }
                i += 1;
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;
    use crate::{LshIndex, MinHasher, SimhashTables};
    use proptest::prelude::*;

    fn settings(n: u64) -> StoreSettings {
        StoreSettings {
            minhash: MinHashConfig { num_perm: 32, seed: 3 },
            lsh: LshParams::optimal(0.5, 32, 0.5, 0.5).unwrap(),
            simhash: TableDesign::choose(3, n).unwrap(),
            settings_hash: 99,
        }
    }

    fn entries(seed: u64, n: usize) -> Vec<StoreEntry> {
        let h = MinHasher::new(MinHashConfig { num_perm: 32, seed: 3 }).unwrap();
        let mut rng = SplitMix64::new(seed);
        let base: Vec<u64> = (0..50).map(|_| rng.next_u64()).collect();
        (0..n)
            .map(|i| {
                let mut set = base.clone();
                for x in set.iter_mut().take(i % 50) {
                    *x = rng.next_u64();
                }
                let fp = if i % 2 == 0 { 0xabcd_0000_1234_5678 ^ (1 << (i % 64)) } else { rng.next_u64() };
                StoreEntry { doc: (i as u64) * 3 + 1, signature: h.sign(&set), simhash: fp }
            })
            .collect()
    }

    /// Found by `fuzz/fuzz_targets/near_store.rs`: a store whose checksum is right but
    /// whose band and table ordinals point past its documents gave those ordinals as
    /// candidates, and `doc`/`signature` of them panicked (or read other sections).
    #[test]
    fn ordinals_past_the_store_are_never_candidates() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("NEAR");
        let e = entries(7, 10);
        let s = settings(10);
        write_store(&path, &s, &e).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        let body = bytes.len() - 4;
        let tables = s.simhash.tables();
        let ordinals = HEADER + 8 * 10 * (2 + s.lsh.bands + tables) + 4 * 10 * s.minhash.num_perm;
        for at in (ordinals..body).step_by(4) {
            bytes[at..at + 4].copy_from_slice(&1_000_000u32.to_le_bytes());
        }
        let crc = crc32fast::hash(&bytes[..body]);
        bytes[body..].copy_from_slice(&crc.to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        let store = SketchStore::open(&path).unwrap();
        for entry in &e {
            assert_eq!(store.lsh_candidates(&entry.signature), Vec::<u32>::new());
            assert_eq!(store.simhash_candidates(entry.simhash), Vec::<u32>::new());
        }
    }

    proptest! {
        #[test]
        fn store_queries_equal_memory_queries(seed in any::<u64>(), n in 0usize..80) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("NEAR");
            let e = entries(seed, n);
            let s = settings(n as u64);
            write_store(&path, &s, &e).unwrap();
            let store = SketchStore::open(&path).unwrap();
            prop_assert_eq!(store.settings(), &s);
            prop_assert_eq!(store.entries(), e.clone());
            let sigs: Vec<Signature> = e.iter().map(|x| x.signature.clone()).collect();
            let fps: Vec<u64> = e.iter().map(|x| x.simhash).collect();
            let lsh = LshIndex::build(&sigs, s.lsh);
            let tables = SimhashTables::build(&fps, s.simhash.clone());
            for x in &e {
                prop_assert_eq!(store.lsh_candidates(&x.signature), lsh.query(&x.signature));
                prop_assert_eq!(store.simhash_candidates(x.simhash), tables.query(x.simhash));
            }
        }
    }

    /// The checked-in version-1 store must keep opening with the same content. Regenerate
    /// (only with a format version bump, as a new fixture) with `UPDATE_NEAR_FIXTURE=1`.
    #[test]
    fn fixture_v1_keeps_opening() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/near-v1/NEAR");
        if std::env::var_os("UPDATE_NEAR_FIXTURE").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            write_store(&path, &settings(10), &entries(1, 10)).unwrap();
        }
        let store = SketchStore::open(&path).unwrap();
        assert_eq!(store.settings(), &settings(10));
        assert_eq!(store.entries(), entries(1, 10));
        assert_eq!(store.len(), 10);
        assert_eq!(store.doc(3), 10);
        assert_eq!(store.lsh_candidates(&entries(1, 10)[0].signature)[0], 0);
    }

    #[test]
    fn damage_is_reported_with_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("NEAR");
        write_store(&path, &settings(10), &entries(1, 10)).unwrap();
        let good = std::fs::read(&path).unwrap();
        for at in [0, 9, 30, 100, good.len() - 1] {
            let mut bad = good.clone();
            bad[at] ^= 0x40;
            std::fs::write(&path, &bad).unwrap();
            let err = SketchStore::open(&path).unwrap_err().to_string();
            assert!(err.contains("NEAR") && err.contains("corrupt"), "{err}");
        }
        std::fs::write(&path, &good[..good.len() - 5]).unwrap();
        assert!(SketchStore::open(&path).is_err());
        assert!(SketchStore::open(&dir.path().join("missing")).unwrap_err().to_string().contains("missing"));
    }
}
