//! Word-level differences between a block's source passage and its suspect passage.
//!
//! Computed here, once, rather than in each viewer: the JSON carries them, so the web
//! page, the HTML report and any other reader mark the same words, and the words are
//! compared the way matching compares them (case, look-alike letters, invisible
//! characters and `ё` folded by the normalizer, punctuation ignored), so only real
//! changes of wording are marked.

use std::ops::Range;

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
    #[cfg(test)]
    pub(crate) fn diff(
        &mut self,
        source: &str,
        source_span: TextSpan,
        suspect: &str,
        suspect_span: TextSpan,
    ) -> Vec<WordChange> {
        self.compare(source, source_span, suspect, suspect_span).map_or_else(Vec::new, |c| c.changes)
    }

    /// The comparison of `source` (the source's text of `source_span`) and `suspect`
    /// (the suspect's text of `suspect_span`): the word changes, moved runs included, and
    /// which suspect word stands for which source word. `None` when there is no
    /// normalizer or a side has more than [`MAX_DIFF_WORDS`] words.
    pub(crate) fn compare(
        &mut self,
        source: &str,
        source_span: TextSpan,
        suspect: &str,
        suspect_span: TextSpan,
    ) -> Option<Comparison> {
        let normalizer = self.normalizer.as_mut()?;
        let old = words(normalizer, source, source_span);
        let new = words(normalizer, suspect, suspect_span);
        if old.len() > MAX_DIFF_WORDS || new.len() > MAX_DIFF_WORDS {
            return None;
        }
        let old_keys: Vec<&str> = old.iter().map(|w| w.key.as_str()).collect();
        let new_keys: Vec<&str> = new.iter().map(|w| w.key.as_str()).collect();
        // Hunks: the (old, new) word ranges of every run that is not equal, in order, and
        // the equal words paired.
        let mut hunks: Vec<(Range<usize>, Range<usize>)> = Vec::new();
        let mut matched: Vec<(usize, usize)> = Vec::new();
        // Where the previous op ended on each side: the place of an insertion or a
        // deletion on the side that lacks the words (`similar` reports a `Delete`'s
        // `new_index` where it ends up, not where it is in order).
        let (mut old_end, mut new_end) = (0usize, 0usize);
        for op in similar::capture_diff_slices(Algorithm::Myers, &old_keys, &new_keys) {
            match op {
                DiffOp::Equal { old_index, new_index, len } => {
                    matched.extend((0..len).map(|k| (new_index + k, old_index + k)));
                    (old_end, new_end) = (old_index + len, new_index + len);
                }
                DiffOp::Delete { old_index, old_len, .. } => {
                    old_end = old_index + old_len;
                    hunks.push((old_index..old_end, new_end..new_end));
                }
                DiffOp::Insert { new_index, new_len, .. } => {
                    new_end = new_index + new_len;
                    hunks.push((old_end..old_end, new_index..new_end));
                }
                DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                    (old_end, new_end) = (old_index + old_len, new_index + new_len);
                    hunks.push((old_index..old_end, new_index..new_end));
                }
            }
        }
        let moves = find_moves(&old_keys, &new_keys, &hunks);
        let mut old_moved = vec![false; old.len()];
        let mut new_moved = vec![false; new.len()];
        let mut changes = Vec::new();
        for m in &moves {
            old_moved[m.old.clone()].iter_mut().for_each(|x| *x = true);
            new_moved[m.new.clone()].iter_mut().for_each(|x| *x = true);
            matched.extend(m.new.clone().zip(m.old.clone()));
            changes.push(WordChange {
                kind: ChangeKind::Moved,
                source: cover(&old, m.old.clone(), source_span),
                suspect: cover(&new, m.new.clone(), suspect_span),
            });
        }
        for (old_range, new_range) in hunks {
            let old_parts = unmoved_runs(old_range.clone(), &old_moved);
            let new_parts = unmoved_runs(new_range.clone(), &new_moved);
            match (old_parts.as_slice(), new_parts.as_slice()) {
                ([], []) => {}
                ([o], [n]) => push_replace(&mut changes, &old, o.clone(), source_span, &new, n.clone(), suspect_span),
                _ => {
                    // Pieces left around moved words: each on its own, placed where the
                    // hunk starts on the other side.
                    for o in old_parts {
                        let at = new_range.start..new_range.start;
                        changes.push(change(ChangeKind::Deleted, (&old, o, source_span), (&new, at, suspect_span)));
                    }
                    for n in new_parts {
                        let at = old_range.start..old_range.start;
                        changes.push(change(ChangeKind::Inserted, (&old, at, source_span), (&new, n, suspect_span)));
                    }
                }
            }
        }
        // Text order on the suspect's side, then on the source's (a deletion is an empty
        // span: it comes before the words that follow it).
        changes.sort_by_key(|c| (c.suspect.chars.start, c.suspect.chars.end, c.source.chars.start, c.source.chars.end));
        matched.sort_unstable();
        Some(Comparison {
            changes,
            matched: matched.into_iter().map(|(n, o)| (new[n].span, old[o].span)).collect(),
            suspect_words: new.len(),
            source_words: old.len(),
        })
    }
}

