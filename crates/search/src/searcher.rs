//! Stage 1 (candidate ranking) and stage 2 (the greedy revision), after seed 000.

use tessera_index::{CollectionKind, DocId, IndexReader};
use tessera_normalize::Span;

use crate::{Block, Error, PreparedSuspect, Query, Revision, SearchConfig, SourceMatch, align};

/// Searches collections for the sources of a suspect. Built once, reused.
#[derive(Debug, Clone, Default)]
pub struct Searcher {
    config: SearchConfig,
}

/// How far one collection's search has come, for progress bars on long suspects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchProgress {
    /// Candidate sources aligned so far (each one round of the greedy revision).
    pub aligned: usize,
    /// Candidates still sharing enough unexplained hashes to be aligned (it shrinks as
    /// aligned sources explain the suspect; the search ends when it reaches 0 or the
    /// round limit).
    pub left: usize,
}

/// One stage 1 candidate: a source and the distinct suspect hashes it shares.
#[derive(Debug)]
struct Candidate {
    doc: DocId,
    /// Indexes into the query's distinct hashes.
    shared: Vec<u32>,
    /// Shared hashes not yet explained by an earlier source.
    score: u32,
}

impl Searcher {
    /// A searcher with these settings.
    pub fn new(config: SearchConfig) -> Self {
        Self { config }
    }

    /// The settings.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Builds the revision of one collection for a suspect.
    ///
    /// Stage 1 reads the postings of every distinct suspect hash and ranks sources by
    /// the distinct hashes they share (hashes held by more than `max_postings_per_hash`
    /// documents are skipped). Stage 2 repeats, up to `max_rounds` times: take the best
    /// candidate, align it, mark the suspect shingles its blocks explain, take those
    /// hashes away from every other candidate, drop candidates left with fewer than
    /// the minimum, re-rank.
    ///
    /// A source whose snapshot has terms and sentences (segment format 2) is aligned with
    /// sentence seeding too, so obfuscated passages are found without its text; the
    /// minimum is then `text_min_shared_hashes` (obfuscation leaves few exact shingles),
    /// else `min_shared_hashes`. It is `text_min_shared_hashes` whenever the suspect has
    /// terms and sentences (what [`Query`]s from the engine have).
    pub fn search(&self, reader: &IndexReader, collection: &str, query: &Query) -> Result<Revision, Error> {
        self.run(reader, collection, query, None, &|_| {})
    }

    /// [`Searcher::search`] (or [`Searcher::search_with`] when `source_text` is given)
    /// telling `observe` how far it has come: once when the candidates are ranked, then
    /// after each candidate is aligned.
    pub fn search_observed(
        &self,
        reader: &IndexReader,
        collection: &str,
        query: &Query,
        source_text: Option<&mut dyn FnMut(DocId) -> Result<Option<Query>, Error>>,
        observe: &dyn Fn(SearchProgress),
    ) -> Result<Revision, Error> {
        self.run(reader, collection, query, source_text, observe)
    }

    /// [`Searcher::search`] for a collection whose texts are at hand: a candidate whose
    /// snapshot has no terms (segment format 1) is aligned with the text `source_text`
    /// gives for it (fingerprinted with terms and sentences, so that sentence seeding finds
    /// obfuscated passages; its snapshot when that gives `None`; an error stops the
    /// search).
    pub fn search_with(
        &self,
        reader: &IndexReader,
        collection: &str,
        query: &Query,
        source_text: &mut dyn FnMut(DocId) -> Result<Option<Query>, Error>,
    ) -> Result<Revision, Error> {
        self.run(reader, collection, query, Some(source_text), &|_| {})
    }

