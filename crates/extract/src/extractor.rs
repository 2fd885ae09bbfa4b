//! [`Extractor`]: detection by content, size limits, and dispatch to the
//! [`Extract`] implementation of each format.

use std::fmt;
use std::io::Read;
use std::path::Path;

use crate::archive::{self, Document};
use crate::bypass;
use crate::container::{self, ArchiveKind, Container};
use crate::doc::DocExtractor;
use crate::extract::Extract;
use crate::html::HtmlExtractor;
use crate::markdown::MarkdownExtractor;
use crate::office::docx::DocxExtractor;
use crate::office::epub::EpubExtractor;
use crate::office::odt::OdtExtractor;
use crate::office::pptx::PptxExtractor;
use crate::pdf::PdfExtractor;
use crate::rtf::RtfExtractor;
use crate::sniff::{self, HEAD_LEN, Kind, is_blank};
use crate::text::TextExtractor;
use crate::unpack::Budget;
use crate::{Error, ExtractConfig, Extracted, Format, Result};

/// Extracts text from documents in any supported format.
///
/// Build it once and reuse it; it is `Send + Sync`.
///
/// For each document it:
/// 1. rejects it if it is larger than [`ExtractConfig::max_bytes`] (for a
///    file, from its metadata, before reading);
/// 2. recognises well-known magic numbers: images, executables, audio and
///    video are [`Error::Binary`]; PDF, RTF, OLE (DOC) and the ZIP packages
///    (DOCX, PPTX, ODT, EPUB, told apart by their members) go to the
///    extractor of their format; archives (ZIP, 7z, RAR) are
///    [`Error::Archive`] here and opened by
///    [`extract_documents`](Self::extract_documents);
/// 3. otherwise asks each sniffing [`Extract`] in turn (custom ones first,
///    then Markdown by extension, HTML, then plain text) whether it
///    recognises the content, and runs the first that does;
/// 4. scans the text for tricks that hide borrowing (look-alike letters,
///    invisible characters, spaced letters, space substitutes) and adds a
///    [`Warning::Bypass`](crate::Warning::Bypass) for each.
pub struct Extractor {
    config: ExtractConfig,
    formats: Vec<Box<dyn Extract>>,
}

impl Extractor {
    /// An extractor for all built-in formats.
    #[must_use]
    pub fn new(config: ExtractConfig) -> Self {
        Self {
            config,
            formats: vec![
                Box::new(DocxExtractor),
                Box::new(OdtExtractor),
                Box::new(PptxExtractor),
                Box::new(EpubExtractor),
                Box::new(RtfExtractor),
                Box::new(DocExtractor),
                Box::new(PdfExtractor),
                // Sniffed text-like formats last, plain text the last resort.
                Box::new(MarkdownExtractor),
                Box::new(HtmlExtractor),
                Box::new(TextExtractor),
            ],
        }
    }

    /// Registers another extractor, asked before the built-in ones.
    #[must_use]
    pub fn with_extractor(mut self, extractor: impl Extract + 'static) -> Self {
        self.formats.insert(0, Box::new(extractor));
        self
    }

    /// The settings this extractor was built with.
    #[must_use]
    pub fn config(&self) -> &ExtractConfig {
        &self.config
    }

    /// The format a document would be extracted as, from its name and first
    /// bytes (only the first [`HEAD_LEN`] are looked at).
    ///
    /// # Errors
    ///
    /// [`Error::Binary`] or [`Error::Unsupported`] when a magic number says
    /// the document is not in a format this version extracts.
    pub fn detect(&self, name: &str, head: &[u8]) -> Result<Format> {
        self.pick(name, head).map(Extract::format)
    }

    fn pick(&self, name: &str, bytes: &[u8]) -> Result<&dyn Extract> {
        let head = bytes.get(..HEAD_LEN).unwrap_or(bytes);
        match sniff::signature(head) {
            Some(signature) if signature.kind == Kind::Binary => Err(Error::Binary { name: name.into() }),
            Some(signature) => match container::classify(signature.media_type, bytes) {
                Container::Document(format) => self
                    .by_format(format)
                    .ok_or_else(|| Error::Unsupported { name: name.into(), media_type: format.media_type().into() }),
                Container::Archive(_) => {
                    Err(Error::Archive { name: name.into(), media_type: signature.media_type.into() })
                }
                Container::Unsupported(media_type) => {
                    Err(Error::Unsupported { name: name.into(), media_type: media_type.into() })
                }
            },
            // No magic number: a text format, known by its name or its content. Bytes that
            // decode to control characters (random bytes, a file of an unknown binary
            // format) are refused now, as the whole text would be after extraction, so an
            // upload of them is refused before it is queued.
            None if !head.is_empty() && sniff::looks_binary(&crate::encoding::decode(head, None).text) => {
                Err(Error::Binary { name: name.into() })
            }
            None => {
                self.formats.iter().map(AsRef::as_ref).find(|format| format.sniff(name, head)).ok_or_else(|| {
                    Error::Unsupported { name: name.into(), media_type: "application/octet-stream".into() }
                })
            }
        }
    }

