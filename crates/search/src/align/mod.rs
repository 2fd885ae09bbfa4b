//! Alignment: the borrowed passages between a suspect and one source, with character
//! spans on both sides.
//!
//! Written by hand because it is the core of what we do. Two kinds of seeds, then one
//! extension:
//! 1. *Exact runs.* Every (suspect position i, source position j) with equal shingle
//!    hashes is a match (a source hash repeated more than `max_occurrences` times keeps
//!    its first ones); matches on one diagonal at consecutive positions form a run (an
//!    exact shared passage); runs are chosen longest first, skipping any that overlaps a
//!    chosen one on either side; chosen runs, in suspect order, merge while both gaps are
//!    at most `max_gap` shingles and the source goes forward. This alone is the whole
//!    alignment when the source's terms are unknown (a snapshot): a block then needs
//!    `min_block_shingles` matched shingles and its spans run from the first token of
//!    its first shingle to the last token of its last shingle.
//! 2. *Sentence pairs* (when both texts' terms and sentences are known; after
//!    Sanchez-Perez, Sidorov and Gelbukh, PAN 2014): sentences shorter than
//!    `min_sentence_terms` join the next one; each is a bag of terms weighted by tf-idf
//!    (idf over the sentences of both texts). For each suspect sentence not mostly
//!    inside exact blocks, the source sentences (and, with `pair_seeds`, pairs of
//!    adjacent ones) whose cosine and Dice coefficients reach `seed_cosine` and
//!    `seed_dice` are candidates, and the best one is a seed, trimmed on each side to
//!    the first and last term the other side holds. Shuffled, inserted and replaced
//!    words lower these scores without breaking them as they break shingles.
//! 3. *Extension.* Seeds of both kinds are clustered: sorted by suspect sentence, split
//!    where more than `max_sentence_gap` sentences separate them, then the same on the
//!    source side, until nothing splits; a cluster also splits where `min_gap_terms`
//!    suspect terms lie between two seeds with source text between them too, unless the
//!    two gaps are alike (`gap_cosine`): a long stretch of one's own text. A cluster becomes a passage (the smallest
//!    ranges holding its seeds) when it holds an exact block of `min_block_shingles` or
//!    `min_sentence_seeds` seeds and the tf-idf cosine of its two sides reaches
//!    `validation_cosine`; otherwise it is clustered again with gaps one smaller (a lone
//!    exact block always stands). A passage with sentence seeds grows at its ends by
//!    boundary sentences that share enough terms with the other side (`grow_share`).
//!    With `summary_sentence_gap`, a second extension with that gap looks for summaries:
//!    its passages whose source side is over `summary_ratio` times longer than their
//!    suspect side replace the passages they overlap (a summary condenses a long source
//!    passage into a few sentences) when their confidence (step 5) reaches
//!    `summary_min_confidence`, a single passage only when they name at least
//!    `summary_rare_beyond` rare terms from beyond its source side, and never a passage
//!    holding an exact run of `summary_copy_run` shingles (a copy, not a condensation).
//! 4. *Filtering.* Passages overlapping on both sides merge; of passages overlapping on
//!    the suspect side only, the better one stays; passages under `min_passage_chars`
//!    suspect characters are dropped.
//! 5. *Evidence.* Each passage's [`crate::Evidence`] is measured on its final spans
//!    (longest exact run, shared terms and the rare ones among them, their order, the
//!    cosine; a summary passage is marked [`crate::Evidence::summary`]); a passage
//!    found through sentence seeds whose confidence is under
//!    `min_confidence`, or which shares fewer than `min_shared_words` terms that are not
//!    names of the suspect, or whose source side another stretch of the suspect matches
//!    better (`min_contrast`; not asked of near copies, `contrast_under_cosine`), is
//!    dropped (two texts on one topic share its words and names; a topical neighbour of a
//!    borrowing, paired with the borrowed region, is its ghost). A rewording or summary
//!    that stands carries its sentence pairs ([`crate::Block::pairs`]): each suspect
//!    sentence with the source sentence it matches best, when the two pass the seed test.
//!
//! Blocks come sorted by suspect position; exact copies keep their spans to the word.
//!
//! Each step has its file: `exact_runs.rs`, `sentence_seeds.rs` (with `sentences.rs`, the
//! sentences and their tf-idf bags, and `prepared.rs`, the suspect's side prepared once
//! per search, [`PreparedSuspect`], and the WordNet neighbours),
//! `extension.rs` (clustering, validation, growth), `resolve.rs` (overlaps and length)
//! and `evidence.rs`; this file holds the entry points and runs the steps in order.

