//! Helpers shared by the integration tests.
#![allow(dead_code)]

use proptest::prelude::*;
use tessera_index::{
    CollectionConfig, CollectionKind, DocId, DocMeta, Index, IndexReader, IndexWriter, SentenceEdge, Snapshot,
    WriterOptions,
};

/// splitmix64: a cheap, well-mixed deterministic "random" u64 from a counter.
pub use tessera_test_support::splitmix as mix;

/// A snapshot with `hashes` given and plausible token spans (one token per hash plus
/// four, as a shingle size of 5 gives).
pub fn snapshot_from(hashes: Vec<u64>) -> Snapshot {
    let tokens = hashes.len() as u64 + 4;
    let token_bytes: Vec<(u64, u64)> = (0..tokens).map(|t| (t * 7, t * 7 + 5)).collect();
    let token_chars: Vec<(u64, u64)> = (0..tokens).map(|t| (t * 6, t * 6 + 5)).collect();
    let terms = (0..tokens).map(|t| (mix(hashes.first().copied().unwrap_or(0) ^ t) >> 32) as u32).collect();
    let sentence_starts: Vec<u64> = (0..tokens).step_by(10).collect();
    // Wide edges (chars fewer than bytes) on odd sentences.
    let sentence_edges = (0..sentence_starts.len() as u32)
        .map(|i| SentenceEdge { lead_bytes: 4 + i % 3, lead_chars: 4 + i % 3 - i % 2, tail_bytes: 1, tail_chars: 1 })
        .collect();
    Snapshot { hashes, token_bytes, token_chars, terms, sentence_starts, sentence_edges }
}

/// How far each of `sentences` sentences reaches beyond its tokens in [`derived_snapshot`]
/// (ASCII: chars as bytes).
pub fn ascii_edges(sentences: usize) -> Vec<SentenceEdge> {
    (0..sentences as u32)
        .map(|i| SentenceEdge { lead_bytes: i % 5, lead_chars: i % 5, tail_bytes: 1, tail_chars: 1 })
        .collect()
}

/// The deterministic snapshot of document number `n`: `len` hashes, a few of them
/// shared with other documents (drawn from a pool of 1000).
pub fn doc_snapshot(n: u64, len: usize) -> Snapshot {
    let hashes = (0..len as u64)
        .map(|i| {
            if i % 10 == 0 {
                mix(0xC0FFEE ^ (mix(n * 1000 + i) % 1000))
            } else {
                mix(n.wrapping_mul(1_000_003).wrapping_add(i))
            }
        })
        .collect();
    snapshot_from(hashes)
}

/// The deterministic metadata of document number `n`.
pub fn doc_meta(n: u64) -> DocMeta {
    DocMeta {
        title: format!("doc {n}"),
        origin: format!("file:///corpus/{n}.txt"),
        added_at: 1_700_000_000 + n,
        byte_len: 100 + n,
        char_len: 90 + n,
        text_hash: None,
        check_id: None,
    }
}

/// The deterministic text of document number `n`.
pub fn doc_text(n: u64) -> String {
    format!("Text of document {n}. ").repeat(1 + (n % 5) as usize)
}

/// A collection config.
pub fn collection(name: &str, kind: CollectionKind, keep_texts: bool) -> CollectionConfig {
    CollectionConfig { name: name.into(), kind, keep_texts }
}

/// The collections of the property tests' documents ([`Doc::collection`] indexes it):
/// a source collection without texts, a citation collection and a source collection
/// keeping them.
pub const COLLECTIONS: [&str; 3] = ["alpha", "beta", "gamma"];

/// Makes sure `w`'s index has the three [`COLLECTIONS`].
pub fn ensure_collections(w: &mut IndexWriter) {
    w.ensure_collection(collection("alpha", CollectionKind::Source, false)).unwrap();
    w.ensure_collection(collection("beta", CollectionKind::Citation, true)).unwrap();
    w.ensure_collection(collection("gamma", CollectionKind::Source, true)).unwrap();
}

