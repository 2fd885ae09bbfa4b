//! Stage 1: the documents sharing a suspect's hashes, grouped into candidates and
//! ranked by the hashes they really hold (the look-ups' truncated keys checked against
//! the candidates' snapshots), the best `max_candidates` kept for stage 2
//! ([`crate::searcher`]).

use tessera_core::DocId;

use crate::sources::Sources;
use crate::{Error, Query};

/// One stage 1 candidate: a source and the distinct suspect hashes it shares.
#[derive(Debug)]
pub(crate) struct Candidate {
    pub(crate) doc: DocId,
    /// Indexes into the looked-up hashes ([`Lookups`]).
    pub(crate) shared: Vec<u32>,
    /// Shared shingles of the suspect's own not yet explained by an earlier source.
    pub(crate) score: u32,
    /// ... and shared variant shingles (the suspect's with one edit undone) not yet
    /// explained: they rank a source only after its own shingles.
    pub(crate) variant_score: u32,
}

impl Candidate {
    /// Unexplained shared hashes of both kinds (what `min_shared` is measured on).
    pub(crate) fn total(&self) -> u32 {
        self.score + self.variant_score
    }

    /// Counts the shared hashes by kind (before any is explained: the revision then
    /// takes explained ones away as it goes).
    pub(crate) fn count_shared(&mut self, lookups: &Lookups) {
        let own = to_u32(self.shared.iter().filter(|&&h| lookups.own[h as usize]).count());
        (self.score, self.variant_score) = (own, to_u32(self.shared.len()) - own);
    }
}

/// The hashes stage 1 looks up for a suspect: its distinct shingle hashes and, with
/// variant look-ups, its distinct variant shingles, sorted together; each with the suspect
/// shingles it stands for (where it occurs, or the shingles a variant shingle varies).
pub(crate) struct Lookups {
    pub(crate) hashes: Vec<u64>,
    /// `positions[starts[h] .. starts[h + 1]]` are the shingles hash `h` stands for (one
    /// flat list: a variant shingle varies one shingle, and a text has many of them).
    starts: Vec<u32>,
    positions: Vec<u32>,
    /// Whether each hash is one of the suspect's own shingles (else only a variant
    /// shingle).
    pub(crate) own: Vec<bool>,
}

impl Lookups {
    pub(crate) fn new(query: &Query, variants: bool) -> Self {
        let mut all: Vec<(u64, u32, bool)> =
            query.hashes.iter().enumerate().map(|(i, &h)| (h, to_u32(i), true)).collect();
        if variants {
            all.extend(query.variant_shingles.iter().map(|v| (v.hash, v.shingle, false)));
        }
        all.sort_unstable();
        let mut lookups = Self { hashes: Vec::new(), starts: Vec::new(), positions: Vec::new(), own: Vec::new() };
        for group in all.chunk_by(|a, b| a.0 == b.0) {
            // A hash that is one of the suspect's own shingles stands for where it occurs
            // (explained as before), even if it also varies another shingle.
            let own = group.iter().any(|&(_, _, own)| own);
            lookups.hashes.push(group[0].0);
            lookups.starts.push(to_u32(lookups.positions.len()));
            lookups.own.push(own);
            let start = lookups.positions.len();
            for &(_, i, is_own) in group {
                if (is_own || !own) && lookups.positions[start..].last() != Some(&i) {
                    lookups.positions.push(i);
                }
            }
        }
        lookups.starts.push(to_u32(lookups.positions.len()));
        lookups
    }

    /// The suspect shingles hash `h` stands for.
    pub(crate) fn positions(&self, h: usize) -> &[u32] {
        &self.positions[self.starts[h] as usize..self.starts[h + 1] as usize]
    }
}

