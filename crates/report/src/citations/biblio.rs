//! The bibliography section: a heading on its own line, then entries.

use tessera_search::TextSpan;

use super::Chars;

/// Headings of a bibliography, lower case, without numbering and final punctuation.
const HEADINGS: &[&str] = &[
    "references",
    "reference list",
    "list of references",
    "bibliography",
    "selected bibliography",
    "literature",
    "literature cited",
    "cited literature",
    "works cited",
    "sources",
    "sources cited",
    "список литературы",
    "литература",
    "библиографический список",
    "библиография",
    "список использованных источников",
    "список использованной литературы",
    "список использованных источников и литературы",
    "список использованной литературы и источников",
    "список источников и литературы",
    "список источников",
    "список литературных источников",
    "список цитируемой литературы",
    "использованная литература",
    "использованные источники",
    "источники и литература",
    "литература и источники",
    "список використаних джерел",
    "список використаної літератури",
    "література",
    "literaturverzeichnis",
    "bibliographie",
    "références",
    "références bibliographiques",
];

/// Starts of the major headings that end a bibliography (appendices and indexes).
const ENDINGS: &[&str] =
    &["appendix", "appendices", "annex", "приложение", "приложения", "додаток", "додатки", "anhang"];

/// Longest heading line, in chars.
const MAX_HEADING_CHARS: usize = 80;
/// Entry lines looked at to decide whether a section is a bibliography.
const SAMPLE_LINES: usize = 30;
/// Heading lines tried, from the last (keeps a text of nothing but headings linear).
const MAX_HEADINGS_TRIED: usize = 8;

/// Finds the bibliography of `text`: from its heading line to the line before the next
/// major heading (`Appendix …`, `Приложение …`, `Index`) or to the end of the text,
/// trailing whitespace left out.
///
/// A heading is a line of at most 80 characters that, without a leading section number
/// (`5.`, `IV.`, `Глава 3.`), trailing `:` or `.`, and case, reads `References`,
/// `Bibliography`, `Literature`, `Works cited`, `Список литературы`, `Литература`,
/// `Библиографический список`, `Список использованных источников` or a variant (see
/// `HEADINGS` in the source). A section counts only when it has entries and at least
/// half of its first 30 non-empty lines look like entries (a year, a URL or DOI, a
/// page count, `//` as GOST separates a part from its whole, or an entry number). When
/// several headings qualify, the last one wins: a table of contents lists the same
/// heading earlier (only the last 8 heading lines are tried).
///
/// # Example
///
/// ```
/// let text = "Текст работы.\n\nСписок литературы\n1. Иванов И. И. Теория. — М., 2010. — 200 с.\n";
/// let span = tessera_report::find_bibliography(text).expect("a bibliography");
/// assert!(text[span.bytes.start..span.bytes.end].starts_with("Список литературы"));
/// ```
#[must_use]
pub fn find_bibliography(text: &str) -> Option<TextSpan> {
    bibliography(&Chars::new(text))
}

/// One line of the text, in chars, without its line break.
struct Line {
    start: usize,
    end: usize,
    text: String,
}

fn lines(chars: &Chars) -> Vec<Line> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 0..=chars.len() {
        if i == chars.len() || chars.get(i) == Some('\n') {
            let text: String = chars.chars.get(start..i).unwrap_or_default().iter().collect();
            out.push(Line { start, end: i, text });
            start = i + 1;
        }
    }
    out
}

pub(super) fn bibliography(chars: &Chars) -> Option<TextSpan> {
    let lines = lines(chars);
    let headings = lines.iter().enumerate().rev().filter(|(_, l)| is_heading(&l.text));
    for (h, heading) in headings.take(MAX_HEADINGS_TRIED) {
        let body = &lines[h + 1..];
        let stop = body.iter().position(|l| is_ending(&l.text)).unwrap_or(body.len());
        let entries: Vec<&Line> = body[..stop].iter().filter(|l| !l.text.trim().is_empty()).collect();
        let sample = &entries[..entries.len().min(SAMPLE_LINES)];
        let looking = sample.iter().filter(|l| looks_like_entry(&l.text)).count();
        if looking == 0 || looking * 2 < sample.len() {
            continue;
        }
        let end = entries.last().map_or(heading.end, |l| l.end);
        let mut end = end.max(heading.end);
        while end > heading.start && chars.get(end - 1).is_some_and(char::is_whitespace) {
            end -= 1;
        }
        return Some(chars.span(heading.start, end));
    }
    None
}

/// The line's words in lower case, without a leading section number and final
/// punctuation: what heading lists are compared with.
fn heading_key(line: &str) -> Option<String> {
    let t = line.trim();
    if t.is_empty() || t.chars().count() > MAX_HEADING_CHARS {
        return None;
    }
    let mut words: Vec<String> = t.split_whitespace().map(str::to_lowercase).collect();
    // "Глава 5.", "Chapter 5", "Раздел 3"
    if words.len() > 1 && ["глава", "chapter", "раздел", "section", "часть", "part"].contains(&words[0].as_str())
    {
        words.remove(0);
    }
    // "5.", "5", "V.", "IV", "5.1."
    if words.len() > 1 && is_number(&words[0]) {
        words.remove(0);
    }
    let mut key = words.join(" ");
    // "1.Список литературы" (no space after the number)
    let numbered = key.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ')'));
    if let Some(at) = numbered.filter(|&at| at > 0 && key[..at].ends_with(['.', ')'])) {
        key = key[at..].trim_start().to_owned();
    }
    Some(key.trim_end_matches([':', '.', ' ']).to_owned())
}

