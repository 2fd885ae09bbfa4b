//! Damaged or missing index files give clear errors naming the file, never panics.

#![allow(clippy::unwrap_used)] // unwrap is fine in tests

mod common;

use std::path::{Path, PathBuf};

use common::{collection, doc_meta, doc_snapshot, doc_text};
use tessera_index::{
    CollectionKind, DocId, DocMeta, Error, Index, NewDocument, Snapshot, WriterOptions, check_segment_bytes,
};

/// A small committed index with one segment per collection; returns the segment paths.
fn small_index(dir: &Path) -> Vec<PathBuf> {
    let index = Index::create(dir, serde_json::json!({"s": 5})).unwrap();
    let mut w = index.writer(WriterOptions::default()).unwrap();
    w.ensure_collection(collection("a", CollectionKind::Source, true)).unwrap();
    w.ensure_collection(collection("b", CollectionKind::Citation, false)).unwrap();
    for k in 0..20 {
        let s = doc_snapshot(k, 40);
        let text = doc_text(k);
        let name = if k % 2 == 0 { "a" } else { "b" };
        w.add(name, NewDocument { meta: doc_meta(k), snapshot: &s, text: Some(&text) }).unwrap();
    }
    w.commit().unwrap();
    let mut segs: Vec<PathBuf> = std::fs::read_dir(dir.join("segments")).unwrap().map(|e| e.unwrap().path()).collect();
    segs.sort();
    segs
}

/// Opens a reader and reads every document.
fn read_all(dir: &Path) -> Result<(), Error> {
    let reader = Index::open(dir)?.reader()?;
    for d in reader.docs().collect::<Vec<_>>() {
        reader.meta(d)?;
        reader.snapshot(d)?;
        reader.text(d)?;
    }
    for c in reader.collections() {
        reader.collection(&c.config.name).unwrap().lookup_sorted(&[1, 2, u64::MAX], |_, _| {})?;
    }
    Ok(())
}

fn assert_corrupt(result: Result<(), Error>, file: &Path) {
    match result {
        Err(Error::Corrupt { file: f, reason }) => {
            assert_eq!(f, file, "{reason}");
            let msg = Error::Corrupt { file: f, reason }.to_string();
            assert!(msg.contains(&*file.to_string_lossy()), "{msg}");
        }
        other => panic!("expected Corrupt naming {}, got {other:?}", file.display()),
    }
}

#[test]
fn missing_directory_is_not_an_index() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    match Index::open(&missing) {
        Err(e @ Error::NotAnIndex { .. }) => assert!(e.to_string().contains("nope"), "{e}"),
        other => panic!("{other:?}"),
    }
    // An existing directory without a manifest is not an index either.
    assert!(matches!(Index::open(dir.path()), Err(Error::NotAnIndex { .. })));
}

#[test]
fn garbage_manifest_is_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    small_index(dir.path());
    let manifest = dir.path().join("MANIFEST");
    let good = std::fs::read(&manifest).unwrap();

    std::fs::write(&manifest, b"this is not a manifest at all").unwrap();
    assert_corrupt(Index::open(dir.path()).map(drop), &manifest);

    std::fs::write(&manifest, &good[..good.len() - 10]).unwrap();
    assert_corrupt(Index::open(dir.path()).map(drop), &manifest);

    let mut flipped = good.clone();
    flipped[40] ^= 0x20;
    std::fs::write(&manifest, &flipped).unwrap();
    assert_corrupt(Index::open(dir.path()).map(drop), &manifest);

    let mut newer = good.clone();
    newer[8] = 99;
    std::fs::write(&manifest, &newer).unwrap();
    match Index::open(dir.path()) {
        Err(Error::VersionUnsupported { file, found: 99, supported: 2 }) => assert_eq!(file, manifest),
        other => panic!("{other:?}"),
    }

    std::fs::write(&manifest, &good).unwrap();
    read_all(dir.path()).unwrap();
}

#[test]
fn truncated_segment_is_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let segs = small_index(dir.path());
    let bytes = std::fs::read(&segs[0]).unwrap();
    for cut in [0, 1, 7, 100, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(&segs[0], &bytes[..cut]).unwrap();
        assert_corrupt(read_all(dir.path()), &segs[0]);
    }
}

/// Everything the intact index answers: every document's records and, per collection,
/// the hits of a lookup of all its documents' hashes (which decodes every non-empty
/// bucket of its segments).
struct Answers {
    docs: Vec<(DocId, DocMeta, Snapshot, Option<String>)>,
    lookups: Vec<Lookup>,
}

/// A collection, the hashes looked up in it, and the sorted `(index, doc)` hits.
type Lookup = (String, Vec<u64>, Vec<(usize, DocId)>);

