//! Whole texts through Tessera's normalizer: `sketch`, `dedup` and the kernels of a
//! distributed MinHash dedup (`DedupPlan`), all on the engine's `MinHashPlan` and
//! `Deduplicator`.

use std::sync::{Arc, OnceLock};

use numpy::ndarray::{Array1, Array2, ArrayView2};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyString, PyTuple};
use rayon::slice::ParallelSliceMut;
use tessera_engine::dedup_defaults as d;
use tessera_engine::sketch::Signature;
use tessera_engine::{DedupConfig, DedupMethod, Deduplicator, ExtractConfig, MinHashPlan, Verify};

use crate::defaults::{method_name, verify_name};
use crate::rows::{self, Rows, Values};
use crate::{errors, settings};

/// Texts taken from Python at a time before the work on them runs without the GIL: it
/// bounds the memory of the copies (the CLI reads records in batches of the same size).
const BATCH: usize = 1024;
/// Texts signed at a time by `sketch` and `DedupPlan.signatures`: larger batches keep both
/// cores busy to the end of a batch; the bytes bound keeps the copies' memory bounded.
const SIGN_BATCH: usize = 16_384;
const SIGN_BATCH_BYTES: usize = 64 << 20;

/// Plans by settings, built once per process: a plan holds the warm normalizers.
fn plan(config: &DedupConfig) -> PyResult<Arc<MinHashPlan>> {
    static PLANS: settings::Cache<MinHashPlan> = OnceLock::new();
    settings::cached(&PLANS, "plan", config, || MinHashPlan::new(config).map_err(errors::engine))
}

/// The engine's dedup settings of the keyword arguments.
#[allow(clippy::too_many_arguments)]
fn config(
    threshold: f64,
    num_perm: usize,
    seed: u64,
    shingle_size: usize,
    stop_words: bool,
    stemming: bool,
    language: Option<String>,
    short_words: usize,
) -> DedupConfig {
    DedupConfig {
        threshold,
        num_perm,
        seed,
        short_words,
        fingerprint: settings::fingerprint(shingle_size, stop_words, stemming, language),
        ..DedupConfig::default()
    }
}

/// A text of a batch: a str, or None (no text: the empty signature). A text longer than
/// one document's cap (`MAX_TEXT_BYTES` of UTF-8, the CLI's `--max-text-mb`) is a
/// `ValueError` before it is copied ([`chars_within_cap`]).
fn text_of(item: &Bound<'_, PyAny>, allow_none: bool) -> PyResult<Option<String>> {
    if let Ok(s) = item.cast::<PyString>() {
        chars_within_cap(s.len()?)?;
        let text = s.to_cow()?;
        text_within_cap(text.len())?;
        return Ok(Some(text.into_owned()));
    }
    if allow_none && item.is_none() {
        return Ok(None);
    }
    Err(PyTypeError::new_err(format!(
        "texts are str{}, not {}",
        if allow_none { " or None" } else { "" },
        item.get_type().name().map(|n| n.to_string()).unwrap_or_default()
    )))
}

/// Refuses a str of `chars` characters over the cap for one document before its UTF-8
/// is made: under the stable ABI of Python 3.9 `to_cow` copies a str twice (a `bytes`,
/// then a `String`), which for a 200 MB str cost 400 MB just to refuse it. A character
/// is at least a byte of UTF-8, so a str with more characters than the cap is over it.
pub(crate) fn chars_within_cap(chars: usize) -> PyResult<()> {
    let limit = tessera_engine::DEFAULT_MAX_TEXT_BYTES;
    if chars as u64 > limit {
        return Err(PyValueError::new_err(format!(
            "a text of {chars} characters is over the limit of {limit} bytes for one document (tessera.MAX_TEXT_BYTES)"
        )));
    }
    Ok(())
}

/// Refuses a text of `len` bytes over the cap for one document, as the CLI does.
pub(crate) fn text_within_cap(len: usize) -> PyResult<()> {
    let limit = tessera_engine::DEFAULT_MAX_TEXT_BYTES;
    if len as u64 > limit {
        return Err(PyValueError::new_err(format!(
            "a text of {len} bytes is over the limit of {limit} bytes for one document (tessera.MAX_TEXT_BYTES)"
        )));
    }
    Ok(())
}

