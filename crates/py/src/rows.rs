//! Kernels over Arrow columns handed over as their buffers (offsets and bytes), for the
//! Spark job: rows are signed where they are read, without a Python object per row.

use std::borrow::Cow;

use numpy::IntoPyArray;
use numpy::ndarray::{Array1, Array2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rayon::prelude::*;
use tessera_engine::MinHashPlan;
use tessera_engine::records::JsonRecord;
use tessera_engine::sketch::Signature;
use xxhash_rust::xxh3::xxh3_64;

/// `sign_rows` status of a row that gives a document.
pub(crate) const ROW_DOCUMENT: u8 = 0;
/// `sign_rows` status of a blank JSONL line: no record, and no failure.
pub(crate) const ROW_BLANK: u8 = 1;
/// `sign_rows` status of a row that gives no document (a record `tessera dedup` skips).
pub(crate) const ROW_FAILED: u8 = 2;

/// Variable-length values of an Arrow column: `offsets` (n + 1) into `data`.
pub(crate) struct Values<'a> {
    offsets: &'a [i64],
    data: &'a [u8],
}

impl<'a> Values<'a> {
    /// Checks that the offsets rise and stay within the data.
    pub(crate) fn new(offsets: &'a [i64], data: &'a [u8]) -> PyResult<Self> {
        let bad = offsets.is_empty()
            || offsets[0] < 0
            || offsets.windows(2).any(|w| w[1] < w[0])
            || offsets.last().is_some_and(|&e| e as u64 > data.len() as u64);
        if bad {
            return Err(PyValueError::new_err("offsets must rise from 0 and stay within the data"));
        }
        Ok(Self { offsets, data })
    }

    fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    fn get(&self, i: usize) -> &'a [u8] {
        &self.data[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}

/// Concatenated strings as (offsets, bytes).
#[derive(Default)]
struct Column {
    offsets: Vec<i64>,
    data: Vec<u8>,
}

impl Column {
    fn with_rows(n: usize) -> Self {
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0);
        Self { offsets, data: Vec::new() }
    }

    fn push(&mut self, s: &str) {
        self.data.extend_from_slice(s.as_bytes());
        self.offsets.push(self.data.len() as i64);
    }

    fn into_py<'py>(self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(
            py,
            [
                Array1::from(self.offsets).into_pyarray(py).into_any(),
                Array1::from(self.data).into_pyarray(py).into_any(),
            ],
        )
    }
}

/// What `sign_rows` finds in each row.
pub(crate) struct Signed {
    status: Vec<u8>,
    signatures: Array2<u32>,
    keys: Array2<u64>,
    usable: Vec<bool>,
    ids: Option<Column>,
    texts: Option<Column>,
}

/// Where the text of a row is: the row itself, or a field of the JSON record the row is.
pub(crate) enum Rows<'a> {
    /// Each row is a text (UTF-8).
    Texts,
    /// Each row is a JSONL line, read by the engine's rule (`JsonRecord`).
    JsonLines { text_field: &'a str, id_field: Option<&'a str> },
}

/// Why a row gives no document.
pub(crate) enum NoDocument {
    /// A blank JSONL line: no record, and no failure.
    Blank,
    /// A record `tessera dedup` skips (not UTF-8, not JSON, a field missing or mistyped).
    Failed(String),
}

impl<'a> Rows<'a> {
    /// The rows of a column: texts, or with `text_field` JSONL lines (and their ids with
    /// `id_field`, which needs `text_field`).
    pub(crate) fn new(text_field: Option<&'a str>, id_field: Option<&'a str>) -> Result<Self, &'static str> {
        match text_field {
            Some(text_field) => Ok(Rows::JsonLines { text_field, id_field }),
            None if id_field.is_some() => Err("id_field needs text_field"),
            None => Ok(Rows::Texts),
        }
    }

    /// The text of a row and its id (JSON lines with an id field), by the rule of
    /// `tessera dedup`.
    fn read<'r>(&self, raw: &'r [u8]) -> Result<(Cow<'r, str>, Option<String>), NoDocument> {
        match self {
            Rows::Texts => std::str::from_utf8(raw)
                .map(|text| (Cow::Borrowed(text), None))
                .map_err(|e| NoDocument::Failed(format!("not UTF-8: {e}"))),
            Rows::JsonLines { .. } if JsonRecord::is_blank(raw) => Err(NoDocument::Blank),
            Rows::JsonLines { text_field, id_field } => JsonRecord::parse(raw, 0, text_field, *id_field)
                .map(|r| (Cow::Owned(r.text), id_field.map(|_| r.id)))
                .map_err(|e| NoDocument::Failed(format!("{e:?}"))),
        }
    }
}

/// One row of `sign_rows`, read and signed.
struct Row<'a> {
    status: u8,
    id: Option<String>,
    text: Option<Cow<'a, str>>,
    signature: Option<Signature>,
    keys: Option<Vec<u64>>,
}

