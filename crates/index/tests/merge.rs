//! Segment merging through the public API: a merged index answers every look-up like the
//! unmerged one, deletes are purged, readers keep their view, and merges run beside a
//! writer.

#![allow(clippy::unwrap_used)] // unwrap is fine in tests

mod common;

use std::collections::BTreeSet;

use common::{
    COLLECTIONS, Doc, doc_meta, doc_snapshot, doc_strategy, doc_text, ensure_collections, mix, verified_lookup,
};
use proptest::prelude::*;
use tessera_index::{DocId, Index, IndexReader, IndexWriter, MergePolicy, NewDocument, WriterOptions};

/// What to do after adding a document.
#[derive(Debug, Clone, Copy)]
enum Step {
    Nothing,
    Commit,
    /// Delete the document added `back` documents ago (if committed), then commit.
    DeleteAndCommit(usize),
    /// Attach a place to the document added `back` documents ago (if committed).
    Attach(usize),
}

fn open_writer(index: &Index, budget: usize) -> IndexWriter {
    let mut w = index.writer(WriterOptions { memory_budget: budget }).unwrap();
    ensure_collections(&mut w);
    w
}

/// Builds an index from `docs` and `steps`; `merge` runs after every commit.
fn build(
    dir: &std::path::Path,
    docs: &[Doc],
    steps: &[Step],
    budget: usize,
    mut merge: impl FnMut(&mut IndexWriter),
) -> Index {
    let index = Index::create(dir, serde_json::json!({"test": true})).unwrap();
    let mut w = open_writer(&index, budget);
    let mut ids = Vec::new();
    let mut committed = 0;
    // Deleted documents may be purged by merges, after which they are unknown: the
    // steps touch live documents only.
    let mut deleted = BTreeSet::new();
    for (i, d) in docs.iter().enumerate() {
        let new = NewDocument { meta: d.meta.clone(), snapshot: &d.snapshot, text: d.text.as_deref() };
        ids.push(w.add(COLLECTIONS[d.collection], new).unwrap());
        let step = steps.get(i).copied().unwrap_or(Step::Nothing);
        let target = |back: usize| {
            ids.len().checked_sub(back + 1).filter(|&t| t < committed).map(|t| ids[t]).filter(|t| !deleted.contains(t))
        };
        match step {
            Step::Nothing => continue,
            Step::Commit => {}
            Step::DeleteAndCommit(back) => {
                if let Some(t) = target(back) {
                    assert!(w.delete(t).unwrap());
                    deleted.insert(t);
                }
            }
            Step::Attach(back) => {
                if let Some(t) = target(back) {
                    w.attach_origin(t, &format!("https://mirror.example/{i}")).unwrap();
                }
            }
        }
        w.commit().unwrap();
        committed = ids.len();
        merge(&mut w);
    }
    w.commit().unwrap();
    merge(&mut w);
    index
}

/// Asserts that `merged` answers like `plain`: the same live documents with the same
/// records and places, and the same verified look-up answers for every hash.
fn assert_same(plain: &IndexReader, merged: &IndexReader, docs: &[Doc]) {
    let live: Vec<DocId> = plain.live_docs().collect();
    assert_eq!(merged.live_docs().collect::<Vec<_>>(), live);
    for &id in &live {
        assert_eq!(merged.meta(id).unwrap(), plain.meta(id).unwrap());
        assert_eq!(merged.snapshot(id).unwrap(), plain.snapshot(id).unwrap());
        assert_eq!(merged.text(id).unwrap(), plain.text(id).unwrap());
        assert_eq!(merged.seen_at(id).unwrap(), plain.seen_at(id).unwrap());
        assert_eq!(merged.collection_of(id), plain.collection_of(id));
    }
    // A deleted document is either still marked deleted or gone (purged).
    for id in plain.docs().filter(|d| plain.is_deleted(*d)) {
        assert!(merged.is_deleted(id) || merged.meta(id).is_err(), "{id:?} came back");
    }
    let mut q: Vec<u64> =
        docs.iter().flat_map(|d| d.snapshot.hashes.iter().copied()).chain((0..100).map(|i| mix(77 + i))).collect();
    q.sort_unstable();
    q.dedup();
    for name in COLLECTIONS {
        assert_eq!(verified_lookup(merged, name, &q), verified_lookup(plain, name, &q), "collection {name}");
        let (a, b) = (plain.collection(name).unwrap().info(), merged.collection(name).unwrap().info());
        assert_eq!(a.docs, b.docs);
    }
    let report = merged.verify().unwrap();
    assert_eq!(report.docs, merged.docs().count() as u64);
}

