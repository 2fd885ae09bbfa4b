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
use std::time::Duration;

use pyo3::exceptions::{PyConnectionError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyInt, PyList, PyString, PyTuple, PyType};
use redis::{ConnectionAddr, IntoConnectionInfo, RedisConnectionInfo, Value};
use tessera_engine::sketch::{LshParams, Signature};

use crate::errors::{self, TesseraError};
use crate::minhash::MinHash;

/// `format` of the parameters record.
const FORMAT: &str = "tessera.MinHashLSH/redis";
/// `version` of the layout this build reads and writes.
const VERSION: u64 = 1;
/// Keys an insertion session sends per pipeline unless told otherwise (datasketch's).
const DEFAULT_BUFFER: usize = 50_000;
/// How long a connection may take unless `socket_connect_timeout` says: a host that
/// drops packets fails in seconds instead of the system's minutes.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one reply may take unless `socket_timeout` says: long enough for a pipeline
/// of 50,000 inserts on a busy server, short enough that a stopped server is an error.
const SOCKET_TIMEOUT: Duration = Duration::from_secs(60);
/// Fields per `HSCAN` step of `keys()`: the server answers other clients between steps.
const SCAN_COUNT: usize = 10_000;
/// Times `remove` re-reads a key that another process replaced between its read and its
/// delete before it gives up.
const REMOVE_ATTEMPTS: usize = 16;
/// Connection settings `storage_config["redis"]` may hold.
const REDIS_FIELDS: &[&str] =
    &["host", "port", "db", "username", "password", "socket_timeout", "socket_connect_timeout", "unix_socket_path"];

/// Inserts one key unless it is there: KEYS = keys hash, ids hash, id counter, buckets;
/// ARGV = stored key, packed band keys. Returns the new id, or 0 for a key already in.
const INSERT_LUA: &str = r"
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
local id = redis.call('INCR', KEYS[3])
redis.call('HSET', KEYS[1], ARGV[1], id .. ':' .. ARGV[2])
redis.call('HSET', KEYS[2], id, ARGV[1])
for i = 4, #KEYS do redis.call('SADD', KEYS[i], id) end
return id
";

/// The stored keys of the union of buckets, in id order: KEYS = ids hash, buckets (at
/// least one). `HMGET` takes the ids in slices: Lua's `unpack` stops at 8000 values.
const QUERY_LUA: &str = r"
local ids = redis.call('SUNION', unpack(KEYS, 2))
for i = 1, #ids do ids[i] = tonumber(ids[i]) end
table.sort(ids)
local out = {}
for s = 1, #ids, 4000 do
  local part = redis.call('HMGET', KEYS[1], unpack(ids, s, math.min(s + 3999, #ids)))
  for j = 1, #part do
    if part[j] then out[#out + 1] = part[j] end
  end
end
return out
";

/// Removes one key if its record is still the one read: KEYS = keys hash, ids hash,
/// buckets; ARGV = stored key, the record read, its id. Returns 1 (removed), 0 (no such
/// key) or -1 (the record changed since it was read: read again).
const REMOVE_LUA: &str = r"
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return 0 end
if v ~= ARGV[2] then return -1 end
for i = 3, #KEYS do redis.call('SREM', KEYS[i], ARGV[3]) end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[3])
return 1
";

/// The three scripts with their SHA1s, computed once.
struct Scripts {
    insert: redis::Script,
    query: redis::Script,
    remove: redis::Script,
}

fn scripts() -> &'static Scripts {
    static SCRIPTS: OnceLock<Scripts> = OnceLock::new();
    SCRIPTS.get_or_init(|| Scripts {
        insert: redis::Script::new(INSERT_LUA),
        query: redis::Script::new(QUERY_LUA),
        remove: redis::Script::new(REMOVE_LUA),
    })
}

/// Starts an `EVALSHA` of `script` in `pipe`. Every pipeline that runs a script first
/// sends `SCRIPT LOAD` of it (cheap when the server has it), so a restarted or flushed
/// server never answers `NOSCRIPT` halfway through a batch.
fn load(pipe: &mut redis::Pipeline, source: &str) {
    pipe.cmd("SCRIPT").arg("LOAD").arg(source).ignore();
}

fn evalsha<'a>(pipe: &'a mut redis::Pipeline, script: &redis::Script, keys: usize) -> &'a mut redis::Pipeline {
    pipe.cmd("EVALSHA").arg(script.get_hash()).arg(keys)
}

/// `tessera.RedisConnectionError`: the server could not be reached or stopped answering.
/// Both a `TesseraError` and a builtin `ConnectionError`, so either `except` catches it.
pub(crate) fn connection_error_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    static TYPE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    TYPE.get_or_try_init(py, || -> PyResult<Py<PyType>> {
        let bases = PyTuple::new(
            py,
            [py.get_type::<TesseraError>().into_any(), py.get_type::<PyConnectionError>().into_any()],
        )?;
        let ns = PyDict::new(py);
        ns.set_item("__module__", "tessera")?;
        ns.set_item(
            "__doc__",
            "Redis could not be reached or stopped answering (refused, timed out, dropped): the \
             message names the server's address. A TesseraError and a ConnectionError.",
        )?;
        let ty = py.get_type::<PyType>().call1(("RedisConnectionError", bases, ns))?;
        Ok(ty.cast_into::<PyType>()?.unbind())
    })
    .map(|t| t.bind(py))
}

