//! The index's one writer as the engine holds it, and the background merger.
//!
//! An index has a single writer (its `LOCK` file). A one-shot run (`tessera index`,
//! `delete`, `optimize`) takes it for each batch and releases it at the batch's commit,
//! merging segments right after the commit ([`WriterMode::PerCommit`]). A long-running
//! process (`tessera serve`, `tessera crawl`) takes it when the engine opens and keeps it
//! until the engine is dropped ([`WriterMode::Resident`]), so no other process writes
//! meanwhile; its merges run on a thread of their own, so an add never waits for one.
//!
//! The merger runs the index's three-step merge: plan (the `MERGE.LOCK` file, the last
//! commit's manifest), run (the heavy part: reads the sources, writes
//! `segments/merge.tmp`, holding no writer), finish (one manifest swap under the
//! writer, taken between two batches of adds). Readers keep the view they opened; a
//! check opened after the swap sees the merged segment. A process killed mid-merge
//! leaves the index as its last commit or last finished merge left it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use tessera_index::{Index, IndexWriter, MergePolicy, MergeStats, WriterOptions};

use crate::{Error, Result, describe_error};

/// How an [`Engine`](crate::Engine) holds the index's single writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WriterMode {
    /// Taken for each batch of adds (or a delete, an optimize) and released at its commit;
    /// segments are merged right after each commit, before the call returns. For one-shot
    /// runs: another process may write between two of them.
    #[default]
    PerCommit,
    /// Taken when the engine opens (failing with [`Error::WriterBusy`] while another
    /// process writes) and held until the engine is dropped: the process is the index's
    /// one writer. Merges run on a background thread after each commit. For servers and
    /// crawlers.
    Resident,
}

/// The engine's writer: opened on demand, or held for the engine's life.
#[derive(Debug)]
pub(crate) struct WriterSlot {
    index: Index,
    options: WriterOptions,
    mode: WriterMode,
    writer: Mutex<Option<IndexWriter>>,
}

/// The writer, exclusively, until dropped. Dropping it without a commit drops what was
/// added since the last one.
pub(crate) struct WriterGuard<'a> {
    slot: &'a WriterSlot,
    guard: MutexGuard<'a, Option<IndexWriter>>,
}

impl WriterSlot {
    pub(crate) fn new(dir: &Path, options: WriterOptions, mode: WriterMode) -> Result<Self> {
        let slot = Self { index: Index::open(dir)?, options, mode, writer: Mutex::new(None) };
        if mode == WriterMode::Resident {
            // Taken now: a second writer is refused at its start, not at its first add.
            drop(slot.lock()?);
        }
        Ok(slot)
    }

    pub(crate) fn mode(&self) -> WriterMode {
        self.mode
    }

    /// The writer, opened if it is not held yet; waits while another session of this
    /// process has it.
    pub(crate) fn lock(&self) -> Result<WriterGuard<'_>> {
        let mut guard = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        if guard.is_none() {
            let writer = self.index.writer(self.options).map_err(|e| match e {
                tessera_index::Error::Locked { .. } => {
                    Error::WriterBusy { path: self.index.dir().to_path_buf(), source: e }
                }
                e => e.into(),
            })?;
            *guard = Some(writer);
        }
        Ok(WriterGuard { slot: self, guard })
    }
}

impl std::ops::Deref for WriterGuard<'_> {
    type Target = IndexWriter;
    fn deref(&self) -> &IndexWriter {
        self.guard.as_ref().expect("a guard holds an open writer")
    }
}

impl std::ops::DerefMut for WriterGuard<'_> {
    fn deref_mut(&mut self) -> &mut IndexWriter {
        self.guard.as_mut().expect("a guard holds an open writer")
    }
}

impl Drop for WriterGuard<'_> {
    fn drop(&mut self) {
        match self.slot.mode {
            // Released: the lock goes, and so do uncommitted files.
            WriterMode::PerCommit => *self.guard = None,
            WriterMode::Resident => {
                let keep = self.guard.as_mut().is_some_and(|w| w.rollback().is_ok());
                if !keep {
                    // A failed commit poisoned it: the next batch opens a new one.
                    *self.guard = None;
                }
            }
        }
    }
}

