//! What a document is called in reports, lists and search answers.
//!
//! The rule: the title the format gives (document metadata, an HTML `<title>`, a
//! Markdown heading), else the document's first line that reads as words unless it is a
//! heading any document could have ("CHAPTER III", "Глава 1", "Contents"), else the file
//! name without its extension. A reviewer looking at a list of sources recognises "On the
//! Origin of Species" where "000150" says nothing, and "chapter-3" where a list of
//! sources all called "CHAPTER III" tells them apart by nothing; the path is shown beside
//! it.

use std::path::Path;

/// The longest title taken from a document's first line, in characters: a longer line is
/// cut at a word boundary and ends with "…".
pub const MAX_TITLE_CHARS: usize = 100;

/// How many lines from the top are looked at for one that reads as words.
const TITLE_LINES: usize = 20;

/// Letters a line needs to serve as a title (not a page number or a rule of dashes).
const TITLE_MIN_LETTERS: usize = 3;

/// The title of a document: `given` when it has words (metadata, HTML title, a caller's
/// title), else the first line of `text` with at least three letters (whitespace
/// collapsed, cut to [`MAX_TITLE_CHARS`]) unless that line is a generic heading
/// ([`is_generic_heading`]: a chapter or part number, "Contents", "Introduction"), else
/// the file stem of `origin` (for `archive.zip!/dir/member.txt`, `member`).
pub fn document_title(given: Option<&str>, text: &str, origin: &str) -> String {
    if let Some(title) = given.map(collapse).filter(|t| !t.is_empty()) {
        return title;
    }
    if let Some(line) = text.lines().take(TITLE_LINES).map(collapse).find(|l| reads_as_words(l))
        && !is_generic_heading(&line)
    {
        return shorten(&line);
    }
    file_title(origin)
}

/// Words that start a numbered heading of a part of a work (`Chapter III`, `Глава 1`).
const PART_WORDS: &[&str] = &[
    "chapter",
    "part",
    "book",
    "section",
    "volume",
    "vol",
    "act",
    "scene",
    "canto",
    "letter",
    "lecture",
    "appendix",
    "chapitre",
    "kapitel",
    "teil",
    "глава",
    "часть",
    "раздел",
    "том",
    "книга",
    "параграф",
    "приложение",
    "лекция",
    "розділ",
    "частина",
];

/// Headings any document may start with, lower case.
const GENERIC_HEADINGS: &[&str] = &[
    "contents",
    "table of contents",
    "introduction",
    "preface",
    "foreword",
    "prologue",
    "epilogue",
    "abstract",
    "summary",
    "conclusion",
    "оглавление",
    "содержание",
    "введение",
    "предисловие",
    "пролог",
    "эпилог",
    "аннотация",
    "реферат",
    "заключение",
    "вступление",
];

/// Number words of a part's heading (`Part Two`, `Часть первая`).
const NUMBER_WORDS: &[&str] = &[
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "last",
    "первая",
    "вторая",
    "третья",
    "четвертая",
    "четвёртая",
    "пятая",
    "шестая",
    "седьмая",
    "восьмая",
    "девятая",
    "десятая",
    "первый",
    "второй",
    "третий",
    "последняя",
];

/// Whether `line` is a heading any document could start with, which names no document:
/// a part word with a number (`CHAPTER III`, `Chapter 3.`, `Part Two`, `Глава 1`), a
/// number alone (`III`, `12`), or `Contents`, `Introduction`, `Введение` and the like.
/// A heading with a name after its number (`CHAPTER I. Loomings`) names something.
fn is_generic_heading(line: &str) -> bool {
    let lower = line.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || matches!(c, '.' | ':' | ',' | '-' | '—' | '–'))
        .filter(|w| !w.is_empty())
        .collect();
    let is_number = |w: &str| {
        w.chars().all(|c| c.is_ascii_digit())
            || w.chars().all(|c| matches!(c, 'i' | 'v' | 'x' | 'l' | 'c' | 'd' | 'm'))
            || NUMBER_WORDS.contains(&w)
    };
    match words.as_slice() {
        [] => false,
        [first, rest @ ..] if PART_WORDS.contains(first) => rest.len() <= 2 && rest.iter().all(|w| is_number(w)),
        all if all.iter().all(|w| is_number(w)) => true,
        all => GENERIC_HEADINGS.contains(&all.join(" ").as_str()),
    }
}

