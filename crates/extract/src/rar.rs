//! RAR archives through `unrar` (the UnRAR C++ library, built from the
//! bundled source). Its licence is freeware, not open source, so it is
//! behind the `rar` cargo feature.
//!
//! UnRAR reads archives from a path only: the bytes go to a temporary file
//! that is removed when done. Each member's declared size is checked against
//! the budget before UnRAR unpacks it, and the unpacked size again after.

use std::io::Write;

use unrar::error::{Code, UnrarError};

use crate::archive::{Budget, Member, clean_member_name};
use crate::{Error, Result};

pub(crate) fn members(name: &str, bytes: &[u8], budget: &mut Budget, max_bytes: u64) -> Result<Vec<Member>> {
    let temp_error = |e: std::io::Error| Error::Failed { name: name.into(), reason: format!("temporary file: {e}") };
    let mut file = tempfile::Builder::new().prefix("tessera-").suffix(".rar").tempfile().map_err(temp_error)?;
    file.write_all(bytes).and_then(|()| file.flush()).map_err(temp_error)?;
    let to_error = |e: UnrarError, who: String| match e.code {
        Code::MissingPassword | Code::BadPassword => Error::Encrypted { name: who },
        _ => Error::Malformed { name: who, format: "rar", reason: e.to_string() },
    };
    let mut archive =
        unrar::Archive::new(file.path()).open_for_processing().map_err(|e| to_error(e, name.to_owned()))?;
    let mut out = Vec::new();
    loop {
        let header = match archive.read_header() {
            Ok(Some(header)) => header,
            Ok(None) => break,
            Err(e) if out.is_empty() => return Err(to_error(e, name.to_owned())),
            Err(e) => {
                out.push(Member { name: "(rest of the archive)".into(), bytes: Err(to_error(e, name.to_owned())) });
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
        if out.len() >= budget.limits.max_members {
            return Err(Error::Limit {
                name: name.into(),
                limit: format!("more than {} members", budget.limits.max_members),
            });
        }
        if entry.is_encrypted() {
            out.push(Member { name: label, bytes: Err(Error::Encrypted { name: member.clone() }) });
            archive = header.skip().map_err(|e| to_error(e, member))?;
            continue;
        }
        if entry.unpacked_size > max_bytes {
            let error = Error::TooLarge { name: member.clone(), size: entry.unpacked_size, limit: max_bytes };
            out.push(Member { name: label, bytes: Err(error) });
            archive = header.skip().map_err(|e| to_error(e, member))?;
            continue;
        }
        if entry.unpacked_size > budget.limits.max_total_bytes.saturating_sub(budget.unpacked) {
            let limit = format!("the archive unpacks to more than {} bytes", budget.limits.max_total_bytes);
            out.push(Member { name: label, bytes: Err(Error::Limit { name: member.clone(), limit }) });
            archive = header.skip().map_err(|e| to_error(e, member))?;
            continue;
        }
        match header.read() {
            Ok((data, rest)) => {
                let bytes = budget.read(name, &label, &mut data.as_slice(), None, max_bytes);
                out.push(Member { name: label, bytes });
                archive = rest;
            }
            Err(e) => {
                out.push(Member { name: label, bytes: Err(to_error(e, member)) });
                break;
            }
        }
    }
    Ok(out)
}
