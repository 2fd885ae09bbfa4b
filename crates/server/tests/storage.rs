//! Stored checks are bounded (issue 52, item 1: a near-limit check wrote 513 MB under the
//! index's server folder): one check holds its upload and a report that grows with its
//! (capped) text, and past `max_checks_bytes` in all the oldest finished checks are
//! dropped, the newest kept whole.
#![allow(clippy::unwrap_used)]

mod common;

use std::path::Path;

use common::TestServer;
use serde_json::json;

const LIBRARY: [&str; 3] = [
    include_str!("../../../testdata/demo/library/printing-press.txt"),
    include_str!("../../../testdata/demo/library/honey-bees.txt"),
    include_str!("../../../testdata/demo/library/siberian-rivers.txt"),
];

/// Bytes of the files in `dir` and its folders.
fn bytes_under(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let meta = e.metadata().unwrap();
            if meta.is_dir() { bytes_under(&e.path()) } else { meta.len() }
        })
        .sum()
}

#[test]
fn past_the_cap_the_oldest_finished_checks_are_dropped() {
    const CAP: u64 = 2_000_000;
    let s = TestServer::start(|c| c.max_checks_bytes = CAP);
    // The library over and over: every word of it matches, the report's blocks at their
    // most for its length.
    let text: String = LIBRARY.join("\n\n").chars().cycle().take(100_000).collect();
    let checks = s.data_dir().join("checks");
    let mut ids = Vec::new();
    for i in 0..10 {
        let (status, v) =
            s.send_json("POST", "/api/checks", &json!({ "text": text, "name": format!("t{i}.txt") }), None);
        assert_eq!(status, 202, "{v}");
        let id = v["id"].as_str().unwrap().to_owned();
        assert_eq!(s.wait(&id)["status"], "done");
        // One check: its text as uploaded, and a report of a few times it (the text, and
        // each block's excerpts of suspect and source: 4.5 times here, 2.7 times for
        // 16 MiB of text matched throughout).
        let one = bytes_under(&checks.join(&id));
        let report = std::fs::metadata(checks.join(&id).join("report.json")).unwrap().len();
        assert!(report <= 8 * text.len() as u64, "a report of {report} bytes for {} of text", text.len());
        let all = bytes_under(&checks);
        eprintln!("check {i}: {one} bytes (report {report}); all checks {all} bytes");
        assert!(all <= CAP, "{all} bytes of checks over the cap of {CAP}");
        ids.push(id);
    }
    // The oldest are gone as if never made, the newest are whole.
    let kept: Vec<&String> = ids.iter().filter(|id| s.get(&format!("/api/checks/{id}")).0 == 200).collect();
    assert!(kept.len() >= 2 && kept.len() < ids.len(), "kept {} of {}", kept.len(), ids.len());
    assert_eq!(kept, ids[ids.len() - kept.len()..].iter().collect::<Vec<_>>(), "not the newest kept");
    assert_eq!(s.get(&format!("/api/checks/{}", ids[0])).0, 404);
    let (_, last) = s.get(&format!("/api/checks/{}", ids[9]));
    assert!(last["report"]["blocks"].as_array().is_some_and(|b| !b.is_empty()), "{last}");
    let (_, list) = s.get("/api/checks");
    let listed = list["checks"].as_array().map_or(0, Vec::len);
    assert_eq!(listed, kept.len(), "{list}");
    // Nothing half-dropped is left behind.
    let names: Vec<String> =
        std::fs::read_dir(&checks).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
}
