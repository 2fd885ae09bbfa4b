//! `tessera.MinHashLSH(storage_config={"type": "redis", ...})`: a MinHash LSH kept in
//! Redis, so that many processes (and machines) insert into and query one index.
//!
//! The band rule is the in-memory LSH's (the engine's `LshParams`: the same bands, rows
//! and band keys), so both give the same candidates for the same signatures. What Redis
//! adds is sharing: every write is one Lua script per key (atomic on the server), buckets
//! are separate Redis sets, and no client holds a lock, so writers and readers in any
//! number of processes work at once. Batches go out as pipelines (one round trip per
//! batch); a single query is one round trip.
//!
//! Layout under a basename `B` (bytes; datasketch's `basename`):
//!
//! | Redis key | type | holds |
//! | --- | --- | --- |
//! | `B:params` | string | JSON `{"format", "version", "threshold", "weights", "num_perm", "bands", "rows", "prepickle"}`, written once (`SET NX`) by the first opener |
//! | `B:seed` | string | the MinHash seed, written once by the first insert |
//! | `B:next` | string | the last key id given (`INCR`) |
//! | `B:keys` | hash | stored key -> `"<id>:"` + its band keys (8 bytes big-endian each), for `remove` and `in` |
//! | `B:ids` | hash | id (decimal) -> stored key, for answers |
//! | `B:b` + band (2 bytes big-endian) + band key (8 bytes big-endian) | set | the ids of the keys in that bucket |
//!
//! A bucket holds integer ids, not keys: Redis keeps such a set as an intset (a few bytes
//! an entry, where a set of strings is a hash table), and the ids give every answer in
//! insertion order across all writers. A stored key is a type tag and the key's bytes:
//! `s` + UTF-8 for a str, `b` + the bytes for bytes, `i` + decimal digits for an int
//! (readable from any language), or with `prepickle=True` `p` + the key's pickle.

use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use tessera_engine::sketch::{LshParams, Signature};

use crate::errors;
use crate::minhash::MinHash;

mod config;
mod keys;
mod link;
mod params;
mod scripts;
mod session;

pub(crate) use link::connection_error_type;
pub use session::RedisInsertionSession;

use config::{random_basename, setting, target};
use keys::{Entry, Names, decode_key, encode_key, parse_record};
use link::{Failure, Link, detached};
use scripts::{REMOVE_LUA, evalsha, load, scripts};

/// Keys an insertion session sends per pipeline unless told otherwise (datasketch's).
const DEFAULT_BUFFER: usize = 50_000;
/// Fields per `HSCAN` step of `keys()`: the server answers other clients between steps.
const SCAN_COUNT: usize = 10_000;
/// Times `remove` re-reads a key that another process replaced between its read and its
/// delete before it gives up.
const REMOVE_ATTEMPTS: usize = 16;

/// A MinHash LSH stored in Redis and shared by every process that opens its basename.
///
/// Made by `tessera.MinHashLSH(threshold, num_perm, weights, params,
/// storage_config={"type": "redis", "redis": {"host": ..., "port": ...}, "basename":
/// b"..."})`, datasketch's configuration. Bands and rows are the in-memory LSH's (the
/// engine's rule), so the same signatures give the same candidates. The first process to
/// open a basename records the parameters there; a later one with other parameters is
/// refused (`ValueError`). The seed of the MinHashes is recorded by the first insert.
///
/// Keys are str, bytes or int, stored as a type tag and the key's bytes (readable from
/// any language). `prepickle=True` stores any picklable key as its pickle instead, as
/// datasketch does by default for Redis (reading them back unpickles what the database
/// holds: only for a database no one untrusted writes to). Answers come in insertion
/// order over all writers. Each insert and remove is one Lua script, atomic on the server: no lock,
/// so many processes insert and query at once. `insertion_session()` sends inserts in
/// pipelines of `buffer_size`.
///
/// `storage_config["redis"]` takes `host` (default "localhost"), `port` (6379), `db` (0),
/// `username`, `password`, `unix_socket_path`, `socket_connect_timeout` (seconds;
/// default 5) and `socket_timeout` (seconds per reply; default 60; None waits forever);
/// a value may be `{"env": NAME, "default": ...}`, read from the environment as
/// datasketch does. `storage_config["redis_buffer"] = {"transaction": True}` sends each
/// pipeline as one MULTI/EXEC transaction (all of a batch visible at once, and other
/// clients wait for it); the default sends it plain, each key atomic on its own.
///
/// An unreachable or silent server raises `tessera.RedisConnectionError` (a
/// `TesseraError` and a `ConnectionError`) naming its address; a command the server
/// refuses raises `TesseraError`.
#[pyclass(module = "tessera._tessera", name = "RedisMinHashLSH", frozen)]
pub struct RedisMinHashLsh {
    threshold: f64,
    weights: (f64, f64),
    num_perm: usize,
    params: LshParams,
    basename: Vec<u8>,
    names: Names,
    /// The seed recorded in Redis, once known (it never changes for a basename).
    seed: OnceLock<u64>,
    /// Keys are pickled (datasketch's `prepickle`), recorded with the parameters.
    prepickle: bool,
    transaction: bool,
    /// The storage_config given, with the basename filled in: pickling reopens from it.
    config: Py<PyDict>,
    link: Mutex<Link>,
}

