//! Postings: which documents of a segment hold which shingle hash.
//!
//! # Why a custom encoding
//!
//! Almost every shingle hash occurs in exactly one document, so a postings list is
//! typically one entry long and the cost is dominated by the *keys*, not by the lists. A
//! term dictionary (`fst`) plus bit-packed lists measured 5.8 bytes per posting; this
//! scheme stays under 4 by spending bits only on what a lookup must distinguish:
//!
//! * **Key truncation.** A segment with `N` postings maps every 64-bit hash onto a key
//!   space of `M = 2^clamp(ceil(log2 N) + 12, 24, 63)` or a little more:
//!   `key = floor(hash * M / 2^64)`, monotone in the hash. A lookup of a hash absent from
//!   the segment matches some stored key with probability about `distinct keys / M <=
//!   2^-12`. Such false positives are harmless: search verifies candidates against the
//!   full 64-bit hashes of the snapshot. A hash that *is* stored is always found (its key
//!   is stored), so there are never misses. This relies on hashes being uniform, which
//!   xxh3 gives; skewed hashes cost false positives, never correctness.
//! * **Buckets.** `M = bucket_count * bucket_width`, with `bucket_count = N / 80`, so
//!   `bucket = floor(hash * bucket_count / 2^64)` and the remainder
//!   `rem = floor(frac * bucket_width / 2^64)` (where `frac` is the low 64 bits of
//!   `hash * bucket_count`): two multiplications, and every bucket holds ~80 entries
//!   whatever `N` is. Buckets are byte-aligned; the directory gives each one's byte
//!   offset and **crc32**, so a lookup decodes (and checksums) one bucket.
//! * **Rice-coded gaps.** Inside a bucket the remainder is coded as the gap from the
//!   previous one (the first from 0) with a Golomb-Rice code of parameter `rice_k`, chosen
//!   per segment to minimise the total size: about `log2(mean gap) + 1.5` bits, i.e.
//!   ~13.5-14.5 bits per key whatever `N` is.
//! * **Repeats.** A key held by several documents repeats; instead of a Rice-coded gap 0
//!   (`1 + rice_k` bits) a repeat is one reserved unary length `repeat_code` (chosen per
//!   segment, like `rice_k`, from the exact cost).
//! * **Doc ids** follow each key in `doc_bits = ceil(log2 doc_count)` bits.
//!
//! A gap whose unary length would reach [`ESCAPE`] is written as `ESCAPE` one-bits then
//! the gap in full width, which bounds the size of any entry even for adversarial or
//! skewed hashes. The byte layout is in `docs/design.md` §3.4.

use std::path::Path;

use crate::Error;
use crate::Result;
use crate::bits::{BitReader, BitWriter, bits_for_count, words_to_bytes};

/// Unary lengths of this value are escapes (see the module docs).
pub(crate) const ESCAPE: u32 = 32;

/// Target entries per bucket: 8 bytes of directory entry per 80 postings (0.1 B/posting)
/// against the cost of decoding half a bucket per lookup.
const BUCKET_TARGET: u64 = 80;

/// Extra key bits beyond `log2(postings)`: false matches per absent lookup <= 2^-12.
const KEY_EXTRA_BITS: u32 = 12;

/// The parameters of one segment's postings, recorded in its footer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PostingsParams {
    /// Buckets (>= 1).
    pub bucket_count: u64,
    /// Remainders per bucket (>= 1); `bucket_count * bucket_width <= 2^64`.
    pub bucket_width: u64,
    /// Golomb-Rice parameter of the remainder gaps (`<= 63`, `<= rem_bits`).
    pub rice_k: u32,
    /// The unary length that codes a repeated key; [`ESCAPE`] = no repeat code.
    pub repeat_code: u32,
    /// Rice parameter of the doc-id delta after a repeat code (`<= 31`).
    pub repeat_k: u32,
    /// Bits per local doc id: `ceil(log2(doc_count))`.
    pub doc_bits: u32,
    /// Bytes of a directory offset: 4, or 8 when the postings exceed 4 GiB.
    pub offset_bytes: u32,
    /// Documents in the segment; every doc id is below it.
    pub doc_count: u64,
}

