//! What the LSH stores under a basename: the Redis key names (`Names`), keys encoded as
//! stored and decoded back, and the `B:keys` record of a key (its id and band keys).

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyInt, PyString};

use crate::errors::TesseraError;

/// The Redis key names of one basename.
pub(crate) struct Names {
    pub(crate) params: Vec<u8>,
    pub(crate) seed: Vec<u8>,
    pub(crate) next: Vec<u8>,
    pub(crate) keys: Vec<u8>,
    pub(crate) ids: Vec<u8>,
    bucket: Vec<u8>,
}

impl Names {
    pub(crate) fn new(base: &[u8]) -> Self {
        let name = |suffix: &str| [base, suffix.as_bytes()].concat();
        Self {
            params: name(":params"),
            seed: name(":seed"),
            next: name(":next"),
            keys: name(":keys"),
            ids: name(":ids"),
            bucket: name(":b"),
        }
    }

    /// The set of band `band`'s bucket `key` (`bands` fit in 2 bytes: checked at open).
    pub(crate) fn bucket(&self, band: usize, key: u64) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bucket.len() + 10);
        out.extend_from_slice(&self.bucket);
        out.extend_from_slice(&(band as u16).to_be_bytes());
        out.extend_from_slice(&key.to_be_bytes());
        out
    }
}

/// A key as stored: a type tag and its bytes (see the parent module's docs); with `prepickle`,
/// `p` and the key's pickle (protocol 4: the same bytes from every Python 3.8+).
pub(crate) fn encode_key(key: &Bound<'_, PyAny>, prepickle: bool) -> PyResult<Vec<u8>> {
    if prepickle {
        let pickled = key.py().import("pickle")?.call_method1("dumps", (key, 4))?;
        return Ok([b"p", pickled.cast::<PyBytes>()?.as_bytes()].concat());
    }
    if let Ok(s) = key.cast::<PyString>() {
        let s = s.to_cow()?;
        return Ok([b"s", s.as_bytes()].concat());
    }
    if let Ok(b) = key.cast::<PyBytes>() {
        return Ok([b"b", b.as_bytes()].concat());
    }
    if key.is_instance_of::<PyInt>() && !key.is_instance_of::<PyBool>() {
        let digits = key.str()?;
        return Ok([b"i", digits.to_cow()?.as_bytes()].concat());
    }
    let ty = key.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    Err(PyTypeError::new_err(format!(
        "a Redis-backed MinHashLSH keeps str, bytes or int keys (prepickle=True: any picklable key), and key {} is {ty}",
        key.repr().map(|r| r.to_string()).unwrap_or_default()
    )))
}

/// The Python key of a stored key.
pub(crate) fn decode_key<'py>(py: Python<'py>, stored: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    let corrupt = || TesseraError::new_err(format!("redis: stored key {:?} has no known type tag", stored));
    let (&tag, rest) = stored.split_first().ok_or_else(corrupt)?;
    match tag {
        b's' => Ok(PyString::new(py, std::str::from_utf8(rest).map_err(|_| corrupt())?).into_any()),
        b'b' => Ok(PyBytes::new(py, rest).into_any()),
        b'i' => {
            let digits = std::str::from_utf8(rest).map_err(|_| corrupt())?;
            match digits.parse::<i64>() {
                Ok(v) => Ok(v.into_pyobject(py)?.into_any()),
                // Wider than 64 bits: Python's own parser.
                Err(_) => py.get_type::<PyInt>().call1((digits,)),
            }
        }
        b'p' => py.import("pickle")?.call_method1("loads", (PyBytes::new(py, rest),)),
        _ => Err(corrupt()),
    }
}

/// One key ready to insert: its stored form and its band keys (none for an empty
/// signature, which is stored but shares no bucket, as in memory).
pub(crate) struct Entry {
    pub(crate) key: Vec<u8>,
    pub(crate) bands: Vec<u64>,
}

/// A `B:keys` record: `"<id>:"` and the band keys, 8 bytes big-endian each.
pub(crate) fn parse_record(record: &[u8]) -> Option<(u64, Vec<u64>)> {
    let colon = record.iter().position(|&b| b == b':')?;
    let id = std::str::from_utf8(&record[..colon]).ok()?.parse().ok()?;
    let packed = &record[colon + 1..];
    if !packed.len().is_multiple_of(8) {
        return None;
    }
    let bands = packed.chunks_exact(8).map(|c| u64::from_be_bytes(c.try_into().expect("8 bytes"))).collect();
    Some((id, bands))
}
