//! Stop-word lists.
//!
//! The built-in lists are curated function words kept in the repository
//! (`stopwords/en.txt`, `stopwords/ru.txt`: one word a line, `#` starts a comment) and
//! compiled in. A Cyrillic word is checked against the Russian list; a Latin word
//! against the English list when the document's Latin-script language is English.
//! Words are compared after NFKC, look-alike folding, lowercasing and `ё` -> `е`, and
//! before stemming.

use std::sync::LazyLock;

use foldhash::HashSet;

/// The built-in English list.
pub const ENGLISH: &str = include_str!("../stopwords/en.txt");
/// The built-in Russian list.
pub const RUSSIAN: &str = include_str!("../stopwords/ru.txt");

/// The built-in English set, built once per process. (The files are already canonical:
/// lowercase, `е` for `ё`, ASCII apostrophes; a test checks it.)
pub(crate) static ENGLISH_SET: LazyLock<StopSet> = LazyLock::new(|| StopSet::from_list(ENGLISH));
/// The built-in Russian set.
pub(crate) static RUSSIAN_SET: LazyLock<StopSet> = LazyLock::new(|| StopSet::from_list(RUSSIAN));

/// The words of a list file: trimmed, without blank lines and `#` comments.
pub(crate) fn parse(list: &str) -> impl Iterator<Item = &str> {
    list.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// A set of lowercase stop words.
#[derive(Debug, Clone, Default)]
pub(crate) struct StopSet {
    /// Words of up to [`INLINE`] bytes, packed into one integer each (see [`pack`]): a
    /// look-up hashes and compares one number, no string behind a pointer.
    short: HashSet<u128>,
    /// Longer words.
    long: HashSet<Box<str>>,
    /// Length in bytes of the longest word.
    longest: usize,
}

/// Longest word kept packed.
const INLINE: usize = 15;

/// A word of up to [`INLINE`] bytes as one number: its bytes in the low bytes, its
/// length in the top byte (so `a` and `a\0` differ).
#[inline]
fn pack(bytes: impl ExactSizeIterator<Item = u8>) -> u128 {
    // Built in a register: byte stores into an array read back as one integer would
    // stall on store forwarding.
    let mut packed = (bytes.len() as u128) << (8 * INLINE);
    for (i, b) in bytes.enumerate() {
        packed |= u128::from(b) << (8 * i);
    }
    packed
}

impl StopSet {
    /// The words of a list file.
    fn from_list(list: &str) -> Self {
        let mut set = Self::default();
        parse(list).for_each(|w| set.insert(w));
        set
    }

    /// Adds one canonical (already lowercased) word.
    pub(crate) fn insert(&mut self, word: &str) {
        self.longest = self.longest.max(word.len());
        if word.len() <= INLINE {
            self.short.insert(pack(word.bytes()));
        } else {
            self.long.insert(word.into());
        }
    }

    /// Whether `word` is in the set.
    pub(crate) fn contains(&self, word: &str) -> bool {
        if word.len() <= INLINE {
            self.short.contains(&pack(word.bytes()))
        } else {
            word.len() <= self.longest && self.long.contains(word)
        }
    }

    /// Whether the ASCII lowercase form of `word` is in the set (`contains` of
    /// `word.to_ascii_lowercase()`), without allocating.
    pub(crate) fn contains_ascii_lowercase(&self, word: &str) -> bool {
        if word.len() <= INLINE {
            self.short.contains(&pack(word.bytes().map(|b| b.to_ascii_lowercase())))
        } else {
            word.len() <= self.longest && self.long.contains(word.to_ascii_lowercase().as_str())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_and_long_words() {
        let mut set = StopSet::default();
        for w in ["a", "the", "fifteen-bytes-x", "sixteen-bytes-xx", "которые"] {
            set.insert(w);
        }
        for w in ["a", "the", "fifteen-bytes-x", "sixteen-bytes-xx", "которые"] {
            assert!(set.contains(w), "{w}");
        }
        for w in ["", "a\0", "\0a", "th", "thee", "fifteen-bytes-", "sixteen-bytes-x", "sixteen-bytes-xxx", "котор"]
        {
            assert!(!set.contains(w), "{w:?}");
        }
        assert!(set.contains_ascii_lowercase("THE") && set.contains_ascii_lowercase("Sixteen-Bytes-XX"));
        assert!(!set.contains_ascii_lowercase("THEE"));
    }

    proptest::proptest! {
        #[test]
        fn contains_agrees_with_a_plain_set(words in proptest::collection::vec("[a-cа-в'\0]{0,18}", 0..20), probe in "[a-cA-Cа-в'\0]{0,18}") {
            let mut set = StopSet::default();
            words.iter().for_each(|w| set.insert(w));
            let plain: std::collections::HashSet<&str> = words.iter().map(String::as_str).collect();
            let shifted: Vec<String> = words.iter().map(|w| w.to_ascii_uppercase()).collect();
            for p in words.iter().chain(&shifted).chain([&probe]) {
                proptest::prop_assert_eq!(set.contains(p), plain.contains(p.as_str()));
                let lower = p.to_ascii_lowercase();
                proptest::prop_assert_eq!(set.contains_ascii_lowercase(p), plain.contains(lower.as_str()));
            }
        }
    }

    #[test]
    fn lists_are_lowercase_single_words() {
        for (name, list) in [("en", ENGLISH), ("ru", RUSSIAN)] {
            let words: Vec<&str> = parse(list).collect();
            assert!((150..=280).contains(&words.len()), "{name}: {}", words.len());
            for w in &words {
                assert_eq!(*w, w.to_lowercase(), "{name}: {w}");
                assert!(!w.contains('ё'), "{name}: {w}");
                assert!(w.chars().all(|c| c.is_alphabetic() || c == '\''), "{name}: {w}");
            }
            let mut sorted = words.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), words.len(), "{name} has duplicates");
        }
    }
}
