//! Made-up words and texts for tests: none is a real word (so stop words, stemming and
//! WordNet never join two texts) and two texts from different seeds share no phrase, yet
//! the same seed gives the same words on every run and machine.
//!
//! Two kinds: [`words`] (letters a-z drawn from the bits of a [`XorShift64`] value, a
//! length from a range) and [`syllable_words`] (three consonant-vowel syllables, which
//! read like words and stem like them).

/// Marsaglia's xorshift64 (shifts 13, 7, 17): the generator behind the made-up words,
/// and a quick source of reproducible bytes.
#[derive(Debug, Clone)]
pub struct XorShift64(u64);

impl XorShift64 {
    /// A generator starting at `state` (which must not be 0: 0 stays 0).
    pub fn new(state: u64) -> Self {
        Self(state)
    }

    /// The next state.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// `n` made-up words of `min_len` to `min_len + spread - 1` letters a-z from `seed` (any
/// value, 0 included). A word's letters are 5-bit slices of one generator value, so
/// `min_len + spread - 1` is at most 13.
pub fn words(seed: u64, n: usize, min_len: usize, spread: u64) -> Vec<String> {
    assert!(spread > 0 && min_len + spread as usize <= 14, "words of at most 13 letters");
    let mut rng = XorShift64::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    (0..n)
        .map(|_| {
            let x = rng.next_u64();
            letters(x, min_len + (x % spread) as usize)
        })
        .collect()
}

/// [`words`] joined by spaces.
pub fn text(seed: u64, n: usize, min_len: usize, spread: u64) -> String {
    words(seed, n, min_len, spread).join(" ")
}

/// The word of `len` letters (at most 13) spelt by the 5-bit slices of `x`, lowest first.
pub fn letters(x: u64, len: usize) -> String {
    (0..len).map(|k| (b'a' + ((x >> (k * 5)) % 26) as u8) as char).collect()
}

/// Made-up words of three consonant-vowel syllables ("bakolu"), one a call, from the
/// xorshift state `seed` (not 0).
pub fn syllable_words(seed: u64) -> impl FnMut() -> String {
    let mut rng = XorShift64::new(seed);
    move || {
        let x = rng.next_u64();
        let letters = b"bcdfghklmnprstvz";
        let vowels = b"aeiou";
        (0..3)
            .map(|i| {
                format!(
                    "{}{}",
                    letters[(x >> (8 * i)) as usize % 16] as char,
                    vowels[(x >> (8 * i + 4)) as usize % 5] as char
                )
            })
            .collect::<String>()
    }
}

/// Sentences of twelve [`syllable_words`] from `seed`, each ending with a full stop,
/// `between` them: `n` of them a call, the words going on from the last call.
pub fn syllable_sentences(seed: u64, between: &'static str) -> impl FnMut(usize) -> String {
    let mut word = syllable_words(seed);
    move |n| {
        (0..n)
            .map(|_| {
                let words: Vec<String> = (0..12).map(|_| word()).collect();
                format!("{}.", words.join(" "))
            })
            .collect::<Vec<_>>()
            .join(between)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_words() {
        // Pinned: tests depend on these exact texts (their shingles, their sentences).
        assert_eq!(text(1, 4, 3, 6), text(1, 4, 3, 6));
        let w = words(7, 200, 3, 6);
        assert!(w.iter().all(|w| (3..9).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_lowercase())));
        assert_ne!(words(7, 20, 3, 6), words(8, 20, 3, 6));
        let mut s = syllable_sentences(5, " ");
        let two = s(2);
        assert_eq!(two.matches('.').count(), 2);
        assert_eq!(two.split_whitespace().count(), 24);
    }
}
