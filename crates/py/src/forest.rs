//! `tessera.MinHashLSHForest`: top-k candidates by the longest shared prefix of bands,
//! datasketch's LSH Forest.

use numpy::PyArray1;
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};
use rayon::prelude::*;

use crate::lsh::band_h;
use crate::minhash::MinHash;

/// MinHash LSH Forest (Bawa et al. 2005, as datasketch implements it): `l` prefix trees,
/// each over `k = num_perm // l` consecutive values of the signatures, kept as sorted
/// arrays. `query(minhash, k)` walks the prefix length `r` from `k` down to 1 and, in
/// every tree, collects the keys whose first `r` values of that tree's band equal the
/// query's (a binary search in the sorted array), until it holds `k` keys: the keys
/// sharing the longest prefixes come first, an approximation of the top-k by Jaccard
/// similarity.
///
/// Keys added by `add` are searchable after the next `index()` (datasketch also finds
/// keys added after `index()` whose band equals a band indexed before; here they wait
/// for `index()`). The answer is the set of keys datasketch returns for the same hash
/// values and insertion order, as a list in the order they were found (datasketch's
/// comes from a set, in no fixed order). An empty MinHash is indexed like any other, as
/// datasketch does.
///
/// `hashtables` (per tree, band key -> keys) and `keys` (key -> its band keys) are
/// datasketch's, built on each read; a band key is the band's values as big-endian
/// uint64.
///
/// Args:
///     num_perm: the MinHashes' length (at least `l`; a MinHash must have `k * l` values
///         or more).
///     l: the number of prefix trees.
#[pyclass(module = "tessera._tessera", name = "MinHashLSHForest")]
pub struct MinHashLshForest {
    num_perm: usize,
    l: usize,
    k: usize,
    /// The seed of the MinHashes: fixed by the first `add`.
    seed: Option<u64>,
    /// Keys by ordinal (insertion order).
    keys: Vec<Py<PyAny>>,
    /// Key -> ordinal.
    index: Py<PyDict>,
    /// The first `k * l` values of each key's MinHash, ordinal after ordinal.
    values: Vec<u32>,
    /// Per tree, the ordinals indexed by the last `index()`, sorted by the tree's band
    /// (lexicographically), then by ordinal.
    sorted: Vec<Vec<u32>>,
}

impl MinHashLshForest {
    fn width(&self) -> usize {
        self.k * self.l
    }

    /// Values of tree `tree` of the MinHash at `ordinal`.
    fn band(&self, ordinal: u32, tree: usize) -> &[u32] {
        let start = ordinal as usize * self.width() + tree * self.k;
        &self.values[start..start + self.k]
    }

    fn check(&self, m: &MinHash) -> PyResult<()> {
        if m.mins.len() < self.width() {
            return Err(PyValueError::new_err(format!(
                "The num_perm of MinHash out of range: {} values, the forest needs {} (l {} * k {})",
                m.mins.len(),
                self.width(),
                self.l,
                self.k
            )));
        }
        if let Some(seed) = self.seed
            && seed != m.config().seed
        {
            return Err(PyValueError::new_err(format!(
                "a MinHash of seed {} in a forest of MinHashes of seed {seed}",
                m.config().seed
            )));
        }
        Ok(())
    }

    /// Up to `k` ordinals, by decreasing prefix length (datasketch's `query`).
    fn top(&self, q: &[u32], k: usize) -> Vec<u32> {
        let mut found = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for r in (1..=self.k).rev() {
            for (tree, sorted) in self.sorted.iter().enumerate() {
                let prefix = &q[tree * self.k..tree * self.k + r];
                let start = sorted.partition_point(|&o| &self.band(o, tree)[..r] < prefix);
                for &o in sorted[start..].iter().take_while(|&&o| &self.band(o, tree)[..r] == prefix) {
                    if seen.insert(o) {
                        found.push(o);
                        if found.len() >= k {
                            return found;
                        }
                    }
                }
            }
        }
        found
    }

