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

use std::io::Cursor;

use crate::container::ArchiveKind;
pub(crate) use crate::unpack::Member;
use crate::unpack::{Budget, Counting, Packed, clean_member_name, io_reason};
use crate::{Error, Extracted, Result};

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

/// Operating-system litter that is never a document.
fn is_litter(name: &str) -> bool {
    let file = name.rsplit('/').next().unwrap_or(name);
    name.starts_with("__MACOSX/") || file == ".DS_Store" || file == "Thumbs.db" || file == "desktop.ini"
}

/// Hands each member of archive `name` (its bytes `bytes`) to `each` as it
/// is read within `budget`, so one member at a time is in memory. An
/// archive that cannot be opened at all is an `Err`; damage or a limit met
/// after some members is an `Err` too (the members before it were handed
/// out). Returns how many members were handed out.
pub(crate) fn for_each_member(
    kind: ArchiveKind,
    name: &str,
    bytes: &[u8],
    budget: &Budget,
    max_bytes: u64,
    each: &mut dyn FnMut(Member),
) -> Result<usize> {
    match kind {
        ArchiveKind::Zip => zip_members(name, bytes, budget, max_bytes, each),
        ArchiveKind::SevenZ => sevenz_members(name, bytes, budget, max_bytes, each),
        ArchiveKind::Rar => rar_members(name, bytes, budget, max_bytes, each),
    }
}

fn too_many(name: &str, budget: &Budget) -> Error {
    Error::Limit { name: name.into(), limit: format!("more than {} members", budget.limits.max_members) }
}

fn zip_members(
    name: &str,
    bytes: &[u8],
    budget: &Budget,
    max_bytes: u64,
    each: &mut dyn FnMut(Member),
) -> Result<usize> {
    let source = Counting::new(Cursor::new(bytes));
    let counter = source.counter();
    let mut archive = zip::ZipArchive::new(source).map_err(|e| Error::Malformed {
        name: name.into(),
        format: "zip",
        reason: e.to_string(),
    })?;
    let mut count = 0usize;
    for index in 0..archive.len() {
        let failure = match archive.by_index(index) {
            Ok(_) => None,
            Err(e) => Some(e.to_string()),
        };
        if let Some(e) = failure {
            let label = archive
                .name_for_index(index)
                .and_then(|name| name.ok().map(|name| clean_member_name(&name)))
                .unwrap_or_else(|| format!("#{index}"));
            let error = if e.contains("ncrypt") || e.contains("assword") {
                Error::Encrypted { name: format!("{name}!/{label}") }
            } else {
                Error::Malformed { name: format!("{name}!/{label}"), format: "zip", reason: e }
            };
            count += 1;
            each(Member { name: label, bytes: Err(error) });
            continue;
        }
        let Ok(file) = archive.by_index(index) else { continue };
        let label = file.name().map_or_else(|_| format!("#{index}"), |name| clean_member_name(&name));
        if file.is_dir() || label.is_empty() || is_litter(&label) {
            continue;
        }
        if count >= budget.limits.max_members {
            return Err(too_many(name, budget));
        }
        count += 1;
        let full = format!("{name}!/{label}");
        if file.encrypted() {
            each(Member { bytes: Err(Error::Encrypted { name: full }), name: label });
            continue;
        }
        // The central directory's sizes refuse a bomb before it is inflated.
        let (size, packed) = (file.size(), file.compressed_size());
        let bytes = budget
            .check_declared(&full, size, Some(packed), max_bytes)
            .and_then(|()| budget.read(&full, "zip", file, Packed::Counted(counter.clone()), max_bytes, Some(size)));
        each(Member { name: label, bytes });
    }
    Ok(count)
}

