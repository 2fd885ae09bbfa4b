//! Whole runs of `tessera index --if-new`, `tessera near` and `tessera delete` on the demo
//! texts, in a temporary directory with relative paths. Snapshots in `tests/snapshots/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};

use insta::assert_snapshot;

mod support;

fn tessera(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    support::run(dir, args).into_parts()
}

fn ok(dir: &Path, args: &[&str]) -> String {
    support::run(dir, args).ok()
}

fn demo(name: &str) -> String {
    fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/demo/library").join(name))
        .unwrap()
}

fn redact_seconds(s: &str) -> String {
    s.lines()
        .map(|l| match (l.find(" in "), l.find(" s;")) {
            (Some(a), Some(b)) if a < b => format!("{} in [seconds]{}", &l[..a], &l[b + 2..]),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `lib/` has the three demo texts; `pages/` a copy of one, a copy of another with a
/// paragraph of new text appended (so it holds the original, but is not held by it),
/// a page that is half of a third, and a new text twice (two names, one run).
fn setup(dir: &Path) {
    let (press, bees, rivers) = (demo("printing-press.txt"), demo("honey-bees.txt"), demo("siberian-rivers.txt"));
    fs::create_dir_all(dir.join("lib")).unwrap();
    fs::create_dir_all(dir.join("pages")).unwrap();
    fs::write(dir.join("lib/press.txt"), &press).unwrap();
    fs::write(dir.join("lib/bees.txt"), &bees).unwrap();
    fs::write(dir.join("lib/rivers.txt"), &rivers).unwrap();
    fs::write(dir.join("pages/a-press-copy.txt"), &press).unwrap();
    let extra = "Beekeepers in the mountains move their hives twice a year, following the flowering meadows uphill as the snow retreats and the days grow long.";
    fs::write(dir.join("pages/b-bees-longer.txt"), format!("{bees}\n\n{extra}")).unwrap();
    fs::write(dir.join("pages/c-rivers-half.txt"), &rivers[..rivers.len() / 2]).unwrap();
    let fresh = "Lighthouse keepers kept logs of every passing ship, the weather at each watch and the oil burned by the lamp through the long winter nights on the rocky coast.";
    fs::write(dir.join("pages/d-new.txt"), fresh).unwrap();
    fs::write(dir.join("pages/e-new-again.txt"), fresh).unwrap();
}

#[test]
fn if_new_near_and_delete() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    ok(dir, &["index", "-q", "--index", "idx", "lib"]);
    let added = ok(dir, &["index", "-q", "--index", "idx", "--if-new", "pages"]);
    assert_snapshot!("if_new", redact_seconds(&added));

    let near = ok(dir, &["near", "--index", "idx", "pages/a-press-copy.txt", "--top", "3"]);
    assert_snapshot!("near_text", near);
    // One segment layer: the store's segments beside the index's, its state in the
    // index's MANIFEST, no file of its own besides them.
    assert!(dir.join("idx/NEAR-000001.seg").exists());
    assert!(!dir.join("idx/NEAR").exists() && !dir.join("idx/NEAR.LOCK").exists());
    // The index's store keeps the band and SimHash tables, not the signatures (`near`'s
    // estimate above comes from the snapshots, and matches the snapshot of before).
    let store = tessera_engine::sketch::SketchStore::open(&dir.join("idx/NEAR")).unwrap();
    assert_eq!((store.format_version(), store.settings().signatures), (4, false));
    assert_eq!(store.signature(0), None);
    drop(store);
    let json: serde_json::Value =
        serde_json::from_str(&ok(dir, &["near", "--index", "idx", "pages/e-new-again.txt", "--format", "json"]))
            .unwrap();
    assert_snapshot!("near_json", serde_json::to_string_pretty(&json).unwrap());

    // Deleting the new text: `near` no longer finds it, and the store follows.
    let doc = json[0]["doc"].as_u64().unwrap().to_string();
    assert_snapshot!("delete", ok(dir, &["delete", "--index", "idx", &doc, &doc]));
    let after = ok(dir, &["near", "--index", "idx", "pages/e-new-again.txt", "--format", "json"]);
    assert_eq!(after.trim(), "[]");
    // `stats` counts live documents; the delete's merge already purged the deleted one (a
    // delete merges as the policy picks, and one of a few documents is past its 20 %).
    let stats: serde_json::Value =
        serde_json::from_str(&ok(dir, &["stats", "--index", "idx", "--format", "json"])).unwrap();
    let collection = &stats["collections"][0];
    assert_eq!((collection["docs"].as_u64(), collection["deleted"].as_u64()), (Some(4), Some(0)), "{stats}");
    // The deleted text is new again.
    let again = ok(dir, &["index", "-q", "--index", "idx", "--if-new", "pages/d-new.txt"]);
    assert!(again.starts_with("added 1 new documents"), "{again}");
    // The store follows the add with one more segment, not a rewrite of the ones it has.
    let segments = || -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir.join("idx"))
            .unwrap()
            .map(|f| f.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|f| f.starts_with("NEAR-") && f.ends_with(".seg"))
            .collect();
        v.sort();
        v
    };
    let before = segments();
    ok(dir, &["near", "--index", "idx", "pages/d-new.txt"]);
    let after = segments();
    assert_eq!(after.len(), before.len() + 1, "{before:?} -> {after:?}");
    assert!(before.iter().all(|s| after.contains(s)), "{before:?} -> {after:?}");

    // A damaged store is rebuilt, not trusted.
    let store = dir.join("idx").join(&after[0]);
    let mut bytes = fs::read(&store).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 1;
    fs::write(&store, &bytes).unwrap();
    assert_eq!(ok(dir, &["near", "--index", "idx", "pages/a-press-copy.txt", "--top", "3"]), near);
}

