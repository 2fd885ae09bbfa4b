//! A sharded index from Python (the engine's `shards`): build the shards, answer a
//! sharded check's requests on the machine holding a shard (`Shard`), and check against
//! the shards through any carrier of bytes (`ShardedIndex`: in this process, or Ray).

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
use tessera_engine::shards::{self, LocalShards, ShardSet, wire};
use tessera_engine::{CollectionConfig, CollectionKind, Engine, IndexView, ReportFilters};

use crate::index::{engine_options, loads, report_filters, report_json, set_filters, summary};
use crate::{errors, settings};

/// One shard of a sharded index (a folder `shard-S-of-N`), opened to answer a sharded
/// check's requests: what a Ray replica of the shard holds. Each request reads the
/// shard's last commit, so documents added meanwhile by its writer are seen. Adds go
/// through `tessera.Index.open(path)` on the shard's folder: a shard adds documents only
/// under the ids it owns.
#[pyclass(module = "tessera._tessera", name = "Shard", frozen)]
pub struct Shard {
    engine: Engine,
}

#[pymethods]
impl Shard {
    /// Opens the shard at `path` (read only: the shard's writer is elsewhere).
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let engine = py.detach(|| Engine::open(&path, engine_options(None)?).map_err(errors::engine))?;
        Ok(Self { engine })
    }

    /// Answers a request's bytes (from `ShardedIndex`'s client) with the answer's bytes;
    /// a failure is in the answer, named, never an exception. Releases the GIL.
    #[pyo3(text_signature = "($self, request)")]
    fn answer<'py>(&self, py: Python<'py>, request: &[u8]) -> Bound<'py, PyBytes> {
        let answer = py.detach(|| match self.engine.view() {
            Ok(view) => view.answer_shard_request(request),
            Err(e) => wire::Answer::Error(tessera_engine::describe_error(&e)).encode(),
        });
        PyBytes::new(py, &answer)
    }

    /// `(shard, shards)` from the folder's name, or None for an ordinary index.
    #[getter]
    fn shard(&self) -> Option<(usize, usize)> {
        self.engine.shard()
    }

    /// Live documents of every collection of the shard's last commit.
    #[pyo3(text_signature = "($self)")]
    fn live_docs(&self, py: Python<'_>) -> PyResult<u64> {
        py.detach(|| -> PyResult<u64> {
            let view = self.engine.view().map_err(errors::engine)?;
            Ok(view.collections().iter().map(|c| c.docs).sum())
        })
    }

    fn __repr__(&self) -> String {
        format!("Shard({:?})", self.engine.dir())
    }
}

/// The carrier of a Python client: `client.call(shard, request) -> bytes`, called from
/// the engine's threads (each takes the GIL for the call; a client that waits on the
/// network releases it meanwhile).
struct PyShardSet {
    client: Py<PyAny>,
    shards: usize,
}

impl ShardSet for PyShardSet {
    fn shards(&self) -> usize {
        self.shards
    }

    fn call(&self, shard: usize, request: &[u8]) -> Result<Vec<u8>, String> {
        Python::attach(|py| {
            let answer = self
                .client
                .call_method1(py, "call", (shard, PyBytes::new(py, request)))
                .map_err(|e| e.value(py).to_string())?;
            let answer = answer.bind(py);
            let bytes = answer
                .cast::<PyBytes>()
                .map_err(|_| format!("its client returned {} instead of bytes", type_name(answer)))?;
            Ok(bytes.as_bytes().to_vec())
        })
    }
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "an object".to_owned())
}

/// A sharded index checked as one: the report is the one an index holding the same
/// documents would give. The shards are reached through `client` (an object with
/// `shards`, their number, and `call(shard, request: bytes) -> bytes`, which sends a
/// request to a replica of that shard and returns its answer, or raises), or opened in
/// this process with `ShardedIndex.open(path)`.
#[pyclass(module = "tessera._tessera", name = "ShardedIndex", frozen)]
pub struct ShardedIndex {
    engine: Engine,
    set: Arc<dyn ShardSet>,
}

