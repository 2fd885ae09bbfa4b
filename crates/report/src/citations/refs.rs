//! References next to a quotation: `[12]`, `(Author, 2010)`, footnote marks.

use super::{Chars, Reference, ReferenceKind};

/// How far after the closing mark a reference may start, in chars.
const AFTER_WINDOW: usize = 40;
/// How far before the opening mark a reference may end, in chars.
const BEFORE_WINDOW: usize = 60;
/// Longest bracketed reference, brackets included, in chars.
const MAX_BRACKET: usize = 100;

/// The reference of the quotation whose marks are at chars `open` and `close`: a
/// footnote mark right after the closing mark, else a bracketed reference after it in
/// the same sentence (within [`AFTER_WINDOW`] chars), else one just inside the closing
/// mark, else one before the opening mark in the same sentence (ending within
/// [`BEFORE_WINDOW`] chars).
pub(super) fn find(chars: &Chars, open: usize, close: usize) -> Option<Reference> {
    footnote(chars, close)
        .or_else(|| after(chars, close))
        .or_else(|| inside(chars, open, close))
        .or_else(|| before(chars, open))
}

fn reference(chars: &Chars, start: usize, end: usize, kind: ReferenceKind) -> Reference {
    Reference { span: chars.span(start, end), kind, text: chars.collapsed(start, end) }
}

pub(super) fn is_superscript_mark(c: char) -> bool {
    matches!(c, '¹' | '²' | '³' | '⁰' | '⁴'..='⁹' | '*' | '†' | '‡')
}

/// A footnote mark right after the closing mark (`»¹`, `”*`, `».²`, `»12`).
fn footnote(chars: &Chars, close: usize) -> Option<Reference> {
    let first = close + 1;
    let start = if matches!(chars.get(first), Some('.' | ',' | ';' | ':')) { first + 1 } else { first };
    let mut end = start;
    while end < start + 4 && chars.get(end).is_some_and(is_superscript_mark) {
        end += 1;
    }
    if end > start {
        return Some(reference(chars, start, end, ReferenceKind::Footnote));
    }
    // Plain digits, as extraction leaves superscripts: only right after the mark, and
    // not the start of a number (`»12%`, `»12,5`, `»2019a`).
    let mut end = first;
    while end < first + 4 && chars.get(end).is_some_and(|c| c.is_ascii_digit()) {
        end += 1;
    }
    let number_goes_on = match chars.get(end) {
        Some('.' | ',') => chars.get(end + 1).is_some_and(|c| c.is_ascii_digit()),
        Some(c) => c.is_alphanumeric() || c == '%',
        None => false,
    };
    ((1..=3).contains(&(end - first)) && !number_goes_on).then(|| reference(chars, first, end, ReferenceKind::Footnote))
}

/// A bracketed reference after the closing mark, in the same sentence.
fn after(chars: &Chars, close: usize) -> Option<Reference> {
    let first = close + 1;
    let mut k = first;
    while k < chars.len() && k <= close + AFTER_WINDOW {
        let c = chars.get(k)?;
        match c {
            '[' | '(' => {
                if let Some(r) = bracket_forward(chars, k) {
                    return Some(r);
                }
            }
            // A full stop right after the closing mark may still precede the reference
            // (`"…". (p. 5)`); any other sentence end stops the search.
            '.' | '!' | '?' if k == first => {
                let next = (k + 1..k + 4).find_map(|j| chars.get(j).filter(|c| !c.is_whitespace()));
                if !matches!(next, Some('[' | '(')) {
                    return None;
                }
            }
            '.' | '!' | '?' if chars.get(k + 1).is_none_or(char::is_whitespace) && sentence_end(chars, k) => {
                return None;
            }
            '\n' if blank_line_ahead(chars, k) => return None,
            '«' | '“' | '„' | '"' | '»' | '”' => return None,
            _ => {}
        }
        k += 1;
    }
    None
}

/// A bracketed reference ending just inside the closing mark: `«… [3].»`.
fn inside(chars: &Chars, open: usize, close: usize) -> Option<Reference> {
    let mut k = close.checked_sub(1)?;
    for _ in 0..3 {
        match chars.get(k)? {
            c if c.is_whitespace() || matches!(c, '.' | ',' | ';') => k = k.checked_sub(1)?,
            _ => break,
        }
    }
    if !matches!(chars.get(k)?, ']' | ')') {
        return None;
    }
    bracket_backward(chars, k).filter(|r| r.span.chars.start > open)
}

