//! The case suite (`testdata/cases/*.toml`, format in its README.md) through the
//! `tessera` binary: every source added with `tessera index` (`--if-new` where the case
//! says so), the suspect checked with `tessera check --format json`, JSONL collections
//! clustered with `tessera dedup`; and the server's report (`tessera serve`, the same
//! index) compared with the CLI's for every suspect. A case's `[filters]` go to
//! `tessera check` as flags and to the server as form fields.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/suite.rs"]
mod suite;
mod support;

use std::path::{Path, PathBuf};

use serde_json::Value;
use suite::{Case, Notices};

/// `tessera --quiet args...` in `dir`.
fn tessera(dir: &Path, args: &[&str]) -> support::Run {
    support::run(dir, &[&["--quiet"], args].concat())
}

/// A case's index, built with `tessera index` in a temporary directory (the working
/// directory of every run, so paths and origins are relative: `sources/<collection>/<name>`).
struct Built {
    dir: tempfile::TempDir,
    errors: Vec<String>,
}

impl Built {
    fn index(case: &Case) -> Built {
        let dir = tempfile::tempdir().unwrap();
        let mut errors = Vec::new();
        for source in &case.sources {
            let name = source.file_name();
            let rel = PathBuf::from("sources").join(&source.collection).join(&name);
            std::fs::create_dir_all(dir.path().join(rel.parent().unwrap())).unwrap();
            std::fs::write(dir.path().join(&rel), source.bytes()).unwrap();
            let rel = rel.to_str().unwrap();
            let mut args = vec!["index", "-i", "index", "-c", &source.collection, "--kind", &source.kind];
            args.extend(source.keep_texts.then_some("--keep-texts"));
            args.extend(source.if_new.then_some("--if-new"));
            args.extend(["--format", "json", rel]);
            let out = tessera(dir.path(), &args);
            if !out.success() {
                errors.push(format!("tessera {args:?}: {}", out.stderr));
                continue;
            }
            let summary: Value = serde_json::from_str(&out.stdout).unwrap();
            let seen = summary["seen"].as_array().map_or(0, Vec::len);
            let added = summary["added"].as_u64().unwrap();
            let want = if source.seen_in.is_some() { (0, 1) } else { (1, 0) };
            if (added as usize, seen) != want || summary["failed"].as_array().is_some_and(|f| !f.is_empty()) {
                errors.push(format!("adding {name}: (added, seen) ({added}, {seen}), expected {want:?}: {summary}"));
            }
        }
        Built { dir, errors }
    }

    fn index_dir(&self) -> PathBuf {
        self.dir.path().join("index")
    }

    /// Writes the suspect next to the index and checks it: (document name, report) for
    /// each document (one, or an archive's members).
    fn check(&self, case: &Case) -> Result<Vec<(String, Value)>, String> {
        let suspect = case.suspect();
        let name = suspect.file_name();
        std::fs::write(self.dir.path().join(&name), suspect.bytes()).unwrap();
        let flags = case.filters.map(|f| f.flags()).unwrap_or_default();
        let mut args = vec!["check", "-i", "index", "--format", "json"];
        args.extend(flags.iter().map(String::as_str));
        args.push(&name);
        let out = tessera(self.dir.path(), &args);
        if !out.success() {
            return Err(format!("tessera check: {}", out.stderr));
        }
        let v: Value = serde_json::from_str(&out.stdout).unwrap();
        Ok(match v {
            Value::Array(members) => members
                .into_iter()
                .map(|m| (m["name"].as_str().unwrap().to_owned(), m.get("report").cloned().unwrap_or(m)))
                .collect(),
            report => vec![(name, report)],
        })
    }
}

/// Checks every document's report against the case's expectations.
fn check_documents(case: &Case, documents: &[(String, Value)], notices: Notices) -> Vec<String> {
    let mut errors = Vec::new();
    for (name, report) in documents {
        match case.expect_for(documents.len(), name) {
            Some(expect) if report.get("error").is_none() => errors
                .extend(suite::check_report(case, expect, report, notices).into_iter().map(|e| format!("{name}: {e}"))),
            Some(_) => errors.push(format!("{name}: {report}")),
            None => errors.push(format!("no [[expect]] for document {name}")),
        }
    }
    for e in &case.expect {
        if let Some(d) = &e.document
            && !documents.iter().any(|(n, _)| n == d)
        {
            errors.push(format!("no document {d} in the suspect"));
        }
    }
    errors
}

