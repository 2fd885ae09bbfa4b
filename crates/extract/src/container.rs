//! Containers: which document format or archive a recognised magic number
//! stands for, and [`ZipPackage`], the guarded reader of the ZIP packages
//! that DOCX, PPTX, ODT and EPUB are.

use std::io::{Cursor, Read};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use zip::ZipArchive;
use zip::result::ZipError;

#[cfg(doc)]
use crate::UnpackLimits;
use crate::unpack::{Budget, Counting, Packed};
use crate::{Error, ExtractConfig, Format, Result};

/// An archive format: its members are documents of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArchiveKind {
    Zip,
    SevenZ,
    Rar,
}

/// What a file with a document magic number is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Container {
    /// A single document in this format.
    Document(Format),
    /// An archive.
    Archive(ArchiveKind),
    /// Recognised, but not extracted (a spreadsheet, a lone gzip stream).
    Unsupported(&'static str),
}

/// Classifies a file whose magic number said `media_type`. ZIP files are
/// told apart by their members: `word/document.xml` (DOCX),
/// `ppt/presentation.xml` (PPTX), the `mimetype` member of ODF and EPUB;
/// any other ZIP is an archive.
pub(crate) fn classify(media_type: &'static str, bytes: &[u8]) -> Container {
    match media_type {
        "application/pdf" => Container::Document(Format::Pdf),
        "application/rtf" => Container::Document(Format::Rtf),
        "application/x-ole-storage" => Container::Document(Format::Doc),
        "application/x-7z-compressed" => Container::Archive(ArchiveKind::SevenZ),
        "application/vnd.rar" => Container::Archive(ArchiveKind::Rar),
        "application/zip" => classify_zip(bytes),
        other => Container::Unsupported(other),
    }
}

fn classify_zip(bytes: &[u8]) -> Container {
    // A ZIP whose directory cannot be read is handed to the archive reader,
    // which reports the damage by name.
    let Ok(mut archive) = ZipArchive::new(Cursor::new(bytes)) else {
        return Container::Archive(ArchiveKind::Zip);
    };
    let mimetype = archive.by_name("mimetype").ok().and_then(|file| {
        let mut s = String::new();
        file.take(200).read_to_string(&mut s).ok().map(|_| s.trim().to_owned())
    });
    match mimetype.as_deref() {
        Some("application/vnd.oasis.opendocument.text" | "application/vnd.oasis.opendocument.text-template") => {
            return Container::Document(Format::Odt);
        }
        Some("application/epub+zip") => return Container::Document(Format::Epub),
        Some(other) if other.starts_with("application/vnd.oasis.opendocument.") => {
            return Container::Unsupported("application/vnd.oasis.opendocument");
        }
        _ => {}
    }
    let has = |name: &str| archive.index_for_name(name).is_some();
    if has("word/document.xml") {
        Container::Document(Format::Docx)
    } else if has("ppt/presentation.xml") {
        Container::Document(Format::Pptx)
    } else if has("xl/workbook.xml") {
        Container::Unsupported("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    } else {
        Container::Archive(ArchiveKind::Zip)
    }
}

/// A ZIP package (DOCX, PPTX, ODT, EPUB) opened for reading its parts,
/// with the unpack guards (`crate::unpack`) enforced while each part is
/// inflated: a part is at most [`ExtractConfig::max_bytes`], all parts
/// together at most [`UnpackLimits::max_total_bytes`], and no part over
/// [`UnpackLimits::max_ratio`].
pub(crate) struct ZipPackage<'a> {
    name: String,
    format: &'static str,
    archive: ZipArchive<Counting<Cursor<&'a [u8]>>>,
    packed: Arc<AtomicU64>,
    budget: Budget,
    max_bytes: u64,
}

impl<'a> ZipPackage<'a> {
    /// Opens the package `name` (used in errors), of format `format`.
    ///
    /// # Errors
    ///
    /// [`Error::Malformed`] when the ZIP directory cannot be read.
    pub(crate) fn open(name: &str, format: Format, bytes: &'a [u8], config: &ExtractConfig) -> Result<Self> {
        let format = format.name();
        let source = Counting::new(Cursor::new(bytes));
        let packed = source.counter();
        let archive = ZipArchive::new(source).map_err(|e| Error::Malformed {
            name: name.into(),
            format,
            reason: e.to_string(),
        })?;
        Ok(Self {
            name: name.into(),
            format,
            archive,
            packed,
            budget: Budget::new(&config.unpack),
            max_bytes: config.max_bytes,
        })
    }

    /// The member names, in directory order.
    pub(crate) fn names(&self) -> Vec<String> {
        self.archive.file_names().filter_map(|name| name.ok().map(std::borrow::Cow::into_owned)).collect()
    }

    /// Whether the package has a member of this name.
    pub(crate) fn has(&self, member: &str) -> bool {
        self.archive.index_for_name(member).is_some()
    }

