//! A long suspect aligned part by part.
//!
//! Alignment measures a passage against the whole suspect: a term is rare when few of
//! the suspect's sentences hold it, its weight falls with their number, and a reworded
//! passage must match its source better than any other stretch of the suspect does.
//! These were tuned on texts of up to about 9,000 words (PAN 2013). In a text of a
//! million words nearly every content word is in many sentences and some stretch
//! elsewhere is always on the same subject, so a reworded passage that a check of its
//! own document finds lost its confidence and was dropped: PAN suspects joined into 8 MB
//! kept 0.63 of their plagiarism's characters (0.78 with every round it could use)
//! against 0.93 checked one by one (docs/quality.md, "A long text in parts").
//!
//! So a suspect longer than [`crate::SearchConfig::part_tokens`] is cut into parts of
//! about that many tokens at sentence starts, each aligned as a suspect of its own with
//! its own statistics. A part is aligned over its own tokens and a margin on each side
//! (a tenth of a part), and keeps the blocks that start in its own tokens: a passage
//! across a cut is found whole by the part it starts in. A source is aligned only with
//! the parts where it shares suspect shingles close together ([`NEAR_SHINGLES`]): every
//! part would cost an alignment per part and round.

use std::borrow::Cow;

use tessera_normalize::Span;

use crate::{AlignConfig, Block, PreparedSuspect, Query, align};

/// Two shared suspect shingles at most this far apart make the parts holding them worth
/// an alignment. A long text shares a few hundred common shingles with any long source,
/// scattered: aligning every part holding one of them made an 8 MB check two and a half
/// times as slow; a borrowed passage, even reworded, keeps a few of its source's
/// shingles close together. A source sharing no two such shingles is aligned in the part
/// holding the most of its shingles.
const NEAR_SHINGLES: usize = 50;

/// A suspect as alignment uses it, each form made when first needed: cut to 32-bit terms
/// and prepared (for sources from snapshots with sentences), or with full terms and
/// prepared when the source has sentences too (for sources from their texts). The whole
/// suspect of a check is one; each part of a long suspect is another. A part's full form
/// is kept only once a source needs it: the short one is made from it and dropped
/// otherwise (8 MB checks held 30-100 MB more with every part's full form).
#[derive(Default)]
pub(crate) struct SuspectForms<'q> {
    query: Option<Cow<'q, Query>>,
    short: Option<(Query, PreparedSuspect)>,
    full: Option<PreparedSuspect>,
}

impl<'q> SuspectForms<'q> {
    /// The suspect to align a source with and its preparation: the short form when
    /// `short`, else the full one, prepared when `prepared`. `make` gives the full form.
    pub(crate) fn get(
        &mut self,
        make: impl Fn() -> Cow<'q, Query>,
        short: bool,
        prepared: bool,
        config: &AlignConfig,
    ) -> (&Query, Option<&PreparedSuspect>) {
        if short {
            let query = &self.query;
            let (q, p) = self.short.get_or_insert_with(|| {
                let q = query.as_ref().map_or_else(|| make().with_short_terms(), |q| q.with_short_terms());
                let p = PreparedSuspect::new(&q, config);
                (q, p)
            });
            return (q, Some(p));
        }
        let query: &Query = self.query.get_or_insert_with(make);
        let p = prepared.then(|| &*self.full.get_or_insert_with(|| PreparedSuspect::new(query, config)));
        (query, p)
    }
}

/// One part: the tokens it owns, the tokens it is aligned over (its own and the margins),
/// and the part as a suspect, made when first needed.
struct Part {
    own: Span,
    over: Span,
    forms: SuspectForms<'static>,
}

/// A suspect's parts ([`SuspectParts::plan`]).
pub(crate) struct SuspectParts {
    parts: Vec<Part>,
    /// Where a part may be cut: the suspect's sentence starts (empty without sentences:
    /// any token).
    starts: Vec<usize>,
    tokens: usize,
    part_tokens: usize,
}

impl SuspectParts {
    /// The parts of `query` when it has more than `part_tokens` tokens (`None` otherwise,
    /// or when `part_tokens` is 0): owned spans of about `part_tokens` tokens, each cut
    /// at the first sentence start at or after its length, aligned over margins of a
    /// tenth of that, widened to whole sentences.
    pub(crate) fn plan(query: &Query, part_tokens: usize) -> Option<Self> {
        let n = query.token_bytes.len();
        if part_tokens == 0 || n <= part_tokens {
            return None;
        }
        let starts = query.sentences.iter().map(|s| s.start).filter(|&s| s < n).collect();
        let mut plan = Self { parts: Vec::new(), starts, tokens: n, part_tokens };
        let margin = part_tokens / 10;
        let mut start = 0;
        while start < n {
            let mut end = plan.cut_at_or_after(start + part_tokens);
            // The rest joins this part when it would make a part shorter than a margin.
            if n - end < margin.max(1) {
                end = n;
            }
            let own = Span { start, end };
            let over = Span {
                start: plan.cut_at_or_before(start.saturating_sub(margin)),
                end: plan.cut_at_or_after(end + margin),
            };
            plan.parts.push(Part { own, over, forms: SuspectForms::default() });
            start = end;
        }
        Some(plan)
    }

