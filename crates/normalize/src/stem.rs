//! Languages, per-word scripts, Snowball stemming and document language detection.
//!
//! The stemmer of a word follows its script: Cyrillic -> Russian, Greek -> Greek,
//! Arabic -> Arabic, Tamil -> Tamil, Latin -> the document's *Latin language* (the
//! forced language if it is a Latin-script Snowball language, else the detected one if
//! detection is reliable and Snowball has it, else English). Other scripts are not
//! stemmed.

use rust_stemmers::{Algorithm, Stemmer};
use whatlang::Lang;

use crate::latin_lang;
use crate::stopwords::StopSet;
use crate::tokenizer;

/// Bytes of text given to the language detector (taken from the middle of the text).
pub(crate) const DETECT_SAMPLE: usize = 2048;

/// Bytes of text the quick English/Russian check reads (about 120 English words).
const QUICK_SAMPLE: usize = 768;

/// A language we know by its ISO 639-1 code.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Language {
    /// ISO 639-1 code.
    pub code: &'static str,
    /// The detector's name for it.
    pub lang: Lang,
}

/// Every language the detector knows, with its ISO 639-1 code.
const LANGUAGES: &[Language] = &[
    lang("af", Lang::Afr),
    lang("ak", Lang::Aka),
    lang("am", Lang::Amh),
    lang("ar", Lang::Ara),
    lang("az", Lang::Aze),
    lang("be", Lang::Bel),
    lang("bg", Lang::Bul),
    lang("bn", Lang::Ben),
    lang("ca", Lang::Cat),
    lang("cs", Lang::Ces),
    lang("cy", Lang::Cym),
    lang("da", Lang::Dan),
    lang("de", Lang::Deu),
    lang("el", Lang::Ell),
    lang("en", Lang::Eng),
    lang("eo", Lang::Epo),
    lang("es", Lang::Spa),
    lang("et", Lang::Est),
    lang("fa", Lang::Pes),
    lang("fi", Lang::Fin),
    lang("fr", Lang::Fra),
    lang("gu", Lang::Guj),
    lang("he", Lang::Heb),
    lang("hi", Lang::Hin),
    lang("hr", Lang::Hrv),
    lang("hu", Lang::Hun),
    lang("hy", Lang::Hye),
    lang("id", Lang::Ind),
    lang("it", Lang::Ita),
    lang("ja", Lang::Jpn),
    lang("jv", Lang::Jav),
    lang("ka", Lang::Kat),
    lang("km", Lang::Khm),
    lang("kn", Lang::Kan),
    lang("ko", Lang::Kor),
    lang("la", Lang::Lat),
    lang("lt", Lang::Lit),
    lang("lv", Lang::Lav),
    lang("mk", Lang::Mkd),
    lang("ml", Lang::Mal),
    lang("mr", Lang::Mar),
    lang("my", Lang::Mya),
    lang("nb", Lang::Nob),
    lang("ne", Lang::Nep),
    lang("nl", Lang::Nld),
    lang("no", Lang::Nob),
    lang("or", Lang::Ori),
    lang("pa", Lang::Pan),
    lang("pl", Lang::Pol),
    lang("pt", Lang::Por),
    lang("ro", Lang::Ron),
    lang("ru", Lang::Rus),
    lang("si", Lang::Sin),
    lang("sk", Lang::Slk),
    lang("sl", Lang::Slv),
    lang("sn", Lang::Sna),
    lang("sr", Lang::Srp),
    lang("sv", Lang::Swe),
    lang("ta", Lang::Tam),
    lang("te", Lang::Tel),
    lang("th", Lang::Tha),
    lang("tk", Lang::Tuk),
    lang("tl", Lang::Tgl),
    lang("tr", Lang::Tur),
    lang("uk", Lang::Ukr),
    lang("ur", Lang::Urd),
    lang("uz", Lang::Uzb),
    lang("vi", Lang::Vie),
    lang("yi", Lang::Yid),
    lang("zh", Lang::Cmn),
    lang("zu", Lang::Zul),
];

