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
//!    source side, until nothing splits. A cluster becomes a passage (the smallest
//!    ranges holding its seeds) when it holds an exact block of `min_block_shingles` or
//!    `min_sentence_seeds` seeds and the tf-idf cosine of its two sides reaches
//!    `validation_cosine`; otherwise it is clustered again with gaps one smaller (a lone
//!    exact block always stands). A passage with sentence seeds grows at its ends by
//!    boundary sentences that share enough terms with the other side (`grow_share`).
//!    With `summary_sentence_gap`, a second extension with that gap looks for summaries:
//!    its passages whose source side is over `summary_ratio` times longer than their
//!    suspect side replace the passages they overlap (a summary condenses a long source
//!    passage into a few sentences).
//! 4. *Filtering.* Passages overlapping on both sides merge; of passages overlapping on
//!    the suspect side only, the better one stays; passages under `min_passage_chars`
//!    suspect characters are dropped.
//!
//! Blocks come sorted by suspect position; exact copies keep their spans to the word.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use tessera_index::Snapshot;
use tessera_normalize::Span;

use crate::{AlignConfig, Block, Query, Synonyms, TextSpan};

/// An exact shared run: suspect shingles `[s, s + len)` equal source shingles `[t, t + len)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    s: usize,
    t: usize,
    len: usize,
}

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

/// What sentence seeding needs from a suspect, whatever the source: its sentences, the
/// sentence frequency of each term and the sentences that hold it. A search aligns one
/// suspect with up to `max_rounds` sources; preparing the suspect once makes each
/// alignment cost what the source and the shared terms cost, not the whole suspect
/// again (a 50,000-character suspect against the PAN sources: 43 ms a check before).
#[derive(Debug, Clone)]
pub struct PreparedSuspect {
    sentences: Sentences,
    df: HashMap<u64, u32>,
    sentences_of: HashMap<u64, Vec<u32>>,
    /// The WordNet concepts of the suspect's terms, sorted (empty without synonyms);
    /// terms of more than `synonym_max_senses` senses are left out.
    concepts: Vec<ConceptKey>,
    /// Concept -> its range in `concepts`.
    concept_ranges: HashMap<u32, (u32, u32)>,
    min_sentence_terms: usize,
    max_sentence_terms: usize,
    synonyms: bool,
    max_senses: usize,
}

/// One WordNet concept of one term: `own` when a word of the term is in the concept's
/// synset, not when the concept is only related (a hypernym, an opposite).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct ConceptKey {
    concept: u32,
    term: u64,
    own: bool,
}

/// Appends the concepts of `terms` (those of at most `max_senses` senses) to `out` and
/// sorts it.
fn concept_keys(synonyms: &Synonyms, terms: impl Iterator<Item = u64>, max_senses: usize, out: &mut Vec<ConceptKey>) {
    for term in terms {
        let (own, related) = synonyms.senses(term);
        if own.len() > max_senses {
            continue;
        }
        out.extend(own.iter().map(|&concept| ConceptKey { concept, term, own: true }));
        out.extend(related.iter().map(|&concept| ConceptKey { concept, term, own: false }));
    }
    out.sort_unstable();
}

impl PreparedSuspect {
    /// Prepares `suspect` (which must have terms and sentences to be of use) for
    /// alignments with `config`.
    pub fn new(suspect: &Query, config: &AlignConfig) -> Self {
        let sentences = Sentences::new(suspect, config.min_sentence_terms, config.max_sentence_terms);
        let mut df: HashMap<u64, u32> = HashMap::new();
        let mut sentences_of: HashMap<u64, Vec<u32>> = HashMap::new();
        if suspect.has_sentences() {
            let mut seen: HashSet<u64> = HashSet::new();
            for (i, u) in sentences.units.iter().enumerate() {
                seen.clear();
                for &term in &suspect.terms[u.start..u.end] {
                    if seen.insert(term) {
                        *df.entry(term).or_insert(0) += 1;
                        sentences_of.entry(term).or_default().push(i as u32);
                    }
                }
            }
        }
        let synonyms = suspect.synonyms.as_deref().filter(|_| config.synonyms);
        let mut concepts = Vec::new();
        let mut concept_ranges = HashMap::new();
        if let Some(synonyms) = synonyms {
            concept_keys(synonyms, df.keys().copied(), config.synonym_max_senses, &mut concepts);
            let mut start = 0;
            for chunk in concepts.chunk_by(|a, b| a.concept == b.concept) {
                concept_ranges.insert(chunk[0].concept, (start as u32, (start + chunk.len()) as u32));
                start += chunk.len();
            }
        }
        Self {
            sentences,
            df,
            sentences_of,
            concepts,
            concept_ranges,
            min_sentence_terms: config.min_sentence_terms,
            max_sentence_terms: config.max_sentence_terms,
            synonyms: synonyms.is_some(),
            max_senses: config.synonym_max_senses,
        }
    }
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
    let runs = choose_runs(exact_runs(&suspect.hashes, &source.hashes, skip, config.max_occurrences));
    let sentences = suspect.has_sentences() && source.has_sentences();
    // With sentences, shorter exact blocks are seeds too: a cluster must validate.
    let min =
        if sentences { config.min_seed_shingles.min(config.min_block_shingles) } else { config.min_block_shingles };
    let exact: Vec<Passage> = merge_runs(&runs, config)
        .into_iter()
        .filter(|b| b.matched >= min as usize)
        .filter_map(|b| b.passage(suspect, source))
        .collect();
    let passages = if sentences {
        let local;
        let prepared = match prepared {
            Some(p)
                if p.min_sentence_terms == config.min_sentence_terms
                    && p.max_sentence_terms == config.max_sentence_terms
                    && p.synonyms == (config.synonyms && suspect.synonyms.is_some())
                    && p.max_senses == config.synonym_max_senses =>
            {
                p
            }
            _ => {
                local = PreparedSuspect::new(suspect, config);
                &local
            }
        };
        let renamed = match &suspect.synonyms {
            Some(synonyms) if prepared.synonyms => with_neighbours(synonyms, prepared, &source.terms),
            _ => None,
        };
        let t_terms = renamed.as_deref().unwrap_or(&source.terms);
        SentenceAligner::new(suspect, prepared, source, t_terms, skip, config).align(exact)
    } else {
        exact
    };
    passages.iter().filter_map(|p| to_block(suspect, source, p)).collect()
}

/// The source's terms with each term the suspect lacks replaced by its WordNet
/// neighbour among the suspect's terms that the source lacks (the one sharing the most
/// concepts, then the smallest term); `None` when nothing changes. A reworded copy's
/// swapped words are in one text only: a word of both texts is left alone, so exact
/// matches are never traded for neighbours. Two terms are neighbours when they share a
/// concept that is own to at least one of them (see [`Synonyms`]).
fn with_neighbours(synonyms: &Synonyms, prepared: &PreparedSuspect, source: &[u64]) -> Option<Vec<u64>> {
    let mut present = source.to_vec();
    present.sort_unstable();
    present.dedup();
    let suspect = &prepared.concepts;
    let keys_of = |c: &u32| match prepared.concept_ranges.get(c) {
        Some(&(start, end)) => &suspect[start as usize..end as usize],
        None => &[],
    };
    // (source term, suspect term) for every shared concept own to one of them.
    let mut matches: Vec<(u64, u64)> = Vec::new();
    for &term in &present {
        if prepared.df.contains_key(&term) {
            continue;
        }
        let (own, related) = synonyms.senses(term);
        if own.len() > prepared.max_senses {
            continue;
        }
        // A suspect term the source holds too is no stand-in.
        let lacking = |k: &&ConceptKey| present.binary_search(&k.term).is_err();
        for c in own {
            matches.extend(keys_of(c).iter().filter(lacking).map(|k| (term, k.term)));
        }
        for c in related {
            matches.extend(keys_of(c).iter().filter(|k| k.own).filter(lacking).map(|k| (term, k.term)));
        }
    }
    if matches.is_empty() {
        return None;
    }
    matches.sort_unstable();
    // Per source term, the suspect term of the most shared concepts (the smallest on a tie).
    let mut replace: HashMap<u64, u64> = HashMap::new();
    for group in matches.chunk_by(|a, b| a.0 == b.0) {
        let mut best = (0usize, 0u64);
        for same in group.chunk_by(|a, b| a == b) {
            if same.len() > best.0 {
                best = (same.len(), same[0].1);
            }
        }
        replace.insert(group[0].0, best.1);
    }
    Some(source.iter().map(|t| replace.get(t).copied().unwrap_or(*t)).collect())
}