    /// The first place a part may end at or after token `t` (the text's end at the latest).
    fn cut_at_or_after(&self, t: usize) -> usize {
        if self.starts.is_empty() {
            return t.min(self.tokens);
        }
        self.starts.get(self.starts.partition_point(|&s| s < t)).copied().unwrap_or(self.tokens)
    }

    /// The last place a part may start at or before token `t`.
    fn cut_at_or_before(&self, t: usize) -> usize {
        if self.starts.is_empty() {
            return t;
        }
        self.starts[..self.starts.partition_point(|&s| s <= t)].last().copied().unwrap_or(0)
    }

    /// The parts aligned over suspect shingle `shingle` (one, or two in a margin).
    fn touched_by(&self, shingle: usize) -> impl Iterator<Item = usize> + '_ {
        let first = self.parts.partition_point(|p| p.over.end <= shingle);
        (first..self.parts.len()).take_while(move |&k| self.parts[k].over.start <= shingle)
    }

    /// The blocks of `source` in the parts of `query` (the suspect these parts were
    /// planned for) chosen by the suspect shingles it shares, `near`, in suspect
    /// coordinates, by suspect position: as [`align::align_prepared`] gives for a suspect,
    /// each part aligned as one. `short` aligns the suspect with 32-bit terms (a source
    /// from a snapshot), and `prepared` prepares the suspect for sentence seeding (as the
    /// whole suspect's alignment would).
    ///
    /// A block of a part that reaches the end of what the part was aligned over may go on
    /// past it (a copied chapter longer than the margin): that part is aligned again over
    /// another part's length more, until none does, so the block is found whole.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn align(
        &mut self,
        query: &Query,
        near: impl IntoIterator<Item = usize>,
        source: &Query,
        skip: &[bool],
        short: bool,
        prepared: bool,
        config: &AlignConfig,
    ) -> Vec<Block> {
        let chosen = self.chosen(near);
        let mut blocks = Vec::new();
        for k in (0..self.parts.len()).filter(|&k| chosen[k]) {
            let (own, mut over) = (self.parts[k].own, self.parts[k].over);
            let owned = |b: &Block| (own.start..own.end).contains(&b.suspect_tokens.start);
            loop {
                let make = || Cow::Owned(part_of(query, over));
                let found = if over == self.parts[k].over {
                    let (suspect, prepared) = self.parts[k].forms.get(make, short, prepared, config);
                    align_over(suspect, prepared, over, source, skip, config)
                } else {
                    // A wider stretch for this source alone.
                    let mut wide = SuspectForms::default();
                    let (suspect, prepared) = wide.get(make, short, prepared, config);
                    align_over(suspect, prepared, over, source, skip, config)
                };
                let reaches_end = |b: &Block| b.suspect_tokens.end + query.shingle_size >= over.end;
                if over.end < self.tokens && found.iter().any(|b| owned(b) && reaches_end(b)) {
                    over.end = self.cut_at_or_after(over.end + self.part_tokens);
                    continue;
                }
                blocks.extend(found.into_iter().filter(owned));
                break;
            }
        }
        blocks.sort_by_key(|b| {
            (b.suspect_tokens.start, b.suspect_tokens.end, b.source_tokens.start, b.source_tokens.end)
        });
        blocks
    }

    /// Which parts a source sharing suspect shingles `near` is aligned with.
    fn chosen(&self, near: impl IntoIterator<Item = usize>) -> Vec<bool> {
        let mut near: Vec<usize> = near.into_iter().collect();
        near.sort_unstable();
        near.dedup();
        let mut chosen = vec![false; self.parts.len()];
        for pair in near.windows(2).filter(|pair| pair[1] - pair[0] <= NEAR_SHINGLES) {
            for k in self.touched_by(pair[0]).chain(self.touched_by(pair[1])) {
                chosen[k] = true;
            }
        }
        if !chosen.contains(&true) {
            // No two shared shingles close together: the part holding the most.
            let mut counts = vec![0usize; self.parts.len()];
            for &shingle in &near {
                for k in self.touched_by(shingle) {
                    counts[k] += 1;
                }
            }
            let most = counts.iter().enumerate().max_by_key(|&(k, &n)| (n, std::cmp::Reverse(k)));
            if let Some((k, &n)) = most
                && n > 0
            {
                chosen[k] = true;
            }
        }
        chosen
    }
}

