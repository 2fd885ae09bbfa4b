//! Containers: which document format or archive a recognised magic number
//! stands for, and [`ZipPackage`], the guarded reader of the ZIP packages
//! that DOCX, PPTX, ODT and EPUB are.

use std::collections::BTreeMap;
use std::io::{self, BufRead, Cursor, Read};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use zip::ZipArchive;
use zip::result::ZipError;

#[cfg(doc)]
use crate::UnpackLimits;
use crate::unpack::{Budget, Counting, Packed, io_reason};
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
///
/// Parts are either read whole ([`read`](Self::read)) or streamed to an XML
/// reader ([`stream`](Self::stream)), which holds one buffer of the part at
/// a time: a part may be streamed several times (one pass to learn what the
/// walk needs, one to walk), and is counted against the budget once.
pub(crate) struct ZipPackage<'a> {
    name: String,
    format: &'static str,
    archive: ZipArchive<Counting<Cursor<&'a [u8]>>>,
    packed: Arc<AtomicU64>,
    budget: Budget,
    max_bytes: u64,
    /// Bytes each streamed part gave the first time (charged then).
    streamed: BTreeMap<String, u64>,
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
            streamed: BTreeMap::new(),
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
        let (name, format, max_bytes) = (self.name.clone(), self.format, self.max_bytes);
        let counted = Packed::Counted(Arc::clone(&self.packed));
        let file = open_member(&mut self.archive, index, &name, format, member)?;
        let (size, packed) = (file.size(), file.compressed_size());
        let result = self
            .budget
            .check_declared(&name, size, Some(packed), max_bytes)
            .and_then(|()| self.budget.read(&name, format, file, counted, max_bytes, Some(size)));
        result.map(Some).map_err(|error| part_error(member, error))
    }

    /// Streams member `member` to `f` as text (UTF-8, as
    /// [`read_string`](Self::read_string) gives it, but a buffer at a time)
    /// under the unpack guards, and gives what `f` returns, or `None` when
    /// there is no such member. `needles` are ASCII strings to look for in
    /// the bytes that pass ([`PartText::found`]). A guard that trips or
    /// data that cannot be inflated fails the part whatever `f` made of the
    /// reader's error (the errors of [`read`](Self::read)).
    ///
    /// # Errors
    ///
    /// As [`read`](Self::read), or `f`'s error.
    pub(crate) fn stream<T>(
        &mut self,
        member: &str,
        needles: &[&'static str],
        f: impl FnOnce(&mut PartText<'_>) -> Result<T>,
    ) -> Result<Option<T>> {
        let Some(index) = self.archive.index_for_name(member) else {
            return Ok(None);
        };
        let (name, format, max_bytes) = (self.name.clone(), self.format, self.max_bytes);
        let counted = Packed::Counted(Arc::clone(&self.packed));
        let again = self.streamed.get(member).copied();
        let file = open_member(&mut self.archive, index, &name, format, member)?;
        if again.is_none() {
            let (size, packed) = (file.size(), file.compressed_size());
            self.budget.check_declared(&name, size, Some(packed), max_bytes).map_err(|e| part_error(member, e))?;
        }
        let mut guarded = self.budget.guard(file, counted, max_bytes);
        if let Some(given) = again {
            // Charged the first time: the same bytes may pass again.
            guarded.allow(given);
        }
        let mut text = PartText::new(&mut guarded, needles);
        let out = f(&mut text);
        if again.is_none() {
            // As when read whole: every byte inflated (checksum, guards,
            // charge), whether or not `f` read to the end.
            text.drain();
        }
        let failed = text.failed.take();
        if let Some(error) = self.budget.tripped(&name, &guarded) {
            return Err(part_error(member, error));
        }
        if let Some(reason) = failed {
            return Err(part_error(member, Error::Malformed { name, format, reason }));
        }
        if again.is_none() {
            self.budget.charge(&guarded);
            self.streamed.insert(member.to_owned(), guarded.given());
        }
        out.map(Some)
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

/// Opens member `index` of a package for reading.
fn open_member<'z, R: Read + io::Seek>(
    archive: &'z mut ZipArchive<R>,
    index: usize,
    name: &str,
    format: &'static str,
    member: &str,
) -> Result<zip::read::ZipFile<'z, R>> {
    let file = match archive.by_index(index) {
        Ok(file) => file,
        Err(ZipError::UnsupportedArchive(msg)) if msg.contains("ncrypt") || msg.contains("assword") => {
            return Err(Error::Encrypted { name: name.into() });
        }
        Err(e) => {
            return Err(Error::Malformed { name: name.into(), format, reason: format!("{member}: {e}") });
        }
    };
    if file.encrypted() {
        return Err(Error::Encrypted { name: name.into() });
    }
    Ok(file)
}

/// The package is the document: errors name it, the message names the
/// part.
fn part_error(member: &str, error: Error) -> Error {
    match error {
        Error::TooLarge { name, limit, .. } => Error::Limit {
            name,
            limit: format!("{member} unpacks to more than {limit} bytes (the largest document accepted)"),
        },
        Error::Limit { name, limit } => Error::Limit { name, limit: format!("{member} {limit}") },
        Error::Malformed { name, format, reason } => {
            Error::Malformed { name, format, reason: format!("{member}: {reason}") }
        }
        other => other,
    }
}

/// Bytes converted per refill of a [`PartText`].
const CHUNK: usize = 64 * 1024;

/// A streamed part as an XML reader's input: valid UTF-8 a buffer at a
/// time, exactly what `String::from_utf8_lossy` makes of the whole part
/// with a leading byte order mark dropped ([`ZipPackage::read_string`]):
/// each invalid sequence becomes U+FFFD, a sequence cut by a buffer's end
/// waits for the next. It looks for ASCII needles in what passes, and
/// keeps the first read error (the guards' or the inflater's) for
/// [`ZipPackage::stream`] to report.
pub(crate) struct PartText<'r> {
    inner: &'r mut dyn Read,
    /// Converted text not yet consumed: `out[at..]`.
    out: Vec<u8>,
    at: usize,
    /// Bytes of an unfinished UTF-8 sequence at the end of the last read.
    partial: Vec<u8>,
    /// Nothing given out yet (a byte order mark may come).
    start: bool,
    eof: bool,
    failed: Option<String>,
    needles: Vec<(&'static str, bool)>,
    /// The end of the text scanned so far, for needles across buffers.
    tail: Vec<u8>,
}

impl<'r> PartText<'r> {
    fn new(inner: &'r mut dyn Read, needles: &[&'static str]) -> Self {
        Self {
            inner,
            out: Vec::with_capacity(CHUNK + 8),
            at: 0,
            partial: Vec::new(),
            start: true,
            eof: false,
            failed: None,
            needles: needles.iter().map(|n| (*n, false)).collect(),
            tail: Vec::new(),
        }
    }

    /// Whether `needle` (one of those given to [`ZipPackage::stream`]) was
    /// in the text read so far.
    pub(crate) fn found(&self, needle: &str) -> bool {
        self.needles.iter().any(|(n, found)| *n == needle && *found)
    }

    /// Reads the rest of the part (for its needles); a read error is kept
    /// for [`ZipPackage::stream`].
    pub(crate) fn drain(&mut self) {
        while !self.eof && self.failed.is_none() {
            self.at = self.out.len();
            if self.refill().is_err() {
                return;
            }
        }
        self.at = self.out.len();
    }

    /// Converts the next chunk of the part into `out`.
    fn refill(&mut self) -> io::Result<()> {
        let mut raw = std::mem::take(&mut self.partial);
        let have = raw.len();
        raw.resize(have + CHUNK, 0);
        let n = loop {
            match self.inner.read(&mut raw[have..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.failed.get_or_insert_with(|| io_reason(&e));
                    return Err(e);
                }
            }
        };
        raw.truncate(have + n);
        self.eof = n == 0;
        self.out.clear();
        self.at = 0;
        let mut chunks = raw.utf8_chunks().peekable();
        while let Some(chunk) = chunks.next() {
            self.out.extend_from_slice(chunk.valid().as_bytes());
            let invalid = chunk.invalid();
            if invalid.is_empty() {
                continue;
            }
            let unfinished = chunks.peek().is_none()
                && !self.eof
                && std::str::from_utf8(invalid).err().is_some_and(|e| e.error_len().is_none());
            if unfinished {
                self.partial = invalid.to_vec();
            } else {
                self.out.extend_from_slice("\u{FFFD}".as_bytes());
            }
        }
        if self.start && !self.out.is_empty() {
            self.start = false;
            if self.out.starts_with(b"\xEF\xBB\xBF") {
                self.at = 3;
            }
        }
        self.scan();
        Ok(())
    }

    /// Looks for the needles in the text just converted.
    fn scan(&mut self) {
        let longest = self.needles.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
        if longest == 0 {
            return;
        }
        let fresh = &self.out[self.at..];
        let text = String::from_utf8_lossy(fresh);
        let mut seam = std::mem::take(&mut self.tail);
        seam.extend_from_slice(&fresh[..fresh.len().min(longest - 1)]);
        for (needle, found) in &mut self.needles {
            *found = *found || text.contains(*needle) || seam.windows(needle.len()).any(|w| w == needle.as_bytes());
        }
        let mut tail = seam;
        if fresh.len() >= longest - 1 {
            tail.clear();
            tail.extend_from_slice(&fresh[fresh.len() - (longest - 1)..]);
        } else {
            let cut = tail.len().saturating_sub(longest - 1);
            tail.drain(..cut);
        }
        self.tail = tail;
    }
}

