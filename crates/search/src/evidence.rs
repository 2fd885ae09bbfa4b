//! What a block rests on, and how sure we are that it is a borrowing.

use serde::{Deserialize, Serialize};

/// The measurable facts behind one block, measured on its two spans by the aligner.
///
/// A verbatim copy shares long runs of shingles; a reworded copy shares most of its
/// terms, many of them words that the two texts use nowhere else, in the same order; two
/// texts on one topic share the topic's words (which each text repeats in other
/// sentences) in any order. [`Evidence::confidence`] weighs these into one number.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Evidence {
    /// Shingles of the longest exact run (equal hashes at consecutive positions) inside
    /// the block.
    pub longest_run: u32,
    /// Terms (tokens that are not stop words or numbers) of the block's suspect side.
    pub suspect_terms: u32,
    /// Terms of the block's source side.
    pub source_terms: u32,
    /// Distinct terms both sides hold (a WordNet neighbour standing for its word counts);
    /// 0 when the source's terms are unknown (a snapshot of segment format 1).
    pub shared_terms: u32,
    /// ... of which each text holds in at most [`Evidence::RARE_SENTENCES`] of its
    /// sentences: words of the passage itself rather than of the texts' common topic.
    pub rare_shared_terms: u32,
    /// ... of which the suspect writes as names (capitalised wherever a capital is not
    /// the sentence's: `tessera_fingerprint::names`); 0 when the suspect's names are
    /// unknown. Two texts on one subject share its names (a hospital network, a disease
    /// named after a person) without one borrowing from the other.
    #[serde(default)]
    pub shared_names: u32,
    /// Of the shared terms that occur once on each side, the share that keeps its order
    /// on both sides (the longest increasing subsequence); 1 when fewer than 3 do.
    pub order: f32,
    /// tf-idf cosine of the two sides' term bags (idf over the sentences of both texts).
    pub cosine: f32,
    /// Whether the block was found through sentence pairs (else of exact runs alone,
    /// whose spans and evidence are exact).
    pub sentences: bool,
    /// Whether the block is a *summary*: its suspect side condenses a source passage
    /// several times longer (`AlignConfig::summary_ratio`), found by the aligner's
    /// summary extension. A reviewer weighs such a claim differently from a copy or a
    /// rewording: the words shared are the source's key terms, which a text on the same
    /// subject may share as well.
    #[serde(default)]
    pub summary: bool,
    /// Whether the block is a *translation*: its suspect side is written in another
    /// language than its source side, matched sentence by sentence through a bilingual
    /// lexicon (`tessera_search::align_translated`). Its shared terms are the suspect
    /// tokens one of whose translations the source side holds, its cosine the mean score
    /// of its sentence pairs; it has no exact run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub translated: bool,
}

impl Evidence {
    /// A term is rare in a text when it occurs in at most this many of its sentences.
    pub const RARE_SENTENCES: u32 = 2;

    /// The shared terms that are not names of the suspect: the words the two sides share
    /// (`AlignConfig::min_shared_words` asks a passage found through sentences for
    /// enough of them).
    pub fn shared_words(&self) -> u32 {
        self.shared_terms.saturating_sub(self.shared_names)
    }

    /// How likely the block is a borrowing, from 0 to 1.
    ///
    /// A block of exact runs alone is at least as sure as its longest run is long (8
    /// shingles in a row, about ten words, are never chance). A block found through
    /// sentence pairs gets a logistic model of its evidence, fitted on the sentence
    /// passages of the PAN 2013 training corpus (pairwise; a passage is right when it
    /// overlaps a listed case; `scripts/fit_confidence.py`): the number of rare shared
    /// terms, the share of the shorter side's terms that are shared, the cosine weighed by
    /// the length it is measured on, the order weighed by the number of shared terms that
    /// keep it, and the longest run (docs/quality.md, "Confidence", "A passage's length
    /// is evidence too" and "A long passage must be as alike as a short one"). A block of
    /// exact runs whose terms were measured too gets the better of its run and the model
    /// of its terms (the model without its run, which the run's own rule judges): a light
    /// rewrite keeps only short runs, yet its evidence is that of a copy.
    pub fn confidence(&self) -> f64 {
        let run = f64::from(self.longest_run);
        let by_run = (0.5 + run / 16.0).min(1.0);
        if self.translated {
            return self.translated_confidence();
        }
        if self.shared_terms == 0 {
            return by_run;
        }
        if self.sentences { self.model(run) } else { by_run.max(self.model(0.0)) }
    }

    /// A translated block's confidence: from the mean score of its sentence pairs (the
    /// Dice of the matched idf weight on the two sides), rising with the number of
    /// matched tokens. Chains of at least three pairs scoring 0.25 on average are already
    /// rare between two unrelated texts (docs/quality.md, "Translated borrowings").
    fn translated_confidence(&self) -> f64 {
        let score = f64::from(self.cosine);
        let matched = f64::from(self.shared_terms).ln_1p();
        let z = -4.0 + 10.0 * score + 0.5 * matched;
        1.0 / (1.0 + (-z).exp())
    }

    /// The logistic model of [`Evidence::confidence`] (for a block with known terms).
    ///
    /// A sentence passage's run weighs *against* it once the cosine is weighed by length:
    /// a long run in a passage the exact path did not find is a shared heading or phrase,
    /// not a copy (a copy makes a block of exact runs).
    fn model(&self, run: f64) -> f64 {
        let terms = f64::from(self.suspect_terms.min(self.source_terms).max(1));
        let shared_terms = f64::from(self.shared_terms);
        let (cosine, order) = (f64::from(self.cosine), f64::from(self.order));
        let z = -5.491 - 0.727 * run.ln_1p()
            + 0.508 * cosine
            + 0.988 * shared_terms / terms
            + 0.035 * order
            + 1.852 * f64::from(self.rare_shared_terms).ln_1p()
            - 0.347 * terms.ln()
            + 1.178 * shared_terms.ln_1p() * order
            + 1.636 * terms.ln() * cosine;
        1.0 / (1.0 + (-z).exp())
    }
}
