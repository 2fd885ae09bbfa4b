//! Word-level differences between a block's source passage and its suspect passage.
//!
//! Computed here, once, rather than in each viewer: the JSON carries them, so the web
//! page, the HTML report and any other reader mark the same words, and the words are
//! compared the way matching compares them (case, look-alike letters, invisible
//! characters and `ё` folded by the normalizer, punctuation ignored), so only real
//! changes of wording are marked.

use similar::{Algorithm, DiffOp};
use tessera_normalize::{CharIndex, Normalizer, NormalizerConfig, Span};
use tessera_search::TextSpan;

use crate::model::{ChangeKind, WordChange};

/// Passages with more words than this on either side get no diff: Myers' algorithm
/// costs `O((n + m) d)`. Measured (release, one core): 5,000 words against 5,000
/// unrelated ones take 0.38 s, 20,000 against 20,000 take 7 s; near-copies of 20,000
/// words take 12 ms, but an aligned block is not guaranteed to be one.
pub(crate) const MAX_DIFF_WORDS: usize = 5_000;

/// Compares words as matching does, but keeps every word: no stemming (a changed
/// ending is a change a reviewer wants to see), no stop words, numbers kept.
pub(crate) struct WordDiffer {
    normalizer: Option<Normalizer>,
}

/// One word of a passage: its absolute span and its comparison key.
struct Word {
    span: TextSpan,
    key: String,
}

impl WordDiffer {
    pub(crate) fn new() -> Self {
        let config = NormalizerConfig {
            stop_words: false,
            stemming: false,
            drop_numbers: false,
            fold_confusables: true,
            ..NormalizerConfig::default()
        };
        // The configuration is fixed and valid; without a normalizer there is no diff.
        Self { normalizer: Normalizer::new(config).ok() }
    }

    /// The differences between `source` (the source's text of `source_span`) and
    /// `suspect` (the suspect's text of `suspect_span`), as absolute spans.
    pub(crate) fn diff(
        &mut self,
        source: &str,
        source_span: TextSpan,
        suspect: &str,
        suspect_span: TextSpan,
    ) -> Vec<WordChange> {
        let Some(normalizer) = self.normalizer.as_mut() else { return Vec::new() };
        let old = words(normalizer, source, source_span);
        let new = words(normalizer, suspect, suspect_span);
        if old.len() > MAX_DIFF_WORDS || new.len() > MAX_DIFF_WORDS {
            return Vec::new();
        }
        let old_keys: Vec<&str> = old.iter().map(|w| w.key.as_str()).collect();
        let new_keys: Vec<&str> = new.iter().map(|w| w.key.as_str()).collect();
        let mut changes = Vec::new();
        // Where the previous op ended on each side: the place of an insertion or a
        // deletion on the side that lacks the words (`similar` reports a `Delete`'s
        // `new_index` where it ends up, not where it is in order).
        let (mut old_end, mut new_end) = (0usize, 0usize);
        for op in similar::capture_diff_slices(Algorithm::Myers, &old_keys, &new_keys) {
            let (kind, old_range, new_range) = match op {
                DiffOp::Equal { old_index, new_index, len } => {
                    (old_end, new_end) = (old_index + len, new_index + len);
                    continue;
                }
                DiffOp::Delete { old_index, old_len, .. } => {
                    old_end = old_index + old_len;
                    (ChangeKind::Deleted, old_index..old_end, new_end..new_end)
                }
                DiffOp::Insert { new_index, new_len, .. } => {
                    new_end = new_index + new_len;
                    (ChangeKind::Inserted, old_end..old_end, new_index..new_end)
                }
                DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                    (old_end, new_end) = (old_index + old_len, new_index + new_len);
                    // Words pair up in order; what is left over on the longer side was
                    // inserted or deleted ("измученный" -> "замученный долгой" is one
                    // changed word and one inserted word, not two changed words).
                    let paired = old_len.min(new_len);
                    changes.push(WordChange {
                        kind: ChangeKind::Changed,
                        source: cover(&old, old_index..old_index + paired, source_span),
                        suspect: cover(&new, new_index..new_index + paired, suspect_span),
                    });
                    let (old_at, new_at) = (old_index + paired, new_index + paired);
                    match old_len.cmp(&new_len) {
                        std::cmp::Ordering::Less => (ChangeKind::Inserted, old_at..old_at, new_at..new_index + new_len),
                        std::cmp::Ordering::Greater => {
                            (ChangeKind::Deleted, old_at..old_index + old_len, new_at..new_at)
                        }
                        std::cmp::Ordering::Equal => continue,
                    }
                }
            };
            changes.push(WordChange {
                kind,
                source: cover(&old, old_range, source_span),
                suspect: cover(&new, new_range, suspect_span),
            });
        }
        changes
    }
}

