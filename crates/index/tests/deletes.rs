//! Deletes and the places a document was seen at: committed with the manifest, invisible
//! to lookups, and absent from manifests that never used them.

#![allow(clippy::unwrap_used)] // unwrap is fine in tests

mod common;

use common::{collection, doc_meta, doc_snapshot};
use tessera_index::{CollectionKind, DocId, Error, Index, NewDocument};

#[test]
fn deleted_documents_disappear_from_lookups_after_commit() {
    let (dir, index, mut w) = common::index_with_collection_a();
    let s = doc_snapshot(3, 40);
    let first = w.add("a", NewDocument { meta: doc_meta(1), snapshot: &s, text: None }).unwrap();
    let second = w.add("a", NewDocument { meta: doc_meta(2), snapshot: &s, text: None }).unwrap();
    // Not committed yet: unknown to delete.
    assert!(matches!(w.delete(first), Err(Error::UnknownDoc(_))));
    w.commit().unwrap();
    let manifest_plain = String::from_utf8_lossy(&std::fs::read(dir.path().join("MANIFEST")).unwrap()).into_owned();
    assert!(manifest_plain.contains("next_doc_id"));
    assert!(!manifest_plain.contains("deleted") && !manifest_plain.contains("seen_at"));

    let mut hashes = s.hashes.clone();
    hashes.sort_unstable();
    hashes.dedup();
    let found = |r: &tessera_index::IndexReader| {
        let mut docs = Vec::new();
        r.collection("a").unwrap().lookup_sorted(&hashes, |_, d| docs.push(d)).unwrap();
        docs.sort_unstable();
        docs.dedup();
        docs
    };
    assert_eq!(found(&index.reader().unwrap()), [first, second]);

    assert!(w.delete(first).unwrap());
    assert!(!w.delete(first).unwrap());
    assert!(matches!(w.delete(DocId(999)), Err(Error::UnknownDoc(_))));
    // Before the commit readers still see it.
    assert_eq!(found(&index.reader().unwrap()), [first, second]);
    w.commit().unwrap();
    let r = index.reader().unwrap();
    assert_eq!(found(&r), [second]);
    assert!(r.is_deleted(first) && !r.is_deleted(second));
    assert_eq!(r.live_docs().collect::<Vec<_>>(), [second]);
    assert_eq!(r.docs().count(), 2);
    drop(w);
    // A new writer and a reopened index keep the delete.
    let reopened = Index::open(dir.path()).unwrap();
    assert_eq!(reopened.reader().unwrap().deleted(), [first.0]);
}

#[test]
fn places_seen_are_listed_in_order_without_repeats() {
    let (_dir, index, mut w) = common::index_with_collection_a();
    let s = doc_snapshot(5, 30);
    let id = w.add("a", NewDocument { meta: doc_meta(5), snapshot: &s, text: None }).unwrap();
    w.commit().unwrap();
    let origin = index.reader().unwrap().meta(id).unwrap().origin;
    w.attach_origin(id, "https://mirror.example/a").unwrap();
    w.attach_origin(id, "/copies/a.txt").unwrap();
    w.attach_origin(id, "https://mirror.example/a").unwrap();
    w.commit().unwrap();
    assert_eq!(
        index.reader().unwrap().seen_at(id).unwrap(),
        [origin, "https://mirror.example/a".to_string(), "/copies/a.txt".to_string()]
    );
    assert!(matches!(w.attach_origin(DocId(77), "x"), Err(Error::UnknownDoc(_))));
}