mod evidence;
mod exact_runs;
mod extension;
#[cfg(test)]
mod fixtures;
mod prepared;
mod resolve;
mod sentence_seeds;
mod sentences;
mod translated;

use foldhash::HashMap;
use tessera_index::Snapshot;
use tessera_normalize::Span;

use crate::{AlignConfig, Block, Evidence, Query, SentencePair, TextSpan, WordMatch};
use exact_runs::{Run, ShingleIndex, choose_runs, exact_runs, longest_within, merge_runs};
pub use prepared::PreparedSuspect;
use resolve::{overlaps, resolve};
use sentence_seeds::Covered;
use sentences::Sentences;
pub use translated::align_translated;

/// Aligns a suspect with one source snapshot: with sentence seeding when both have terms
/// and sentences (the suspect's terms cut to the snapshot's 32 bits), else exact runs
/// only (a snapshot of segment format 1 has no terms). Blocks come sorted by suspect
/// position. `skip[i]` marks suspect shingles already explained by an earlier source
/// (they neither start nor extend a run); pass an empty slice to use them all.
pub fn align(query: &Query, source: &Snapshot, skip: &[bool], config: &AlignConfig) -> Vec<Block> {
    let source = Query::from_snapshot(source, query.shingle_size);
    if source.has_sentences() && query.has_sentences() {
        align_pair(&query.with_short_terms(), &source, skip, config)
    } else {
        align_pair(query, &source, skip, config)
    }
}

/// Aligns a suspect with one source given as a [`Query`]. With terms and sentences on
/// both sides (texts fingerprinted by the engine), sentence-pair seeds join the exact
/// runs; otherwise this is [`align`]. `skip` as in [`align`].
pub fn align_pair(suspect: &Query, source: &Query, skip: &[bool], config: &AlignConfig) -> Vec<Block> {
    align_prepared(suspect, None, source, skip, config)
}

