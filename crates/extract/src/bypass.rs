//! Text-level tricks that hide borrowing (seed 000), found in the extracted
//! text of every format: look-alike letters of another script inside words,
//! invisible characters inside words, letters spaced apart, and spaces
//! replaced by other characters.
//!
//! Finding them here only reports them ([`Warning::Bypass`] with locations);
//! `tessera-normalize` neutralises them when it makes terms (it folds
//! look-alikes, skips invisible characters inside words, joins spaced
//! letters, and splits words at every non-letter), so they do not lower the
//! borrowed share. Format-level tricks (white, tiny, hidden text) are found
//! by the format extractors, which leave such text out.

use std::collections::BTreeMap;

use crate::origin::{Location, MAX_LOCATIONS, Origin, Place, origin_at};
use crate::{Trick, Warning};

/// Fewest one-letter words in a row, one separator apart, that count as
/// letters spaced apart (the normalizer joins the same runs).
const MIN_SPACED_LETTERS: usize = 4;

/// Fewest words in a row glued by the same substitute character that count
/// as spaces replaced.
const MIN_SUBSTITUTED_WORDS: usize = 4;

/// Characters that never occur between letters of one word in real text but
/// render as nothing: zero-width space, joiners, word joiner, BOM, invisible
/// operators, Mongolian vowel separator, combining grapheme joiner. (Soft
/// hyphens are left out: word processors put them inside words legitimately.)
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200D}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}' | '\u{180E}' | '\u{034F}')
}

/// Characters put between words instead of a space: visible blanks other
/// than the space and the no-break space (en/em and other typographic
/// spaces, ideographic space, Hangul fillers, Braille blank), and
/// punctuation that does not join words in real text.
fn is_space_substitute(c: char) -> bool {
    matches!(
        c,
        '\u{2000}'
            ..='\u{200A}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{2800}'
                | '\u{115F}'
                | '\u{1160}'
                | '\u{3164}'
                | '\u{FFA0}'
                | '_'
                | '·'
                | '•'
                | '~'
                | '|'
                | '*'
                | '+'
                | '^'
                | '='
    )
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Script {
    Latin,
    Cyrillic,
    Greek,
}

fn script(c: char) -> Option<Script> {
    match c {
        'a'..='z' | 'A'..='Z' | '\u{00C0}'..='\u{024F}' => Some(Script::Latin),
        '\u{0400}'..='\u{052F}' => Some(Script::Cyrillic),
        '\u{0370}'..='\u{03FF}' => Some(Script::Greek),
        _ => None,
    }
}

/// A word: letters and digits, with invisible characters inside.
struct Word {
    start: usize,
    end: usize,
    letters: usize,
    mixed_script: bool,
    invisible: bool,
}

/// Collects occurrences per trick.
#[derive(Default)]
struct Found {
    tricks: BTreeMap<Trick, (usize, Vec<(usize, usize)>)>,
}

impl Found {
    fn add(&mut self, trick: Trick, count: usize, start: usize, end: usize) {
        let entry = self.tricks.entry(trick).or_default();
        entry.0 += count;
        if entry.1.len() < MAX_LOCATIONS {
            entry.1.push((start, end));
        }
    }
}

/// The bypass warnings of `text` (one per trick found, sorted by trick),
/// with locations placed through `origins`.
pub(crate) fn scan(text: &str, origins: &[Origin]) -> Vec<Warning> {
    let mut found = Found::default();
    let words = words(text);
    for word in &words {
        if word.mixed_script {
            found.add(Trick::Homoglyphs, 1, word.start, word.end);
        }
        if word.invisible {
            found.add(Trick::InvisibleCharacters, 1, word.start, word.end);
        }
    }
    spaced_letters(text, &words, &mut found);
    substituted_spaces(text, &words, &mut found);
    found
        .tricks
        .into_iter()
        .map(|(trick, (count, spans))| {
            let locations = spans
                .into_iter()
                .map(|(start, end)| Location {
                    start,
                    end,
                    place: origin_at(origins, start).map_or_else(Place::default, |o| o.place),
                })
                .collect();
            Warning::Bypass { trick, count, locations }
        })
        .collect()
}

fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut current: Option<(Word, Option<Script>, bool)> = None;
    for (i, c) in text.char_indices() {
        if (c.is_alphanumeric() && !is_space_substitute(c)) || (is_invisible(c) && current.is_some()) {
            let (word, first_script, pending_invisible) = current.get_or_insert((
                Word { start: i, end: i, letters: 0, mixed_script: false, invisible: false },
                None,
                false,
            ));
            if is_invisible(c) {
                *pending_invisible = true;
                continue;
            }
            if *pending_invisible {
                // Only between two word characters: trailing ones are not
                // inside the word.
                word.invisible = true;
                *pending_invisible = false;
            }
            word.end = i + c.len_utf8();
            if c.is_alphabetic() {
                word.letters += 1;
                if let Some(s) = script(c) {
                    match first_script {
                        None => *first_script = Some(s),
                        Some(first) if *first != s => word.mixed_script = true,
                        Some(_) => {}
                    }
                }
            }
        } else if let Some((word, _, _)) = current.take() {
            out.push(word);
        }
    }
    if let Some((word, _, _)) = current {
        out.push(word);
    }
    out
}

