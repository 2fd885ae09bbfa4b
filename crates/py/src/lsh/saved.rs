//! What `save` writes and `load` reads: the store and keys files' names and format, keys
//! as JSON, and the file helpers.

use std::path::Path;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyString};

use crate::errors::TesseraError;

/// The sketch store's file inside a saved LSH directory.
pub(crate) const STORE_FILE: &str = "NEAR";
/// The keys' file inside a saved LSH directory.
pub(crate) const KEYS_FILE: &str = "keys.json";
/// `format` of the keys file.
pub(crate) const KEYS_FORMAT: &str = "tessera.MinHashLSH";
/// `version` of the keys file this build reads and writes.
pub(crate) const KEYS_VERSION: u64 = 1;

/// A key as JSON: a str or an int, nothing else (no pickle in a saved file).
pub(crate) fn key_json(key: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    if let Ok(s) = key.cast::<PyString>() {
        return Ok(serde_json::Value::String(s.to_cow()?.into_owned()));
    }
    if key.is_instance_of::<PyInt>() && !key.is_instance_of::<PyBool>() {
        if let Ok(v) = key.extract::<i64>() {
            return Ok(v.into());
        }
        if let Ok(v) = key.extract::<u64>() {
            return Ok(v.into());
        }
    }
    let ty = key.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    Err(PyTypeError::new_err(format!(
        "save writes keys that are str or int (64-bit), and key {} is {ty}",
        key.repr().map(|r| r.to_string()).unwrap_or_default()
    )))
}

pub(crate) fn io_error(path: &Path, e: std::io::Error) -> PyErr {
    TesseraError::new_err(format!("{}: {e}", path.display()))
}

pub(crate) fn corrupt(path: &Path, reason: impl std::fmt::Display) -> PyErr {
    TesseraError::new_err(format!("{}: corrupt: {reason}", path.display()))
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, synced, renamed.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> PyResult<()> {
    use std::io::Write;
    let tmp = path.with_extension(format!("json.tmp.{}", std::process::id()));
    let mut f = std::fs::File::create(&tmp).map_err(|e| io_error(&tmp, e))?;
    f.write_all(bytes).and_then(|()| f.sync_all()).map_err(|e| io_error(&tmp, e))?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(|e| io_error(path, e))
}