const fn lang(code: &'static str, lang: Lang) -> Language {
    Language { code, lang }
}

/// The language of an ISO 639-1 code (case-insensitive).
pub(crate) fn by_code(code: &str) -> Option<Language> {
    LANGUAGES.iter().find(|l| l.code.eq_ignore_ascii_case(code)).copied()
}

/// The ISO 639-1 code of a detected language.
pub(crate) fn code_of(lang: Lang) -> &'static str {
    LANGUAGES.iter().find(|l| l.lang == lang).map_or_else(|| lang.code(), |l| l.code)
}

/// Latin-script Snowball stemmers; the index is the *Latin language tag*. Tag 0,
/// English, is the fallback.
pub(crate) const LATIN_STEMMERS: &[(Lang, Algorithm)] = &[
    (Lang::Eng, Algorithm::English),
    (Lang::Dan, Algorithm::Danish),
    (Lang::Nld, Algorithm::Dutch),
    (Lang::Fin, Algorithm::Finnish),
    (Lang::Fra, Algorithm::French),
    (Lang::Deu, Algorithm::German),
    (Lang::Hun, Algorithm::Hungarian),
    (Lang::Ita, Algorithm::Italian),
    (Lang::Nob, Algorithm::Norwegian),
    (Lang::Por, Algorithm::Portuguese),
    (Lang::Ron, Algorithm::Romanian),
    (Lang::Spa, Algorithm::Spanish),
    (Lang::Swe, Algorithm::Swedish),
    (Lang::Tur, Algorithm::Turkish),
];

/// The tag of English in [`LATIN_STEMMERS`].
pub(crate) const ENGLISH_TAG: usize = 0;

/// The Latin language tag of `lang`, if Snowball has a Latin-script stemmer for it.
pub(crate) fn latin_tag(lang: Lang) -> Option<usize> {
    LATIN_STEMMERS.iter().position(|(l, _)| *l == lang)
}

/// The writing system of a word, as far as stemming and stop words care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Script {
    Latin,
    Cyrillic,
    Greek,
    Arabic,
    Tamil,
    Other,
}

/// The script of a (folded, lowercased) word: that of its first letter.
pub(crate) fn word_script(word: &str) -> Script {
    for c in word.chars() {
        let script = match c {
            'a'..='z' | 'A'..='Z' => Script::Latin,
            '0'..='9' | '\'' => continue,
            '\u{00C0}'..='\u{024F}'
            | '\u{1E00}'..='\u{1EFF}'
            | '\u{2C60}'..='\u{2C7F}'
            | '\u{A720}'..='\u{A7FF}'
            | '\u{AB30}'..='\u{AB6F}'
            | '\u{FB00}'..='\u{FB06}' => Script::Latin,
            '\u{0400}'..='\u{052F}' | '\u{1C80}'..='\u{1C8F}' | '\u{2DE0}'..='\u{2DFF}' | '\u{A640}'..='\u{A69F}' => {
                Script::Cyrillic
            }
            '\u{0370}'..='\u{03FF}' | '\u{1F00}'..='\u{1FFF}' => Script::Greek,
            '\u{0600}'..='\u{06FF}'
            | '\u{0750}'..='\u{077F}'
            | '\u{08A0}'..='\u{08FF}'
            | '\u{FB50}'..='\u{FDFF}'
            | '\u{FE70}'..='\u{FEFF}' => Script::Arabic,
            '\u{0B80}'..='\u{0BFF}' => Script::Tamil,
            _ if c.is_alphabetic() => Script::Other,
            _ => continue,
        };
        return script;
    }
    Script::Other
}

/// The stemmer for a word of `script` in a document whose Latin language tag is `latin`.
pub(crate) fn algorithm(script: Script, latin: usize) -> Option<Algorithm> {
    match script {
        Script::Latin => Some(LATIN_STEMMERS.get(latin).map_or(Algorithm::English, |(_, a)| *a)),
        Script::Cyrillic => Some(Algorithm::Russian),
        Script::Greek => Some(Algorithm::Greek),
        Script::Arabic => Some(Algorithm::Arabic),
        Script::Tamil => Some(Algorithm::Tamil),
        Script::Other => None,
    }
}