/// [`align_pair`] with the suspect prepared once for many sources ([`PreparedSuspect`],
/// made from the same `suspect` and `config`; `None` prepares it here).
pub fn align_prepared(
    suspect: &Query,
    prepared: Option<&PreparedSuspect>,
    source: &Query,
    skip: &[bool],
    config: &AlignConfig,
) -> Vec<Block> {
    let index = prepared.filter(|p| p.made_for(suspect, config)).map(|p| &p.shingles);
    let runs = choose_runs(exact_runs(&suspect.hashes, index, &source.hashes, skip, config.max_occurrences));
    let sentences = suspect.has_sentences() && source.has_sentences();
    // With sentences, shorter exact blocks are seeds too: a cluster must validate.
    let min =
        if sentences { config.min_seed_shingles.min(config.min_block_shingles) } else { config.min_block_shingles };
    let exact: Vec<Passage> = merge_runs(&runs, config)
        .into_iter()
        .filter(|b| b.matched >= min as usize)
        .filter_map(|b| b.passage(suspect, source))
        .collect();
    if !sentences {
        let k = suspect.shingle_size;
        return exact
            .iter()
            .filter_map(|p| {
                let evidence = Evidence {
                    longest_run: to_u32(longest_within(&runs, p.s, p.t, k)),
                    suspect_terms: to_u32(p.s.end - p.s.start),
                    source_terms: to_u32(p.t.end - p.t.start),
                    ..Evidence::default()
                };
                to_block(suspect, source, p, evidence, &[], &[])
            })
            .collect();
    }
    let local;
    let prepared = match prepared {
        Some(p) if p.made_for(suspect, config) => p,
        _ => {
            local = PreparedSuspect::new(suspect, config);
            &local
        }
    };
    let renamed = prepared.source_terms_with_neighbours(suspect, &source.terms);
    let t_terms = renamed.as_deref().unwrap_or(&source.terms);
    let aligner = SentenceAligner::new(suspect, prepared, source, t_terms, skip, config);
    aligner
        .align(exact, &runs)
        .iter()
        .filter_map(|(p, measured)| {
            let evidence = measured.unwrap_or_else(|| aligner.evidence(p, &runs));
            if !aligner.stands(p, &evidence) {
                return None;
            }
            // A copy's runs say where each word comes from; a rewording or a summary
            // (even one of exact runs) is read sentence by sentence.
            let pairs = if p.sentences || evidence.summary { aligner.sentence_pairs(p) } else { Vec::new() };
            to_block(suspect, source, p, evidence, &pairs, &[])
        })
        .collect()
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A passage in token coordinates: suspect tokens `s`, source tokens `t`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Passage {
    s: Span,
    t: Span,
    /// Matched suspect shingles (exact runs), or shared suspect shingles once extended.
    matched: usize,
    /// Quality when passages compete for one suspect span (higher wins).
    score: f64,
    /// Made with sentence seeds (else of exact runs only, whose spans are exact).
    sentences: bool,
}

/// A passage as a block, with its sentence pairs (token spans inside the passage, and
/// their cosine) as text spans, each with its matched words (`words[n]`: suspect and
/// source token pairs of pair `n`; none when shorter); `None` for a passage out of the
/// texts' bounds.
fn to_block(
    suspect: &Query,
    source: &Query,
    p: &Passage,
    evidence: Evidence,
    pairs: &[(Span, Span, f64)],
    words: &[Vec<(usize, usize)>],
) -> Option<Block> {
    let token = |q: &Query, i: usize| TextSpan { bytes: q.token_bytes[i], chars: q.token_chars[i] };
    let (s, t) = (p.s, p.t);
    if s.start >= s.end || t.start >= t.end || s.end > suspect.token_bytes.len() || t.end > source.token_bytes.len() {
        return None;
    }
    Some(Block {
        suspect: suspect.text_span(s),
        source: source.text_span(t),
        suspect_tokens: s,
        source_tokens: t,
        matched_shingles: to_u32(p.matched),
        evidence,
        pairs: pairs
            .iter()
            .enumerate()
            .map(|(n, &(s, t, cosine))| SentencePair {
                suspect: suspect.text_span(s),
                source: source.text_span(t),
                cosine: cosine as f32,
                words: words
                    .get(n)
                    .map_or(&[][..], Vec::as_slice)
                    .iter()
                    .filter(|&&(k, l)| k < suspect.token_bytes.len() && l < source.token_bytes.len())
                    .map(|&(k, l)| WordMatch { suspect: token(suspect, k), source: token(source, l) })
                    .collect(),
            })
            .collect(),
    })
}

/// A seed or a cluster member: token ranges and the sentence ranges `[first, last]`
/// they touch, on both sides.
#[derive(Debug, Clone, Copy)]
struct Seed {
    s: Span,
    t: Span,
    s_sent: (usize, usize),
    t_sent: (usize, usize),
    /// Matched shingles when the seed is an exact run (0 for sentence seeds).
    exact: usize,
    /// The sentence pair's cosine (0 for exact runs).
    cos: f64,
}

/// Sentence seeding and extension for one suspect and one source.
struct SentenceAligner<'a> {
    suspect: &'a Query,
    source: &'a Query,
    /// The source's terms as alignment sees them (with WordNet neighbours of suspect
    /// words in place of the words they replace).
    t_terms: &'a [u64],
    skip: &'a [bool],
    config: &'a AlignConfig,
    prepared: &'a PreparedSuspect,
    s_sent: &'a Sentences,
    t_sent: Sentences,
    /// Sentence frequency of each source term among the source's sentences.
    t_df: HashMap<u64, u32>,
    /// idf by sentence frequency over the sentences of both texts: `idf_of_df[d]` is
    /// `ln(n / d)` for `n` sentences (0 for d = 0). A table because a pair's bags
    /// weigh each term of each sentence again, and d takes at most n + 1 values.
    idf_of_df: Vec<f64>,
}

