//! Reading a bilingual dictionary in the dictd format (`NAME.index` + `NAME.dict.dz`, as
//! Debian's `dict-*` packages install them under `/usr/share/dictd`), and turning the
//! Mueller English-Russian dictionary's entries into word pairs.
//!
//! Written by hand: dictd's index is one line per headword (`word TAB offset TAB length`,
//! the numbers in dictd's base 64) and `.dict.dz` is gzip (dictzip adds random access,
//! which a whole read does not need); no crate reads it. The entry parser is ours: it
//! keeps the translations of the headword and drops the Russian of example phrases.

use std::io::Read;
use std::path::Path;

use crate::Error;

/// The most a dictionary's text may unpack to (the Mueller dictionary is 9 MB): a damaged
/// or hostile file is refused, not read into memory.
pub const MAX_DICTIONARY_BYTES: u64 = 64 << 20;

/// One translation: a headword of the `from` language and one word that translates it,
/// with its `rank` (0 for the entry's first translation, then in the order given: a
/// dictionary lists the usual sense first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordPair {
    /// The headword (one word, as written).
    pub from: String,
    /// A word of one of its translations (as written).
    pub to: String,
    /// Position among the headword's translations, 0 first.
    pub rank: u16,
}

/// Reads `dir/NAME.index` and `dir/NAME.dict.dz` into (headword, entry text) pairs.
pub fn read_entries(dir: &Path, name: &str) -> Result<Vec<(String, String)>, Error> {
    let index_path = dir.join(format!("{name}.index"));
    let dict_path = dir.join(format!("{name}.dict.dz"));
    let index = std::fs::read_to_string(&index_path)
        .map_err(|e| Error::Dictionary(format!("{}: {e}", index_path.display())))?;
    let file =
        std::fs::File::open(&dict_path).map_err(|e| Error::Dictionary(format!("{}: {e}", dict_path.display())))?;
    let mut dict = Vec::new();
    flate2::read::MultiGzDecoder::new(file)
        .take(MAX_DICTIONARY_BYTES + 1)
        .read_to_end(&mut dict)
        .map_err(|e| Error::Dictionary(format!("{}: not a gzip file: {e}", dict_path.display())))?;
    if dict.len() as u64 > MAX_DICTIONARY_BYTES {
        return Err(Error::Dictionary(format!(
            "{}: unpacks to more than {MAX_DICTIONARY_BYTES} bytes",
            dict_path.display()
        )));
    }
    parse_index(&index, &dict).map_err(|e| Error::Dictionary(format!("{}: {e}", index_path.display())))
}

/// The entries an index names in `dict`: (headword, entry text without its headword line).
pub fn parse_index(index: &str, dict: &[u8]) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for (number, line) in index.lines().enumerate() {
        let mut fields = line.split('\t');
        let (Some(word), Some(offset), Some(length)) = (fields.next(), fields.next(), fields.next()) else {
            return Err(format!("line {}: not `word TAB offset TAB length`", number + 1));
        };
        let (Some(offset), Some(length)) = (base64_number(offset), base64_number(length)) else {
            return Err(format!("line {}: offset or length is not a dictd number", number + 1));
        };
        let end = offset.checked_add(length).filter(|&e| e <= dict.len() as u64);
        let Some(end) = end else {
            return Err(format!("line {}: entry past the end of the dictionary", number + 1));
        };
        let body = String::from_utf8_lossy(&dict[offset as usize..end as usize]);
        // The entry repeats its headword on its first line.
        let body = body.split_once('\n').map_or("", |(_, rest)| rest);
        out.push((word.to_owned(), body.to_owned()));
    }
    Ok(out)
}

/// A number in dictd's base 64 (`A-Z a-z 0-9 + /`, most significant digit first).
fn base64_number(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > 10 {
        return None;
    }
    s.bytes().try_fold(0u64, |n, b| {
        let digit = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        Some(n * 64 + u64::from(digit))
    })
}

/// Word pairs of the Mueller English-Russian dictionary's entries (one-word headwords).
///
/// An entry gives its senses as `1) дом; жилище; здание`, with the transcription in
/// brackets, grammar marks (`_n.`, `_pl.`), notes in parentheses and braces, and example
/// phrases (`to keep house вести хозяйство`) among the translations. A segment between
/// semicolons that holds a Latin letter is an example or a cross-reference and is
/// dropped (its Russian translates the phrase, not the headword); the rest are
/// translations, split at commas, and each of their Cyrillic words is paired with the
/// headword. A form that only points to its lemma (`went`: `_p. от go`) takes the lemma's
/// translations.
pub fn mueller_pairs(entries: &[(String, String)]) -> Vec<WordPair> {
    let mut pairs = Vec::new();
    let mut pointers = Vec::new();
    for (headword, body) in entries {
        if headword.contains([' ', '-', '.']) || headword.starts_with('_') || headword.starts_with("00") {
            continue;
        }
        let text = clean_entry(body);
        let mut rank = 0u16;
        let mut any = false;
        for segment in text.split([';', ':']) {
            if segment.chars().any(|c| c.is_ascii_alphabetic()) {
                continue;
            }
            for item in segment.split(',') {
                let words: Vec<&str> = item.split(|c: char| !is_cyrillic_letter(c)).filter(|w| !w.is_empty()).collect();
                if words.is_empty() {
                    continue;
                }
                for word in words {
                    pairs.push(WordPair { from: headword.to_lowercase(), to: word.to_lowercase(), rank });
                    any = true;
                }
                rank = rank.saturating_add(1);
            }
        }
        if !any && let Some(lemma) = pointed_lemma(&text) {
            pointers.push((headword.to_lowercase(), lemma));
        }
    }
    // Forms that point to a lemma take its translations (one step: a lemma is an entry).
    let mut by_headword: foldhash::HashMap<&str, Vec<(&str, u16)>> = foldhash::HashMap::default();
    for p in &pairs {
        by_headword.entry(p.from.as_str()).or_default().push((p.to.as_str(), p.rank));
    }
    let mut pointed = Vec::new();
    for (form, lemma) in pointers {
        if let Some(list) = by_headword.get(lemma.as_str()) {
            pointed.extend(list.iter().map(|&(to, rank)| WordPair { from: form.clone(), to: to.to_owned(), rank }));
        }
    }
    pairs.extend(pointed);
    pairs
}

