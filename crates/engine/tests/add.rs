//! The add path reports what it added: every document with its id, in order, in both
//! modes (the Python package returns them).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use tessera_engine::{AddMode, CollectionConfig, CollectionKind, DocId, Engine, EngineOptions};

mod support;
use support::new_engine;

fn text(seed: u64, n: usize) -> String {
    support::words(seed, n, 3, 6).join(" ")
}

#[test]
fn add_texts_lists_the_documents_added_with_their_ids() {
    // Batches of two: under IfNew each batch is committed on its own.
    let (_dir, engine) = new_engine(EngineOptions { batch_size: 2, ..EngineOptions::default() });
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
    let (_dir, engine) = new_engine(EngineOptions::default());
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
    assert_eq!(engine.view().unwrap().docs().unwrap().len(), 5);
}

#[test]
fn a_document_without_a_title_is_named_by_its_first_line() {
    let (_dir, engine) = new_engine(EngineOptions::default());
    let lib = CollectionConfig { name: "lib".into(), kind: CollectionKind::Source, keep_texts: false };
    let body = format!("\n  Chapter One:   The River\n{}", text(3, 200));
    let added = engine
        .add_texts(&lib, vec![("books/000150.txt".to_owned(), String::new(), body)], AddMode::default(), &|_| {})
        .unwrap();
    assert_eq!(engine.view().unwrap().meta(added.documents[0].1).unwrap().title, "Chapter One: The River");
}

/// How a test document is made from the ones before it.
#[derive(Debug, Clone)]
enum Make {
    /// New text.
    Fresh(u64),
    /// An earlier document with `words` of its words replaced.
    Edited { of: usize, words: usize, seed: u64 },
    /// A run of an earlier document's words.
    Part { of: usize, start: usize, len: usize },
}

fn make_strategy() -> impl proptest::strategy::Strategy<Value = Make> {
    use proptest::prelude::*;
    prop_oneof![
        any::<u64>().prop_map(Make::Fresh),
        (any::<usize>(), 0usize..12, any::<u64>()).prop_map(|(of, words, seed)| Make::Edited { of, words, seed }),
        (any::<usize>(), 0usize..60, 20usize..120).prop_map(|(of, start, len)| Make::Part { of, start, len }),
    ]
}

fn build(makes: &[Make]) -> Vec<String> {
    let mut texts: Vec<String> = Vec::new();
    for m in makes {
        let t = match (m, texts.len()) {
            (Make::Fresh(seed), _) | (Make::Edited { seed, .. }, 0) => text(*seed, 80 + (*seed % 80) as usize),
            (Make::Part { .. }, 0) => text(7, 100),
            (Make::Edited { of, words, seed }, n) => {
                let mut w: Vec<String> = texts[of % n].split(' ').map(str::to_owned).collect();
                let fresh: Vec<String> = text(*seed, *words).split(' ').map(str::to_owned).collect();
                for (k, f) in fresh.into_iter().enumerate() {
                    let at = (seed.wrapping_add(k as u64 * 7919) % w.len() as u64) as usize;
                    w[at] = f;
                }
                w.join(" ")
            }
            (Make::Part { of, start, len }, n) => {
                let w: Vec<&str> = texts[of % n].split(' ').collect();
                let s = (*start).min(w.len().saturating_sub(5));
                w[s..(s + len).min(w.len())].join(" ")
            }
        };
        texts.push(t);
    }
    texts
}

/// The if-new rule written the obvious way: each document against every one added before
/// it, by exact containment; the highest containment at least `min`, then the lowest id.
fn reference(engine: &Engine, texts: &[String], min: f64) -> Vec<Option<usize>> {
    let sets: Vec<Vec<u64>> = texts
        .iter()
        .map(|t| {
            let mut h =
                engine.prepare(String::new(), tessera_engine::Extracted::from_text(t.clone(), None)).fingerprint.hashes;
            h.sort_unstable();
            h.dedup();
            h
        })
        .collect();
    let mut added: Vec<usize> = Vec::new();
    let mut out = Vec::new();
    for (i, set) in sets.iter().enumerate() {
        let mut best: Option<(f64, usize)> = None;
        if !set.is_empty() {
            for &j in &added {
                let shared = set.iter().filter(|h| sets[j].binary_search(h).is_ok()).count();
                let c = shared as f64 / set.len() as f64;
                if c >= min && best.is_none_or(|(b, _)| c > b) {
                    best = Some((c, j));
                }
            }
        }
        match best {
            Some((_, j)) => out.push(Some(j)),
            None => {
                added.push(i);
                out.push(None);
            }
        }
    }
    out
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 24, ..Default::default() })]

    /// The session's if-new rule (look-ups in parallel, uncommitted documents counted in
    /// their inverted hashes, commits by itself every `batch` documents, probes of the
    /// committed segments) decides as the obvious rule does, for any split into calls.
    #[test]
    fn the_if_new_rule_matches_the_obvious_one(
        makes in proptest::collection::vec(make_strategy(), 1..40),
        batch in 1usize..6,
        split in 1usize..9,
        min in proptest::sample::select(vec![0.5, 0.8, 0.9, 1.0]),
    ) {
        let (_dir, engine) = new_engine(EngineOptions { batch_size: batch, ..EngineOptions::default() });
        let lib = CollectionConfig { name: "lib".into(), kind: CollectionKind::Source, keep_texts: false };
        let texts = build(&makes);
        let expected = reference(&engine, &texts, min);

        let mut session = engine.add_session(&lib, AddMode::if_new(Some(min)).unwrap()).unwrap();
        let docs: Vec<_> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| engine.prepare(format!("doc-{i}"), tessera_engine::Extracted::from_text(t.clone(), None)))
            .collect();
        let mut outcomes = Vec::new();
        for (k, chunk) in docs.chunks(split).enumerate() {
            if k % 2 == 0 {
                outcomes.extend(session.add_all(chunk).unwrap());
            } else {
                for d in chunk {
                    outcomes.push(session.add(d).unwrap());
                }
            }
            if k % 3 == 2 {
                session.commit().unwrap();
            }
        }
        session.commit().unwrap();
        // Document ids in order of addition: the n-th added document is the n-th id.
        let mut id_of = std::collections::HashMap::new();
        for (i, o) in outcomes.iter().enumerate() {
            if let tessera_engine::AddOutcome::Added { doc } = o {
                id_of.insert(*doc, i);
            }
        }
        let got: Vec<Option<usize>> = outcomes
            .iter()
            .map(|o| match o {
                tessera_engine::AddOutcome::Added { .. } => None,
                tessera_engine::AddOutcome::Seen { into, .. } => Some(id_of[into]),
                tessera_engine::AddOutcome::AlreadyIndexed { doc, .. } => Some(id_of[doc]),
            })
            .collect();
        proptest::prop_assert_eq!(got, expected);
    }
}
