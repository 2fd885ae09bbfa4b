//! The fingerprinted suspect (or, for pairwise alignment, source), as search needs it.

use std::sync::Arc;

use tessera_fingerprint::{Fingerprint, SentenceEdge, SuspectFingerprint, Synonyms, VariantShingle};
use tessera_index::Snapshot;
use tessera_normalize::Span;

use crate::{CrossQuery, TextSpan};

/// A fingerprinted text: its shingle hashes, where its tokens are and, when the text was
/// at hand, its terms and sentences.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// Shingle hashes in text order; shingle `i` covers tokens `i .. i + shingle_size`.
    pub hashes: Vec<u64>,
    /// Byte span of every token in the original text.
    pub token_bytes: Vec<Span>,
    /// Char span (Unicode scalar values) of every token.
    pub token_chars: Vec<Span>,
    /// Words per shingle (from the index settings).
    pub shingle_size: usize,
    /// Term hash of every token (the normalizer's `Token::term`); empty when unknown
    /// (a source read from a snapshot). Sentence seeding needs terms on both sides.
    pub terms: Vec<u64>,
    /// Sentences as token ranges `[start, end)`, in order, covering every token; empty
    /// when unknown.
    pub sentences: Vec<Span>,
    /// How far each sentence's text reaches beyond its first and last tokens, one per
    /// sentence; empty when unknown (then blocks end at their tokens, as they do when
    /// the count is not one per sentence: block spans check it).
    pub sentence_edges: Vec<SentenceEdge>,
    /// Word neighbours of this text's terms (made with the normalizer that made the
    /// terms); `None` aligns exact terms only.
    pub synonyms: Option<Arc<Synonyms>>,
    /// The terms that are names in this text (`tessera_fingerprint::names`: sorted,
    /// distinct; cut like `terms`); empty when unknown. Evidence tells a suspect's
    /// shared names from its shared words with them.
    pub names: Vec<u64>,
    /// Its shingles varied by one edit: a word swapped for a WordNet synonym, a word
    /// dropped, two neighbours swapped (`tessera_fingerprint::variant_shingles`: sorted,
    /// distinct); stage 1 looks them up too ([`crate::SearchConfig::synonym_lookups`],
    /// [`crate::SearchConfig::edit_lookups`]). Empty when unknown.
    pub variant_shingles: Vec<VariantShingle>,
    /// Its way into other languages ([`CrossQuery`]): `None` when the check does not
    /// look across languages. Search then also finds the sources it translates in the
    /// collections holding documents in those languages
    /// ([`crate::SearchConfig::translated`]).
    pub cross: Option<Arc<CrossQuery>>,
}

impl Query {
    /// Token range `[start, end)` covered by shingles `[first, last]`.
    pub(crate) fn tokens_of_shingles(&self, first: usize, last: usize) -> Span {
        Span { start: first, end: (last + self.shingle_size).min(self.token_bytes.len()) }
    }

    /// A fingerprinted text as a query: with its terms and sentences (sentence seeding
    /// uses them), and `synonyms` made with the normalizer that made its terms.
    pub fn from_fingerprint(fingerprint: Fingerprint, shingle_size: usize, synonyms: Option<Arc<Synonyms>>) -> Self {
        Self {
            hashes: fingerprint.hashes,
            token_bytes: fingerprint.token_bytes,
            token_chars: fingerprint.token_chars,
            shingle_size,
            terms: fingerprint.terms,
            sentence_edges: fingerprint.sentence_edges,
            sentences: fingerprint.sentences,
            synonyms,
            names: Vec::new(),
            variant_shingles: Vec::new(),
            cross: None,
        }
    }

    /// A source snapshot seen as a query: hashes and token spans, and its terms and
    /// sentences when the snapshot has them (segment format 2). Snapshot terms are 32-bit:
    /// align them with a suspect whose terms went through [`Query::with_short_terms`].
    /// Sentence starts that do not describe ordered sentences over the tokens are
    /// ignored (the source is then aligned by exact runs only).
    pub fn from_snapshot(snapshot: &Snapshot, shingle_size: usize) -> Self {
        let span = |&(s, e): &(u64, u64)| Span { start: s as usize, end: e as usize };
        let token_count = snapshot.token_bytes.len();
        let mut sentences = Vec::new();
        let starts = &snapshot.sentence_starts;
        let ordered = starts.first() == Some(&0)
            && starts.windows(2).all(|w| w[0] < w[1])
            && starts.last().is_some_and(|&s| s < token_count as u64);
        if ordered && snapshot.terms.len() == token_count {
            sentences = starts
                .iter()
                .enumerate()
                .map(|(i, &s)| Span { start: s as usize, end: starts.get(i + 1).map_or(token_count, |&e| e as usize) })
                .collect();
        }
        Self {
            hashes: snapshot.hashes.clone(),
            token_bytes: snapshot.token_bytes.iter().map(span).collect(),
            token_chars: snapshot.token_chars.iter().map(span).collect(),
            shingle_size,
            terms: if sentences.is_empty() {
                Vec::new()
            } else {
                snapshot.terms.iter().map(|&t| u64::from(t)).collect()
            },
            sentences,
            sentence_edges: snapshot.sentence_edges.clone(),
            synonyms: None,
            names: Vec::new(),
            variant_shingles: Vec::new(),
            cross: None,
        }
    }

