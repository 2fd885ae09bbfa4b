//! Whole runs of `tessera dedup` on the demo texts and near-copies of them, in a
//! temporary directory (relative paths, so outputs hold no temporary paths). Snapshots in
//! `tests/snapshots/`; regenerate with `INSTA_UPDATE=always cargo test -p tessera-cli`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};

use insta::assert_snapshot;
use serde_json::Value;
use support::{Run, run as tessera, run_stdin as tessera_stdin};

mod support;

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
fn a_missing_input_is_named_plainly() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tessera(tmp.path(), &["dedup", "missing.jsonl"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert_eq!(run.stderr.trim(), "error: no such file: missing.jsonl");
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

/// Writes a Parquet file of `key` (int64) and `body` (optional string) columns.
#[cfg(feature = "parquet")]
fn write_parquet(path: &Path, compression: parquet::basic::Compression, keys: &[i64], texts: &[Option<String>]) {
    use std::sync::Arc;

    use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;

    let schema =
        Arc::new(parse_message_type("message docs { required int64 key; optional binary body (UTF8); }").unwrap());
    let props = Arc::new(WriterProperties::builder().set_compression(compression).build());
    let file = fs::File::create(path).unwrap();
    let mut writer = SerializedFileWriter::new(file, schema, props).unwrap();
    let mut group = writer.next_row_group().unwrap();
    let mut column = group.next_column().unwrap().unwrap();
    column.typed::<Int64Type>().write_batch(keys, None, None).unwrap();
    column.close().unwrap();
    let mut column = group.next_column().unwrap().unwrap();
    let values: Vec<ByteArray> = texts.iter().flatten().map(|t| ByteArray::from(t.as_str())).collect();
    let levels: Vec<i16> = texts.iter().map(|t| i16::from(t.is_some())).collect();
    column.typed::<ByteArrayType>().write_batch(&values, Some(&levels), None).unwrap();
    column.close().unwrap();
    group.close().unwrap();
    writer.close().unwrap();
}

/// The `key` column of a Parquet file, row by row (the rows written back).
#[cfg(feature = "parquet")]
fn parquet_keys(path: &Path) -> Vec<(i64, bool)> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;
    let reader = SerializedFileReader::new(fs::File::open(path).unwrap()).unwrap();
    reader
        .get_row_iter(None)
        .unwrap()
        .map(|row| {
            let row = row.unwrap();
            let fields: Vec<&Field> = row.get_column_iter().map(|(_, f)| f).collect();
            let Field::Long(key) = fields[0] else { panic!("{row:?}") };
            (*key, matches!(fields[1], Field::Str(_)))
        })
        .collect()
}

/// A Parquet file (Snappy, as pyarrow writes by default; zstd, as many datasets are): one
/// document per row, the id and text columns named by the flags, a null text skipped and
/// named by its row; the kept and removed rows written back as Parquet.
#[cfg(feature = "parquet")]
#[test]
fn parquet_rows_are_documents() {
    use parquet::basic::{Compression, ZstdLevel};

    let tmp = tempfile::tempdir().unwrap();
    let (press, bees) = (demo("printing-press.txt"), demo("honey-bees.txt"));
    let texts = [Some(press.clone()), Some(bees), Some(edit(&press, 50)), None];
    write_parquet(&tmp.path().join("data.parquet"), Compression::SNAPPY, &[10, 20, 30, 40], &texts);
    write_parquet(&tmp.path().join("zstd.parquet"), Compression::ZSTD(ZstdLevel::default()), &[10, 20, 30, 40], &texts);

    for file in ["data.parquet", "zstd.parquet"] {
        let run = tessera(tmp.path(), &["dedup", file, "--text-field", "body", "--id-field", "key"]);
        // The null text is skipped and named by its row, which makes exit code 3.
        assert_eq!(run.code, Some(3), "{}", run.stderr);
        assert!(run.stderr.contains(&format!("{file}:4")), "{}", run.stderr);
        let lines: Vec<Value> = run.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let pairs: Vec<(&str, &str, bool)> = lines
            .iter()
            .map(|l| (l["id"].as_str().unwrap(), l["cluster"].as_str().unwrap(), l["kept"].as_bool().unwrap()))
            .collect();
        assert_eq!(pairs, [("10", "10", true), ("20", "20", true), ("30", "10", false)], "{file}");
    }

    // Written back: the kept rows and the removed ones, with every column; the row
    // without a text in neither. Two inputs write one file each way.
    let run = tessera(
        tmp.path(),
        &[
            "dedup",
            "data.parquet",
            "zstd.parquet",
            "--text-field",
            "body",
            "--id-field",
            "key",
            "--write-kept",
            "kept.parquet",
            "--write-removed",
            "removed.parquet",
        ],
    );
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert_eq!(parquet_keys(&tmp.path().join("kept.parquet")), [(10, true), (20, true)]);
    assert_eq!(parquet_keys(&tmp.path().join("removed.parquet")), [(30, true), (10, true), (20, true), (30, true)]);

    // Inputs of other columns cannot share one output.
    let other = tmp.path().join("other.jsonl");
    fs::write(&other, "{\"body\": \"x\"}\n").unwrap();
    let run =
        tessera(tmp.path(), &["dedup", "data.parquet", "other.jsonl", "--text-field", "body", "--write-kept", "k"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stderr.contains("write the input's format"), "{}", run.stderr);
}

fn json_lines(run: &Run) -> Vec<(String, String, bool)> {
    run.stdout
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (
                v["id"].as_str().unwrap().to_owned(),
                v["cluster"].as_str().unwrap().to_owned(),
                v["kept"].as_bool().unwrap(),
            )
        })
        .collect()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

fn triple(id: &str, cluster: &str, kept: bool) -> (String, String, bool) {
    (id.to_owned(), cluster.to_owned(), kept)
}

/// Shards: plain, gzip and zstd (named so, or not), a pattern the shell did not expand,
/// standard input; ids `file:line`, unique across shards, in the order given.
#[test]
fn many_inputs_globs_stdin_and_compression() {
    let tmp = tempfile::tempdir().unwrap();
    let (press, bees, rivers) = (demo("printing-press.txt"), demo("honey-bees.txt"), demo("siberian-rivers.txt"));
    let line = |text: &str| serde_json::json!({"text": text}).to_string() + "\n";
    let data = tmp.path().join("data");
    fs::create_dir_all(&data).unwrap();
    fs::write(data.join("part-1.jsonl"), line(&press) + &line(&bees)).unwrap();
    fs::write(data.join("part-2.jsonl.gz"), gzip(line(&edit(&press, 100)).as_bytes())).unwrap();
    // Two zstd frames one after the other, as `cat a.zst b.zst` makes.
    let frame = |text: &str| {
        ruzstd::encoding::compress_to_vec(line(text).as_bytes(), ruzstd::encoding::CompressionLevel::Fastest)
    };
    let zst = [frame(&rivers), frame(&bees)].concat();
    fs::write(data.join("part-3.jsonl.zst"), zst).unwrap();
    // Compressed JSONL under a name that says nothing: recognised by content.
    fs::write(tmp.path().join("shard.bin"), gzip(line(&rivers).as_bytes())).unwrap();

    let run = tessera(tmp.path(), &["dedup", "data/part-*", "shard.bin"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        json_lines(&run),
        [
            triple("data/part-1.jsonl:1", "data/part-1.jsonl:1", true),
            triple("data/part-1.jsonl:2", "data/part-1.jsonl:2", true),
            triple("data/part-2.jsonl.gz:1", "data/part-1.jsonl:1", false),
            triple("data/part-3.jsonl.zst:1", "data/part-3.jsonl.zst:1", true),
            triple("data/part-3.jsonl.zst:2", "data/part-1.jsonl:2", false),
            triple("shard.bin:1", "data/part-3.jsonl.zst:1", false),
        ]
    );
    assert!(run.stderr.starts_with("6 documents, 3 clusters, 3 duplicates removed"), "{}", run.stderr);

    // Standard input between two files.
    let input = gzip((line(&press) + &line(&rivers)).as_bytes());
    let args = ["dedup", "data/part-2.jsonl.gz", "-", "shard.bin", "--write-removed", "removed.jsonl"];
    let run = tessera_stdin(tmp.path(), &args, &input);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        json_lines(&run),
        [
            triple("data/part-2.jsonl.gz:1", "data/part-2.jsonl.gz:1", true),
            triple("-:1", "data/part-2.jsonl.gz:1", false),
            triple("-:2", "-:2", true),
            triple("shard.bin:1", "-:2", false),
        ]
    );
    // The removed records: standard input's, then the file's (read again).
    assert_eq!(fs::read_to_string(tmp.path().join("removed.jsonl")).unwrap(), line(&press) + &line(&rivers));

    // A folder of shards is its record files, in order.
    let folder = tessera(tmp.path(), &["dedup", "data"]);
    assert_eq!(folder.code, Some(0), "{}", folder.stderr);
    let shards = tessera(tmp.path(), &["dedup", "data/part-*"]);
    assert_eq!(folder.stdout, shards.stdout);
    assert!(folder.stdout.contains("data/part-3.jsonl.zst:2"), "{}", folder.stdout);
    // A folder of records and documents is refused.
    fs::write(data.join("notes.txt"), "a document").unwrap();
    let run = tessera(tmp.path(), &["dedup", "data"]);
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr.contains("data holds records (data/part-1.jsonl) and documents (data/notes.txt)"),
        "{}",
        run.stderr
    );

    // A pattern that matches nothing, and `-` twice.
    let run = tessera(tmp.path(), &["dedup", "data/nothing-*.jsonl"]);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("no file matches data/nothing-*.jsonl"), "{}", run.stderr);
    let run = tessera(tmp.path(), &["dedup", "-", "-"]);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("can be given once"), "{}", run.stderr);
}

