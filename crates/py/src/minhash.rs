//! `tessera.MinHash`: a MinHash signature built item by item, as datasketch's and rensa's.

use std::sync::Arc;

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::{PyDeprecationWarning, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString, PyTuple, PyType};
use tessera_engine::sketch::{MinHashConfig, MinHasher, Signature, SplitMix64};
use xxhash_rust::xxh3::xxh3_64;

use crate::errors;

/// Items of an `update_batch` hashed while holding the GIL before the signature is folded
/// without it: bounds the memory of the hashes of a long iterator.
const BATCH: usize = 1 << 16;

/// The largest value of a 32-bit signature position, as a float: datasketch's `count()`
/// divides by it (`_max_hash`, 2**32 - 1).
const MAX_HASH: f64 = 4_294_967_295.0;

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
        "items are bytes or str, not {} (give hashfunc= to hash other items)",
        type_name(item)
    )))
}

pub(crate) fn type_name(v: &Bound<'_, PyAny>) -> String {
    v.get_type().name().map(|n| n.to_string()).unwrap_or_default()
}

/// What a user's `hashfunc` returned, as the 64-bit item hash the family takes: an int in
/// `[0, 2**64)`, or a negative one of 64 bits read as two's complement (so signed hashes
/// such as `mmh3.hash` work).
fn hashfunc_value(v: &Bound<'_, PyAny>) -> PyResult<u64> {
    if let Ok(u) = v.extract::<u64>() {
        return Ok(u);
    }
    if let Ok(i) = v.extract::<i64>() {
        return Ok(i as u64);
    }
    Err(PyValueError::new_err(format!(
        "hashfunc must return an int of at most 64 bits, and returned {} {}",
        type_name(v),
        v.repr().map(|r| r.to_string()).unwrap_or_default()
    )))
}

/// datasketch's `gpu_mode`. Tessera has no GPU path: "disable" and "detect" run on the
/// CPU; "always" fails in `update_batch` as datasketch does on a machine without CUDA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GpuMode {
    Disable,
    Detect,
    Always,
}

impl GpuMode {
    fn parse(s: &str) -> PyResult<Self> {
        match s {
            "disable" => Ok(Self::Disable),
            "detect" => Ok(Self::Detect),
            "always" => Ok(Self::Always),
            other => {
                Err(PyValueError::new_err(format!("gpu_mode must be 'disable', 'detect' or 'always', not {other:?}")))
            }
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Disable => "disable",
            Self::Detect => "detect",
            Self::Always => "always",
        }
    }
}

/// A MinHash signature of a set of items (bytes or str, or anything `hashfunc` takes).
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
///     gpu_mode: datasketch's; accepted, no GPU is used ("always" raises RuntimeError in
///         `update_batch`, as datasketch without CUDA).
///     hashfunc: a callable taking an item and returning an int (at most 64 bits) that
///         replaces xxh3-64 as the item hash. Slower: it runs in Python, item by item.
///     hashobj: deprecated in datasketch, a no-op with a DeprecationWarning.
///     hashvalues: start from these values (e.g. a row of `tessera.sketch`, or another
///         MinHash's `digest()`), each below 2**32; their length sets `num_perm`.
///     permutations: datasketch's; accepted only when equal to this seed's coefficients
///         (`permutations`), since the family is drawn from the seed.
///     scheme: datasketch 2's permutation scheme; only None (Tessera has one family).
#[pyclass(module = "tessera._tessera", name = "MinHash", subclass)]
pub struct MinHash {
    pub(crate) hasher: Arc<MinHasher>,
    pub(crate) mins: Vec<u32>,
    pub(crate) hashfunc: Option<Py<PyAny>>,
    pub(crate) gpu_mode: GpuMode,
}