    /// The registered extractor of a container format (PDF, DOCX, ...),
    /// custom ones first.
    fn by_format(&self, format: Format) -> Option<&dyn Extract> {
        self.formats.iter().map(AsRef::as_ref).find(|e| e.format() == format)
    }

    /// Extracts the text of a document held in memory. `name` is used in
    /// errors and as a hint for detection (its extension breaks ties).
    ///
    /// # Errors
    ///
    /// [`Error::TooLarge`], [`Error::Empty`], [`Error::Binary`],
    /// [`Error::Unsupported`], each naming `name`.
    pub fn extract_bytes(&self, name: &str, bytes: &[u8]) -> Result<Extracted> {
        let size = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
        if size > self.config.max_bytes {
            return Err(Error::TooLarge { name: name.into(), size, limit: self.config.max_bytes });
        }
        if bytes.is_empty() {
            return Err(Error::Empty { name: name.into() });
        }
        if self.config.text_read_cap(bytes.get(..HEAD_LEN).unwrap_or(bytes)).is_some_and(|cap| size > cap) {
            return Err(self.text_too_large(name));
        }
        let mut extracted = self.pick(name, bytes)?.extract(name, bytes, &self.config)?;
        // Holds custom extractors (and the text formats) to the same contract as the
        // built-in structured ones.
        if is_blank(&extracted.text) {
            return Err(Error::Empty { name: name.into() });
        }
        if extracted.text.len() > self.config.text_limit() {
            return Err(self.text_too_large(name));
        }
        let tricks = bypass::scan(&extracted.text, &extracted.origins);
        extracted.warnings.extend(tricks);
        Ok(extracted)
    }

    /// Reads and extracts a file. The size limit is checked from the file's
    /// metadata before anything is read, and again while reading (a file can
    /// grow, and some special files report no size).
    ///
    /// # Errors
    ///
    /// [`Error::Io`] naming the path when it cannot be opened or read, and
    /// the errors of [`extract_bytes`](Self::extract_bytes), naming the path.
    pub fn extract_path(&self, path: &Path) -> Result<Extracted> {
        let bytes = self.read_file(path)?;
        self.extract_bytes(&path.display().to_string(), &bytes)
    }

    /// Every document in a file held in memory: the file itself, or, for an
    /// archive, each member (archives in it opened in turn), named
    /// `name!/member`. One member's failure (damage, a bomb limit,
    /// encryption) is its own [`Document`] with the error; the others are
    /// still extracted. Never empty.
    #[must_use]
    pub fn extract_documents(&self, name: &str, bytes: &[u8]) -> Vec<Document> {
        let budget = Budget::for_archive(&self.config);
        let mut out = Vec::new();
        self.collect(name, bytes, 0, &budget, &mut out);
        out
    }

    /// Every document in a file: see
    /// [`extract_documents`](Self::extract_documents). A file that cannot be
    /// read is one [`Document`] with the error.
    #[must_use]
    pub fn extract_path_documents(&self, path: &Path) -> Vec<Document> {
        let name = path.display().to_string();
        match self.read_file(path) {
            Ok(bytes) => self.extract_documents(&name, &bytes),
            Err(error) => vec![Document { name, result: Err(error) }],
        }
    }

    fn collect(&self, name: &str, bytes: &[u8], depth: u32, budget: &Budget, out: &mut Vec<Document>) {
        let Some(kind) = self.archive_kind(bytes) else {
            // Our parsers are written not to panic (fuzzed); should one
            // still, the document fails by name and the batch goes on.
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.extract_bytes(name, bytes)))
                .unwrap_or_else(|_| Err(Error::Failed { name: name.into(), reason: "the extractor panicked".into() }));
            out.push(Document { name: name.into(), result });
            return;
        };
        if depth >= budget.limits.max_depth {
            let limit = format!("archives nested deeper than {}", budget.limits.max_depth);
            out.push(Document { name: name.into(), result: Err(Error::Limit { name: name.into(), limit }) });
            return;
        }
        // Each member is extracted as soon as it is read and dropped after:
        // one member at a time in memory (per nesting level).
        let mut each = |member: archive::Member| {
            let member_name = format!("{name}!/{}", member.name);
            match member.bytes {
                Ok(bytes) => self.collect(&member_name, &bytes, depth + 1, budget, out),
                Err(error) => out.push(Document { name: member_name, result: Err(error) }),
            }
        };
        match archive::for_each_member(kind, name, bytes, budget, self.config.max_bytes, &mut each) {
            Err(error) => out.push(Document { name: name.into(), result: Err(error) }),
            Ok(0) => out.push(Document { name: name.into(), result: Err(Error::Empty { name: name.into() }) }),
            Ok(_) => {}
        }
    }

    /// The archive format of `bytes`, if they are an archive.
    fn archive_kind(&self, bytes: &[u8]) -> Option<ArchiveKind> {
        let head = bytes.get(..HEAD_LEN).unwrap_or(bytes);
        let signature = sniff::signature(head)?;
        match container::classify(signature.media_type, bytes) {
            Container::Archive(kind) => Some(kind),
            _ => None,
        }
    }

    fn text_too_large(&self, name: &str) -> Error {
        Error::TextTooLarge { name: name.into(), limit: self.config.max_text_bytes }
    }

    /// Reads a file under [`ExtractConfig::max_bytes`], and, when it has no magic number
    /// (a text format), under [`ExtractConfig::text_bytes_cap`]: its head is read first.
    fn read_file(&self, path: &Path) -> Result<Vec<u8>> {
        let name = path.display().to_string();
        let io = |reason| Error::Io { path: path.to_path_buf(), reason };
        let mut file = std::fs::File::open(path).map_err(io)?;
        let size = file.metadata().map_err(io)?.len();
        let limit = self.config.max_bytes;
        if size > limit {
            return Err(Error::TooLarge { name, size, limit });
        }
        let mut bytes = Vec::with_capacity(usize::try_from(size.min(HEAD_LEN as u64)).unwrap_or(0));
        (&mut file).take(HEAD_LEN as u64).read_to_end(&mut bytes).map_err(io)?;
        let text_cap = self.config.text_read_cap(&bytes);
        if text_cap.is_some_and(|cap| size > cap) {
            return Err(self.text_too_large(&name));
        }
        let cap = text_cap.map_or(limit, |text| limit.min(text));
        bytes.reserve(usize::try_from(size.min(cap)).unwrap_or(0).saturating_sub(bytes.len()));
        file.take(cap.saturating_add(1).saturating_sub(bytes.len() as u64)).read_to_end(&mut bytes).map_err(io)?;
        let read = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
        if read > cap {
            if text_cap == Some(cap) {
                return Err(self.text_too_large(&name));
            }
            return Err(Error::TooLarge { name, size: read.max(size), limit });
        }
        Ok(bytes)
    }
}

