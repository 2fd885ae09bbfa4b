//! Transliteration of names between Cyrillic and Latin letters, in the usual systems at
//! once: a name is spelt in English by whichever system its translator chose
//! (Сергеевна: Sergeevna, Sergeyevna; Дмитрий: Dmitri, Dmitry; Хорь: Khor, Hor), so a
//! name gives every spelling the common systems (BGN/PCGN, ISO 9 without diacritics, the
//! "library" system, Garnett's) would give, up to [`MAX_SPELLINGS`], most usual first.
//!
//! Written by hand: these are two small tables, and the crates that transliterate give
//! one system's spelling, not the set a translated text may use.

/// The most spellings one name gives (a name with many ambiguous letters keeps the usual
/// ones: those that take each letter's first choice longest).
pub const MAX_SPELLINGS: usize = 24;

/// Latin spellings of a Cyrillic word (lowercase), most usual first.
pub fn cyrillic_to_latin(word: &str) -> Vec<String> {
    let chars: Vec<char> = word.chars().flat_map(char::to_lowercase).collect();
    let mut choices: Vec<&[&str]> = Vec::with_capacity(chars.len());
    for (i, &c) in chars.iter().enumerate() {
        let at_end = i + 1 == chars.len();
        let after_vowel = i > 0 && is_cyrillic_vowel(chars[i - 1]);
        let first = i == 0;
        choices.push(match c {
            'а' => &["a"],
            'б' => &["b"],
            'в' => &["v"],
            'г' => &["g"],
            'д' => &["d"],
            // At a word's start or after a vowel, е is "ye" in BGN/PCGN, else "e".
            'е' if first || after_vowel => &["ye", "e"],
            'е' => &["e", "ye"],
            'ё' => &["e", "yo", "io"],
            'ж' => &["zh"],
            'з' => &["z"],
            'и' => &["i"],
            'й' if at_end => &["y", "i", ""],
            'й' => &["y", "i"],
            'к' => &["k"],
            'л' => &["l"],
            'м' => &["m"],
            'н' => &["n"],
            'о' => &["o"],
            'п' => &["p"],
            'р' => &["r"],
            'с' => &["s"],
            'т' => &["t"],
            'у' => &["u"],
            'ф' => &["f"],
            'х' => &["kh", "h"],
            'ц' => &["ts", "tz"],
            'ч' => &["ch"],
            'ш' => &["sh"],
            'щ' => &["shch", "sch"],
            'ъ' => &[""],
            'ы' => &["y", "i"],
            'ь' => &["", "'"],
            'э' => &["e"],
            'ю' => &["yu", "iu"],
            'я' => &["ya", "ia"],
            'і' => &["i"],
            _ if c.is_ascii_alphanumeric() => {
                // Latin letters in a Cyrillic word stay as they are.
                choices.push(&[]);
                continue;
            }
            _ => &[""],
        });
    }
    spell(&chars, &choices)
}

/// Cyrillic spellings of a Latin word (lowercase), most usual first.
pub fn latin_to_cyrillic(word: &str) -> Vec<String> {
    let lower = word.to_lowercase();
    let bytes = lower.as_bytes();
    if !lower.is_ascii() {
        return Vec::new();
    }
    // Longest match first; each position takes one rule.
    const RULES: &[(&str, &[&str])] = &[
        ("shch", &["щ"]),
        ("sch", &["щ", "ш"]),
        ("tch", &["ч"]),
        ("zh", &["ж"]),
        ("kh", &["х"]),
        ("ch", &["ч"]),
        ("sh", &["ш"]),
        ("ts", &["ц", "тс"]),
        ("tz", &["ц"]),
        ("ya", &["я"]),
        ("yu", &["ю"]),
        ("yo", &["ё", "йо"]),
        ("ye", &["е", "ье"]),
        ("ia", &["ия", "я"]),
        ("iu", &["ию", "ю"]),
        ("ie", &["ие", "ье"]),
        ("iy", &["ий"]),
        ("yi", &["ый", "ий"]),
        ("ph", &["ф"]),
        ("th", &["т"]),
        ("a", &["а"]),
        ("b", &["б"]),
        ("c", &["к", "ц"]),
        ("d", &["д"]),
        ("e", &["е", "э"]),
        ("f", &["ф"]),
        ("g", &["г"]),
        ("h", &["х", "г"]),
        ("i", &["и", "й"]),
        ("j", &["ж", "й"]),
        ("k", &["к"]),
        ("l", &["л"]),
        ("m", &["м"]),
        ("n", &["н"]),
        ("o", &["о"]),
        ("p", &["п"]),
        ("q", &["к"]),
        ("r", &["р"]),
        ("s", &["с"]),
        ("t", &["т"]),
        ("u", &["у"]),
        ("v", &["в"]),
        ("w", &["в"]),
        ("x", &["кс"]),
        ("y", &["ы", "й", "и"]),
        ("z", &["з"]),
        ("'", &["ь", ""]),
    ];
    let mut pieces: Vec<&[&str]> = Vec::new();
    let mut units: Vec<char> = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let rest = &lower[at..];
        match RULES.iter().find(|(latin, _)| rest.starts_with(latin)) {
            Some((latin, cyrillic)) => {
                pieces.push(cyrillic);
                at += latin.len();
            }
            None => {
                // A digit or another sign: kept as it is.
                pieces.push(&[]);
                at += 1;
            }
        }
        units.push(rest.chars().next().unwrap_or(' '));
    }
    spell(&units, &pieces)
}

