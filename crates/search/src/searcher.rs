//! A collection's search: stage 1 ([`crate::stage1`]: the ranked candidates) then stage 2,
//! the greedy revision, after seed 000.

use tessera_core::{CollectionKind, DocId};
use tessera_index::IndexReader;
use tessera_normalize::Span;

use std::borrow::Cow;

use crate::parts::{SuspectForms, SuspectParts};
use crate::sources::{IndexCollection, Sources};
use crate::stage1::{Candidate, Lookups, best_candidate, rank_order, to_u32};
use crate::{AlignConfig, Block, Error, Query, Revision, SearchConfig, SourceMatch, align};

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
    /// documents are skipped). When the suspect's terms and sentences are known, it also
    /// reads the postings of the variant shingles the query carries
    /// ([`Query::variant_shingles`]: a shingle with one word swapped for a WordNet synonym,
    /// one word dropped or two swapped; the engine makes the kinds `synonym_lookups` and
    /// `edit_lookups` ask for); they count towards the minimum,
    /// but only order the sources that share none of the suspect's own shingles, after
    /// those that do. Stage 2 repeats, up to `max_rounds` times (more for a long suspect:
    /// [`SearchConfig::rounds_for`]): take the best
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

    /// One collection's revision: stage 1 ranks the candidates ([`Searcher::stage1`]);
    /// each round of stage 2 takes the best one still in the race ([`Rounds`]), aligns it
    /// and settles what its source explains ([`Searcher::settle`]).
    fn run(
        &self,
        reader: &IndexReader,
        collection: &str,
        query: &Query,
        source_text: Option<&mut dyn FnMut(DocId) -> Result<Option<Query>, Error>>,
        observe: &dyn Fn(SearchProgress),
    ) -> Result<Revision, Error> {
        self.search_sources(&IndexCollection::new(reader, collection)?, query, source_text, observe)
    }

    /// [`Searcher::search_observed`] on a collection however it is read ([`Sources`]: an
    /// open index's, or the engine's view of the shards of one): the same search.
    pub fn search_sources(
        &self,
        sources: &dyn Sources,
        query: &Query,
        source_text: Option<&mut dyn FnMut(DocId) -> Result<Option<Query>, Error>>,
        observe: &dyn Fn(SearchProgress),
    ) -> Result<Revision, Error> {
        let min_shared = self.min_shared(query, source_text.is_some());
        let collection = sources.config().name.as_str();
        let kind = sources.config().kind;
        let mut aligner = CandidateAligner {
            sources,
            query,
            source_text,
            whole: SuspectForms::default(),
            parts: SuspectParts::plan(query, self.config.part_tokens),
            config: self.align_config(kind),
            kind,
            search: &self.config,
        };
        let (max_rounds, max_candidates) = self.config.rounds_for(query.hashes.len());
        let (lookups, candidates) = self.stage1(sources, query, min_shared, max_candidates)?;
        let first: Vec<DocId> = candidates.iter().take(PREFETCH_CANDIDATES).map(|c| c.doc).collect();
        sources.prefetch(&first);
        // What was asked for: a round whose candidate was not asks for the next best
        // together, so sources far away are read in a few calls, not one per round.
        let mut prefetched: std::collections::HashSet<DocId> = first.into_iter().collect();
        let mut rounds = Rounds::new(lookups, candidates, query.hashes.len(), min_shared, self.config.max_copies > 0);
        let mut found = Vec::new();
        // Copies of the revision's sources, aligned on the passages their source explained.
        // They come after every source, so the revision's order is the greedy one.
        let mut copies = Vec::new();
        observe(SearchProgress { aligned: 0, left: rounds.left });
        for round in 0..max_rounds {
            let Some(at) = rounds.take_best() else { break };
            if !prefetched.contains(&rounds.candidates[at].doc) {
                let mut next = vec![rounds.candidates[at].doc];
                next.extend(rounds.best_alive(PREFETCH_CANDIDATES - 1));
                sources.prefetch(&next);
                prefetched.extend(next);
            }
            let (blocks, held) =
                aligner.align(rounds.candidates[at].doc, &rounds.explained_shingle, rounds.near(at))?;
            if !blocks.is_empty() {
                found.push(self.settle(&mut rounds, &mut aligner, at, blocks, held, &mut copies)?);
            }
            observe(SearchProgress { aligned: round + 1, left: rounds.left });
        }
        found.extend(copies);
        if query.cross.is_some() {
            let translated =
                crate::translated::translated_sources(sources, query, &found, &self.config, &self.align_config(kind))?;
            found.extend(translated);
        }
        Ok(Revision { collection: collection.to_owned(), kind, sources: found })
    }

    /// The fewest shared hashes a candidate needs: `text_min_shared_hashes` when sentence
    /// seeding is possible (the suspect has sentences, or the sources' texts are at hand),
    /// else `min_shared_hashes`.
    fn min_shared(&self, query: &Query, source_texts: bool) -> u32 {
        if query.has_sentences() || source_texts {
            self.config.text_min_shared_hashes
        } else {
            self.config.min_shared_hashes
        }
    }

    /// The alignment settings for a collection of `kind`.
    fn align_config(&self, kind: CollectionKind) -> AlignConfig {
        let mut align_config = self.config.align.clone();
        // Citation collections hold short expressions by design: no minimum length.
        if kind == CollectionKind::Citation {
            align_config.min_passage_chars = 0;
            align_config.min_passage_source_chars = 0;
            align_config.min_confidence = 0.0;
            align_config.min_shared_words = 0;
            align_config.min_contrast = -1.0;
        }
        align_config
    }

    /// Stage 1: the suspect's hashes (and, when its sentences are known, its variant
    /// shingles) looked up in the collection, and the candidates sharing at least
    /// `min_shared` of them, ranked ([`Searcher::rank`]).
    fn stage1(
        &self,
        sources: &dyn Sources,
        query: &Query,
        min_shared: u32,
        max_candidates: usize,
    ) -> Result<(Lookups, Vec<Candidate>), Error> {
        // Variant shingles only help where sentence seeding can align what they find.
        let lookups = Lookups::new(query, query.has_sentences());
        let mut hits: Vec<(u32, DocId)> = Vec::new();
        // A hash held by more than `max_postings_per_hash` documents ranks nothing: the
        // look-up leaves it out without gathering its documents.
        sources.lookup_hashes(&lookups.hashes, self.config.max_postings_per_hash, &mut |i, doc| {
            hits.push((i as u32, doc));
        })?;
        let candidates = crate::stage1::rank(sources, hits, &lookups, min_shared, max_candidates)?;
        Ok((lookups, candidates))
    }

    /// The rest of a stage 2 round whose candidate `at` was aligned into `blocks` (not
    /// empty; `held`: its source's shingle hashes): the suspect shingles and hashes its
    /// source explains are taken away from the other candidates, the copies of the source
    /// (with `max_copies`) are aligned on its passages and added to `copies`, and the
    /// candidates left with fewer than the minimum drop out. Gives the source's match.
    fn settle(
        &self,
        rounds: &mut Rounds,
        aligner: &mut CandidateAligner<'_, '_>,
        at: usize,
        blocks: Vec<Block>,
        mut held: Vec<u64>,
        copies: &mut Vec<SourceMatch>,
    ) -> Result<SourceMatch, Error> {
        let query = aligner.query;
        let (doc, chosen_score) = (rounds.candidates[at].doc, rounds.candidates[at].score);
        held.sort_unstable();
        // A suspect shingle is explained by this source when it lies in one of its
        // blocks *and* the source holds it, or one of its variants. The rest of a
        // block (reworded words, or text a block reached past its borrowing) stays
        // open to later sources: a verbatim passage of another source next to this
        // one's is not hidden by this one's block running into it (PAN 2013
        // collection-wide: 63 listed cases were hidden that way; docs/quality.md).
        let ranges = shingle_ranges(&blocks, query.shingle_size, rounds.explained_shingle.len());
        // What a copy of this source may align: the shingles of these blocks as
        // they were before this source explained them (only those are kept: a
        // copy of the whole suspect's marks each round would cost a long suspect
        // its length in every round).
        let before = (self.config.max_copies > 0).then(|| marks_in(&rounds.explained_shingle, &ranges));
        let flipped = rounds.explain_shingles(at, &ranges, &held, &query.hashes);
        let newly = rounds.explain_hashes(&flipped);
        if let Some(before) = before {
            let copies_of = rounds.copies_of(at, &newly, self.config.max_copies);
            let skip = if copies_of.is_empty() {
                Vec::new()
            } else {
                outside_ranges(rounds.explained_shingle.len(), &ranges, &before)
            };
            copies.extend(self.align_copies(aligner, doc, copies_of, &ranges, &skip, &blocks)?);
        }
        rounds.drop_weak();
        Ok(SourceMatch { doc, shared_hashes: chosen_score, blocks, copy_of: None })
    }

    /// Aligns the copies of source `of` (`copies_of`, each with the hashes it lost to
    /// `of`) on the passages `ranges` of its `blocks` only (`skip`: everything else, and
    /// what was explained there before `of`), and gives those whose blocks
    /// about the passages are long enough, as matches.
    fn align_copies(
        &self,
        aligner: &mut CandidateAligner<'_, '_>,
        of: DocId,
        copies_of: Vec<(DocId, u32)>,
        ranges: &[(usize, usize)],
        skip: &[bool],
        blocks: &[Block],
    ) -> Result<Vec<SourceMatch>, Error> {
        let mut copies = Vec::new();
        aligner.sources.prefetch(&copies_of.iter().map(|&(doc, _)| doc).collect::<Vec<_>>());
        for (doc, lost) in copies_of {
            // A copy is aligned on the source's passages only.
            let near = ranges.iter().flat_map(|&(start, end)| start..end.max(start + 1));
            let (found, _) = aligner.align(doc, skip, near)?;
            // The blocks about the source's passages, long enough by themselves.
            let found: Vec<Block> = found.into_iter().filter(|b| mostly_within(b, blocks)).collect();
            let reported = aligner.kind != CollectionKind::Source || long_enough(&found, &self.config);
            if !found.is_empty() && reported {
                copies.push(SourceMatch { doc, shared_hashes: lost, blocks: found, copy_of: Some(of) });
            }
        }
        Ok(copies)
    }

    /// Aligns a suspect with one given source (the PAN pairwise task): the alignment
    /// `search` runs on each candidate, with the same minimum source coverage as a
    /// collection of kind `source`.
    pub fn align_pair(&self, suspect: &Query, source: &Query) -> Vec<Block> {
        let blocks = align::align_pair(suspect, source, &[], &self.config.align);
        if long_enough(&blocks, &self.config) { blocks } else { Vec::new() }
    }
}

