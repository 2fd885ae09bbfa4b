//! The report's filters through the HTTP API: set when a check is created (JSON and
//! form fields) or by `PATCH /api/checks/{id}/report`, remembered with the check, applied
//! again when a late collection completes the report, refused out of range.
#![allow(clippy::unwrap_used)]

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::{THESIS, TestServer};
use serde_json::{Value, json};

fn borrowed(report: &Value) -> u64 {
    report["totals"]["borrowed_chars"].as_u64().unwrap()
}

fn excluded(report: &Value) -> usize {
    report["blocks"].as_array().unwrap().iter().filter(|b| b.get("excluded").is_some()).count()
}

#[test]
fn filters_set_by_patch_change_the_totals_and_are_remembered() {
    let s = TestServer::start(|_| {});
    let (_, accepted) = s.upload("thesis.txt", THESIS.as_bytes(), None);
    let id = accepted["id"].as_str().unwrap().to_owned();
    let check = s.wait(&id);
    let before = check["report"].clone();
    assert!(before.get("filters").is_none(), "filters are off by default");
    assert!(borrowed(&before) > 0);

    // Every match is under 10,000 words: nothing counts.
    let (status, report) = s.edit_report(&id, &json!({"filters": {"min_words": 10_000}}));
    assert_eq!(status, 200, "{report}");
    assert_eq!(borrowed(&report), 0);
    assert_eq!(report["totals"]["cited_chars"], 0);
    assert_eq!(excluded(&report), report["blocks"].as_array().unwrap().len());
    assert_eq!(report["filters"]["min_words"], 10_000);

    // A partial edit keeps the other fields; the stored edit holds all four.
    let (status, report) = s.edit_report(&id, &json!({"filters": {"exclude_quotes": true}}));
    assert_eq!(status, 200, "{report}");
    assert_eq!(
        report["filters"],
        json!({"exclude_quotes": true, "exclude_bibliography": false, "min_words": 10_000, "min_percent": 0.0})
    );
    let (_, again) = s.get(&format!("/api/checks/{id}"));
    let edits = again["edits"].as_array().unwrap();
    assert_eq!(edits.iter().filter(|e| e["target"] == "filters").count(), 1, "{edits:?}");
    assert_eq!(again["report"]["filters"]["exclude_quotes"], true);

    // Out of range: refused, nothing changed.
    let (status, err) = s.edit_report(&id, &json!({"filters": {"min_percent": 150}}));
    assert_eq!((status, err["error"]["code"].as_str()), (422, Some("invalid_filters")), "{err}");
    let (status, err) = s.edit_report(&id, &json!({"filters": {"min_letters": 3}}));
    assert_eq!(status, 422, "{err}");

    // Switched off: the report as the check made it.
    let off = json!({"exclude_quotes": false, "min_words": 0});
    let (status, report) = s.edit_report(&id, &json!({ "filters": off }));
    assert_eq!(status, 200);
    assert!(report.get("filters").is_none());
    assert_eq!(report["totals"], before["totals"]);

    // The downloads follow.
    let (_, _, _, html) = s.get_raw(&format!("/api/checks/{id}/report.html"));
    assert!(!html.contains("<strong>Filters:</strong>"));
    s.edit_report(&id, &json!({"filters": {"min_words": 10_000}}));
    let (_, _, _, html) = s.get_raw(&format!("/api/checks/{id}/report.html"));
    assert!(html.contains("<strong>Filters:</strong> matches under 10000 words excluded"), "{html}");
}

#[test]
fn filters_sent_with_a_check_apply_when_a_late_collection_completes_it() {
    // `library` always misses its timeout: the report is built again when it answers.
    let s = TestServer::start(|c| c.collection_timeouts = BTreeMap::from([("library".to_owned(), Duration::ZERO)]));
    let body = json!({"text": THESIS, "name": "thesis.txt", "filters": {"min_words": 10_000}});
    let (status, accepted) = s.send_json("POST", "/api/checks", &body, None);
    assert_eq!(status, 202, "{accepted}");
    let check = s.wait(accepted["id"].as_str().unwrap());
    assert_eq!(check["late_collections"], json!(["library"]));
    assert_eq!(check["edits"][0]["target"], "filters");
    let report = &check["report"];
    assert!(report["sources"].as_array().unwrap().iter().any(|s| s["collection"] == "library"));
    assert_eq!(borrowed(report), 0);
    assert_eq!(excluded(report), report["blocks"].as_array().unwrap().len());

    // As form fields with an upload, and refused out of range before anything is queued.
    let (content_type, form) = common::multipart(&[
        ("exclude_quotes", None, b"on"),
        ("min_words", None, b"10000"),
        ("file", Some("t.txt"), THESIS.as_bytes()),
    ]);
    let mut r =
        s.agent.post(format!("{}/api/checks", s.base)).header("content-type", content_type).send(&form[..]).unwrap();
    let accepted: Value = r.body_mut().read_json().unwrap();
    let check = s.wait(accepted["id"].as_str().unwrap());
    assert_eq!(check["report"]["filters"]["exclude_quotes"], true);
    assert_eq!(borrowed(&check["report"]), 0);
    let body = json!({"text": THESIS, "filters": {"min_percent": -1}});
    let (status, err) = s.send_json("POST", "/api/checks", &body, None);
    assert_eq!((status, err["error"]["code"].as_str()), (422, Some("invalid_filters")), "{err}");
    let (content_type, form) =
        common::multipart(&[("min_words", None, b"many"), ("file", Some("t.txt"), THESIS.as_bytes())]);
    let r =
        s.agent.post(format!("{}/api/checks", s.base)).header("content-type", content_type).send(&form[..]).unwrap();
    assert_eq!(r.status().as_u16(), 400);
}
