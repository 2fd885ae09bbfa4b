//! Step 3, clustering and extension: seeds clustered by sentence gaps, each cluster
//! validated (or clustered again with smaller gaps) and grown into a passage.

use foldhash::HashSet;
use tessera_normalize::Span;

use super::sentences::Sentences;
use super::{Passage, Seed, SentenceAligner};

impl SentenceAligner<'_> {
    /// Clusters seeds with the given gaps (in sentences) and validates every cluster,
    /// clustering a failing one again with smaller gaps.
    pub(super) fn extend(
        &self,
        seeds: Vec<Seed>,
        s_gap: usize,
        t_gap: usize,
        validation: f64,
        split: bool,
    ) -> Vec<Passage> {
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
            // The smallest ranges holding the cluster's seeds.
            let hull = |side: fn(&Seed) -> Span| Span {
                start: cluster.iter().map(|x| side(x).start).min().unwrap_or(0),
                end: cluster.iter().map(|x| side(x).end).max().unwrap_or(0),
            };
            let (s, t) = (hull(|x| x.s), hull(|x| x.t));
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
    pub(super) fn grow_with(
        &self,
        mut s: Span,
        mut t: Span,
        grow_share: f64,
        steps: usize,
        sides: &[bool],
    ) -> (Span, Span) {
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
            let hits = count_shared(&a, &b);
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

    /// A summary condenses its source from beginning to end: the source side of a summary
    /// passage that leaves fewer tokens before (after) it than `summary_edge_share` of its
    /// own length starts at the source's first token (ends at its last).
    pub(super) fn summary_to_edges(&self, mut t: Span) -> Span {
        let share = self.config.summary_edge_share;
        let n = self.t_terms.len();
        if share <= 0.0 || t.start >= t.end || t.end > n {
            return t;
        }
        let len = (t.end - t.start) as f64;
        if (t.start as f64) < share * len {
            t.start = 0;
        }
        if ((n - t.end) as f64) < share * len {
            t.end = n;
        }
        t
    }

    /// Rare terms (`is_rare`: in at most 2 sentences of each text) of a
    /// summary passage's suspect side that its source side holds only outside `local`,
    /// the source side of the one passage it would replace. A summary condenses the whole
    /// of its source, so it names things from beyond any one region; a reworded passage
    /// of one region, grown over a topical neighbourhood, shares only its topic's words
    /// with the rest.
    pub(super) fn rare_terms_beyond(&self, p: &Passage, local: Span) -> usize {
        let suspect: HashSet<u64> =
            self.suspect.terms[p.s.start..p.s.end].iter().copied().filter(|&term| self.is_rare(term)).collect();
        let (mut inside, mut outside) = (HashSet::default(), HashSet::default());
        for j in p.t.start..p.t.end {
            let term = self.t_terms[j];
            if suspect.contains(&term) {
                let side = if (local.start..local.end).contains(&j) { &mut inside } else { &mut outside };
                side.insert(term);
            }
        }
        outside.difference(&inside).count()
    }

    /// Distinct terms the two sides of a seed share.
    fn shared_terms(&self, x: &Seed) -> usize {
        let b = distinct(&self.t_terms[x.t.start..x.t.end]);
        count_shared(&distinct(&self.suspect.terms[x.s.start..x.s.end]), &b)
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

/// How many terms of `a` the sorted `b` holds.
fn count_shared(a: &[u64], b: &[u64]) -> usize {
    a.iter().filter(|x| b.binary_search(x).is_ok()).count()
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

#[cfg(test)]
mod tests {
    use tessera_normalize::Span;

    use super::super::fixtures::*;
    use super::super::prepared::PreparedSuspect;
    use super::*;
    use crate::{AlignConfig, align_pair};

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

    /// Two reworded passages of one source with four long sentences of one's own between
    /// them (over `min_gap_terms` terms; within `max_sentence_gap` sentences) are two
    /// blocks, each on its own evidence; without the split they are one block claiming
    /// the own text as well.
    #[test]
    fn a_long_stretch_of_own_text_splits_a_passage() {
        let own = "During the long winter holidays I visited my grandmother, who lived alone in a wooden \
            house beside the railway station and baked enormous apple pies for every visitor. Her neighbours \
            gathered in the kitchen to play cards, drink strong black tea, argue loudly about football results, \
            and complain about rising electricity prices and broken street lamps. My cousins preferred skating \
            on the frozen pond behind the cemetery, building snow fortresses, throwing snowballs at passing \
            cars, and hiding from the strict village policeman. Those memories inspired my short stories, \
            amateur photographs, a handmade calendar and countless drawings of smoking chimneys under violet \
            evening skies. ";
        let suspect = format!("{EN_REWORDED} {own}{EN_OBFUSCATED}");
        let source = format!("{EN_REWORDED_SOURCE} {EN_SOURCE_BEFORE}{EN_SOURCE_PASSAGE}");
        let (q, t) = (text_query(&suspect), text_query(&source));
        let own_span = find(&suspect, own.trim_end());
        let split = align_pair(&q, &t, &[], &AlignConfig::default());
        assert_eq!(split.len(), 2, "{split:?}");
        assert!(split[0].suspect.bytes.end <= own_span.start, "{split:?}");
        assert!(split[1].suspect.bytes.start >= own_span.end, "{split:?}");
        assert!(split[0].source.bytes.end <= find(&source, EN_SOURCE_BEFORE).start, "{split:?}");
        let joined = align_pair(&q, &t, &[], &AlignConfig { gap_cosine: 0.0, ..AlignConfig::default() });
        assert_eq!(joined.len(), 1, "{joined:?}");
        assert!(joined[0].suspect.bytes.start < own_span.start && joined[0].suspect.bytes.end > own_span.end);
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

    #[test]
    fn verbatim_copy_keeps_exact_spans_with_sentences() {
        let source = format!("{EN_SOURCE_BEFORE}{EN_SOURCE_PASSAGE}{EN_SOURCE_AFTER}");
        // Copied from the middle of a sentence to the middle of another one.
        let copied = "trucks drive across the frozen surface to reach the northern villages. \
        Every spring the melting ice blocks the narrow channels and floods the low meadows. Farmers move their cattle";
        let suspect = format!("{EN_SUSPECT_BEFORE}{copied}.{EN_SUSPECT_AFTER}");
        let blocks = align_pair(&text_query(&suspect), &text_query(&source), &[], &AlignConfig::default());
        assert_eq!(blocks.len(), 1, "{blocks:?}");
        // The suspect's sentence ends with the copy: its full stop is taken in; the
        // source's goes on.
        let in_suspect = find(&suspect, copied);
        assert_eq!(blocks[0].suspect.bytes, Span { end: in_suspect.end + 1, ..in_suspect });
        assert_eq!(blocks[0].source.bytes, find(&source, copied));
    }
}
