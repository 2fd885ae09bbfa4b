//! Step 5, evidence: what each passage rests on, measured on its final spans (the
//! facts of [`Evidence`]; its confidence drops sentence passages too weak to stand).

use std::sync::PoisonError;

use foldhash::{HashMap, HashMapExt};

use tessera_normalize::Span;

use super::exact_runs::{Run, longest_within};
use super::prepared::Stretches;
use super::sentences::{Bag, BagPostings};
use super::{Passage, SentenceAligner, to_u32};
use crate::Evidence;

impl SentenceAligner<'_> {
    /// Whether `term` is *rare*: in at most [`Evidence::RARE_SENTENCES`] sentences of
    /// each text (a passage's own words, not the topic's).
    pub(super) fn is_rare(&self, term: u64) -> bool {
        self.prepared.df(term) <= Evidence::RARE_SENTENCES
            && self.t_df.get(&term).copied().unwrap_or(0) <= Evidence::RARE_SENTENCES
    }

    /// The evidence of a passage: its longest exact run among `runs`, the terms its two
    /// sides share (rare ones and the suspect's names apart), their order and the sides'
    /// cosine.
    pub(super) fn evidence(&self, p: &Passage, runs: &[Run]) -> Evidence {
        let (s_terms, t_terms) = (&self.suspect.terms[p.s.start..p.s.end], &self.t_terms[p.t.start..p.t.end]);
        // Each distinct term's count and first position on each side.
        let mut seen: HashMap<u64, (u32, usize, u32, usize)> = HashMap::with_capacity(s_terms.len());
        for (i, &term) in s_terms.iter().enumerate() {
            let e = seen.entry(term).or_insert((0, i, 0, 0));
            e.0 += 1;
        }
        for (j, &term) in t_terms.iter().enumerate() {
            if let Some(e) = seen.get_mut(&term) {
                if e.2 == 0 {
                    e.3 = j;
                }
                e.2 += 1;
            }
        }
        let (mut shared, mut rare, mut names) = (0u32, 0u32, 0u32);
        let mut once: Vec<(usize, usize)> = Vec::new();
        for (&term, &(s_count, i, t_count, j)) in &seen {
            if t_count == 0 {
                continue;
            }
            shared += 1;
            names += u32::from(self.suspect.names.binary_search(&term).is_ok());
            rare += u32::from(self.is_rare(term));
            if s_count == 1 && t_count == 1 {
                once.push((i, j));
            }
        }
        once.sort_unstable();
        let order = if once.len() < 3 {
            1.0
        } else {
            longest_increasing(once.iter().map(|&(_, j)| j)) as f32 / once.len() as f32
        };
        let cosine = Self::cosine(&self.bag(s_terms), &self.bag(t_terms)) as f32;
        Evidence {
            longest_run: to_u32(longest_within(runs, p.s, p.t, self.suspect.shingle_size)),
            suspect_terms: to_u32(s_terms.len()),
            source_terms: to_u32(t_terms.len()),
            shared_terms: shared,
            rare_shared_terms: rare,
            shared_names: names,
            order,
            cosine,
            sentences: p.sentences,
            summary: false,
            translated: false,
        }
    }

    /// The sentences of a passage found through sentence seeds, each with what it draws
    /// on: every suspect sentence of `p` (cut to `p`) paired with the source sentence, or
    /// pair of adjacent ones (`pair_seeds`), of `p`'s source side (cut to it) that it
    /// matches best, when the two would make a seed (`seed_cosine`, `seed_dice`); of
    /// equally good ones, the one starting first. Token spans and the pair's cosine, in suspect order. A
    /// reviewer reads a rewording or a summary sentence by sentence with these: the
    /// passage's spans say where it lies, not which words answer which.
    pub(super) fn sentence_pairs(&self, p: &Passage) -> Vec<(Span, Span, f64)> {
        let clip = |u: Span, r: Span| Span { start: u.start.max(r.start), end: u.end.min(r.end) };
        let (first, last) = self.t_sent.range(p.t);
        let units: Vec<Span> =
            (first..=last).map(|j| clip(self.t_sent.units[j], p.t)).filter(|u| u.start < u.end).collect();
        let mut candidates: Vec<Span> = units.clone();
        if self.config.pair_seeds {
            candidates.extend(units.windows(2).map(|w| Span { start: w[0].start, end: w[1].end }));
        }
        let bags: Vec<(Span, Bag)> =
            candidates.into_iter().map(|t| (t, self.bag(&self.t_terms[t.start..t.end]))).collect();
        // Each suspect sentence meets only the candidates sharing a term with it.
        let mut postings = BagPostings::new(bags.iter().map(|(_, bag)| bag));
        let (first, last) = self.s_sent.range(p.s);
        let mut pairs = Vec::new();
        for i in first..=last {
            let s = clip(self.s_sent.units[i], p.s);
            if s.start >= s.end {
                continue;
            }
            let a = self.bag(&self.suspect.terms[s.start..s.end]);
            postings.meet(&a);
            let mut best: Option<(f64, Span)> = None;
            for &c in postings.touched() {
                let (t, b) = &bags[c as usize];
                let cosine = a.cosine_with(b, postings.dot(c as usize));
                let better = best.is_none_or(|(top, at)| cosine > top || (cosine == top && t.start < at.start));
                if better && self.seeds(cosine, a.dice_with(b, postings.shared(c as usize))) {
                    best = Some((cosine, *t));
                }
            }
            postings.clear();
            if let Some((cosine, t)) = best {
                pairs.push((s, t, cosine));
            }
        }
        pairs
    }

    /// Whether a passage found through sentence seeds stands on its evidence (step 5):
    /// confident enough, sharing enough words that are not names, and no ghost of a
    /// borrowing (near copies are not asked for their contrast). Passages of exact runs
    /// alone always stand.
    pub(super) fn stands(&self, p: &Passage, evidence: &Evidence) -> bool {
        let config = self.config;
        let cosine = f64::from(evidence.cosine);
        !p.sentences
            || (evidence.confidence() >= config.min_confidence
                && evidence.shared_words() >= config.min_shared_words
                && (cosine >= config.contrast_under_cosine
                    || self.contrast(p, cosine).is_none_or(|c| c >= config.min_contrast)))
    }

    /// How much better a passage's suspect side matches its source side than any other
    /// stretch of the suspect as long does: its tf-idf cosine less the best cosine of its
    /// source side with a stretch of the suspect elsewhere (`AlignConfig::min_contrast`);
    /// `None` when the suspect has no room for another stretch. A source region borrowed
    /// once is matched best where it was borrowed; a topical neighbour of the borrowing,
    /// paired with the same region, is matched better by the borrowing itself.
    pub(super) fn contrast(&self, p: &Passage, cosine: f64) -> Option<f64> {
        let t_terms = &self.t_terms[p.t.start..p.t.end];
        let best = self.best_elsewhere(&self.bag(t_terms), p.s)?;
        // A stretch equal to the passage's side matches exactly as well; the sliding sums
        // may differ from the bag's in the last bits.
        let contrast = cosine - best;
        Some(if contrast.abs() < 1e-9 { 0.0 } else { contrast })
    }

    /// The best tf-idf cosine of `fixed` with a stretch of the suspect as long as `own`,
    /// starting every quarter of that length, among those overlapping `own` by at most a
    /// quarter of it. The stretch slides: each step adds and removes a few terms, and the
    /// dot product and norm follow (the whole text once per passage, not once per
    /// stretch). Terms are the suspect's dense ids, their counts and weights in arrays:
    /// a long suspect's passages each slide over all of it, and hash maps made that most
    /// of its check (docs/performance.md).
    fn best_elsewhere(&self, fixed: &Bag, own: Span) -> Option<f64> {
        let prepared = self.prepared;
        let ids = &prepared.term_ids;
        let len = own.end.saturating_sub(own.start);
        if len == 0 || len > ids.len() || fixed.norm <= 0.0 {
            return None;
        }
        let step = (len / 4).max(1);
        let mut scratch = prepared.stretches.0.lock().unwrap_or_else(PoisonError::into_inner);
        let Stretches { t_df, weight, count } = &mut *scratch;
        let distinct = prepared.df_by_id.len();
        if count.len() != distinct {
            *t_df = vec![0; distinct];
            *weight = vec![0.0; distinct];
            *count = vec![0; distinct];
        }
        let id_of = |term: &u64| prepared.id_of_term.get(term).map(|&id| id as usize);
        for (term, d) in &self.t_df {
            if let Some(id) = id_of(term) {
                t_df[id] = *d;
            }
        }
        for (term, w) in &fixed.weights {
            if let Some(id) = id_of(term) {
                weight[id] = *w;
            }
        }
        // `idf` of a term by id: the same table, the same sentence frequencies.
        let idf = |id: usize, t_df: &[u32]| {
            self.idf_of_df.get((prepared.df_by_id[id] + t_df[id]) as usize).copied().unwrap_or(1e-3)
        };
        let (mut dot, mut norm2) = (0.0f64, 0.0f64);
        let mut best: Option<f64> = None;
        let (mut start, mut end) = (0, 0);
        for at in (0..=ids.len() - len).step_by(step) {
            while end < at + len {
                let id = ids[end] as usize;
                let idf = idf(id, t_df);
                // (c + 1)² - c² = 2c + 1.
                norm2 += idf * idf * (2.0 * f64::from(count[id]) + 1.0);
                dot += idf * weight[id];
                count[id] += 1;
                end += 1;
            }
            while start < at {
                let id = ids[start] as usize;
                let idf = idf(id, t_df);
                // (c - 1)² - c² = -(2c - 1).
                norm2 -= idf * idf * (2.0 * f64::from(count[id]) - 1.0);
                dot -= idf * weight[id];
                count[id] -= 1;
                start += 1;
            }
            let overlap = (at + len).min(own.end).saturating_sub(at.max(own.start));
            if 4 * overlap > len {
                continue;
            }
            let norm = norm2.max(0.0).sqrt() * fixed.norm;
            let cosine = if norm > 0.0 { dot / norm } else { 0.0 };
            best = Some(best.map_or(cosine, |b: f64| b.max(cosine)));
        }
        // Leave the scratch as found: all zero.
        for &id in &ids[start..end] {
            count[id as usize] = 0;
        }
        for term in self.t_df.keys() {
            if let Some(id) = id_of(term) {
                t_df[id] = 0;
            }
        }
        for (term, _) in &fixed.weights {
            if let Some(id) = id_of(term) {
                weight[id] = 0.0;
            }
        }
        best
    }
}

