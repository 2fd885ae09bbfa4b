//! `whatlang::detect` of a Latin-script sample, the same answer at a fraction of the cost.
//!
//! For a sample whose main script is Latin, `whatlang` 0.18 (default options: every
//! language, the combined method) scores the 37 Latin-script languages twice and mixes
//! the scores: by *alphabet* (letters each language uses) and by *trigrams* (a rank
//! distance between the sample's 600 most frequent character trigrams and each
//! language's 300-trigram profile). The trigram part looks each of the 37 x 300 profile
//! trigrams up in a hash map of the sample's trigrams: 11,100 probes per sample, most of
//! the 100-150 µs a 2 KB sample costs. Here the profiles are inverted once per process
//! (trigram -> the languages and ranks it has), so a sample costs one probe per distinct
//! trigram of its own (at most 600), and the sums are rearranged, not changed:
//! `sum over the profile of (|rank in sample - rank in profile| or 300 if absent)` is
//! `300 * 300 - sum over the shared trigrams of (300 - |difference|)`.
//!
//! Everything else is `whatlang`'s code, step by step: the same lowercasing, counts,
//! integer sums, floating-point expressions in the same order, and the same unstable
//! sorts on vectors of the same types in the same order, so ties between languages break
//! the same way. Tests compare [`detect`] with `whatlang::detect` on many texts (and the
//! copied profiles with `whatlang`'s answers).

use std::cmp::Reverse;
use std::collections::HashMap;
use std::sync::LazyLock;

use whatlang::{Info, Lang, Script};

use crate::latin_profiles::LATIN_PROFILES;

/// `whatlang::trigrams::MAX_TRIGRAM_DISTANCE`.
const MAX_TRIGRAM_DISTANCE: u32 = 300;
/// `whatlang::trigrams::MAX_TOTAL_DISTANCE`.
const MAX_TOTAL_DISTANCE: u32 = MAX_TRIGRAM_DISTANCE * MAX_TRIGRAM_DISTANCE;
/// `whatlang::trigrams::TEXT_TRIGRAMS_SIZE`: the sample's trigrams that count.
const TEXT_TRIGRAMS_SIZE: usize = 600;

/// `whatlang`'s Latin alphabets (`src/alphabets/latin.rs`), in its order.
const LATIN_ALPHABETS: &[(Lang, &str)] = &[
    (Lang::Afr, "abcdefghijklmnopqrstuvwxyzáèéêëíîïóôúû"),
    (Lang::Aka, "abdefghiklmnoprstuwyɔɛ"),
    (Lang::Aze, "abcdefghijklmnopqrstuvxyzçöüğışə̇"),
    (Lang::Cat, "abcdefghijklmnopqrstuvwxyz·àçèéíïòóúü"),
    (Lang::Ces, "abcdefghijklmnopqrstuvwxyzáéíóúýčďěňřšťůž"),
    (Lang::Cym, "abcdefghijklmnopqrstuvwxyzàáâäèéêëìíîïòóôöùúûüýÿŵŷẁẃẅỳ"),
    (Lang::Dan, "abcdefghijklmnopqrstuvwxyzåæø"),
    (Lang::Deu, "abcdefghijklmnopqrstuvwxyzßäöü"),
    (Lang::Eng, "abcdefghijklmnopqrstuvwxyz"),
    (Lang::Epo, "abcdefghijklmnoprstuvzĉĝĥĵŝŭ"),
    (Lang::Est, "abcdefghijklmnopqrstuvwxyzäõöü"),
    (Lang::Fin, "abcdefghijklmnopqrstuvwxyzäöšž"),
    (Lang::Fra, "abcdefghijklmnopqrstuvwxyzàâçèéêëîïôùûüÿœ"),
    (Lang::Hrv, "abcdefghijklmnopqrstuvwxyzćčđšž"),
    (Lang::Hun, "abcdefghijklmnopqrstuvwxyzáéíóöúüőű"),
    (Lang::Ind, "abcdefghijklmnopqrstuvwxyz"),
    (Lang::Ita, "abcdefghijklmnopqrstuvwxyzàèéìòù"),
    (Lang::Jav, "abcdefghijklmnopqrstuvwxyzèé"),
    (Lang::Lat, "abcdefghijklmnopqrstuvwxyz"),
    (Lang::Lav, "abcdefghijklmnopqrstuvwxyzāčēģīķļņōŗšūž"),
    (Lang::Lit, "abcdefghijklmnopqrstuvwxyząčėęįšūųž"),
    (Lang::Nld, "abcdefghijklmnopqrstuvwxyzàèéëïĳ"),
    (Lang::Nob, "abcdefghijklmnopqrstuvwxyzåæø"),
    (Lang::Pol, "abcdefghijklmnopqrstuvwxyzóąćęłńśźż"),
    (Lang::Por, "abcdefghijklmnopqrstuvwxyzàáâãçéêíóôõú"),
    (Lang::Ron, "abcdefghijklmnopqrstuvwxyzâîăşţ"),
    (Lang::Slk, "abcdefghijklmnopqrstuvwxyzáäéíóôúýčďĺľňŕšťž"),
    (Lang::Slv, "abcdefghijklmnopqrstuvwxyzčšž"),
    (Lang::Sna, "abcdefghijklmnopqrstuvwxyz"),
    (Lang::Spa, "abcdefghijklmnopqrstuvwxyz¡¿áéíñóúü"),
    (Lang::Swe, "abcdefghijklmnopqrstuvwxyzäåö"),
    (Lang::Tgl, "abcdefghijklmnopqrstuvwxyzáéíñóú"),
    (Lang::Tuk, "abdefghijklmnoprstuwyzäçöüýňşž"),
    (Lang::Tur, "abcdefghijklmnopqrstuvwxyzçöüğış̇"),
    (Lang::Uzb, "abcdefghijklmnopqrstuvxyzʻ"),
    (Lang::Vie, "abcdefghijklmnopqrstuvwxyzàáâãèéêìíòóôõùúýăđĩũơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ"),
    (Lang::Zul, "abcdefghijklmnopqrstuvwxyz"),
];

