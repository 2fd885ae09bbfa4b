//! The checked-in indexes `testdata/index-v<N>/` must keep opening with the same
//! content, and today's writer must produce the newest one byte for byte: an accidental
//! format change fails here. After an intended change, bump the format version, keep the
//! old fixtures (they are read, not rewritten) and make the new one with `TESSERA_BLESS=1
//! cargo test -p tessera-index --test format_fixture`.
//!
//! `index-v1`: segment format 1 (snapshots without terms and sentences), made by the
//! writer of 2026-11-21. `index-v2`: segment format 2. `index-v3`: segment format 3
//! (term dictionary, compact records; the even documents are added with their full terms,
//! so their hashes are derived, the odd ones store theirs). `index-v4`: segment format 4
//! (sentence edges in the records: ASCII ones on the even documents, wider ones on the
//! odd). `index-v5`: segment format 5 (the postings hold every document's term keys
//! too, for cross-language stage 1). `index-v6`: segment format 6 (metadata records end
//! with a text hash and a check id: documents 0, 3 and 6 carry a text hash, 1, 3 and 5 a
//! check id, see `expected_meta`).

#![allow(clippy::unwrap_used)] // unwrap is fine in tests

mod common;

use std::path::{Path, PathBuf};

use common::{DERIVED_SHINGLES, collection, derived_snapshot, doc_meta, doc_snapshot, doc_text};
use tessera_index::{CollectionKind, DocId, FullTerms, Index, NewDocument, WriterOptions};

fn fixture_dir(version: u32) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("testdata/index-v{version}"))
}

/// What the fixture of segment format `version` holds for document `n`: version 1
/// snapshots have no terms or sentences.
fn expected_snapshot(n: u64, version: u32) -> tessera_index::Snapshot {
    let mut s = if version >= 3 && n.is_multiple_of(2) {
        derived_snapshot(n, 12 + n as usize * 3).0
    } else {
        doc_snapshot(n, 12 + n as usize * 3)
    };
    if version < 4 {
        s.sentence_edges.clear();
    }
    if version < 2 {
        s.terms.clear();
        s.sentence_starts.clear();
    }
    s
}

/// What the fixture of segment format `version` holds as document `n`'s metadata: from
/// format 6 some documents carry a text hash and a check id.
fn expected_meta(n: u64, version: u32) -> tessera_index::DocMeta {
    let mut m = doc_meta(n);
    if version >= 6 {
        m.text_hash = n.is_multiple_of(3).then(|| u128::from(n + 1) * 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
        m.check_id = matches!(n, 1 | 3 | 5).then(|| format!("{:032x}", n * 0x1111));
    }
    m
}

/// (collection, document number) of the fixture's documents, in add order. The
/// collections interleave so that one segment holds two id ranges.
const DOCS: [(&str, u64); 9] =
    [("web", 0), ("web", 1), ("laws", 2), ("web", 3), ("web", 4), ("laws", 5), ("web", 6), ("laws", 7), ("web", 8)];

fn build(dir: &Path) {
    let index = Index::create(dir, serde_json::json!({"shingle_size": 5, "seed": 0})).unwrap();
    let mut w = index.writer(WriterOptions { memory_budget: 6 << 10 }).unwrap();
    w.ensure_collection(collection("web", CollectionKind::Source, false)).unwrap();
    w.ensure_collection(collection("laws", CollectionKind::Citation, true)).unwrap();
    for (i, &(name, n)) in DOCS.iter().enumerate() {
        let text = doc_text(n);
        if n.is_multiple_of(2) {
            let (s, full) = derived_snapshot(n, 12 + n as usize * 3);
            let doc = NewDocument { meta: expected_meta(n, 6), snapshot: &s, text: Some(&text) };
            w.add_with_terms(name, doc, FullTerms { terms: &full, shingles: DERIVED_SHINGLES }).unwrap();
        } else {
            let s = doc_snapshot(n, 12 + n as usize * 3);
            w.add(name, NewDocument { meta: expected_meta(n, 6), snapshot: &s, text: Some(&text) }).unwrap();
        }
        if i == 5 {
            w.commit().unwrap();
        }
    }
    w.commit().unwrap();
    drop(w);
    std::fs::remove_file(dir.join("LOCK")).unwrap();
}

fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = vec![(PathBuf::from("MANIFEST"), std::fs::read(dir.join("MANIFEST")).unwrap())];
    let mut segs: Vec<_> = std::fs::read_dir(dir.join("segments")).unwrap().map(|e| e.unwrap().path()).collect();
    segs.sort();
    for s in segs {
        let rel = s.strip_prefix(dir).unwrap().to_path_buf();
        out.push((rel, std::fs::read(&s).unwrap()));
    }
    out
}

#[test]
fn index_v1_fixture_still_opens() {
    check_content(&fixture_dir(1), 1);
}

#[test]
fn index_v2_fixture_still_opens() {
    check_content(&fixture_dir(2), 2);
}

#[test]
fn index_v3_fixture_still_opens() {
    check_content(&fixture_dir(3), 3);
}