/// Length of the longest strictly increasing subsequence (patience sorting).
fn longest_increasing(values: impl Iterator<Item = usize>) -> usize {
    let mut tails: Vec<usize> = Vec::new();
    for v in values {
        let at = tails.partition_point(|&t| t < v);
        if at == tails.len() {
            tails.push(v);
        } else {
            tails[at] = v;
        }
    }
    tails.len()
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::*;
    use super::super::prepared::PreparedSuspect;
    use super::*;
    use crate::{AlignConfig, Query, align_pair};

    #[test]
    fn longest_increasing_subsequence() {
        assert_eq!(longest_increasing([].into_iter()), 0);
        assert_eq!(longest_increasing([1, 2, 3].into_iter()), 3);
        assert_eq!(longest_increasing([3, 2, 1].into_iter()), 1);
        assert_eq!(longest_increasing([2, 9, 3, 4, 1, 5].into_iter()), 4);
    }

    /// A verbatim copy is sure; a reworded copy is found through sentences, with the
    /// evidence of a borrowing: many shared terms, rare ones among them, in order.
    #[test]
    fn copies_carry_their_evidence() {
        let source = format!("{EN_SOURCE_BEFORE}{EN_SOURCE_PASSAGE}{EN_SOURCE_AFTER}");
        let verbatim = format!("{EN_SUSPECT_BEFORE}{EN_SOURCE_PASSAGE}{EN_SUSPECT_AFTER}");
        let t = text_query(&source);
        let blocks = align_pair(&text_query(&verbatim), &t, &[], &AlignConfig::default());
        assert_eq!(blocks.len(), 1, "{blocks:?}");
        let e = blocks[0].evidence;
        assert!(!e.sentences && e.longest_run >= 25, "{e:?}");
        assert!((e.confidence() - 1.0).abs() < 1e-9, "{e:?}");

        let reworded = format!("{EN_SUSPECT_BEFORE}{EN_OBFUSCATED}{EN_SUSPECT_AFTER}");
        let blocks = align_pair(&text_query(&reworded), &t, &[], &AlignConfig::default());
        assert_eq!(blocks.len(), 1, "{blocks:?}");
        let e = blocks[0].evidence;
        assert!(e.sentences, "{e:?}");
        assert!(e.shared_terms >= 20 && e.rare_shared_terms >= 10, "{e:?}");
        assert!(e.order > 0.5 && e.cosine > 0.5, "{e:?}");
        assert!(e.longest_run < 25, "{e:?}");
        assert!(e.confidence() > 0.9, "{e:?}: {}", e.confidence());
    }

    /// Passages found through sentences under `min_confidence` are dropped; those of
    /// exact runs alone always stand.
    #[test]
    fn weak_sentence_passages_are_dropped_and_exact_ones_stand() {
        let source = format!("{EN_SOURCE_BEFORE}{EN_SOURCE_PASSAGE}{EN_SOURCE_AFTER}");
        let t = text_query(&source);
        let never = AlignConfig { min_confidence: 1.01, ..AlignConfig::default() };
        let reworded = text_query(&format!("{EN_SUSPECT_BEFORE}{EN_OBFUSCATED}{EN_SUSPECT_AFTER}"));
        assert_eq!(align_pair(&reworded, &t, &[], &AlignConfig::default()).len(), 1);
        assert!(align_pair(&reworded, &t, &[], &never).is_empty());
        let verbatim = text_query(&format!("{EN_SUSPECT_BEFORE}{EN_SOURCE_PASSAGE}{EN_SUSPECT_AFTER}"));
        assert_eq!(align_pair(&verbatim, &t, &[], &never).len(), 1);
    }

    /// Two texts on one subject that share its names and few words: no borrowing,
    /// however sure the model would be; with the rule off, the passage is found.
    #[test]
    fn passages_that_share_names_and_few_words_are_dropped() {
        let source = format!(
            "{EN_SOURCE_BEFORE}Our physicians staff all four hospitals of the Network of Harwick Valley Health. \
             They are the Center for Medicine of Harwick Valley and the Rehabilitation Hospital of Harwick Valley \
             in Elkford, and the Center of Saint Osric Medicine and the Behavioral Hospital of Harwick Valley Health \
             in Dunmore.{EN_SOURCE_AFTER}"
        );
        let suspect = format!(
            "{EN_SUSPECT_BEFORE}Continuing education for nurses of the Harwick Valley Health Network is offered \
             through the consortium of its facilities: Harwick Valley Medical Center, Saint Osric Medical Center, \
             Harwick Valley Behavioral Health Hospital and Harwick Valley Rehabilitation Hospital.{EN_SUSPECT_AFTER}"
        );
        let (q, t) = (text_query(&suspect), text_query(&source));
        let all = AlignConfig { min_shared_words: 0, min_confidence: 0.0, ..AlignConfig::default() };
        let found = align_pair(&q, &t, &[], &all);
        assert_eq!(found.len(), 1, "{found:?}");
        let e = found[0].evidence;
        assert!(e.sentences && e.shared_names >= 8 && e.shared_words() < 4, "{e:?}");
        let default = AlignConfig { min_confidence: 0.0, ..AlignConfig::default() };
        assert!(align_pair(&q, &t, &[], &default).is_empty());
    }

    /// The facts weigh in the direction one expects.
    #[test]
    fn confidence_grows_with_each_fact() {
        let base = Evidence {
            longest_run: 1,
            suspect_terms: 30,
            source_terms: 30,
            shared_terms: 12,
            rare_shared_terms: 3,
            shared_names: 2,
            order: 0.6,
            cosine: 0.45,
            sentences: true,
            summary: false,
            translated: false,
        };
        let c = base.confidence();
        assert!(c > 0.0 && c < 1.0, "{c}");
        for better in [
            Evidence { shared_terms: 20, ..base },
            Evidence { rare_shared_terms: 9, ..base },
            Evidence { order: 1.0, ..base },
            Evidence { cosine: 0.7, ..base },
            // Twice as long with the same shares: more of the same evidence.
            Evidence { suspect_terms: 60, source_terms: 60, shared_terms: 24, ..base },
        ] {
            assert!(better.confidence() > c, "{better:?}");
        }
        // A long run in a passage the exact path did not find is a shared heading or
        // phrase: it does not make the passage surer (`Evidence::model`).
        assert!(Evidence { longest_run: 4, ..base }.confidence() < c);
        // Length makes a passage surer only as far as its two sides are alike: doubling it
        // gains more at a high cosine than at a low one (the water-heater page of PAN's
        // no-plagiarism pairs: 1,758 characters of one topic at cosine 0.40).
        let logit = |e: Evidence| {
            let p = e.confidence();
            (p / (1.0 - p)).ln()
        };
        let gain = |cosine: f32| {
            let short = Evidence { cosine, ..base };
            let long = Evidence { suspect_terms: 60, source_terms: 60, shared_terms: 24, ..short };
            logit(long) - logit(short)
        };
        assert!(gain(0.8) > gain(0.3) + 0.3, "{} {}", gain(0.8), gain(0.3));
        // Exact runs alone: by the longest run, sure from 8 shingles on.
        let exact = Evidence { sentences: false, longest_run: 3, ..Evidence::default() };
        assert!(exact.confidence() < 1.0);
        assert!((Evidence { longest_run: 8, ..exact }.confidence() - 1.0).abs() < 1e-9);
        // ... and at least as sure as its terms say when they were measured: a light
        // rewrite keeps runs of 3-6 shingles but shares its terms as a copy does.
        let rewrite = Evidence {
            sentences: false,
            longest_run: 6,
            suspect_terms: 80,
            source_terms: 76,
            shared_terms: 47,
            rare_shared_terms: 34,
            order: 0.94,
            cosine: 0.91,
            ..Evidence::default()
        };
        assert!((Evidence { shared_terms: 0, ..rewrite }.confidence() - 0.875).abs() < 1e-9);
        assert!(rewrite.confidence() > 0.99, "{}", rewrite.confidence());
        // Weak measured evidence does not lower what the run says.
        let weak = Evidence { shared_terms: 3, rare_shared_terms: 0, order: 0.2, cosine: 0.1, ..rewrite };
        assert!((weak.confidence() - 0.875).abs() < 1e-9, "{}", weak.confidence());
    }

    #[test]
    fn summaries_reach_the_edges_of_their_source() {
        let source = format!("{EN_SOURCE_BEFORE}{EN_SOURCE_PASSAGE}{EN_SOURCE_AFTER}");
        let (q, t) = (text_query(EN_OBFUSCATED), text_query(&source));
        let config = AlignConfig::default();
        let prepared = PreparedSuspect::new(&q, &config);
        let aligner = SentenceAligner::new(&q, &prepared, &t, &t.terms, &[], &config);
        let n = t.terms.len();
        assert!(n >= 50, "{n}");
        let span = |start, end| tessera_normalize::Span { start, end };
        // Less before it than its length: from the start; as much after it: to the end.
        assert_eq!(aligner.summary_to_edges(span(10, 30)), span(0, 30));
        assert_eq!(aligner.summary_to_edges(span(n - 15, n - 5)), span(n - 15, n));
        assert_eq!(aligner.summary_to_edges(span(30, 40)), span(30, 40));
        let off = AlignConfig { summary_edge_share: 0.0, ..AlignConfig::default() };
        let aligner = SentenceAligner::new(&q, &prepared, &t, &t.terms, &[], &off);
        assert_eq!(aligner.summary_to_edges(span(10, 30)), span(10, 30));
    }

    /// Twenty-seven sentences about one lighthouse...
    const LONG_SOURCE: &str = "The lighthouse at Carrow Point was built in 1852 after three ships sank on the reef in one winter. \
        Its tower of grey granite rises forty metres above the sea. \
        The stones were cut in a quarry near the harbour and carried by oxen along the cliff road. \
        A Scottish engineer designed the lantern, which burned whale oil until 1870. \
        Paraffin replaced the oil and made the beam visible from twenty miles. \
        Fog signals were added later, first a bell and then a horn driven by compressed air. \
        The horn could be heard across the bay and annoyed the farmers on the far shore. \
        The keepers lived with their families in cottages beside the tower. \
        Their children walked four miles each day to the village school. \
        Supplies came by boat once a month, and storms often delayed them for weeks. \
        The keepers kept a garden of potatoes and cabbages behind a stone wall against the wind. \
        A goat and some hens gave them milk and eggs through the long winters. \
        Letters from the mainland arrived with the supply boat and were read aloud in the evening. \
        The log book recorded the weather every four hours, day and night, for over a century. \
        In 1911 a keeper named Thomas Hale rescued eleven sailors from a burning steamer. \
        He rowed out three times through heavy waves and received a medal from the king. \
        Electricity reached the station in 1936, and the old lamp went to a museum. \
        During the war the light was dimmed to hide the coast from enemy submarines. \
        A mine washed ashore in 1942 and was destroyed by soldiers from the garrison. \
        The explosion broke every window of the cottages but hurt nobody. \
        After the war the station received a radio beacon for ships in poor visibility. \
        Automation came in 1987, when the last keepers left the cottages. \
        Today a computer in the city controls the beam and reports any fault. \
        The cottages now house a small museum about shipwrecks and rescues. \
        Visitors climb the spiral stair of one hundred and twenty steps to the gallery. \
        From the top they can see seals resting on the rocks of the reef. \
        A local trust raises money every year to repair the granite and paint the lantern.";
    /// ... and a summary of them in four.
    const SUMMARY: &str = "Carrow Point got its lighthouse in 1852, when ships kept sinking on the reef; the granite tower is forty metres high. \
        Keepers and their families lived in cottages beside the tower, and supplies came by boat each month. \
        Thomas Hale, a keeper, rescued eleven sailors from a burning steamer in 1911 and received a medal. \
        The station was automated in 1987, the cottages became a museum, and visitors climb the stair to see seals on the reef.";

    /// A summary passage (its source side several times longer) replaces what the first
    /// extension found only when its confidence reaches `summary_min_confidence`; under
    /// it, the first extension's passages stand as if there were no summary extension.
    #[test]
    fn summaries_replace_passages_only_on_strong_evidence() {
        let suspect = format!("{EN_SUSPECT_BEFORE}{SUMMARY}{EN_SUSPECT_AFTER}");
        let (q, t) = (text_query(&suspect), text_query(LONG_SOURCE));
        let summary = find(&suspect, SUMMARY);
        let found = align_pair(&q, &t, &[], &AlignConfig::default());
        assert_eq!(found.len(), 1, "{found:?}");
        let b = &found[0];
        assert!(b.suspect.bytes.start <= summary.start + 10 && b.suspect.bytes.end + 10 >= summary.end, "{b:?}");
        assert!(b.source.bytes.start < 10 && b.source.bytes.end + 10 > LONG_SOURCE.len(), "{b:?}");
        assert!(b.evidence.confidence() >= AlignConfig::default().summary_min_confidence, "{b:?}");
        assert!(b.evidence.summary && b.evidence.sentences, "{b:?}");

        let strict = AlignConfig { summary_min_confidence: 1.01, ..AlignConfig::default() };
        let first = AlignConfig { summary_sentence_gap: None, ..AlignConfig::default() };
        let kept = align_pair(&q, &t, &[], &strict);
        assert!(!kept.is_empty());
        assert_eq!(kept, align_pair(&q, &t, &[], &first));
        for b in &kept {
            let (s, t) = (b.suspect.chars.end - b.suspect.chars.start, b.source.chars.end - b.source.chars.start);
            assert!(t < 3 * s && !b.evidence.summary, "{b:?}");
        }
    }

    /// A summary's and a rewording's sentences come paired with what each draws on: inside
    /// the block, in suspect order, each pair a seed; a copy has none.
    #[test]
    fn sentence_pairs_say_what_each_sentence_draws_on() {
        let suspect = format!("{EN_SUSPECT_BEFORE}{SUMMARY}{EN_SUSPECT_AFTER}");
        let found = align_pair(&text_query(&suspect), &text_query(LONG_SOURCE), &[], &AlignConfig::default());
        assert_eq!(found.len(), 1, "{found:?}");
        let b = &found[0];
        assert!(b.evidence.summary, "{b:?}");
        let text = |t: &str, span: crate::TextSpan| t[span.bytes.start..span.bytes.end].to_owned();
        let pairs: Vec<(String, String)> =
            b.pairs.iter().map(|p| (text(&suspect, p.suspect), text(LONG_SOURCE, p.source))).collect();
        for (want, from) in [
            ("Thomas Hale, a keeper, rescued eleven sailors", "In 1911 a keeper named Thomas Hale rescued"),
            ("Keepers and their families lived in cottages", "The keepers lived with their families"),
        ] {
            assert!(pairs.iter().any(|(s, t)| s.starts_with(want) && t.contains(from)), "{want}: {pairs:#?}");
        }
        assert!(b.pairs.len() >= 3, "{pairs:#?}");
        let seed = AlignConfig::default().seed_cosine as f32;
        for w in b.pairs.windows(2) {
            assert!(w[0].suspect.chars.end <= w[1].suspect.chars.start, "{:?}", b.pairs);
        }
        for p in &b.pairs {
            assert!(p.cosine >= seed, "{p:?}");
            assert!(p.suspect.chars.start >= b.suspect.chars.start && p.suspect.chars.end <= b.suspect.chars.end);
            assert!(p.source.chars.start >= b.source.chars.start && p.source.chars.end <= b.source.chars.end);
        }

        let source = format!("{EN_SOURCE_BEFORE}{EN_SOURCE_PASSAGE}{EN_SOURCE_AFTER}");
        let t = text_query(&source);
        let reworded = format!("{EN_SUSPECT_BEFORE}{EN_OBFUSCATED}{EN_SUSPECT_AFTER}");
        let found = align_pair(&text_query(&reworded), &t, &[], &AlignConfig::default());
        assert!(found.len() == 1 && found[0].evidence.sentences && !found[0].pairs.is_empty(), "{found:?}");
        let verbatim = format!("{EN_SUSPECT_BEFORE}{EN_SOURCE_PASSAGE}{EN_SUSPECT_AFTER}");
        let found = align_pair(&text_query(&verbatim), &t, &[], &AlignConfig::default());
        assert!(found.len() == 1 && !found[0].evidence.sentences && found[0].pairs.is_empty(), "{found:?}");
    }

    /// A copy is not a summary: a suspect that copies seven sentences of the lighthouse
    /// text word for word between two sentences condensing its beginning and its end is
    /// aligned with the copy (exact spans) and not taken whole for a summary of the source
    /// (`summary_copy_run`); without the rule the summary swallows the copy.
    #[test]
    fn a_summary_does_not_replace_a_copy() {
        let copy =
            &LONG_SOURCE[find(LONG_SOURCE, "The keepers lived").start..find(LONG_SOURCE, "for over a century.").end];
        let suspect = format!(
            "{EN_SUSPECT_BEFORE}Carrow Point got its lighthouse in 1852, when ships kept sinking on the reef; the granite \
             tower is forty metres high. {copy} The station was automated in 1987, the cottages became a museum, and \
             visitors climb the stair to see seals on the reef.{EN_SUSPECT_AFTER}"
        );
        let (q, t) = (text_query(&suspect), text_query(LONG_SOURCE));
        // Exact copies of whole sentences keep their spans: from the opening stop word
        // "The" to the full stop.
        let (in_suspect, in_source) = (find(&suspect, copy), find(LONG_SOURCE, copy));
        let found = align_pair(&q, &t, &[], &AlignConfig::default());
        let copied = found.iter().find(|b| b.suspect.bytes == in_suspect);
        let copied = copied.unwrap_or_else(|| panic!("{in_suspect:?} {found:?}"));
        assert!(copied.evidence.longest_run as usize >= AlignConfig::default().summary_copy_run, "{copied:?}");
        assert!(found.iter().all(|b| !b.evidence.summary), "{found:?}");
        assert_eq!(copied.source.bytes, in_source, "{found:?}");

        let off = align_pair(&q, &t, &[], &AlignConfig { summary_copy_run: 0, ..AlignConfig::default() });
        assert_eq!(off.len(), 1, "{off:?}");
        assert!(off[0].evidence.summary, "{off:?}");
        assert!(off[0].suspect.bytes.start < in_suspect.start && off[0].source.bytes.start < 10, "{off:?}");
        assert!(off[0].source.bytes.end + 10 > LONG_SOURCE.len(), "{off:?}");
    }

    /// Two sentences of the lighthouse text reworded (the rescue of 1911).
    const RESCUE: &str = "Thomas Hale, one of the keepers, saved eleven sailors from a steamer on fire in 1911. \
        Three times he rowed out through the heavy waves, and the king gave him a medal.";

    /// Bytes of the rescue's two sentences in `LONG_SOURCE`.
    fn rescue_in_source() -> tessera_normalize::Span {
        let start = find(LONG_SOURCE, "In 1911 a keeper named Thomas Hale").start;
        tessera_normalize::Span { start, end: find(LONG_SOURCE, "from the king.").end }
    }

    /// Token span of the bytes `b` of a query's text.
    fn tokens_of(q: &Query, b: tessera_normalize::Span) -> tessera_normalize::Span {
        let start = q.token_bytes.partition_point(|t| t.start < b.start);
        let end = q.token_bytes.partition_point(|t| t.start < b.end);
        tessera_normalize::Span { start, end }
    }

    /// A summary names rare things from all over its source; a reworded passage of one
    /// region names nothing the rest of the source holds alone.
    #[test]
    fn rare_terms_beyond_count_what_only_the_rest_of_the_source_names() {
        let t = text_query(LONG_SOURCE);
        let local = tokens_of(&t, rescue_in_source());
        assert!(local.end - local.start >= 15, "{local:?}");
        let config = AlignConfig::default();
        let beyond = |suspect: &str| {
            let q = text_query(suspect);
            let prepared = PreparedSuspect::new(&q, &config);
            let aligner = SentenceAligner::new(&q, &prepared, &t, &t.terms, &[], &config);
            let whole = |n| tessera_normalize::Span { start: 0, end: n };
            let p =
                Passage { s: whole(q.terms.len()), t: whole(t.terms.len()), matched: 0, score: 0.0, sentences: true };
            aligner.rare_terms_beyond(&p, local)
        };
        // 1852, granite, forty, metres, 1987, seals ... are named only outside the rescue.
        let summary = beyond(SUMMARY);
        assert!(summary >= 12, "{summary}");
        // "three" is in the first sentence too, but the rescue holds it: not beyond. Only
        // chance words are ("one" winter, hens "gave" milk): why the rule asks for several.
        let rescue = beyond(RESCUE);
        assert!(rescue <= 2 && rescue < config.summary_rare_beyond, "{rescue}");
    }

    /// A reworded passage of one region is not taken for a summary of the whole source
    /// when nothing it names lies beyond that region: the rescue, reworded and followed
    /// by a remark of one's own on the museum (topical words of the last sentences), is
    /// aligned with the rescue, not with everything from the rescue to the end. (The
    /// summary of the test above names things from everywhere and is still found whole.)
    #[test]
    fn a_reworded_region_is_not_a_summary_of_its_source() {
        let remark = "Today the lighthouse cottages are a museum about such rescues.";
        let suspect = format!("{EN_SUSPECT_BEFORE}{RESCUE} {remark}{EN_SUSPECT_AFTER}");
        let (q, t) = (text_query(&suspect), text_query(LONG_SOURCE));
        let rescue = rescue_in_source();
        let found = align_pair(&q, &t, &[], &AlignConfig::default());
        assert_eq!(found.len(), 1, "{found:?}");
        let b = &found[0].source.bytes;
        assert!(b.start >= rescue.start && b.end <= rescue.end, "{found:?}");
        // Without the rule, the remark's topical words make it a summary to the end.
        let off = align_pair(&q, &t, &[], &AlignConfig { summary_rare_beyond: 0, ..AlignConfig::default() });
        assert_eq!(off.len(), 1, "{off:?}");
        assert!(off[0].source.bytes.end + 10 > LONG_SOURCE.len(), "{off:?}");
    }

    /// A topical remark on the rescue, written apart from it: a ghost of the borrowing.
    const GHOST: &str = "Thomas Hale, the keeper, was remembered by the sailors of every steamer that passed. \
        The medal of the king and the heavy oars he rowed with are shown to visitors.";

    /// The contrast of a passage is how much better its suspect side matches its source
    /// side than any other stretch of the suspect does: high where the source region was
    /// borrowed, below 0 for a ghost paired with the same region when the borrowing is in
    /// the suspect too.
    #[test]
    fn contrast_is_how_much_better_a_passage_matches_where_it_was_taken() {
        let t = text_query(LONG_SOURCE);
        let region = tokens_of(&t, rescue_in_source());
        let contrast = |suspect: &str, part: &str| {
            let q = text_query(suspect);
            let config = AlignConfig::default();
            let prepared = PreparedSuspect::new(&q, &config);
            let aligner = SentenceAligner::new(&q, &prepared, &t, &t.terms, &[], &config);
            let p =
                Passage { s: tokens_of(&q, find(suspect, part)), t: region, matched: 0, score: 0.0, sentences: true };
            let cosine = SentenceAligner::cosine(
                &aligner.bag(&q.terms[p.s.start..p.s.end]),
                &aligner.bag(&t.terms[region.start..region.end]),
            );
            aligner.contrast(&p, cosine).expect("room for other stretches")
        };
        // Room for other stretches: an essay of its own around the borrowing.
        let own = format!("{EN_SUSPECT_BEFORE}{EN_SOURCE_PASSAGE}{EN_SUSPECT_AFTER}");
        let taken = contrast(&format!("{own} {RESCUE}"), RESCUE);
        assert!(taken > 0.3, "{taken}");
        let ghost = contrast(&format!("{GHOST} {own} {RESCUE}"), GHOST);
        assert!(ghost < 0.0, "{ghost}");
        // Alone, the ghost matches the region better than the rest of the essay does.
        let alone = contrast(&format!("{GHOST} {own}"), GHOST);
        assert!(alone > 0.0, "{alone}");
    }

    /// The stretches slid over the suspect (counts by term id, one scratch for every
    /// passage) give what bags of each stretch give, passage after passage.
    #[test]
    fn the_best_stretch_elsewhere_is_the_best_of_every_stretchs_bag() {
        let t = text_query(LONG_SOURCE);
        let suspect = format!("{GHOST} {EN_SUSPECT_BEFORE}{EN_SOURCE_PASSAGE}{EN_SUSPECT_AFTER} {RESCUE}");
        let q = text_query(&suspect);
        let config = AlignConfig::default();
        let prepared = PreparedSuspect::new(&q, &config);
        let aligner = SentenceAligner::new(&q, &prepared, &t, &t.terms, &[], &config);
        let n = q.terms.len();
        let mut checked = 0;
        for (s, region) in
            [(find(&suspect, RESCUE), rescue_in_source()), (find(&suspect, GHOST), rescue_in_source())]
                .into_iter()
                .chain((0..4).map(|k| {
                    (tessera_normalize::Span { start: 0, end: suspect.len() * (k + 1) / 6 }, rescue_in_source())
                }))
        {
            let (s, region) = (tokens_of(&q, s), tokens_of(&t, region));
            let fixed = aligner.bag(&t.terms[region.start..region.end]);
            let len = s.end - s.start;
            let naive = (0..=n - len)
                .step_by((len / 4).max(1))
                .filter(|&at| 4 * (at + len).min(s.end).saturating_sub(at.max(s.start)) <= len)
                .map(|at| SentenceAligner::cosine(&aligner.bag(&q.terms[at..at + len]), &fixed))
                .fold(None, |best: Option<f64>, c| Some(best.map_or(c, |b| b.max(c))));
            let slid = aligner.best_elsewhere(&fixed, s);
            match (slid, naive) {
                (Some(a), Some(b)) => assert!((a - b).abs() < 1e-9, "{s:?}: {a} against {b}"),
                other => assert_eq!(other.0.is_some(), other.1.is_some(), "{s:?}"),
            }
            checked += usize::from(naive.is_some_and(|b| b > 0.0));
        }
        assert!(checked >= 3, "{checked}");
    }

    /// End to end: the ghost, found as a passage of its own when the rule is off, is
    /// dropped by default; the borrowing stands; near copies are not asked.
    #[test]
    fn a_ghost_of_a_borrowing_is_dropped() {
        let suspect = format!("{GHOST} {EN_SUSPECT_BEFORE}{EN_SOURCE_PASSAGE}{EN_SUSPECT_AFTER} {RESCUE}");
        let (q, t) = (text_query(&suspect), text_query(LONG_SOURCE));
        let rescue = find(&suspect, RESCUE);
        let found = align_pair(&q, &t, &[], &AlignConfig::default());
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].suspect.bytes.start >= rescue.start, "{found:?}");
        // Without the rule, or with every passage taken for a near copy, the ghost is a
        // second passage on the same source region.
        for config in [
            AlignConfig { min_contrast: -1.0, ..AlignConfig::default() },
            AlignConfig { contrast_under_cosine: 0.0, ..AlignConfig::default() },
        ] {
            let found = align_pair(&q, &t, &[], &config);
            assert_eq!(found.len(), 2, "{found:?}");
            assert!(found[0].suspect.bytes.end <= GHOST.len() + 1, "{found:?}");
            assert_eq!(found[0].source, found[1].source, "{found:?}");
        }
    }
}