/// A bracketed reference before the opening mark, in the same sentence.
fn before(chars: &Chars, open: usize) -> Option<Reference> {
    let mut k = open.checked_sub(1)?;
    let stop = open.saturating_sub(BEFORE_WINDOW);
    loop {
        let c = chars.get(k)?;
        match c {
            ']' | ')' => {
                if let Some(r) = bracket_backward(chars, k) {
                    return Some(r);
                }
            }
            '.' | '!' | '?' if chars.get(k + 1).is_some_and(char::is_whitespace) && sentence_end(chars, k) => {
                return None;
            }
            '\n' if blank_line_ahead(chars, k) => return None,
            '»' | '”' | '«' | '“' | '„' | '"' => return None,
            _ => {}
        }
        if k <= stop {
            return None;
        }
        k = k.checked_sub(1)?;
    }
}

/// Whether the `.`, `!` or `?` at `k` ends a sentence: `!` and `?` always; `.` unless
/// it ends an initial or a short abbreviation (`И.`, `p.`, `al.`).
fn sentence_end(chars: &Chars, k: usize) -> bool {
    if chars.get(k) != Some('.') {
        return true;
    }
    let mut letters = 0;
    let mut j = k;
    while let Some(p) = j.checked_sub(1) {
        match chars.get(p) {
            Some(c) if c.is_alphabetic() => letters += 1,
            _ => break,
        }
        j = p;
    }
    letters >= 3
}

/// Whether the line after the newline at `k` is blank.
fn blank_line_ahead(chars: &Chars, k: usize) -> bool {
    let mut j = k + 1;
    while let Some(c) = chars.get(j) {
        match c {
            '\n' => return true,
            c if c.is_whitespace() => j += 1,
            _ => return false,
        }
    }
    false
}

/// The reference opening with the `[` or `(` at `k`, when it is one.
fn bracket_forward(chars: &Chars, k: usize) -> Option<Reference> {
    let open = chars.get(k)?;
    let close = if open == '[' { ']' } else { ')' };
    let mut j = k + 1;
    while j < k + MAX_BRACKET {
        match chars.get(j)? {
            c if c == close => return validated(chars, k, j + 1),
            '[' | '(' | ']' | ')' => return None,
            '\n' if blank_line_ahead(chars, j) => return None,
            _ => j += 1,
        }
    }
    None
}

/// The reference closing with the `]` or `)` at `k`, when it is one.
fn bracket_backward(chars: &Chars, k: usize) -> Option<Reference> {
    let close = chars.get(k)?;
    let open = if close == ']' { '[' } else { '(' };
    let mut j = k.checked_sub(1)?;
    while j + MAX_BRACKET > k {
        match chars.get(j)? {
            c if c == open => return validated(chars, j, k + 1),
            '[' | '(' | ']' | ')' => return None,
            '\n' if blank_line_ahead(chars, j) => return None,
            _ => j = j.checked_sub(1)?,
        }
    }
    None
}

/// The bracket pair at chars `[start, end)` as a reference, when its content reads as one.
fn validated(chars: &Chars, start: usize, end: usize) -> Option<Reference> {
    let content = chars.collapsed(start + 1, end.saturating_sub(1));
    let kind = if chars.get(start)? == '[' { ReferenceKind::Bracketed } else { ReferenceKind::Parenthetical };
    is_reference(kind, &content).then(|| reference(chars, start, end, kind))
}

/// Whether the content of a bracket pair reads as a reference.
///
/// Square brackets: a number list with at most a page note (`12`, `1-3`, `12, p. 5`,
/// `3, т. 2, с. 15`), a markdown footnote (`^1`), an author and year (`Иванов, 2010`),
/// `Электронный ресурс` / `Electronic resource`, or `ibid.` / `Там же`. Parentheses:
/// at most 12 words with a year (`Smith, 2010`, `Smith 2010: 15`, `2010`), a page
/// (`p. 5`, `с. 45`), or `ibid.` / `там же` / `op. cit.` / `указ. соч.`.
pub(super) fn is_reference(kind: ReferenceKind, content: &str) -> bool {
    let t = content.trim();
    let Some(first) = t.chars().next() else { return false };
    if t.chars().count() > MAX_BRACKET {
        return false;
    }
    let lower = t.to_lowercase();
    let ibid = ["ibid", "там же", "op. cit", "op.cit", "указ. соч", "указ.соч"].iter().any(|p| lower.starts_with(p));
    match kind {
        ReferenceKind::Bracketed => {
            if let Some(rest) = t.strip_prefix('^') {
                return !rest.is_empty() && rest.chars().all(|c| c.is_ascii_alphanumeric());
            }
            if first.is_ascii_digit() {
                let letters = t.chars().filter(|c| c.is_alphabetic()).count();
                let odd = t.chars().any(|c| matches!(c, '=' | '+' | '<' | '>' | '*' | '/' | '^'));
                return letters <= 12 && !odd;
            }
            lower.contains("электронный ресурс")
                || lower.contains("electronic resource")
                || ibid
                || (first.is_uppercase() && has_year(t))
        }
        ReferenceKind::Parenthetical => {
            let words = t.split_whitespace().count();
            (words <= 12 && has_year(t)) || is_page(&lower) || ibid
        }
        ReferenceKind::Footnote => false,
    }
}

