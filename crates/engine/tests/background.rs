//! A resident engine (what `tessera serve` and `tessera crawl` open): the index's one
//! writer for the engine's life, segments merged on a background thread, and a process
//! killed with SIGKILL in the middle of background merges loses nothing.
//!
//! The crash test re-executes this test binary (`tessera_test_support::child`): the
//! ignored test `background_child`, run by `killed_during_background_merges_loses_nothing`
//! with `TESSERA_BACKGROUND_CHILD` set, adds batches through a resident engine in that
//! directory, printing `committed <n>` after each batch's commit returned, while merges
//! run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use tessera_engine::{
    AddMode, CollectionConfig, CollectionKind, Engine, EngineOptions, ErrorKind, FingerprintSettings, MergePolicy,
    WriterMode,
};
use tessera_test_support::child::{CrashChild, child_dir};

const CHILD: CrashChild =
    CrashChild { test: "background_child", env: "TESSERA_BACKGROUND_CHILD", prefix: "committed " };
/// Documents per batch (one commit each).
const BATCH: u64 = 4;

fn text(seed: u64, n: usize) -> String {
    support::words(seed, n, 3, 6).join(" ")
}

fn lib() -> CollectionConfig {
    CollectionConfig { name: "lib".into(), kind: CollectionKind::Source, keep_texts: false }
}

/// Merges as soon as two segments of a tier exist: many merges from few documents.
fn eager() -> MergePolicy {
    MergePolicy { segments_per_tier: 2, floor_bytes: 1, max_merged_bytes: u64::MAX, deletes_ratio: 0.05 }
}

fn resident(dir: &Path, merge: MergePolicy) -> tessera_engine::Result<Engine> {
    let options = EngineOptions { writer: WriterMode::Resident, merge, ..EngineOptions::default() };
    Engine::open_or_create(dir, &FingerprintSettings::default(), options)
}

fn segments(engine: &Engine) -> u64 {
    engine.collections().unwrap().iter().map(|c| c.segments).sum()
}

#[test]
fn resident_engine_merges_in_the_background_and_is_the_only_writer() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("idx");
    let engine = resident(&dir, MergePolicy::default()).unwrap();
    assert_eq!(engine.writer_mode(), WriterMode::Resident);
    // Forty one-document commits: forty segments without merges.
    for k in 0..40 {
        engine.add_text(&lib(), &format!("doc-{k}"), "", &text(k, 300), AddMode::All).unwrap();
    }
    let merges = engine.wait_for_merges();
    assert!(!merges.busy);
    assert_eq!(merges.last_error, None);
    assert!(merges.stats.merges > 0, "{merges:?}");
    let after = segments(&engine);
    assert!(after <= 12, "{after} segments after 40 commits");
    assert_eq!(engine.view().unwrap().docs().unwrap().len(), 40);
    tessera_engine::verify(&dir).unwrap();
    let report = engine.check_text("suspect", "", &text(7, 300)).unwrap();
    assert_eq!(report.sources.len(), 1, "the merged index still finds the source");

    // A second writer, resident or per commit, in this process or another: refused while
    // the engine lives, with a sentence that says what to do.
    let err = resident(&dir, MergePolicy::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Locked);
    let msg = err.to_string();
    assert!(msg.contains("tessera serve") && msg.contains("POST /api/documents") && msg.contains("LOCK"), "{msg}");
    let one_shot = Engine::open(&dir, EngineOptions::default()).unwrap();
    let err = one_shot.add_text(&lib(), "late", "", &text(99, 300), AddMode::All).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Locked, "{err}");
    // Readers are not writers.
    assert_eq!(one_shot.view().unwrap().docs().unwrap().len(), 40);

    drop(engine);
    one_shot.add_text(&lib(), "late", "", &text(99, 300), AddMode::All).unwrap();
    assert_eq!(one_shot.view().unwrap().docs().unwrap().len(), 41);
}

