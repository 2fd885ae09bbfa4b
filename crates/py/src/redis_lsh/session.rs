//! `RedisMinHashLSH.insertion_session()`: inserts sent in pipelines of `buffer_size`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::RedisMinHashLsh;
use super::keys::{Entry, decode_key};
use super::link::detached;
use crate::minhash::MinHash;

/// Inserts into a Redis-backed MinHashLSH in pipelines: made by `insertion_session()`,
/// used as a context manager (`with lsh.insertion_session() as s: s.insert(k, m)`).
/// Inserts are sent every `buffer_size` keys and when the session closes. A key already
/// in the LSH is reported when its batch is sent (`ValueError` naming it; the batch's
/// other keys are in).
#[pyclass(module = "tessera._tessera", name = "RedisInsertionSession")]
pub struct RedisInsertionSession {
    pub(crate) lsh: Py<RedisMinHashLsh>,
    pub(crate) buffer: Vec<Entry>,
    pub(crate) buffer_size: usize,
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