fn answers(dir: &Path) -> Answers {
    let reader = Index::open(dir).unwrap().reader().unwrap();
    let docs: Vec<_> = reader
        .docs()
        .map(|d| (d, reader.meta(d).unwrap(), reader.snapshot(d).unwrap(), reader.text(d).unwrap()))
        .collect();
    let mut lookups = Vec::new();
    for c in reader.collections() {
        let name = c.config.name;
        let mut hashes: Vec<u64> = docs
            .iter()
            .filter(|d| reader.collection_of(d.0) == Some(name.as_str()))
            .flat_map(|d| d.2.hashes.iter().copied())
            .collect();
        hashes.sort_unstable();
        hashes.dedup();
        let mut hits = Vec::new();
        reader.collection(&name).unwrap().lookup_sorted(&hashes, |i, d| hits.push((i, d))).unwrap();
        hits.sort_unstable();
        lookups.push((name, hashes, hits));
    }
    Answers { docs, lookups }
}

/// Reads everything `good` holds from the (damaged) index at `dir`: every read must
/// either fail with `Corrupt` naming `file` or return exactly the intact answer. Returns
/// the number of failed reads.
fn failed_reads(dir: &Path, good: &Answers, file: &Path) -> usize {
    let reader = Index::open(dir).unwrap().reader().unwrap();
    let mut failed = 0;
    let mut check = |what: &str, ok: bool, err: Option<Error>| match err {
        None => assert!(ok, "{what} returned wrong data"),
        Some(e) => {
            assert_corrupt(Err(e), file);
            failed += 1;
        }
    };
    for (d, meta, snapshot, text) in &good.docs {
        let m = reader.meta(*d);
        check("meta", m.as_ref().ok() == Some(meta), m.err());
        let s = reader.snapshot(*d);
        check("snapshot", s.as_ref().ok() == Some(snapshot), s.err());
        let t = reader.text(*d);
        check("text", t.as_ref().ok() == Some(text), t.err());
    }
    for (name, hashes, hits) in &good.lookups {
        let mut got = Vec::new();
        let r = reader.collection(name).unwrap().lookup_sorted(hashes, |i, d| got.push((i, d)));
        got.sort_unstable();
        check("lookup", &got == hits, r.err());
    }
    failed
}

#[test]
fn flipped_segment_bytes_are_caught() {
    let dir = tempfile::tempdir().unwrap();
    let segs = small_index(dir.path());
    let good = answers(dir.path());
    for path in &segs {
        let bytes = std::fs::read(path).unwrap();
        let (mut at_open, mut at_read) = (0, 0);
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x04;
            std::fs::write(path, &b).unwrap();
            // Footer, postings directory and offset tables: caught when opening.
            match Index::open(dir.path()).and_then(|i| i.reader()) {
                Err(Error::Corrupt { file, .. }) | Err(Error::VersionUnsupported { file, .. }) => {
                    assert_eq!(&file, path);
                    at_open += 1;
                    continue;
                }
                Err(e) => panic!("flip at {i}: {e:?}"),
                Ok(_) => {}
            }
            // Buckets and records: caught by a full verify, and by every read that
            // touches them; no read returns wrong data.
            assert_corrupt(Index::open(dir.path()).unwrap().verify().map(drop), path);
            assert!(failed_reads(dir.path(), &good, path) > 0, "flip at {i} not caught by any read");
            at_read += 1;
        }
        assert!(at_open > 0 && at_read > 0, "{at_open} {at_read}");
        std::fs::write(path, &bytes).unwrap();
    }
    assert_eq!(failed_reads(dir.path(), &good, Path::new("")), 0);
    let report = Index::open(dir.path()).unwrap().verify().unwrap();
    assert_eq!((report.segments, report.docs, report.records), (2, 20, 50));
    assert_eq!(report.files, segs);
}

#[test]
fn missing_segment_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let segs = small_index(dir.path());
    std::fs::remove_file(&segs[0]).unwrap();
    match read_all(dir.path()) {
        Err(e @ Error::Io { .. }) => assert!(e.to_string().contains(&*segs[0].to_string_lossy())),
        other => panic!("{other:?}"),
    }
}

#[test]
fn check_segment_bytes_never_panics() {
    let dir = tempfile::tempdir().unwrap();
    let segs = small_index(dir.path());
    for seg in &segs {
        let bytes = std::fs::read(seg).unwrap();
        check_segment_bytes(&bytes).unwrap();
        for cut in 0..bytes.len() {
            assert!(check_segment_bytes(&bytes[..cut]).is_err());
        }
        for i in 0..bytes.len() {
            for bit in [0x01, 0x80] {
                let mut b = bytes.clone();
                b[i] ^= bit;
                assert!(check_segment_bytes(&b).is_err(), "flip {bit:#x} at {i}");
            }
        }
    }
    // Random junk, including a valid-looking tail.
    for n in 0..64u64 {
        let mut junk: Vec<u8> = (0..n * 7).map(|i| common::mix(n * 1000 + i) as u8).collect();
        junk.extend_from_slice(&1u32.to_le_bytes());
        junk.extend_from_slice(b"TSRSEGM1");
        assert!(check_segment_bytes(&junk).is_err());
    }
}