/// Stems `word` once. An empty stem keeps the word.
///
/// Snowball is not idempotent: stemming a stem may shorten it again (Russian
/// `красивая` -> `красив` -> `крас`). Iterating to a fixed point would make
/// normalization idempotent but over-stems and merges unrelated words, so one pass it is.
pub(crate) fn stem(algorithm: Algorithm, word: &str) -> String {
    let stemmed = Stemmer::create(algorithm).stem(word);
    if stemmed.is_empty() { word.to_owned() } else { stemmed.into_owned() }
}

/// Detects the language of `text` from a sample of about [`DETECT_SAMPLE`] bytes from
/// its middle; `None` unless the answer is reliable.
///
/// A quick check settles plain English and Russian first (`whatlang` needs 100-150 µs
/// for a 2 KB sample, more than normalizing a 10 KB text): see [`quick_detect`]. Every
/// other text goes to `whatlang`, whose answer is trusted only when it calls it reliable.
pub(crate) fn detect(text: &str, english: &StopSet, russian: &StopSet) -> Option<Lang> {
    // The quick check needs only a hundred words or so: a short sample keeps its cost
    // small next to normalizing a short document.
    if let Some(lang) = quick_detect(sample_of(text, QUICK_SAMPLE), english, russian) {
        return Some(lang);
    }
    let sample = sample(text);
    let info = if whatlang::detect_script(sample) == Some(whatlang::Script::Latin) {
        latin_lang::detect(sample)
    } else {
        whatlang::detect(sample)
    }?;
    info.is_reliable().then(|| info.lang())
}

/// What [`detect`] decides for the *terms*: its answer wherever the Latin language tag
/// could depend on it, else `None` without asking `whatlang`.
///
/// `whatlang` first finds the sample's main script and then only picks among that
/// script's languages. When the main script is not Latin, none of them has a
/// Latin-script Snowball stemmer (a test checks every script), so the Latin tag is
/// English whatever it would answer: the language identification, which can cost more
/// than normalizing the text (mixed Russian and English technical text, Ukrainian,
/// Greek, CJK), is skipped.
pub(crate) fn detect_for_terms(text: &str, english: &StopSet, russian: &StopSet) -> Option<Lang> {
    if let Some(lang) = quick_detect(sample_of(text, QUICK_SAMPLE), english, russian) {
        return Some(lang);
    }
    detect_for_terms_after_quick(text)
}

/// [`detect_for_terms`] of a text the quick check did not settle.
pub(crate) fn detect_for_terms_after_quick(text: &str) -> Option<Lang> {
    let sample = sample(text);
    if whatlang::detect_script(sample) != Some(whatlang::Script::Latin) {
        return None;
    }
    let info = latin_lang::detect(sample)?;
    info.is_reliable().then(|| info.lang())
}

/// English or Russian, when the sample says so without doubt: at least 20 words, at
/// least 90 % of them in one script, and
/// - Latin: at least 25 % English stop words (English prose has 40-50 %; French,
///   German, Spanish, Dutch text a few per cent);
/// - Cyrillic: at least 15 % Russian stop words (Russian prose has 25-35 %), some `ы`
///   or `э` (absent from Ukrainian, Bulgarian, Macedonian, Serbian) and no letter that
///   Russian lacks (`і ї є ґ ў ј љ њ ђ ћ џ ѓ ќ ѕ ә ө ү ң қ ғ ұ һ`: Ukrainian,
///   Belarusian, South Slavic, Turkic).
pub(crate) fn quick_detect(sample: &str, english: &StopSet, russian: &StopSet) -> Option<Lang> {
    quick_detect_with(sample, english, russian, true)
}

/// [`quick_detect`], with its ASCII fast path or without it (tests compare the two).
fn quick_detect_with(sample: &str, english: &StopSet, russian: &StopSet, ascii_fast_path: bool) -> Option<Lang> {
    quick_counts_with(sample, english, russian, ascii_fast_path).decide()
}