/// `5`, `5.1.`, `3)`, or a Roman numeral with a dot or bracket (`iv.`, `ii)`).
fn is_number(word: &str) -> bool {
    let w = word.trim_end_matches(['.', ')', ':']);
    let marked = w.len() < word.len();
    !w.is_empty()
        && (w.chars().all(|c| c.is_ascii_digit() || c == '.')
            || (marked && w.len() <= 5 && w.chars().all(|c| matches!(c, 'i' | 'v' | 'x' | 'l' | 'c'))))
}

fn is_heading(line: &str) -> bool {
    heading_key(line).is_some_and(|k| HEADINGS.contains(&k.as_str()))
}

fn is_ending(line: &str) -> bool {
    let Some(key) = heading_key(line) else { return false };
    if key == "index" || key == "предметный указатель" || key == "указатель" {
        return true;
    }
    let first = key.split_whitespace().next().unwrap_or_default();
    ENDINGS.iter().any(|e| first.trim_end_matches(['.', ':']) == *e) && !has_year_like(line)
}

/// Whether a line has a year-like number (1500 to 2099).
fn has_year_like(line: &str) -> bool {
    line.split(|c: char| !c.is_ascii_digit())
        .any(|d| d.len() == 4 && d.parse::<u32>().is_ok_and(|y| (1500..=2099).contains(&y)))
}

/// Whether a line reads like a bibliography entry.
fn looks_like_entry(line: &str) -> bool {
    let t = line.trim();
    let lower = t.to_lowercase();
    let numbered = {
        let rest = t.trim_start_matches('[');
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        digits > 0 && rest.chars().nth(digits).is_some_and(|c| matches!(c, '.' | ')' | ']'))
    };
    numbered
        || has_year_like(t)
        || lower.contains("http")
        || lower.contains("doi")
        || lower.contains("url")
        || t.contains("//")
        || lower.contains(" с.")
        || lower.contains(" pp.")
        || lower.contains(" p.")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(text: &str) -> Option<&str> {
        find_bibliography(text).map(|s| &text[s.bytes.start..s.bytes.end])
    }

    #[test]
    fn russian_bibliography_until_appendix() {
        let text = "Введение\nТекст.\n\nСПИСОК ЛИТЕРАТУРЫ\n1. Толстой Л. Н. Анна Каренина. — М. : Эксмо, 2015. — 800 с.\n2. Иванов И. И. Статья // Вопросы литературы. — 2010. — № 3. — С. 5–17.\n\nПРИЛОЖЕНИЕ А\nАнкета.\n";
        assert_eq!(
            section(text),
            Some(
                "СПИСОК ЛИТЕРАТУРЫ\n1. Толстой Л. Н. Анна Каренина. — М. : Эксмо, 2015. — 800 с.\n2. Иванов И. И. Статья // Вопросы литературы. — 2010. — № 3. — С. 5–17."
            )
        );
    }

    #[test]
    fn english_references_to_the_end() {
        let text = "Body text.\n\n5. References:\nDickens, C. (1859). A Tale of Two Cities. London: Chapman & Hall.\nSmith, J. (2010). Novels. https://example.org\n";
        let found = section(text).unwrap();
        assert!(found.starts_with("5. References:"));
        assert!(found.ends_with("https://example.org"));
    }

    #[test]
    fn table_of_contents_and_prose_headings_are_not_bibliographies() {
        // The contents list the heading; the real one comes later and wins.
        let text = "Содержание\nВведение 3\nСписок литературы\nПриложение 40\n\nВведение\nТекст работы здесь.\n\nСписок литературы\n1. Иванов И. И. Теория. — М., 2010.\n";
        assert_eq!(section(text), Some("Список литературы\n1. Иванов И. И. Теория. — М., 2010."));
        // A chapter called "Literature" followed by prose is no bibliography.
        let text = "Literature\nReading novels is a pleasure that many people share and enjoy every day.\nIt teaches us a lot.\n";
        assert_eq!(section(text), None);
        assert_eq!(section("References\n"), None);
        assert_eq!(section(""), None);
    }

    #[test]
    fn headings_with_numbers() {
        for h in [
            "Список использованных источников",
            "3. Литература",
            "IV. BIBLIOGRAPHY",
            "Works Cited",
            "1.Список литературы",
        ] {
            assert!(is_heading(h), "{h}");
        }
        for h in ["References to the past are many", "Литература и жизнь", "Appendix"] {
            assert!(!is_heading(h), "{h}");
        }
        assert!(is_ending("Appendix A. Questionnaire"));
        assert!(is_ending("ПРИЛОЖЕНИЕ Б"));
        assert!(!is_ending("Приложение к журналу «Вестник», 2010."));
    }
}
