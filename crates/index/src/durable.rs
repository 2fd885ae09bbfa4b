//! Durable files of the segment layer: the atomic replacement the one manifest goes
//! through (`MANIFEST`, which also holds the sketch store's state) and the crc32 trailer
//! that ends the manifest and every segment of both components.
//!
//! A replacement writes a temporary file in the same directory, syncs it, renames it over
//! the target and syncs the directory, so a reader sees the old file or the new one,
//! never a mix, and the new one survives a power cut once the call returns. The trailer
//! is the IEEE crc32 (`crc32fast`) of every byte before it, little-endian: it catches a
//! torn or damaged file that a rename alone cannot rule out.

use std::fs::File;
use std::io::Write;
use std::path::Path;

use crate::Result;
use crate::error::IoContext;

/// Bytes of the crc32 trailer.
pub(crate) const TRAILER_LEN: usize = 4;

/// Appends the crc32 of `out`'s bytes to `out`.
pub(crate) fn seal(out: &mut Vec<u8>) {
    let crc = crc32fast::hash(out);
    out.extend_from_slice(&crc.to_le_bytes());
}

/// The bytes before the trailer of `bytes` when the trailer is their crc32; `None` when
/// it is not (or `bytes` is shorter than a trailer).
pub(crate) fn unseal(bytes: &[u8]) -> Option<&[u8]> {
    let body = bytes.len().checked_sub(TRAILER_LEN)?;
    let (content, crc) = bytes.split_at(body);
    (crc32fast::hash(content).to_le_bytes() == crc).then_some(content)
}

/// Replaces `path` with `bytes` atomically and durably through the temporary file `tmp`
/// (in the same directory): write, sync, rename over `path`, sync the directory.
pub(crate) fn replace(path: &Path, tmp: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = File::create(tmp).at(tmp)?;
    f.write_all(bytes).at(tmp)?;
    f.sync_all().at(tmp)?;
    drop(f);
    std::fs::rename(tmp, path).at(path)?;
    sync_dir(parent(path))
}

/// The directory of `path` (`.` for a bare file name).
pub(crate) fn parent(path: &Path) -> &Path {
    path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// Makes a directory's entries (created, renamed files) durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        File::open(dir).and_then(|d| d.sync_all()).at(dir)?;
    }
    #[cfg(not(unix))]
    {
        let _ = dir; // Directories cannot be opened for syncing on this platform.
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_body_comes_back_and_any_flip_or_cut_is_caught() {
        let mut bytes = b"a manifest body".to_vec();
        seal(&mut bytes);
        assert_eq!(unseal(&bytes), Some(&b"a manifest body"[..]));
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            assert_eq!(unseal(&b), None, "flip at {i}");
            assert_eq!(unseal(&bytes[..i]), None, "cut at {i}");
        }
    }
}
