//! The per-word rules: a cleaned word's canonical term (NFKC, look-alike letters
//! folded, lower case, numbers and stop words dropped, stemmed) and the [`Entry`] the
//! word caches remember for it. Knows nothing of caches or texts.

use std::borrow::Cow;

use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};
use xxhash_rust::xxh3::xxh3_64;

use crate::config::NormalizerConfig;
use crate::confusables;
use crate::stem::{self, ENGLISH_TAG, QuickWord, Script};
use crate::stopwords::{self, StopSet};
use crate::tokenizer::{self, CharClass};
use crate::{Error, Result};

/// What the cache remembers about one word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Entry {
    pub(crate) term: u64,
    pub(crate) keep: bool,
    pub(crate) folded: bool,
    /// What the quick language check takes from the word (see [`stem::QuickWord`]).
    pub(crate) quick: QuickWord,
}

/// The per-word rules; shared, read-only.
#[derive(Debug)]
pub(crate) struct Rules {
    pub(crate) config: NormalizerConfig,
    pub(crate) english: &'static StopSet,
    pub(crate) russian: &'static StopSet,
    extra: StopSet,
}

impl Rules {
    /// The rules of `config`: its extra stop words checked (one word each) and
    /// canonicalised like text.
    pub(crate) fn new(config: NormalizerConfig) -> Result<Self> {
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
        Ok(Self { config, english: &stopwords::ENGLISH_SET, russian: &stopwords::RUSSIAN_SET, extra })
    }

    /// The cache entry of a cleaned word.
    pub(crate) fn entry(&self, word: &str, latin: usize) -> Entry {
        let quick = stem::quick_word(word, self.english, self.russian, &mut String::new());
        match self.canonical(word, latin) {
            (Some(term), folded) => Entry { term: xxh3_64(term.as_bytes()), keep: true, folded, quick },
            (None, folded) => Entry { term: 0, keep: false, folded, quick },
        }
    }

    /// The canonical term of a cleaned word (no ignorables, ASCII apostrophes), `None`
    /// if dropped; and whether look-alike letters were folded.
    pub(crate) fn canonical(&self, word: &str, latin: usize) -> (Option<String>, bool) {
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