/// Stage 2's state: the ranked candidates, which of them are still in the race, and what
/// the revision's sources have explained so far, with the inverted lists that let a round
/// visit only what its source changed.
struct Rounds {
    lookups: Lookups,
    candidates: Vec<Candidate>,
    /// The fewest unexplained shared hashes a candidate needs to stay in the race.
    min_shared: u32,
    /// Per looked-up hash: explained by an earlier source of this revision.
    explained_hash: Vec<bool>,
    /// Per suspect shingle: explained by an earlier source of this revision.
    explained_shingle: Vec<bool>,
    /// The candidates sharing each looked-up hash.
    holders: Inverted,
    /// The shared hashes standing for each suspect shingle.
    standing_for: Inverted,
    /// Candidates still in the race: not aligned yet, and sharing enough unexplained
    /// hashes (scores only fall, so one that drops out never comes back).
    alive: Vec<bool>,
    /// How many are alive.
    left: usize,
    /// Per candidate: the hashes it lost to this round's source (set and cleared in
    /// each round that has copies; empty without copies).
    lost: Vec<u32>,
}

impl Rounds {
    /// The state before the first round, for a suspect of `shingles` shingles; `copies`:
    /// whether copies of the sources are looked for.
    fn new(lookups: Lookups, candidates: Vec<Candidate>, shingles: usize, min_shared: u32, copies: bool) -> Self {
        // Only hashes some candidate shares can change a score: the rest (most variant
        // shingles) are never checked.
        let mut shared: Vec<u32> = candidates.iter().flat_map(|c| c.shared.iter().copied()).collect();
        shared.sort_unstable();
        shared.dedup();
        // Which candidates share each hash, and which shared hashes stand for each suspect
        // shingle: a round visits only the shingles its source explained, the hashes
        // standing for them and the candidates sharing those. Rescoring every candidate
        // and testing every shared hash in each round cost a long suspect (1,500 rounds
        // over 1.6 million shingles) a quarter of its check (docs/performance.md).
        let holders = Inverted::new(
            lookups.hashes.len(),
            candidates.iter().enumerate().flat_map(|(c, cand)| cand.shared.iter().map(move |&h| (h, to_u32(c)))),
        );
        let standing_for = Inverted::new(
            shingles,
            shared.iter().flat_map(|&h| lookups.positions(h as usize).iter().map(move |&p| (p, h))),
        );
        drop(shared);
        Self {
            explained_hash: vec![false; lookups.hashes.len()],
            explained_shingle: vec![false; shingles],
            holders,
            standing_for,
            alive: vec![true; candidates.len()],
            left: candidates.len(),
            lost: vec![0u32; if copies { candidates.len() } else { 0 }],
            lookups,
            candidates,
            min_shared,
        }
    }

