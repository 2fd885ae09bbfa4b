//! `tessera.SimHash` and `tessera.SimHashIndex`: 64-bit SimHash fingerprints and Manku's
//! permuted tables over them.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use tessera_engine::sketch::{Idf, SimhashTables, TableDesign, hamming, simhash, simhash_weighted};
use xxhash_rust::xxh3::xxh3_64;

use crate::{errors, settings};

/// A 64-bit SimHash (Charikar): near-identical feature sets have fingerprints a small
/// Hamming distance apart.
///
/// `SimHash(value)` takes:
/// - a str: a text, made into terms by Tessera's normalizer (the engine's tokenizer, stop
///   words, stemming; `stop_words`, `stemming` and `language` as in `tessera.sketch`),
///   each term weighted by its count (the engine's `simhash` with idf 1; `tessera.dedup(...,
///   method="simhash")` weights terms by tf-idf over the whole collection instead);
/// - an iterable of features, each a str or bytes (hashed with xxh3-64 of its UTF-8
///   bytes; repeats count) or a `(feature, weight)` tuple;
/// - an int (the fingerprint itself, 0 to 2**64 - 1), or another SimHash.
///
/// Each feature is spread to 64 bits by SplitMix64's mixer; bit `i` is set when the
/// weights of the features with bit `i` set outweigh the others. No feature gives 0.
#[pyclass(module = "tessera._tessera", name = "SimHash", frozen)]
pub struct SimHash {
    value: u64,
}

