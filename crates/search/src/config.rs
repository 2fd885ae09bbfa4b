//! Search settings.

use serde::{Deserialize, Serialize};

/// Settings of candidate ranking, revision building and alignment.
///
/// These do not change fingerprints, so a query may use other values than the index was
/// built with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SearchConfig {
    /// Stage 1 skips a suspect hash held by more documents than this (boilerplate and
    /// common phrases say nothing about where a text came from). Alignment still uses it.
    pub max_postings_per_hash: usize,
    /// A source becomes a candidate when it shares at least this many distinct suspect
    /// hashes, and stays one while that many are left unexplained.
    pub min_shared_hashes: u32,
    /// `min_shared_hashes` when sentence seeding is possible (the suspect has terms and
    /// sentences, or the collection's texts are at hand: [`crate::Searcher::search_with`]):
    /// it aligns obfuscated passages that share only a shingle or two.
    pub text_min_shared_hashes: u32,
    /// Stage 1 also looks up the suspect's shingles with one word swapped for a WordNet
    /// synonym (made into [`crate::Query::variant_shingles`] where the suspect is
    /// fingerprinted for a search: the engine's check), when sentence seeding is possible: a
    /// rewording that swaps a word in every three shares no shingle with its source and
    /// was never aligned. A source sharing such shingles only ranks after every source
    /// sharing the text's own ones (PAN 2013 collection-wide: 47 of the 49 listed cases
    /// found pairwise and missed collection-wide were missed here; docs/quality.md).
    pub synonym_lookups: bool,
    /// Stage 1 also looks up the suspect's shingles with one word dropped or two
    /// neighbours swapped (the same [`crate::Query::variant_shingles`]), when sentence
    /// seeding is possible: what a rewording that inserts or reorders words leaves of
    /// its source's shingles. Ranked like synonym shingles. In any language (PAN 2013
    /// collection-wide: 0.9287 -> 0.9299 beside synonym look-ups, the Russian planted set
    /// 0.7935 -> 0.8020; docs/quality.md).
    pub edit_lookups: bool,
    /// At most this many candidates (the best by shared hashes) enter stage 2, or twice
    /// the rounds a long suspect gets ([`SearchConfig::rounds_for`]).
    pub max_candidates: usize,
    /// Rounds of the greedy revision (sources per collection at most). Seed 000 uses
    /// 10-20; web-derived texts share boilerplate with many documents, and on PAN 2013 a
    /// suspect with 20 true sources also matched a dozen others, so the default leaves
    /// room (a round costs one snapshot read and one alignment, well under a millisecond
    /// for a PAN suspect). A long suspect gets more ([`SearchConfig::rounds_for`]).
    pub max_rounds: usize,
    /// ... at least one round per this many suspect shingles (about as many words):
    /// a long text made of many sources is not cut at `max_rounds` of them (an 8 MB text
    /// made of 1,804 indexed documents was credited to 100 of them, 24 % of its
    /// characters; docs/quality.md). 250 since a long suspect is aligned in parts
    /// ([`SearchConfig::part_tokens`]), which made rounds cheap: PAN suspects joined
    /// into 8 MB keep 0.89 of their plagiarism's characters with 250 and 0.70 with 500,
    /// at 6.2 s against 5.5 s. 200 since a text over the engine's `chunk_bytes` is
    /// searched in chunks, each a revision of its own that aligns again a source the
    /// whole text's revision aligned once: the 8 MB text in chunks keeps 0.890 with 200,
    /// 0.866 with 250 (in one chunk, 0.889 and 0.888 at the same time). The revision
    /// stops anyway when no candidate is left, so a text of few sources pays nothing for
    /// it. `0`: `max_rounds` whatever the length.
    pub shingles_per_round: usize,
    /// A suspect of more tokens (about words) than this is aligned in parts of about as
    /// many, each a suspect of its own: alignment's statistics (rare terms, term weights,
    /// the best stretch elsewhere) were tuned on texts of up to 9,000 words and drowned a
    /// reworded passage in a text of a million (PAN suspects joined into 8 MB: 0.63 of
    /// their plagiarism's characters found, 0.89 in parts, 0.93 checked one by one;
    /// docs/quality.md). `0`: one part.
    pub part_tokens: usize,
    /// In a collection of kind `source`, a source is reported only when its blocks cover
    /// at least this many suspect characters: shorter matches are coincidences (lists of
    /// names, a publisher's address, a common phrase), not borrowings. Collections of
    /// kind `citation` hold short expressions by design and have no such minimum.
    pub min_source_chars: usize,
    /// ... and at least this many characters of the source (a reworded copy may be
    /// shorter than its source, a coincidence is short on both sides).
    pub min_source_side_chars: usize,
    /// For each source of the revision, at most this many other candidates holding the
    /// passages it was aligned on are aligned there too and reported as its copies
    /// ([`crate::SourceMatch::copy_of`]): a passage found in several documents names every
    /// one, and a reviewer who excludes the first sees the next take it over. A copy is
    /// a candidate that loses at least half as many shared hashes to the source as the
    /// source explained of its own; copies never change which sources the revision
    /// picks or what they explain. `0` finds none.
    pub max_copies: usize,
    /// When a suspect is also aligned with sources in another language (translated
    /// borrowings).
    pub cross_language: CrossLanguage,
    /// How the translated stage finds the sources a suspect translates.
    pub translated: crate::TranslatedSearchConfig,
    /// Alignment settings.
    pub align: AlignConfig,
}

