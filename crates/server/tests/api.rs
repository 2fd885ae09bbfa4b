//! The HTTP API against a real server on loopback.
#![allow(clippy::unwrap_used)]

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::{THESIS, TestServer};
use serde_json::{Value, json};
use tessera_server::{Server, ServerConfig};

fn totals(report: &Value) -> (f64, f64, f64) {
    let t = &report["totals"];
    (t["borrowings"].as_f64().unwrap(), t["citations"].as_f64().unwrap(), t["originality"].as_f64().unwrap())
}

#[test]
fn upload_check_read_edit_download() {
    let s = TestServer::start(|_| {});
    let (status, accepted) = s.upload("thesis.txt", THESIS.as_bytes(), None);
    assert_eq!(status, 202, "{accepted}");
    let id = accepted["id"].as_str().unwrap().to_owned();
    assert_eq!(accepted["url"], format!("/api/checks/{id}"));

    let check = s.wait(&id);
    assert_eq!(check["status"], "done", "{check}");
    assert_eq!(check["percent"], 100);
    assert_eq!(check["progress"]["collections_total"], 2);
    assert_eq!(check["progress"]["collections_done"], 2);
    let report = &check["report"];
    assert_eq!(report["suspect"]["name"], "thesis.txt");
    assert_eq!(report["suspect"]["partial"], false);
    let (b0, c0, o0) = totals(report);
    assert!(b0 > 0.0 && c0 > 0.0, "the demo thesis borrows and cites: {b0} {c0}");
    assert!((b0 + c0 + o0 - 100.0).abs() < 1e-6);
    // Texts are kept in the library collection: blocks carry the source passage.
    let library_block = report["blocks"].as_array().unwrap().iter().find(|b| b["kind"] == "borrowing").unwrap();
    assert!(library_block["source_excerpt"].is_string());

    // Switch off the first borrowing source: borrowings fall, the edit is stored.
    let source = report["sources"].as_array().unwrap().iter().find(|s| s["kind"] == "source").unwrap();
    let source_id = source["id"].as_u64().unwrap();
    let (status, edited) = s.edit_report(&id, &json!({"sources": [{"id": source_id, "enabled": false}]}));
    assert_eq!(status, 200, "{edited}");
    let (b1, _, o1) = totals(&edited);
    assert!(b1 < b0 && o1 > o0, "{b0} -> {b1}");
    let (_, again) = s.get(&format!("/api/checks/{id}"));
    assert_eq!(again["edits"], json!([{"target": "source", "source": source_id, "enabled": false}]));
    assert_eq!(totals(&again["report"]).0, b1);

    // Reclassify a borrowing block of another enabled source as a citation.
    let block = edited["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["kind"] == "borrowing" && b["source"].as_u64() != Some(source_id))
        .unwrap();
    let (status, edited2) = s.edit_report(&id, &json!({"blocks": [{"id": block["id"], "kind": "citation"}]}));
    assert_eq!(status, 200, "{edited2}");
    let (b2, c2, _) = totals(&edited2);
    assert!(b2 < b1 && c2 > totals(&edited).1);
    assert_eq!(edited2["blocks"][block["id"].as_u64().unwrap() as usize]["detected_kind"], "borrowing");

    // Downloads carry the edits.
    let (status, ct, cd, body) = s.get_raw(&format!("/api/checks/{id}/report.json"));
    assert_eq!((status, ct.as_str()), (200, "application/json"));
    assert_eq!(cd, "attachment; filename=\"thesis.report.json\"");
    let downloaded: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(totals(&downloaded), totals(&edited2));
    let (status, ct, cd, body) = s.get_raw(&format!("/api/checks/{id}/report.html"));
    assert_eq!(status, 200);
    assert!(ct.starts_with("text/html"));
    assert!(cd.contains("thesis.report.html"));
    assert!(body.contains("<html") && body.contains("The Circulation of Knowledge"));
    let (status, ct, cd, pdf) = s.get_bytes(&format!("/api/checks/{id}/report.pdf"));
    assert_eq!((status, ct.as_str()), (200, "application/pdf"));
    assert_eq!(cd, "attachment; filename=\"thesis.report.pdf\"");
    assert!(pdf.starts_with(b"%PDF-") && pdf.trim_ascii_end().ends_with(b"%%EOF"));
    let has = |needle: &[u8]| pdf.windows(needle.len()).any(|w| w == needle);
    assert!(has(b"Tessera report: The Circulation of Knowledge"), "the document's title is the PDF's title");
    assert!(has(b"/FontFile2") && has(b"/ToUnicode"), "the font is embedded with its text map");

    // Edits naming what the report does not have are refused, and change nothing.
    let (status, err) = s.edit_report(&id, &json!({"sources": [{"id": 999_999, "enabled": false}]}));
    assert_eq!((status, err["error"]["code"].as_str()), (422, Some("unknown_target")));
    let (status, err) = s.edit_report(&id, &json!({"colour": "red"}));
    assert_eq!(status, 422, "{err}");
    assert!(err["error"]["message"].is_string());
    let (_, after) = s.get(&format!("/api/checks/{id}"));
    assert_eq!(totals(&after["report"]), totals(&edited2));
}

#[test]
fn json_text_checks_and_polling_without_the_report() {
    let s = TestServer::start(|_| {});
    let (status, accepted) =
        s.send_json("POST", "/api/checks", &json!({"text": THESIS, "name": "pasted", "title": "My essay"}), None);
    assert_eq!(status, 202);
    let id = accepted["id"].as_str().unwrap();
    let done = s.wait(id);
    assert_eq!(done["report"]["suspect"]["title"], "My essay");
    let (_, light) = s.get(&format!("/api/checks/{id}?report=false"));
    assert_eq!(light["status"], "done");
    assert!(light["report"].is_null());
}

#[test]
fn errors_are_json_with_meaningful_status_codes() {
    let s = TestServer::start(|c| c.max_upload_bytes = 4096);
    let code = |v: &Value| v["error"]["code"].as_str().unwrap_or("").to_owned();

    let (status, v) = s.get("/api/checks/0123456789abcdef0123456789abcdef");
    assert_eq!((status, code(&v)), (404, "not_found".into()));
    let (status, v) = s.get("/api/checks/..%2F..%2Fetc%2Fpasswd");
    assert_eq!((status, code(&v)), (404, "not_found".into()));
    let (status, v) = s.get("/api/nothing-here");
    assert_eq!((status, code(&v)), (404, "not_found".into()));

    let (status, v) = s.send_json("POST", "/api/checks", &json!({"text": "   "}), None);
    assert_eq!((status, code(&v)), (422, "empty".into()));
    let (status, v) = s.send_json("POST", "/api/checks", &json!({"txt": "x"}), None);
    assert_eq!((status, code(&v)), (400, "bad_request".into()));

    let mut r =
        s.agent.post(format!("{}/api/checks", s.base)).header("content-type", "text/plain").send("hello").unwrap();
    let v: Value = r.body_mut().read_json().unwrap();
    assert_eq!((r.status().as_u16(), code(&v)), (415, "unsupported_media_type".into()));

    // Over the limit: refused before anything is stored.
    let big = "word ".repeat(2000);
    let (status, v) = s.upload("big.txt", big.as_bytes(), None);
    assert_eq!((status, code(&v)), (413, "too_large".into()), "{v}");
    let (status, v) = s.send_json("POST", "/api/checks", &json!({ "text": big }), None);
    assert_eq!((status, code(&v)), (413, "too_large".into()), "{v}");

    // A format no extractor reads.
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";
    let (status, v) = s.upload("picture.png", png, None);
    assert_eq!((status, code(&v)), (415, "unsupported_format".into()), "{v}");
    // Random bytes (no magic number) are not a document either: refused at upload.
    let mut rng = tessera_test_support::words::XorShift64::new(0x2545_F491_4F6C_DD1D);
    let random: Vec<u8> = (0..3000).map(|_| (rng.next_u64() >> 32) as u8).collect();
    for name in ["random.bin", "thesis.txt"] {
        let (status, v) = s.upload(name, &random, None);
        assert_eq!((status, code(&v)), (415, "unsupported_format".into()), "{name}: {v}");
    }

    // Nothing was queued by the refused requests.
    assert_eq!(std::fs::read_dir(s.data_dir().join("checks")).unwrap().count(), 0);

    // Downloads of a check without a report yet, and PATCH before it exists.
    let (status, v) = s.get("/api/checks/0123456789abcdef0123456789abcdef/report.json");
    assert_eq!(status, 404, "{v}");
    let (status, v) = s.delete("/api/documents/999999");
    assert_eq!((status, code(&v)), (404, "not_found".into()), "{v}");
}

/// The sum of the lengths of a report's segments, and whether any is counted for `source`.
fn segment_chars(report: &Value, source: u64) -> (u64, bool) {
    let segments = report["segments"].as_array().unwrap();
    let len = |s: &Value| s["span"]["chars"]["end"].as_u64().unwrap() - s["span"]["chars"]["start"].as_u64().unwrap();
    (segments.iter().map(len).sum(), segments.iter().any(|s| s["source"] == source))
}

/// Reports carry who each character is counted for (the page highlights them and applies
/// no rule of its own); edits recompute them, and a report stored before they existed
/// gets them when it is read.
#[test]
fn segments_follow_edits_and_are_filled_in_stored_reports() {
    let s = TestServer::start(|_| {});
    let (_, accepted) = s.upload("thesis.txt", THESIS.as_bytes(), None);
    let id = accepted["id"].as_str().unwrap().to_owned();
    let report = s.wait(&id)["report"].clone();
    let counted =
        |r: &Value| r["totals"]["borrowed_chars"].as_u64().unwrap() + r["totals"]["cited_chars"].as_u64().unwrap();
    let source = report["sources"][0]["id"].as_u64().unwrap();
    assert_eq!(segment_chars(&report, source), (counted(&report), true));

    let (status, edited) = s.edit_report(&id, &json!({"sources": [{"id": source, "enabled": false}]}));
    assert_eq!(status, 200, "{edited}");
    assert_eq!(segment_chars(&edited, source), (counted(&edited), false));

    // The stored report as an older version wrote it: no segments, no source numbers.
    let file = s.data_dir().join("checks").join(&id).join("report.json");
    let mut stored: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert!(stored.as_object_mut().unwrap().remove("segments").is_some());
    for source in stored["sources"].as_array_mut().unwrap() {
        assert!(source.as_object_mut().unwrap().remove("number").is_some());
    }
    std::fs::write(&file, serde_json::to_vec(&stored).unwrap()).unwrap();
    let (status, read) = s.get(&format!("/api/checks/{id}/report.json"));
    assert_eq!(status, 200, "{read}");
    assert_eq!(read["segments"], edited["segments"]);
    let numbers: Vec<u64> = read["sources"].as_array().unwrap().iter().map(|s| s["number"].as_u64().unwrap()).collect();
    assert_eq!(numbers, (1..=numbers.len() as u64).collect::<Vec<_>>());
}

#[test]
fn upload_names_cannot_escape_the_check_directory() {
    let s = TestServer::start(|_| {});
    let (status, accepted) = s.upload("../../../../evil.txt", THESIS.as_bytes(), None);
    assert_eq!(status, 202);
    let check = s.wait(accepted["id"].as_str().unwrap());
    assert_eq!(check["name"], "evil.txt");
    assert!(!s.dir.path().join("evil.txt").exists());
    assert!(!s.data_dir().join("evil.txt").exists());
    let check_dir = s.data_dir().join("checks").join(accepted["id"].as_str().unwrap());
    let mut files: Vec<String> =
        std::fs::read_dir(check_dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    files.sort();
    assert_eq!(files, ["check.json", "report.json", "upload"]);
}

#[test]
fn writes_need_the_token_when_one_is_set() {
    let s = TestServer::start(|c| c.token = Some("s3cret".into()));
    let (status, v) = s.upload("thesis.txt", THESIS.as_bytes(), None);
    assert_eq!((status, v["error"]["code"].as_str()), (401, Some("unauthorized")));
    let (status, _) = s.upload("thesis.txt", THESIS.as_bytes(), Some("wrong"));
    assert_eq!(status, 401);
    let (status, v) = s.upload("thesis.txt", THESIS.as_bytes(), Some("s3cret"));
    assert_eq!(status, 202);
    let id = v["id"].as_str().unwrap();
    let check = s.wait(id);
    let source = check["report"]["sources"][0]["id"].clone();
    let edit = json!({"sources": [{"id": source, "enabled": false}]});
    assert_eq!(s.edit_report(id, &edit).0, 401);
    assert_eq!(s.send_json("PATCH", &format!("/api/checks/{id}/report"), &edit, Some("s3cret")).0, 200);
    let (status, health) = s.get("/api/health");
    assert_eq!((status, health["token_required"].as_bool()), (200, Some(true)));
}

#[test]
fn a_public_address_without_a_token_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    common::demo_index(&dir.path().join("index"));
    let mut config = ServerConfig::new(dir.path().join("index"));
    config.addr = "0.0.0.0:8080".parse().unwrap();
    let err = Server::build(config.clone(), Default::default()).unwrap_err();
    assert!(err.to_string().contains("token"), "{err}");
    config.token = Some("t".into());
    assert!(Server::build(config, Default::default()).is_ok());
}

#[test]
fn a_collection_past_its_timeout_leaves_the_report_partial_until_it_answers() {
    // A zero timeout: `library` is always late, deterministically.
    let s = TestServer::start(|c| c.collection_timeouts = BTreeMap::from([("library".to_owned(), Duration::ZERO)]));
    let (_, accepted) = s.upload("thesis.txt", THESIS.as_bytes(), None);
    let check = s.wait(accepted["id"].as_str().unwrap());
    assert_eq!(check["status"], "done");
    assert_eq!(check["late_collections"], json!(["library"]));
    assert_eq!(check["report"]["suspect"]["partial"], false);
    assert_eq!(check["report"]["suspect"]["missing_collections"], json!([]));
    assert!(check["report"]["sources"].as_array().unwrap().iter().any(|s| s["collection"] == "library"));
}

#[test]
fn documents_are_added_and_the_if_new_rule_skips_contained_ones() {
    let s = TestServer::start(|_| {});
    let text = "Glaciers carve deep valleys into mountain ranges over many thousands of years, leaving \
                moraines of rock and gravel behind them when the climate warms and the ice retreats.";
    let body = json!({"collection": "web", "documents": [{"text": text, "title": "Glaciers", "origin": "https://a.example/g"}]});
    let (status, added) = s.send_json("POST", "/api/documents", &body, None);
    assert_eq!(status, 200, "{added}");
    let first = added["added"][0]["id"].as_u64().unwrap();

    let again = json!({"collection": "web", "if_new": true, "documents": [
        {"text": text, "origin": "https://mirror.example/g"},
        {"text": "Volcanic islands rise from the ocean floor where magma breaks through the crust, \
                  building cones of basalt that erode into black sand beaches.", "origin": "https://b.example/v"}
    ]});
    let (status, out) = s.send_json("POST", "/api/documents", &again, None);
    assert_eq!(status, 200, "{out}");
    assert_eq!(out["skipped"][0]["duplicate_of"].as_u64(), Some(first));
    assert_eq!(out["skipped"][0]["origin"], "https://mirror.example/g");
    assert!(out["skipped"][0]["containment"].as_f64().unwrap() >= 0.9);
    assert_eq!(out["added"].as_array().unwrap().len(), 1);
    assert_eq!(out["added"][0]["origin"], "https://b.example/v");

    // The skipped copy's origin is attached: a report on the text lists it.
    let (status, accepted) = s.send_json("POST", "/api/checks", &json!({"text": text}), None);
    assert_eq!(status, 202, "{accepted}");
    let check = s.wait(accepted["id"].as_str().unwrap());
    let source = &check["report"]["sources"][0];
    assert_eq!(source["id"].as_u64(), Some(first), "{check}");
    assert_eq!(source["origin"], "https://a.example/g");
    assert_eq!(source["seen_at"], json!(["https://mirror.example/g"]));

    let (_, collections) = s.get("/api/collections");
    let web = collections.as_array().unwrap().iter().find(|c| c["name"] == "web").unwrap();
    assert_eq!((web["documents"].as_u64(), web["kind"].as_str()), (Some(2), Some("source")));

    // Files go through extraction, like checks.
    let (ct, form) = common::multipart(&[
        ("collection", None, b"web"),
        (
            "file",
            Some("notes.html"),
            b"<html><title>Notes</title><body><p>Rivers of ice shape the land.</p></body></html>",
        ),
    ]);
    let mut r = s.agent.post(format!("{}/api/documents", s.base)).header("content-type", ct).send(&form[..]).unwrap();
    let v: Value = r.body_mut().read_json().unwrap();
    assert_eq!(r.status().as_u16(), 200, "{v}");
    assert_eq!(v["added"][0]["title"], "Notes");

    let (status, v) = s.send_json("POST", "/api/documents", &json!({"collection": "", "documents": []}), None);
    assert_eq!((status, v["error"]["code"].as_str()), (400, Some("bad_request")));

    // The same origin and text again is a repeat, not added unless forced; a document
    // without a title is named by its first line.
    let (status, out) = s.send_json("POST", "/api/documents", &body, None);
    assert_eq!(status, 200, "{out}");
    assert_eq!(out["added"], json!([]), "{out}");
    assert_eq!(
        (out["skipped"][0]["duplicate_of"].as_u64(), out["skipped"][0]["containment"].as_f64()),
        (Some(first), Some(1.0))
    );
    let forced = json!({"collection": "web", "force": true, "documents": [{"text": format!("On ice\n{text}"), "origin": "https://a.example/g"}]});
    let (status, out) = s.send_json("POST", "/api/documents", &forced, None);
    assert_eq!((status, out["added"][0]["title"].as_str()), (200, Some("On ice")), "{out}");
    let (status, out) = s.send_json(
        "POST",
        "/api/documents",
        &json!({"collection": "web", "force": true, "if_new": true, "documents": []}),
        None,
    );
    assert_eq!((status, out["error"]["code"].as_str()), (400, Some("bad_request")), "{out}");
    let (_, collections) = s.get("/api/collections");
    let web = collections.as_array().unwrap().iter().find(|c| c["name"] == "web").unwrap();
    assert_eq!(web["documents"].as_u64(), Some(4));
}

#[test]
fn openapi_describes_every_endpoint() {
    let s = TestServer::start(|_| {});
    let (status, doc) = s.get("/openapi.json");
    assert_eq!(status, 200);
    let paths = doc["paths"].as_object().unwrap();
    for p in [
        "/api/checks",
        "/api/checks/{id}",
        "/api/checks/{id}/report",
        "/api/checks/{id}/report.json",
        "/api/checks/{id}/report.html",
        "/api/checks/{id}/report.pdf",
        "/api/documents",
        "/api/documents/{id}",
        "/api/collections",
        "/api/health",
    ] {
        assert!(paths.contains_key(p), "{p} missing");
    }
    let (status, ct, _, page) = s.get_raw("/");
    assert_eq!(status, 200);
    assert!(ct.starts_with("text/html"));
    for script in ["/assets/compare.js", "/assets/app.js"] {
        assert!(page.contains(script), "{script}");
        let (status, ct, _, body) = s.get_raw(script);
        assert_eq!((status, ct.as_str()), (200, "text/javascript; charset=utf-8"), "{script}");
        assert!(body.contains("function "), "{script}");
    }
    // compare.js defines what app.js calls, so it comes first.
    assert!(page.find("/assets/compare.js") < page.find("/assets/app.js"));
    assert_eq!(s.get_raw("/assets/../Cargo.toml").0, 404);
}

#[test]
fn bypass_tricks_are_reported_as_warnings_for_files_and_pasted_text() {
    let s = TestServer::start(|_| {});
    let tricked = format!("{THESIS}\nПерепиcанный тeкст, pla\u{200B}gia\u{200C}rism.\n");
    let (_, a) = s.upload("tricked.txt", tricked.as_bytes(), None);
    let (_, b) = s.send_json("POST", "/api/checks", &json!({ "text": tricked }), None);
    for id in [&a["id"], &b["id"]] {
        let check = s.wait(id.as_str().unwrap());
        let warnings: Vec<&str> = check["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect();
        assert!(
            warnings.iter().any(|w| w.starts_with("look-alike letters of another script inside words")),
            "{warnings:?}"
        );
        assert!(warnings.iter().any(|w| w.starts_with("invisible characters inside words")), "{warnings:?}");
        assert_eq!(check["report"]["suspect"]["text"], tricked.as_str());
    }
    let (_, clean) = s.send_json("POST", "/api/checks", &json!({ "text": THESIS }), None);
    assert_eq!(s.wait(clean["id"].as_str().unwrap())["warnings"], json!([]));
}

#[test]
fn office_formats_go_through_extraction() {
    let s = TestServer::start(|_| {});
    let para = "The new method spread with remarkable speed. Within fifty years printing shops were working \
                in more than two hundred European towns, and the price of a book fell to a fraction of what \
                a manuscript had cost.";
    let rtf = format!("{{\\rtf1\\ansi{{\\fonttbl{{\\f0 Times;}}}}\\f0 {para}\\par}}");
    let (status, v) = s.upload("essay.rtf", rtf.as_bytes(), None);
    assert_eq!(status, 202, "{v}");
    let check = s.wait(v["id"].as_str().unwrap());
    assert_eq!(check["status"], "done", "{check}");
    assert!(check["report"]["suspect"]["text"].as_str().unwrap().contains("remarkable speed"));
    assert!(check["report"]["totals"]["borrowings"].as_f64().unwrap() > 50.0, "{}", check["report"]["totals"]);
}

#[test]
fn an_archive_upload_becomes_one_check_per_member() {
    let s = TestServer::start(|_| {});
    let zip = include_bytes!("../../extract/testdata/archive/thesis.zip");
    let (status, v) = s.upload("thesis.zip", zip, None);
    assert_eq!(status, 202, "{v}");
    let members = v["members"].as_array().unwrap();
    assert!(!members.is_empty(), "{v}");
    assert_eq!(v["id"], members[0]["id"]);
    for m in members {
        let name = m["name"].as_str().unwrap();
        assert!(name.starts_with("thesis.zip!/"), "{name}");
        let check = s.wait(m["id"].as_str().unwrap());
        assert_eq!(check["status"], "done", "{check}");
        assert_eq!(check["report"]["suspect"]["name"], name);
    }
}

#[test]
fn a_deleted_source_is_no_longer_found() {
    let s = TestServer::start(|_| {});
    let (_, a) = s.upload("thesis.txt", THESIS.as_bytes(), None);
    let before = s.wait(a["id"].as_str().unwrap());
    let source = before["report"]["sources"].as_array().unwrap().iter().find(|s| s["collection"] == "library").unwrap();
    let doc = source["id"].as_u64().unwrap();
    let (status, v) = s.delete(&format!("/api/documents/{doc}"));
    assert_eq!((status, v["deleted"].as_u64()), (200, Some(doc)), "{v}");
    let (status, _) = s.delete(&format!("/api/documents/{doc}"));
    assert_eq!(status, 404);
    let (_, b) = s.upload("thesis.txt", THESIS.as_bytes(), None);
    let after = s.wait(b["id"].as_str().unwrap());
    assert!(after["report"]["sources"].as_array().unwrap().iter().all(|s| s["id"].as_u64() != Some(doc)));
    assert!(after["report"]["totals"]["borrowings"].as_f64() < before["report"]["totals"]["borrowings"].as_f64());
}

#[test]
fn past_checks_are_listed_newest_first_a_page_at_a_time() {
    let s = TestServer::start(|_| {});
    let (_, empty) = s.get("/api/checks");
    assert_eq!(empty["total"], 0, "{empty}");
    let mut ids = Vec::new();
    for (i, name) in ["first.txt", "second.txt", "third.txt"].iter().enumerate() {
        let (status, accepted) =
            s.send_json("POST", "/api/checks", &json!({"text": THESIS, "name": name, "title": format!("T{i}")}), None);
        assert_eq!(status, 202, "{accepted}");
        let id = accepted["id"].as_str().unwrap().to_owned();
        assert_eq!(s.wait(&id)["status"], "done");
        ids.push(id);
    }
    let (status, page) = s.get("/api/checks?limit=2");
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["total"], 3);
    let checks = page["checks"].as_array().unwrap();
    let listed: Vec<&str> = checks.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(listed, [ids[2].as_str(), ids[1].as_str()], "newest first");
    assert_eq!(checks[0]["name"], "third.txt");
    assert_eq!(checks[0]["title"], "T2");
    assert_eq!(checks[0]["status"], "done");
    assert!(checks[0]["totals"]["borrowings"].as_f64().unwrap() > 0.0, "{page}");
    let (_, rest) = s.get("/api/checks?offset=2&limit=2");
    let rest: Vec<&str> = rest["checks"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(rest, [ids[0].as_str()]);
    let (status, bad) = s.get("/api/checks?limit=0");
    assert_eq!(status, 400, "{bad}");
    assert_eq!(bad["error"]["code"], "bad_request");
}

/// Sends a raw HTTP/1.1 request whose body goes out chunked (no length given), and reads
/// the status and the JSON body of the answer. Write errors are ignored: the server may
/// answer and close before the whole body is sent.
fn chunked(base: &str, path: &str, content_type: &str, body: &[u8]) -> (u16, Value) {
    use std::io::{Read, Write};
    let addr = base.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {content_type}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    );
    let _ = stream.write_all(head.as_bytes());
    for chunk in body.chunks(8192) {
        if stream.write_all(format!("{:x}\r\n", chunk.len()).as_bytes()).is_err()
            || stream.write_all(chunk).is_err()
            || stream.write_all(b"\r\n").is_err()
        {
            break;
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n");
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let json = answer.find("\r\n\r\n").map_or("", |at| &answer[at + 4..]);
    // The body itself may be chunked: take the JSON object inside.
    let json = json.find('{').and_then(|a| json.rfind('}').map(|b| &json[a..=b])).unwrap_or("null");
    (status, serde_json::from_str(json).unwrap_or(Value::Null))
}

/// Oversize bodies are `413 too_large` in the documented JSON shape whether or not they
/// declare their length; an empty file is refused at once.
#[test]
fn oversize_chunked_bodies_and_empty_files_are_refused_as_documented() {
    let s = TestServer::start(|c| c.max_upload_bytes = 4096);
    let big = "word ".repeat(40_000);
    let (content_type, body) = common::multipart(&[("file", Some("big.txt"), big.as_bytes())]);
    let (status, v) = chunked(&s.base, "/api/checks", &content_type, &body);
    assert_eq!((status, v["error"]["code"].as_str()), (413, Some("too_large")), "{v}");
    let json = serde_json::to_vec(&json!({ "text": big })).unwrap();
    let (status, v) = chunked(&s.base, "/api/checks", "application/json", &json);
    assert_eq!((status, v["error"]["code"].as_str()), (413, Some("too_large")), "{v}");
    let (status, v) = s.upload("empty.txt", b"", None);
    assert_eq!((status, v["error"]["code"].as_str()), (415, Some("unsupported_format")), "{v}");
    let (_, health) = s.get("/api/health");
    assert_eq!(health["queued"], 0, "nothing refused was queued: {health}");

    // Files are written to the store as they arrive: one just over the limit (within the
    // form's allowance for its headers) is refused while it streams in, one at the limit
    // is stored byte for byte, and nothing half-received stays behind.
    let over = "x".repeat(4097);
    let (status, v) = s.upload("over.txt", over.as_bytes(), None);
    assert_eq!((status, v["error"]["code"].as_str()), (413, Some("too_large")), "{v}");
    let exact: String = "abcd ".repeat(820).chars().take(4096).collect();
    let (status, accepted) = s.upload("exact.txt", exact.as_bytes(), None);
    assert_eq!(status, 202, "{accepted}");
    let id = accepted["id"].as_str().unwrap();
    let stored = std::fs::read(s.data_dir().join("checks").join(id).join("upload")).unwrap();
    assert_eq!(stored, exact.as_bytes());
    let left: Vec<String> = std::fs::read_dir(s.data_dir().join("checks"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// The page and the API answer with headers that forbid framing, type sniffing and loading
/// anything from elsewhere.
#[test]
fn security_headers_are_on_every_answer() {
    let s = TestServer::start(|_| {});
    for path in ["/", "/api/health", "/api/nothing-here"] {
        let r = s.agent.get(format!("{}{path}", s.base)).call().unwrap();
        let h = |name: &str| r.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
        assert_eq!(h("x-content-type-options"), "nosniff", "{path}");
        assert_eq!(h("x-frame-options"), "DENY", "{path}");
        assert!(h("content-security-policy").contains("frame-ancestors 'none'"), "{path}");
        assert!(h("content-security-policy").contains("script-src 'self'"), "{path}");
    }
}

/// A request that holds a server's only request place: its body never ends while the
/// connection is open. Returns once the server counts it (health checks do not take the
/// place, so nothing else competes for it meanwhile).
fn hold_the_only_place(s: &TestServer) -> std::net::TcpStream {
    use std::io::Write;
    let addr = s.base.trim_start_matches("http://");
    let mut slow = std::net::TcpStream::connect(addr).unwrap();
    let head = format!(
        "POST /api/checks HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{{\"tex\r\n"
    );
    slow.write_all(head.as_bytes()).unwrap();
    let held = (0..200).any(|_| {
        std::thread::sleep(Duration::from_millis(50));
        s.get("/api/health").1["requests"] == 1
    });
    assert!(held, "the slow request never took the place: {}", s.get("/api/health").1);
    slow
}

/// Past `max_concurrent_requests`, a request is refused at once with `503 busy` and
/// `Retry-After` instead of waiting (and holding memory); health checks still answer.
#[test]
fn a_full_server_answers_busy_with_retry_after() {
    let s = TestServer::start(|c| c.max_concurrent_requests = 1);
    let slow = hold_the_only_place(&s);
    let mut busy = s.agent.get(format!("{}/api/collections", s.base)).call().unwrap();
    assert_eq!(busy.status(), 503, "a second request is refused while the first holds the place");
    assert_eq!(busy.headers().get("retry-after").and_then(|v| v.to_str().ok()), Some("1"));
    let v: Value = busy.body_mut().read_json().unwrap();
    assert_eq!(v["error"]["code"], "busy", "{v}");
    let (status, _) = s.get("/api/health");
    assert_eq!(status, 200, "health checks always pass");
    drop(slow);
    // The place is free again once the slow request is gone.
    let free = (0..50).any(|_| {
        std::thread::sleep(Duration::from_millis(100));
        s.get("/api/collections").0 == 200
    });
    assert!(free);
}

/// A refused upload's body is read before the `503` goes out (a lingering close), so a
/// client that writes its whole body before it reads the answer gets the answer, not a
/// connection closed under it.
#[test]
fn a_refused_upload_is_read_to_its_end_and_answered() {
    use std::io::{Read, Write};
    let s = TestServer::start(|c| c.max_concurrent_requests = 1);
    let addr = s.base.trim_start_matches("http://").to_owned();
    let slow = hold_the_only_place(&s);
    // 32 MB: more than loopback's socket buffers hold, so the server must read it.
    let body = vec![b'a'; 32 << 20];
    let mut upload = std::net::TcpStream::connect(&addr).unwrap();
    upload.set_write_timeout(Some(Duration::from_secs(60))).unwrap();
    upload.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let head = format!(
        "POST /api/checks HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    upload.write_all(head.as_bytes()).unwrap();
    upload.write_all(&body).expect("the whole body is written: the server reads it");
    let mut answer = String::new();
    upload.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("\"busy\""), "{answer}");
    drop(slow);
}
