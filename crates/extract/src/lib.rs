//! Tessera's first stage: turn a document (a file, or bytes with a name) into
//! its text, with what is known about it ([`Extracted`]).
//!
//! What it owns: turning bytes into documents (text, title, origins, metadata, warnings)
//! with every unpacked byte under its guard. It must never normalize, fingerprint or
//! index, and never panic on input: every failure is an `Error` naming the file.
//!
//! # Overview
//!
//! An [`Extractor`] recognises the format **by content** (magic numbers and
//! sniffing; a name's extension only breaks ties) and hands the bytes to the
//! [`Extract`] implementation for that format. This version extracts:
//!
//! - **plain text** ([`TextExtractor`]) in UTF-8, UTF-16 (with or without a
//!   BOM), Windows-1251, KOI8-R, IBM866 (CP866), Windows-1252 and the other
//!   legacy encodings `chardetng` knows. The text is returned exactly as
//!   decoded (line endings, tabs, runs of spaces), only a leading BOM is
//!   removed, because later stages report byte offsets into it;
//! - **HTML** ([`HtmlExtractor`]): the main text (a Readability pass, or the
//!   body without navigation, header, footer, asides, scripts and styles),
//!   blocks as line breaks, and the `<title>`;
//! - **DOCX** ([`DocxExtractor`]), **ODT** ([`OdtExtractor`]), **PPTX**
//!   ([`PptxExtractor`]) and **EPUB** ([`EpubExtractor`]), recognised by
//!   their ZIP members and read through the guarded ZIP reader
//!   ([`UnpackLimits`]), each XML part with a streaming walker: paragraphs in
//!   reading order with their [`Place`] (paragraph counted through the
//!   document; page where page breaks are marked; slide; [`Part`] for
//!   tables, notes, headers, footers, comments, speaker notes); hidden,
//!   white and tiny text left out and reported as [`Warning::Bypass`];
//!   title and metadata (authors, dates, language, pages or slides);
//! - **Markdown** ([`MarkdownExtractor`]) by extension (`.md`,
//!   `.markdown`, ...), or by its markup when the name does not say plain
//!   text or source code: the text without the markup, each piece with its
//!   block number, HTML comments reported as hidden text;
//! - **Word 97-2003** ([`DocExtractor`]): the OLE compound file read with
//!   `cfb`, then our own reader of the FIB and the piece table; 8-bit pieces
//!   in the code page of the document's language id (Russian ->
//!   Windows-1251), others UTF-16; body, then footnotes, headers and footers
//!   (marked), comments and endnotes; field results without their codes;
//!   hidden, white and tiny runs (direct formatting and styles) left out and
//!   reported; title, author and dates from the summary information.
//!   Encrypted files are [`Error::Encrypted`]; Word 6/95 and other OLE files
//!   (Excel, PowerPoint, Outlook) [`Error::Unsupported`];
//! - **RTF** ([`RtfExtractor`]): our own tokenizer; `\uN` with its `\ucN`
//!   fallback skipped, `\'hh` in the code page of the current font's
//!   `\fcharset` or the document's `\ansicpg`; headers and footers marked,
//!   footnotes after the body, pages from `\page`; `\v`, white `\cf` and
//!   `\fs` <= 4 text left out and reported; `\info` title, author, dates.
//!
//! DOC and RTF give each run of text its paragraph (counted through the
//! document, from 1, counting paragraphs with text), its part, and its page
//! where the document has explicit page breaks.
//!
//! - **PDF** ([`PdfExtractor`]) through PDFium, bound at run time to
//!   `libpdfium.so` from the `pypdfium2` wheel, which the build fetches
//!   (`build.rs`; [`pdfium_fetched_by_build`]) or `scripts/setup-pdfium.sh`
//!   installs ([`pdfium_library`] says where it is looked for): the
//!   text in PDFium's reading order, one [`Origin`] per character with its
//!   page, paragraph and [`BBox`] (PDF points, origin bottom-left); lines and
//!   paragraphs from the geometry; words hyphenated at line ends joined,
//!   soft hyphens dropped, ligatures expanded; title, author, dates,
//!   producer, pages. Invisible (render mode 3), white and tiny (<= 2 pt)
//!   text is left out and reported ([`Warning::Bypass`]). Pages without a
//!   text layer are recognised by `tesseract` when it is installed
//!   ([`Warning::NoTextLayer`]). With [`ExtractConfig::isolation`] set, each
//!   PDF is extracted in a worker process under a time and memory limit
//!   ([`worker`]); otherwise in this process behind a global lock (PDFium
//!   is not thread-safe).
//!
//! Recognised formats not extracted (spreadsheets, lone gzip or xz streams)
//! fail with [`Error::Unsupported`]; archives with [`Error::Archive`] from
//! `extract_bytes` (their members come from
//! [`Extractor::extract_documents`]); images,
//! executables and other binary data with [`Error::Binary`]. Errors always
//! name the document; no input makes this crate panic (a fuzz target and a
//! seeded random-input test check it).
//!
//! ## How the encoding of text is chosen
//!
//! A byte-order mark first; for HTML then the declared charset (unless the
//! bytes contradict it); then UTF-16 without a BOM; then valid UTF-8; then
//! "mostly UTF-8" (at most 1 in 20 non-ASCII sequences broken: the broken
//! ones become U+FFFD and a [`Warning::InvalidBytes`] counts them); then
//! `chardetng`, unless the text is at least 95 % ASCII and the guessed code
//! page would put letters of another script inside Latin words (stray
//! bytes in English): then UTF-8 with U+FFFD as above. The name used is in
//! [`Extracted::encoding`].
//!
//! ## Hostile archives
//!
//! Unpacking is guarded while it happens: a member fails with
//! [`Error::TooLarge`] or [`Error::Limit`] as soon as it passes
//! [`ExtractConfig::max_bytes`], the [`UnpackLimits`] budget or ratio, or
//! earlier when its declared size does; members are extracted one at a
//! time, so memory stays near one member per nesting level.
//!
//! # Example
//!
//! ```
//! use tessera_extract::{extract_bytes, ExtractConfig, Format};
//!
//! let config = ExtractConfig::default();
//!
//! // A Windows-1251 text file: detected and decoded.
//! let (bytes, _, _) = encoding_rs::WINDOWS_1251.encode("Привет, мир!\r\nВторая строка.");
//! let doc = extract_bytes("greeting.txt", &bytes, &config)?;
//! assert_eq!(doc.text, "Привет, мир!\r\nВторая строка.");
//! assert_eq!(doc.encoding.as_deref(), Some("windows-1251"));
//!
//! // An HTML page: recognised by content, whatever its name.
//! let page = b"<!DOCTYPE html><title>Hi</title><nav>Menu</nav><p>One</p><p>Two</p>";
//! let doc = extract_bytes("upload.bin", page, &config)?;
//! assert_eq!((doc.format, doc.title.as_deref()), (Format::Html, Some("Hi")));
//! assert_eq!(doc.text, "One\n\nTwo");
//! # Ok::<(), tessera_extract::Error>(())
//! ```
//!
//! To extract many documents, build one [`Extractor`] and reuse it:
//! `Extractor::new(config).extract_path(path)`.
//!
//! # When to use this
//!
//! Use this crate to get the text of user files and crawled pages before
//! normalizing and fingerprinting them. If you already have clean Unicode
//! text, skip it and go to `tessera-normalize`.