/// When a check looks across languages for translated borrowings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CrossLanguage {
    /// Never.
    Off,
    /// When a bilingual lexicon for the two languages is installed and the suspect's
    /// language differs from a source's; without a lexicon the check says the step is off.
    #[default]
    Auto,
    /// As `auto`, but a missing lexicon is an error, not a notice.
    On,
}

impl std::fmt::Display for CrossLanguage {
    /// The name `FromStr` reads: `off`, `auto` or `on`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Off => "off",
            Self::Auto => "auto",
            Self::On => "on",
        })
    }
}

impl std::str::FromStr for CrossLanguage {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "off" => Ok(Self::Off),
            "auto" => Ok(Self::Auto),
            "on" => Ok(Self::On),
            _ => Err(format!("cross-language must be on, off or auto, not {s:?}")),
        }
    }
}

impl SearchConfig {
    /// The rounds of the greedy revision and the candidates entering stage 2 for a suspect
    /// of `shingles` shingles: `max_rounds` and `max_candidates`, or for a long suspect one
    /// round per `shingles_per_round` shingles and twice as many candidates. The cost
    /// stays in proportion to the suspect.
    #[must_use]
    pub fn rounds_for(&self, shingles: usize) -> (usize, usize) {
        let rounds = match self.shingles_per_round {
            0 => self.max_rounds,
            per => self.max_rounds.max(shingles / per),
        };
        (rounds, self.max_candidates.max(rounds.saturating_mul(2)))
    }
}

impl Default for SearchConfig {
    fn default() -> Self {
        Self {
            max_postings_per_hash: 1000,
            min_shared_hashes: 3,
            text_min_shared_hashes: 1,
            synonym_lookups: true,
            edit_lookups: true,
            max_candidates: 200,
            max_rounds: 100,
            shingles_per_round: 200,
            part_tokens: 20_000,
            min_source_chars: 100,
            min_source_side_chars: 150,
            max_copies: 3,
            cross_language: CrossLanguage::Auto,
            translated: crate::TranslatedSearchConfig::default(),
            align: AlignConfig::default(),
        }
    }
}

