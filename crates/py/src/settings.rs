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
    static POOLS: Cache<Fingerprinters> = OnceLock::new();
    cached(&POOLS, "fingerprinter", settings, || {
        Ok(Fingerprinters::new(Fingerprinter::new(settings).map_err(errors::engine)?))
    })
}

/// Values built once per process and settings (keyed by the settings' JSON).
pub(crate) type Cache<T> = OnceLock<Mutex<HashMap<String, Arc<T>>>>;

/// The value of `cache` for `settings`, built by `build` the first time (`what` names the
/// cache in the error of a poisoned lock). A handful of settings in practice; a program
/// cycling through many keeps the latest 16.
pub(crate) fn cached<T, S: serde::Serialize>(
    cache: &'static Cache<T>,
    what: &str,
    settings: &S,
    build: impl FnOnce() -> PyResult<T>,
) -> PyResult<Arc<T>> {
    let key = serde_json::to_string(settings).map_err(errors::setting)?;
    let values = cache.get_or_init(|| Mutex::new(HashMap::new()));
    let poisoned = |_| errors::TesseraError::new_err(format!("a thread panicked while holding the {what} cache"));
    if let Some(value) = values.lock().map_err(poisoned)?.get(&key) {
        return Ok(Arc::clone(value));
    }
    let value = Arc::new(build()?);
    let mut values = values.lock().map_err(poisoned)?;
    if values.len() >= 16 {
        values.clear();
    }
    values.insert(key, Arc::clone(&value));
    Ok(value)
}
