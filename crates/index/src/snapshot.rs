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
//! `prev_end` starts at 0 and is the previous token's end.
//!
//! Segment format 3 writes the compact record of [`encode_snapshot_v3`] instead (see
//! there); formats 1 and 2 are still read. For tokens in text order the
//! gap is a small non-negative number and the length a small one, so a span takes about
//! two bytes. Differences are taken with wrapping arithmetic, so any input (overlapping
//! or reversed spans included) round-trips exactly; it is only less compact.

use crate::termdict::{DictBuilder, TermDict};
use crate::varint::{ByteReader, put_varint, unzigzag, zigzag};
use crate::{FullTerms, SentenceEdge, Snapshot};

/// Appends the format-2 record of `s` to `out` (tests only: this build writes format 3).
/// Terms are stored only when there is one per token (else none: unknown).
#[cfg(test)]
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

#[cfg(test)]
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
    Ok(Snapshot { hashes, token_bytes, token_chars, terms, sentence_starts, sentence_edges: Vec::new() })
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

/// Record flag (format 3): the shingle hashes are derived from the terms, not stored.
const V3_DERIVED: u8 = 1;
/// Record flag (format 3): one term per token is stored.
const V3_TERMS: u8 = 2;
/// Record flags (format 3), two bits: how char spans are stored.
const V3_CHARS_SHIFT: u32 = 2;
/// Char spans equal byte spans (ASCII text): nothing stored.
const CHARS_AS_BYTES: u8 = 0;
/// Char spans coded like byte spans.
const CHARS_CODED: u8 = 1;
/// Char spans as exceptions to "char = byte - running offset" (mostly-ASCII text).
const CHARS_EXCEPTIONS: u8 = 2;
const V3_KNOWN_FLAGS: u8 = V3_DERIVED | V3_TERMS | (3 << V3_CHARS_SHIFT);
/// Record flag (format 4): one [`SentenceEdge`] per sentence is stored.
const V4_EDGES: u8 = 16;
/// Record flag (format 4): the edges' char counts are stored (else they equal the byte
/// counts: ASCII edges).
const V4_EDGE_CHARS: u8 = 32;
const V4_KNOWN_FLAGS: u8 = V3_KNOWN_FLAGS | V4_EDGES | V4_EDGE_CHARS;

/// A span code byte: `gap * 63 + len` for `gap < 4`, `len < 63`; [`SPAN_ESCAPE`] is
/// followed by the zigzag varint gap and the varint length.
const SPAN_ESCAPE: u8 = 0xFF;