fn exact_runs(suspect: &[u64], source: &[u64], skip: &[bool], max_occurrences: usize) -> Vec<Run> {
    let mut positions: HashMap<u64, Vec<u32>> = HashMap::with_capacity(source.len());
    for (j, &h) in source.iter().enumerate() {
        let list = positions.entry(h).or_default();
        if list.len() < max_occurrences {
            list.push(j as u32);
        }
    }
    // Matches grouped by diagonal; a run extends while the next suspect shingle matches
    // the next source shingle.
    let mut matches: Vec<(i64, u32)> = Vec::new();
    for (i, h) in suspect.iter().enumerate() {
        if skip.get(i).copied().unwrap_or(false) {
            continue;
        }
        if let Some(list) = positions.get(h) {
            for &j in list {
                matches.push((i64::from(j) - i as i64, i as u32));
            }
        }
    }
    matches.sort_unstable();
    let mut runs: Vec<Run> = Vec::new();
    for (diag, i) in matches {
        let i = i as usize;
        let t = (diag + i as i64) as usize;
        if let Some(last) = runs.last_mut()
            && last.s + last.len == i
            && last.t + last.len == t
        {
            last.len += 1;
            continue;
        }
        runs.push(Run { s: i, t, len: 1 });
    }
    runs
}

/// Longest runs first; a run overlapping an already chosen one on either side is
/// trimmed to its non-overlapping part when it sits at an end, else dropped.
fn choose_runs(mut runs: Vec<Run>) -> Vec<Run> {
    runs.sort_unstable_by(|a, b| b.len.cmp(&a.len).then(a.s.cmp(&b.s)).then(a.t.cmp(&b.t)));
    let mut chosen: Vec<Run> = Vec::new();
    let mut taken_s = IntervalSet::default();
    let mut taken_t = IntervalSet::default();
    for run in runs {
        if taken_s.overlaps(run.s, run.s + run.len) || taken_t.overlaps(run.t, run.t + run.len) {
            continue;
        }
        taken_s.insert(run.s, run.s + run.len);
        taken_t.insert(run.t, run.t + run.len);
        chosen.push(run);
    }
    chosen.sort_unstable_by_key(|r| (r.s, r.t));
    chosen
}

/// A block in shingle coordinates before it gets spans.
#[derive(Debug, Clone, Copy)]
struct ShingleBlock {
    s_first: usize,
    s_last: usize,
    t_first: usize,
    t_last: usize,
    matched: usize,
}

fn merge_runs(runs: &[Run], config: &AlignConfig) -> Vec<ShingleBlock> {
    let mut blocks: Vec<ShingleBlock> = Vec::new();
    for run in runs {
        let (s_last, t_last) = (run.s + run.len - 1, run.t + run.len - 1);
        if let Some(b) = blocks.last_mut() {
            let s_gap = run.s.saturating_sub(b.s_last + 1);
            let forward = run.t > b.t_last;
            let t_gap = run.t.saturating_sub(b.t_last + 1);
            if forward && s_gap <= config.max_gap && t_gap <= config.max_gap {
                b.s_last = s_last;
                b.t_last = b.t_last.max(t_last);
                b.matched += run.len;
                continue;
            }
        }
        blocks.push(ShingleBlock { s_first: run.s, s_last, t_first: run.t, t_last, matched: run.len });
    }
    blocks
}

