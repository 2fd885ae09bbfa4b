//! How texts become terms and shingles: the keyword arguments every text function takes,
//! turned into the engine's [`FingerprintSettings`] (its defaults, its validation).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::PyResult;
use tessera_engine::{FingerprintSettings, Fingerprinter, Fingerprinters};

use crate::errors;

/// The fingerprint settings of `shingle_size`, `stop_words`, `stemming` and `language`
/// (the engine's defaults for everything else; `tessera dedup --shingle-size N
/// --keep-stop-words --no-stemming` makes the same).
pub(crate) fn fingerprint(
    shingle_size: usize,
    stop_words: bool,
    stemming: bool,
    language: Option<String>,
) -> FingerprintSettings {
    let mut s = FingerprintSettings::default();
    s.shingles.size = shingle_size;
    s.normalizer.stop_words = stop_words;
    s.normalizer.stemming = stemming;
    s.normalizer.language = language;
    s
}

/// Warm fingerprinters (one per thread) for these settings, built once per process and
/// settings: a normalizer's word cache is what makes normalizing cheap.
pub(crate) fn fingerprinters(settings: &FingerprintSettings) -> PyResult<Arc<Fingerprinters>> {
    static POOLS: OnceLock<Mutex<HashMap<String, Arc<Fingerprinters>>>> = OnceLock::new();
    let key = serde_json::to_string(settings).map_err(errors::setting)?;
    let pools = POOLS.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(pool) = pools.lock().map_err(|_| poisoned())?.get(&key) {
        return Ok(Arc::clone(pool));
    }
    let pool = Arc::new(Fingerprinters::new(Fingerprinter::new(settings).map_err(errors::engine)?));
    let mut pools = pools.lock().map_err(|_| poisoned())?;
    // A handful of settings in practice; a program cycling through many keeps the latest.
    if pools.len() >= 16 {
        pools.clear();
    }
    pools.insert(key, Arc::clone(&pool));
    Ok(pool)
}

fn poisoned() -> pyo3::PyErr {
    crate::errors::TesseraError::new_err("a thread panicked while holding the fingerprinter cache")
}
