//! `tessera.MinHashLSH`: keys of MinHash signatures found by shared LSH bands, in memory
//! or memory-mapped from the engine's sketch store.

use std::collections::HashMap;
use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use tessera_engine::sketch::{LshParams, MinHashConfig, Signature, SketchStore, StoreEntry, StoreSettings};
use xxhash_rust::xxh3::xxh3_64;

use crate::errors;
use crate::minhash::MinHash;

mod saved;
mod sessions;
mod tables;
mod views;

pub use sessions::{DeletionSession, InsertionSession};
pub use views::LshKeys;
pub(crate) use views::band_h;

use saved::{KEYS_FILE, KEYS_FORMAT, KEYS_VERSION, STORE_FILE, corrupt, io_error, key_json, write_atomic};
use tables::key_error;

/// MinHash LSH: finds the keys whose signatures share at least one band with a query's,
/// the candidates of Jaccard similarity around `threshold` and above.
///
/// Bands and rows come from the engine's rule (`LshParams::optimal`, the one `tessera
/// dedup` uses): the `(b, r)` with `b * r <= num_perm` minimising `weights[0] * FP +
/// weights[1] * FN`, the areas of the S-curve on the wrong side of the threshold (the
/// criterion of datasketch's MinHashLSH, whose choices it equals). An empty MinHash is
/// stored but shares no band, so no query finds it and it finds nothing.
///
/// `save(path)` writes a directory: the engine's sketch store (`path/NEAR-<n>.seg`:
/// signatures and sorted band tables, little-endian, crc32-checked, written to a temporary
/// file and renamed; `path/MANIFEST` naming them, `path/LOCK`), and `path/keys.json`,
/// `{"format": "tessera.MinHashLSH", "version": 1, "threshold", "weights", "num_perm",
/// "seed", "bands", "rows", "keys": [...]}` with the keys in insertion order (str or int
/// keys only: no pickle). The store's header carries the xxh3-64 of the keys file, so a
/// keys file of another save is refused.
/// `MinHashLSH.load(path)` opens the store memory-mapped (its checksum verified) and
/// queries it in place; inserts and removes after a load live in memory over it (a
/// removed key masks its store entry) until the next `save`, which writes everything.
///
/// Args:
///     threshold: the Jaccard similarity the bands are tuned for, strictly between 0 and 1.
///     num_perm: the signatures' length; every MinHash inserted or queried must have it.
///     weights: the weights of false positives and false negatives in the choice of bands.
///     params: `(bands, rows)` to use instead of the optimal ones (`threshold` and
///         `weights` are then only checked, as datasketch ignores them).
///     storage_config: None or `{"type": "dict"}` (memory); `tessera.MinHashLSH` sends
///         `{"type": "redis", ...}` to its Redis-backed class before this one.
///     prepickle: as datasketch: True stores `pickle.dumps(key)` instead of each key (the
///         `keys` and `hashtables` views then show those bytes); queries unpickle.
///
/// datasketch's views of the storage: `keys` (`len`, `in`, iteration, `keys()`,
/// `keys[key]`: the key's band keys; calling it, `lsh.keys()`, gives the list of keys),
/// `hashtables` (one dict per band, band key -> keys, a snapshot) and `get_counts()`. A
/// band key is datasketch's for the same values: the band's values as big-endian uint64
/// (8 bytes each), as datasketch writes them for uint64 hash values. The views list an
/// empty MinHash under its band keys as datasketch does, but no query finds it.
#[pyclass(module = "tessera._tessera", name = "MinHashLSH", subclass)]
pub struct MinHashLsh {
    threshold: f64,
    weights: (f64, f64),
    num_perm: usize,
    params: LshParams,
    /// The seed of the signatures: fixed by the first insert (or the store).
    seed: Option<u64>,
    /// Keys by ordinal: the store's entries first, then the inserts after it.
    keys: Vec<Py<PyAny>>,
    /// Whether each ordinal is live (not removed).
    live: Vec<bool>,
    /// Live key -> ordinal.
    index: Py<PyDict>,
    /// The store a `load` opened (ordinals `0..store.len()`).
    store: Option<SketchStore>,
    /// Signatures of the ordinals after the store's.
    signatures: Vec<Signature>,
    /// Per band: key -> ordinals after the store's, ascending.
    bands: Vec<HashMap<u64, Vec<u32>>>,
    count: usize,
    /// datasketch's `prepickle`: keys are stored as `pickle.dumps(key)`.
    prepickle: bool,
    /// Signatures of `add_to_query_buffer`, until `collect_query_buffer`.
    query_buffer: Vec<Signature>,
}