/// A frame made by the zstd command-line tool (level 19: compressed blocks), and
/// `--id-field` ids used as given across inputs.
#[test]
fn zstd_from_the_command_line_tool_and_ids_as_given() {
    let fixture = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/dedup/tiny.jsonl.zst");
    let tmp = tempfile::tempdir().unwrap();
    fs::copy(&fixture, tmp.path().join("tiny.jsonl.zst")).unwrap();
    fs::write(tmp.path().join("more.jsonl"), "{\"id\":\"d\",\"text\":\"something else entirely, other words\"}\n")
        .unwrap();
    let run = tessera(tmp.path(), &["dedup", "tiny.jsonl.zst", "more.jsonl", "--id-field", "id"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        json_lines(&run),
        [triple("a", "a", true), triple("b", "a", false), triple("c", "c", true), triple("d", "c", false)]
    );
}

/// Two JSONL files without `--text-field` are records, not two documents; so is one CSV;
/// a `.txt` holding JSON lines too.
#[test]
fn records_are_recognised_by_name_and_content() {
    let tmp = tempfile::tempdir().unwrap();
    let (press, bees) = (demo("printing-press.txt"), demo("honey-bees.txt"));
    let line = |text: &str| serde_json::json!({"text": text}).to_string() + "\n";
    fs::write(tmp.path().join("a.jsonl"), line(&press) + &line(&bees)).unwrap();
    fs::write(tmp.path().join("b.ndjson"), line(&press)).unwrap();
    fs::write(tmp.path().join("c.txt"), line(&bees)).unwrap();
    let run = tessera(tmp.path(), &["dedup", "a.jsonl", "b.ndjson", "c.txt"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        json_lines(&run),
        [
            triple("a.jsonl:1", "a.jsonl:1", true),
            triple("a.jsonl:2", "a.jsonl:2", true),
            triple("b.ndjson:1", "a.jsonl:1", false),
            triple("c.txt:1", "a.jsonl:2", false),
        ]
    );
    // One JSONL file keeps the line number as its default id, as before.
    let run = tessera(tmp.path(), &["dedup", "a.jsonl"]);
    assert_eq!(json_lines(&run), [triple("1", "1", true), triple("2", "2", true)]);

    let mut csv = String::from("id,text\n");
    for (id, text) in [("p", &press), ("b", &bees), ("p2", &press)] {
        csv += &format!("{id},\"{}\"\n", text.replace('"', "\"\""));
    }
    fs::write(tmp.path().join("d.csv"), csv).unwrap();
    let run = tessera(tmp.path(), &["dedup", "d.csv"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // Default ids of CSV rows: the line each record starts on (these texts span lines).
    let second = 3 + press.matches('\n').count();
    let third = (second + 1 + bees.matches('\n').count()).to_string();
    let second = second.to_string();
    assert_eq!(json_lines(&run), [triple("2", "2", true), triple(&second, &second, true), triple(&third, "2", false)]);
}

/// `--write-kept` and `--write-removed`: the input records with their bytes unchanged,
/// CSV with its header (CRLF lines, a quoted text over several lines), TSV, JSONL.
#[test]
fn kept_and_removed_records_are_written_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    let (press, bees) = (demo("printing-press.txt"), demo("honey-bees.txt"));
    let quoted = |t: &str| format!("\"{}\"", t.replace('"', "\"\""));
    let header = "key,lang,body\r\n";
    let rows = [
        format!("k1,en,{}\r\n", quoted(&press)),
        format!("k2,en,{}\r\n", quoted(&bees)),
        format!("k3,en,{}\r\n", quoted(&edit(&press, 100))),
        format!("k4,en,{}", quoted(&bees)),
    ];
    fs::write(tmp.path().join("a.csv"), format!("{header}{}", rows.concat())).unwrap();
    let run = tessera(
        tmp.path(),
        &[
            "dedup",
            "a.csv",
            "--text-field",
            "body",
            "--id-field",
            "key",
            "--write-kept",
            "k.csv",
            "--write-removed",
            "r.csv",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        json_lines(&run),
        [triple("k1", "k1", true), triple("k2", "k2", true), triple("k3", "k1", false), triple("k4", "k2", false)]
    );
    assert_eq!(fs::read_to_string(tmp.path().join("k.csv")).unwrap(), format!("{header}{}{}", rows[0], rows[1]));
    // The last record had no line end: it gets one.
    assert_eq!(fs::read_to_string(tmp.path().join("r.csv")).unwrap(), format!("{header}{}{}\n", rows[2], rows[3]));

    // TSV, gzip-compressed, with only the removed records written.
    let tsv = format!("text\tn\n{}\t1\n{}\t2\n", press.replace(['\n', '\t'], " "), press.replace(['\n', '\t'], " "));
    fs::write(tmp.path().join("b.tsv.gz"), gzip(tsv.as_bytes())).unwrap();
    let run = tessera(tmp.path(), &["dedup", "b.tsv.gz", "--write-removed", "r.tsv"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let second = tsv.lines().nth(2).unwrap();
    assert_eq!(fs::read_to_string(tmp.path().join("r.tsv")).unwrap(), format!("text\tn\n{second}\n"));

    // CSV on standard input: told by its header naming the text field.
    let csv = fs::read(tmp.path().join("a.csv")).unwrap();
    let run = tessera_stdin(tmp.path(), &["dedup", "-", "--text-field", "body", "--write-kept", "k2.csv"], &csv);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(fs::read_to_string(tmp.path().join("k2.csv")).unwrap(), format!("{header}{}{}", rows[0], rows[1]));

    // JSONL from two shards: the lines as they were, blank lines dropped.
    let a = format!("{}\n\n{}\n", serde_json::json!({"text": press, "x": 1}), serde_json::json!({"text": bees}));
    let b = format!("{}\n", serde_json::json!({ "x": 2,   "text": press}));
    fs::write(tmp.path().join("a.jsonl"), &a).unwrap();
    fs::write(tmp.path().join("b.jsonl"), &b).unwrap();
    let run =
        tessera(tmp.path(), &["dedup", "a.jsonl", "b.jsonl", "--write-kept", "k.jsonl", "--write-removed", "r.jsonl"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(fs::read_to_string(tmp.path().join("k.jsonl")).unwrap(), a.replace("\n\n", "\n"));
    assert_eq!(fs::read_to_string(tmp.path().join("r.jsonl")).unwrap(), b);

    // Documents: the kept paths, one a line.
    corpus(tmp.path());
    let run = tessera(tmp.path(), &["dedup", "docs", "--write-kept", "kept.txt"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let kept: Vec<String> = json_lines(&run).into_iter().filter(|l| l.2).map(|l| l.0).collect();
    assert_eq!(fs::read_to_string(tmp.path().join("kept.txt")).unwrap(), kept.join("\n") + "\n");
    assert!(kept.len() >= 4 && kept.len() < 7, "{kept:?}");

    // Writing back needs one format.
    let run = tessera(tmp.path(), &["dedup", "a.jsonl", "a.csv", "--text-field", "body", "--write-kept", "x"]);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("a.jsonl is JSONL while a.csv is CSV"), "{}", run.stderr);
}

/// A wrong `--text-field` stops after a few records with one error naming the fields seen;
/// a CSV names its columns at once.
#[test]
fn a_wrong_field_is_one_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let lines: String = (0..1000)
        .map(|i| serde_json::json!({"id": i, "lang": "en", "text": format!("text number {i}")}).to_string() + "\n")
        .collect();
    fs::write(tmp.path().join("data.jsonl"), lines).unwrap();
    let run = tessera(tmp.path(), &["dedup", "data.jsonl", "--text-field", "body"]);
    assert_eq!(run.code, Some(1));
    assert_eq!(
        run.stderr.trim(),
        "error: no record has field body (the first 5 records of data.jsonl); fields seen: id, lang, text"
    );
    fs::write(tmp.path().join("two.jsonl"), "{\"text\":\"a\"}\n{\"text\":\"b\"}\n").unwrap();
    let run = tessera(tmp.path(), &["dedup", "two.jsonl", "--id-field", "key"]);
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr.contains("no record has fields text and key (the first 2 records of two.jsonl); fields seen: text"),
        "{}",
        run.stderr
    );

    // Once a record has the field, records without it are skipped, and the first 20 named.
    let some: String = std::iter::once("{\"text\": \"one text\"}\n".to_owned())
        .chain((0..30).map(|i| format!("{{\"body\": \"{i}\"}}\n")))
        .collect();
    fs::write(tmp.path().join("some.jsonl"), some).unwrap();
    let run = tessera(tmp.path(), &["dedup", "some.jsonl"]);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert_eq!(run.stderr.matches("skipped some.jsonl:").count(), 20, "{}", run.stderr);
    assert!(
        run.stderr.contains("skipped some.jsonl:21: no field \"text\"\n... and 10 more skipped\n"),
        "{}",
        run.stderr
    );

    fs::write(tmp.path().join("data.csv"), "id,lang,text\n1,en,hello\n").unwrap();
    let run = tessera(tmp.path(), &["dedup", "data.csv", "--text-field", "body"]);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("data.csv has no column body; columns: id, lang, text"), "{}", run.stderr);

    // Not records at all (a CSV piped in as if JSONL).
    let not_json: String = (0..10).map(|i| format!("{i},hello\n")).collect();
    fs::write(tmp.path().join("rows.jsonl"), not_json).unwrap();
    let run = tessera(tmp.path(), &["dedup", "rows.jsonl"]);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("rows.jsonl does not read as records: its first 5 records failed"), "{}", run.stderr);
}

/// Documents and records together are refused, so are summary formats that make no sense.
#[test]
fn mixed_inputs_and_html_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(tmp.path());
    fs::write(tmp.path().join("a.jsonl"), "{\"text\":\"a\"}\n").unwrap();
    let run = tessera(tmp.path(), &["dedup", "docs", "a.jsonl"]);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("dedup takes documents or records, not both: docs holds documents"), "{}", run.stderr);
    let run = tessera(tmp.path(), &["dedup", "docs", "--format", "html"]);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("invalid value 'html'"), "{}", run.stderr);
    // A compressed file that holds no records.
    fs::write(tmp.path().join("book.txt.gz"), gzip(b"Chapter one. It was a dark night.")).unwrap();
    let run = tessera(tmp.path(), &["dedup", "book.txt.gz"]);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("book.txt.gz is compressed and holds no records"), "{}", run.stderr);
}

#[test]
fn signatures_are_written_and_agree_with_the_clusters() {
    let tmp = tempfile::tempdir().unwrap();
    let base = demo("printing-press.txt");
    let other = demo("honey-bees.txt");
    let lines = [
        serde_json::json!({"id": "a", "text": base}),
        serde_json::json!({"id": "b", "text": other}),
        serde_json::json!({"id": "a-copy", "text": base}),
        serde_json::json!({"id": "a-edit", "text": edit(&base, 25)}),
        serde_json::json!({"id": "empty", "text": ""}),
    ];
    let jsonl: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(tmp.path().join("d.jsonl"), jsonl).unwrap();
    let run = tessera(
        tmp.path(),
        &[
            "dedup",
            "d.jsonl",
            "--id-field",
            "id",
            "--threshold",
            "0.5",
            "--verify",
            "estimate",
            "--write-signatures",
            "sig.jsonl",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let sigs: Vec<(String, Vec<u32>)> = fs::read_to_string(tmp.path().join("sig.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let sig = v["minhash"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect();
            (v["id"].as_str().unwrap().to_owned(), sig)
        })
        .collect();
    let ids: Vec<&str> = sigs.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(ids, ["a", "b", "a-copy", "a-edit", "empty"]);
    assert!(sigs.iter().all(|s| s.1.len() == 128));
    assert_eq!(sigs[0].1, sigs[2].1, "copies have one signature");
    assert_ne!(sigs[0].1, sigs[1].1);
    assert!(sigs[4].1.iter().all(|&v| v == u32::MAX), "an empty text has the empty signature");
    // The similarity printed for the edited copy is the signatures' estimate.
    let agree = sigs[0].1.iter().zip(&sigs[3].1).filter(|(x, y)| x == y).count() as f64 / 128.0;
    let edited: Value = serde_json::from_str(run.stdout.lines().nth(3).unwrap()).unwrap();
    assert_eq!(edited["cluster"], "a");
    assert!((edited["similarity"].as_f64().unwrap() - agree).abs() < 1e-4, "{edited} vs {agree}");

    let small = tessera(tmp.path(), &["dedup", "d.jsonl", "--num-perm", "64", "--write-signatures", "s64.jsonl"]);
    assert_eq!(small.code, Some(0), "{}", small.stderr);
    let first: Value =
        serde_json::from_str(fs::read_to_string(tmp.path().join("s64.jsonl")).unwrap().lines().next().unwrap())
            .unwrap();
    assert_eq!(first["minhash"].as_array().unwrap().len(), 64);

    let simhash = tessera(tmp.path(), &["dedup", "d.jsonl", "--method", "simhash", "--write-signatures", "x.jsonl"]);
    assert_ne!(simhash.code, Some(0));
    assert!(simhash.stderr.contains("--write-signatures writes MinHash signatures"), "{}", simhash.stderr);
}

/// Hostile records (issue 52): a gzip of a line of zeros far over the record cap is one
/// failed record, named with its line, the run goes on (exit 3) and the records around
/// it are deduplicated; a CSV quote never closed fails its record and ends its file; `-o -`
/// is standard output, not a file named `-`.
#[test]
fn records_over_the_cap_fail_by_themselves() {
    let tmp = tempfile::tempdir().unwrap();
    let press = demo("printing-press.txt");
    let mut data = serde_json::json!({"text": press}).to_string().into_bytes();
    data.push(b'\n');
    data.extend(std::iter::repeat_n(b'0', 3_000_000));
    data.push(b'\n');
    data.extend(serde_json::json!({"text": edit(&press, 50)}).to_string().into_bytes());
    fs::write(tmp.path().join("bomb.jsonl.gz"), gzip(&data)).unwrap();
    let run = tessera(tmp.path(), &["dedup", "bomb.jsonl.gz", "--max-record-bytes", "1000000", "-o", "-"]);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert!(
        run.stderr.contains("bomb.jsonl.gz:2: a line of 3000001 bytes, over the limit of 1000000"),
        "{}",
        run.stderr
    );
    assert_eq!(json_lines(&run), [triple("1", "1", true), triple("3", "1", false)]);
    assert!(!tmp.path().join("-").exists(), "-o - wrote a file named -");

    let mut csv = format!("id,text\n0,{}\n", press.replace(['\n', ',', '"'], " ")).into_bytes();
    csv.extend_from_slice(b"1,\"a quote that is never closed\n");
    for i in 0..5_000 {
        csv.extend_from_slice(format!("{i},another line of the file\n").as_bytes());
    }
    fs::write(tmp.path().join("open.csv"), csv).unwrap();
    let run = tessera(tmp.path(), &["dedup", "open.csv", "--id-field", "id", "--max-record-bytes", "10000"]);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert!(run.stderr.contains("open.csv:3: a record running past 10000 bytes from line 3"), "{}", run.stderr);
    assert_eq!(json_lines(&run), [triple("0", "0", true)]);
}

/// `--method exact`: texts equal but for whitespace are one cluster, the first kept; the
/// kept records are written back unchanged.
#[test]
fn exact_method_keeps_the_first_of_identical_texts() {
    let tmp = tempfile::tempdir().unwrap();
    let press = demo("printing-press.txt");
    let lines = [
        serde_json::json!({"text": press}),
        serde_json::json!({"text": format!("  {}\r\n", press.replace(' ', "  "))}),
        serde_json::json!({"text": press.to_uppercase()}),
    ];
    let data: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(tmp.path().join("d.jsonl"), &data).unwrap();
    let run = tessera(tmp.path(), &["dedup", "d.jsonl", "--method", "exact", "--write-kept", "kept.jsonl"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(json_lines(&run), [triple("1", "1", true), triple("2", "1", false), triple("3", "3", true)]);
    assert!(run.stderr.contains("3 documents, 2 clusters, 1 duplicates removed (exact)"), "{}", run.stderr);
    let kept = fs::read_to_string(tmp.path().join("kept.jsonl")).unwrap();
    let want: Vec<&str> = data.lines().collect();
    assert_eq!(kept, format!("{}\n{}\n", want[0], want[2]));
}

/// `--method lines`: lines an earlier record had are removed from later ones, in every
/// record format; the kept records are written back without them (other fields as they
/// were), a record left with nothing goes to `--write-removed`.
#[test]
fn lines_method_writes_records_back_without_their_boilerplate() {
    let tmp = tempfile::tempdir().unwrap();
    let menu = "Home | News | Contact";
    let notice = "This site uses cookies to improve your experience.";
    let texts = [
        format!("{menu}\nFirst story about the harbour.\n\n{notice}\n"),
        format!("{menu}\nSecond story about the railway.\n{notice}"),
        format!("{menu}\n{notice}\n"),
    ];
    let jsonl: String = texts
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{}\n", serde_json::json!({"id": i, "text": t, "n": [i]})))
        .collect();
    fs::write(tmp.path().join("d.jsonl"), jsonl).unwrap();
    let run = tessera(
        tmp.path(),
        &[
            "dedup",
            "d.jsonl",
            "--method",
            "lines",
            "--id-field",
            "id",
            "--write-kept",
            "k.jsonl",
            "--write-removed",
            "r.jsonl",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let out: Vec<Value> = run.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(out[0]["removed_lines"], Value::Null, "nothing removed: no field");
    assert_eq!(out[1]["removed_lines"], serde_json::json!([0, 2]));
    assert_eq!(out[2]["removed_lines"], serde_json::json!([0, 1]));
    let kept: Vec<bool> = out.iter().map(|l| l["kept"].as_bool().unwrap()).collect();
    assert_eq!(kept, [true, true, false]);
    assert!(run.stderr.contains("lines, 4 lines removed"), "{}", run.stderr);
    let k: Vec<Value> = fs::read_to_string(tmp.path().join("k.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(k.len(), 2);
    assert_eq!(k[0]["text"], texts[0]);
    assert_eq!(k[1], serde_json::json!({"id": 1, "text": "Second story about the railway.\n", "n": [1]}));
    let r = fs::read_to_string(tmp.path().join("r.jsonl")).unwrap();
    assert_eq!(serde_json::from_str::<Value>(r.trim()).unwrap()["id"], 2, "the emptied record, unchanged");

    // CSV: the text column rewritten and quoted, the other columns as they were.
    let quoted = |t: &str| format!("\"{}\"", t.replace('"', "\"\""));
    let csv: String = std::iter::once("key,body,lang\n".to_owned())
        .chain(texts.iter().enumerate().map(|(i, t)| format!("k{i},{},en\n", quoted(t))))
        .collect();
    fs::write(tmp.path().join("d.csv"), csv).unwrap();
    let run =
        tessera(tmp.path(), &["dedup", "d.csv", "--method", "lines", "--text-field", "body", "--write-kept", "k.csv"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let k = fs::read_to_string(tmp.path().join("k.csv")).unwrap();
    assert_eq!(k, format!("key,body,lang\nk0,{},en\nk1,\"Second story about the railway.\n\",en\n", quoted(&texts[0])));
}

/// Parquet records of `--method lines`: the text column of a kept row without its removed
/// lines, every other column as read.
#[cfg(feature = "parquet")]
#[test]
fn lines_method_rewrites_parquet_text_columns() {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;

    let tmp = tempfile::tempdir().unwrap();
    let texts = [
        Some("Menu line\nOwn text one.\n".to_owned()),
        Some("Menu line\nOwn text two.\n".to_owned()),
        Some("Menu line\n".to_owned()),
    ];
    write_parquet(&tmp.path().join("d.parquet"), parquet::basic::Compression::SNAPPY, &[1, 2, 3], &texts);
    let run = tessera(
        tmp.path(),
        &["dedup", "d.parquet", "--method", "lines", "--text-field", "body", "--write-kept", "k.parquet"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let reader = SerializedFileReader::new(fs::File::open(tmp.path().join("k.parquet")).unwrap()).unwrap();
    let rows: Vec<(i64, String)> = reader
        .get_row_iter(None)
        .unwrap()
        .map(|row| {
            let row = row.unwrap();
            let fields: Vec<&Field> = row.get_column_iter().map(|(_, f)| f).collect();
            let (Field::Long(key), Field::Str(text)) = (fields[0], fields[1]) else { panic!("{row:?}") };
            (*key, text.clone())
        })
        .collect();
    assert_eq!(rows, [(1, "Menu line\nOwn text one.\n".to_owned()), (2, "Own text two.\n".to_owned())]);
}
