//! Postings: which documents of a segment hold which shingle hash.
//!
//! # Why a custom encoding
//!
//! Almost every shingle hash occurs in exactly one document, so a postings list is
//! typically one entry long and the cost is dominated by the *keys*, not by the lists. A
//! term dictionary (`fst`) plus bit-packed lists measured 5.8 bytes per posting; this
//! scheme stays under 4 by spending bits only on what a lookup must distinguish:
//!
//! * **Key truncation.** A segment with `N` postings keeps only the top
//!   `key_bits = clamp(ceil(log2 N) + 12, 24, 64)` bits of each 64-bit hash. A lookup of a
//!   hash absent from the segment then matches some stored key with probability about
//!   `N / 2^key_bits <= 2^-12`. Such false positives are harmless: search verifies
//!   candidates against the full 64-bit hashes of the snapshot. A hash that *is* stored
//!   is always found (its truncation is stored), so there are never misses. This relies
//!   on hashes being uniform in their top bits, which xxh3 gives; skewed hashes cost
//!   false positives, never correctness.
//! * **Buckets.** Entries `(key, local_doc)` are sorted and distinct, then split by the top
//!   `bucket_bits` bits of the key into `2^bucket_bits` buckets of 64 to 128 entries on
//!   average. A directory of `2^bucket_bits + 1` u64 bit offsets (at most 0.125 bytes per
//!   posting) says where each bucket starts; a lookup decodes one bucket.
//! * **Rice-coded gaps.** Inside a bucket the rest of the key (`key_bits - bucket_bits`
//!   bits) is coded as the gap from the previous key (the first from 0) with a Golomb-Rice
//!   code of parameter `rice_k`, chosen per segment to minimise the total size. Gaps of
//!   uniform keys are geometric, for which Rice codes are near optimal: about
//!   `log2(mean gap) + 1.5` bits, i.e. ~13.5-14.5 bits per key whatever `N` is.
//! * **Doc ids** follow each key in `doc_bits = ceil(log2 doc_count)` bits. A key held by
//!   several documents repeats with gap 0.
//!
//! A gap whose Rice quotient would reach [`ESCAPE`] is written as `ESCAPE` one-bits then
//! the gap in full width, which bounds the size of any entry even for adversarial or
//! skewed hashes.

use std::path::Path;

use crate::Error;
use crate::Result;
use crate::bits::{BitReader, BitWriter, bits_for_count, words_to_bytes};

/// Rice quotients of this value or more are escaped (see the module docs).
pub(crate) const ESCAPE: u32 = 32;

/// Target entries per bucket (the average lands between this and twice this).
const BUCKET_TARGET: u64 = 64;

/// Extra key bits beyond `log2(postings)`: false matches per absent lookup ~ 2^-12.
const KEY_EXTRA_BITS: u32 = 12;

/// The parameters of one segment's postings, recorded in its footer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PostingsParams {
    /// Bits kept of each 64-bit hash (24..=64).
    pub key_bits: u32,
    /// Bits of the key that select the bucket (`<= key_bits`).
    pub bucket_bits: u32,
    /// Golomb-Rice parameter of the key gaps (`<= 63`, `<= key_bits - bucket_bits`).
    pub rice_k: u32,
    /// Bits per local doc id: `ceil(log2(doc_count))`.
    pub doc_bits: u32,
    /// Documents in the segment; every doc id is below it.
    pub doc_count: u64,
}

impl PostingsParams {
    /// Bits of the key stored inside a bucket.
    fn rem_bits(&self) -> u32 {
        self.key_bits - self.bucket_bits
    }

    /// The truncated key of a full hash.
    #[inline]
    pub(crate) fn key_of(&self, hash: u64) -> u64 {
        // key_bits >= 24, so the shift is at most 40.
        hash >> (64 - self.key_bits)
    }

