//! The check queue on disk: one directory per accepted check.
//!
//! ```text
//! DATA/checks/<id>/check.json   the CheckRecord (status, progress, edits), replaced atomically
//! DATA/checks/<id>/upload       the uploaded bytes (a file, or the UTF-8 text of a JSON check)
//! DATA/checks/<id>/report.json  the report with the reviewer's edits applied, once there is one
//! ```
//!
//! A check is accepted by writing `upload` and `check.json` into
//! `checks/.incoming-<id>/`, syncing them, renaming the directory to `checks/<id>` and
//! syncing `checks/`; only then does the client get its `202`. A crash before the rename
//! leaves an `.incoming-*` directory that start-up deletes (the client never got an id);
//! after it, start-up finds the record and runs the check again unless it is finished.
//! Every later change replaces a file by writing `NAME.tmp`, syncing it and renaming it
//! over `NAME`, so a reader sees the old or the new file, never half of one.
//!
//! The checks' files are bounded ([`CheckStore::with_max_bytes`]): one check holds its
//! upload (at most the upload limit) and its report (the suspect's text, capped, with its
//! blocks: 46 MB for 16 MiB of text matched throughout); past the cap on them all, the
//! oldest finished checks are dropped (renamed to `.incoming-drop-<id>`, then deleted, so a
//! reader sees a check whole or not at all). Checks still owed work are never dropped.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use tessera_engine::{BlockKind, DocId, Report};
use utoipa::ToSchema;

use crate::error::{Error, IoContext, Result};

/// Version of the `check.json` layout; a record of another version is refused.
pub const RECORD_VERSION: u32 = 1;

const RECORD_FILE: &str = "check.json";
const UPLOAD_FILE: &str = "upload";
const REPORT_FILE: &str = "report.json";
const INCOMING_PREFIX: &str = ".incoming-";

/// Where a check is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Accepted and waiting for a worker.
    Queued,
    /// A worker is extracting or searching.
    Running,
    /// A report is ready but some collections missed their timeout; it completes when they
    /// answer.
    Partial,
    /// Finished: the report is final (it is still marked partial if a late collection
    /// failed or never answered).
    Done,
    /// The document could not be checked (`error` says why).
    Failed,
}

impl Status {
    /// Whether a worker still owes this check something (it is requeued at start-up).
    #[must_use]
    pub fn pending(self) -> bool {
        matches!(self, Status::Queued | Status::Running | Status::Partial)
    }
}

/// What a worker is doing with a running check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// Waiting in the queue.
    Queued,
    /// Reading the text out of the upload.
    Extracting,
    /// Searching the collections.
    Searching,
    /// Waiting for collections that missed their timeout.
    Waiting,
    /// Nothing left to do.
    Finished,
}

/// How far a check got.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, Default)]
pub struct Progress {
    /// Collections to search (known once extraction is done).
    pub collections_total: u32,
    /// Collections that answered.
    pub collections_done: u32,
}

/// A reviewer's edit, as stored with the check and replayed when the report is rebuilt
/// (a late collection answering). Blocks are named by source and suspect span, which
/// survive a rebuild, not by their index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "target", rename_all = "lowercase")]
pub enum Edit {
    /// A source switched on or off.
    Source {
        /// Source document id.
        source: u64,
        /// Whether it counts.
        enabled: bool,
    },
    /// A block reclassified.
    Block {
        /// Source document id of the block.
        source: u64,
        /// Suspect span start, in characters.
        start: u64,
        /// Suspect span end, in characters.
        end: u64,
        /// The new kind.
        #[schema(value_type = String, example = "citation")]
        kind: BlockKind,
    },
    /// The report's filters set (crates/report/SCHEMA.md, "Filters"), all four at once.
    Filters {
        /// A borrowing in quotation marks counts as a citation.
        exclude_quotes: bool,
        /// Blocks in the bibliography count for nothing.
        exclude_bibliography: bool,
        /// Blocks of fewer words count for nothing (0: off).
        min_words: u32,
        /// Sources covering less than this percent count for nothing (0: off).
        min_percent: f64,
    },
}

