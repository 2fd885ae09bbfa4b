//! Byte offset <-> character offset conversion.

use std::ops::Range;

use crate::Span;

/// Bytes between two checkpoints.
const BLOCK: usize = 256;

/// Converts byte offsets of a text to character (Unicode scalar value) offsets and back.
///
/// Tokens carry byte [`Span`]s; evaluation (PAN) and reports count characters. The
/// index keeps one checkpoint (characters before it) every 256 bytes, so a conversion
/// counts at most 256 bytes (byte -> char) or binary-searches the checkpoints and then
/// counts at most 256 bytes (char -> byte). An ASCII text converts for free. Memory:
/// one `usize` per 256 bytes of text.
///
/// ```
/// use tessera_normalize::CharIndex;
/// let text = "ёж и cat";
/// let index = CharIndex::new(text);
/// assert_eq!(index.byte_to_char(5), 3); // "и" starts at byte 5, char 3
/// assert_eq!(index.char_to_byte(3), 5);
/// assert_eq!(index.char_len(), 8);
/// ```
#[derive(Debug, Clone)]
pub struct CharIndex<'t> {
    text: &'t [u8],
    char_len: usize,
    /// `checkpoints[k]`: characters in `text[..k * BLOCK]`. Empty for ASCII texts.
    checkpoints: Vec<usize>,
}

/// Whether `b` starts a UTF-8 character (is not a continuation byte).
#[inline]
fn is_char_start(b: u8) -> bool {
    (b as i8) >= -0x40
}

#[inline]
fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| is_char_start(b)).count()
}

impl<'t> CharIndex<'t> {
    /// Indexes `text` (one pass over its bytes).
    pub fn new(text: &'t str) -> Self {
        let bytes = text.as_bytes();
        if text.is_ascii() {
            return Self { text: bytes, char_len: bytes.len(), checkpoints: Vec::new() };
        }
        let mut checkpoints = Vec::with_capacity(bytes.len() / BLOCK + 1);
        let mut chars = 0;
        checkpoints.push(0);
        for block in bytes.chunks(BLOCK) {
            chars += count_chars(block);
            checkpoints.push(chars);
        }
        Self { text: bytes, char_len: chars, checkpoints }
    }

    /// Length of the text in bytes.
    pub fn byte_len(&self) -> usize {
        self.text.len()
    }

    /// Length of the text in characters.
    pub fn char_len(&self) -> usize {
        self.char_len
    }

    /// The character offset of byte offset `byte`: the number of characters that start
    /// before it. On a character boundary that is the index of the character starting
    /// there; inside a character it is the index of the next one. Offsets past the end
    /// give [`char_len`](Self::char_len).
    pub fn byte_to_char(&self, byte: usize) -> usize {
        let byte = byte.min(self.text.len());
        if self.checkpoints.is_empty() {
            return byte;
        }
        let block = byte / BLOCK;
        let base = self.checkpoints.get(block).copied().unwrap_or(self.char_len);
        base + count_chars(&self.text[block * BLOCK..byte])
    }

    /// The byte offset where character `ch` starts; offsets past the end give
    /// [`byte_len`](Self::byte_len).
    pub fn char_to_byte(&self, ch: usize) -> usize {
        if ch >= self.char_len {
            return self.text.len();
        }
        if self.checkpoints.is_empty() {
            return ch;
        }
        // The last block whose checkpoint is <= ch; block 0 always qualifies.
        let block = self.checkpoints.partition_point(|&c| c <= ch).saturating_sub(1);
        let mut count = self.checkpoints[block];
        for (i, &b) in self.text[block * BLOCK..].iter().enumerate() {
            if is_char_start(b) {
                if count == ch {
                    return block * BLOCK + i;
                }
                count += 1;
            }
        }
        self.text.len()
    }

    /// The character range of a byte span.
    pub fn char_range(&self, span: Span) -> Range<usize> {
        self.byte_to_char(span.start)..self.byte_to_char(span.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn naive_byte_to_char(text: &str, byte: usize) -> usize {
        text.char_indices().take_while(|(i, _)| *i < byte).count()
    }

    #[test]
    fn ascii_is_identity() {
        let index = CharIndex::new("hello world");
        assert_eq!(index.byte_to_char(4), 4);
        assert_eq!(index.char_to_byte(4), 4);
        assert_eq!(index.byte_to_char(100), 11);
        assert_eq!(index.char_to_byte(100), 11);
    }

    #[test]
    fn empty_text() {
        let index = CharIndex::new("");
        assert_eq!((index.char_len(), index.byte_len()), (0, 0));
        assert_eq!(index.byte_to_char(0), 0);
        assert_eq!(index.char_to_byte(0), 0);
    }

    #[test]
    fn inside_a_character_rounds_up() {
        let index = CharIndex::new("жук");
        assert_eq!(index.byte_to_char(1), 1);
        assert_eq!(index.byte_to_char(2), 1);
        assert_eq!(index.char_range(Span { start: 2, end: 6 }), 1..3);
    }

    #[test]
    fn long_mixed_text_matches_naive() {
        let text = "Привет, world! 日本語 🔥 ".repeat(100);
        let index = CharIndex::new(&text);
        assert_eq!(index.char_len(), text.chars().count());
        for (ci, (bi, _)) in text.char_indices().enumerate() {
            assert_eq!(index.byte_to_char(bi), ci);
            assert_eq!(index.char_to_byte(ci), bi);
        }
    }

    proptest! {
        #[test]
        fn round_trips_and_is_monotonic(text in "\\PC{0,600}", probes in proptest::collection::vec(any::<usize>(), 1..20)) {
            let index = CharIndex::new(&text);
            prop_assert_eq!(index.char_len(), text.chars().count());
            let mut last = 0;
            for b in 0..=text.len() {
                let c = index.byte_to_char(b);
                prop_assert!(c >= last);
                last = c;
                if text.is_char_boundary(b) {
                    prop_assert_eq!(c, naive_byte_to_char(&text, b));
                    prop_assert_eq!(index.char_to_byte(c), b);
                }
            }
            for p in probes {
                let c = p % (index.char_len() + 2);
                let b = index.char_to_byte(c);
                prop_assert!(text.is_char_boundary(b));
                prop_assert_eq!(index.byte_to_char(b), c.min(index.char_len()));
            }
        }
    }
}
