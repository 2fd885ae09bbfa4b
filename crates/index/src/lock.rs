//! The locks of the segment layer: exclusive advisory locks on files of a directory:
//! `LOCK`, held by the index's writer (which also publishes the sketch store's updates,
//! see `sketch`) or by the writer of a standalone sketch store, and the merge's
//! `MERGE.LOCK`.
//!
//! `File::try_lock` and `File::lock` (flock on Unix, LockFileEx on Windows) are released
//! by the OS when the process dies, so a crashed writer never leaves a stale lock behind:
//! no pid files, no manual clean-up. Readers never take them.

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::IoContext;
use crate::{Error, Result};

/// File name of the writer lock.
pub(crate) const LOCK_FILE: &str = "LOCK";
/// File name of the merge lock: held by the one merge that may run at a time (see
/// `merge`), so a merge's temporary file and its source segments are its own.
pub(crate) const MERGE_LOCK_FILE: &str = "MERGE.LOCK";

/// How long the writer lock, found held, is tried again before [`Error::Locked`] (see
/// [`DirLock::acquire`]): a fork-to-exec window is microseconds to milliseconds.
const LOCK_RETRY: Duration = Duration::from_millis(300);

/// A held lock; released on drop.
#[derive(Debug)]
pub(crate) struct DirLock {
    _file: File,
    path: PathBuf,
}

impl DirLock {
    /// Takes the writer lock of index directory `dir`, or fails with [`Error::Locked`].
    ///
    /// A lock found held is tried again for up to [`LOCK_RETRY`]: a child process that
    /// any thread of this process is starting holds a copy of every open descriptor
    /// between its fork and its exec, and with it a lock this process has just released
    /// (flock locks belong to the open file, which the copy keeps open). Without the
    /// retry, a writer reopened right after a release could be refused by its own
    /// process (seen in the engine's tests, which start child processes in parallel).
    /// The merge lock is not retried: there, held means "a merge runs, skip it", and a
    /// merge missed is planned again at the next commit.
    pub(crate) fn acquire(dir: &Path) -> Result<DirLock> {
        let start = Instant::now();
        let mut pause = Duration::from_millis(1);
        loop {
            match DirLock::acquire_named(dir, LOCK_FILE) {
                Err(Error::Locked { .. }) if start.elapsed() < LOCK_RETRY => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(50));
                }
                taken => return taken,
            }
        }
    }

    /// Takes the lock file `name` of index directory `dir` if it is free, or fails with
    /// [`Error::Locked`] naming it.
    pub(crate) fn acquire_named(dir: &Path, name: &str) -> Result<DirLock> {
        let (file, path) = open(dir, name)?;
        match file.try_lock() {
            Ok(()) => Ok(DirLock { _file: file, path }),
            Err(TryLockError::WouldBlock) => Err(Error::Locked { path }),
            Err(TryLockError::Error(e)) => Err(Error::io(path, e)),
        }
    }

    /// Takes the writer lock of directory `dir`, waiting as long as another holder keeps
    /// it: for a standalone sketch store, whose updates are short and whose waiters (two
    /// processes saving it at once) would otherwise fail.
    pub(crate) fn wait(dir: &Path) -> Result<DirLock> {
        DirLock::wait_named(dir, LOCK_FILE)
    }

    /// Takes the lock file `name` of directory `dir`, waiting as long as another holder
    /// keeps it.
    pub(crate) fn wait_named(dir: &Path, name: &str) -> Result<DirLock> {
        let (file, path) = open(dir, name)?;
        file.lock().at(&path)?;
        Ok(DirLock { _file: file, path })
    }

    /// The lock file.
    #[allow(dead_code)]
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

/// Opens (creating it empty) the lock file `name` of `dir`.
fn open(dir: &Path, name: &str) -> Result<(File, PathBuf)> {
    let path = dir.join(name);
    let file = File::options().read(true).write(true).create(true).truncate(false).open(&path).at(&path)?;
    Ok((file, path))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Held by another open file: refused, naming the lock file. Released while the
    /// second one waits (as when a starting child process closes its copy at exec):
    /// taken.
    #[test]
    fn a_held_lock_is_refused_and_a_lock_released_meanwhile_is_taken() {
        let tmp = tempfile::tempdir().unwrap();
        let held = DirLock::acquire(tmp.path()).unwrap();
        match DirLock::acquire(tmp.path()) {
            Err(Error::Locked { path }) => assert_eq!(path, tmp.path().join(LOCK_FILE)),
            other => panic!("{other:?}"),
        }
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
        let release = {
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                std::thread::sleep(Duration::from_millis(5));
                drop(held);
            })
        };
        barrier.wait();
        let taken = DirLock::acquire(tmp.path()).unwrap();
        assert_eq!(taken.path(), tmp.path().join(LOCK_FILE));
        release.join().unwrap();
    }

    /// A standalone sketch store's writer waits for the one `LOCK`, however long it is
    /// held, then takes it; while it holds it, the index's writer is refused.
    #[test]
    fn a_waited_lock_is_taken_once_released() {
        let tmp = tempfile::tempdir().unwrap();
        let held = DirLock::acquire(tmp.path()).unwrap();
        let release = std::thread::spawn(move || {
            std::thread::sleep(LOCK_RETRY * 2);
            drop(held);
        });
        let taken = DirLock::wait(tmp.path()).unwrap();
        assert_eq!(taken.path(), tmp.path().join(LOCK_FILE));
        assert!(matches!(DirLock::acquire(tmp.path()), Err(Error::Locked { .. })));
        release.join().unwrap();
    }
}