/// The signatures of every text of an iterable (None: empty), `num_perm` values each,
/// in order, computed a batch at a time in parallel without the GIL.
fn signatures_of(py: Python<'_>, plan: &MinHashPlan, texts: &Bound<'_, PyAny>) -> PyResult<(usize, Vec<u32>)> {
    let p = plan.config().num_perm;
    let mut out: Vec<u32> = Vec::new();
    let mut n = 0;
    let mut batch: Vec<Option<String>> = Vec::new();
    let run = |batch: &mut Vec<Option<String>>, out: &mut Vec<u32>| {
        let refs: Vec<&str> = batch.iter().map(|t| t.as_deref().unwrap_or("")).collect();
        let sigs = py.detach(|| plan.signatures(&refs));
        for s in sigs {
            debug_assert_eq!(s.0.len(), p);
            out.extend_from_slice(&s.0);
        }
        batch.clear();
    };
    let mut bytes = 0usize;
    for item in texts.try_iter()? {
        let text = text_of(&item?, true)?;
        bytes += text.as_ref().map_or(0, String::len);
        batch.push(text);
        n += 1;
        if batch.len() == SIGN_BATCH || bytes >= SIGN_BATCH_BYTES {
            run(&mut batch, &mut out);
            bytes = 0;
        }
    }
    run(&mut batch, &mut out);
    Ok((n, out))
}

/// MinHash signatures of texts through Tessera's own normalizer and word shingles: row
/// `i` is the signature `tessera dedup --write-signatures` gives text `i` with the same
/// settings. Runs in parallel (rayon) without the GIL.
///
/// Args:
///     texts: an iterable of str (None: no text, the empty signature).
///     num_perm: hash functions per signature.
///     seed: seed of the hash functions.
///     shingle_size: words per shingle.
///     stop_words: drop stop words (Tessera's English and Russian lists).
///     stemming: reduce words to Snowball stems.
///     language: force the language of Latin-script words (ISO 639-1, e.g. "en", "de");
///         None detects it.
///     short_words: texts of fewer terms are shingled cyclically.
///
/// Returns:
///     numpy uint64 array of shape (len(texts), num_perm), values below 2**32; an empty
///     signature is all 0xFFFFFFFF.
#[pyfunction]
#[pyo3(signature = (texts, num_perm = d::NUM_PERM, seed = d::SEED, shingle_size = d::SHINGLE_SIZE, stop_words = d::STOP_WORDS, stemming = d::STEMMING, language = None, short_words = d::SHORT_WORDS))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn sketch<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    num_perm: usize,
    seed: u64,
    shingle_size: usize,
    stop_words: bool,
    stemming: bool,
    language: Option<String>,
    short_words: usize,
) -> PyResult<Bound<'py, PyArray2<u64>>> {
    let plan = plan(&config(d::THRESHOLD, num_perm, seed, shingle_size, stop_words, stemming, language, short_words))?;
    let (n, values) = signatures_of(py, &plan, texts)?;
    let wide: Vec<u64> = py.detach(|| values.into_iter().map(u64::from).collect());
    let array = Array2::from_shape_vec((n, num_perm), wide).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(array.into_pyarray(py))
}