fn sevenz_members(
    name: &str,
    bytes: &[u8],
    budget: &Budget,
    max_bytes: u64,
    each: &mut dyn FnMut(Member),
) -> Result<usize> {
    use sevenz_rust2::{ArchiveReader, Error as SzError, Password};
    let to_error = |e: SzError| match e {
        SzError::PasswordRequired | SzError::MaybeBadPassword(_) => Error::Encrypted { name: name.into() },
        SzError::UnsupportedCompressionMethod(m) if m.contains("AES") => Error::Encrypted { name: name.into() },
        SzError::MaxMemLimited { max_kb, actaul_kb } => Error::Limit {
            name: name.into(),
            limit: format!("decoding needs {actaul_kb} KiB of memory, over the limit of {max_kb} KiB"),
        },
        other => Error::Malformed { name: name.into(), format: "7z", reason: sevenz_reason(&other) },
    };
    let source = Counting::new(Cursor::new(bytes));
    let counter = source.counter();
    let mut reader = ArchiveReader::new(source, Password::empty()).map_err(to_error)?;
    // One decoding thread: the multi-threaded LZMA2 decoder buffers decoded
    // chunks ahead of the reader, outside the budget.
    reader.set_thread_count(1);
    let mut count = 0usize;
    let mut stop: Option<Error> = None;
    // Entries reached (handed out, skipped or failed), and the member that failed.
    let mut reached = std::collections::HashSet::new();
    let mut refused: Option<String> = None;
    let result = reader.for_each_entries(|entry, data| {
        if entry.is_directory() {
            return Ok(true);
        }
        reached.insert(entry.name().to_owned());
        let label = clean_member_name(entry.name());
        if label.is_empty() || is_litter(&label) {
            // Solid blocks decode in order: read past what we skip, under
            // the same guards.
            let mut guarded = budget.guard(data, Packed::Counted(counter.clone()), budget.left());
            let copied = std::io::copy(&mut guarded, &mut std::io::sink());
            budget.charge(&guarded);
            if let Some(error) = budget.tripped(&format!("{name}!/{label}"), &guarded) {
                stop = Some(error);
                return Ok(false);
            }
            copied?;
            return Ok(true);
        }
        if count >= budget.limits.max_members {
            stop = Some(too_many(name, budget));
            return Ok(false);
        }
        count += 1;
        let full = format!("{name}!/{label}");
        // 7z does not give a packed size per member of a solid block: the
        // ratio is judged on the packed bytes decoded so far.
        let bytes = budget.check_declared(&full, entry.size, None, max_bytes).and_then(|()| {
            budget.read(&full, "7z", data, Packed::Counted(counter.clone()), max_bytes, Some(entry.size))
        });
        let failed = bytes.is_err();
        if failed {
            refused = Some(label.clone());
        }
        each(Member { name: label, bytes });
        // A member that hit a limit or failed to decode leaves the rest of
        // a solid block unreadable.
        Ok(!failed)
    });
    if let Some(error) = stop {
        return Err(error);
    }
    if let (Ok(()), Some(refused)) = (&result, refused) {
        // The members after the refused one are not read; each is named, so
        // none goes missing without a word.
        for entry in reader.archive().files.iter().filter(|e| !e.is_directory() && !reached.contains(e.name())) {
            let label = clean_member_name(entry.name());
            if label.is_empty() || is_litter(&label) {
                continue;
            }
            if count >= budget.limits.max_members {
                return Err(too_many(name, budget));
            }
            count += 1;
            let reason = Error::Failed {
                name: format!("{name}!/{label}"),
                reason: format!("not read: it comes after {refused}, which was refused, in the archive's solid block"),
            };
            each(Member { name: label, bytes: Err(reason) });
        }
    }
    match result {
        Ok(()) => Ok(count),
        // Members read before the damage were handed out; the damage is
        // reported as one more failed member named after the archive.
        Err(e) if count > 0 => {
            each(Member { name: "(rest of the archive)".into(), bytes: Err(to_error(e)) });
            Ok(count + 1)
        }
        Err(e) => Err(to_error(e)),
    }
}

/// A 7z error as a sentence: the library's `Display` is its `Debug`.
fn sevenz_reason(e: &sevenz_rust2::Error) -> String {
    use sevenz_rust2::Error as E;
    match e {
        E::BadSignature(_) => "not a 7z archive (bad signature)".into(),
        E::UnsupportedVersion { major, minor } => format!("7z format version {major}.{minor} is not supported"),
        E::ChecksumVerificationFailed => "a checksum does not match: the data is damaged".into(),
        E::NextHeaderCrcMismatch => "the header's checksum does not match: the header is damaged".into(),
        E::Io(e, context) if context.is_empty() => io_reason(e),
        E::Io(e, context) => format!("{context}: {}", io_reason(e)),
        E::FileOpen(e, file) => format!("cannot open {file}: {}", io_reason(e)),
        E::Other(reason) | E::Unsupported(reason) => reason.to_string(),
        E::BadTerminatedStreamsInfo(_)
        | E::BadTerminatedUnpackInfo
        | E::BadTerminatedPackInfo(_)
        | E::BadTerminatedSubStreamsInfo
        | E::BadTerminatedHeader(_) => "the header is damaged".into(),
        E::ExternalUnsupported => "headers stored in a separate stream are not supported".into(),
        E::UnsupportedCompressionMethod(method) => format!("compression method {method} is not supported"),
        E::MaxMemLimited { max_kb, actaul_kb } => {
            format!("decoding needs {actaul_kb} KiB of memory, over the limit of {max_kb} KiB")
        }
        E::PasswordRequired => "the archive is encrypted".into(),
        E::MaybeBadPassword(_) => "the data is damaged or encrypted".into(),
        E::FileNotFound => "a member is missing".into(),
    }
}

#[cfg(feature = "rar")]
fn rar_members(
    name: &str,
    bytes: &[u8],
    budget: &Budget,
    max_bytes: u64,
    each: &mut dyn FnMut(Member),
) -> Result<usize> {
    crate::rar::members(name, bytes, budget, max_bytes, each)
}

#[cfg(not(feature = "rar"))]
fn rar_members(
    name: &str,
    _bytes: &[u8],
    _budget: &Budget,
    _max_bytes: u64,
    _each: &mut dyn FnMut(Member),
) -> Result<usize> {
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