fn step_strategy() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => Just(Step::Nothing),
        3 => Just(Step::Commit),
        2 => (0usize..10).prop_map(Step::DeleteAndCommit),
        1 => (0usize..10).prop_map(Step::Attach),
    ]
}

fn tiny_policy() -> MergePolicy {
    MergePolicy { segments_per_tier: 2, floor_bytes: 1, max_merged_bytes: u64::MAX, deletes_ratio: 0.1 }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn merged_index_answers_like_the_unmerged_one(
        docs in proptest::collection::vec(doc_strategy(".{0,8}", ".{0,12}", 40, ".{0,40}"), 0..40),
        steps in proptest::collection::vec(step_strategy(), 40),
        budget in prop_oneof![Just(1usize), Just(4096usize), Just(1usize << 30)],
        max_segments in 1usize..4,
        per_tier in 2usize..4,
    ) {
        let plain_dir = tempfile::tempdir().unwrap();
        let plain = build(plain_dir.path(), &docs, &steps, budget, |_| {});
        let plain = plain.reader().unwrap();

        let tiered_dir = tempfile::tempdir().unwrap();
        let policy = MergePolicy { segments_per_tier: per_tier, ..tiny_policy() };
        let tiered = build(tiered_dir.path(), &docs, &steps, budget, |w| { w.merge(&policy).unwrap(); });
        assert_same(&plain, &tiered.reader().unwrap(), &docs);

        let optimized_dir = tempfile::tempdir().unwrap();
        let optimized = build(optimized_dir.path(), &docs, &steps, budget, |_| {});
        let mut w = optimized.writer(WriterOptions::default()).unwrap();
        w.optimize(max_segments).unwrap();
        let r = optimized.reader().unwrap();
        assert_same(&plain, &r, &docs);
        for c in r.collections() {
            assert!(c.segments <= max_segments as u64, "{c:?}");
            assert_eq!(c.deleted, 0);
        }
        assert!(r.deleted().is_empty());
        // A second optimize has nothing left to do.
        assert_eq!(w.optimize(max_segments).unwrap().merges, 0);
        // Only live segment files are left.
        let files = std::fs::read_dir(optimized_dir.path().join("segments")).unwrap().count() as u64;
        assert_eq!(files, r.collections().iter().map(|c| c.segments).sum::<u64>());
    }
}

fn corpus_doc(k: u64) -> Doc {
    Doc {
        collection: (k % 7 % 3) as usize,
        meta: doc_meta(k),
        snapshot: doc_snapshot(k, 50 + (k % 90) as usize),
        text: (!k.is_multiple_of(4)).then(|| doc_text(k)),
    }
}

#[test]
fn many_small_commits_stay_few_segments() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path(), serde_json::Value::Null).unwrap();
    let policy = MergePolicy { floor_bytes: 64 << 10, ..MergePolicy::default() };
    let mut most = 0;
    let mut merges = 0;
    for run in 0..200u64 {
        // One small `tessera index` run: a writer, two documents, a commit, a merge.
        let mut w = open_writer(&index, 1 << 20);
        for k in [2 * run, 2 * run + 1] {
            let d = corpus_doc(k);
            w.add("alpha", NewDocument { meta: d.meta, snapshot: &d.snapshot, text: None }).unwrap();
        }
        w.commit().unwrap();
        let before = w.merge(&policy).unwrap();
        merges += before.merges;
        let segments = index.reader().unwrap().collection("alpha").unwrap().info().segments;
        most = most.max(segments);
    }
    let r = index.reader().unwrap();
    let info = r.collection("alpha").unwrap().info();
    assert_eq!(info.docs, 400);
    assert!(most <= 8, "{most} segments at most");
    assert!(info.segments < 8, "{info:?}");
    assert!(merges > 20, "{merges}");
    r.verify().unwrap();
    for k in (0..400).step_by(37) {
        assert_eq!(r.snapshot(DocId(k)).unwrap(), corpus_doc(k).snapshot);
    }
    // Cheap when there is nothing to do: no merge, nothing written.
    let mut w = index.writer(WriterOptions::default()).unwrap();
    assert_eq!(w.merge(&policy).unwrap().merges, 0);
}

