//! The kernels of exact and line dedup (`dedup(method="exact"|"lines")`, the Spark job's
//! `--method exact|lines`): texts read from Arrow buffers, the engine's exact and line
//! keys, what the lines method says of a text and the record it writes back. Every rule
//! is the engine's (`tessera_engine::dedup`'s hashed methods).

use numpy::ndarray::Array1;
use numpy::{IntoPyArray, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::rows::{self, Values};

/// `text` without the lines `removed` (0-based, ascending): the engine's rule of
/// `dedup(method="lines")` and `tessera dedup --method lines --write-kept`.
#[pyfunction]
#[pyo3(name = "_remove_lines")]
pub(crate) fn remove_lines(text: &str, removed: Vec<u32>) -> String {
    tessera_engine::remove_lines(text, &removed)
}

/// The rows of an Arrow column handed over as its buffers (`offsets` int64 n + 1,
/// `data` uint8, `valid` bool n), read as `DedupPlan.sign_rows` reads them (texts, or
/// with `text_field` JSONL lines by the engine's rule), without sketching: `(status
/// uint8, ids, texts)` with ids and texts as `(offsets, bytes)` (ids None unless
/// `id_field`). For the methods that hash the text itself (the Spark job's exact and
/// lines). In parallel, without the GIL.
#[pyfunction]
#[pyo3(name = "_read_rows", signature = (offsets, data, valid, text_field = None, id_field = None))]
pub(crate) fn read_rows<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    data: PyReadonlyArray1<'py, u8>,
    valid: PyReadonlyArray1<'py, bool>,
    text_field: Option<&str>,
    id_field: Option<&str>,
) -> PyResult<Bound<'py, PyTuple>> {
    let values = Values::new(offsets.as_slice()?, data.as_slice()?)?;
    let valid = valid.as_slice()?;
    if valid.len() + 1 != offsets.len() {
        return Err(PyValueError::new_err(format!("{} offsets for {} rows", offsets.len(), valid.len())));
    }
    let rows = rows::Rows::new(text_field, id_field).map_err(PyValueError::new_err)?;
    let read = py.detach(|| rows::read_rows(&values, valid, &rows));
    read.into_py(py)
}

/// The engine's exact key of each text (`offsets` int64 n + 1 into `data` uint8) as
/// `(high, low)` int64 arrays. In parallel, without the GIL.
#[pyfunction]
#[pyo3(name = "_exact_keys")]
pub(crate) fn exact_keys<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    data: PyReadonlyArray1<'py, u8>,
) -> PyResult<Bound<'py, PyTuple>> {
    let values = Values::new(offsets.as_slice()?, data.as_slice()?)?;
    let (high, low) = py.detach(|| rows::exact_keys(&values));
    PyTuple::new(py, [Array1::from(high).into_pyarray(py).into_any(), Array1::from(low).into_pyarray(py).into_any()])
}

/// The non-blank lines of each text (`offsets` int64 n + 1 into `data` uint8) with the
/// engine's line keys: `(row int64, line int32, key int64)`, one entry per line. In
/// parallel, without the GIL.
#[pyfunction]
#[pyo3(name = "_line_key_rows")]
pub(crate) fn line_key_rows<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    data: PyReadonlyArray1<'py, u8>,
) -> PyResult<Bound<'py, PyTuple>> {
    let values = Values::new(offsets.as_slice()?, data.as_slice()?)?;
    let (rows, lines, keys) = py.detach(|| rows::line_key_rows(&values));
    PyTuple::new(
        py,
        [
            Array1::from(rows).into_pyarray(py).into_any(),
            Array1::from(lines).into_pyarray(py).into_any(),
            Array1::from(keys).into_pyarray(py).into_any(),
        ],
    )
}

/// What the lines method says of a text whose lines `removed` were seen earlier: `(kept,
/// similarity)` (the engine's `lines_outcome`).
#[pyfunction]
#[pyo3(name = "_lines_outcome")]
pub(crate) fn lines_outcome(text: &str, removed: Vec<u32>) -> (bool, f64) {
    tessera_engine::lines_outcome(text, &removed)
}

/// A JSONL line (bytes) with its `text_field` rewritten without the lines `removed`: the
/// record `tessera dedup --method lines --write-kept` writes (other fields as written, in
/// their order; the object compact, with a final newline).
#[pyfunction]
#[pyo3(name = "_rewrite_jsonl")]
pub(crate) fn rewrite_jsonl(line: &[u8], text_field: &str, removed: Vec<u32>) -> PyResult<String> {
    let fields = tessera_engine::records::RecordFields::new(Some(text_field), None);
    let out = tessera_engine::records::rewrite_text(
        tessera_engine::records::RecordFormat::Jsonl,
        None,
        line,
        &fields,
        |text| tessera_engine::remove_lines(text, &removed),
    )
    .map_err(|e| PyValueError::new_err(e.to_string()))?;
    String::from_utf8(out).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Each text's kept flag, similarity, removed lines and text without them.
type LinesVerdicts = (Vec<bool>, Vec<f64>, Vec<Vec<u32>>, Vec<String>);

/// The lines method's answer for a batch of texts and the lines of each an earlier
/// document had (`removed`, 0-based, any order; None for none): `(kept, similarity,
/// removed, texts)`, each text's verdict (the engine's `lines_outcome`), its removed
/// lines ascending and the text without them (the engine's `remove_lines`).
#[pyfunction]
#[pyo3(name = "_lines_verdicts")]
pub(crate) fn lines_verdicts(
    py: Python<'_>,
    texts: Vec<String>,
    removed: Vec<Option<Vec<u32>>>,
) -> PyResult<LinesVerdicts> {
    if texts.len() != removed.len() {
        return Err(PyValueError::new_err(format!("{} texts and {} removed lists", texts.len(), removed.len())));
    }
    Ok(py.detach(|| {
        let mut out = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (text, gone) in texts.into_iter().zip(removed) {
            let mut gone = gone.unwrap_or_default();
            gone.sort_unstable();
            let (kept, similarity) = tessera_engine::lines_outcome(&text, &gone);
            out.0.push(kept);
            out.1.push(similarity);
            out.3.push(if gone.is_empty() { text } else { tessera_engine::remove_lines(&text, &gone) });
            out.2.push(gone);
        }
        out
    }))
}
