//! The LSH's tables: keys by ordinal (a loaded store's first, then the inserts after it),
//! the band tables of those inserts, and inserting, removing and finding candidates in them.

use std::collections::HashMap;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rayon::prelude::*;
use tessera_engine::sketch::{LshParams, Signature, SketchStore};

use super::MinHashLsh;
use crate::minhash::MinHash;

fn pickle_dumps<'py>(key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    key.py().import("pickle")?.call_method1("dumps", (key,))
}

fn pickle_loads<'py>(key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    key.py().import("pickle")?.call_method1("loads", (key,))
}

pub(crate) fn key_error(key: &Bound<'_, PyAny>, what: &str) -> PyErr {
    let repr = key.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
    PyValueError::new_err(format!("key {repr} {what}"))
}

impl MinHashLsh {
    pub(crate) fn empty(
        py: Python<'_>,
        threshold: f64,
        weights: (f64, f64),
        num_perm: usize,
        params: LshParams,
    ) -> Self {
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
            prepickle: false,
            query_buffer: Vec::new(),
        }
    }

    /// The key as stored: pickled with `prepickle`.
    pub(crate) fn stored<'py>(&self, key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        if self.prepickle { pickle_dumps(key) } else { Ok(key.clone()) }
    }

    /// Keys as the caller gave them: unpickled with `prepickle`.
    pub(crate) fn given<'py>(&self, py: Python<'py>, ordinals: &[u32]) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        for &o in ordinals {
            let k = self.keys[o as usize].bind(py);
            out.append(if self.prepickle { pickle_loads(k)? } else { k.clone() })?;
        }
        Ok(out)
    }

    /// Live ordinals, in insertion order.
    pub(crate) fn live_ordinals(&self) -> impl Iterator<Item = usize> + '_ {
        self.live.iter().enumerate().filter(|(_, l)| **l).map(|(o, _)| o)
    }

    /// Inserts stored keys (already checked: not in the LSH, distinct) with their
    /// signatures; the band keys are computed in parallel without the GIL.
    pub(crate) fn insert_many(
        &mut self,
        py: Python<'_>,
        items: Vec<(Py<PyAny>, Signature)>,
        seed: u64,
    ) -> PyResult<()> {
        if self.keys.len() + items.len() > u32::MAX as usize {
            return Err(PyValueError::new_err("the LSH is full (2**32 keys)"));
        }
        let params = self.params;
        let band_keys: Vec<Vec<u64>> = py.detach(|| {
            items.par_iter().map(|(_, sig)| if params.fits(sig) { params.band_keys(sig) } else { Vec::new() }).collect()
        });
        let index = self.index.bind(py).clone();
        for ((key, sig), keys) in items.into_iter().zip(band_keys) {
            let ordinal = self.keys.len();
            for (band, k) in self.bands.iter_mut().zip(keys) {
                band.entry(k).or_default().push(ordinal as u32);
            }
            index.set_item(key.bind(py), ordinal)?;
            self.keys.push(key);
            self.live.push(true);
            self.signatures.push(sig);
            self.count += 1;
        }
        self.seed = Some(seed);
        Ok(())
    }

    /// Removes a stored key. `ValueError` when it is not there.
    pub(crate) fn remove_stored(&mut self, key: &Bound<'_, PyAny>) -> PyResult<()> {
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

    fn base(&self) -> usize {
        self.store.as_ref().map_or(0, SketchStore::len)
    }

    pub(crate) fn check(&self, m: &MinHash, what: &str) -> PyResult<()> {
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
    pub(crate) fn candidates(&self, sig: &Signature) -> Vec<u32> {
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

    pub(crate) fn signature_at(&self, ordinal: usize) -> Signature {
        match &self.store {
            // `load` refuses a store without signatures.
            Some(store) if ordinal < store.len() => store.signature(ordinal).unwrap_or_else(|| Signature(Vec::new())),
            _ => self.signatures[ordinal - self.base()].clone(),
        }
    }
}