#[test]
fn a_failed_batch_leaves_the_resident_writer_usable() {
    let tmp = tempfile::tempdir().unwrap();
    let engine = resident(&tmp.path().join("idx"), MergePolicy::default()).unwrap();
    engine.add_text(&lib(), "a", "", &text(1, 200), AddMode::All).unwrap();
    {
        let mut session = engine.add_session(&lib(), AddMode::All).unwrap();
        let doc = engine.prepare("dropped".into(), tessera_engine::Extracted::from_text(text(2, 200), None));
        session.add(&doc).unwrap();
        // Dropped without a commit: the batch is gone, the writer stays.
    }
    engine.add_text(&lib(), "b", "", &text(3, 200), AddMode::All).unwrap();
    let view = engine.view().unwrap();
    let origins: Vec<String> = view.docs().unwrap().into_iter().map(|d| view.meta(d).unwrap().origin).collect();
    assert_eq!(origins, ["a", "b"]);
}

#[test]
#[ignore = "the child of `killed_during_background_merges_loses_nothing`, which runs it"]
fn background_child() {
    let dir = child_dir(CHILD.env, "killed_during_background_merges_loses_nothing");
    let engine = resident(&dir, eager()).unwrap();
    let mut n = engine.view().unwrap().docs().unwrap().len() as u64;
    loop {
        let batch: Vec<(String, String, String)> =
            (n..n + BATCH).map(|k| (format!("doc-{k}"), String::new(), text(k, 120 + (k % 50) as usize))).collect();
        engine.add_texts(&lib(), batch, AddMode::All, &|_| {}).unwrap();
        n += BATCH;
        println!("committed {n}");
    }
}

/// Every document `doc-0 .. doc-(n-1)` exactly once, for `n` a whole number of batches,
/// and every byte of the index sound. Returns `n`.
fn check_index(dir: &Path) -> u64 {
    tessera_engine::verify(dir).unwrap();
    let engine = Engine::open(dir, EngineOptions::default()).unwrap();
    let view = engine.view().unwrap();
    let origins: Vec<String> = view.docs().unwrap().into_iter().map(|d| view.meta(d).unwrap().origin).collect();
    let n = origins.len() as u64;
    assert_eq!(n % BATCH, 0, "a batch is visible only in part: {n} documents");
    let distinct: BTreeSet<&String> = origins.iter().collect();
    assert_eq!(distinct.len(), origins.len(), "a document is listed twice");
    for k in 0..n {
        assert!(distinct.contains(&format!("doc-{k}")), "doc-{k} lost");
    }
    n
}

#[test]
fn killed_during_background_merges_loses_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("idx");
    let mut last_reported = 0;
    let mut left_files = 0;
    for round in 0..10u64 {
        // A moment in the middle of adds and the merges they set off.
        let x = (round + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let pause = Duration::from_micros((x >> 40) % 30_000);
        last_reported = CHILD.run_and_kill(&dir, 2 + round % 4, pause);
        let segs = std::fs::read_dir(dir.join("segments")).unwrap().count();
        let n = check_index(&dir);
        assert!(n >= last_reported, "commit lost: {n} < {last_reported}");
        let live = segments(&Engine::open(&dir, EngineOptions::default()).unwrap());
        if segs as u64 > live {
            left_files += 1;
        }
    }
    // Kills mid-merge leave `merge.tmp`, a renamed but unpublished segment or replaced
    // sources behind; the next writer removes them.
    eprintln!("{left_files} of 10 kills left files no manifest names; {last_reported} documents");
    let engine = resident(&dir, eager()).unwrap();
    engine.wait_for_merges();
    drop(engine);
    let live = segments(&Engine::open(&dir, EngineOptions::default()).unwrap());
    let files = std::fs::read_dir(dir.join("segments")).unwrap().count() as u64;
    assert_eq!(files, live, "a writer's open removes what killed merges left");
    check_index(&dir);
}
