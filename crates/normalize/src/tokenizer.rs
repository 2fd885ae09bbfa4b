//! Finding words and their byte spans in the original text.
//!
//! A word is a maximal run of *word characters*: Unicode alphabetic or numeric
//! characters and combining marks. Inside a run:
//! - *ignorable* characters (format characters `Cf` such as U+200B..U+200F, U+2060,
//!   U+FEFF, the soft hyphen U+00AD, variation selectors, Hangul fillers: see
//!   [`is_ignorable`]) are skipped and do **not** split the word, so `pla\u{200B}giarism`
//!   is one word; a word's span never starts or ends with one;
//! - an apostrophe (`'`, `’`, `‘`, `＇`) directly between two word characters is part of
//!   the word (`don't`, `O’Neil`); elsewhere it separates words.
//!
//! Han, Hiragana and Katakana characters form one word each (with any combining marks
//! that follow), because these scripts do not separate words with spaces. Everything
//! else (whitespace, line breaks, punctuation, symbols, emoji) separates words, so
//! re-flowing lines or repeating spaces never changes the words.

use unicode_normalization::char::is_combining_mark;

/// Byte class: separates words.
const SEP: u8 = 0;
/// Byte class: an ASCII letter or digit.
const WORD: u8 = 1;
/// Byte class: lead byte 0xD0 or 0xD1, i.e. a two-byte character in U+0400..U+047F,
/// all of which are Cyrillic letters.
const CYR: u8 = 2;
/// Byte class: the ASCII apostrophe.
const APOS: u8 = 3;
/// Byte class: any other non-ASCII byte (decode the character to classify it).
const OTHER: u8 = 4;

/// The class of every byte: the ASCII (and common Cyrillic) fast path.
static CLASS: [u8; 256] = build_class();

const fn build_class() -> [u8; 256] {
    let mut table = [SEP; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        table[b] = if byte.is_ascii_alphanumeric() {
            WORD
        } else if byte == b'\'' {
            APOS
        } else if byte == 0xD0 || byte == 0xD1 {
            CYR
        } else if byte >= 0x80 {
            OTHER
        } else {
            SEP
        };
        b += 1;
    }
    table
}

/// What a character does in the tokenizer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CharClass {
    /// Part of a word.
    Word,
    /// A word by itself (Han, Hiragana, Katakana).
    Single,
    /// Skipped; does not split a word.
    Ignorable,
    /// Part of a word only between two word characters.
    Apostrophe,
    /// Splits words.
    Separator,
}

/// Classifies one character.
#[inline]
pub(crate) fn classify(c: char) -> CharClass {
    if c.is_ascii() {
        return match CLASS[c as usize] {
            WORD => CharClass::Word,
            APOS => CharClass::Apostrophe,
            _ => CharClass::Separator,
        };
    }
    if is_ignorable(c) {
        CharClass::Ignorable
    } else if is_blank_letter(c) {
        // Hangul fillers are letters that render as blank space: used in
        // place of spaces to glue words together, so they split words.
        CharClass::Separator
    } else if is_single(c) {
        CharClass::Single
    } else if c.is_alphanumeric() || is_combining_mark(c) {
        CharClass::Word
    } else if is_apostrophe(c) {
        CharClass::Apostrophe
    } else {
        CharClass::Separator
    }
}

