//! The submissions repository: a checked document kept for later checks, never reported as
//! a source of itself, removable.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use support::{demo, new_engine};
use tessera_engine::{AddMode, CollectionKind, Engine, EngineOptions, Report, Submission, Submitted};

mod support;

/// An index whose collection `library` holds the demo library.
fn library() -> (tempfile::TempDir, Engine) {
    let (dir, engine) = new_engine(EngineOptions::default());
    let lib = engine.collection_config("library", CollectionKind::Source, None).unwrap();
    for name in ["printing-press.txt", "honey-bees.txt", "siberian-rivers.txt"] {
        engine.add_text(&lib, name, name, &demo(&format!("library/{name}")), AddMode::All).unwrap();
    }
    (dir, engine)
}

fn submit(engine: &Engine, name: &str, text: &str, submission: &Submission) -> (Report, Submitted) {
    let suspect = engine.suspect_text(name, None, text.to_owned());
    let (report, submitted) = engine.check_and_submit(&suspect, Some(submission)).unwrap();
    (report, submitted.unwrap())
}

fn from_submissions(report: &Report) -> Vec<&tessera_engine::Source> {
    report.sources.iter().filter(|s| s.collection == "theses").collect()
}

#[test]
fn the_same_thesis_handed_in_twice_is_found_with_its_first_submission() {
    let (_dir, engine) = library();
    let thesis = demo("thesis.txt");
    let first = Submission { title: Some("Anna's thesis".into()), ..Submission::new("theses", None) };
    let (report, submitted) = submit(&engine, "anna.txt", &thesis, &first);
    assert!(from_submissions(&report).is_empty(), "the repository was empty");
    let Submitted::Added { doc } = submitted else { panic!("{submitted:?}") };

    // Another student hands in the same text: the first submission is its source,
    // named as identical, with its check and date.
    let second = Submission::new("theses", None);
    let (report, _) = submit(&engine, "boris.txt", &thesis, &second);
    let found = from_submissions(&report);
    assert_eq!(found.len(), 1, "{:?}", report.sources);
    assert_eq!(found[0].id, doc);
    assert_eq!(found[0].title, "Anna's thesis");
    let info = found[0].submission.as_ref().unwrap();
    assert_eq!(info.check_id, first.check_id);
    assert!(info.identical);
    assert_eq!(info.submitted_at.len(), "2026-12-01T10:00:00Z".len());
    assert!(found[0].text_kept, "submissions keep their texts");

    // A part of it, reworked: found, not identical.
    let part: String = thesis.lines().take(12).collect::<Vec<_>>().join("\n") + "\nA closing line of my own.";
    let third = Submission::new("theses", None);
    let (report, _) = submit(&engine, "clara.txt", &part, &third);
    let found = from_submissions(&report);
    assert!(!found.is_empty());
    assert!(found.iter().all(|s| !s.submission.as_ref().unwrap().identical));
}

#[test]
fn a_check_run_again_neither_reports_nor_submits_itself() {
    let (_dir, engine) = library();
    let thesis = demo("thesis.txt");
    let submission = Submission::new("theses", Some("Thesis".into()));
    let (_, first) = submit(&engine, "t.txt", &thesis, &submission);
    // The same check again (a server restarted in the middle of it).
    let (report, again) = submit(&engine, "t.txt", &thesis, &submission);
    assert_eq!(again, Submitted::Already { doc: first.doc() });
    assert!(from_submissions(&report).is_empty(), "{:?}", report.sources);
    let theses = engine.collections().unwrap().into_iter().find(|c| c.config.name == "theses").unwrap();
    assert_eq!(theses.docs, 1);
    assert!(theses.config.keep_texts);
}

#[test]
fn a_removed_submission_is_found_no_more_and_purged_by_the_next_merge() {
    let (_dir, engine) = library();
    let thesis = demo("thesis.txt");
    let (_, first) = submit(&engine, "a.txt", &thesis, &Submission::new("theses", None));
    assert_eq!(engine.delete(&[first.doc()]).unwrap(), 1);
    let (report, _) = submit(&engine, "b.txt", &thesis, &Submission::new("theses", None));
    assert!(from_submissions(&report).is_empty(), "{:?}", report.sources);
    engine.optimize(1).unwrap();
    let theses = engine.collections().unwrap().into_iter().find(|c| c.config.name == "theses").unwrap();
    assert_eq!((theses.docs, theses.deleted), (1, 0));
}

#[test]
fn the_first_submission_of_an_empty_index_is_kept() {
    let (_dir, engine) = new_engine(EngineOptions::default());
    let thesis = demo("thesis.txt");
    let (report, submitted) = submit(&engine, "a.txt", &thesis, &Submission::new("theses", None));
    assert!(report.sources.is_empty());
    assert!(matches!(submitted, Submitted::Added { .. }));
    // A collection of citations is not a submissions repository.
    let citations = engine.collection_config("quotes", CollectionKind::Citation, None).unwrap();
    engine.add_text(&citations, "q", "q", "a quotation of several words here", AddMode::All).unwrap();
    let suspect = engine.suspect_text("b.txt", None, thesis);
    let err = engine.check_and_submit(&suspect, Some(&Submission::new("quotes", None))).unwrap_err();
    assert!(err.to_string().contains("kind citation"), "{err}");
}