/// Every spelling made of one choice per unit (a unit without choices keeps its own
/// character), up to [`MAX_SPELLINGS`]: first choices throughout first, then one other
/// choice, and so on.
fn spell(units: &[char], choices: &[&[&str]]) -> Vec<String> {
    let mut out: Vec<(usize, String)> = vec![(0, String::new())];
    for (unit, options) in units.iter().zip(choices) {
        let mut next = Vec::with_capacity(out.len() * options.len().max(1));
        for (cost, prefix) in &out {
            if options.is_empty() {
                let mut s = prefix.clone();
                s.push(*unit);
                next.push((*cost, s));
                continue;
            }
            for (k, option) in options.iter().enumerate() {
                let mut s = prefix.clone();
                s.push_str(option);
                next.push((cost + k, s));
            }
        }
        // Keep the cheapest (most usual) spellings; ties in order of making.
        next.sort_by_key(|(cost, _)| *cost);
        next.truncate(MAX_SPELLINGS * 2);
        out = next;
    }
    let mut seen = Vec::new();
    for (_, s) in out {
        if !s.is_empty() && !seen.contains(&s) {
            seen.push(s);
        }
        if seen.len() == MAX_SPELLINGS {
            break;
        }
    }
    seen
}

fn is_cyrillic_vowel(c: char) -> bool {
    matches!(c, 'а' | 'е' | 'ё' | 'и' | 'о' | 'у' | 'ы' | 'э' | 'ю' | 'я')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn russian_names_give_their_english_spellings() {
        let has = |word: &str, spelling: &str| cyrillic_to_latin(word).iter().any(|s| s == spelling);
        assert!(has("Ставрогин", "stavrogin"));
        assert!(has("Сергеевна", "sergeevna"));
        assert!(has("Сергеевна", "sergeyevna"));
        assert!(has("Дмитрий", "dmitriy"));
        assert!(has("Дмитрий", "dmitri"));
        assert!(has("Хорь", "khor"));
        assert!(has("Хорь", "hor"));
        assert!(has("Чехов", "chekhov"));
        assert_eq!(cyrillic_to_latin("Гуров")[0], "gurov");
    }

    #[test]
    fn english_spellings_give_the_russian_name() {
        let has = |word: &str, spelling: &str| latin_to_cyrillic(word).iter().any(|s| s == spelling);
        assert!(has("Stavrogin", "ставрогин"));
        assert!(has("Sergeyevna", "сергеевна"));
        assert!(has("Dmitri", "дмитри"));
        assert!(has("Khor", "хор"));
        assert!(has("Chekhov", "чехов"));
        assert!(has("Ivanovitch", "иванович"));
        assert!(has("Tchaikovsky", "чайковски"));
        assert!(latin_to_cyrillic("Ставрогин").is_empty());
    }

    #[test]
    fn a_long_ambiguous_name_gives_a_bounded_set() {
        let many = cyrillic_to_latin("ёжйщхцюяёжйщхцюя");
        assert!(many.len() <= MAX_SPELLINGS);
        assert_eq!(many[0], "ezhyshchkhtsyuyaezhyshchkhtsyuya");
    }
}