impl PostingsParams {
    /// Bits of an escaped remainder.
    #[inline]
    fn rem_bits(&self) -> u32 {
        bits_for_count(self.bucket_width)
    }

    /// Size of one directory entry: offset, then crc32.
    #[inline]
    fn entry_bytes(&self) -> usize {
        self.offset_bytes as usize + 4
    }

    /// Bucket and remainder of a full hash.
    #[inline]
    pub(crate) fn locate(&self, hash: u64) -> (u64, u64) {
        let p = u128::from(hash) * u128::from(self.bucket_count);
        let rem = (u128::from(p as u64) * u128::from(self.bucket_width)) >> 64;
        ((p >> 64) as u64, rem as u64)
    }

    /// The key of a full hash: `bucket * bucket_width + rem` (< 2^64).
    #[inline]
    pub(crate) fn key_of(&self, hash: u64) -> u64 {
        let (b, r) = self.locate(hash);
        b * self.bucket_width + r
    }

    /// Checks the invariants a decoder relies on; `Err` holds the reason.
    pub(crate) fn validate(&self) -> Result<(), String> {
        if self.bucket_count == 0 || self.bucket_width == 0 {
            return Err("zero buckets or bucket width".into());
        }
        if u128::from(self.bucket_count) * u128::from(self.bucket_width) > 1u128 << 64 {
            return Err(format!("{} buckets of width {} exceed 2^64 keys", self.bucket_count, self.bucket_width));
        }
        if self.rice_k > 63 || self.rice_k > self.rem_bits() {
            return Err(format!("rice_k {} invalid", self.rice_k));
        }
        if self.repeat_code > ESCAPE || self.repeat_k > 31 {
            return Err(format!("repeat code {} / {} invalid", self.repeat_code, self.repeat_k));
        }
        if self.offset_bytes != 4 && self.offset_bytes != 8 {
            return Err(format!("directory offsets of {} bytes", self.offset_bytes));
        }
        if self.doc_bits != bits_for_count(self.doc_count) {
            return Err(format!("doc_bits {} does not match doc count {}", self.doc_bits, self.doc_count));
        }
        Ok(())
    }
}

/// Bytes of an encoded postings section pair, with its parameters and counts.
#[derive(Debug)]
pub(crate) struct EncodedPostings {
    /// `bucket_count + 1` entries: byte offset (`offset_bytes`), crc32 of the bucket.
    pub directory: Vec<u8>,
    /// The buckets, byte-aligned, back to back.
    pub data: Vec<u8>,
    pub params: PostingsParams,
    /// Distinct `(key, doc)` entries.
    pub posting_count: u64,
    /// Distinct keys.
    pub distinct_keys: u64,
}

/// The key space `M` for a segment of `postings` postings: `2^(ceil(log2 N) + 12)`,
/// clamped to `2^24..=2^63`.
pub(crate) fn key_space_for(postings: u64) -> u64 {
    1u64 << (bits_for_count(postings) + KEY_EXTRA_BITS).clamp(24, 63)
}

/// Packs a full hash and a local doc id for sorting.
#[inline]
pub(crate) fn pack(hash: u64, doc: u32) -> u128 {
    (u128::from(hash) << 32) | u128::from(doc)
}