/// The columns of a dedup run (the package's `tessera.dedup` makes a table of them).
#[pyfunction]
#[pyo3(name = "_dedup_columns", signature = (texts, ids = None, method = method_name(d::METHOD), threshold = d::THRESHOLD, max_distance = d::MAX_DISTANCE, num_perm = d::NUM_PERM, seed = d::SEED, verify = verify_name(d::VERIFY), exact = false, shingle_size = d::SHINGLE_SIZE, stop_words = d::STOP_WORDS, stemming = d::STEMMING, language = None, short_words = d::SHORT_WORDS))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn dedup_columns<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    ids: Option<&Bound<'py, PyAny>>,
    method: &str,
    threshold: f64,
    max_distance: u32,
    num_perm: usize,
    seed: u64,
    verify: &str,
    exact: bool,
    shingle_size: usize,
    stop_words: bool,
    stemming: bool,
    language: Option<String>,
    short_words: usize,
) -> PyResult<Bound<'py, PyTuple>> {
    let method: DedupMethod = method.parse().map_err(errors::engine)?;
    let verify = match [Verify::Auto, Verify::Exact, Verify::Estimate].into_iter().find(|&v| verify_name(v) == verify) {
        _ if exact => Verify::Exact,
        Some(v) => v,
        None => {
            return Err(PyValueError::new_err(format!(
                "verify is \"auto\", \"exact\" or \"estimate\", not {verify:?}"
            )));
        }
    };
    let config = DedupConfig {
        method,
        max_distance,
        verify,
        ..config(threshold, num_perm, seed, shingle_size, stop_words, stemming, language, short_words)
    };
    let mut dedup = Deduplicator::new(config, ExtractConfig::default()).map_err(errors::engine)?;
    let mut ids = ids.map(|i| i.try_iter()).transpose()?;
    let mut batch: Vec<(String, String)> = Vec::with_capacity(BATCH);
    let mut n = 0usize;
    for text in texts.try_iter()? {
        let text = text_of(&text?, false)?.unwrap_or_default();
        n += 1;
        let id = match ids.as_mut() {
            None => n.to_string(),
            Some(ids) => match ids.next() {
                Some(id) => id_of(&id?)?,
                None => return Err(PyValueError::new_err(format!("ids ran out at text {n}: give one id per text"))),
            },
        };
        batch.push((id, text));
        if batch.len() == BATCH {
            py.detach(|| dedup.add_texts(&batch));
            batch.clear();
        }
    }
    if let Some(ids) = ids.as_mut()
        && ids.next().is_some()
    {
        return Err(PyValueError::new_err(format!("more ids than the {n} texts: give one id per text")));
    }
    py.detach(|| dedup.add_texts(&batch));
    drop(batch);
    let result = py.detach(|| dedup.finish()).map_err(errors::engine)?;
    let (mut id, mut cluster) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut kept, mut similarity) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let mut removed_lines = Vec::with_capacity(if method == DedupMethod::Lines { n } else { 0 });
    for line in result.lines {
        id.push(line.id);
        cluster.push(line.cluster);
        kept.push(line.kept);
        similarity.push(line.similarity);
        if method == DedupMethod::Lines {
            removed_lines.push(line.removed_lines);
        }
    }
    let s = &result.summary;
    let summary = PyDict::new(py);
    summary.set_item("documents", s.documents)?;
    summary.set_item("clusters", s.clusters)?;
    summary.set_item("duplicates_removed", s.duplicates_removed)?;
    summary.set_item("method", method_name(s.method))?;
    let verified = s.verified.map(|v| match v {
        tessera_engine::Verified::Exact => verify_name(Verify::Exact),
        tessera_engine::Verified::Estimate => verify_name(Verify::Estimate),
    });
    summary.set_item("verified", verified)?;
    summary.set_item("bands", s.bands)?;
    summary.set_item("rows", s.rows)?;
    if let Some(lines_removed) = s.lines_removed {
        summary.set_item("lines_removed", lines_removed)?;
    }
    PyTuple::new(
        py,
        [
            id.into_pyobject(py)?.into_any(),
            cluster.into_pyobject(py)?.into_any(),
            Array1::from(kept).into_pyarray(py).into_any(),
            Array1::from(similarity).into_pyarray(py).into_any(),
            summary.into_any(),
            removed_lines.into_pyobject(py)?.into_any(),
        ],
    )
}

/// An id given by Python: a str, or an int written in decimal (as `tessera dedup` writes a
/// JSON number id).
fn id_of(id: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = id.cast::<PyString>() {
        return Ok(s.to_cow()?.into_owned());
    }
    if id.is_instance_of::<PyInt>() {
        return Ok(id.str()?.to_cow()?.into_owned());
    }
    Err(PyTypeError::new_err(format!(
        "ids are str or int, not {}",
        id.get_type().name().map(|n| n.to_string()).unwrap_or_default()
    )))
}

/// Signatures given as a 2-D array of uint32 (or uint64 values below 2**32).
fn signature_rows(array: &Bound<'_, PyAny>, num_perm: usize) -> PyResult<Vec<Signature>> {
    fn rows<T: Copy>(a: ArrayView2<'_, T>, f: impl Fn(T) -> Option<u32>) -> PyResult<Vec<Signature>> {
        a.rows()
            .into_iter()
            .map(|r| {
                r.iter()
                    .map(|&v| f(v).ok_or_else(|| PyValueError::new_err("signature values are below 2**32")))
                    .collect::<PyResult<Vec<u32>>>()
                    .map(Signature)
            })
            .collect()
    }
    let sigs = if let Ok(a) = array.extract::<PyReadonlyArray2<'_, u32>>() {
        rows(a.as_array(), Some)?
    } else if let Ok(a) = array.extract::<PyReadonlyArray2<'_, u64>>() {
        rows(a.as_array(), |v| u32::try_from(v).ok())?
    } else {
        return Err(PyTypeError::new_err("signatures are a 2-D numpy array of uint32 (or uint64)"));
    };
    if let Some(s) = sigs.first()
        && s.0.len() != num_perm
    {
        return Err(PyValueError::new_err(format!(
            "signatures have {} values, and this plan makes {num_perm}",
            s.0.len()
        )));
    }
    Ok(sigs)
}

