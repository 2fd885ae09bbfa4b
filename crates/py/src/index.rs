//! `tessera.Index`: an index on disk (the engine's `Engine`): add texts and files, check
//! a text or a file, nearest documents, delete, stats, optimize.

use std::path::PathBuf;

use pyo3::exceptions::{PyFileExistsError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyString};
use tessera_engine::{
    AddMode, AddSummary, CheckedFile, CollectionConfig, CollectionKind, CrossLanguage, DocId, Engine, EngineOptions,
    JsonRenderer, Render, Report, ReportFilters, SearchConfig,
};
use xxhash_rust::xxh3::xxh3_64;

use crate::{errors, settings};

/// JSON text -> Python object (`json.loads`).
pub(crate) fn loads<'py>(py: Python<'py>, json: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (json,))
}

fn to_json(value: &impl serde::Serialize) -> PyResult<String> {
    serde_json::to_string(value).map_err(errors::store)
}

/// The report's filters from `Index.check`'s arguments, set by the report's own rules.
pub(crate) fn set_filters(report: &mut Report, filters: ReportFilters) -> PyResult<()> {
    report.set_filters(filters).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The report filters of `check`'s arguments, `min_percent` refused before the check runs
/// (the report's own rule, on an empty setting).
pub(crate) fn report_filters(
    exclude_quotes: bool,
    exclude_bibliography: bool,
    min_words: u32,
    min_percent: f64,
) -> PyResult<ReportFilters> {
    if !(0.0..=100.0).contains(&min_percent) {
        return Err(PyValueError::new_err(format!("min_percent must be a number from 0 to 100, not {min_percent}")));
    }
    Ok(ReportFilters { exclude_quotes, exclude_bibliography, min_words, min_percent })
}

/// A report as `tessera check --format json` prints it.
pub(crate) fn report_json(report: &Report) -> PyResult<String> {
    JsonRenderer::compact().render_to_string(report).map_err(errors::store)
}

/// The add mode of Python's `if_new` (a bool, or the min containment itself) and
/// `force`, by the one rule of [`AddMode::from_flags`].
fn add_mode(if_new: Option<&Bound<'_, PyAny>>, force: bool) -> PyResult<AddMode> {
    let (on, min_containment) = match if_new {
        None => (false, None),
        Some(value) if value.is_instance_of::<PyBool>() => (value.is_truthy()?, None),
        Some(value) if value.is_instance_of::<PyFloat>() || value.extract::<i64>().is_ok() => {
            (true, Some(value.extract::<f64>()?))
        }
        Some(_) => return Err(PyTypeError::new_err("if_new is a bool, or the min containment in (0, 1] (a float)")),
    };
    AddMode::from_flags(on, min_containment, force).map_err(errors::setting)
}

/// The collection an add asks for: `keep_texts` as given, else as the collection chose,
/// else the engine's default (texts kept).
pub(crate) fn collection(
    engine: &Engine,
    name: &str,
    kind: &str,
    keep_texts: Option<bool>,
) -> PyResult<CollectionConfig> {
    let kind = kind.parse::<CollectionKind>().map_err(errors::setting)?;
    engine.collection_config(name, kind, keep_texts).map_err(errors::engine)
}

/// What an add did, as a dict.
pub(crate) fn summary<'py>(py: Python<'py>, s: &AddSummary) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    let added = PyList::empty(py);
    for (origin, doc) in &s.documents {
        let d = PyDict::new(py);
        d.set_item("id", doc.0)?;
        d.set_item("origin", origin)?;
        added.append(d)?;
    }
    out.set_item("added", added)?;
    let seen = PyList::empty(py);
    for x in &s.seen {
        let d = PyDict::new(py);
        d.set_item("origin", &x.origin)?;
        d.set_item("into", x.into.0)?;
        d.set_item("into_origin", &x.into_origin)?;
        d.set_item("containment", x.containment)?;
        d.set_item("same_origin", x.same_origin)?;
        seen.append(d)?;
    }
    out.set_item("seen", seen)?;
    let failed = PyList::empty(py);
    for f in &s.failed {
        let d = PyDict::new(py);
        d.set_item("origin", &f.origin)?;
        d.set_item("reason", &f.reason)?;
        failed.append(d)?;
    }
    out.set_item("failed", failed)?;
    out.set_item("bytes", s.bytes)?;
    out.set_item("seconds", s.seconds)?;
    Ok(out)
}

