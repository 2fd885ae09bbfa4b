//! Glue between the fingerprint stage and the stages after it: a fingerprinter made from
//! an index's [`FingerprintSettings`] that also gives search queries, and the snapshot
//! the index stores for a fingerprint.

pub use tessera_fingerprint::{Fingerprint, SketchInput};
use tessera_index::Snapshot;
use tessera_search::{Query, SearchConfig};

use crate::{FingerprintSettings, Result};

/// [`tessera_fingerprint::Fingerprinter`] built from an index's settings, which also
/// fingerprints suspects as search [`Query`]s. Dereferences to the fingerprint stage's
/// fingerprinter (`fingerprint`, `sketch_input`, `suspect`, `shingle_size`). Holds the
/// normalizer's word cache: clone one per thread, or use [`Fingerprinters`].
#[derive(Debug, Clone)]
pub struct Fingerprinter(tessera_fingerprint::Fingerprinter);

/// One warm [`Fingerprinter`] per thread (see [`tessera_fingerprint::Fingerprinters`]).
pub type Fingerprinters = tessera_fingerprint::Fingerprinters<Fingerprinter>;

impl Fingerprinter {
    /// Builds the normalizer and shingler of these settings.
    pub fn new(settings: &FingerprintSettings) -> Result<Self> {
        Ok(Self(tessera_fingerprint::Fingerprinter::new(settings.normalizer.clone(), settings.shingles)?))
    }

    /// Fingerprints a suspect for search ([`tessera_fingerprint::Fingerprinter::suspect`]:
    /// with its terms, sentences and, for a text in Latin letters, WordNet neighbours;
    /// add [`tessera_fingerprint::Fingerprinter::variant_shingles`] for stage 1's
    /// variant look-ups).
    pub fn query(&mut self, text: &str) -> Query {
        Query::from(self.0.suspect(text))
    }
}

impl std::ops::Deref for Fingerprinter {
    type Target = tessera_fingerprint::Fingerprinter;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for Fingerprinter {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

/// The digital snapshot the index stores for a fingerprinted text: hashes, spans, the low
/// 32 bits of each term hash, where sentences start and how far their texts reach
/// beyond their tokens (no words, no text).
pub(crate) fn snapshot(fingerprint: &Fingerprint) -> Snapshot {
    let spans = |v: &[tessera_normalize::Span]| v.iter().map(|s| (s.start as u64, s.end as u64)).collect();
    Snapshot {
        hashes: fingerprint.hashes.clone(),
        token_bytes: spans(&fingerprint.token_bytes),
        token_chars: spans(&fingerprint.token_chars),
        terms: fingerprint.terms.iter().map(|&t| t as u32).collect(),
        sentence_starts: fingerprint.sentences.iter().map(|s| s.start as u64).collect(),
        sentence_edges: fingerprint.sentence_edges.clone(),
    }
}

/// A suspect's fingerprints for a search of the index: [`query`]'s, and the variant
/// shingles stage 1 will look up (`SearchConfig::synonym_lookups`, `edit_lookups`).
pub(crate) fn search_query(
    fp: &mut Fingerprinter,
    text: &str,
    search: &SearchConfig,
    cross: &crate::CrossLanguageStep,
) -> Query {
    let suspect = fp.suspect(text);
    let variant_shingles = fp.variant_shingles(&suspect, search.synonym_lookups, search.edit_lookups);
    let cross = cross.cross_query(text, &suspect);
    Query { variant_shingles, cross, ..Query::from(suspect) }
}

/// A source text's fingerprints for search: alignment takes names and WordNet
/// neighbours from the suspect only, so a source is not given them.
pub(crate) fn source_query(fp: &mut Fingerprinter, text: &str) -> Query {
    let shingle_size = fp.shingle_size();
    Query::from_fingerprint(fp.fingerprint(text), shingle_size, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the index stores for a text reads back, through search, as the text's query
    /// with terms cut to 32 bits (and without the WordNet table, which is not stored).
    #[test]
    fn snapshots_read_back_as_the_query_with_short_terms() {
        let mut fp = Fingerprinter::new(&FingerprintSettings::default()).unwrap();
        let text = "The committee approved the new budget after a long debate in Dunmore. Ёжик в тумане \
            шёл домой! Several members argued that the city must repair its old bridges.";
        let query = fp.query(text).with_short_terms();
        let stored = Query::from_snapshot(&snapshot(&fp.fingerprint(text)), fp.shingle_size());
        assert!(query.has_sentences() && query.sentences.len() == 3);
        // Names come with the suspect, cut to 32 bits like its terms.
        let names = tessera_fingerprint::names(text, &query.token_bytes, &fp.fingerprint(text).terms, Some("en"));
        let mut short: Vec<u64> = names.iter().map(|&t| t & u64::from(u32::MAX)).collect();
        short.sort_unstable();
        assert!(!short.is_empty() && query.names == short, "{:?}", query.names);
        assert_eq!(
            (&stored.hashes, &stored.token_bytes, &stored.token_chars, &stored.terms, &stored.sentences),
            (&query.hashes, &query.token_bytes, &query.token_chars, &query.terms, &query.sentences)
        );
    }

    #[test]
    fn fingerprinters_pool_the_engine_fingerprinter() {
        let pool = Fingerprinters::new(Fingerprinter::new(&FingerprintSettings::default()).unwrap());
        let text = "Students copied essays from the internet.";
        assert_eq!(pool.with(|fp| fp.query(text).hashes), pool.template().clone().fingerprint(text).hashes);
    }
}
