//! The normalizer: a text to tokens, each word through the word caches
//! (`word_cache.rs`) and, the first time it is seen, the per-word rules (`rules.rs`); the
//! document language settled as far as the terms need it.

use std::sync::Arc;

use crate::config::NormalizerConfig;
use crate::rules::Rules;
use crate::stem::{self, ENGLISH_TAG, LATIN_STEMMERS, Language, QuickCounts};
use crate::tokenizer::{self, CharClass};
use crate::word_cache::{HotCache, WordCache, Words};
use crate::{Error, Normalized, Result, Span};

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
        let rules = Rules::new(config)?;
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
        let mut words = Words::new(
            text,
            latin,
            rules,
            &mut caches[latin],
            hot[latin].get_or_insert_with(HotCache::new),
            key,
            sample,
        );
        tokenizer::scan_joining(text, |w| words.push(w, &mut out));
        words.flush(&mut out);
        (out, words.quick())
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

#[cfg(test)]
mod tests {
    use super::*;
    use xxhash_rust::xxh3::xxh3_64;

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

    #[test]
    fn config_round_trips_through_serde_defaults() {
        let config = NormalizerConfig::default();
        assert!(config.stop_words && config.stemming && config.fold_confusables && config.drop_numbers);
        assert!(config.language.is_none() && config.extra_stop_words.is_empty());
    }
}
