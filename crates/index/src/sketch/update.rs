//! Writing the sketch store: the segments of an update (its new documents, the merges the
//! policy picks) are written first, then the store's state is published as the `sketch`
//! section of the directory's `MANIFEST` with one swap, under the directory's `LOCK`:
//! through the index's writer for an index's store ([`IndexWriter::update_sketches`]),
//! or taken here for a standalone one ([`update_store`]). Files no manifest names are
//! removed after the swap, and so are the `NEAR` manifest and `NEAR.LOCK` of a store
//! written before format 4 (the section replaces them).

use std::path::Path;

use tessera_near::TableDesign;

use super::segment::{self, Segment};
use super::state::State;
use super::{
    LiveSegment, STORE_FILE, STORE_VERSION, SketchSegment, SketchStore, StoreEntry, StoreSettings, config, io,
    legacy_state, read_state, segment_path, split,
};
use crate::lock::DirLock;
use crate::manifest::{MANIFEST_FILE, MANIFEST_SKETCH_VERSION, Manifest};
use crate::merge::{MergePolicy, SegmentStat};
use crate::{Error, IndexWriter, Result, durable};

/// What an update did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UpdateReport {
    /// Documents written in a new segment.
    pub added: usize,
    /// Documents marked deleted.
    pub deleted: usize,
    /// Merges run, and the documents they rewrote.
    pub merges: usize,
    /// Documents the merges rewrote.
    pub merged_docs: usize,
    /// Segments after the update.
    pub segments: usize,
}

/// Writes a standalone store holding exactly `entries` (sorted by doc id here) at `path`
/// (`<dir>/NEAR`): one segment, its state published in `<dir>/MANIFEST` (created, without
/// collections, when the directory has none) under `<dir>/LOCK`, waited for; the previous
/// store's files are removed after the swap.
pub fn write_store(path: &Path, settings: &StoreSettings, entries: &[StoreEntry]) -> Result<()> {
    check(settings, entries)?;
    let _lock = DirLock::wait(split(path).0)?;
    let previous = read_state(path).ok().flatten().map_or(0, |s| s.generation);
    let state = whole(path, settings, previous, &sorted(entries))?;
    publish_in_dir(path, &state)?;
    remove_unnamed(path, &state.segments)
}

/// Updates the standalone store at `path` in place of rewriting it, under its directory's
/// `LOCK` (waited for): `add` (documents it does not hold yet; those it holds live are
/// skipped) go into one new segment, `delete` into the tombstones, then segments are
/// merged as `policy` picks them (the index's tiered policy, segments sized in live
/// bytes), and the state is published with one manifest swap. Fails when there is no
/// readable store at `path`, when its settings are not `settings`, or when an added
/// document was deleted from it (ids are never reused); the caller then rebuilds it with
/// [`write_store`]. A store of format 1 to 3 is upgraded by the first update that changes
/// it (a version-1 store is rewritten as one segment; segments of formats 2 and 3 are
/// kept and merged as the policy says).
pub fn update_store(
    path: &Path,
    settings: &StoreSettings,
    add: &[StoreEntry],
    delete: &[u64],
    policy: &MergePolicy,
) -> Result<UpdateReport> {
    check(settings, add)?;
    let _lock = DirLock::wait(split(path).0)?;
    // Opened to be rewritten, not queried: its band tables are not mapped.
    let store = SketchStore::from_state(path, read_state(path)?)?;
    let (state, report) = updated(path, store, settings, add, delete, policy)?;
    if let Some(state) = state {
        publish_in_dir(path, &state)?;
        remove_unnamed(path, &state.segments)?;
    }
    Ok(report)
}

impl IndexWriter {
    /// Writes the index's sketch store (`<index>/NEAR-<n>.seg`, the `sketch` section of
    /// `<index>/MANIFEST`) holding exactly `entries`, as [`write_store`] does, published
    /// with one manifest swap by this writer (its lock held: no other writer of the index
    /// or of the store runs meanwhile). Documents pending in the writer stay pending.
    pub fn write_sketches(&mut self, settings: &StoreSettings, entries: &[StoreEntry]) -> Result<()> {
        check(settings, entries)?;
        let path = self.dir().join(STORE_FILE);
        let previous = self.sketch_state(&path).ok().flatten().map_or(0, |s| s.generation);
        let state = whole(&path, settings, previous, &sorted(entries))?;
        self.publish_sketches(&path, &state)
    }

