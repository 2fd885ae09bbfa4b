//! Translations of a text's terms into another language's terms: what lets alignment
//! and stage 1 find a source written in another language (a Russian thesis translating
//! an English article, and the reverse).
//!
//! A [`Lexicon`] maps each term of one language to the terms of another that may
//! translate it, both made by the normalizer of the index (so they are compared with the
//! terms a snapshot stores, and a text in another language needs no text of the source).
//! [`Lexicon::translate`] gives every token of a text its *translations*: the lexicon's
//! terms for the token's term; for a name (a word the text capitalises throughout, or
//! one the lexicon does not know that starts with a capital), the terms of its spellings
//! in the other script ([`translit`]: Ставрогин <-> Stavrogin, Сергеевна <-> Sergeyevna);
//! and the token's own term when it is written alike in both texts (words with digits
//! such as `covid19` or `h2o`, and Latin-script terms in a Russian text). A word of the
//! text's own script never stands for itself: a suspect is not matched with a source
//! in its own language by this path (that is the monolingual search's work).
//!
//! # Where the words come from
//! Bilingual dictionaries are data, read at run time from a folder
//! ([`dictionary_dirs`]: `TESSERA_DICTIONARIES` when set, else `/usr/share/dictd`):
//! - `mueller7.index` + `mueller7.dict.dz`, the Mueller English-Russian dictionary
//!   (Debian's `mueller7-dict`, GPL: read where the system installs it, never shipped);
//!   each English headword is paired with the Russian words of its translations, and
//!   read in both directions;
//! - any `FROM-TO.tsv` (ISO 639-1 codes, `en-de.tsv`): lines `word TAB translation`
//!   (optional third column, the rank: 0 for the usual sense); another language pair is
//!   such a file, not code.
//!
//! A term keeps at most [`MAX_TRANSLATIONS`] translations, the usual senses first (a
//! word with many senses would otherwise match any text).

mod dictd;
pub mod translit;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use foldhash::{HashMap, HashMapExt, HashSet};
use tessera_normalize::{Normalizer, NormalizerConfig};

pub use dictd::{MAX_DICTIONARY_BYTES, WordPair, mueller_pairs, parse_index};

use crate::{Error, Fingerprint};

/// The most translations one term keeps.
pub const MAX_TRANSLATIONS: usize = 20;

/// The shortest name (in characters) that is transliterated: shorter ones
/// ("ан", "ли") spell common words of the other language.
pub const MIN_NAME_CHARS: usize = 3;

/// Endings a Russian stem may have lost that an English spelling keeps (Анна: stem "анн",
/// "Anna"; Дмитрий: "дмитр", "Dmitri").
const NAME_ENDINGS: [&str; 6] = ["", "a", "i", "y", "e", "o"];

/// Case endings of Russian names whose forms stem differently (Гуров "гур", Гурова
/// "гуров"; Анна, Анну "ан").
const RUSSIAN_CASE_ENDINGS: [&str; 4] = ["", "а", "у", "ым"];

/// Common content words of each language a lexicon may translate into, by which a
/// check tells whether a collection holds documents in it ([`Lexicon::probes`]):
/// any text of a page or more in the language holds several of them. A language without
/// such a list (one a `FROM-TO.tsv` brings) is searched in every collection.
pub const PROBE_WORDS: &[(&str, &[&str])] = &[
    (
        "en",
        &[
            "time",
            "people",
            "year",
            "way",
            "day",
            "man",
            "thing",
            "woman",
            "life",
            "child",
            "world",
            "work",
            "hand",
            "part",
            "place",
            "say",
            "said",
            "make",
            "made",
            "know",
            "think",
            "come",
            "came",
            "look",
            "want",
            "give",
            "find",
            "tell",
            "told",
            "ask",
            "good",
            "new",
            "first",
            "last",
            "long",
            "great",
            "little",
            "old",
            "right",
            "big",
            "high",
            "different",
            "small",
            "large",
            "next",
            "early",
            "young",
        ],
    ),
    (
        "ru",
        &[
            "время",
            "человек",
            "год",
            "дело",
            "жизнь",
            "день",
            "рука",
            "раз",
            "работа",
            "слово",
            "место",
            "лицо",
            "друг",
            "глаз",
            "вопрос",
            "дом",
            "сторона",
            "страна",
            "мир",
            "случай",
            "голова",
            "ребенок",
            "сила",
            "конец",
            "вид",
            "система",
            "часть",
            "город",
            "отношение",
            "женщина",
            "деньги",
            "сказать",
            "говорить",
            "знать",
            "стать",
            "видеть",
            "хотеть",
            "думать",
            "новый",
            "большой",
            "первый",
            "последний",
        ],
    ),
];