    /// datasketch's band keys of the key at `ordinal`, one per tree.
    fn band_keys<'py>(&self, py: Python<'py>, ordinal: u32) -> PyResult<Bound<'py, PyList>> {
        let start = ordinal as usize * self.width();
        let sig = &self.values[start..start + self.width()];
        PyList::new(py, (0..self.l).map(|t| PyBytes::new(py, &band_h(sig, t, self.k))))
    }

    fn sort(&mut self, py: Python<'_>, n: usize) {
        let this = &*self;
        let sorted = py.detach(|| {
            (0..this.l)
                .into_par_iter()
                .map(|tree| {
                    let mut ordinals: Vec<u32> = (0..n as u32).collect();
                    // Stable: equal bands keep insertion order, as datasketch's buckets.
                    ordinals.sort_by(|&a, &b| this.band(a, tree).cmp(this.band(b, tree)));
                    ordinals
                })
                .collect()
        });
        self.sorted = sorted;
    }
}

#[pymethods]
impl MinHashLshForest {
    #[new]
    #[pyo3(signature = (num_perm = 128, l = 8))]
    fn new(py: Python<'_>, num_perm: i64, l: i64) -> PyResult<Self> {
        if l <= 0 || num_perm <= 0 {
            return Err(PyValueError::new_err("num_perm and l must be positive"));
        }
        if l > num_perm {
            return Err(PyValueError::new_err("l cannot be greater than num_perm"));
        }
        let (num_perm, l) = (num_perm as usize, l as usize);
        Ok(Self {
            num_perm,
            l,
            k: num_perm / l,
            seed: None,
            keys: Vec::new(),
            index: PyDict::new(py).unbind(),
            values: Vec::new(),
            sorted: vec![Vec::new(); l],
        })
    }

    /// Adds `minhash` under `key` (any hashable), searchable after `index()`.
    /// `ValueError` when the key was added already, the MinHash has fewer than `k * l`
    /// values or another seed.
    #[pyo3(text_signature = "($self, key, minhash)")]
    fn add(&mut self, key: &Bound<'_, PyAny>, minhash: PyRef<'_, MinHash>) -> PyResult<()> {
        self.check(&minhash)?;
        let index = self.index.bind(key.py());
        if index.contains(key)? {
            return Err(PyValueError::new_err("The given key has already been added"));
        }
        if self.keys.len() >= u32::MAX as usize {
            return Err(PyValueError::new_err("the forest is full (2**32 keys)"));
        }
        index.set_item(key, self.keys.len())?;
        self.keys.push(key.clone().unbind());
        let width = self.width();
        self.values.extend_from_slice(&minhash.mins[..width]);
        self.seed = Some(minhash.config().seed);
        Ok(())
    }

    /// Makes every key added so far searchable (sorts each tree, in parallel).
    #[pyo3(text_signature = "($self)")]
    fn index(&mut self, py: Python<'_>) {
        let n = self.keys.len();
        self.sort(py, n);
    }

    /// The approximate top-`k` keys by Jaccard similarity to `minhash`: at most `k`, in
    /// the order found (longest shared prefix first). `ValueError` for `k <= 0` or a
    /// MinHash the forest cannot take.
    #[pyo3(text_signature = "($self, minhash, k)")]
    fn query<'py>(&self, py: Python<'py>, minhash: PyRef<'_, MinHash>, k: i64) -> PyResult<Bound<'py, PyList>> {
        if k <= 0 {
            return Err(PyValueError::new_err("k must be positive"));
        }
        self.check(&minhash)?;
        let q = &minhash.mins;
        let found = py.detach(|| self.top(q, k as usize));
        PyList::new(py, found.into_iter().map(|o| self.keys[o as usize].bind(py)))
    }

