//! The reviewer's workflow through the CLI (issue 48): source texts kept by default, a
//! collection switched to keep them later (the original file read back when unchanged),
//! a submissions repository, and `serve`'s request logs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use support::{indexed, json, run as tessera, workspace};

mod support;

// ---------------------------------------------------------------------------------------
// Kept texts, submissions, request logs (issue 48, parts 1, 2 and 6)
// ---------------------------------------------------------------------------------------

/// The report's source whose origin is `origin`.
fn source_from<'a>(report: &'a Value, origin: &str) -> &'a Value {
    report["sources"].as_array().unwrap().iter().find(|s| s["origin"] == origin).unwrap_or_else(|| panic!("{report}"))
}

#[test]
fn texts_are_kept_by_default_and_snapshots_only_opts_out() {
    let tmp = workspace();
    tessera(tmp.path(), &["index", "--index", "lib", "demo/library"]).ok();
    tessera(tmp.path(), &["index", "--index", "lib", "-c", "web", "--snapshots-only", "demo/citations"]).ok();
    let stats = json(&tessera(tmp.path(), &["stats", "--index", "lib", "--format", "json"]).ok());
    let (main, web) = (&stats["collections"][0], &stats["collections"][1]);
    assert_eq!((main["name"].as_str(), main["keep_texts"].as_bool()), (Some("main"), Some(true)));
    assert!(main["text_bytes"].as_u64().unwrap() > 0);
    assert_eq!((web["keep_texts"].as_bool(), web["text_bytes"].as_u64()), (Some(false), Some(0)));
    let text = tessera(tmp.path(), &["stats", "--index", "lib"]).ok();
    assert!(text.contains("texts kept (") && text.contains("fingerprints only"), "{text}");
    // Once kept, never dropped; both flags at once are a usage error.
    tessera(tmp.path(), &["index", "--index", "lib", "--snapshots-only", "demo/thesis.txt"])
        .fails(1, &["keeps its documents' texts", "--snapshots-only"]);
    tessera(tmp.path(), &["index", "--index", "lib", "--keep-texts", "--snapshots-only", "demo/thesis.txt"])
        .fails(2, &["--snapshots-only"]);
}

#[test]
fn texts_switched_on_later_come_from_the_unchanged_original_file() {
    let tmp = workspace();
    let origin = "demo/library/printing-press.txt";
    tessera(tmp.path(), &["index", "--index", "lib", "--snapshots-only", "demo/library"]).ok();
    let check = || json(&tessera(tmp.path(), &["check", "--index", "lib", "--format", "json", "demo/thesis.txt"]).ok());
    let report = check();
    let source = source_from(&report, origin);
    assert_eq!(source["text_kept"], false);
    assert!(source["text_missing"].as_str().unwrap().contains("keeps fingerprints only"), "{source}");

    // Switched on by the next add: the first documents' texts come from their files.
    tessera(tmp.path(), &["index", "--index", "lib", "--keep-texts", "demo/citations"]).ok();
    let report = check();
    let source = source_from(&report, origin);
    assert_eq!(source["text_kept"], true, "{source}");
    assert!(source.get("text_missing").is_none());

    // The file changed since: the report says so instead of showing another text.
    let path = tmp.path().join(origin);
    fs::write(&path, fs::read_to_string(&path).unwrap().replace("scribe", "copyist")).unwrap();
    let report = check();
    let source = source_from(&report, origin);
    assert_eq!(source["text_kept"], false);
    assert!(source["text_missing"].as_str().unwrap().contains("changed since it was indexed"), "{source}");
}

#[test]
fn check_submit_to_keeps_the_thesis_for_the_next_check_until_deleted() {
    let tmp = indexed();
    let submit = |title: &str| {
        tessera(
            tmp.path(),
            &[
                "check",
                "--index",
                "lib",
                "--format",
                "json",
                "--submit-to",
                "theses",
                "--submission-title",
                title,
                "demo/thesis.txt",
            ],
        )
    };
    let first = submit("First hand-in");
    assert!(first.stderr.contains("kept as document 4 of collection \"theses\""), "{}", first.stderr);
    let report = json(&first.ok());
    assert!(report["sources"].as_array().unwrap().iter().all(|s| s["collection"] != "theses"));
    let report = json(&submit("Second hand-in").ok());
    let earlier: Vec<&Value> =
        report["sources"].as_array().unwrap().iter().filter(|s| s["collection"] == "theses").collect();
    assert_eq!(earlier.len(), 1, "{report}");
    assert_eq!(earlier[0]["title"], "First hand-in");
    assert_eq!(earlier[0]["submission"]["identical"], true);
    assert_eq!(earlier[0]["submission"]["check_id"].as_str().unwrap().len(), 32);
    // The reviewer removes both submissions.
    tessera(tmp.path(), &["delete", "--index", "lib", "4", "5"]).ok();
    let report = json(&tessera(tmp.path(), &["check", "--index", "lib", "--format", "json", "demo/thesis.txt"]).ok());
    assert!(report["sources"].as_array().unwrap().iter().all(|s| s["collection"] != "theses"), "{report}");
    tessera(tmp.path(), &["check", "--index", "lib", "--submission-title", "x", "demo/thesis.txt"])
        .fails(2, &["--submit-to"]);
}

#[test]
fn serve_logs_each_request_at_info() {
    use std::io::{BufRead, BufReader, Read};
    let tmp = indexed();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["serve", "--index", "lib", "--addr", "127.0.0.1:0"])
        .current_dir(tmp.path())
        .env_remove("TESSERA_LOG")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let base = line.trim().strip_prefix("listening on ").unwrap().to_owned();
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    assert_eq!(agent.get(format!("{base}/api/health")).call().unwrap().status().as_u16(), 200);
    assert_eq!(agent.get(format!("{base}/api/nothing?x=1")).call().unwrap().status().as_u16(), 404);
    std::thread::sleep(Duration::from_millis(200));
    child.kill().unwrap();
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    child.wait().unwrap();
    let lines: Vec<&str> = stderr.lines().filter(|l| l.contains("tessera_server::request")).collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(
        lines[0].contains("INFO") && lines[0].contains("GET /api/health 200 ") && lines[0].ends_with(" ms"),
        "{stderr}"
    );
    assert!(lines[1].contains("GET /api/nothing 404 "), "{stderr}");
}