    fn run(
        &self,
        reader: &IndexReader,
        collection: &str,
        query: &Query,
        mut source_text: Option<&mut dyn FnMut(DocId) -> Result<Option<Query>, Error>>,
        observe: &dyn Fn(SearchProgress),
    ) -> Result<Revision, Error> {
        let min_shared = if query.has_sentences() || source_text.is_some() {
            self.config.text_min_shared_hashes
        } else {
            self.config.min_shared_hashes
        };
        // Snapshot terms are 32-bit; the suspect is cut the same way, once, when needed,
        // and prepared for sentence seeding once (full terms for sources from texts).
        let mut short_query: Option<(Query, PreparedSuspect)> = None;
        let mut full_prepared: Option<PreparedSuspect> = None;
        let coll = reader.collection(collection).ok_or_else(|| Error::UnknownCollection(collection.to_owned()))?;
        let kind = coll.config().kind;
        // Citation collections hold short expressions by design: no minimum length.
        let mut align_config = self.config.align.clone();
        if kind == CollectionKind::Citation {
            align_config.min_passage_chars = 0;
            align_config.min_passage_source_chars = 0;
            align_config.min_confidence = 0.0;
            align_config.min_shared_words = 0;
            align_config.min_contrast = -1.0;
        }
        let (distinct, positions_of) = distinct_hashes(&query.hashes);
        let mut hits: Vec<(u32, DocId)> = Vec::new();
        coll.lookup_sorted(&distinct, |i, doc| hits.push((i as u32, doc)))?;
        let mut candidates = self.rank(hits, distinct.len(), min_shared);

        // Per suspect shingle: explained by an earlier source of this revision.
        let mut explained_shingle = vec![false; query.hashes.len()];
        let mut explained_hash = vec![false; distinct.len()];
        let mut sources = Vec::new();
        observe(SearchProgress { aligned: 0, left: candidates.len() });
        for round in 0..self.config.max_rounds {
            let Some(best) = candidates.first() else { break };
            if best.score < min_shared {
                break;
            }
            let best = candidates.swap_remove(0);
            // The snapshot is read (and so verified) even when the text is used.
            let snapshot = reader.snapshot(best.doc)?;
            let from_snapshot = Query::from_snapshot(&snapshot, query.shingle_size);
            let (suspect, prepared, source) = if from_snapshot.has_sentences() && query.has_sentences() {
                let (short, prepared) = short_query.get_or_insert_with(|| {
                    let short = query.with_short_terms();
                    let prepared = PreparedSuspect::new(&short, &align_config);
                    (short, prepared)
                });
                (&*short, Some(&*prepared), from_snapshot)
            } else {
                let text = match source_text.as_mut() {
                    Some(f) => f(best.doc)?,
                    None => None,
                };
                let source = text.unwrap_or(from_snapshot);
                // Prepared only when this source can be aligned by sentences at all.
                let prepared = (source.has_sentences() && query.has_sentences())
                    .then(|| &*full_prepared.get_or_insert_with(|| PreparedSuspect::new(query, &align_config)));
                (query, prepared, source)
            };
            let mut blocks: Vec<Block> =
                align::align_prepared(suspect, prepared, &source, &explained_shingle, &align_config);
            if kind == CollectionKind::Source && !long_enough(&blocks, &self.config) {
                blocks.clear();
            }
            if !blocks.is_empty() {
                // A suspect shingle is explained by this source when it lies in one of its
                // blocks *and* the source holds it. The rest of a block (reworded words,
                // or text a block reached past its borrowing) stays open to later sources:
                // a verbatim passage of another source next to this one's is not hidden by
                // this one's block running into it (PAN 2013 collection-wide: 63 listed
                // cases were hidden that way; docs/quality.md).
                let mut held = source.hashes.clone();
                held.sort_unstable();
                for block in &blocks {
                    // Shingle i covers tokens i .. i + size, so the block's shingles are
                    // first ..= end - size (one shingle when the text is shorter).
                    let first = block.suspect_tokens.start;
                    let last = block.suspect_tokens.end.saturating_sub(query.shingle_size).max(first);
                    let end = (last + 1).min(explained_shingle.len());
                    let start = first.min(end);
                    for (explained, h) in explained_shingle[start..end].iter_mut().zip(&query.hashes[start..end]) {
                        if held.binary_search(h).is_ok() {
                            *explained = true;
                        }
                    }
                }
                for (h, positions) in positions_of.iter().enumerate() {
                    if !explained_hash[h] && positions.iter().all(|&p| explained_shingle[p as usize]) {
                        explained_hash[h] = true;
                    }
                }
                sources.push(SourceMatch { doc: best.doc, shared_hashes: best.score, blocks });
            }
            for c in &mut candidates {
                c.score = c.shared.iter().filter(|&&h| !explained_hash[h as usize]).count() as u32;
            }
            candidates.retain(|c| c.score >= min_shared);
            sort_candidates(&mut candidates);
            observe(SearchProgress { aligned: round + 1, left: candidates.len() });
        }
        Ok(Revision { collection: collection.to_owned(), kind, sources })
    }