/// The words of `excerpt` (the text of `span`) with absolute spans.
fn words(normalizer: &mut Normalizer, excerpt: &str, span: TextSpan) -> Vec<Word> {
    let index = CharIndex::new(excerpt);
    normalizer
        .canonical_terms(excerpt)
        .into_iter()
        .map(|(bytes, key)| Word {
            span: TextSpan {
                bytes: Span { start: span.bytes.start + bytes.start, end: span.bytes.start + bytes.end },
                chars: Span {
                    start: span.chars.start + index.byte_to_char(bytes.start),
                    end: span.chars.start + index.byte_to_char(bytes.end),
                },
            },
            key,
        })
        .collect()
}

/// The span from the first to the last word of `range`; for an empty range, the empty
/// span where its words would be: at the start of the next word, else at the end of
/// the last one, else at the start of the passage.
fn cover(words: &[Word], range: std::ops::Range<usize>, passage: TextSpan) -> TextSpan {
    if let (Some(first), Some(last)) = (words.get(range.start), range.end.checked_sub(1).and_then(|i| words.get(i)))
        && range.start < range.end
    {
        return TextSpan {
            bytes: Span { start: first.span.bytes.start, end: last.span.bytes.end },
            chars: Span { start: first.span.chars.start, end: last.span.chars.end },
        };
    }
    let (byte, char) = match (words.get(range.start), range.start.checked_sub(1).and_then(|i| words.get(i))) {
        (Some(next), _) => (next.span.bytes.start, next.span.chars.start),
        (None, Some(prev)) => (prev.span.bytes.end, prev.span.chars.end),
        (None, None) => (passage.bytes.start, passage.chars.start),
    };
    TextSpan { bytes: Span { start: byte, end: byte }, chars: Span { start: char, end: char } }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(text: &str) -> TextSpan {
        TextSpan { bytes: Span { start: 0, end: text.len() }, chars: Span { start: 0, end: text.chars().count() } }
    }

    fn slice(text: &str, span: TextSpan) -> String {
        text.chars().skip(span.chars.start).take(span.chars.end - span.chars.start).collect()
    }

    /// (kind, source words, suspect words) of each change.
    fn changes(source: &str, suspect: &str) -> Vec<(ChangeKind, String, String)> {
        let mut differ = WordDiffer::new();
        differ
            .diff(source, whole(source), suspect, whole(suspect))
            .into_iter()
            .map(|c| {
                assert_eq!(&source[c.source.bytes.start..c.source.bytes.end], slice(source, c.source));
                assert_eq!(&suspect[c.suspect.bytes.start..c.suspect.bytes.end], slice(suspect, c.suspect));
                (c.kind, slice(source, c.source), slice(suspect, c.suspect))
            })
            .collect()
    }

    #[test]
    fn cyrillic_words_that_differ_in_a_few_letters_are_changed() {
        let source = "Он не мог пошевелить рукой, измученный дорогой.";
        let suspect = "Он не мог пошевельнуть рукой, замученный дорогой.";
        assert_eq!(
            changes(source, suspect),
            vec![
                (ChangeKind::Changed, "пошевелить".into(), "пошевельнуть".into()),
                (ChangeKind::Changed, "измученный".into(), "замученный".into()),
            ]
        );
    }

    #[test]
    fn inserted_and_deleted_words_have_an_empty_other_side() {
        let c = changes("the quick brown fox jumps", "the brown fox quietly jumps");
        assert_eq!(c.len(), 2, "{c:?}");
        assert_eq!(c[0], (ChangeKind::Deleted, "quick".into(), String::new()));
        assert_eq!(c[1], (ChangeKind::Inserted, String::new(), "quietly".into()));
    }

    #[test]
    fn case_punctuation_and_look_alike_letters_are_no_change() {
        // Latin "о" and "е" inside the Russian word, a comma and a capital.
        assert!(changes("привет, мир друзей", "Привет мир дpузeй!").is_empty());
    }

    #[test]
    fn spans_are_absolute() {
        let suspect = "ёж: одна две три";
        let span = TextSpan { bytes: Span { start: 6, end: suspect.len() }, chars: Span { start: 4, end: 16 } };
        let source = "одна три";
        let source_span =
            TextSpan { bytes: Span { start: 100, end: 100 + source.len() }, chars: Span { start: 50, end: 58 } };
        let mut differ = WordDiffer::new();
        let c = differ.diff(source, source_span, &suspect[6..], span);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].kind, ChangeKind::Inserted);
        assert_eq!(&suspect[c[0].suspect.bytes.start..c[0].suspect.bytes.end], "две");
        assert_eq!(c[0].suspect.chars, Span { start: 9, end: 12 });
        // Where "две" would go in the source: before "три".
        assert_eq!(c[0].source.chars, Span { start: 55, end: 55 });
        assert_eq!(c[0].source.bytes, Span { start: 109, end: 109 });
    }

    #[test]
    fn empty_passages_do_not_panic() {
        assert!(changes("", "").is_empty());
        assert_eq!(changes("", "слово").len(), 1);
        assert_eq!(changes("...", "слово")[0].1, "");
    }
}
