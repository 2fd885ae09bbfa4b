//! The word caches: a word as written -> its [`Entry`], so that each distinct word is
//! canonicalised once per normalizer (and language). A large table keyed by the word's
//! hash, a small two-way hot table in front of it keyed by the word's own bytes, and the
//! batches ([`Words`]) in which a text's words are looked up.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

use crate::rules::{Entry, Rules};
use crate::stem::{self, QuickCounts, QuickWord};
use crate::tokenizer;
use crate::{Normalized, Span, Token};

/// A per-language cache is cleared when it reaches this many distinct words.
const CACHE_LIMIT: usize = 1 << 20;
/// Seed of the cache key hash (any fixed value; distinct from the term hash's seed 0).
const CACHE_SEED: u64 = 0x7e55_e4a0_c0ff_ee01;

/// Distinct words (as written, after cleaning), by their 64-bit `xxh3` hash -> their
/// entry. Keeping the hash instead of the word keeps a look-up to one probe in a
/// compact table (24-byte slots, no pointer to chase, no string compare); on large
/// vocabularies the look-up's cache misses are most of normalization's time. Two words
/// would need the same 64-bit hash to be confused: for a million distinct words in a
/// cache's life the odds are about 3e-8, and the cost would be one wrong term.
pub(crate) type WordCache = HashMap<u64, Entry, BuildHasherDefault<LowBits>>;

/// Slots of a [`HotCache`] (a power of two): 16,384 slots of 32 bytes, 512 KB, stay in
/// a core's L2 cache and hold the words that make up about 90 % of English running
/// text (the PAN-13 sources: the 16,384 most frequent words are 92 % of the words).
const HOT_SLOTS: usize = 1 << 14;

/// The key of a word in the [`HotCache`]: a word as written of at most
/// [`PACKED_MAX`] bytes is its bytes themselves ([`pack_word`]: exact, and no hash to
/// compute); any other word (longer, cleaned or joined) is [`LONG_KEY`] or its large
/// cache key. The two kinds differ in the top byte (a length up to 15, or 0xFF), and no
/// key is 0 (a word has at least one byte).
type HotKey = u128;

/// Longest word (in bytes) whose hot key is the word itself.
const PACKED_MAX: usize = 15;

/// The top byte of the hot key of a word that is not packed.
const LONG_KEY: HotKey = 0xFF << 120;

/// The hot key of the word `bytes[start..end]` (1 to [`PACKED_MAX`] bytes): its bytes
/// in the low bytes, zeros, and its length in the top byte.
#[inline]
fn pack_word(bytes: &[u8], start: usize, end: usize) -> HotKey {
    let len = end - start;
    let raw = match bytes.get(start..start + 16).and_then(|b| <[u8; 16]>::try_from(b).ok()) {
        // The common case: one unaligned load, the bytes after the word masked off.
        Some(chunk) => u128::from_le_bytes(chunk),
        None => {
            let mut chunk = [0u8; 16];
            chunk[..len].copy_from_slice(&bytes[start..end]);
            u128::from_le_bytes(chunk)
        }
    };
    (raw & ((1u128 << (8 * len)) - 1)) | ((len as u128) << 120)
}

/// One slot of a [`HotCache`]: a word's hot key (0: empty) and its entry.
#[derive(Debug, Clone, Copy, Default)]
struct HotSlot {
    key: HotKey,
    term: u64,
    keep: bool,
    folded: bool,
    quick: QuickWord,
}

/// A two-way set-associative cache in front of a [`WordCache`]: the set of a word (two
/// slots, one 64-byte cache line) is fixed by a hash of its key; a word found in the
/// second slot moves to the first, and a new word takes the first slot and pushes its
/// word to the second (least recently used out). The large cache spreads a hundred
/// thousand words over megabytes, so a probe for a frequent word often waits for
/// memory; the hot cache keeps frequent words in one small table. A slot only ever
/// holds what the large cache would answer for the same word, so it never changes a
/// result.
#[derive(Debug, Clone)]
pub(crate) struct HotCache {
    sets: Box<[[HotSlot; 2]]>,
}

/// Sets of a [`HotCache`].
const HOT_SETS: usize = HOT_SLOTS / 2;

impl HotCache {
    pub(crate) fn new() -> Self {
        Self { sets: vec![[HotSlot::default(); 2]; HOT_SETS].into_boxed_slice() }
    }