    /// Updates the index's sketch store as [`update_store`] does, published by this writer
    /// (see [`IndexWriter::write_sketches`]).
    pub fn update_sketches(
        &mut self,
        settings: &StoreSettings,
        add: &[StoreEntry],
        delete: &[u64],
        policy: &MergePolicy,
    ) -> Result<UpdateReport> {
        check(settings, add)?;
        let path = self.dir().join(STORE_FILE);
        let store = SketchStore::from_state(&path, self.sketch_state(&path)?)?;
        let (state, report) = updated(&path, store, settings, add, delete, policy)?;
        if let Some(state) = state {
            self.publish_sketches(&path, &state)?;
        }
        Ok(report)
    }

    /// The store's state in this writer's committed manifest, else in a `NEAR` file of
    /// an older format.
    fn sketch_state(&self, path: &Path) -> Result<Option<State>> {
        match &self.committed_manifest().sketch {
            Some(section) => State::from_section(&self.dir().join(MANIFEST_FILE), section).map(Some),
            None => legacy_state(path),
        }
    }

    fn publish_sketches(&mut self, path: &Path, state: &State) -> Result<()> {
        // The segments' renames become durable before the manifest names them.
        durable::sync_dir(self.dir())?;
        let section = state.to_section();
        self.publish(|m| set_section(m, &section))?;
        remove_unnamed(path, &state.segments)
    }
}

/// Puts `section` in `manifest` (which makes it format 2).
fn set_section(manifest: &mut Manifest, section: &super::SketchSection) {
    manifest.sketch = Some(section.clone());
    manifest.format_version = MANIFEST_SKETCH_VERSION;
}

/// Publishes `state` in the `MANIFEST` of the standalone store at `path` (created when the
/// directory has none), the caller holding the directory's `LOCK`.
fn publish_in_dir(path: &Path, state: &State) -> Result<()> {
    let (dir, _) = split(path);
    let mut manifest = match Manifest::load(dir) {
        Ok(m) => m,
        Err(Error::NotAnIndex { .. }) => Manifest::new(serde_json::Value::Null),
        Err(e) => return Err(e),
    };
    set_section(&mut manifest, &state.to_section());
    durable::sync_dir(dir)?;
    manifest.store(dir)
}

/// The state of a store holding exactly `entries` (sorted by id, distinct): their segment
/// written, numbered past `generation` and every number found in the directory.
fn whole(path: &Path, settings: &StoreSettings, generation: u64, entries: &[&StoreEntry]) -> Result<State> {
    let mut generation = generation.max(highest_number(path)?);
    let mut segments = Vec::new();
    if !entries.is_empty() {
        generation += 1;
        let file_len = segment::write_segment(&segment_path(path, generation), settings, entries)?;
        segments.push(SketchSegment { number: generation, docs: entries.len() as u64, file_len });
    }
    Ok(State { version: STORE_VERSION, settings: settings.clone(), generation, segments, tombstones: Vec::new() })
}