/// Engine options from the Python arguments (`cross_language`: "auto", "on" or "off";
/// `None`: the engine's default).
pub(crate) fn engine_options(cross_language: Option<&str>) -> PyResult<EngineOptions> {
    let cross_language: CrossLanguage = match cross_language {
        Some(mode) => mode.parse().map_err(PyValueError::new_err)?,
        None => SearchConfig::default().cross_language,
    };
    Ok(EngineOptions { search: SearchConfig { cross_language, ..SearchConfig::default() }, ..EngineOptions::default() })
}

/// A Tessera index: a directory of immutable segments holding collections of documents'
/// digital snapshots (shingle hashes and offsets; texts only in collections that keep
/// them). The same index `tessera index`, `tessera check` and `tessera serve` use.
///
/// Open one with `Index.open(path)` or make one with `Index.create(path, ...)`. Every
/// method releases the GIL while the engine works.
#[pyclass(module = "tessera._tessera", name = "Index", frozen)]
pub struct Index {
    engine: Engine,
}

#[pymethods]
impl Index {
    /// Opens an existing index. `TesseraError` when there is none at `path`, or it cannot
    /// be read.
    ///
    /// Args:
    ///     path: the index directory.
    ///     cross_language: "auto" (checks also find passages translated from sources in
    ///         another language when a bilingual dictionary is installed), "on" (a
    ///         missing dictionary is an error) or "off"; None: the engine's default,
    ///         "auto".
    #[staticmethod]
    #[pyo3(signature = (path, cross_language = None))]
    fn open(py: Python<'_>, path: PathBuf, cross_language: Option<&str>) -> PyResult<Self> {
        let options = engine_options(cross_language)?;
        let engine = py.detach(|| Engine::open(&path, options)).map_err(errors::engine)?;
        Ok(Self { engine })
    }

    /// Creates an index at `path` with these fingerprint settings (stored in it: every
    /// later add and check uses them). `FileExistsError` when an index is there already.
    ///
    /// Args:
    ///     path: the index directory (created).
    ///     shingle_size: words per shingle.
    ///     stop_words: drop stop words.
    ///     stemming: reduce words to Snowball stems.
    ///     language: force the language of Latin-script words (ISO 639-1); None detects it.
    ///     cross_language: as in `Index.open`.
    #[staticmethod]
    #[pyo3(signature = (path, shingle_size = 3, stop_words = true, stemming = true, language = None, cross_language = None))]
    fn create(
        py: Python<'_>,
        path: PathBuf,
        shingle_size: usize,
        stop_words: bool,
        stemming: bool,
        language: Option<String>,
        cross_language: Option<&str>,
    ) -> PyResult<Self> {
        let options = engine_options(cross_language)?;
        let settings = settings::fingerprint(shingle_size, stop_words, stemming, language);
        let engine = py.detach(|| {
            if Engine::open(&path, EngineOptions::default()).is_ok() {
                return Err(PyFileExistsError::new_err(format!(
                    "an index exists at {} already: open it with Index.open",
                    path.display()
                )));
            }
            Engine::open_or_create(&path, &settings, options).map_err(errors::engine)
        })?;
        Ok(Self { engine })
    }