    /// Checks the invariants a decoder relies on; `Err` holds the reason.
    pub(crate) fn validate(&self) -> Result<(), String> {
        if !(24..=64).contains(&self.key_bits) {
            return Err(format!("key_bits {} outside 24..=64", self.key_bits));
        }
        // 2^bucket_bits + 1 directory entries must be addressable; 40 is far above any
        // real segment (2^40 buckets would be 8 TiB of directory) and keeps arithmetic safe.
        if self.bucket_bits > self.key_bits || self.bucket_bits > 40 {
            return Err(format!("bucket_bits {} invalid", self.bucket_bits));
        }
        if self.rice_k > 63 || self.rice_k > self.rem_bits() {
            return Err(format!("rice_k {} invalid", self.rice_k));
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
    /// `2^bucket_bits + 1` little-endian u64 bit offsets.
    pub directory: Vec<u8>,
    /// The bit stream of all buckets, zero-padded to a whole u64 word.
    pub data: Vec<u8>,
    pub params: PostingsParams,
    /// Distinct `(key, doc)` entries.
    pub posting_count: u64,
    /// Distinct keys.
    pub distinct_keys: u64,
}

/// `key_bits` for a segment of `postings` postings.
pub(crate) fn key_bits_for(postings: u64) -> u32 {
    (bits_for_count(postings) + KEY_EXTRA_BITS).clamp(24, 64)
}

/// `bucket_bits` for `postings` entries.
fn bucket_bits_for(postings: u64, key_bits: u32) -> u32 {
    let buckets = postings / BUCKET_TARGET;
    let bits = if buckets <= 1 { 0 } else { buckets.ilog2() };
    bits.min(key_bits).min(40)
}

/// Packs a full hash and a local doc id for sorting.
#[inline]
pub(crate) fn pack(hash: u64, doc: u32) -> u128 {
    (u128::from(hash) << 32) | u128::from(doc)
}

/// Encodes postings given as `pack(hash, local_doc)` values in any order, possibly with
/// duplicates. Reuses `pairs` as scratch: it is left sorted by truncated key.
pub(crate) fn encode(pairs: &mut Vec<u128>, doc_count: u64) -> EncodedPostings {
    let key_bits = key_bits_for(pairs.len() as u64);
    let shift = 64 - key_bits;
    for p in pairs.iter_mut() {
        let hash = (*p >> 32) as u64;
        let doc = *p as u32;
        *p = (u128::from(hash >> shift) << 32) | u128::from(doc);
    }
    pairs.sort_unstable();
    pairs.dedup();
    let entries: &[u128] = pairs;
    let n = entries.len() as u64;
    let bucket_bits = bucket_bits_for(n, key_bits);
    let mut params =
        PostingsParams { key_bits, bucket_bits, rice_k: 0, doc_bits: bits_for_count(doc_count), doc_count };
    params.rice_k = best_rice_k(entries, &params, n);

    let rem_bits = params.rem_bits();
    let rem_mask = low_mask(rem_bits);
    let buckets = 1u64 << bucket_bits;
    let mut directory = Vec::with_capacity((buckets as usize + 1) * 8);
    let mut w = BitWriter::with_capacity(entries.len() * 32);
    let mut next_bucket = 0u64; // first bucket whose start offset is not yet written
    let mut prev_rem = 0u64;
    let mut prev_key = None;
    let mut distinct_keys = 0u64;
    for &e in entries {
        let key = (e >> 32) as u64;
        let doc = e as u32;
        let bucket = bucket_of(key, rem_bits);
        while next_bucket <= bucket {
            directory.extend_from_slice(&w.bit_len().to_le_bytes());
            next_bucket += 1;
            prev_rem = 0;
        }
        if prev_key != Some(key) {
            distinct_keys += 1;
            prev_key = Some(key);
        }
        let rem = key & rem_mask;
        write_gap(&mut w, rem - prev_rem, params.rice_k, rem_bits);
        w.write(u64::from(doc), params.doc_bits);
        prev_rem = rem;
    }
    while next_bucket <= buckets {
        directory.extend_from_slice(&w.bit_len().to_le_bytes());
        next_bucket += 1;
    }
    EncodedPostings { directory, data: words_to_bytes(&w.finish()), params, posting_count: n, distinct_keys }
}

#[inline]
fn low_mask(bits: u32) -> u64 {
    if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 }
}

#[inline]
fn bucket_of(key: u64, rem_bits: u32) -> u64 {
    if rem_bits >= 64 { 0 } else { key >> rem_bits }
}

#[inline]
fn write_gap(w: &mut BitWriter, gap: u64, k: u32, rem_bits: u32) {
    let q = gap >> k;
    if q < u64::from(ESCAPE) {
        w.write_unary(q as u32);
        w.write(gap, k);
    } else {
        w.write_ones(ESCAPE);
        w.write(gap, rem_bits);
    }
}

/// The Rice parameter that makes the key gaps smallest, searched around the value the
/// mean gap suggests (exact cost, one pass per candidate).
fn best_rice_k(entries: &[u128], params: &PostingsParams, n: u64) -> u32 {
    let rem_bits = params.rem_bits();
    let max_k = rem_bits.min(63);
    let guess = params.key_bits.saturating_sub(bits_for_count(n.max(1)));
    let lo = guess.saturating_sub(3).min(max_k);
    let hi = (guess + 2).min(max_k);
    let rem_mask = low_mask(rem_bits);
    let cost = |k: u32| -> u64 {
        let mut bits = 0u64;
        let mut prev_bucket = u64::MAX;
        let mut prev_rem = 0u64;
        for &e in entries {
            let key = (e >> 32) as u64;
            let bucket = bucket_of(key, rem_bits);
            if bucket != prev_bucket {
                prev_bucket = bucket;
                prev_rem = 0;
            }
            let rem = key & rem_mask;
            let q = (rem - prev_rem) >> k;
            bits += if q < u64::from(ESCAPE) { q + 1 + u64::from(k) } else { u64::from(ESCAPE + rem_bits) };
            prev_rem = rem;
        }
        bits
    };
    (lo..=hi).min_by_key(|&k| (cost(k), k)).expect("range lo..=hi is not empty")
}

/// A read-only view of one segment's postings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Postings<'a> {
    directory: &'a [u8],
    data: &'a [u8],
    params: PostingsParams,
    file: &'a Path,
}