fn position(v: i64, what: &str) -> PyResult<u32> {
    u32::try_from(v).map_err(|_| PyValueError::new_err(format!("{what} {v} is out of range (0 to 2**32 - 1)")))
}

/// Band keys (n, bands) and whether each document takes part in the bands (n,).
type BandKeys<'py> = (Bound<'py, PyArray2<u64>>, Bound<'py, PyArray1<bool>>);
/// Each document's kept position and its similarity to it.
type Clusters<'py> = (Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<f64>>);

/// Candidate pairs `(p, 2)` of positions among `n` documents (`what`: their name in
/// errors), checked.
fn local_pairs(pairs: &PyReadonlyArray2<'_, i64>, n: usize, what: &str) -> PyResult<Vec<(u32, u32)>> {
    if pairs.shape()[1] != 2 && pairs.shape()[0] > 0 {
        return Err(PyValueError::new_err(format!("pairs have shape (p, 2), not {:?}", pairs.shape())));
    }
    let mut list = Vec::with_capacity(pairs.shape()[0]);
    for row in pairs.as_array().rows() {
        let (a, b) = (position(row[0], "position")?, position(row[1], "position")?);
        if a as usize >= n || b as usize >= n {
            return Err(PyValueError::new_err(format!("pair ({a}, {b}) names a position past the {n} {what}")));
        }
        list.push((a, b));
    }
    Ok(list)
}