impl Read for PartText<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for PartText<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if let Some(reason) = &self.failed {
            return Err(io::Error::other(reason.clone()));
        }
        // A chunk may convert to nothing (a cut sequence waiting): read on.
        while self.at >= self.out.len() && !self.eof {
            self.refill()?;
        }
        Ok(&self.out[self.at..])
    }

    fn consume(&mut self, amount: usize) {
        self.at = (self.at + amount).min(self.out.len());
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

    /// Gives its bytes a few at a time.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    #[test]
    fn streamed_text_is_the_lossy_text_whatever_the_reads() {
        let cases: [&[u8]; 7] = [
            b"\xEF\xBB\xBF<a>plain</a>",
            "<p>Ωмир €😀</p>".as_bytes(),
            b"a\xFFb\xE2\x82c\xF0\x9F\x98",
            b"\xE2\x82",
            b"\xEF\xBB\xBF\xEF\xBB\xBFx",
            b"\xC0\x80\xED\xA0\x80 surrogates and overlongs",
            b"",
        ];
        for bytes in cases {
            let expected = String::from_utf8_lossy(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes));
            for step in [1, 2, 3, 5, CHUNK] {
                let mut source = Trickle { bytes, step };
                let mut text = PartText::new(&mut source, &["<a>", "plain</a>", "€"]);
                let mut out = String::new();
                text.read_to_string(&mut out).unwrap();
                assert_eq!(out, expected, "{bytes:?} read {step} at a time");
                for needle in ["<a>", "plain</a>", "€"] {
                    assert_eq!(text.found(needle), expected.contains(needle), "{needle} in {bytes:?} by {step}");
                }
            }
        }
    }

    #[test]
    fn parts_stream_under_the_guards_and_count_once() {
        let bomb = vec![b'a'; 4 << 20];
        let bytes = zip_of(&[("word/document.xml", b"<w>hello</w>"), ("big.xml", &bomb)]);
        let config = ExtractConfig {
            unpack: crate::UnpackLimits { max_total_bytes: 20, ..crate::UnpackLimits::default() },
            ..ExtractConfig::default()
        };
        let mut package = ZipPackage::open("t.docx", Format::Docx, &bytes, &config).unwrap();
        let read = |text: &mut PartText<'_>| {
            let mut s = String::new();
            text.read_to_string(&mut s).unwrap();
            Ok((s, text.found("hello")))
        };
        let once = package.stream("word/document.xml", &["hello"], read).unwrap();
        assert_eq!(once, Some(("<w>hello</w>".to_owned(), true)));
        // Read again, counted once: 12 + 12 bytes would pass the budget of 20.
        let again = package.stream("word/document.xml", &["hello"], read).unwrap();
        assert_eq!(again, once);
        assert_eq!(package.budget.unpacked(), 12);
        // A part that stops being read early is still inflated whole (checksum, guards).
        let first = package.stream("word/document.xml", &[], |_| Ok(())).unwrap();
        assert_eq!(first, Some(()));
        assert_eq!(package.stream("missing.xml", &[], |_| Ok(())).unwrap(), None);
        let mut package = ZipPackage::open("t.docx", Format::Docx, &bytes, &ExtractConfig::default()).unwrap();
        let err = package.stream("big.xml", &[], |_| Ok(())).unwrap_err();
        assert!(
            matches!(&err, Error::Limit { name, limit } if name == "t.docx" && limit.starts_with("big.xml")),
            "{err}"
        );
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