/// Invisible characters that are skipped inside words: every format character (`Cf`)
/// and the other default-ignorable code points (combining grapheme joiner, variation
/// selectors, Hangul fillers, Mongolian free variation selectors, tags).
#[inline]
pub(crate) fn is_ignorable(c: char) -> bool {
    if c < '\u{00AD}' {
        return false;
    }
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{0600}'..='\u{0605}'
            | '\u{061C}'
            | '\u{06DD}'
            | '\u{070F}'
            | '\u{0890}'..='\u{0891}'
            | '\u{08E2}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFF0}'..='\u{FFFB}'
            | '\u{110BD}'
            | '\u{110CD}'
            | '\u{13430}'..='\u{1343F}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// Letters that render as a blank (the Hangul fillers).
#[inline]
fn is_blank_letter(c: char) -> bool {
    matches!(c, '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}')
}

/// Characters that form a word by themselves: Han ideographs, Hiragana, Katakana.
#[inline]
pub(crate) fn is_single(c: char) -> bool {
    matches!(
        c,
        '\u{3005}'..='\u{3007}'
            | '\u{3021}'..='\u{3029}'
            | '\u{3038}'..='\u{303B}'
            | '\u{3041}'..='\u{3096}'
            | '\u{309D}'..='\u{309F}'
            | '\u{30A1}'..='\u{30FA}'
            | '\u{30FC}'..='\u{30FF}'
            | '\u{31F0}'..='\u{31FF}'
            | '\u{3400}'..='\u{4DBF}'
            | '\u{4E00}'..='\u{9FFF}'
            | '\u{F900}'..='\u{FAFF}'
            | '\u{FF66}'..='\u{FF9D}'
            | '\u{20000}'..='\u{3FFFF}'
    )
}

/// Apostrophe look-alikes joined inside words; canonicalised to ASCII `'`.
/// (U+02BC MODIFIER LETTER APOSTROPHE is a letter, hence always inside words; it is
/// canonicalised to `'` too.)
#[inline]
pub(crate) fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '\u{FF07}')
}

/// One word found by [`scan`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Word {
    /// First byte of the first word character.
    pub start: usize,
    /// One past the last byte of the last word character.
    pub end: usize,
    /// The span contains ignorable characters or non-ASCII apostrophes: the word must
    /// be cleaned ([`clean_into`]) before it is looked up.
    pub dirty: bool,
    /// The word is letters spaced apart (`p l a g i a r i s m`) joined into one: its
    /// span holds separators that [`clean_into`] drops.
    pub joined: bool,
}

/// The character starting at byte `i` of `text` (a char boundary) and its length.
#[inline]
fn decode(text: &str, i: usize) -> Option<(char, usize)> {
    let c = text.get(i..)?.chars().next()?;
    Some((c, c.len_utf8()))
}

/// Whether a word character (not a [`CharClass::Single`]) starts at byte `i`.
#[inline]
fn word_char_at(text: &str, i: usize) -> bool {
    match text.as_bytes().get(i) {
        None => false,
        Some(&b) => match CLASS[b as usize] {
            WORD | CYR => true,
            OTHER => decode(text, i).is_some_and(|(c, _)| classify(c) == CharClass::Word),
            _ => false,
        },
    }
}

/// Calls `emit` for every word of `text`, in order.
#[inline]
pub(crate) fn scan(text: &str, emit: impl FnMut(Word)) {
    scan_blocks(text, emit, block_masks);
}

/// Bytes classified at once by [`block_masks`].
const BLOCK: usize = 64;

/// [`scan_with`] ([`word_run_end`]) with a fast path for plain ASCII words: the bytes
/// of a 64-byte block are classified at once into two bit masks (`masks`: bit k of the
/// first for an ASCII letter or digit at byte k, of the second for a plain separator,
/// an ASCII byte that is neither nor `'`), so a run of separators is skipped and a word
/// of ASCII letters and digits that ends at a plain separator is found with a
/// trailing-zero count each, without a branch per byte. Anything else (a word that
/// meets a non-ASCII byte or an apostrophe or reaches the block's end, the last 63
/// bytes of the text) takes one step of the general loop.
#[inline]
fn scan_blocks(text: &str, mut emit: impl FnMut(Word), masks: impl Fn(&[u8; BLOCK]) -> (u64, u64)) {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let mut i = 0;
    // The block at `base` and its masks; `base + BLOCK <= i` for none yet.
    let mut base = 0;
    let (mut word, mut sep) = (0u64, 0u64);
    let mut fresh = false;
    while i < n {
        // A word found at block offset 32 or more would often reach the block's end:
        // classify from here again.
        if !fresh || i - base >= BLOCK / 2 {
            let Some(block) = bytes.get(i..).and_then(<[u8]>::first_chunk::<BLOCK>) else {
                break;
            };
            (word, sep) = masks(block);
            base = i;
            fresh = true;
        }
        // Separators: `skip` is at most `BLOCK - (i - base)` (the shift brings in zeros).
        let skip = (!(sep >> (i - base))).trailing_zeros() as usize;
        i += skip;
        if i - base >= BLOCK / 2 {
            continue;
        }
        let o = i - base;
        let len = (!(word >> o)).trailing_zeros() as usize;
        if len > 0 && o + len < BLOCK && (sep >> (o + len)) & 1 == 1 {
            emit(Word { start: i, end: i + len, dirty: false, joined: false });
            i += len;
        } else {
            i = scan_step(text, i, &mut emit, word_run_end);
        }
    }
    while i < n {
        i = scan_step(text, i, &mut emit, word_run_end);
    }
}