    /// The hash values stored for `key` (the first `k * l` of its MinHash), a uint64
    /// array. `KeyError` when it was not added.
    #[pyo3(text_signature = "($self, key)")]
    fn get_minhash_hashvalues<'py>(&self, key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let py = key.py();
        let Some(o) = self.index.bind(py).get_item(key)? else {
            let repr = key.repr().map(|r| r.to_string()).unwrap_or_default();
            return Err(PyKeyError::new_err(format!("The provided key does not exist in the LSHForest: {repr}")));
        };
        let start = o.extract::<usize>()? * self.width();
        let values = self.values[start..start + self.width()].iter().map(|&v| u64::from(v)).collect();
        Ok(PyArray1::from_vec(py, values))
    }

    /// True when no key is searchable (none added, or `index()` not called since).
    #[pyo3(text_signature = "($self)")]
    fn is_empty(&self) -> bool {
        self.sorted.iter().any(Vec::is_empty)
    }

    /// Whether `key` was added (searchable or not).
    fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.index.bind(key.py()).contains(key)
    }

    /// The number of prefix trees.
    #[getter]
    fn l(&self) -> usize {
        self.l
    }

    /// The depth of each tree: values per tree (`num_perm // l`).
    #[getter]
    fn k(&self) -> usize {
        self.k
    }

    /// Each tree's `(start, end)` in the signature.
    #[getter]
    fn hashranges(&self) -> Vec<(usize, usize)> {
        (0..self.l).map(|i| (i * self.k, (i + 1) * self.k)).collect()
    }

    /// datasketch's `hashtables`: per tree, a dict band key -> keys in insertion order,
    /// of every key added (a snapshot).
    #[getter]
    fn hashtables<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let tables: Vec<Bound<'py, PyDict>> = (0..self.l).map(|_| PyDict::new(py)).collect();
        for (o, key) in self.keys.iter().enumerate() {
            let start = o * self.width();
            let sig = &self.values[start..start + self.width()];
            for (t, table) in tables.iter().enumerate() {
                let h = PyBytes::new(py, &band_h(sig, t, self.k));
                match table.get_item(&h)? {
                    Some(list) => list.cast::<PyList>()?.append(key.bind(py))?,
                    None => table.set_item(h, PyList::new(py, [key.bind(py)])?)?,
                }
            }
        }
        PyList::new(py, tables)
    }

    /// datasketch's `keys`: a dict key -> its band keys (one per tree), a snapshot.
    #[getter]
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (o, key) in self.keys.iter().enumerate() {
            out.set_item(key.bind(py), self.band_keys(py, o as u32)?)?;
        }
        Ok(out)
    }

    fn __repr__(&self) -> String {
        format!("MinHashLSHForest(num_perm={}, l={}, k={}, keys={})", self.num_perm, self.l, self.k, self.keys.len())
    }

    /// Pickling: the settings, the keys (any picklable objects) with their values, and
    /// how many of them the last `index()` made searchable.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.borrow();
        let args = (this.num_perm, this.l).into_pyobject(py)?;
        let keys = PyList::new(py, this.keys.iter().map(|k| k.bind(py)))?;
        let values: Vec<u8> = this.values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let indexed = this.sorted.first().map_or(0, Vec::len);
        let state = (this.seed, keys, PyBytes::new(py, &values), indexed).into_pyobject(py)?;
        PyTuple::new(py, [slf.get_type().into_any(), args.into_any(), state.into_any()])
    }

    /// Restores what `__reduce__` saved.
    fn __setstate__(
        &mut self,
        py: Python<'_>,
        state: (Option<u64>, Bound<'_, PyList>, Bound<'_, PyBytes>, usize),
    ) -> PyResult<()> {
        let (seed, keys, values, indexed) = state;
        let values = values.as_bytes();
        if values.len() != keys.len() * self.width() * 4 || indexed > keys.len() {
            return Err(PyValueError::new_err("pickled MinHashLSHForest: values do not match the keys"));
        }
        let index = PyDict::new(py);
        for (o, k) in keys.iter().enumerate() {
            index.set_item(&k, o)?;
        }
        self.seed = seed;
        self.keys = keys.iter().map(Bound::unbind).collect();
        self.index = index.unbind();
        self.values = values.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes"))).collect();
        self.sort(py, indexed);
        Ok(())
    }
}