/// Encodes postings given as `pack(hash, local_doc)` values in any order, possibly with
/// duplicates. Reuses `pairs` as scratch: it is left holding `key << 32 | doc`, sorted.
pub(crate) fn encode(pairs: &mut Vec<u128>, doc_count: u64) -> EncodedPostings {
    pairs.sort_unstable();
    pairs.dedup();
    let n = pairs.len() as u64;
    let key_space = key_space_for(n);
    let bucket_count = (n / BUCKET_TARGET).max(1);
    let bucket_width = key_space.div_ceil(bucket_count);
    let mut params = PostingsParams {
        bucket_count,
        bucket_width,
        rice_k: 0,
        repeat_code: ESCAPE,
        repeat_k: 0,
        doc_bits: bits_for_count(doc_count),
        offset_bytes: 4,
        doc_count,
    };
    // Hash -> key is monotone, so the order holds except among docs of distinct hashes
    // that share a key: sort those runs, then drop (key, doc) duplicates.
    for p in pairs.iter_mut() {
        *p = (u128::from(params.key_of((*p >> 32) as u64)) << 32) | (*p & 0xFFFF_FFFF);
    }
    let mut start = 0;
    while start < pairs.len() {
        let key = pairs[start] >> 32;
        let end = start + pairs[start..].iter().position(|&p| p >> 32 != key).unwrap_or(pairs.len() - start);
        if end - start > 1 {
            pairs[start..end].sort_unstable();
        }
        start = end;
    }
    pairs.dedup();
    let entries: &[u128] = pairs;
    let n = entries.len() as u64;
    (params.rice_k, params.repeat_code, params.repeat_k) = best_codes(entries, &params);

    let rem_bits = params.rem_bits();
    let mut w = BitWriter::with_capacity(entries.len() * 32);
    let mut starts: Vec<u64> = Vec::with_capacity(bucket_count as usize + 1);
    let mut distinct_keys = 0u64;
    for_each_entry(entries, bucket_width, |entry| match entry {
        Entry::BucketStart => {
            w.pad_to_byte();
            starts.push(w.bit_len() / 8);
        }
        Entry::Posting { gap, doc, prev_doc } => match gap {
            Some(gap) => {
                distinct_keys += 1;
                write_gap(&mut w, gap, &params, rem_bits);
                w.write(u64::from(doc), params.doc_bits);
            }
            None if params.repeat_code < ESCAPE => {
                w.write_unary(params.repeat_code);
                write_doc_delta(&mut w, doc, prev_doc, &params);
            }
            None => {
                write_gap(&mut w, 0, &params, rem_bits);
                w.write(u64::from(doc), params.doc_bits);
            }
        },
    });
    while starts.len() as u64 <= bucket_count {
        w.pad_to_byte();
        starts.push(w.bit_len() / 8);
    }
    let total = w.bit_len() / 8;
    let mut data = words_to_bytes(&w.finish());
    data.truncate(total as usize);
    if total > u64::from(u32::MAX) {
        params.offset_bytes = 8;
    }
    let mut directory = Vec::with_capacity((bucket_count as usize + 1) * params.entry_bytes());
    for (b, &s) in starts.iter().enumerate() {
        let crc = match starts.get(b + 1) {
            Some(&e) => crc32fast::hash(&data[s as usize..e as usize]),
            None => 0,
        };
        directory.extend_from_slice(&s.to_le_bytes()[..params.offset_bytes as usize]);
        directory.extend_from_slice(&crc.to_le_bytes());
    }
    EncodedPostings { directory, data, params, posting_count: n, distinct_keys }
}

/// What [`for_each_entry`] reports, in stream order.
enum Entry {
    /// The next bucket starts (reported for every bucket up to the last non-empty one).
    BucketStart,
    /// A posting: `Some(gap)` from the previous remainder of its bucket (the first from
    /// 0), or `None` for a repeat of the previous key, whose doc was `prev_doc`.
    Posting { gap: Option<u64>, doc: u32, prev_doc: u32 },
}

/// Walks sorted `key << 32 | doc` entries bucket by bucket without dividing.
fn for_each_entry(entries: &[u128], bucket_width: u64, mut f: impl FnMut(Entry)) {
    let mut next_start = 0u64; // first key of the next bucket to open
    let mut bucket_start = 0u64;
    let mut opened = false;
    let mut prev_key = None;
    let mut prev_doc = 0;
    for &e in entries {
        let key = (e >> 32) as u64;
        while !opened || key >= next_start {
            bucket_start = next_start;
            next_start = next_start.saturating_add(bucket_width);
            opened = true;
            prev_key = None;
            f(Entry::BucketStart);
        }
        let gap = match prev_key {
            Some(p) if p == key => None,
            Some(p) => Some(key - p),
            None => Some(key - bucket_start),
        };
        f(Entry::Posting { gap, doc: e as u32, prev_doc });
        prev_key = Some(key);
        prev_doc = e as u32;
    }
}

