//! Binary records of document metadata and of kept texts.
//!
//! Metadata record (one per document, in the segment's metadata store):
//!
//! ```text
//! varint title_len,  title bytes (UTF-8)
//! varint origin_len, origin bytes (UTF-8)
//! varint added_at    (seconds since the Unix epoch)
//! varint byte_len
//! varint char_len
//! ```
//!
//! Text record (one per document, in the text store of a collection with `keep_texts`):
//! empty when the document has no kept text; otherwise `varint raw_len` followed by the
//! UTF-8 text compressed as one LZ4 block (`lz4_flex::block`). Per-document blocks keep
//! random access to one text cheap.

use crate::DocMeta;
use crate::varint::{ByteReader, put_varint};

/// LZ4 cannot expand a block by more than this factor; a larger claimed size is corrupt.
const LZ4_MAX_RATIO: u64 = 255;

/// Appends the metadata record of `m`.
pub(crate) fn encode_meta(m: &DocMeta, out: &mut Vec<u8>) {
    put_varint(out, m.title.len() as u64);
    out.extend_from_slice(m.title.as_bytes());
    put_varint(out, m.origin.len() as u64);
    out.extend_from_slice(m.origin.as_bytes());
    put_varint(out, m.added_at);
    put_varint(out, m.byte_len);
    put_varint(out, m.char_len);
}

/// Decodes a metadata record; `Err` holds the reason.
pub(crate) fn decode_meta(bytes: &[u8]) -> Result<DocMeta, String> {
    let mut r = ByteReader::new(bytes);
    let eof = || "metadata record truncated".to_string();
    let mut string = |what: &str| -> Result<String, String> {
        let len = r.varint().ok_or_else(eof)?;
        let len = usize::try_from(len).map_err(|_| eof())?;
        let b = r.bytes(len).ok_or_else(eof)?;
        String::from_utf8(b.to_vec()).map_err(|_| format!("metadata {what} is not UTF-8"))
    };
    let title = string("title")?;
    let origin = string("origin")?;
    let added_at = r.varint().ok_or_else(eof)?;
    let byte_len = r.varint().ok_or_else(eof)?;
    let char_len = r.varint().ok_or_else(eof)?;
    if r.remaining() != 0 {
        return Err("metadata record has trailing bytes".into());
    }
    Ok(DocMeta { title, origin, added_at, byte_len, char_len })
}

/// Appends the text record of `text` (nothing for `None`).
pub(crate) fn encode_text(text: Option<&str>, out: &mut Vec<u8>) {
    if let Some(t) = text {
        put_varint(out, t.len() as u64);
        out.extend_from_slice(&lz4_flex::block::compress(t.as_bytes()));
    }
}

/// Decodes a text record; `Err` holds the reason.
pub(crate) fn decode_text(bytes: &[u8]) -> Result<Option<String>, String> {
    if bytes.is_empty() {
        return Ok(None);
    }
    let mut r = ByteReader::new(bytes);
    let raw_len = r.varint().ok_or("text record truncated")?;
    let block = r.bytes(r.remaining()).unwrap_or(&[]);
    if raw_len > (block.len() as u64).saturating_mul(LZ4_MAX_RATIO) + 16 {
        return Err(format!("text record claims {raw_len} bytes from a {}-byte block", block.len()));
    }
    let raw = lz4_flex::block::decompress(block, raw_len as usize)
        .map_err(|e| format!("text record does not decompress: {e}"))?;
    if raw.len() as u64 != raw_len {
        return Err("text record decompresses to the wrong length".into());
    }
    String::from_utf8(raw).map(Some).map_err(|_| "text record is not UTF-8".into())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // unwrap is fine in tests
mod tests {
    use super::*;

    #[test]
    fn meta_round_trip() {
        let m = DocMeta {
            title: "Тессера".into(),
            origin: "https://example.org/a?b".into(),
            added_at: 1_700_000_000,
            byte_len: u64::MAX,
            char_len: 0,
        };
        let mut buf = Vec::new();
        encode_meta(&m, &mut buf);
        assert_eq!(decode_meta(&buf).unwrap(), m);
        for cut in 0..buf.len() {
            assert!(decode_meta(&buf[..cut]).is_err());
        }
    }

    #[test]
    fn text_round_trip() {
        for t in [None, Some(""), Some("a"), Some(&*"repeated words ".repeat(500))] {
            let mut buf = Vec::new();
            encode_text(t, &mut buf);
            assert_eq!(decode_text(&buf).unwrap().as_deref(), t);
        }
    }

    #[test]
    fn bad_text_is_an_error() {
        let mut buf = Vec::new();
        put_varint(&mut buf, 1 << 40);
        buf.extend_from_slice(&[1, 2, 3]);
        assert!(decode_text(&buf).is_err());
        let mut buf = Vec::new();
        encode_text(Some("hello hello hello hello"), &mut buf);
        let last = buf.len() - 1;
        buf[last] ^= 0xFF;
        let _ = decode_text(&buf);
    }
}
