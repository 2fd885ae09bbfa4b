//! The fingerprinted suspect, as search needs it.

use tessera_normalize::Span;

/// A fingerprinted suspect: its shingle hashes and where its tokens are.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// Shingle hashes in text order; shingle `i` covers tokens `i .. i + shingle_size`.
    pub hashes: Vec<u64>,
    /// Byte span of every token in the suspect's original text.
    pub token_bytes: Vec<Span>,
    /// Char span (Unicode scalar values) of every token.
    pub token_chars: Vec<Span>,
    /// Words per shingle (from the index settings).
    pub shingle_size: usize,
}

impl Query {
    /// Token range `[start, end)` covered by shingles `[first, last]`.
    pub(crate) fn tokens_of_shingles(&self, first: usize, last: usize) -> Span {
        Span { start: first, end: (last + self.shingle_size).min(self.token_bytes.len()) }
    }
}