/// What went wrong, kept without the GIL and turned into the Python exception after.
enum Failure {
    /// The server could not be reached or stopped answering: `RedisConnectionError`.
    Connection(String),
    /// The server refused a command or answered something unexpected: `TesseraError`.
    Server(String),
    /// The caller's arguments do not match the stored LSH: `ValueError`.
    Value(String),
}

impl Failure {
    fn into_py(self, py: Python<'_>) -> PyErr {
        match self {
            Self::Connection(m) => match connection_error_type(py) {
                Ok(ty) => PyErr::from_type(ty.clone(), m),
                Err(e) => e,
            },
            Self::Server(m) => TesseraError::new_err(m),
            Self::Value(m) => PyValueError::new_err(m),
        }
    }
}

/// Runs `f` without the GIL and raises its failure as a Python exception.
fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> Result<T, Failure> + Send) -> PyResult<T> {
    py.detach(f).map_err(|e| e.into_py(py))
}

/// Where the server is and how long to wait for it.
struct Target {
    client: redis::Client,
    /// `host:port` or the socket's path, for messages.
    address: String,
    connect_timeout: Option<Duration>,
    socket_timeout: Option<Duration>,
}

/// The connection, opened on first use and again after an I/O error (a reply cut short
/// leaves the stream unusable) or in a forked child (the parent's socket is not its own).
struct Link {
    target: Target,
    conn: Option<(redis::Connection, u32)>,
}

impl Link {
    fn failure(&self, e: &redis::RedisError) -> Failure {
        let address = &self.target.address;
        if e.is_timeout() {
            let limit = self.target.socket_timeout.map_or_else(String::new, |t| format!(" after {:?}", t));
            Failure::Connection(format!("redis at {address}: no answer{limit} (socket_timeout): {e}"))
        } else if e.is_connection_refusal() {
            Failure::Connection(format!("redis at {address}: connection refused (is redis-server running?): {e}"))
        } else if e.is_io_error() || e.is_connection_dropped() {
            Failure::Connection(format!("redis at {address}: {e}"))
        } else {
            Failure::Server(format!("redis at {address}: {e}"))
        }
    }

    /// Any failure to connect (refused, timed out, refused credentials, or an answer
    /// that is not Redis's protocol) is a connection failure.
    fn connect_failure(&self, e: &redis::RedisError) -> Failure {
        match self.failure(e) {
            Failure::Server(_)
                if matches!(e.kind(), redis::ErrorKind::Parse | redis::ErrorKind::UnexpectedReturnType) =>
            {
                Failure::Connection(format!(
                    "redis at {}: cannot connect: the answer is not Redis's protocol (is a Redis server listening there?): {e}",
                    self.target.address
                ))
            }
            Failure::Server(_) => Failure::Connection(format!("redis at {}: cannot connect: {e}", self.target.address)),
            other => other,
        }
    }

    fn connect(&self) -> redis::RedisResult<redis::Connection> {
        let t = &self.target;
        let conn = match t.connect_timeout {
            Some(limit) => t.client.get_connection_with_timeout(limit)?,
            None => t.client.get_connection()?,
        };
        conn.set_read_timeout(t.socket_timeout)?;
        conn.set_write_timeout(t.socket_timeout)?;
        Ok(conn)
    }