#[inline]
fn write_gap(w: &mut BitWriter, gap: u64, p: &PostingsParams, rem_bits: u32) {
    let q = gap >> p.rice_k;
    let has_repeat = p.repeat_code < ESCAPE;
    let qcap = if has_repeat { ESCAPE - 1 } else { ESCAPE };
    if q < u64::from(qcap) {
        let q = q as u32;
        w.write_unary(q + u32::from(has_repeat && q >= p.repeat_code));
        w.write(gap, p.rice_k);
    } else {
        w.write_ones(ESCAPE);
        w.write(gap, rem_bits);
    }
}

/// Unary lengths of this value in a doc-id delta are escapes: the doc id follows in full.
const DOC_ESCAPE: u32 = 8;

/// After a repeat code: `doc - prev_doc - 1` Rice-coded with `repeat_k`, or
/// [`DOC_ESCAPE`] one-bits and the doc id in `doc_bits` bits.
#[inline]
fn write_doc_delta(w: &mut BitWriter, doc: u32, prev_doc: u32, p: &PostingsParams) {
    let d = u64::from(doc - prev_doc - 1);
    let q = d >> p.repeat_k;
    if q < u64::from(DOC_ESCAPE) {
        w.write_unary(q as u32);
        w.write(d, p.repeat_k);
    } else {
        w.write_ones(DOC_ESCAPE);
        w.write(u64::from(doc), p.doc_bits);
    }
}

/// Bits of a doc-id delta `d` (see [`write_doc_delta`]).
fn doc_delta_bits(d: u64, repeat_k: u32, doc_bits: u32) -> u64 {
    let q = d >> repeat_k;
    if q < u64::from(DOC_ESCAPE) { q + 1 + u64::from(repeat_k) } else { u64::from(DOC_ESCAPE + doc_bits) }
}

/// The Rice parameter, repeat code and doc-delta parameter that make the postings
/// smallest: exact cost for each `rice_k` around the value the mean gap suggests, every
/// repeat code and every doc-delta parameter.
fn best_codes(entries: &[u128], params: &PostingsParams) -> (u32, u32, u32) {
    let rem_bits = params.rem_bits();
    let doc_bits = u64::from(params.doc_bits);
    let max_k = rem_bits.min(63);
    let n = (entries.len() as u64).max(1);
    let mean = (u128::from(params.bucket_count) * u128::from(params.bucket_width) / u128::from(n)).max(1);
    let guess = mean.ilog2();
    let lo = guess.saturating_sub(3).min(max_k);
    let hi = (guess + 2).min(max_k);
    let ks = (hi - lo + 1) as usize;
    // hist[k][q] = gaps with quotient q (index ESCAPE: q >= ESCAPE) under rice_k = lo + k.
    let mut hist = vec![[0u64; ESCAPE as usize + 1]; ks];
    let mut deltas: Vec<u32> = Vec::new();
    for_each_entry(entries, params.bucket_width, |entry| {
        if let Entry::Posting { gap, doc, prev_doc } = entry {
            match gap {
                Some(gap) => {
                    for (i, h) in hist.iter_mut().enumerate() {
                        let q = (gap >> (lo + i as u32)).min(u64::from(ESCAPE));
                        h[q as usize] += 1;
                    }
                }
                None => deltas.push(doc - prev_doc - 1),
            }
        }
    });
    let repeats = deltas.len() as u64;
    let (delta_bits, repeat_k) = (0..=params.doc_bits.min(31))
        .map(|rk| (deltas.iter().map(|&d| doc_delta_bits(u64::from(d), rk, params.doc_bits)).sum::<u64>(), rk))
        .min()
        .expect("0..=x is not empty");
    let mut best = (u64::MAX, 0, ESCAPE, 0);
    for (i, h) in hist.iter().enumerate() {
        let k = lo + i as u32;
        let kb = u64::from(k);
        let escape_bits = u64::from(ESCAPE + rem_bits);
        // No repeat code: a repeat is gap 0 and a full doc id.
        let mut plain = repeats * (1 + kb + doc_bits) + h[ESCAPE as usize] * escape_bits;
        for q in 0..ESCAPE {
            plain += h[q as usize] * (u64::from(q) + 1 + kb);
        }
        best = best.min((plain, k, ESCAPE, 0));
        for r in 0..ESCAPE {
            let mut cost =
                repeats * u64::from(r + 1) + delta_bits + (h[ESCAPE as usize] + h[ESCAPE as usize - 1]) * escape_bits;
            for q in 0..ESCAPE - 1 {
                cost += h[q as usize] * (u64::from(q + u32::from(q >= r)) + 1 + kb);
            }
            best = best.min((cost, k, r, repeat_k));
        }
    }
    (best.1, best.2, best.3)
}