/// What comparing a block's two sides shows ([`WordDiffer::compare`]).
pub(crate) struct Comparison {
    /// The word changes, moved runs included, in the suspect's text order.
    pub changes: Vec<WordChange>,
    /// Every suspect word that stands for a source word (equal in place, or moved), with
    /// that source word, in the suspect's order.
    pub matched: Vec<(TextSpan, TextSpan)>,
    /// Words of the suspect's side.
    pub suspect_words: usize,
    /// Words of the source's side.
    pub source_words: usize,
}

impl Comparison {
    /// Whether the two sides hold the same words (up to case, look-alike letters and
    /// punctuation), in order or moved: every change is a move, or words one side only
    /// has before the first or after the last matched word (where the alignment stopped
    /// on one side a few words from where it stopped on the other, not an edit of the
    /// writer's).
    pub(crate) fn same_words(&self) -> bool {
        let (Some(first), Some(last)) = (self.matched.first(), self.matched.last()) else {
            return self.suspect_words == 0 && self.source_words == 0;
        };
        let source_first = self.matched.iter().map(|m| m.1.chars.start).min().unwrap_or(first.1.chars.start);
        let source_last = self.matched.iter().map(|m| m.1.chars.end).max().unwrap_or(last.1.chars.end);
        self.changes.iter().all(|c| {
            c.kind == ChangeKind::Moved
                || c.kind != ChangeKind::Changed
                    && ((c.suspect.chars.end <= first.0.chars.start && c.source.chars.end <= source_first)
                        || (c.suspect.chars.start >= last.0.chars.end && c.source.chars.start >= source_last))
        })
    }

    /// Share of the suspect's words that stand for a source word (in place or moved).
    pub(crate) fn kept_share(&self) -> f64 {
        if self.suspect_words == 0 {
            return 0.0;
        }
        #[allow(clippy::cast_precision_loss)] // at most MAX_DIFF_WORDS words
        let share = self.matched.len() as f64 / self.suspect_words as f64;
        share
    }
}

/// Fewest words a run needs to count as moved: shorter runs of the same words (`of the
/// people`) turn up in any two passages on one subject by chance.
pub(crate) const MIN_MOVED_WORDS: usize = 4;

/// Most places a word is looked up at when matching moved runs: keeps common words
/// (`the`) from making the search quadratic.
const MAX_MOVE_CANDIDATES: usize = 64;

/// A run of words the suspect has in another place than the source.
struct Move {
    old: Range<usize>,
    new: Range<usize>,
}

/// Runs of at least [`MIN_MOVED_WORDS`] words deleted in one hunk and inserted in
/// another (or the same) hunk with the same keys: text the writer moved (sentences
/// reordered), which a shortest edit script reports as words deleted here and inserted
/// there. Greedy in the suspect's order, longest run first at each word.
fn find_moves(old_keys: &[&str], new_keys: &[&str], hunks: &[(Range<usize>, Range<usize>)]) -> Vec<Move> {
    let mut old_free = vec![false; old_keys.len()];
    let mut new_free = vec![false; new_keys.len()];
    for (o, n) in hunks {
        old_free[o.clone()].iter_mut().for_each(|x| *x = true);
        new_free[n.clone()].iter_mut().for_each(|x| *x = true);
    }
    let mut at: std::collections::BTreeMap<&str, Vec<usize>> = std::collections::BTreeMap::new();
    for (j, key) in old_keys.iter().enumerate().filter(|&(j, _)| old_free[j]) {
        let places = at.entry(key).or_default();
        if places.len() < MAX_MOVE_CANDIDATES {
            places.push(j);
        }
    }
    let mut moves = Vec::new();
    let mut i = 0;
    while i < new_keys.len() {
        if !new_free[i] {
            i += 1;
            continue;
        }
        let mut best: Option<(usize, usize)> = None;
        for &j in at.get(new_keys[i]).map_or(&[][..], Vec::as_slice) {
            let len = (0..)
                .take_while(|&k| {
                    i + k < new_keys.len()
                        && j + k < old_keys.len()
                        && new_free[i + k]
                        && old_free[j + k]
                        && new_keys[i + k] == old_keys[j + k]
                })
                .count();
            if best.is_none_or(|(_, l)| len > l) {
                best = Some((j, len));
            }
        }
        match best {
            Some((j, len)) if len >= MIN_MOVED_WORDS => {
                new_free[i..i + len].iter_mut().for_each(|x| *x = false);
                old_free[j..j + len].iter_mut().for_each(|x| *x = false);
                moves.push(Move { old: j..j + len, new: i..i + len });
                i += len;
            }
            _ => i += 1,
        }
    }
    if !moves.is_empty() {
        // Text was moved: what is left over on both sides as the very same words (a
        // sentence's first word the edit script kept in place) moved too, whole runs only.
        let old_runs = free_runs(&old_free);
        let mut taken = vec![false; old_runs.len()];
        for new_run in free_runs(&new_free) {
            let same = old_runs.iter().enumerate().find(|(k, o)| {
                !taken[*k] && o.len() == new_run.len() && old_keys[(*o).clone()] == new_keys[new_run.clone()]
            });
            if let Some((k, o)) = same {
                taken[k] = true;
                moves.push(Move { old: o.clone(), new: new_run });
            }
        }
    }
    moves
}

