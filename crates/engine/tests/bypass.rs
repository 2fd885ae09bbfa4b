//! Tricks that hide borrowing do not lower the borrowed share: a source is indexed, and
//! copies of it with each trick applied are checked against it next to a plain copy.
//! The report also names each trick.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use tessera_engine::{
    AddMode, CheckedFile, CollectionConfig, CollectionKind, Engine, EngineOptions, ErrorKind, ExtractConfig,
    FingerprintSettings, Report,
};

fn known(lang: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../extract/testdata/known/{lang}.txt"));
    std::fs::read_to_string(path).unwrap()
}

fn engine(dir: &tempfile::TempDir) -> Engine {
    let engine =
        Engine::open_or_create(&dir.path().join("idx"), &FingerprintSettings::default(), EngineOptions::default())
            .unwrap();
    let lib = CollectionConfig { name: "library".into(), kind: CollectionKind::Source, keep_texts: false };
    engine.add_text(&lib, "en.txt", "en", &known("en"), AddMode::All).unwrap();
    engine.add_text(&lib, "ru.txt", "ru", &known("ru"), AddMode::All).unwrap();
    engine
}

fn check(engine: &Engine, name: &str, bytes: &[u8]) -> Report {
    let extracted = tessera_extract::extract_bytes(name, bytes, &ExtractConfig::default()).unwrap();
    engine.check(&engine.suspect_extracted(name, None, &extracted)).unwrap()
}

fn kinds(report: &Report) -> Vec<&str> {
    report.suspect.warnings.iter().filter(|n| n.bypass).map(|n| n.kind.as_str()).collect()
}

/// Latin look-alikes into Cyrillic words and the reverse.
fn homoglyphs(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            'о' => 'o',
            'а' => 'a',
            'е' => 'e',
            'р' => 'p',
            'с' => 'c',
            'o' => 'о',
            'a' => 'а',
            'e' => 'е',
            _ => c,
        })
        .collect()
}

/// Every word of five letters or more written letter by letter.
fn spaced(text: &str) -> String {
    text.split(' ')
        .map(|w| {
            if w.chars().count() >= 5 && w.chars().all(char::is_alphabetic) {
                w.chars().map(String::from).collect::<Vec<_>>().join(" ")
            } else {
                w.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("  ")
}

#[test]
fn tricks_do_not_lower_the_borrowed_share() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&dir);
    for lang in ["en", "ru"] {
        let text = known(lang);
        let plain = check(&engine, "plain.txt", text.as_bytes()).totals.borrowings;
        assert!(plain > 90.0, "{lang}: a verbatim copy is borrowed: {plain}");
        let paragraphs: Vec<String> = text.split("\n\n").map(|p| format!("<p>{p}</p>")).collect();
        let white_between_words =
            paragraphs.iter().map(|p| p.replace(' ', "<span style=\"color:#ffffff\">x</span>")).collect::<String>();
        let hidden_insertions = paragraphs
            .iter()
            .map(|p| p.replace(", ", ", <span style=\"display:none\">lorem ipsum dolor</span>"))
            .collect::<String>();
        let cases: Vec<(&str, Vec<u8>, &str)> = vec![
            ("homoglyphs.txt", homoglyphs(&text).into_bytes(), "homoglyphs"),
            (
                "zero-width.txt",
                text.replace("ti", "t\u{200B}i").replace("ни", "н\u{200B}и").into_bytes(),
                "invisible_characters",
            ),
            ("spaced.txt", spaced(&text).into_bytes(), "spaced_letters"),
            ("fillers.txt", text.replace(' ', "\u{3164}").into_bytes(), "space_substitutes"),
            ("white.html", format!("<!doctype html><body>{white_between_words}</body>").into_bytes(), "white_text"),
            ("hidden.html", format!("<!doctype html><body>{hidden_insertions}</body>").into_bytes(), "hidden_text"),
        ];
        for (name, bytes, kind) in cases {
            let report = check(&engine, name, &bytes);
            let share = report.totals.borrowings;
            assert!(share >= plain - 5.0, "{lang} {name}: borrowed {share:.1}% vs {plain:.1}% for the plain copy");
            assert!(kinds(&report).contains(&kind), "{lang} {name}: {:?}", kinds(&report));
        }
    }
}

#[test]
fn a_clean_copy_has_no_bypass_notices() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&dir);
    for lang in ["en", "ru"] {
        let report = check(&engine, "plain.txt", known(lang).as_bytes());
        assert!(report.suspect.warnings.is_empty(), "{:?}", report.suspect.warnings);
    }
}

#[test]
fn archive_members_are_checked_one_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&dir);
    let archive = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../extract/testdata/archive/thesis.zip");
    let Ok(CheckedFile::Archive(results)) = engine.check_path(&archive) else { panic!("an archive") };
    assert_eq!(results.len(), 3);
    for (name, result) in &results {
        let report = result.as_ref().unwrap();
        assert!(report.totals.borrowings > 50.0, "{name}: {}", report.totals.borrowings);
        assert_eq!(&report.suspect.name, name);
    }
    assert_eq!(engine.extract_path(&archive).unwrap_err().kind(), ErrorKind::Archive);
}
