//! The sketch store (`<index>/NEAR-<n>.seg` and the `sketch` section of `MANIFEST`, or a
//! `NEAR` file of formats 1 to 3; docs/design.md section 12.5): arbitrary bytes must
//! open cleanly or fail with a typed error, and a store that opens must answer every
//! query without panicking, its candidate ordinals always naming live documents of the
//! store.
//!
//! The first byte picks the mode (`mode % 6`):
//! - 0: the rest is the whole `NEAR` file (a version-3 or -2 manifest, or a version-1 store);
//! - 1: the rest as a version-1 store whose magic, version, document count and checksum
//!   the harness makes agree with its header, so mutations reach the tables;
//! - 2: the rest is segment file `NEAR-000001.seg`, named by a manifest the harness
//!   writes from the segment's header (with a tombstone for the segment's first doc);
//! - 3: as 2, the segment's magic, version, sizes and checksum repaired first (version 2,
//!   or version 3 with or without signatures, picked by the segment's bytes);
//! - 4 and 5: as 2 and 3, the segment named by the `sketch` section of a `MANIFEST`
//!   (format 2, store format 4) instead of a `NEAR` manifest.
//!
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run near_store`; seeds in `fuzz/seeds/near_store/`.
#![cfg_attr(not(feature = "replay"), no_main)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tessera_fuzz::fuzz_target;
use tessera_index::sketch::{SEGMENT_MAGIC, STORE_MAGIC, SketchStore};
use tessera_near::{Signature, TableDesign};

const HEADER: usize = 64;
/// Manifest header bytes of version 3.
const MANIFEST_HEADER: usize = 72;

fn store_dir() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &DIR.get_or_init(|| {
        let tmp = tempfile::tempdir().expect("temp dir");
        let path = tmp.path().to_path_buf();
        (tmp, path)
    })
    .1
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// Table count of the header's SimHash design, 0 when it is not one.
fn tables(b: &[u8]) -> usize {
    TableDesign::with_blocks(u32_at(b, 32), u32_at(b, 36) as usize).map_or(0, |d| d.tables())
}

/// `rest` made into a version-1 store whose size and checksum agree with its header.
fn repaired_v1(rest: &[u8]) -> Vec<u8> {
    let mut b = rest.to_vec();
    b.resize(b.len().max(HEADER), 0);
    b[..8].copy_from_slice(&STORE_MAGIC);
    put_u32(&mut b, 8, 1);
    let (p, bands) = (u32_at(&b, 12) % 300, u32_at(&b, 24) % 64);
    put_u32(&mut b, 12, p);
    put_u32(&mut b, 24, bands);
    let (k, m) = (u32_at(&b, 32) % 8, u32_at(&b, 36) % 66);
    put_u32(&mut b, 32, k);
    put_u32(&mut b, 36, m);
    let t = tables(&b);
    let (p, bands) = (p as usize, bands as usize);
    let per_doc = 8 * (2 + bands + t) + 4 * (p + bands + t);
    let n = (b.len() - HEADER) / per_doc.max(1);
    b.truncate(HEADER + n * per_doc);
    b[40..48].copy_from_slice(&(n as u64).to_le_bytes());
    let crc = crc32fast::hash(&b);
    b.extend_from_slice(&crc.to_le_bytes());
    b
}

/// `rest` made into a version-2 or -3 segment whose sizes and checksum agree with its
/// header (version and flags from its byte 8: 0 version 2, 1 version 3 with signatures,
/// 2 and 3 version 3 without).
fn repaired_segment(rest: &[u8]) -> Vec<u8> {
    let mut b = rest.to_vec();
    b.resize(b.len().max(HEADER), 0);
    let kind = b[8] % 4;
    b[..8].copy_from_slice(&SEGMENT_MAGIC);
    put_u32(&mut b, 8, if kind == 0 { 2 } else { 3 });
    for (at, modulo) in [(12, 300), (24, 64), (32, 8), (36, 66), (48, 12)] {
        let v = u32_at(&b, at) % modulo;
        put_u32(&mut b, at, v);
    }
    let held = kind < 2;
    put_u32(&mut b, 52, u32::from(held && kind == 1));
    let t = tables(&b);
    let (p, bands, bits) = (u32_at(&b, 12) as usize, u32_at(&b, 24) as usize, u32_at(&b, 48));
    let fixed = HEADER + 4 * bands * ((1 << bits) + 1);
    b.resize(b.len().max(fixed), 0);
    let per_doc = 16 + if held { 4 * p } else { 0 } + 12 * (bands + t);
    let n = (b.len() - fixed) / per_doc;
    b.truncate(fixed + n * per_doc);
    b[40..48].copy_from_slice(&(n as u64).to_le_bytes());
    let crc = crc32fast::hash(&b);
    b.extend_from_slice(&crc.to_le_bytes());
    b
}

/// A version-3 `NEAR` manifest naming `segment` as segment 1, with its header's settings (a
/// version-2 segment holds signatures), and the first document of the segment (when it
/// has one) as a tombstone.
fn manifest_for(segment: &[u8]) -> Vec<u8> {
    let mut seg = segment.to_vec();
    seg.resize(seg.len().max(HEADER + 8), 0);
    let n = u64_at(&seg, 40);
    let tombstones: Vec<u64> = if n > 0 { vec![u64_at(&seg, HEADER)] } else { Vec::new() };
    let mut m = Vec::new();
    m.extend_from_slice(&STORE_MAGIC);
    m.extend_from_slice(&3u32.to_le_bytes());
    m.extend_from_slice(&seg[12..16]); // P
    m.extend_from_slice(&seg[16..24]); // seed
    m.extend_from_slice(&seg[24..36]); // bands, rows, k
    m.extend_from_slice(&1u32.to_le_bytes());
    m.extend_from_slice(&(tombstones.len() as u64).to_le_bytes());
    m.extend_from_slice(&seg[56..64]); // settings hash
    m.extend_from_slice(&1u64.to_le_bytes()); // generation
    let flags = if u32_at(&seg, 8) == 2 { 1 } else { u32_at(&seg, 52) };
    m.extend_from_slice(&flags.to_le_bytes());
    m.extend_from_slice(&0u32.to_le_bytes());
    debug_assert_eq!(m.len(), MANIFEST_HEADER);
    for v in [1, n, segment.len() as u64] {
        m.extend_from_slice(&v.to_le_bytes());
    }
    for t in tombstones {
        m.extend_from_slice(&t.to_le_bytes());
    }
    let crc = crc32fast::hash(&m);
    m.extend_from_slice(&crc.to_le_bytes());
    m
}

/// A `MANIFEST` (format 2, no collections) whose `sketch` section says what
/// [`manifest_for`] says of `segment`.
fn section_for(segment: &[u8]) -> Vec<u8> {
    let mut seg = segment.to_vec();
    seg.resize(seg.len().max(HEADER + 8), 0);
    let n = u64_at(&seg, 40);
    let tombstones = if n > 0 { format!(", \"tombstones\": [{}]", u64_at(&seg, HEADER)) } else { String::new() };
    let signatures = u32_at(&seg, 8) == 2 || u32_at(&seg, 52) & 1 != 0;
    let body = format!(
        "{{\"format_version\": 2, \"fingerprint_settings\": null, \"next_doc_id\": 0, \"next_segment_id\": 0, \
         \"collections\": [], \"sketch\": {{\"num_perm\": {}, \"seed\": {}, \"bands\": {}, \"rows\": {}, \
         \"simhash_distance\": {}, \"settings_hash\": {}, \"signatures\": {signatures}, \"generation\": 1, \
         \"segments\": [{{\"number\": 1, \"docs\": {n}, \"file_len\": {}}}]{tombstones}}}}}",
        u32_at(&seg, 12),
        u64_at(&seg, 16),
        u32_at(&seg, 24),
        u32_at(&seg, 28),
        u32_at(&seg, 32),
        u64_at(&seg, 56),
        segment.len()
    );
    let mut m = b"TSRMANIF".to_vec();
    m.extend_from_slice(&2u32.to_le_bytes());
    m.extend_from_slice(&(body.len() as u64).to_le_bytes());
    m.extend_from_slice(body.as_bytes());
    let crc = crc32fast::hash(&m);
    m.extend_from_slice(&crc.to_le_bytes());
    m
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let dir = store_dir();
    let path = dir.join("NEAR");
    let segment = dir.join("NEAR-000001.seg");
    let manifest = dir.join("MANIFEST");
    for file in [&path, &segment, &manifest] {
        let _ = std::fs::remove_file(file);
    }
    match mode % 6 {
        0 => std::fs::write(&path, rest).expect("write NEAR"),
        1 => std::fs::write(&path, repaired_v1(rest)).expect("write NEAR"),
        m => {
            let seg = if m % 2 == 0 { rest.to_vec() } else { repaired_segment(rest) };
            std::fs::write(&segment, &seg).expect("write segment");
            if m < 4 {
                std::fs::write(&path, manifest_for(&seg)).expect("write NEAR");
            } else {
                std::fs::write(&manifest, section_for(&seg)).expect("write MANIFEST");
            }
        }
    }
    let Ok(store) = SketchStore::open(&path) else { return };
    let n = store.len();
    let _ = store.entries();
    let _ = store.live_docs();
    let mut candidates = Vec::new();
    for i in 0..n.min(8) {
        // A store without signatures is queried with a made-up one.
        let p = store.settings().minhash.num_perm;
        let sig = store
            .signature(i)
            .unwrap_or_else(|| Signature((0..p as u32).map(|v| v.wrapping_mul(2654435761)).collect()));
        let fp = store.simhash(i);
        let _ = store.ordinal_of(store.doc(i));
        store.lsh_candidates_into(&sig, &mut candidates);
        candidates.extend(store.simhash_candidates(fp));
        candidates.extend(store.simhash_candidates(!fp));
        for &o in &candidates {
            let o = o as usize;
            assert!(o < n, "candidate ordinal {o} of a store of {n}");
            assert!(store.is_live(o), "deleted ordinal {o} given as a candidate");
            let _ = store.doc(o);
            if let Some(other) = store.signature(o) {
                let _ = other.jaccard(&sig);
            }
        }
    }
});
