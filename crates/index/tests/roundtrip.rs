//! Write -> read round trips through the public API.

#![allow(clippy::unwrap_used)] // unwrap is fine in tests

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{
    COLLECTIONS, Doc, collection, doc_meta, doc_snapshot, doc_strategy, doc_text, ensure_collections, mix,
    snapshot_from, verified_lookup,
};
use proptest::prelude::*;
use tessera_index::{CollectionKind, DocId, Index, IndexReader, NewDocument, WriterOptions, term_key};

/// Builds an index of `docs` with `budget` bytes of writer memory, committing after the
/// documents whose positions are in `commits`.
fn build(dir: &std::path::Path, docs: &[Doc], budget: usize, commits: &BTreeSet<usize>) -> Vec<DocId> {
    let index = Index::create(dir, serde_json::json!({"test": true})).unwrap();
    let mut w = index.writer(WriterOptions { memory_budget: budget }).unwrap();
    ensure_collections(&mut w);
    let mut ids = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        let id = w
            .add(
                COLLECTIONS[d.collection],
                NewDocument { meta: d.meta.clone(), snapshot: &d.snapshot, text: d.text.as_deref() },
            )
            .unwrap();
        ids.push(id);
        if commits.contains(&i) {
            w.commit().unwrap();
        }
    }
    w.commit().unwrap();
    ids
}

/// Checks a reader against the documents it was built from: exact records, and lookups
/// that never miss.
fn check(reader: &IndexReader, docs: &[Doc], ids: &[DocId]) -> usize {
    assert_eq!(reader.docs().collect::<Vec<_>>(), ids);
    let mut expected: BTreeMap<(usize, u64), BTreeSet<DocId>> = BTreeMap::new();
    for (d, &id) in docs.iter().zip(ids) {
        assert_eq!(reader.meta(id).unwrap(), d.meta);
        assert_eq!(reader.snapshot(id).unwrap(), d.snapshot);
        let keeps = d.collection != 0;
        let text = if keeps { d.text.clone() } else { None };
        assert_eq!(reader.text(id).unwrap(), text);
        assert_eq!(reader.collection_of(id), Some(COLLECTIONS[d.collection]));
        for &h in &d.snapshot.hashes {
            expected.entry((d.collection, h)).or_default().insert(id);
        }
    }
    let mut false_positives = 0;
    for (c, name) in COLLECTIONS.iter().enumerate() {
        let cr = reader.collection(name).unwrap();
        assert_eq!(cr.doc_count(), docs.iter().filter(|d| d.collection == c).count() as u64);
        let mut queries: Vec<u64> = docs
            .iter()
            .flat_map(|d| d.snapshot.hashes.iter().copied())
            .chain((0..200).map(|i| mix(0xABCDEF + i)))
            .collect();
        queries.sort_unstable();
        queries.dedup();
        let mut got: BTreeMap<u64, BTreeSet<DocId>> = BTreeMap::new();
        cr.lookup_sorted(&queries, |i, doc| {
            assert!(got.entry(queries[i]).or_default().insert(doc), "doc reported twice");
        })
        .unwrap();
        for &q in &queries {
            let want = expected.get(&(c, q)).cloned().unwrap_or_default();
            let have = got.remove(&q).unwrap_or_default();
            assert!(have.is_superset(&want), "missed docs for {q:x}: want {want:?}, have {have:?}");
            // A false positive is a truncated-key collision: keys keep at least the top
            // 24 bits of a hash (postings.rs), so the document holds a key within 2^40:
            // one of its shingle hashes or of its term keys (segment format 5).
            for doc in have.difference(&want) {
                let d = &docs[ids.iter().position(|i| i == doc).unwrap()];
                let mut keys = d.snapshot.hashes.iter().copied().chain(d.snapshot.terms.iter().map(|&t| term_key(t)));
                assert!(
                    keys.any(|h| h.abs_diff(q) < 1 << 40),
                    "doc {doc:?} reported for {q:x} holds no key that could collide with it"
                );
            }
            false_positives += have.len() - want.len();
        }
    }
    false_positives
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn round_trip_matches_brute_force(
        docs in proptest::collection::vec(doc_strategy(".{0,12}", ".{0,20}", 60, ".{0,80}"), 0..40),
        budget in prop_oneof![Just(1usize), Just(4096usize), Just(1usize << 30)],
        commits in proptest::collection::btree_set(0usize..40, 0..4),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let ids = build(dir.path(), &docs, budget, &commits);
        let index = Index::open(dir.path()).unwrap();
        assert_eq!(index.fingerprint_settings(), &serde_json::json!({"test": true}));
        // False positives are allowed (each must be a key collision, checked inside);
        // how many depends on chance, so no bound here.
        check(&index.reader().unwrap(), &docs, &ids);
    }
}

