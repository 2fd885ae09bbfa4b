//! Whole runs of `tessera dedup` on the demo texts and near-copies of them, in a
//! temporary directory (relative paths, so outputs hold no temporary paths). Snapshots in
//! `tests/snapshots/`; regenerate with `INSTA_UPDATE=always cargo test -p tessera-cli`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use insta::assert_snapshot;
use serde_json::Value;

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn tessera(dir: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .current_dir(dir)
        .env_remove("TESSERA_THREADS")
        .output()
        .expect("running tessera");
    let run = Run {
        code: out.status.code(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    };
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    run
}

fn demo(name: &str) -> String {
    fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/demo/library").join(name))
        .unwrap()
}

/// Every `every`-th word replaced by "zzz".
fn edit(text: &str, every: usize) -> String {
    text.split(' ')
        .enumerate()
        .map(|(i, w)| if i % every == every - 1 { "zzz" } else { w })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `docs/`: three texts, a light edit of one (1 word in 100), a heavy edit of another
/// (1 in 3), an exact copy, and a two-word text.
fn corpus(dir: &Path) {
    let docs = dir.join("docs");
    fs::create_dir_all(&docs).unwrap();
    let (press, bees, rivers) = (demo("printing-press.txt"), demo("honey-bees.txt"), demo("siberian-rivers.txt"));
    fs::write(docs.join("a-press.txt"), &press).unwrap();
    fs::write(docs.join("b-bees.txt"), &bees).unwrap();
    fs::write(docs.join("c-rivers.txt"), &rivers).unwrap();
    fs::write(docs.join("d-press-light-edit.txt"), edit(&press, 100)).unwrap();
    fs::write(docs.join("e-bees-heavy-edit.txt"), edit(&bees, 3)).unwrap();
    fs::write(docs.join("f-rivers-copy.txt"), &rivers).unwrap();
    fs::write(docs.join("g-short.txt"), "Honey bees.").unwrap();
}

fn redact(summary: &str) -> String {
    let start = summary.find(" in ").unwrap();
    let end = summary[start..].find(" s;").unwrap() + start;
    format!("{} in [seconds]{}", &summary[..start], &summary[end + 2..])
}

#[test]
fn minhash_folder() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(tmp.path());
    let run = tessera(tmp.path(), &["dedup", "docs", "--method", "minhash", "--threshold", "0.8"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_snapshot!("dedup_minhash_stdout", run.stdout);
    assert_snapshot!("dedup_minhash_summary", redact(&run.stderr));
    // The same clusters on one thread and with exact verification.
    let one = tessera(tmp.path(), &["--threads", "1", "dedup", "docs"]);
    assert_eq!(one.stdout, run.stdout);
    let exact = tessera(tmp.path(), &["dedup", "docs", "--exact"]);
    let kept =
        |s: &str| s.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["cluster"].clone()).collect::<Vec<_>>();
    assert_eq!(kept(&exact.stdout), kept(&run.stdout));
}

#[test]
fn simhash_folder_to_file_with_json_summary() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(tmp.path());
    let run = tessera(
        tmp.path(),
        &["dedup", "docs", "--method", "simhash", "--max-distance", "3", "-o", "out.jsonl", "--format", "json"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.is_empty());
    assert_snapshot!("dedup_simhash_out", fs::read_to_string(tmp.path().join("out.jsonl")).unwrap());
    let mut summary: Value = serde_json::from_str(run.stderr.trim()).unwrap();
    assert!(summary["seconds"].as_f64().unwrap() >= 0.0);
    summary["seconds"] = Value::from("[seconds]");
    assert_snapshot!("dedup_simhash_summary", serde_json::to_string_pretty(&summary).unwrap());
}

#[test]
fn jsonl_with_fields_and_a_bad_line() {
    let tmp = tempfile::tempdir().unwrap();
    let (press, bees) = (demo("printing-press.txt"), demo("honey-bees.txt"));
    let lines = [
        serde_json::json!({"key": "p1", "body": press}).to_string(),
        serde_json::json!({"key": 7, "body": bees}).to_string(),
        "{not json".to_string(),
        serde_json::json!({"key": "p2", "body": edit(&press, 50)}).to_string(),
        serde_json::json!({"key": "no-body"}).to_string(),
        serde_json::json!({"key": "empty", "body": ""}).to_string(),
        serde_json::json!({"key": "empty-too", "body": "  "}).to_string(),
    ];
    fs::write(tmp.path().join("data.txt"), lines.join("\n") + "\n").unwrap();
    let run = tessera(tmp.path(), &["dedup", "data.txt", "--text-field", "body", "--id-field", "key"]);
    // Bad lines are skipped, named with their line number, and make exit code 3.
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert_snapshot!("dedup_jsonl_stdout", run.stdout);
    assert_snapshot!("dedup_jsonl_stderr", redact(&run.stderr));
}

#[test]
fn bad_arguments_fail_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(tmp.path());
    let run = tessera(tmp.path(), &["dedup", "docs", "--threshold", "1.5"]);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("threshold must be strictly between 0 and 1"), "{}", run.stderr);
    let run = tessera(tmp.path(), &["dedup", "docs", "--text-field", "body"]);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("docs is a folder"), "{}", run.stderr);
    let run = tessera(tmp.path(), &["dedup", "missing.jsonl"]);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("missing.jsonl"), "{}", run.stderr);
    let run = tessera(tmp.path(), &["dedup", "docs", "--method", "simhash", "--max-distance", "40"]);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("max_distance"), "{}", run.stderr);
}