/// The folders searched for dictionaries: `TESSERA_DICTIONARIES` when set (that folder
/// alone), else `/usr/share/dictd`, where Debian's `dict-*` packages install them.
pub fn dictionary_dirs() -> Vec<PathBuf> {
    match std::env::var_os("TESSERA_DICTIONARIES") {
        Some(dir) => vec![PathBuf::from(dir)],
        None => vec![PathBuf::from("/usr/share/dictd")],
    }
}

/// One direction of a lexicon: terms of `from` -> terms of `to` (low 32 bits, as
/// snapshots store terms).
#[derive(Debug, Default)]
struct Direction {
    from: String,
    to: String,
    terms: HashMap<u64, Box<[u32]>>,
}

/// Bilingual term translations made with one normalizer's settings.
pub struct Lexicon {
    directions: Vec<Direction>,
    /// Where the words came from (for messages): the files read.
    sources: Vec<PathBuf>,
    normalizer: Mutex<Normalizer>,
}

impl std::fmt::Debug for Lexicon {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let directions: Vec<String> =
            self.directions.iter().map(|d| format!("{}->{} ({} terms)", d.from, d.to, d.terms.len())).collect();
        f.debug_struct("Lexicon").field("directions", &directions).field("sources", &self.sources).finish()
    }
}

/// The lexicons built so far in this process, by normalizer settings.
type Built = Vec<(NormalizerConfig, Arc<Lexicon>)>;

