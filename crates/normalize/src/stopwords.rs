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
    words: HashSet<Box<str>>,
    /// Length in bytes of the longest word.
    longest: usize,
}

/// Longest ASCII word [`StopSet::contains_ascii_lowercase`] lowercases on the stack.
const ASCII_BUFFER: usize = 32;

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
        self.words.insert(word.into());
    }

    /// Whether the ASCII lowercase form of the ASCII `word` is in the set, without
    /// allocating: a word longer than the longest stop word is not looked up.
    pub(crate) fn contains_ascii_lowercase(&self, word: &str) -> bool {
        let bytes = word.as_bytes();
        if bytes.len() > self.longest {
            return false;
        }
        let mut buffer = [0u8; ASCII_BUFFER];
        match buffer.get_mut(..bytes.len()) {
            Some(lower) => {
                for (l, b) in lower.iter_mut().zip(bytes) {
                    *l = b.to_ascii_lowercase();
                }
                std::str::from_utf8(lower).is_ok_and(|l| self.contains(l))
            }
            None => self.contains(&word.to_ascii_lowercase()),
        }
    }

    /// Whether `word` is in the set.
    pub(crate) fn contains(&self, word: &str) -> bool {
        self.words.contains(word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
