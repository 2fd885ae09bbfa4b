//! Quoted passages: pairs of quotation marks, nested, across line breaks.

use super::{Chars, Quotation, refs};

/// Longest quotation, in characters from the opening to the closing mark: an opening
/// mark left open longer than this is dropped (a stray mark must not pair with one
/// pages later).
pub const MAX_QUOTE_CHARS: usize = 4000;

/// Quotation marks open at once, at most (deeper ones drop the outermost).
const MAX_DEPTH: usize = 16;

/// Finds the quoted passages of `text`, nested ones included, ordered by start (then
/// by end), each with the reference next to it when there is one.
///
/// Pairs: `« »`, `„ “`, `„ ”`, `“ ”`, `‘ ’`, `‚ ‘`, `‚ ’`, `‹ ›`, `「 」`, `『 』` and the
/// straight `" "` and `' '`. Straight marks and `’` are told apart from inch signs and
/// apostrophes by their neighbours: an opening mark follows a space, the start of the
/// text or an opening bracket and precedes a non-space (for `'` a letter or digit); a
/// closing mark follows a non-space and precedes no letter or digit. A quotation may
/// span line breaks but not a blank line (a paragraph break closes nothing and drops
/// every open mark), is at most [`MAX_QUOTE_CHARS`] long, and has at least one letter
/// or digit inside.
///
/// # Example
///
/// ```
/// let text = "Как писал Пушкин, «я помню чудное мгновенье» [3, с. 5].";
/// let quotes = tessera_report::find_quotations(text);
/// assert_eq!(quotes.len(), 1);
/// assert_eq!(quotes[0].reference.as_ref().map(|r| r.text.as_str()), Some("[3, с. 5]"));
/// ```
#[must_use]
pub fn find_quotations(text: &str) -> Vec<Quotation> {
    quotations(&Chars::new(text))
}

struct Open {
    mark: char,
    at: usize,
}

pub(super) fn quotations(chars: &Chars) -> Vec<Quotation> {
    let mut out = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    let mut line_has_content = false;
    let mut seen_newline = false;
    for i in 0..chars.len() {
        let Some(c) = chars.get(i) else { break };
        if c == '\n' {
            if seen_newline && !line_has_content {
                stack.clear();
            }
            seen_newline = true;
            line_has_content = false;
            continue;
        }
        if !c.is_whitespace() {
            line_has_content = true;
        }
        while stack.first().is_some_and(|o| i - o.at > MAX_QUOTE_CHARS) {
            stack.remove(0);
        }
        let prev = i.checked_sub(1).and_then(|p| chars.get(p));
        let next = chars.get(i + 1);
        if can_close(c, prev, next)
            && let Some(k) = stack.iter().rposition(|o| closers(o.mark).contains(&c))
        {
            let open = &stack[k];
            let (start, end) = (open.at, i + 1);
            let inner_has_word = (start + 1..i).any(|j| chars.get(j).is_some_and(char::is_alphanumeric));
            if inner_has_word {
                let span = chars.span(start, end);
                let reference = refs::find(chars, start, i);
                out.push(Quotation { span, marks: (open.mark, c), reference });
            }
            stack.truncate(k);
            continue;
        }
        if can_open(c, prev, next) {
            if stack.len() >= MAX_DEPTH {
                stack.remove(0);
            }
            stack.push(Open { mark: c, at: i });
        }
    }
    out.sort_by_key(|q| (q.span.chars.start, q.span.chars.end));
    out
}

/// The closing marks of an opening mark (none for a char that opens nothing).
fn closers(open: char) -> &'static [char] {
    match open {
        '«' => &['»'],
        '„' => &['“', '”'],
        '“' => &['”'],
        '‘' => &['’'],
        '‚' => &['‘', '’'],
        '‹' => &['›'],
        '"' => &['"'],
        '\'' => &['\''],
        '「' => &['」'],
        '『' => &['』'],
        _ => &[],
    }
}