    /// The set of a key: the high bits of a multiply of its folded halves.
    #[inline]
    fn set_of(key: HotKey) -> usize {
        let folded = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
        (folded.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - HOT_SETS.trailing_zeros())) as usize & (HOT_SETS - 1)
    }

    /// The entry of the word with hot key `key` and `true` if its set holds it, else
    /// any entry and `false`. Branch-free but for the move of a word found second to
    /// the front (a hit or a miss is not predictable; where a word is found mostly is).
    #[inline]
    fn get(&mut self, key: HotKey) -> (Entry, bool) {
        let set = &mut self.sets[Self::set_of(key)];
        let second = usize::from(set[1].key == key);
        let slot = set[second];
        if second == 1 {
            set.swap(0, 1);
        }
        (Entry { term: slot.term, keep: slot.keep, folded: slot.folded, quick: slot.quick }, slot.key == key)
    }

    /// Puts the word with hot key `key` (not in its set) first in its set.
    #[inline]
    fn put(&mut self, key: HotKey, entry: Entry) {
        let set = &mut self.sets[Self::set_of(key)];
        if set[0].key != key {
            set[1] = set[0];
        }
        set[0] = HotSlot { key, term: entry.term, keep: entry.keep, folded: entry.folded, quick: entry.quick };
    }
}

/// Words looked up together. The look-ups of one batch do not depend on each other, so
/// the processor overlaps their waits for memory instead of waiting for one word's
/// cache line before it starts on the next word.
const BATCH: usize = 32;

/// A word found in the text, waiting for its entry.
#[derive(Debug, Clone, Copy, Default)]
struct Pending {
    start: usize,
    end: usize,
    /// The hot cache key ([`HotKey`]); for a word that is not packed, its low bits are
    /// the large cache key, `xxh3` (seed [`CACHE_SEED`]) of the cleaned word.
    key: HotKey,
    dirty: bool,
    joined: bool,
}

impl Pending {
    /// The large cache key of the word: `xxh3` (seed [`CACHE_SEED`]) of the word as the
    /// caches know it (a packed word is as written).
    #[inline]
    fn id(&self, text: &str) -> u64 {
        if self.key & LONG_KEY == LONG_KEY {
            self.key as u64
        } else {
            xxh3_64_with_seed(&text.as_bytes()[self.start..self.end], CACHE_SEED)
        }
    }
}

/// The words of one text on their way from the tokenizer to tokens, in batches.
pub(crate) struct Words<'a> {
    text: &'a str,
    latin: usize,
    rules: &'a Rules,
    cache: &'a mut WordCache,
    hot: &'a mut HotCache,
    /// Scratch for cleaned words.
    key: &'a mut String,
    batch: [Pending; BATCH],
    len: usize,
    /// The quick language check's sample (a byte range; empty when not counting) and
    /// its counts over the words inside it so far.
    sample: (usize, usize),
    quick: QuickCounts,
}

impl<'a> Words<'a> {
    /// The words of `text`, looked up with the Latin tag `latin` in `cache` and `hot`
    /// (`key` is scratch); with a `sample` range, the quick language check is counted
    /// over the words inside it.
    pub(crate) fn new(
        text: &'a str,
        latin: usize,
        rules: &'a Rules,
        cache: &'a mut WordCache,
        hot: &'a mut HotCache,
        key: &'a mut String,
        sample: Option<(usize, usize)>,
    ) -> Self {
        Self {
            text,
            latin,
            rules,
            cache,
            hot,
            key,
            batch: [Pending::default(); BATCH],
            len: 0,
            sample: sample.unwrap_or((usize::MAX, 0)),
            quick: QuickCounts::default(),
        }
    }

    /// The quick language check's counts over the sample's words so far.
    pub(crate) fn quick(&self) -> QuickCounts {
        self.quick
    }

