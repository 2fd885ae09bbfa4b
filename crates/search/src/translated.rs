//! The translated stage of a collection's revision: the sources a suspect translates,
//! found through its [`Translations`] and aligned with [`crate::align_translated`].
//!
//! 1. *Candidates.* The suspect's translations (without its own terms) are looked up in
//!    the collection's term postings (`tessera_index::CollectionReader::lookup_terms_at_most`;
//!    a term held by more than `max_postings_per_term` documents is left out). The
//!    suspect is read in windows of `window_sentences` sentences (every half window): in
//!    each, a document scores the squared idf (over the collection) of the distinct
//!    suspect tokens one of whose translations it holds (a token at its rarest
//!    translation there); the `rescored_per_window` best are scored again with their
//!    length, as BM25 does (a long novel holds most words of any window), and the
//!    window's `candidates_per_window` best scoring at least `min_window_score` are
//!    candidates. A translated
//!    passage is a few sentences of a suspect otherwise its own, so a window, not the
//!    whole text, finds its source; the best `max_candidates` candidates (by their best
//!    window) are aligned.
//! 2. *Alignment.* Each candidate's snapshot is aligned with
//!    [`crate::align_translated`], best candidate first; a block whose suspect side
//!    overlaps a block already found (within one language, or translated from a better
//!    candidate) is dropped, and a source of kind `source` keeps its blocks only when
//!    they are long enough, as every source.

use std::sync::{Arc, OnceLock};

use foldhash::{HashMap, HashMapExt};
use tessera_core::CollectionKind;
use tessera_fingerprint::Translations;

use crate::align::align_translated;
use crate::sources::Sources;
use crate::{Block, DocId, Error, Query, SearchConfig, SourceMatch};

/// How the translated stage picks its candidates (`SearchConfig::translated`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct TranslatedSearchConfig {
    /// Suspect sentences per window.
    pub window_sentences: usize,
    /// Candidates each window proposes.
    pub candidates_per_window: usize,
    /// The least score a document needs in a window to be proposed (the idf of the
    /// terms it holds are squared, so that rare words and names count most, and the sum
    /// divided for the document's length: `length_b`).
    pub min_window_score: f64,
    /// A term held by more documents than this proposes none.
    pub max_postings_per_term: usize,
    /// The most candidates aligned.
    pub max_candidates: usize,
    /// The best documents of a window by their raw score that are scored again with
    /// their length.
    pub rescored_per_window: usize,
    /// How much a document's length divides its score (BM25's `b`: 0 none, 1 in
    /// proportion to its length over the mean).
    pub length_b: f64,
}

impl Default for TranslatedSearchConfig {
    fn default() -> Self {
        Self {
            window_sentences: 12,
            candidates_per_window: 5,
            min_window_score: 10.0,
            max_postings_per_term: 1000,
            max_candidates: 20,
            rescored_per_window: 50,
            length_b: 0.75,
        }
    }
}

/// Makes a suspect's translations into a language (the engine's: it holds the lexicon
/// and the suspect's text); given the suspect's query and the language.
pub type Translate = dyn Fn(&Query, &str) -> Translations + Send + Sync;

/// A suspect's way into other languages: its language and, for each language a lexicon
/// translates it into, the probe terms that tell whether a collection holds documents in
/// that language (`tessera_fingerprint::Lexicon::probes`) and its translations,
/// made on first need (a check of collections in the suspect's language alone never
/// translates it).
pub struct CrossQuery {
    /// The suspect's language (ISO 639-1).
    pub from: String,
    targets: Vec<CrossTarget>,
    translate: Arc<Translate>,
}

struct CrossTarget {
    to: String,
    probe: Vec<u32>,
    translations: OnceLock<Arc<Translations>>,
}

impl std::fmt::Debug for CrossQuery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let targets: Vec<&str> = self.targets.iter().map(|t| t.to.as_str()).collect();
        f.debug_struct("CrossQuery").field("from", &self.from).field("targets", &targets).finish()
    }
}

impl CrossQuery {
    /// A suspect of language `from` searched in the languages `targets` (each with its
    /// probe terms), translated by `translate` when a collection holds that language.
    pub fn new(from: String, targets: Vec<(String, Vec<u32>)>, translate: Arc<Translate>) -> Self {
        let targets = targets
            .into_iter()
            .filter(|(to, _)| *to != from)
            .map(|(to, probe)| CrossTarget { to, probe, translations: OnceLock::new() })
            .collect();
        Self { from, targets, translate }
    }

    /// The suspect's translations into each target language `sources` holds documents in
    /// (at least [`MIN_PROBE_HITS`] of its probe terms; every language without probe
    /// terms), made on first need.
    fn translations_for(&self, sources: &dyn Sources, query: &Query) -> Result<Vec<Arc<Translations>>, Error> {
        let mut out = Vec::new();
        for target in &self.targets {
            let hit = sources.holds_terms(&target.probe)?;
            if target.probe.is_empty() || hit.iter().filter(|&&h| h).count() >= MIN_PROBE_HITS {
                out.push(Arc::clone(target.translations.get_or_init(|| Arc::new((self.translate)(query, &target.to)))));
            }
        }
        Ok(out)
    }
}

/// A collection holds documents in a language when at least this many of its probe terms
/// are found (one could be a look-up's rare false positive).
pub const MIN_PROBE_HITS: usize = 2;