impl Default for Extractor {
    fn default() -> Self {
        Self::new(ExtractConfig::default())
    }
}

impl fmt::Debug for Extractor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let formats: Vec<Format> = self.formats.iter().map(|format| format.format()).collect();
        f.debug_struct("Extractor").field("config", &self.config).field("formats", &formats).finish()
    }
}

/// Extracts the text of a file with a one-off [`Extractor`]; see
/// [`Extractor::extract_path`].
///
/// # Errors
///
/// As [`Extractor::extract_path`].
pub fn extract_path(path: &Path, config: &ExtractConfig) -> Result<Extracted> {
    Extractor::new(config.clone()).extract_path(path)
}

/// Extracts the text of a document in memory with a one-off [`Extractor`];
/// see [`Extractor::extract_bytes`].
///
/// # Errors
///
/// As [`Extractor::extract_bytes`].
pub fn extract_bytes(name: &str, bytes: &[u8], config: &ExtractConfig) -> Result<Extracted> {
    Extractor::new(config.clone()).extract_bytes(name, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_is_by_content() {
        let extractor = Extractor::default();
        assert_eq!(extractor.detect("page.txt", b"<!doctype html>").unwrap(), Format::Html);
        assert_eq!(extractor.detect("notes.html", b"just words").unwrap(), Format::Text);
        assert_eq!(extractor.detect("paper.txt", b"%PDF-1.4\n").unwrap(), Format::Pdf);
        assert!(matches!(extractor.detect("photo.txt", b"\x89PNG\r\n\x1A\n"), Err(Error::Binary { .. })));
        // Random bytes without a magic number, whatever their name.
        let mut rng = tessera_test_support::words::XorShift64::new(0x9E37_79B9_7F4A_7C15);
        let random: Vec<u8> = (0..4096).map(|_| (rng.next_u64() >> 24) as u8).collect();
        for name in ["random.bin", "notes.txt", "page.html", "read.md"] {
            assert!(matches!(extractor.detect(name, &random), Err(Error::Binary { .. })), "{name}");
        }
        assert!(matches!(extractor.detect("notes.txt", "Plain words, and «quotes».".as_bytes()), Ok(Format::Text)));
    }

    #[test]
    fn custom_extractors_come_first() {
        struct Shouty;
        impl Extract for Shouty {
            fn format(&self) -> Format {
                Format::Text
            }
            fn sniff(&self, _name: &str, head: &[u8]) -> bool {
                head.starts_with(b"!")
            }
            fn extract(&self, _: &str, bytes: &[u8], _: &ExtractConfig) -> Result<Extracted> {
                Ok(Extracted {
                    text: String::from_utf8_lossy(bytes.get(1..).unwrap_or_default()).to_uppercase(),
                    title: None,
                    format: Format::Text,
                    encoding: None,
                    metadata: crate::Metadata::default(),
                    origins: Vec::new(),
                    warnings: Vec::new(),
                })
            }
        }
        let extractor = Extractor::default().with_extractor(Shouty);
        assert_eq!(extractor.extract_bytes("x", b"!hi").unwrap().text, "HI");
        assert_eq!(extractor.extract_bytes("x", b"hi").unwrap().text, "hi");
        assert!(matches!(extractor.extract_bytes("x", b"! "), Err(Error::Empty { .. })));
        let debug = format!("{extractor:?}");
        assert!(debug.contains("formats: [Text, ") && debug.contains("Html, Text]"), "{debug}");
    }
}
