//! The binary record of a [`Snapshot`], one per document in a segment's snapshot store.
//!
//! Record layout:
//!
//! ```text
//! varint  hash_count
//! varint  token_count
//! u64 LE  hashes[hash_count]              raw: hashes are random, nothing to squeeze
//! token_count x (zigzag varint start - prev_end, varint end - start)   byte spans
//! token_count x (zigzag varint start - prev_end, varint end - start)   char spans
//! -- segment format version 2 and later:
//! varint  term_count                      0 (terms unknown) or token_count
//! u32 LE  terms[term_count]               low 32 bits of the term hashes
//! varint  sentence_count
//! sentence_count x varint (start - prev_start)                      sentence starts
//! ```
//!
//! `prev_start` starts at 0, so the first sentence's start is stored as is.
//!
//! `prev_end` starts at 0 and is the previous token's end. For tokens in text order the
//! gap is a small non-negative number and the length a small one, so a span takes about
//! two bytes. Differences are taken with wrapping arithmetic, so any input (overlapping
//! or reversed spans included) round-trips exactly; it is only less compact.

use crate::Snapshot;
use crate::varint::{ByteReader, put_varint, unzigzag, zigzag};

/// Appends the record of `s` to `out`, in the format of the current segment version.
/// Terms are stored only when there is one per token (else none: unknown).
pub(crate) fn encode_snapshot(s: &Snapshot, out: &mut Vec<u8>) {
    put_varint(out, s.hashes.len() as u64);
    put_varint(out, s.token_bytes.len() as u64);
    out.reserve(s.hashes.len() * 8 + s.token_bytes.len() * 8);
    for h in &s.hashes {
        out.extend_from_slice(&h.to_le_bytes());
    }
    encode_spans(&s.token_bytes, out);
    encode_spans(&s.token_chars, out);
    let terms: &[u32] = if s.terms.len() == s.token_bytes.len() { &s.terms } else { &[] };
    put_varint(out, terms.len() as u64);
    for t in terms {
        out.extend_from_slice(&t.to_le_bytes());
    }
    put_varint(out, s.sentence_starts.len() as u64);
    let mut prev = 0u64;
    for &start in &s.sentence_starts {
        put_varint(out, start.wrapping_sub(prev));
        prev = start;
    }
}

fn encode_spans(spans: &[(u64, u64)], out: &mut Vec<u8>) {
    let mut prev_end = 0u64;
    for &(start, end) in spans {
        put_varint(out, zigzag(start.wrapping_sub(prev_end) as i64));
        put_varint(out, end.wrapping_sub(start));
        prev_end = end;
    }
}

/// Decodes one record of a segment of format `version`; `Err` holds the reason.
pub(crate) fn decode_snapshot(bytes: &[u8], version: u32) -> Result<Snapshot, String> {
    let mut r = ByteReader::new(bytes);
    let eof = || "snapshot record truncated".to_string();
    let hash_count = r.varint().ok_or_else(eof)?;
    let token_count = r.varint().ok_or_else(eof)?;
    // Bound the allocations by what the record can hold: 8 bytes per hash, at least
    // 4 bytes per token (two spans of two varints).
    let rest = r.remaining() as u64;
    if hash_count.saturating_mul(8) > rest || token_count.saturating_mul(4) > rest {
        return Err(format!("snapshot record claims {hash_count} hashes and {token_count} tokens in {rest} bytes"));
    }
    let hashes = (0..hash_count).map(|_| r.u64_le().ok_or_else(eof)).collect::<Result<Vec<_>, _>>()?;
    let token_bytes = decode_spans(&mut r, token_count)?;
    let token_chars = decode_spans(&mut r, token_count)?;
    let (mut terms, mut sentence_starts) = (Vec::new(), Vec::new());
    if version >= 2 {
        let eof = || "snapshot record truncated in terms or sentences".to_string();
        let term_count = r.varint().ok_or_else(eof)?;
        if term_count != 0 && term_count != token_count {
            return Err(format!("snapshot record has {term_count} terms for {token_count} tokens"));
        }
        if term_count.saturating_mul(4) > r.remaining() as u64 {
            return Err(eof());
        }
        terms = (0..term_count).map(|_| r.u32_le().ok_or_else(eof)).collect::<Result<Vec<_>, _>>()?;
        let sentence_count = r.varint().ok_or_else(eof)?;
        if sentence_count > r.remaining() as u64 {
            return Err(format!("snapshot record claims {sentence_count} sentences in {} bytes", r.remaining()));
        }
        let mut prev = 0u64;
        for _ in 0..sentence_count {
            prev = prev.wrapping_add(r.varint().ok_or_else(eof)?);
            sentence_starts.push(prev);
        }
    }
    if r.remaining() != 0 {
        return Err(format!("snapshot record has {} trailing bytes", r.remaining()));
    }
    Ok(Snapshot { hashes, token_bytes, token_chars, terms, sentence_starts })
}

