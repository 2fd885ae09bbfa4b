//! Kept texts: on by default, switched on for an existing collection, and for documents
//! indexed before, read from their original files when those still hold the same text.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use support::{demo, new_engine};
use tessera_engine::{AddMode, CollectionKind, DEFAULT_KEEP_TEXTS, Engine, EngineOptions, Report};

mod support;

/// A folder holding `printing-press.txt` of the demo library.
fn corpus(dir: &Path) -> PathBuf {
    let corpus = dir.join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    let file = corpus.join("printing-press.txt");
    std::fs::write(&file, demo("library/printing-press.txt")).unwrap();
    file
}

fn check(engine: &Engine) -> Report {
    engine.check_text("thesis.txt", "Thesis", &demo("thesis.txt")).unwrap()
}

/// The report's source added from `file`.
fn source<'a>(report: &'a Report, file: &Path) -> &'a tessera_engine::Source {
    let origin = file.display().to_string();
    report.sources.iter().find(|s| s.origin == origin).unwrap_or_else(|| panic!("no source {origin}: {report:?}"))
}

#[test]
fn a_new_collection_keeps_texts_by_default_and_counts_their_bytes() {
    const { assert!(DEFAULT_KEEP_TEXTS) };
    let (dir, engine) = new_engine(EngineOptions::default());
    let file = corpus(dir.path());
    let config = engine.collection_config("lib", CollectionKind::Source, None).unwrap();
    assert!(config.keep_texts);
    engine.add_paths(&config, std::slice::from_ref(&file), AddMode::All, &|_| {}).unwrap();
    let report = check(&engine);
    let s = source(&report, &file);
    assert!(s.text_kept && s.text_missing.is_none(), "{s:?}");
    assert!(report.blocks.iter().any(|b| b.source == s.id && b.source_excerpt.is_some()));
    let stats = engine.stats_json().unwrap();
    assert!(stats["collections"][0]["text_bytes"].as_u64().unwrap() > 0, "{stats}");
    assert_eq!(stats["collections"][0]["keep_texts"], true);
}

#[test]
fn an_existing_collection_keeps_its_choice_unless_the_add_says() {
    let (dir, engine) = new_engine(EngineOptions::default());
    let file = corpus(dir.path());
    let snapshots = engine.collection_config("web", CollectionKind::Source, Some(false)).unwrap();
    engine.add_paths(&snapshots, &[file], AddMode::All, &|_| {}).unwrap();
    assert!(!engine.collection_config("web", CollectionKind::Source, None).unwrap().keep_texts);
    // Switched on, then never off.
    engine
        .add_text(
            &engine.collection_config("web", CollectionKind::Source, Some(true)).unwrap(),
            "n",
            "n",
            "a note of a few words here",
            AddMode::All,
        )
        .unwrap();
    assert!(engine.collection_config("web", CollectionKind::Source, None).unwrap().keep_texts);
    let refused = engine.add_text(&snapshots, "m", "m", "another note of a few words", AddMode::All).unwrap_err();
    assert!(refused.to_string().contains("cannot be switched off"), "{refused}");
}

#[test]
fn switched_on_texts_come_from_the_original_file_while_its_hash_matches() {
    let (dir, engine) = new_engine(EngineOptions::default());
    let file = corpus(dir.path());
    let snapshots = engine.collection_config("lib", CollectionKind::Source, Some(false)).unwrap();
    engine.add_paths(&snapshots, std::slice::from_ref(&file), AddMode::All, &|_| {}).unwrap();

    // Fingerprints only: the report says so.
    let report = check(&engine);
    let s = source(&report, &file);
    assert!(!s.text_kept);
    assert!(s.text_missing.as_deref().unwrap().contains("keeps fingerprints only"), "{s:?}");
    assert!(report.blocks.iter().filter(|b| b.source == s.id).all(|b| b.source_excerpt.is_none()));

    // Texts switched on by a later add: the earlier document's text is read from its file.
    let on = engine.collection_config("lib", CollectionKind::Source, Some(true)).unwrap();
    engine.add_text(&on, "note", "note", "An unrelated note about something else entirely.", AddMode::All).unwrap();
    let report = check(&engine);
    let s = source(&report, &file);
    assert!(s.text_kept && s.text_missing.is_none(), "{s:?}");
    let excerpt = report.blocks.iter().find(|b| b.source == s.id).and_then(|b| b.source_excerpt.clone()).unwrap();
    assert!(demo("library/printing-press.txt").contains(&excerpt));

    // The file changes: its text is not shown, and the report says why.
    std::fs::write(&file, demo("library/printing-press.txt").replace("printing", "pressing")).unwrap();
    let report = check(&engine);
    let s = source(&report, &file);
    assert!(!s.text_kept);
    assert!(s.text_missing.as_deref().unwrap().contains("changed since it was indexed"), "{s:?}");

    // The file is gone.
    std::fs::remove_file(&file).unwrap();
    let s = check(&engine).sources.into_iter().find(|s| s.origin == file.display().to_string()).unwrap();
    assert!(s.text_missing.as_deref().unwrap().contains("no longer there"), "{s:?}");
}