/// One document as the property tests describe it.
#[derive(Debug, Clone)]
pub struct Doc {
    /// Its collection, an index into [`COLLECTIONS`].
    pub collection: usize,
    pub meta: DocMeta,
    pub snapshot: Snapshot,
    pub text: Option<String>,
}

/// The (query position, document) pairs a look-up of the sorted `q` in collection `name`
/// finds, verified as search does (the document's snapshot holds the full hash): the
/// false positives of truncated keys differ with the segment layout, these do not.
/// Panics when a document is reported twice for one hash.
pub fn verified_lookup(r: &IndexReader, name: &str, q: &[u64]) -> std::collections::BTreeSet<(usize, DocId)> {
    let mut found = std::collections::BTreeSet::new();
    r.collection(name)
        .unwrap()
        .lookup_sorted(q, |i, d| {
            if r.snapshot(d).unwrap().hashes.contains(&q[i]) {
                assert!(found.insert((i, d)), "{d:?} reported twice for hash {i}");
            }
        })
        .unwrap();
    found
}

/// Documents with a title, origin and text of the regular expressions given (`".{0,8}"`)
/// and up to `max_hashes` hashes, a good part of them shared between documents.
pub fn doc_strategy(
    title: &'static str,
    origin: &'static str,
    max_hashes: usize,
    text: &'static str,
) -> impl Strategy<Value = Doc> {
    let hash = prop_oneof![any::<u64>(), (0u64..40).prop_map(mix)];
    (0usize..3, title, origin, any::<u64>(), proptest::collection::vec(hash, 0..max_hashes), proptest::option::of(text))
        .prop_map(|(collection, title, origin, added_at, hashes, text)| Doc {
            collection,
            meta: DocMeta {
                title,
                origin,
                added_at,
                byte_len: added_at / 3,
                char_len: added_at / 5,
                text_hash: added_at
                    .is_multiple_of(2)
                    .then_some(u128::from(added_at).wrapping_mul(0x9e37_79b9_7f4a_7c15)),
                check_id: (added_at % 3 == 1).then(|| format!("{added_at:032x}")),
            },
            snapshot: snapshot_from(hashes),
            text,
        })
}

/// The shingle settings of [`derived_snapshot`].
pub const DERIVED_SHINGLES: tessera_index::ShingleConfig = tessera_index::ShingleConfig { size: 5, seed: 0 };

/// A snapshot whose hashes are the shingles of its full term hashes (as the engine makes
/// them), for [`tessera_index::IndexWriter::add_with_terms`]: `len` tokens drawn from a
/// vocabulary of 300 terms, returned with those full terms.
pub fn derived_snapshot(n: u64, len: usize) -> (Snapshot, Vec<u64>) {
    let full: Vec<u64> = (0..len as u64).map(|t| mix(mix(n * 7919 + t) % 300)).collect();
    let hashes = tessera_fingerprint::Shingler::new(DERIVED_SHINGLES).expect("valid settings").hashes(&full);
    let mut s = snapshot_from(Vec::new());
    s.token_bytes = (0..len as u64).map(|t| (t * 7, t * 7 + 5)).collect();
    s.token_chars = s.token_bytes.clone();
    s.terms = full.iter().map(|&t| t as u32).collect();
    s.sentence_starts = (0..len as u64).step_by(10).collect();
    s.sentence_edges = ascii_edges(s.sentence_starts.len());
    s.hashes = hashes;
    (s, full)
}

/// A new index in a temporary folder, with a writer and an empty source collection "a".
pub fn index_with_collection_a() -> (tempfile::TempDir, Index, IndexWriter) {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path(), serde_json::Value::Null).unwrap();
    let mut w = index.writer(WriterOptions::default()).unwrap();
    w.ensure_collection(collection("a", CollectionKind::Source, false)).unwrap();
    (dir, index, w)
}
