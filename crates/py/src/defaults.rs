//! `tessera.DEDUP_DEFAULTS`: the engine's dedup defaults (`tessera_engine::dedup_defaults`)
//! as one Python object, which the package's signatures (`tessera.dedup`, the Spark job)
//! read rather than write again; the extension's own signatures use the constants.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use tessera_engine::dedup_defaults as d;
use tessera_engine::{DedupMethod, Verify};

/// The name of a method as Python gives it (the engine's name).
pub(crate) fn method_name(method: DedupMethod) -> &'static str {
    method.name()
}

/// The name of a verification as Python gives it.
pub(crate) fn verify_name(verify: Verify) -> &'static str {
    match verify {
        Verify::Auto => "auto",
        Verify::Exact => "exact",
        Verify::Estimate => "estimate",
    }
}

/// The defaults of a dedup run, as the engine defines them (`tessera dedup`'s, the
/// keyword arguments' of `tessera.dedup`, `tessera.sketch`, `tessera.kernels.DedupPlan`
/// and the Spark job). Read-only; `_asdict()` gives them as a dict.
#[pyclass(module = "tessera._tessera", name = "DedupDefaults", frozen, get_all)]
pub struct DedupDefaults {
    /// "minhash", "simhash", "exact" or "lines".
    method: &'static str,
    /// MinHash: the Jaccard similarity of near-duplicates.
    threshold: f64,
    /// SimHash: the largest Hamming distance of near-duplicates.
    max_distance: u32,
    /// MinHash: hash functions per signature.
    num_perm: usize,
    /// MinHash: seed of the hash functions.
    seed: u64,
    /// MinHash: "auto", "exact" or "estimate".
    verify: &'static str,
    /// MinHash, "auto": bytes of shingle sets kept at most for exact verification.
    exact_budget: usize,
    /// Texts of fewer terms are shingled cyclically.
    short_words: usize,
    /// Words per shingle.
    shingle_size: usize,
    /// Stop words are dropped.
    stop_words: bool,
    /// Words are stemmed.
    stemming: bool,
    /// Records: the field (column) holding the text.
    text_field: &'static str,
}

impl DedupDefaults {
    /// The engine's defaults.
    pub(crate) fn new() -> Self {
        Self {
            method: method_name(d::METHOD),
            threshold: d::THRESHOLD,
            max_distance: d::MAX_DISTANCE,
            num_perm: d::NUM_PERM,
            seed: d::SEED,
            verify: verify_name(d::VERIFY),
            exact_budget: d::EXACT_BUDGET,
            short_words: d::SHORT_WORDS,
            shingle_size: d::SHINGLE_SIZE,
            stop_words: d::STOP_WORDS,
            stemming: d::STEMMING,
            text_field: d::TEXT_FIELD,
        }
    }
}

#[pymethods]
impl DedupDefaults {
    /// The defaults as a dict, by name.
    #[pyo3(name = "_asdict")]
    fn as_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("method", self.method)?;
        dict.set_item("threshold", self.threshold)?;
        dict.set_item("max_distance", self.max_distance)?;
        dict.set_item("num_perm", self.num_perm)?;
        dict.set_item("seed", self.seed)?;
        dict.set_item("verify", self.verify)?;
        dict.set_item("exact_budget", self.exact_budget)?;
        dict.set_item("short_words", self.short_words)?;
        dict.set_item("shingle_size", self.shingle_size)?;
        dict.set_item("stop_words", self.stop_words)?;
        dict.set_item("stemming", self.stemming)?;
        dict.set_item("text_field", self.text_field)?;
        Ok(dict)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("DedupDefaults({})", self.as_dict(py)?.repr()?))
    }
}