fn decode_spans(r: &mut ByteReader<'_>, count: u64) -> Result<Vec<(u64, u64)>, String> {
    let eof = || "snapshot record truncated in token spans".to_string();
    let mut spans = Vec::with_capacity(count as usize);
    let mut prev_end = 0u64;
    for _ in 0..count {
        let start = prev_end.wrapping_add(unzigzag(r.varint().ok_or_else(eof)?) as u64);
        let end = start.wrapping_add(r.varint().ok_or_else(eof)?);
        spans.push((start, end));
        prev_end = end;
    }
    Ok(spans)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // unwrap is fine in tests
mod tests {
    use super::*;

    #[test]
    fn round_trip_including_odd_spans() {
        let s = Snapshot {
            hashes: vec![0, u64::MAX, 42],
            token_bytes: vec![(0, 3), (4, 9), (2, 1), (u64::MAX, 0)],
            token_chars: vec![(0, 3), (4, 8), (8, 8), (100, u64::MAX)],
            terms: vec![7, u32::MAX, 0, 9],
            sentence_starts: vec![0, 2, 1, u64::MAX],
        };
        let mut buf = Vec::new();
        encode_snapshot(&s, &mut buf);
        assert_eq!(decode_snapshot(&buf, 2).unwrap(), s);
        for cut in 0..buf.len() {
            assert!(decode_snapshot(&buf[..cut], 2).is_err());
        }
        // A version 1 reader of a version 2 record finds trailing bytes.
        assert!(decode_snapshot(&buf, 1).is_err());
    }

    #[test]
    fn terms_are_stored_only_one_per_token() {
        let s = Snapshot {
            hashes: vec![1],
            token_bytes: vec![(0, 1), (2, 3)],
            token_chars: vec![(0, 1), (2, 3)],
            terms: vec![5],
            sentence_starts: vec![],
        };
        let mut buf = Vec::new();
        encode_snapshot(&s, &mut buf);
        assert_eq!(decode_snapshot(&buf, 2).unwrap(), Snapshot { terms: vec![], ..s });
    }

    #[test]
    fn version_1_records_have_no_terms() {
        // hash_count 1, token_count 1, the hash, byte span (0, 2), char span (0, 2).
        let mut buf = vec![1, 1];
        buf.extend_from_slice(&7u64.to_le_bytes());
        buf.extend_from_slice(&[0, 2, 0, 2]);
        let s = decode_snapshot(&buf, 1).unwrap();
        assert_eq!((s.hashes, s.token_bytes, s.terms, s.sentence_starts), (vec![7], vec![(0, 2)], vec![], vec![]));
        assert!(decode_snapshot(&buf, 2).is_err());
    }

    #[test]
    fn ordinary_spans_take_about_two_bytes() {
        let spans: Vec<(u64, u64)> = (0..1000u64).map(|i| (i * 6, i * 6 + 5)).collect();
        let s = Snapshot { hashes: vec![], token_bytes: spans.clone(), token_chars: spans, ..Snapshot::default() };
        let mut buf = Vec::new();
        encode_snapshot(&s, &mut buf);
        assert!(buf.len() <= 4 * 1000 + 6, "{}", buf.len());
    }

    #[test]
    fn huge_counts_do_not_allocate() {
        let mut buf = Vec::new();
        put_varint(&mut buf, u64::MAX);
        put_varint(&mut buf, u64::MAX);
        assert!(decode_snapshot(&buf, 2).is_err());
    }
}
