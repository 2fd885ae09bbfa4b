//! Step 2, sentence seeds: sentences as tf-idf term bags, each suspect sentence paired
//! with the source sentences (or pairs of adjacent ones) whose cosine and Dice reach the
//! thresholds, with source words swapped for the suspect's WordNet neighbours first.
//! The suspect's side comes prepared ([`PreparedSuspect`], `prepared.rs`); sentences and
//! their bags are `sentences.rs`'s.

use foldhash::{HashMap, HashMapExt};
use tessera_normalize::Span;

use super::prepared::PreparedSuspect;
use super::sentences::{Bag, BagPostings, Sentences};
use super::{Seed, SentenceAligner};
use crate::{AlignConfig, Query};

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
    use tessera_normalize::Span;

    use super::super::fixtures::*;
    use super::*;
    use crate::align_pair;

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
