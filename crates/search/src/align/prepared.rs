//! The suspect's side of sentence seeding, prepared once per search
//! ([`PreparedSuspect`]): its sentences with their counted terms, the sentences holding
//! each term, its terms as dense ids and its WordNet concepts; and, from those, a source's
//! terms with the suspect's WordNet neighbours swapped in (`with_neighbours`).

use std::sync::Mutex;

use foldhash::{HashMap, HashMapExt};
use tessera_fingerprint::Synonyms;

use super::ShingleIndex;
use super::sentences::Sentences;
use crate::{AlignConfig, Query};

/// What sentence seeding needs from a suspect, whatever the source: its sentences, the
/// sentence frequency of each term and the sentences that hold it. A search aligns one
/// suspect with up to `max_rounds` sources; preparing the suspect once makes each
/// alignment cost what the source and the shared terms cost, not the whole suspect
/// again (a 50,000-character suspect against the PAN sources: 43 ms a check before).
#[derive(Debug, Clone)]
pub struct PreparedSuspect {
    pub(super) sentences: Sentences,
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
    pub(super) sentence_terms: Vec<SentenceTerm>,
    pub(super) term_starts: Vec<u32>,
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
pub(super) struct SentenceTerm {
    pub(super) term: u64,
    /// Occurrences in the sentence.
    pub(super) count: u32,
    /// Suspect sentences holding the term.
    pub(super) df: u32,
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
    pub(super) fn sentences_holding(&self, term: u64) -> &[u32] {
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

#[cfg(test)]
mod tests {
    use tessera_index::Snapshot;

    use super::super::fixtures::*;
    use super::*;
    use crate::{align, align_pair, align_prepared};

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
}