    /// Runs `f` on the connection, opening it first when needed.
    fn run<T>(&mut self, f: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>) -> Result<T, Failure> {
        let pid = std::process::id();
        if let Some((conn, owner)) = self.conn.take() {
            if owner == pid {
                self.conn = Some((conn, owner));
            } else {
                // A forked child: closing would not hurt the parent, but the connection's
                // drop must send nothing on a socket the parent still reads; leak the copy.
                std::mem::forget(conn);
            }
        }
        if self.conn.is_none() {
            let conn = self.connect().map_err(|e| self.connect_failure(&e))?;
            self.conn = Some((conn, pid));
        }
        let (conn, _) = self.conn.as_mut().expect("connected just above");
        match f(conn) {
            Ok(v) => Ok(v),
            Err(e) => {
                if e.is_io_error() || e.is_unrecoverable_error() {
                    self.conn = None;
                }
                Err(self.failure(&e))
            }
        }
    }
}

/// The Redis key names of one basename.
struct Names {
    params: Vec<u8>,
    seed: Vec<u8>,
    next: Vec<u8>,
    keys: Vec<u8>,
    ids: Vec<u8>,
    bucket: Vec<u8>,
}

impl Names {
    fn new(base: &[u8]) -> Self {
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
    fn bucket(&self, band: usize, key: u64) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bucket.len() + 10);
        out.extend_from_slice(&self.bucket);
        out.extend_from_slice(&(band as u16).to_be_bytes());
        out.extend_from_slice(&key.to_be_bytes());
        out
    }
}

/// A key as stored: a type tag and its bytes (see the module's docs); with `prepickle`,
/// `p` and the key's pickle (protocol 4: the same bytes from every Python 3.8+).
fn encode_key(key: &Bound<'_, PyAny>, prepickle: bool) -> PyResult<Vec<u8>> {
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
fn decode_key<'py>(py: Python<'py>, stored: &[u8]) -> PyResult<Bound<'py, PyAny>> {
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
struct Entry {
    key: Vec<u8>,
    bands: Vec<u64>,
}

/// A `B:keys` record: `"<id>:"` and the band keys, 8 bytes big-endian each.
fn parse_record(record: &[u8]) -> Option<(u64, Vec<u64>)> {
    let colon = record.iter().position(|&b| b == b':')?;
    let id = std::str::from_utf8(&record[..colon]).ok()?.parse().ok()?;
    let packed = &record[colon + 1..];
    if !packed.len().is_multiple_of(8) {
        return None;
    }
    let bands = packed.chunks_exact(8).map(|c| u64::from_be_bytes(c.try_into().expect("8 bytes"))).collect();
    Some((id, bands))
}

fn bytes_of(v: &Value) -> Option<&[u8]> {
    match v {
        Value::BulkString(b) => Some(b),
        Value::SimpleString(s) => Some(s.as_bytes()),
        _ => None,
    }
}

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

/// A value of `storage_config["redis"]`: itself, or `{"env": NAME, "default": ...}` read
/// from the environment (datasketch's rule).
fn setting<'py>(py: Python<'py>, value: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let Ok(d) = value.cast::<PyDict>() else { return Ok(value) };
    let Some(name) = d.get_item("env")? else { return Ok(value) };
    let name: String = name.extract()?;
    match std::env::var(&name) {
        Ok(v) => Ok(PyString::new(py, &v).into_any()),
        Err(_) => Ok(d.get_item("default")?.unwrap_or_else(|| py.None().into_bound(py))),
    }
}

/// Seconds as a timeout: None waits forever.
fn seconds(name: &str, v: &Bound<'_, PyAny>) -> PyResult<Option<Duration>> {
    if v.is_none() {
        return Ok(None);
    }
    let s: f64 = v.extract()?;
    if !(s > 0.0 && s.is_finite()) {
        return Err(PyValueError::new_err(format!(
            "storage_config['redis'][{name:?}] must be a positive number of seconds or None, not {s}"
        )));
    }
    Ok(Some(Duration::from_secs_f64(s)))
}

/// A random basename as datasketch makes one: 11 lowercase letters.
fn random_basename() -> Vec<u8> {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    h.write_u32(std::process::id());
    let mut x = h.finish();
    (0..11)
        .map(|_| {
            let c = b'a' + (x % 26) as u8;
            x /= 26;
            c
        })
        .collect()
}

