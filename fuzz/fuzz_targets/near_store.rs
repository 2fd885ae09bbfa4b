//! The sketch store (`<index>/NEAR`): arbitrary bytes must open cleanly or fail with a
//! typed error, and a store that opens must answer every query without panicking, its
//! candidate ordinals always naming documents of the store.
//!
//! The first byte picks the mode: even, the rest is the whole file; odd, the harness
//! keeps the rest's header fields but writes the magic, the version, a document count
//! that fits the bytes and the checksum, so mutations reach the tables.
//!
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run near_store`; seeds in `fuzz/corpus/near_store/`.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tessera_near::{STORE_MAGIC, STORE_VERSION, SketchStore, TableDesign};

const HEADER: usize = 64;

fn store_path() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &DIR.get_or_init(|| {
        let tmp = tempfile::tempdir().expect("temp dir");
        let path = tmp.path().join("NEAR");
        (tmp, path)
    })
    .1
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

/// `rest` made into a store whose size and checksum agree with its header (when the
/// header's settings are valid enough to size a document).
fn repaired(rest: &[u8]) -> Vec<u8> {
    let mut b = rest.to_vec();
    if b.len() < HEADER {
        b.resize(HEADER, 0);
    }
    b[..8].copy_from_slice(&STORE_MAGIC);
    b[8..12].copy_from_slice(&STORE_VERSION.to_le_bytes());
    let p = (u32_at(&b, 12) % 300) as usize;
    let bands = (u32_at(&b, 24) % 64) as usize;
    let (k, m) = (u32_at(&b, 32) % 8, (u32_at(&b, 36) % 66) as usize);
    let tables = TableDesign::with_blocks(k, m).map_or(0, |d| d.tables());
    let per_doc = 8 * (2 + bands + tables) + 4 * (p + bands + tables);
    let n = (b.len() - HEADER) / per_doc;
    b.truncate(HEADER + n * per_doc);
    b[40..48].copy_from_slice(&(n as u64).to_le_bytes());
    let crc = crc32fast::hash(&b);
    b.extend_from_slice(&crc.to_le_bytes());
    b
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let bytes = if mode & 1 == 0 { rest.to_vec() } else { repaired(rest) };
    let path = store_path();
    std::fs::write(path, &bytes).expect("write NEAR");
    let Ok(store) = SketchStore::open(path) else { return };
    let n = store.len();
    let _ = store.entries();
    for i in 0..n.min(8) {
        let sig = store.signature(i);
        let fp = store.simhash(i);
        let _ = store.doc(i);
        let mut candidates = store.lsh_candidates(&sig);
        candidates.extend(store.simhash_candidates(fp));
        candidates.extend(store.simhash_candidates(!fp));
        for o in candidates {
            let o = o as usize;
            assert!(o < n, "candidate ordinal {o} of a store of {n}");
            let _ = store.doc(o);
            let _ = store.signature(o).jaccard(&sig);
        }
    }
});
