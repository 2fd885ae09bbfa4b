//! Sentence boundaries between tokens, from the original text.

use tessera_normalize::Span;

/// Terms per sentence at most, for [`sentences`]: longer runs without a sentence end
/// (lists, texts without punctuation) are cut.
pub const MAX_SENTENCE_TERMS: usize = 40;

/// The longest stretch of text before a sentence's first token that [`sentence_edges`]
/// counts as the sentence's lead, in bytes (a longer one is not a sentence's opening
/// words but something else: a table of numbers, a run of symbols).
pub const MAX_SENTENCE_LEAD: usize = 64;

/// How far a sentence's text reaches beyond its first and last tokens. Tokens are the
/// words that are not stop words: a sentence's text starts at its first word ("The",
/// "In", "It will also", an opening quote) and ends after its closing punctuation.
/// Blocks that start or end with a whole sentence take these in ([`sentence_edges`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SentenceEdge {
    /// Bytes from where the sentence's text starts to its first token.
    pub lead_bytes: u32,
    /// ... the same in chars.
    pub lead_chars: u32,
    /// Bytes from its last token's end to where its text ends (`.`, `?"`, `).`).
    pub tail_bytes: u32,
    /// ... the same in chars.
    pub tail_chars: u32,
}

/// The [`SentenceEdge`] of every sentence of [`sentences`]. A sentence's text starts after
/// the last sentence end or blank line before its first token, past closing quotes and
/// spaces; when no sentence end separates it from the previous sentence (a long one cut
/// into pieces) or that lead is longer than [`MAX_SENTENCE_LEAD`], it has none. It ends
/// after the run of sentence ends and closing quotes or brackets right after its last
/// token, if that run holds a sentence end.
pub fn sentence_edges(text: &str, token_bytes: &[Span], sentences: &[Span]) -> Vec<SentenceEdge> {
    let chars = |s: &str| u32::try_from(s.chars().count()).unwrap_or(u32::MAX);
    let len = |s: &str| u32::try_from(s.len()).unwrap_or(u32::MAX);
    sentences
        .iter()
        .map(|sentence| {
            let mut edge = SentenceEdge::default();
            if sentence.start >= sentence.end || sentence.end > token_bytes.len() {
                return edge;
            }
            let first = token_bytes[sentence.start].start;
            let prev_end = if sentence.start == 0 { 0 } else { token_bytes[sentence.start - 1].end };
            if let Some(gap) = text.get(prev_end.min(first)..first) {
                let lead = match opening(gap) {
                    Some(at) => Some(gap[at..].trim_start_matches(is_closing).trim_start()),
                    None if sentence.start == 0 => Some(gap.trim_start()),
                    None => None,
                };
                if let Some(lead) = lead.filter(|l| l.len() <= MAX_SENTENCE_LEAD) {
                    edge.lead_bytes = len(lead);
                    edge.lead_chars = chars(lead);
                }
            }
            let last = token_bytes[sentence.end - 1].end;
            let next = token_bytes.get(sentence.end).map_or(text.len(), |t| t.start);
            if let Some(gap) = text.get(last..next.max(last)) {
                let run = gap.find(|c: char| !is_sentence_end(c) && !is_closing(c)).map_or(gap, |at| &gap[..at]);
                if run.chars().any(is_sentence_end) {
                    edge.tail_bytes = len(run);
                    edge.tail_chars = chars(run);
                }
            }
            edge
        })
        .collect()
}

/// Where a sentence's text may start in the gap before its first token: after the gap's
/// last sentence end or blank line, as [`sentences`] splits (`None` without either). A
/// single line break wraps a line inside a sentence: the words before it ("Each" in
/// "summer. Each\ncolony") open the sentence.
fn opening(gap: &str) -> Option<usize> {
    let mut at = None;
    let mut newlines = 0;
    for (i, c) in gap.char_indices() {
        if is_sentence_end(c) {
            at = Some(i + c.len_utf8());
            newlines = 0;
        } else if c == '\n' {
            newlines += 1;
            if newlines >= 2 {
                at = Some(i + 1);
            }
        } else if !c.is_whitespace() {
            newlines = 0;
        }
    }
    at
}

/// A mark that may end a sentence (as [`sentences`] reads them: the CJK ones always do,
/// the others when a space, a line break or a closing quote or bracket follows).
fn is_sentence_end(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '…' | ';' | '。' | '！' | '？')
}

/// A closing quote or bracket.
fn is_closing(c: char) -> bool {
    "\"'»“”’)]".contains(c)
}

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
            '。' | '！' | '？' => return true,
            c if is_sentence_end(c) => {
                let next = chars.peek().copied();
                if next.is_some_and(|n| n.is_whitespace() || is_closing(n)) {
                    return true;
                }
            }
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
    fn sentence_edges_take_in_opening_words_and_closing_marks() {
        // Tokens are the words that are not stop words (as the normalizer keeps them).
        let text = "The cat sat. \"In the garden,\" she said (twice). It rained…\n\nIn Москве снег. Each\nday.";
        let words = ["cat", "sat", "garden", "said", "twice", "rained", "Москве", "снег", "day"];
        let mut t = Vec::new();
        let mut from = 0;
        for w in words {
            let at = text[from..].find(w).unwrap() + from;
            t.push(Span { start: at, end: at + w.len() });
            from = at + w.len();
        }
        let s = sentences(text, &t, 100);
        let e = sentence_edges(text, &t, &s);
        let lead = |i: usize| &text[t[s[i].start].start - e[i].lead_bytes as usize..t[s[i].start].start];
        let tail = |i: usize| &text[t[s[i].end - 1].end..t[s[i].end - 1].end + e[i].tail_bytes as usize];
        assert_eq!(s.len(), 5);
        assert_eq!((lead(0), tail(0)), ("The ", "."));
        assert_eq!((lead(1), tail(1)), ("\"In the ", ")."));
        assert_eq!((lead(2), tail(2)), ("It ", "…"));
        assert_eq!((lead(3), tail(3)), ("In ", "."));
        // A line wrapped inside a sentence: its opening word is before the line break.
        assert_eq!((lead(4), tail(4)), ("Each\n", "."));
        assert_eq!((e[2].tail_bytes, e[2].tail_chars), (3, 1), "… is three bytes, one char");
        // A blank line opens a sentence as a sentence end does.
        let text = "Heading the\n\nthe cat sat.";
        let t = [Span { start: 0, end: 7 }, Span { start: 17, end: 20 }, Span { start: 21, end: 24 }];
        let e = sentence_edges(text, &t, &sentences(text, &t, 100));
        assert_eq!(e[1].lead_bytes, 4, "{e:?}");
        // A sentence cut from a long one has no lead; a clause ends with no tail.
        let s = sentences("one two three four, five", &spans("one two three four, five"), 2);
        let e = sentence_edges("one two three four, five", &spans("one two three four, five"), &s);
        assert_eq!(e.iter().map(|e| (e.lead_bytes, e.tail_bytes)).collect::<Vec<_>>(), [(0, 0), (0, 0), (0, 0)]);
        // A lead longer than MAX_SENTENCE_LEAD is not taken.
        let long = format!("Done. {}word.", "1 ".repeat(MAX_SENTENCE_LEAD));
        let t = [Span { start: 0, end: 4 }, Span { start: long.len() - 5, end: long.len() - 1 }];
        let e = sentence_edges(&long, &t, &sentences(&long, &t, 100));
        assert_eq!((e[1].lead_bytes, e[1].tail_bytes), (0, 1));
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
