use std::collections::BTreeSet;

use super::*;
use crate::MergePolicy;
use proptest::prelude::*;
use tessera_near::{LshIndex, MinHasher, SimhashTables, SplitMix64, TableDesign};

fn settings() -> StoreSettings {
    StoreSettings {
        minhash: MinHashConfig { num_perm: 32, seed: 3 },
        lsh: LshParams::optimal(0.5, 32, 0.5, 0.5).unwrap(),
        simhash_distance: 3,
        settings_hash: 99,
        signatures: true,
    }
}

/// The settings of a store that holds no signatures (an index's).
fn without_signatures() -> StoreSettings {
    StoreSettings { signatures: false, ..settings() }
}

/// `entries` as a store of `settings` gives them back (no signature values when it
/// holds none).
fn as_held(entries: &[StoreEntry], settings: &StoreSettings) -> Vec<StoreEntry> {
    entries
        .iter()
        .map(|e| StoreEntry {
            signature: if settings.signatures { e.signature.clone() } else { Signature(Vec::new()) },
            ..e.clone()
        })
        .collect()
}

/// `n` entries, doc ids `3i + 1`: near copies of one set, half the SimHashes neighbours.
fn entries(seed: u64, n: usize) -> Vec<StoreEntry> {
    let h = MinHasher::new(MinHashConfig { num_perm: 32, seed: 3 }).unwrap();
    let mut rng = SplitMix64::new(seed);
    let base: Vec<u64> = (0..50).map(|_| rng.next_u64()).collect();
    (0..n)
        .map(|i| {
            let mut set = base.clone();
            for x in set.iter_mut().take(i % 50) {
                *x = rng.next_u64();
            }
            let fp = if i % 2 == 0 { 0xabcd_0000_1234_5678 ^ (1 << (i % 64)) } else { rng.next_u64() };
            StoreEntry { doc: (i as u64) * 3 + 1, signature: h.sign(&set), simhash: fp }
        })
        .collect()
}

/// Tiers of a few documents (a document of these settings is about 300 bytes).
fn small_policy() -> MergePolicy {
    MergePolicy { segments_per_tier: 3, floor_bytes: 600, max_merged_bytes: 300_000, deletes_ratio: 0.3 }
}

/// Doc ids of candidate ordinals.
fn docs_of(store: &SketchStore, ordinals: &[u32]) -> BTreeSet<u64> {
    ordinals.iter().map(|&o| store.doc(o as usize)).collect()
}

/// The store's answers equal in-memory LSH and SimHash tables built over `live`.
fn assert_same_as_memory(store: &SketchStore, live: &[StoreEntry], queries: &[StoreEntry]) {
    let s = store.settings();
    let sigs: Vec<Signature> = live.iter().map(|x| x.signature.clone()).collect();
    let fps: Vec<u64> = live.iter().map(|x| x.simhash).collect();
    let lsh = LshIndex::build(&sigs, s.lsh);
    let tables = SimhashTables::build(&fps, TableDesign::choose(s.simhash_distance, live.len() as u64).unwrap());
    let mem = |ids: Vec<u32>| ids.iter().map(|&i| live[i as usize].doc).collect::<BTreeSet<u64>>();
    for q in queries {
        assert_eq!(docs_of(store, &store.lsh_candidates(&q.signature)), mem(lsh.query(&q.signature)));
        assert_eq!(docs_of(store, &store.simhash_candidates(q.simhash)), mem(tables.query(q.simhash)));
    }
}

/// Found by `fuzz/fuzz_targets/near_store.rs` (format 1; here for format 2): a store
/// whose checksum is right but whose band and table ordinals point past its documents
/// gave those ordinals as candidates, and `doc`/`signature` of them panicked.
#[test]
fn ordinals_past_the_store_are_never_candidates() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("NEAR");
    let e = entries(7, 10);
    let s = settings();
    write_store(&path, &s, &e).unwrap();
    let seg = segment_path(&path, 1);
    let mut bytes = std::fs::read(&seg).unwrap();
    let body = bytes.len() - 4;
    let (p, bands) = (32, s.lsh.bands);
    let bits = u32_at(&bytes, 48);
    let records = segment::HEADER + 16 * 10 + 4 * p * 10 + 4 * bands * ((1 << bits) + 1);
    for at in (records..body).step_by(12) {
        bytes[at + 8..at + 12].copy_from_slice(&1_000_000u32.to_le_bytes());
    }
    let crc = crc32fast::hash(&bytes[..body]);
    bytes[body..].copy_from_slice(&crc.to_le_bytes());
    std::fs::write(&seg, &bytes).unwrap();
    let store = SketchStore::open(&path).unwrap();
    for entry in &e {
        assert_eq!(store.lsh_candidates(&entry.signature), Vec::<u32>::new());
        assert_eq!(store.simhash_candidates(entry.simhash), Vec::<u32>::new());
    }
}