#[test]
fn collection_stats_count_live_documents_and_deleted_ones() {
    let (_dir, index, mut w) = common::index_with_collection_a();
    w.ensure_collection(collection("b", CollectionKind::Source, false)).unwrap();
    let s = doc_snapshot(3, 40);
    let mut ids = Vec::new();
    for (i, c) in ["a", "a", "b", "a", "b"].into_iter().enumerate() {
        ids.push(w.add(c, NewDocument { meta: doc_meta(i as u64), snapshot: &s, text: None }).unwrap());
    }
    w.commit().unwrap();
    // A second segment in "a", so deletes span segments.
    ids.push(w.add("a", NewDocument { meta: doc_meta(9), snapshot: &s, text: None }).unwrap());
    w.commit().unwrap();
    let counts = |r: &tessera_index::IndexReader| {
        r.collections().iter().map(|c| (c.config.name.clone(), c.docs, c.deleted)).collect::<Vec<_>>()
    };
    assert_eq!(counts(&index.reader().unwrap()), [("a".into(), 4, 0), ("b".into(), 2, 0)]);
    for i in [0, 2, 5] {
        assert!(w.delete(ids[i]).unwrap());
    }
    w.commit().unwrap();
    let r = index.reader().unwrap();
    assert_eq!(counts(&r), [("a".into(), 2, 2), ("b".into(), 1, 1)]);
    let a = r.collection("a").unwrap().info();
    assert_eq!((a.docs, a.deleted), (2, 2));
}

/// `lookup_sorted_at_most` answers what `lookup_sorted` does without the hashes more than
/// `max` live documents hold, counted over every segment: a hash spread thin over
/// segments, one held many times in one segment, one whose holders are mostly deleted.
#[test]
fn a_bounded_look_up_leaves_out_exactly_the_frequent_hashes() {
    let (_dir, index, mut w) = common::index_with_collection_a();
    // Hashes (spread over the key space as real ones are; postings keep truncated keys):
    // `spread` in every document, `first` in the first segment's six, `deleted` in two
    // documents a segment, `own(n)` in document n alone.
    let (spread, first, deleted) = (common::mix(1000), common::mix(2000), common::mix(3000));
    let own = |n: u64| common::mix(4000 + n);
    let mut ids = Vec::new();
    let mut n = 0u64;
    for segment in 0..3u64 {
        for k in 0..6u64 {
            n += 1;
            let mut hashes = vec![spread, own(n)];
            if segment == 0 {
                hashes.push(first);
            }
            if k < 2 {
                hashes.push(deleted);
            }
            let s = common::snapshot_from(hashes);
            ids.push(w.add("a", NewDocument { meta: doc_meta(n), snapshot: &s, text: None }).unwrap());
        }
        w.commit().unwrap();
    }
    // Of `deleted`'s six holders, four are deleted.
    for &k in &[0, 1, 6, 7] {
        assert!(w.delete(ids[k]).unwrap());
    }
    w.commit().unwrap();
    let r = index.reader().unwrap();
    assert!(r.collection("a").unwrap().info().segments >= 2);
    let mut q: Vec<u64> = vec![spread, first, deleted, common::mix(999)];
    q.extend((1..=n).map(own));
    // Enough hashes for the segments to be looked up in parallel.
    q.extend((0..300).map(|k| common::mix(10_000 + k)));
    q.sort_unstable();
    let c = r.collection("a").unwrap();
    let mut all = Vec::new();
    c.lookup_sorted(&q, |i, d| all.push((i, d))).unwrap();
    assert!(all.len() > 10, "{all:?}");
    for max in 0..20 {
        let held = |i: usize| all.iter().filter(|h| h.0 == i).count();
        let expected: Vec<(usize, DocId)> = all.iter().copied().filter(|&(i, _)| held(i) <= max).collect();
        let mut got = Vec::new();
        c.lookup_sorted_at_most(&q, max, |i, d| got.push((i, d))).unwrap();
        assert_eq!(got, expected, "max {max}");
    }
    // At 3: the spread hash (14 live holders) and the first segment's (4 live) are left
    // out; the mostly deleted one (2 live) stays.
    let mut kept = Vec::new();
    c.lookup_sorted_at_most(&q, 3, |i, _| kept.push(q[i])).unwrap();
    assert!(!kept.contains(&spread) && !kept.contains(&first) && kept.contains(&deleted), "{kept:?}");
    assert!(kept.contains(&own(3)) && !kept.contains(&own(1)), "{kept:?}");
}
