//! `tessera eval clough`: on a tiny hand-made corpus in the Clough & Stevenson layout
//! (always), and on the real corpus in `../shared/eval/clough-stevenson` when it is
//! there (skipped otherwise).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const SOURCE: &str = "Inheritance is a way to form new classes using classes that have already been defined. The new classes, known as derived classes, take over or inherit attributes and behaviour of the pre-existing classes, which are referred to as base classes. It is intended to help reuse existing code with little or no modification.";

const CUT: &str = "Inheritance is a way to form new classes using classes that have already been defined. The new classes, known as derived classes, take over or inherit attributes and behaviour of the pre-existing classes, which are referred to as base classes.";
const LIGHT: &str = "Inheritance is a way of forming new classes using classes that were already defined. These new classes, called derived classes, inherit attributes and behaviour of the pre-existing classes, which are known as base classes.";
const HEAVY: &str = "In object oriented programming a programmer can build a class on top of another one: the derived class takes the attributes and behaviour of its base class, so that existing code is reused with little modification.";
const NON: &str = "Object oriented languages let a developer describe a family of related types once and specialise them later, which keeps programs short and easy to change.";

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tessera")).args(args).output().unwrap();
    (out.status.code(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

fn measure<'a>(json: &'a Value, name: &str) -> &'a Value {
    json["measures"].as_array().unwrap().iter().find(|m| m["name"] == name).unwrap()
}

#[test]
fn small_corpus_is_ordered_and_separated() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut list = String::from("File,Group,Person,Task,Category\n");
    for (i, (text, category)) in [(CUT, "cut"), (LIGHT, "light"), (HEAVY, "heavy"), (NON, "non")].iter().enumerate() {
        let file = format!("g0p{}_taska.txt", char::from(b'A' + i as u8));
        fs::write(root.join(&file), text).unwrap();
        list.push_str(&format!("{file},0,{},a,{category}\n", char::from(b'A' + i as u8)));
    }
    fs::write(root.join("file_list.csv"), list).unwrap();
    fs::write(root.join("orig_taska.txt"), SOURCE).unwrap();

    let (code, stdout, stderr) = run(&["eval", "clough", "--corpus", root.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["answers"].as_array().unwrap().len(), 4);
    let containment = measure(&json, "containment");
    assert_eq!(containment["ordering_by_mean"], true, "{containment:#}");
    assert_eq!(containment["accuracy"], 1.0);
    assert_eq!(json["answers"][0]["scores"]["containment"], 1.0, "the cut answer is all in the source");
    assert_eq!(json["answers"][3]["scores"]["containment"], 0.0, "the independent answer shares no shingle");
    for name in ["containment_words", "jaccard_bigrams"] {
        assert_eq!(measure(&json, name)["accuracy"], 1.0, "{name}");
    }

    // The alignment flags the copy, with its block and confidence, and not the answer
    // written without the source.
    let alignment = &json["alignment"];
    assert_eq!(alignment["categories"]["cut"]["flagged"], 1, "{alignment:#}");
    assert_eq!(alignment["categories"]["non"]["flagged"], 0, "{alignment:#}");
    assert_eq!(alignment["flagged_non"].as_array().unwrap().len(), 0);
    let cut = &json["answers"][0]["alignment"];
    assert!(cut["covered"].as_f64().unwrap() > 0.9, "{cut:#}");
    assert_eq!(cut["blocks"][0]["answer"][0], 0, "{cut:#}");
    assert!(cut["blocks"][0]["confidence"].as_f64().unwrap() > 0.5, "{cut:#}");
    assert_eq!(json["answers"][3]["alignment"]["blocks"].as_array().unwrap().len(), 0);

    let (code, stdout, _) = run(&["eval", "clough", "--corpus", root.to_str().unwrap()]);
    assert_eq!(code, Some(0));
    assert!(stdout.contains("cut > light > heavy > non: by mean holds"), "{stdout}");
    assert!(stdout.contains("accuracy 100.0% (4 of 4)"), "{stdout}");
    assert!(stdout.contains("alignment: each answer aligned with its source"), "{stdout}");
    // The alignment settings reach it: with an impossible minimum length nothing is flagged.
    let (code, stdout, stderr) = run(&[
        "eval",
        "clough",
        "--corpus",
        root.to_str().unwrap(),
        "--format",
        "json",
        "--min-block-shingles",
        "1000",
        "--align-config",
        r#"{"min_passage_chars":100000}"#,
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["alignment"]["categories"]["cut"]["flagged"], 0, "{:#}", json["alignment"]);

    // A missing source is an error naming the answer.
    fs::remove_file(root.join("orig_taska.txt")).unwrap();
    let (code, _, stderr) = run(&["eval", "clough", "--corpus", root.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("g0pA_taska.txt"), "{stderr}");
}

#[test]
fn real_corpus_orders_categories() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/eval/clough-stevenson");
    if !Path::new(&root).join("file_list.csv").is_file() {
        eprintln!("skipped: no corpus at {}", root.display());
        return;
    }
    let (code, stdout, stderr) = run(&["eval", "clough", "--corpus", root.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["answers"].as_array().unwrap().len(), 95);
    let containment = measure(&json, "containment");
    assert_eq!(containment["ordering_by_mean"], true, "{containment:#}");
    assert_eq!(containment["ordering_by_median"], true, "{containment:#}");
    assert!(containment["accuracy"].as_f64().unwrap() >= 0.9, "{containment:#}");
    assert!(measure(&json, "jaccard_bigrams")["accuracy"].as_f64().unwrap() >= 0.9);

    // Held out for false accusations (docs/quality.md, "Clough & Stevenson: the
    // alignment"): at most 5 of the 38 answers written without the source are flagged,
    // and at least 54 of the 57 derived ones (2 of the 3 others were copied from another
    // article than their task's source).
    let alignment = &json["alignment"];
    assert!(alignment["flagged_non"].as_array().unwrap().len() <= 5, "{alignment:#}");
    let flagged: u64 =
        ["cut", "light", "heavy"].iter().map(|c| alignment["categories"][c]["flagged"].as_u64().unwrap()).sum();
    assert!(flagged >= 54, "{alignment:#}");
}