impl<'a> Postings<'a> {
    /// A view over the two sections; checks their sizes against `params`.
    pub(crate) fn new(
        directory: &'a [u8],
        data: &'a [u8],
        params: PostingsParams,
        file: &'a Path,
    ) -> Result<Postings<'a>> {
        params.validate().map_err(|r| Error::corrupt(file, format!("postings parameters: {r}")))?;
        let entries = (1u64 << params.bucket_bits) + 1;
        if directory.len() as u64 != entries * 8 {
            return Err(Error::corrupt(
                file,
                format!(
                    "postings directory is {} bytes, expected {} for bucket_bits {}",
                    directory.len(),
                    entries * 8,
                    params.bucket_bits
                ),
            ));
        }
        if !data.len().is_multiple_of(8) {
            return Err(Error::corrupt(file, "postings data is not whole u64 words"));
        }
        Ok(Postings { directory, data, params, file })
    }

    fn corrupt(&self, reason: impl Into<String>) -> Error {
        Error::corrupt(self.file, reason)
    }

    fn dir_entry(&self, i: u64) -> u64 {
        // `i <= 2^bucket_bits`, and `new` checked the directory holds that many entries.
        let at = (i * 8) as usize;
        let bytes = &self.directory[at..at + 8];
        u64::from_le_bytes(bytes.try_into().expect("8 bytes"))
    }

    /// A cursor at the first entry of bucket `b`.
    fn bucket(&self, b: u64) -> Result<BucketCursor<'a>> {
        let start = self.dir_entry(b);
        let end = self.dir_entry(b + 1);
        let reader = BitReader::new(self.data, start, end).ok_or_else(|| {
            self.corrupt(format!(
                "postings bucket {b} spans bits {start}..{end}, outside the {}-byte section",
                self.data.len()
            ))
        })?;
        let mut c =
            BucketCursor { reader, params: self.params, bucket: b, rem: 0, doc: 0, started: false, valid: false };
        c.advance().map_err(|r| self.corrupt(r))?;
        Ok(c)
    }

    /// For each hash of `hashes` (best sorted ascending), calls `f(index, local_doc)` for
    /// every document whose postings hold the hash's key, in index order. Unsorted input
    /// is still answered correctly, only slower.
    pub(crate) fn lookup(&self, hashes: &[u64], mut f: impl FnMut(usize, u32)) -> Result<()> {
        let rem_bits = self.params.rem_bits();
        let rem_mask = low_mask(rem_bits);
        let mut cursor: Option<BucketCursor<'a>> = None;
        let mut last_key = None;
        let mut docs: Vec<u32> = Vec::new();
        for (i, &h) in hashes.iter().enumerate() {
            let key = self.params.key_of(h);
            if last_key != Some(key) {
                let prev_key = last_key.replace(key);
                docs.clear();
                let bucket = bucket_of(key, rem_bits);
                let rem = key & rem_mask;
                // After answering key `t` the cursor rests on the first entry above `t`,
                // which is also the right start for any larger key of the same bucket.
                let reuse = matches!((&cursor, prev_key), (Some(c), Some(pk)) if c.bucket == bucket && key > pk);
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

    /// Every `(key, local_doc)` entry in order, decoding all buckets: for full checks and
    /// for merging segments.
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
        if self.reader.at_end() {
            self.valid = false;
            return Ok(());
        }
        let rem_bits = self.params.rem_bits();
        let k = self.params.rice_k;
        let doc_bits = self.params.doc_bits;
        // Fast path: the whole entry lies in one 57-bit window (the usual case: ~14 bits
        // of key and up to ~30 of doc id), so one load decodes it.
        let w = self.reader.window();
        let q = w.trailing_ones();
        let len = q + 1 + k + doc_bits;
        let (gap, doc) = if q < ESCAPE && len <= 57 && u64::from(len) <= self.reader.remaining() {
            let low = (w >> (q + 1)) & low_mask(k);
            let doc = (w >> (q + 1 + k)) & low_mask(doc_bits);
            self.reader.consume(len);
            ((u128::from(q) << k) | u128::from(low), doc)
        } else {
            let eof = || "postings bucket ends inside an entry".to_string();
            let q = self.reader.read_unary_capped(ESCAPE).ok_or_else(eof)?;
            let gap = if q < ESCAPE {
                let low = self.reader.read(k).ok_or_else(eof)?;
                (u128::from(q) << k) | u128::from(low)
            } else {
                u128::from(self.reader.read(rem_bits).ok_or_else(eof)?)
            };
            (gap, self.reader.read(doc_bits).ok_or_else(eof)?)
        };
        let prev = if self.started { self.rem } else { 0 };
        let rem = u128::from(prev) + gap;
        if rem > u128::from(low_mask(rem_bits)) {
            return Err(format!("postings key overflows bucket {}", self.bucket));
        }
        if doc >= self.params.doc_count {
            return Err(format!("postings doc {doc} >= doc count {}", self.params.doc_count));
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
                let rem_bits = p.params.rem_bits();
                let key = if rem_bits >= 64 { c.rem } else { (c.bucket << rem_bits) | c.rem };
                let item = (key, c.doc);
                if let Err(r) = c.advance() {
                    self.done = true;
                    return Some(Err(p.corrupt(r)));
                }
                return Some(Ok(item));
            }
            if self.next_bucket >> p.params.bucket_bits != 0 {
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
    use std::collections::BTreeSet;

    fn mix(mut x: u64) -> u64 {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^ (x >> 31)
    }

    fn build(pairs: &[(u64, u32)], doc_count: u64) -> EncodedPostings {
        let mut v: Vec<u128> = pairs.iter().map(|&(h, d)| pack(h, d)).collect();
        encode(&mut v, doc_count)
    }

    fn check(pairs: &[(u64, u32)], doc_count: u64) -> EncodedPostings {
        let enc = build(pairs, doc_count);
        let file = Path::new("<test>");
        let p = Postings::new(&enc.directory, &enc.data, enc.params, file).unwrap();
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
    fn random_postings_are_compact() {
        let docs = 1000u32;
        let pairs: Vec<(u64, u32)> = (0..200_000u64).map(|i| (mix(i), (i % u64::from(docs)) as u32)).collect();
        let enc = check(&pairs, u64::from(docs));
        let bytes = (enc.directory.len() + enc.data.len()) as f64;
        let per = bytes / enc.posting_count as f64;
        // ~14 bits of key + 10 bits of doc + directory.
        assert!(per < 3.4, "{per} bytes per posting");
    }

    #[test]
    fn unsorted_queries_still_found() {
        let pairs: Vec<(u64, u32)> = (0..5000u64).map(|i| (mix(i), (i % 13) as u32)).collect();
        let enc = build(&pairs, 13);
        let file = Path::new("<test>");
        let p = Postings::new(&enc.directory, &enc.data, enc.params, file).unwrap();
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
            let p = Postings::new(&enc.directory, &data, enc.params, file).unwrap();
            for r in p.iter() {
                if r.is_err() {
                    break;
                }
            }
            let _ = p.lookup(&[mix(1), mix(2)], |_, _| {});
        }
        for i in 0..enc.directory.len() {
            let mut dir = enc.directory.clone();
            dir[i] ^= 0xFF;
            let p = Postings::new(&dir, &enc.data, enc.params, file).unwrap();
            let _ = p.iter().find(|r| r.is_err());
        }
    }
}
