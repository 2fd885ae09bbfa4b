//! The record inputs of `tessera dedup` (and of the Python package and the Spark job):
//! JSONL lines, CSV/TSV rows and Parquet rows, read by the engine's
//! `tessera_engine::records` (recognising the input by name, reading it in order, ids,
//! the early stop of a field no record has). Any bytes give records, per-record failures
//! or one error, never a panic.
//!
//! The first byte picks the format (`% 4`: JSONL, CSV, TSV, Parquet) and whether an id
//! field is asked for (bit 2); the rest is the input, written to a temporary file named
//! for its format (the inputs are files, as the command's are).
//!
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run dedup_input`; seeds in
//! `fuzz/corpus/dedup_input/`.
#![cfg_attr(not(feature = "replay"), no_main)]

use std::path::PathBuf;
use std::sync::OnceLock;

use tessera_engine::records::{DedupInputs, RecordEvent, RecordFields, RecordsError};
use tessera_fuzz::fuzz_target;

fn temp_dir() -> &'static PathBuf {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &DIR.get_or_init(|| {
        let tmp = tempfile::tempdir().expect("temp dir");
        let path = tmp.path().to_path_buf();
        (tmp, path)
    })
    .1
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let fields = RecordFields::new(Some("text"), if mode & 4 == 0 { None } else { Some("id") });
    let name = ["fuzz.jsonl", "fuzz.csv", "fuzz.tsv", "fuzz.parquet"][usize::from(mode % 4)];
    let path = temp_dir().join(name);
    std::fs::write(&path, rest).expect("write the input");
    let mut records = 0u64;
    if let Ok(DedupInputs::Records(mut inputs)) = DedupInputs::resolve(&[path], &fields) {
        let _ = inputs.read(&fields, |_, event| {
            if !matches!(event, RecordEvent::Header(_)) {
                records += 1;
            }
            Ok::<(), RecordsError>(())
        });
    }
    // One record per line at most (Parquet rows aside: a row group may hold many).
    if mode % 4 != 3 {
        assert!(records <= rest.len() as u64 + 1);
    }
});
