//! The implementation-independent case suite, `testdata/cases/*.toml` (the format is in
//! testdata/cases/README.md): reading the cases and checking a surface's answers against
//! their expectations. Every surface's runner uses this one file (the CLI's
//! `tests/cases.rs`, and the server's through `#[path]`), so the surfaces are held to the
//! same expectations by the same checks.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

/// The repository's `testdata/` directory: case paths are relative to it.
pub fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

/// One case file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// The file's stem, e.g. `verbatim`.
    #[serde(skip)]
    pub name: String,
    /// What the case is about, for people.
    pub description: String,
    /// How far an answer may be from an expectation.
    #[serde(default)]
    pub tolerance: Tolerance,
    /// Documents to index, in order.
    #[serde(default)]
    pub sources: Vec<SourceDoc>,
    /// The document to check.
    pub suspect: Option<Suspect>,
    /// One entry per document of the suspect (an archive has several).
    #[serde(default)]
    pub expect: Vec<Expect>,
    /// A near-duplicate clustering instead of a check.
    pub dedup: Option<Dedup>,
    /// The report's filters the check asks for (every surface passes them its way).
    pub filters: Option<Filters>,
}

/// A check's report filters (crates/report/SCHEMA.md, "Filters"); absent fields are off.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Filters {
    /// Borrowings in quotation marks count as citations.
    pub exclude_quotes: bool,
    /// Blocks in the bibliography count for nothing.
    pub exclude_bibliography: bool,
    /// Blocks of fewer words count for nothing.
    pub min_words: u32,
    /// Sources covering less than this percent count for nothing.
    pub min_percent: f64,
}

impl Filters {
    /// The `tessera check` flags.
    pub fn flags(&self) -> Vec<String> {
        let mut flags = Vec::new();
        if self.exclude_quotes {
            flags.push("--exclude-quotes".to_owned());
        }
        if self.exclude_bibliography {
            flags.push("--exclude-bibliography".to_owned());
        }
        if self.min_words > 0 {
            flags.extend(["--min-words".to_owned(), self.min_words.to_string()]);
        }
        if self.min_percent > 0.0 {
            flags.extend(["--min-percent".to_owned(), self.min_percent.to_string()]);
        }
        flags
    }

    /// `(name, value)` of each field, as a multipart form and the JSON `filters` name them.
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("exclude_quotes", self.exclude_quotes.to_string()),
            ("exclude_bibliography", self.exclude_bibliography.to_string()),
            ("min_words", self.min_words.to_string()),
            ("min_percent", self.min_percent.to_string()),
        ]
    }

    /// The JSON `filters` object (`POST /api/checks`, the report's `filters`).
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "exclude_quotes": self.exclude_quotes,
            "exclude_bibliography": self.exclude_bibliography,
            "min_words": self.min_words,
            "min_percent": self.min_percent,
        })
    }
}

/// Tolerances of a case.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Tolerance {
    /// Characters each end of a block's span may be off by.
    pub chars: usize,
    /// Percentage points each report total may be off by.
    pub percent: f64,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance { chars: 3, percent: 0.5 }
    }
}

/// A document to index.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceDoc {
    /// File name (reports name the source by its origin's file name); default: the
    /// path's file name. Required with `text`.
    pub name: Option<String>,
    /// The text (a UTF-8 `.txt` file).
    pub text: Option<String>,
    /// A file under testdata/, in any format extraction reads.
    pub path: Option<String>,
    /// Collection name.
    #[serde(default = "main")]
    pub collection: String,
    /// `source` or `citation`, used when the collection is created.
    #[serde(default = "source_kind")]
    pub kind: String,
    /// Whether the collection keeps texts, used when it is created.
    #[serde(default)]
    pub keep_texts: bool,
    /// Added with the add-only-if-new rule (default threshold).
    #[serde(default)]
    pub if_new: bool,
    /// With `if_new`: the source expected to contain it, so it is attached to that one
    /// instead of added. Absent: it is expected to be added.
    pub seen_in: Option<String>,
}

fn main() -> String {
    "main".to_owned()
}

fn source_kind() -> String {
    "source".to_owned()
}

impl SourceDoc {
    /// The file name the source is indexed under.
    pub fn file_name(&self) -> String {
        match (&self.name, &self.path) {
            (Some(n), _) => n.clone(),
            (None, Some(p)) => Path::new(p).file_name().unwrap().to_string_lossy().into_owned(),
            (None, None) => panic!("a source with text needs a name"),
        }
    }