/// Appends the format-4 record of `s` (format 3's, and its sentence edges), adding its
/// terms to the segment's dictionary.
///
/// ```text
/// varint  token_count
/// u8      flags   bit 0: hashes derived; bit 1: terms stored; bits 2-3: char spans mode;
///                 bit 4: sentence edges stored (format 4); bit 5: edge chars stored
///                 (format 4)
/// -- unless derived:
/// varint  hash_count, u64 LE hashes[hash_count]
/// token_count x span code                                     byte spans
/// -- char spans mode 1: token_count x span code; mode 2: exceptions (see below)
/// -- if terms stored: token_count x varint term id            (ids into the dictionary)
/// varint  sentence_count, sentence_count x varint (start - prev_start)
/// -- if sentence edges stored: sentence_count x (varint lead_bytes, varint tail_bytes)
/// -- if edge chars stored: sentence_count x (varint lead_chars, varint tail_chars)
/// ```
///
/// Edges are stored when there is one per sentence start; their chars when any differs
/// from its bytes. A format-3 record is the same without bits 4 and 5.
///
/// A span code is one byte `gap * 63 + len` when `gap = start - prev_end < 4` and
/// `len = end - start < 63` (almost every word), else `0xFF`, zigzag varint gap, varint
/// len (wrapping differences, so any input round-trips). Derived hashes are
/// `Shingler::hashes` of the full term hashes with the dictionary's settings, used only
/// when they equal the given hashes exactly (checked here), so decoding is exact.
/// Char spans mode 2 stores, for each token `i` where `d_start = byte_start -
/// char_start` differs from the previous token's `d_end`, or `d_end != d_start`:
/// varint count, then per exception varint `i - prev_i`, zigzag varint `d_start -
/// prev_d_end`, zigzag varint `d_end - d_start`; the cheaper of modes 1 and 2 is kept.
pub(crate) fn encode_snapshot_v3(s: &Snapshot, full: Option<FullTerms<'_>>, dict: &mut DictBuilder, out: &mut Vec<u8>) {
    let n = s.token_bytes.len();
    put_varint(out, n as u64);
    let has_terms = s.terms.len() == n;
    // Full terms count only if they agree with the 32-bit ones.
    let full =
        full.filter(|f| has_terms && f.terms.len() == n && f.terms.iter().zip(&s.terms).all(|(&a, &b)| a as u32 == b));
    let derived = full.is_some_and(|f| {
        dict.shingler_for(f.shingles).is_some_and(|sh| sh.count(n) == s.hashes.len() && sh.hashes(f.terms) == s.hashes)
    });
    let mut chars = Vec::new();
    let chars_mode = if s.token_chars == s.token_bytes {
        CHARS_AS_BYTES
    } else {
        let mut coded = Vec::new();
        encode_span_codes(&s.token_chars, &mut coded);
        encode_char_exceptions(&s.token_bytes, &s.token_chars, &mut chars);
        if coded.len() <= chars.len() {
            chars = coded;
            CHARS_CODED
        } else {
            CHARS_EXCEPTIONS
        }
    };
    let edges = !s.sentence_edges.is_empty() && s.sentence_edges.len() == s.sentence_starts.len();
    let edge_chars =
        edges && s.sentence_edges.iter().any(|e| e.lead_chars != e.lead_bytes || e.tail_chars != e.tail_bytes);
    let flags = if derived { V3_DERIVED } else { 0 }
        | if has_terms { V3_TERMS } else { 0 }
        | chars_mode << V3_CHARS_SHIFT
        | if edges { V4_EDGES } else { 0 }
        | if edge_chars { V4_EDGE_CHARS } else { 0 };
    out.push(flags);
    if !derived {
        put_varint(out, s.hashes.len() as u64);
        out.reserve(s.hashes.len() * 8);
        for h in &s.hashes {
            out.extend_from_slice(&h.to_le_bytes());
        }
    }
    encode_span_codes(&s.token_bytes, out);
    out.extend_from_slice(&chars);
    if has_terms {
        match full {
            Some(f) => f.terms.iter().for_each(|&t| put_varint(out, u64::from(dict.id(t)))),
            None => s.terms.iter().for_each(|&t| put_varint(out, u64::from(dict.id(u64::from(t))))),
        }
    }
    put_varint(out, s.sentence_starts.len() as u64);
    let mut prev = 0u64;
    for &start in &s.sentence_starts {
        put_varint(out, start.wrapping_sub(prev));
        prev = start;
    }
    if edges {
        for e in &s.sentence_edges {
            put_varint(out, u64::from(e.lead_bytes));
            put_varint(out, u64::from(e.tail_bytes));
        }
    }
    if edge_chars {
        for e in &s.sentence_edges {
            put_varint(out, u64::from(e.lead_chars));
            put_varint(out, u64::from(e.tail_chars));
        }
    }
}

fn encode_span_codes(spans: &[(u64, u64)], out: &mut Vec<u8>) {
    let mut prev_end = 0u64;
    for &(start, end) in spans {
        let (gap, len) = (start.wrapping_sub(prev_end), end.wrapping_sub(start));
        if gap < 4 && len < 63 {
            out.push((gap * 63 + len) as u8);
        } else {
            out.push(SPAN_ESCAPE);
            put_varint(out, zigzag(gap as i64));
            put_varint(out, len);
        }
        prev_end = end;
    }
}