impl ShingleBlock {
    /// The block in token coordinates.
    fn passage(&self, suspect: &Query, source: &Query) -> Option<Passage> {
        let s = suspect.tokens_of_shingles(self.s_first, self.s_last);
        let t = Span { start: self.t_first, end: (self.t_last + suspect.shingle_size).min(source.token_bytes.len()) };
        (s.start < s.end && t.start < t.end).then_some(Passage {
            s,
            t,
            matched: self.matched,
            score: 0.0,
            sentences: false,
        })
    }
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

fn to_block(suspect: &Query, source: &Query, p: &Passage) -> Option<Block> {
    let (s, t) = (p.s, p.t);
    if s.start >= s.end || t.start >= t.end || s.end > suspect.token_bytes.len() || t.end > source.token_bytes.len() {
        return None;
    }
    let span = |q: &Query, r: Span| TextSpan {
        bytes: Span { start: q.token_bytes[r.start].start, end: q.token_bytes[r.end - 1].end },
        chars: Span { start: q.token_chars[r.start].start, end: q.token_chars[r.end - 1].end },
    };
    Some(Block {
        suspect: span(suspect, s),
        source: span(source, t),
        suspect_tokens: s,
        source_tokens: t,
        matched_shingles: u32::try_from(p.matched).unwrap_or(u32::MAX),
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

/// One text's sentences as weighted term bags.
#[derive(Debug, Clone)]
struct Sentences {
    /// Token ranges of the sentences (short ones joined to the next).
    units: Vec<Span>,
    /// Sentence of each token.
    unit_of: Vec<u32>,
}

impl Sentences {
    /// Sentences of a query, made contiguous and in bounds whatever `q.sentences` holds
    /// (only their ends are used), short ones joined to the next, long ones cut into
    /// equal pieces of at most `max_terms`.
    fn new(q: &Query, min_terms: usize, max_terms: usize) -> Self {
        let n = q.token_bytes.len();
        let mut units: Vec<Span> = Vec::new();
        let mut start = 0;
        for s in &q.sentences {
            let end = s.end.min(n);
            if end > start && end - start >= min_terms {
                units.push(Span { start, end });
                start = end;
            }
        }
        if start < n {
            match units.last_mut() {
                Some(last) if n - start < min_terms => last.end = n,
                _ => units.push(Span { start, end: n }),
            }
        }
        let max_terms = max_terms.max(1);
        if units.iter().any(|u| u.end - u.start > max_terms) {
            let mut cut = Vec::with_capacity(units.len());
            for u in units {
                let len = u.end - u.start;
                let pieces = len.div_ceil(max_terms);
                for k in 0..pieces {
                    cut.push(Span { start: u.start + len * k / pieces, end: u.start + len * (k + 1) / pieces });
                }
            }
            units = cut;
        }
        let mut unit_of = vec![0u32; q.token_bytes.len()];
        for (u, span) in units.iter().enumerate() {
            let end = span.end.min(unit_of.len());
            unit_of[span.start.min(end)..end].fill(u as u32);
        }
        Self { units, unit_of }
    }

    /// The tokens just before `r`: the rest of the sentence it starts in, else the
    /// previous sentence (`None` at the start of the text).
    fn piece_before(&self, r: Span) -> Option<Span> {
        let prev = r.start.checked_sub(1)?;
        let unit = self.units[self.unit_of[prev] as usize];
        Some(Span { start: unit.start.min(r.start), end: r.start })
    }

    /// The tokens just after `r`: the rest of the sentence it ends in, else the next
    /// sentence (`None` at the end of the text).
    fn piece_after(&self, r: Span) -> Option<Span> {
        let unit = self.units[*self.unit_of.get(r.end)? as usize];
        Some(Span { start: r.end, end: unit.end.max(r.end) })
    }

    /// Sentence range `[first, last]` of a token range.
    fn range(&self, r: Span) -> (usize, usize) {
        let at = |k: usize| self.unit_of.get(k).copied().unwrap_or(0) as usize;
        (at(r.start), at(r.end.saturating_sub(1).max(r.start)))
    }
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
    /// Sentences of both texts: idf is `ln(n / df)` over them.
    n: f64,
}

/// A sparse tf-idf vector: (term, weight) sorted by term, and its norm.
struct Bag {
    weights: Vec<(u64, f64)>,
    norm: f64,
}

impl<'a> SentenceAligner<'a> {
    fn new(
        suspect: &'a Query,
        prepared: &'a PreparedSuspect,
        source: &'a Query,
        t_terms: &'a [u64],
        skip: &'a [bool],
        config: &'a AlignConfig,
    ) -> Self {
        let s_sent = &prepared.sentences;
        let t_sent = Sentences::new(source, config.min_sentence_terms, config.max_sentence_terms);
        let mut t_df: HashMap<u64, u32> = HashMap::new();
        let mut seen: HashSet<u64> = HashSet::new();
        for u in &t_sent.units {
            seen.clear();
            for &term in &t_terms[u.start..u.end] {
                if seen.insert(term) {
                    *t_df.entry(term).or_insert(0) += 1;
                }
            }
        }
        let n = (s_sent.units.len() + t_sent.units.len()) as f64;
        Self { suspect, source, t_terms, skip, config, prepared, s_sent, t_sent, t_df, n }
    }

    /// idf of a term over the sentences of both texts (0 for a term of neither).
    fn idf(&self, term: u64) -> f64 {
        let d = self.prepared.df.get(&term).copied().unwrap_or(0) + self.t_df.get(&term).copied().unwrap_or(0);
        if d == 0 { 0.0 } else { (self.n / f64::from(d)).ln().max(0.0) + 1e-3 }
    }

    fn bag(&self, terms: &[u64]) -> Bag {
        let mut sorted = terms.to_vec();
        sorted.sort_unstable();
        let mut weights: Vec<(u64, f64)> = Vec::new();
        for term in sorted {
            match weights.last_mut() {
                Some((t, w)) if *t == term => *w += 1.0,
                _ => weights.push((term, 1.0)),
            }
        }
        for (term, w) in &mut weights {
            *w *= self.idf(*term);
        }
        let norm = weights.iter().map(|(_, w)| w * w).sum::<f64>().sqrt();
        Bag { weights, norm }
    }

    fn cosine(a: &Bag, b: &Bag) -> f64 {
        let (mut i, mut j, mut dot) = (0, 0, 0.0);
        while i < a.weights.len() && j < b.weights.len() {
            match a.weights[i].0.cmp(&b.weights[j].0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    dot += a.weights[i].1 * b.weights[j].1;
                    i += 1;
                    j += 1;
                }
            }
        }
        if a.norm > 0.0 && b.norm > 0.0 { dot / (a.norm * b.norm) } else { 0.0 }
    }

    /// Whether most of a suspect token range is explained by an earlier source.
    fn mostly_skipped(&self, r: Span) -> bool {
        if self.skip.is_empty() || r.start >= r.end {
            return false;
        }
        let last = self.skip.len() - 1;
        let skipped = (r.start..r.end).filter(|&k| self.skip[k.min(last)]).count();
        2 * skipped > r.end - r.start
    }

    /// Sentence-pair seeds, each trimmed to the terms the two sentences share. Suspect
    /// sentences mostly inside exact runs (`covered`) get none: the runs say where they
    /// come from, to the word.
    fn sentence_seeds(&self, covered: &[bool]) -> Vec<Seed> {
        let (sq, t_terms) = (self.suspect, self.t_terms);
        let t_bags: Vec<Bag> = self.t_sent.units.iter().map(|u| self.bag(&t_terms[u.start..u.end])).collect();
        let mut postings: HashMap<u64, Vec<(u32, f64)>> = HashMap::new();
        for (j, bag) in t_bags.iter().enumerate() {
            for &(term, w) in &bag.weights {
                postings.entry(term).or_default().push((j as u32, w));
            }
        }
        let mut pair_bags: Vec<Option<Bag>> = (0..t_bags.len()).map(|_| None).collect();
        let mut dot = vec![0.0f64; t_bags.len()];
        let mut shared = vec![0u32; t_bags.len()];
        let mut touched: Vec<u32> = Vec::new();
        let mut seeds = Vec::new();
        // Only suspect sentences sharing a term with the source can seed.
        let mut candidates: Vec<u32> = Vec::new();
        for term in self.t_df.keys() {
            if let Some(list) = self.prepared.sentences_of.get(term) {
                candidates.extend_from_slice(list);
            }
        }
        candidates.sort_unstable();
        candidates.dedup();
        for i in candidates {
            let i = i as usize;
            let u = &self.s_sent.units[i];
            let in_runs = covered[u.start..u.end].iter().filter(|&&c| c).count();
            if self.mostly_skipped(*u) || 2 * in_runs > u.end - u.start {
                continue;
            }
            let a = self.bag(&sq.terms[u.start..u.end]);
            for &(term, w) in &a.weights {
                for &(j, wt) in postings.get(&term).map_or(&[][..], Vec::as_slice) {
                    if shared[j as usize] == 0 {
                        touched.push(j);
                    }
                    dot[j as usize] += w * wt;
                    shared[j as usize] += 1;
                }
            }
            touched.sort_unstable();
            // Candidates: single source sentences, and pairs of adjacent ones (shuffling
            // moves words across a sentence end). A pair's dot product is the sum of its
            // sentences' (tf adds up); its norm and Dice are computed.
            let mut best: Vec<(f64, usize, usize)> = Vec::new();
            for &j in &touched {
                let j = j as usize;
                let b = &t_bags[j];
                let cos = if a.norm > 0.0 && b.norm > 0.0 { dot[j] / (a.norm * b.norm) } else { 0.0 };
                let dice = 2.0 * f64::from(shared[j]) / (a.weights.len() + b.weights.len()) as f64;
                if cos >= self.config.seed_cosine && dice >= self.config.seed_dice {
                    best.push((cos, j, j));
                }
                if self.config.pair_seeds && j + 1 < t_bags.len() && shared[j + 1] > 0 {
                    // Each pair's bag is made once per source, when first needed.
                    let pair = pair_bags[j].get_or_insert_with(|| {
                        self.bag(&t_terms[self.t_sent.units[j].start..self.t_sent.units[j + 1].end])
                    });
                    let cos = if a.norm > 0.0 && pair.norm > 0.0 {
                        (dot[j] + dot[j + 1]) / (a.norm * pair.norm)
                    } else {
                        0.0
                    };
                    if cos >= self.config.seed_cosine && cos > best.last().map_or(0.0, |x| x.0) {
                        let hits = a
                            .weights
                            .iter()
                            .filter(|(t, _)| pair.weights.binary_search_by(|p| p.0.cmp(t)).is_ok())
                            .count();
                        let dice = 2.0 * hits as f64 / (a.weights.len() + pair.weights.len()) as f64;
                        if dice >= self.config.seed_dice {
                            best.push((cos, j, j + 1));
                        }
                    }
                }
            }
            for &j in &touched {
                dot[j as usize] = 0.0;
                shared[j as usize] = 0;
            }
            touched.clear();
            // The suspect sentence's best source sentences only (a sentence is borrowed
            // from one place; the others share its topic words).
            let top = best.iter().map(|&(c, _, _)| c).fold(0.0f64, f64::max);
            for &(cos, j, k) in &best {
                if cos >= top - self.config.seed_top_margin - 1e-9 {
                    let v = Span { start: self.t_sent.units[j].start, end: self.t_sent.units[k].end };
                    let (s, t) = if self.config.trim_seeds {
                        (trim(&sq.terms, *u, &t_terms[v.start..v.end]), trim(t_terms, v, &sq.terms[u.start..u.end]))
                    } else {
                        (*u, v)
                    };
                    seeds.push(Seed { s, t, s_sent: (i, i), t_sent: (j, k), exact: 0, cos });
                }
            }
        }
        seeds
    }

    fn align(&self, exact: Vec<Passage>) -> Vec<Passage> {
        let mut covered = vec![false; self.suspect.token_bytes.len()];
        for p in &exact {
            let end = p.s.end.min(covered.len());
            covered[p.s.start.min(end)..end].fill(true);
        }
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
        let mut passages = resolve(self.extend(seeds.clone(), gap, gap, self.config.validation_cosine, true));
        if let Some(summary_gap) = self.config.summary_sentence_gap {
            // A summary passage replaces the passages it overlaps on the suspect side.
            let ratio = self.config.summary_ratio;
            let summary: Vec<Passage> =
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
                        p
                    })
                    .collect();
            if !summary.is_empty() {
                passages.retain(|p| !summary.iter().any(|q| overlaps(p.s, q.s)));
                passages.extend(summary);
                passages.sort_by(|a, b| a.s.start.cmp(&b.s.start).then(a.t.start.cmp(&b.t.start)));
            }
        }
        passages.into_iter().filter(|p| self.long_enough(p)).collect()
    }

    /// Whether a passage covers at least `min_passage_chars` suspect characters and
    /// `min_passage_source_chars` source characters.
    fn long_enough(&self, p: &Passage) -> bool {
        let len = |c: &[Span], r: Span| match (c.get(r.start), r.end.checked_sub(1).and_then(|e| c.get(e))) {
            (Some(a), Some(b)) => b.end.saturating_sub(a.start),
            _ => 0,
        };
        len(&self.suspect.token_chars, p.s) >= self.config.min_passage_chars
            && len(&self.source.token_chars, p.t) >= self.config.min_passage_source_chars
    }

    /// Clusters seeds with the given gaps (in sentences) and validates every cluster,
    /// clustering a failing one again with smaller gaps.
    fn extend(&self, seeds: Vec<Seed>, s_gap: usize, t_gap: usize, validation: f64, split: bool) -> Vec<Passage> {
        let mut out = Vec::new();
        for cluster in cluster(seeds, s_gap, t_gap) {
            let parts = if split { self.split_gaps(cluster.clone()) } else { Vec::new() };
            if parts.len() > 1 {
                for part in parts {
                    out.extend(self.extend(part, s_gap, t_gap, validation, split));
                }
                continue;
            }
            if split && self.config.anchor_shingles > 0 {
                let kept = self.in_anchor_order(&cluster);
                if kept.len() < cluster.len() {
                    out.extend(self.extend(kept, s_gap, t_gap, validation, split));
                    continue;
                }
            }
            let s = Span {
                start: cluster.iter().map(|x| x.s.start).min().unwrap_or(0),
                end: cluster.iter().map(|x| x.s.end).max().unwrap_or(0),
            };
            let t = Span {
                start: cluster.iter().map(|x| x.t.start).min().unwrap_or(0),
                end: cluster.iter().map(|x| x.t.end).max().unwrap_or(0),
            };
            let exact: usize = cluster.iter().map(|x| x.exact).sum();
            let cos =
                Self::cosine(&self.bag(&self.suspect.terms[s.start..s.end]), &self.bag(&self.t_terms[t.start..t.end]));
            let has_run = cluster.iter().any(|x| x.exact >= self.config.min_block_shingles as usize);
            let enough = has_run
                || cluster.len() >= self.config.min_sentence_seeds
                || cluster.iter().any(|x| {
                    x.cos >= self.config.single_seed_cosine && self.shared_terms(x) >= self.config.single_seed_terms
                });
            if enough && (cos >= validation || (has_run && cluster.len() == 1)) {
                let sentences = cluster.iter().any(|x| x.exact == 0);
                let (s, t) = if sentences { self.grow(s, t) } else { (s, t) };
                let (s, t) = if sentences { self.grow_paired(s, t) } else { (s, t) };
                let (s, t) = if sentences { self.snap(s, t) } else { (s, t) };
                let matched = exact.max(self.shared_shingles(s, t));
                let score = cos * (s.end - s.start + t.end - t.start) as f64;
                out.push(Passage { s, t, matched, score, sentences });
            } else if cluster.len() > 1 && (s_gap > 0 || t_gap > 0) {
                out.extend(self.extend(cluster, s_gap.saturating_sub(1), t_gap.saturating_sub(1), validation, split));
            } else if has_run {
                // A lone exact run always stands (the exact path's rule).
                for x in cluster.iter().filter(|x| x.exact >= self.config.min_block_shingles as usize) {
                    out.push(Passage {
                        s: x.s,
                        t: x.t,
                        matched: x.exact,
                        score: cos * (x.s.end - x.s.start) as f64,
                        sentences: false,
                    });
                }
            }
        }
        out
    }

    /// The seeds of a cluster that keep the order of its exact runs (anchors): a sentence
    /// seed before an anchor in the suspect must start before it in the source, one after
    /// it must end after it. A topical sentence elsewhere in the suspect that matches a
    /// sentence on the far side of a verbatim run would otherwise stretch the passage's
    /// box over both.
    fn in_anchor_order(&self, cluster: &[Seed]) -> Vec<Seed> {
        let min = self.config.anchor_shingles;
        let anchors: Vec<&Seed> = cluster.iter().filter(|x| x.exact >= min).collect();
        if anchors.is_empty() {
            return cluster.to_vec();
        }
        let fits = |x: &Seed| {
            anchors.iter().all(|a| {
                if x.s.end <= a.s.start {
                    x.t.start < a.t.start
                } else if x.s.start >= a.s.end {
                    x.t.end > a.t.end
                } else {
                    true
                }
            })
        };
        cluster.iter().filter(|x| x.exact > 0 || fits(x)).copied().collect()
    }

    /// Splits a cluster (in suspect order) where the suspect text between two seeds has
    /// at least `min_gap_terms` terms, the source text between them is not empty, and
    /// the two differ (tf-idf cosine under `gap_cosine`): one's own text in place of a
    /// skipped source passage, not a reworded one. Summaries are not split (their gaps
    /// are condensed, not reworded).
    fn split_gaps(&self, mut cluster: Vec<Seed>) -> Vec<Vec<Seed>> {
        cluster.sort_by(|a, b| a.s.start.cmp(&b.s.start).then(a.t.start.cmp(&b.t.start)));
        let mut out: Vec<Vec<Seed>> = Vec::new();
        let mut cur: Vec<Seed> = Vec::new();
        let (mut s_end, mut t_lo, mut t_hi) = (0, usize::MAX, 0);
        for x in cluster {
            if !cur.is_empty() && x.s.start >= s_end + self.config.min_gap_terms.max(1) {
                let s_gap = Span { start: s_end, end: x.s.start };
                let t_gap = if x.t.start >= t_hi {
                    Span { start: t_hi, end: x.t.start }
                } else if x.t.end <= t_lo {
                    Span { start: x.t.end, end: t_lo }
                } else {
                    Span { start: 0, end: 0 }
                };
                let cos = Self::cosine(
                    &self.bag(&self.suspect.terms[s_gap.start..s_gap.end]),
                    &self.bag(&self.t_terms[t_gap.start..t_gap.end]),
                );
                if t_gap.end > t_gap.start && cos < self.config.gap_cosine {
                    out.push(std::mem::take(&mut cur));
                    (t_lo, t_hi) = (usize::MAX, 0);
                }
            }
            s_end = if cur.is_empty() { x.s.end } else { s_end.max(x.s.end) };
            t_lo = t_lo.min(x.t.start);
            t_hi = t_hi.max(x.t.end);
            cur.push(x);
        }
        if !cur.is_empty() {
            out.push(cur);
        }
        out
    }

    /// Grows a passage found through sentence seeds, on each side and at each end, by
    /// the rest of its boundary sentence or by the next sentence, while at least
    /// `grow_share` of the distinct terms of that piece occur on the other side (at most
    /// `grow_steps` pieces at each end).
    fn grow(&self, s: Span, t: Span) -> (Span, Span) {
        let (share, source_share, steps) =
            (self.config.grow_share, self.config.source_grow_share, self.config.grow_steps);
        let (s, t) = self.grow_with(s, t, share, steps, &[true]);
        let (s, t) = self.grow_with(s, t, source_share, steps, &[false]);
        let (s, t) = self.grow_with(s, t, share, steps, &[true]);
        self.grow_with(s, t, source_share, steps, &[false])
    }

    /// [`Self::grow`] with explicit settings, over the given sides in turn (`true`:
    /// suspect).
    fn grow_with(&self, mut s: Span, mut t: Span, grow_share: f64, steps: usize, sides: &[bool]) -> (Span, Span) {
        let (sq, tq) = (&self.suspect.terms[..], self.t_terms);
        for &suspect_side in sides {
            let (this, other, sents, r, o) =
                if suspect_side { (sq, tq, self.s_sent, &mut s, t) } else { (tq, sq, &self.t_sent, &mut t, s) };
            let bag: HashSet<u64> = other[o.start..o.end].iter().copied().collect();
            let share = |piece: Span| {
                let distinct = distinct(&this[piece.start..piece.end]);
                let hits = distinct.iter().filter(|t| bag.contains(t)).count();
                !distinct.is_empty() && hits as f64 >= grow_share * distinct.len() as f64
            };
            for _ in 0..steps {
                let Some(piece) = sents.piece_before(*r).filter(|&p| share(p)) else { break };
                r.start = piece.start;
            }
            for _ in 0..steps {
                let Some(piece) = sents.piece_after(*r).filter(|&p| share(p)) else { break };
                r.end = piece.end;
            }
        }
        (s, t)
    }

    /// Grows a passage at both ends on both sides at once: by the piece before (after)
    /// it on the suspect side and the piece before (after) it on the source side (the
    /// rest of the boundary sentence, else the next sentence) while the two pieces share
    /// at least `pair_grow_share` of the distinct terms of the smaller one (at most
    /// `pair_grow_steps` times at each end). A reworded sentence next to a borrowed
    /// passage shares few terms with the whole passage but its neighbour on the other
    /// side is where it came from.
    fn grow_paired(&self, mut s: Span, mut t: Span) -> (Span, Span) {
        let share = self.config.pair_grow_share;
        if share <= 0.0 {
            return (s, t);
        }
        let (sq, tq) = (&self.suspect.terms, self.t_terms);
        // Whether the suspect piece `a` and the source piece `b` share enough terms.
        let shares = |a: Span, b: Span| {
            let (a, b) = (distinct(&sq[a.start..a.end]), distinct(&tq[b.start..b.end]));
            let hits = a.iter().filter(|x| b.binary_search(x).is_ok()).count();
            let small = a.len().min(b.len());
            small > 0 && hits >= 2 && hits as f64 >= share * small as f64
        };
        for _ in 0..self.config.pair_grow_steps {
            let (Some(a), Some(b)) = (self.s_sent.piece_before(s), self.t_sent.piece_before(t)) else { break };
            if !shares(a, b) {
                break;
            }
            (s.start, t.start) = (a.start, b.start);
        }
        for _ in 0..self.config.pair_grow_steps {
            let (Some(a), Some(b)) = (self.s_sent.piece_after(s), self.t_sent.piece_after(t)) else { break };
            if !shares(a, b) {
                break;
            }
            (s.end, t.end) = (a.end, b.end);
        }
        (s, t)
    }

    /// Widens each side of a passage found through sentence seeds to the whole of its
    /// first and last sentence when it already covers at least `snap_covered` of that
    /// sentence's terms (a borrowed passage starts and ends with sentences; trimmed seeds
    /// stop at the first and last shared word).
    fn snap(&self, mut s: Span, mut t: Span) -> (Span, Span) {
        let share = self.config.snap_covered;
        if share > 1.0 {
            return (s, t);
        }
        let whole = |sents: &Sentences, r: &mut Span| {
            if r.start >= r.end || r.end > sents.unit_of.len() {
                return;
            }
            let first = sents.units[sents.unit_of[r.start] as usize];
            let last = sents.units[sents.unit_of[r.end - 1] as usize];
            let (start, end) = (r.start, r.end);
            let covered = |u: Span| (end.min(u.end) - start.max(u.start)) as f64 >= share * (u.end - u.start) as f64;
            if covered(first) {
                r.start = first.start.min(start);
            }
            if covered(last) {
                r.end = last.end.max(end);
            }
        };
        whole(&self.t_sent, &mut t);
        whole(self.s_sent, &mut s);
        (s, t)
    }

    /// Distinct terms the two sides of a seed share.
    fn shared_terms(&self, x: &Seed) -> usize {
        let b = distinct(&self.t_terms[x.t.start..x.t.end]);
        distinct(&self.suspect.terms[x.s.start..x.s.end]).iter().filter(|t| b.binary_search(t).is_ok()).count()
    }

    /// Suspect shingles inside `s` whose hash occurs among the source shingles of `t`.
    fn shared_shingles(&self, s: Span, t: Span) -> usize {
        let (sh, th) = (&self.suspect.hashes, &self.source.hashes);
        let t_set: HashSet<u64> = th[t.start.min(th.len())..t.end.min(th.len())].iter().copied().collect();
        sh[s.start.min(sh.len())..s.end.min(sh.len())].iter().filter(|h| t_set.contains(h)).count()
    }
}

/// The distinct terms of `terms`, sorted.
fn distinct(terms: &[u64]) -> Vec<u64> {
    let mut d = terms.to_vec();
    d.sort_unstable();
    d.dedup();
    d
}

/// Whether two token ranges overlap.
fn overlaps(a: Span, b: Span) -> bool {
    a.start < b.end && b.start < a.end
}

/// Trims token range `r` of `terms` to its first and last term that `other` holds.
fn trim(terms: &[u64], r: Span, other: &[u64]) -> Span {
    let holds = |k: &usize| other.contains(&terms[*k]);
    let first = (r.start..r.end).find(holds);
    let last = (r.start..r.end).rev().find(holds);
    match (first, last) {
        (Some(a), Some(b)) => Span { start: a, end: b + 1 },
        _ => r,
    }
}

/// Splits seeds into clusters: sorted by one side's sentences, a new cluster starts where
/// more than `gap` sentences separate a seed from the ones before it.
fn split(mut seeds: Vec<Seed>, gap: usize, suspect_side: bool) -> Vec<Vec<Seed>> {
    let key = |x: &Seed| if suspect_side { x.s_sent } else { x.t_sent };
    seeds.sort_by(|a, b| key(a).cmp(&key(b)).then(a.s.start.cmp(&b.s.start)).then(a.t.start.cmp(&b.t.start)));
    let mut out: Vec<Vec<Seed>> = Vec::new();
    let mut end = 0usize;
    for x in seeds {
        let (first, last) = key(&x);
        match out.last_mut() {
            Some(c) if first <= end + gap => {
                c.push(x);
                end = end.max(last + 1);
            }
            _ => {
                out.push(vec![x]);
                end = last + 1;
            }
        }
    }
    out
}

/// Clusters seeds on both sides until no cluster splits.
fn cluster(seeds: Vec<Seed>, s_gap: usize, t_gap: usize) -> Vec<Vec<Seed>> {
    let mut clusters = vec![seeds];
    loop {
        let before = clusters.len();
        clusters =
            clusters.into_iter().flat_map(|c| split(c, s_gap, true)).flat_map(|c| split(c, t_gap, false)).collect();
        if clusters.len() == before {
            return clusters;
        }
    }
}

/// Resolves overlaps: passages overlapping on both sides merge; of two overlapping on
/// the suspect side only, the one with the higher score stays. Sorted by suspect start.
fn resolve(mut passages: Vec<Passage>) -> Vec<Passage> {
    passages.sort_by(|a, b| a.s.start.cmp(&b.s.start).then(a.s.end.cmp(&b.s.end)).then(a.t.start.cmp(&b.t.start)));
    let mut out: Vec<Passage> = Vec::new();
    for p in passages {
        match out.last_mut() {
            Some(last) if overlaps(last.s, p.s) => {
                if overlaps(last.t, p.t) {
                    last.s = Span { start: last.s.start.min(p.s.start), end: last.s.end.max(p.s.end) };
                    last.t = Span { start: last.t.start.min(p.t.start), end: last.t.end.max(p.t.end) };
                    last.matched += p.matched;
                    last.sentences |= p.sentences;
                    last.score += p.score;
                } else if p.score > last.score {
                    *last = p;
                }
            }
            _ => out.push(p),
        }
    }
    out
}

/// Disjoint half-open intervals, sorted; enough for the few runs of one alignment.
#[derive(Debug, Default)]
struct IntervalSet {
    items: Vec<(usize, usize)>,
}

impl IntervalSet {
    fn overlaps(&self, start: usize, end: usize) -> bool {
        let idx = self.items.partition_point(|&(_, e)| e <= start);
        self.items.get(idx).is_some_and(|&(s, _)| s < end)
    }