/// Flattened `(earlier, later)` pairs as a (p, 2) int64 array.
fn pairs_array(py: Python<'_>, flat: Vec<i64>) -> PyResult<Bound<'_, PyArray2<i64>>> {
    let p = flat.len() / 2;
    let array = Array2::from_shape_vec((p, 2), flat).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(array.into_pyarray(py))
}

/// The `(kept, similarity)` arrays of a clustering.
fn clusters(py: Python<'_>, clustered: Vec<(u32, f64)>) -> Clusters<'_> {
    let (kept, similarity): (Vec<u32>, Vec<f64>) = clustered.into_iter().unzip();
    (Array1::from(kept).into_pyarray(py), Array1::from(similarity).into_pyarray(py))
}

/// The candidate pairs of buckets, flattened `(earlier, later)` member values: each
/// bucket's pairs by the engine's rule (`MinHashPlan::bucket_pairs`, computed once for a
/// run of buckets of one size).
#[derive(Default)]
struct BucketPairs {
    flat: Vec<i64>,
    last: Option<(usize, Vec<(u32, u32)>)>,
}

impl BucketPairs {
    /// Adds the pairs of a bucket of `len` members, `member(i)` the i-th in document order.
    fn push(&mut self, len: usize, member: impl Fn(usize) -> i64) {
        if self.last.as_ref().is_none_or(|(l, _)| *l != len) {
            self.last = Some((len, MinHashPlan::bucket_pairs(len)));
        }
        if let Some((_, pairs)) = &self.last {
            for &(a, b) in pairs {
                self.flat.push(member(a as usize));
                self.flat.push(member(b as usize));
            }
        }
    }
}

/// The pieces of a MinHash dedup run, for jobs that spread it over many machines (the
/// Spark job): the engine's `MinHashPlan`. Running them as its docstrings say gives the
/// answer `tessera.dedup` and `tessera dedup` give on one machine:
///
/// 1. `signatures(texts)` per document;
/// 2. `band_keys(signatures)`: documents sharing the key of one band form a bucket;
/// 3. `bucket_pairs(sizes, members)`: the candidate pairs of buckets whose members are in
///    document order;
/// 4. `cluster(signatures, pairs)` on each connected component of the candidate pairs,
///    members in document order.
///
/// The settings are those of `tessera.dedup` (MinHash); `ValueError` for one out of range.
#[pyclass(module = "tessera._tessera", name = "DedupPlan", frozen)]
pub struct DedupPlan {
    plan: Arc<MinHashPlan>,
}

#[pymethods]
impl DedupPlan {
    #[new]
    #[pyo3(signature = (threshold = d::THRESHOLD, num_perm = d::NUM_PERM, seed = d::SEED, shingle_size = d::SHINGLE_SIZE, stop_words = d::STOP_WORDS, stemming = d::STEMMING, language = None, short_words = d::SHORT_WORDS))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        threshold: f64,
        num_perm: usize,
        seed: u64,
        shingle_size: usize,
        stop_words: bool,
        stemming: bool,
        language: Option<String>,
        short_words: usize,
    ) -> PyResult<Self> {
        let config = config(threshold, num_perm, seed, shingle_size, stop_words, stemming, language, short_words);
        Ok(Self { plan: plan(&config)? })
    }

    /// LSH bands.
    #[getter]
    fn bands(&self) -> usize {
        self.plan.bands()
    }

    /// Values per band.
    #[getter]
    fn rows(&self) -> usize {
        self.plan.rows()
    }

    /// Hash functions per signature.
    #[getter]
    fn num_perm(&self) -> usize {
        self.plan.config().num_perm
    }

    /// The Jaccard similarity of near-duplicates.
    #[getter]
    fn threshold(&self) -> f64 {
        self.plan.config().threshold
    }

    /// Seed of the hash functions.
    #[getter]
    fn seed(&self) -> u64 {
        self.plan.config().seed
    }

    /// The signatures of texts (None: no text, the empty signature, all 0xFFFFFFFF):
    /// numpy uint32 of shape (n, num_perm). In parallel, without the GIL.
    #[pyo3(text_signature = "($self, texts)")]
    fn signatures<'py>(&self, py: Python<'py>, texts: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray2<u32>>> {
        let (n, values) = signatures_of(py, &self.plan, texts)?;
        let array =
            Array2::from_shape_vec((n, self.num_perm()), values).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(array.into_pyarray(py))
    }

    /// The band keys of signatures (n, num_perm): `(keys, usable)`, keys uint64 of shape
    /// (n, bands) and usable bool of shape (n,); an empty signature takes part in no band
    /// (usable False, its keys 0).
    #[pyo3(text_signature = "($self, signatures)")]
    fn band_keys<'py>(&self, py: Python<'py>, signatures: &Bound<'py, PyAny>) -> PyResult<BandKeys<'py>> {
        let sigs = signature_rows(signatures, self.num_perm())?;
        let bands = self.bands();
        let (keys, usable) = py.detach(|| {
            let mut keys = Array2::<u64>::zeros((sigs.len(), bands));
            let mut usable = Array1::from_elem(sigs.len(), false);
            for (i, s) in sigs.iter().enumerate() {
                if let Some(k) = self.plan.band_keys(s) {
                    keys.row_mut(i).iter_mut().zip(k).for_each(|(dst, v)| *dst = v);
                    usable[i] = true;
                }
            }
            (keys, usable)
        });
        Ok((keys.into_pyarray(py), usable.into_pyarray(py)))
    }

    /// The candidate pairs of band rows: `band`, `key` (the band's key as int64), `o1`,
    /// `o2` (the document order) and `vid` (the member value returned), int64 arrays of one
    /// length, holding whole buckets in any order. Rows of one `(band, key)` form a bucket,
    /// its members in document order `(o1, o2, vid)`; returns what `bucket_pairs` returns
    /// for those buckets, in `(band, key)` order. One call per partition of band rows: the
    /// sort runs here, in parallel, not in numpy.
    #[pyo3(text_signature = "($self, band, key, o1, o2, vid)")]
    fn band_row_pairs<'py>(
        &self,
        py: Python<'py>,
        band: PyReadonlyArray1<'py, i64>,
        key: PyReadonlyArray1<'py, i64>,
        o1: PyReadonlyArray1<'py, i64>,
        o2: PyReadonlyArray1<'py, i64>,
        vid: PyReadonlyArray1<'py, i64>,
    ) -> PyResult<Bound<'py, PyArray2<i64>>> {
        let columns = [band.as_array(), key.as_array(), o1.as_array(), o2.as_array(), vid.as_array()];
        let n = columns[0].len();
        if let Some(c) = columns.iter().find(|c| c.len() != n) {
            return Err(PyValueError::new_err(format!("band rows of {n} and {} values", c.len())));
        }
        let flat: Vec<i64> = py.detach(|| {
            let mut rows: Vec<[i64; 5]> =
                (0..n).map(|i| [columns[0][i], columns[1][i], columns[2][i], columns[3][i], columns[4][i]]).collect();
            rows.par_sort_unstable();
            let mut pairs = BucketPairs::default();
            for bucket in rows.chunk_by(|a, b| a[..2] == b[..2]).filter(|b| b.len() > 1) {
                pairs.push(bucket.len(), |i| bucket[i][4]);
            }
            pairs.flat
        });
        pairs_array(py, flat)
    }

    /// The candidate pairs of buckets: `sizes` (int64, one per bucket) cut `members`
    /// (int64, concatenated, each bucket's members in document order); returns (p, 2)
    /// int64 `(earlier, later)` member values, each later member paired with its nearest
    /// predecessors in the bucket (the engine's rule).
    #[pyo3(text_signature = "($self, sizes, members)")]
    fn bucket_pairs<'py>(
        &self,
        py: Python<'py>,
        sizes: PyReadonlyArray1<'py, i64>,
        members: PyReadonlyArray1<'py, i64>,
    ) -> PyResult<Bound<'py, PyArray2<i64>>> {
        let (sizes, members) = (sizes.as_array(), members.as_array());
        let mut total = 0usize;
        for &s in sizes {
            total += usize::try_from(s).map_err(|_| PyValueError::new_err(format!("bucket size {s} is negative")))?;
        }
        if total != members.len() {
            return Err(PyValueError::new_err(format!(
                "the bucket sizes add up to {total}, and there are {} members",
                members.len()
            )));
        }
        let flat: Vec<i64> = py.detach(|| {
            let mut pairs = BucketPairs::default();
            let mut start = 0usize;
            for &s in sizes {
                let len = s as usize;
                pairs.push(len, |i| members[start + i]);
                start += len;
            }
            pairs.flat
        });
        pairs_array(py, flat)
    }

    /// Clusters documents (signatures (m, num_perm) in document order) from candidate
    /// pairs ((p, 2) int64 positions `(earlier, later)`): `(kept, similarity)`, the
    /// position of each document's kept document (uint32, (m,)) and its similarity to it
    /// (float64, rounded to 4 decimals as `tessera dedup` prints it). No chaining: every
    /// member is compared with its kept document itself.
    #[pyo3(text_signature = "($self, signatures, pairs)")]
    fn cluster<'py>(
        &self,
        py: Python<'py>,
        signatures: &Bound<'py, PyAny>,
        pairs: PyReadonlyArray2<'py, i64>,
    ) -> PyResult<Clusters<'py>> {
        let sigs = signature_rows(signatures, self.num_perm())?;
        let list = local_pairs(&pairs, sigs.len(), "signatures")?;
        let clustered = py.detach(|| self.plan.cluster(&sigs, &list));
        Ok(clusters(py, clustered))
    }

    /// `cluster` verified with the exact Jaccard similarity of the shingle sets, made from
    /// the documents' texts (a sequence of str, in document order): the default
    /// verification of `tessera dedup` (`--verify auto` while the sets fit its budget).
    #[pyo3(text_signature = "($self, texts, pairs)")]
    fn cluster_texts<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        pairs: PyReadonlyArray2<'py, i64>,
    ) -> PyResult<Clusters<'py>> {
        let mut owned: Vec<String> = Vec::new();
        for t in texts.try_iter()? {
            owned.push(text_of(&t?, true)?.unwrap_or_default());
        }
        let list = local_pairs(&pairs, owned.len(), "texts")?;
        let clustered = py.detach(|| {
            let refs: Vec<&str> = owned.iter().map(String::as_str).collect();
            self.plan.cluster_texts(&refs, &list)
        });
        Ok(clusters(py, clustered))
    }

    /// `cluster_texts` from the documents' rows handed over as an Arrow column's buffers:
    /// `offsets` (int64, m + 1) into `data` (uint8), in document order, each a text or with
    /// `text_field` a JSONL line (read as `sign_rows` reads it). `digests` (uint64, m) are
    /// the rows' `row_digests` when they were signed: a row whose digest differs (the input
    /// changed between two reads) is a ValueError, as is a row that gives no text.
    #[pyo3(signature = (offsets, data, digests, pairs, text_field = None))]
    fn cluster_rows<'py>(
        &self,
        py: Python<'py>,
        offsets: PyReadonlyArray1<'py, i64>,
        data: PyReadonlyArray1<'py, u8>,
        digests: PyReadonlyArray1<'py, u64>,
        pairs: PyReadonlyArray2<'py, i64>,
        text_field: Option<&str>,
    ) -> PyResult<Clusters<'py>> {
        let values = Values::new(offsets.as_slice()?, data.as_slice()?)?;
        let digests = digests.as_slice()?;
        let list = local_pairs(&pairs, offsets.len() - 1, "rows")?;
        let rows = Rows::new(text_field, None).map_err(PyValueError::new_err)?;
        let clustered = py.detach(|| rows::cluster_rows(&self.plan, &values, digests, &rows, &list));
        Ok(clusters(py, clustered.map_err(PyValueError::new_err)?))
    }

    /// Signs the rows of an Arrow column handed over as its buffers: `offsets` (int64,
    /// n + 1) into `data` (uint8), `valid` (bool, n; a row not valid gives no document).
    /// Each row is a text (UTF-8), or with `text_field` a JSONL line read by the rule of
    /// `tessera dedup` (a blank line is no record; a line that is not a JSON object with a
    /// string text, and a string or number `id_field`, gives no document).
    ///
    /// Returns `(status, signatures, keys, usable, ids, texts)`: status uint8 (n,), 0 a
    /// document, 1 a blank line, 2 no document; signatures uint32 (n, num_perm) and band
    /// keys uint64 (n, bands), zero where there is no document; usable bool (n,) as
    /// `band_keys`; ids (JSONL with `id_field`) and texts (`keep_text`) as `(offsets int64,
    /// bytes uint8)`, empty where there is no document, else None. In parallel, without
    /// the GIL.
    #[pyo3(signature = (offsets, data, valid, text_field = None, id_field = None, keep_text = false))]
    #[allow(clippy::too_many_arguments)]
    fn sign_rows<'py>(
        &self,
        py: Python<'py>,
        offsets: PyReadonlyArray1<'py, i64>,
        data: PyReadonlyArray1<'py, u8>,
        valid: PyReadonlyArray1<'py, bool>,
        text_field: Option<&str>,
        id_field: Option<&str>,
        keep_text: bool,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let values = Values::new(offsets.as_slice()?, data.as_slice()?)?;
        let valid = valid.as_slice()?;
        if valid.len() + 1 != offsets.len() {
            return Err(PyValueError::new_err(format!(
                "{} offsets for {} rows: give one more offset than rows",
                offsets.len(),
                valid.len()
            )));
        }
        let rows = Rows::new(text_field, id_field).map_err(PyValueError::new_err)?;
        let signed = py.detach(|| rows::sign_rows(&self.plan, &values, valid, &rows, keep_text));
        signed.into_py(py)
    }

    fn __repr__(&self) -> String {
        let c = self.plan.config();
        format!(
            "DedupPlan(threshold={}, num_perm={}, seed={}, bands={}, rows={})",
            c.threshold,
            c.num_perm,
            c.seed,
            self.bands(),
            self.rows()
        )
    }

    /// Pickling (Spark ships the plan to its executors): rebuilt from its settings.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let c = slf.get().plan.config();
        let n = &c.fingerprint.normalizer;
        let args = (
            c.threshold,
            c.num_perm,
            c.seed,
            c.fingerprint.shingles.size,
            n.stop_words,
            n.stemming,
            n.language.clone(),
            c.short_words,
        )
            .into_pyobject(py)?;
        PyTuple::new(py, [slf.get_type().into_any(), args.into_any()])
    }
}

