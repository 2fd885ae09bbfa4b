//! `tessera verify`: a sound index passes with its counts; a flipped byte anywhere in a
//! segment fails naming the file, with exit code 1.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tessera(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .current_dir(dir)
        .env_remove("TESSERA_INDEX")
        .env_remove("TESSERA_THREADS")
        .output()
        .unwrap()
}

fn library() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/demo/library")
}

#[test]
fn sound_index_verifies_and_every_flipped_byte_is_found() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library();
    let out = tessera(tmp.path(), &["-q", "index", "--index", "lib", lib.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let out = tessera(tmp.path(), &["verify", "--index", "lib", "--format", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
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
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "byte {at}: {stderr}");
        assert!(stderr.contains("0000000000000000.seg"), "byte {at}: {stderr}");
        assert!(!stderr.contains("panicked"), "byte {at}: {stderr}");
    }
    std::fs::write(&segment, &pristine).unwrap();
    assert!(tessera(tmp.path(), &["verify", "--index", "lib"]).status.success());
}

#[test]
fn verify_of_a_missing_index_names_it() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tessera(tmp.path(), &["verify", "--index", "nowhere"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nowhere"));
}