/// Characters below this have their alphabet position in a table (the rest are
/// binary-searched, as `whatlang` does for all).
const SMALL: usize = 0x250;

/// What detection needs, built once per process.
struct Tables {
    /// The alphabets' characters, sorted, and the languages of each (`whatlang`'s
    /// inverted map, `build_inverted_map`).
    chars: Vec<char>,
    langs: Vec<Vec<Lang>>,
    /// `position + 1` in `chars` of every character below [`SMALL`], 0 if absent.
    small: Vec<u16>,
    /// The profiles inverted: every trigram of a profile ([`pack`]ed) -> its entries.
    profiles: TrigramTable,
}

static TABLES: LazyLock<Tables> = LazyLock::new(|| {
    let mut map: HashMap<char, Vec<Lang>> = HashMap::new();
    for (lang, alphabet) in LATIN_ALPHABETS {
        for c in alphabet.chars() {
            map.entry(c).or_default().push(*lang);
        }
    }
    let mut char_lang: Vec<(char, Vec<Lang>)> = map.into_iter().collect();
    char_lang.sort_unstable_by_key(|(c, _)| *c);
    let (chars, langs): (Vec<char>, Vec<Vec<Lang>>) = char_lang.into_iter().unzip();
    let mut small = vec![0u16; SMALL];
    for (i, &c) in chars.iter().enumerate() {
        if (c as usize) < SMALL {
            small[c as usize] = i as u16 + 1;
        }
    }
    let profiles = TrigramTable::new();
    Tables { chars, langs, small, profiles }
});

/// An open-addressing table from the profiles' trigrams to their entries, flat so that a
/// probe touches one slot and one short run of `entries` (a hash map of vectors chases
/// pointers into memory that the word caches have long evicted).
struct TrigramTable {
    /// `(trigram, first entry, entries)`; `u64::MAX` (not a packed trigram) marks a free slot.
    slots: Vec<(u64, u32, u32)>,
    /// `profile index << 16 | rank`, grouped by trigram.
    entries: Vec<u32>,
}