    /// The best candidate still in the race, taken out of it; `None` when the best has
    /// fewer than the minimum unexplained shared hashes (or none is left).
    fn take_best(&mut self) -> Option<usize> {
        let at = best_candidate(&self.candidates, &self.alive)?;
        if self.candidates[at].total() < self.min_shared {
            return None;
        }
        self.alive[at] = false;
        self.left -= 1;
        Some(at)
    }

    /// The documents of the `n` best candidates still alive, best first.
    fn best_alive(&self, n: usize) -> Vec<DocId> {
        let mut alive: Vec<&Candidate> =
            self.candidates.iter().zip(&self.alive).filter(|(_, a)| **a).map(|(c, _)| c).collect();
        alive.sort_unstable_by(|a, b| rank_order(a, b));
        alive.into_iter().take(n).map(|c| c.doc).collect()
    }

    /// The suspect shingles candidate `at` shares: a long suspect's parts where they are
    /// close together are aligned. A hash at many shingles is a phrase the suspect
    /// repeats, and would make them close by chance.
    fn near(&self, at: usize) -> impl Iterator<Item = usize> + '_ {
        self.candidates[at]
            .shared
            .iter()
            .map(|&h| self.lookups.positions(h as usize))
            .filter(|positions| positions.len() <= NEAR_MAX_POSITIONS)
            .flatten()
            .map(|&p| p as usize)
    }

    /// Marks the suspect shingles candidate `at`'s source explains: those in `ranges`
    /// (its blocks' shingles) that the source holds (`held`, sorted) or holds a variant
    /// of; gives those newly marked.
    fn explain_shingles(&mut self, at: usize, ranges: &[(usize, usize)], held: &[u64], hashes: &[u64]) -> Vec<u32> {
        let mut flipped: Vec<u32> = Vec::new();
        for &(start, end) in ranges {
            for (p, h) in hashes.iter().enumerate().take(end).skip(start) {
                if !self.explained_shingle[p] && held.binary_search(h).is_ok() {
                    self.explained_shingle[p] = true;
                    flipped.push(to_u32(p));
                }
            }
        }
        // A variant the source holds stands for the shingle it varies: a copy of
        // this source found next would otherwise claim the same reworded passage
        // again through the same variants (the Russian planted set, whose sources
        // overlap, had a third of its cases claimed twice or three times).
        for &h in &self.candidates[at].shared {
            let h = h as usize;
            if self.lookups.own[h] || held.binary_search(&self.lookups.hashes[h]).is_err() {
                continue;
            }
            for &p in self.lookups.positions(h) {
                let p = p as usize;
                if !self.explained_shingle[p] && ranges.iter().any(|&(start, end)| (start..end).contains(&p)) {
                    self.explained_shingle[p] = true;
                    flipped.push(to_u32(p));
                }
            }
        }
        flipped
    }

    /// Marks the hashes explained now (those whose shingles are all explained, one of
    /// them among `flipped`), takes them from the scores of the candidates sharing them,
    /// and gives them.
    fn explain_hashes(&mut self, flipped: &[u32]) -> Vec<usize> {
        let mut newly = Vec::new();
        for &p in flipped {
            for &h in self.standing_for.get(p as usize) {
                let at = h as usize;
                if !self.explained_hash[at]
                    && self.lookups.positions(at).iter().all(|&p| self.explained_shingle[p as usize])
                {
                    self.explained_hash[at] = true;
                    newly.push(at);
                }
            }
        }
        // Each candidate's score loses the hashes just explained.
        for &h in &newly {
            for &c in self.holders.get(h) {
                let c = &mut self.candidates[c as usize];
                if self.lookups.own[h] { c.score -= 1 } else { c.variant_score -= 1 }
            }
        }
        newly
    }

    /// The candidates still in the race that hold the passages candidate `at`'s source
    /// was just aligned on, by the hashes each lost to it (`newly`), at most `max`
    /// ([`copy_candidates`]).
    fn copies_of(&mut self, at: usize, newly: &[usize], max: usize) -> Vec<(DocId, u32)> {
        for &h in newly {
            for &c in self.holders.get(h) {
                self.lost[c as usize] += 1;
            }
        }
        let copies = copy_candidates(
            self.lost[at],
            self.candidates
                .iter()
                .zip(&self.lost)
                .zip(&self.alive)
                .filter(|(_, alive)| **alive)
                .map(|((c, &n), _)| (c.doc, n)),
            self.min_shared,
            max,
        );
        for &h in newly {
            for &c in self.holders.get(h) {
                self.lost[c as usize] = 0;
            }
        }
        copies
    }

    /// Takes out of the race the candidates left with fewer than the minimum.
    fn drop_weak(&mut self) {
        for (c, alive) in self.candidates.iter().zip(self.alive.iter_mut()) {
            if *alive && c.total() < self.min_shared {
                *alive = false;
                self.left -= 1;
            }
        }
    }
}