/// The blocks of `source` in the suspect's tokens `over` (`suspect`, made of them by
/// [`part_of`]), in the whole suspect's token coordinates; `skip` is the whole suspect's.
fn align_over(
    suspect: &Query,
    prepared: Option<&PreparedSuspect>,
    over: Span,
    source: &Query,
    skip: &[bool],
    config: &AlignConfig,
) -> Vec<Block> {
    let from = over.start.min(skip.len());
    let to = (over.start + suspect.hashes.len()).min(skip.len()).max(from);
    let mut found = align::align_prepared(suspect, prepared, source, &skip[from..to], config);
    for b in &mut found {
        b.suspect_tokens.start += over.start;
        b.suspect_tokens.end += over.start;
    }
    found
}

/// Tokens `over` of `query` as a suspect of their own: their shingles, terms, sentences
/// (`over` must start and end at sentence edges when there are sentences), and the
/// spans of the whole text, so that blocks keep their place in it.
fn part_of(query: &Query, over: Span) -> Query {
    let k = query.shingle_size;
    let first_shingle = over.start.min(query.hashes.len());
    let end_shingle = (over.end + 1).saturating_sub(k).clamp(first_shingle, query.hashes.len());
    let slice = |v: &[Span]| v[over.start..over.end].to_vec();
    let terms = if query.terms.len() == query.token_bytes.len() {
        query.terms[over.start..over.end].to_vec()
    } else {
        Vec::new()
    };
    let first = query.sentences.partition_point(|s| s.start < over.start);
    let last = query.sentences.partition_point(|s| s.start < over.end);
    let sentences: Vec<Span> = query.sentences[first..last]
        .iter()
        .map(|s| Span { start: s.start - over.start, end: s.end.min(over.end) - over.start })
        .collect();
    let sentence_edges = if query.sentence_edges.len() == query.sentences.len() {
        query.sentence_edges[first..last].to_vec()
    } else {
        Vec::new()
    };
    Query {
        hashes: query.hashes[first_shingle..end_shingle].to_vec(),
        token_bytes: slice(&query.token_bytes),
        token_chars: slice(&query.token_chars),
        shingle_size: k,
        terms,
        sentences,
        sentence_edges,
        synonyms: query.synonyms.clone(),
        names: query.names.clone(),
        variant_shingles: Vec::new(),
        // The translated stage runs on the whole suspect.
        cross: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A query of `n` tokens in sentences of `sentence` tokens, with terms and shingles.
    fn query(n: usize, sentence: usize) -> Query {
        let spans: Vec<Span> = (0..n).map(|i| Span { start: 6 * i, end: 6 * i + 5 }).collect();
        Query {
            hashes: (0..n.saturating_sub(2) as u64).map(|i| i * 7919).collect(),
            token_bytes: spans.clone(),
            token_chars: spans,
            shingle_size: 3,
            terms: (0..n as u64).collect(),
            sentences: (0..n).step_by(sentence).map(|s| Span { start: s, end: (s + sentence).min(n) }).collect(),
            ..Query::default()
        }
    }

    #[test]
    fn parts_own_every_token_once_and_are_cut_at_sentence_starts() {
        assert!(SuspectParts::plan(&query(1000, 7), 1000).is_none());
        assert!(SuspectParts::plan(&query(1000, 7), 0).is_none());
        for (n, sentence, part) in
            [(1001, 7, 1000), (5000, 7, 1000), (5000, 1, 300), (4321, 40, 500), (3000, 5000, 400)]
        {
            let q = query(n, sentence);
            let plan = SuspectParts::plan(&q, part).unwrap();
            let mut next = 0;
            for p in &plan.parts {
                assert_eq!(p.own.start, next, "{n} {sentence} {part}");
                assert!(p.own.end > p.own.start);
                assert!(p.over.start <= p.own.start && p.over.end >= p.own.end);
                for cut in [p.own.start, p.own.end, p.over.start, p.over.end] {
                    assert!(cut == n || cut % sentence == 0, "{cut} is no sentence start");
                }
                // A part is at least `part` tokens, but for the last.
                assert!(p.own.end == n || p.own.end - p.own.start >= part);
                next = p.own.end;
            }
            assert_eq!(next, n);
        }
    }

    #[test]
    fn a_part_is_its_tokens_as_a_suspect_of_their_own() {
        let q = query(100, 10);
        let over = Span { start: 30, end: 60 };
        let part = part_of(&q, over);
        assert_eq!(part.token_bytes, q.token_bytes[30..60]);
        assert_eq!(part.terms, q.terms[30..60]);
        // Shingles 30..=57 lie inside tokens 30..60.
        assert_eq!(part.hashes, q.hashes[30..58]);
        assert_eq!(
            part.sentences,
            vec![Span { start: 0, end: 10 }, Span { start: 10, end: 20 }, Span { start: 20, end: 30 }]
        );
        assert!(part.has_sentences());
        let last = part_of(&q, Span { start: 90, end: 100 });
        assert_eq!(last.hashes, q.hashes[90..98]);
    }
}