impl Edit {
    /// Applies the edit; `false` when the report has no such source or block, or the
    /// filters are out of range.
    pub fn apply(&self, report: &mut Report) -> bool {
        match *self {
            Edit::Source { source, enabled } => report.set_source_enabled(DocId(source), enabled),
            Edit::Block { source, start, end, kind } => {
                let found = report.blocks.iter().find(|b| {
                    b.source.0 == source
                        && b.suspect_span.chars.start as u64 == start
                        && b.suspect_span.chars.end as u64 == end
                });
                match found.map(|b| b.id) {
                    Some(id) => report.set_block_kind(id, kind),
                    None => false,
                }
            }
            Edit::Filters { exclude_quotes, exclude_bibliography, min_words, min_percent } => {
                let mut filters = report.filters;
                filters.exclude_quotes = exclude_quotes;
                filters.exclude_bibliography = exclude_bibliography;
                filters.min_words = min_words;
                filters.min_percent = min_percent;
                report.set_filters(filters).is_ok()
            }
        }
    }

    /// Whether `other` changes the same thing (then only the later one matters).
    fn same_target(&self, other: &Edit) -> bool {
        match (self, other) {
            (Edit::Source { source: a, .. }, Edit::Source { source: b, .. }) => a == b,
            (Edit::Block { source: a, start: s1, end: e1, .. }, Edit::Block { source: b, start: s2, end: e2, .. }) => {
                (a, s1, e1) == (b, s2, e2)
            }
            (Edit::Filters { .. }, Edit::Filters { .. }) => true,
            _ => false,
        }
    }
}

/// Everything the server knows about a check, as kept in `check.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckRecord {
    /// [`RECORD_VERSION`].
    pub version: u32,
    /// The check id: 32 lower-case hex digits.
    pub id: String,
    /// Acceptance order (the queue runs checks in this order after a restart).
    pub seq: u64,
    /// The document's name as given (directories stripped).
    pub name: String,
    /// Title given with a JSON check (else the extracted title is used).
    pub title: Option<String>,
    /// Whether the upload is a file to extract (`false`: UTF-8 text as is).
    pub is_file: bool,
    /// Bytes uploaded.
    pub upload_bytes: u64,
    /// Unix time of acceptance, milliseconds.
    pub created_ms: u64,
    /// Unix time of the last change, milliseconds.
    pub updated_ms: u64,
    /// Where the check is.
    pub status: Status,
    /// What the worker is doing.
    pub stage: Stage,
    /// Collections searched so far.
    pub progress: Progress,
    /// Why the check failed.
    pub error: Option<String>,
    /// Things worth telling the reader (extraction warnings, a collection that failed).
    pub warnings: Vec<String>,
    /// Collections that missed their timeout and answered later.
    pub late_collections: Vec<String>,
    /// How many times a worker started this check (more than 1 after a restart).
    pub attempts: u32,
    /// The reviewer's edits, in order.
    pub edits: Vec<Edit>,
    /// The collection of submissions the document is added to once checked (absent in
    /// records written before submissions existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submit_to: Option<String>,
    /// The submission's document id, once added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submitted: Option<u64>,
}

impl CheckRecord {
    /// A freshly accepted check.
    #[must_use]
    pub fn new(id: String, seq: u64, name: String, title: Option<String>, is_file: bool, upload_bytes: u64) -> Self {
        let now = now_ms();
        Self {
            version: RECORD_VERSION,
            id,
            seq,
            name,
            title,
            is_file,
            upload_bytes,
            created_ms: now,
            updated_ms: now,
            status: Status::Queued,
            stage: Stage::Queued,
            progress: Progress::default(),
            error: None,
            warnings: Vec::new(),
            late_collections: Vec::new(),
            attempts: 0,
            edits: Vec::new(),
            submit_to: None,
            submitted: None,
        }
    }