/// The maximal runs of `true` in `free`.
fn free_runs(free: &[bool]) -> Vec<Range<usize>> {
    let mut runs = Vec::new();
    let mut start = None;
    for (i, &f) in free.iter().enumerate() {
        match (f, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                runs.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        runs.push(s..free.len());
    }
    runs
}

/// The maximal runs of `range` whose words are not moved.
fn unmoved_runs(range: Range<usize>, moved: &[bool]) -> Vec<Range<usize>> {
    let mut runs = Vec::new();
    let mut start = None;
    for i in range.clone() {
        match (moved[i], start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                runs.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        runs.push(s..range.end);
    }
    runs
}

/// A change between the words `old` of the source and `new` of the suspect.
fn change(
    kind: ChangeKind,
    (old, old_range, source_span): (&[Word], Range<usize>, TextSpan),
    (new, new_range, suspect_span): (&[Word], Range<usize>, TextSpan),
) -> WordChange {
    WordChange { kind, source: cover(old, old_range, source_span), suspect: cover(new, new_range, suspect_span) }
}

/// Source words replaced by suspect words: they pair up in order; what is left over on
/// the longer side was inserted or deleted ("измученный" -> "замученный долгой" is one
/// changed word and one inserted word, not two changed words).
fn push_replace(
    changes: &mut Vec<WordChange>,
    old: &[Word],
    o: Range<usize>,
    source_span: TextSpan,
    new: &[Word],
    n: Range<usize>,
    suspect_span: TextSpan,
) {
    let paired = o.len().min(n.len());
    let (old_at, new_at) = (o.start + paired, n.start + paired);
    if paired > 0 {
        changes.push(change(
            ChangeKind::Changed,
            (old, o.start..old_at, source_span),
            (new, n.start..new_at, suspect_span),
        ));
    }
    if o.len() > paired {
        changes.push(change(
            ChangeKind::Deleted,
            (old, old_at..o.end, source_span),
            (new, new_at..new_at, suspect_span),
        ));
    } else if n.len() > paired {
        changes.push(change(
            ChangeKind::Inserted,
            (old, old_at..old_at, source_span),
            (new, new_at..n.end, suspect_span),
        ));
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
    fn reordered_identical_sentences_are_moved_not_deleted_and_inserted() {
        let source = "The river rose in the night. The village slept on the hill. Nobody heard the bells.";
        let suspect = "The village slept on the hill. The river rose in the night. Nobody heard the bells.";
        let c = changes(source, suspect);
        assert!(!c.is_empty());
        assert!(c.iter().all(|(kind, old, new)| *kind == ChangeKind::Moved && old == new), "{c:?}");
        let mut differ = WordDiffer::new();
        let comparison = differ.compare(source, whole(source), suspect, whole(suspect)).unwrap();
        assert!(comparison.same_words());
        assert!((comparison.kept_share() - 1.0).abs() < f64::EPSILON);
    }

    #[test]
    fn a_moved_sentence_with_a_word_changed_elsewhere_is_both() {
        let source = "One two three four five. Six seven eight nine ten. Eleven twelve.";
        let suspect = "Six seven eight nine ten. One two three four five. Eleven thirteen.";
        let c = changes(source, suspect);
        assert!(c.iter().any(|(kind, _, _)| *kind == ChangeKind::Moved), "{c:?}");
        assert_eq!(
            c.iter().filter(|(kind, _, _)| *kind != ChangeKind::Moved).collect::<Vec<_>>(),
            vec![&(ChangeKind::Changed, "twelve".to_owned(), "thirteen".to_owned())]
        );
    }

    #[test]
    fn short_runs_are_not_moved() {
        // Fewer than MIN_MOVED_WORDS words in another place: a coincidence, not a moved
        // sentence.
        let c = changes("alpha beta gamma delta epsilon", "delta epsilon alpha beta gamma");
        assert!(c.iter().all(|(kind, _, _)| *kind != ChangeKind::Moved), "{c:?}");
    }

    #[test]
    fn empty_passages_do_not_panic() {
        assert!(changes("", "").is_empty());
        assert_eq!(changes("", "слово").len(), 1);
        assert_eq!(changes("...", "слово")[0].1, "");
    }
}
