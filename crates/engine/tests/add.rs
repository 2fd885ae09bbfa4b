//! The add path reports what it added: every document with its id, in order, in both
//! modes (the Python package returns them).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use tessera_engine::{AddMode, CollectionConfig, CollectionKind, DocId, Engine, EngineOptions, FingerprintSettings};

fn text(seed: u64, n: usize) -> String {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (0..3 + (x % 6) as usize).map(|k| (b'a' + ((x >> (k * 5)) % 26) as u8) as char).collect::<String>()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn add_texts_lists_the_documents_added_with_their_ids() {
    let dir = tempfile::tempdir().unwrap();
    // Batches of two: under IfNew each batch is committed on its own.
    let options = EngineOptions { batch_size: 2, ..EngineOptions::default() };
    let engine = Engine::open_or_create(&dir.path().join("idx"), &FingerprintSettings::default(), options).unwrap();
    let lib = CollectionConfig { name: "lib".into(), kind: CollectionKind::Source, keep_texts: false };
    let docs = |names: &[(&str, u64)]| -> Vec<(String, String, String)> {
        names.iter().map(|&(n, seed)| (n.to_owned(), n.to_owned(), text(seed, 200))).collect()
    };
    let first = engine.add_texts(&lib, docs(&[("a", 1), ("b", 2), ("c", 3)]), AddMode::All, &|_| {}).unwrap();
    let origins: Vec<&str> = first.documents.iter().map(|(o, _)| o.as_str()).collect();
    assert_eq!(origins, ["a", "b", "c"]);
    assert_eq!(first.added, 3);
    let ids: Vec<DocId> = first.documents.iter().map(|d| d.1).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");

    let mode = AddMode::if_new(None).unwrap();
    let second = engine.add_texts(&lib, docs(&[("d", 4), ("b-again", 2), ("e", 5), ("f", 6)]), mode, &|_| {}).unwrap();
    let origins: Vec<&str> = second.documents.iter().map(|(o, _)| o.as_str()).collect();
    assert_eq!(origins, ["d", "e", "f"]);
    assert_eq!(second.added, 3);
    assert_eq!(second.seen.len(), 1);
    assert_eq!(second.seen[0].into, ids[1]);
    // The JSON summary does not list them (one entry per document of a large add).
    let json = serde_json::to_value(&second).unwrap();
    assert!(json.get("documents").is_none(), "{json}");
}

#[test]
fn repeats_are_left_out_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let engine =
        Engine::open_or_create(&dir.path().join("idx"), &FingerprintSettings::default(), EngineOptions::default())
            .unwrap();
    let lib = CollectionConfig { name: "lib".into(), kind: CollectionKind::Source, keep_texts: false };
    let docs = |items: &[(&str, u64)]| -> Vec<(String, String, String)> {
        items.iter().map(|&(n, seed)| (n.to_owned(), String::new(), text(seed, 300))).collect()
    };
    // The default mode: within one add, the same origin and text twice is one document.
    assert_eq!(AddMode::default(), AddMode::SkipRepeats);
    let first = engine.add_texts(&lib, docs(&[("a", 1), ("b", 2), ("a", 1)]), AddMode::default(), &|_| {}).unwrap();
    assert_eq!(first.added, 2);
    let a = first.documents[0].1;
    assert_eq!((first.seen.len(), first.seen[0].into, first.seen[0].same_origin), (1, a, true));

    // Indexed again: nothing added. A changed text under an old origin, and an old text
    // under a new origin, are new documents.
    let again = engine.add_texts(&lib, docs(&[("a", 1), ("b", 2)]), AddMode::default(), &|_| {}).unwrap();
    assert_eq!(again.added, 0);
    let seen: Vec<(&str, DocId, f64, bool)> =
        again.seen.iter().map(|s| (s.origin.as_str(), s.into, s.containment, s.same_origin)).collect();
    assert_eq!(seen, [("a", a, 1.0, true), ("b", first.documents[1].1, 1.0, true)]);
    let changed = engine.add_texts(&lib, docs(&[("a", 7), ("copy-of-a", 1)]), AddMode::default(), &|_| {}).unwrap();
    assert_eq!((changed.added, changed.seen.len()), (2, 0));

    // Forced: every document is added.
    let forced = engine.add_texts(&lib, docs(&[("a", 1)]), AddMode::All, &|_| {}).unwrap();
    assert_eq!((forced.added, forced.seen.len()), (1, 0));
    assert_eq!(engine.view().unwrap().docs().len(), 5);
}

#[test]
fn a_document_without_a_title_is_named_by_its_first_line() {
    let dir = tempfile::tempdir().unwrap();
    let engine =
        Engine::open_or_create(&dir.path().join("idx"), &FingerprintSettings::default(), EngineOptions::default())
            .unwrap();
    let lib = CollectionConfig { name: "lib".into(), kind: CollectionKind::Source, keep_texts: false };
    let body = format!("\n  Chapter One:   The River\n{}", text(3, 200));
    let added = engine
        .add_texts(&lib, vec![("books/000150.txt".to_owned(), String::new(), body)], AddMode::default(), &|_| {})
        .unwrap();
    assert_eq!(engine.view().unwrap().meta(added.documents[0].1).unwrap().title, "Chapter One: The River");
}
