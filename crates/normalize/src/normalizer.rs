//! The normalizer: settings, the per-word canonicalisation and the word cache.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};
use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

use crate::confusables;
use crate::stem::{self, ENGLISH_TAG, LATIN_STEMMERS, Language, QuickCounts, QuickWord, Script};
use crate::stopwords::{self, StopSet};
use crate::tokenizer::{self, CharClass};
use crate::{Error, Normalized, Result, Span, Token};

/// Version of the canonicalisation rules (tokenizer, tables, stop lists, stemming
/// policy). Two normalizers with the same [`NormalizerConfig`] and the same version give
/// the same terms; an index stores it next to the config and refuses to mix versions.
pub const FORMAT_VERSION: u32 = 2;

/// A per-language cache is cleared when it reaches this many distinct words.
const CACHE_LIMIT: usize = 1 << 20;
/// Seed of the cache key hash (any fixed value; distinct from the term hash's seed 0).
const CACHE_SEED: u64 = 0x7e55_e4a0_c0ff_ee01;

/// Normalizer settings. Everything here changes fingerprints, so it is stored in the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct NormalizerConfig {
    /// Drop the built-in stop words (Russian for Cyrillic words, English for Latin words
    /// when the document's Latin-script language is English).
    pub stop_words: bool,
    /// Reduce words to Snowball stems.
    pub stemming: bool,
    /// Force the document language (ISO 639-1, e.g. `"en"`, `"ru"`) instead of
    /// detecting it. It picks the stemmer (and stop list) of Latin-script words;
    /// Cyrillic words always use Russian.
    pub language: Option<String>,
    /// More stop words, dropped whatever their script (also when `stop_words` is off).
    /// Each must be one word; it is canonicalised like text (NFKC, lowercase, `ё` -> `е`).
    pub extra_stop_words: Vec<String>,
    /// Fold Latin/Cyrillic look-alike letters inside mixed words.
    pub fold_confusables: bool,
    /// Drop words that have no letter (`2024`, `IV` in Roman numeral characters).
    pub drop_numbers: bool,
}

impl Default for NormalizerConfig {
    fn default() -> Self {
        Self {
            stop_words: true,
            stemming: true,
            language: None,
            extra_stop_words: Vec::new(),
            fold_confusables: true,
            drop_numbers: true,
        }
    }
}

/// What the cache remembers about one word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Entry {
    term: u64,
    keep: bool,
    folded: bool,
    /// What the quick language check takes from the word (see [`stem::QuickWord`]).
    quick: QuickWord,
}

/// Distinct words (as written, after cleaning), by their 64-bit `xxh3` hash -> their
/// entry. Keeping the hash instead of the word keeps a look-up to one probe in a
/// compact table (24-byte slots, no pointer to chase, no string compare); on large
/// vocabularies the look-up's cache misses are most of normalization's time. Two words
/// would need the same 64-bit hash to be confused: for a million distinct words in a
/// cache's life the odds are about 3e-8, and the cost would be one wrong term.
type WordCache = HashMap<u64, Entry, BuildHasherDefault<LowBits>>;

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
struct HotCache {
    sets: Box<[[HotSlot; 2]]>,
}

/// Sets of a [`HotCache`].
const HOT_SETS: usize = HOT_SLOTS / 2;