proptest! {
    // Every case writes and syncs files: fewer cases than the default 256.
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn store_queries_equal_memory_queries(seed in any::<u64>(), n in 0usize..80, held in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("NEAR");
        let e = entries(seed, n);
        let settings = StoreSettings { signatures: held, ..settings() };
        write_store(&path, &settings, &e).unwrap();
        let store = SketchStore::open(&path).unwrap();
        prop_assert_eq!(store.settings(), &settings);
        prop_assert_eq!(store.entries(), as_held(&e, &settings));
        for (i, x) in e.iter().enumerate() {
            prop_assert_eq!(store.signature(i), held.then(|| x.signature.clone()));
        }
        prop_assert_eq!(store.segment_count(), usize::from(n > 0));
        assert_same_as_memory(&store, &e, &e);
    }

    /// Adds in batches and deletes, merged by a small policy: the same answers as a store
    /// written whole from the live entries, and as the in-memory tables.
    #[test]
    fn updated_store_equals_one_written_whole(
        seed in any::<u64>(), n in 1usize..90, batch in 1usize..12, held in any::<bool>()
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("NEAR");
        let e = entries(seed, n);
        let settings = StoreSettings { signatures: held, ..settings() };
        write_store(&path, &settings, &[]).unwrap();
        let mut rng = SplitMix64::new(seed ^ 1);
        let mut deleted = BTreeSet::new();
        for chunk in e.chunks(batch) {
            let held: Vec<u64> = SketchStore::open(&path).unwrap().live_docs();
            let delete: Vec<u64> = held.iter().copied().filter(|_| rng.next_u64().is_multiple_of(5)).collect();
            deleted.extend(delete.iter().copied());
            update_store(&path, &settings, chunk, &delete, &small_policy()).unwrap();
        }
        let store = SketchStore::open(&path).unwrap();
        let live: Vec<StoreEntry> = e.iter().filter(|x| !deleted.contains(&x.doc)).cloned().collect();
        prop_assert_eq!(store.entries(), as_held(&live, &settings));
        prop_assert_eq!(store.live_len(), live.len());
        prop_assert_eq!(store.live_docs(), live.iter().map(|x| x.doc).collect::<Vec<_>>());
        for x in &e {
            prop_assert_eq!(store.ordinal_of(x.doc).is_some(), !deleted.contains(&x.doc));
        }
        assert_same_as_memory(&store, &live, &e);
        // Only the named segments are left on disk.
        let files = std::fs::read_dir(dir.path()).unwrap()
            .filter(|f| f.as_ref().unwrap().file_name().to_string_lossy().ends_with(".seg"))
            .count();
        prop_assert_eq!(files, store.segment_count());
    }
}

#[test]
fn many_small_updates_keep_few_segments_and_purge_deletes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("NEAR");
    let e = entries(5, 200);
    write_store(&path, &settings(), &[]).unwrap();
    let policy = MergePolicy { segments_per_tier: 4, floor_bytes: 600, max_merged_bytes: 300_000, deletes_ratio: 0.2 };
    for chunk in e.chunks(1) {
        update_store(&path, &settings(), chunk, &[], &policy).unwrap();
        assert!(SketchStore::open(&path).unwrap().segment_count() <= 12);
    }
    // Deleting most documents: merges rewrite segments without them.
    let delete: Vec<u64> = e.iter().map(|x| x.doc).filter(|d| d % 2 == 0).collect();
    let report = update_store(&path, &settings(), &[], &delete, &policy).unwrap();
    assert_eq!(report.deleted, 100);
    assert!(report.merges > 0);
    let store = SketchStore::open(&path).unwrap();
    assert_eq!(store.live_len(), 100);
    assert!(store.deleted_count() < 100, "{} deleted kept", store.deleted_count());
    // Adding what the store holds adds nothing; adding a deleted document still held
    // as a tombstone is refused.
    let again = update_store(&path, &settings(), &e[..1], &[], &policy).unwrap();
    assert_eq!(again.added, 0);
    let keep = MergePolicy { deletes_ratio: 1.0, ..policy };
    update_store(&path, &settings(), &[], &[e[2].doc], &keep).unwrap();
    assert!(SketchStore::open(&path).unwrap().deleted_count() > 0);
    assert!(update_store(&path, &settings(), &e[2..3], &[], &keep).is_err());
    // Other settings are refused.
    for other in [StoreSettings { settings_hash: 1, ..settings() }, without_signatures()] {
        assert!(update_store(&path, &other, &e[..1], &[], &policy).unwrap_err().to_string().contains("settings"));
    }
}