fn corpus(n: u64) -> Vec<Doc> {
    (0..n)
        .map(|k| Doc {
            collection: (k % 7 % 3) as usize,
            meta: doc_meta(k),
            snapshot: doc_snapshot(k, 50 + (k % 200) as usize),
            text: (k % 4 != 0).then(|| doc_text(k)),
        })
        .collect()
}

#[test]
fn many_segments_equal_a_single_build() {
    let docs = corpus(400);
    let one = tempfile::tempdir().unwrap();
    let many = tempfile::tempdir().unwrap();
    let ids_one = build(one.path(), &docs, 1 << 30, &BTreeSet::new());
    let ids_many = build(many.path(), &docs, 32 << 10, &[100, 250].into());
    assert_eq!(ids_one, ids_many);
    let r_one = Index::open(one.path()).unwrap().reader().unwrap();
    let r_many = Index::open(many.path()).unwrap().reader().unwrap();
    let info_one = r_one.collections();
    let info_many = r_many.collections();
    assert!(info_one.iter().all(|c| c.segments == 1));
    assert!(info_many.iter().all(|c| c.segments > 3), "{info_many:?}");
    for (a, b) in info_one.iter().zip(&info_many) {
        assert_eq!((a.config.clone(), a.docs), (b.config.clone(), b.docs));
        assert_eq!(a.snapshot_bytes > 0, b.snapshot_bytes > 0);
    }
    // Each collection is queried with every hash of the corpus (~50k, two thirds absent
    // from it); false positives are rare, about 2^-12 per absent hash and segment at most.
    let queries = 3 * 50_000;
    let fp_one = check(&r_one, &docs, &ids_one);
    let fp_many = check(&r_many, &docs, &ids_many);
    assert!(fp_one < queries / 4096, "{fp_one}");
    let segments: u64 = info_many.iter().map(|c| c.segments).sum();
    assert!(fp_many < queries * segments as usize / 3 / 4096, "{fp_many}");
    // Same verified answers from both layouts: search checks candidates against the full
    // hashes of the snapshot, which removes every false positive.
    let q: BTreeSet<u64> = docs.iter().flat_map(|d| d.snapshot.hashes.clone()).collect();
    let q: Vec<u64> = q.into_iter().collect();
    for name in COLLECTIONS {
        assert_eq!(verified_lookup(&r_one, name, &q), verified_lookup(&r_many, name, &q));
    }
}

#[test]
fn interleaved_collections_keep_their_ids() {
    let docs = corpus(60);
    let dir = tempfile::tempdir().unwrap();
    let ids = build(dir.path(), &docs, 1 << 30, &BTreeSet::new());
    // Ids are global and sequential even though the collections interleave.
    assert_eq!(ids, (0..60).map(DocId).collect::<Vec<_>>());
    let reader = Index::open(dir.path()).unwrap().reader().unwrap();
    check(&reader, &docs, &ids);
    assert!(reader.meta(DocId(60)).is_err());
    assert_eq!(reader.collection_of(DocId(1000)), None);
}