impl SentenceAligner<'_> {
    /// Steps 2 to 4 for one source, given the exact blocks of step 1: sentence seeds and
    /// exact blocks clustered and extended into passages, overlaps resolved, summaries
    /// found with their own gap, short passages dropped. Summary passages come with the
    /// evidence their admission measured on their final spans (step 5 takes it as is).
    fn align(&self, exact: Vec<Passage>, runs: &[Run]) -> Vec<(Passage, Option<Evidence>)> {
        let covered = Covered::new(exact.iter().map(|p| p.s));
        let mut seeds = self.sentence_seeds(&covered);
        for p in &exact {
            seeds.push(Seed {
                s: p.s,
                t: p.t,
                s_sent: self.s_sent.range(p.s),
                t_sent: self.t_sent.range(p.t),
                exact: p.matched,
                cos: 0.0,
            });
        }
        if seeds.is_empty() {
            return Vec::new();
        }
        let gap = self.config.max_sentence_gap;
        let mut passages: Vec<(Passage, Option<Evidence>)> =
            resolve(self.extend(seeds.clone(), gap, gap, self.config.validation_cosine, true))
                .into_iter()
                .map(|p| (p, None))
                .collect();
        if let Some(summary_gap) = self.config.summary_sentence_gap {
            // A summary passage replaces the passages it overlaps on the suspect side.
            let ratio = self.config.summary_ratio;
            let summary: Vec<(Passage, Option<Evidence>)> =
                resolve(self.extend(seeds, summary_gap, summary_gap, self.config.summary_validation_cosine, false))
                    .into_iter()
                    .filter(|p| (p.t.end - p.t.start) as f64 > ratio * (p.s.end - p.s.start) as f64)
                    .map(|mut p| {
                        // The source side of a summary grows over sentences sharing fewer words.
                        (p.s, p.t) = self.grow_with(
                            p.s,
                            p.t,
                            self.config.summary_grow_share,
                            self.config.summary_grow_steps,
                            &[false],
                        );
                        p.t = self.summary_to_edges(p.t);
                        p
                    })
                    // A summary claims a source span several times its own length: it
                    // replaces what the first extension found only on strong evidence:
                    // no copy among the passages it would replace (a summary condenses;
                    // it does not carry sentences after sentences word for word), terms
                    // from beyond the one passage it would replace...
                    .filter(|p| {
                        let replaced: Vec<&Passage> =
                            passages.iter().map(|(q, _)| q).filter(|q| overlaps(p.s, q.s)).collect();
                        let copy_run = self.config.summary_copy_run;
                        if copy_run > 0
                            && replaced
                                .iter()
                                .any(|q| longest_within(runs, q.s, q.t, self.suspect.shingle_size) >= copy_run)
                        {
                            return false;
                        }
                        match replaced.as_slice() {
                            [q] => self.rare_terms_beyond(p, q.t) >= self.config.summary_rare_beyond,
                            _ => true,
                        }
                    })
                    // ... and a confidence of its own.
                    .map(|p| (p, Evidence { summary: true, ..self.evidence(&p, runs) }))
                    .filter(|(_, e)| e.confidence() >= self.config.summary_min_confidence)
                    .map(|(p, e)| (p, Some(e)))
                    .collect();
            if !summary.is_empty() {
                passages.retain(|(p, _)| !summary.iter().any(|(q, _)| overlaps(p.s, q.s)));
                passages.extend(summary);
                passages.sort_by(|(a, _), (b, _)| a.s.start.cmp(&b.s.start).then(a.t.start.cmp(&b.t.start)));
            }
        }
        passages.into_iter().filter(|(p, _)| self.long_enough(p)).collect()
    }
}

#[cfg(test)]
mod tests {
    use tessera_normalize::Span;

    use crate::{AlignConfig, Query, align_pair};

    proptest::proptest! {
        #[test]
        fn sentence_alignment_never_panics_and_stays_in_bounds(
            s in proptest::collection::vec(0u64..12, 0..120),
            t in proptest::collection::vec(0u64..12, 0..120),
            s_ends in proptest::collection::vec(0usize..140, 0..12),
            t_ends in proptest::collection::vec(0usize..140, 0..12),
        ) {
            let side = |terms: &[u64], ends: &[usize]| {
                let n = terms.len();
                let spans: Vec<Span> = (0..n).map(|i| Span { start: 10 * i, end: 10 * i + 5 }).collect();
                let shingler = tessera_fingerprint::Shingler::new(tessera_fingerprint::ShingleConfig::default()).unwrap();
                Query {
                    hashes: shingler.hashes(terms),
                    token_bytes: spans.clone(),
                    token_chars: spans,
                    shingle_size: 3,
                    terms: terms.to_vec(),
                    // Arbitrary, even out of order or out of bounds.
                    sentences: ends.iter().map(|&e| Span { start: e / 2, end: e }).collect(),
                    sentence_edges: ends
                        .iter()
                        .map(|&e| tessera_fingerprint::SentenceEdge {
                            lead_bytes: (e % 7) as u32,
                            lead_chars: (e % 5) as u32,
                            tail_bytes: (e % 3) as u32,
                            tail_chars: (e % 2) as u32,
                        })
                        .collect(),
                    synonyms: None,
                    names: Vec::new(),
                    variant_shingles: Vec::new(),
                    cross: None,
                }
            };
            let (q, src) = (side(&s, &s_ends), side(&t, &t_ends));
            let config = AlignConfig { min_passage_chars: 0, ..AlignConfig::default() };
            let blocks = align_pair(&q, &src, &[], &config);
            let again = align_pair(&q, &src, &[], &config);
            proptest::prop_assert_eq!(&blocks, &again);
            for b in &blocks {
                proptest::prop_assert!(b.suspect_tokens.start < b.suspect_tokens.end);
                proptest::prop_assert!(b.suspect_tokens.end <= q.token_bytes.len());
                proptest::prop_assert!(b.source_tokens.end <= src.token_bytes.len());
            }
        }
    }
}