    /// This query with each term cut to its low 32 bits, as snapshots store them, for
    /// aligning with sources read from snapshots. Without its variant shingles: only
    /// stage 1 looks them up, and it has the query they came with (they are the larger
    /// part of a query: some 17 per shingle).
    pub fn with_short_terms(&self) -> Self {
        let Self {
            hashes,
            token_bytes,
            token_chars,
            shingle_size,
            terms,
            sentences,
            sentence_edges,
            synonyms,
            names,
            variant_shingles: _,
            cross,
        } = self;
        let mut q = Self {
            hashes: hashes.clone(),
            token_bytes: token_bytes.clone(),
            token_chars: token_chars.clone(),
            shingle_size: *shingle_size,
            terms: terms.clone(),
            sentences: sentences.clone(),
            sentence_edges: sentence_edges.clone(),
            synonyms: synonyms.clone(),
            names: names.clone(),
            variant_shingles: Vec::new(),
            cross: cross.clone(),
        };
        for t in q.terms.iter_mut().chain(&mut q.names) {
            *t &= u64::from(u32::MAX);
        }
        q.names.sort_unstable();
        q.names.dedup();
        q
    }

    /// The text span of tokens `r`, taking in the opening words of its first
    /// sentence when `r` starts that sentence and the closing punctuation of its last when
    /// `r` ends it (a borrowed sentence is the whole sentence: "The", "In", the final
    /// "."; its tokens are the words that are not stop words). `r` must be a non-empty
    /// range of tokens.
    pub(crate) fn text_span(&self, r: Span) -> TextSpan {
        let mut bytes = Span { start: self.token_bytes[r.start].start, end: self.token_bytes[r.end - 1].end };
        let mut chars = Span { start: self.token_chars[r.start].start, end: self.token_chars[r.end - 1].end };
        if self.sentence_edges.len() == self.sentences.len() && !self.sentences.is_empty() {
            let first = self.sentences.partition_point(|s| s.start <= r.start).saturating_sub(1);
            if let (Some(s), Some(e)) = (self.sentences.get(first), self.sentence_edges.get(first))
                && s.start == r.start
            {
                bytes.start = bytes.start.saturating_sub(e.lead_bytes as usize);
                chars.start = chars.start.saturating_sub(e.lead_chars as usize);
            }
            let last = self.sentences.partition_point(|s| s.start < r.end).saturating_sub(1);
            if let (Some(s), Some(e)) = (self.sentences.get(last), self.sentence_edges.get(last))
                && s.end == r.end
            {
                // Saturating: a snapshot's spans and edges are only as sound as its file.
                bytes.end = bytes.end.saturating_add(e.tail_bytes as usize);
                chars.end = chars.end.saturating_add(e.tail_chars as usize);
            }
        }
        TextSpan { bytes, chars }
    }

    /// Whether sentence seeding can use this text (terms and sentences known).
    pub fn has_sentences(&self) -> bool {
        !self.sentences.is_empty() && self.terms.len() == self.token_bytes.len()
    }
}

impl From<SuspectFingerprint> for Query {
    /// The suspect's fingerprint with its WordNet neighbours and its names (its variant
    /// shingles are made apart: `tessera_fingerprint::Fingerprinter::variant_shingles`).
    fn from(suspect: SuspectFingerprint) -> Self {
        let names = suspect.names;
        Self { names, ..Self::from_fingerprint(suspect.fingerprint, suspect.shingle_size, suspect.synonyms) }
    }
}

#[cfg(test)]
mod tests {
    use tessera_fingerprint::VariantShingle;

    use super::*;

    #[test]
    fn short_terms_are_cut_to_32_bits_and_leave_the_variant_shingles_behind() {
        let long = 0xABCD_0000_0000_0007_u64;
        let query = Query {
            hashes: vec![11, 12],
            token_bytes: vec![Span { start: 0, end: 1 }; 4],
            token_chars: vec![Span { start: 0, end: 1 }; 4],
            shingle_size: 3,
            terms: vec![long, 2, 3, 0x1_0000_0002],
            sentences: vec![Span { start: 0, end: 4 }],
            names: vec![0x5_0000_0002, 2, long],
            variant_shingles: vec![VariantShingle { hash: 99, shingle: 0 }],
            ..Query::default()
        };
        let short = query.with_short_terms();
        assert_eq!(short.terms, vec![7, 2, 3, 2]);
        // Names stay sorted and distinct after the cut.
        assert_eq!(short.names, vec![2, 7]);
        assert!(short.variant_shingles.is_empty());
        assert_eq!((short.hashes, short.sentences, short.shingle_size), (query.hashes, query.sentences, 3));
    }
}