    /// Adds an edit, dropping an earlier one of the same target.
    pub fn push_edit(&mut self, edit: Edit) {
        self.edits.retain(|e| !e.same_target(&edit));
        self.edits.push(edit);
    }
}

/// Unix time in milliseconds.
#[must_use]
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Whether `id` has the shape of a check id (so it can never name another path).
#[must_use]
pub fn valid_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A new random check id.
pub fn new_id() -> Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| Error::Random(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// An upload being received into the store ([`CheckStore::stage`]); deleted when dropped
/// unless accepted.
#[derive(Debug)]
pub struct Staged {
    dir: PathBuf,
    accepted: bool,
}

impl Staged {
    /// The file the upload is written to.
    #[must_use]
    pub fn file(&self) -> PathBuf {
        self.dir.join(UPLOAD_FILE)
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.accepted {
            // Best effort: what is left is deleted when the store is next opened.
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// The check queue directory.
#[derive(Debug)]
pub struct CheckStore {
    dir: PathBuf,
    /// The checks' bytes beyond which the oldest finished ones are dropped.
    max_bytes: u64,
    /// The checks' bytes on disk as last counted plus what was written since (`None`:
    /// not counted yet); held while the oldest are dropped, so one count runs at a time.
    used: Mutex<Option<u64>>,
}

impl CheckStore {
    /// Opens (creating) `data_dir/checks` and deletes what an interrupted acceptance or
    /// write left behind.
    pub fn open(data_dir: &Path) -> Result<Self> {
        let dir = data_dir.join("checks");
        fs_err::create_dir_all(&dir).at(&dir)?;
        for entry in fs_err::read_dir(&dir).at(&dir)? {
            let entry = entry.at(&dir)?;
            let name = entry.file_name();
            if name.to_string_lossy().starts_with(INCOMING_PREFIX) {
                let path = entry.path();
                fs_err::remove_dir_all(&path).at(&path)?;
            }
        }
        Ok(Self { dir, max_bytes: u64::MAX, used: Mutex::new(None) })
    }

    /// This store with its checks' files capped at `max_bytes` in all: once they pass it,
    /// the oldest finished checks are dropped until they fit ([`CheckStore::prune`]).
    #[must_use]
    pub fn with_max_bytes(self, max_bytes: u64) -> Self {
        Self { max_bytes, ..self }
    }

    /// The directory of checks.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn check_dir(&self, id: &str) -> PathBuf {
        self.dir.join(id)
    }

    /// Stores a new check durably: when this returns `Ok`, a crash cannot lose it.
    pub fn accept(&self, record: &CheckRecord, upload: &[u8]) -> Result<()> {
        let incoming = self.dir.join(format!("{INCOMING_PREFIX}{}", record.id));
        fs_err::create_dir(&incoming).at(&incoming)?;
        write_synced(&incoming.join(UPLOAD_FILE), upload)?;
        let json = to_json(record)?;
        write_synced(&incoming.join(RECORD_FILE), &json)?;
        sync_dir(&incoming)?;
        let target = self.check_dir(&record.id);
        fs_err::rename(&incoming, &target).at(&target)?;
        sync_dir(&self.dir)?;
        self.wrote(&record.id, (upload.len() + json.len()) as u64);
        Ok(())
    }

    /// A directory where the upload of check `id` is written as it arrives
    /// ([`Staged::file`]), so that a request never holds a whole upload in memory. Until
    /// [`CheckStore::accept_staged`] it is invisible to readers; dropped, or left by a
    /// crash, it is deleted (the latter at the next [`CheckStore::open`]).
    pub fn stage(&self, id: &str) -> Result<Staged> {
        let dir = self.dir.join(format!("{INCOMING_PREFIX}{id}"));
        fs_err::create_dir(&dir).at(&dir)?;
        Ok(Staged { dir, accepted: false })
    }

    /// Stores a check whose upload was staged: the upload is synced, the record written,
    /// and the directory renamed into place (durable when this returns `Ok`).
    pub fn accept_staged(&self, record: &CheckRecord, mut staged: Staged) -> Result<()> {
        let upload = staged.file();
        let file = fs_err::File::open(&upload).at(&upload)?;
        file.sync_all().at(&upload)?;
        let upload_bytes = file.metadata().at(&upload)?.len();
        let json = to_json(record)?;
        write_synced(&staged.dir.join(RECORD_FILE), &json)?;
        sync_dir(&staged.dir)?;
        let target = self.check_dir(&record.id);
        fs_err::rename(&staged.dir, &target).at(&target)?;
        staged.accepted = true;
        sync_dir(&self.dir)?;
        self.wrote(&record.id, upload_bytes + json.len() as u64);
        Ok(())
    }

    /// The record of a check; `None` when there is no such check.
    pub fn load(&self, id: &str) -> Result<Option<CheckRecord>> {
        if !valid_id(id) {
            return Ok(None);
        }
        let path = self.check_dir(id).join(RECORD_FILE);
        let bytes = match fs_err::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::Io { path, source: e }),
        };
        let record: CheckRecord =
            serde_json::from_slice(&bytes).map_err(|e| Error::Corrupt { file: path.clone(), reason: e.to_string() })?;
        if record.version != RECORD_VERSION {
            return Err(Error::Corrupt {
                file: path,
                reason: format!("record version {} (this build reads {RECORD_VERSION})", record.version),
            });
        }
        Ok(Some(record))
    }

    /// Replaces a check's record atomically (stamping `updated_ms`).
    pub fn save(&self, record: &mut CheckRecord) -> Result<()> {
        record.updated_ms = now_ms();
        replace(&self.check_dir(&record.id).join(RECORD_FILE), &to_json(record)?)
    }

    /// The first `len` bytes of a check's upload (to tell its format).
    pub fn upload_head(&self, id: &str, len: usize) -> Result<Vec<u8>> {
        use std::io::Read;
        let path = self.check_dir(id).join(UPLOAD_FILE);
        let file = fs_err::File::open(&path).at(&path)?;
        let mut head = Vec::with_capacity(len);
        file.take(len as u64).read_to_end(&mut head).at(&path)?;
        Ok(head)
    }

    /// The whole upload of a check.
    pub fn upload(&self, id: &str) -> Result<Vec<u8>> {
        let path = self.check_dir(id).join(UPLOAD_FILE);
        fs_err::read(&path).at(&path)
    }

    /// Replaces a check's report atomically.
    pub fn save_report(&self, id: &str, report: &Report) -> Result<()> {
        let path = self.check_dir(id).join(REPORT_FILE);
        let bytes =
            serde_json::to_vec(report).map_err(|e| Error::Corrupt { file: path.clone(), reason: e.to_string() })?;
        let before = std::fs::metadata(&path).map_or(0, |m| m.len());
        replace(&path, &bytes)?;
        self.wrote(id, (bytes.len() as u64).saturating_sub(before));
        Ok(())
    }

    /// A check's report; `None` before there is one.
    pub fn load_report(&self, id: &str) -> Result<Option<Report>> {
        if !valid_id(id) {
            return Ok(None);
        }
        let path = self.check_dir(id).join(REPORT_FILE);
        let bytes = match fs_err::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::Io { path, source: e }),
        };
        let mut report: Report =
            serde_json::from_slice(&bytes).map_err(|e| Error::Corrupt { file: path, reason: e.to_string() })?;
        // Shares, totals and segments are derived: a report stored by an older version
        // gets the fields it lacks (segments) and the counting rules of this one.
        report.recompute();
        Ok(Some(report))
    }

    /// Every check, in acceptance order.
    pub fn all(&self) -> Result<Vec<CheckRecord>> {
        let mut out = Vec::new();
        for entry in fs_err::read_dir(&self.dir).at(&self.dir)? {
            let entry = entry.at(&self.dir)?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if let Some(record) = self.load(name)? {
                out.push(record);
            }
        }
        out.sort_by_key(|r| (r.seq, r.created_ms));
        Ok(out)
    }

    /// Counts `bytes` more written for check `id` and drops the oldest finished checks,
    /// never `id`, when the cap is passed. Dropping is best effort: what it could not do is
    /// logged, and tried again at the next write (the write itself stands).
    fn wrote(&self, id: &str, bytes: u64) {
        if self.max_bytes == u64::MAX {
            return;
        }
        let over = {
            let mut used = self.used.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            match used.as_mut() {
                Some(used) => {
                    *used = used.saturating_add(bytes);
                    *used > self.max_bytes
                }
                None => true,
            }
        };
        if over && let Err(e) = self.prune_keeping(Some(id)) {
            tracing::warn!("dropping the oldest checks under {}: {e}", self.dir.display());
        }
    }

    /// Counts the checks' files and drops the oldest finished checks (done or failed, in
    /// acceptance order) until the rest fit the cap ([`CheckStore::with_max_bytes`]);
    /// checks still owed work stay, whatever they hold. Returns the ids dropped. A dropped
    /// check is gone as if never made: `load` finds nothing.
    pub fn prune(&self) -> Result<Vec<String>> {
        self.prune_keeping(None)
    }

    /// [`CheckStore::prune`], never dropping `keep` (the check just written).
    fn prune_keeping(&self, keep: Option<&str>) -> Result<Vec<String>> {
        let mut used = self.used.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut total = 0u64;
        let mut finished: Vec<(u64, u64, String, u64)> = Vec::new();
        for entry in fs_err::read_dir(&self.dir).at(&self.dir)? {
            let entry = entry.at(&self.dir)?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if !valid_id(name) {
                continue;
            }
            let bytes = dir_bytes(&entry.path());
            total = total.saturating_add(bytes);
            // A record that cannot be read is not dropped: it is not known to be finished.
            if let Ok(Some(record)) = self.load(name)
                && !record.status.pending()
                && keep != Some(name)
            {
                finished.push((record.seq, record.created_ms, record.id, bytes));
            }
        }
        finished.sort_unstable();
        let mut dropped = Vec::new();
        for (_, _, id, bytes) in finished {
            if total <= self.max_bytes {
                break;
            }
            let from = self.check_dir(&id);
            let gone = self.dir.join(format!("{INCOMING_PREFIX}drop-{id}"));
            fs_err::rename(&from, &gone).at(&gone)?;
            total = total.saturating_sub(bytes);
            // Left behind by a crash, it is deleted at the next start-up.
            let _ = std::fs::remove_dir_all(&gone);
            dropped.push(id);
        }
        if !dropped.is_empty() {
            sync_dir(&self.dir)?;
            tracing::info!(
                "dropped the {} oldest finished check(s) to keep {} under {} MB ({} MB kept)",
                dropped.len(),
                self.dir.display(),
                self.max_bytes / 1_000_000,
                total / 1_000_000
            );
        }
        *used = Some(total);
        Ok(dropped)
    }
}