fn decode_span_codes(r: &mut ByteReader<'_>, count: u64) -> Result<Vec<(u64, u64)>, String> {
    let eof = || "snapshot record truncated in token spans".to_string();
    let mut spans = Vec::with_capacity(count as usize);
    let mut prev_end = 0u64;
    for _ in 0..count {
        let code = r.u8().ok_or_else(eof)?;
        let (gap, len) = match code {
            SPAN_ESCAPE => (unzigzag(r.varint().ok_or_else(eof)?) as u64, r.varint().ok_or_else(eof)?),
            c if c < 4 * 63 => (u64::from(c / 63), u64::from(c % 63)),
            c => return Err(format!("bad span code {c:#x}")),
        };
        let start = prev_end.wrapping_add(gap);
        let end = start.wrapping_add(len);
        spans.push((start, end));
        prev_end = end;
    }
    Ok(spans)
}

fn encode_char_exceptions(bytes: &[(u64, u64)], chars: &[(u64, u64)], out: &mut Vec<u8>) {
    let mut list = Vec::new();
    let (mut prev_i, mut prev_d_end, mut count) = (0u64, 0u64, 0u64);
    for (i, (&(bs, be), &(cs, ce))) in bytes.iter().zip(chars).enumerate() {
        let (ds, de) = (bs.wrapping_sub(cs), be.wrapping_sub(ce));
        if ds != prev_d_end || de != ds {
            put_varint(&mut list, i as u64 - prev_i);
            put_varint(&mut list, zigzag(ds.wrapping_sub(prev_d_end) as i64));
            put_varint(&mut list, zigzag(de.wrapping_sub(ds) as i64));
            prev_i = i as u64;
            count += 1;
        }
        prev_d_end = de;
    }
    put_varint(out, count);
    out.extend_from_slice(&list);
}

fn decode_char_exceptions(r: &mut ByteReader<'_>, bytes: &[(u64, u64)]) -> Result<Vec<(u64, u64)>, String> {
    let eof = || "snapshot record truncated in char span exceptions".to_string();
    let count = r.varint().ok_or_else(eof)?;
    if count > bytes.len() as u64 {
        return Err(format!("{count} char span exceptions for {} tokens", bytes.len()));
    }
    let mut next = if count > 0 { Some(r.varint().ok_or_else(eof)?) } else { None };
    let mut left = count;
    let mut out = Vec::with_capacity(bytes.len());
    let mut prev_d_end = 0u64;
    for (i, &(bs, be)) in bytes.iter().enumerate() {
        let (mut ds, mut de) = (prev_d_end, prev_d_end);
        if next == Some(0) {
            ds = prev_d_end.wrapping_add(unzigzag(r.varint().ok_or_else(eof)?) as u64);
            de = ds.wrapping_add(unzigzag(r.varint().ok_or_else(eof)?) as u64);
            left -= 1;
            next = if left > 0 { Some(r.varint().ok_or_else(eof)?) } else { None };
            // The stored index delta counts from this token.
            if next == Some(0) {
                return Err(format!("char span exception listed twice at token {i}"));
            }
        }
        next = next.map(|d| d - 1);
        out.push((bs.wrapping_sub(ds), be.wrapping_sub(de)));
        prev_d_end = de;
    }
    if left > 0 {
        return Err("char span exceptions beyond the last token".into());
    }
    Ok(out)
}

/// A format-3 or format-4 record decoded: the snapshot, and the full term hashes when its hashes
/// were derived from them (what a merge needs to derive them again).
pub(crate) struct DecodedV3 {
    pub snapshot: Snapshot,
    pub full_terms: Option<Vec<u64>>,
}

