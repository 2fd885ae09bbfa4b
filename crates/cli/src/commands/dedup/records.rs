//! The record inputs of `tessera dedup`: JSONL lines and Parquet rows (files and folders
//! go to the engine's deduplicator as paths).

use std::path::PathBuf;

use anyhow::{Result, bail};
use serde_json::Value;

use super::DedupArgs;

/// A JSONL or Parquet record: an id and a text.
pub(super) struct Record {
    pub(super) id: String,
    pub(super) text: String,
}

/// The Parquet file to read, if the input is one (a single `.parquet` file).
pub(super) fn parquet_input(args: &DedupArgs) -> Option<PathBuf> {
    match args.inputs.as_slice() {
        [path] if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("parquet")) && path.is_file() => {
            Some(path.clone())
        }
        _ => None,
    }
}

/// The JSONL file to read, if the input is one.
pub(super) fn jsonl_input(args: &DedupArgs) -> Result<Option<PathBuf>> {
    let [path] = args.inputs.as_slice() else {
        if args.text_field.is_some() || args.id_field.is_some() {
            bail!("--text-field and --id-field take exactly one JSONL file");
        }
        return Ok(None);
    };
    let meta = fs_err::metadata(path)?;
    let by_name = matches!(path.extension().and_then(|e| e.to_str()), Some("jsonl" | "ndjson"));
    if meta.is_file() && (by_name || args.text_field.is_some()) {
        return Ok(Some(path.clone()));
    }
    if args.text_field.is_some() || args.id_field.is_some() {
        bail!("--text-field and --id-field take a JSONL file, and {} is a folder", path.display());
    }
    Ok(None)
}

pub(super) fn parse_record(
    line: &str,
    line_no: u64,
    text_field: &str,
    id_field: Option<&str>,
) -> Result<Record, String> {
    let value: Value = serde_json::from_str(line).map_err(|e| format!("not a JSON line: {e}"))?;
    let text = match value.get(text_field) {
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Err(format!("field {text_field:?} is not a string")),
        None => return Err(format!("no field {text_field:?}")),
    };
    let id = match id_field {
        None => line_no.to_string(),
        Some(f) => match value.get(f) {
            Some(Value::String(s)) => s.clone(),
            Some(v @ Value::Number(_)) => v.to_string(),
            Some(_) => return Err(format!("field {f:?} is not a string or number")),
            None => return Err(format!("no field {f:?}")),
        },
    };
    Ok(Record { id, text })
}