impl Lexicon {
    /// The lexicon of the dictionaries installed on this machine ([`dictionary_dirs`]),
    /// with terms made by a normalizer of `config`. Built once per process and settings
    /// (about a second for the Mueller dictionary), then shared. An error says which
    /// folders were searched when none holds a dictionary.
    pub fn installed(config: &NormalizerConfig) -> Result<Arc<Self>, Error> {
        static BUILT: OnceLock<Mutex<Built>> = OnceLock::new();
        let built = BUILT.get_or_init(|| Mutex::new(Vec::new()));
        // A poisoned lock only means another thread panicked while building: the list
        // itself is always whole (one push).
        let mut built = built.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, l)) = built.iter().find(|(c, _)| c == config) {
            return Ok(Arc::clone(l));
        }
        let lexicon = Arc::new(Self::from_dirs(&dictionary_dirs(), config)?);
        built.push((config.clone(), Arc::clone(&lexicon)));
        Ok(lexicon)
    }

    /// The language pairs (`from`, `to`; both directions of each dictionary, sorted) that
    /// [`Lexicon::installed`] would translate, from the dictionaries' file names alone (the
    /// first folder of [`dictionary_dirs`] holding any, as `installed` reads): what a check
    /// may look for before it reads a dictionary.
    pub fn installed_pairs() -> Vec<(String, String)> {
        for dir in dictionary_dirs() {
            let mut pairs = Vec::new();
            if dir.join("mueller7.index").is_file() {
                pairs.push(("en".to_owned(), "ru".to_owned()));
            }
            if let Ok(listing) = std::fs::read_dir(&dir) {
                pairs.extend(listing.filter_map(|e| e.ok()).filter_map(|e| tsv_languages(&e.path())));
            }
            if !pairs.is_empty() {
                let mut both: Vec<(String, String)> =
                    pairs.iter().flat_map(|(a, b)| [(a.clone(), b.clone()), (b.clone(), a.clone())]).collect();
                both.sort();
                both.dedup();
                return both;
            }
        }
        Vec::new()
    }

    /// The terms (low 32 bits) of [`PROBE_WORDS`] of every language, made by a normalizer
    /// of `config`: a collection holding none of a language's holds no document in it.
    pub fn probes(config: &NormalizerConfig) -> Result<Vec<(String, Vec<u32>)>, Error> {
        let mut normalizer = Normalizer::new(config.clone())?;
        Ok(PROBE_WORDS
            .iter()
            .map(|(language, words)| {
                let mut terms: Vec<u32> = words
                    .iter()
                    .filter_map(|w| normalizer.canonical(w))
                    .map(|c| crate::shingle::term_hash(&c) as u32)
                    .collect();
                terms.sort_unstable();
                terms.dedup();
                ((*language).to_owned(), terms)
            })
            .collect())
    }

    /// A lexicon of the dictionaries in the first of `dirs` that holds any.
    pub fn from_dirs(dirs: &[PathBuf], config: &NormalizerConfig) -> Result<Self, Error> {
        for dir in dirs {
            let mut pairs: Vec<(String, String, Vec<WordPair>)> = Vec::new();
            let mut sources = Vec::new();
            if dir.join("mueller7.index").is_file() {
                let entries = dictd::read_entries(dir, "mueller7")?;
                pairs.push(("en".into(), "ru".into(), mueller_pairs(&entries)));
                sources.push(dir.join("mueller7.dict.dz"));
            }
            if let Ok(listing) = std::fs::read_dir(dir) {
                let mut tsv: Vec<PathBuf> = listing
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "tsv"))
                    .collect();
                tsv.sort();
                for path in tsv {
                    if let Some((from, to)) = tsv_languages(&path) {
                        pairs.push((from, to, read_tsv(&path)?));
                        sources.push(path);
                    }
                }
            }
            if !pairs.is_empty() {
                let mut lexicon = Self::from_pairs(&pairs, config)?;
                lexicon.sources = sources;
                return Ok(lexicon);
            }
        }
        let tried: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        Err(Error::Dictionary(format!(
            "no bilingual dictionary in {} (install Debian's mueller7-dict, or put FROM-TO.tsv files in \
             TESSERA_DICTIONARIES)",
            tried.join(", ")
        )))
    }

    /// A lexicon of word pairs, each list read in both directions: `(from, to, pairs)`.
    pub fn from_pairs(lists: &[(String, String, Vec<WordPair>)], config: &NormalizerConfig) -> Result<Self, Error> {
        let mut normalizer = Normalizer::new(config.clone())?;
        let mut terms: HashMap<String, Option<u64>> = HashMap::new();
        let mut term_of = |word: &str, normalizer: &mut Normalizer| -> Option<u64> {
            if let Some(&t) = terms.get(word) {
                return t;
            }
            let t = normalizer.canonical(word).map(|c| crate::shingle::term_hash(&c));
            terms.insert(word.to_owned(), t);
            t
        };
        let mut directions: Vec<Direction> = Vec::new();
        for (from, to, pairs) in lists {
            // A word that many words translate (дом: house, home, building, dynasty...)
            // lists first those it is the usual translation of (rank), and among them
            // those with the most senses: a common word has a long entry, a rare one
            // ("domicile") a short one.
            let mut senses: HashMap<&str, u32> = HashMap::new();
            for pair in pairs {
                *senses.entry(pair.from.as_str()).or_insert(0) += 1;
            }
            let mut forward: HashMap<u64, Vec<(u32, u32)>> = HashMap::new();
            let mut backward: HashMap<u64, Vec<(u32, u32)>> = HashMap::new();
            for pair in pairs {
                let (Some(a), Some(b)) = (term_of(&pair.from, &mut normalizer), term_of(&pair.to, &mut normalizer))
                else {
                    continue;
                };
                let rank = u32::from(pair.rank) << 16;
                let commonness = u32::from(u16::MAX) - senses.get(pair.from.as_str()).copied().unwrap_or(0).min(0xFFFF);
                forward.entry(a).or_default().push((rank, b as u32));
                backward.entry(b).or_default().push((rank | commonness, a as u32));
            }
            merge_direction(&mut directions, from, to, forward);
            merge_direction(&mut directions, to, from, backward);
        }
        keep_mutual(&mut directions);
        Ok(Self { directions, sources: Vec::new(), normalizer: Mutex::new(normalizer) })
    }

    /// Whether this lexicon translates `from` into `to` (ISO 639-1 codes).
    pub fn translates(&self, from: &str, to: &str) -> bool {
        self.direction(from, to).is_some()
    }

    /// The languages this lexicon translates `from` into, sorted.
    pub fn targets(&self, from: &str) -> Vec<String> {
        let mut out: Vec<String> =
            self.directions.iter().filter(|d| d.from == from && d.to != from).map(|d| d.to.clone()).collect();
        out.sort();
        out
    }

    /// The files the lexicon was read from.
    pub fn sources(&self) -> &[PathBuf] {
        &self.sources
    }

    /// The translations (terms of `to`, low 32 bits) of the term `term` of `from`.
    pub fn of_term(&self, from: &str, to: &str, term: u64) -> &[u32] {
        self.direction(from, to).and_then(|d| d.terms.get(&term)).map_or(&[], |t| t)
    }

    fn direction(&self, from: &str, to: &str) -> Option<&Direction> {
        self.directions.iter().find(|d| d.from == from && d.to == to)
    }

    /// The translations of every token of `fingerprint` (a text of language `from`, its
    /// `names` as [`crate::names`] gives them) into terms of language `to`.
    pub fn translate(
        &self,
        text: &str,
        fingerprint: &Fingerprint,
        names: &[u64],
        from: &str,
        to: &str,
    ) -> Translations {
        self.translate_tokens(text, &fingerprint.token_bytes, &fingerprint.terms, names, from, to)
    }

    /// [`Lexicon::translate`] of tokens given by their byte spans in `text` and their
    /// full term hashes.
    pub fn translate_tokens(
        &self,
        text: &str,
        token_bytes: &[tessera_normalize::Span],
        terms: &[u64],
        names: &[u64],
        from: &str,
        to: &str,
    ) -> Translations {
        let mut out = Translations {
            from: from.to_owned(),
            to: to.to_owned(),
            starts: Vec::with_capacity(terms.len() + 1),
            terms: Vec::with_capacity(terms.len() * 4),
        };
        let Some(direction) = self.direction(from, to) else {
            out.starts.resize(terms.len() + 1, 0);
            return out;
        };
        let mut normalizer = self.normalizer.lock().unwrap_or_else(|e| e.into_inner());
        let mut spelt: HashMap<u64, Vec<u32>> = HashMap::new();
        let mut seen: HashSet<u32> = HashSet::default();
        out.starts.push(0);
        for (span, &term) in token_bytes.iter().zip(terms) {
            seen.clear();
            let mut push = |t: u32, out: &mut Vec<u32>| {
                if seen.insert(t) {
                    out.push(t);
                }
            };
            let word = text.get(span.start..span.end).unwrap_or("");
            // Written alike in both texts: words with digits, and words in the other
            // language's script (a Latin term in a Russian text). A word of the text's
            // own script stands for itself only in its own language.
            let cyrillic = word.chars().any(|c| matches!(c, '\u{0400}'..='\u{04FF}'));
            let own_script = if from == "ru" { cyrillic } else { !cyrillic };
            if word.chars().any(|c| c.is_ascii_digit()) || !own_script {
                push(term as u32, &mut out.terms);
            }
            let known = direction.terms.get(&term);
            if let Some(list) = known {
                list.iter().for_each(|&t| push(t, &mut out.terms));
            }
            let capital = word.chars().next().is_some_and(char::is_uppercase);
            if names.binary_search(&term).is_ok() || (known.is_none() && capital) {
                let spellings = spelt.entry(term).or_insert_with(|| name_spellings(word, to, &mut normalizer)).clone();
                spellings.into_iter().for_each(|t| push(t, &mut out.terms));
            }
            out.starts.push(out.terms.len() as u32);
        }
        out
    }
}