/// The two masks of [`scan_blocks`] (ASCII letters and digits; plain separators) of a
/// 64-byte block: SSE2 (every x86-64 processor has it), else [`block_masks_portable`].
#[inline]
fn block_masks(block: &[u8; BLOCK]) -> (u64, u64) {
    #[cfg(target_arch = "x86_64")]
    {
        #[allow(unsafe_code)]
        // SAFETY: SSE2, the one target feature `block_masks_sse2` enables, is part of
        // the x86-64 baseline: every processor this code runs on has it.
        unsafe {
            block_masks_sse2(block)
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        block_masks_portable(block)
    }
}

/// [`block_masks`] a byte at a time from [`CLASS`].
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn block_masks_portable(block: &[u8; BLOCK]) -> (u64, u64) {
    let (mut word, mut sep) = (0u64, 0u64);
    for (k, &b) in block.iter().enumerate() {
        word |= u64::from(CLASS[b as usize] == WORD) << k;
        sep |= u64::from(CLASS[b as usize] == SEP && b < 0x80) << k;
    }
    (word, sep)
}

/// Bytes `lo..=hi` (both under 0x80) of `v` set to 0xFF, the others to 0. Bytes
/// 0x80..=0xFF are negative as `i8`, so the signed comparisons leave them out.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
fn bytes_between(v: std::arch::x86_64::__m128i, lo: u8, hi: u8) -> std::arch::x86_64::__m128i {
    use std::arch::x86_64::{_mm_and_si128, _mm_cmpgt_epi8, _mm_cmplt_epi8, _mm_set1_epi8};
    _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(lo as i8 - 1)), _mm_cmplt_epi8(v, _mm_set1_epi8(hi as i8 + 1)))
}

/// [`block_masks`] with SSE2, 16 bytes per step.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
fn block_masks_sse2(block: &[u8; BLOCK]) -> (u64, u64) {
    use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8};
    let (mut word, mut sep) = (0u64, 0u64);
    for (k, chunk) in block.chunks_exact(16).enumerate() {
        #[allow(unsafe_code)]
        // SAFETY: `chunk` is 16 readable bytes (`chunks_exact(16)`), and `_mm_loadu_si128`
        // reads 16 bytes from any address (no alignment needed). SSE2 is part of x86-64.
        let v = unsafe { _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>()) };
        let letter = bytes_between(_mm_or_si128(v, _mm_set1_epi8(0x20)), b'a', b'z');
        let alnum = _mm_or_si128(letter, bytes_between(v, b'0', b'9'));
        let apostrophe = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\'' as i8));
        let alnum_bits = _mm_movemask_epi8(alnum) as u32 & 0xFFFF;
        // Not a plain separator: a letter, digit, apostrophe or non-ASCII byte.
        let other = _mm_movemask_epi8(_mm_or_si128(alnum, apostrophe)) as u32 | _mm_movemask_epi8(v) as u32;
        word |= u64::from(alnum_bits) << (16 * k);
        sep |= u64::from(!other & 0xFFFF) << (16 * k);
    }
    (word, sep)
}

/// The general loop of [`scan`], one [`scan_step`] at a time, with the function that
/// skips a run of `WORD` and `CYR` bytes as a parameter, so tests can check the fast
/// paths against the byte-by-byte one.
#[cfg(test)]
fn scan_with(text: &str, mut emit: impl FnMut(Word), run_end: impl Fn(&[u8], usize) -> usize + Copy) {
    let mut i = 0;
    while i < text.len() {
        i = scan_step(text, i, &mut emit, run_end);
    }
}

