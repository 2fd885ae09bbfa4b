//! Latin/Cyrillic look-alike letters inside one word.
//!
//! A word that mixes Latin and Cyrillic letters (`пpивeт` with Latin `p` and `e`) is a
//! classic bypass: it looks right but matches nothing. Such a word is folded to its
//! *dominant script*: every letter of the other script that has a look-alike in the
//! dominant one (see [`PAIRS`]) is replaced by it.
//!
//! The dominant script is decided by the letters that have **no** look-alike (they show
//! which script the writer meant):
//! 1. more Cyrillic-only letters than Latin-only letters: Cyrillic; fewer: Latin;
//! 2. a tie (typically zero each: every letter has a look-alike, as in `сор`/`cop`):
//!    the script with more letters in the word;
//! 3. still a tie: Cyrillic (the bypass is mostly Latin letters planted in Russian text).
//!
//! Words written in one script only are never changed, and letters without a look-alike
//! stay as they are. Folding works on the case-preserved word (before lowercasing) so
//! uppercase look-alikes (`B`/`В`, `H`/`Н`, `T`/`Т`) are recognised too.

/// `(Latin, Cyrillic)` look-alike pairs, both cases.
pub(crate) const PAIRS: &[(char, char)] = &[
    ('a', 'а'),
    ('c', 'с'),
    ('d', 'ԁ'),
    ('e', 'е'),
    ('h', 'һ'),
    ('i', 'і'),
    ('j', 'ј'),
    ('k', 'к'),
    ('m', 'м'),
    ('o', 'о'),
    ('p', 'р'),
    ('q', 'ԛ'),
    ('s', 'ѕ'),
    ('w', 'ԝ'),
    ('x', 'х'),
    ('y', 'у'),
    ('A', 'А'),
    ('B', 'В'),
    ('C', 'С'),
    ('E', 'Е'),
    ('H', 'Н'),
    ('I', 'І'),
    ('J', 'Ј'),
    ('K', 'К'),
    ('M', 'М'),
    ('O', 'О'),
    ('P', 'Р'),
    ('S', 'Ѕ'),
    ('T', 'Т'),
    ('X', 'Х'),
    ('Y', 'У'),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Script {
    Latin,
    Cyrillic,
    Other,
}

fn script(c: char) -> Script {
    match c {
        'a'..='z' | 'A'..='Z' => Script::Latin,
        // All of U+0400..=U+0481 are letters: skip the slow alphabetic look-up.
        '\u{0400}'..='\u{0481}' => Script::Cyrillic,
        '\u{00C0}'..='\u{024F}' | '\u{1E00}'..='\u{1EFF}' if c.is_alphabetic() => Script::Latin,
        '\u{0482}'..='\u{052F}' | '\u{1C80}'..='\u{1C8F}' | '\u{A640}'..='\u{A69F}' if c.is_alphabetic() => {
            Script::Cyrillic
        }
        _ => Script::Other,
    }
}

fn to_cyrillic(c: char) -> Option<char> {
    PAIRS.iter().find(|(l, _)| *l == c).map(|(_, k)| *k)
}

fn to_latin(c: char) -> Option<char> {
    PAIRS.iter().find(|(_, k)| *k == c).map(|(l, _)| *l)
}

/// Folds the look-alike letters of a mixed Latin/Cyrillic `word` to its dominant script,
/// writing the result to `out`. Returns `false` (and leaves `out` untouched) when the
/// word is not mixed, so nothing was folded.
pub(crate) fn fold_into(word: &str, out: &mut String) -> bool {
    // Most words use one script: find out cheaply before counting look-alikes.
    let (mut any_latin, mut any_cyrillic) = (false, false);
    for c in word.chars() {
        match script(c) {
            Script::Latin => any_latin = true,
            Script::Cyrillic => any_cyrillic = true,
            Script::Other => {}
        }
    }
    if !(any_latin && any_cyrillic) {
        return false;
    }
    let (mut latin, mut cyrillic, mut latin_only, mut cyrillic_only) = (0usize, 0usize, 0usize, 0usize);
    for c in word.chars() {
        match script(c) {
            Script::Latin => {
                latin += 1;
                latin_only += usize::from(to_cyrillic(c).is_none());
            }
            Script::Cyrillic => {
                cyrillic += 1;
                cyrillic_only += usize::from(to_latin(c).is_none());
            }
            Script::Other => {}
        }
    }
    if latin == 0 || cyrillic == 0 {
        return false;
    }
    let to_cyr = match cyrillic_only.cmp(&latin_only) {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Equal => cyrillic >= latin,
    };
    out.clear();
    out.extend(word.chars().map(|c| {
        let mapped = if to_cyr { to_cyrillic(c) } else { to_latin(c) };
        mapped.unwrap_or(c)
    }));
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold(word: &str) -> Option<String> {
        let mut out = String::new();
        fold_into(word, &mut out).then_some(out)
    }

    #[test]
    fn latin_letters_in_russian_word_fold_to_cyrillic() {
        assert_eq!(fold("пpивeт").as_deref(), Some("привет"));
        assert_eq!(fold("BЫХОД").as_deref(), Some("ВЫХОД"));
        assert_eq!(fold("TОЛЬКО").as_deref(), Some("ТОЛЬКО"));
    }

    #[test]
    fn cyrillic_letters_in_english_word_fold_to_latin() {
        assert_eq!(fold("plаgiаrism").as_deref(), Some("plagiarism"));
        assert_eq!(fold("Hеllo").as_deref(), Some("Hello"));
    }

    #[test]
    fn single_script_words_are_untouched() {
        assert_eq!(fold("привет"), None);
        assert_eq!(fold("hello"), None);
        assert_eq!(fold("123"), None);
    }

    #[test]
    fn all_look_alike_words_follow_the_majority_then_cyrillic() {
        // Cyrillic с, Latin o, p: two Latin letters win.
        assert_eq!(fold("сop").as_deref(), Some("cop"));
        // Latin c, Cyrillic о, р.
        assert_eq!(fold("cор").as_deref(), Some("сор"));
        // Tie: Cyrillic.
        assert_eq!(fold("aо").as_deref(), Some("ао"));
    }

    #[test]
    fn pairs_are_distinct() {
        for (i, (l, k)) in PAIRS.iter().enumerate() {
            assert_eq!(script(*l), Script::Latin, "{l}");
            assert_eq!(script(*k), Script::Cyrillic, "{k}");
            assert!(PAIRS[i + 1..].iter().all(|(l2, k2)| l2 != l && k2 != k));
        }
    }
}