/// Reads `storage_config["redis"]` into a target.
fn target(py: Python<'_>, redis_cfg: Option<Bound<'_, PyAny>>) -> PyResult<Target> {
    let mut host = "localhost".to_string();
    let mut port: u16 = 6379;
    let mut db: i64 = 0;
    let mut username: Option<String> = None;
    let mut password: Option<String> = None;
    let mut unix: Option<String> = None;
    let mut connect_timeout = Some(CONNECT_TIMEOUT);
    let mut socket_timeout = Some(SOCKET_TIMEOUT);
    if let Some(cfg) = redis_cfg {
        let cfg = cfg
            .cast::<PyDict>()
            .map_err(|_| PyTypeError::new_err("storage_config['redis'] must be a dict of connection settings"))?;
        for (k, v) in cfg.iter() {
            let name: String = k.extract()?;
            let v = setting(py, v)?;
            let bad = |e: PyErr| PyValueError::new_err(format!("storage_config['redis'][{name:?}]: {e}"));
            match name.as_str() {
                "host" => host = v.extract().map_err(bad)?,
                "port" => port = v.str()?.to_cow()?.parse().map_err(|e| bad(PyValueError::new_err(format!("{e}"))))?,
                "db" => db = v.str()?.to_cow()?.parse().map_err(|e| bad(PyValueError::new_err(format!("{e}"))))?,
                "username" => username = v.extract().map_err(bad)?,
                "password" => password = v.extract().map_err(bad)?,
                "unix_socket_path" => unix = v.extract().map_err(bad)?,
                "socket_timeout" => socket_timeout = seconds(&name, &v)?,
                "socket_connect_timeout" => connect_timeout = seconds(&name, &v)?,
                _ => {
                    return Err(PyValueError::new_err(format!(
                        "storage_config['redis'][{name:?}] is not a setting tessera understands (it takes {})",
                        REDIS_FIELDS.join(", ")
                    )));
                }
            }
        }
    }
    let (addr, address) = match unix {
        Some(path) => (ConnectionAddr::Unix(path.clone().into()), path),
        None => (ConnectionAddr::Tcp(host.clone(), port), format!("{host}:{port}")),
    };
    let mut settings = RedisConnectionInfo::default().set_db(db);
    if let Some(u) = username {
        settings = settings.set_username(u);
    }
    if let Some(p) = password {
        settings = settings.set_password(p);
    }
    let info = addr
        .into_connection_info()
        .map_err(|e| PyValueError::new_err(format!("storage_config['redis']: {e}")))?
        .set_redis_settings(settings);
    let client =
        redis::Client::open(info).map_err(|e| PyValueError::new_err(format!("storage_config['redis']: {e}")))?;
    Ok(Target { client, address, connect_timeout, socket_timeout })
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

    fn seed_mismatch(&self, what: &str, given: u64, stored: u64) -> Failure {
        Failure::Value(format!(
            "cannot {what} a MinHash of seed {given} in an LSH of MinHashes of seed {stored} (basename {:?})",
            String::from_utf8_lossy(&self.basename)
        ))
    }

    /// Records `seed` as the basename's seed unless one is there, and checks it: once per
    /// LSH object, then from memory.
    fn ensure_seed(&self, seed: u64, what: &str) -> Result<(), Failure> {
        if let Some(&known) = self.seed.get() {
            return if known == seed { Ok(()) } else { Err(self.seed_mismatch(what, seed, known)) };
        }
        let reply: (Option<Vec<u8>>,) = self.run(|c| {
            redis::pipe()
                .cmd("SET")
                .arg(&self.names.seed)
                .arg(seed)
                .arg("NX")
                .ignore()
                .cmd("GET")
                .arg(&self.names.seed)
                .query(c)
        })?;
        let stored =
            reply.0.as_deref().and_then(|b| std::str::from_utf8(b).ok()?.parse::<u64>().ok()).ok_or_else(|| {
                Failure::Server(format!("redis at {}: the stored seed is not a number", self.address()))
            })?;
        let _ = self.seed.set(stored);
        if stored == seed { Ok(()) } else { Err(self.seed_mismatch(what, seed, stored)) }
    }

    fn entry(&self, key: &Bound<'_, PyAny>, m: &MinHash) -> PyResult<Entry> {
        let key = encode_key(key, self.prepickle)?;
        self.check_perm(m, "insert")?;
        let sig = m.signature();
        let bands = if self.params.fits(&sig) { self.params.band_keys(&sig) } else { Vec::new() };
        Ok(Entry { key, bands })
    }

    /// Inserts a batch in one pipeline: per entry, whether it went in (false: the key
    /// was there already).
    fn insert_batch(&self, batch: &[Entry]) -> Result<Vec<bool>, Failure> {
        if batch.is_empty() {
            return Ok(Vec::new());
        }
        let s = scripts();
        let mut pipe = redis::pipe();
        if self.transaction {
            pipe.atomic();
        }
        load(&mut pipe, INSERT_LUA);
        let mut packed = Vec::new();
        for e in batch {
            packed.clear();
            for k in &e.bands {
                packed.extend_from_slice(&k.to_be_bytes());
            }
            evalsha(&mut pipe, &s.insert, 3 + e.bands.len())
                .arg(&self.names.keys)
                .arg(&self.names.ids)
                .arg(&self.names.next);
            for (band, &k) in e.bands.iter().enumerate() {
                pipe.arg(self.names.bucket(band, k));
            }
            pipe.arg(&e.key).arg(&packed);
        }
        let ids: Vec<i64> = self.run(|c| pipe.query(c))?;
        Ok(ids.into_iter().map(|id| id > 0).collect())
    }

    /// The stored keys each signature's buckets hold, in one pipeline. Checks the seed
    /// against the stored one when this object has not learnt it yet.
    fn query_batch_raw(&self, sigs: &[Signature], seed: u64) -> Result<Vec<Vec<Vec<u8>>>, Failure> {
        if let Some(&known) = self.seed.get()
            && known != seed
        {
            return Err(self.seed_mismatch("query", seed, known));
        }
        let learn_seed = self.seed.get().is_none();
        let s = scripts();
        let mut pipe = redis::pipe();
        if learn_seed {
            pipe.cmd("GET").arg(&self.names.seed);
        }
        let mut asked = Vec::with_capacity(sigs.len());
        let mut loaded = false;
        for sig in sigs {
            let fits = self.params.fits(sig);
            if fits && !loaded {
                load(&mut pipe, QUERY_LUA);
                loaded = true;
            }
            asked.push(fits);
            if fits {
                evalsha(&mut pipe, &s.query, 1 + self.params.bands).arg(&self.names.ids);
                for band in 0..self.params.bands {
                    pipe.arg(self.names.bucket(band, self.params.band_key(sig, band)));
                }
            }
        }
        if pipe.is_empty() {
            return Ok(vec![Vec::new(); sigs.len()]);
        }
        let replies: Vec<Value> = self.run(|c| pipe.query(c))?;
        let mut replies = replies.into_iter();
        let unexpected = || Failure::Server(format!("redis at {}: an unexpected answer to a query", self.address()));
        if learn_seed {
            let stored = replies.next().ok_or_else(unexpected)?;
            if let Some(b) = bytes_of(&stored) {
                let stored: u64 = std::str::from_utf8(b).ok().and_then(|s| s.parse().ok()).ok_or_else(unexpected)?;
                let _ = self.seed.set(stored);
                if stored != seed {
                    return Err(self.seed_mismatch("query", seed, stored));
                }
            }
        }
        let mut out = Vec::with_capacity(sigs.len());
        for fits in asked {
            if !fits {
                out.push(Vec::new());
                continue;
            }
            let Some(Value::Array(items)) = replies.next() else { return Err(unexpected()) };
            let keys = items.iter().map(|v| bytes_of(v).map(<[u8]>::to_vec)).collect::<Option<Vec<_>>>();
            out.push(keys.ok_or_else(unexpected)?);
        }
        Ok(out)
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

impl RedisMinHashLsh {
    /// Connects, records the parameters under the basename if it has none, and checks
    /// them against the stored ones otherwise; learns the seed if one is stored.
    fn open(&self, py: Python<'_>) -> PyResult<()> {
        let ours = serde_json::json!({
            "format": FORMAT,
            "version": VERSION,
            "threshold": self.threshold,
            "weights": [self.weights.0, self.weights.1],
            "num_perm": self.num_perm,
            "bands": self.params.bands,
            "rows": self.params.rows,
            "prepickle": self.prepickle,
        });
        let ours_text = ours.to_string();
        let (stored, seed): (Vec<u8>, Option<u64>) = detached(py, || {
            self.run(|c| {
                redis::pipe()
                    .cmd("SET")
                    .arg(&self.names.params)
                    .arg(&ours_text)
                    .arg("NX")
                    .ignore()
                    .cmd("GET")
                    .arg(&self.names.params)
                    .cmd("GET")
                    .arg(&self.names.seed)
                    .query(c)
            })
        })?;
        if let Some(s) = seed {
            let _ = self.seed.set(s);
        }
        if stored == ours_text.as_bytes() {
            return Ok(());
        }
        let name = String::from_utf8_lossy(&self.basename).into_owned();
        let theirs: serde_json::Value = serde_json::from_slice(&stored).map_err(|_| {
            TesseraError::new_err(format!("redis at {}: {name}:params is not a tessera LSH's record", self.address()))
        })?;
        if theirs["format"] != FORMAT || theirs["version"] != VERSION {
            return Err(TesseraError::new_err(format!(
                "redis at {}: basename {name:?} holds {} version {} (this build reads {FORMAT} version {VERSION})",
                self.address(),
                theirs["format"],
                theirs["version"]
            )));
        }
        let fields = ["threshold", "weights", "num_perm", "bands", "rows", "prepickle"];
        let differ: Vec<String> = fields
            .iter()
            .filter(|f| theirs[**f] != ours[**f])
            .map(|f| format!("{f} {} (given {})", theirs[*f], ours[*f]))
            .collect();
        if differ.is_empty() {
            return Ok(());
        }
        Err(PyValueError::new_err(format!(
            "redis at {}: basename {name:?} holds an LSH of other parameters: {}; open it with its parameters or use another basename",
            self.address(),
            differ.join(", ")
        )))
    }
}

/// Inserts into a Redis-backed MinHashLSH in pipelines: made by `insertion_session()`,
/// used as a context manager (`with lsh.insertion_session() as s: s.insert(k, m)`).
/// Inserts are sent every `buffer_size` keys and when the session closes. A key already
/// in the LSH is reported when its batch is sent (`ValueError` naming it; the batch's
/// other keys are in).
#[pyclass(module = "tessera._tessera", name = "RedisInsertionSession")]
pub struct RedisInsertionSession {
    lsh: Py<RedisMinHashLsh>,
    buffer: Vec<Entry>,
    buffer_size: usize,
}

#[pymethods]
impl RedisInsertionSession {
    /// Adds `minhash` under `key` to the next batch (checked now: key type, `num_perm`,
    /// `seed`; duplicates when the batch is sent, whatever `check_duplication` says).
    #[pyo3(signature = (key, minhash, check_duplication = true))]
    fn insert(
        &mut self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        minhash: PyRef<'_, MinHash>,
        check_duplication: bool,
    ) -> PyResult<()> {
        let _ = check_duplication;
        let lsh = self.lsh.get();
        let entry = lsh.entry(key, &minhash)?;
        let seed = minhash.config().seed;
        drop(minhash);
        if lsh.seed.get() != Some(&seed) {
            detached(py, || lsh.ensure_seed(seed, "insert"))?;
        }
        self.buffer.push(entry);
        if self.buffer.len() >= self.buffer_size {
            self.flush(py)?;
        }
        Ok(())
    }

    /// Sends the keys buffered so far.
    #[pyo3(text_signature = "($self)")]
    fn flush(&mut self, py: Python<'_>) -> PyResult<()> {
        let batch = std::mem::take(&mut self.buffer);
        let lsh = self.lsh.get();
        let inserted = detached(py, || lsh.insert_batch(&batch))?;
        let dups: Vec<&Entry> = batch.iter().zip(&inserted).filter(|(_, ok)| !**ok).map(|(e, _)| e).collect();
        if dups.is_empty() {
            return Ok(());
        }
        let shown = dups
            .iter()
            .take(10)
            .map(|e| decode_key(py, &e.key).and_then(|k| Ok(k.repr()?.to_string())))
            .collect::<PyResult<Vec<_>>>()?;
        Err(PyValueError::new_err(format!(
            "{} key(s) already in the LSH were not inserted: {}{}",
            dups.len(),
            shown.join(", "),
            if dups.len() > 10 { ", ..." } else { "" }
        )))
    }

    /// Sends the rest (the same as `flush`).
    #[pyo3(text_signature = "($self)")]
    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        self.flush(py)
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// Sends the rest, also when the block raised (datasketch's behaviour); never
    /// swallows the block's exception.
    #[pyo3(signature = (_exc_type = None, _exc = None, _tb = None))]
    fn __exit__(
        &mut self,
        py: Python<'_>,
        _exc_type: Option<&Bound<'_, PyAny>>,
        _exc: Option<&Bound<'_, PyAny>>,
        _tb: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        self.flush(py)?;
        Ok(false)
    }

    /// Keys waiting for the next batch.
    fn __len__(&self) -> usize {
        self.buffer.len()
    }
}