    /// Adds texts to a collection (created at the first add).
    ///
    /// Args:
    ///     texts: an iterable of str.
    ///     titles: one title per text (default: its first line with words, else
    ///         the origin's file name).
    ///     collection: the collection's name.
    ///     if_new: False adds every text but repeats; True (or a min containment in
    ///         (0, 1], default 0.9) adds only texts no document of the collection
    ///         contains: a contained text is attached to the document containing it
    ///         instead (listed in "seen").
    ///     origins: where each text comes from (default `text:<xxh3-64 of the text>`, so
    ///         the same text offered again is "already indexed").
    ///     kind: "source", or "citation" (matches count as citations).
    ///     keep_texts: keep the texts themselves, so reports show source passages. None
    ///         (the default): a new collection keeps them, an existing one keeps its
    ///         choice; True switches them on for a collection of fingerprints only (from
    ///         this add on); False keeps fingerprints only (refused by a collection that
    ///         keeps texts).
    ///     force: add even a repeat (a text the collection already holds from the same
    ///         origin with the same shingles), which is otherwise listed in "seen" with
    ///         "same_origin" true and not added again, as `tessera index` does.
    ///
    /// Returns:
    ///     dict: "added" (list of {"id", "origin"} in order), "seen" (list of {"origin",
    ///     "into", "into_origin", "containment", "same_origin"}), "failed", "bytes",
    ///     "seconds".
    #[pyo3(signature = (texts, titles = None, collection = "main", if_new = None, origins = None, kind = "source", keep_texts = None, force = false))]
    #[allow(clippy::too_many_arguments)]
    fn add<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        titles: Option<&Bound<'py, PyAny>>,
        collection: &str,
        if_new: Option<&Bound<'py, PyAny>>,
        origins: Option<&Bound<'py, PyAny>>,
        kind: &str,
        keep_texts: Option<bool>,
        force: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mode = add_mode(if_new, force)?;
        let config = self::collection(&self.engine, collection, kind, keep_texts)?;
        let mut titles = titles.map(|t| t.try_iter()).transpose()?;
        let mut origins = origins.map(|o| o.try_iter()).transpose()?;
        let mut docs: Vec<(String, String, String)> = Vec::new();
        for text in texts.try_iter()? {
            let text = text?;
            let text = text.cast::<PyString>().map_err(|_| PyTypeError::new_err("texts are str"))?;
            let n = docs.len() + 1;
            // Its characters first: a lower bound of its bytes, known without copying it.
            self.engine.check_text_len(&format!("text {n}"), text.len()?).map_err(errors::engine)?;
            let text = text.to_cow()?;
            self.engine.check_text_len(&format!("text {n}"), text.len()).map_err(errors::engine)?;
            let text: String = text.into_owned();
            let origin = match origins.as_mut() {
                None => format!("text:{:016x}", xxh3_64(text.as_bytes())),
                Some(it) => match it.next() {
                    Some(o) => o?.extract::<String>()?,
                    None => return Err(PyValueError::new_err(format!("origins ran out at text {n}"))),
                },
            };
            // An empty title is the engine's: the text's first line, else the origin's name.
            let title = match titles.as_mut() {
                None => String::new(),
                Some(it) => match it.next() {
                    Some(t) => t?.extract::<String>()?,
                    None => return Err(PyValueError::new_err(format!("titles ran out at text {n}"))),
                },
            };
            docs.push((origin, title, text));
        }
        // More titles or origins than texts: a caller's mistake (as dedup refuses extra ids).
        for (what, rest) in [("titles", titles.as_mut()), ("origins", origins.as_mut())] {
            if let Some(extra) = rest.and_then(Iterator::next) {
                extra?;
                return Err(PyValueError::new_err(format!("more {what} than texts ({} texts)", docs.len())));
            }
        }
        let summary = py.detach(|| self.engine.add_texts(&config, docs, mode, &|_| {})).map_err(errors::engine)?;
        self::summary(py, &summary)
    }

    /// Adds files and folders (recursively, in sorted order; archives give one document
    /// per member) to a collection. Arguments and result as `add`; files that cannot be
    /// read are listed in "failed" with the reason, the others are added.
    #[pyo3(signature = (paths, collection = "main", if_new = None, kind = "source", keep_texts = None, force = false))]
    #[allow(clippy::too_many_arguments)]
    fn add_paths<'py>(
        &self,
        py: Python<'py>,
        paths: Vec<PathBuf>,
        collection: &str,
        if_new: Option<&Bound<'py, PyAny>>,
        kind: &str,
        keep_texts: Option<bool>,
        force: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mode = add_mode(if_new, force)?;
        let config = self::collection(&self.engine, collection, kind, keep_texts)?;
        let summary = py.detach(|| self.engine.add_paths(&config, &paths, mode, &|_| {})).map_err(errors::engine)?;
        self::summary(py, &summary)
    }

    /// Checks a text (a str) or a file (a `pathlib.Path` or other path-like) against every
    /// collection: the JSON report of `tessera check --format json` (crates/report/SCHEMA.md)
    /// as a dict. An archive gives a list of {"name", "report"} or {"name", "error"}, one
    /// per member, as the CLI prints it.
    ///
    /// Args:
    ///     document: the text to check, or the path of a file.
    ///     name: the name a text is reported under.
    ///     title: the title of a text.
    ///     exclude_quotes: count a borrowing in quotation marks as a citation, even
    ///         without a reference (a filter: crates/report/SCHEMA.md, "Filters").
    ///     exclude_bibliography: count nothing in the bibliography section.
    ///     min_words: count no match of fewer words (0: every match).
    ///     min_percent: count no source covering less than this percent of the text
    ///         (0 to 100; else ValueError).
    ///     submit_to: once checked, keep the document in this collection of submissions
    ///         (made on first use; texts kept), so later checks find it, with its title,
    ///         the check's time and a check id (`tessera check --submit-to`).
    #[pyo3(signature = (document, name = "text", title = None, exclude_quotes = ReportFilters::default().exclude_quotes, exclude_bibliography = ReportFilters::default().exclude_bibliography, min_words = ReportFilters::default().min_words, min_percent = ReportFilters::default().min_percent, submit_to = None))]
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
        submit_to: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let filters = report_filters(exclude_quotes, exclude_bibliography, min_words, min_percent)?;
        let submission = submit_to.map(|c| tessera_engine::Submission::new(c, title.clone()));
        if let Ok(text) = document.cast::<PyString>() {
            // Its characters first: a lower bound of its bytes, known without copying it.
            self.engine.check_text_len(name, text.len()?).map_err(errors::engine)?;
            let text = text.to_cow()?;
            self.engine.check_text_len(name, text.len()).map_err(errors::engine)?;
            let text = text.into_owned();
            let json = py.detach(|| -> PyResult<String> {
                let suspect = self.engine.suspect_text(name, title, text);
                let (mut report, _) =
                    self.engine.check_and_submit(&suspect, submission.as_ref()).map_err(errors::engine)?;
                set_filters(&mut report, filters)?;
                report_json(&report)
            })?;
            return loads(py, &json);
        }
        let path: PathBuf = document.extract().map_err(|_| {
            PyTypeError::new_err("check takes a text (str) or a file's path (pathlib.Path or another path-like)")
        })?;
        let json = py.detach(|| -> PyResult<String> {
            match self.engine.check_path_submitting(&path, submission.as_ref(), &|_| {}).map_err(errors::engine)?.0 {
                CheckedFile::Document(mut report) => {
                    set_filters(&mut report, filters)?;
                    report_json(&report)
                }
                CheckedFile::Archive(mut results) => {
                    for report in results.iter_mut().filter_map(|(_, r)| r.as_mut().ok()) {
                        set_filters(report, filters)?;
                    }
                    let items = results
                        .iter()
                        .map(|(name, result)| match result {
                            Ok(report) => Ok(serde_json::json!({ "name": name, "report": report })),
                            Err(e) => Ok(serde_json::json!({ "name": name, "error": format!("{e:#}") })),
                        })
                        .collect::<PyResult<Vec<serde_json::Value>>>()?;
                    to_json(&items)
                }
            }
        })?;
        loads(py, &json)
    }

    /// The indexed documents nearest a text, most similar first: a list of dicts as
    /// `tessera near --format json` prints them (doc, collection, title, seen_at,
    /// estimated_jaccard, jaccard, query_in_doc, doc_in_query, simhash_distance,
    /// char_cosine).
    ///
    /// Args:
    ///     text: the text.
    ///     top: documents to list at most.
    ///     exhaustive: compare with every document, not only the candidates of the bands
    ///         and tables.
    #[pyo3(signature = (text, top = 10, exhaustive = false))]
    fn near<'py>(&self, py: Python<'py>, text: String, top: usize, exhaustive: bool) -> PyResult<Bound<'py, PyAny>> {
        let json = py.detach(|| -> PyResult<String> {
            let answer = self.engine.near_text(&text, top, exhaustive).map_err(errors::engine)?;
            to_json(&answer.hits)
        })?;
        loads(py, &json)
    }

    /// Deletes documents by id; returns how many were live.
    #[pyo3(text_signature = "($self, ids)")]
    fn delete(&self, py: Python<'_>, ids: Vec<u64>) -> PyResult<u64> {
        let docs: Vec<DocId> = ids.into_iter().map(DocId).collect();
        py.detach(|| self.engine.delete(&docs)).map_err(errors::engine)
    }

    /// The index's settings and collections, as `tessera stats --format json` prints them.
    #[pyo3(text_signature = "($self)")]
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let json = py.detach(|| -> PyResult<String> {
            let json = self.engine.stats_json().map_err(errors::engine)?;
            to_json(&json)
        })?;
        loads(py, &json)
    }

    /// Merges every collection down to at most `max_segments` segments and purges deleted
    /// documents (`tessera optimize`); returns what the merges did.
    #[pyo3(signature = (max_segments = 1))]
    fn optimize<'py>(&self, py: Python<'py>, max_segments: usize) -> PyResult<Bound<'py, PyDict>> {
        let s = py.detach(|| self.engine.optimize(max_segments)).map_err(errors::engine)?;
        let out = PyDict::new(py);
        out.set_item("merges", s.merges)?;
        out.set_item("segments_merged", s.segments_merged)?;
        out.set_item("segments_written", s.segments_written)?;
        out.set_item("docs", s.docs)?;
        out.set_item("purged", s.purged)?;
        out.set_item("bytes_read", s.bytes_read)?;
        out.set_item("bytes_written", s.bytes_written)?;
        Ok(out)
    }

    /// The index directory.
    #[getter]
    fn path(&self) -> PathBuf {
        self.engine.dir().to_path_buf()
    }

    /// The fingerprint settings stored in the index (a dict).
    #[getter]
    fn settings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        loads(py, &to_json(self.engine.settings())?)
    }

    fn __repr__(&self) -> String {
        format!("Index({:?})", self.engine.dir().display().to_string())
    }
}
