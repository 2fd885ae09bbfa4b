//! Crash safety of the sketch store: a writer process killed with SIGKILL at random
//! points of its updates and merges, many times over, never loses an update and never
//! exposes half of one.
//!
//! The test binary re-executes itself (`tessera_test_support::child`): the ignored test
//! `crash_child`, run by `killed_writers_lose_nothing` with `TESSERA_NEAR_CRASH_CHILD`
//! set, runs an endless update loop on that store and prints `updated <n>` after each
//! update returns.

#![allow(clippy::unwrap_used)] // unwrap is fine in tests

use std::path::Path;
use std::time::Duration;

use tessera_index::MergePolicy;
use tessera_index::sketch::{SketchStore, StoreEntry, StoreSettings, update_store, write_store};
use tessera_near::{LshParams, MinHashConfig, MinHasher, SplitMix64, mix64};
use tessera_test_support::child::{CrashChild, child_dir};

const CHILD: CrashChild = CrashChild { test: "crash_child", env: "TESSERA_NEAR_CRASH_CHILD", prefix: "updated " };
/// Documents per update.
const BATCH: u64 = 40;

fn settings() -> StoreSettings {
    StoreSettings {
        minhash: MinHashConfig { num_perm: 64, seed: 5 },
        lsh: LshParams { bands: 16, rows: 4 },
        simhash_distance: 3,
        settings_hash: 7,
        signatures: true,
    }
}

/// Small tiers, so merges (and kills during them) are frequent (a document of these
/// settings is about 500 bytes: the floor is 16 documents).
fn policy() -> MergePolicy {
    MergePolicy { segments_per_tier: 3, floor_bytes: 8 << 10, max_merged_bytes: 50 << 20, deletes_ratio: 0.25 }
}

fn entry(doc: u64) -> StoreEntry {
    let hasher = MinHasher::new(settings().minhash).unwrap();
    let mut rng = SplitMix64::new(doc);
    let set: Vec<u64> = (0..40).map(|_| rng.next_u64()).collect();
    StoreEntry { doc, signature: hasher.sign(&set), simhash: mix64(doc) }
}

/// Update `u` (from 1) adds documents `(u-1)*BATCH..u*BATCH` and deletes those of the
/// previous batch whose id is a multiple of 3.
fn deleted_by(u: u64) -> Vec<u64> {
    if u < 2 { Vec::new() } else { ((u - 2) * BATCH..(u - 1) * BATCH).filter(|d| d % 3 == 0).collect() }
}

/// The live documents after `u` updates.
fn live_after(u: u64) -> Vec<u64> {
    let gone: Vec<u64> = (1..=u).flat_map(deleted_by).collect();
    (0..u * BATCH).filter(|d| !gone.contains(d)).collect()
}

#[test]
#[ignore = "the child of `killed_writers_lose_nothing`, which runs it"]
fn crash_child() {
    let path = child_dir(CHILD.env, "killed_writers_lose_nothing").join("NEAR");
    if !path.exists() {
        write_store(&path, &settings(), &[]).unwrap();
    }
    let mut u = SketchStore::open(&path).unwrap().live_docs().last().map_or(0, |d| d / BATCH + 1);
    loop {
        u += 1;
        let add: Vec<StoreEntry> = ((u - 1) * BATCH..u * BATCH).map(entry).collect();
        update_store(&path, &settings(), &add, &deleted_by(u), &policy()).unwrap();
        println!("updated {u}");
    }
}

/// Checks that the store holds exactly the live documents after some whole number of
/// updates, with their sketches, and returns that number.
fn verify(path: &Path) -> u64 {
    let store = SketchStore::open(path).unwrap();
    let docs = store.live_docs();
    let u = docs.last().map_or(0, |d| d / BATCH + 1);
    assert_eq!(docs, live_after(u), "an update is visible only in part");
    for e in store.entries() {
        assert_eq!(e, entry(e.doc));
        let o = store.ordinal_of(e.doc).unwrap();
        assert!(store.lsh_candidates(&e.signature).contains(&o));
    }
    u
}

#[test]
fn killed_writers_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut left_files = 0;
    for round in 0..12u64 {
        let pause = Duration::from_micros(mix64(round) % 20_000);
        let last_reported = CHILD.run_and_kill(dir.path(), 1 + round % 3, pause);
        let u = verify(&dir.path().join("NEAR"));
        assert!(u >= last_reported, "update lost: {u} < {last_reported}");
        let store = SketchStore::open(&dir.path().join("NEAR")).unwrap();
        let files = std::fs::read_dir(dir.path()).unwrap().count();
        // MANIFEST, LOCK and the segments: anything more a kill left behind.
        if files > 2 + store.segment_count() {
            left_files += 1;
        }
    }
    eprintln!("{left_files} of 12 kills left files of an unfinished update");
    // The next update removes what the killed writers left behind.
    let path = dir.path().join("NEAR");
    let u = verify(&path);
    let add: Vec<StoreEntry> = (u * BATCH..(u + 1) * BATCH).map(entry).collect();
    update_store(&path, &settings(), &add, &deleted_by(u + 1), &policy()).unwrap();
    assert_eq!(verify(&path), u + 1);
    let store = SketchStore::open(&path).unwrap();
    let bound = segment_bound(segment_bytes(dir.path()));
    eprintln!("{} segments over {} documents, at most {bound}", store.segment_count(), store.live_docs().len());
    assert!(store.segment_count() <= bound, "{} segments, at most {bound}", store.segment_count());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2 + store.segment_count());
}

/// The bytes of the store's segment files in `dir`.
fn segment_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|f| f.unwrap())
        .filter(|f| f.file_name().to_string_lossy().ends_with(".seg"))
        .map(|f| f.metadata().unwrap().len())
        .sum()
}

/// The most segments the tiered policy leaves over segments of `bytes` bytes in all once
/// its merges are done: `segments_per_tier - 1` in each tier up to the tier of all of
/// them together (no segment holds more). How many updates the killed writers finish
/// depends on the machine's speed, so the bound follows the bytes, not a fixed count.
fn segment_bound(bytes: u64) -> usize {
    let p = policy();
    let base = p.segments_per_tier as u64;
    let (mut tiers, mut top) = (1, p.floor_bytes * base);
    while bytes >= top {
        tiers += 1;
        top *= base;
    }
    (p.segments_per_tier - 1) * tiers
}