/// The digest (xxh3, 64 bits) of each row of an Arrow column handed over as its buffers,
/// `offsets` (int64, n + 1) into `data` (uint8): uint64 (n,). `DedupPlan.cluster_rows`
/// checks rows read again against them. In parallel, without the GIL.
#[pyfunction]
pub(crate) fn row_digests<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    data: PyReadonlyArray1<'py, u8>,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
    let values = Values::new(offsets.as_slice()?, data.as_slice()?)?;
    let digests = py.detach(|| rows::row_digests(&values));
    Ok(Array1::from(digests).into_pyarray(py))
}

/// The connected components of the graph of edges `(a[i], b[i])` (int64 arrays of one
/// length), by union-find: `(vertices, components)`, every vertex of an edge (ascending,
/// int64) and the smallest vertex of its component.
#[pyfunction]
pub(crate) fn connected_components<'py>(
    py: Python<'py>,
    a: PyReadonlyArray1<'py, i64>,
    b: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyTuple>> {
    let (a, b) = (a.as_slice()?, b.as_slice()?);
    if a.len() != b.len() {
        return Err(PyValueError::new_err(format!("{} and {} edge ends: give one b per a", a.len(), b.len())));
    }
    let (vertices, comp) = py.detach(|| rows::components(a, b));
    PyTuple::new(
        py,
        [Array1::from(vertices).into_pyarray(py).into_any(), Array1::from(comp).into_pyarray(py).into_any()],
    )
}