/// What a writer killed at any point leaves (temporary files, a segment no manifest names)
/// changes nothing a reader sees, and the next writer removes it.
#[test]
fn leftovers_of_a_killed_writer_are_ignored_then_removed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("NEAR");
    let e = entries(2, 30);
    write_store(&path, &settings(), &e[..10]).unwrap();
    // A torn segment and a torn manifest, as a kill mid-write leaves them; a whole
    // segment written but never named.
    std::fs::write(dir.path().join("NEAR-000002.seg.tmp.4242"), b"TSRNSEG\0torn").unwrap();
    std::fs::write(dir.path().join("NEAR.tmp.4242"), b"TSRNEAR\0torn").unwrap();
    segment::write_segment(&segment_path(&path, 3), &settings(), &e[10..20].iter().collect::<Vec<_>>()).unwrap();
    let store = SketchStore::open(&path).unwrap();
    assert_eq!(store.entries(), e[..10].to_vec());
    drop(store);
    update_store(&path, &settings(), &e[20..], &[], &MergePolicy::default()).unwrap();
    let store = SketchStore::open(&path).unwrap();
    assert_eq!(store.live_docs(), e[..10].iter().chain(&e[20..]).map(|x| x.doc).collect::<Vec<_>>());
    // Segment numbers are never reused: the new one is past the orphan's. The state is in
    // the one MANIFEST, the writers' lock is the one LOCK.
    assert_eq!(names(dir.path()), ["LOCK", "MANIFEST", "NEAR-000001.seg", "NEAR-000004.seg"]);
}

/// A manifest naming a segment that is gone (a merge removed it after this reader read
/// the manifest, and no newer manifest came) is an error naming the segment.
#[test]
fn a_missing_segment_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("NEAR");
    write_store(&path, &settings(), &entries(1, 5)).unwrap();
    std::fs::remove_file(segment_path(&path, 1)).unwrap();
    let err = SketchStore::open(&path).unwrap_err().to_string();
    assert!(err.contains("NEAR-000001.seg"), "{err}");
}

fn fixture_dir(version: u32) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("testdata/near-v{version}"))
}

/// The checked-in version-1 store must keep opening with the same content, and the first
/// update turns it into version 3.
#[test]
fn fixture_v1_keeps_opening() {
    let path = fixture_dir(1).join("NEAR");
    let store = SketchStore::open(&path).unwrap();
    assert_eq!(store.format_version(), 1);
    assert_eq!(store.settings(), &settings());
    assert_eq!(store.entries(), entries(1, 10));
    assert_eq!(store.len(), 10);
    assert_eq!(store.doc(3), 10);
    assert_eq!(store.lsh_candidates(&entries(1, 10)[0].signature)[0], 0);
    assert_same_as_memory(&store, &entries(1, 10), &entries(1, 10));

    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("NEAR");
    std::fs::copy(&path, &copy).unwrap();
    let more = entries(1, 14);
    update_store(&copy, &settings(), &more[10..], &[1], &MergePolicy::default()).unwrap();
    let store = SketchStore::open(&copy).unwrap();
    assert_eq!(store.format_version(), STORE_VERSION);
    assert!(!copy.exists(), "the version-1 file is replaced by the MANIFEST's section");
    assert_eq!(store.entries(), more[1..].to_vec());
}