#[test]
fn kept_texts_add_the_character_cosine() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    ok(dir, &["index", "-q", "--index", "idx", "--keep-texts", "lib"]);
    let json: serde_json::Value =
        serde_json::from_str(&ok(dir, &["near", "--index", "idx", "pages/b-bees-longer.txt", "--format", "json"]))
            .unwrap();
    let hit = &json[0];
    assert_eq!(hit["title"], "How a Honey Bee Colony Works", "the first line names a text without a title");
    let cosine = hit["char_cosine"].as_f64().unwrap();
    // The page is the text plus one new paragraph: nearly the same profile, not quite.
    assert!(cosine > 0.9 && cosine < 1.0, "{cosine}");
    assert!(hit["doc_in_query"].as_f64().unwrap() > 0.99);
    assert!(hit["query_in_doc"].as_f64().unwrap() < 0.95);
}

#[test]
fn bad_input_fails_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    let (code, _, err) = tessera(dir, &["near", "--index", "missing", "pages/d-new.txt"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("missing"), "{err}");
    ok(dir, &["index", "-q", "--index", "idx", "lib"]);
    let (code, _, err) = tessera(dir, &["near", "--index", "idx", "nope.txt"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("nope.txt"), "{err}");
    let (code, _, err) = tessera(dir, &["delete", "--index", "idx", "12345"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("12345"), "{err}");
    let (code, _, err) = tessera(dir, &["index", "--index", "idx", "--if-new", "--min-containment", "0", "pages"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("--min-containment"), "{err}");
}

/// A page that is a quarter of an indexed text (Jaccard about 0.25, far below what the
/// bands are tuned for) is found without `--exhaustive`, as containment finds it, and
/// `--exhaustive` lists no document that shares nothing.
#[test]
fn near_finds_what_containment_finds_and_never_lists_zero() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    ok(dir, &["index", "-q", "--index", "idx", "lib"]);
    let rivers = demo("siberian-rivers.txt");
    fs::write(dir.join("pages/quarter.txt"), &rivers[..rivers.floor_char_boundary(rivers.len() / 4)]).unwrap();
    let hits: serde_json::Value =
        serde_json::from_str(&ok(dir, &["near", "--index", "idx", "pages/quarter.txt", "--format", "json"])).unwrap();
    let rivers = hits.as_array().unwrap().iter().find(|h| h["seen_at"][0] == "lib/rivers.txt");
    let rivers = rivers.unwrap_or_else(|| panic!("the containing text is listed: {hits}"));
    assert!(rivers["query_in_doc"].as_f64().unwrap() > 0.95, "{rivers}");
    assert!(rivers["jaccard"].as_f64().unwrap() < 0.35, "{rivers}");
    let all: serde_json::Value = serde_json::from_str(&ok(
        dir,
        &["near", "--index", "idx", "pages/c-rivers-half.txt", "--exhaustive", "--format", "json"],
    ))
    .unwrap();
    for hit in all.as_array().unwrap() {
        assert!(hit["jaccard"].as_f64().unwrap() > 0.0, "{hit}");
    }
}

/// Indexing the same folder again with `--if-new` attaches nothing twice: each page is
/// reported as already indexed (from its own path) or seen in the document that holds it,
/// named by its path, and every "seen at" list is unchanged.
#[test]
fn if_new_again_on_the_same_folder_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    ok(dir, &["index", "-q", "--index", "idx", "lib"]);
    ok(dir, &["index", "-q", "--index", "idx", "--if-new", "pages"]);
    let near = |page: &str| ok(dir, &["near", "--index", "idx", page, "--format", "json"]);
    let before = near("pages/a-press-copy.txt");
    let again: serde_json::Value =
        serde_json::from_str(&ok(dir, &["index", "-q", "--index", "idx", "--if-new", "--format", "json", "pages"]))
            .unwrap();
    assert_eq!(again["added"], 0, "{again}");
    let seen = again["seen"].as_array().unwrap();
    assert_eq!(seen.len(), 5, "{again}");
    let press = seen.iter().find(|s| s["origin"] == "pages/a-press-copy.txt").unwrap();
    assert_eq!(press["into_origin"], "lib/press.txt", "{press}");
    assert_eq!(press["same_origin"], false);
    let fresh = seen.iter().find(|s| s["origin"] == "pages/d-new.txt").unwrap();
    assert_eq!(fresh["same_origin"], true, "{fresh}");
    assert_eq!(near("pages/a-press-copy.txt"), before, "no place attached twice");
}

/// IEEE crc32, as the index's files end with.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// Makes the index at `idx` look as builds before store format 4 left it: the sketch
/// section taken out of `MANIFEST` (format 1 again) and written as the store's own `NEAR`
/// manifest (format 3), with `NEAR.LOCK` beside it; the segments are the same files.
fn as_format_3(idx: &Path) {
    let bytes = fs::read(idx.join("MANIFEST")).unwrap();
    let mut body: serde_json::Value = serde_json::from_slice(&bytes[20..bytes.len() - 4]).unwrap();
    let s = body.as_object_mut().unwrap().remove("sketch").unwrap();
    body["format_version"] = 1.into();
    let body = serde_json::to_vec_pretty(&body).unwrap();
    let mut m = b"TSRMANIF".to_vec();
    m.extend_from_slice(&1u32.to_le_bytes());
    m.extend_from_slice(&(body.len() as u64).to_le_bytes());
    m.extend_from_slice(&body);
    m.extend_from_slice(&crc32(&m).to_le_bytes());
    fs::write(idx.join("MANIFEST"), &m).unwrap();
    let n = |k: &str| s[k].as_u64().unwrap();
    let segments = s["segments"].as_array().unwrap();
    let tombstones = s.get("tombstones").and_then(|t| t.as_array()).cloned().unwrap_or_default();
    let mut near = b"TSRNEAR\0".to_vec();
    for v in [3, n("num_perm") as u32] {
        near.extend_from_slice(&v.to_le_bytes());
    }
    near.extend_from_slice(&n("seed").to_le_bytes());
    for v in [n("bands"), n("rows"), n("simhash_distance"), segments.len() as u64] {
        near.extend_from_slice(&(v as u32).to_le_bytes());
    }
    for v in [tombstones.len() as u64, n("settings_hash"), n("generation")] {
        near.extend_from_slice(&v.to_le_bytes());
    }
    for v in [u32::from(s["signatures"].as_bool().unwrap()), 0] {
        near.extend_from_slice(&v.to_le_bytes());
    }
    for seg in segments {
        for k in ["number", "docs", "file_len"] {
            near.extend_from_slice(&seg[k].as_u64().unwrap().to_le_bytes());
        }
    }
    for t in tombstones {
        near.extend_from_slice(&t.as_u64().unwrap().to_le_bytes());
    }
    near.extend_from_slice(&crc32(&near).to_le_bytes());
    fs::write(idx.join("NEAR"), &near).unwrap();
    fs::write(idx.join("NEAR.LOCK"), b"").unwrap();
}

/// An index whose sketch store is of format 3 (its own `NEAR` manifest and `NEAR.LOCK`, as
/// builds before format 4 left it): `near` answers from it as it is while it is up to
/// date, and the first `near` that has to change it upgrades it in place and says so, once.
#[test]
fn an_old_sketch_store_is_read_then_upgraded_with_a_message() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    ok(dir, &["index", "-q", "--index", "idx", "lib"]);
    let near = |page: &str| tessera(dir, &["near", "--index", "idx", page, "--format", "json"]);
    let (_, expected, _) = near("pages/a-press-copy.txt");
    as_format_3(&dir.join("idx"));
    let store = tessera_engine::sketch::SketchStore::open(&dir.join("idx/NEAR")).unwrap();
    assert_eq!(store.format_version(), 3);
    drop(store);
    let (code, out, err) = near("pages/a-press-copy.txt");
    assert_eq!((code, out.as_str(), err.as_str()), (Some(0), expected.as_str(), ""));
    assert!(dir.join("idx/NEAR").exists(), "an old store is read as it is");

    ok(dir, &["index", "-q", "--index", "idx", "pages/d-new.txt"]);
    let (code, out, err) = near("pages/e-new-again.txt");
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("upgraded from format 3 to 4") && err.contains("idx"), "{err}");
    assert!(out.contains("pages/d-new.txt"), "{out}");
    assert!(!dir.join("idx/NEAR").exists() && !dir.join("idx/NEAR.LOCK").exists());
    let manifest = fs::read(dir.join("idx/MANIFEST")).unwrap();
    assert_eq!(manifest[8], 2, "the store's state is a section of the manifest");
    let (_, again, err) = near("pages/a-press-copy.txt");
    assert_eq!((again.as_str(), err.as_str()), (expected.as_str(), ""), "said once");
}

