//! What a basename records once: the parameters (`B:params`, written by the first opener
//! and checked by every later one) and the MinHashes' seed (`B:seed`, by the first insert).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::RedisMinHashLsh;
use super::link::{Failure, detached};
use crate::errors::TesseraError;

/// `format` of the parameters record.
const FORMAT: &str = "tessera.MinHashLSH/redis";
/// `version` of the layout this build reads and writes.
const VERSION: u64 = 1;

impl RedisMinHashLsh {
    /// Connects, records the parameters under the basename if it has none, and checks
    /// them against the stored ones otherwise; learns the seed if one is stored.
    pub(crate) fn open(&self, py: Python<'_>) -> PyResult<()> {
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

    pub(crate) fn seed_mismatch(&self, what: &str, given: u64, stored: u64) -> Failure {
        Failure::Value(format!(
            "cannot {what} a MinHash of seed {given} in an LSH of MinHashes of seed {stored} (basename {:?})",
            String::from_utf8_lossy(&self.basename)
        ))
    }

    /// Records `seed` as the basename's seed unless one is there, and checks it: once per
    /// LSH object, then from memory.
    pub(crate) fn ensure_seed(&self, seed: u64, what: &str) -> Result<(), Failure> {
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
}