/// Signs the rows of `values` (rows not `valid` fail), with their band keys; keeps each
/// document's id (JSON lines with an id field) and text (`keep_text`). Rows are read,
/// parsed and signed in parallel.
pub(crate) fn sign_rows(
    plan: &MinHashPlan,
    values: &Values<'_>,
    valid: &[bool],
    rows: &Rows<'_>,
    keep_text: bool,
) -> Signed {
    let n = values.len();
    let read = |i: usize| -> Row<'_> {
        let raw = values.get(i);
        let read = if valid[i] { rows.read(raw) } else { Err(NoDocument::Failed(String::new())) };
        let (status, text, id) = match read {
            Ok((text, id)) => (ROW_DOCUMENT, Some(text), id),
            Err(NoDocument::Blank) => (ROW_BLANK, None, None),
            Err(NoDocument::Failed(_)) => (ROW_FAILED, None, None),
        };
        let signature = text.as_deref().map(|t| plan.signature(t));
        let keys = signature.as_ref().and_then(|s| plan.band_keys(s));
        Row { status, id, text: if keep_text { text } else { None }, signature, keys }
    };
    let read: Vec<Row<'_>> = (0..n).into_par_iter().map(read).collect();
    let (p, bands) = (plan.config().num_perm, plan.bands());
    let mut signatures = Array2::<u32>::zeros((n, p));
    let mut keys = Array2::<u64>::zeros((n, bands));
    let mut usable = vec![false; n];
    let mut status = Vec::with_capacity(n);
    let want_ids = matches!(rows, Rows::JsonLines { id_field: Some(_), .. });
    let mut ids = want_ids.then(|| Column::with_rows(n));
    let mut texts = keep_text.then(|| Column::with_rows(n));
    for (i, row) in read.into_iter().enumerate() {
        status.push(row.status);
        if let Some(sig) = &row.signature {
            signatures.row_mut(i).iter_mut().zip(&sig.0).for_each(|(dst, &v)| *dst = v);
        }
        if let Some(k) = row.keys {
            keys.row_mut(i).iter_mut().zip(k).for_each(|(dst, v)| *dst = v);
            usable[i] = true;
        }
        if let Some(ids) = ids.as_mut() {
            ids.push(row.id.as_deref().unwrap_or(""));
        }
        if let Some(texts) = texts.as_mut() {
            texts.push(row.text.as_deref().unwrap_or(""));
        }
    }
    Signed { status, signatures, keys, usable, ids, texts }
}

impl Signed {
    /// `(status, signatures, keys, usable, ids, texts)`; ids and texts are `(offsets, bytes)`
    /// or None.
    pub(crate) fn into_py<'py>(self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let none = || py.None().into_bound(py);
        PyTuple::new(
            py,
            [
                Array1::from(self.status).into_pyarray(py).into_any(),
                self.signatures.into_pyarray(py).into_any(),
                self.keys.into_pyarray(py).into_any(),
                Array1::from(self.usable).into_pyarray(py).into_any(),
                self.ids.map(|c| c.into_py(py)).transpose()?.map_or_else(none, Bound::into_any),
                self.texts.map(|c| c.into_py(py)).transpose()?.map_or_else(none, Bound::into_any),
            ],
        )
    }
}

/// The digest of each row's bytes (xxh3, 64 bits): what the Spark job keeps of a
/// document when it reads the input a second time for the texts of candidates, so that a
/// row read again is checked to be the row it signed.
pub(crate) fn row_digests(values: &Values<'_>) -> Vec<u64> {
    (0..values.len()).into_par_iter().map(|i| xxh3_64(values.get(i))).collect()
}

/// Clusters documents from their rows (in document order; texts or JSONL lines as
/// `sign_rows` reads them) and candidate pairs, verified with the exact Jaccard similarity
/// of their shingle sets. Each row's digest must be `digests`' (the row signed): a row
/// that changed, or is not a document by the rule that signed it, is an error naming it.
pub(crate) fn cluster_rows(
    plan: &MinHashPlan,
    values: &Values<'_>,
    digests: &[u64],
    rows: &Rows<'_>,
    pairs: &[(u32, u32)],
) -> Result<Vec<(u32, f64)>, String> {
    if digests.len() != values.len() {
        return Err(format!("{} digests for {} rows: give one per row", digests.len(), values.len()));
    }
    let set = |i: usize| -> Result<Vec<u64>, String> {
        let raw = values.get(i);
        if xxh3_64(raw) != digests[i] {
            return Err(format!(
                "row {i} is not the row that was signed (its digest differs): the input changed between the job's reads"
            ));
        }
        match rows.read(raw) {
            Ok((text, _)) => Ok(plan.shingle_set(&text)),
            Err(NoDocument::Blank) => Err(format!("row {i} gives no text: a blank line")),
            Err(NoDocument::Failed(why)) => Err(format!("row {i} gives no text: {why}")),
        }
    };
    let sets = (0..values.len()).into_par_iter().map(set).collect::<Result<Vec<_>, _>>()?;
    Ok(plan.cluster_sets(&sets, pairs))
}