    fn insert(&mut self, start: usize, end: usize) {
        let idx = self.items.partition_point(|&(s, _)| s < start);
        self.items.insert(idx, (start, end));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A query whose token i spans bytes/chars [10 i, 10 i + 5).
    fn query(hashes: &[u64], size: usize) -> Query {
        let n = hashes.len() + size - 1;
        let spans: Vec<Span> = (0..n).map(|i| Span { start: 10 * i, end: 10 * i + 5 }).collect();
        Query {
            hashes: hashes.to_vec(),
            token_bytes: spans.clone(),
            token_chars: spans,
            shingle_size: size,
            ..Query::default()
        }
    }

    fn snapshot(hashes: &[u64], size: usize) -> Snapshot {
        let n = hashes.len() + size - 1;
        let spans: Vec<(u64, u64)> = (0..n as u64).map(|i| (100 + 7 * i, 100 + 7 * i + 4)).collect();
        Snapshot { hashes: hashes.to_vec(), token_bytes: spans.clone(), token_chars: spans, ..Snapshot::default() }
    }

    #[test]
    fn verbatim_passage_is_one_block_with_exact_spans() {
        let q = query(&[1, 2, 10, 11, 12, 13, 14, 3], 3);
        let s = snapshot(&[50, 10, 11, 12, 13, 14, 60], 3);
        let blocks = align(&q, &s, &[], &AlignConfig::default());
        assert_eq!(blocks.len(), 1);
        let b = &blocks[0];
        assert_eq!(b.matched_shingles, 5);
        // Suspect shingles 2..=6 cover tokens 2..9; source shingles 1..=5 tokens 1..8.
        assert_eq!(b.suspect_tokens, Span { start: 2, end: 9 });
        assert_eq!(b.source_tokens, Span { start: 1, end: 8 });
        assert_eq!(b.suspect.chars, Span { start: 20, end: 85 });
        assert_eq!(b.source.bytes, Span { start: 107, end: 100 + 7 * 7 + 4 });
    }

    #[test]
    fn small_gaps_merge_large_gaps_split() {
        let mut s_hashes: Vec<u64> = (100..110).collect();
        s_hashes.extend([7, 7]); // a reworded spot: two broken shingles
        s_hashes.extend(110..120);
        s_hashes.extend(900..950); // a long original stretch
        s_hashes.extend(120..130);
        let src: Vec<u64> = (100..130).collect();
        let blocks = align(&query(&s_hashes, 3), &snapshot(&src, 3), &[], &AlignConfig::default());
        assert_eq!(blocks.len(), 2, "{blocks:?}");
        assert_eq!(blocks[0].matched_shingles, 20);
        assert_eq!(blocks[1].matched_shingles, 10);
    }

    #[test]
    fn short_coincidences_are_dropped() {
        let blocks = align(&query(&[1, 2, 3, 4], 3), &snapshot(&[9, 2, 3, 8], 3), &[], &AlignConfig::default());
        assert!(blocks.is_empty());
    }

    #[test]
    fn repeated_source_passage_explains_each_suspect_shingle_once() {
        let src: Vec<u64> = [10u64, 11, 12, 13, 0, 10, 11, 12, 13].to_vec();
        let blocks = align(&query(&[10, 11, 12, 13], 3), &snapshot(&src, 3), &[], &AlignConfig::default());
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].source_tokens.start, 0);
    }

