//! A sharded index checks as one index holding the same documents: the same reports, byte
//! for byte, for 1, 2 and 5 shards (issue 50).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;

use support::demo;
use tessera_engine::shards::{self, LocalShards, ShardSet};
use tessera_engine::{
    AddMode, CollectionConfig, CollectionKind, Engine, EngineOptions, ErrorKind, FingerprintSettings, Report,
};
use tessera_test_support::words::syllable_sentences;

fn lib() -> CollectionConfig {
    CollectionConfig { name: "lib".into(), kind: CollectionKind::Source, keep_texts: true }
}

/// The demo library, 120 made-up documents, two copies of the printing press (so copies
/// and ties between equal sources are decided as one index decides them) and a document
/// sharing a few common sentences with many others.
fn corpus() -> Vec<(String, String, String)> {
    let mut sentences = syllable_sentences(7, " ");
    let mut texts: Vec<(String, String, String)> = Vec::new();
    for name in ["honey-bees.txt", "printing-press.txt", "siberian-rivers.txt"] {
        texts.push((name.into(), String::new(), demo(&format!("library/{name}"))));
    }
    let common: Vec<String> = (0..6).map(|_| sentences(14)).collect();
    for i in 0..120 {
        let mut text: Vec<String> = (0..25).map(|_| sentences(12 + i % 7)).collect();
        // Every tenth document shares two common sentences: hashes held by many documents.
        if i % 10 == 0 {
            text.insert(3, common[i % common.len()].clone());
            text.insert(9, common[(i + 1) % common.len()].clone());
        }
        texts.push((format!("gen-{i:03}.txt"), format!("Generated {i}"), text.join(" ")));
    }
    let press = demo("library/printing-press.txt");
    texts.push(("press-copy-a.txt".into(), String::new(), press.clone()));
    texts.push(("press-copy-b.txt".into(), String::new(), format!("{press} A closing line of this copy.")));
    texts
}

/// Suspects borrowing from several documents: verbatim, edited, the common sentences,
/// and one with nothing borrowed.
fn suspects(texts: &[(String, String, String)]) -> Vec<(String, String)> {
    let mut own = syllable_sentences(99, " ");
    let part = |t: &str, from: usize, len: usize| -> String {
        let words: Vec<&str> = t.split_whitespace().collect();
        words[from.min(words.len())..(from + len).min(words.len())].join(" ")
    };
    let edit = |t: String| -> String {
        t.split_whitespace().enumerate().filter(|(i, _)| i % 9 != 4).map(|(_, w)| w).collect::<Vec<_>>().join(" ")
    };
    vec![
        (
            "mixed.txt".into(),
            [
                own(30),
                part(&texts[0].2, 40, 120),
                own(25),
                part(&texts[10].2, 10, 90),
                own(20),
                part(&texts[57].2, 100, 80),
            ]
            .join(" "),
        ),
        (
            "edited.txt".into(),
            [own(20), edit(part(&texts[2].2, 0, 150)), own(30), edit(part(&texts[33].2, 50, 120))].join(" "),
        ),
        ("press.txt".into(), [own(15), part(&texts[1].2, 20, 200), own(15)].join(" ")),
        ("common.txt".into(), [own(20), texts[3 + 10].2.clone(), own(20)].join(" ")),
        ("many.txt".into(), (0..12).map(|i| part(&texts[3 + i * 9].2, 30, 60)).collect::<Vec<_>>().join(" ")),
        ("own.txt".into(), (0..20).map(|_| own(15)).collect::<Vec<_>>().join(" ")),
    ]
}

fn json(report: &Report) -> String {
    serde_json::to_string_pretty(report).unwrap()
}

#[test]
fn a_sharded_index_reports_as_one_index() {
    let dir = tempfile::tempdir().unwrap();
    let texts = corpus();
    let settings = FingerprintSettings::default();
    let one = Engine::open_or_create(&dir.path().join("one"), &settings, EngineOptions::default()).unwrap();
    one.add_texts(&lib(), texts.clone(), AddMode::All, &|_| {}).unwrap();
    let suspects = suspects(&texts);
    let expected: Vec<String> =
        suspects.iter().map(|(name, text)| json(&one.check_text(name, name, text).unwrap())).collect();
    let found: Vec<usize> =
        suspects.iter().map(|(name, text)| one.check_text(name, name, text).unwrap().sources.len()).collect();
    assert!(found.iter().filter(|&&n| n > 0).count() >= 4, "the suspects find sources: {found:?}");

    for n in [1, 2, 5] {
        let root = dir.path().join(format!("shards-{n}"));
        let summary = shards::build(&root, n, &settings, EngineOptions::default(), &lib(), texts.clone()).unwrap();
        assert_eq!(summary.added, texts.len() as u64);
        let set = LocalShards::open(&root, EngineOptions::default()).unwrap();
        // Every shard holds only the ids it owns, and together they hold them all once.
        let mut ids = Vec::new();
        for (s, engine) in set.engines().iter().enumerate() {
            assert_eq!(engine.shard(), Some((s, n)));
            for doc in engine.view().unwrap().docs().unwrap() {
                assert_eq!(tessera_core::shard_of(doc, n), s);
                ids.push(doc.0);
            }
        }
        ids.sort_unstable();
        assert_eq!(ids, (0..texts.len() as u64).collect::<Vec<_>>());
        let checker = set.checker().unwrap();
        let set: Arc<dyn ShardSet> = Arc::new(set);
        for ((name, text), want) in suspects.iter().zip(&expected) {
            let view = checker.sharded_view(Arc::clone(&set)).unwrap();
            let suspect = checker.suspect_plain(name, name, text);
            let revisions = checker.search_all(&view, &suspect).unwrap();
            let got = json(&checker.report(&view, &suspect, &revisions, &[]).unwrap());
            assert_eq!(&got, want, "{name} with {n} shards");
        }
        // The collections. documents are summed over the shards (postings and sizes on
        // disk differ with the segments).
        let summed = checker.sharded_view(Arc::clone(&set)).unwrap().collections();
        let whole = one.view().unwrap().collections();
        assert_eq!(summed.len(), whole.len());
        for (a, b) in summed.iter().zip(&whole) {
            assert_eq!((&a.config, a.docs, a.deleted), (&b.config, b.docs, b.deleted));
        }
    }
}

