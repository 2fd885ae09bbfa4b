//! The record inputs of `tessera dedup`: JSONL lines, CSV/TSV rows and Parquet rows. The
//! readers live in the CLI binary (`crates/cli/src/commands/dedup/{records,parquet}.rs`,
//! anyhow-based, with no library entry); this target compiles those same files as
//! modules, so it fuzzes the code the command runs. Any bytes give records, per-record
//! failures or one error, never a panic.
//!
//! The first byte picks the format (`% 4`: JSONL, CSV, TSV, Parquet) and whether an id
//! field is asked for (bit 2); the rest is the input (a Parquet input is written to a
//! temporary file, as the reader wants a file).
//!
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run dedup_input`; seeds in
//! `fuzz/corpus/dedup_input/`.
#![cfg_attr(not(feature = "replay"), no_main)]

#[allow(dead_code)]
#[path = "../../crates/cli/src/commands/dedup/records.rs"]
mod records;

#[allow(dead_code)]
#[path = "../../crates/cli/src/commands/dedup/parquet.rs"]
mod parquet;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tessera_fuzz::fuzz_target;
use records::{FieldCheck, Fields};

fn parquet_path() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &DIR.get_or_init(|| {
        let tmp = tempfile::tempdir().expect("temp dir");
        let path = tmp.path().join("input.parquet");
        (tmp, path)
    })
    .1
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let fields = Fields { text: "text", id: if mode & 4 == 0 { None } else { Some("id") } };
    let mut check = FieldCheck::default();
    let mut records = 0u64;
    let _ = match mode % 4 {
        0 => records::read_jsonl(rest, "fuzz.jsonl", &fields, |_, _, r| {
            records += 1;
            check.count(r.as_ref().err(), &fields, "fuzz.jsonl")
        }),
        1 | 2 => {
            let delimiter = if mode % 4 == 1 { b',' } else { b'\t' };
            records::read_delimited(
                rest,
                delimiter,
                "fuzz.csv",
                &fields,
                |_| {},
                |_, _, r| {
                    records += 1;
                    check.count(r.as_ref().err(), &fields, "fuzz.csv")
                },
            )
        }
        _ => {
            let path = parquet_path();
            std::fs::write(path, rest).expect("write Parquet");
            parquet::read(path, &fields, |_, r| {
                records += 1;
                check.count(r.as_ref().err(), &fields, "fuzz.parquet")
            })
        }
    };
    let _ = check.finish(&fields, "fuzz");
    // One record per line at most (Parquet rows aside: a row group may hold many).
    if mode % 4 != 3 {
        assert!(records <= rest.len() as u64 + 1);
    }
});