/// How exact shared shingle runs become blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AlignConfig {
    /// Two runs merge into one block when the gap between them is at most this many
    /// shingles in the suspect and in the source.
    pub max_gap: usize,
    /// A block needs at least this many matched shingles.
    pub min_block_shingles: u32,
    /// A source hash occurring more often than this in one source is matched at its first
    /// occurrences only (bounds the work on repetitive texts).
    pub max_occurrences: usize,
    /// With sentence seeding, exact blocks of at least this many matched shingles are
    /// seeds (those under `min_block_shingles` only inside a validated cluster).
    pub min_seed_shingles: u32,
    /// Sentence seeding (both texts' terms known): sentences with fewer terms join the
    /// next one.
    pub min_sentence_terms: usize,
    /// Sentences with more terms are cut into equal pieces of at most this many (at
    /// alignment time; the snapshot's sentences are not changed).
    pub max_sentence_terms: usize,
    /// Let a source word count as its WordNet neighbour in the suspect (a synonym, a more
    /// general or specific word, an opposite) when neither word occurs in the other text
    /// (needs the suspect's [`crate::Query::synonyms`]).
    pub synonyms: bool,
    /// Terms with more WordNet senses (own synsets of all the words that stem to them)
    /// are left out of neighbour matching: a word of many senses has neighbours in
    /// almost any text on its topic (PAN 2013 training, pairwise: 8: 0.9062, 16:
    /// 0.9071, 24: 0.9051, no limit: 0.9036).
    pub synonym_max_senses: usize,
    /// A sentence pair is a seed when the tf-idf cosine of its term bags reaches this...
    pub seed_cosine: f64,
    /// ... and the Dice coefficient of its term sets reaches this.
    pub seed_dice: f64,
    /// Pairs of adjacent source sentences are seed candidates too.
    pub pair_seeds: bool,
    /// A suspect sentence keeps only its best source sentences: those whose cosine is
    /// within this margin of its best one.
    pub seed_top_margin: f64,
    /// Seeds cluster into one passage while at most this many sentences separate them
    /// on each side.
    pub max_sentence_gap: usize,
    /// A cluster without an exact run needs at least this many sentence seeds.
    pub min_sentence_seeds: usize,
    /// ... unless one of its seeds has at least this cosine.
    pub single_seed_cosine: f64,
    /// ... and its two sides share at least this many distinct terms.
    pub single_seed_terms: usize,
    /// Sentence seeds are trimmed on each side to the first and last term the other
    /// sentence holds.
    pub trim_seeds: bool,
    /// A passage found through sentence seeds grows, at each end of each side, by the
    /// rest of its boundary sentence or the next sentence while this share of that
    /// piece's distinct terms occurs on the other side...
    pub grow_share: f64,
    /// ... by at most this many pieces at each end (0: no growing).
    pub grow_steps: usize,
    /// `grow_share` for the source side (a reworded copy drops and replaces source
    /// words, so a source sentence shares fewer of its terms with the copy than the
    /// other way round).
    pub source_grow_share: f64,
    /// After growing, a passage found through sentence seeds grows at both ends on both
    /// sides at once while the two pieces added share this much of the smaller one's
    /// distinct terms (0: off)...
    pub pair_grow_share: f64,
    /// ... at most this many pieces at each end.
    pub pair_grow_steps: usize,
    /// A passage found through sentence seeds is widened to the whole of its first (last)
    /// sentence on each side when it covers at least this share of that sentence's terms
    /// (over 1: never).
    pub snap_covered: f64,
    /// A cluster splits where at least this many suspect terms lie between two seeds
    /// (and some source text lies between them too)...
    pub min_gap_terms: usize,
    /// ... and their tf-idf cosine with the source text between the same seeds is under
    /// this (0: never split; 1: unless the two gaps hold the same words). A passage
    /// bridges at most `max_sentence_gap` sentences between seeds, but sentences differ
    /// in length: a stretch of 60 terms (three or four sentences, some 450 characters)
    /// with no sentence like the source's is text of one's own, and a passage over it
    /// claims what nothing shows borrowed. Split there, each part must stand on its own
    /// evidence: two borrowings of one source a few sentences apart become two blocks,
    /// and a topical page pairing a sentence here and there no longer adds up to one
    /// long "rewording" (PAN 2013 training: the water-heater page of a no-plagiarism
    /// pair; `docs/quality.md`, session 24).
    pub gap_cosine: f64,
    /// Sentence seeds of a cluster that contradict the order of its exact runs of at
    /// least this many matched shingles are dropped (see `in_anchor_order` in align/extension.rs;
    /// 0: never).
    pub anchor_shingles: usize,
    /// A cluster becomes a passage when the tf-idf cosine of its two sides reaches this
    /// (else it is clustered again with a smaller gap).
    pub validation_cosine: f64,
    /// When set, a second extension with this sentence gap looks for summaries (a summary
    /// of a long source skips tens of its sentences between two it condenses)...
    pub summary_sentence_gap: Option<usize>,
    /// ... and wins when its passages' source sides are this many times longer than
    /// their suspect sides.
    pub summary_ratio: f64,
    /// `validation_cosine` of the summary extension (a summary shares fewer words with
    /// the long passage it condenses).
    pub summary_validation_cosine: f64,
    /// The source side of a summary passage grows like `grow_share` / `grow_steps`, with
    /// these values.
    pub summary_grow_share: f64,
    /// See `summary_grow_share`.
    pub summary_grow_steps: usize,
    /// The source side of a summary passage reaches the start (end) of the source when
    /// fewer tokens than this share of its own length lie before (after) it: a summary
    /// condenses its source from beginning to end (0: never).
    pub summary_edge_share: f64,
    /// A summary passage replaces the passages it overlaps only when its
    /// [`crate::Evidence::confidence`] reaches this: it claims a source span several times
    /// its own length, on words a topical neighbour shares as well (in every collection
    /// kind: it chooses between two explanations, it drops nothing alone).
    pub summary_min_confidence: f64,
    /// A summary passage that would replace a single passage of the first extension
    /// replaces it only when its suspect side holds at least this many rare terms its
    /// source side has only outside that passage's source side (0: always): a summary
    /// condenses the whole source; a reworded passage of one region, grown over a
    /// topical neighbourhood, names nothing from beyond it.
    pub summary_rare_beyond: usize,
    /// A summary passage does not replace a passage holding an exact run of at least this
    /// many shingles (0: never asked): a run that long is a copy of sentences after
    /// sentences, not a condensation (PAN 2013 training: the summaries replaced passages
    /// with runs of at most 29, the wrong ones in verbatim pairs runs of 30 to 101).
    pub summary_copy_run: usize,
    /// Passages of the sentence path shorter than this many suspect characters (from
    /// their first word to their last, not their sentences' edges) are dropped (not in
    /// collections of kind `citation`, whose expressions are short).
    pub min_passage_chars: usize,
    /// ... and so are those shorter than this many source characters.
    pub min_passage_source_chars: usize,
    /// Passages found through sentence seeds whose [`crate::Evidence::confidence`] is
    /// under this are dropped (not in collections of kind `citation`); passages of exact
    /// runs alone always stand.
    pub min_confidence: f64,
    /// ... and so are those sharing fewer than this many terms that are not names of the
    /// suspect ([`crate::Evidence::shared_words`]): two texts on one subject share its
    /// names ("Alexian Brothers Hospital Network", "von Willebrand"), a borrowing shares
    /// words too (not in collections of kind `citation`).
    pub min_shared_words: u32,
    /// ... and so are those whose *contrast* is under this: their cosine less the best
    /// cosine of their source side with another stretch of the suspect as long as their
    /// suspect side (stretches every quarter length, overlapping it by at most a quarter).
    /// A source region borrowed once is matched best where it was borrowed; a topical
    /// neighbour paired with the same region is a ghost of the borrowing, and the
    /// borrowing matches the region better (not in collections of kind `citation`; -1:
    /// never). Near copies (`contrast_under_cosine`) are not asked.
    pub min_contrast: f64,
    /// Passages whose sides' cosine reaches this are near copies: `min_contrast` does not
    /// ask them (a suspect may reword one source paragraph twice).
    pub contrast_under_cosine: f64,
    /// How a suspect is aligned with a source in another language (`tessera_search::align_translated`).
    pub translated: TranslatedConfig,
}