    /// The file's bytes.
    pub fn bytes(&self) -> Vec<u8> {
        file_bytes(self.text.as_deref(), self.path.as_deref())
    }
}

/// The document to check.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Suspect {
    /// File name; default: the path's file name. Required with `text`.
    pub name: Option<String>,
    /// The text (a UTF-8 `.txt` file).
    pub text: Option<String>,
    /// A file under testdata/, in any format extraction reads, or an archive.
    pub path: Option<String>,
}

impl Suspect {
    /// The file name the suspect is checked under.
    pub fn file_name(&self) -> String {
        match (&self.name, &self.path) {
            (Some(n), _) => n.clone(),
            (None, Some(p)) => Path::new(p).file_name().unwrap().to_string_lossy().into_owned(),
            (None, None) => panic!("a suspect with text needs a name"),
        }
    }

    /// The file's bytes.
    pub fn bytes(&self) -> Vec<u8> {
        file_bytes(self.text.as_deref(), self.path.as_deref())
    }
}

fn file_bytes(text: Option<&str>, path: Option<&str>) -> Vec<u8> {
    match (text, path) {
        (Some(t), None) => t.as_bytes().to_vec(),
        (None, Some(p)) => {
            let full = testdata().join(p);
            std::fs::read(&full).unwrap_or_else(|e| panic!("reading {}: {e}", full.display()))
        }
        _ => panic!("give exactly one of text and path"),
    }
}

/// What the report of one document of the suspect must say.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The document's name when the suspect is an archive (`essays.zip!/a.txt`).
    pub document: Option<String>,
    /// Report totals.
    pub totals: Option<Totals>,
    /// Every block (no more, no fewer), in any order.
    #[serde(default)]
    pub blocks: Vec<ExpectedBlock>,
    /// The reported sources (no more, no fewer), when given.
    pub sources: Option<Vec<ExpectedSource>>,
    /// The suspect's notices, in order (no more, no fewer).
    #[serde(default)]
    pub notices: Vec<ExpectedNotice>,
}

/// Report totals in percent.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Totals {
    /// Borrowed share.
    pub borrowings: f64,
    /// Cited share.
    pub citations: f64,
    /// Original share.
    pub originality: f64,
}

/// One block.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedBlock {
    /// The source's file name.
    pub source: String,
    /// `borrowing` or `citation`.
    pub kind: String,
    /// The block's reason, when given (`null` for borrowings).
    pub reason: Option<String>,
    /// Why a filter takes the block out (`quote`, `bibliography`, `min_words`,
    /// `min_percent`); absent: no filter does.
    pub excluded: Option<String>,
    /// Suspect characters `[start, end)`.
    pub suspect: [usize; 2],
    /// Source characters `[start, end)`.
    pub in_source: [usize; 2],
    /// This block's tolerance in characters, overriding the case's.
    pub tolerance: Option<usize>,
}

/// One reported source.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedSource {
    /// The source's file name.
    pub name: String,
    /// Its collection, when given.
    pub collection: Option<String>,
    /// Its collection's kind, when given.
    pub kind: Option<String>,
    /// File names of the places it was also seen at (if-new), when given.
    pub seen_at: Option<Vec<String>>,
}

/// One notice (an extraction warning; bypass tricks carry locations).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedNotice {
    /// `homoglyphs`, `invisible_characters`, ...
    pub kind: String,
    /// Whether it is a trick to hide borrowing.
    pub bypass: bool,
    /// Its count.
    pub count: u64,
    /// The message for people (every surface shows it).
    pub message: String,
    /// Suspect character spans, exactly.
    #[serde(default)]
    pub locations: Vec<[usize; 2]>,
}

/// Clusterings of one JSONL collection.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dedup {
    /// One JSON object per line.
    pub jsonl: String,
    /// The field holding the id.
    pub id_field: String,
    /// One clustering per method and settings.
    pub runs: Vec<DedupRun>,
}

/// One clustering.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DedupRun {
    /// `minhash` or `simhash`.
    pub method: String,
    /// MinHash: the Jaccard threshold, when given.
    pub threshold: Option<f64>,
    /// MinHash: verify with the exact Jaccard similarity.
    #[serde(default)]
    pub exact: bool,
    /// SimHash: the largest Hamming distance, when given.
    pub max_distance: Option<u32>,
    /// The expected clusters of two or more, the kept document first; every other
    /// document is alone.
    pub clusters: Vec<Vec<String>>,
}