impl TrigramTable {
    fn new() -> Self {
        let mut by_trigram: Vec<(u64, u32)> = Vec::new();
        for (index, (_, trigrams)) in LATIN_PROFILES.iter().enumerate() {
            let trigram_chars: Vec<char> = trigrams.chars().collect();
            for (rank, t) in trigram_chars.chunks_exact(3).enumerate() {
                by_trigram.push((pack(t[0], t[1], t[2]), ((index as u32) << 16) | rank as u32));
            }
        }
        by_trigram.sort_unstable();
        let distinct = by_trigram.chunk_by(|a, b| a.0 == b.0).count();
        let size = (distinct * 2).next_power_of_two();
        let mut slots = vec![(u64::MAX, 0u32, 0u32); size];
        let mut entries = Vec::with_capacity(by_trigram.len());
        for run in by_trigram.chunk_by(|a, b| a.0 == b.0) {
            let mut i = slot_of(run[0].0, size);
            while slots[i].0 != u64::MAX {
                i = (i + 1) & (size - 1);
            }
            slots[i] = (run[0].0, entries.len() as u32, run.len() as u32);
            entries.extend(run.iter().map(|e| e.1));
        }
        Self { slots, entries }
    }

    /// Loads the home slot of every trigram of `trigrams`. The table is cold when a
    /// sample comes (a few documents in a hundred get here), and these loads do not wait
    /// for each other, unlike the probes of [`get`](Self::get), whose branches need each
    /// slot before the next probe starts.
    #[inline]
    fn touch(&self, trigrams: &[u64]) {
        let keys = trigrams.iter().fold(0u64, |acc, &t| acc ^ self.slots[slot_of(t, self.slots.len())].0);
        std::hint::black_box(keys);
    }

    /// The entries of `trigram` (empty if no profile has it).
    #[inline]
    fn get(&self, trigram: u64) -> &[u32] {
        let mask = self.slots.len() - 1;
        let mut i = slot_of(trigram, self.slots.len());
        loop {
            let (key, start, len) = self.slots[i];
            if key == trigram {
                return &self.entries[start as usize..(start + len) as usize];
            }
            if key == u64::MAX {
                return &[];
            }
            i = (i + 1) & mask;
        }
    }
}

/// The home slot of a packed trigram in a table of `size` (a power of two) slots.
#[inline]
fn slot_of(trigram: u64, size: usize) -> usize {
    (trigram.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & (size - 1)
}

/// A trigram as one number that orders like `whatlang`'s `Trigram(char, char, char)`
/// (lexicographically by code point; a code point has at most 21 bits).
#[inline]
fn pack(a: char, b: char, c: char) -> u64 {
    (u64::from(a) << 42) | (u64::from(b) << 21) | u64::from(c)
}

/// `whatlang::utils::is_stop_char`: punctuation, digits, whitespace, ASCII symbols.
#[inline]
fn is_stop_char(ch: char) -> bool {
    matches!(ch, '\u{0000}'..='\u{0040}' | '\u{005B}'..='\u{0060}' | '\u{007B}'..='\u{007E}')
}

/// `whatlang::detect(text)` when `whatlang::detect_script(text)` is `Some(Script::Latin)`
/// (for any other text the answer means nothing).
pub(crate) fn detect(text: &str) -> Option<Info> {
    let lower = text.to_lowercase();
    let (alphabet_scores, count) = alphabet_scores(&lower);
    let (trigram_scores, trigrams_count) = trigram_scores(&lower);

    // `whatlang::combined::raw_detect`.
    let mut all_langs: Vec<Lang> = alphabet_scores.iter().map(|x| x.0).collect();
    for (lang, _) in &trigram_scores {
        if !all_langs.contains(lang) {
            all_langs.push(*lang);
        }
    }
    let alphabet_weight = calc_alphabet_weight(count);
    let trigram_weight = 1.0 - alphabet_weight;
    let mut scores: Vec<(Lang, f64)> = Vec::with_capacity(all_langs.len());
    for lang in all_langs {
        let a: f64 = alphabet_scores.iter().find(|(l, _)| l == &lang).map_or(0.0, |x| x.1);
        let t: f64 = trigram_scores.iter().find(|(l, _)| l == &lang).map_or(0.0, |x| x.1);
        scores.push((lang, a * alphabet_weight + t * trigram_weight));
    }
    scores.sort_unstable_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Less));

    // `whatlang::combined::detect`.
    let mut iter = scores.into_iter();
    let first = iter.next();
    let second = iter.next();
    first.map(|(lang1, score1)| {
        let confidence =
            if let Some((_, score2)) = second { calculate_confidence(score1, score2, trigrams_count) } else { 1.0 };
        Info::new(Script::Latin, lang1, confidence)
    })
}