/// The file name of `origin` without its extension (the last member of an archive path).
pub(crate) fn file_title(origin: &str) -> String {
    let member = origin.rsplit("!/").next().unwrap_or(origin);
    Path::new(member).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn reads_as_words(line: &str) -> bool {
    line.chars().filter(|c| c.is_alphabetic()).take(TITLE_MIN_LETTERS).count() == TITLE_MIN_LETTERS
}

/// `line` cut to at most [`MAX_TITLE_CHARS`] characters at the last space that leaves
/// at least half of them (else mid-word), trailing punctuation dropped, "…" added.
fn shorten(line: &str) -> String {
    if line.chars().count() <= MAX_TITLE_CHARS {
        return line.to_owned();
    }
    let limit = MAX_TITLE_CHARS - 1;
    let cut = line.char_indices().nth(limit).map_or(line.len(), |(i, _)| i);
    let head = &line[..cut];
    let head = match head.rfind(' ') {
        Some(space) if head[..space].chars().count() >= limit / 2 => &head[..space],
        _ => head,
    };
    let head = head.trim_end_matches(|c: char| c.is_whitespace() || (c.is_ascii_punctuation() && c != ')'));
    format!("{head}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_given_title_wins_when_it_has_words() {
        assert_eq!(document_title(Some("  Война  и мир "), "Глава 1", "a/b.txt"), "Война и мир");
        assert_eq!(document_title(Some("   "), "Анна Каренина\nтекст", "a/b.txt"), "Анна Каренина");
    }

    #[test]
    fn the_first_line_with_letters_is_the_title() {
        let text = "\n  12  \n----\n  CHAPTER   I.\tLoomings \nCall me Ishmael.";
        assert_eq!(document_title(None, text, "moby.txt"), "CHAPTER I. Loomings");
    }

    #[test]
    fn a_long_first_line_is_cut_at_a_word() {
        let text = "word ".repeat(60);
        let title = document_title(None, &text, "x.txt");
        assert!(title.ends_with("word…"), "{title}");
        assert!(title.chars().count() <= MAX_TITLE_CHARS, "{title}");
        let text = "Это очень длинная первая строка, которая продолжается, и продолжается, и продолжается, пока не кончится место.";
        let title = document_title(None, text, "x.txt");
        assert_eq!(
            title,
            "Это очень длинная первая строка, которая продолжается, и продолжается, и продолжается, пока не…"
        );
        let one_word = "a".repeat(300);
        assert_eq!(document_title(None, &one_word, "x.txt").chars().count(), MAX_TITLE_CHARS);
    }

    /// A source titled "CHAPTER III" from its first line was one of many so titled.
    #[test]
    fn a_generic_first_heading_gives_way_to_the_file_name() {
        let text = "CHAPTER III\n\nMr. Bennet was among the earliest of those who waited on Mr. Bingley.";
        assert_eq!(document_title(None, text, "novels/pride/chapter-3.docx"), "chapter-3");
        for heading in ["Chapter 3.", "PART TWO", "Глава 1", "Часть первая", "III", "Contents", "ВВЕДЕНИЕ", "Book I: "]
        {
            assert_eq!(document_title(None, &format!("{heading}\nText of it."), "a/b.txt"), "b", "{heading}");
        }
        // A heading that names something, and a title of a document, stay.
        assert_eq!(document_title(None, "Chapter 3. The Ball\nText.", "a/b.txt"), "Chapter 3. The Ball");
        assert_eq!(document_title(None, "Introduction to Algorithms\nText.", "a/b.txt"), "Introduction to Algorithms");
        assert_eq!(document_title(None, "Part of the Problem\nText.", "a/b.txt"), "Part of the Problem");
        // The document's own title wins over everything.
        assert_eq!(document_title(Some("Pride and Prejudice"), "CHAPTER III", "chapter-3.docx"), "Pride and Prejudice");
    }

    #[test]
    fn without_words_the_file_stem_is_the_title() {
        assert_eq!(document_title(None, "1 2 3\n--", "corpus/000150.txt"), "000150");
        assert_eq!(document_title(None, "", "books.zip!/ru/tolstoy.fb2"), "tolstoy");
        assert_eq!(document_title(None, "12", "https://example.org/page"), "page");
    }
}