/// Adds to a shard take the ids it owns: a later check finds them, and ids never meet.
#[test]
fn a_shard_adds_under_the_ids_it_owns() {
    let dir = tempfile::tempdir().unwrap();
    let texts = corpus();
    let settings = FingerprintSettings::default();
    shards::build(dir.path(), 3, &settings, EngineOptions::default(), &lib(), texts[..20].to_vec()).unwrap();
    let set = LocalShards::open(dir.path(), EngineOptions::default()).unwrap();
    let press = demo("library/printing-press.txt");
    let mut added = Vec::new();
    for (s, engine) in set.engines().iter().enumerate() {
        let outcome = engine
            .add_text(&lib(), &format!("late-{s}.txt"), "", &format!("{press} Shard {s}."), AddMode::All)
            .unwrap();
        let doc = outcome_doc(outcome);
        assert_eq!(tessera_core::shard_of(doc, 3), s, "shard {s} gave id {doc:?}");
        assert!(doc.0 >= 20);
        added.push(doc);
    }
    added.sort_unstable();
    added.dedup();
    assert_eq!(added.len(), 3);
    let checker = set.checker().unwrap();
    let view = checker.sharded_view(Arc::new(set)).unwrap();
    let suspect = checker.suspect_plain("s", "s", &press);
    let revisions = checker.search_all(&view, &suspect).unwrap();
    let found: Vec<u64> = revisions[0].sources.iter().map(|s| s.doc.0).collect();
    for doc in added {
        assert!(found.contains(&doc.0), "{doc:?} not found in {found:?}");
    }
}

fn outcome_doc(outcome: tessera_engine::AddOutcome) -> tessera_core::DocId {
    match outcome {
        tessera_engine::AddOutcome::Added { doc } => doc,
        other => panic!("not added: {other:?}"),
    }
}

/// A shard that does not answer fails the check, naming it, as retryable.
#[test]
fn a_shard_that_does_not_answer_fails_the_check_by_name() {
    struct Down(LocalShards);
    impl ShardSet for Down {
        fn shards(&self) -> usize {
            self.0.shards()
        }
        fn call(&self, shard: usize, request: &[u8]) -> Result<Vec<u8>, String> {
            let answer = self.0.call(shard, request)?;
            // Shard 1 answers what it is asked first (its settings), then goes down.
            if shard == 1
                && tessera_engine::shards::wire::Request::decode(request).unwrap()
                    != tessera_engine::shards::wire::Request::Info
            {
                return Err("connection refused".into());
            }
            Ok(answer)
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let texts = corpus();
    shards::build(dir.path(), 2, &FingerprintSettings::default(), EngineOptions::default(), &lib(), texts.clone())
        .unwrap();
    let set = LocalShards::open(dir.path(), EngineOptions::default()).unwrap();
    let checker = set.checker().unwrap();
    let view = checker.sharded_view(Arc::new(Down(set))).unwrap();
    let suspect = checker.suspect_plain("s", "s", &texts[0].2);
    let err = checker.search_all(&view, &suspect).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unavailable, "{err}");
    assert!(err.to_string().contains("shard 1 of 2 did not answer: connection refused"), "{err}");
}

/// The shard folders must be all there, of one count.
#[test]
fn shard_folders_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    assert!(shards::shard_dirs(dir.path()).unwrap().is_none());
    std::fs::create_dir(shards::shard_dir(dir.path(), 0, 3)).unwrap();
    std::fs::create_dir(shards::shard_dir(dir.path(), 2, 3)).unwrap();
    let err = shards::shard_dirs(dir.path()).unwrap_err().to_string();
    assert!(err.contains("shard-000-of-003 to shard-002-of-003"), "{err}");
}