#[test]
fn deletes_are_purged_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path(), serde_json::Value::Null).unwrap();
    let mut w = open_writer(&index, 1 << 20);
    for k in 0..60 {
        let d = corpus_doc(k);
        w.add("gamma", NewDocument { meta: d.meta, snapshot: &d.snapshot, text: d.text.as_deref() }).unwrap();
        if k % 20 == 19 {
            w.commit().unwrap();
        }
    }
    for k in (0..60).step_by(3) {
        w.delete(DocId(k)).unwrap();
    }
    w.attach_origin(DocId(3), "gone").unwrap();
    w.attach_origin(DocId(4), "kept").unwrap();
    w.commit().unwrap();
    let info = index.reader().unwrap().collection("gamma").unwrap().info();
    assert_eq!((info.docs, info.deleted, info.segments), (40, 20, 3));
    // A third of each segment is deleted: above a 0.3 ratio, one segment at a time.
    let policy = MergePolicy { deletes_ratio: 0.3, ..MergePolicy::default() };
    let stats = w.merge(&policy).unwrap();
    assert_eq!((stats.merges, stats.purged, stats.docs), (3, 20, 40));
    let r = index.reader().unwrap();
    let info = r.collection("gamma").unwrap().info();
    assert_eq!((info.docs, info.deleted, info.segments), (40, 0, 3));
    assert!(r.deleted().is_empty());
    assert!(r.meta(DocId(3)).is_err());
    assert!(matches!(w.delete(DocId(3)), Err(tessera_index::Error::UnknownDoc(_))));
    assert_eq!(r.seen_at(DocId(4)).unwrap(), [doc_meta(4).origin, "kept".to_string()]);
    assert_eq!(r.text(DocId(5)).unwrap(), corpus_doc(5).text);
    // Doc ids keep their gaps: the merged segments hold runs of two.
    assert_eq!(r.live_docs().take(4).collect::<Vec<_>>(), [DocId(1), DocId(2), DocId(4), DocId(5)]);
    // Deleting every document of a segment removes the segment.
    for k in 40..60 {
        if k % 3 != 0 {
            w.delete(DocId(k)).unwrap();
        }
    }
    w.commit().unwrap();
    assert_eq!(w.merge(&policy).unwrap().segments_written, 0);
    let info = index.reader().unwrap().collection("gamma").unwrap().info();
    assert_eq!((info.docs, info.deleted, info.segments), (26, 0, 2));
}

#[test]
fn readers_keep_their_view_across_merges() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path(), serde_json::Value::Null).unwrap();
    let mut w = open_writer(&index, 1 << 20);
    for k in 0..30 {
        let d = corpus_doc(k);
        w.add("beta", NewDocument { meta: d.meta, snapshot: &d.snapshot, text: d.text.as_deref() }).unwrap();
        w.commit().unwrap();
    }
    w.delete(DocId(7)).unwrap();
    w.commit().unwrap();
    let before = index.reader().unwrap();
    assert_eq!(before.collection("beta").unwrap().info().segments, 30);
    let stats = w.optimize(1).unwrap();
    assert_eq!((stats.merges, stats.segments_merged, stats.purged), (1, 30, 1));
    // The old files are gone, the old reader still reads them through its maps.
    assert_eq!(std::fs::read_dir(dir.path().join("segments")).unwrap().count(), 1);
    for k in 0..30 {
        assert_eq!(before.snapshot(DocId(k)).unwrap(), corpus_doc(k).snapshot);
    }
    before.verify().unwrap();
    let after = index.reader().unwrap();
    assert_eq!(after.collection("beta").unwrap().info().segments, 1);
    assert_eq!(after.live_docs().count(), 29);
    // A fresh `Index` (another process, in effect) opens the merged commit.
    let again = Index::open(dir.path()).unwrap().reader().unwrap();
    assert_eq!(again.snapshot(DocId(29)).unwrap(), corpus_doc(29).snapshot);
}

