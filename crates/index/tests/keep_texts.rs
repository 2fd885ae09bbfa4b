//! Turning texts on for an existing collection, and views without given documents.

#![allow(clippy::unwrap_used)] // unwrap is fine in tests

mod common;

use common::{collection, doc_meta, doc_snapshot, doc_text};
use tessera_index::{CollectionKind, DocId, Index, NewDocument, WriterOptions};

#[test]
fn a_collection_without_texts_keeps_them_from_the_switch_on() {
    let tmp = tempfile::tempdir().unwrap();
    let index = Index::create(tmp.path(), serde_json::json!({})).unwrap();
    let mut w = index.writer(WriterOptions::default()).unwrap();
    w.ensure_collection(collection("web", CollectionKind::Source, false)).unwrap();
    let add = |w: &mut tessera_index::IndexWriter, n: u64| {
        let (s, t) = (doc_snapshot(n, 20), doc_text(n));
        w.add("web", NewDocument { meta: doc_meta(n), snapshot: &s, text: Some(&t) }).unwrap()
    };
    let before = add(&mut w, 0);
    w.commit().unwrap();
    // Buffered before the switch, in the same writer: it keeps no text either.
    let buffered = add(&mut w, 1);
    w.ensure_collection(collection("web", CollectionKind::Source, true)).unwrap();
    let after = add(&mut w, 2);
    w.commit().unwrap();

    let reader = index.reader().unwrap();
    assert!(reader.collection("web").unwrap().config().keep_texts);
    assert_eq!(reader.text(before).unwrap(), None);
    assert_eq!(reader.text(buffered).unwrap(), None);
    assert_eq!(reader.text(after).unwrap(), Some(doc_text(2)));

    // Turning them off again is refused; a merge keeps what each document has.
    let refused = w.ensure_collection(collection("web", CollectionKind::Source, false)).unwrap_err();
    assert!(matches!(refused, tessera_index::Error::CollectionMismatch { .. }), "{refused}");
    w.optimize(1).unwrap();
    drop(w);
    let reader = index.reader().unwrap();
    assert_eq!(reader.collection("web").unwrap().info().segments, 1);
    assert_eq!(reader.text(before).unwrap(), None);
    assert_eq!(reader.text(after).unwrap(), Some(doc_text(2)));
    index.verify().unwrap();
}

#[test]
fn a_view_without_documents_never_reports_them() {
    let tmp = tempfile::tempdir().unwrap();
    let index = Index::create(tmp.path(), serde_json::json!({})).unwrap();
    let mut w = index.writer(WriterOptions::default()).unwrap();
    w.ensure_collection(collection("subs", CollectionKind::Source, true)).unwrap();
    let s = doc_snapshot(7, 20);
    let mut meta = doc_meta(7);
    meta.text_hash = Some(42);
    meta.check_id = Some("abc".into());
    let a = w.add("subs", NewDocument { meta: meta.clone(), snapshot: &s, text: None }).unwrap();
    let b = w.add("subs", NewDocument { meta, snapshot: &s, text: None }).unwrap();
    w.commit().unwrap();
    let reader = index.reader().unwrap();
    assert_eq!(reader.meta(a).unwrap().check_id.as_deref(), Some("abc"));
    assert_eq!(reader.meta(a).unwrap().text_hash, Some(42));
    let found = |r: &tessera_index::IndexReader| {
        let mut docs = std::collections::BTreeSet::new();
        r.collection("subs")
            .unwrap()
            .lookup_sorted(&s.hashes[..1], |_, d| {
                docs.insert(d);
            })
            .unwrap();
        docs.into_iter().collect::<Vec<DocId>>()
    };
    assert_eq!(found(&reader), [a, b]);
    let without = reader.without(&[a]);
    assert_eq!(found(&without), [b]);
    assert_eq!(without.collection("subs").unwrap().live_docs(), [b]);
    // The view it was made from is unchanged.
    assert_eq!(reader.collection("subs").unwrap().live_docs(), [a, b]);
}
