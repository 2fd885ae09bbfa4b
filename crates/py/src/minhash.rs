//! `tessera.MinHash`: a MinHash signature built item by item, as datasketch's and rensa's.

use std::sync::Arc;

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString, PyTuple};
use tessera_engine::sketch::{MinHashConfig, MinHasher, Signature};
use xxhash_rust::xxh3::xxh3_64;

use crate::errors;

/// Items of an `update_batch` hashed while holding the GIL before the signature is folded
/// without it: bounds the memory of the hashes of a long iterator.
const BATCH: usize = 1 << 16;

/// The 64-bit hash of one item: xxh3-64 (seed 0) of its bytes, or of a `str`'s UTF-8
/// bytes (so `"word"` and `b"word"` are the same item).
pub(crate) fn item_hash(item: &Bound<'_, PyAny>) -> PyResult<u64> {
    if let Ok(b) = item.cast::<PyBytes>() {
        return Ok(xxh3_64(b.as_bytes()));
    }
    if let Ok(s) = item.cast::<PyString>() {
        return Ok(xxh3_64(s.to_cow()?.as_bytes()));
    }
    Err(PyTypeError::new_err(format!(
        "items are bytes or str, not {}",
        item.get_type().name().map(|n| n.to_string()).unwrap_or_default()
    )))
}

/// A MinHash signature of a set of items (bytes or str).
///
/// Each item is hashed with xxh3-64 (of its UTF-8 bytes for a str) and folded into
/// `num_perm` minimums of the engine's hash family (`h_i(x) = (a_i * x + b_i) mod 2^64 >>
/// 32`, coefficients drawn from SplitMix64 seeded with `seed`): the same family as every
/// signature Tessera stores, so values are 32-bit (held in uint64 arrays as datasketch
/// does). A MinHash that saw no item is *empty*: every value is 0xFFFFFFFF.
///
/// Args:
///     num_perm: hash functions (signature length), 1 to 4096.
///     seed: seed of the hash functions; only signatures of equal `num_perm` and `seed`
///         compare.
///     hashvalues: start from these values (e.g. a row of `tessera.sketch`, or another
///         MinHash's `digest()`), each below 2**32; their length sets `num_perm`.
#[pyclass(module = "tessera._tessera", name = "MinHash")]
pub struct MinHash {
    pub(crate) hasher: Arc<MinHasher>,
    pub(crate) mins: Vec<u32>,
}

fn hasher(num_perm: usize, seed: u64) -> PyResult<Arc<MinHasher>> {
    Ok(Arc::new(MinHasher::new(MinHashConfig { num_perm, seed }).map_err(errors::setting)?))
}

/// Values given by Python (a numpy array or a sequence of ints), each below 2**32.
pub(crate) fn values_u32(values: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    let wide: Vec<u64> = match values.extract::<PyReadonlyArray1<'_, u64>>() {
        Ok(a) => a.as_array().to_vec(),
        Err(_) => match values.extract::<PyReadonlyArray1<'_, u32>>() {
            Ok(a) => return Ok(a.as_array().to_vec()),
            Err(_) => values.extract::<Vec<u64>>()?,
        },
    };
    wide.into_iter()
        .map(|v| u32::try_from(v).map_err(|_| PyValueError::new_err(format!("hash value {v} is not below 2**32"))))
        .collect()
}

impl MinHash {
    pub(crate) fn signature(&self) -> Signature {
        Signature(self.mins.clone())
    }

    pub(crate) fn config(&self) -> MinHashConfig {
        self.hasher.config()
    }

    fn same_family(&self, other: &MinHash, what: &str) -> PyResult<()> {
        let (a, b) = (self.config(), other.config());
        if a != b {
            return Err(PyValueError::new_err(format!(
                "cannot {what} MinHashes of different settings: num_perm {} seed {} and num_perm {} seed {}",
                a.num_perm, a.seed, b.num_perm, b.seed
            )));
        }
        Ok(())
    }
}

#[pymethods]
impl MinHash {
    #[new]
    #[pyo3(signature = (num_perm = 128, seed = 1, hashvalues = None))]
    fn new(num_perm: usize, seed: u64, hashvalues: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        match hashvalues {
            None => Ok(Self { hasher: hasher(num_perm, seed)?, mins: vec![u32::MAX; num_perm] }),
            Some(values) => {
                let mins = values_u32(values)?;
                Ok(Self { hasher: hasher(mins.len(), seed)?, mins })
            }
        }
    }

    /// Adds one item (bytes or str).
    #[pyo3(text_signature = "($self, b)")]
    fn update(&mut self, b: &Bound<'_, PyAny>) -> PyResult<()> {
        let h = item_hash(b)?;
        self.hasher.sign_into(&[h], &mut self.mins);
        Ok(())
    }

