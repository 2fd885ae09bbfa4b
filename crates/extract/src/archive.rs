//! Archives (ZIP, 7z, and RAR behind the `rar` feature): every member is a
//! document of its own, named `archive.zip!/dir/member.docx`; archives in
//! archives are opened too, up to [`UnpackLimits::max_depth`].
//!
//! Members are read into memory, never written to disk, so names in an
//! archive cannot reach the file system (no path traversal); they are only
//! labels, cleaned of `..`, leading `/` and backslashes.
//!
//! One budget of unpacked bytes ([`UnpackLimits::max_total_bytes`]) covers
//! an archive and everything nested in it; a member that would pass it, or
//! that compresses more than [`UnpackLimits::max_ratio`] to one, fails alone
//! with [`Error::Limit`] and the other members are still extracted.

use std::io::{Cursor, Read};

use crate::config::UnpackLimits;
use crate::container::ArchiveKind;
use crate::{Error, Extracted, Result};

/// Members larger than this (unpacked) are held to the ratio limit.
const RATIO_FLOOR: u64 = 1 << 20;

/// One document found in a file: the file itself, or a member of an
/// archive (at any depth).
#[derive(Debug)]
pub struct Document {
    /// The document's name: the file's, or `archive!/member` for a member
    /// (nested: `outer.zip!/inner.7z!/doc.txt`).
    pub name: String,
    /// Its extracted text, or why it could not be extracted.
    pub result: Result<Extracted>,
}

/// A member read out of an archive, or why it could not be.
pub(crate) struct Member {
    pub(crate) name: String,
    pub(crate) bytes: Result<Vec<u8>>,
}

/// The unpacking budget shared by an archive and all archives inside it.
#[derive(Debug)]
pub(crate) struct Budget {
    pub(crate) limits: UnpackLimits,
    pub(crate) unpacked: u64,
}

impl Budget {
    pub(crate) fn new(limits: &UnpackLimits) -> Self {
        Self { limits: limits.clone(), unpacked: 0 }
    }

    /// How many more bytes may be unpacked.
    fn left(&self) -> u64 {
        self.limits.max_total_bytes.saturating_sub(self.unpacked)
    }

    /// Reads one member from `reader` within the budget; `packed` is its
    /// compressed size when the format tells (ZIP; 7z solid blocks do not).
    pub(crate) fn read(
        &mut self,
        archive: &str,
        member: &str,
        reader: &mut dyn Read,
        packed: Option<u64>,
        max_bytes: u64,
    ) -> Result<Vec<u8>> {
        let name = || format!("{archive}!/{member}");
        let cap = self.left().min(max_bytes);
        let mut bytes = Vec::new();
        reader.take(cap.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| Error::Malformed {
            name: name(),
            format: "archive member",
            reason: e.to_string(),
        })?;
        let size = bytes.len() as u64;
        if size > max_bytes {
            return Err(Error::TooLarge { name: name(), size, limit: max_bytes });
        }
        if size > self.left() {
            return Err(Error::Limit {
                name: name(),
                limit: format!("the archive unpacks to more than {} bytes", self.limits.max_total_bytes),
            });
        }
        if let Some(packed) = packed
            && size > RATIO_FLOOR
            && size / packed.max(1) > self.limits.max_ratio
        {
            return Err(Error::Limit {
                name: name(),
                limit: format!("unpacks {size} bytes from {packed} (ratio over {}:1)", self.limits.max_ratio),
            });
        }
        self.unpacked += size;
        Ok(bytes)
    }
}

/// A member name as a clean relative label: `/` separators, no leading `/`,
/// no `.` or `..` components.
pub(crate) fn clean_member_name(raw: &str) -> String {
    raw.replace('\\', "/")
        .split('/')
        .filter(|part| !part.is_empty() && *part != "." && *part != "..")
        .collect::<Vec<_>>()
        .join("/")
}

/// Operating-system litter that is never a document.
fn is_litter(name: &str) -> bool {
    let file = name.rsplit('/').next().unwrap_or(name);
    name.starts_with("__MACOSX/") || file == ".DS_Store" || file == "Thumbs.db" || file == "desktop.ini"
}

/// The members of archive `name` (its bytes `bytes`), read within `budget`.
/// An archive that cannot be opened at all is an `Err`.
pub(crate) fn members(
    kind: ArchiveKind,
    name: &str,
    bytes: &[u8],
    budget: &mut Budget,
    max_bytes: u64,
) -> Result<Vec<Member>> {
    match kind {
        ArchiveKind::Zip => zip_members(name, bytes, budget, max_bytes),
        ArchiveKind::SevenZ => sevenz_members(name, bytes, budget, max_bytes),
        ArchiveKind::Rar => rar_members(name, bytes, budget, max_bytes),
    }
}

fn too_many(name: &str, limits: &UnpackLimits) -> Error {
    Error::Limit { name: name.into(), limit: format!("more than {} members", limits.max_members) }
}

