//! The answer of one collection: sources and their aligned blocks.

use serde::{Deserialize, Serialize};
use tessera_core::{CollectionKind, DocId};
use tessera_normalize::Span;

use crate::Evidence;

/// A span of an original text, in bytes and in chars (Unicode scalar values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TextSpan {
    /// Byte range.
    pub bytes: Span,
    /// Char range.
    pub chars: Span,
}

/// One borrowed fragment: a span of the suspect and the span of the source it matches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Block {
    /// The fragment in the suspect's original text.
    pub suspect: TextSpan,
    /// The fragment in the source's original text.
    pub source: TextSpan,
    /// Suspect tokens `[start, end)` covered by the block.
    pub suspect_tokens: Span,
    /// Source tokens `[start, end)` covered by the block.
    pub source_tokens: Span,
    /// Shingles of the suspect inside the block that the source shares.
    pub matched_shingles: u32,
    /// What the block rests on; [`Evidence::confidence`] says how sure it is.
    pub evidence: Evidence,
    /// For a block found through sentence pairs (a rewording or a summary): each of its
    /// suspect sentences that has a partner, with the source sentence (or two adjacent
    /// ones) it matches best inside the block, in suspect order. Empty for a copy, whose
    /// runs say where each word comes from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pairs: Vec<SentencePair>,
}

/// One suspect sentence of a block and the source text it draws on ([`Block::pairs`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SentencePair {
    /// The suspect sentence (cut to the block).
    pub suspect: TextSpan,
    /// The source sentence, or two adjacent ones (cut to the block).
    pub source: TextSpan,
    /// The tf-idf cosine of the two (at least `AlignConfig::seed_cosine`); for a
    /// translation, the pair's score (`crate::align_translated`).
    pub cosine: f32,
    /// For a translation: each suspect word of the sentence one of whose translations
    /// the source sentence holds, with that source word, in suspect order (what a reviewer
    /// sees marked side by side). Empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub words: Vec<WordMatch>,
}

/// A suspect word of a translated sentence pair and the source word that translates it
/// ([`SentencePair::words`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WordMatch {
    /// The suspect's word.
    pub suspect: TextSpan,
    /// The source's word.
    pub source: TextSpan,
}

/// One source document of a revision, with its blocks in suspect order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceMatch {
    /// The source document.
    pub doc: DocId,
    /// Distinct suspect shingle hashes it shared when it was picked (stage 1 score; the
    /// variant shingles it shared are not counted: 0 for a source found through them
    /// alone).
    pub shared_hashes: u32,
    /// Aligned blocks, sorted by suspect position.
    pub blocks: Vec<Block>,
    /// `Some(doc)`: this is a copy of source `doc` of the same revision, found holding
    /// passages `doc` was aligned on, and its blocks are those passages in this document
    /// ([`crate::SearchConfig::max_copies`]). Copies come after every source of the
    /// revision; a document may be both a source and a copy of another source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_of: Option<DocId>,
}

/// One collection's answer for one suspect.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Revision {
    /// Collection name.
    pub collection: String,
    /// Collection kind (sources or citations).
    pub kind: CollectionKind,
    /// Sources in the order the greedy revision picked them, then their copies (in the
    /// order of the sources they copy).
    pub sources: Vec<SourceMatch>,
}