/// A shared hash at more suspect shingles than this does not say where a long suspect's
/// source is ([`SuspectParts`]).
const NEAR_MAX_POSITIONS: usize = 4;

/// Stage 1's best candidates whose snapshots are asked for together
/// ([`Sources::prefetch`]): most checks align no more than this many sources.
const PREFETCH_CANDIDATES: usize = 16;

/// Aligns candidates of one revision with the suspect: the suspect cut to 32-bit terms
/// and prepared for sentence seeding once, however many candidates are aligned.
struct CandidateAligner<'a, 'f> {
    sources: &'a dyn Sources,
    query: &'a Query,
    source_text: Option<&'f mut dyn FnMut(DocId) -> Result<Option<Query>, Error>>,
    /// Snapshot terms are 32-bit; the suspect is cut the same way, once, when needed,
    /// and prepared for sentence seeding once (full terms for sources from texts).
    whole: SuspectForms<'a>,
    /// A long suspect's parts, each aligned as a suspect of its own (`None` for a suspect
    /// of one part).
    parts: Option<SuspectParts>,
    config: AlignConfig,
    kind: CollectionKind,
    search: &'a SearchConfig,
}

impl CandidateAligner<'_, '_> {
    /// The blocks of source `doc` (none when a source collection's blocks are too short
    /// to report), and the source's shingle hashes, in text order. `skip` as in
    /// [`align::align_prepared`]; a long suspect is aligned in its parts near the suspect
    /// shingles `near` ([`SuspectParts`]).
    fn align(
        &mut self,
        doc: DocId,
        skip: &[bool],
        near: impl IntoIterator<Item = usize>,
    ) -> Result<(Vec<Block>, Vec<u64>), Error> {
        let query = self.query;
        // The snapshot is read (and so verified) even when the text is used.
        let snapshot = self.sources.snapshot(doc)?;
        let from_snapshot = Query::from_snapshot(&snapshot, query.shingle_size);
        let config = &self.config;
        // A snapshot with sentences is aligned with the suspect's terms cut to its 32 bits;
        // else the source's text, when at hand, with full terms.
        let short = from_snapshot.has_sentences() && query.has_sentences();
        let source = if short {
            from_snapshot
        } else {
            let text = match self.source_text.as_mut() {
                Some(f) => f(doc)?,
                None => None,
            };
            text.unwrap_or(from_snapshot)
        };
        // Prepared only when this source can be aligned by sentences at all.
        let prepared = source.has_sentences() && query.has_sentences();
        let mut blocks = if let Some(parts) = self.parts.as_mut() {
            parts.align(query, near, &source, skip, short, prepared, config)
        } else {
            let (suspect, prepared) = self.whole.get(|| Cow::Borrowed(query), short, prepared, config);
            align::align_prepared(suspect, prepared, &source, skip, config)
        };
        if self.kind == CollectionKind::Source && !long_enough(&blocks, self.search) {
            blocks.clear();
        }
        Ok((blocks, source.hashes))
    }
}