/// How cross-language alignment pairs sentences and chains them into passages (the steps
/// are `tessera_search::align_translated`'s; docs/quality.md, "Translated borrowings",
/// gives the figures behind each default, measured on the xlang-dev set).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TranslatedConfig {
    /// A source term found in more than this share of the source's sentences is a common
    /// word: it weighs in scores but does not propose sentence pairs.
    pub max_common_share: f64,
    /// ... but a term is never common in fewer than this many sentences (short sources).
    pub min_common_sentences: usize,
    /// A sentence pair needs this score (the Dice of the two sides' matched idf weight).
    pub seed_score: f64,
    /// ... and this many matched suspect tokens ...
    pub seed_matches: usize,
    /// ... and this much coverage on each side (the matched share of its idf weight).
    pub seed_coverage: f64,
    /// Each suspect sentence keeps this many of its best source sentences.
    pub candidates_per_sentence: usize,
    /// Pairs chain when the suspect goes forward by at most this many sentences ...
    pub max_sentence_gap: usize,
    /// ... and the source by at most this many (a translation merges, splits and drops
    /// sentences, never reorders a passage).
    pub max_source_gap: usize,
    /// What each sentence skipped in a chain costs it (on either side).
    pub gap_cost: f64,
    /// A passage grows at each end by up to this many suspect sentences ...
    pub extend_steps: usize,
    /// ... each pairing with a source sentence at most this many beyond its source edge ...
    pub extend_source: usize,
    /// ... with at least this score ...
    pub extend_score: f64,
    /// ... and this coverage on each side.
    pub extend_coverage: f64,
    /// Chains in order on both sides merge when at most this many suspect sentences ...
    pub merge_sentence_gap: usize,
    /// ... and this many source sentences separate them.
    pub merge_source_gap: usize,
    /// A chain becomes a passage with at least this many pairs ...
    pub min_pairs: usize,
    /// ... whose mean score reaches this.
    pub min_mean_score: f64,
    /// Translated passages shorter than this many suspect characters are dropped ...
    pub min_passage_chars: usize,
    /// ... and so are those one of whose sides is more than this many times longer than
    /// the other ...
    pub max_length_ratio: f64,
    /// ... and those whose confidence is under this.
    pub min_confidence: f64,
}