/// `whatlang::alphabets::common::generic_alphabet_calculate_scores` for Latin, every
/// language allowed: the normalized scores and the count of letters.
fn alphabet_scores(text: &str) -> (Vec<(Lang, f64)>, usize) {
    let tables = &*TABLES;
    let script_langs = Script::Latin.langs();
    let mut char_scores = vec![0usize; tables.chars.len()];
    let mut max_raw_score = 0usize;
    for ch in text.chars() {
        if is_stop_char(ch) {
            continue;
        }
        max_raw_score += 1;
        let position = match tables.small.get(ch as usize) {
            Some(&p) => p.checked_sub(1).map(usize::from),
            None => tables.chars.binary_search(&ch).ok(),
        };
        if let Some(position) = position {
            char_scores[position] += 2;
        }
    }
    let mut lang_scores = vec![0usize; Lang::all().len()];
    let mut common_score: usize = 0;
    for (position, char_score) in char_scores.into_iter().enumerate() {
        if char_score > 0 {
            let languages = &tables.langs[position];
            if languages.len() == script_langs.len() {
                common_score += char_score;
            } else {
                for &lang in languages {
                    lang_scores[lang as usize] += char_score;
                }
            }
        }
    }
    let mut raw_scores: Vec<(Lang, usize)> = script_langs
        .iter()
        .map(|&l| (l, (lang_scores[l as usize] + common_score).saturating_sub(max_raw_score)))
        .collect();
    raw_scores.sort_unstable_by_key(|(_, score)| Reverse(*score));
    let normalized = raw_scores.iter().map(|&(lang, raw)| (lang, raw as f64 / max_raw_score as f64)).collect();
    (normalized, max_raw_score)
}

/// `whatlang::trigrams::detection::calculate_scores_in_profiles` for Latin, every
/// language allowed: the raw scores and the count of distinct trigrams that count.
fn trigram_scores(text: &str) -> (Vec<(Lang, f64)>, usize) {
    // `whatlang::trigrams::utils::count`: every trigram of the text with punctuation and
    // digits as spaces and a space before and after, except those that are a space
    // between spaces or start or end with a lone space.
    let mut counts = TrigramCounts::new(text.len() + 2);
    let mut chars = text.chars().map(|c| if is_stop_char(c) { ' ' } else { c }).chain(Some(' '));
    let mut c1 = ' ';
    let mut c2 = chars.next().unwrap_or(' ');
    for c3 in chars {
        if !(c2 == ' ' && (c1 == ' ' || c3 == ' ')) {
            counts.add(pack(c1, c2, c3));
        }
        c1 = c2;
        c2 = c3;
    }
    // The distinct trigrams by (count, trigram), the largest first, the first 600: a
    // total order, so any sort gives `whatlang`'s ranks.
    let ranked = counts.ranked();
    let unique_trigrams_count = ranked.len();

    // Per profile: the sum over its trigrams of 300 - |rank difference| for those the
    // text has (see the module documentation).
    let tables = &*TABLES;
    let mut shared = [0i64; LATIN_PROFILES.len()];
    tables.profiles.touch(&ranked);
    for (position, &trigram) in ranked.iter().enumerate() {
        for &entry in tables.profiles.get(trigram) {
            let diff = (position as i64 - i64::from(entry & 0xFFFF)).abs();
            shared[(entry >> 16) as usize % LATIN_PROFILES.len()] += i64::from(MAX_TRIGRAM_DISTANCE) - diff;
        }
    }
    let count = unique_trigrams_count as u32;
    let mut lang_distances: Vec<(Lang, u32)> = Vec::with_capacity(LATIN_PROFILES.len());
    for (index, &(lang, _)) in LATIN_PROFILES.iter().enumerate() {
        // `whatlang::trigrams::detection::calculate_distance`.
        let mut total_dist = (i64::from(MAX_TOTAL_DISTANCE) - shared[index]) as u32;
        if MAX_TRIGRAM_DISTANCE > count {
            let delta = MAX_TRIGRAM_DISTANCE - count;
            total_dist -= delta * MAX_TRIGRAM_DISTANCE;
        }
        lang_distances.push((lang, total_dist.clamp(0, MAX_TOTAL_DISTANCE)));
    }
    lang_distances.sort_unstable_by_key(|(_, dist)| *dist);
    let max_dist = unique_trigrams_count as u32 * MAX_TRIGRAM_DISTANCE;
    let scores = lang_distances
        .iter()
        .map(|&(lang, distance)| (lang, f64::from(max_dist - distance) / f64::from(max_dist)))
        .collect();
    (scores, unique_trigrams_count)
}

