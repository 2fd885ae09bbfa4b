//! What a document is called in reports, lists and search answers.
//!
//! The rule: the title the format gives (document metadata, an HTML `<title>`, a
//! Markdown heading), else the document's first line that reads as words, else the file
//! name without its extension. A reviewer looking at a list of sources recognises "On the
//! Origin of Species" where "000150" says nothing; the path is shown beside it.

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
/// collapsed, cut to [`MAX_TITLE_CHARS`]), else the file stem of `origin` (for
/// `archive.zip!/dir/member.txt`, `member`).
pub fn document_title(given: Option<&str>, text: &str, origin: &str) -> String {
    if let Some(title) = given.map(collapse).filter(|t| !t.is_empty()) {
        return title;
    }
    if let Some(line) = text.lines().take(TITLE_LINES).map(collapse).find(|l| reads_as_words(l)) {
        return shorten(&line);
    }
    file_title(origin)
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
        assert_eq!(document_title(Some("   "), "Глава первая\nтекст", "a/b.txt"), "Глава первая");
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

    #[test]
    fn without_words_the_file_stem_is_the_title() {
        assert_eq!(document_title(None, "1 2 3\n--", "corpus/000150.txt"), "000150");
        assert_eq!(document_title(None, "", "books.zip!/ru/tolstoy.fb2"), "tolstoy");
        assert_eq!(document_title(None, "12", "https://example.org/page"), "page");
    }
}