/// Runs of one-letter words, each one character after the previous.
fn spaced_letters(text: &str, words: &[Word], found: &mut Found) {
    let mut run_start = 0;
    let mut run_len = 0;
    let mut separator: Option<char> = None;
    let mut prev_end = 0;
    let close = |len: usize, start: usize, end: usize, found: &mut Found| {
        if len >= MIN_SPACED_LETTERS {
            found.add(Trick::SpacedLetters, 1, start, end);
        }
    };
    for word in words {
        let one_letter = word.letters == 1
            && word.end - word.start == text[word.start..word.end].chars().next().map_or(0, char::len_utf8);
        if !one_letter {
            close(run_len, run_start, prev_end, found);
            run_len = 0;
            separator = None;
            continue;
        }
        let gap = &text[prev_end.min(word.start)..word.start];
        let mut gap_chars = gap.chars();
        let joinable = run_len > 0
            && match (gap_chars.next(), gap_chars.next()) {
                (Some(c), None) => c != '\n' && c != '\r' && separator.is_none_or(|s| s == c),
                _ => false,
            };
        if joinable {
            separator = gap.chars().next();
            run_len += 1;
        } else {
            close(run_len, run_start, prev_end, found);
            run_start = word.start;
            run_len = 1;
            separator = None;
        }
        prev_end = word.end;
    }
    close(run_len, run_start, prev_end, found);
}

/// Runs of words glued by the same space substitute.
fn substituted_spaces(text: &str, words: &[Word], found: &mut Found) {
    let mut run: Vec<&Word> = Vec::new();
    let mut substitute: Option<char> = None;
    let flush = |run: &mut Vec<&Word>, found: &mut Found| {
        if run.len() >= MIN_SUBSTITUTED_WORDS {
            let (first, last) = (run[0], run[run.len() - 1]);
            found.add(Trick::SpaceSubstitutes, run.len() - 1, first.start, last.end);
        }
        run.clear();
    };
    for word in words {
        if word.letters < 2 {
            flush(&mut run, found);
            substitute = None;
            continue;
        }
        let glued = run.last().and_then(|last| {
            let gap = &text[last.end..word.start];
            let mut chars = gap.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) if is_space_substitute(c) && substitute.is_none_or(|s| s == c) => Some(c),
                _ => None,
            }
        });
        if let Some(c) = glued {
            substitute = Some(c);
        } else {
            flush(&mut run, found);
            substitute = None;
        }
        run.push(word);
    }
    flush(&mut run, found);
}

#[cfg(test)]
mod tests {
    use super::*;

    type Tricks = Vec<(Trick, usize, Vec<(usize, usize)>)>;

    fn tricks(text: &str) -> Tricks {
        scan(text, &[])
            .into_iter()
            .map(|w| match w {
                Warning::Bypass { trick, count, locations } => {
                    (trick, count, locations.iter().map(|l| (l.start, l.end)).collect())
                }
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn clean_text_has_no_tricks() {
        assert!(tricks("Plain English text, with state-of-the-art words and e.g. abbreviations.").is_empty());
        assert!(tricks("Обычный русский текст — с тире, «кавычками» и т. д.").is_empty());
        assert!(tricks("x = a + b * c; snake_case ident").is_empty());
        assert!(tricks("при\u{00AD}мер with a soft hyphen").is_empty());
    }

    #[test]
    fn homoglyphs_inside_words() {
        // Latin "p" and "e" inside Russian words.
        let text = "пpивeт мир и тeкст";
        let found = tricks(text);
        assert_eq!(found.len(), 1);
        let (trick, count, spans) = &found[0];
        assert_eq!((*trick, *count), (Trick::Homoglyphs, 2));
        assert_eq!(&text[spans[0].0..spans[0].1], "пpивeт");
        assert_eq!(&text[spans[1].0..spans[1].1], "тeкст");
    }

    #[test]
    fn invisible_characters_inside_words_only() {
        let text = "pla\u{200B}giarism \u{200B}word\u{FEFF} de\u{2060}tection";
        let found = tricks(text);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].0, found[0].1), (Trick::InvisibleCharacters, 2));
    }

    #[test]
    fn spaced_letters_runs() {
        let text = "This is p l a g i a r i s m and a b c only.";
        let found = tricks(text);
        assert_eq!(found.len(), 1);
        let (trick, count, spans) = &found[0];
        assert_eq!((*trick, *count), (Trick::SpacedLetters, 1));
        assert_eq!(&text[spans[0].0..spans[0].1], "p l a g i a r i s m");
        let found = tricks("с п и с а н о из книги");
        assert_eq!((found[0].0, found[0].1), (Trick::SpacedLetters, 1));
    }

    #[test]
    fn substituted_spaces_runs() {
        let text = "The\u{3164}quick\u{3164}brown\u{3164}fox jumps";
        let found = tricks(text);
        assert_eq!(found.len(), 1);
        let (trick, count, spans) = &found[0];
        assert_eq!((*trick, *count), (Trick::SpaceSubstitutes, 3));
        assert_eq!(&text[spans[0].0..spans[0].1], "The\u{3164}quick\u{3164}brown\u{3164}fox");
        assert_eq!(tricks("слова_через_подчёркивание_вместо пробелов")[0].1, 3);
        // Three glued words are not enough (snake_case identifiers).
        assert!(tricks("one_two_three four").is_empty());
    }

    #[test]
    fn locations_carry_places_and_are_capped() {
        let origins = [Origin { start: 0, end: 100, place: Place { page: Some(4), ..Place::default() }, bbox: None }];
        let warnings = scan("пpивeт", &origins);
        let Warning::Bypass { locations, .. } = &warnings[0] else { panic!() };
        assert_eq!(locations[0].place.page, Some(4));
        let many = "пpивeт ".repeat(MAX_LOCATIONS + 10);
        let Warning::Bypass { count, locations, .. } = &scan(&many, &[])[0] else { panic!() };
        assert_eq!((*count, locations.len()), (MAX_LOCATIONS + 10, MAX_LOCATIONS));
    }
}