impl RedisMinHashLsh {
    fn run<T>(&self, f: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>) -> Result<T, Failure> {
        // A panic in another thread mid-command leaves nothing half-done here that the
        // next command cannot survive (an I/O error drops the connection).
        let mut link = self.link.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        link.run(f)
    }

    fn address(&self) -> String {
        self.link.lock().unwrap_or_else(std::sync::PoisonError::into_inner).target.address.clone()
    }

    fn check_perm(&self, m: &MinHash, what: &str) -> PyResult<()> {
        let n = m.config().num_perm;
        if n != self.num_perm {
            return Err(PyValueError::new_err(format!(
                "cannot {what} a MinHash of num_perm {n} in an LSH of num_perm {}",
                self.num_perm
            )));
        }
        Ok(())
    }

    fn entry(&self, key: &Bound<'_, PyAny>, m: &MinHash) -> PyResult<Entry> {
        let key = encode_key(key, self.prepickle)?;
        self.check_perm(m, "insert")?;
        let sig = m.signature();
        let bands = if self.params.fits(&sig) { self.params.band_keys(&sig) } else { Vec::new() };
        Ok(Entry { key, bands })
    }

    fn keys_list<'py>(py: Python<'py>, stored: &[Vec<u8>]) -> PyResult<Bound<'py, PyList>> {
        let keys = stored.iter().map(|k| decode_key(py, k)).collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, keys)
    }

    fn signature_of(&self, m: &MinHash, what: &str) -> PyResult<(Signature, u64)> {
        self.check_perm(m, what)?;
        Ok((m.signature(), m.config().seed))
    }
}

