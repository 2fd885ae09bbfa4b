//! The output types: spans, tokens, normalized texts.

pub use tessera_core::Span;

/// One canonical word of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    /// Byte span of the word in the original text: from its first to its last word
    /// character (ignorable characters inside are covered, never at the ends).
    pub span: Span,
    /// `xxh3_64` (seed 0) of the canonical term's UTF-8 bytes.
    pub term: u64,
}

/// The result of normalizing one text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Normalized {
    /// Canonical tokens in text order (stop words and numbers already dropped).
    pub tokens: Vec<Token>,
    /// The document language (ISO 639-1): the configured one, else the detected one
    /// when detection was reliable, else `None`.
    pub language: Option<String>,
    /// Words found, including the dropped ones (stop words, numbers).
    pub words: usize,
    /// Words whose Latin/Cyrillic look-alike letters were folded (a bypass signal),
    /// including dropped ones.
    pub folded_words: usize,
}

impl Normalized {
    /// The term hashes in text order (what fingerprinting consumes).
    pub fn term_hashes(&self) -> Vec<u64> {
        self.tokens.iter().map(|t| t.term).collect()
    }
}