/// The suspect shingles of each block: shingle i covers tokens i .. i + size, so a
/// block's shingles are first ..= end - size (one shingle when the text is shorter), cut
/// to the `shingles` the suspect has.
fn shingle_ranges(blocks: &[Block], size: usize, shingles: usize) -> Vec<(usize, usize)> {
    blocks
        .iter()
        .map(|block| {
            let first = block.suspect_tokens.start;
            let last = block.suspect_tokens.end.saturating_sub(size).max(first);
            let end = (last + 1).min(shingles);
            (first.min(end), end)
        })
        .collect()
}

/// The marks of `explained` inside `ranges`, range after range.
fn marks_in(explained: &[bool], ranges: &[(usize, usize)]) -> Vec<bool> {
    ranges.iter().flat_map(|&(start, end)| explained[start..end].iter().copied()).collect()
}

/// The skip marks of a copy, for a suspect of `shingles` shingles: every shingle outside
/// `ranges` marked, those inside as `marks` ([`marks_in`]) saved them. What a copy may
/// align is the passages of the source it copies, as they were before that source
/// explained them.
fn outside_ranges(shingles: usize, ranges: &[(usize, usize)], marks: &[bool]) -> Vec<bool> {
    let mut skip = vec![true; shingles];
    let mut at = 0;
    for &(start, end) in ranges {
        skip[start..end].copy_from_slice(&marks[at..at + end - start]);
        at += end - start;
    }
    skip
}