#[pymethods]
impl ShardedIndex {
    /// Checks against the shards `client` reaches, fingerprinting suspects with the
    /// settings of the shard at `settings_from` (any shard's folder: all have the same).
    ///
    /// Args:
    ///     settings_from: the folder of one of the shards.
    ///     client: `shards` (int) and `call(shard, request) -> bytes`.
    ///     cross_language: as `Index.open`'s.
    #[new]
    #[pyo3(signature = (settings_from, client, cross_language = None))]
    fn new(
        py: Python<'_>,
        settings_from: PathBuf,
        client: Bound<'_, PyAny>,
        cross_language: Option<&str>,
    ) -> PyResult<Self> {
        let shards: usize = client
            .getattr("shards")
            .and_then(|s| s.extract())
            .map_err(|_| PyTypeError::new_err("client.shards must be the number of shards (an int)"))?;
        let options = engine_options(cross_language)?;
        let engine = py.detach(|| Engine::open(&settings_from, options)).map_err(errors::engine)?;
        Ok(Self { engine, set: Arc::new(PyShardSet { client: client.unbind(), shards }) })
    }

    /// The shards under `path` (folders `shard-S-of-N`), opened in this process.
    #[staticmethod]
    #[pyo3(signature = (path, cross_language = None))]
    fn open(py: Python<'_>, path: PathBuf, cross_language: Option<&str>) -> PyResult<Self> {
        let options = engine_options(cross_language)?;
        py.detach(|| {
            let set = LocalShards::open(&path, options).map_err(errors::engine)?;
            let engine = set.checker().map_err(errors::engine)?;
            Ok(Self { engine, set: Arc::new(set) })
        })
    }

    /// How many shards.
    #[getter]
    fn shards(&self) -> usize {
        self.set.shards()
    }

    /// Checks a document against every collection of the shards: a text (str), a file's
    /// bytes (named by `name`, whose format is recognised by content), or a file's path.
    /// Returns the report as a dict (as `Index.check`). `ShardUnavailableError` when a
    /// shard does not answer. Releases the GIL.
    #[pyo3(signature = (document, name = "text", title = None, exclude_quotes = ReportFilters::default().exclude_quotes, exclude_bibliography = ReportFilters::default().exclude_bibliography, min_words = ReportFilters::default().min_words, min_percent = ReportFilters::default().min_percent))]
    #[allow(clippy::too_many_arguments)]
    fn check<'py>(
        &self,
        py: Python<'py>,
        document: &Bound<'py, PyAny>,
        name: &str,
        title: Option<String>,
        exclude_quotes: bool,
        exclude_bibliography: bool,
        min_words: u32,
        min_percent: f64,
    ) -> PyResult<Bound<'py, PyAny>> {
        let filters = report_filters(exclude_quotes, exclude_bibliography, min_words, min_percent)?;
        enum Input {
            Text(String),
            Bytes(Vec<u8>),
            Path(PathBuf),
        }
        let input = if let Ok(text) = document.cast::<PyString>() {
            self.engine.check_text_len(name, text.len()?).map_err(errors::engine)?;
            Input::Text(text.to_cow()?.into_owned())
        } else if let Ok(bytes) = document.cast::<PyBytes>() {
            Input::Bytes(bytes.as_bytes().to_vec())
        } else {
            Input::Path(
                document
                    .extract()
                    .map_err(|_| PyTypeError::new_err("check takes a text (str), a file's bytes or a file's path"))?,
            )
        };
        let json = py.detach(|| -> PyResult<String> {
            let engine = &self.engine;
            let suspect = match input {
                Input::Text(text) => {
                    engine.check_text_len(name, text.len()).map_err(errors::engine)?;
                    engine.suspect_text(name, title, text)
                }
                Input::Bytes(bytes) => engine.suspect_bytes(name, title, &bytes).map_err(errors::engine)?,
                Input::Path(path) => {
                    let extracted = engine.extract_path(&path).map_err(errors::engine)?;
                    engine.suspect_extracted(&path.display().to_string(), title, &extracted)
                }
            };
            let view = self.view()?;
            let mut report = engine.check_in(&view, &suspect, &|_| {}).map_err(errors::engine)?;
            set_filters(&mut report, filters)?;
            report_json(&report)
        })?;
        loads(py, &json)
    }

    /// The collections with their documents summed over the shards: a list of dicts
    /// (name, kind, keep_texts, docs, deleted, segments).
    #[pyo3(text_signature = "($self)")]
    fn collections<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let json = py.detach(|| -> PyResult<String> {
            let list: Vec<serde_json::Value> = self
                .view()?
                .collections()
                .into_iter()
                .map(|c| {
                    serde_json::json!({
                        "name": c.config.name, "kind": c.config.kind, "keep_texts": c.config.keep_texts,
                        "docs": c.docs, "deleted": c.deleted, "segments": c.segments,
                    })
                })
                .collect();
            Ok(serde_json::Value::from(list).to_string())
        })?;
        loads(py, &json)
    }

    fn __repr__(&self) -> String {
        format!("ShardedIndex(shards={})", self.set.shards())
    }
}