    #[test]
    fn skipped_shingles_do_not_match() {
        let q = query(&[10, 11, 12, 13, 14], 3);
        let s = snapshot(&[10, 11, 12, 13, 14], 3);
        let blocks = align(&q, &s, &[true, true, true, true, true], &AlignConfig::default());
        assert!(blocks.is_empty());
    }

    /// A text fingerprinted as the engine does it (default settings), with terms and
    /// sentences.
    fn text_query(text: &str) -> Query {
        let mut normalizer =
            tessera_normalize::Normalizer::new(tessera_normalize::NormalizerConfig::default()).unwrap();
        let shingler = tessera_fingerprint::Shingler::new(tessera_fingerprint::ShingleConfig::default()).unwrap();
        let tokens = normalizer.normalize(text).tokens;
        let terms: Vec<u64> = tokens.iter().map(|t| t.term).collect();
        let token_bytes: Vec<Span> = tokens.iter().map(|t| t.span).collect();
        let chars = |b: usize| text[..b].chars().count();
        let token_chars = token_bytes.iter().map(|s| Span { start: chars(s.start), end: chars(s.end) }).collect();
        Query {
            hashes: shingler.hashes(&terms),
            sentences: crate::sentences(text, &token_bytes, crate::MAX_SENTENCE_TERMS),
            token_bytes,
            token_chars,
            shingle_size: 3,
            terms,
            synonyms: Some(Synonyms::english(&tessera_normalize::NormalizerConfig::default()).unwrap()),
        }
    }