/// One step of [`scan_with`] at byte `i` (a character boundary): the word starting there,
/// or past the character that is none; returns where to continue.
#[inline]
fn scan_step(text: &str, i: usize, emit: &mut impl FnMut(Word), run_end: impl Fn(&[u8], usize) -> usize) -> usize {
    match CLASS[text.as_bytes()[i] as usize] {
        WORD | CYR => scan_word(text, i, emit, run_end),
        OTHER => {
            let Some((c, len)) = decode(text, i) else {
                // Unreachable for a `str`; step one byte so the loop always ends.
                return i + 1;
            };
            match classify(c) {
                CharClass::Word => scan_word(text, i, emit, run_end),
                CharClass::Single => scan_single(text, i, len, emit),
                _ => i + len,
            }
        }
        _ => i + 1,
    }
}

/// Fewest single letters in a row, one separator apart, that are joined into one word.
pub(crate) const MIN_SPACED_LETTERS: usize = 4;

/// Like [`scan`], but joins letters spaced apart (`p l a g i a r i s m`, `p.l.a.g`):
/// at least [`MIN_SPACED_LETTERS`] one-letter words in a row, each one separator
/// character (the same one, not a line break) after the previous, become one word with
/// `joined` set. Writing a word letter by letter is a trick to hide it from a checker;
/// real text has no runs of four one-letter words, apart from rare lists of variables.
#[inline]
pub(crate) fn scan_joining(text: &str, emit: impl FnMut(Word)) {
    scan_joining_with::<true>(text, emit);
}

/// [`scan_joining`]; without `FAST`, every word goes through [`Joiner::word`] (for tests).
#[inline]
fn scan_joining_with<const FAST: bool>(text: &str, mut emit: impl FnMut(Word)) {
    let mut joiner = Joiner { run: Vec::new(), separator: None };
    scan(text, |w| {
        // The common case, kept small so it inlines into the scan loop: no run of one-letter
        // words pending (then `separator` is `None` too) and `w` does not start one.
        if FAST && joiner.run.is_empty() && !is_one_letter_word(text, w) {
            emit(w);
        } else {
            joiner.word(text, w, &mut emit);
        }
    });
    joiner.flush(&mut emit);
}

/// The state of [`scan_joining`]: the one-letter words in a row so far and the separator
/// between them (`None` while `run` has fewer than two words).
struct Joiner {
    run: Vec<Word>,
    separator: Option<char>,
}

impl Joiner {
    /// Takes the next word `w` of `text`.
    #[inline(never)]
    fn word(&mut self, text: &str, w: Word, emit: &mut impl FnMut(Word)) {
        if !is_one_letter_word(text, w) {
            self.flush(emit);
            emit(w);
            return;
        }
        if let Some(last) = self.run.last() {
            let gap = &text[last.end..w.start];
            let mut chars = gap.chars();
            let joinable = match (chars.next(), chars.next()) {
                (Some(c), None) => c != '\n' && c != '\r' && self.separator.is_none_or(|s| s == c),
                _ => false,
            };
            if joinable {
                self.separator = gap.chars().next();
                self.run.push(w);
                return;
            }
            self.flush(emit);
        }
        self.run.push(w);
    }

    /// Emits the words of the run (joined into one if there are enough) and empties it.
    fn flush(&mut self, emit: &mut impl FnMut(Word)) {
        if self.run.len() >= MIN_SPACED_LETTERS {
            let (first, last) = (self.run[0], self.run[self.run.len() - 1]);
            emit(Word { start: first.start, end: last.end, dirty: true, joined: true });
        } else {
            self.run.iter().for_each(|w| emit(*w));
        }
        self.run.clear();
        self.separator = None;
    }
}

/// [`is_one_letter`] of a word [`scan`] found, without decoding in the common cases: a
/// clean word (no ignorables) that starts with an ASCII byte is one letter only if it
/// is that one ASCII letter, and one of more than four bytes has at least two
/// characters.
#[inline]
fn is_one_letter_word(text: &str, w: Word) -> bool {
    if !w.dirty {
        let first = text.as_bytes()[w.start];
        if first.is_ascii() {
            return w.end - w.start == 1 && first.is_ascii_alphabetic();
        }
        if w.end - w.start > 4 {
            return false;
        }
    }
    is_one_letter(&text[w.start..w.end])
}

