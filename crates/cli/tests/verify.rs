//! `tessera verify`: a sound index passes with its counts; a flipped byte anywhere in a
//! segment fails naming the file, with exit code 1.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use support::run as tessera;

mod support;

fn library() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/demo/library")
}

#[test]
fn sound_index_verifies_and_every_flipped_byte_is_found() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library();
    tessera(tmp.path(), &["-q", "index", "--index", "lib", lib.to_str().unwrap()]).ok();

    let out = tessera(tmp.path(), &["verify", "--index", "lib", "--format", "json"]).ok();
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["ok"], true);
    assert_eq!(report["docs"], 3);
    assert_eq!(report["segments"], 1);
    assert!(report["postings"].as_u64().unwrap() > 0);

    let segment = tmp.path().join("lib/segments/0000000000000000.seg");
    let pristine = std::fs::read(&segment).unwrap();
    // A byte every 97: header, postings, snapshots, metadata and footer all get hit.
    for at in (0..pristine.len()).step_by(97) {
        let mut damaged = pristine.clone();
        damaged[at] ^= 0x5a;
        std::fs::write(&segment, &damaged).unwrap();
        let out = tessera(tmp.path(), &["verify", "--index", "lib"]);
        let stderr = &out.stderr;
        assert_eq!(out.code, Some(1), "byte {at}: {stderr}");
        assert!(stderr.contains("0000000000000000.seg"), "byte {at}: {stderr}");
        assert!(!stderr.contains("panicked"), "byte {at}: {stderr}");
    }
    std::fs::write(&segment, &pristine).unwrap();
    assert!(tessera(tmp.path(), &["verify", "--index", "lib"]).success());
}

#[test]
fn verify_of_a_missing_index_names_it() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tessera(tmp.path(), &["verify", "--index", "nowhere"]);
    out.fails(1, &["nowhere"]);
}