impl HotCache {
    fn new() -> Self {
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
struct Words<'a> {
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

impl Words<'_> {
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
    fn push(&mut self, w: tokenizer::Word, out: &mut Normalized) {
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
    fn flush(&mut self, out: &mut Normalized) {
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
struct LowBits(u64);

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

/// The per-word rules; shared, read-only.
#[derive(Debug)]
struct Rules {
    config: NormalizerConfig,
    english: &'static StopSet,
    russian: &'static StopSet,
    extra: StopSet,
}

/// A built normalizer. Holds a per-instance cache; clone one per thread.
///
/// See the [crate documentation](crate) for the rules.
#[derive(Debug, Clone)]
pub struct Normalizer {
    rules: Arc<Rules>,
    forced: Option<Language>,
    /// One cache per Latin language tag (a Latin word's term depends on it).
    caches: Vec<WordCache>,
    /// One hot cache per Latin language tag, made on first use.
    hot: Vec<Option<HotCache>>,
    /// Scratch for cleaned words.
    key: String,
}

impl Normalizer {
    /// Validates the settings and builds the normalizer.
    pub fn new(config: NormalizerConfig) -> Result<Self> {
        let forced = match &config.language {
            None => None,
            Some(code) => {
                Some(stem::by_code(code).ok_or_else(|| Error::Config(format!("unknown language code {code:?}")))?)
            }
        };
        let mut extra = StopSet::default();
        for word in &config.extra_stop_words {
            let mut count = 0;
            tokenizer::scan(word, |_| count += 1);
            if count != 1 {
                return Err(Error::Config(format!("extra stop word {word:?} is not exactly one word")));
            }
            let mut clean = String::new();
            tokenizer::clean_into(word.trim(), &mut clean);
            extra.insert(&surface(&clean, config.fold_confusables).0);
        }
        let rules = Rules { config, english: &stopwords::ENGLISH_SET, russian: &stopwords::RUSSIAN_SET, extra };
        Ok(Self {
            rules: Arc::new(rules),
            forced,
            caches: vec![WordCache::default(); LATIN_STEMMERS.len()],
            hot: vec![None; LATIN_STEMMERS.len()],
            key: String::new(),
        })
    }

    /// The settings this normalizer was built from.
    pub fn config(&self) -> &NormalizerConfig {
        &self.rules.config
    }

    /// Normalizes a text.
    pub fn normalize(&mut self, text: &str) -> Normalized {
        let (language, latin) = self.languages(text);
        self.normalize_as(text, language, latin, None).0
    }

    /// Normalizes a text like [`normalize`](Self::normalize) (the same tokens, words
    /// and folded words), but settles the document language only as far as the terms
    /// depend on it: a text whose main script is not Latin skips the language
    /// identifier (it costs more than normalizing a text of a few KB; Latin-script
    /// stemmers and stop words are the only terms the language changes), and
    /// [`Normalized::language`] is then `None`. For fingerprints and sketches, which
    /// keep no language.
    ///
    /// The quick English/Russian check does not tokenize its sample again: the text is
    /// normalized as English (the Latin tag of English, Russian and most undecided
    /// texts) while the sample's words are counted from the word cache, and only a text
    /// that turns out to be in another Latin-script language is normalized again.
    pub fn normalize_terms(&mut self, text: &str) -> Normalized {
        if self.forced.is_some() {
            return self.normalize(text);
        }
        let Some(sample) = stem::quick_range(text) else {
            let lang = stem::detect_for_terms(text, self.rules.english, self.rules.russian);
            let latin = lang.and_then(stem::latin_tag).unwrap_or(ENGLISH_TAG);
            return self.normalize_as(text, lang.map(|l| stem::code_of(l).to_owned()), latin, None).0;
        };
        let (mut out, quick) = self.normalize_as(text, None, ENGLISH_TAG, Some(sample));
        let lang = quick.decide().or_else(|| stem::detect_for_terms_after_quick(text));
        let latin = lang.and_then(stem::latin_tag).unwrap_or(ENGLISH_TAG);
        if latin != ENGLISH_TAG {
            out = self.normalize_as(text, None, latin, None).0;
        }
        out.language = lang.map(|l| stem::code_of(l).to_owned());
        out
    }

    /// Normalizes `text` with the Latin tag `latin`; with a `sample` range, also counts
    /// the quick language check over the words inside it.
    fn normalize_as(
        &mut self,
        text: &str,
        language: Option<String>,
        latin: usize,
        sample: Option<(usize, usize)>,
    ) -> (Normalized, QuickCounts) {
        let mut out =
            Normalized { tokens: Vec::with_capacity(text.len() / 8 + 1), language, words: 0, folded_words: 0 };
        let Self { rules, caches, hot, key, .. } = self;
        let mut words = Words {
            text,
            latin,
            rules,
            cache: &mut caches[latin],
            hot: hot[latin].get_or_insert_with(HotCache::new),
            key,
            batch: [Pending::default(); BATCH],
            len: 0,
            sample: sample.unwrap_or((usize::MAX, 0)),
            quick: QuickCounts::default(),
        };
        tokenizer::scan_joining(text, |w| words.push(w, &mut out));
        words.flush(&mut out);
        let quick = words.quick;
        (out, quick)
    }

    /// The canonical term of one word, `None` if it is dropped (stop word, number, no
    /// letter). Characters that cannot be part of a word are removed first, so pass one
    /// word. Latin words use the configured language, else English (there is no text to
    /// detect from). For tests and display; [`normalize`](Self::normalize) is the fast
    /// path and gives `xxh3_64` of exactly this string.
    pub fn canonical(&mut self, word: &str) -> Option<String> {
        let clean: String = word
            .chars()
            .filter_map(|c| match tokenizer::classify(c) {
                CharClass::Word | CharClass::Single => Some(if c == '\u{02BC}' { '\'' } else { c }),
                CharClass::Apostrophe => Some('\''),
                CharClass::Ignorable | CharClass::Separator => None,
            })
            .collect();
        let latin = self.forced.and_then(|l| stem::latin_tag(l.lang)).unwrap_or(ENGLISH_TAG);
        self.rules.canonical(&clean, latin).0
    }

    /// The kept tokens of `text` with their canonical terms as strings (slow: no cache;
    /// for tests, debugging and display). Same tokens as [`normalize`](Self::normalize).
    pub fn canonical_terms(&mut self, text: &str) -> Vec<(Span, String)> {
        let (_, latin) = self.languages(text);
        let mut out = Vec::new();
        let mut key = String::new();
        tokenizer::scan_joining(text, |w| {
            if w.joined {
                tokenizer::join_into(&text[w.start..w.end], &mut key);
            } else {
                tokenizer::clean_into(&text[w.start..w.end], &mut key);
            }
            if let Some(term) = self.rules.canonical(&key, latin).0 {
                out.push((Span { start: w.start, end: w.end }, term));
            }
        });
        out
    }

    /// Empties the word cache (it is also bounded: each language's part is cleared at
    /// about a million distinct words).
    pub fn clear_cache(&mut self) {
        self.caches.iter_mut().for_each(WordCache::clear);
        self.hot.iter_mut().for_each(|h| *h = None);
    }

    /// The reported language and the Latin language tag of `text`.
    fn languages(&self, text: &str) -> (Option<String>, usize) {
        if let Some(forced) = self.forced {
            let tag = stem::latin_tag(forced.lang).unwrap_or(ENGLISH_TAG);
            return (Some(forced.code.to_owned()), tag);
        }
        match stem::detect(text, self.rules.english, self.rules.russian) {
            Some(lang) => (Some(stem::code_of(lang).to_owned()), stem::latin_tag(lang).unwrap_or(ENGLISH_TAG)),
            None => (None, ENGLISH_TAG),
        }
    }
}

impl Rules {
    /// The cache entry of a cleaned word.
    fn entry(&self, word: &str, latin: usize) -> Entry {
        let quick = stem::quick_word(word, self.english, self.russian, &mut String::new());
        match self.canonical(word, latin) {
            (Some(term), folded) => Entry { term: xxh3_64(term.as_bytes()), keep: true, folded, quick },
            (None, folded) => Entry { term: 0, keep: false, folded, quick },
        }
    }

    /// The canonical term of a cleaned word (no ignorables, ASCII apostrophes), `None`
    /// if dropped; and whether look-alike letters were folded.
    fn canonical(&self, word: &str, latin: usize) -> (Option<String>, bool) {
        let config = &self.config;
        let (surface, folded) = surface(word, config.fold_confusables);
        let has_letter = surface.chars().any(is_letter);
        if !has_letter {
            let number = surface.chars().any(char::is_numeric);
            return ((number && !config.drop_numbers).then_some(surface), folded);
        }
        if self.extra.contains(&surface) {
            return (None, folded);
        }
        let script = stem::word_script(&surface);
        if config.stop_words {
            let stop = match script {
                Script::Cyrillic => self.russian.contains(&surface),
                Script::Latin if latin == ENGLISH_TAG => self.english.contains(&surface),
                _ => false,
            };
            if stop {
                return (None, folded);
            }
        }
        if config.stemming
            && let Some(algorithm) = stem::algorithm(script, latin)
        {
            return (Some(stem::stem(algorithm, &surface)), folded);
        }
        (Some(surface), folded)
    }
}

/// `char::is_alphabetic` with ASCII and Russian fast paths.
fn is_letter(c: char) -> bool {
    match c {
        'a'..='z' | 'A'..='Z' | '\u{0400}'..='\u{0481}' => true,
        '\0'..='\u{7F}' => false,
        _ => c.is_alphabetic(),
    }
}

/// The surface form of a cleaned word: NFKC (only when needed), look-alike letters
/// folded (if `fold`), lowercase, `ё` -> `е`, final `ς` -> `σ`, `ʼ` -> `'`, stress marks
/// (U+0300, U+0301) after Cyrillic letters removed. Returns whether folding happened.
fn surface(word: &str, fold: bool) -> (String, bool) {
    if word.is_ascii() {
        return (word.to_ascii_lowercase(), false);
    }
    let nfkc: Cow<'_, str> = if is_nfkc_quick(word.chars()) == IsNormalized::Yes {
        Cow::Borrowed(word)
    } else {
        // NFKC may bring in non-word characters (`⑴` -> `(1)`, Arabic ligatures with
        // spaces): keep one word per original word.
        Cow::Owned(
            word.nfkc()
                .filter_map(|c| match tokenizer::classify(c) {
                    CharClass::Word | CharClass::Single => Some(c),
                    CharClass::Apostrophe => Some('\''),
                    CharClass::Ignorable | CharClass::Separator => None,
                })
                .collect(),
        )
    };
    let mut folded_buf = String::new();
    let folded = fold && confusables::fold_into(&nfkc, &mut folded_buf);
    let source: &str = if folded { &folded_buf } else { &nfkc };
    let mut out = String::with_capacity(source.len());
    let mut after_cyrillic = false;
    for c in source.chars() {
        if matches!(c, '\u{0300}' | '\u{0301}') && after_cyrillic {
            continue;
        }
        after_cyrillic = matches!(c, '\u{0400}'..='\u{04FF}');
        match c {
            '\u{02BC}' => out.push('\''),
            'A'..='Z' => out.push(c.to_ascii_lowercase()),
            // Russian fast path (the general case handles the rest of Cyrillic).
            'ё' | 'Ё' => out.push('е'),
            'а'..='я' => out.push(c),
            'А'..='Я' => out.push(char::from_u32(c as u32 + 0x20).unwrap_or(c)),
            _ => {
                for l in c.to_lowercase() {
                    out.push(match l {
                        'ё' => 'е',
                        'ς' => 'σ',
                        _ => l,
                    });
                }
            }
        }
    }
    (out, folded)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normalizer() -> Normalizer {
        Normalizer::new(NormalizerConfig::default()).unwrap()
    }

    fn terms(n: &mut Normalizer, text: &str) -> Vec<String> {
        n.canonical_terms(text).into_iter().map(|(_, t)| t).collect()
    }

    #[test]
    fn english_sentence() {
        let mut n = normalizer();
        let text = "The students were copying their essays from the Internet, and the teachers didn't notice it.";
        assert_eq!(terms(&mut n, text), ["student", "copi", "essay", "internet", "teacher", "notic"]);
        let normalized = n.normalize(text);
        assert_eq!(normalized.language.as_deref(), Some("en"));
        let words: Vec<&str> = normalized.tokens.iter().map(|t| &text[t.span.start..t.span.end]).collect();
        assert_eq!(words, ["students", "copying", "essays", "Internet", "teachers", "notice"]);
        let hashes: Vec<u64> = terms(&mut n, text).iter().map(|t| xxh3_64(t.as_bytes())).collect();
        assert_eq!(normalized.term_hashes(), hashes);
    }

    #[test]
    fn russian_sentence() {
        let mut n = normalizer();
        let text = "Студенты списывали свои рефераты из интернета, а преподаватели этого не замечали.";
        assert_eq!(terms(&mut n, text), ["студент", "списыва", "реферат", "интернет", "преподавател", "замеча"]);
        let normalized = n.normalize(text);
        assert_eq!(normalized.language.as_deref(), Some("ru"));
        let words: Vec<&str> = normalized.tokens.iter().map(|t| &text[t.span.start..t.span.end]).collect();
        assert_eq!(words, ["Студенты", "списывали", "рефераты", "интернета", "преподаватели", "замечали"]);
    }

    #[test]
    fn mixed_script_word_equals_the_real_one() {
        let mut n = normalizer();
        assert_eq!(n.canonical("пpивeт"), n.canonical("привет"));
        assert_eq!(n.canonical("plаgiаrism"), n.canonical("plagiarism"));
        let a = n.normalize("Пpивeт, миp! Кaк дeлa у студeнтов?");
        let b = n.normalize("Привет, мир! Как дела у студентов?");
        assert_eq!(a.term_hashes(), b.term_hashes());
        assert_eq!(a.folded_words, 5);
        assert_eq!(b.folded_words, 0);
    }

    #[test]
    fn letters_spaced_apart_are_one_word() {
        let mut n = normalizer();
        let plain = n.normalize("plagiarism detection works well");
        let spaced = n.normalize("p l a g i a r i s m  detection w.o.r.k.s well");
        assert_eq!(spaced.term_hashes(), plain.term_hashes());
        let first = spaced.tokens[0].span;
        assert_eq!((first.start, first.end), (0, 19), "the joined word spans its letters");
        let ru = n.normalize("п л а г и а т  обнаружен");
        assert_eq!(ru.term_hashes(), n.normalize("плагиат обнаружен").term_hashes());
        // Three letters, a line break, or mixed separators are left alone.
        assert_eq!(n.canonical_terms("x y z word").len(), 4);
        assert_eq!(n.canonical_terms("q b\nc k word").len(), 5);
        assert_eq!(n.canonical_terms("q w-e r word").len(), 5);
    }

    #[test]
    fn hangul_fillers_split_words() {
        let mut n = normalizer();
        let a = n.normalize("plagiarism\u{3164}detection\u{FFA0}works");
        let b = n.normalize("plagiarism detection works");
        assert_eq!(a.term_hashes(), b.term_hashes());
    }

    #[test]
    fn zero_width_characters_inside_words() {
        let mut n = normalizer();
        let a = n.normalize("pla\u{200B}giarism de\u{00AD}tec\u{2060}tion wo\u{FEFF}rk");
        let b = n.normalize("plagiarism detection work");
        assert_eq!(a.term_hashes(), b.term_hashes());
        assert_eq!(a.tokens[0].span, Span { start: 0, end: 13 });
    }

    #[test]
    fn numbers_and_punctuation_are_dropped() {
        let mut n = normalizer();
        assert_eq!(terms(&mut n, "In 2024, 15.3% (of 100) -- COVID19 cases!!! 3rd"), ["covid19", "case", "3rd"]);
        let mut keep = Normalizer::new(NormalizerConfig { drop_numbers: false, ..Default::default() }).unwrap();
        assert_eq!(terms(&mut keep, "in 2024"), ["2024"]);
    }

    #[test]
    fn stop_words_per_language() {
        let mut n = normalizer();
        assert_eq!(n.canonical("the"), None);
        assert_eq!(n.canonical("The"), None);
        assert_eq!(n.canonical("и"), None);
        assert_eq!(n.canonical("Которые"), None);
        assert_eq!(n.canonical("don’t"), None);
        assert_eq!(n.canonical("её"), None);
        assert!(n.canonical("house").is_some());
        // Russian stop words are not English ones and vice versa.
        assert!(n.canonical("дом").is_some());
        // French text: Latin stop words are English only.
        let mut fr = Normalizer::new(NormalizerConfig { language: Some("fr".into()), ..Default::default() }).unwrap();
        assert_eq!(fr.canonical("maisons").as_deref(), Some("maison"));
        assert_eq!(fr.canonical("the").as_deref(), Some("the"));
        let mut off = Normalizer::new(NormalizerConfig { stop_words: false, ..Default::default() }).unwrap();
        assert_eq!(off.canonical("the").as_deref(), Some("the"));
    }

    #[test]
    fn extra_stop_words() {
        let config =
            NormalizerConfig { extra_stop_words: vec!["Ёлка".into(), "Hello".into()], ..Default::default() };
        let mut n = Normalizer::new(config).unwrap();
        assert_eq!(n.canonical("елка"), None);
        assert_eq!(n.canonical("HELLO"), None);
        assert!(n.canonical("world").is_some());
        let bad = NormalizerConfig { extra_stop_words: vec!["two words".into()], ..Default::default() };
        assert!(Normalizer::new(bad).is_err());
    }

    #[test]
    fn yo_equals_ye() {
        let mut n = normalizer();
        assert_eq!(n.canonical("ёлка"), n.canonical("елка"));
        assert_eq!(n.canonical("ЁЛКА"), n.canonical("елка"));
        // Decomposed ё (е + U+0308) too.
        assert_eq!(n.canonical("е\u{0308}лка"), n.canonical("елка"));
        // Stress marks are not part of a Russian word.
        assert_eq!(n.canonical("за\u{0301}мок"), n.canonical("замок"));
    }

    #[test]
    fn nfkc() {
        let mut n = normalizer();
        assert_eq!(n.canonical("\u{FB01}le").as_deref(), Some("file"));
        assert_eq!(n.canonical("ＦＵＬＬＷＩＤＴＨ"), n.canonical("fullwidth"));
        assert_eq!(n.canonical("ｈｏｕｓｅｓ").as_deref(), Some("hous"));
        assert_eq!(n.canonical("café"), n.canonical("cafe\u{0301}"));
    }

    #[test]
    fn empty_and_whitespace() {
        let mut n = normalizer();
        for text in ["", " ", "\n\n\t  \r\n", "...,;!?"] {
            let normalized = n.normalize(text);
            assert!(normalized.tokens.is_empty());
            assert_eq!(normalized.words, 0);
        }
    }

    #[test]
    fn emoji_and_cjk() {
        let mut n = normalizer();
        let text = "I ❤️ 東京タワー and 🍣!";
        let got = n.canonical_terms(text);
        let words: Vec<&str> = got.iter().map(|(s, _)| &text[s.start..s.end]).collect();
        assert_eq!(words, ["東", "京", "タ", "ワ", "ー"]);
        let normalized = n.normalize(text);
        assert_eq!(normalized.tokens.len(), 5);
        // Halfwidth katakana folds to fullwidth.
        assert_eq!(n.canonical("ﾀ").as_deref(), Some("タ"));
    }

    #[test]
    fn other_languages_use_their_stemmer() {
        let mut n = normalizer();
        let de = "Die Studenten haben ihre Hausarbeiten aus dem Internet kopiert, und die Lehrer haben es nicht bemerkt, weil sie keine Zeit hatten.";
        let normalized = n.normalize(de);
        assert_eq!(normalized.language.as_deref(), Some("de"));
        assert!(terms(&mut n, de).contains(&"hausarbeit".to_owned()));
        assert_eq!(n.canonical("λόγους"), n.canonical("ΛΌΓΟΥΣ"));
    }

    #[test]
    fn unknown_language_is_an_error() {
        let config = NormalizerConfig { language: Some("klingon".into()), ..Default::default() };
        assert!(Normalizer::new(config).is_err());
    }

    #[test]
    fn cache_does_not_change_results() {
        let mut n = normalizer();
        let text = "Copying copying COPYING Копирование копирование";
        let first = n.normalize(text);
        let second = n.normalize(text);
        assert_eq!(first, second);
        n.clear_cache();
        assert_eq!(n.normalize(text), first);
    }

    /// Pieces for long texts: every kind of word the quick check tells apart, words
    /// that need cleaning, letters spaced apart (joined), and odd separators.
    const QUICK_PIECES: &[&str] = &[
        "the",
        "The",
        "and",
        "of",
        "students",
        "copying",
        "2024",
        "x1",
        "don't",
        "don’t",
        "O’Neil",
        "pla\u{200B}giarism",
        "th\u{200B}e",
        "кото\u{00AD}рые",
        "и",
        "в",
        "которые",
        "Которые",
        "ЁЛКА",
        "был",
        "это",
        "студенты",
        "і",
        "ї",
        "һ",
        "пpивeт",
        "café",
        "naïve",
        "λόγος",
        "東京",
        "ǅ",
        "p l a g i a r i s m",
        "п л а г и а т",
        "a b c d e",
        "w.o.r.k.s",
        "i",
        "a",
        "\u{00A0}",
        "\n",
        " - ",
        "🔥",
    ];

    proptest::proptest! {
        /// The quick check's counts gathered while normalizing (from the word cache) are
        /// those of tokenizing its sample again, on texts longer than the sample and with
        /// a cache warm from the other texts.
        #[test]
        fn quick_counts_from_the_cache_equal_a_new_scan(
            texts in proptest::collection::vec(
                proptest::collection::vec((0..QUICK_PIECES.len(), 0..4usize), 0..700),
                1..4,
            ),
        ) {
            let mut n = normalizer();
            for parts in texts.iter().chain(texts.iter()) {
                let mut text = String::new();
                for &(p, s) in parts {
                    text.push_str(QUICK_PIECES[p]);
                    text.push_str([" ", "  ", ", ", "\n"][s]);
                }
                let expected = stem::quick_counts_of_sample(&text, n.rules.english, n.rules.russian);
                match stem::quick_range(&text) {
                    Some(range) => {
                        let (_, counts) = n.normalize_as(&text, None, ENGLISH_TAG, Some(range));
                        proptest::prop_assert_eq!(counts, expected);
                    }
                    None => proptest::prop_assert!(text.len() > 768),
                }
                let terms = n.normalize_terms(&text);
                let full = n.clone().normalize(&text);
                proptest::prop_assert_eq!(&terms.tokens, &full.tokens);
                if terms.language.is_some() {
                    proptest::prop_assert_eq!(&terms.language, &full.language);
                }
            }
        }
    }

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

    #[test]
    fn config_round_trips_through_serde_defaults() {
        let config = NormalizerConfig::default();
        assert!(config.stop_words && config.stemming && config.fold_confusables && config.drop_numbers);
        assert!(config.language.is_none() && config.extra_stop_words.is_empty());
    }
}