/// The checked-in version-2 store (two segments and a tombstone; signatures held, as
/// version 2 always does) must keep opening with the same content, and an update that
/// merges adds a version-3 segment beside them.
#[test]
fn fixture_v2_keeps_opening() {
    let dir = fixture_dir(2);
    let path = dir.join("NEAR");
    let e = entries(1, 12);
    let store = SketchStore::open(&path).unwrap();
    assert_eq!(store.format_version(), 2);
    assert_eq!(store.settings(), &settings());
    assert_eq!((store.len(), store.live_len(), store.segment_count()), (12, 11, 2));
    let live: Vec<StoreEntry> = e.iter().filter(|x| x.doc != 4).cloned().collect();
    assert_eq!(store.entries(), live);
    assert_eq!(store.ordinal_of(4), None);
    assert_eq!(store.ordinal_of(25), Some(8));
    assert_same_as_memory(&store, &live, &e);

    let copy = tempfile::tempdir().unwrap();
    for f in ["NEAR", "NEAR-000001.seg", "NEAR-000002.seg"] {
        std::fs::copy(dir.join(f), copy.path().join(f)).unwrap();
    }
    let path = copy.path().join("NEAR");
    let more = entries(1, 16);
    let merge_all =
        MergePolicy { segments_per_tier: 2, floor_bytes: 600, max_merged_bytes: 300_000, deletes_ratio: 0.2 };
    let report = update_store(&path, &settings(), &more[12..], &[7], &merge_all).unwrap();
    assert!(report.merges > 0, "{report:?}");
    let store = SketchStore::open(&path).unwrap();
    assert_eq!(store.format_version(), STORE_VERSION);
    let live: Vec<StoreEntry> = more.iter().filter(|x| x.doc != 4 && x.doc != 7).cloned().collect();
    assert_eq!(store.entries(), live);
    assert_same_as_memory(&store, &live, &more);
}

/// The checked-in version-3 store (its own `NEAR` manifest; no signatures, two segments
/// and a tombstone) must keep opening with the same content; its first write upgrades it
/// in place: the state moves into `MANIFEST`, `NEAR` and `NEAR.LOCK` go, the segments stay.
#[test]
fn fixture_v3_keeps_opening_and_is_upgraded_by_its_first_write() {
    let dir = fixture_dir(3);
    let path = dir.join("NEAR");
    let e = entries(1, 12);
    let settings = without_signatures();
    let store = SketchStore::open(&path).unwrap();
    assert_eq!(store.format_version(), 3);
    assert_eq!(store.settings(), &settings);
    assert_eq!((store.len(), store.live_len(), store.segment_count()), (12, 11, 2));
    let live: Vec<StoreEntry> = e.iter().filter(|x| x.doc != 4).cloned().collect();
    assert_eq!(store.entries(), as_held(&live, &settings));
    assert_eq!(store.signature(0), None);
    assert_eq!(store.ordinal_of(4), None);
    assert_eq!(store.ordinal_of(25), Some(8));
    assert_same_as_memory(&store, &live, &e);

    let copy = tempfile::tempdir().unwrap();
    for f in ["NEAR", "NEAR-000001.seg", "NEAR-000002.seg"] {
        std::fs::copy(dir.join(f), copy.path().join(f)).unwrap();
    }
    std::fs::write(copy.path().join("NEAR.LOCK"), b"").unwrap();
    let path = copy.path().join("NEAR");
    // Nothing to change: read as it is, not rewritten.
    let report = update_store(&path, &settings, &e[2..4], &[], &MergePolicy::default()).unwrap();
    assert_eq!(report.added, 0);
    assert_eq!(SketchStore::open(&path).unwrap().format_version(), 3);
    let more = entries(1, 13);
    update_store(&path, &settings, &more[12..], &[], &MergePolicy::default()).unwrap();
    let store = SketchStore::open(&path).unwrap();
    assert_eq!((store.format_version(), store.segment_count()), (STORE_VERSION, 3));
    let live: Vec<StoreEntry> = more.iter().filter(|x| x.doc != 4).cloned().collect();
    assert_eq!(store.entries(), as_held(&live, &settings));
    assert_eq!(
        names(copy.path()),
        ["LOCK", "MANIFEST", "NEAR-000001.seg", "NEAR-000002.seg", "NEAR-000003.seg"],
        "the segments kept as they are, NEAR and NEAR.LOCK gone"
    );
    let manifest = Manifest::load(copy.path()).unwrap();
    assert_eq!((manifest.format_version, manifest.collections.len()), (2, 0));
}