/// A Parquet file (Snappy, as pyarrow writes by default): one document per row, the id
/// and text columns named by the flags, a null text skipped and named by its row.
#[cfg(feature = "parquet")]
#[test]
fn parquet_rows_are_documents() {
    use std::sync::Arc;

    use parquet::basic::Compression;
    use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;

    let tmp = tempfile::tempdir().unwrap();
    let (press, bees) = (demo("printing-press.txt"), demo("honey-bees.txt"));
    let texts = [Some(press.clone()), Some(bees), Some(edit(&press, 50)), None];
    let schema =
        Arc::new(parse_message_type("message docs { required int64 key; optional binary body (UTF8); }").unwrap());
    let props = Arc::new(WriterProperties::builder().set_compression(Compression::SNAPPY).build());
    let file = fs::File::create(tmp.path().join("data.parquet")).unwrap();
    let mut writer = SerializedFileWriter::new(file, schema, props).unwrap();
    let mut group = writer.next_row_group().unwrap();
    let mut column = group.next_column().unwrap().unwrap();
    column.typed::<Int64Type>().write_batch(&[10, 20, 30, 40], None, None).unwrap();
    column.close().unwrap();
    let mut column = group.next_column().unwrap().unwrap();
    let values: Vec<ByteArray> = texts.iter().flatten().map(|t| ByteArray::from(t.as_str())).collect();
    let levels: Vec<i16> = texts.iter().map(|t| i16::from(t.is_some())).collect();
    column.typed::<ByteArrayType>().write_batch(&values, Some(&levels), None).unwrap();
    column.close().unwrap();
    group.close().unwrap();
    writer.close().unwrap();

    let run = tessera(tmp.path(), &["dedup", "data.parquet", "--text-field", "body", "--id-field", "key"]);
    // The null text is skipped and named by its row, which makes exit code 3.
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert!(run.stderr.contains("data.parquet:4"), "{}", run.stderr);
    let lines: Vec<Value> = run.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let pairs: Vec<(&str, &str, bool)> = lines
        .iter()
        .map(|l| (l["id"].as_str().unwrap(), l["cluster"].as_str().unwrap(), l["kept"].as_bool().unwrap()))
        .collect();
    assert_eq!(pairs, [("10", "10", true), ("20", "20", true), ("30", "10", false)]);
}