/// The quick check's counts over the words of `sample`.
fn quick_counts_with(sample: &str, english: &StopSet, russian: &StopSet, ascii_fast_path: bool) -> QuickCounts {
    let mut counts = QuickCounts::default();
    let mut lower = String::new();
    tokenizer::scan(sample, |w| {
        counts.add(quick_word_with(&sample[w.start..w.end], english, russian, &mut lower, ascii_fast_path));
    });
    counts
}

/// The quick check's counts over its sample of `text`, tokenized again (for tests of the
/// counts `normalize_terms` gathers while it normalizes).
#[cfg(test)]
pub(crate) fn quick_counts_of_sample(text: &str, english: &StopSet, russian: &StopSet) -> QuickCounts {
    quick_counts_with(sample_of(text, QUICK_SAMPLE), english, russian, true)
}

/// What the quick check takes from one word, in bits: [`QUICK_KIND`] (skipped,
/// Latin, Cyrillic, other letters), [`QUICK_STOP`] (a stop word of its script's list),
/// [`QUICK_RU_LETTER`] (has `ы` or `э`), [`QUICK_FOREIGN_LETTER`] (has a Cyrillic
/// letter Russian lacks). A function of the word as written, so the word cache keeps it
/// next to the term (see `normalize_terms`).
pub(crate) type QuickWord = u8;
/// The kind bits of a [`QuickWord`].
pub(crate) const QUICK_KIND: QuickWord = 0b11;
/// Kind: not counted (no letter).
pub(crate) const QUICK_SKIP: QuickWord = 0;
/// Kind: a Latin word.
const QUICK_LATIN: QuickWord = 1;
/// Kind: a Cyrillic word.
const QUICK_CYRILLIC: QuickWord = 2;
/// Kind: a word of letters of another script.
const QUICK_OTHER: QuickWord = 3;
/// The word is a stop word of its script's list.
const QUICK_STOP: QuickWord = 1 << 2;
/// The word has `ы` or `э`.
const QUICK_RU_LETTER: QuickWord = 1 << 3;
/// The word has a Cyrillic letter that Russian lacks.
const QUICK_FOREIGN_LETTER: QuickWord = 1 << 4;

/// The [`QuickWord`] of one word found by the tokenizer, as written.
pub(crate) fn quick_word(word: &str, english: &StopSet, russian: &StopSet, lower: &mut String) -> QuickWord {
    quick_word_with(word, english, russian, lower, true)
}

fn quick_word_with(
    word: &str,
    english: &StopSet,
    russian: &StopSet,
    lower: &mut String,
    ascii_fast_path: bool,
) -> QuickWord {
    if ascii_fast_path && word.is_ascii() {
        // The common case, without building the lowercase word: an ASCII word is Latin
        // if it has a letter (else it is a number: skipped), and sets none of the letter
        // flags; it can only be a stop word if it is no longer than the longest one.
        if !word.bytes().any(|b| b.is_ascii_alphabetic()) {
            return QUICK_SKIP;
        }
        return QUICK_LATIN | if english.contains_ascii_lowercase(word) { QUICK_STOP } else { 0 };
    }
    let mut flags = 0;
    lower.clear();
    for c in word.chars() {
        match c {
            'ы' | 'э' | 'Ы' | 'Э' => flags |= QUICK_RU_LETTER,
            'і' | 'ї' | 'є' | 'ґ' | 'ў' | 'ј' | 'љ' | 'њ' | 'ђ' | 'ћ' | 'џ' | 'ѓ' | 'ќ' | 'ѕ' | 'ә' | 'ө' | 'ү'
            | 'ң' | 'қ' | 'ғ' | 'ұ' | 'һ' => flags |= QUICK_FOREIGN_LETTER,
            _ => {}
        }
        match c {
            // The common case first: ASCII lowercases in place, without the iterator
            // `to_lowercase` returns.
            _ if c.is_ascii() => lower.push(c.to_ascii_lowercase()),
            'ё' | 'Ё' => lower.push('е'),
            '\u{2019}' | '\u{2018}' | '\u{02BC}' | '\u{FF07}' => lower.push('\''),
            _ => lower.extend(c.to_lowercase()),
        }
    }
    let kind = match word_script(lower) {
        Script::Latin => QUICK_LATIN | if english.contains(lower) { QUICK_STOP } else { 0 },
        Script::Cyrillic => QUICK_CYRILLIC | if russian.contains(lower) { QUICK_STOP } else { 0 },
        _ if lower.chars().any(char::is_alphabetic) => QUICK_OTHER,
        _ => QUICK_SKIP,
    };
    flags | kind
}