/// Bytes of the files directly in `dir` (a check's directory has no subdirectories).
fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries.filter_map(|e| e.ok()?.metadata().ok()).filter(std::fs::Metadata::is_file).map(|m| m.len()).sum()
    })
}

fn to_json(record: &CheckRecord) -> Result<Vec<u8>> {
    serde_json::to_vec_pretty(record)
        .map_err(|e| Error::Corrupt { file: PathBuf::from(RECORD_FILE), reason: e.to_string() })
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut file = fs_err::File::create(path).at(path)?;
    file.write_all(bytes).at(path)?;
    file.sync_all().at(path)
}

/// Writes `path` atomically: a synced temporary file renamed over it, then the
/// directory synced so the rename itself is durable.
fn replace(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("json.tmp");
    write_synced(&tmp, bytes)?;
    fs_err::rename(&tmp, path).at(path)?;
    match path.parent() {
        Some(dir) => sync_dir(dir),
        None => Ok(()),
    }
}

fn sync_dir(dir: &Path) -> Result<()> {
    fs_err::File::open(dir).and_then(|d| d.sync_all()).at(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str, seq: u64) -> CheckRecord {
        CheckRecord::new(id.to_owned(), seq, "a.txt".into(), None, true, 3)
    }

    #[test]
    fn accepted_check_reads_back_and_leftovers_are_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let store = CheckStore::open(dir.path()).unwrap();
        let id = new_id().unwrap();
        assert!(valid_id(&id));
        store.accept(&record(&id, 1), b"abc").unwrap();
        assert_eq!(store.upload(&id).unwrap(), b"abc");
        let mut r = store.load(&id).unwrap().unwrap();
        assert_eq!(r.status, Status::Queued);
        r.status = Status::Done;
        store.save(&mut r).unwrap();
        assert_eq!(store.load(&id).unwrap().unwrap().status, Status::Done);

        // An acceptance interrupted before its rename is invisible and removed.
        std::fs::create_dir(store.dir().join(".incoming-0123")).unwrap();
        let store = CheckStore::open(dir.path()).unwrap();
        assert!(!store.dir().join(".incoming-0123").exists());
        assert_eq!(store.all().unwrap().len(), 1);
    }

    #[test]
    fn past_the_cap_the_oldest_finished_go_and_pending_checks_stay() {
        let dir = tempfile::tempdir().unwrap();
        let store = CheckStore::open(dir.path()).unwrap().with_max_bytes(25_000);
        let statuses = [Status::Done, Status::Running, Status::Failed, Status::Done, Status::Queued, Status::Partial];
        let ids: Vec<String> = (0..statuses.len()).map(|_| new_id().unwrap()).collect();
        for (seq, id) in ids.iter().enumerate() {
            store.accept(&record(id, seq as u64), &[b'x'; 10_000]).unwrap();
        }
        // Accepted, queued: nothing finished, nothing dropped however far over the cap.
        assert_eq!(store.all().unwrap().len(), 6);
        for (id, status) in ids.iter().zip(statuses) {
            let mut r = store.load(id).unwrap().unwrap();
            r.status = status;
            store.save(&mut r).unwrap();
        }
        // The finished in acceptance order until the rest fit: 0, 2, then 3.
        assert_eq!(store.prune().unwrap(), vec![ids[0].clone(), ids[2].clone(), ids[3].clone()]);
        let left: Vec<String> = store.all().unwrap().into_iter().map(|r| r.id).collect();
        assert_eq!(left, vec![ids[1].clone(), ids[4].clone(), ids[5].clone()]);
        // Pending checks stay even over the cap.
        assert!(store.prune().unwrap().is_empty());
        assert_eq!(store.all().unwrap().len(), 3);
        let names: Vec<_> = std::fs::read_dir(store.dir()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 3, "{names:?}");
    }

    #[test]
    fn ids_that_could_name_other_paths_are_never_looked_up() {
        let dir = tempfile::tempdir().unwrap();
        let store = CheckStore::open(dir.path()).unwrap();
        for id in ["..", "../checks", "ABCDEF0123456789ABCDEF0123456789", "x/../../etc/passwd", ""] {
            assert!(!valid_id(id));
            assert!(store.load(id).unwrap().is_none());
            assert!(store.load_report(id).unwrap().is_none());
        }
    }

    #[test]
    fn a_later_edit_of_the_same_target_replaces_the_earlier() {
        let mut r = record("00000000000000000000000000000000", 0);
        r.push_edit(Edit::Source { source: 1, enabled: false });
        r.push_edit(Edit::Block { source: 1, start: 0, end: 5, kind: BlockKind::Citation });
        r.push_edit(Edit::Source { source: 1, enabled: true });
        assert_eq!(
            r.edits,
            vec![
                Edit::Block { source: 1, start: 0, end: 5, kind: BlockKind::Citation },
                Edit::Source { source: 1, enabled: true }
            ]
        );
    }
}
