//! `tessera.MinHashLSH`: keys of MinHash signatures found by shared LSH bands, in memory
//! or memory-mapped from the engine's sketch store.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString};
use tessera_engine::sketch::{LshParams, MinHashConfig, Signature, SketchStore, StoreEntry, StoreSettings};
use xxhash_rust::xxh3::xxh3_64;

use crate::errors::{self, TesseraError};
use crate::minhash::MinHash;

/// The sketch store's file inside a saved LSH directory.
const STORE_FILE: &str = "NEAR";
/// The keys' file inside a saved LSH directory.
const KEYS_FILE: &str = "keys.json";
/// `format` of the keys file.
const KEYS_FORMAT: &str = "tessera.MinHashLSH";
/// `version` of the keys file this build reads and writes.
const KEYS_VERSION: u64 = 1;

/// MinHash LSH: finds the keys whose signatures share at least one band with a query's,
/// the candidates of Jaccard similarity around `threshold` and above.
///
/// Bands and rows come from the engine's rule (`LshParams::optimal`, the one `tessera
/// dedup` uses): the `(b, r)` with `b * r <= num_perm` minimising `weights[0] * FP +
/// weights[1] * FN`, the areas of the S-curve on the wrong side of the threshold (the
/// criterion of datasketch's MinHashLSH, whose choices it equals). An empty MinHash is
/// stored but shares no band, so no query finds it and it finds nothing.
///
/// `save(path)` writes a directory: `path/NEAR`, the engine's sketch store (signatures
/// and sorted band tables, little-endian, crc32-checked, written to a temporary file and
/// renamed), and `path/keys.json`, `{"format": "tessera.MinHashLSH", "version": 1,
/// "threshold", "weights", "num_perm", "seed", "bands", "rows", "keys": [...]}` with the
/// keys in insertion order (str or int keys only: no pickle). The store's header carries
/// the xxh3-64 of the keys file, so a keys file of another save is refused.
/// `MinHashLSH.load(path)` opens the store memory-mapped (its checksum verified) and
/// queries it in place; inserts and removes after a load live in memory over it (a
/// removed key masks its store entry) until the next `save`, which writes everything.
///
/// Args:
///     threshold: the Jaccard similarity the bands are tuned for, strictly between 0 and 1.
///     num_perm: the signatures' length; every MinHash inserted or queried must have it.
///     weights: the weights of false positives and false negatives in the choice of bands.
///     params: `(bands, rows)` to use instead of the optimal ones.
#[pyclass(module = "tessera._tessera", name = "MinHashLSH")]
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
}

fn key_error(key: &Bound<'_, PyAny>, what: &str) -> PyErr {
    let repr = key.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
    PyValueError::new_err(format!("key {repr} {what}"))
}

impl MinHashLsh {
    fn empty(py: Python<'_>, threshold: f64, weights: (f64, f64), num_perm: usize, params: LshParams) -> Self {
        Self {
            threshold,
            weights,
            num_perm,
            params,
            seed: None,
            keys: Vec::new(),
            live: Vec::new(),
            index: PyDict::new(py).unbind(),
            store: None,
            signatures: Vec::new(),
            bands: vec![HashMap::new(); params.bands],
            count: 0,
        }
    }

    fn base(&self) -> usize {
        self.store.as_ref().map_or(0, SketchStore::len)
    }

    fn check(&self, m: &MinHash, what: &str) -> PyResult<()> {
        let c = m.config();
        if c.num_perm != self.num_perm {
            return Err(PyValueError::new_err(format!(
                "cannot {what} a MinHash of num_perm {} in an LSH of num_perm {}",
                c.num_perm, self.num_perm
            )));
        }
        if let Some(seed) = self.seed
            && seed != c.seed
        {
            return Err(PyValueError::new_err(format!(
                "cannot {what} a MinHash of seed {} in an LSH of MinHashes of seed {seed}",
                c.seed
            )));
        }
        Ok(())
    }