impl DedupRun {
    /// The `tessera dedup` flags of this run.
    pub fn flags(&self) -> Vec<String> {
        let mut flags = vec!["--method".to_owned(), self.method.clone()];
        if let Some(t) = self.threshold {
            flags.extend(["--threshold".to_owned(), t.to_string()]);
        }
        if self.exact {
            flags.push("--exact".to_owned());
        }
        if let Some(d) = self.max_distance {
            flags.extend(["--max-distance".to_owned(), d.to_string()]);
        }
        flags
    }
}

/// Every case, sorted by name. Panics on a malformed case: the suite itself is tested.
pub fn load_all() -> Vec<Case> {
    let dir = testdata().join("cases");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no cases in {}", dir.display());
    paths
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            let mut case: Case = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            case.name = p.file_stem().unwrap().to_string_lossy().into_owned();
            case.validate();
            case
        })
        .collect()
}

impl Case {
    fn validate(&self) {
        let n = &self.name;
        assert!(self.suspect.is_some() != self.dedup.is_some(), "{n}: give a suspect or a dedup, not both");
        assert!(self.dedup.is_none() || self.sources.is_empty(), "{n}: a dedup case has no sources");
        assert!(self.suspect.is_none() || !self.expect.is_empty(), "{n}: a check case needs [[expect]]");
        let names: BTreeSet<String> = self.sources.iter().map(SourceDoc::file_name).collect();
        assert_eq!(names.len(), self.sources.len(), "{n}: two sources with one file name");
        for s in &self.sources {
            assert!(s.text.is_some() != s.path.is_some(), "{n}: source {}: text or path", s.file_name());
            assert!(matches!(s.kind.as_str(), "source" | "citation"), "{n}: kind {}", s.kind);
            assert!(s.seen_in.is_none() || s.if_new, "{n}: seen_in without if_new");
            if let Some(into) = &s.seen_in {
                assert!(names.contains(into), "{n}: seen_in names no source: {into}");
            }
        }
        for e in &self.expect {
            for b in &e.blocks {
                assert!(names.contains(&b.source), "{n}: block names no source: {}", b.source);
                assert!(b.suspect[0] < b.suspect[1] && b.in_source[0] < b.in_source[1], "{n}: empty span");
            }
            if let Some(t) = e.totals {
                assert!((t.borrowings + t.citations + t.originality - 100.0).abs() < 0.01, "{n}: totals");
            }
        }
        if let Some(s) = &self.suspect {
            assert!(s.text.is_some() != s.path.is_some(), "{n}: suspect: text or path");
        }
    }

    /// The suspect (check cases).
    pub fn suspect(&self) -> &Suspect {
        self.suspect.as_ref().expect("a check case")
    }

    /// The expectation for the suspect's document `name` among `documents` (an archive
    /// has several, a plain file one).
    pub fn expect_for(&self, documents: usize, name: &str) -> Option<&Expect> {
        self.expect.iter().find(|e| match &e.document {
            Some(d) => d == name,
            None => documents == 1,
        })
    }
}

/// The file name of an origin: what the case calls a source (`sources/web/a.html` and
/// `a.html` are both `a.html`; an archive member `x.zip!/a.txt` is `a.txt`).
pub fn file_name_of(origin: &str) -> &str {
    let origin = origin.rsplit("!/").next().unwrap_or(origin);
    origin.rsplit(['/', '\\']).next().unwrap_or(origin)
}

/// Which notices a runner checks in the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notices {
    /// `suspect.warnings` of the report, field by field with their locations.
    InReport,
    /// Not in the report: the runner checks the messages elsewhere.
    Elsewhere,
}

