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
//! --- segment format 6 (absent before):
//! u8     flags: bit 0 text hash present, bit 1 check id present, other bits 0
//! -- if bit 0: 16 bytes text hash (u128, little-endian)
//! -- if bit 1: varint check_len, check id bytes (UTF-8)
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
    let flags = u8::from(m.text_hash.is_some()) | (u8::from(m.check_id.is_some()) << 1);
    out.push(flags);
    if let Some(hash) = m.text_hash {
        out.extend_from_slice(&hash.to_le_bytes());
    }
    if let Some(check) = &m.check_id {
        put_varint(out, check.len() as u64);
        out.extend_from_slice(check.as_bytes());
    }
}

/// Metadata record flag: a text hash follows.
const META_TEXT_HASH: u8 = 1;
/// Metadata record flag: a check id follows.
const META_CHECK_ID: u8 = 2;
/// The segment format whose metadata records end with the flags byte.
const META_TRAILER_SINCE: u32 = 6;

/// Decodes a metadata record of a segment of format `version`; `Err` holds the reason.
pub(crate) fn decode_meta(bytes: &[u8], version: u32) -> Result<DocMeta, String> {
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
    let (mut text_hash, mut check_id) = (None, None);
    if version >= META_TRAILER_SINCE {
        let flags = r.bytes(1).ok_or_else(eof)?[0];
        if flags & !(META_TEXT_HASH | META_CHECK_ID) != 0 {
            return Err(format!("metadata record has unknown flags {flags:#04x}"));
        }
        if flags & META_TEXT_HASH != 0 {
            let b = r.bytes(16).ok_or_else(eof)?;
            text_hash = Some(u128::from_le_bytes(b.try_into().expect("16 bytes")));
        }
        if flags & META_CHECK_ID != 0 {
            let len = r.varint().ok_or_else(eof)?;
            let len = usize::try_from(len).map_err(|_| eof())?;
            let b = r.bytes(len).ok_or_else(eof)?;
            check_id = Some(String::from_utf8(b.to_vec()).map_err(|_| "metadata check id is not UTF-8".to_string())?);
        }
    }
    if r.remaining() != 0 {
        return Err("metadata record has trailing bytes".into());
    }
    Ok(DocMeta { title, origin, added_at, byte_len, char_len, text_hash, check_id })
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
            text_hash: None,
            check_id: None,
        };
        let with_all = DocMeta { text_hash: Some(u128::MAX - 7), check_id: Some("0f3a".into()), ..m.clone() };
        let with_hash = DocMeta { text_hash: Some(1), ..m.clone() };
        for m in [m, with_all, with_hash] {
            let mut buf = Vec::new();
            encode_meta(&m, &mut buf);
            assert_eq!(decode_meta(&buf, 6).unwrap(), m);
            for cut in 0..buf.len() {
                assert!(decode_meta(&buf[..cut], 6).is_err());
            }
        }
    }

    #[test]
    fn meta_before_format_6_has_no_trailer() {
        let m = DocMeta {
            title: "t".into(),
            origin: "o".into(),
            added_at: 1,
            byte_len: 2,
            char_len: 2,
            text_hash: None,
            check_id: None,
        };
        let mut buf = Vec::new();
        encode_meta(&m, &mut buf);
        // Format 5 records end where the flags byte starts.
        assert_eq!(decode_meta(&buf[..buf.len() - 1], 5).unwrap(), m);
        assert!(decode_meta(&buf, 5).is_err(), "a flags byte is trailing garbage before format 6");
        let last = buf.len() - 1;
        buf[last] = 0x80;
        assert!(decode_meta(&buf, 6).unwrap_err().contains("unknown flags"));
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