    /// Byte span of `needle` in `hay`.
    fn find(hay: &str, needle: &str) -> Span {
        let start = hay.find(needle).unwrap_or_else(|| panic!("{needle:?} not found"));
        Span { start, end: start + needle.len() }
    }

    const EN_SOURCE_PASSAGE: &str = "The river freezes early in November and the ice stays until late April. \
        During these months trucks drive across the frozen surface to reach the northern villages. \
        Every spring the melting ice blocks the narrow channels and floods the low meadows. \
        Farmers move their cattle to the hills before the water rises.";
    /// The same passage with words shuffled inside sentences and some replaced by synonyms
    /// (random obfuscation as in PAN): hardly a 3-word shingle survives.
    const EN_OBFUSCATED: &str = "In November early the river freezes, and until late April ice stays there. \
        Lorries during these months drive to the northern villages, across the surface frozen. \
        Each spring narrow channels are blocked by melting ice, and low meadows are flooded. \
        Before the water rises cattle are moved by farmers to hills.";
    const EN_SOURCE_BEFORE: &str = "Fishing cooperatives were founded along the coast in the last century. \
        Their boats sold herring and cod to merchants in the southern ports. ";
    const EN_SOURCE_AFTER: &str = " A railway line was planned several times, but the marshes made construction too expensive. \
        Today a single airstrip connects the district with the regional capital.";
    const EN_SUSPECT_BEFORE: &str = "My essay begins with a personal note about a summer spent in the mountains, \
        where I learned to paint watercolours of old churches. ";
    const EN_SUSPECT_AFTER: &str = " Later chapters describe the computer games I enjoyed as a child \
        and the music of my favourite band.";

    /// PAN-style random obfuscation: most content words swapped for WordNet neighbours
    /// (synonyms, hypernyms, hyponyms), few left as they were.
    const EN_REWORDED_SOURCE: &str = "The committee approved the new budget after a long debate about taxes. \
        Several members argued that the city must repair its old bridges before winter arrives. \
        The mayor promised to publish a detailed report on the spending every month.";
    const EN_REWORDED: &str = "The commission sanctioned the fresh budget following a lengthy argument about revenue enhancement. \
        Several members contended that the metropolis must mend its aged span before wintertime comes. \
        The city manager pledged to print an elaborate account on the outlay every calendar month.";

    #[test]
    fn words_swapped_for_wordnet_neighbours_are_matched() {
        let source = format!("{EN_SOURCE_BEFORE}{EN_REWORDED_SOURCE}{EN_SOURCE_AFTER}");
        let suspect = format!("{EN_SUSPECT_BEFORE}{EN_REWORDED}{EN_SUSPECT_AFTER}");
        let (q, s) = (text_query(&suspect), text_query(&source));
        let off = AlignConfig { synonyms: false, ..AlignConfig::default() };
        let without = align_pair(&q, &s, &[], &off);
        let with = align_pair(&q, &s, &[], &AlignConfig::default());
        eprintln!("without {without:?}\nwith {with:?}");
        assert!(without.is_empty(), "{without:?}");
        assert_eq!(with.len(), 1, "{with:?}");
        let passage = find(&suspect, EN_REWORDED);
        let b = &with[0];
        assert!(b.suspect.bytes.start >= passage.start && b.suspect.bytes.end <= passage.end, "{b:?}");
        assert!(b.suspect.bytes.end - b.suspect.bytes.start > EN_REWORDED.len() / 2, "{b:?}");
        let source_passage = find(&source, EN_REWORDED_SOURCE);
        assert!(b.source.bytes.start >= source_passage.start && b.source.bytes.end <= source_passage.end, "{b:?}");
        // Without the suspect's neighbours (a query made elsewhere) alignment is exact.
        let plain = Query { synonyms: None, ..q.clone() };
        assert_eq!(align_pair(&plain, &s, &[], &AlignConfig::default()), without);
    }