/// Whether `word` is exactly one alphabetic character (ignorables aside) of a script
/// that writes words with spaces (not a Han or kana character, a word by itself).
#[inline]
fn is_one_letter(word: &str) -> bool {
    let mut letters = word.chars().filter(|c| !is_ignorable(*c));
    matches!((letters.next(), letters.next()), (Some(c), None) if c.is_alphabetic() && !is_single(c))
}

/// Writes the letters of a joined word (see [`scan_joining`]) into `out`, dropping the
/// separators between them, then cleans it like [`clean_into`].
pub(crate) fn join_into(word: &str, out: &mut String) {
    let letters: String = word.chars().filter(|c| classify(*c) == CharClass::Word).collect();
    clean_into(&letters, out);
}

/// Scans the word starting at `start` (a word character); returns where to continue.
#[inline]
fn scan_word(text: &str, start: usize, emit: &mut impl FnMut(Word), run_end: impl Fn(&[u8], usize) -> usize) -> usize {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let mut i = start;
    let mut end = start;
    let mut dirty = false;
    loop {
        let run = i;
        i = run_end(bytes, i);
        if i > run {
            end = i;
        }
        if i >= n {
            break;
        }
        let b = bytes[i];
        if b == b'\'' {
            if word_char_at(text, i + 1) {
                i += 1;
                continue;
            }
            break;
        }
        if b < 0x80 {
            break;
        }
        let Some((c, len)) = decode(text, i) else {
            break;
        };
        match classify(c) {
            CharClass::Word => {
                i += len;
                end = i;
            }
            CharClass::Ignorable => {
                dirty = true;
                i += len;
            }
            CharClass::Apostrophe if word_char_at(text, i + len) => {
                dirty = true;
                i += len;
            }
            _ => break,
        }
    }
    emit(Word { start, end, dirty, joined: false });
    i
}

/// Where the run of `WORD` and `CYR` bytes (ASCII letters and digits, two-byte Cyrillic
/// letters) starting at `i` (a character boundary) ends.
#[inline]
fn word_run_end(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() {
        match CLASS[bytes[i] as usize] {
            WORD => i = ascii_run_end(bytes, i + 1),
            CYR => i = cyrillic_run_end(bytes, i + 2),
            _ => break,
        }
    }
    i
}

/// `u64` with every byte set to `b`.
const fn bytes8(b: u8) -> u64 {
    u64::from_ne_bytes([b; 8])
}

/// How many of the first bytes of `chunk` (eight bytes read little-endian) are ASCII
/// letters or digits (`CLASS` = `WORD`), 0 to 8: a branch-free SWAR test, so a word's
/// end costs one test instead of a mispredicted branch per byte.
#[inline]
fn ascii_alnum_prefix(chunk: u64) -> usize {
    const HIGH: u64 = bytes8(0x80);
    // Seven low bits of each byte; the sums below stay under 0x100, so no byte carries
    // into the next, and bit 7 of `x + (0x80 - lo)` says `x >= lo`.
    let x = chunk & bytes8(0x7F);
    let lower = x | bytes8(0x20);
    let letter = lower.wrapping_add(bytes8(0x80 - b'a')) & !lower.wrapping_add(bytes8(0x7F - b'z'));
    let digit = x.wrapping_add(bytes8(0x80 - b'0')) & !x.wrapping_add(bytes8(0x7F - b'9'));
    // Non-ASCII bytes (bit 7 set in `chunk`) are not ASCII letters or digits.
    let alnum = (letter | digit) & !chunk & HIGH;
    (!alnum & HIGH).trailing_zeros() as usize / 8
}

/// Where the run of ASCII letters and digits starting at `i` ends.
#[inline]
fn ascii_run_end(bytes: &[u8], mut i: usize) -> usize {
    while let Some(chunk) = bytes.get(i..).and_then(<[u8]>::first_chunk::<8>) {
        let k = ascii_alnum_prefix(u64::from_le_bytes(*chunk));
        i += k;
        if k < 8 {
            return i;
        }
    }
    while i < bytes.len() && CLASS[bytes[i] as usize] == WORD {
        i += 1;
    }
    i
}