/// Every way `report` (the report JSON) misses `expect`, as messages.
pub fn check_report(case: &Case, expect: &Expect, report: &Value, notices: Notices) -> Vec<String> {
    let mut errors = Vec::new();
    let tol = case.tolerance;
    let names: BTreeMap<u64, String> = report["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["id"].as_u64().unwrap(), file_name_of(s["origin"].as_str().unwrap()).to_owned()))
        .collect();

    if let Some(t) = expect.totals {
        let got = &report["totals"];
        for (field, want) in [("borrowings", t.borrowings), ("citations", t.citations), ("originality", t.originality)]
        {
            let have = got[field].as_f64().unwrap();
            if (have - want).abs() > tol.percent {
                errors.push(format!("totals.{field}: {have:.2}, expected {want:.2} ± {}", tol.percent));
            }
        }
    }

    let blocks = report["blocks"].as_array().unwrap();
    let mut used = vec![false; blocks.len()];
    for want in &expect.blocks {
        let t = want.tolerance.unwrap_or(tol.chars);
        let found = blocks.iter().enumerate().find(|(i, b)| {
            !used[*i]
                && names.get(&b["source"].as_u64().unwrap()) == Some(&want.source)
                && b["kind"] == want.kind.as_str()
                && want.reason.as_ref().is_none_or(|r| b["reason"] == r.as_str())
                && b.get("excluded").and_then(Value::as_str) == want.excluded.as_deref()
                && near(&b["suspect_span"]["chars"], want.suspect, t)
                && near(&b["source_span"]["chars"], want.in_source, t)
        });
        match found {
            Some((i, _)) => used[i] = true,
            None => errors.push(format!(
                "no block {} from {} at suspect {:?}, source {:?} (± {t}){}{}",
                want.kind,
                want.source,
                want.suspect,
                want.in_source,
                want.reason.as_ref().map(|r| format!(", reason {r:?}")).unwrap_or_default(),
                want.excluded.as_ref().map(|e| format!(", excluded {e:?}")).unwrap_or_default()
            )),
        }
    }
    for (b, _) in blocks.iter().zip(&used).filter(|(_, u)| !**u) {
        errors.push(format!("unexpected block {}", describe_block(b, &names)));
    }
    if !errors.is_empty() {
        let all: Vec<String> = blocks.iter().map(|b| describe_block(b, &names)).collect();
        errors.push(format!("the report's blocks: [{}]", all.join("; ")));
    }

    if let Some(want) = &expect.sources {
        let got: BTreeMap<&str, &Value> = report["sources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (file_name_of(s["origin"].as_str().unwrap()), s))
            .collect();
        let want_names: BTreeSet<&str> = want.iter().map(|s| s.name.as_str()).collect();
        let got_names: BTreeSet<&str> = got.keys().copied().collect();
        if want_names != got_names {
            errors.push(format!("sources {got_names:?}, expected {want_names:?}"));
        }
        for w in want {
            let Some(s) = got.get(w.name.as_str()) else { continue };
            if let Some(c) = &w.collection
                && s["collection"] != c.as_str()
            {
                errors.push(format!("source {}: collection {}, expected {c}", w.name, s["collection"]));
            }
            if let Some(k) = &w.kind
                && s["kind"] != k.as_str()
            {
                errors.push(format!("source {}: kind {}, expected {k}", w.name, s["kind"]));
            }
            if let Some(seen) = &w.seen_at {
                let have: Vec<&str> = s["seen_at"]
                    .as_array()
                    .map(|a| a.iter().map(|v| file_name_of(v.as_str().unwrap())).collect())
                    .unwrap_or_default();
                if have != *seen {
                    errors.push(format!("source {}: seen_at {have:?}, expected {seen:?}", w.name));
                }
            }
        }
    }

    if notices == Notices::InReport {
        errors.extend(check_notices(expect, &report["suspect"]["warnings"]));
    }
    // The report says which filters it applies (absent: none).
    let want = case.filters.filter(|f| !f.flags().is_empty()).map(|f| f.json());
    if report.get("filters") != want.as_ref() {
        errors.push(format!("filters {:?}, expected {want:?}", report.get("filters")));
    }
    errors
}

fn near(span: &Value, want: [usize; 2], tolerance: usize) -> bool {
    let (s, e) = (span["start"].as_u64().unwrap() as usize, span["end"].as_u64().unwrap() as usize);
    s.abs_diff(want[0]) <= tolerance && e.abs_diff(want[1]) <= tolerance
}

fn describe_block(b: &Value, names: &BTreeMap<u64, String>) -> String {
    let span = |v: &Value| format!("[{}, {}]", v["chars"]["start"], v["chars"]["end"]);
    format!(
        "{} from {} at suspect {}, source {}, reason {}{}",
        b["kind"].as_str().unwrap_or("?"),
        names.get(&b["source"].as_u64().unwrap_or(0)).map_or("?", String::as_str),
        span(&b["suspect_span"]),
        span(&b["source_span"]),
        b["reason"],
        b.get("excluded").map(|e| format!(", excluded {e}")).unwrap_or_default()
    )
}

/// The notices of a report (`suspect.warnings`, absent when none) against `expect`.
pub fn check_notices(expect: &Expect, warnings: &Value) -> Vec<String> {
    let got: &[Value] = warnings.as_array().map_or(&[], Vec::as_slice);
    let mut errors = Vec::new();
    if got.len() != expect.notices.len() {
        errors.push(format!("{} notices, expected {}: {warnings}", got.len(), expect.notices.len()));
        return errors;
    }
    for (g, w) in got.iter().zip(&expect.notices) {
        let locations: Vec<[usize; 2]> = g["locations"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|l| {
                        let c = &l["span"]["chars"];
                        [c["start"].as_u64().unwrap() as usize, c["end"].as_u64().unwrap() as usize]
                    })
                    .collect()
            })
            .unwrap_or_default();
        if g["kind"] != w.kind.as_str()
            || g["bypass"] != w.bypass
            || g["count"] != w.count
            || g["message"] != w.message.as_str()
            || locations != w.locations
        {
            errors.push(format!(
                "notice {g}, expected kind {:?}, bypass {}, count {}, message {:?}, locations {:?}",
                w.kind, w.bypass, w.count, w.message, w.locations
            ));
        }
    }
    errors
}

