//! `MinHashLSH.insertion_session()` and `deletion_session()`: datasketch's context managers.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use tessera_engine::sketch::Signature;

use super::MinHashLsh;
use super::tables::key_error;
use crate::minhash::MinHash;

/// `MinHashLSH.insertion_session()`: inserts buffered, then added in batches.
#[pyclass(module = "tessera._tessera", name = "MinHashLSHInsertionSession")]
pub struct InsertionSession {
    pub(crate) lsh: Py<MinHashLsh>,
    pub(crate) buffer: Vec<(Py<PyAny>, Signature)>,
    /// Stored keys in the buffer (duplicates are refused at `insert`).
    pub(crate) pending: Py<PyDict>,
    /// The seed of the buffered MinHashes.
    pub(crate) seed: Option<u64>,
    pub(crate) buffer_size: usize,
}

impl InsertionSession {
    fn flush(&mut self, py: Python<'_>) -> PyResult<()> {
        let items = std::mem::take(&mut self.buffer);
        self.pending.bind(py).clear();
        match self.seed {
            Some(seed) if !items.is_empty() => self.lsh.borrow_mut(py).insert_many(py, items, seed),
            _ => Ok(()),
        }
    }
}

#[pymethods]
impl InsertionSession {
    /// Buffers `minhash` under `key`. `ValueError` at once when the key is in the LSH or
    /// the buffer, or the MinHash's `num_perm` or `seed` differ.
    #[pyo3(signature = (key, minhash, check_duplication = true))]
    fn insert(&mut self, key: &Bound<'_, PyAny>, minhash: PyRef<'_, MinHash>, check_duplication: bool) -> PyResult<()> {
        let _ = check_duplication;
        let py = key.py();
        let key = {
            let lsh = self.lsh.borrow(py);
            lsh.check(&minhash, "insert")?;
            let key = lsh.stored(key)?;
            if lsh.index.bind(py).contains(&key)? || self.pending.bind(py).contains(&key)? {
                return Err(key_error(&key, "is already in the LSH"));
            }
            key
        };
        let seed = minhash.config().seed;
        if let Some(s) = self.seed
            && s != seed
        {
            return Err(PyValueError::new_err(format!(
                "cannot insert a MinHash of seed {seed} in an LSH of MinHashes of seed {s}"
            )));
        }
        self.seed = Some(seed);
        self.pending.bind(py).set_item(&key, true)?;
        self.buffer.push((key.unbind(), minhash.signature()));
        if self.buffer.len() >= self.buffer_size {
            self.flush(py)?;
        }
        Ok(())
    }

    /// Adds what is buffered to the LSH.
    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        self.flush(py)
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&mut self, py: Python<'_>, _args: &Bound<'_, PyTuple>) -> PyResult<bool> {
        self.flush(py)?;
        Ok(false)
    }
}

/// `MinHashLSH.deletion_session()`: removes, as datasketch's context manager.
#[pyclass(module = "tessera._tessera", name = "MinHashLSHDeletionSession")]
pub struct DeletionSession {
    pub(crate) lsh: Py<MinHashLsh>,
}

#[pymethods]
impl DeletionSession {
    /// Removes `key`. `ValueError` when it is not there.
    fn remove(&self, key: &Bound<'_, PyAny>) -> PyResult<()> {
        self.lsh.borrow_mut(key.py()).remove(key)
    }

    /// Nothing is buffered: a no-op, for datasketch's API.
    fn close(&self) {}

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, PyTuple>) -> bool {
        false
    }
}