/// The candidates that hold the passages a source was just aligned on: those that lost at
/// least half as many shared hashes to it as it explained of its own (`source_lost`), and
/// at least the minimum. `lost`: each other candidate with the count it lost. At most
/// `max`, the most hashes lost first (ties: the older document), with the count lost.
fn copy_candidates(
    source_lost: u32,
    lost: impl Iterator<Item = (DocId, u32)>,
    min_shared: u32,
    max: usize,
) -> Vec<(DocId, u32)> {
    let least = min_shared.max(source_lost.div_ceil(2)).max(1);
    let mut copies: Vec<(DocId, u32)> = lost.filter(|&(_, lost)| lost >= least).collect();
    copies.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    copies.truncate(max);
    copies
}

/// Whether at least half of `block`'s suspect characters lie in `blocks` (a copy's block
/// must be about the passage of the source it copies, not text its growth reached).
fn mostly_within(block: &Block, blocks: &[Block]) -> bool {
    let inside: usize = blocks
        .iter()
        .map(|b| {
            let (start, end) = (
                block.suspect.chars.start.max(b.suspect.chars.start),
                block.suspect.chars.end.min(b.suspect.chars.end),
            );
            end.saturating_sub(start)
        })
        .sum();
    2 * inside >= block.suspect.chars.end - block.suspect.chars.start
}

/// Whether a source's blocks are long enough to report on both sides.
pub(crate) fn long_enough(blocks: &[Block], config: &SearchConfig) -> bool {
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

/// Values by key in one flat list (a list per key would cost an allocation per key, and
/// keys here are every looked-up hash or every suspect shingle).
struct Inverted {
    starts: Vec<u32>,
    values: Vec<u32>,
}

impl Inverted {
    /// Keys below `keys`; each key's values in the order `pairs` gives them.
    fn new(keys: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> Self {
        let mut starts = vec![0u32; keys + 1];
        for (k, _) in pairs.clone() {
            starts[k as usize + 1] += 1;
        }
        for k in 0..keys {
            starts[k + 1] += starts[k];
        }
        let mut next = starts.clone();
        let mut values = vec![0u32; starts[keys] as usize];
        for (k, v) in pairs {
            values[next[k as usize] as usize] = v;
            next[k as usize] += 1;
        }
        Self { starts, values }
    }

    fn get(&self, key: usize) -> &[u32] {
        &self.values[self.starts[key] as usize..self.starts[key + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_are_the_candidates_losing_half_of_what_the_source_explained() {
        // The source explained 6 hashes of its own; what each other candidate lost to it.
        let others = [
            (DocId(5), 3), // 3 of 6: a copy
            (DocId(4), 6), // all: the best copy
            (DocId(3), 3), // 3
            (DocId(2), 2), // 2 of 6: not a copy
            (DocId(6), 0), // none
        ];
        let copies = |min_shared, max| copy_candidates(6, others.iter().copied(), min_shared, max);
        assert_eq!(copies(1, 3), vec![(DocId(4), 6), (DocId(3), 3), (DocId(5), 3)]);
        assert_eq!(copies(1, 1), vec![(DocId(4), 6)]);
        // The minimum of shared hashes holds too.
        assert_eq!(copies(4, 3), vec![(DocId(4), 6)]);
        assert_eq!(copies(1, 0), vec![]);
        // An odd count needs its half rounded up.
        assert_eq!(copy_candidates(5, others.iter().copied(), 1, 5), vec![(DocId(4), 6), (DocId(3), 3), (DocId(5), 3)]);
    }

    #[test]
    fn a_copy_aligns_only_inside_the_blocks_of_the_source_as_they_were() {
        let explained = [true, false, false, true, false, false];
        let ranges = [(0, 2), (4, 5)];
        let marks = marks_in(&explained, &ranges);
        assert_eq!(outside_ranges(explained.len(), &ranges, &marks), vec![true, false, true, true, false, true]);
    }
}
