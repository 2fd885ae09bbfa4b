//! An index's `MANIFEST`: arbitrary bytes must open cleanly or fail with a typed error,
//! and a manifest that opens must give a reader whose look-ups never panic.
//!
//! The first byte picks the mode: even, the rest is the whole file (magic, version,
//! length, checksum: almost everything is refused early); odd, the rest is the JSON body
//! and the harness adds a valid header and checksum (format version 1, or 2, the one with
//! the sketch section, when bit 1 is set), so mutations reach the JSON decoder and the
//! manifest's invariants. The index directory holds the segments of
//! `crates/index/testdata/index-v3`, so manifests naming them open real segments; a
//! manifest's sketch section is opened as a store too (its segments are missing).
//!
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run manifest` (from the repository root); seeds
//! are in `fuzz/corpus/manifest/`.
#![cfg_attr(not(feature = "replay"), no_main)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tessera_fuzz::fuzz_target;
use tessera_index::Index;

fn index_dir() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &DIR.get_or_init(|| {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path().join("idx");
        let segments = dir.join("segments");
        std::fs::create_dir_all(&segments).expect("segments dir");
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/index/testdata/index-v3/segments");
        for entry in std::fs::read_dir(&fixture).expect("fixture segments") {
            let entry = entry.expect("entry");
            std::fs::copy(entry.path(), segments.join(entry.file_name())).expect("copy segment");
        }
        (tmp, dir)
    })
    .1
}

/// The manifest file around `body`: magic, `version`, body length, body, crc32.
fn framed(version: u32, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 24);
    out.extend_from_slice(b"TSRMANIF");
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(body);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let bytes = if mode & 1 == 0 { rest.to_vec() } else { framed(1 + u32::from(mode & 2 != 0), rest) };
    let dir = index_dir();
    std::fs::write(dir.join("MANIFEST"), &bytes).expect("write MANIFEST");
    let _ = tessera_index::sketch::SketchStore::open(&dir.join("NEAR"));
    let Ok(index) = Index::open(dir) else { return };
    let Ok(reader) = index.reader() else { return };
    let _ = reader.collections();
    let _ = reader.doc_count();
    for doc in reader.live_docs().take(64) {
        let _ = reader.collection_of(doc);
        let _ = reader.meta(doc);
        let _ = reader.seen_at(doc);
        let _ = reader.text(doc);
    }
    let _ = reader.verify();
});