/// The checked-in version-4 store (a directory without collections: `MANIFEST` format 2
/// with the sketch section; no signatures, two segments and a tombstone) must keep opening
/// with the same content. Regenerate (only with a format version bump, as a new fixture)
/// with `UPDATE_NEAR_FIXTURE=1`.
#[test]
fn fixture_v4_keeps_opening() {
    let dir = fixture_dir(4);
    let path = dir.join("NEAR");
    let e = entries(1, 12);
    let settings = without_signatures();
    if std::env::var_os("UPDATE_NEAR_FIXTURE").is_some() {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        write_store(&path, &settings, &e[..8]).unwrap();
        update_store(&path, &settings, &e[8..], &[4], &MergePolicy::default()).unwrap();
        std::fs::remove_file(dir.join("LOCK")).unwrap();
    }
    assert_eq!(names(&dir), ["MANIFEST", "NEAR-000001.seg", "NEAR-000002.seg"]);
    let store = SketchStore::open(&path).unwrap();
    assert_eq!(store.format_version(), 4);
    assert_eq!(store.settings(), &settings);
    assert_eq!((store.len(), store.live_len(), store.segment_count()), (12, 11, 2));
    let live: Vec<StoreEntry> = e.iter().filter(|x| x.doc != 4).cloned().collect();
    assert_eq!(store.entries(), as_held(&live, &settings));
    assert_eq!(store.signature(0), None);
    assert_eq!(store.ordinal_of(4), None);
    assert_eq!(store.ordinal_of(25), Some(8));
    assert_same_as_memory(&store, &live, &e);
    // The segments are byte for byte those of format 3 (segment format 3).
    for f in ["NEAR-000001.seg", "NEAR-000002.seg"] {
        assert_eq!(std::fs::read(dir.join(f)).unwrap(), std::fs::read(fixture_dir(3).join(f)).unwrap(), "{f}");
    }
    let manifest = Manifest::load(&dir).unwrap();
    assert_eq!(manifest.format_version, 2);
    assert_eq!(manifest.fingerprint_settings, serde_json::Value::Null);
    let section = manifest.sketch.unwrap();
    assert_eq!((section.generation, section.tombstones.as_slice()), (2, &[4][..]));
}

/// The files of directory `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|f| f.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn damage_is_reported_with_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("NEAR");
    write_store(&path, &settings(), &entries(1, 10)).unwrap();
    for file in [dir.path().join(MANIFEST_FILE), segment_path(&path, 1)] {
        let good = std::fs::read(&file).unwrap();
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        for at in [0, 9, 30, 60, good.len() / 2, good.len() - 1] {
            let mut bad = good.clone();
            bad[at] ^= 0x40;
            std::fs::write(&file, &bad).unwrap();
            let err = SketchStore::open(&path).unwrap_err().to_string();
            // A flipped manifest version is refused as a version this build does not read.
            let version = name == MANIFEST_FILE && (8..12).contains(&at);
            assert!(err.contains(&name) && (version || err.contains("corrupt")), "{err}");
        }
        std::fs::write(&file, &good[..good.len() - 5]).unwrap();
        assert!(SketchStore::open(&path).is_err());
        std::fs::write(&file, &good).unwrap();
    }
    assert!(SketchStore::open(&dir.path().join("missing")).unwrap_err().to_string().contains("missing"));
}

/// An index's store is written through the index's writer: its section survives the
/// writer's later commits, rollbacks and merges, and a version-1 manifest without it is
/// not rewritten until then.
#[test]
fn the_index_writer_publishes_the_store_and_keeps_it() {
    use crate::{CollectionConfig, CollectionKind, DocMeta, Index, NewDocument, Snapshot, WriterOptions};
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path(), serde_json::json!({"shingle_size": 5})).unwrap();
    let before = std::fs::read(dir.path().join(MANIFEST_FILE)).unwrap();
    assert_eq!(u32_at(&before, 8), 1, "an index without a store keeps manifest format 1");
    let mut writer = index.writer(WriterOptions::default()).unwrap();
    let e = entries(4, 20);
    writer.write_sketches(&without_signatures(), &e[..10]).unwrap();
    let config = CollectionConfig { name: "web".into(), kind: CollectionKind::Source, keep_texts: false };
    writer.ensure_collection(config).unwrap();
    let snapshot = Snapshot {
        hashes: vec![1, 2],
        token_bytes: vec![(0, 1)],
        token_chars: vec![(0, 1)],
        terms: vec![7],
        sentence_starts: vec![0],
        sentence_edges: Vec::new(),
    };
    let meta = DocMeta {
        title: "t".into(),
        origin: "o".into(),
        added_at: 0,
        byte_len: 1,
        char_len: 1,
        text_hash: None,
        check_id: None,
    };
    writer.add("web", NewDocument { meta: meta.clone(), snapshot: &snapshot, text: None }).unwrap();
    // Pending adds stay pending across the store's publication, and are committed later
    // beside it.
    let report = writer.update_sketches(&without_signatures(), &e[10..], &[e[0].doc], &small_policy()).unwrap();
    assert_eq!((report.added, report.deleted), (10, 1));
    assert_eq!(index.reader().unwrap().doc_count(), 0);
    writer.commit().unwrap();
    writer.add("web", NewDocument { meta, snapshot: &snapshot, text: None }).unwrap();
    writer.rollback().unwrap();
    drop(writer);
    let manifest = Manifest::load(dir.path()).unwrap();
    assert_eq!((manifest.format_version, manifest.collections.len()), (2, 1));
    assert_eq!(index.reader().unwrap().doc_count(), 1);
    let store = SketchStore::open(&dir.path().join(STORE_FILE)).unwrap();
    assert_eq!(store.format_version(), STORE_VERSION);
    assert_eq!(store.live_docs(), e[1..].iter().map(|x| x.doc).collect::<Vec<_>>());
    // A new writer reads it back and updates it.
    let mut writer = index.writer(WriterOptions::default()).unwrap();
    writer.update_sketches(&without_signatures(), &[], &[e[1].doc], &small_policy()).unwrap();
    drop(writer);
    assert_eq!(SketchStore::open(&dir.path().join(STORE_FILE)).unwrap().live_len(), 18);
    assert!(!dir.path().join("NEAR.LOCK").exists() && !dir.path().join(STORE_FILE).exists());
}