/// The sources `query` translates in the collection `sources`, in the order found (best candidate first),
/// none of whose blocks overlaps a block of `found` on the suspect side.
pub(crate) fn translated_sources(
    sources: &dyn Sources,
    query: &Query,
    found: &[SourceMatch],
    search: &SearchConfig,
    align: &crate::AlignConfig,
) -> Result<Vec<SourceMatch>, Error> {
    let mut taken: Vec<(usize, usize)> =
        found.iter().flat_map(|s| &s.blocks).map(|b| (b.suspect.bytes.start, b.suspect.bytes.end)).collect();
    let mut out: Vec<SourceMatch> = Vec::new();
    let Some(cross) = &query.cross else {
        return Ok(out);
    };
    for translations in cross.translations_for(sources, query)? {
        let translations = &*translations;
        for (doc, _) in candidates(sources, query, translations, &search.translated)? {
            let snapshot = sources.snapshot(doc)?;
            let source = Query::from_snapshot(&snapshot, query.shingle_size);
            let blocks: Vec<Block> = align_translated(query, translations, &source, &align.translated)
                .into_iter()
                .filter(|b| !taken.iter().any(|&(s, e)| b.suspect.bytes.start < e && s < b.suspect.bytes.end))
                .collect();
            if blocks.is_empty()
                || (sources.config().kind == CollectionKind::Source && !crate::searcher::long_enough(&blocks, search))
            {
                continue;
            }
            taken.extend(blocks.iter().map(|b| (b.suspect.bytes.start, b.suspect.bytes.end)));
            match out.iter_mut().find(|s| s.doc == doc) {
                Some(s) => {
                    s.blocks.extend(blocks);
                    s.blocks.sort_by_key(|b| (b.suspect.bytes.start, b.source.bytes.start));
                }
                None => out.push(SourceMatch { doc, shared_hashes: 0, blocks, copy_of: None }),
            }
        }
    }
    Ok(out)
}

/// The candidate documents of one language's translations, best first, with their best
/// window's score.
fn candidates(
    sources: &dyn Sources,
    query: &Query,
    translations: &Translations,
    config: &TranslatedSearchConfig,
) -> Result<Vec<(DocId, f64)>, Error> {
    // Every distinct translation and, per token, the indexes of its translations.
    let mut terms: Vec<u32> = Vec::new();
    let mut index: HashMap<u32, u32> = HashMap::new();
    let mut of_token: Vec<Vec<u32>> = Vec::with_capacity(translations.len());
    for k in 0..translations.len() {
        let list = translations.of(k);
        let ids: Vec<u32> = list
            .iter()
            .map(|&t| {
                *index.entry(t).or_insert_with(|| {
                    terms.push(t);
                    (terms.len() - 1) as u32
                })
            })
            .collect();
        of_token.push(ids);
    }
    let mut docs_of: Vec<Vec<DocId>> = vec![Vec::new(); terms.len()];
    sources.lookup_terms(&terms, config.max_postings_per_term, &mut |i, doc| docs_of[i].push(doc))?;
    let n = sources.doc_count().max(1) as f64;
    let idf: Vec<f64> =
        docs_of.iter().map(|d| if d.is_empty() { 0.0 } else { (n / d.len() as f64).ln_1p().powi(2) }).collect();
    let step = (config.window_sentences / 2).max(1);
    // Document lengths (chars) for the length normalisation, read once per document.
    let mut lengths: HashMap<DocId, f64> = HashMap::new();
    let mut best: HashMap<DocId, f64> = HashMap::new();
    let mut score: HashMap<DocId, f64> = HashMap::new();
    let mut start = 0;
    while start < query.sentences.len() {
        let end = (start + config.window_sentences).min(query.sentences.len());
        let tokens = query.sentences[start].start..query.sentences[end - 1].end;
        score.clear();
        for k in tokens {
            // A token counts once per document, at its rarest translation there.
            let mut per_doc: HashMap<DocId, f64> = HashMap::new();
            for &t in of_token.get(k).map_or(&[][..], Vec::as_slice) {
                for &doc in &docs_of[t as usize] {
                    let e = per_doc.entry(doc).or_insert(0.0);
                    *e = e.max(idf[t as usize]);
                }
            }
            for (doc, w) in per_doc {
                *score.entry(doc).or_insert(0.0) += w;
            }
        }
        let mut ranked: Vec<(DocId, f64)> = score.iter().map(|(&d, &s)| (d, s)).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.truncate(config.rescored_per_window);
        // A long document holds most words of any window: its score is divided as
        // BM25 divides a term's (binary frequency), by `1 - b + b * length / mean`, the
        // mean over the documents scored again here.
        let mut window_lengths = Vec::with_capacity(ranked.len());
        for (doc, _) in &ranked {
            let length = match lengths.get(doc) {
                Some(&l) => l,
                None => {
                    let l = (sources.char_len(*doc)? as f64).max(1.0);
                    lengths.insert(*doc, l);
                    l
                }
            };
            window_lengths.push(length);
        }
        let mean_chars = window_lengths.iter().sum::<f64>() / window_lengths.len().max(1) as f64;
        for ((_, s), length) in ranked.iter_mut().zip(&window_lengths) {
            *s /= 1.0 - config.length_b + config.length_b * length / mean_chars;
        }
        ranked.retain(|(_, s)| *s >= config.min_window_score);
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        for &(doc, s) in ranked.iter().take(config.candidates_per_window) {
            let e = best.entry(doc).or_insert(0.0);
            *e = e.max(s);
        }
        if end == query.sentences.len() {
            break;
        }
        start += step;
    }
    let mut ranked: Vec<(DocId, f64)> = best.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked.truncate(config.max_candidates);
    Ok(ranked)
}
