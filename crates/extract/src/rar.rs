//! RAR archives through `unrar` (the UnRAR C++ library, built from the
//! bundled source). Its licence is freeware, not open source, so it is
//! behind the `rar` cargo feature.
//!
//! UnRAR reads archives from a path only: the bytes go to a temporary file
//! that is removed when done. Each member's declared size is checked against
//! the budget before UnRAR unpacks it, and the unpacked size again after.

use std::io::Write;

use unrar::error::{Code, UnrarError};

use crate::unpack::{Budget, Member, Packed, clean_member_name};
use crate::{Error, Result};

/// Hands each member of RAR archive `name` to `each`; see
/// `archive::for_each_member`.
pub(crate) fn members(
    name: &str,
    bytes: &[u8],
    budget: &Budget,
    max_bytes: u64,
    each: &mut dyn FnMut(Member),
) -> Result<usize> {
    let temp_error = |e: std::io::Error| Error::Failed { name: name.into(), reason: format!("temporary file: {e}") };
    let mut file = tempfile::Builder::new().prefix("tessera-").suffix(".rar").tempfile().map_err(temp_error)?;
    file.write_all(bytes).and_then(|()| file.flush()).map_err(temp_error)?;
    let to_error = |e: UnrarError, who: String| match e.code {
        Code::MissingPassword | Code::BadPassword => Error::Encrypted { name: who },
        _ => Error::Malformed { name: who, format: "rar", reason: e.to_string() },
    };
    let mut archive =
        unrar::Archive::new(file.path()).open_for_processing().map_err(|e| to_error(e, name.to_owned()))?;
    let mut count = 0usize;
    loop {
        let header = match archive.read_header() {
            Ok(Some(header)) => header,
            Ok(None) => break,
            Err(e) if count == 0 => return Err(to_error(e, name.to_owned())),
            Err(e) => {
                each(Member { name: "(rest of the archive)".into(), bytes: Err(to_error(e, name.to_owned())) });
                break;
            }
        };
        let entry = header.entry();
        let label = clean_member_name(&entry.filename.to_string_lossy());
        let member = format!("{name}!/{label}");
        if !entry.is_file() || label.is_empty() {
            archive = header.skip().map_err(|e| to_error(e, member))?;
            continue;
        }
        if count >= budget.limits.max_members {
            return Err(Error::Limit {
                name: name.into(),
                limit: format!("more than {} members", budget.limits.max_members),
            });
        }
        count += 1;
        if entry.is_encrypted() {
            each(Member { name: label, bytes: Err(Error::Encrypted { name: member.clone() }) });
            archive = header.skip().map_err(|e| to_error(e, member))?;
            continue;
        }
        // UnRAR unpacks a member whole: its declared size is checked first.
        if let Err(error) = budget.check_declared(&member, entry.unpacked_size, None, max_bytes) {
            each(Member { name: label, bytes: Err(error) });
            archive = header.skip().map_err(|e| to_error(e, member))?;
            continue;
        }
        match header.read() {
            Ok((data, rest)) => {
                let bytes = budget.read(&member, "rar", data.as_slice(), Packed::Unknown, max_bytes, None);
                each(Member { name: label, bytes });
                archive = rest;
            }
            Err(e) => {
                each(Member { name: label, bytes: Err(to_error(e, member)) });
                break;
            }
        }
    }
    Ok(count)
}