#[inline]
fn low_mask(bits: u32) -> u64 {
    if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 }
}

/// A read-only view of one segment's postings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Postings<'a> {
    directory: &'a [u8],
    data: &'a [u8],
    params: PostingsParams,
    file: &'a Path,
    /// Verify each bucket's crc32 before decoding it (off only for fuzzing).
    checksums: bool,
}

impl<'a> Postings<'a> {
    /// A view over the two sections; checks the directory's size against `params` (O(1);
    /// [`Postings::check_directory`] checks its entries).
    pub(crate) fn new(
        directory: &'a [u8],
        data: &'a [u8],
        params: PostingsParams,
        file: &'a Path,
        checksums: bool,
    ) -> Result<Postings<'a>> {
        params.validate().map_err(|r| Error::corrupt(file, format!("postings parameters: {r}")))?;
        let expected = params.bucket_count.checked_add(1).and_then(|n| n.checked_mul(params.entry_bytes() as u64));
        if expected != Some(directory.len() as u64) {
            return Err(Error::corrupt(
                file,
                format!(
                    "postings directory is {} bytes, expected {} entries of {} bytes",
                    directory.len(),
                    u128::from(params.bucket_count) + 1,
                    params.entry_bytes()
                ),
            ));
        }
        Ok(Postings { directory, data, params, file, checksums })
    }

    fn corrupt(&self, reason: impl Into<String>) -> Error {
        Error::corrupt(self.file, reason)
    }

    /// Byte offset and crc32 of directory entry `i` (`i <= bucket_count`, checked by the
    /// directory's size in `new`).
    #[inline]
    fn dir_entry(&self, i: u64) -> (u64, u32) {
        let size = self.params.entry_bytes();
        let at = i as usize * size;
        let e = &self.directory[at..at + size];
        let mut off = [0u8; 8];
        let ob = self.params.offset_bytes as usize;
        off[..ob].copy_from_slice(&e[..ob]);
        let crc = u32::from_le_bytes(e[ob..ob + 4].try_into().expect("4 bytes"));
        (u64::from_le_bytes(off), crc)
    }

    /// Checks every directory entry: offsets start at 0, never decrease and end at the
    /// data's length; the last entry's crc field is 0. O(buckets), run on open.
    pub(crate) fn check_directory(&self) -> Result<()> {
        let mut prev = 0u64;
        for i in 0..=self.params.bucket_count {
            let (off, crc) = self.dir_entry(i);
            if off < prev || (i == 0 && off != 0) {
                return Err(self.corrupt(format!("postings directory entry {i} out of order")));
            }
            prev = off;
            if i == self.params.bucket_count && (off != self.data.len() as u64 || crc != 0) {
                return Err(self.corrupt("postings directory does not end at the data's end"));
            }
        }
        Ok(())
    }

    /// Buckets.
    pub(crate) fn bucket_count(&self) -> u64 {
        self.params.bucket_count
    }

    /// A cursor at the first entry of bucket `b`, after checking the bucket's crc32.
    fn bucket(&self, b: u64) -> Result<BucketCursor<'a>> {
        let (start, crc) = self.dir_entry(b);
        let (end, _) = self.dir_entry(b + 1);
        let bytes = usize::try_from(start)
            .ok()
            .zip(usize::try_from(end).ok())
            .and_then(|(s, e)| self.data.get(s..e))
            .ok_or_else(|| {
            self.corrupt(format!(
                "postings bucket {b} spans bytes {start}..{end}, outside the {}-byte section",
                self.data.len()
            ))
        })?;
        if self.checksums && crc32fast::hash(bytes) != crc {
            return Err(self.corrupt(format!("postings bucket {b} checksum mismatch")));
        }
        let reader = BitReader::new(bytes, 0, bytes.len() as u64 * 8).expect("whole slice");
        let mut c =
            BucketCursor { reader, params: self.params, bucket: b, rem: 0, doc: 0, started: false, valid: false };
        c.advance().map_err(|r| self.corrupt(r))?;
        Ok(c)
    }

    /// For each hash of `hashes` (best sorted ascending), calls `f(index, local_doc)` for
    /// every document whose postings hold the hash's key, in index order. Unsorted input
    /// is still answered correctly, only slower. Every bucket decoded is checksummed
    /// first (once per run of queries in the same bucket).
    pub(crate) fn lookup(&self, hashes: &[u64], mut f: impl FnMut(usize, u32)) -> Result<()> {
        let mut cursor: Option<BucketCursor<'a>> = None;
        let mut last: Option<(u64, u64)> = None;
        let mut docs: Vec<u32> = Vec::new();
        for (i, &h) in hashes.iter().enumerate() {
            let (bucket, rem) = self.params.locate(h);
            if last != Some((bucket, rem)) {
                let prev = last.replace((bucket, rem));
                docs.clear();
                // After answering `(bucket, t)` the cursor rests on the first entry above
                // `t`, which is also the right start for any larger remainder.
                let reuse = matches!((&cursor, prev), (Some(c), Some((pb, pr))) if c.bucket == bucket && pb == bucket && rem > pr);
                if !reuse {
                    cursor = Some(self.bucket(bucket)?);
                }
                let c = cursor.as_mut().expect("cursor set above");
                while c.valid && c.rem < rem {
                    c.advance().map_err(|r| self.corrupt(r))?;
                }
                while c.valid && c.rem == rem {
                    docs.push(c.doc);
                    c.advance().map_err(|r| self.corrupt(r))?;
                }
            }
            for &d in &docs {
                f(i, d);
            }
        }
        Ok(())
    }

    /// Every `(key, local_doc)` entry in order, decoding (and checksumming) all buckets:
    /// for full checks and for merging segments.
    pub(crate) fn iter(&self) -> PostingsIter<'a> {
        PostingsIter { postings: *self, next_bucket: 0, cursor: None, done: false }
    }
}

