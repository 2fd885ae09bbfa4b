//! Memory as a budget: what a document is expected to cost before it is extracted, what
//! it costs once its text is known, and the cap on one document's text. The server
//! admits a check, and `tessera index` a batch of files, only when their expected cost
//! fits [`EngineOptions::memory_limit`](crate::EngineOptions::memory_limit); the text
//! cap ([`ExtractConfig::max_text_bytes`](crate::ExtractConfig::max_text_bytes)) bounds
//! what one document can cost at all.
//!
//! The figures are measured (docs/performance.md, "Memory per document", debug build,
//! the process included): indexing 14.5 MB of text peaks at 261 MB (18 bytes per byte);
//! a check costs more, and more the more of it matches: 3 MB checked against an index
//! holding it whole (one block as long as the text) peaks at 318 MB (about 94 bytes per
//! byte past the process's own 35 MB), 14.5 MB (searched in 4 MiB chunks) at 648 MB
//! (45 per byte). [`Work::Check`] takes 64 per byte: what a mostly borrowed text costs;
//! a whole copy of a long source may pass it, by its own cost.

use tessera_extract::{Error as ExtractError, Extractor, Format};

use crate::{Engine, Error, Result};

/// The default of [`EngineOptions::memory_limit`](crate::EngineOptions::memory_limit): 1 GiB.
pub const DEFAULT_MEMORY_LIMIT: u64 = 1 << 30;

/// What is done with a document, for its expected cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// Extracted, fingerprinted and added to the index: 20 bytes per byte of text.
    Index,
    /// Extracted, searched, aligned and reported: 64 bytes per byte of text.
    Check,
}

impl Work {
    /// Bytes of memory per byte of text (measured; module documentation).
    #[must_use]
    pub fn cost_per_text_byte(self) -> u64 {
        match self {
            Work::Index => 20,
            Work::Check => 64,
        }
    }
}

/// The least a document is expected to cost, whatever its size: buffers, the index view.
pub const COST_FLOOR: u64 = 4 << 20;

/// Bytes of text a compressed document or archive is expected to give per byte of the
/// file before it is extracted: a DOCX or a ZIP of texts gives 2 to 5; more is what the
/// unpacking guards and the text cap are for.
const TEXT_PER_PACKED_BYTE: u64 = 8;

impl Engine {
    /// The text a document of `size` bytes starting with `head` is expected to give at
    /// most, before it is extracted: its size for a text format (a single-byte encoding
    /// doubles in UTF-8: twice), [`TEXT_PER_PACKED_BYTE`] times it for compressed
    /// formats and archives; never more than the text cap for one document, and for an
    /// archive never more than its unpacking budget.
    #[must_use]
    pub fn expected_text_bytes(&self, name: &str, head: &[u8], size: u64) -> u64 {
        let extract = &self.options().extract;
        match Extractor::new(extract.clone()).detect(name, head) {
            Ok(Format::Text | Format::Markdown | Format::Html) => size.saturating_mul(2).min(extract.max_text_bytes),
            Ok(_) => size.saturating_mul(TEXT_PER_PACKED_BYTE).min(extract.max_text_bytes),
            Err(ExtractError::Archive { .. }) => {
                size.saturating_mul(TEXT_PER_PACKED_BYTE).min(extract.unpack.max_total_bytes)
            }
            // Refused at extraction: it costs its bytes.
            Err(_) => 0,
        }
    }

    /// The memory a document with `text_bytes` of text is expected to take while `work`
    /// is done with it.
    #[must_use]
    pub fn document_cost(&self, work: Work, text_bytes: u64) -> u64 {
        COST_FLOOR.saturating_add(text_bytes.saturating_mul(work.cost_per_text_byte()))
    }

    /// The expected cost of `work` on a document before it is extracted:
    /// [`document_cost`] of [`expected_text_bytes`] plus the file's own bytes, held
    /// while it is read.
    ///
    /// [`document_cost`]: Self::document_cost
    /// [`expected_text_bytes`]: Self::expected_text_bytes
    #[must_use]
    pub fn expected_cost(&self, work: Work, name: &str, head: &[u8], size: u64) -> u64 {
        self.document_cost(work, self.expected_text_bytes(name, head, size)).saturating_add(size)
    }

    /// Refuses a text given as it is (pasted, sent as JSON, handed over from Python)
    /// when it is longer than the text cap for one document, naming it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::TooLarge`](crate::ErrorKind::TooLarge), naming `name`.
    pub fn check_text_len(&self, name: &str, len: usize) -> Result<()> {
        let limit = self.options().extract.max_text_bytes;
        if u64::try_from(len).unwrap_or(u64::MAX) > limit {
            return Err(Error::Extract(ExtractError::TextTooLarge { name: name.into(), limit }));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Work;
    use crate::{Engine, EngineOptions, ErrorKind, ExtractConfig, FingerprintSettings};

    fn engine(max_text_bytes: u64) -> (tempfile::TempDir, Engine) {
        let dir = tempfile::tempdir().unwrap();
        let options = EngineOptions {
            extract: ExtractConfig { max_text_bytes, ..ExtractConfig::default() },
            ..EngineOptions::default()
        };
        let engine = Engine::open_or_create(dir.path(), &FingerprintSettings::default(), options).unwrap();
        (dir, engine)
    }

    #[test]
    fn expected_text_follows_the_format_and_stops_at_the_cap() {
        let (_dir, engine) = engine(1 << 20);
        assert_eq!(engine.expected_text_bytes("a.txt", b"plain words", 1000), 2000);
        assert_eq!(engine.expected_text_bytes("a.txt", b"plain words", 10 << 20), 1 << 20);
        let zip_head = b"PK\x03\x04\x14\x00\x00\x00\x08\x00";
        assert_eq!(engine.expected_text_bytes("a.zip", zip_head, 1000), 8000);
        // An archive's members each have the cap: the unpacking budget bounds it.
        assert_eq!(engine.expected_text_bytes("a.zip", zip_head, 1 << 20), 8 << 20);
        assert_eq!(engine.expected_text_bytes("a.png", b"\x89PNG\r\n\x1a\n", 1000), 0);
        assert_eq!(engine.document_cost(Work::Index, 1000), super::COST_FLOOR + 20_000);
        assert_eq!(engine.document_cost(Work::Check, 1000), super::COST_FLOOR + 64_000);
        assert_eq!(engine.expected_cost(Work::Index, "a.txt", b"plain words", 1000), super::COST_FLOOR + 41_000);
    }

    #[test]
    fn a_text_over_the_cap_is_refused_by_name() {
        let (_dir, engine) = engine(100);
        assert!(engine.check_text_len("pasted", 100).is_ok());
        let e = engine.check_text_len("pasted", 101).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::TooLarge);
        assert_eq!(e.to_string(), "pasted: its text is over the limit of 100 bytes");
    }
}
