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