/// The state of `store` after the update, its new segments written (nothing published);
/// `None` when nothing changes.
fn updated(
    path: &Path,
    store: SketchStore,
    settings: &StoreSettings,
    add: &[StoreEntry],
    delete: &[u64],
    policy: &MergePolicy,
) -> Result<(Option<State>, UpdateReport)> {
    if store.settings() != settings {
        return Err(config("settings", format!("{} was built with other settings", path.display())));
    }
    let mut added: Vec<&StoreEntry> = Vec::new();
    for e in sorted(add) {
        let held = store.segments.iter().find_map(|s| s.segment.ordinal_of(e.doc).map(|i| s.is_live(i)));
        match held {
            Some(true) => {}
            Some(false) => {
                return Err(config("add", format!("document {} was deleted from {}", e.doc, path.display())));
            }
            None => added.push(e),
        }
    }
    let mut delete: Vec<u64> = delete.iter().copied().filter(|&d| store.ordinal_of(d).is_some()).collect();
    delete.sort_unstable();
    delete.dedup();
    let mut report = UpdateReport { added: added.len(), deleted: delete.len(), ..UpdateReport::default() };
    if added.is_empty() && delete.is_empty() {
        report.segments = store.segments.len();
        return Ok((None, report));
    }
    if store.format_version() == 1 {
        let mut all: Vec<StoreEntry> = store.entries();
        all.retain(|e| delete.binary_search(&e.doc).is_err());
        all.extend(added.into_iter().cloned());
        let all = sorted(&all);
        let state = whole(path, settings, 0, &all)?;
        report.segments = state.segments.len();
        return Ok((Some(state), report));
    }
    let SketchStore { segments, tombstones, generation, .. } = store;
    let mut tombstones: Vec<u64> = tombstones.into_iter().chain(delete).collect();
    tombstones.sort_unstable();
    tombstones.dedup();
    let mut generation = generation.max(highest_number(path)?);
    let mut segments: Vec<LiveSegment> =
        segments.into_iter().map(|s| LiveSegment::new(s.segment, s.number, &tombstones)).collect();
    if !added.is_empty() {
        generation += 1;
        let file = segment_path(path, generation);
        segment::write_segment(&file, settings, &added)?;
        segments.push(LiveSegment::new(Segment::open(&file)?, generation, &[]));
    }
    // At most as many merges as segments: each one lowers the count or purges deletes.
    for _ in 0..=segments.len() {
        let stats: Vec<SegmentStat> = segments.iter().enumerate().map(|(i, s)| s.stat(i)).collect();
        let Some(picked) = policy.pick(&stats) else { break };
        let inputs: Vec<&LiveSegment> = picked.iter().map(|&i| &segments[i]).collect();
        let live: usize = inputs.iter().map(|s| s.segment.len() - s.deleted).sum();
        let merged = if live == 0 {
            None
        } else {
            generation += 1;
            let file = segment_path(path, generation);
            segment::merge_segments(&file, settings, &inputs)?;
            Some(LiveSegment::new(Segment::open(&file)?, generation, &[]))
        };
        report.merges += 1;
        report.merged_docs += live;
        let at = picked[0];
        for &i in picked.iter().rev() {
            segments.remove(i);
        }
        if let Some(m) = merged {
            segments.insert(at, m);
        }
    }
    // Tombstones of documents merged away are dropped.
    tombstones.retain(|&d| segments.iter().any(|s| s.segment.ordinal_of(d).is_some_and(|i| !s.is_live(i))));
    let refs: Vec<SketchSegment> = segments
        .iter()
        .map(|s| SketchSegment { number: s.number, docs: s.segment.len() as u64, file_len: s.segment.file_len() })
        .collect();
    report.segments = refs.len();
    let state = State { version: STORE_VERSION, settings: settings.clone(), generation, segments: refs, tombstones };
    Ok((Some(state), report))
}

/// The segment number in a file name of this store (`NEAR-000012.seg`, also with a
/// `.tmp.<pid>` suffix), if it is one.
fn number_in(name: &str, file: &str) -> Option<u64> {
    let rest = file.strip_prefix(name)?.strip_prefix('-')?;
    let digits = rest.split('.').next()?;
    rest[digits.len()..].starts_with(".seg").then(|| digits.parse().ok()).flatten()
}

/// The highest segment number found in the directory (files of killed writers count:
/// a number is never reused).
fn highest_number(path: &Path) -> Result<u64> {
    let (dir, name) = split(path);
    let mut highest = 0;
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        if let Some(n) = number_in(&name, &entry.file_name().to_string_lossy()) {
            highest = highest.max(n);
        }
    }
    Ok(highest)
}

/// Removes segment files no manifest names, temporary files of killed writers, and the
/// `NEAR` manifest and `NEAR.LOCK` of a store before format 4. Runs under the lock, after
/// the manifest swap; a file it cannot remove is left for the next writer (it holds
/// nothing a reader of the new manifest needs).
fn remove_unnamed(path: &Path, named: &[SketchSegment]) -> Result<()> {
    let (dir, name) = split(path);
    let (lock, tmp) = (format!("{name}.LOCK"), format!("{name}.tmp."));
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        let file = entry.file_name().to_string_lossy().into_owned();
        let stale = match number_in(&name, &file) {
            Some(n) => file.contains(".tmp.") || !named.iter().any(|r| r.number == n),
            None => file == name || file == lock || file.starts_with(&tmp),
        };
        if stale {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    Ok(())
}

fn check(settings: &StoreSettings, entries: &[StoreEntry]) -> Result<()> {
    let p = settings.minhash.num_perm;
    settings.lsh.validate(p)?;
    TableDesign::choose(settings.simhash_distance, 1)?;
    if let Some(e) = entries.iter().find(|e| e.signature.0.len() != p) {
        return Err(config("signature", format!("document {} has {} values, not {p}", e.doc, e.signature.0.len())));
    }
    Ok(())
}

/// `entries` sorted by doc id, the first of each id kept.
fn sorted(entries: &[StoreEntry]) -> Vec<&StoreEntry> {
    let mut v: Vec<&StoreEntry> = entries.iter().collect();
    v.sort_by_key(|e| e.doc);
    v.dedup_by_key(|e| e.doc);
    v
}