    /// Aligns a suspect with one given source (the PAN pairwise task): the alignment
    /// `search` runs on each candidate, with the same minimum source coverage as a
    /// collection of kind `source`.
    pub fn align_pair(&self, suspect: &Query, source: &Query) -> Vec<Block> {
        let blocks = align::align_pair(suspect, source, &[], &self.config.align);
        if long_enough(&blocks, &self.config) { blocks } else { Vec::new() }
    }

    /// Stage 1: group hits by document, skipping too frequent hashes; keep the best
    /// `max_candidates`, best first.
    fn rank(&self, mut hits: Vec<(u32, DocId)>, distinct: usize, min_shared: u32) -> Vec<Candidate> {
        let mut df = vec![0u32; distinct];
        for &(h, _) in &hits {
            df[h as usize] += 1;
        }
        let max_df = u32::try_from(self.config.max_postings_per_hash).unwrap_or(u32::MAX);
        hits.retain(|&(h, _)| df[h as usize] <= max_df);
        hits.sort_unstable_by_key(|&(h, doc)| (doc, h));
        hits.dedup();
        let mut candidates: Vec<Candidate> = Vec::new();
        for (h, doc) in hits {
            match candidates.last_mut() {
                Some(c) if c.doc == doc => c.shared.push(h),
                _ => candidates.push(Candidate { doc, shared: vec![h], score: 0 }),
            }
        }
        for c in &mut candidates {
            c.score = c.shared.len() as u32;
        }
        candidates.retain(|c| c.score >= min_shared);
        sort_candidates(&mut candidates);
        candidates.truncate(self.config.max_candidates);
        candidates
    }
}

/// Suspect characters covered by blocks sorted by suspect start (overlaps counted once).
/// Whether a source's blocks are long enough to report on both sides.
fn long_enough(blocks: &[Block], config: &SearchConfig) -> bool {
    covered_chars(blocks) >= config.min_source_chars
        && union_len(blocks.iter().map(|b| b.source.chars).collect()) >= config.min_source_side_chars
}

/// Suspect characters that `blocks` cover, each counted once.
pub fn covered_chars(blocks: &[Block]) -> usize {
    union_len(blocks.iter().map(|b| b.suspect.chars).collect())
}

/// Length of the union of `spans`.
fn union_len(mut spans: Vec<Span>) -> usize {
    spans.sort_unstable_by_key(|s| (s.start, s.end));
    let (mut total, mut end) = (0, 0);
    for r in spans {
        let start = r.start.max(end);
        if r.end > start {
            total += r.end - start;
            end = r.end;
        }
    }
    total
}

/// Best first; ties go to the older document, so results never depend on hit order.
fn sort_candidates(candidates: &mut [Candidate]) {
    candidates.sort_unstable_by(|a, b| b.score.cmp(&a.score).then(a.doc.cmp(&b.doc)));
}

/// The distinct hashes of a sequence, sorted, with the positions where each occurs.
fn distinct_hashes(hashes: &[u64]) -> (Vec<u64>, Vec<Vec<u32>>) {
    let mut order: Vec<(u64, u32)> = hashes.iter().enumerate().map(|(i, &h)| (h, i as u32)).collect();
    order.sort_unstable();
    let mut distinct: Vec<u64> = Vec::new();
    let mut positions: Vec<Vec<u32>> = Vec::new();
    for (h, i) in order {
        if distinct.last() != Some(&h) {
            distinct.push(h);
            positions.push(Vec::new());
        }
        if let Some(p) = positions.last_mut() {
            p.push(i);
        }
    }
    (distinct, positions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_hashes_keep_all_positions() {
        let (d, p) = distinct_hashes(&[5, 3, 5, 9]);
        assert_eq!(d, vec![3, 5, 9]);
        assert_eq!(p, vec![vec![1], vec![0, 2], vec![3]]);
    }
}