/// The connected components of the graph of edges `(a[i], b[i])`: every vertex of an
/// edge (ascending) and the smallest vertex of its component.
pub(crate) fn components(a: &[i64], b: &[i64]) -> (Vec<i64>, Vec<i64>) {
    let mut vertices: Vec<i64> = a.iter().chain(b).copied().collect();
    vertices.sort_unstable();
    vertices.dedup();
    let index = |v: i64| vertices.binary_search(&v).unwrap_or_default();
    // Union by smaller index (the smaller vertex), with path halving: each root is its
    // component's smallest vertex.
    let mut parent: Vec<usize> = (0..vertices.len()).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for (&x, &y) in a.iter().zip(b) {
        let (rx, ry) = (find(&mut parent, index(x)), find(&mut parent, index(y)));
        if rx != ry {
            parent[rx.max(ry)] = rx.min(ry);
        }
    }
    let comp = (0..vertices.len()).map(|i| vertices[find(&mut parent, i)]).collect();
    (vertices, comp)
}

/// The rows of `values` read as `sign_rows` reads them, for the methods that hash the
/// text itself (exact, lines): each row's status, its id (JSON lines with an id field)
/// and its text (empty where there is no document), in parallel.
pub(crate) fn read_rows(values: &Values<'_>, valid: &[bool], rows: &Rows<'_>) -> Read {
    let read: Vec<(u8, Option<String>, String)> = (0..values.len())
        .into_par_iter()
        .map(|i| {
            let got = if valid[i] { rows.read(values.get(i)) } else { Err(NoDocument::Failed(String::new())) };
            match got {
                Ok((text, id)) => (ROW_DOCUMENT, id, text.into_owned()),
                Err(NoDocument::Blank) => (ROW_BLANK, None, String::new()),
                Err(NoDocument::Failed(_)) => (ROW_FAILED, None, String::new()),
            }
        })
        .collect();
    let n = read.len();
    let want_ids = matches!(rows, Rows::JsonLines { id_field: Some(_), .. });
    let mut ids = want_ids.then(|| Column::with_rows(n));
    let mut texts = Column::with_rows(n);
    let mut status = Vec::with_capacity(n);
    for (s, id, text) in read {
        status.push(s);
        if let Some(ids) = ids.as_mut() {
            ids.push(id.as_deref().unwrap_or(""));
        }
        texts.push(&text);
    }
    Read { status, ids, texts }
}

/// What `read_rows` found.
pub(crate) struct Read {
    status: Vec<u8>,
    ids: Option<Column>,
    texts: Column,
}

impl Read {
    /// `(status, ids, texts)`; ids and texts are `(offsets int64, bytes uint8)`, ids None
    /// unless JSON lines with an id field.
    pub(crate) fn into_py<'py>(self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let ids = match self.ids {
            Some(c) => c.into_py(py)?.into_any(),
            None => py.None().into_bound(py),
        };
        PyTuple::new(
            py,
            [Array1::from(self.status).into_pyarray(py).into_any(), ids, self.texts.into_py(py)?.into_any()],
        )
    }
}

/// The exact key of each text of `values` (the engine's `exact_key`) as two int64 arrays
/// (high and low 64 bits), in parallel.
pub(crate) fn exact_keys(values: &Values<'_>) -> (Vec<i64>, Vec<i64>) {
    let keys: Vec<u128> = (0..values.len())
        .into_par_iter()
        .map(|i| tessera_engine::exact_key(&String::from_utf8_lossy(values.get(i))))
        .collect();
    keys.iter().map(|&k| ((k >> 64) as u64 as i64, k as u64 as i64)).unzip()
}

/// The non-blank lines of the texts of `values` (the engine's `line_keys`), exploded:
/// `(row, line, key)` with keys as int64 (the bits of the engine's u64), rows ascending.
pub(crate) fn line_key_rows(values: &Values<'_>) -> (Vec<i64>, Vec<i32>, Vec<i64>) {
    let per_row: Vec<Vec<Option<u64>>> = (0..values.len())
        .into_par_iter()
        .map(|i| tessera_engine::line_keys(&String::from_utf8_lossy(values.get(i))))
        .collect();
    let (mut rows, mut lines, mut keys) = (Vec::new(), Vec::new(), Vec::new());
    for (row, row_keys) in per_row.into_iter().enumerate() {
        for (line, key) in row_keys.into_iter().enumerate() {
            if let Some(key) = key {
                rows.push(row as i64);
                lines.push(i32::try_from(line).unwrap_or(i32::MAX));
                keys.push(key as i64);
            }
        }
    }
    (rows, lines, keys)
}
