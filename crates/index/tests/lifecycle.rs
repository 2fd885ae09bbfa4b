//! Locking and uncommitted work.

#![allow(clippy::unwrap_used)] // unwrap is fine in tests

mod common;

use common::{collection, doc_meta, doc_snapshot};
use tessera_index::{CollectionKind, Error, Index, NewDocument, WriterOptions};

fn segment_files(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir.join("segments")).unwrap().count()
}

#[test]
fn second_writer_is_locked_out_and_first_keeps_working() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path(), serde_json::Value::Null).unwrap();
    let mut first = index.writer(WriterOptions::default()).unwrap();
    first.ensure_collection(collection("a", CollectionKind::Source, false)).unwrap();

    let other = Index::open(dir.path()).unwrap();
    match other.writer(WriterOptions::default()) {
        Err(Error::Locked { path }) => {
            assert_eq!(path, dir.path().join("LOCK"));
            let msg = Error::Locked { path }.to_string();
            assert!(msg.contains("LOCK"), "{msg}");
        }
        other => panic!("expected Locked, got {other:?}"),
    }

    let s = doc_snapshot(7, 40);
    let id = first.add("a", NewDocument { meta: doc_meta(7), snapshot: &s, text: None }).unwrap();
    first.commit().unwrap();
    assert_eq!(other.reader().unwrap().snapshot(id).unwrap(), s);

    drop(first);
    let mut second = other.writer(WriterOptions::default()).unwrap();
    let id2 = second.add("a", NewDocument { meta: doc_meta(8), snapshot: &s, text: None }).unwrap();
    assert_eq!(id2.0, id.0 + 1);
}

#[test]
fn dropping_a_writer_discards_its_work_and_files() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path(), serde_json::json!({"v": 1})).unwrap();
    let mut w = index.writer(WriterOptions::default()).unwrap();
    w.ensure_collection(collection("a", CollectionKind::Source, true)).unwrap();
    let s = doc_snapshot(1, 50);
    w.add("a", NewDocument { meta: doc_meta(1), snapshot: &s, text: Some("kept") }).unwrap();
    w.commit().unwrap();
    drop(w);
    let manifest_before = std::fs::read(dir.path().join("MANIFEST")).unwrap();
    assert_eq!(segment_files(dir.path()), 1);

    let mut w = index.writer(WriterOptions { memory_budget: 4 << 10 }).unwrap();
    w.ensure_collection(collection("b", CollectionKind::Citation, false)).unwrap();
    for k in 2..200 {
        let s = doc_snapshot(k, 80);
        w.add("a", NewDocument { meta: doc_meta(k), snapshot: &s, text: None }).unwrap();
    }
    assert_eq!(w.uncommitted_docs(), 198);
    assert!(segment_files(dir.path()) > 2, "the tiny budget spills segments");
    drop(w);

    assert_eq!(segment_files(dir.path()), 1);
    assert_eq!(std::fs::read(dir.path().join("MANIFEST")).unwrap(), manifest_before);
    let r = index.reader().unwrap();
    assert_eq!(r.doc_count(), 1);
    assert_eq!(r.collections().len(), 1);
}

#[test]
fn rollback_discards_pending_work_and_keeps_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path(), serde_json::json!({"v": 1})).unwrap();
    let mut w = index.writer(WriterOptions { memory_budget: 4 << 10 }).unwrap();
    w.ensure_collection(collection("a", CollectionKind::Source, false)).unwrap();
    let s = doc_snapshot(1, 50);
    let kept = w.add("a", NewDocument { meta: doc_meta(1), snapshot: &s, text: None }).unwrap();
    w.commit().unwrap();
    let manifest_before = std::fs::read(dir.path().join("MANIFEST")).unwrap();

    w.ensure_collection(collection("b", CollectionKind::Citation, false)).unwrap();
    for k in 2..200 {
        let s = doc_snapshot(k, 80);
        w.add("a", NewDocument { meta: doc_meta(k), snapshot: &s, text: None }).unwrap();
    }
    w.delete(kept).unwrap();
    assert!(segment_files(dir.path()) > 2, "the tiny budget spills segments");
    w.rollback().unwrap();
    assert_eq!(w.uncommitted_docs(), 0);
    assert_eq!(segment_files(dir.path()), 1, "the spilled files are gone");
    // Still the writer: nobody else gets the lock.
    assert!(matches!(index.writer(WriterOptions::default()), Err(Error::Locked { .. })));
    // A commit now changes nothing; the next document gets the next committed id.
    w.commit().unwrap();
    assert_eq!(std::fs::read(dir.path().join("MANIFEST")).unwrap(), manifest_before);
    let s = doc_snapshot(300, 40);
    let next = w.add("a", NewDocument { meta: doc_meta(300), snapshot: &s, text: None }).unwrap();
    assert_eq!(next.0, kept.0 + 1);
    w.commit().unwrap();
    let r = index.reader().unwrap();
    assert_eq!(r.live_docs().collect::<Vec<_>>(), [kept, next]);
    assert_eq!(r.collections().len(), 1, "the collection created before the rollback is not there");
}

#[test]
fn memory_stays_within_budget() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path(), serde_json::Value::Null).unwrap();
    let budget = 256 << 10;
    let mut w = index.writer(WriterOptions { memory_budget: budget }).unwrap();
    w.ensure_collection(collection("a", CollectionKind::Source, false)).unwrap();
    for k in 0..2000 {
        let s = doc_snapshot(k, 300);
        w.add("a", NewDocument { meta: doc_meta(k), snapshot: &s, text: None }).unwrap();
        assert!(w.buffered_bytes() <= budget, "{} > {budget}", w.buffered_bytes());
    }
    let stats = w.commit().unwrap();
    assert_eq!(stats.docs, 2000);
    assert!(stats.segments >= 10, "{stats:?}");
}
