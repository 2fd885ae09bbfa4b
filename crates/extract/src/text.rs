//! Plain text: decode, and otherwise leave alone.

use crate::encoding;
use crate::extract::Extract;
use crate::sniff::{is_blank, looks_binary};
use crate::{Error, ExtractConfig, Extracted, Format, Result};

/// Extracts plain text in any detected encoding.
///
/// The text is returned exactly as decoded: line endings, tabs and runs of
/// spaces stay, because later stages report byte offsets into it. Only a
/// leading byte-order mark is removed. See the crate documentation for how
/// the encoding is chosen.
///
/// Its [`sniff`](Extract::sniff) accepts anything: it is the last resort, and
/// [`extract`](Extract::extract) rejects what decodes to binary garbage.
#[derive(Debug, Clone, Copy, Default)]
pub struct TextExtractor;

impl Extract for TextExtractor {
    fn format(&self) -> Format {
        Format::Text
    }

    fn sniff(&self, _name: &str, _head: &[u8]) -> bool {
        true
    }

    fn extract(&self, name: &str, bytes: &[u8], _config: &ExtractConfig) -> Result<Extracted> {
        let decoded = encoding::decode(bytes, None);
        if is_blank(&decoded.text) {
            return Err(Error::Empty { name: name.into() });
        }
        if looks_binary(&decoded.text) {
            return Err(Error::Binary { name: name.into() });
        }
        Ok(Extracted {
            text: decoded.text,
            title: None,
            format: Format::Text,
            encoding: Some(decoded.encoding.name().to_owned()),
            metadata: crate::Metadata::default(),
            origins: Vec::new(),
            warnings: decoded.warnings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extract(bytes: &[u8]) -> Result<Extracted> {
        TextExtractor.extract("t.txt", bytes, &ExtractConfig::default())
    }

    #[test]
    fn text_is_kept_byte_for_byte() {
        let text = "  line one\r\n\tline  two\n\n\u{A0}end  ";
        let out = extract(text.as_bytes()).unwrap();
        assert_eq!(out.text, text);
        assert_eq!(out.encoding.as_deref(), Some("UTF-8"));
        assert_eq!(out.format, Format::Text);
        assert_eq!(out.title, None);
    }

    #[test]
    fn empty_and_blank_are_empty() {
        for bytes in [&b""[..], b" \r\n\t ", b"\xEF\xBB\xBF", b"\xFF\xFE \0\n\0"] {
            assert!(matches!(extract(bytes), Err(Error::Empty { name }) if name == "t.txt"));
        }
    }

    #[test]
    fn nul_heavy_is_binary() {
        let bytes = b"\0\x01\x02\x03abc\0\0\0\x10\x11";
        assert!(matches!(extract(bytes), Err(Error::Binary { .. })));
    }
}
