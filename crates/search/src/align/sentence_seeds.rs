//! Step 2, sentence seeds: sentences as tf-idf term bags, each suspect sentence paired
//! with the source sentences (or pairs of adjacent ones) whose cosine and Dice reach the
//! thresholds, with source words swapped for the suspect's WordNet neighbours first.

use std::sync::Mutex;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use tessera_fingerprint::Synonyms;
use tessera_normalize::Span;

use super::{Seed, SentenceAligner, ShingleIndex};
use crate::{AlignConfig, Query};

/// What sentence seeding needs from a suspect, whatever the source: its sentences, the
/// sentence frequency of each term and the sentences that hold it. A search aligns one
/// suspect with up to `max_rounds` sources; preparing the suspect once makes each
/// alignment cost what the source and the shared terms cost, not the whole suspect
/// again (a 50,000-character suspect against the PAN sources: 43 ms a check before).
#[derive(Debug, Clone)]
pub struct PreparedSuspect {
    sentences: Sentences,
    /// The sentences holding each term, by dense id ([`Self::term_ids`]), in order: id
    /// `t`'s are `sentence_ids[sentence_starts[t] .. sentence_starts[t + 1]]`. One array,
    /// not a list per term: a long suspect is prepared part by part, and the lists of an
    /// 8 MB text's 37 parts held 20 MB.
    sentence_ids: Vec<u32>,
    sentence_starts: Vec<u32>,
    /// Each sentence's distinct terms, sorted, with how often the sentence holds the term
    /// and the term's sentence frequency `df`: sentence `i`'s are
    /// `sentence_terms[term_starts[i] .. term_starts[i + 1]]`. A suspect sentence's bag is
    /// made again for every source it may seed with (its idf depends on the source), so
    /// its terms are sorted and counted once here. Empty without sentences.
    sentence_terms: Vec<SentenceTerm>,
    term_starts: Vec<u32>,
    /// The WordNet concepts of the suspect's terms, sorted by concept, own keys first (empty
    /// without synonyms); terms of more than `synonym_max_senses` senses are left out.
    concepts: Vec<ConceptKey>,
    /// Concept -> its range in `concepts`: where it starts, where its own keys end, where
    /// it ends.
    concept_ranges: HashMap<u32, (u32, u32, u32)>,
    /// The keys of `concept_ranges`, as a filter that answers most misses.
    concept_filter: ConceptFilter,
    /// The suspect's shingles by hash, for exact runs.
    pub(super) shingles: ShingleIndex,
    /// The suspect's terms as dense ids, and each id's term: stretches slid over the whole
    /// suspect keep their counts in arrays, not hash maps ([`SentenceAligner::contrast`]).
    pub(super) term_ids: Vec<u32>,
    pub(super) id_of_term: HashMap<u64, u32>,
    /// Each id's term.
    terms_by_id: Vec<u64>,
    /// Each id's suspect sentence frequency (`df` by id).
    pub(super) df_by_id: Vec<u32>,
    /// Their scratch, made once per suspect.
    pub(super) stretches: StretchScratch,
    min_sentence_terms: usize,
    max_sentence_terms: usize,
    synonyms: bool,
    max_senses: usize,
}

/// Per suspect term id ([`PreparedSuspect::term_ids`]): its sentence frequency in the source
/// at hand, its weight in the bag being matched, and its count in the stretch. All zero
/// between uses.
#[derive(Debug, Default)]
pub(super) struct Stretches {
    pub(super) t_df: Vec<u32>,
    pub(super) weight: Vec<f64>,
    pub(super) count: Vec<u32>,
}

/// [`Stretches`] behind a lock, so that a prepared suspect stays shareable; a clone starts
/// with its own.
#[derive(Debug, Default)]
pub(super) struct StretchScratch(pub(super) Mutex<Stretches>);

impl Clone for StretchScratch {
    fn clone(&self) -> Self {
        Self::default()
    }
}

/// A distinct term of a suspect sentence ([`PreparedSuspect`]).
#[derive(Debug, Clone, Copy)]
struct SentenceTerm {
    term: u64,
    /// Occurrences in the sentence.
    count: u32,
    /// Suspect sentences holding the term.
    df: u32,
}