/// Candidate pairs as the clustering takes them: the distinct pairs of `(a[i], b[i])`
/// (int64 arrays of one length) as `(lo, hi)`, lo < hi, ascending, a pair of one document
/// dropped.
fn distinct_pairs(a: &[i64], b: &[i64]) -> Vec<(i64, i64)> {
    let mut pairs: Vec<(i64, i64)> =
        a.iter().zip(b).filter(|(x, y)| x != y).map(|(&x, &y)| (x.min(y), x.max(y))).collect();
    pairs.par_sort_unstable();
    pairs.dedup();
    pairs
}

fn same_length(a: &[i64], b: &[i64]) -> PyResult<()> {
    if a.len() == b.len() {
        return Ok(());
    }
    Err(PyValueError::new_err(format!("{} and {} edge ends: give one b per a", a.len(), b.len())))
}

/// The distinct candidate pairs of `(a[i], b[i])` (int64 arrays of one length) and their
/// connected components by union-find, as the Spark job's driver joins them: `(vertices,
/// components, lo, hi, pair_components)`, every vertex of a pair (ascending) and the
/// smallest vertex of its component (`connected_components`), the pairs (lo < hi,
/// ascending, a pair of one document dropped) and each pair's component. Without the GIL.
#[pyfunction]
#[pyo3(name = "_pair_components")]
pub(crate) fn pair_components<'py>(
    py: Python<'py>,
    a: PyReadonlyArray1<'py, i64>,
    b: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyTuple>> {
    let (a, b) = (a.as_slice()?, b.as_slice()?);
    same_length(a, b)?;
    let (vertices, comp, lo, hi, pair_comp) = py.detach(|| {
        let (lo, hi): (Vec<i64>, Vec<i64>) = distinct_pairs(a, b).into_iter().unzip();
        let (vertices, comp) = rows::components(&lo, &hi);
        let pair_comp = lo.iter().map(|v| comp[vertices.binary_search(v).unwrap_or_default()]).collect::<Vec<_>>();
        (vertices, comp, lo, hi, pair_comp)
    });
    PyTuple::new(py, [vertices, comp, lo, hi, pair_comp].map(|v| Array1::from(v).into_pyarray(py).into_any()))
}

