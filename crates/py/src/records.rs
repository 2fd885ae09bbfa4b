//! The engine's rules for dedup inputs (`tessera_engine::records`) that the Spark job
//! needs where it reads its inputs itself: the format a file name says, the order of the
//! files and their default ids, the types of a Parquet input's columns, and the early
//! check that the first records have the fields named.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use tessera_engine::dedup_defaults as d;
use tessera_engine::records::{RecordFields, RecordFormat, check_jsonl_sample, record_id};

/// The record format a file name (or path, or URI) says, as `tessera dedup` reads it:
/// "jsonl" (`.jsonl`, `.ndjson`), "csv", "tsv" or "parquet", looking under `.gz`, `.zst`
/// and `.zstd`; None for another name.
#[pyfunction]
pub(crate) fn record_format(name: &str) -> Option<&'static str> {
    RecordFormat::by_name(name).map(|f| match f {
        RecordFormat::Jsonl => "jsonl",
        RecordFormat::Delimited(b'\t') => "tsv",
        RecordFormat::Delimited(_) => "csv",
        RecordFormat::Parquet => "parquet",
    })
}

/// Checks the first lines (str) of a JSONL input named `name` as `tessera dedup` checks
/// an input's first records: ValueError, with the command's message, when they all miss
/// `text_field` (or `id_field`) or none reads as a record; and, with `order_field` (the
/// Spark job's order column), when no JSON object among them has it.
#[pyfunction]
#[pyo3(signature = (name, lines, text_field = d::TEXT_FIELD, id_field = None, order_field = None))]
pub(crate) fn check_jsonl_fields(
    name: &str,
    lines: Vec<String>,
    text_field: &str,
    id_field: Option<&str>,
    order_field: Option<&str>,
) -> PyResult<()> {
    let fields = RecordFields::new(Some(text_field), id_field);
    check_jsonl_sample(name, lines.iter().map(|l| l.as_bytes()), &fields)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let Some(order) = order_field else { return Ok(()) };
    let objects: Vec<serde_json::Map<String, serde_json::Value>> =
        lines.iter().filter_map(|l| serde_json::from_str(l).ok()).collect();
    if objects.is_empty() || objects.iter().any(|o| o.contains_key(order)) {
        return Ok(());
    }
    let seen: std::collections::BTreeSet<&str> = objects.iter().flat_map(|o| o.keys().map(String::as_str)).collect();
    let seen = seen.into_iter().collect::<Vec<_>>().join(", ");
    Err(PyValueError::new_err(format!(
        "no record has field {order} (the first {} records); fields seen: {seen}",
        objects.len()
    )))
}

/// The formats a Spark reader takes for a name: the engine's ([`RecordFormat::by_name`])
/// of those the job reads (JSONL, Parquet), also under `.bz2` (Hadoop's codec) and for
/// `.json` lines.
fn spark_format(name: &str) -> Option<RecordFormat> {
    let lower = name.trim_end_matches('/').to_ascii_lowercase();
    let stem = [".gz", ".zst", ".zstd", ".bz2"].iter().find_map(|s| lower.strip_suffix(s)).unwrap_or(&lower);
    match RecordFormat::by_name(stem) {
        Some(f @ (RecordFormat::Jsonl | RecordFormat::Parquet)) => Some(f),
        Some(_) => None,
        None => stem.ends_with(".json").then_some(RecordFormat::Jsonl),
    }
}