#[test]
fn ensure_collection_rules() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path(), serde_json::Value::Null).unwrap();
    let mut w = index.writer(WriterOptions::default()).unwrap();
    w.ensure_collection(collection("a", CollectionKind::Source, false)).unwrap();
    w.ensure_collection(collection("a", CollectionKind::Source, false)).unwrap();
    assert!(matches!(
        w.ensure_collection(collection("a", CollectionKind::Citation, false)),
        Err(tessera_index::Error::CollectionMismatch { .. })
    ));
    assert!(matches!(
        w.ensure_collection(collection("a/b", CollectionKind::Source, false)),
        Err(tessera_index::Error::InvalidName(_))
    ));
    let s = snapshot_from(vec![1]);
    let doc = NewDocument { meta: doc_meta(0), snapshot: &s, text: None };
    assert!(matches!(w.add("nope", doc.clone()), Err(tessera_index::Error::UnknownCollection(_))));
    let mut bad = s.clone();
    bad.token_chars.pop();
    assert!(matches!(w.add("a", NewDocument { snapshot: &bad, ..doc }), Err(tessera_index::Error::InvalidDocument(_))));
    w.commit().unwrap();
    // Empty collections are committed too.
    let r = index.reader().unwrap();
    assert_eq!(r.collections().len(), 1);
    assert_eq!(r.collections()[0].docs, 0);
    // Reopened, the collection keeps its kind; it may start keeping texts, never stop.
    drop(w);
    let mut w = index.writer(WriterOptions::default()).unwrap();
    assert!(w.ensure_collection(collection("a", CollectionKind::Citation, false)).is_err());
    assert!(w.ensure_collection(collection("a", CollectionKind::Citation, true)).is_err());
    w.ensure_collection(collection("a", CollectionKind::Source, true)).unwrap();
    assert!(w.ensure_collection(collection("a", CollectionKind::Source, false)).is_err());
}

#[test]
fn open_or_create_and_create_twice() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idx");
    let a = Index::open_or_create(&path, serde_json::json!({"k": 1})).unwrap();
    assert_eq!(a.fingerprint_settings(), &serde_json::json!({"k": 1}));
    let b = Index::open_or_create(&path, serde_json::json!({"k": 2})).unwrap();
    assert_eq!(b.fingerprint_settings(), &serde_json::json!({"k": 1}));
    match Index::create(&path, serde_json::Value::Null) {
        Err(tessera_index::Error::AlreadyExists { path: p }) => assert!(p.ends_with("MANIFEST")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn readers_keep_their_commit() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path(), serde_json::Value::Null).unwrap();
    let mut w = index.writer(WriterOptions::default()).unwrap();
    w.ensure_collection(collection("a", CollectionKind::Source, false)).unwrap();
    let s = doc_snapshot(1, 20);
    let add = |w: &mut tessera_index::IndexWriter| {
        w.add("a", NewDocument { meta: doc_meta(1), snapshot: &s, text: None }).unwrap()
    };
    let first = add(&mut w);
    w.commit().unwrap();
    let before = index.reader().unwrap();
    let second = add(&mut w);
    let stats = w.commit().unwrap();
    assert_eq!((stats.docs, stats.segments), (1, 1));
    assert_eq!(before.docs().collect::<Vec<_>>(), [first]);
    let after = index.reader().unwrap();
    assert_eq!(after.docs().collect::<Vec<_>>(), [first, second]);
    let mut hits = Vec::new();
    after.collection("a").unwrap().lookup_sorted(&[s.hashes[3]], |_, d| hits.push(d)).unwrap();
    hits.sort();
    assert_eq!(hits, [first, second]);
    // Nothing to commit: nothing written.
    assert_eq!(w.commit().unwrap(), tessera_index::CommitStats::default());
}

#[test]
fn handles_are_shareable_across_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Index>();
    send_sync::<IndexReader>();
    send_sync::<tessera_index::IndexWriter>();
    send_sync::<tessera_index::CollectionReader<'static>>();
}