/// The index's writer and a writer of the store exclude each other through the one
/// `LOCK`: a store update waits while the index's writer is open (in this or another
/// process), and the index's writer is refused while a store update holds it.
#[test]
fn index_and_store_writers_exclude_each_other_through_one_lock() {
    use crate::{Index, WriterOptions};
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path(), serde_json::json!({})).unwrap();
    let path = dir.path().join(STORE_FILE);
    let writer = index.writer(WriterOptions::default()).unwrap();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let update = {
        let (path, done) = (path.clone(), done.clone());
        std::thread::spawn(move || {
            write_store(&path, &settings(), &entries(1, 5)).unwrap();
            done.store(true, std::sync::atomic::Ordering::SeqCst);
        })
    };
    std::thread::sleep(std::time::Duration::from_millis(400));
    assert!(!done.load(std::sync::atomic::Ordering::SeqCst), "the store was written while the index's writer was open");
    drop(writer);
    update.join().unwrap();
    assert_eq!(SketchStore::open(&path).unwrap().live_len(), 5);
    // While a store writer holds the lock, the index's writer is refused, naming it.
    let held = crate::lock::DirLock::wait(dir.path()).unwrap();
    match index.writer(WriterOptions::default()) {
        Err(Error::Locked { path }) => assert_eq!(path, dir.path().join("LOCK")),
        other => panic!("{other:?}"),
    }
    drop(held);
    // The standalone write kept the index's manifest (the store's section added to it).
    let manifest = Manifest::load(dir.path()).unwrap();
    assert_eq!((manifest.fingerprint_settings, manifest.format_version), (serde_json::json!({}), 2));
}

/// A manifest's version says whether it has the sketch section: format 1 with one, or 2
/// without, is refused; the section's own invariants are checked with the manifest's.
#[test]
fn the_manifest_version_follows_the_sketch_section() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(STORE_FILE);
    write_store(&path, &settings(), &entries(1, 5)).unwrap();
    let good = Manifest::load(dir.path()).unwrap();
    let file = Path::new("MANIFEST");
    assert_eq!(Manifest::from_bytes(&good.to_bytes(), file).unwrap(), good);
    let mut v1 = good.clone();
    v1.format_version = 1;
    assert!(Manifest::from_bytes(&v1.to_bytes(), file).unwrap_err().to_string().contains("format 1 with"));
    let mut bare = good.clone();
    bare.sketch = None;
    assert!(Manifest::from_bytes(&bare.to_bytes(), file).unwrap_err().to_string().contains("without a sketch"));
    let mut bad = good.clone();
    bad.sketch.as_mut().unwrap().tombstones = vec![3, 3];
    assert!(Manifest::from_bytes(&bad.to_bytes(), file).unwrap_err().to_string().contains("tombstones"));
    let mut bad = good;
    bad.sketch.as_mut().unwrap().bands = 1000;
    assert!(Manifest::from_bytes(&bad.to_bytes(), file).is_err());
}