/// What the background merger has done since the engine opened.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BackgroundMerges {
    /// Merges finished, summed.
    pub stats: MergeStats,
    /// A merge is planned, running or waiting to be published.
    pub busy: bool,
    /// The last merge that failed, why (the index is left as it was; the next commit
    /// tries again).
    pub last_error: Option<String>,
}

#[derive(Debug, Default)]
struct MergerState {
    requested: bool,
    stop: bool,
    status: BackgroundMerges,
}

#[derive(Debug, Default)]
struct MergerShared {
    state: Mutex<MergerState>,
    changed: Condvar,
}

impl MergerShared {
    fn state(&self) -> MutexGuard<'_, MergerState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The background merge thread of a resident engine. Dropping it lets the merge that is
/// running finish and be published, starts no other, and joins the thread.
#[derive(Debug)]
pub(crate) struct Merger {
    shared: Arc<MergerShared>,
    thread: Option<JoinHandle<()>>,
}

impl Merger {
    pub(crate) fn start(slot: Arc<WriterSlot>, policy: MergePolicy) -> Result<Self> {
        let shared = Arc::new(MergerShared::default());
        let thread_shared = Arc::clone(&shared);
        let dir: PathBuf = slot.index.dir().to_path_buf();
        let thread = std::thread::Builder::new()
            .name("tessera-merge".into())
            .spawn(move || merge_thread(&thread_shared, &slot, &policy))
            .map_err(|e| Error::Io { path: dir, source: e })?;
        let merger = Self { shared, thread: Some(thread) };
        // Segments left by earlier runs are merged too.
        merger.request();
        Ok(merger)
    }

    /// Asks for the merges the policy picks now (after a commit). Returns at once.
    pub(crate) fn request(&self) {
        let mut st = self.shared.state();
        st.requested = true;
        st.status.busy = true;
        self.shared.changed.notify_all();
    }

    /// Blocks until no merge is asked for or running.
    pub(crate) fn wait(&self) -> BackgroundMerges {
        let mut st = self.shared.state();
        while st.status.busy && !st.stop {
            st = self.shared.changed.wait(st).unwrap_or_else(PoisonError::into_inner);
        }
        st.status.clone()
    }

    pub(crate) fn status(&self) -> BackgroundMerges {
        self.shared.state().status.clone()
    }
}

impl Drop for Merger {
    fn drop(&mut self) {
        {
            let mut st = self.shared.state();
            st.stop = true;
            self.shared.changed.notify_all();
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn merge_thread(shared: &MergerShared, slot: &WriterSlot, policy: &MergePolicy) {
    loop {
        {
            let mut st = shared.state();
            while !st.requested && !st.stop {
                st = shared.changed.wait(st).unwrap_or_else(PoisonError::into_inner);
            }
            if st.stop {
                st.status.busy = false;
                shared.changed.notify_all();
                return;
            }
            st.requested = false;
        }
        let result = merge_until_done(shared, slot, policy);
        let mut st = shared.state();
        match result {
            Ok(stats) => st.status.stats.add(&stats),
            Err(e) => st.status.last_error = Some(describe_error(&e)),
        }
        if !st.requested {
            st.status.busy = false;
        }
        shared.changed.notify_all();
    }
}

/// Runs what the policy picks, one merge after the other, until it picks nothing (or
/// the engine is being dropped).
fn merge_until_done(shared: &MergerShared, slot: &WriterSlot, policy: &MergePolicy) -> Result<MergeStats> {
    let mut total = MergeStats::default();
    loop {
        if shared.state().stop {
            return Ok(total);
        }
        let Some(task) = slot.index.plan_merge(policy)? else { return Ok(total) };
        // The heavy part, holding no writer: adds and checks go on.
        let done = task.run()?;
        let mut writer = slot.lock()?;
        total.add(&writer.finish_merge(done)?);
    }
}
