//! datasketch's views of the storage: band keys as bytes, the `keys` view (`LshKeys`)
//! and the bucket counts.

use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use super::MinHashLsh;

/// datasketch's band key of band `band`: its values as big-endian uint64.
pub(crate) fn band_h(sig: &[u32], band: usize, rows: usize) -> Vec<u8> {
    sig[band * rows..(band + 1) * rows].iter().flat_map(|&v| u64::from(v).to_be_bytes()).collect()
}

impl MinHashLsh {
    /// The keys, in insertion order (the `keys` view called: `lsh.keys()`).
    fn key_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.live_ordinals().map(|o| self.keys[o].bind(py)))
    }

    /// datasketch's band keys of the key at `ordinal`.
    fn band_hs<'py>(&self, py: Python<'py>, ordinal: usize) -> PyResult<Bound<'py, PyList>> {
        let sig = self.signature_at(ordinal);
        let rows = self.params.rows;
        PyList::new(py, (0..self.params.bands).map(|b| PyBytes::new(py, &band_h(&sig.0, b, rows))))
    }

    /// Per band, band key -> count of the keys at `ordinals` (datasketch's `itemcounts`).
    pub(crate) fn counts<'py>(
        &self,
        py: Python<'py>,
        ordinals: impl Iterator<Item = usize>,
    ) -> PyResult<Bound<'py, PyList>> {
        let tables: Vec<Bound<'py, PyDict>> = (0..self.params.bands).map(|_| PyDict::new(py)).collect();
        for o in ordinals {
            let sig = self.signature_at(o);
            for (b, table) in tables.iter().enumerate() {
                let h = PyBytes::new(py, &band_h(&sig.0, b, self.params.rows));
                let n: usize = table.get_item(&h)?.map(|v| v.extract()).transpose()?.unwrap_or(0);
                table.set_item(h, n + 1)?;
            }
        }
        PyList::new(py, tables)
    }
}

/// `MinHashLSH.keys`: datasketch's keys storage, a live view of the LSH's keys.
#[pyclass(module = "tessera._tessera", name = "MinHashLSHKeys")]
pub struct LshKeys {
    pub(crate) lsh: Py<MinHashLsh>,
}

#[pymethods]
impl LshKeys {
    /// The keys, in insertion order (tessera's `lsh.keys()`).
    fn __call__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.lsh.borrow(py).key_list(py)
    }

    /// The keys, in insertion order (datasketch's `lsh.keys.keys()`).
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.lsh.borrow(py).key_list(py)
    }

    fn __len__(&self, py: Python<'_>) -> usize {
        self.lsh.borrow(py).count
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.lsh.borrow(key.py()).index.bind(key.py()).contains(key)
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.lsh.borrow(py).key_list(py)?.try_iter()?.into_any())
    }

    /// The key's band keys (datasketch's `keys[key]`). `KeyError` when it is not there.
    fn __getitem__<'py>(&self, key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let py = key.py();
        let lsh = self.lsh.borrow(py);
        match lsh.index.bind(py).get_item(key)? {
            Some(o) => lsh.band_hs(py, o.extract()?),
            None => Err(PyKeyError::new_err(key.clone().unbind())),
        }
    }

    /// The key's band keys, or `default` (`[]` when None, as datasketch's storage).
    #[pyo3(signature = (key, default = None))]
    fn get<'py>(&self, key: &Bound<'py, PyAny>, default: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        let py = key.py();
        let lsh = self.lsh.borrow(py);
        match lsh.index.bind(py).get_item(key)? {
            Some(o) => Ok(lsh.band_hs(py, o.extract()?)?.into_any()),
            None => Ok(default.unwrap_or_else(|| PyList::empty(py).into_any())),
        }
    }

    /// Number of keys (datasketch's storage `size()`).
    fn size(&self, py: Python<'_>) -> usize {
        self.lsh.borrow(py).count
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("MinHashLSHKeys({} keys)", self.lsh.borrow(py).count)
    }
}
