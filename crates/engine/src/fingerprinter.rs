//! From a text to its fingerprints: tokens with spans, shingle hashes.

use tessera_fingerprint::Shingler;
use tessera_index::Snapshot;
use tessera_normalize::{Normalizer, Span};
use tessera_search::Query;

use crate::{FingerprintSettings, Result};

/// Normalizes and shingles texts the way an index was built. Holds the normalizer's word
/// cache: clone one per thread.
#[derive(Debug, Clone)]
pub struct Fingerprinter {
    normalizer: Normalizer,
    shingler: Shingler,
}

/// A fingerprinted text.
#[derive(Debug, Clone, Default)]
pub struct Fingerprint {
    /// Shingle hashes; shingle `i` covers tokens `i .. i + size`.
    pub hashes: Vec<u64>,
    /// Byte span of every token in the original text.
    pub token_bytes: Vec<Span>,
    /// Char span of every token in the original text.
    pub token_chars: Vec<Span>,
    /// Words whose look-alike letters were folded to the word's script.
    pub folded_words: usize,
}

impl Fingerprinter {
    /// Builds the normalizer and shingler of these settings.
    pub fn new(settings: &FingerprintSettings) -> Result<Self> {
        Ok(Self {
            normalizer: Normalizer::new(settings.normalizer.clone())?,
            shingler: Shingler::new(settings.shingles)?,
        })
    }

    /// Words per shingle.
    pub fn shingle_size(&self) -> usize {
        self.shingler.config().size
    }

    /// Fingerprints a text.
    pub fn fingerprint(&mut self, text: &str) -> Fingerprint {
        let normalized = self.normalizer.normalize(text);
        let terms: Vec<u64> = normalized.tokens.iter().map(|t| t.term).collect();
        let token_bytes: Vec<Span> = normalized.tokens.iter().map(|t| t.span).collect();
        let token_chars = char_spans(text, &token_bytes);
        Fingerprint {
            hashes: self.shingler.hashes(&terms),
            token_bytes,
            token_chars,
            folded_words: normalized.folded_words,
        }
    }

    /// Fingerprints a suspect for search.
    pub fn query(&mut self, text: &str) -> Query {
        let f = self.fingerprint(text);
        Query {
            hashes: f.hashes,
            token_bytes: f.token_bytes,
            token_chars: f.token_chars,
            shingle_size: self.shingle_size(),
        }
    }
}

impl Fingerprint {
    /// The digital snapshot the index stores for this text.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            hashes: self.hashes.clone(),
            token_bytes: self.token_bytes.iter().map(|s| (s.start as u64, s.end as u64)).collect(),
            token_chars: self.token_chars.iter().map(|s| (s.start as u64, s.end as u64)).collect(),
        }
    }
}

/// Char spans of sorted, non-overlapping byte spans, in one pass over the text.
fn char_spans(text: &str, spans: &[Span]) -> Vec<Span> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(spans.len());
    let (mut byte, mut chars) = (0usize, 0usize);
    let advance = |to: usize, byte: &mut usize, chars: &mut usize| {
        // A char starts at every byte that is not a UTF-8 continuation byte.
        *chars += bytes[*byte..to].iter().filter(|&&b| (b as i8) >= -0x40).count();
        *byte = to;
    };
    for s in spans {
        advance(s.start, &mut byte, &mut chars);
        let start = chars;
        advance(s.end, &mut byte, &mut chars);
        out.push(Span { start, end: chars });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn char_spans_count_scalar_values() {
        let text = "ёж и кот";
        let spans = [Span { start: 0, end: 4 }, Span { start: 8, end: 14 }];
        assert_eq!(char_spans(text, &spans), vec![Span { start: 0, end: 2 }, Span { start: 5, end: 8 }]);
    }
}
