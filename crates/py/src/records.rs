//! The engine's rules for dedup inputs (`tessera_engine::records`) that the Spark job
//! needs where it reads its inputs itself: the format a file name says, and the early
//! check that the first records have the fields named.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use tessera_engine::dedup_defaults as d;
use tessera_engine::records::{RecordFields, RecordFormat, check_jsonl_sample};

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
/// `text_field` (or `id_field`) or none reads as a record.
#[pyfunction]
#[pyo3(signature = (name, lines, text_field = d::TEXT_FIELD, id_field = None))]
pub(crate) fn check_jsonl_fields(
    name: &str,
    lines: Vec<String>,
    text_field: &str,
    id_field: Option<&str>,
) -> PyResult<()> {
    let fields = RecordFields::new(Some(text_field), id_field);
    check_jsonl_sample(name, lines.iter().map(|l| l.as_bytes()), &fields)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}