/// `p. 5`, `pp. 5-7`, `с. 45`, `стр. 3`, `s. 12`.
fn is_page(lower: &str) -> bool {
    ["pp.", "p.", "с.", "c.", "стр.", "s."]
        .iter()
        .any(|p| lower.strip_prefix(p).is_some_and(|rest| rest.trim_start().starts_with(|c: char| c.is_ascii_digit())))
}

/// Whether `t` holds a year as references write it: four digits from 1500 to 2099, not
/// inside a longer number, optionally with one letter (`2010a`), then the end or one of
/// `,;:` (so "in 2010 the company grew" is no reference).
fn has_year(t: &str) -> bool {
    let chars: Vec<char> = t.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() || (i > 0 && chars[i - 1].is_alphanumeric()) {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < chars.len() && chars[j].is_ascii_digit() {
            j += 1;
        }
        let year: String = chars[i..j].iter().collect();
        if j - i == 4 && year.parse::<u32>().is_ok_and(|y| (1500..=2099).contains(&y)) {
            let mut k = j;
            if chars.get(k).is_some_and(|c| c.is_lowercase()) && chars.get(k + 1).is_none_or(|c| !c.is_alphanumeric()) {
                k += 1;
            }
            if chars.get(k).is_none_or(|c| matches!(c, ',' | ';' | ':')) {
                return true;
            }
        }
        i = j;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bracketed_references() {
        let yes = ["12", "12, p. 5", "1-3", "1–3", "1, 4, 7", "12; 15, pp. 3-7", "3, т. 2, с. 15", "^1"];
        for t in yes {
            assert!(is_reference(ReferenceKind::Bracketed, t), "{t}");
        }
        let yes = ["Иванов, 2010", "Smith 2010: 15", "Электронный ресурс", "Там же", "Ibid., p. 4"];
        for t in yes {
            assert!(is_reference(ReferenceKind::Bracketed, t), "{t}");
        }
        for t in ["", "sic", "…", "...", "x = 1", "1 + 2", "emphasis added", "в 2010 году"] {
            assert!(!is_reference(ReferenceKind::Bracketed, t), "{t}");
        }
    }

    #[test]
    fn parenthetical_references() {
        let yes = ["Smith, 2010", "Smith 2010: 15", "Иванов, 2010, с. 5", "2010", "Smith et al., 2010a; Jones, 2012"];
        for t in yes {
            assert!(is_reference(ReferenceKind::Parenthetical, t), "{t}");
        }
        for t in ["p. 5", "с. 45", "ibid.", "там же", "op. cit., p. 3"] {
            assert!(is_reference(ReferenceKind::Parenthetical, t), "{t}");
        }
        for t in ["in 2010 the company grew", "12", "see above", "10000", "12345, 2"] {
            assert!(!is_reference(ReferenceKind::Parenthetical, t), "{t}");
        }
    }

    fn reference_of(text: &str) -> Option<String> {
        let chars = Chars::new(text);
        let open = text.chars().position(|c| matches!(c, '«' | '“' | '"'))?;
        let close = text.chars().enumerate().skip(open + 1).find(|(_, c)| matches!(c, '»' | '”' | '"'))?.0;
        find(&chars, open, close).map(|r| r.text)
    }

    #[test]
    fn references_around_a_quotation() {
        assert_eq!(reference_of("«текст цитаты» [12, с. 5]."), Some("[12, с. 5]".into()));
        assert_eq!(reference_of("«текст цитаты»¹."), Some("¹".into()));
        assert_eq!(reference_of("«текст цитаты».²"), Some("²".into()));
        assert_eq!(reference_of("«текст цитаты»12 и далее"), Some("12".into()));
        assert_eq!(reference_of("«текст цитаты»* и далее"), Some("*".into()));
        assert_eq!(reference_of("“quoted text” (Smith, 2010, p. 5)."), Some("(Smith, 2010, p. 5)".into()));
        assert_eq!(reference_of("«текст цитаты», – пишет И. И. Иванов [7]."), Some("[7]".into()));
        assert_eq!(reference_of("Как пишет Иванов (2010), «текст цитаты»."), Some("(2010)".into()));
        assert_eq!(reference_of("По словам И. И. Иванова [5], «текст цитаты»."), Some("[5]".into()));
        assert_eq!(reference_of("«текст цитаты [3, с. 8].»"), Some("[3, с. 8]".into()));
        // Another sentence in between: no reference.
        assert_eq!(reference_of("«текст цитаты». Потом другое [3]."), None);
        assert_eq!(reference_of("Иванов [5] писал иначе. Сейчас «текст цитаты»."), None);
        assert_eq!(reference_of("«текст цитаты» без ссылки."), None);
        assert_eq!(reference_of("«Газпром» 2019 года"), None);
        assert_eq!(reference_of("«текст цитаты» (в 2010 году)."), None);
    }
}