/// The warning messages a surface shows beside the report (the server's check
/// `warnings`) against the expected notices' messages, in order.
pub fn check_messages(expect: &Expect, messages: &Value) -> Vec<String> {
    let got: Vec<&str> = messages.as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    let want: Vec<&str> = expect.notices.iter().map(|n| n.message.as_str()).collect();
    if got == want { Vec::new() } else { vec![format!("warnings {got:?}, expected {want:?}")] }
}

/// The output lines of a dedup run (`{"id", "cluster", "kept", "similarity"}`) against
/// the expected clusters.
pub fn check_dedup(dedup: &Dedup, run: &DedupRun, lines: &[Value]) -> Vec<String> {
    let ids: Vec<String> =
        dedup.jsonl.lines().filter(|l| !l.trim().is_empty()).map(|l| jsonl_id(dedup, l)).collect::<Vec<_>>();
    let mut errors = Vec::new();
    let got_ids: BTreeSet<&str> = lines.iter().map(|l| l["id"].as_str().unwrap()).collect();
    let want_ids: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
    if got_ids != want_ids || lines.len() != ids.len() {
        errors.push(format!("documents {got_ids:?} ({} lines), expected {want_ids:?}", lines.len()));
    }
    let mut clusters: BTreeMap<&str, Vec<(&str, bool)>> = BTreeMap::new();
    for l in lines {
        clusters
            .entry(l["cluster"].as_str().unwrap())
            .or_default()
            .push((l["id"].as_str().unwrap(), l["kept"].as_bool().unwrap()));
    }
    let mut got: BTreeSet<(String, BTreeSet<String>)> = BTreeSet::new();
    for members in clusters.values() {
        let kept: Vec<&str> = members.iter().filter(|m| m.1).map(|m| m.0).collect();
        if kept.len() != 1 {
            errors.push(format!("a cluster keeps {kept:?}: {members:?}"));
            continue;
        }
        if members.len() > 1 {
            got.insert((kept[0].to_owned(), members.iter().map(|m| m.0.to_owned()).collect()));
        }
    }
    let want: BTreeSet<(String, BTreeSet<String>)> =
        run.clusters.iter().map(|c| (c[0].clone(), c.iter().cloned().collect())).collect();
    if got != want {
        errors.push(format!("clusters (kept, members) {got:?}, expected {want:?}"));
    }
    errors
}

fn jsonl_id(dedup: &Dedup, line: &str) -> String {
    let v: Value = serde_json::from_str(line).unwrap();
    match &v[&dedup.id_field] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Runs `run` on every case it accepts and panics listing every failure of every case
/// (so one run shows them all).
pub fn run_all(cases: &[Case], mut run: impl FnMut(&Case) -> Option<Vec<String>>) {
    let mut failures = Vec::new();
    let mut ran = 0;
    for case in cases {
        if let Some(errors) = run(case) {
            ran += 1;
            for e in errors {
                failures.push(format!("{}: {e}", case.name));
            }
        }
    }
    assert!(ran > 0, "no case ran");
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
}