    /// Live ordinals sharing a band with `sig`, ascending (= insertion order).
    fn candidates(&self, sig: &Signature) -> Vec<u32> {
        let mut out = match &self.store {
            Some(store) => store.lsh_candidates(sig),
            None => Vec::new(),
        };
        if self.params.fits(sig) {
            for (band, key) in self.bands.iter().zip(self.params.band_keys(sig)) {
                if let Some(ordinals) = band.get(&key) {
                    out.extend_from_slice(ordinals);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out.retain(|&o| self.live[o as usize]);
        out
    }

    fn signature_at(&self, ordinal: usize) -> Signature {
        match &self.store {
            // `load` refuses a store without signatures.
            Some(store) if ordinal < store.len() => store.signature(ordinal).unwrap_or_else(|| Signature(Vec::new())),
            _ => self.signatures[ordinal - self.base()].clone(),
        }
    }
}

/// A key as JSON: a str or an int, nothing else (no pickle in a saved file).
fn key_json(key: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
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

fn io_error(path: &Path, e: std::io::Error) -> PyErr {
    TesseraError::new_err(format!("{}: {e}", path.display()))
}

fn corrupt(path: &Path, reason: impl std::fmt::Display) -> PyErr {
    TesseraError::new_err(format!("{}: corrupt: {reason}", path.display()))
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, synced, renamed.
fn write_atomic(path: &Path, bytes: &[u8]) -> PyResult<()> {
    use std::io::Write;
    let tmp = path.with_extension(format!("json.tmp.{}", std::process::id()));
    let mut f = std::fs::File::create(&tmp).map_err(|e| io_error(&tmp, e))?;
    f.write_all(bytes).and_then(|()| f.sync_all()).map_err(|e| io_error(&tmp, e))?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(|e| io_error(path, e))
}

#[pymethods]
impl MinHashLsh {
    #[new]
    #[pyo3(
        signature = (threshold = 0.8, num_perm = 128, weights = (0.5, 0.5), params = None),
        text_signature = "(threshold=0.8, num_perm=128, weights=(0.5, 0.5), params=None)"
    )]
    fn new(
        py: Python<'_>,
        threshold: f64,
        num_perm: usize,
        weights: (f64, f64),
        params: Option<(usize, usize)>,
    ) -> PyResult<Self> {
        let optimal = LshParams::optimal(threshold, num_perm, weights.0, weights.1).map_err(errors::setting)?;
        let params = match params {
            None => optimal,
            Some((bands, rows)) => {
                let p = LshParams { bands, rows };
                p.validate(num_perm).map_err(errors::setting)?;
                p
            }
        };
        Ok(Self::empty(py, threshold, weights, num_perm, params))
    }

    /// Inserts `minhash` under `key` (any hashable; str or int to `save`). `ValueError`
    /// when the key is there already, or the MinHash's `num_perm` or `seed` differ.
    #[pyo3(text_signature = "($self, key, minhash)")]
    fn insert(&mut self, key: &Bound<'_, PyAny>, minhash: PyRef<'_, MinHash>) -> PyResult<()> {
        let index = self.index.bind(key.py());
        if index.contains(key)? {
            return Err(key_error(key, "is already in the LSH"));
        }
        self.check(&minhash, "insert")?;
        let ordinal = self.keys.len();
        let ordinal32 = u32::try_from(ordinal).map_err(|_| PyValueError::new_err("the LSH is full (2**32 keys)"))?;
        let sig = minhash.signature();
        if self.params.fits(&sig) {
            for (band, k) in self.bands.iter_mut().zip(self.params.band_keys(&sig)) {
                band.entry(k).or_default().push(ordinal32);
            }
        }
        index.set_item(key, ordinal)?;
        self.keys.push(key.clone().unbind());
        self.live.push(true);
        self.signatures.push(sig);
        self.seed = Some(minhash.config().seed);
        self.count += 1;
        Ok(())
    }

    /// The keys whose signatures share at least one band with `minhash`'s, in insertion
    /// order (candidates: check them with `MinHash.jaccard` when precision matters).
    #[pyo3(text_signature = "($self, minhash)")]
    fn query<'py>(&self, py: Python<'py>, minhash: PyRef<'_, MinHash>) -> PyResult<Bound<'py, PyList>> {
        self.check(&minhash, "query")?;
        let sig = minhash.signature();
        let found = py.detach(|| self.candidates(&sig));
        PyList::new(py, found.into_iter().map(|o| self.keys[o as usize].bind(py)))
    }

    /// Removes `key`. `ValueError` when it is not there.
    #[pyo3(text_signature = "($self, key)")]
    fn remove(&mut self, key: &Bound<'_, PyAny>) -> PyResult<()> {
        let index = self.index.bind(key.py());
        let Some(ordinal) = index.get_item(key)? else {
            return Err(key_error(key, "is not in the LSH"));
        };
        let ordinal: usize = ordinal.extract()?;
        index.del_item(key)?;
        self.live[ordinal] = false;
        self.count -= 1;
        if ordinal >= self.base() {
            let sig = &self.signatures[ordinal - self.base()];
            if self.params.fits(sig) {
                let o = ordinal as u32;
                for (band, k) in self.bands.iter_mut().zip(self.params.band_keys(sig)) {
                    if let Some(v) = band.get_mut(&k) {
                        v.retain(|&x| x != o);
                        if v.is_empty() {
                            band.remove(&k);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The keys, in insertion order.
    #[pyo3(text_signature = "($self)")]
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.keys.iter().zip(&self.live).filter(|(_, l)| **l).map(|(k, _)| k.bind(py)))
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
        self.index.bind(key.py()).contains(key)
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