/// Decodes the entries of one bucket in order.
#[derive(Debug, Clone)]
struct BucketCursor<'a> {
    reader: BitReader<'a>,
    params: PostingsParams,
    bucket: u64,
    /// Key remainder of the current entry (when `valid`).
    rem: u64,
    /// Local doc of the current entry (when `valid`).
    doc: u32,
    /// At least one entry was decoded (so `rem`/`doc` are the previous entry's).
    started: bool,
    /// There is a current entry.
    valid: bool,
}

impl BucketCursor<'_> {
    /// Decodes the next entry; `valid` turns false at the end of the bucket.
    #[inline]
    fn advance(&mut self) -> Result<(), String> {
        let w = self.reader.window();
        let remaining = self.reader.remaining();
        // The bucket ends with 0-7 one-bits of padding; no entry is all ones.
        if remaining < 8 {
            let m = low_mask(remaining as u32);
            if w & m == m {
                self.valid = false;
                return Ok(());
            }
        }
        let p = self.params;
        let (k, r, doc_bits) = (p.rice_k, p.repeat_code, p.doc_bits);
        let prev_doc = u64::from(self.doc);
        // Fast path: the whole entry lies in one 57-bit window (the usual case: ~14 bits
        // of key and up to ~30 of doc id), so one load decodes it.
        let u = w.trailing_ones();
        let (gap, repeat, doc) = if u < ESCAPE && u + 1 + k + doc_bits <= 57 && u != r {
            let q = u - u32::from(u > r);
            let low = (w >> (u + 1)) & low_mask(k);
            let used = u + 1 + k;
            let len = used + doc_bits;
            if u64::from(len) > remaining {
                return Err("postings bucket ends inside an entry".into());
            }
            let doc = (w >> used) & low_mask(doc_bits);
            self.reader.consume(len);
            ((u128::from(q) << k) | u128::from(low), false, doc)
        } else {
            let eof = || "postings bucket ends inside an entry".to_string();
            let u = self.reader.read_unary_capped(ESCAPE).ok_or_else(eof)?;
            if u == ESCAPE {
                let gap = self.reader.read(p.rem_bits()).ok_or_else(eof)?;
                (u128::from(gap), false, self.reader.read(doc_bits).ok_or_else(eof)?)
            } else if u == r {
                let q = self.reader.read_unary_capped(DOC_ESCAPE).ok_or_else(eof)?;
                let doc = if q == DOC_ESCAPE {
                    self.reader.read(doc_bits).ok_or_else(eof)?
                } else {
                    let d = (u64::from(q) << p.repeat_k) | self.reader.read(p.repeat_k).ok_or_else(eof)?;
                    prev_doc.saturating_add(1).saturating_add(d)
                };
                (0, true, doc)
            } else {
                let q = u - u32::from(u > r);
                let low = self.reader.read(k).ok_or_else(eof)?;
                ((u128::from(q) << k) | u128::from(low), false, self.reader.read(doc_bits).ok_or_else(eof)?)
            }
        };
        if repeat && !self.started {
            return Err(format!("postings bucket {} starts with a repeat", self.bucket));
        }
        let prev = if self.started { self.rem } else { 0 };
        let rem = u128::from(prev) + gap;
        if rem >= u128::from(p.bucket_width) {
            return Err(format!("postings key overflows bucket {}", self.bucket));
        }
        if doc >= p.doc_count {
            return Err(format!("postings doc {doc} >= doc count {}", p.doc_count));
        }
        let doc = doc as u32; // doc < doc_count <= u32::MAX + 1
        if self.started && gap == 0 && doc <= self.doc {
            return Err(format!("postings entries out of order in bucket {}", self.bucket));
        }
        self.rem = rem as u64;
        self.doc = doc;
        self.started = true;
        self.valid = true;
        Ok(())
    }
}