    /// The bytes of member `member`, or `None` when there is none.
    ///
    /// # Errors
    ///
    /// [`Error::Encrypted`] for an encrypted member, [`Error::Limit`] when it
    /// passes the unpack limits (refused from its declared sizes, or as soon
    /// as the bytes inflated pass them), [`Error::Malformed`] when it cannot
    /// be decompressed; each naming the package, the member in the message.
    pub(crate) fn read(&mut self, member: &str) -> Result<Option<Vec<u8>>> {
        let Some(index) = self.archive.index_for_name(member) else {
            return Ok(None);
        };
        let file = match self.archive.by_index(index) {
            Ok(file) => file,
            Err(ZipError::UnsupportedArchive(msg)) if msg.contains("ncrypt") || msg.contains("assword") => {
                return Err(Error::Encrypted { name: self.name.clone() });
            }
            Err(e) => {
                return Err(Error::Malformed {
                    name: self.name.clone(),
                    format: self.format,
                    reason: format!("{member}: {e}"),
                });
            }
        };
        if file.encrypted() {
            return Err(Error::Encrypted { name: self.name.clone() });
        }
        let (size, packed) = (file.size(), file.compressed_size());
        let counted = Packed::Counted(Arc::clone(&self.packed));
        let result = self
            .budget
            .check_declared(&self.name, size, Some(packed), self.max_bytes)
            .and_then(|()| self.budget.read(&self.name, self.format, file, counted, self.max_bytes, Some(size)));
        // The package is the document: errors name it, the message names
        // the part.
        result.map(Some).map_err(|error| match error {
            Error::TooLarge { name, limit, .. } => Error::Limit {
                name,
                limit: format!("{member} unpacks to more than {limit} bytes (the largest document accepted)"),
            },
            Error::Limit { name, limit } => Error::Limit { name, limit: format!("{member} {limit}") },
            Error::Malformed { name, format, reason } => {
                Error::Malformed { name, format, reason: format!("{member}: {reason}") }
            }
            other => other,
        })
    }

    /// Member `member` as UTF-8 text (a BOM is dropped; invalid bytes
    /// become U+FFFD), or `None` when there is none.
    ///
    /// # Errors
    ///
    /// As [`read`](Self::read).
    pub(crate) fn read_string(&mut self, member: &str) -> Result<Option<String>> {
        Ok(self.read(member)?.map(|bytes| {
            let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
            String::from_utf8_lossy(bytes).into_owned()
        }))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::io::Write;

    use zip::write::SimpleFileOptions;

    use super::*;

    /// A ZIP of `(name, content)` members, deflated.
    pub(crate) fn zip_of(members: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for (name, content) in members {
            let method =
                if *name == "mimetype" { zip::CompressionMethod::Stored } else { zip::CompressionMethod::Deflated };
            out.start_file(*name, SimpleFileOptions::default().compression_method(method)).unwrap();
            out.write_all(content).unwrap();
        }
        out.finish().unwrap().into_inner()
    }

    #[test]
    fn zips_are_told_apart_by_their_members() {
        let docx = zip_of(&[("[Content_Types].xml", b"<x/>"), ("word/document.xml", b"<w/>")]);
        assert_eq!(classify("application/zip", &docx), Container::Document(Format::Docx));
        let pptx = zip_of(&[("ppt/presentation.xml", b"<p/>")]);
        assert_eq!(classify("application/zip", &pptx), Container::Document(Format::Pptx));
        let odt = zip_of(&[("mimetype", b"application/vnd.oasis.opendocument.text"), ("content.xml", b"<o/>")]);
        assert_eq!(classify("application/zip", &odt), Container::Document(Format::Odt));
        let epub = zip_of(&[("mimetype", b"application/epub+zip")]);
        assert_eq!(classify("application/zip", &epub), Container::Document(Format::Epub));
        let ods = zip_of(&[("mimetype", b"application/vnd.oasis.opendocument.spreadsheet")]);
        assert!(matches!(classify("application/zip", &ods), Container::Unsupported(_)));
        let plain = zip_of(&[("a.txt", b"hello")]);
        assert_eq!(classify("application/zip", &plain), Container::Archive(ArchiveKind::Zip));
        assert_eq!(classify("application/zip", b"PK\x03\x04garbage"), Container::Archive(ArchiveKind::Zip));
        assert_eq!(classify("application/pdf", b"%PDF-"), Container::Document(Format::Pdf));
    }

    #[test]
    fn package_reads_members_within_limits() {
        let bomb = vec![b'a'; 4 << 20];
        let bytes = zip_of(&[("word/document.xml", b"<w/>"), ("big.xml", &bomb)]);
        let config = ExtractConfig::default();
        let mut package = ZipPackage::open("t.docx", Format::Docx, &bytes, &config).unwrap();
        assert!(package.has("word/document.xml"));
        assert_eq!(package.read_string("word/document.xml").unwrap().as_deref(), Some("<w/>"));
        assert_eq!(package.read("missing.xml").unwrap(), None);
        let err = package.read("big.xml").unwrap_err();
        assert!(matches!(&err, Error::Limit { name, limit } if name == "t.docx" && limit.contains("ratio")), "{err}");
        let small = ExtractConfig {
            unpack: crate::UnpackLimits { max_total_bytes: 3, ..crate::UnpackLimits::default() },
            ..ExtractConfig::default()
        };
        let mut package = ZipPackage::open("t.docx", Format::Docx, &bytes, &small).unwrap();
        assert!(matches!(package.read("word/document.xml"), Err(Error::Limit { .. })));
        assert!(matches!(
            ZipPackage::open("bad.docx", Format::Docx, b"PK\x03\x04", &config),
            Err(Error::Malformed { name, format: "docx", .. }) if name == "bad.docx"
        ));
    }
}