/// An entry's text on one line without transcriptions (`[...]`), notes (`(...)`,
/// `{...}`), grammar marks (`_n.`) and sense numbers (`1.`, `1)`, `а)`).
fn clean_entry(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut depth = 0usize;
    for c in body.chars() {
        match c {
            '[' | '(' | '{' => depth += 1,
            ']' | ')' | '}' if depth > 0 => depth -= 1,
            _ if depth > 0 => {}
            '\n' => out.push(' '),
            _ => out.push(c),
        }
    }
    // Grammar marks: `_word.` (Latin or Cyrillic), and a sense letter or number followed
    // by `)` was already cut with the parenthesis; numbers with `.` are dropped here.
    let mut cleaned = String::with_capacity(out.len());
    for token in out.split(' ') {
        if token.starts_with('_') {
            // `_p.`/`_сокр.` are marks; a mark glued to a `;` keeps the separator.
            if token.ends_with(';') {
                cleaned.push(';');
            }
            continue;
        }
        if token.trim_end_matches(['.', ')']).chars().all(|c| c.is_ascii_digit()) {
            if token.ends_with(';') {
                cleaned.push(';');
            }
            cleaned.push(' ');
            continue;
        }
        cleaned.push_str(token);
        cleaned.push(' ');
    }
    cleaned
}

/// The lemma an entry points to (`от go`, `= were not` is not one), if that is all it is.
fn pointed_lemma(text: &str) -> Option<String> {
    let rest = text.split("от ").nth(1)?;
    let word: String = rest.trim_start().chars().take_while(|c| c.is_ascii_alphabetic()).collect();
    (!word.is_empty()).then(|| word.to_lowercase())
}

/// Cyrillic letters (and the combining stress mark some entries carry, dropped later by
/// the normalizer).
fn is_cyrillic_letter(c: char) -> bool {
    matches!(c, '\u{0400}'..='\u{04FF}' | '\u{0301}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dictd_numbers_are_base_64() {
        assert_eq!(base64_number("A"), Some(0));
        assert_eq!(base64_number("BA"), Some(64));
        assert_eq!(base64_number("C+m"), Some(2 * 64 * 64 + 62 * 64 + 38));
        assert_eq!(base64_number("a!"), None);
        assert_eq!(base64_number(""), None);
    }

    #[test]
    fn an_index_past_its_dictionary_is_an_error_not_a_panic() {
        assert!(parse_index("house\tA\tZZZ\n", b"house\n   dom\n").is_err());
        assert!(parse_index("house\n", b"").is_err());
        let entries = parse_index("house\tA\tQ\n", b"house\n   1) dom\n").unwrap();
        assert_eq!(entries, vec![("house".to_owned(), "   1) dom\n".to_owned())]);
    }

    fn pairs_of(headword: &str, body: &str) -> Vec<(String, u16)> {
        mueller_pairs(&[(headword.to_owned(), body.to_owned())]).into_iter().map(|p| (p.to, p.rank)).collect()
    }

    #[test]
    fn translations_are_kept_and_example_phrases_dropped() {
        let body = "   1. _n. [haʊs], _pl. [↗haʊzɪz]\n      1) дом; жилище; здание\n      2) дом; семья; \
                    хозяйство; to keep house вести хозяйство; to keep the\n      house сидеть дома\n";
        let got = pairs_of("house", body);
        let words: Vec<&str> = got.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(words, ["дом", "жилище", "здание", "дом", "семья", "хозяйство"]);
        assert_eq!(got[0].1, 0);
        assert!(got[2].1 > got[1].1);
    }

    #[test]
    fn a_form_takes_the_translations_of_the_lemma_it_points_to() {
        let entries = vec![
            ("go".to_owned(), "   [gəʊ] _v. идти, ходить\n".to_owned()),
            ("went".to_owned(), "   [wɛnt] _p. от go 1\n".to_owned()),
        ];
        let pairs = mueller_pairs(&entries);
        let went: Vec<&str> = pairs.iter().filter(|p| p.from == "went").map(|p| p.to.as_str()).collect();
        assert_eq!(went, ["идти", "ходить"]);
    }
}