#[pymethods]
impl MinHashLsh {
    #[new]
    #[pyo3(
        signature = (threshold = 0.8, num_perm = 128, weights = (0.5, 0.5), params = None, storage_config = None, prepickle = None),
        text_signature = "(threshold=0.8, num_perm=128, weights=(0.5, 0.5), params=None, storage_config=None, prepickle=None)"
    )]
    fn new(
        py: Python<'_>,
        threshold: f64,
        num_perm: usize,
        weights: (f64, f64),
        params: Option<(usize, usize)>,
        storage_config: Option<&Bound<'_, PyDict>>,
        prepickle: Option<bool>,
    ) -> PyResult<Self> {
        if let Some(config) = storage_config
            && !config.is_empty()
        {
            let kind = config.get_item("type")?;
            let is_dict = match &kind {
                Some(k) => k.extract::<String>().is_ok_and(|t| t == "dict"),
                None => false,
            };
            if !is_dict {
                let shown = kind.map(|k| k.repr().map(|r| r.to_string()).unwrap_or_default()).unwrap_or("none".into());
                return Err(PyValueError::new_err(format!(
                    "storage_config type {shown}: tessera._tessera.MinHashLSH keeps its tables in memory \
                     (type 'dict'); 'redis' is handled by tessera.MinHashLSH"
                )));
            }
        }
        let params = match params {
            None => LshParams::optimal(threshold, num_perm, weights.0, weights.1).map_err(errors::setting)?,
            Some((bands, rows)) => {
                // The engine's checks of threshold and weights, without the search over
                // every (b, r) of num_perm (datasketch ignores them with params).
                LshParams::optimal(threshold, 1, weights.0, weights.1).map_err(errors::setting)?;
                let p = LshParams { bands, rows };
                p.validate(num_perm).map_err(errors::setting)?;
                p
            }
        };
        let mut lsh = Self::empty(py, threshold, weights, num_perm, params);
        lsh.prepickle = prepickle.unwrap_or(false);
        Ok(lsh)
    }

    /// Inserts `minhash` under `key` (any hashable; str or int to `save`). `ValueError`
    /// when the key is there already, or the MinHash's `num_perm` or `seed` differ.
    /// `check_duplication` is datasketch's; the check is a dict lookup here, so it is
    /// always made (a key twice would corrupt the tables).
    #[pyo3(signature = (key, minhash, check_duplication = true))]
    fn insert(&mut self, key: &Bound<'_, PyAny>, minhash: PyRef<'_, MinHash>, check_duplication: bool) -> PyResult<()> {
        let _ = check_duplication;
        let py = key.py();
        let key = self.stored(key)?;
        if self.index.bind(py).contains(&key)? {
            return Err(key_error(&key, "is already in the LSH"));
        }
        self.check(&minhash, "insert")?;
        let seed = minhash.config().seed;
        self.insert_many(py, vec![(key.unbind(), minhash.signature())], seed)
    }

    /// A context manager for many inserts (datasketch's): `session.insert(key, minhash)`
    /// checks at once and buffers; every `buffer_size` inserts, and when the `with` block
    /// ends, the buffer's band keys are computed in parallel and the keys enter the LSH
    /// (so they are found from then on).
    #[pyo3(signature = (buffer_size = 50000))]
    fn insertion_session(slf: &Bound<'_, Self>, buffer_size: usize) -> PyResult<InsertionSession> {
        if buffer_size == 0 {
            return Err(PyValueError::new_err("buffer_size must be at least 1"));
        }
        Ok(InsertionSession {
            lsh: slf.clone().unbind(),
            buffer: Vec::new(),
            pending: PyDict::new(slf.py()).unbind(),
            seed: None,
            buffer_size,
        })
    }

    /// A context manager for many removes (datasketch's): `session.remove(key)` removes
    /// at once (removal from memory has nothing to batch).
    #[pyo3(signature = (buffer_size = 50000))]
    fn deletion_session(slf: &Bound<'_, Self>, buffer_size: usize) -> DeletionSession {
        let _ = buffer_size;
        DeletionSession { lsh: slf.clone().unbind() }
    }

    /// Adds every key of `other` (of the same num_perm, bands and rows, and seed), as
    /// datasketch's `merge`. `check_overlap=True`: `ValueError` when a key is in both.
    /// Without it, a key in both takes `other`'s MinHash (datasketch would keep both
    /// under the key; a key has one signature here).
    #[pyo3(signature = (other, check_overlap = false))]
    fn merge(slf: &Bound<'_, Self>, other: &Bound<'_, MinHashLsh>, check_overlap: bool) -> PyResult<()> {
        let py = slf.py();
        if slf.is(other) {
            if check_overlap && slf.borrow().count > 0 {
                return Err(PyValueError::new_err("The keys are overlapping, duplicate key exists."));
            }
            return Ok(());
        }
        let mut this = slf.borrow_mut();
        let o = other.borrow();
        if this.num_perm != o.num_perm || this.params != o.params {
            return Err(PyValueError::new_err("Cannot merge MinHashLSH with different initialization parameters."));
        }
        let seed = match (this.seed, o.seed) {
            (Some(a), Some(b)) if a != b => {
                return Err(PyValueError::new_err(format!(
                    "Cannot merge MinHashLSH of MinHashes of seed {b} into one of seed {a}"
                )));
            }
            (_, None) => return Ok(()),
            (_, Some(b)) => b,
        };
        let index = this.index.bind(py).clone();
        if check_overlap {
            for ord in o.live_ordinals() {
                if index.contains(o.keys[ord].bind(py))? {
                    return Err(PyValueError::new_err("The keys are overlapping, duplicate key exists."));
                }
            }
        }
        let mut items = Vec::with_capacity(o.count);
        for ord in o.live_ordinals() {
            let key = o.keys[ord].bind(py);
            if index.contains(key)? {
                this.remove_stored(key)?;
            }
            items.push((key.clone().unbind(), o.signature_at(ord)));
        }
        this.insert_many(py, items, seed)
    }

    /// Whether the LSH holds no key.
    #[pyo3(text_signature = "($self)")]
    fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Buffers a query (datasketch's): `collect_query_buffer` answers all at once.
    /// `ValueError` as `query`.
    #[pyo3(text_signature = "($self, minhash)")]
    fn add_to_query_buffer(&mut self, minhash: PyRef<'_, MinHash>) -> PyResult<()> {
        self.check(&minhash, "query")?;
        self.query_buffer.push(minhash.signature());
        Ok(())
    }

    /// The keys that are candidates of *every* buffered query (datasketch's
    /// intersection), in insertion order; empties the buffer. `[]` when none was buffered.
    #[pyo3(text_signature = "($self)")]
    fn collect_query_buffer<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let queries = std::mem::take(&mut self.query_buffer);
        if queries.is_empty() {
            return Ok(PyList::empty(py));
        }
        let this = &*self;
        let found = py.detach(|| {
            let mut sets = queries.iter().map(|q| this.candidates(q));
            let mut out = sets.next().unwrap_or_default();
            for s in sets {
                out.retain(|o| s.binary_search(o).is_ok());
            }
            out
        });
        self.given(py, &found)
    }

    /// Per band, datasketch's bucket sizes: a list of `b` dicts, band key (bytes, see
    /// the class) -> number of keys.
    #[pyo3(text_signature = "($self)")]
    fn get_counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.counts(py, self.live_ordinals())
    }

    /// `get_counts` restricted to the keys given (keys not in the LSH count nothing).
    #[pyo3(signature = (*keys))]
    fn get_subset_counts<'py>(&self, py: Python<'py>, keys: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyList>> {
        let index = self.index.bind(py);
        let mut ordinals = Vec::new();
        for key in keys.iter() {
            if let Some(o) = index.get_item(self.stored(&key)?)? {
                ordinals.push(o.extract::<usize>()?);
            }
        }
        ordinals.sort_unstable();
        ordinals.dedup();
        self.counts(py, ordinals.into_iter())
    }

    /// datasketch's `hashtables`: per band, a dict band key (bytes, see the class) ->
    /// list of keys (stored form), built on each read (a snapshot for inspection).
    #[getter]
    fn hashtables<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let tables: Vec<Bound<'py, PyDict>> = (0..self.params.bands).map(|_| PyDict::new(py)).collect();
        for o in self.live_ordinals() {
            let sig = self.signature_at(o);
            let key = self.keys[o].bind(py);
            for (b, table) in tables.iter().enumerate() {
                let h = PyBytes::new(py, &band_h(&sig.0, b, self.params.rows));
                match table.get_item(&h)? {
                    Some(list) => list.cast::<PyList>()?.append(key)?,
                    None => table.set_item(h, PyList::new(py, [key])?)?,
                }
            }
        }
        PyList::new(py, tables)
    }

    /// datasketch's `keys` storage: `len`, `in`, iteration and `keys()` over the keys
    /// (stored form), `keys[key]` the key's band keys; calling it gives the list of keys.
    #[getter]
    fn keys(slf: &Bound<'_, Self>) -> LshKeys {
        LshKeys { lsh: slf.clone().unbind() }
    }

    /// Number of values of the MinHashes (datasketch's `h`).
    #[getter]
    fn h(&self) -> usize {
        self.num_perm
    }

    /// Each band's `(start, end)` in the signature (datasketch's `hashranges`).
    #[getter]
    fn hashranges(&self) -> Vec<(usize, usize)> {
        let r = self.params.rows;
        (0..self.params.bands).map(|i| (i * r, (i + 1) * r)).collect()
    }

    /// Whether keys are stored pickled.
    #[getter]
    fn prepickle(&self) -> bool {
        self.prepickle
    }

    /// Pickling, in memory: the settings (as positional arguments of the class, so a
    /// subclass is rebuilt by its own constructor), then every live key (any picklable
    /// object) with its signature and `prepickle`, so an LSH loaded from a store comes
    /// back whole, in memory.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.borrow();
        let args =
            (this.threshold, this.num_perm, this.weights, (this.params.bands, this.params.rows)).into_pyobject(py)?;
        let keys = PyList::new(py, this.live_ordinals().map(|o| this.keys[o].bind(py)))?;
        let mut values = Vec::with_capacity(this.count * this.num_perm * 4);
        for o in this.live_ordinals() {
            values.extend(this.signature_at(o).0.iter().flat_map(|v| v.to_le_bytes()));
        }
        let state = (this.seed, keys, PyBytes::new(py, &values), this.prepickle).into_pyobject(py)?;
        PyTuple::new(py, [slf.get_type().into_any(), args.into_any(), state.into_any()])
    }

    /// Restores what `__reduce__` saved (into a new, empty LSH).
    fn __setstate__(
        &mut self,
        py: Python<'_>,
        state: (Option<u64>, Bound<'_, PyList>, Bound<'_, PyBytes>, bool),
    ) -> PyResult<()> {
        let (seed, keys, values, prepickle) = state;
        let values = values.as_bytes();
        let width = self.num_perm * 4;
        if values.len() != keys.len() * width {
            return Err(PyValueError::new_err("pickled MinHashLSH: values do not match the keys"));
        }
        let items: Vec<(Py<PyAny>, Signature)> = keys
            .iter()
            .zip(values.chunks_exact(width))
            .map(|(k, v)| {
                let sig = v.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes"))).collect();
                (k.unbind(), Signature(sig))
            })
            .collect();
        *self = Self::empty(py, self.threshold, self.weights, self.num_perm, self.params);
        self.prepickle = prepickle;
        match seed {
            Some(seed) => self.insert_many(py, items, seed),
            None => Ok(()),
        }
    }

    /// The keys whose signatures share at least one band with `minhash`'s, in insertion
    /// order (candidates: check them with `MinHash.jaccard` when precision matters).
    #[pyo3(text_signature = "($self, minhash)")]
    fn query<'py>(&self, py: Python<'py>, minhash: PyRef<'_, MinHash>) -> PyResult<Bound<'py, PyList>> {
        self.check(&minhash, "query")?;
        let sig = minhash.signature();
        let found = py.detach(|| self.candidates(&sig));
        self.given(py, &found)
    }

    /// Removes `key`. `ValueError` when it is not there.
    #[pyo3(text_signature = "($self, key)")]
    fn remove(&mut self, key: &Bound<'_, PyAny>) -> PyResult<()> {
        let key = self.stored(key)?;
        self.remove_stored(&key)
    }

    /// Writes the LSH to the directory `path` (created if needed; see the class
    /// docstring for the files). `TypeError` for a key that is not str or int;
    /// `TesseraError` naming the file when writing fails.
    #[pyo3(text_signature = "($self, path)")]
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let mut keys = Vec::with_capacity(self.count);
        let mut ordinals = Vec::with_capacity(self.count);
        for (i, (k, live)) in self.keys.iter().zip(&self.live).enumerate() {
            if *live {
                keys.push(key_json(k.bind(py))?);
                ordinals.push(i);
            }
        }
        let seed = self.seed.unwrap_or(1);
        let json = serde_json::json!({
            "format": KEYS_FORMAT,
            "version": KEYS_VERSION,
            "threshold": self.threshold,
            "weights": [self.weights.0, self.weights.1],
            "num_perm": self.num_perm,
            "seed": seed,
            "bands": self.params.bands,
            "rows": self.params.rows,
            "keys": keys,
        });
        let mut bytes = serde_json::to_vec(&json).map_err(errors::store)?;
        bytes.push(b'\n');
        py.detach(|| {
            std::fs::create_dir_all(&path).map_err(|e| io_error(&path, e))?;
            let entries: Vec<StoreEntry> = ordinals
                .iter()
                .enumerate()
                .map(|(doc, &o)| StoreEntry { doc: doc as u64, signature: self.signature_at(o), simhash: 0 })
                .collect();
            let settings = StoreSettings {
                minhash: MinHashConfig { num_perm: self.num_perm, seed },
                lsh: self.params,
                // No SimHash here: distance 0 (one table of the zero fingerprints).
                simhash_distance: 0,
                settings_hash: xxh3_64(&bytes),
                // The store is the only copy of the signatures (a later save rewrites it).
                signatures: true,
            };
            tessera_engine::sketch::write_store(&path.join(STORE_FILE), &settings, &entries).map_err(errors::store)?;
            write_atomic(&path.join(KEYS_FILE), &bytes)
        })
    }

    /// Opens an LSH written by `save`: the store memory-mapped and verified (checksum,
    /// sizes), the keys read. `TesseraError` naming the file when a file is missing,
    /// damaged, or the two files come from different saves.
    #[staticmethod]
    #[pyo3(text_signature = "(path)")]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let keys_path = path.join(KEYS_FILE);
        let store_path = path.join(STORE_FILE);
        let (bytes, store) = py.detach(|| -> PyResult<(Vec<u8>, SketchStore)> {
            let bytes = std::fs::read(&keys_path).map_err(|e| io_error(&keys_path, e))?;
            let store = SketchStore::open(&store_path).map_err(errors::store)?;
            Ok((bytes, store))
        })?;
        if store.settings().settings_hash != xxh3_64(&bytes) {
            return Err(corrupt(
                &keys_path,
                format!("it does not belong to {} (the two files come from different saves)", store_path.display()),
            ));
        }
        let json: serde_json::Value =
            serde_json::from_slice(&bytes).map_err(|e| corrupt(&keys_path, format!("not JSON: {e}")))?;
        if json["format"] != KEYS_FORMAT || json["version"] != KEYS_VERSION {
            return Err(corrupt(&keys_path, format!("not a {KEYS_FORMAT} keys file of version {KEYS_VERSION}")));
        }
        let number = |name: &str| json[name].as_f64().ok_or_else(|| corrupt(&keys_path, format!("no {name}")));
        let threshold = number("threshold")?;
        let weights = match json["weights"]
            .as_array()
            .map(|w| (w.first().and_then(|v| v.as_f64()), w.get(1).and_then(|v| v.as_f64())))
        {
            Some((Some(a), Some(b))) => (a, b),
            _ => return Err(corrupt(&keys_path, "no weights")),
        };
        let keys = json["keys"].as_array().ok_or_else(|| corrupt(&keys_path, "no keys"))?;
        if keys.len() != store.len() {
            return Err(corrupt(&keys_path, format!("{} keys for {} signatures", keys.len(), store.len())));
        }
        let s = store.settings();
        if !s.signatures {
            return Err(corrupt(&store_path, "it holds no signatures (not written by MinHashLSH.save)"));
        }
        let mut lsh = Self::empty(py, threshold, weights, s.minhash.num_perm, s.lsh);
        lsh.seed = Some(s.minhash.seed);
        let index = lsh.index.bind(py).clone();
        for (i, k) in keys.iter().enumerate() {
            let key = match k {
                serde_json::Value::String(s) => PyString::new(py, s).into_any(),
                serde_json::Value::Number(n) => match (n.as_i64(), n.as_u64()) {
                    (Some(v), _) => v.into_pyobject(py)?.into_any(),
                    (None, Some(v)) => v.into_pyobject(py)?.into_any(),
                    _ => return Err(corrupt(&keys_path, format!("key {n} is not an integer"))),
                },
                other => return Err(corrupt(&keys_path, format!("key {other} is not a str or int"))),
            };
            if index.contains(&key)? {
                return Err(corrupt(&keys_path, format!("key {k} appears twice")));
            }
            index.set_item(&key, i)?;
            lsh.keys.push(key.unbind());
            lsh.live.push(true);
        }
        lsh.count = keys.len();
        lsh.store = Some(store);
        Ok(lsh)
    }

    /// Whether `key` is in the LSH.
    fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.index.bind(key.py()).contains(self.stored(key)?)
    }

    fn __len__(&self) -> usize {
        self.count
    }

    /// Number of bands (datasketch's `b`).
    #[getter]
    fn b(&self) -> usize {
        self.params.bands
    }

    /// Values per band (datasketch's `r`).
    #[getter]
    fn r(&self) -> usize {
        self.params.rows
    }

    /// The threshold the bands were chosen for.
    #[getter]
    fn threshold(&self) -> f64 {
        self.threshold
    }

    /// The signatures' length.
    #[getter]
    fn num_perm(&self) -> usize {
        self.num_perm
    }

    /// The weights of false positives and false negatives.
    #[getter]
    fn weights(&self) -> (f64, f64) {
        self.weights
    }

    /// The seed of the signatures inserted (None before the first insert).
    #[getter]
    fn seed(&self) -> Option<u64> {
        self.seed
    }

    /// The store this LSH was loaded from, if any.
    #[getter]
    fn store_path(&self) -> Option<PathBuf> {
        self.store.as_ref().map(|s| s.path().to_path_buf())
    }

    fn __repr__(&self) -> String {
        format!(
            "MinHashLSH(threshold={}, num_perm={}, b={}, r={}, keys={})",
            self.threshold, self.num_perm, self.params.bands, self.params.rows, self.count
        )
    }
}