    /// The word of `w` as the caches know it: cleaned (ignorables out, apostrophes
    /// ASCII) or joined (spaced letters) when the tokenizer says so, else as written.
    fn word<'k>(text: &'k str, key: &'k mut String, start: usize, end: usize, dirty: bool, joined: bool) -> &'k str {
        let raw = &text[start..end];
        if joined {
            tokenizer::join_into(raw, key);
            key.as_str()
        } else if dirty {
            tokenizer::clean_into(raw, key);
            key.as_str()
        } else {
            raw
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, w: tokenizer::Word, out: &mut Normalized) {
        let key = if !w.dirty && !w.joined && w.end - w.start <= PACKED_MAX {
            pack_word(self.text.as_bytes(), w.start, w.end)
        } else {
            self.long_key(w)
        };
        self.batch[self.len] = Pending { start: w.start, end: w.end, key, dirty: w.dirty, joined: w.joined };
        self.len += 1;
        if self.len == BATCH {
            self.flush(out);
        }
    }

    /// The hot key of a word that is not packed: [`LONG_KEY`] and the large cache key.
    /// Out of line, so [`push`](Self::push) stays small enough to inline into the scan.
    #[inline(never)]
    fn long_key(&mut self, w: tokenizer::Word) -> HotKey {
        let word = Self::word(self.text, self.key, w.start, w.end, w.dirty, w.joined);
        LONG_KEY | HotKey::from(xxh3_64_with_seed(word.as_bytes(), CACHE_SEED))
    }

    /// Looks the batch up (hot cache, then the large cache, then the rules) and appends
    /// its tokens to `out`, in text order.
    pub(crate) fn flush(&mut self, out: &mut Normalized) {
        let batch = &self.batch[..self.len];
        self.len = 0;
        let mut entries = [Entry::default(); BATCH];
        // Bit k: word k of the batch was not in the hot cache.
        let mut cold = 0u32;
        for (k, p) in batch.iter().enumerate() {
            let (entry, hit) = self.hot.get(p.key);
            entries[k] = entry;
            cold |= u32::from(!hit) << k;
        }
        if cold != 0 {
            let mut ids = [0u64; BATCH];
            // Bit k: word k is in neither cache.
            let mut new = 0u32;
            // The keys first, then the probes: hashing a word branches on its length, and
            // a mispredicted branch between two probes would stop the second from
            // starting before the first's cache line arrives.
            for k in bits(cold) {
                ids[k] = batch[k].id(self.text);
            }
            for k in bits(cold) {
                match self.cache.get(&ids[k]) {
                    Some(entry) => entries[k] = *entry,
                    None => new |= 1 << k,
                }
            }
            for k in bits(new) {
                let p = batch[k];
                // Looked up again: the same new word may come twice in one batch.
                entries[k] = match self.cache.get(&ids[k]) {
                    Some(entry) => *entry,
                    None => {
                        let word = Self::word(self.text, self.key, p.start, p.end, p.dirty, p.joined);
                        let entry = self.rules.entry(word, self.latin);
                        if self.cache.len() >= CACHE_LIMIT {
                            self.cache.clear();
                        }
                        self.cache.insert(ids[k], entry);
                        entry
                    }
                };
            }
            for k in bits(cold) {
                self.hot.put(batch[k].key, entries[k]);
            }
        }
        // Without a branch on `keep` (stop words make it unpredictable): every token is
        // written to the next free place, which only a kept one takes.
        let mut kept = [Token { span: Span::default(), term: 0 }; BATCH];
        let mut count = 0;
        for (p, entry) in batch.iter().zip(&entries) {
            kept[count] = Token { span: Span { start: p.start, end: p.end }, term: entry.term };
            count += usize::from(entry.keep);
            out.folded_words += usize::from(entry.folded);
        }
        out.words += batch.len();
        out.tokens.extend_from_slice(&kept[..count]);
        let n = batch.len();
        if n > 0 && self.batch[0].start < self.sample.1 && self.sample.0 < self.batch[n - 1].end {
            for (k, entry) in entries.iter().enumerate().take(n) {
                let p = self.batch[k];
                self.count_quick(&p, entry);
            }
        }
    }

    /// Adds the word `p` to the quick check's counts if it lies in the sample: what its
    /// entry remembers for a word looked up as written, else (rare) what its words as
    /// written give. A joined word (letters spaced apart) is several one-letter words to
    /// the quick check, which scans without joining, and may cross the sample's ends.
    fn count_quick(&mut self, p: &Pending, entry: &Entry) {
        let (from, to) = self.sample;
        if p.joined {
            let (start, end) = (p.start.max(from), p.end.min(to));
            if start < end {
                let part = &self.text[start..end];
                let mut lower = String::new();
                let rules = self.rules;
                let quick = &mut self.quick;
                tokenizer::scan(part, |w| {
                    quick.add(stem::quick_word(&part[w.start..w.end], rules.english, rules.russian, &mut lower));
                });
            }
        } else if from <= p.start && p.end <= to {
            if p.dirty {
                let word = &self.text[p.start..p.end];
                self.quick.add(stem::quick_word(word, self.rules.english, self.rules.russian, &mut String::new()));
            } else {
                self.quick.add(entry.quick);
            }
        }
    }
}

/// The indices of the set bits of `mask`, lowest first.
fn bits(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let k = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            k
        })
    })
}

/// Hashes a `u64` key that already is a good hash: the key itself.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct LowBits(u64);

impl Hasher for LowBits {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Not used by `u64` keys; a correct fallback anyway.
        self.0 = xxh3_64(bytes) ^ self.0.rotate_left(5);
    }

    fn write_u64(&mut self, i: u64) {
        self.0 = i;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// A packed hot key is the word's bytes and length, wherever the word lies
        /// (also within 16 bytes of the text's end, where it is copied).
        #[test]
        fn packed_hot_keys_are_the_words(text in "\\PC{1,40}", a in 0usize..40, len in 1usize..=PACKED_MAX) {
            let bytes = text.as_bytes();
            let start = a % bytes.len();
            let end = (start + len).min(bytes.len());
            proptest::prop_assume!(start < end);
            let mut expected = [0u8; 16];
            expected[..end - start].copy_from_slice(&bytes[start..end]);
            expected[15] = (end - start) as u8;
            proptest::prop_assert_eq!(pack_word(bytes, start, end), u128::from_le_bytes(expected));
        }
    }
}