/// The terms of language `to` that spell a name written `word` in the other script.
///
/// Russian stems a name by its case (Гуров: "гур", Гурова: "гуров"), so a name is spelt
/// from its surface form and from its stem with the endings a stem may have lost
/// ([`NAME_ENDINGS`]); a Latin name is spelt in Cyrillic with the case endings whose
/// stems its Russian forms take ([`RUSSIAN_CASE_ENDINGS`]).
fn name_spellings(word: &str, to: &str, normalizer: &mut Normalizer) -> Vec<u32> {
    let Some(canonical) = normalizer.canonical(word) else {
        return Vec::new();
    };
    if word.chars().count() < MIN_NAME_CHARS {
        return Vec::new();
    }
    let cyrillic = canonical.chars().any(|c| matches!(c, '\u{0400}'..='\u{04FF}'));
    let spellings: Vec<String> = match (cyrillic, to) {
        (true, "ru") | (false, "en") => return Vec::new(),
        (true, _) => {
            let surface: String = word.chars().flat_map(char::to_lowercase).collect();
            let mut all = translit::cyrillic_to_latin(&surface);
            all.extend(
                translit::cyrillic_to_latin(&canonical)
                    .into_iter()
                    .flat_map(|s| NAME_ENDINGS.iter().map(move |e| format!("{s}{e}"))),
            );
            all
        }
        (false, "ru") => translit::latin_to_cyrillic(&canonical)
            .into_iter()
            .flat_map(|s| RUSSIAN_CASE_ENDINGS.iter().map(move |e| format!("{s}{e}")))
            .collect(),
        (false, _) => return Vec::new(),
    };
    let mut out: Vec<u32> = spellings
        .iter()
        .filter_map(|s| normalizer.canonical(s))
        .filter(|c| c.chars().count() >= 2)
        .map(|c| crate::shingle::term_hash(&c) as u32)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The language of a text for translation (ISO 639-1): `ru` when most of its tokens are
/// Cyrillic, else the normalizer's `detected` language (`en` when it has none) when most
/// are Latin; `None` for a text of neither or no tokens. The normalizer detects only
/// what its terms depend on (a Latin text's stemmer), so a Cyrillic text has no
/// detected language.
pub fn text_language(text: &str, token_bytes: &[tessera_normalize::Span], detected: Option<&str>) -> Option<String> {
    let (mut latin, mut cyrillic) = (0usize, 0usize);
    for span in token_bytes {
        match text.get(span.start..).and_then(|t| t.chars().next()) {
            Some(c) if c.is_ascii_alphabetic() || matches!(c, '\u{00C0}'..='\u{024F}') => latin += 1,
            Some('\u{0400}'..='\u{04FF}') => cyrillic += 1,
            _ => {}
        }
    }
    let half = token_bytes.len() / 2;
    if cyrillic > half {
        Some("ru".to_owned())
    } else if latin > half {
        Some(detected.unwrap_or("en").to_owned())
    } else {
        None
    }
}

/// Adds `pairs` (by sort key, smallest first) to the direction `from -> to`, keeping each term's
/// [`MAX_TRANSLATIONS`] best.
fn merge_direction(directions: &mut Vec<Direction>, from: &str, to: &str, pairs: HashMap<u64, Vec<(u32, u32)>>) {
    let at = match directions.iter().position(|d| d.from == from && d.to == to) {
        Some(at) => at,
        None => {
            directions.push(Direction { from: from.to_owned(), to: to.to_owned(), terms: HashMap::new() });
            directions.len() - 1
        }
    };
    let direction = &mut directions[at];
    for (term, mut list) in pairs {
        if let Some(old) = direction.terms.get(&term) {
            list.extend(old.iter().enumerate().map(|(rank, &t)| ((rank as u32) << 16, t)));
        }
        list.sort_unstable();
        let mut kept: Vec<u32> = Vec::with_capacity(MAX_TRANSLATIONS);
        for (_, t) in list {
            if !kept.contains(&t) && t != term as u32 {
                kept.push(t);
                if kept.len() == MAX_TRANSLATIONS {
                    break;
                }
            }
        }
        direction.terms.insert(term, kept.into_boxed_slice());
    }
}

/// Keeps a translation `a -> b` only when `b -> a` is kept too (each among the other's
/// [`MAX_TRANSLATIONS`] best): a word with many senses keeps the translations for which
/// it is itself a usual rendering, not every word one of its rare senses may give.
fn keep_mutual(directions: &mut [Direction]) {
    let full: Vec<HashMap<u32, u64>> =
        directions.iter().map(|d| d.terms.keys().map(|&t| (t as u32, t)).collect()).collect();
    let kept: Vec<HashMap<u64, Box<[u32]>>> = directions
        .iter()
        .map(|d| {
            let Some(back) = directions.iter().position(|e| e.from == d.to && e.to == d.from) else {
                return d.terms.clone();
            };
            d.terms
                .iter()
                .map(|(&a, list)| {
                    let mutual: Vec<u32> = list
                        .iter()
                        .copied()
                        .filter(|b| {
                            full[back]
                                .get(b)
                                .and_then(|b| directions[back].terms.get(b))
                                .is_some_and(|l| l.contains(&(a as u32)))
                        })
                        .collect();
                    (a, mutual.into_boxed_slice())
                })
                .collect()
        })
        .collect();
    for (d, terms) in directions.iter_mut().zip(kept) {
        d.terms = terms;
    }
}

/// `en-de.tsv` -> ("en", "de").
fn tsv_languages(path: &Path) -> Option<(String, String)> {
    let stem = path.file_stem()?.to_str()?;
    let (from, to) = stem.split_once('-')?;
    let code = |s: &str| s.len() == 2 && s.bytes().all(|b| b.is_ascii_lowercase());
    (code(from) && code(to)).then(|| (from.to_owned(), to.to_owned()))
}

/// Word pairs of a `FROM-TO.tsv` file.
fn read_tsv(path: &Path) -> Result<Vec<WordPair>, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Dictionary(format!("{}: {e}", path.display())))?;
    let mut pairs = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.split('\t');
        let (Some(from), Some(to)) = (fields.next(), fields.next()) else {
            return Err(Error::Dictionary(format!(
                "{}: line {}: not `word TAB translation`",
                path.display(),
                number + 1
            )));
        };
        let rank = match fields.next() {
            Some(r) => r.trim().parse().map_err(|_| {
                Error::Dictionary(format!("{}: line {}: the rank is not a number", path.display(), number + 1))
            })?,
            None => 0,
        };
        pairs.push(WordPair { from: from.trim().to_owned(), to: to.trim().to_owned(), rank });
    }
    Ok(pairs)
}

