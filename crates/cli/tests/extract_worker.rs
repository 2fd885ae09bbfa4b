//! The isolated PDF parser: `tessera __extract-worker` driven through
//! `tessera_extract::worker::extract_isolated`, as the CLI's extraction does.
//! Needs the PDFium library, which the build fetches (build.rs): skipped
//! without it, unless `TESSERA_REQUIRE_PDFIUM=1` (CI).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use tessera_extract::worker::extract_isolated;
use tessera_extract::{Error, ExtractConfig, Trick, WorkerCommand, extract_bytes};
use tessera_test_support::pdfium::pdfium;

mod support;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../extract/testdata/pdf").join(name)
}

fn worker() -> WorkerCommand {
    WorkerCommand::new(env!("CARGO_BIN_EXE_tessera"), vec!["__extract-worker".into()])
}

#[test]
fn the_worker_extracts_what_the_library_extracts() {
    if !pdfium() {
        return;
    }
    let config = ExtractConfig::default();
    for name in ["tricks.pdf", "ru.pdf"] {
        let bytes = std::fs::read(fixture(name)).unwrap();
        let isolated = extract_isolated(&worker(), name, &bytes, &config).unwrap();
        let local = extract_bytes(name, &bytes, &config).unwrap();
        assert_eq!(isolated, local);
    }
    let bytes = std::fs::read(fixture("tricks.pdf")).unwrap();
    let doc = extract_isolated(&worker(), "t.pdf", &bytes, &config).unwrap();
    assert_eq!(doc.bypasses().map(|b| b.0).collect::<Vec<_>>(), [Trick::WhiteText, Trick::TinyText, Trick::HiddenText]);
    // Through the configuration, as the CLI sets it.
    let config = ExtractConfig { isolation: Some(worker()), ..ExtractConfig::default() };
    assert_eq!(extract_bytes("t.pdf", &bytes, &config).unwrap().text, doc.text);
}

#[test]
fn worker_errors_name_the_document() {
    if !pdfium() {
        return;
    }
    let config = ExtractConfig::default();
    let bytes = std::fs::read(fixture("encrypted.pdf")).unwrap();
    let err = extract_isolated(&worker(), "secret.pdf", &bytes, &config).unwrap_err();
    assert!(matches!(&err, Error::Encrypted { name } if name == "secret.pdf"), "{err}");
    let err = extract_isolated(&worker(), "junk.pdf", b"%PDF-1.4 junk", &config).unwrap_err();
    assert!(matches!(&err, Error::Malformed { name, format: "pdf", .. } if name == "junk.pdf"), "{err}");
    // A worker that cannot get the memory it needs dies, and says which document.
    let starved = WorkerCommand { memory_mb: 8, ..worker() };
    let bytes = std::fs::read(fixture("en.pdf")).unwrap();
    let err = extract_isolated(&starved, "big.pdf", &bytes, &config).unwrap_err();
    assert!(matches!(&err, Error::Failed { name, .. } if name == "big.pdf"), "{err}");
}

/// Runs `tessera` in `dir`, returns stdout; panics on failure.
fn tessera(dir: &Path, args: &[&str]) -> String {
    support::run(dir, args).ok()
}

fn borrowings(report: &str) -> f64 {
    let report: serde_json::Value = serde_json::from_str(report).unwrap();
    report["totals"]["borrowings"].as_f64().unwrap()
}

#[test]
fn hidden_words_do_not_lower_the_borrowed_share() {
    if !pdfium() {
        return;
    }
    // tricks_en.pdf: two paragraphs of en.txt with an invisible, white or tiny
    // word after every third word. Checked against en.txt, it must score as
    // the same two paragraphs as plain text do.
    let tmp = tempfile::tempdir().unwrap();
    let known = Path::new(env!("CARGO_MANIFEST_DIR")).join("../extract/testdata/known/en.txt");
    let known = std::fs::read_to_string(known).unwrap();
    std::fs::create_dir(tmp.path().join("sources")).unwrap();
    std::fs::write(tmp.path().join("sources/en.txt"), &known).unwrap();
    let clean: Vec<&str> = known.split("\n\n").skip(1).take(2).collect();
    std::fs::write(tmp.path().join("clean.txt"), clean.join("\n\n")).unwrap();
    std::fs::copy(fixture("tricks_en.pdf"), tmp.path().join("tricks.pdf")).unwrap();
    tessera(tmp.path(), &["-q", "index", "--index", "idx", "sources"]);
    let clean = borrowings(&tessera(tmp.path(), &["check", "--index", "idx", "--format", "json", "clean.txt"]));
    let tricked = borrowings(&tessera(tmp.path(), &["check", "--index", "idx", "--format", "json", "tricks.pdf"]));
    assert!(clean > 90.0, "{clean}");
    assert!(tricked >= clean - 1.0, "tricked {tricked} vs clean {clean}");
}