/// One WordNet concept of one term: `own` when a word of the term is in the concept's
/// synset, not when the concept is only related (a hypernym, an opposite).
///
/// Eight bytes: a long suspect is prepared part by part, and the parts' vocabularies hold
/// many more keys than the whole text's one (an 8 MB text's check held 100 MB of them at
/// 24 bytes a key).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ConceptKey {
    concept: u32,
    /// The term's dense id ([`PreparedSuspect::term_ids`]), with [`Self::OWN`] set when
    /// the concept is the term's own.
    id_own: u32,
}

impl ConceptKey {
    const OWN: u32 = 1 << 31;

    fn new(concept: u32, id: u32, own: bool) -> Self {
        Self { concept, id_own: id | if own { Self::OWN } else { 0 } }
    }

    fn id(self) -> u32 {
        self.id_own & !Self::OWN
    }

    fn own(self) -> bool {
        self.id_own & Self::OWN != 0
    }
}

/// Appends the concepts of `terms` (with their dense ids; those of at most `max_senses`
/// senses) to `out` and sorts it.
fn concept_keys(
    synonyms: &Synonyms,
    terms: impl Iterator<Item = (u64, u32)>,
    max_senses: usize,
    out: &mut Vec<ConceptKey>,
) {
    for (term, id) in terms {
        let (own, related) = synonyms.senses(term);
        if own.len() > max_senses {
            continue;
        }
        out.extend(own.iter().map(|&concept| ConceptKey::new(concept, id, true)));
        out.extend(related.iter().map(|&concept| ConceptKey::new(concept, id, false)));
    }
    // Own keys first in each concept: a source term's related concept meets only those,
    // and a hypernym is related to many suspect terms.
    out.sort_unstable_by_key(|k| (k.concept, !k.own(), k.id()));
}

/// Which concepts a suspect's terms hold, as bits keyed by a hash of the concept: a
/// clear bit says "not held" for certain, a set bit sends the look-up on to
/// `concept_ranges`. A source term's concepts are mostly not the suspect's, and this
/// answers them from a few kilobytes instead of a hash table of every suspect concept
/// (a third of a PAN-sized check's neighbour search went to those look-ups).
#[derive(Debug, Clone, Default)]
struct ConceptFilter {
    bits: Vec<u64>,
    /// log2 of the number of bits.
    shift: u32,
}

impl ConceptFilter {
    /// A filter of about eight bits per concept (so about one look-up in nine of a
    /// concept the suspect lacks goes on to the table).
    fn new(concepts: impl ExactSizeIterator<Item = u32> + Clone) -> Self {
        let log2 = (concepts.len().max(1) * 8).next_power_of_two().trailing_zeros().max(6);
        let mut filter = Self { bits: vec![0; 1 << (log2 - 6)], shift: 64 - log2 };
        for c in concepts {
            let b = filter.bit(c);
            filter.bits[b >> 6] |= 1 << (b & 63);
        }
        filter
    }