/// The quick check's counts over the words of a sample.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct QuickCounts {
    words: usize,
    latin: usize,
    cyrillic: usize,
    en_hits: usize,
    ru_hits: usize,
    russian_letters: bool,
    foreign_letters: bool,
}

impl QuickCounts {
    /// Counts one word.
    #[inline]
    pub(crate) fn add(&mut self, q: QuickWord) {
        self.russian_letters |= q & QUICK_RU_LETTER != 0;
        self.foreign_letters |= q & QUICK_FOREIGN_LETTER != 0;
        let stop = usize::from(q & QUICK_STOP != 0);
        match q & QUICK_KIND {
            QUICK_LATIN => {
                self.latin += 1;
                self.en_hits += stop;
            }
            QUICK_CYRILLIC => {
                self.cyrillic += 1;
                self.ru_hits += stop;
            }
            QUICK_OTHER => {}
            _ => return,
        }
        self.words += 1;
    }

    /// The quick check's answer (see [`quick_detect`]).
    pub(crate) fn decide(&self) -> Option<Lang> {
        let Self { words, latin, cyrillic, en_hits, ru_hits, russian_letters, foreign_letters } = *self;
        if words < 20 {
            return None;
        }
        if latin * 10 >= words * 9 && en_hits * 100 >= latin * 25 {
            return Some(Lang::Eng);
        }
        if cyrillic * 10 >= words * 9 && ru_hits * 100 >= cyrillic * 15 && russian_letters && !foreign_letters {
            return Some(Lang::Rus);
        }
        None
    }
}

/// Where the quick check's sample of `text` lies, as a byte range of `text`, when the
/// sample is whole words: the whole text, or a window cut at whitespace on both sides.
/// Then the sample's words are exactly the words of the text inside the range (whitespace
/// separates words whatever surrounds it). `None` when the window has fewer than two
/// whitespace characters and the sample is cut inside words.
pub(crate) fn quick_range(text: &str) -> Option<(usize, usize)> {
    if text.len() <= QUICK_SAMPLE {
        return Some((0, text.len()));
    }
    let (start, window) = window_of(text, QUICK_SAMPLE);
    let from = window.find(char::is_whitespace)?;
    let to = window.rfind(char::is_whitespace)?;
    (from < to).then_some((start + from, start + to))
}

/// At most [`DETECT_SAMPLE`] bytes from the middle of `text`, cut at whitespace.
fn sample(text: &str) -> &str {
    sample_of(text, DETECT_SAMPLE)
}

/// The window of `size` bytes (at char boundaries) in the middle of `text`, and where
/// it starts; `text.len() > size`.
fn window_of(text: &str, size: usize) -> (usize, &str) {
    let start = text.floor_char_boundary((text.len() - size) / 2);
    let end = text.floor_char_boundary(start + size);
    (start, &text[start..end])
}