/// Iterator over all entries of a segment's postings: `(key, local_doc)`.
#[derive(Debug)]
pub(crate) struct PostingsIter<'a> {
    postings: Postings<'a>,
    next_bucket: u64,
    cursor: Option<BucketCursor<'a>>,
    done: bool,
}

impl Iterator for PostingsIter<'_> {
    type Item = Result<(u64, u32)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let p = self.postings;
        loop {
            if let Some(c) = self.cursor.as_mut()
                && c.valid
            {
                // bucket < bucket_count and rem < bucket_width, whose product is <= 2^64.
                let key = c.bucket * p.params.bucket_width + c.rem;
                let item = (key, c.doc);
                if let Err(r) = c.advance() {
                    self.done = true;
                    return Some(Err(p.corrupt(r)));
                }
                return Some(Ok(item));
            }
            if self.next_bucket >= p.params.bucket_count {
                self.done = true;
                return None;
            }
            let b = self.next_bucket;
            self.next_bucket += 1;
            match p.bucket(b) {
                Ok(c) => self.cursor = Some(c),
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // unwrap is fine in tests
mod tests {
    use super::*;
    use crate::test_util::mix;
    use std::collections::BTreeSet;

    fn build(pairs: &[(u64, u32)], doc_count: u64) -> EncodedPostings {
        let mut v: Vec<u128> = pairs.iter().map(|&(h, d)| pack(h, d)).collect();
        encode(&mut v, doc_count)
    }

    fn check(pairs: &[(u64, u32)], doc_count: u64) -> EncodedPostings {
        let enc = build(pairs, doc_count);
        let file = Path::new("<test>");
        let p = Postings::new(&enc.directory, &enc.data, enc.params, file, true).unwrap();
        p.check_directory().unwrap();
        let expected: BTreeSet<(u64, u32)> = pairs.iter().map(|&(h, d)| (enc.params.key_of(h), d)).collect();
        let got: Vec<(u64, u32)> = p.iter().map(|r| r.unwrap()).collect();
        assert_eq!(got, expected.iter().copied().collect::<Vec<_>>());
        let mut queries: Vec<u64> = pairs.iter().map(|p| p.0).collect();
        queries.sort_unstable();
        queries.dedup();
        let mut found = BTreeSet::new();
        p.lookup(&queries, |i, d| {
            found.insert((queries[i], d));
        })
        .unwrap();
        for &(h, d) in pairs {
            assert!(found.contains(&(h, d)), "missed {h:x} in doc {d}");
        }
        enc
    }

    #[test]
    fn empty_and_tiny() {
        check(&[], 0);
        check(&[(5, 0)], 1);
        check(&[(u64::MAX, 0), (0, 0), (u64::MAX, 1)], 2);
    }

    #[test]
    fn skewed_hashes_use_escapes() {
        // All keys collapse near zero, then one huge: exercises gap 0 and escapes.
        let mut pairs: Vec<(u64, u32)> = (0..500u64).map(|i| (i, (i % 7) as u32)).collect();
        pairs.push((u64::MAX - 3, 3));
        pairs.push((1 << 62, 6));
        check(&pairs, 7);
    }

    #[test]
    fn repeated_keys_code_doc_deltas_and_escapes() {
        let mut pairs = Vec::new();
        for k in 0..3000u64 {
            let h = mix(k);
            let step = (k % 50) * 37 + 1;
            for j in 0..(k % 20 + 1) {
                pairs.push((h, ((j * step) % 5000) as u32));
            }
        }
        // Far-apart docs of one key: the delta escapes to a full doc id.
        pairs.extend([(mix(1 << 40), 0), (mix(1 << 40), 4999), (mix(1 << 40), 2500)]);
        let enc = check(&pairs, 5000);
        assert!(enc.params.repeat_code < ESCAPE, "{:?}", enc.params);
    }

    #[test]
    fn random_postings_are_compact() {
        let docs = 1000u32;
        let pairs: Vec<(u64, u32)> = (0..200_000u64).map(|i| (mix(i), (i % u64::from(docs)) as u32)).collect();
        let enc = check(&pairs, u64::from(docs));
        let bytes = (enc.directory.len() + enc.data.len()) as f64;
        let per = bytes / enc.posting_count as f64;
        // ~14 bits of key + 10 bits of doc + directory.
        assert!(per < 3.3, "{per} bytes per posting");
    }

    #[test]
    fn unsorted_queries_still_found() {
        let pairs: Vec<(u64, u32)> = (0..5000u64).map(|i| (mix(i), (i % 13) as u32)).collect();
        let enc = build(&pairs, 13);
        let file = Path::new("<test>");
        let p = Postings::new(&enc.directory, &enc.data, enc.params, file, true).unwrap();
        let queries: Vec<u64> = pairs.iter().rev().map(|p| p.0).collect();
        let mut hits = vec![false; queries.len()];
        p.lookup(&queries, |i, d| {
            if pairs[pairs.len() - 1 - i].1 == d {
                hits[i] = true;
            }
        })
        .unwrap();
        assert!(hits.iter().all(|&h| h));
    }

    #[test]
    fn corrupt_stream_is_an_error_not_a_panic() {
        let pairs: Vec<(u64, u32)> = (0..3000u64).map(|i| (mix(i), (i % 5) as u32)).collect();
        let enc = build(&pairs, 5);
        let file = Path::new("<test>");
        for i in 0..enc.data.len() {
            let mut data = enc.data.clone();
            data[i] ^= 0x5A;
            let p = Postings::new(&enc.directory, &data, enc.params, file, false).unwrap();
            for r in p.iter() {
                if r.is_err() {
                    break;
                }
            }
            let _ = p.lookup(&[mix(1), mix(2)], |_, _| {});
            // With checksums, every flip is caught by the bucket's crc32.
            let checked = Postings::new(&enc.directory, &data, enc.params, file, true).unwrap();
            assert!(checked.iter().any(|r| r.is_err()), "flip at {i} not caught");
        }
        for i in 0..enc.directory.len() {
            let mut dir = enc.directory.clone();
            dir[i] ^= 0xFF;
            let p = Postings::new(&dir, &enc.data, enc.params, file, false).unwrap();
            let _ = p.iter().find(|r| r.is_err());
        }
    }
}
