//! `storage_config["redis"]` read into a `Target`, and the basename datasketch makes
//! when none is given.

use std::time::Duration;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use redis::{ConnectionAddr, IntoConnectionInfo, RedisConnectionInfo};

use super::link::Target;

/// How long a connection may take unless `socket_connect_timeout` says: a host that
/// drops packets fails in seconds instead of the system's minutes.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one reply may take unless `socket_timeout` says: long enough for a pipeline
/// of 50,000 inserts on a busy server, short enough that a stopped server is an error.
const SOCKET_TIMEOUT: Duration = Duration::from_secs(60);
/// Connection settings `storage_config["redis"]` may hold.
const REDIS_FIELDS: &[&str] =
    &["host", "port", "db", "username", "password", "socket_timeout", "socket_connect_timeout", "unix_socket_path"];

/// A value of `storage_config["redis"]`: itself, or `{"env": NAME, "default": ...}` read
/// from the environment (datasketch's rule).
pub(crate) fn setting<'py>(py: Python<'py>, value: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
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
pub(crate) fn random_basename() -> Vec<u8> {
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
pub(crate) fn target(py: Python<'_>, redis_cfg: Option<Bound<'_, PyAny>>) -> PyResult<Target> {
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