#[test]
fn index_v4_fixture_still_opens() {
    check_content(&fixture_dir(4), 4);
}

#[test]
fn index_v5_fixture_still_opens() {
    check_content(&fixture_dir(5), 5);
}

#[test]
fn index_v6_fixture() {
    let fixture = fixture_dir(6);
    if std::env::var_os("TESSERA_BLESS").is_some_and(|v| v == "1") {
        let _ = std::fs::remove_dir_all(&fixture);
        build(&fixture);
    }
    check_content(&fixture, 6);

    // Today's writer produces the same bytes.
    let tmp = tempfile::tempdir().unwrap();
    build(tmp.path());
    let fresh = files(tmp.path());
    let committed = files(&fixture);
    assert_eq!(fresh.iter().map(|f| &f.0).collect::<Vec<_>>(), committed.iter().map(|f| &f.0).collect::<Vec<_>>());
    for ((name, a), (_, b)) in fresh.iter().zip(&committed) {
        assert!(a == b, "{} differs from the fixture: the format changed", name.display());
    }
}

fn check_content(fixture: &Path, version: u32) {
    assert!(fixture.join("MANIFEST").exists(), "missing fixture {}; create it with TESSERA_BLESS=1", fixture.display());

    // It opens and holds what was written.
    let index = Index::open(fixture).unwrap();
    assert_eq!(index.fingerprint_settings(), &serde_json::json!({"shingle_size": 5, "seed": 0}));
    let reader = index.reader().unwrap();
    let infos = reader.collections();
    let names: Vec<&str> = infos.iter().map(|c| c.config.name.as_str()).collect();
    assert_eq!(names, ["laws", "web"]);
    assert_eq!(infos[0].config.kind, CollectionKind::Citation);
    assert!(infos[0].config.keep_texts && !infos[1].config.keep_texts);
    assert_eq!((infos[0].docs, infos[1].docs), (3, 6));
    assert!(infos[1].segments >= 2, "{infos:?}");
    assert_eq!(reader.docs().collect::<Vec<_>>(), (0..9).map(DocId).collect::<Vec<_>>());
    for &(name, n) in &DOCS {
        let id = DocId(n);
        let s = expected_snapshot(n, version);
        assert_eq!(reader.collection_of(id), Some(name));
        assert_eq!(reader.meta(id).unwrap(), expected_meta(n, version));
        assert_eq!(reader.snapshot(id).unwrap(), s);
        assert_eq!(reader.text(id).unwrap(), (name == "laws").then(|| doc_text(n)));
        let mut q = s.hashes.clone();
        q.sort_unstable();
        q.dedup();
        let mut hits = vec![false; q.len()];
        reader.collection(name).unwrap().lookup_sorted(&q, |i, d| hits[i] |= d == id).unwrap();
        assert!(hits.iter().all(|&h| h));
        // Term postings (format 5): every term of the document finds it; older formats
        // have none.
        let mut terms = s.terms.clone();
        terms.sort_unstable();
        terms.dedup();
        let mut found = vec![false; terms.len()];
        let coll = reader.collection(name).unwrap();
        coll.lookup_terms_at_most(&terms, usize::MAX, |i, d| found[i] |= d == id).unwrap();
        assert!(found.iter().all(|&f| f == (version >= 5)), "version {version}: {found:?}");
        let without = if version >= 5 { 0 } else { coll.doc_count() };
        assert_eq!(coll.docs_without_term_postings(), without);
    }
    let report = index.verify().unwrap();
    // Term postings make format 5's buffers fill sooner: one more flush.
    let segments = if version >= 5 { 5 } else { 4 };
    assert_eq!((report.segments, report.docs, report.records), (segments, 9, 21));
    for (rel, bytes) in files(fixture) {
        if rel.starts_with("segments") {
            tessera_index::check_segment_bytes(&bytes).unwrap();
            assert_eq!(u32::from_le_bytes(bytes[bytes.len() - 12..bytes.len() - 8].try_into().unwrap()), version);
        }
    }
}

/// An index made by an older build grows with segments of today's format: both are
/// read, each with what its format holds.
#[test]
fn version_1_index_takes_version_6_segments() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("idx");
    std::fs::create_dir_all(dir.join("segments")).unwrap();
    for (rel, bytes) in files(&fixture_dir(1)) {
        std::fs::write(dir.join(rel), bytes).unwrap();
    }
    let index = Index::open(&dir).unwrap();
    let mut w = index.writer(WriterOptions::default()).unwrap();
    let added = doc_snapshot(100, 20);
    let id = w.add("web", NewDocument { meta: doc_meta(100), snapshot: &added, text: None }).unwrap();
    w.commit().unwrap();
    drop(w);
    let reader = index.reader().unwrap();
    assert_eq!(reader.snapshot(id).unwrap(), added);
    assert!(!added.terms.is_empty() && !added.sentence_edges.is_empty());
    for &(_, n) in &DOCS {
        assert_eq!(reader.snapshot(DocId(n)).unwrap(), expected_snapshot(n, 1));
    }
    let report = index.verify().unwrap();
    assert_eq!((report.segments, report.docs), (5, 10));
}
