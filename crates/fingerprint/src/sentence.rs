//! Sentence boundaries between tokens, from the original text.

use tessera_normalize::Span;

/// Terms per sentence at most, for [`sentences`]: longer runs without a sentence end
/// (lists, texts without punctuation) are cut.
pub const MAX_SENTENCE_TERMS: usize = 40;

/// Splits a text's tokens into sentences: token ranges `[start, end)` in order, covering
/// every token. A sentence ends between two tokens when the text between them holds a
/// sentence end (`.`, `!`, `?`, `…`, `;`, CJK `。！？`) followed by a space, a line break,
/// a quote or a bracket (so `3.14` and `e.g.x` do not split), a blank line, or a bare
/// `.`, `!`, `?` between a lower-case letter and a capital (`seasons.It`). A
/// sentence longer than `max_tokens` is cut into pieces of at most that many tokens, so
/// that a text without punctuation still has sentences.
pub fn sentences(text: &str, token_bytes: &[Span], max_tokens: usize) -> Vec<Span> {
    let max_tokens = max_tokens.max(1);
    let mut out = Vec::new();
    let mut start = 0;
    for k in 1..=token_bytes.len() {
        let end_here = k == token_bytes.len() || {
            let (a, b) = (token_bytes[k - 1].end, token_bytes[k].start);
            text.get(a.min(b)..b)
                .is_some_and(|gap| may_end_sentence(gap) && (ends_sentence(gap) || glued_sentence(text, gap, b)))
        };
        if end_here || k - start >= max_tokens {
            out.push(Span { start, end: k });
            start = k;
        }
    }
    out
}

/// A byte scan that rules out most gaps (spaces, stop words, commas) before the char-by-char
/// rules: a sentence end needs one of `.!?;` or a line break, or a `…` or CJK mark, whose
/// UTF-8 encodings start with 0xE2, 0xE3 or 0xEF. Indexing runs this for every token.
fn may_end_sentence(gap: &str) -> bool {
    gap.bytes().any(|b| matches!(b, b'.' | b'!' | b'?' | b';' | b'\n' | 0xE2 | 0xE3 | 0xEF))
}

/// `end.Next`: a sentence end glued to the next sentence (web pages lose the space),
/// told from `e.g.` and `U.S.` by a capital after a lower-case word.
fn glued_sentence(text: &str, gap: &str, next_start: usize) -> bool {
    if !matches!(gap, "." | "!" | "?") {
        return false;
    }
    let before = text[..next_start - gap.len()].chars().next_back();
    let after = text[next_start..].chars().next();
    before.is_some_and(char::is_lowercase) && after.is_some_and(char::is_uppercase)
}

/// Whether the text between two tokens ends a sentence.
fn ends_sentence(gap: &str) -> bool {
    let mut chars = gap.chars().peekable();
    let mut newlines = 0;
    while let Some(c) = chars.next() {
        match c {
            '\n' => {
                newlines += 1;
                if newlines >= 2 {
                    return true;
                }
            }
            '.' | '!' | '?' | '…' | ';' => {
                let next = chars.peek().copied();
                if next.is_some_and(|n| n.is_whitespace() || "\"'»“”’)]".contains(n)) {
                    return true;
                }
            }
            '。' | '！' | '？' => return true,
            c if c.is_whitespace() => {}
            _ => newlines = 0,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(text: &str) -> Vec<Span> {
        let mut out = Vec::new();
        let mut start = None;
        for (i, c) in text.char_indices() {
            match (c.is_alphanumeric(), start) {
                (true, None) => start = Some(i),
                (false, Some(s)) => {
                    out.push(Span { start: s, end: i });
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(s) = start {
            out.push(Span { start: s, end: text.len() });
        }
        out
    }

    #[test]
    fn splits_at_sentence_ends_not_inside_numbers() {
        let text = "One two three. Four five\nsix! Seven pi 3.14 eight? «Девять» десять.\n\nEleven.Twelve U.S. e.g.x";
        let t = spans(text);
        let s: Vec<(usize, usize)> = sentences(text, &t, 100).iter().map(|s| (s.start, s.end)).collect();
        // tokens: One two three | Four five six | Seven pi 3 14 eight | Девять десять | Eleven
        // | Twelve U S | e g x
        assert_eq!(s, vec![(0, 3), (3, 6), (6, 11), (11, 13), (13, 14), (14, 17), (17, 20)]);
    }

    #[test]
    fn long_runs_are_cut() {
        let text = "a b c d e f g";
        let t = spans(text);
        let s: Vec<(usize, usize)> = sentences(text, &t, 3).iter().map(|s| (s.start, s.end)).collect();
        assert_eq!(s, vec![(0, 3), (3, 6), (6, 7)]);
        assert!(sentences("", &[], 3).is_empty());
    }
}