/// A file URI as the path `tessera dedup` sorts a folder's files by (percent escapes
/// decoded); another scheme's URI as given.
fn path_key(uri: &str) -> String {
    let path = match uri.split_once(':') {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("file") => match rest.strip_prefix("//") {
            Some(authority_path) => authority_path.find('/').map_or("", |i| &authority_path[i..]),
            None => rest,
        },
        Some((scheme, _)) if !scheme.is_empty() && !scheme.contains('/') => return uri.to_owned(),
        _ => uri,
    };
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match (bytes[i], bytes.get(i + 1).copied().and_then(hex), bytes.get(i + 2).copied().and_then(hex)) {
            (b'%', Some(h), Some(l)) => {
                out.push(u8::try_from(h * 16 + l).unwrap_or_default());
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The one format of the Spark job's inputs, as `tessera dedup` tells it, for inputs
/// (files, folders, patterns) read by Spark: `format` ("jsonl" or "parquet") when given,
/// else what each name says ([`RecordFormat::by_name`], also under `.bz2`, and `.json`
/// lines), else (a local folder) the one format of its files. ValueError when an input's
/// format cannot be told, when they mix formats, and when several inputs that are not all
/// plain files take the default ids (`FILE:LINE` names files as given).
#[pyfunction]
#[pyo3(name = "_spark_input_format", signature = (inputs, format = None, default_ids = true))]
pub(crate) fn spark_input_format(
    inputs: Vec<String>,
    format: Option<&str>,
    default_ids: bool,
) -> PyResult<&'static str> {
    let err = |m: String| PyValueError::new_err(m);
    if inputs.is_empty() {
        return Err(err("no input".to_owned()));
    }
    let mut formats = std::collections::BTreeSet::new();
    for input in &inputs {
        let mut found = match format {
            Some(f) => spark_format(&format!("x.{f}")),
            None => spark_format(input),
        };
        let path = std::path::Path::new(input);
        if found.is_none() && format.is_none() && path.is_dir() {
            let mut of_files = std::collections::BTreeSet::new();
            let listing = |e: std::io::Error| err(format!("reading {input}: {e}"));
            for entry in std::fs::read_dir(path).map_err(listing)? {
                let name = entry.map_err(listing)?.file_name().to_string_lossy().into_owned();
                if !name.starts_with(['.', '_']) {
                    of_files.insert(spark_format(&name).map(RecordFormat::name));
                }
            }
            found = match (of_files.len(), of_files.pop_first()) {
                (1, Some(Some(one))) => spark_format(&format!("x.{}", one.to_ascii_lowercase())),
                _ => None,
            };
        }
        let Some(found) = found else {
            return Err(err(format!(
                "cannot tell the format of {input}: name it .parquet or .jsonl, or give --format"
            )));
        };
        formats.insert(found.name());
    }
    if formats.len() > 1 {
        return Err(err("inputs mix Parquet and JSONL; run dedup on each, or give them in one format".to_owned()));
    }
    let plain = |p: &String| std::path::Path::new(p).is_file() && !p.contains(['*', '?', '[']);
    if default_ids && inputs.len() > 1 && !inputs.iter().all(plain) {
        return Err(err(
            "several inputs with folders or patterns need --id-col: the default ids (FILE:LINE) name files as given"
                .to_owned(),
        ));
    }
    Ok(if formats.contains("Parquet") { "parquet" } else { "jsonl" })
}

/// The files of the Spark job's inputs in the order `tessera dedup` reads them: inputs in
/// the order given, the files `listed` for each (URIs, as Spark lists a folder or a
/// pattern) sorted by path. Returns each file's URI, the text its default ids start with
/// ([`record_id`]: `INPUT:` with several inputs, else nothing; the line number follows)
/// and its path (a file URI's path, percent escapes decoded; another URI as given).
/// ValueError for an input with no file and for a file given twice.
#[pyfunction]
#[pyo3(name = "_spark_input_files")]
pub(crate) fn spark_input_files(
    inputs: Vec<String>,
    listed: Vec<Vec<String>>,
) -> PyResult<Vec<(String, String, String)>> {
    let many = inputs.len() > 1;
    let mut seen = std::collections::HashSet::new();
    let mut files = Vec::new();
    for (input, mut uris) in inputs.iter().zip(listed) {
        if uris.is_empty() {
            return Err(PyValueError::new_err(format!("{input}: no file")));
        }
        uris.sort_by_cached_key(|u| path_key(u));
        let id = record_id(input, 0, many);
        let prefix = id.strip_suffix('0').unwrap_or(&id);
        for uri in uris {
            let path = path_key(&uri);
            if !seen.insert(uri.clone()) {
                return Err(PyValueError::new_err(format!("{path} is given twice")));
            }
            files.push((uri, prefix.to_owned(), path));
        }
    }
    Ok(files)
}

/// Checks that the columns of a Parquet input (`columns`: name and Spark type, as
/// `simpleString` writes it) have the types `tessera dedup` reads: a string (or UTF-8
/// bytes) text, a string or integer id, an integer order. ValueError naming the column.
#[pyfunction]
#[pyo3(name = "_check_record_columns", signature = (columns, text_field, id_field = None, order_field = None))]
pub(crate) fn check_record_columns(
    columns: Vec<(String, String)>,
    text_field: &str,
    id_field: Option<&str>,
    order_field: Option<&str>,
) -> PyResult<()> {
    const INTEGERS: [&str; 4] = ["tinyint", "smallint", "int", "bigint"];
    let wanted: [(Option<&str>, &[&str], &str); 3] = [
        (Some(text_field), &["string", "binary"], "a string"),
        (id_field, &["string", "tinyint", "smallint", "int", "bigint"], "a string or integer"),
        (order_field, &INTEGERS, "an integer"),
    ];
    let have = columns.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ");
    for (name, kinds, what) in wanted {
        let Some(name) = name else { continue };
        let Some((_, kind)) = columns.iter().find(|(n, _)| n == name) else {
            return Err(PyValueError::new_err(format!("the input has no column '{name}'; columns: {have}")));
        };
        if !kinds.contains(&kind.as_str()) {
            return Err(PyValueError::new_err(format!("column '{name}' is {kind}, not {what}")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spark_reads_jsonl_and_parquet_by_name() {
        assert_eq!(spark_format("a/part-0.jsonl.bz2"), Some(RecordFormat::Jsonl));
        assert_eq!(spark_format("a/part-0.JSON.gz"), Some(RecordFormat::Jsonl));
        assert_eq!(spark_format("data.parquet/"), Some(RecordFormat::Parquet));
        assert_eq!(spark_format("x.csv"), None);
        assert_eq!(spark_format("x.txt"), None);
    }

    #[test]
    fn file_uris_sort_by_their_paths() {
        assert_eq!(path_key("file:///data/a%20b.jsonl"), "/data/a b.jsonl");
        assert_eq!(path_key("file:/data/x.jsonl"), "/data/x.jsonl");
        assert_eq!(path_key("hdfs://nn/data/x.jsonl"), "hdfs://nn/data/x.jsonl");
        assert_eq!(path_key("/plain/path"), "/plain/path");
    }
}