/// Every token's translations ([`Lexicon::translate`]): terms of the other language, low
/// 32 bits (the token's own term among them when it is written alike in both languages:
/// a word with digits, or one in the other language's script).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Translations {
    /// The text's language.
    pub from: String,
    /// The language translated into.
    pub to: String,
    /// Where each token's translations start in `terms` (one more than tokens).
    starts: Vec<u32>,
    terms: Vec<u32>,
}

impl Translations {
    /// Translations of token `i` (empty past the end).
    pub fn of(&self, i: usize) -> &[u32] {
        match (self.starts.get(i), self.starts.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.terms[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Whether there are no tokens.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Fingerprinter, ShingleConfig, names};

    fn lexicon() -> Lexicon {
        let pairs = [("house", "дом"), ("house", "здание"), ("old", "старый"), ("garden", "сад"), ("garden", "огород")]
            .iter()
            .enumerate()
            .map(|(i, (a, b))| WordPair { from: (*a).into(), to: (*b).into(), rank: i as u16 })
            .collect();
        Lexicon::from_pairs(&[("en".into(), "ru".into(), pairs)], &NormalizerConfig::default()).unwrap()
    }

    fn term64(word: &str) -> u64 {
        let mut n = Normalizer::new(NormalizerConfig::default()).unwrap();
        crate::shingle::term_hash(&n.canonical(word).unwrap())
    }

    fn term(word: &str) -> u32 {
        term64(word) as u32
    }

    #[test]
    fn words_translate_both_ways_through_their_terms() {
        let lexicon = lexicon();
        let mut fp = Fingerprinter::new(NormalizerConfig::default(), ShingleConfig::default()).unwrap();
        let text = "The old houses stood in a garden.";
        let f = fp.fingerprint(text);
        let t = lexicon.translate(text, &f, &[], "en", "ru");
        assert_eq!(t.len(), f.terms.len());
        // houses -> дом (any form: the term is the stem), здание.
        let houses = t.of(1);
        assert!(houses.contains(&term("домами")) && houses.contains(&term("здания")));
        let ru = "Старые дома стояли в саду.";
        let f = fp.fingerprint(ru);
        let t = lexicon.translate(ru, &f, &[], "ru", "en");
        assert!(t.of(1).contains(&term("house")));
        assert!(t.of(3).contains(&term("gardens")));
        assert!(!lexicon.translates("en", "de"));
    }

    #[test]
    fn names_translate_by_their_spellings() {
        let lexicon = lexicon();
        let mut fp = Fingerprinter::new(NormalizerConfig::default(), ShingleConfig::default()).unwrap();
        let text = "Then Anna Sergeyevna saw that Gurov was looking at Anna.";
        let f = fp.fingerprint(text);
        let n = names(text, &f.token_bytes, &f.terms, Some("en"));
        let t = lexicon.translate(text, &f, &n, "en", "ru");
        let all: Vec<u32> = (0..t.len()).flat_map(|i| t.of(i).to_vec()).collect();
        let mut nz = Normalizer::new(NormalizerConfig::default()).unwrap();
        for russian in ["Анну", "Сергеевна", "Гурова", "Гуров"] {
            assert!(all.contains(&term(russian)), "{russian}: {:?}", nz.canonical(russian));
        }
        let ru = "Потом Анна Сергеевна увидела, что Гурова смотрит на Анну.";
        let f = fp.fingerprint(ru);
        let n = names(ru, &f.token_bytes, &f.terms, Some("ru"));
        let t = lexicon.translate(ru, &f, &n, "ru", "en");
        let all: Vec<u32> = (0..t.len()).flat_map(|i| t.of(i).to_vec()).collect();
        for english in ["Anna", "Sergeyevna", "Gurov's"] {
            assert!(all.contains(&term(english)), "{english}");
        }
    }

    #[test]
    fn a_missing_dictionary_names_the_folders_searched() {
        let dir = std::env::temp_dir().join("tessera-no-dictionaries-here");
        let err = Lexicon::from_dirs(std::slice::from_ref(&dir), &NormalizerConfig::default()).unwrap_err();
        assert!(err.to_string().contains("tessera-no-dictionaries-here"), "{err}");
    }

    #[test]
    fn a_tsv_file_is_a_language_pair() {
        let dir = tempfile_dir("tsv");
        std::fs::write(dir.join("en-de.tsv"), "house\tHaus\ngarden\tGarten\t0\n").unwrap();
        let lexicon = Lexicon::from_dirs(std::slice::from_ref(&dir), &NormalizerConfig::default()).unwrap();
        assert!(lexicon.translates("en", "de") && lexicon.translates("de", "en"));
        std::fs::write(dir.join("en-de.tsv"), "house\tHaus\tfirst\n").unwrap();
        let err = Lexicon::from_dirs(std::slice::from_ref(&dir), &NormalizerConfig::default()).unwrap_err();
        assert!(err.to_string().contains("en-de.tsv: line 1"), "{err}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    fn tempfile_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tessera-lexicon-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The installed Mueller dictionary (when this machine has it: CI installs it).
    #[test]
    fn the_installed_dictionary_translates_common_words() {
        let Ok(lexicon) = Lexicon::installed(&NormalizerConfig::default()) else {
            eprintln!("skipped: no dictionary installed");
            return;
        };
        let house = lexicon.of_term("en", "ru", term64("house"));
        assert!(house.contains(&term("дом")), "{house:?}");
        let garden = lexicon.of_term("ru", "en", term64("сад"));
        assert!(garden.contains(&term("garden")), "{garden:?}");
        // A past form takes its lemma's translations.
        assert!(lexicon.of_term("en", "ru", term64("went")).contains(&term("идти")));
    }
}