    #[test]
    fn shuffled_english_passage_with_synonyms_is_found_with_sentence_spans() {
        let source = format!("{EN_SOURCE_BEFORE}{EN_SOURCE_PASSAGE}{EN_SOURCE_AFTER}");
        let suspect = format!("{EN_SUSPECT_BEFORE}{EN_OBFUSCATED}{EN_SUSPECT_AFTER}");
        let (q, s) = (text_query(&suspect), text_query(&source));
        // Exact shingles alone (the source's terms unknown) find little of it.
        let exact = align_pair(&q, &Query { terms: Vec::new(), ..s.clone() }, &[], &AlignConfig::default());
        assert!(
            exact.iter().map(|b| b.suspect.bytes.end - b.suspect.bytes.start).sum::<usize>() < EN_OBFUSCATED.len() / 2
        );
        let blocks = align_pair(&q, &s, &[], &AlignConfig::default());
        assert_eq!(blocks.len(), 1, "{blocks:?}");
        // From the first to the last word of the passage on both sides.
        let want_s = find(&suspect, &EN_OBFUSCATED[3..EN_OBFUSCATED.len() - 1]);
        let want_t = find(&source, &EN_SOURCE_PASSAGE[4..EN_SOURCE_PASSAGE.len() - 1]);
        let b = &blocks[0];
        assert_eq!(b.suspect.bytes, want_s, "{:?}", &suspect[b.suspect.bytes.start..b.suspect.bytes.end]);
        assert_eq!(b.source.bytes, want_t, "{:?}", &source[b.source.bytes.start..b.source.bytes.end]);
    }

    #[test]
    fn long_sentences_are_cut_into_equal_pieces() {
        let q = Query {
            token_bytes: (0..10).map(|i| Span { start: 2 * i, end: 2 * i + 1 }).collect(),
            terms: (0..10).collect(),
            sentences: vec![Span { start: 0, end: 1 }, Span { start: 1, end: 10 }],
            ..Query::default()
        };
        // The one-term sentence joins the next; the 10 terms become 3 pieces of <= 4.
        let s = Sentences::new(&q, 3, 4);
        let units: Vec<(usize, usize)> = s.units.iter().map(|u| (u.start, u.end)).collect();
        assert_eq!(units, vec![(0, 3), (3, 6), (6, 10)]);
        assert_eq!(s.unit_of, vec![0, 0, 0, 1, 1, 1, 2, 2, 2, 2]);
        assert_eq!(Sentences::new(&q, 3, 40).units.len(), 1);
    }

    /// A suspect prepared once gives, against each source, what an alignment preparing it
    /// afresh gives; so do snapshots (32-bit terms) against the suspect's short terms.
    #[test]
    fn prepared_suspect_aligns_like_a_fresh_one() {
        let suspect = format!("{EN_SUSPECT_BEFORE}{EN_OBFUSCATED}{EN_SUSPECT_AFTER} {EN_SOURCE_BEFORE}");
        let q = text_query(&suspect);
        let config = AlignConfig::default();
        let prepared = PreparedSuspect::new(&q, &config);
        let sources = [
            format!("{EN_SOURCE_BEFORE}{EN_SOURCE_PASSAGE}{EN_SOURCE_AFTER}"),
            EN_SOURCE_PASSAGE.to_string(),
            format!("{EN_SOURCE_AFTER} {EN_SOURCE_BEFORE}"),
            "Nothing here is shared with the suspect at all, only other words.".to_string(),
        ];
        let mut found = 0;
        for source in &sources {
            let s = text_query(source);
            let fresh = align_pair(&q, &s, &[], &config);
            found += fresh.len();
            assert_eq!(align_prepared(&q, Some(&prepared), &s, &[], &config), fresh);
            // The same source as a snapshot: 32-bit terms, sentence starts.
            let snapshot = Snapshot {
                hashes: s.hashes.clone(),
                token_bytes: s.token_bytes.iter().map(|x| (x.start as u64, x.end as u64)).collect(),
                token_chars: s.token_chars.iter().map(|x| (x.start as u64, x.end as u64)).collect(),
                terms: s.terms.iter().map(|&t| t as u32).collect(),
                sentence_starts: s.sentences.iter().map(|x| x.start as u64).collect(),
            };
            assert_eq!(align(&q, &snapshot, &[], &config), fresh);
        }
        assert!(found >= 2, "{found}");
    }

    #[test]
    fn shuffled_russian_passage_with_synonyms_is_found() {
        let passage = "Зимой реки покрываются толстым льдом, и на несколько месяцев ледовые дороги становятся \
            главным путём для грузов в северные посёлки. Весной лёд трогается сначала в верховьях, \
            поэтому в низовьях часто образуются заторы и наводнения. Жители заранее перегоняют скот \
            на возвышенности и укрепляют берега мешками с песком.";
        let obfuscated = "Реки зимой покрываются льдом толстым, и ледовые дороги на несколько месяцев \
            становятся основным путём для доставки грузов в северные посёлки. Лёд весной сначала трогается \
            в верховьях, и потому в низовьях нередко образуются заторы и наводнения. Скот жители \
            заблаговременно перегоняют на возвышенности, а берега укрепляют мешками с песком.";
        let source = format!(
            "Рыболовецкие артели появились на побережье в прошлом веке. Их суда возили сельдь \
            и треску на южные рынки. {passage} Железную дорогу здесь так и не построили из-за болот."
        );
        let suspect = format!(
            "Моё эссе начинается с рассказа о лете в горах, где я учился рисовать акварелью \
            старые церкви. {obfuscated} Дальше я пишу о компьютерных играх и о музыке любимой группы."
        );
        let blocks = align_pair(&text_query(&suspect), &text_query(&source), &[], &AlignConfig::default());
        assert_eq!(blocks.len(), 1, "{blocks:?}");
        let (want_s, want_t) = (find(&suspect, obfuscated), find(&source, passage));
        let b = &blocks[0];
        // Within the passage on both sides, and covering nearly all of it.
        assert!(b.suspect.bytes.start >= want_s.start && b.suspect.bytes.end <= want_s.end, "{b:?}");
        assert!(b.source.bytes.start >= want_t.start && b.source.bytes.end <= want_t.end, "{b:?}");
        assert!(b.suspect.bytes.end - b.suspect.bytes.start >= (want_s.end - want_s.start) * 9 / 10, "{b:?}");
        assert!(b.source.bytes.end - b.source.bytes.start >= (want_t.end - want_t.start) * 9 / 10, "{b:?}");
    }

    #[test]
    fn verbatim_copy_keeps_exact_spans_with_sentences() {
        let source = format!("{EN_SOURCE_BEFORE}{EN_SOURCE_PASSAGE}{EN_SOURCE_AFTER}");
        // Copied from the middle of a sentence to the middle of another one.
        let copied = "trucks drive across the frozen surface to reach the northern villages. \
        Every spring the melting ice blocks the narrow channels and floods the low meadows. Farmers move their cattle";
        let suspect = format!("{EN_SUSPECT_BEFORE}{copied}.{EN_SUSPECT_AFTER}");
        let blocks = align_pair(&text_query(&suspect), &text_query(&source), &[], &AlignConfig::default());
        assert_eq!(blocks.len(), 1, "{blocks:?}");
        assert_eq!(blocks[0].suspect.bytes, find(&suspect, copied));
        assert_eq!(blocks[0].source.bytes, find(&source, copied));
    }

    /// One long source sentence reworded into one suspect sentence: a lone sentence seed,
    /// which stands when its cosine and shared terms are high enough.
    #[test]
    fn one_reworded_sentence_stands_alone() {
        let sentence = "Each volunteer in the orchestra program receives weekly coaching from experienced \
            conductors, performs chamber music with professional soloists, and auditions for scholarships \
            at the regional conservatory every spring.";
        // No three terms in a row as in the source: no exact shingle.
        let reworded = "Conductors with experience coach every volunteer weekly in the program of the \
            orchestra, soloists who are professionals play music of chamber with them, and in spring the \
            conservatory of the region holds auditions for scholarships.";
        let source = format!("{EN_SOURCE_BEFORE}{sentence}{EN_SOURCE_AFTER}");
        let suspect = format!("{EN_SUSPECT_BEFORE}{reworded}{EN_SUSPECT_AFTER}");
        let (q, t) = (text_query(&suspect), text_query(&source));
        let blocks = align_pair(&q, &t, &[], &AlignConfig::default());
        assert_eq!(blocks.len(), 1, "{blocks:?}");
        let (want_s, want_t) = (find(&suspect, reworded), find(&source, sentence));
        let b = &blocks[0];
        assert!(b.suspect.bytes.start >= want_s.start && b.suspect.bytes.end <= want_s.end, "{b:?}");
        assert!(b.source.bytes.start >= want_t.start && b.source.bytes.end <= want_t.end, "{b:?}");
        // Without lone seeds, or with a higher bar on shared terms, it is not found.
        for config in [
            AlignConfig { single_seed_cosine: 2.0, ..AlignConfig::default() },
            AlignConfig { single_seed_terms: 40, ..AlignConfig::default() },
        ] {
            assert!(align_pair(&q, &t, &[], &config).is_empty(), "{config:?}");
        }
    }