#[test]
fn a_background_merge_runs_beside_the_writer() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path(), serde_json::Value::Null).unwrap();
    let mut w = open_writer(&index, 1 << 20);
    for k in 0..12 {
        let d = corpus_doc(k);
        w.add("alpha", NewDocument { meta: d.meta, snapshot: &d.snapshot, text: None }).unwrap();
        w.commit().unwrap();
    }
    let policy = MergePolicy { segments_per_tier: 4, ..MergePolicy::default() };
    let task = index.plan_merge(&policy).unwrap().expect("12 tiny segments make a full tier");
    assert_eq!(task.collection(), "alpha");
    assert_eq!(task.sources().len(), 4);
    // One merge at a time.
    assert!(index.plan_merge(&policy).unwrap().is_none());
    assert_eq!(w.merge(&policy).unwrap().merges, 0);
    let worker = std::thread::spawn(move || task.run().unwrap());
    // The writer goes on meanwhile, and a new writer's clean-up spares the merge's file.
    let d = corpus_doc(12);
    w.add("alpha", NewDocument { meta: d.meta, snapshot: &d.snapshot, text: None }).unwrap();
    w.delete(DocId(0)).unwrap();
    let done = worker.join().unwrap();
    let stats = w.finish_merge(done).unwrap();
    assert_eq!((stats.segments_merged, stats.segments_written), (4, 1));
    // The pending document and delete were not published by the merge...
    let r = index.reader().unwrap();
    assert_eq!((r.doc_count(), r.deleted().len()), (12, 0));
    assert_eq!(r.collection("alpha").unwrap().info().segments, 9);
    // ...and the next commit publishes them.
    w.commit().unwrap();
    let r = index.reader().unwrap();
    assert_eq!((r.doc_count(), r.deleted(), r.collection("alpha").unwrap().info().segments), (13, &[0][..], 10));
    r.verify().unwrap();
    drop(w);
    // An abandoned merge removes its file; a dead one's file is removed by the next
    // writer.
    let task = index.plan_merge(&policy).unwrap().unwrap();
    let done = task.run().unwrap();
    let tmp = dir.path().join("segments").join("merge.tmp");
    assert!(tmp.exists());
    drop(done);
    assert!(!tmp.exists());
    std::fs::write(&tmp, b"left by a killed merge").unwrap();
    drop(index.writer(WriterOptions::default()).unwrap());
    assert!(!tmp.exists());
    index.verify().unwrap();
}

#[test]
fn merges_keep_derived_hashes_compact() {
    use common::{DERIVED_SHINGLES, derived_snapshot};
    use tessera_index::FullTerms;
    let build = |dir: &std::path::Path, commit_every: u64| {
        let index = Index::create(dir, serde_json::Value::Null).unwrap();
        let mut w = open_writer(&index, 1 << 30);
        for k in 0..60u64 {
            let (s, full) = derived_snapshot(k, 40 + (k % 30) as usize);
            let doc = NewDocument { meta: doc_meta(k), snapshot: &s, text: None };
            w.add_with_terms("alpha", doc, FullTerms { terms: &full, shingles: DERIVED_SHINGLES }).unwrap();
            if k % commit_every == commit_every - 1 {
                w.commit().unwrap();
            }
        }
        w.commit().unwrap();
        (index, w)
    };
    let one_dir = tempfile::tempdir().unwrap();
    let (one, _w1) = build(one_dir.path(), 1000);
    let many_dir = tempfile::tempdir().unwrap();
    let (many, mut w) = build(many_dir.path(), 5);
    w.optimize(1).unwrap();
    let (a, b) = (one.reader().unwrap(), many.reader().unwrap());
    for k in 0..60 {
        assert_eq!(b.snapshot(DocId(k)).unwrap(), derived_snapshot(k, 40 + (k % 30) as usize).0);
    }
    let (ia, ib) = (a.collection("alpha").unwrap().info(), b.collection("alpha").unwrap().info());
    assert_eq!(ib.segments, 1);
    // The merge carried the full terms: hashes are still derived, so the merged
    // snapshots take what a single build's take (not 8 more bytes per shingle).
    assert_eq!(ib.snapshot_bytes, ia.snapshot_bytes);
    assert_eq!(ib.total_bytes, ia.total_bytes);
}