/// Counts of packed trigrams: an open-addressing table sized for the text, and the
/// distinct trigrams in the order they came.
struct TrigramCounts {
    keys: Vec<u64>,
    counts: Vec<u32>,
    distinct: Vec<usize>,
}

impl TrigramCounts {
    /// A table for at most `most` trigrams.
    fn new(most: usize) -> Self {
        let size = (most * 2).next_power_of_two();
        Self { keys: vec![u64::MAX; size], counts: vec![0; size], distinct: Vec::with_capacity(most) }
    }

    #[inline]
    fn add(&mut self, trigram: u64) {
        let mask = self.keys.len() - 1;
        let mut i = slot_of(trigram, self.keys.len());
        loop {
            if self.keys[i] == trigram {
                self.counts[i] += 1;
                return;
            }
            if self.keys[i] == u64::MAX {
                self.keys[i] = trigram;
                self.counts[i] = 1;
                self.distinct.push(i);
                return;
            }
            i = (i + 1) & mask;
        }
    }

    /// The first [`TEXT_TRIGRAMS_SIZE`] distinct trigrams by (count, trigram), largest
    /// first. When every character is below U+10000 and every count below 2^16, a
    /// trigram and its count fit one `u64` (`count << 48 | three 16-bit characters`) that
    /// orders the same way, and plain numbers sort faster.
    fn ranked(&self) -> Vec<u64> {
        let narrow = self.distinct.iter().all(|&i| self.keys[i] & NOT_NARROW == 0 && self.counts[i] < 1 << 16);
        if narrow {
            let mut packed: Vec<u64> = self
                .distinct
                .iter()
                .map(|&i| {
                    let t = self.keys[i];
                    (u64::from(self.counts[i]) << 48) | ((t >> 42) << 32) | (((t >> 21) & 0xFFFF) << 16) | (t & 0xFFFF)
                })
                .collect();
            packed.sort_unstable_by(|a, b| b.cmp(a));
            packed.truncate(TEXT_TRIGRAMS_SIZE);
            packed.iter_mut().for_each(|p| {
                *p = (((*p >> 32) & 0xFFFF) << 42) | (((*p >> 16) & 0xFFFF) << 21) | (*p & 0xFFFF);
            });
            packed
        } else {
            let mut counted: Vec<(u32, u64)> = self.distinct.iter().map(|&i| (self.counts[i], self.keys[i])).collect();
            counted.sort_unstable_by(|a, b| b.cmp(a));
            counted.truncate(TEXT_TRIGRAMS_SIZE);
            counted.into_iter().map(|(_, t)| t).collect()
        }
    }
}

/// The bits of a packed trigram that are zero when its three characters are below U+10000.
const NOT_NARROW: u64 = (0x1F << 58) | (0x1F << 37) | (0x1F << 16);

/// `whatlang::combined::calc_alphabet_weight`.
fn calc_alphabet_weight(count: usize) -> f64 {
    let weight = -(count as f64 / 300.0) + 2.0 / 3.0;
    weight.clamp(1.0 / 3.0, 2.0 / 3.0)
}