/// The candidate pairs `(a[i], b[i])` of a component's documents (numbered `vid`, int64,
/// its members in document order) as the (p, 2) int64 positions `DedupPlan.cluster`
/// takes: distinct, earlier first, ascending, a pair of one document dropped. ValueError
/// when a pair names a document outside `vid`.
#[pyfunction]
#[pyo3(name = "_member_pairs")]
pub(crate) fn member_pairs<'py>(
    py: Python<'py>,
    vid: PyReadonlyArray1<'py, i64>,
    a: PyReadonlyArray1<'py, i64>,
    b: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let (vid, a, b) = (vid.as_slice()?, a.as_slice()?, b.as_slice()?);
    same_length(a, b)?;
    let mut index: Vec<(i64, i64)> = vid.iter().copied().zip(0..).collect();
    index.sort_unstable();
    let position = |v: i64| match index.binary_search_by_key(&v, |&(x, _)| x) {
        Ok(i) => Ok(index[i].1),
        Err(_) => Err(PyValueError::new_err("a candidate pair names a document outside its component")),
    };
    let a = a.iter().map(|&v| position(v)).collect::<PyResult<Vec<_>>>()?;
    let b = b.iter().map(|&v| position(v)).collect::<PyResult<Vec<_>>>()?;
    pairs_array(py, distinct_pairs(&a, &b).into_iter().flat_map(|(x, y)| [x, y]).collect())
}