/// At most `size` bytes from the middle of `text`, cut at whitespace.
fn sample_of(text: &str, size: usize) -> &str {
    if text.len() <= size {
        return text;
    }
    let (_, window) = window_of(text, size);
    // Drop the partial words at both ends.
    let from = window.find(char::is_whitespace).unwrap_or(0);
    let to = window.rfind(char::is_whitespace).unwrap_or(window.len());
    if from < to { &window[from..to] } else { window }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for l in LANGUAGES {
            assert_eq!(by_code(l.code).map(|x| x.lang), Some(l.lang));
        }
        assert_eq!(code_of(Lang::Eng), "en");
        assert_eq!(code_of(Lang::Nob), "nb");
        assert_eq!(by_code("RU").map(|l| l.lang), Some(Lang::Rus));
        assert!(by_code("xx").is_none());
        // Every language the detector knows has a code.
        for l in Lang::all() {
            assert!(LANGUAGES.iter().any(|x| x.lang == *l), "{l:?}");
        }
    }

    #[test]
    fn scripts() {
        assert_eq!(word_script("hello"), Script::Latin);
        assert_eq!(word_script("19th"), Script::Latin);
        assert_eq!(word_script("привет"), Script::Cyrillic);
        assert_eq!(word_script("λόγος"), Script::Greek);
        assert_eq!(word_script("كتاب"), Script::Arabic);
        assert_eq!(word_script("日"), Script::Other);
        assert_eq!(word_script("123"), Script::Other);
    }

    #[test]
    fn stems() {
        assert_eq!(stem(Algorithm::English, "running"), "run");
        assert_eq!(stem(Algorithm::Russian, "красивая"), "красив");
    }

    fn detect_builtin(text: &str) -> Option<Lang> {
        detect(text, &crate::stopwords::ENGLISH_SET, &crate::stopwords::RUSSIAN_SET)
    }

    fn quick(text: &str) -> Option<Lang> {
        quick_detect(text, &crate::stopwords::ENGLISH_SET, &crate::stopwords::RUSSIAN_SET)
    }

    const EN: &str = "The quick brown fox jumps over the lazy dog while the children watch it from the window \
        of the house, and their mother tells them that it is time for dinner because the sun has set.";
    const RU: &str = "Съешь же ещё этих мягких французских булок, да выпей чаю, сказал он детям, которые \
        смотрели в окно большого дома и ждали, когда мама позовёт их ужинать, потому что солнце уже село.";
    const UK: &str = "Він сказав дітям, що вони мають їсти, бо сонце вже сіло, і мати кличе їх додому, \
        але діти дивилися у вікно великого будинку і чекали, коли батько повернеться з роботи до вечора.";
    const DE: &str = "Die Studenten haben ihre Hausarbeiten aus dem Internet kopiert, und die Lehrer haben es \
        nicht bemerkt, weil sie keine Zeit hatten, alle Arbeiten gründlich zu lesen und zu vergleichen.";

    #[test]
    fn quick_detection_settles_plain_english_and_russian_only() {
        assert_eq!(quick(EN), Some(Lang::Eng));
        assert_eq!(quick(RU), Some(Lang::Rus));
        assert_eq!(quick(UK), None);
        assert_eq!(quick(DE), None);
        assert_eq!(quick("too short to say"), None);
    }

    /// `quick_detect` without its ASCII fast path: every word lowercased and looked up
    /// as a string.
    fn quick_detect_reference(sample: &str, english: &StopSet, russian: &StopSet) -> Option<Lang> {
        quick_detect_with(sample, english, russian, false)
    }

    /// Sentences that sit on the English and Russian thresholds, and noise.
    const QUICK_PIECES: &[&str] = &[
        "the",
        "The",
        "THE",
        "of",
        "and",
        "it's",
        "don't",
        "students",
        "plagiarism",
        "copying",
        "2024",
        "3rd",
        "x1",
        "themselves",
        "yourselves",
        "и",
        "в",
        "которые",
        "Которые",
        "её",
        "ЁЛКА",
        "был",
        "это",
        "эти",
        "мы",
        "студенты",
        "і",
        "ї",
        "ў",
        "һ",
        "café",
        "naïve",
        "O’Neil",
        "don’t",
        "λόγος",
        "東京",
        "pla\u{200B}giarism",
        "ǅ",
    ];

    proptest::proptest! {
        #[test]
        fn quick_detection_fast_path_changes_nothing(
            // Mostly English pieces, mostly Russian ones, or any.
            (from, to) in proptest::sample::select(vec![(0, 14), (0, 16), (14, 26), (12, 30), (0, QUICK_PIECES.len())]),
            parts in proptest::collection::vec((0..1000usize, 0..3usize), 0..160),
            noise in "\\PC{0,60}",
        ) {
            let mut text = String::new();
            for (p, s) in parts {
                text.push_str(QUICK_PIECES[from + p % (to - from)]);
                text.push_str([" ", ", ", ". "][s]);
            }
            text.push_str(&noise);
            let (en, ru) = (&*crate::stopwords::ENGLISH_SET, &*crate::stopwords::RUSSIAN_SET);
            proptest::prop_assert_eq!(quick_detect(&text, en, ru), quick_detect_reference(&text, en, ru));
        }

        #[test]
        fn quick_detection_fast_path_changes_nothing_on_any_string(text in proptest::prelude::any::<String>()) {
            let (en, ru) = (&*crate::stopwords::ENGLISH_SET, &*crate::stopwords::RUSSIAN_SET);
            proptest::prop_assert_eq!(quick_detect(&text, en, ru), quick_detect_reference(&text, en, ru));
        }
    }

    /// [`detect_for_terms`] relies on this: only Latin-script languages have Latin
    /// Snowball stemmers, and `whatlang` answers a language of the main script.
    #[test]
    fn only_latin_script_languages_have_latin_stemmers() {
        for script in whatlang::Script::all() {
            if *script == whatlang::Script::Latin {
                continue;
            }
            for lang in script.langs() {
                assert!(latin_tag(*lang).is_none(), "{script:?} {lang:?}");
            }
        }
        for (lang, _) in LATIN_STEMMERS {
            assert!(whatlang::Script::Latin.langs().contains(lang), "{lang:?}");
        }
    }

    fn tag(lang: Option<Lang>) -> usize {
        lang.and_then(latin_tag).unwrap_or(ENGLISH_TAG)
    }

    /// Pieces of several scripts and languages, so samples land on every side of the
    /// quick check and of `whatlang`'s script choice.
    const SCRIPT_PIECES: &[&str] = &[
        EN,
        RU,
        UK,
        DE,
        "Le chat est sur la table et il regarde les oiseaux.",
        "Η γλώσσα είναι ελληνική και το κείμενο είναι μικρό.",
        "東京タワーは高い。",
        "اللغة العربية جميلة",
        "bindresvport(3) sockfd sin->sin_port NULL",
        "Функция используется для привязки сокета",
        "12345 67 890",
    ];

    proptest::proptest! {
        #[test]
        fn detection_for_terms_gives_the_same_latin_tag(
            parts in proptest::collection::vec(0..SCRIPT_PIECES.len(), 1..30),
            noise in "\\PC{0,80}",
        ) {
            let mut text: String = parts.iter().map(|&i| SCRIPT_PIECES[i]).collect::<Vec<_>>().join(" ");
            text.push_str(&noise);
            let (en, ru) = (&*crate::stopwords::ENGLISH_SET, &*crate::stopwords::RUSSIAN_SET);
            let fast = detect_for_terms(&text, en, ru);
            let full = detect(&text, en, ru);
            proptest::prop_assert_eq!(tag(fast), tag(full));
            if fast.is_some() {
                proptest::prop_assert_eq!(fast, full);
            }
        }
    }

    #[test]
    fn detects_languages() {
        assert_eq!(detect_builtin(EN), Some(Lang::Eng));
        assert_eq!(detect_builtin(RU), Some(Lang::Rus));
        assert_eq!(detect_builtin(UK), Some(Lang::Ukr));
        assert_eq!(detect_builtin(DE), Some(Lang::Deu));
        // whatlang agrees with the quick path on these.
        assert_eq!(whatlang::detect(EN).map(|i| i.lang()), Some(Lang::Eng));
        assert_eq!(whatlang::detect(RU).map(|i| i.lang()), Some(Lang::Rus));
    }

    #[test]
    fn sample_is_bounded_and_on_boundaries() {
        let text = "слово ".repeat(2000);
        let s = sample(&text);
        assert!(s.len() <= DETECT_SAMPLE);
        assert!(!s.is_empty());
    }
}