#![deny(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod archive;
mod bypass;
// Shared by the format extractors (office, PDF, RTF, EPUB) as they land.
#[allow(dead_code)]
mod builder;
mod config;
#[allow(dead_code)]
mod container;
mod doc;
mod encoding;
mod error;
mod extract;
mod extracted;
mod extractor;
mod html;
mod html_text;
mod markdown;
mod office;
mod origin;
mod pdf;
mod pdf_layout;
mod pdf_ocr;
mod pdfium;
#[cfg(feature = "rar")]
mod rar;
mod rtf;
mod sniff;
mod text;
mod unpack;
pub mod worker;

pub use archive::Document;
pub use config::{DEFAULT_MAX_BYTES, DEFAULT_MAX_TEXT_BYTES, ExtractConfig, MAX_BYTES_PER_TEXT_BYTE, UnpackLimits};
pub use doc::DocExtractor;
pub use error::{Error, Result};
pub use extract::Extract;
pub use extracted::{Extracted, Format, Metadata, Trick, Warning};
pub use extractor::{Extractor, extract_bytes, extract_path};
pub use html::HtmlExtractor;
pub use markdown::MarkdownExtractor;
pub use office::docx::DocxExtractor;
pub use office::epub::EpubExtractor;
pub use office::odt::OdtExtractor;
pub use office::pptx::PptxExtractor;
pub use origin::{BBox, Location, MAX_LOCATIONS, Origin, Part, Place};
pub use pdf::PdfExtractor;
pub use pdfium::{PDFIUM_ENV, pdfium_fetched_by_build, pdfium_library};
pub use rtf::RtfExtractor;
pub use sniff::HEAD_LEN;
pub use text::TextExtractor;
pub use worker::WorkerCommand;
