//! The writer lock: an exclusive advisory lock on `dir/LOCK`.
//!
//! `File::try_lock` (flock on Unix, LockFileEx on Windows) is released by the OS when the
//! process dies, so a crashed writer never leaves a stale lock behind: no pid files, no
//! manual clean-up. Readers never take it.

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};

use crate::error::IoContext;
use crate::{Error, Result};

/// File name of the lock.
pub(crate) const LOCK_FILE: &str = "LOCK";

/// A held lock; released on drop.
#[derive(Debug)]
pub(crate) struct DirLock {
    _file: File,
    path: PathBuf,
}

impl DirLock {
    /// Takes the lock of index directory `dir`, or fails with [`Error::Locked`].
    pub(crate) fn acquire(dir: &Path) -> Result<DirLock> {
        let path = dir.join(LOCK_FILE);
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
