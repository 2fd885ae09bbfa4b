//! Pairwise alignment without an index (the PAN text alignment task, `tessera align`):
//! both texts fingerprinted with the same settings, then aligned as `check` aligns a
//! suspect with a source, across languages too when the two differ.

use tessera_fingerprint::translate::text_language;
use tessera_search::{Block, Query, SearchConfig, Searcher, align_translated};

use crate::translated::CrossLanguageStep;
use crate::{FingerprintSettings, Fingerprinter, Fingerprinters, Result};

/// Aligns a suspect with one source. Holds one warm fingerprinter per thread: share one
/// aligner across a parallel loop.
#[derive(Debug)]
pub struct PairAligner {
    fingerprinters: Fingerprinters,
    searcher: Searcher,
    cross: CrossLanguageStep,
}

impl PairAligner {
    /// An aligner with these fingerprint and search settings (`search.cross_language`
    /// `on` without an installed dictionary is an error).
    pub fn new(settings: &FingerprintSettings, search: SearchConfig) -> Result<Self> {
        let cross = CrossLanguageStep::new(search.cross_language, &settings.normalizer)?;
        Ok(Self {
            fingerprinters: Fingerprinters::new(Fingerprinter::new(settings)?),
            searcher: Searcher::new(search),
            cross,
        })
    }

    /// Why translated borrowings are not looked for (`None` when they are).
    pub fn cross_language_off(&self) -> Option<String> {
        self.cross.off_because()
    }

    /// The blocks `suspect` borrows from `source`, in suspect order (none when they
    /// cover less than the search settings' minimum). When the two are in different
    /// languages that the lexicon translates, the passages that translate the source
    /// join those found within one language (which win where both cover a stretch).
    pub fn align(&self, suspect: &str, source: &str) -> Vec<Block> {
        let (query, source_query, translations) = self.fingerprinters.with(|fp| {
            let fingerprinted = fp.suspect(suspect);
            let (source_fp, detected) = fp.fingerprint_and_language(source);
            let translations = CrossLanguageStep::language(suspect, &fingerprinted).zip(text_language(
                source,
                &source_fp.token_bytes,
                detected.as_deref(),
            ));
            let translations =
                translations.and_then(|(from, to)| self.cross.translations(suspect, &fingerprinted, &from, &to));
            let shingle_size = fp.shingle_size();
            (Query::from(fingerprinted), Query::from_fingerprint(source_fp, shingle_size, None), translations)
        });
        let mut blocks = self.searcher.align_pair(&query, &source_query);
        if let Some(translations) = translations {
            let translated =
                align_translated(&query, &translations, &source_query, &self.searcher.config().align.translated);
            let overlaps = |t: &Block| {
                blocks
                    .iter()
                    .any(|b| b.suspect.bytes.start < t.suspect.bytes.end && t.suspect.bytes.start < b.suspect.bytes.end)
            };
            let kept: Vec<Block> = translated.into_iter().filter(|t| !overlaps(t)).collect();
            blocks.extend(kept);
            blocks.sort_by_key(|b| (b.suspect.bytes.start, b.source.bytes.start));
        }
        blocks
    }
}
