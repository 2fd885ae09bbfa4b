//! Many small adds into one index do not pile up segments (each add merges as the tiered
//! policy picks), `tessera optimize` merges down to one segment and purges deleted
//! documents, and the index verifies and answers the same checks afterwards.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::Path;

fn tessera(dir: &Path, args: &[&str]) -> String {
    support::run(dir, args).ok()
}

fn stats(dir: &Path) -> serde_json::Value {
    let json: serde_json::Value =
        serde_json::from_str(&tessera(dir, &["stats", "--index", "idx", "--format", "json"])).unwrap();
    json["collections"][0].clone()
}

/// A text of `n` made-up words (no two documents alike).
fn words(seed: u64, n: usize) -> String {
    tessera_test_support::words::text(seed, n, 4, 5)
}

#[test]
fn small_adds_merge_as_they_go_and_optimize_purges() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    const RUNS: u64 = 40;
    for i in 0..RUNS {
        let file = dir.join(format!("doc{i:03}.txt"));
        std::fs::write(&file, words(i + 1, 120)).unwrap();
        tessera(dir, &["index", "-q", "--index", "idx", file.file_name().unwrap().to_str().unwrap()]);
    }
    let before = stats(dir);
    assert_eq!(before["docs"], RUNS, "{before}");
    let segments = before["segments"].as_u64().unwrap();
    assert!(segments <= 12, "{RUNS} one-document adds left {segments} segments");
    tessera(dir, &["verify", "--index", "idx"]);
    let check = |dir: &Path| {
        let report: serde_json::Value =
            serde_json::from_str(&tessera(dir, &["check", "--index", "idx", "--format", "json", "doc007.txt"]))
                .unwrap();
        (report["totals"]["borrowings"].clone(), report["sources"][0]["origin"].clone())
    };
    let answer = check(dir);
    assert_eq!(answer.1, "doc007.txt");

    tessera(dir, &["delete", "--index", "idx", "0", "1", "2"]);
    let out = tessera(dir, &["optimize", "--index", "idx"]);
    assert!(out.contains("deleted ones purged"), "{out}");
    let after = stats(dir);
    assert_eq!(after["segments"], 1, "{after}");
    assert_eq!(after["docs"], RUNS - 3, "{after}");
    assert_eq!(after["deleted"], 0, "purged: {after}");
    tessera(dir, &["verify", "--index", "idx"]);
    assert_eq!(check(dir), answer, "the same answer from the merged index");
}
