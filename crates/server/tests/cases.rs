//! The case suite (`testdata/cases/*.toml`, format in its README.md) through the HTTP
//! API of a real server on loopback: every source added with `POST /api/documents` (a
//! file part, `if_new` where the case says so), the suspect uploaded as a file to
//! `POST /api/checks` (and, when it is a text, sent as JSON text too), each report
//! checked against the case, with the case's `[filters]` as form fields and as JSON
//! `filters`. The checks are the CLI runner's (one shared file), so the two surfaces are
//! held to the same expectations. Dedup cases are the CLI's only.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "../../cli/tests/support/suite.rs"]
mod suite;

use std::collections::BTreeMap;

use common::TestServer;
use serde_json::{Value, json};
use suite::{Case, Notices};
use tessera_engine::{Engine, EngineOptions, FingerprintSettings};

/// A server over an empty index.
fn empty_server() -> TestServer {
    let dir = tempfile::tempdir().unwrap();
    Engine::open_or_create(&dir.path().join("index"), &FingerprintSettings::default(), EngineOptions::default())
        .unwrap();
    TestServer::start_in(dir, |_| {})
}

/// Adds the case's sources in order; their ids by file name, and what went wrong.
fn add_sources(s: &TestServer, case: &Case) -> (BTreeMap<String, u64>, Vec<String>) {
    let mut ids = BTreeMap::new();
    let mut errors = Vec::new();
    for source in &case.sources {
        let name = source.file_name();
        let bytes = source.bytes();
        let (keep, if_new) = (source.keep_texts.to_string(), source.if_new.to_string());
        let (content_type, form) = common::multipart(&[
            ("collection", None, source.collection.as_bytes()),
            ("kind", None, source.kind.as_bytes()),
            ("keep_texts", None, keep.as_bytes()),
            ("if_new", None, if_new.as_bytes()),
            ("file", Some(&name), &bytes),
        ]);
        let mut r = s
            .agent
            .post(format!("{}/api/documents", s.base))
            .header("content-type", content_type)
            .send(&form[..])
            .unwrap();
        let status = r.status().as_u16();
        let out: Value = r.body_mut().read_json().unwrap_or(Value::Null);
        if status != 200 {
            errors.push(format!("adding {name}: {status} {out}"));
            continue;
        }
        let (added, skipped) = (out["added"].as_array().unwrap(), out["skipped"].as_array().unwrap());
        match &source.seen_in {
            None if added.len() == 1 && skipped.is_empty() => {
                ids.insert(name, added[0]["id"].as_u64().unwrap());
            }
            Some(into) if added.is_empty() && skipped.len() == 1 => {
                let want = ids.get(into).copied();
                if skipped[0]["duplicate_of"].as_u64() != want {
                    errors
                        .push(format!("{name} was seen in {}, expected {into} ({want:?})", skipped[0]["duplicate_of"]));
                }
            }
            _ => errors.push(format!("adding {name} (seen in {:?}): {out}", source.seen_in)),
        }
    }
    (ids, errors)
}

/// Waits for each accepted check and checks its report and warnings against the case.
fn check_accepted(s: &TestServer, case: &Case, accepted: &Value, name: &str, errors: &mut Vec<String>) {
    let checks: Vec<(String, String)> = match accepted["members"].as_array().filter(|m| !m.is_empty()) {
        Some(members) => members
            .iter()
            .map(|m| (m["id"].as_str().unwrap().to_owned(), m["name"].as_str().unwrap().to_owned()))
            .collect(),
        None => match accepted["id"].as_str() {
            Some(id) => vec![(id.to_owned(), name.to_owned())],
            None => {
                errors.push(format!("{name} not accepted: {accepted}"));
                return;
            }
        },
    };
    for (id, document) in &checks {
        let check = s.wait(id);
        if check["status"] != "done" {
            errors.push(format!("{document}: {check}"));
            continue;
        }
        let Some(expect) = case.expect_for(checks.len(), document) else {
            errors.push(format!("no [[expect]] for document {document}"));
            continue;
        };
        let mut found = suite::check_report(case, expect, &check["report"], Notices::Elsewhere);
        found.extend(suite::check_messages(expect, &check["warnings"]));
        errors.extend(found.into_iter().map(|e| format!("{document}: {e}")));
    }
    for e in &case.expect {
        if let Some(d) = &e.document
            && !checks.iter().any(|(_, n)| n == d)
        {
            errors.push(format!("no document {d} in the suspect"));
        }
    }
}

/// Uploads the suspect as a file, with the case's filters as form fields.
fn upload(s: &TestServer, case: &Case, name: &str, bytes: &[u8]) -> (u16, Value) {
    let Some(filters) = case.filters else { return s.upload(name, bytes, None) };
    let fields = filters.fields();
    let mut parts: Vec<(&str, Option<&str>, &[u8])> = fields.iter().map(|(n, v)| (*n, None, v.as_bytes())).collect();
    parts.push(("file", Some(name), bytes));
    let (content_type, form) = common::multipart(&parts);
    let mut r =
        s.agent.post(format!("{}/api/checks", s.base)).header("content-type", content_type).send(&form[..]).unwrap();
    (r.status().as_u16(), r.body_mut().read_json().unwrap_or(Value::Null))
}

#[test]
fn every_case_through_the_http_api() {
    suite::run_all(&suite::load_all(), |case| {
        let suspect = case.suspect.as_ref()?;
        let s = empty_server();
        let (_, mut errors) = add_sources(&s, case);
        let name = suspect.file_name();
        let (status, accepted) = upload(&s, case, &name, &suspect.bytes());
        if status == 202 {
            check_accepted(&s, case, &accepted, &name, &mut errors);
        } else {
            errors.push(format!("uploading {name}: {status} {accepted}"));
        }
        // A text is also sent as text, not as a file: the same expectations hold.
        if let Some(text) = &suspect.text {
            let mut body = json!({ "text": text, "name": name });
            if let Some(f) = case.filters {
                body["filters"] = f.json();
            }
            let (status, accepted) = s.send_json("POST", "/api/checks", &body, None);
            if status == 202 {
                let mut found = Vec::new();
                check_accepted(&s, case, &accepted, &name, &mut found);
                errors.extend(found.into_iter().map(|e| format!("as JSON text: {e}")));
            } else {
                errors.push(format!("sending {name} as text: {status} {accepted}"));
            }
        }
        Some(errors)
    });
}