/// `whatlang::core::confidence::calculate_confidence`.
fn calculate_confidence(highest_score: f64, second_score: f64, count: usize) -> f64 {
    if highest_score == 0.0 {
        return 0.0;
    }
    if second_score == 0.0 {
        return highest_score;
    }
    let confident_rate = (3.0 / count as f64) + 0.015;
    let rate = (highest_score - second_score) / second_score;
    if rate > confident_rate { 1.0 } else { rate / confident_rate }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `whatlang`'s answer where [`detect`] applies (`None` elsewhere).
    fn reference(text: &str) -> Option<Option<Info>> {
        (whatlang::detect_script(text) == Some(Script::Latin)).then(|| whatlang::detect(text))
    }

    fn check(text: &str) {
        if let Some(expected) = reference(text) {
            assert_eq!(detect(text), expected, "{text:?}");
        }
    }

    #[test]
    fn profiles_are_whatlangs() {
        assert_eq!(LATIN_PROFILES.len(), Script::Latin.langs().len());
        for (lang, trigrams) in LATIN_PROFILES {
            assert!(Script::Latin.langs().contains(lang), "{lang:?}");
            assert_eq!(trigrams.chars().count(), 900, "{lang:?}");
        }
        let mut alphabets: Vec<Lang> = LATIN_ALPHABETS.iter().map(|(l, _)| *l).collect();
        let mut langs = Script::Latin.langs().to_vec();
        alphabets.sort_by_key(|l| l.code());
        langs.sort_by_key(|l| l.code());
        assert_eq!(alphabets, langs);
    }

    #[test]
    fn same_answers_as_whatlang() {
        for text in [
            "The quick brown fox jumps over the lazy dog.",
            "Die Ordnung muss für immer in diesem Codebase bleiben",
            "Además de todo lo anteriormente dicho, también encontramos...",
            "René Descartes est un mathématicien, physicien et philosophe français, né le 31 mars 1596",
            "Ja kulkee kylmä hetki pariimme, Olet hauras kuin jää, Ja kulke",
            "I am begging pardon",
            "a",
            "ab",
            "x y z",
            "Façade Schönheitstraße",
            "Tyrkiske språk eller turkotatariske språk er en språkgruppe bestående av minst 35 språk",
            "Mi ne scias!",
            "bindresvport(3) sockfd sin->sin_port NULL",
            "the 🔥 fire and the 𝐛𝐨𝐥𝐝 letters",
        ] {
            check(text);
        }
        // Counts that do not fit 16 bits.
        check(&"ab ".repeat(70_000));
        check(&format!("{} the and of", "a".repeat(70_000)));
    }

    /// Words of many Latin-script languages, with the letters that tell them apart.
    const WORDS: &[&str] = &[
        "the",
        "and",
        "of",
        "ing",
        "tion",
        "with",
        "that",
        "de",
        "la",
        "que",
        "el",
        "los",
        "ción",
        "für",
        "und",
        "der",
        "die",
        "schön",
        "straße",
        "les",
        "des",
        "est",
        "très",
        "été",
        "och",
        "på",
        "är",
        "ja",
        "kuin",
        "jää",
        "és",
        "hogy",
        "nem",
        "şi",
        "în",
        "să",
        "że",
        "się",
        "jest",
        "ąę",
        "của",
        "và",
        "những",
        "ng",
        "sa",
        "ang",
        "ir",
        "kad",
        "yra",
        "un",
        "ar",
        "ir",
        "tā",
        "ĉu",
        "kaj",
        "estas",
        "ŵyr",
        "ɔɛ",
        "ə̇",
        "ş̇",
        "oʻzbek",
        "ĳs",
        "het",
        "een",
        "van",
        "og",
        "ikke",
        "æble",
        "ø",
        "é",
        "x",
        "q",
        "zz",
        "2024",
        "p.s.",
        "—",
        "'",
        "A",
        "Ü",
        "🔥",
        "𝐚𝐛𝐜",
    ];

    proptest::proptest! {
        #[test]
        fn same_answer_as_whatlang_on_word_salads(
            parts in proptest::collection::vec((0..WORDS.len(), 0..4usize), 0..1500),
            noise in "\\PC{0,30}",
        ) {
            let mut text = String::new();
            for (w, s) in parts {
                text.push_str(WORDS[w]);
                text.push_str([" ", ", ", ". ", "\n"][s]);
            }
            text.push_str(&noise);
            if let Some(expected) = reference(&text) {
                proptest::prop_assert_eq!(detect(&text), expected);
            }
        }

        #[test]
        fn same_answer_as_whatlang_on_latin_letters(text in "[a-zA-Z0-9 .,'áéíóúàèäöüßçñøåæœšžčłęąőűğışə\u{307}]{0,300}") {
            if let Some(expected) = reference(&text) {
                proptest::prop_assert_eq!(detect(&text), expected);
            }
        }

        #[test]
        fn same_answer_as_whatlang_on_any_string(text in proptest::prelude::any::<String>()) {
            if let Some(expected) = reference(&text) {
                proptest::prop_assert_eq!(detect(&text), expected);
            }
        }
    }
}