pub(crate) fn hasher(num_perm: usize, seed: u64) -> PyResult<Arc<MinHasher>> {
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

/// The coefficients `(a_i, b_i)` of the engine's family for `seed`, by its documented
/// rule (`MinHasher`): drawn in that order from SplitMix64 seeded with `seed`, `a_i`
/// forced odd. `tests/test_minhash.py` checks that they reproduce the engine's values.
fn coefficients(num_perm: usize, seed: u64) -> (Vec<u64>, Vec<u64>) {
    let mut rng = SplitMix64::new(seed);
    let (mut a, mut b) = (Vec::with_capacity(num_perm), Vec::with_capacity(num_perm));
    for _ in 0..num_perm {
        a.push(rng.next_u64() | 1);
        b.push(rng.next_u64());
    }
    (a, b)
}

impl MinHash {
    pub(crate) fn from_values(hasher: Arc<MinHasher>, mins: Vec<u32>) -> Self {
        Self { hasher, mins, hashfunc: None, gpu_mode: GpuMode::Disable }
    }

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

    /// The item hash: `hashfunc(item)` when one was given, else xxh3-64.
    fn hash(&self, item: &Bound<'_, PyAny>) -> PyResult<u64> {
        match &self.hashfunc {
            None => item_hash(item),
            Some(f) => hashfunc_value(&f.bind(item.py()).call1((item,))?),
        }
    }

    pub(crate) fn clone_ref(&self, py: Python<'_>) -> Self {
        Self {
            hasher: Arc::clone(&self.hasher),
            mins: self.mins.clone(),
            hashfunc: self.hashfunc.as_ref().map(|f| f.clone_ref(py)),
            gpu_mode: self.gpu_mode,
        }
    }

    fn fold(&mut self, py: Python<'_>, hashes: &[u64]) {
        if hashes.len() < 256 {
            self.hasher.sign_into(hashes, &mut self.mins);
            return;
        }
        let (hasher, mins) = (&self.hasher, &mut self.mins);
        py.detach(|| hasher.sign_into(hashes, mins));
    }

    fn update_batch_impl(&mut self, py: Python<'_>, b: &Bound<'_, PyAny>) -> PyResult<()> {
        if self.gpu_mode == GpuMode::Always {
            return Err(PyRuntimeError::new_err(
                "GPU mode 'always' requested, and tessera has no GPU path (use 'disable' or 'detect')",
            ));
        }
        let mut hashes = Vec::new();
        for item in b.try_iter()? {
            hashes.push(self.hash(&item?)?);
            if hashes.len() == BATCH {
                self.fold(py, &hashes);
                hashes.clear();
            }
        }
        self.fold(py, &hashes);
        Ok(())
    }

    /// datasketch's `count()`: `k / sum(v_i / (2**32 - 1)) - 1`.
    pub(crate) fn count_impl(&self) -> f64 {
        let sum: f64 = self.mins.iter().map(|&v| f64::from(v) / MAX_HASH).sum();
        self.mins.len() as f64 / sum - 1.0
    }

    /// datasketch's equality: the same class, seed and values.
    pub(crate) fn eq_impl(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> bool {
        if !slf.get_type().is(other.get_type()) {
            return false;
        }
        other.cast::<MinHash>().is_ok_and(|o| {
            let (o, s) = (o.borrow(), slf.borrow());
            o.config() == s.config() && o.mins == s.mins
        })
    }
}

#[pymethods]
impl MinHash {
    #[new]
    #[pyo3(signature = (
        num_perm = 128, seed = 1, gpu_mode = "disable", hashfunc = None, hashobj = None,
        hashvalues = None, permutations = None, scheme = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        num_perm: usize,
        seed: u64,
        gpu_mode: &str,
        hashfunc: Option<Py<PyAny>>,
        hashobj: Option<&Bound<'_, PyAny>>,
        hashvalues: Option<&Bound<'_, PyAny>>,
        permutations: Option<&Bound<'_, PyAny>>,
        scheme: Option<&str>,
    ) -> PyResult<Self> {
        if let Some(s) = scheme {
            return Err(PyValueError::new_err(format!(
                "scheme {s:?}: tessera's MinHash has one hash family (the engine's multiply-add-shift over xxh3-64), \
                 not datasketch's schemes; leave scheme=None"
            )));
        }
        if hashobj.is_some() {
            PyErr::warn(
                py,
                &py.get_type::<PyDeprecationWarning>(),
                c"hashobj is deprecated, use hashfunc instead.",
                1,
            )?;
        }
        if let Some(f) = &hashfunc
            && !f.bind(py).is_callable()
        {
            return Err(PyValueError::new_err("The hashfunc must be a callable."));
        }
        let gpu_mode = GpuMode::parse(gpu_mode)?;
        let mut m = match hashvalues {
            None => Self::from_values(hasher(num_perm, seed)?, vec![u32::MAX; num_perm]),
            Some(values) => {
                let mins = values_u32(values)?;
                Self::from_values(hasher(mins.len(), seed)?, mins)
            }
        };
        m.hashfunc = hashfunc;
        m.gpu_mode = gpu_mode;
        if let Some(p) = permutations {
            let (a, b) = coefficients(m.mins.len(), seed);
            let given: Vec<Vec<u64>> = p.extract()?;
            if given.len() != 2 || given[0] != a || given[1] != b {
                return Err(PyValueError::new_err(format!(
                    "permutations are not those of seed {seed}: tessera draws its hash family from the seed, \
                     so only MinHash.permutations of the same seed and num_perm can be given"
                )));
            }
        }
        Ok(m)
    }

    /// Adds one item (bytes or str; anything `hashfunc` takes when one was given).
    #[pyo3(text_signature = "($self, b)")]
    fn update(&mut self, b: &Bound<'_, PyAny>) -> PyResult<()> {
        let h = self.hash(b)?;
        self.hasher.sign_into(&[h], &mut self.mins);
        Ok(())
    }

    /// Adds every item of an iterable (bytes or str): items are hashed, then folded in
    /// batches without the GIL.
    #[pyo3(text_signature = "($self, b)")]
    fn update_batch(&mut self, py: Python<'_>, b: &Bound<'_, PyAny>) -> PyResult<()> {
        self.update_batch_impl(py, b)
    }

    /// The estimated Jaccard similarity with `other`: the share of positions where both
    /// signatures agree (the engine's estimate: 0 when either is empty). `ValueError` when
    /// `num_perm` or `seed` differ.
    #[pyo3(text_signature = "($self, other)")]
    fn jaccard(&self, other: PyRef<'_, MinHash>) -> PyResult<f64> {
        self.same_family(&other, "compare")?;
        Ok(self.signature().jaccard(&other.signature()))
    }

    /// The estimated number of distinct items, as datasketch computes it:
    /// `num_perm / sum(v / (2**32 - 1)) - 1` (0 for an empty MinHash).
    #[pyo3(text_signature = "($self)")]
    fn count(&self) -> f64 {
        self.count_impl()
    }

    /// The signature: a numpy uint64 array of `num_perm` values, each below 2**32.
    #[pyo3(text_signature = "($self)")]
    fn digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        PyArray1::from_vec(py, self.mins.iter().map(|&v| u64::from(v)).collect())
    }

    /// The signature (datasketch's name for `digest()`): a new array on each read, so
    /// change values by assigning `hashvalues`, not by writing into the array.
    #[getter]
    fn get_hashvalues<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        self.digest(py)
    }

    /// Replaces the signature (values below 2**32, `num_perm` of them).
    #[setter]
    fn set_hashvalues(&mut self, values: &Bound<'_, PyAny>) -> PyResult<()> {
        let mins = values_u32(values)?;
        if mins.len() != self.mins.len() {
            return Err(PyValueError::new_err(format!(
                "{} hash values for a MinHash of num_perm {}",
                mins.len(),
                self.mins.len()
            )));
        }
        self.mins = mins;
        Ok(())
    }

    /// The hash family's coefficients: a (2, num_perm) uint64 array, `a` (odd) then `b`
    /// of `h_i(x) = ((a_i * x + b_i) mod 2**64) >> 32`. They are not datasketch's (its
    /// family is another one), so only their shape and role match.
    #[getter]
    fn permutations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<u64>>> {
        let c = self.config();
        let (mut a, b) = coefficients(c.num_perm, c.seed);
        a.extend(b);
        PyArray1::from_vec(py, a).reshape([2, c.num_perm])
    }

    /// The `hashfunc` given, or None for the built-in xxh3-64.
    #[getter]
    fn hashfunc(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.hashfunc.as_ref().map(|f| f.clone_ref(py))
    }

    /// datasketch's `gpu_mode` as given ("disable", "detect" or "always").
    #[getter(_gpu_mode)]
    fn gpu_mode(&self) -> &'static str {
        self.gpu_mode.name()
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

    /// A copy (with the same `hashfunc`).
    #[pyo3(text_signature = "($self)")]
    fn copy(&self, py: Python<'_>) -> Self {
        self.clone_ref(py)
    }

    /// Makes this the signature of the union of both sets (the minimum of each value).
    /// `ValueError` when `num_perm` or `seed` differ.
    #[pyo3(text_signature = "($self, other)")]
    fn merge(&mut self, other: &Bound<'_, MinHash>) -> PyResult<()> {
        // `m.merge(m)` would borrow twice: it changes nothing.
        let Ok(other) = other.try_borrow() else { return Ok(()) };
        self.same_family(&other, "merge")?;
        for (m, &o) in self.mins.iter_mut().zip(&other.mins) {
            *m = (*m).min(o);
        }
        Ok(())
    }

    /// A new MinHash of the union of two or more (the minimum of each value), of the
    /// first one's class and `hashfunc`. `ValueError` for fewer than two, or when
    /// `num_perm` or `seed` differ.
    #[classmethod]
    #[pyo3(signature = (*mhs))]
    fn union<'py>(_cls: &Bound<'py, PyType>, mhs: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyAny>> {
        if mhs.len() < 2 {
            return Err(PyValueError::new_err("Cannot union less than 2 MinHash"));
        }
        let first = mhs.get_item(0)?;
        let mut mins = first.cast::<MinHash>()?.borrow().mins.clone();
        for m in mhs.iter() {
            let m = m.cast::<MinHash>()?.borrow();
            first.cast::<MinHash>()?.borrow().same_family(&m, "union")?;
            for (u, &v) in mins.iter_mut().zip(&m.mins) {
                *u = (*u).min(v);
            }
        }
        let out = first.call_method0("copy")?;
        out.cast::<MinHash>()?.borrow_mut().mins = mins;
        Ok(out)
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

    /// The MinHash of each set of items, computed without the GIL (with a `hashfunc`,
    /// the items are hashed by it in Python first).
    ///
    /// Args:
    ///     sets: an iterable of iterables of items (bytes or str).
    ///     num_perm: hash functions.
    ///     seed: seed of the hash functions.
    ///     hashfunc: as MinHash's.
    ///     gpu_mode: as MinHash's.
    #[staticmethod]
    #[pyo3(signature = (sets, num_perm = 128, seed = 1, hashfunc = None, gpu_mode = "disable"))]
    fn bulk(
        py: Python<'_>,
        sets: &Bound<'_, PyAny>,
        num_perm: usize,
        seed: u64,
        hashfunc: Option<Py<PyAny>>,
        gpu_mode: &str,
    ) -> PyResult<Vec<MinHash>> {
        let template = Self::new(py, num_perm, seed, gpu_mode, hashfunc, None, None, None, None)?;
        let mut hashed: Vec<Vec<u64>> = Vec::new();
        for set in sets.try_iter()? {
            let mut hashes = Vec::new();
            for item in set?.try_iter()? {
                hashes.push(template.hash(&item?)?);
            }
            hashed.push(hashes);
        }
        let h = Arc::clone(&template.hasher);
        let signatures: Vec<Vec<u32>> = py.detach(move || hashed.iter().map(|s| h.sign(s).0).collect());
        Ok(signatures
            .into_iter()
            .map(|mins| {
                let mut m = template.clone_ref(py);
                m.mins = mins;
                m
            })
            .collect())
    }

    /// The MinHash of each set of items, one at a time (datasketch's `generator`): an
    /// iterator, so the sets can be a stream. Arguments as `bulk`.
    #[staticmethod]
    #[pyo3(signature = (sets, num_perm = 128, seed = 1, hashfunc = None, gpu_mode = "disable"))]
    fn generator(
        py: Python<'_>,
        sets: &Bound<'_, PyAny>,
        num_perm: usize,
        seed: u64,
        hashfunc: Option<Py<PyAny>>,
        gpu_mode: &str,
    ) -> PyResult<MinHashGenerator> {
        let template = Self::new(py, num_perm, seed, gpu_mode, hashfunc, None, None, None, None)?;
        Ok(MinHashGenerator { sets: sets.try_iter()?.into_any().unbind(), template })
    }

    fn __len__(&self) -> usize {
        self.mins.len()
    }

    fn __eq__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> bool {
        Self::eq_impl(slf, other)
    }

    fn __repr__(&self) -> String {
        let c = self.config();
        format!("MinHash(num_perm={}, seed={}{})", c.num_perm, c.seed, if self.is_empty() { ", empty" } else { "" })
    }

    fn __copy__(&self, py: Python<'_>) -> Self {
        self.clone_ref(py)
    }

    fn __deepcopy__(&self, py: Python<'_>, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone_ref(py)
    }

    /// Pickling: rebuilt from `num_perm`, `seed`, `gpu_mode`, `hashfunc` (which must be
    /// picklable, as with datasketch) and the values.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.borrow();
        let c = this.config();
        let values = this.digest(py);
        let args =
            (c.num_perm, c.seed, this.gpu_mode.name(), this.hashfunc(py), py.None(), values).into_pyobject(py)?;
        PyTuple::new(py, [slf.get_type().into_any(), args.into_any()])
    }
}

/// The iterator `MinHash.generator` returns: one MinHash per set, as they are read.
#[pyclass(module = "tessera._tessera", name = "MinHashGenerator")]
pub struct MinHashGenerator {
    sets: Py<PyAny>,
    template: MinHash,
}

#[pymethods]
impl MinHashGenerator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<MinHash>> {
        let Some(set) = self.sets.bind(py).cast::<pyo3::types::PyIterator>()?.clone().next() else {
            return Ok(None);
        };
        let mut m = self.template.clone_ref(py);
        m.update_batch_impl(py, &set?)?;
        Ok(Some(m))
    }
}