/// Decodes a record of a segment of format `version` (3 or later) with its segment's
/// dictionary; `Err` holds the reason.
pub(crate) fn decode_snapshot_v3(bytes: &[u8], dict: &TermDict<'_>, version: u32) -> Result<DecodedV3, String> {
    let mut r = ByteReader::new(bytes);
    let eof = || "snapshot record truncated".to_string();
    let n = r.varint().ok_or_else(eof)?;
    let flags = r.u8().ok_or_else(eof)?;
    let known = if version >= 4 { V4_KNOWN_FLAGS } else { V3_KNOWN_FLAGS };
    if flags & !known != 0 {
        return Err(format!("unknown snapshot flags {flags:#x}"));
    }
    // Every token takes at least one byte (its byte span code).
    if n > r.remaining() as u64 {
        return Err(format!("snapshot record claims {n} tokens in {} bytes", r.remaining()));
    }
    let derived = flags & V3_DERIVED != 0;
    let has_terms = flags & V3_TERMS != 0;
    if derived && !has_terms {
        return Err("snapshot hashes derived from absent terms".into());
    }
    let mut hashes = Vec::new();
    if !derived {
        let count = r.varint().ok_or_else(eof)?;
        if count.saturating_mul(8) > r.remaining() as u64 {
            return Err(format!("snapshot record claims {count} hashes in {} bytes", r.remaining()));
        }
        hashes = (0..count).map(|_| r.u64_le().ok_or_else(eof)).collect::<Result<Vec<_>, _>>()?;
    }
    let token_bytes = decode_span_codes(&mut r, n)?;
    let token_chars = match (flags >> V3_CHARS_SHIFT) & 3 {
        CHARS_AS_BYTES => token_bytes.clone(),
        CHARS_CODED => decode_span_codes(&mut r, n)?,
        CHARS_EXCEPTIONS => decode_char_exceptions(&mut r, &token_bytes)?,
        m => return Err(format!("unknown char spans mode {m}")),
    };
    let mut full = Vec::new();
    if has_terms {
        full.reserve(n as usize);
        for _ in 0..n {
            let id = r.varint().ok_or_else(eof)?;
            full.push(dict.term(id).ok_or_else(|| format!("term id {id} not in a dictionary of {}", dict.len()))?);
        }
    }
    let terms: Vec<u32> = full.iter().map(|&t| t as u32).collect();
    let full_terms = if derived {
        let shingler = dict.shingler().ok_or("snapshot hashes derived without shingle settings")?;
        hashes = shingler.hashes(&full);
        Some(full)
    } else {
        None
    };
    let sentence_count = r.varint().ok_or_else(eof)?;
    if sentence_count > r.remaining() as u64 {
        return Err(format!("snapshot record claims {sentence_count} sentences in {} bytes", r.remaining()));
    }
    let mut sentence_starts = Vec::with_capacity(sentence_count as usize);
    let mut prev = 0u64;
    for _ in 0..sentence_count {
        prev = prev.wrapping_add(r.varint().ok_or_else(eof)?);
        sentence_starts.push(prev);
    }
    let mut sentence_edges = Vec::new();
    if flags & V4_EDGES != 0 {
        let eof = || "snapshot record truncated in sentence edges".to_string();
        // Two bytes at least per edge.
        if sentence_count.saturating_mul(2) > r.remaining() as u64 {
            return Err(format!("snapshot record claims {sentence_count} sentence edges in {} bytes", r.remaining()));
        }
        let mut count = || -> Result<u32, String> {
            let v = r.varint().ok_or_else(eof)?;
            u32::try_from(v).map_err(|_| format!("sentence edge of {v} bytes"))
        };
        sentence_edges.reserve(sentence_count as usize);
        for _ in 0..sentence_count {
            let (lead_bytes, tail_bytes) = (count()?, count()?);
            sentence_edges.push(SentenceEdge {
                lead_bytes,
                lead_chars: lead_bytes,
                tail_bytes,
                tail_chars: tail_bytes,
            });
        }
        if flags & V4_EDGE_CHARS != 0 {
            for e in &mut sentence_edges {
                (e.lead_chars, e.tail_chars) = (count()?, count()?);
            }
        }
    } else if flags & V4_EDGE_CHARS != 0 {
        return Err("snapshot edge chars without edges".into());
    }
    if r.remaining() != 0 {
        return Err(format!("snapshot record has {} trailing bytes", r.remaining()));
    }
    let snapshot = Snapshot { hashes, token_bytes, token_chars, terms, sentence_starts, sentence_edges };
    Ok(DecodedV3 { snapshot, full_terms })
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
            sentence_edges: Vec::new(),
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
            ..Snapshot::default()
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

    use crate::termdict::DictBuilder;
    use proptest::prelude::*;
    use tessera_fingerprint::{ShingleConfig, Shingler};

    /// Encodes with a fresh dictionary and decodes through its written block.
    fn v3_round_trip(s: &Snapshot, full: Option<FullTerms<'_>>) -> (Vec<u8>, DecodedV3, Vec<u8>) {
        let mut dict = DictBuilder::default();
        let mut buf = Vec::new();
        encode_snapshot_v3(s, full, &mut dict, &mut buf);
        let mut block = Vec::new();
        dict.write(&mut block).unwrap();
        let d = decode_snapshot_v3(&buf, &TermDict::parse(&block).unwrap(), 4).unwrap();
        for cut in 0..buf.len() {
            assert!(decode_snapshot_v3(&buf[..cut], &TermDict::parse(&block).unwrap(), 4).is_err(), "cut {cut}");
        }
        // A format-3 reader knows no sentence edges.
        let v3 = decode_snapshot_v3(&buf, &TermDict::parse(&block).unwrap(), 3);
        assert_eq!(v3.is_ok(), s.sentence_edges.is_empty() || s.sentence_edges.len() != s.sentence_starts.len());
        (buf, d, block)
    }

    /// A text of words from `alphabet`, tokenized at spaces, with its snapshot pieces.
    type Spans = Vec<(u64, u64)>;

    fn words(text: &str) -> (Spans, Spans) {
        let mut bytes = Vec::new();
        let mut chars = Vec::new();
        let mut start = None;
        for (ci, (bi, c)) in text.char_indices().chain(std::iter::once((text.len(), ' '))).enumerate() {
            match (c == ' ', start) {
                (false, None) => start = Some((bi, ci)),
                (true, Some((b0, c0))) => {
                    bytes.push((b0 as u64, bi as u64));
                    chars.push((c0 as u64, ci as u64));
                    start = None;
                }
                _ => {}
            }
        }
        (bytes, chars)
    }

    fn word_snapshot(text: &str, size: usize, seed: u64) -> (Snapshot, Vec<u64>) {
        let (token_bytes, token_chars) = words(text);
        let full: Vec<u64> =
            token_bytes.iter().map(|&(s, e)| tessera_fingerprint::term_hash(&text[s as usize..e as usize])).collect();
        let hashes = Shingler::new(ShingleConfig { size, seed }).unwrap().hashes(&full);
        let terms = full.iter().map(|&t| t as u32).collect();
        let sentence_starts = (0..token_bytes.len() as u64).step_by(7).collect();
        (Snapshot { hashes, token_bytes, token_chars, terms, sentence_starts, sentence_edges: Vec::new() }, full)
    }

    #[test]
    fn derived_records_are_small_and_exact() {
        let text = "the quick brown fox jumps over the lazy dog and the dog sleeps ".repeat(20);
        let (s, full) = word_snapshot(&text, 3, 0);
        let f = FullTerms { terms: &full, shingles: ShingleConfig { size: 3, seed: 0 } };
        let (buf, d, _) = v3_round_trip(&s, Some(f));
        assert_eq!(d.snapshot, s);
        assert_eq!(d.full_terms.as_deref(), Some(&full[..]));
        // One span byte and one term id byte per token, no hashes, no char spans.
        let tokens = s.token_bytes.len();
        assert!(buf.len() <= 2 * tokens + tokens / 7 + 8, "{} bytes for {tokens} tokens", buf.len());
        // Without full terms the hashes are stored.
        let (plain, d, _) = v3_round_trip(&s, None);
        assert_eq!((d.snapshot, d.full_terms), (s.clone(), None));
        assert!(plain.len() > buf.len() + 8 * s.hashes.len() - 8);
        // Full terms that do not make the hashes are not trusted.
        let wrong = FullTerms { terms: &full, shingles: ShingleConfig { size: 4, seed: 0 } };
        assert_eq!(v3_round_trip(&s, Some(wrong)).1.snapshot, s);
        let mut other = full.clone();
        other[0] ^= 1 << 40; // same low 32 bits, other shingles
        assert_eq!(v3_round_trip(&s, Some(FullTerms { terms: &other, ..f })).1.snapshot, s);
    }

    #[test]
    fn non_ascii_char_spans() {
        for text in ["naïve café résumé and plain words here ", "Москва слова текст ", "a é b c d e f g h i j "]
        {
            let text = text.repeat(5);
            let (s, full) = word_snapshot(&text, 2, 7);
            let f = FullTerms { terms: &full, shingles: ShingleConfig { size: 2, seed: 7 } };
            let (buf, d, _) = v3_round_trip(&s, Some(f));
            assert_eq!(d.snapshot, s, "{text}");
            assert!(buf.len() <= 4 * s.token_bytes.len() + 8, "{text}: {}", buf.len());
        }
    }

    fn span_strategy() -> impl Strategy<Value = Vec<(u64, u64)>> {
        prop_oneof![
            proptest::collection::vec((any::<u64>(), any::<u64>()), 0..20),
            proptest::collection::vec((0u64..5, 0u64..70), 0..40).prop_map(|v| {
                let mut at = 0;
                v.into_iter()
                    .map(|(gap, len)| {
                        at += gap;
                        let span = (at, at + len);
                        at += len;
                        span
                    })
                    .collect()
            }),
        ]
    }

    proptest! {
        #[test]
        fn v3_round_trips_any_snapshot(
            bytes in span_strategy(),
            shift in proptest::collection::vec(0u64..3, 40),
            odd_chars in any::<bool>(),
            terms in proptest::collection::vec(0u64..50, 40),
            hi in any::<u64>(),
            hashes in proptest::collection::vec(any::<u64>(), 0..10),
            derive in any::<bool>(),
            sentences in proptest::collection::vec(any::<u64>(), 0..5),
            edges in proptest::collection::vec((0u32..70, 0u32..4, any::<bool>()), 0..5),
            size in 1usize..5,
        ) {
            let n = bytes.len();
            // Char spans: byte spans minus a growing offset (non-ASCII), or arbitrary.
            let mut off = 0u64;
            let chars: Vec<(u64, u64)> = if odd_chars {
                bytes.iter().map(|&(s, e)| (e, s)).collect()
            } else {
                bytes.iter().zip(&shift).map(|(&(s, e), &k)| {
                    let cs = s.wrapping_sub(off);
                    off += k;
                    (cs, e.wrapping_sub(off))
                }).collect()
            };
            let full: Vec<u64> = terms.iter().cycle().take(n).map(|&t| t.wrapping_mul(hi) | t).collect();
            let config = ShingleConfig { size, seed: hi };
            let hashes = if derive { Shingler::new(config).unwrap().hashes(&full) } else { hashes };
            let s = Snapshot {
                hashes,
                token_bytes: bytes,
                token_chars: chars,
                terms: full.iter().map(|&t| t as u32).collect(),
                sentence_edges: if edges.len() == sentences.len() {
                    edges
                        .iter()
                        .map(|&(lead, tail, wide)| SentenceEdge {
                            lead_bytes: lead,
                            lead_chars: if wide { lead / 2 } else { lead },
                            tail_bytes: tail,
                            tail_chars: tail,
                        })
                        .collect()
                } else {
                    Vec::new()
                },
                sentence_starts: sentences,
            };
            let (_, d, _) = v3_round_trip(&s, Some(FullTerms { terms: &full, shingles: config }));
            prop_assert_eq!(&d.snapshot, &s);
            // (No hashes and no tokens are derived whatever was asked.)
            prop_assert!(d.full_terms.is_some() == derive || s.hashes.is_empty());
            let no_terms = Snapshot { terms: Vec::new(), ..s };
            prop_assert_eq!(v3_round_trip(&no_terms, None).1.snapshot, no_terms);
        }
    }

    #[test]
    fn huge_counts_do_not_allocate() {
        let mut buf = Vec::new();
        put_varint(&mut buf, u64::MAX);
        put_varint(&mut buf, u64::MAX);
        assert!(decode_snapshot(&buf, 2).is_err());
    }
}