/// The fingerprint of a SimHash or an int.
fn fingerprint(fp: &Bound<'_, PyAny>) -> PyResult<u64> {
    if let Ok(s) = fp.cast::<SimHash>() {
        return Ok(s.get().value);
    }
    fp.extract::<u64>().map_err(|_| {
        PyTypeError::new_err(format!(
            "a fingerprint is a SimHash or an int from 0 to 2**64 - 1, not {}",
            fp.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    })
}

fn feature(item: &Bound<'_, PyAny>) -> PyResult<u64> {
    if let Ok(b) = item.cast::<PyBytes>() {
        return Ok(xxh3_64(b.as_bytes()));
    }
    if let Ok(s) = item.cast::<PyString>() {
        return Ok(xxh3_64(s.to_cow()?.as_bytes()));
    }
    Err(PyTypeError::new_err(format!(
        "SimHash features are str, bytes or (feature, weight) tuples, not {}",
        item.repr().map(|r| r.to_string()).unwrap_or_default()
    )))
}

#[pymethods]
impl SimHash {
    #[new]
    #[pyo3(signature = (value, *, stop_words = true, stemming = true, language = None))]
    fn new(
        py: Python<'_>,
        value: &Bound<'_, PyAny>,
        stop_words: bool,
        stemming: bool,
        language: Option<String>,
    ) -> PyResult<Self> {
        if let Ok(text) = value.cast::<PyString>() {
            let text = text.to_cow()?.into_owned();
            let pool = settings::fingerprinters(&settings::fingerprint(3, stop_words, stemming, language))?;
            let value = py.detach(|| {
                let terms = pool.with(|fp| fp.sketch_input(&text, 0).terms);
                simhash(&terms, &Idf::new())
            });
            return Ok(Self { value });
        }
        if let Ok(fp) = fingerprint(value) {
            return Ok(Self { value: fp });
        }
        let mut weighted: Vec<(u64, f64)> = Vec::new();
        for item in value.try_iter().map_err(|_| {
            PyTypeError::new_err("SimHash takes a str (a text), an iterable of features, or an int fingerprint")
        })? {
            let item = item?;
            match item.cast::<PyTuple>() {
                Ok(t) if t.len() == 2 => {
                    let w: f64 = t.get_item(1)?.extract()?;
                    if !w.is_finite() {
                        return Err(PyValueError::new_err(format!("feature weight {w} is not finite")));
                    }
                    weighted.push((feature(&t.get_item(0)?)?, w));
                }
                _ => weighted.push((feature(&item)?, 1.0)),
            }
        }
        Ok(Self { value: py.detach(|| simhash_weighted(&weighted)) })
    }

    /// The fingerprint, an int from 0 to 2**64 - 1.
    #[getter]
    fn value(&self) -> u64 {
        self.value
    }

    /// The Hamming distance to another SimHash (or int fingerprint).
    #[pyo3(text_signature = "($self, other)")]
    fn distance(&self, other: &Bound<'_, PyAny>) -> PyResult<u32> {
        Ok(hamming(self.value, fingerprint(other)?))
    }

    fn __int__(&self) -> u64 {
        self.value
    }

    fn __index__(&self) -> u64 {
        self.value
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<SimHash>().is_ok_and(|o| o.get().value == self.value)
    }

    fn __hash__(&self) -> u64 {
        // Python truncates the hash to its own width; equal values give equal hashes.
        self.value >> 1
    }

    fn __repr__(&self) -> String {
        format!("SimHash(0x{:016x})", self.value)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let args = PyTuple::new(py, [slf.get().value])?;
        PyTuple::new(py, [slf.get_type().into_any(), args.into_any()])
    }
}

/// Keys of 64-bit fingerprints, found within a Hamming distance by Manku, Jain and Das
/// Sarma's permuted sorted tables (the engine's `SimhashTables`: the table design is
/// chosen from `k` and the number of fingerprints, and answers equal a full scan).
///
/// Fingerprints added after the tables were last built are scanned one by one until
/// there are enough of them to rebuild the tables at the next query.
///
/// Args:
///     k: the largest Hamming distance queries ask for, 0 to 8.
///     objs: `(key, fingerprint)` pairs to add first.
#[pyclass(module = "tessera._tessera", name = "SimHashIndex")]
pub struct SimHashIndex {
    k: u32,
    keys: Vec<Py<PyAny>>,
    fps: Vec<u64>,
    live: Vec<bool>,
    index: Py<PyDict>,
    count: usize,
    /// Tables over `fps[..built]`.
    tables: Option<SimhashTables>,
    built: usize,
}

impl SimHashIndex {
    /// Fingerprints past the tables that make the next query rebuild them.
    fn stale(&self) -> bool {
        let pending = self.fps.len() - self.built;
        pending > 0 && pending >= (self.built / 8).max(256)
    }

    fn rebuild(&mut self, py: Python<'_>) -> PyResult<()> {
        let design = TableDesign::choose(self.k, self.fps.len() as u64).map_err(errors::setting)?;
        let fps = &self.fps;
        self.tables = Some(py.detach(|| SimhashTables::build(fps, design)));
        self.built = self.fps.len();
        Ok(())
    }
}

#[pymethods]
impl SimHashIndex {
    #[new]
    #[pyo3(signature = (k = 3, objs = None))]
    fn new(py: Python<'_>, k: u32, objs: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        TableDesign::choose(k, 0).map_err(errors::setting)?;
        let mut index = Self {
            k,
            keys: Vec::new(),
            fps: Vec::new(),
            live: Vec::new(),
            index: PyDict::new(py).unbind(),
            count: 0,
            tables: None,
            built: 0,
        };
        if let Some(objs) = objs {
            for pair in objs.try_iter()? {
                let (key, fp): (Bound<'_, PyAny>, Bound<'_, PyAny>) = pair?.extract()?;
                index.add(&key, &fp)?;
            }
        }
        Ok(index)
    }

    /// Adds `fp` (a SimHash or an int) under `key` (any hashable). `ValueError` when the
    /// key is there already.
    #[pyo3(text_signature = "($self, key, fp)")]
    fn add(&mut self, key: &Bound<'_, PyAny>, fp: &Bound<'_, PyAny>) -> PyResult<()> {
        let index = self.index.bind(key.py());
        if index.contains(key)? {
            let repr = key.repr().map(|r| r.to_string()).unwrap_or_default();
            return Err(PyValueError::new_err(format!("key {repr} is already in the index")));
        }
        let fp = fingerprint(fp)?;
        index.set_item(key, self.fps.len())?;
        self.keys.push(key.clone().unbind());
        self.fps.push(fp);
        self.live.push(true);
        self.count += 1;
        Ok(())
    }

    /// Removes `key`. `ValueError` when it is not there.
    #[pyo3(text_signature = "($self, key)")]
    fn remove(&mut self, key: &Bound<'_, PyAny>) -> PyResult<()> {
        let index = self.index.bind(key.py());
        let Some(ordinal) = index.get_item(key)? else {
            let repr = key.repr().map(|r| r.to_string()).unwrap_or_default();
            return Err(PyValueError::new_err(format!("key {repr} is not in the index")));
        };
        let ordinal: usize = ordinal.extract()?;
        index.del_item(key)?;
        self.live[ordinal] = false;
        self.count -= 1;
        Ok(())
    }

    /// The keys whose fingerprints are within Hamming distance `k` of `fp` (default: the
    /// index's `k`, which `k` may not exceed), in the order they were added.
    #[pyo3(signature = (fp, k = None))]
    fn query<'py>(&mut self, py: Python<'py>, fp: &Bound<'_, PyAny>, k: Option<u32>) -> PyResult<Bound<'py, PyList>> {
        let fp = fingerprint(fp)?;
        let k = k.unwrap_or(self.k);
        if k > self.k {
            return Err(PyValueError::new_err(format!(
                "k = {k} exceeds the distance this index's tables serve ({})",
                self.k
            )));
        }
        if self.stale() {
            self.rebuild(py)?;
        }
        let this = &*self;
        let found: Vec<usize> = py.detach(|| {
            let mut out: Vec<usize> = match &this.tables {
                Some(t) => t.query(fp).into_iter().map(|o| o as usize).collect(),
                None => Vec::new(),
            };
            out.extend((this.built..this.fps.len()).filter(|&o| hamming(this.fps[o], fp) <= this.k));
            out.retain(|&o| this.live[o] && hamming(this.fps[o], fp) <= k);
            out
        });
        PyList::new(py, found.into_iter().map(|o| self.keys[o].bind(py)))
    }

    /// The keys, in the order they were added.
    #[pyo3(text_signature = "($self)")]
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.keys.iter().zip(&self.live).filter(|(_, l)| **l).map(|(k, _)| k.bind(py)))
    }

    /// The largest distance queries may ask for.
    #[getter]
    fn k(&self) -> u32 {
        self.k
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.index.bind(key.py()).contains(key)
    }

    fn __len__(&self) -> usize {
        self.count
    }

    fn __repr__(&self) -> String {
        format!("SimHashIndex(k={}, keys={})", self.k, self.count)
    }
}