/// How many of the first four two-byte pairs of `chunk` (read little-endian) are a
/// lead byte 0xD0 or 0xD1 and a continuation byte: Cyrillic letters U+0400..U+047F.
#[inline]
fn cyrillic_pair_prefix(chunk: u64) -> usize {
    let diff = (chunk & 0xC0FE_C0FE_C0FE_C0FE) ^ 0x80D0_80D0_80D0_80D0;
    diff.trailing_zeros() as usize / 16
}

/// Where the run of two-byte Cyrillic letters (lead byte 0xD0 or 0xD1) starting at `i`
/// (a character boundary) ends.
#[inline]
fn cyrillic_run_end(bytes: &[u8], mut i: usize) -> usize {
    while let Some(chunk) = bytes.get(i..).and_then(<[u8]>::first_chunk::<8>) {
        let k = cyrillic_pair_prefix(u64::from_le_bytes(*chunk));
        i += 2 * k;
        if k < 4 {
            return i;
        }
    }
    // In a `str` a lead byte is always followed by its continuation byte.
    while i < bytes.len() && CLASS[bytes[i] as usize] == CYR {
        i += 2;
    }
    i
}

/// Scans a [`CharClass::Single`] character at `start` of length `len` with the combining
/// marks (and ignorables) that follow it; returns where to continue.
fn scan_single(text: &str, start: usize, len: usize, emit: &mut impl FnMut(Word)) -> usize {
    let mut i = start + len;
    let mut end = i;
    let mut dirty = false;
    while let Some((c, l)) = decode(text, i) {
        if is_ignorable(c) {
            dirty = true;
        } else if is_combining_mark(c) || matches!(c, '\u{FF9E}' | '\u{FF9F}') {
            end = i + l;
        } else {
            break;
        }
        i += l;
    }
    emit(Word { start, end, dirty, joined: false });
    i
}