impl Default for TranslatedConfig {
    fn default() -> Self {
        Self {
            max_common_share: 0.05,
            min_common_sentences: 3,
            seed_score: 0.15,
            seed_matches: 2,
            seed_coverage: 0.2,
            candidates_per_sentence: 4,
            max_sentence_gap: 2,
            max_source_gap: 4,
            gap_cost: 0.05,
            extend_steps: 3,
            extend_source: 3,
            extend_score: 0.1,
            extend_coverage: 0.1,
            merge_sentence_gap: 16,
            merge_source_gap: 30,
            min_pairs: 4,
            min_mean_score: 0.25,
            min_passage_chars: 200,
            max_length_ratio: 2.5,
            min_confidence: 0.7,
        }
    }
}

impl Default for AlignConfig {
    fn default() -> Self {
        Self {
            max_gap: 16,
            min_block_shingles: 3,
            max_occurrences: 64,
            min_seed_shingles: 3,
            min_sentence_terms: 3,
            max_sentence_terms: tessera_fingerprint::MAX_SENTENCE_TERMS,
            synonyms: true,
            synonym_max_senses: 16,
            seed_cosine: 0.33,
            seed_dice: 0.33,
            pair_seeds: true,
            seed_top_margin: 0.0,
            max_sentence_gap: 4,
            min_gap_terms: 60,
            snap_covered: 0.7,
            pair_grow_share: 0.3,
            pair_grow_steps: 2,
            gap_cosine: 1.0,
            validation_cosine: 0.4,
            anchor_shingles: 15,
            min_sentence_seeds: 2,
            single_seed_cosine: 0.5,
            single_seed_terms: 8,
            trim_seeds: true,
            grow_share: 0.5,
            grow_steps: 2,
            source_grow_share: 0.5,
            summary_sentence_gap: Some(64),
            summary_ratio: 2.5,
            summary_validation_cosine: 0.25,
            summary_grow_share: 0.2,
            summary_grow_steps: 10,
            summary_edge_share: 1.0,
            summary_min_confidence: 0.85,
            summary_rare_beyond: 4,
            summary_copy_run: 30,
            min_passage_chars: 100,
            min_passage_source_chars: 150,
            min_confidence: 0.6,
            min_shared_words: 4,
            min_contrast: 0.0,
            contrast_under_cosine: 0.8,
            translated: TranslatedConfig::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_suspects_get_a_round_per_shingles_per_round_and_twice_the_candidates() {
        let config =
            SearchConfig { max_rounds: 100, max_candidates: 200, shingles_per_round: 500, ..Default::default() };
        assert_eq!(config.rounds_for(0), (100, 200));
        assert_eq!(config.rounds_for(50_000), (100, 200));
        assert_eq!(config.rounds_for(50_499), (100, 200));
        assert_eq!(config.rounds_for(150_000), (300, 600));
        let fixed = SearchConfig { shingles_per_round: 0, ..config };
        assert_eq!(fixed.rounds_for(1_000_000), (100, 200));
    }
}