/// While another process holds the index's one `LOCK` (a writer adding documents), `near`
/// neither waits nor fails nor writes: the documents its store lacks are compared from
/// memory, with the answers the updated store gives once the lock is free.
#[test]
fn near_answers_while_another_process_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    ok(dir, &["index", "-q", "--index", "idx", "lib"]);
    let near = |page: &str| ok(dir, &["near", "--index", "idx", page, "--format", "json"]);
    near("pages/a-press-copy.txt");
    ok(dir, &["index", "-q", "--index", "idx", "pages"]);
    let manifest = fs::read(dir.join("idx/MANIFEST")).unwrap();
    let lock = fs::File::options().write(true).create(true).truncate(false).open(dir.join("idx/LOCK")).unwrap();
    lock.lock().unwrap();
    let pages = ["pages/a-press-copy.txt", "pages/b-bees-longer.txt", "pages/d-new.txt"];
    let busy: Vec<String> = pages.iter().map(|p| near(p)).collect();
    assert_eq!(fs::read(dir.join("idx/MANIFEST")).unwrap(), manifest, "nothing written");
    assert!(busy[2].contains("pages/e-new-again.txt"), "{}", busy[2]);
    drop(lock);
    let free: Vec<String> = pages.iter().map(|p| near(p)).collect();
    assert_ne!(fs::read(dir.join("idx/MANIFEST")).unwrap(), manifest, "brought up to date");
    assert_eq!(busy, free);
}