#[pymethods]
impl RedisMinHashLsh {
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
        let Some(cfg) = storage_config else {
            return Err(PyTypeError::new_err(
                "RedisMinHashLSH needs storage_config={'type': 'redis', 'redis': {...}, 'basename': b'...'}",
            ));
        };
        let optimal = LshParams::optimal(threshold, num_perm, weights.0, weights.1).map_err(errors::setting)?;
        let params = match params {
            None => optimal,
            Some((bands, rows)) => {
                let p = LshParams { bands, rows };
                p.validate(num_perm).map_err(errors::setting)?;
                p
            }
        };
        if u16::try_from(params.bands).is_err() {
            return Err(PyValueError::new_err(format!("{} bands: a Redis LSH has at most 65535", params.bands)));
        }
        let mut redis_cfg = None;
        let mut basename = None;
        let mut transaction = false;
        for (k, v) in cfg.iter() {
            let name: String = k.extract()?;
            match name.as_str() {
                "type" => {
                    let t: String = v.extract()?;
                    if t != "redis" {
                        return Err(PyValueError::new_err(format!(
                            "RedisMinHashLSH takes storage_config of type 'redis', not {t:?}"
                        )));
                    }
                }
                "redis" => redis_cfg = Some(v),
                "basename" => {
                    let b = if let Ok(s) = v.cast::<PyString>() {
                        s.to_cow()?.as_bytes().to_vec()
                    } else {
                        v.extract::<Vec<u8>>()
                            .map_err(|_| PyTypeError::new_err("storage_config['basename'] must be bytes or str"))?
                    };
                    if b.is_empty() {
                        return Err(PyValueError::new_err("storage_config['basename'] must not be empty"));
                    }
                    basename = Some(b);
                }
                "redis_buffer" => {
                    let d = v.cast::<PyDict>().map_err(|_| {
                        PyTypeError::new_err(
                            "storage_config['redis_buffer'] must be a dict such as {'transaction': True}",
                        )
                    })?;
                    for (bk, bv) in d.iter() {
                        let bk: String = bk.extract()?;
                        if bk != "transaction" {
                            return Err(PyValueError::new_err(format!(
                                "storage_config['redis_buffer'][{bk:?}] is not understood (it takes 'transaction')"
                            )));
                        }
                        transaction = setting(py, bv)?.is_truthy()?;
                    }
                }
                other => {
                    return Err(PyValueError::new_err(format!(
                        "storage_config[{other:?}] is not understood (it takes 'type', 'redis', 'basename', 'redis_buffer')"
                    )));
                }
            }
        }
        let basename = basename.unwrap_or_else(random_basename);
        let target = target(py, redis_cfg)?;
        let config = cfg.copy()?;
        config.set_item("basename", PyBytes::new(py, &basename))?;
        let lsh = Self {
            threshold,
            weights,
            num_perm,
            params,
            names: Names::new(&basename),
            basename,
            seed: OnceLock::new(),
            prepickle: prepickle.unwrap_or(false),
            transaction,
            config: config.unbind(),
            link: Mutex::new(Link { target, conn: None }),
        };
        lsh.open(py)?;
        Ok(lsh)
    }

    /// Inserts `minhash` under `key` (str, bytes or int; any picklable key with
    /// `prepickle`). `ValueError` when the key is there already (in any process's
    /// inserts), or the MinHash's `num_perm` or `seed` differ from the LSH's.
    /// `check_duplication` is datasketch's: the check is part of the insert's script (a
    /// key twice would leave stale buckets), so it is always made.
    #[pyo3(signature = (key, minhash, check_duplication = true))]
    fn insert(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        minhash: PyRef<'_, MinHash>,
        check_duplication: bool,
    ) -> PyResult<()> {
        let _ = check_duplication;
        let entry = self.entry(key, &minhash)?;
        let seed = minhash.config().seed;
        drop(minhash);
        let inserted = detached(py, || {
            self.ensure_seed(seed, "insert")?;
            self.insert_batch(std::slice::from_ref(&entry))
        })?;
        if inserted.first() != Some(&true) {
            return Err(PyValueError::new_err(format!(
                "key {} is already in the LSH",
                key.repr().map(|r| r.to_string()).unwrap_or_default()
            )));
        }
        Ok(())
    }

    /// A context manager that sends inserts in pipelines of `buffer_size` (and the rest
    /// when it closes), as datasketch's `insertion_session`.
    #[pyo3(signature = (buffer_size = DEFAULT_BUFFER), text_signature = "($self, buffer_size=50000)")]
    fn insertion_session(slf: &Bound<'_, Self>, buffer_size: usize) -> PyResult<RedisInsertionSession> {
        if buffer_size == 0 {
            return Err(PyValueError::new_err("buffer_size must be at least 1"));
        }
        Ok(RedisInsertionSession { lsh: slf.clone().unbind(), buffer: Vec::new(), buffer_size })
    }

    /// The keys whose signatures share at least one band with `minhash`'s, in insertion
    /// order over all writers (candidates: check them with `MinHash.jaccard` when
    /// precision matters). One round trip.
    #[pyo3(text_signature = "($self, minhash)")]
    fn query<'py>(&self, py: Python<'py>, minhash: PyRef<'_, MinHash>) -> PyResult<Bound<'py, PyList>> {
        let (sig, seed) = self.signature_of(&minhash, "query")?;
        drop(minhash);
        let found = detached(py, || self.query_batch_raw(std::slice::from_ref(&sig), seed))?;
        Self::keys_list(py, found.first().map_or(&[][..], Vec::as_slice))
    }

    /// `query` of each MinHash (of one seed), in one pipeline: a list of answers in order.
    #[pyo3(text_signature = "($self, minhashes)")]
    fn query_batch<'py>(&self, py: Python<'py>, minhashes: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let mut sigs = Vec::new();
        let mut seed = None;
        for m in minhashes.try_iter()? {
            let m = m?;
            let m = m.cast::<MinHash>()?.borrow();
            let (sig, s) = self.signature_of(&m, "query")?;
            if seed.is_some_and(|first| first != s) {
                return Err(PyValueError::new_err("query_batch takes MinHashes of one seed"));
            }
            seed = Some(s);
            sigs.push(sig);
        }
        let Some(seed) = seed else { return PyList::new(py, Vec::<Bound<'py, PyList>>::new()) };
        let found = detached(py, || self.query_batch_raw(&sigs, seed))?;
        let lists = found.iter().map(|f| Self::keys_list(py, f)).collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, lists)
    }

    /// Removes `key`. `ValueError` when it is not there.
    #[pyo3(text_signature = "($self, key)")]
    fn remove(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<()> {
        let missing = || {
            PyValueError::new_err(format!(
                "key {} is not in the LSH",
                key.repr().map(|r| r.to_string()).unwrap_or_default()
            ))
        };
        let Ok(stored) = encode_key(key, self.prepickle) else { return Err(missing()) };
        let removed = detached(py, || {
            let s = scripts();
            for _ in 0..REMOVE_ATTEMPTS {
                let record: Option<Vec<u8>> =
                    self.run(|c| redis::cmd("HGET").arg(&self.names.keys).arg(&stored).query(c))?;
                let Some(record) = record else { return Ok(false) };
                let (id, bands) = parse_record(&record).ok_or_else(|| {
                    Failure::Server(format!("redis at {}: the record of a key is damaged", self.address()))
                })?;
                let mut pipe = redis::pipe();
                load(&mut pipe, REMOVE_LUA);
                evalsha(&mut pipe, &s.remove, 2 + bands.len()).arg(&self.names.keys).arg(&self.names.ids);
                for (band, &k) in bands.iter().enumerate() {
                    pipe.arg(self.names.bucket(band, k));
                }
                pipe.arg(&stored).arg(&record).arg(id);
                let (outcome,): (i64,) = self.run(|c| pipe.query(c))?;
                match outcome {
                    1 => return Ok(true),
                    0 => return Ok(false),
                    _ => {} // replaced by another process since the read: read again
                }
            }
            Err(Failure::Server(format!(
                "redis at {}: the key kept changing under {REMOVE_ATTEMPTS} attempts to remove it",
                self.address()
            )))
        })?;
        if removed { Ok(()) } else { Err(missing()) }
    }

    /// The keys, in insertion order (read in steps of 10,000, so a server busy with
    /// other clients keeps answering them; keys inserted meanwhile may or may not be in).
    #[pyo3(text_signature = "($self)")]
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let stored = detached(py, || {
            let mut by_id: BTreeMap<u64, Vec<u8>> = BTreeMap::new();
            let mut cursor: u64 = 0;
            loop {
                let (next, fields): (u64, Vec<Vec<u8>>) = self.run(|c| {
                    redis::cmd("HSCAN").arg(&self.names.ids).arg(cursor).arg("COUNT").arg(SCAN_COUNT).query(c)
                })?;
                for pair in fields.chunks_exact(2) {
                    let id = std::str::from_utf8(&pair[0]).ok().and_then(|s| s.parse().ok()).ok_or_else(|| {
                        Failure::Server(format!("redis at {}: an id that is not a number", self.address()))
                    })?;
                    by_id.insert(id, pair[1].clone());
                }
                if next == 0 {
                    break;
                }
                cursor = next;
            }
            Ok(by_id.into_values().collect::<Vec<_>>())
        })?;
        Self::keys_list(py, &stored)
    }

    /// True when no key is stored.
    #[pyo3(text_signature = "($self)")]
    fn is_empty(&self, py: Python<'_>) -> PyResult<bool> {
        Ok(self.__len__(py)? == 0)
    }

    /// Whether `key` is in the LSH (False for a key of a type it cannot hold).
    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(stored) = encode_key(key, self.prepickle) else { return Ok(false) };
        detached(py, || self.run(|c| redis::cmd("HEXISTS").arg(&self.names.keys).arg(&stored).query(c)))
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        detached(py, || self.run(|c| redis::cmd("HLEN").arg(&self.names.keys).query(c)))
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

    /// The seed of the signatures stored (None before the first insert anywhere).
    #[getter]
    fn seed(&self, py: Python<'_>) -> PyResult<Option<u64>> {
        if let Some(&s) = self.seed.get() {
            return Ok(Some(s));
        }
        let stored: Option<u64> = detached(py, || self.run(|c| redis::cmd("GET").arg(&self.names.seed).query(c)))?;
        if let Some(s) = stored {
            let _ = self.seed.set(s);
        }
        Ok(stored)
    }

    /// Whether keys are pickled (datasketch's `prepickle`).
    #[getter]
    fn prepickle(&self) -> bool {
        self.prepickle
    }

    /// The prefix of this LSH's Redis keys.
    #[getter]
    fn basename<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.basename)
    }

    /// The storage_config, with the basename filled in (a copy).
    #[getter]
    fn storage_config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.config.bind(py).copy()
    }

    /// Pickling: reopened from the same settings and basename (a new connection).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.get();
        let args = (
            this.threshold,
            this.num_perm,
            this.weights,
            (this.params.bands, this.params.rows),
            this.config.bind(py).copy()?,
            this.prepickle,
        )
            .into_pyobject(py)?;
        PyTuple::new(py, [slf.get_type().into_any(), args.into_any()])
    }

    fn __repr__(&self) -> String {
        format!(
            "RedisMinHashLSH(threshold={}, num_perm={}, b={}, r={}, redis={}, basename={:?})",
            self.threshold,
            self.num_perm,
            self.params.bands,
            self.params.rows,
            self.address(),
            String::from_utf8_lossy(&self.basename)
        )
    }
}