    /// A passage whose first sentence is reworded beyond what one-sided growth accepts
    /// (it shares few terms with the whole passage) takes it in when the neighbouring
    /// sentences on both sides share enough with each other.
    #[test]
    fn reworded_neighbour_sentences_join_by_paired_growth() {
        let first = "The harbour master records every vessel entering the bay, its cargo, its crew and its flag. ";
        // Shares 3 of its 8 terms with `first`, none with the rest of the passage.
        let first_reworded =
            "Ships that come into the bay are written down by the harbour officer, with flag and sailors. ";
        let source = format!("{EN_SOURCE_BEFORE}{first}{EN_SOURCE_PASSAGE}{EN_SOURCE_AFTER}");
        let suspect = format!("{EN_SUSPECT_BEFORE}{first_reworded}{EN_OBFUSCATED}{EN_SUSPECT_AFTER}");
        let (q, t) = (text_query(&suspect), text_query(&source));
        let paired = align_pair(&q, &t, &[], &AlignConfig::default());
        let alone = align_pair(&q, &t, &[], &AlignConfig { pair_grow_share: 0.0, ..AlignConfig::default() });
        assert_eq!((paired.len(), alone.len()), (1, 1), "{paired:?} {alone:?}");
        let (want_s, want_t) = (find(&suspect, first_reworded), find(&source, first));
        assert!(alone[0].suspect.bytes.start >= want_s.end, "{alone:?}");
        assert!(paired[0].suspect.bytes.start < want_s.end && paired[0].suspect.bytes.start >= want_s.start);
        assert!(paired[0].source.bytes.start < want_t.end && paired[0].source.bytes.start >= want_t.start);
    }

    /// A passage must be long enough on the source side too.
    #[test]
    fn short_source_side_is_dropped() {
        let source = format!("{EN_SOURCE_BEFORE}{EN_SOURCE_PASSAGE}{EN_SOURCE_AFTER}");
        let suspect = format!("{EN_SUSPECT_BEFORE}{EN_OBFUSCATED}{EN_SUSPECT_AFTER}");
        let (q, t) = (text_query(&suspect), text_query(&source));
        let blocks = align_pair(&q, &t, &[], &AlignConfig::default());
        assert_eq!(blocks.len(), 1);
        let source_chars = blocks[0].source.chars.end - blocks[0].source.chars.start;
        let strict = AlignConfig { min_passage_source_chars: source_chars + 1, ..AlignConfig::default() };
        assert!(align_pair(&q, &t, &[], &strict).is_empty());
        let enough = AlignConfig { min_passage_source_chars: source_chars, ..AlignConfig::default() };
        assert_eq!(align_pair(&q, &t, &[], &enough), blocks);
    }

    /// A passage covering most of its first and last sentence takes them whole; one
    /// covering less of them keeps its words.
    #[test]
    fn mostly_covered_boundary_sentences_are_taken_whole() {
        let (q, t) = (text_query(EN_OBFUSCATED), text_query(EN_SOURCE_PASSAGE));
        let config = AlignConfig::default();
        let prepared = PreparedSuspect::new(&q, &config);
        let aligner = SentenceAligner::new(&q, &prepared, &t, &t.terms, &[], &config);
        let (first, second) = (aligner.t_sent.units[0], aligner.t_sent.units[1]);
        let len = first.end - first.start;
        assert!(len >= 5, "{first:?}");
        let s = aligner.s_sent.units[0];
        // Most of the first source sentence (all but its first term) and a term of the next.
        let (_, snapped) = aligner.snap(s, Span { start: first.start + 1, end: first.end + 1 });
        assert_eq!(snapped.start, first.start);
        assert_eq!(snapped.end, first.end + 1, "one term of the second sentence is not most of it");
        // Under 70 % of it: not widened.
        let little = Span { start: first.end - len / 2, end: second.end };
        assert_eq!(aligner.snap(s, little).1, little);
        let off = AlignConfig { snap_covered: 2.0, ..AlignConfig::default() };
        let aligner = SentenceAligner::new(&q, &prepared, &t, &t.terms, &[], &off);
        let r = Span { start: first.start + 1, end: first.end };
        assert_eq!(aligner.snap(s, r).1, r);
    }

    /// A sentence seed before a long verbatim run in the suspect but after it in the source
    /// does not stretch the passage over both.
    #[test]
    fn seeds_against_the_order_of_a_long_run_are_dropped() {
        let s = |start: usize, t: usize, exact: usize| Seed {
            s: Span { start, end: start + 10 },
            t: Span { start: t, end: t + 10 },
            s_sent: (start / 10, start / 10),
            t_sent: (t / 10, t / 10),
            exact,
            cos: if exact > 0 { 0.0 } else { 0.6 },
        };
        let (q, t) = (text_query(EN_OBFUSCATED), text_query(EN_SOURCE_PASSAGE));
        let config = AlignConfig::default();
        let prepared = PreparedSuspect::new(&q, &config);
        let aligner = SentenceAligner::new(&q, &prepared, &t, &t.terms, &[], &config);
        let run = s(20, 20, config.anchor_shingles);
        let kept = aligner.in_anchor_order(&[s(0, 0, 0), s(5, 40, 0), run, s(40, 40, 0), s(45, 5, 0)]);
        let starts: Vec<(usize, usize)> = kept.iter().map(|x| (x.s.start, x.t.start)).collect();
        assert_eq!(starts, vec![(0, 0), (20, 20), (40, 40)]);
        // A shorter run is no anchor.
        let short = s(20, 20, config.anchor_shingles - 1);
        assert_eq!(aligner.in_anchor_order(&[s(5, 40, 0), short]).len(), 2);
    }

    #[test]
    fn texts_on_one_topic_without_a_shared_passage_give_nothing() {
        let source = format!("{EN_SOURCE_BEFORE}{EN_SOURCE_PASSAGE}{EN_SOURCE_AFTER}");
        let suspect = "Northern villages depend on winter roads. When the frost is hard, supply convoys \
            leave the railway town and cross lakes and rivers for weeks. Spring is dangerous: bridges \
            are scarce and meadows flood, so people store fuel and flour before the thaw.";
        let blocks = align_pair(&text_query(suspect), &text_query(&source), &[], &AlignConfig::default());
        assert!(blocks.is_empty(), "{blocks:?}");
    }

    #[test]
    fn seeds_far_apart_make_separate_passages() {
        let s = |i: usize| Seed {
            s: Span { start: i, end: i + 1 },
            t: Span { start: i, end: i + 1 },
            s_sent: (i, i),
            t_sent: (i, i),
            exact: 0,
            cos: 0.5,
        };
        let clusters = cluster(vec![s(0), s(2), s(20), s(3), s(30)], 4, 4);
        let sizes: Vec<usize> = clusters.iter().map(Vec::len).collect();
        assert_eq!(sizes, vec![3, 1, 1]);
        // Close on the suspect side, far apart in the source: split too.
        let far = Seed { t_sent: (40, 40), ..s(1) };
        assert_eq!(cluster(vec![s(0), far, s(2)], 4, 4).len(), 2);
    }

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
                    synonyms: None,
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

        #[test]
        fn blocks_are_within_bounds_and_ordered(
            s in proptest::collection::vec(0u64..20, 1..200),
            t in proptest::collection::vec(0u64..20, 1..200),
        ) {
            let q = query(&s, 3);
            let snap = snapshot(&t, 3);
            let blocks = align(&q, &snap, &[], &AlignConfig { min_block_shingles: 1, ..AlignConfig::default() });
            let mut prev_end = 0;
            for b in &blocks {
                proptest::prop_assert!(b.suspect_tokens.start < b.suspect_tokens.end);
                proptest::prop_assert!(b.suspect_tokens.end <= q.token_bytes.len());
                proptest::prop_assert!(b.source_tokens.end <= snap.token_bytes.len());
                proptest::prop_assert!(b.suspect.chars.start < b.suspect.chars.end);
                proptest::prop_assert!(b.suspect_tokens.start >= prev_end.min(b.suspect_tokens.start));
                prev_end = b.suspect_tokens.start;
            }
        }
    }
}