/// Whether `c` may open a quotation between `prev` and `next`.
fn can_open(c: char, prev: Option<char>, next: Option<char>) -> bool {
    let Some(next) = next else { return false };
    if next.is_whitespace() && matches!(c, '"' | '\'' | '‘' | '‚' | '“') {
        return false;
    }
    match c {
        '"' => prev.is_none_or(opens_after),
        '\'' => prev.is_none_or(opens_after) && next.is_alphanumeric(),
        '‘' | '‚' => prev.is_none_or(|p| !p.is_alphanumeric()),
        _ => !closers(c).is_empty(),
    }
}

/// Whether a straight mark after `prev` can open (a space, an opening bracket, a dash).
fn opens_after(prev: char) -> bool {
    prev.is_whitespace() || matches!(prev, '(' | '[' | '{' | '<' | '—' | '–' | '-' | '/' | ':' | '«' | '„' | '“' | '‘')
}

/// Whether `c` may close a quotation between `prev` and `next`.
fn can_close(c: char, prev: Option<char>, next: Option<char>) -> bool {
    match c {
        '"' | '\'' => {
            prev.is_some_and(|p| !p.is_whitespace())
                && next.is_none_or(|n| !n.is_alphanumeric() || refs::is_superscript_mark(n))
        }
        // An apostrophe inside a word (don’t, l’homme) closes nothing.
        '’' => !(prev.is_some_and(char::is_alphanumeric) && next.is_some_and(char::is_alphanumeric)),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<(String, Option<String>)> {
        let chars = Chars::new(text);
        quotations(&chars)
            .into_iter()
            .map(|q| (text[q.span.bytes.start..q.span.bytes.end].to_owned(), q.reference.map(|r| r.text)))
            .collect()
    }

    fn s(x: &str) -> String {
        x.to_owned()
    }

    #[test]
    fn guillemets_with_bracketed_reference() {
        assert_eq!(
            found("Он писал: «Все счастливые семьи похожи друг на друга» [3]. Дальше."),
            vec![(s("«Все счастливые семьи похожи друг на друга»"), Some(s("[3]")))]
        );
    }

    #[test]
    fn nested_quotes_each_found() {
        let text = "«Он сказал „нет“ и ушёл» [1, с. 7]";
        assert_eq!(found(text), vec![(s("«Он сказал „нет“ и ушёл»"), Some(s("[1, с. 7]"))), (s("„нет“"), None)]);
        let text = "“She said ‘never’ twice” (Smith, 2010)";
        assert_eq!(found(text), vec![(s("“She said ‘never’ twice”"), Some(s("(Smith, 2010)"))), (s("‘never’"), None)]);
    }

    #[test]
    fn straight_quotes_and_apostrophes() {
        assert_eq!(found(r#"He wrote "it is so" [2]."#), vec![(s(r#""it is so""#), Some(s("[2]")))]);
        // Apostrophes and inch signs pair with nothing.
        assert!(found("don't say it's 5\" long, students' work").is_empty());
        assert_eq!(found("the word 'quote' here"), vec![(s("'quote'"), None)]);
        assert!(found("l’homme d’état").is_empty());
    }

    #[test]
    fn quotes_span_lines_but_not_paragraphs() {
        assert_eq!(found("«первая строка\nвторая строка»¹"), vec![(s("«первая строка\nвторая строка»"), Some(s("¹")))]);
        assert!(found("«первый абзац\n\nвторой абзац»").is_empty());
        assert!(found("«первый абзац\r\n  \r\nвторой абзац»").is_empty());
    }

    #[test]
    fn long_and_empty_quotes_are_dropped() {
        let long = format!("«{}»", "слово ".repeat(MAX_QUOTE_CHARS / 6 + 1));
        assert!(found(&long).is_empty());
        assert!(found("«» \"\" « »").is_empty());
    }

    #[test]
    fn german_and_polish_pairs() {
        assert_eq!(found("„Das ist gut“ [4]"), vec![(s("„Das ist gut“"), Some(s("[4]")))]);
        assert_eq!(found("„To jest dobre” [5]"), vec![(s("„To jest dobre”"), Some(s("[5]")))]);
    }
}