fn zip_members(name: &str, bytes: &[u8], budget: &mut Budget, max_bytes: u64) -> Result<Vec<Member>> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| Error::Malformed {
        name: name.into(),
        format: "zip",
        reason: e.to_string(),
    })?;
    let mut out = Vec::new();
    for index in 0..archive.len() {
        let failure = match archive.by_index(index) {
            Ok(_) => None,
            Err(e) => Some(e.to_string()),
        };
        if let Some(e) = failure {
            {
                let label = archive
                    .name_for_index(index)
                    .and_then(|name| name.ok().map(|name| clean_member_name(&name)))
                    .unwrap_or_else(|| format!("#{index}"));
                let error = if e.contains("ncrypt") || e.contains("assword") {
                    Error::Encrypted { name: format!("{name}!/{label}") }
                } else {
                    Error::Malformed { name: format!("{name}!/{label}"), format: "zip", reason: e }
                };
                out.push(Member { name: label, bytes: Err(error) });
                continue;
            }
        }
        let Ok(file) = archive.by_index(index) else { continue };
        let label = file.name().map_or_else(|_| format!("#{index}"), |name| clean_member_name(&name));
        if file.is_dir() || label.is_empty() || is_litter(&label) {
            continue;
        }
        if out.len() >= budget.limits.max_members {
            return Err(too_many(name, &budget.limits));
        }
        if file.encrypted() {
            out.push(Member { bytes: Err(Error::Encrypted { name: format!("{name}!/{label}") }), name: label });
            continue;
        }
        let packed = file.compressed_size();
        let mut file = file;
        let bytes = budget.read(name, &label, &mut file, Some(packed), max_bytes);
        out.push(Member { name: label, bytes });
    }
    Ok(out)
}

fn sevenz_members(name: &str, bytes: &[u8], budget: &mut Budget, max_bytes: u64) -> Result<Vec<Member>> {
    use sevenz_rust2::{ArchiveReader, Error as SzError, Password};
    let to_error = |e: SzError| match e {
        SzError::PasswordRequired | SzError::MaybeBadPassword(_) => Error::Encrypted { name: name.into() },
        SzError::UnsupportedCompressionMethod(m) if m.contains("AES") => Error::Encrypted { name: name.into() },
        SzError::MaxMemLimited { max_kb, actaul_kb } => Error::Limit {
            name: name.into(),
            limit: format!("decoding needs {actaul_kb} KiB of memory, over the limit of {max_kb} KiB"),
        },
        other => Error::Malformed { name: name.into(), format: "7z", reason: other.to_string() },
    };
    let mut reader = ArchiveReader::new(Cursor::new(bytes), Password::empty()).map_err(to_error)?;
    let total_packed = bytes.len() as u64;
    let mut out: Vec<Member> = Vec::new();
    let mut stop: Option<Error> = None;
    let result = reader.for_each_entries(|entry, data| {
        if entry.is_directory() {
            return Ok(true);
        }
        let label = clean_member_name(entry.name());
        if label.is_empty() || is_litter(&label) {
            // Solid blocks decode in order: read past what we skip.
            std::io::copy(&mut data.take(budget.left().saturating_add(1)), &mut std::io::sink())?;
            return Ok(true);
        }
        if out.len() >= budget.limits.max_members {
            stop = Some(too_many(name, &budget.limits));
            return Ok(false);
        }
        // 7z does not give a packed size per member of a solid block: the
        // ratio is judged on the whole archive so far.
        let before = budget.unpacked;
        let bytes = budget.read(name, &label, data, None, max_bytes);
        let unpacked = budget.unpacked.max(before);
        let over_ratio = unpacked > RATIO_FLOOR && unpacked / total_packed.max(1) > budget.limits.max_ratio;
        let bytes = if over_ratio {
            stop = Some(Error::Limit {
                name: name.into(),
                limit: format!(
                    "unpacks {unpacked} bytes from {total_packed} (ratio over {}:1)",
                    budget.limits.max_ratio
                ),
            });
            return Ok(false);
        } else {
            bytes
        };
        let failed = bytes.is_err();
        out.push(Member { name: label, bytes });
        // A member that hit the budget or failed to decode leaves the rest
        // of a solid block unreadable.
        Ok(!failed)
    });
    if let Some(error) = stop {
        return Err(error);
    }
    match result {
        Ok(()) => Ok(out),
        // Members read before the damage are kept; the damage is reported
        // as one more failed member named after the archive.
        Err(e) if !out.is_empty() => {
            out.push(Member { name: "(rest of the archive)".into(), bytes: Err(to_error(e)) });
            Ok(out)
        }
        Err(e) => Err(to_error(e)),
    }
}

#[cfg(feature = "rar")]
fn rar_members(name: &str, bytes: &[u8], budget: &mut Budget, max_bytes: u64) -> Result<Vec<Member>> {
    crate::rar::members(name, bytes, budget, max_bytes)
}

#[cfg(not(feature = "rar"))]
fn rar_members(name: &str, _bytes: &[u8], _budget: &mut Budget, _max_bytes: u64) -> Result<Vec<Member>> {
    Err(Error::Unsupported {
        name: name.into(),
        media_type: "application/vnd.rar (build with the `rar` feature)".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_names_are_clean_labels() {
        assert_eq!(clean_member_name("../../etc/passwd"), "etc/passwd");
        assert_eq!(clean_member_name("/abs/./x.txt"), "abs/x.txt");
        assert_eq!(clean_member_name("dir\\sub\\doc.docx"), "dir/sub/doc.docx");
        assert_eq!(clean_member_name(""), "");
        assert!(is_litter("__MACOSX/._a.docx"));
        assert!(is_litter("dir/.DS_Store"));
        assert!(!is_litter("dir/a.docx"));
    }
}