    /// Adds every item of an iterable (bytes or str): items are hashed, then folded in
    /// batches without the GIL.
    #[pyo3(text_signature = "($self, b)")]
    fn update_batch(&mut self, py: Python<'_>, b: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut hashes = Vec::new();
        for item in b.try_iter()? {
            hashes.push(item_hash(&item?)?);
            if hashes.len() == BATCH {
                self.fold(py, &hashes);
                hashes.clear();
            }
        }
        self.fold(py, &hashes);
        Ok(())
    }

    /// The estimated Jaccard similarity with `other`: the share of positions where both
    /// signatures agree (the engine's estimate: 0 when either is empty). `ValueError` when
    /// `num_perm` or `seed` differ.
    #[pyo3(text_signature = "($self, other)")]
    fn jaccard(&self, other: PyRef<'_, MinHash>) -> PyResult<f64> {
        self.same_family(&other, "compare")?;
        Ok(self.signature().jaccard(&other.signature()))
    }

    /// The signature: a numpy uint64 array of `num_perm` values, each below 2**32.
    #[pyo3(text_signature = "($self)")]
    fn digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        PyArray1::from_vec(py, self.mins.iter().map(|&v| u64::from(v)).collect())
    }

    /// The signature (datasketch's name for `digest()`).
    #[getter]
    fn hashvalues<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        self.digest(py)
    }

    /// Hash functions (signature length).
    #[getter]
    fn num_perm(&self) -> usize {
        self.mins.len()
    }

    /// Seed of the hash functions.
    #[getter]
    fn seed(&self) -> u64 {
        self.config().seed
    }

    /// A copy.
    #[pyo3(text_signature = "($self)")]
    fn copy(&self) -> Self {
        Self { hasher: Arc::clone(&self.hasher), mins: self.mins.clone() }
    }

    /// Makes this the signature of the union of both sets (the minimum of each value).
    /// `ValueError` when `num_perm` or `seed` differ.
    #[pyo3(text_signature = "($self, other)")]
    fn merge(&mut self, other: PyRef<'_, MinHash>) -> PyResult<()> {
        self.same_family(&other, "merge")?;
        for (m, &o) in self.mins.iter_mut().zip(&other.mins) {
            *m = (*m).min(o);
        }
        Ok(())
    }

    /// True when no item was added.
    #[pyo3(text_signature = "($self)")]
    fn is_empty(&self) -> bool {
        self.signature().is_empty()
    }

    /// Clears the signature (as if no item was added).
    #[pyo3(text_signature = "($self)")]
    fn clear(&mut self) {
        self.mins.fill(u32::MAX);
    }

    /// The MinHash of each set of items, computed without the GIL.
    ///
    /// Args:
    ///     sets: an iterable of iterables of items (bytes or str).
    ///     num_perm: hash functions.
    ///     seed: seed of the hash functions.
    #[staticmethod]
    #[pyo3(signature = (sets, num_perm = 128, seed = 1))]
    fn bulk(py: Python<'_>, sets: &Bound<'_, PyAny>, num_perm: usize, seed: u64) -> PyResult<Vec<MinHash>> {
        let hasher = hasher(num_perm, seed)?;
        let mut hashed: Vec<Vec<u64>> = Vec::new();
        for set in sets.try_iter()? {
            let mut hashes = Vec::new();
            for item in set?.try_iter()? {
                hashes.push(item_hash(&item?)?);
            }
            hashed.push(hashes);
        }
        let h = Arc::clone(&hasher);
        let signatures: Vec<Vec<u32>> = py.detach(move || hashed.iter().map(|s| h.sign(s).0).collect());
        Ok(signatures.into_iter().map(|mins| MinHash { hasher: Arc::clone(&hasher), mins }).collect())
    }

    fn __len__(&self) -> usize {
        self.mins.len()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<MinHash>().is_ok_and(|o| {
            let o = o.borrow();
            o.config() == self.config() && o.mins == self.mins
        })
    }

    fn __repr__(&self) -> String {
        let c = self.config();
        format!("MinHash(num_perm={}, seed={}{})", c.num_perm, c.seed, if self.is_empty() { ", empty" } else { "" })
    }

    fn __copy__(&self) -> Self {
        self.copy()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.copy()
    }

    /// Pickling: rebuilt from `num_perm`, `seed` and the values.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.borrow();
        let c = this.config();
        let values = this.digest(py);
        let args = PyTuple::new(
            py,
            [c.num_perm.into_pyobject(py)?.into_any(), c.seed.into_pyobject(py)?.into_any(), values.into_any()],
        )?;
        PyTuple::new(py, [slf.get_type().into_any(), args.into_any()])
    }
}

impl MinHash {
    fn fold(&mut self, py: Python<'_>, hashes: &[u64]) {
        if hashes.len() < 256 {
            self.hasher.sign_into(hashes, &mut self.mins);
            return;
        }
        let (hasher, mins) = (&self.hasher, &mut self.mins);
        py.detach(|| hasher.sign_into(hashes, mins));
    }
}
