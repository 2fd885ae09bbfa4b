//! The writer lock: an exclusive advisory lock on `dir/LOCK`.
//!
//! `File::try_lock` (flock on Unix, LockFileEx on Windows) is released by the OS when the
//! process dies, so a crashed writer never leaves a stale lock behind: no pid files, no
//! manual clean-up. Readers never take it.

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};

use crate::error::IoContext;
use crate::{Error, Result};

/// File name of the writer lock.
pub(crate) const LOCK_FILE: &str = "LOCK";
/// File name of the merge lock: held by the one merge that may run at a time (see
/// `merge`), so a merge's temporary file and its source segments are its own.
pub(crate) const MERGE_LOCK_FILE: &str = "MERGE.LOCK";

/// A held lock; released on drop.
#[derive(Debug)]
pub(crate) struct DirLock {
    _file: File,
    path: PathBuf,
}

impl DirLock {
    /// Takes the lock of index directory `dir`, or fails with [`Error::Locked`].
    pub(crate) fn acquire(dir: &Path) -> Result<DirLock> {
        DirLock::acquire_named(dir, LOCK_FILE)
    }

    /// Takes the lock file `name` of index directory `dir`, or fails with
    /// [`Error::Locked`] naming it.
    pub(crate) fn acquire_named(dir: &Path, name: &str) -> Result<DirLock> {
        let path = dir.join(name);
        let file = File::options().read(true).write(true).create(true).truncate(false).open(&path).at(&path)?;
        match file.try_lock() {
            Ok(()) => Ok(DirLock { _file: file, path }),
            Err(TryLockError::WouldBlock) => Err(Error::Locked { path }),
            Err(TryLockError::Error(e)) => Err(Error::io(path, e)),
        }
    }

    /// The lock file.
    #[allow(dead_code)]
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}