impl ShardedIndex {
    fn view(&self) -> PyResult<IndexView> {
        self.engine.sharded_view(Arc::clone(&self.set)).map_err(errors::engine)
    }
}

/// Builds (or adds to) the shards of an index under `path`: each text gets the id one
/// index holding the same documents in the same order would give it, in the shard
/// owning that id (`shard_of`). Returns what was added, as `Index.add`.
///
/// Args:
///     path: the folder of the shards (`shard-S-of-N` folders are made in it).
///     shards: how many shards (an existing sharded index keeps its number).
///     texts: the documents' texts.
///     titles, origins: one per text (origins default to "text-N", as in `Index.add`).
///     collection, kind, keep_texts: as in `Index.add`.
///     shingle_size, stop_words, stemming, language: as in `Index.create` (for new shards).
#[pyfunction]
#[pyo3(signature = (path, shards, texts, titles = None, origins = None, collection = "main", kind = "source", keep_texts = None, shingle_size = 3, stop_words = true, stemming = true, language = None))]
#[allow(clippy::too_many_arguments)]
pub fn build_shards<'py>(
    py: Python<'py>,
    path: PathBuf,
    shards: usize,
    texts: Vec<String>,
    titles: Option<Vec<String>>,
    origins: Option<Vec<String>>,
    collection: &str,
    kind: &str,
    keep_texts: Option<bool>,
    shingle_size: usize,
    stop_words: bool,
    stemming: bool,
    language: Option<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let n = texts.len();
    for (what, given) in [("titles", titles.as_ref().map(Vec::len)), ("origins", origins.as_ref().map(Vec::len))] {
        if let Some(len) = given
            && len != n
        {
            return Err(pyo3::exceptions::PyValueError::new_err(format!("{len} {what} for {n} texts")));
        }
    }
    let kind = kind.parse::<CollectionKind>().map_err(errors::setting)?;
    let config = CollectionConfig {
        name: collection.to_owned(),
        kind,
        keep_texts: keep_texts.unwrap_or(tessera_engine::DEFAULT_KEEP_TEXTS),
    };
    let settings = settings::fingerprint(shingle_size, stop_words, stemming, language);
    let titles = titles.unwrap_or_else(|| vec![String::new(); n]);
    let origins = origins.unwrap_or_else(|| (0..n).map(|i| format!("text-{i}")).collect());
    let done = py.detach(|| {
        let docs = origins.into_iter().zip(titles).zip(texts).map(|((o, t), x)| (o, t, x));
        shards::build(&path, shards, &settings, engine_options(None)?, &config, docs).map_err(errors::engine)
    })?;
    summary(py, &done)
}

/// The folder of shard `shard` of `shards` under `path` (the engine's naming:
/// `shard-SSS-of-NNN`), where a shard is an ordinary index.
#[pyfunction]
#[pyo3(text_signature = "(path, shard, shards)")]
pub fn shard_path(path: PathBuf, shard: usize, shards: usize) -> PyResult<String> {
    if shard >= shards {
        return Err(pyo3::exceptions::PyValueError::new_err(format!("shard {shard} of {shards} does not exist")));
    }
    tessera_engine::shards::shard_dir(&path, shard, shards)
        .into_os_string()
        .into_string()
        .map_err(|p| pyo3::exceptions::PyValueError::new_err(format!("{} is not UTF-8", p.to_string_lossy())))
}

/// The shard (0 .. shards) owning document `doc` (the engine's rule).
#[pyfunction]
pub fn shard_of(doc: u64, shards: usize) -> usize {
    tessera_engine::shard_of(tessera_engine::DocId(doc), shards)
}
