//! Settings for extraction, plain data.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::worker::WorkerCommand;

/// The default for [`ExtractConfig::max_bytes`]: 256 MiB.
pub const DEFAULT_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// The default for [`ExtractConfig::max_text_bytes`]: 16 MiB of UTF-8, some four times
/// the text of the longest thesis (a 1,000-page dissertation in Russian is about 4 MB).
/// A document costs about 12 times its text while it is read, fingerprinted and reported
/// (docs/performance.md, "Memory per document"), so this cap is what bounds one
/// document's memory.
pub const DEFAULT_MAX_TEXT_BYTES: u64 = 16 * 1024 * 1024;

/// A document without a magic number (plain text, Markdown, HTML) or an archive member
/// without one is refused unread past this many bytes per byte of
/// [`ExtractConfig::max_text_bytes`]: no supported encoding makes text smaller than a
/// quarter of its bytes (UTF-16 halves it), so such bytes could only give a text over the cap.
pub const MAX_BYTES_PER_TEXT_BYTE: u64 = 4;

/// Settings for extraction. Plain data: build it with struct update syntax
/// or deserialize it; every field has a default.
///
/// ```
/// use tessera_extract::ExtractConfig;
///
/// let config = ExtractConfig { max_bytes: 1 << 20, ..ExtractConfig::default() };
/// assert!(config.main_content);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExtractConfig {
    /// Largest document accepted, in bytes. A larger one fails with
    /// [`Error::TooLarge`](crate::Error::TooLarge); for a file this is decided
    /// from its metadata, before anything is read.
    pub max_bytes: u64,
    /// Longest text kept from one document, in bytes of UTF-8. A longer one fails with
    /// [`Error::TextTooLarge`](crate::Error::TextTooLarge), as soon as its text passes
    /// the cap (structured formats) or, for text formats and archive members without a
    /// magic number, before more than [`MAX_BYTES_PER_TEXT_BYTE`] times the cap is read.
    pub max_text_bytes: u64,
    /// HTML: keep only the main content (the article a Readability pass
    /// finds). When `false`, or when no article is found, the whole body is
    /// kept minus scripts, styles, navigation, header, footer and asides.
    pub main_content: bool,
    /// Limits on unpacking: archives, and the ZIP containers of office
    /// documents and EPUB.
    pub unpack: UnpackLimits,
    /// Run the native parsers that may crash, hang or are not thread-safe
    /// (PDF, through PDFium) in a worker process started with this command,
    /// under a time and memory limit (see [`crate::worker`]). `None`: in
    /// this process, one document at a time.
    pub isolation: Option<WorkerCommand>,
    /// PDF: the PDFium library (`libpdfium.so`) to bind to. `None`: looked
    /// up as [`crate::pdfium_library`] says.
    pub pdfium: Option<PathBuf>,
    /// PDF: recognise the text of pages without a text layer with the
    /// `tesseract` program, when it is on `PATH` (default `true`).
    pub ocr: bool,
}

impl ExtractConfig {
    /// The longest text kept, as a length (see [`max_text_bytes`](Self::max_text_bytes)).
    #[must_use]
    pub fn text_limit(&self) -> usize {
        usize::try_from(self.max_text_bytes).unwrap_or(usize::MAX)
    }

    /// The most bytes read of a document or member without a magic number: past them,
    /// its text would be over [`max_text_bytes`](Self::max_text_bytes).
    #[must_use]
    pub fn text_bytes_cap(&self) -> u64 {
        self.max_text_bytes.saturating_mul(MAX_BYTES_PER_TEXT_BYTE)
    }

    /// The read cap of a document or member starting with `head`: its
    /// [`text_bytes_cap`](Self::text_bytes_cap) when it has no magic number (a text
    /// format), `None` for the other formats, whose bytes are not their text.
    pub(crate) fn text_read_cap(&self, head: &[u8]) -> Option<u64> {
        crate::sniff::signature(head).is_none().then(|| self.text_bytes_cap())
    }
}

impl Default for ExtractConfig {
    fn default() -> Self {
        Self {
            max_bytes: DEFAULT_MAX_BYTES,
            max_text_bytes: DEFAULT_MAX_TEXT_BYTES,
            main_content: true,
            unpack: UnpackLimits::default(),
            isolation: None,
            pdfium: None,
            ocr: true,
        }
    }
}

/// Guards against decompression bombs: a document or archive member that
/// passes one of these limits fails with
/// [`Error::Limit`](crate::Error::Limit) naming it; the other members of an
/// archive are still extracted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UnpackLimits {
    /// Most bytes unpacked from one container, all members together
    /// (default 1 GiB).
    pub max_total_bytes: u64,
    /// Highest compression ratio (unpacked / packed) of a member larger than
    /// 1 MiB unpacked (default 200; real documents stay under 30).
    pub max_ratio: u64,
    /// Deepest nesting of archives in archives (default 3: a zip in a zip in
    /// a zip).
    pub max_depth: u32,
    /// Most members taken from one archive (default 10,000).
    pub max_members: usize,
}

impl Default for UnpackLimits {
    fn default() -> Self {
        Self { max_total_bytes: 1 << 30, max_ratio: 200, max_depth: 3, max_members: 10_000 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_fields_take_defaults() {
        let config: ExtractConfig = serde_json::from_str(r#"{"max_bytes": 10}"#).unwrap();
        assert_eq!(config.max_bytes, 10);
        assert!(config.main_content);
        assert!(serde_json::from_str::<ExtractConfig>(r#"{"max_byte": 10}"#).is_err());
    }
}