    fn bit(&self, concept: u32) -> usize {
        // Fibonacci hashing: the top bits of the product spread neighbouring ids.
        (u64::from(concept).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    fn may_hold(&self, concept: u32) -> bool {
        if self.bits.is_empty() {
            return false;
        }
        let b = self.bit(concept);
        self.bits[b >> 6] & (1 << (b & 63)) != 0
    }
}

impl PreparedSuspect {
    /// Prepares `suspect` (which must have terms and sentences to be of use) for
    /// alignments with `config`.
    pub fn new(suspect: &Query, config: &AlignConfig) -> Self {
        let sentences = Sentences::new(suspect, config.min_sentence_terms, config.max_sentence_terms);
        let mut id_of_term: HashMap<u64, u32> = HashMap::new();
        let mut terms_by_id = Vec::new();
        let term_ids: Vec<u32> = suspect
            .terms
            .iter()
            .map(|&term| {
                *id_of_term.entry(term).or_insert_with(|| {
                    terms_by_id.push(term);
                    (terms_by_id.len() - 1) as u32
                })
            })
            .collect();
        // Each id's sentence frequency, then the sentences holding it (a term is distinct
        // within a sentence exactly when its id is).
        let mut df_by_id = vec![0u32; terms_by_id.len()];
        let (mut sentence_ids, mut sentence_starts) = (Vec::new(), vec![0u32; terms_by_id.len() + 1]);
        if suspect.has_sentences() {
            sentences.for_each_distinct_term(&term_ids, |_, id| df_by_id[id as usize] += 1);
            for (t, &df) in df_by_id.iter().enumerate() {
                sentence_starts[t + 1] = sentence_starts[t] + df;
            }
            let mut next = sentence_starts.clone();
            sentence_ids = vec![0u32; sentence_starts[terms_by_id.len()] as usize];
            sentences.for_each_distinct_term(&term_ids, |i, id| {
                sentence_ids[next[id as usize] as usize] = i as u32;
                next[id as usize] += 1;
            });
        }
        let df = |term: &u64| id_of_term.get(term).map_or(0, |&id| df_by_id[id as usize]);
        let (mut sentence_terms, mut term_starts) = (Vec::new(), Vec::new());
        if suspect.has_sentences() {
            let mut sorted = Vec::new();
            for u in &sentences.units {
                term_starts.push(sentence_terms.len() as u32);
                sorted.clear();
                sorted.extend_from_slice(&suspect.terms[u.start..u.end]);
                sorted.sort_unstable();
                for chunk in sorted.chunk_by(|a, b| a == b) {
                    let term = chunk[0];
                    sentence_terms.push(SentenceTerm { term, count: chunk.len() as u32, df: df(&term) });
                }
            }
            term_starts.push(sentence_terms.len() as u32);
        }
        let synonyms = suspect.synonyms.as_deref().filter(|_| config.synonyms);
        let mut concepts = Vec::new();
        let mut concept_ranges = HashMap::new();
        let mut concept_filter = ConceptFilter::default();
        if let Some(synonyms) = synonyms {
            // The terms of the suspect's sentences.
            let terms = (0..terms_by_id.len() as u32)
                .filter(|&id| df_by_id[id as usize] > 0)
                .map(|id| (terms_by_id[id as usize], id));
            concept_keys(synonyms, terms, config.synonym_max_senses, &mut concepts);
            let mut start = 0;
            for chunk in concepts.chunk_by(|a, b| a.concept == b.concept) {
                let own = chunk.iter().take_while(|k| k.own()).count();
                let range = (start as u32, (start + own) as u32, (start + chunk.len()) as u32);
                concept_ranges.insert(chunk[0].concept, range);
                start += chunk.len();
            }
            concept_filter = ConceptFilter::new(concept_ranges.keys().copied());
        }
        Self {
            sentences,
            sentence_ids,
            sentence_starts,
            sentence_terms,
            term_starts,
            concepts,
            concept_ranges,
            concept_filter,
            shingles: ShingleIndex::new(&suspect.hashes),
            df_by_id,
            term_ids,
            id_of_term,
            terms_by_id,
            stretches: StretchScratch::default(),
            min_sentence_terms: config.min_sentence_terms,
            max_sentence_terms: config.max_sentence_terms,
            synonyms: synonyms.is_some(),
            max_senses: config.synonym_max_senses,
        }
    }

    /// The number of suspect sentences holding `term`.
    pub(super) fn df(&self, term: u64) -> u32 {
        self.id_of_term.get(&term).map_or(0, |&id| self.df_by_id[id as usize])
    }

    /// The suspect sentences holding `term`, in order.
    fn sentences_holding(&self, term: u64) -> &[u32] {
        match self.id_of_term.get(&term) {
            Some(&id) => {
                let id = id as usize;
                &self.sentence_ids[self.sentence_starts[id] as usize..self.sentence_starts[id + 1] as usize]
            }
            None => &[],
        }
    }

    /// Whether this was prepared from `suspect` with the settings of `config` that
    /// preparing reads (else an alignment prepares the suspect afresh).
    pub(super) fn made_for(&self, suspect: &Query, config: &AlignConfig) -> bool {
        self.min_sentence_terms == config.min_sentence_terms
            && self.max_sentence_terms == config.max_sentence_terms
            && self.synonyms == (config.synonyms && suspect.synonyms.is_some())
            && self.max_senses == config.synonym_max_senses
    }

    /// The source's terms with the suspect's WordNet neighbours in place of the words they
    /// replace ([`with_neighbours`]); `None` when nothing changes or this suspect was
    /// prepared without neighbours.
    pub(super) fn source_terms_with_neighbours(&self, suspect: &Query, source: &[u64]) -> Option<Vec<u64>> {
        match &suspect.synonyms {
            Some(synonyms) if self.synonyms => with_neighbours(synonyms, self, source),
            _ => None,
        }
    }
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
    // The suspect's terms the source holds, by dense id, and the source's terms the
    // suspect lacks: the only ones that may be replaced.
    let mut in_source = vec![false; prepared.df_by_id.len()];
    let mut lacking_terms = Vec::new();
    for &term in &present {
        match prepared.id_of_term.get(&term) {
            Some(&id) if prepared.df_by_id[id as usize] > 0 => in_source[id as usize] = true,
            _ => lacking_terms.push(term),
        }
    }
    let suspect = &prepared.concepts;
    // A concept's suspect keys: all of them, or only those own to their term.
    let keys_of =
        |c: &u32, only_own: bool| match prepared.concept_filter.may_hold(*c).then(|| prepared.concept_ranges.get(c)) {
            Some(Some(&(start, own_end, end))) => {
                &suspect[start as usize..if only_own { own_end } else { end } as usize]
            }
            _ => &[],
        };
    // (source term, suspect term) for every shared concept own to one of them.
    let mut matches: Vec<(u64, u64)> = Vec::new();
    for term in lacking_terms {
        let (own, related) = synonyms.senses(term);
        if own.len() > prepared.max_senses {
            continue;
        }
        // A suspect term the source holds too is no stand-in.
        let lacking = |k: &&ConceptKey| !in_source[k.id() as usize];
        let suspect_term = |k: &ConceptKey| (term, prepared.terms_by_id[k.id() as usize]);
        for c in own {
            matches.extend(keys_of(c, false).iter().filter(lacking).map(suspect_term));
        }
        for c in related {
            matches.extend(keys_of(c, true).iter().filter(lacking).map(suspect_term));
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

/// One text's sentences as weighted term bags.
#[derive(Debug, Clone)]
pub(super) struct Sentences {
    /// Token ranges of the sentences (short ones joined to the next).
    pub(super) units: Vec<Span>,
    /// Sentence of each token.
    pub(super) unit_of: Vec<u32>,
}

impl Sentences {
    /// Sentences of a query, made contiguous and in bounds whatever `q.sentences` holds
    /// (only their ends are used), short ones joined to the next, long ones cut into
    /// equal pieces of at most `max_terms`.
    pub(super) fn new(q: &Query, min_terms: usize, max_terms: usize) -> Self {
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
    pub(super) fn piece_before(&self, r: Span) -> Option<Span> {
        let prev = r.start.checked_sub(1)?;
        let unit = self.units[self.unit_of[prev] as usize];
        Some(Span { start: unit.start.min(r.start), end: r.start })
    }

    /// The tokens just after `r`: the rest of the sentence it ends in, else the next
    /// sentence (`None` at the end of the text).
    pub(super) fn piece_after(&self, r: Span) -> Option<Span> {
        let unit = self.units[*self.unit_of.get(r.end)? as usize];
        Some(Span { start: r.end, end: unit.end.max(r.end) })
    }

    /// Calls `f(sentence, term)` once for each distinct term of each sentence, in order
    /// (terms as hashes, or as a suspect's dense ids).
    fn for_each_distinct_term<T: Copy + Eq + std::hash::Hash>(&self, terms: &[T], mut f: impl FnMut(usize, T)) {
        let mut seen: HashSet<T> = HashSet::new();
        for (i, u) in self.units.iter().enumerate() {
            seen.clear();
            for &term in &terms[u.start..u.end] {
                if seen.insert(term) {
                    f(i, term);
                }
            }
        }
    }

    /// Sentence range `[first, last]` of a token range.
    pub(super) fn range(&self, r: Span) -> (usize, usize) {
        let at = |k: usize| self.unit_of.get(k).copied().unwrap_or(0) as usize;
        (at(r.start), at(r.end.saturating_sub(1).max(r.start)))
    }
}

/// A sparse tf-idf vector: (term, weight) sorted by term, and its norm.
pub(super) struct Bag {
    pub(super) weights: Vec<(u64, f64)>,
    pub(super) norm: f64,
}

impl Bag {
    /// Cosine of this bag and `other` given their dot product.
    pub(super) fn cosine_with(&self, other: &Bag, dot: f64) -> f64 {
        if self.norm > 0.0 && other.norm > 0.0 { dot / (self.norm * other.norm) } else { 0.0 }
    }

    /// Dice coefficient of this bag's terms and `other`'s given how many they share.
    pub(super) fn dice_with(&self, other: &Bag, shared: usize) -> f64 {
        2.0 * shared as f64 / (self.weights.len() + other.weights.len()) as f64
    }
}

/// Source-side bags under an inverted index, for scoring many suspect bags against them:
/// a suspect bag meets only the bags sharing a term with it (a whole reworded book has
/// thousands of sentences a side). Used by the seeds (step 2) and the sentence pairs of
/// a standing passage (step 5).
pub(super) struct BagPostings {
    postings: HashMap<u64, Vec<(u32, f64)>>,
    dot: Vec<f64>,
    shared: Vec<u32>,
    touched: Vec<u32>,
}

impl BagPostings {
    pub(super) fn new<'b>(bags: impl ExactSizeIterator<Item = &'b Bag>) -> Self {
        let n = bags.len();
        let mut postings: HashMap<u64, Vec<(u32, f64)>> = HashMap::new();
        for (c, bag) in bags.enumerate() {
            for &(term, w) in &bag.weights {
                postings.entry(term).or_default().push((c as u32, w));
            }
        }
        Self { postings, dot: vec![0.0; n], shared: vec![0; n], touched: Vec::new() }
    }

    /// Scores `a` against every bag sharing a term with it; [`touched`](Self::touched)
    /// then lists those bags in index order, with their [`dot`](Self::dot) products and
    /// [`shared`](Self::shared) term counts, until [`clear`](Self::clear).
    pub(super) fn meet(&mut self, a: &Bag) {
        for (term, w) in &a.weights {
            for &(c, wt) in self.postings.get(term).map_or(&[][..], Vec::as_slice) {
                if self.shared[c as usize] == 0 {
                    self.touched.push(c);
                }
                self.dot[c as usize] += w * wt;
                self.shared[c as usize] += 1;
            }
        }
        self.touched.sort_unstable();
    }

    pub(super) fn touched(&self) -> &[u32] {
        &self.touched
    }

    pub(super) fn dot(&self, c: usize) -> f64 {
        self.dot[c]
    }

    pub(super) fn shared(&self, c: usize) -> usize {
        self.shared[c] as usize
    }

    /// Forgets the last bag met.
    pub(super) fn clear(&mut self) {
        for &c in &self.touched {
            self.dot[c as usize] = 0.0;
            self.shared[c as usize] = 0;
        }
        self.touched.clear();
    }
}

impl<'a> SentenceAligner<'a> {
    pub(super) fn new(
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
        t_sent.for_each_distinct_term(t_terms, |_, term| *t_df.entry(term).or_insert(0) += 1);
        let sentences = s_sent.units.len() + t_sent.units.len();
        let n = sentences as f64;
        let idf_of_df =
            (0..=sentences).map(|d| if d == 0 { 0.0 } else { (n / d as f64).ln().max(0.0) + 1e-3 }).collect();
        Self { suspect, source, t_terms, skip, config, prepared, s_sent, t_sent, t_df, idf_of_df }
    }

    /// idf of a term over the sentences of both texts (0 for a term of neither).
    pub(super) fn idf(&self, term: u64) -> f64 {
        self.idf_given(term, self.prepared.df(term))
    }

    /// [`idf`](Self::idf) of a term held by `suspect_df` suspect sentences.
    fn idf_given(&self, term: u64, suspect_df: u32) -> f64 {
        let d = suspect_df + self.t_df.get(&term).copied().unwrap_or(0);
        // A term's d never passes the sentence count; the fallback (the idf of a term
        // in every sentence) only keeps a bad count from panicking.
        self.idf_of_df.get(d as usize).copied().unwrap_or(1e-3)
    }

    /// [`bag`](Self::bag) of suspect sentence `i` (of `s_sent`), from its terms counted
    /// when the suspect was prepared: the same weights, in the same order.
    pub(super) fn suspect_sentence_bag(&self, i: usize) -> Bag {
        let p = self.prepared;
        let (start, end) = (p.term_starts[i] as usize, p.term_starts[i + 1] as usize);
        let weights: Vec<(u64, f64)> = p.sentence_terms[start..end]
            .iter()
            .map(|t| (t.term, f64::from(t.count) * self.idf_given(t.term, t.df)))
            .collect();
        let norm = weights.iter().map(|(_, w)| w * w).sum::<f64>().sqrt();
        Bag { weights, norm }
    }

    pub(super) fn bag(&self, terms: &[u64]) -> Bag {
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

    pub(super) fn cosine(a: &Bag, b: &Bag) -> f64 {
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
        a.cosine_with(b, dot)
    }

    /// Whether a sentence pair of this tf-idf cosine and Dice coefficient is a seed
    /// (`seed_cosine`, `seed_dice`).
    pub(super) fn seeds(&self, cosine: f64, dice: f64) -> bool {
        cosine >= self.config.seed_cosine && dice >= self.config.seed_dice
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
    pub(super) fn sentence_seeds(&self, covered: &Covered) -> Vec<Seed> {
        let (sq, t_terms) = (self.suspect, self.t_terms);
        let t_bags: Vec<Bag> = self.t_sent.units.iter().map(|u| self.bag(&t_terms[u.start..u.end])).collect();
        let mut postings = BagPostings::new(t_bags.iter());
        let mut pair_bags: Vec<Option<Bag>> = (0..t_bags.len()).map(|_| None).collect();
        let mut seeds = Vec::new();
        // Only suspect sentences sharing a term with the source can seed: how many of
        // their distinct terms the source holds (counted in place: a long suspect's list
        // of sentences per shared term was long to sort for every source).
        let mut held = vec![0u32; self.s_sent.units.len()];
        for term in self.t_df.keys() {
            for &i in self.prepared.sentences_holding(*term) {
                held[i as usize] += 1;
            }
        }
        for (i, &shared) in held.iter().enumerate() {
            if shared == 0 {
                continue;
            }
            // ... and only those sharing enough of their terms with it: a seed's Dice
            // counts terms shared with one source sentence (or pair), at most those the
            // whole source holds, over both bags' sizes. Most sentences of a long suspect
            // share a word or two with any source, and meeting them cost most of its check
            // (docs/performance.md); the seeds are the same.
            let terms = (self.prepared.term_starts[i + 1] - self.prepared.term_starts[i]) as usize;
            let most = (shared as usize).min(terms);
            if (2.0 * most as f64 / (terms + most) as f64) < self.config.seed_dice {
                continue;
            }
            let u = &self.s_sent.units[i];
            let in_runs = covered.within(*u);
            if self.mostly_skipped(*u) || 2 * in_runs > u.end - u.start {
                continue;
            }
            let a = self.suspect_sentence_bag(i);
            postings.meet(&a);
            // Candidates: single source sentences, and pairs of adjacent ones (shuffling
            // moves words across a sentence end). A pair's dot product is the sum of its
            // sentences' (tf adds up); its norm and Dice are computed.
            let mut best: Vec<(f64, usize, usize)> = Vec::new();
            for &j in postings.touched() {
                let j = j as usize;
                let b = &t_bags[j];
                let cos = a.cosine_with(b, postings.dot(j));
                let dice = a.dice_with(b, postings.shared(j));
                if self.seeds(cos, dice) {
                    best.push((cos, j, j));
                }
                if self.config.pair_seeds && j + 1 < t_bags.len() && postings.shared(j + 1) > 0 {
                    // Each pair's bag is made once per source, when first needed.
                    let pair = pair_bags[j].get_or_insert_with(|| {
                        self.bag(&t_terms[self.t_sent.units[j].start..self.t_sent.units[j + 1].end])
                    });
                    let cos = a.cosine_with(pair, postings.dot(j) + postings.dot(j + 1));
                    if cos >= self.config.seed_cosine && cos > best.last().map_or(0.0, |x| x.0) {
                        let hits = a
                            .weights
                            .iter()
                            .filter(|(t, _)| pair.weights.binary_search_by(|p| p.0.cmp(t)).is_ok())
                            .count();
                        if self.seeds(cos, a.dice_with(pair, hits)) {
                            best.push((cos, j, j + 1));
                        }
                    }
                }
            }
            postings.clear();
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
}

/// The suspect tokens of a source's exact passages, as sorted disjoint spans (a mark per
/// suspect token, made for each source, cost a long suspect its length in every round).
pub(super) struct Covered(Vec<Span>);

impl Covered {
    pub(super) fn new(spans: impl Iterator<Item = Span>) -> Self {
        let mut spans: Vec<Span> = spans.filter(|s| s.start < s.end).collect();
        spans.sort_unstable_by_key(|s| s.start);
        let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
        for s in spans {
            match merged.last_mut() {
                Some(last) if s.start <= last.end => last.end = last.end.max(s.end),
                _ => merged.push(s),
            }
        }
        Self(merged)
    }

    /// How many tokens of `r` are covered.
    pub(super) fn within(&self, r: Span) -> usize {
        let from = self.0.partition_point(|s| s.end <= r.start);
        self.0[from..].iter().take_while(|s| s.start < r.end).map(|s| s.end.min(r.end) - s.start.max(r.start)).sum()
    }
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

#[cfg(test)]
mod tests {
    use tessera_index::Snapshot;
    use tessera_normalize::Span;

    use super::super::fixtures::*;
    use super::*;
    use crate::{align, align_pair, align_prepared};

    #[test]
    fn covered_counts_each_token_of_overlapping_passages_once() {
        let span = |start, end| Span { start, end };
        let covered = Covered::new([span(10, 20), span(2, 5), span(15, 25), span(25, 27), span(8, 8)].into_iter());
        let marks: Vec<bool> = (0..40).map(|k| (2..5).contains(&k) || (10..27).contains(&k)).collect();
        for start in 0..40 {
            for end in start..40 {
                let expected = marks[start..end].iter().filter(|&&c| c).count();
                assert_eq!(covered.within(span(start, end)), expected, "{start}..{end}");
            }
        }
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
                sentence_edges: s.sentence_edges.clone(),
            };
            assert_eq!(align(&q, &snapshot, &[], &config), fresh);
        }
        assert!(found >= 2, "{found}");
    }

    /// The bag of a suspect sentence made from the terms counted when preparing is the
    /// bag made from its tokens: the same terms, weights and norm, to the bit.
    #[test]
    fn suspect_sentence_bags_are_the_bags_of_their_tokens() {
        let suspect = format!("{EN_SUSPECT_BEFORE}{EN_OBFUSCATED}{EN_SUSPECT_AFTER} {EN_SOURCE_BEFORE}");
        let q = text_query(&suspect);
        let s = text_query(&format!("{EN_SOURCE_BEFORE}{EN_SOURCE_PASSAGE}"));
        let config = AlignConfig::default();
        let prepared = PreparedSuspect::new(&q, &config);
        let aligner = SentenceAligner::new(&q, &prepared, &s, &s.terms, &[], &config);
        assert!(prepared.sentences.units.len() >= 4);
        for (i, u) in prepared.sentences.units.iter().enumerate() {
            let (from_prepared, from_tokens) = (aligner.suspect_sentence_bag(i), aligner.bag(&q.terms[u.start..u.end]));
            assert!(!from_tokens.weights.is_empty());
            let bits =
                |b: &Bag| (b.weights.iter().map(|&(t, w)| (t, w.to_bits())).collect::<Vec<_>>(), b.norm.to_bits());
            assert_eq!(bits(&from_prepared), bits(&from_tokens), "sentence {i}");
        }
    }

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

    /// What `with_neighbours` must answer, from the table's senses and every pair of terms:
    /// each source term the suspect lacks becomes the suspect term (not in the source) of
    /// the most shared concepts (own-own, own-related, related-own), the smallest on a tie.
    fn neighbours_by_every_pair(synonyms: &Synonyms, suspect: &[u64], source: &[u64], max_senses: usize) -> Vec<u64> {
        let shared = |t: u64, s: u64| {
            let ((own_t, related_t), (own_s, related_s)) = (synonyms.senses(t), synonyms.senses(s));
            let of = |x: &[u32], y: &[u32]| x.iter().filter(|c| y.contains(c)).count();
            of(own_t, own_s) + of(own_t, related_s) + of(related_t, own_s)
        };
        let few_senses = |t: &u64| synonyms.senses(*t).0.len() <= max_senses;
        let stand_ins: Vec<u64> = suspect.iter().copied().filter(|s| !source.contains(s)).filter(few_senses).collect();
        source
            .iter()
            .map(|&t| {
                if suspect.contains(&t) || !few_senses(&t) {
                    return t;
                }
                let mut best = (0, t);
                for &s in &stand_ins {
                    let n = shared(t, s);
                    if n > best.0 || (n == best.0 && n > 0 && s < best.1) {
                        best = (n, s);
                    }
                }
                best.1
            })
            .collect()
    }

    #[test]
    fn neighbours_are_the_suspect_terms_sharing_the_most_concepts() {
        // Texts of many synonyms, hypernyms and opposites, each in a few sentences.
        let suspect = "The big dog wrote a short poem about the large animal. A cat composed verse on an easy \
            task. The pupils found the difficult exam hard, and the teacher was glad. People travel by car \
            and automobile to the city; the town is small and the village tiny.";
        let sources = [
            "The huge hound penned a brief verse about the great beast. A kitten wrote poetry on a simple \
             job. Students thought the hard test difficult, and the instructor was happy.",
            "Persons journey by motorcar to the metropolis; the township is little and the hamlet minute. \
             The dog and the cat wrote.",
            "Nothing here is shared with anything at all, zebra quantum.",
        ];
        let q = text_query(suspect);
        let synonyms = q.synonyms.clone().expect("English queries carry WordNet neighbours");
        for max_senses in [1, 4, AlignConfig::default().synonym_max_senses, 100] {
            let config = AlignConfig { synonym_max_senses: max_senses, ..AlignConfig::default() };
            let prepared = PreparedSuspect::new(&q, &config);
            let mut replaced = 0;
            for text in sources {
                let source = text_query(text);
                let want = neighbours_by_every_pair(&synonyms, &q.terms, &source.terms, max_senses);
                let got = prepared.source_terms_with_neighbours(&q, &source.terms);
                assert_eq!(got.as_deref().unwrap_or(&source.terms), want, "{max_senses} {text}");
                assert_eq!(got.is_none(), want == source.terms, "None when nothing changes");
                replaced += want.iter().zip(&source.terms).filter(|(a, b)| a != b).count();
            }
            assert!(replaced >= 3 || max_senses == 1, "{max_senses}: {replaced} replaced");
        }
    }

    #[test]
    fn a_concept_filter_holds_every_concept_it_was_made_of() {
        for n in [0usize, 1, 7, 64, 1000, 5000] {
            let held: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 3).collect();
            let filter = ConceptFilter::new(held.iter().copied());
            assert!(held.iter().all(|&c| filter.may_hold(c)), "{n}");
            // About eight bits a concept: most others are answered "no".
            let others = (0..10_000u32).map(|i| i * 7 + 1).filter(|c| !held.contains(c));
            let (count, passed) = others.fold((0, 0), |(n, p), c| (n + 1, p + usize::from(filter.may_hold(c))));
            assert!(passed * 4 < count, "{n}: {passed} of {count} pass");
        }
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
        // The whole passage on both sides, from its opening stop word ("In", "The") to
        // its full stop.
        let want_s = find(&suspect, EN_OBFUSCATED);
        let want_t = find(&source, EN_SOURCE_PASSAGE);
        let b = &blocks[0];
        assert_eq!(b.suspect.bytes, want_s, "{:?}", &suspect[b.suspect.bytes.start..b.suspect.bytes.end]);
        assert_eq!(b.source.bytes, want_t, "{:?}", &source[b.source.bytes.start..b.source.bytes.end]);
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
    fn texts_on_one_topic_without_a_shared_passage_give_nothing() {
        let source = format!("{EN_SOURCE_BEFORE}{EN_SOURCE_PASSAGE}{EN_SOURCE_AFTER}");
        let suspect = "Northern villages depend on winter roads. When the frost is hard, supply convoys \
            leave the railway town and cross lakes and rivers for weeks. Spring is dangerous: bridges \
            are scarce and meadows flood, so people store fuel and flour before the thaw.";
        let blocks = align_pair(&text_query(suspect), &text_query(&source), &[], &AlignConfig::default());
        assert!(blocks.is_empty(), "{blocks:?}");
    }
}