fn dedup(case: &Case) -> Vec<String> {
    let d = case.dedup.as_ref().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("input.jsonl"), &d.jsonl).unwrap();
    let mut errors = Vec::new();
    for run in &d.runs {
        let flags = run.flags();
        let mut args = vec!["dedup", "input.jsonl", "--id-field", &d.id_field];
        args.extend(flags.iter().map(String::as_str));
        let out = tessera(dir.path(), &args);
        if !out.success() {
            errors.push(format!("tessera {args:?}: {}", out.stderr));
            continue;
        }
        let lines: Vec<Value> = out.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        errors.extend(suite::check_dedup(d, run, &lines).into_iter().map(|e| format!("{flags:?}: {e}")));
    }
    errors
}

#[test]
fn every_case_through_the_cli() {
    suite::run_all(&suite::load_all(), |case| {
        if case.dedup.is_some() {
            return Some(dedup(case));
        }
        let built = Built::index(case);
        let mut errors = built.errors.clone();
        match built.check(case) {
            Ok(documents) => errors.extend(check_documents(case, &documents, Notices::InReport)),
            Err(e) => errors.push(e),
        }
        Some(errors)
    });
}

/// A multipart/form-data body with one file part and the text `fields`.
fn multipart(file_name: &str, bytes: &[u8], fields: &[(&str, String)]) -> (String, Vec<u8>) {
    let boundary = "tessera-cases-boundary-5b2e";
    let mut body = Vec::new();
    for (name, value) in fields {
        body.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n").as_bytes(),
        );
    }
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{file_name}\"\r\n\
             Content-Type: application/octet-stream\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// The server's reports (`report.json` downloads) on the case's suspect, uploaded as a
/// file to `tessera serve` over the index the CLI built: (document name, report).
fn server_reports(built: &Built, case: &Case) -> Vec<(String, Value)> {
    let server = support::ServeProcess::start(&built.index_dir(), &[]);
    let agent = support::agent();
    let suspect = case.suspect();
    // The case's filters as form fields, as the page sends them.
    let fields = case.filters.map(|f| f.fields()).unwrap_or_default();
    let (content_type, body) = multipart(&suspect.file_name(), &suspect.bytes(), &fields);
    let accepted: Value = agent
        .post(format!("{}/api/checks", server.base))
        .header("content-type", content_type)
        .send(&body[..])
        .unwrap()
        .body_mut()
        .read_json()
        .unwrap();
    let checks: Vec<(String, String)> = match accepted["members"].as_array().filter(|m| !m.is_empty()) {
        Some(members) => members
            .iter()
            .map(|m| (m["id"].as_str().unwrap().to_owned(), m["name"].as_str().unwrap().to_owned()))
            .collect(),
        None => vec![(accepted["id"].as_str().expect("an accepted check").to_owned(), suspect.file_name())],
    };
    checks
        .into_iter()
        .map(|(id, name)| {
            let check = support::wait_done(&agent, &server.base, &id);
            assert_eq!(check["status"], "done", "{check}");
            let report = support::get_json(&agent, &format!("{}/api/checks/{id}/report.json", server.base));
            (name, report)
        })
        .collect()
}

/// Runs every case with a suspect through both surfaces and compares the reports.
fn same_reports() {
    suite::run_all(&suite::load_all(), |case| {
        case.suspect.as_ref()?;
        let built = Built::index(case);
        let mut errors = built.errors.clone();
        let cli = match built.check(case) {
            Ok(d) => d,
            Err(e) => return Some(vec![e]),
        };
        let server = server_reports(&built, case);
        let names = |d: &[(String, Value)]| d.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        if names(&cli) != names(&server) {
            errors.push(format!("documents: CLI {:?}, server {:?}", names(&cli), names(&server)));
        }
        for ((name, c), (_, s)) in cli.into_iter().zip(server) {
            if c != s {
                errors.push(format!("{name}: {}", first_difference(&c, &s, "")));
            }
        }
        Some(errors)
    });
}

/// Where two JSON values first differ, as a path with both sides.
fn first_difference(a: &Value, b: &Value, at: &str) -> String {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                if x.get(k) != y.get(k) {
                    let (l, r) = (x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null));
                    return first_difference(l, r, &format!("{at}.{k}"));
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (l, r)) in x.iter().zip(y).enumerate() {
                if l != r {
                    return first_difference(l, r, &format!("{at}[{i}]"));
                }
            }
        }
        _ => {}
    }
    let show = |v: &Value| {
        let s = v.to_string();
        if s.len() > 300 { format!("{}...", &s[..s.floor_char_boundary(300)]) } else { s }
    };
    format!("{at}: CLI {}, server {}", show(a), show(b))
}

/// The server's report of every case equals the CLI's, notices and archive members'
/// titles included: both run the engine's one check path.
#[test]
fn the_servers_report_equals_the_clis() {
    same_reports();
}
