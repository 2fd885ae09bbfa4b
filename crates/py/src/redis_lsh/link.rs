//! The connection to the server: where it is (`Target`), the connection opened on first
//! use and again after an I/O error or a fork (`Link`), and what a failure becomes in Python.

use std::time::Duration;

use pyo3::exceptions::{PyConnectionError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

use crate::errors::TesseraError;

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
pub(crate) enum Failure {
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
pub(crate) fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> Result<T, Failure> + Send) -> PyResult<T> {
    py.detach(f).map_err(|e| e.into_py(py))
}

/// Where the server is and how long to wait for it.
pub(crate) struct Target {
    pub(crate) client: redis::Client,
    /// `host:port` or the socket's path, for messages.
    pub(crate) address: String,
    pub(crate) connect_timeout: Option<Duration>,
    pub(crate) socket_timeout: Option<Duration>,
}

/// The connection, opened on first use and again after an I/O error (a reply cut short
/// leaves the stream unusable) or in a forked child (the parent's socket is not its own).
pub(crate) struct Link {
    pub(crate) target: Target,
    pub(crate) conn: Option<(redis::Connection, u32)>,
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
    pub(crate) fn run<T>(
        &mut self,
        f: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> Result<T, Failure> {
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