/// Writes `word` into `out` without ignorable characters and with every apostrophe
/// look-alike replaced by ASCII `'`.
pub(crate) fn clean_into(word: &str, out: &mut String) {
    out.clear();
    for c in word.chars() {
        if is_apostrophe(c) || c == '\u{02BC}' {
            out.push('\'');
        } else if !is_ignorable(c) {
            out.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        scan(text, |w| out.push(&text[w.start..w.end]));
        out
    }

    #[test]
    fn splits_on_whitespace_and_punctuation() {
        assert_eq!(words("Hello,  world!\nNew-line\ttab"), ["Hello", "world", "New", "line", "tab"]);
        assert_eq!(words("Привет, мир! Ёлка."), ["Привет", "мир", "Ёлка"]);
        assert!(words("").is_empty());
        assert!(words(" \n\t ,.;!? — «»").is_empty());
    }

    #[test]
    fn ignorables_join_and_are_trimmed_from_spans() {
        assert_eq!(words("pla\u{200B}giarism"), ["pla\u{200B}giarism"]);
        assert_eq!(words("\u{200B}word\u{FEFF} x"), ["word", "x"]);
        assert_eq!(words("при\u{00AD}мер"), ["при\u{00AD}мер"]);
        let mut dirty = Vec::new();
        scan("a\u{2060}b c", |w| dirty.push(w.dirty));
        assert_eq!(dirty, [true, false]);
    }

    #[test]
    fn apostrophes_between_letters_join() {
        assert_eq!(
            words("don't O’Neil 'quoted' students' rock'n'roll"),
            ["don't", "O’Neil", "quoted", "students", "rock'n'roll"]
        );
        assert_eq!(words("a ' b"), ["a", "b"]);
    }

    #[test]
    fn cjk_characters_are_single_words() {
        assert_eq!(words("日本語のテキスト"), ["日", "本", "語", "の", "テ", "キ", "ス", "ト"]);
        assert_eq!(words("abc漢字def"), ["abc", "漢", "字", "def"]);
        // A combining voiced mark stays with its kana.
        assert_eq!(words("か\u{3099}き"), ["か\u{3099}", "き"]);
    }

    #[test]
    fn emoji_and_symbols_separate() {
        assert_eq!(words("fire🔥water ©2024 x²"), ["fire", "water", "2024", "x²"]);
    }

    #[test]
    fn combining_marks_stay_inside_words() {
        assert_eq!(words("cafe\u{0301} за\u{0301}мок"), ["cafe\u{0301}", "за\u{0301}мок"]);
    }

    /// The run loop before the SWAR fast paths: one byte class at a time.
    fn word_run_end_bytewise(bytes: &[u8], mut i: usize) -> usize {
        while i < bytes.len() {
            match CLASS[bytes[i] as usize] {
                WORD => i += 1,
                CYR => i += 2,
                _ => break,
            }
        }
        i
    }

    fn all_words(text: &str, run_end: impl Fn(&[u8], usize) -> usize + Copy) -> Vec<Word> {
        let mut out = Vec::new();
        scan_with(text, |w| out.push(w), run_end);
        out
    }

    #[test]
    fn swar_prefixes() {
        let chunk = |s: &[u8; 8]| u64::from_le_bytes(*s);
        assert_eq!(ascii_alnum_prefix(chunk(b"abcdefgh")), 8);
        assert_eq!(ascii_alnum_prefix(chunk(b"AZaz09Zz")), 8);
        assert_eq!(ascii_alnum_prefix(chunk(b"abc defg")), 3);
        assert_eq!(ascii_alnum_prefix(chunk(b"@[`{/:az")), 0);
        assert_eq!(ascii_alnum_prefix(chunk(b"a\xd0\xb0bcdef")), 1);
        for b in 0..=255u8 {
            let expected = usize::from(CLASS[b as usize] == WORD);
            assert_eq!(ascii_alnum_prefix(u64::from(b) | (0x20 << 8)), expected, "{b:#x}");
        }
        let ru = "абвгдеёж".as_bytes();
        assert_eq!(cyrillic_pair_prefix(u64::from_le_bytes(*ru.first_chunk::<8>().unwrap())), 4);
        assert_eq!(cyrillic_pair_prefix(u64::from_le_bytes(*"аб cdef".as_bytes().first_chunk::<8>().unwrap())), 2);
    }

    /// Fragments that stress the run loop: runs longer and shorter than eight bytes,
    /// every script switch, the characters that end or continue a word.
    const FRAGMENTS: &[&str] = &[
        "a",
        "Z",
        "0",
        "9",
        "abcdefgh",
        "abcdefghijklmnop",
        "ж",
        "Ё",
        "ѐѿ",
        "привет",
        "Привет",
        "ҀҊ",
        "é",
        "e\u{301}",
        "'",
        "’",
        "-",
        " ",
        "\n",
        ".",
        "@",
        "[",
        "`",
        "{",
        "/",
        ":",
        "\u{200B}",
        "\u{AD}",
        "東",
        "🔥",
        "ß",
        "ǅ",
        "x²",
        "\u{3164}",
        "١",
        "Ⅻ",
        "\u{7F}",
        "\u{80}",
        "\u{FF}",
        "\u{0400}",
        "\u{047F}",
        "\u{0480}",
        "\u{04FF}",
    ];

    /// The fragments `parts` names, one after the other, then `noise`.
    fn fragments_text(parts: &[usize], noise: &str) -> String {
        let mut text: String = parts.iter().map(|&i| FRAGMENTS[i]).collect();
        text.push_str(noise);
        text
    }

    proptest::proptest! {
        #[test]
        fn fast_run_loop_finds_the_same_words(
            parts in proptest::collection::vec(0..FRAGMENTS.len(), 0..60),
            noise in "\\PC{0,40}",
        ) {
            let text = fragments_text(&parts, &noise);
            proptest::prop_assert_eq!(all_words(&text, word_run_end), all_words(&text, word_run_end_bytewise));
        }

        #[test]
        fn one_letter_shortcut_agrees(
            parts in proptest::collection::vec(0..FRAGMENTS.len(), 0..60),
            noise in "\\PC{0,40}",
        ) {
            let text = fragments_text(&parts, &noise);
            for w in all_words(&text, word_run_end) {
                proptest::prop_assert_eq!(is_one_letter_word(&text, w), is_one_letter(&text[w.start..w.end]));
            }
        }

        #[test]
        fn fast_run_loop_on_any_string(text in proptest::prelude::any::<String>()) {
            proptest::prop_assert_eq!(all_words(&text, word_run_end), all_words(&text, word_run_end_bytewise));
        }
    }

    fn block_words(text: &str, masks: impl Fn(&[u8; BLOCK]) -> (u64, u64)) -> Vec<Word> {
        let mut out = Vec::new();
        scan_blocks(text, |w| out.push(w), masks);
        out
    }

    /// Text long enough for whole blocks: the fragments `parts` names, repeated.
    fn long_text(parts: &[usize], noise: &str, times: usize) -> String {
        let mut text = String::new();
        for _ in 0..times {
            text.push_str(&fragments_text(parts, noise));
        }
        text
    }

    #[test]
    fn block_masks_agree_with_the_class_table() {
        let mut block = [0u8; BLOCK];
        for start in (0..256).step_by(BLOCK) {
            block.iter_mut().enumerate().for_each(|(k, b)| *b = (start + k) as u8);
            assert_eq!(block_masks(&block), block_masks_portable(&block), "{start}");
        }
        let text =
            "Hello, world! don't x2 \u{e9}t\u{e9} \u{43f}\u{440}\u{438} a'b [z] {0} @`/: and more words, past 64 bytes";
        let block: [u8; BLOCK] = *text.as_bytes().first_chunk().unwrap();
        assert_eq!(block_masks(&block), block_masks_portable(&block));
    }

    proptest::proptest! {
        #[test]
        fn block_scan_finds_the_same_words(
            parts in proptest::collection::vec(0..FRAGMENTS.len(), 0..60),
            noise in "\\PC{0,40}",
            times in 1..6usize,
        ) {
            let text = long_text(&parts, &noise, times);
            let expected = all_words(&text, word_run_end_bytewise);
            proptest::prop_assert_eq!(&block_words(&text, block_masks), &expected);
            proptest::prop_assert_eq!(&block_words(&text, block_masks_portable), &expected);
        }

        #[test]
        fn block_scan_on_ascii_prose(text in "([a-zA-Z0-9]{1,12}[ ,.;'\n\"()-]{1,3}){0,80}") {
            let expected = all_words(&text, word_run_end_bytewise);
            proptest::prop_assert_eq!(&block_words(&text, block_masks), &expected);
            proptest::prop_assert_eq!(&block_words(&text, block_masks_portable), &expected);
        }

        #[test]
        fn block_scan_on_any_string(text in "\\PC{0,300}") {
            let expected = all_words(&text, word_run_end_bytewise);
            proptest::prop_assert_eq!(&block_words(&text, block_masks), &expected);
            proptest::prop_assert_eq!(&block_words(&text, block_masks_portable), &expected);
        }

        #[test]
        fn joining_shortcut_agrees(
            parts in proptest::collection::vec(0..FRAGMENTS.len(), 0..60),
            spaced in "([a-zA-Z\u{430}-\u{44f}\u{e9}][ .\\-_/\n]{1,2}){0,12}",
            noise in "\\PC{0,40}",
        ) {
            let text = format!("{}{spaced}{}", fragments_text(&parts, &noise), fragments_text(&parts, ""));
            let (mut fast, mut general) = (Vec::new(), Vec::new());
            scan_joining_with::<true>(&text, |w| fast.push(w));
            scan_joining_with::<false>(&text, |w| general.push(w));
            proptest::prop_assert_eq!(fast, general);
        }

        #[test]
        fn block_masks_on_any_bytes(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), BLOCK)) {
            let block: [u8; BLOCK] = *bytes.first_chunk().unwrap();
            proptest::prop_assert_eq!(block_masks(&block), block_masks_portable(&block));
        }
    }

    #[test]
    fn clean_removes_ignorables_and_canonicalises_apostrophes() {
        let mut out = String::new();
        clean_into("O’Ne\u{200D}il", &mut out);
        assert_eq!(out, "O'Neil");
    }
}