pub(crate) fn to_u32(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// Stage 1: group hits (too frequent hashes already left out by the look-up) by
/// document; keep the best `max_candidates` by the hashes they really share
/// ([`verified_best`]), best first.
pub(crate) fn rank(
    sources: &dyn Sources,
    mut hits: Vec<(u32, DocId)>,
    lookups: &Lookups,
    min_shared: u32,
    max_candidates: usize,
) -> Result<Vec<Candidate>, Error> {
    hits.sort_unstable_by_key(|&(h, doc)| (doc, h));
    hits.dedup();
    let mut candidates: Vec<Candidate> = Vec::new();
    for (h, doc) in hits {
        match candidates.last_mut() {
            Some(c) if c.doc == doc => c.shared.push(h),
            _ => candidates.push(Candidate { doc, shared: vec![h], score: 0, variant_score: 0 }),
        }
    }
    for c in &mut candidates {
        c.count_shared(lookups);
    }
    candidates.retain(|c| c.total() >= min_shared);
    sort_candidates(&mut candidates);
    verified_best(sources, lookups, candidates, min_shared, max_candidates)
}

/// Candidates checked at first beyond the `max` kept: a few lose a false key match.
const VERIFY_SLACK: usize = 16;

/// The best `max` of `candidates` (sorted by their hits) by the hashes they really share,
/// best first. A look-up finds a document by a hash's key, which each segment truncates
/// to its size (`tessera_index` postings: a false match per absent look-up is at most
/// 2^-12 per segment), so hits alone would rank candidates differently as documents fall
/// into other segments or shards, and the report with them. A candidate can only lose
/// hashes to the check ([`Sources::holds_hashes`]), never rank better than its hits
/// rank it: the candidates are checked best first, in batches, until `max` checked ones
/// rank before every one not checked.
fn verified_best(
    sources: &dyn Sources,
    lookups: &Lookups,
    candidates: Vec<Candidate>,
    min_shared: u32,
    max: usize,
) -> Result<Vec<Candidate>, Error> {
    let mut kept: Vec<Candidate> = Vec::new();
    if max == 0 {
        return Ok(kept);
    }
    let mut rest = candidates.into_iter().peekable();
    let mut batch = max.saturating_add(VERIFY_SLACK);
    loop {
        let next: Vec<Candidate> = rest.by_ref().take(batch).collect();
        if next.is_empty() {
            break;
        }
        let asked: Vec<(DocId, Vec<u64>)> =
            next.iter().map(|c| (c.doc, c.shared.iter().map(|&h| lookups.hashes[h as usize]).collect())).collect();
        let held = sources.holds_hashes(&asked)?;
        if held.len() != asked.len() || held.iter().zip(&asked).any(|(h, (_, a))| h.len() != a.len()) {
            return Err(Error::Sources("the collection answered for other hashes than asked".to_owned()));
        }
        for (mut c, held) in next.into_iter().zip(held) {
            let mut held = held.into_iter();
            c.shared.retain(|_| held.next().unwrap_or(false));
            c.count_shared(lookups);
            if c.total() >= min_shared {
                kept.push(c);
            }
        }
        sort_candidates(&mut kept);
        kept.truncate(max);
        match rest.peek() {
            Some(unchecked) if kept.len() < max || rank_order(&kept[max - 1], unchecked).is_gt() => {
                batch = VERIFY_SLACK.max(max - kept.len());
            }
            _ => break,
        }
    }
    Ok(kept)
}

/// Best first; ties go to the older document, so results never depend on hit order.
fn sort_candidates(candidates: &mut [Candidate]) {
    candidates.sort_unstable_by(rank_order);
}

/// The order of [`sort_candidates`]. Variant shingles add candidates without reordering
/// the ones the suspect's own shingles rank: they decide only among sources sharing none
/// of those.
pub(crate) fn rank_order(a: &Candidate, b: &Candidate) -> std::cmp::Ordering {
    let variants_only = |c: &Candidate| if c.score == 0 { c.variant_score } else { 0 };
    b.score.cmp(&a.score).then(variants_only(b).cmp(&variants_only(a))).then(a.doc.cmp(&b.doc))
}

/// The index of the best candidate still `alive`, in the order of [`sort_candidates`].
pub(crate) fn best_candidate(candidates: &[Candidate], alive: &[bool]) -> Option<usize> {
    (0..candidates.len()).filter(|&c| alive[c]).min_by(|&a, &b| rank_order(&candidates[a], &candidates[b]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_core::CollectionKind;

    #[test]
    fn lookups_hold_every_distinct_hash_with_its_shingles() {
        use tessera_fingerprint::VariantShingle;
        let query = Query {
            hashes: vec![5, 3, 5, 9],
            // 7 varies shingles 1 and 2; 9 is also a variant shingle of shingle 0, but as
            // one of the text's own it stands for where it occurs.
            variant_shingles: vec![
                VariantShingle { hash: 7, shingle: 1 },
                VariantShingle { hash: 7, shingle: 2 },
                VariantShingle { hash: 9, shingle: 0 },
            ],
            ..Query::default()
        };
        let own = Lookups::new(&query, false);
        assert_eq!(own.hashes, vec![3, 5, 9]);
        let positions = |l: &Lookups| (0..l.hashes.len()).map(|h| l.positions(h).to_vec()).collect::<Vec<_>>();
        assert_eq!(positions(&own), vec![vec![1], vec![0, 2], vec![3]]);
        assert_eq!(own.own, vec![true, true, true]);
        let all = Lookups::new(&query, true);
        assert_eq!(all.hashes, vec![3, 5, 7, 9]);
        assert_eq!(positions(&all), vec![vec![1], vec![0, 2], vec![1, 2], vec![3]]);
        assert_eq!(all.own, vec![true, true, false, true]);
    }

    /// Documents as snapshots of hashes; `asked` counts the documents checked.
    struct Held {
        docs: Vec<Vec<u64>>,
        config: tessera_core::CollectionConfig,
        asked: std::sync::Mutex<usize>,
    }

    impl Sources for Held {
        fn config(&self) -> &tessera_core::CollectionConfig {
            &self.config
        }
        fn doc_count(&self) -> u64 {
            self.docs.len() as u64
        }
        fn lookup_hashes(&self, _: &[u64], _: usize, _: &mut dyn FnMut(usize, DocId)) -> Result<(), Error> {
            unreachable!("the test gives the hits")
        }
        fn lookup_terms(&self, _: &[u32], _: usize, _: &mut dyn FnMut(usize, DocId)) -> Result<(), Error> {
            unreachable!("the test gives the hits")
        }
        fn snapshot(&self, doc: DocId) -> Result<tessera_index::Snapshot, Error> {
            *self.asked.lock().unwrap() += 1;
            Ok(tessera_index::Snapshot { hashes: self.docs[doc.0 as usize].clone(), ..Default::default() })
        }
        fn char_len(&self, _: DocId) -> Result<u64, Error> {
            Ok(0)
        }
    }

    fn config() -> tessera_core::CollectionConfig {
        tessera_core::CollectionConfig { name: "sources".to_owned(), kind: CollectionKind::Source, keep_texts: false }
    }

    #[test]
    fn candidates_rank_by_the_hashes_they_really_hold() {
        let query = Query { hashes: vec![10, 20, 30, 40], ..Query::default() };
        let lookups = Lookups::new(&query, false);
        // Doc 0 holds 10 and 20; doc 1 holds 10, 20, 30 by its keys but only 10 really
        // (two false key matches); doc 2 holds 40; doc 3 holds 30 and 40.
        let docs = vec![vec![10, 20, 1], vec![10, 2, 3], vec![40], vec![30, 40, 4]];
        let sources = Held { docs, config: config(), asked: Default::default() };
        let hits: Vec<(u32, DocId)> = [(0, 0), (1, 0), (0, 1), (1, 1), (2, 1), (3, 2), (2, 3), (3, 3)]
            .into_iter()
            .map(|(h, d)| (h, DocId(d)))
            .collect();
        let ranked = |min_shared, max| {
            let c = rank(&sources, hits.clone(), &lookups, min_shared, max).unwrap();
            c.iter().map(|c| (c.doc.0, c.score)).collect::<Vec<_>>()
        };
        // By hits alone doc 1 would rank first with 3.
        assert_eq!(ranked(1, 10), vec![(0, 2), (3, 2), (1, 1), (2, 1)]);
        assert_eq!(ranked(2, 10), vec![(0, 2), (3, 2)]);
        // The best two are known once doc 1's check leaves it behind the checked ones.
        assert_eq!(ranked(1, 2), vec![(0, 2), (3, 2)]);
        assert_eq!(ranked(1, 0), vec![]);
        // The shared hashes left are the real ones (stage 2 counts on them).
        let c = rank(&sources, hits.clone(), &lookups, 1, 10).unwrap();
        assert_eq!(c[2].shared, vec![0]);
    }

    #[test]
    fn only_the_candidates_that_may_rank_are_checked() {
        // 40 documents, doc d holding the first 40 - d hashes: checked best first, the
        // best 5 are known after the first batch (5 + VERIFY_SLACK).
        let query = Query { hashes: (1..=40).collect(), ..Query::default() };
        let lookups = Lookups::new(&query, false);
        let docs: Vec<Vec<u64>> = (0..40u64).map(|d| (1..=40 - d).collect()).collect();
        let hits: Vec<(u32, DocId)> = (0..40u64).flat_map(|d| (0..40 - d as u32).map(move |h| (h, DocId(d)))).collect();
        let sources = Held { docs, config: config(), asked: Default::default() };
        let ranked = rank(&sources, hits.clone(), &lookups, 1, 5).unwrap();
        assert_eq!(ranked.iter().map(|c| c.doc.0).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
        assert_eq!(*sources.asked.lock().unwrap(), 5 + VERIFY_SLACK);
        // When the checked ones lose hashes, more are checked until the best are known.
        let mut docs: Vec<Vec<u64>> = (0..40u64).map(|d| (1..=40 - d).collect()).collect();
        for d in docs.iter_mut().take(30) {
            d.truncate(1);
        }
        let sources = Held { docs, config: config(), asked: Default::default() };
        let ranked = rank(&sources, hits, &lookups, 1, 5).unwrap();
        assert_eq!(
            ranked.iter().map(|c| (c.doc.0, c.score)).collect::<Vec<_>>(),
            [(30, 10), (31, 9), (32, 8), (33, 7), (34, 6)]
        );
        assert_eq!(*sources.asked.lock().unwrap(), 5 + VERIFY_SLACK + VERIFY_SLACK);
    }
}
