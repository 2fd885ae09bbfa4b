//! Fingerprints: everything that turns a text into the hashes Tessera indexes, searches
//! and sketches.
//!
//! What it owns: turning a text into the fingerprints an index stores and a suspect is
//! searched with (tokens, sentences, shingle hashes, WordNet neighbours), from settings
//! an index stores. It must never read or write an index, nor rank or align.
//!
//! # Overview
//! A [`Fingerprinter`] (built from the normalizer and shingle settings an index stores)
//! normalizes a text ([`tessera_normalize`]) and gives its [`Fingerprint`]: the term
//! hash, byte span and char span of every token, the text's sentences as token ranges
//! ([`sentences`]) and its shingle hashes ([`Shingler`]). From the same text it makes
//! what near-duplicate sketches take ([`SketchInput`]: terms and [`shingles_for_sketch`],
//! cyclic for short texts) and, for a suspect, a [`SuspectFingerprint`]: the fingerprint
//! with the English WordNet neighbours of its words ([`Synonyms`]) when it has at least
//! [`MIN_LATIN_WORDS`] terms in Latin letters, and its [`names`] (terms it capitalises
//! throughout). [`Fingerprinters`] keeps one warm
//! fingerprinter per thread.
//!
//! A *shingle* is a window of `size` consecutive canonical terms. Shingle `i` covers
//! tokens `i .. i + size`; a text with fewer than `size` tokens (but at least one) has a
//! single shingle covering all of them, so short texts still match identical short texts.
//!
//! # The hash (an on-disk contract)
//! Each token carries `term = xxh3_64(term_utf8, seed 0)`. A shingle's hash is
//! `xxh3_64_with_seed(le_bytes(term_0) ++ ... ++ le_bytes(term_{n-1}), seed)`: the
//! terms' 8-byte little-endian encodings concatenated. Python's `xxhash` package gives
//! the same values (`xxhash.xxh3_64_intdigest(b"".join(t.to_bytes(8, "little") for t in
//! terms), seed)`), so bindings and batch jobs agree. A golden test pins the values.
//!
//! # Example
//! ```
//! use tessera_fingerprint::{Fingerprinter, ShingleConfig, Shingler};
//! use tessera_normalize::NormalizerConfig;
//!
//! let shingler = Shingler::new(ShingleConfig { size: 3, seed: 0 })?;
//! assert_eq!(shingler.hashes(&[1, 2, 3, 4]).len(), 2);
//!
//! let mut fp = Fingerprinter::new(NormalizerConfig::default(), ShingleConfig::default())?;
//! let f = fp.fingerprint("Students copied the essays. Teachers compared them word by word.");
//! assert_eq!(f.hashes.len(), f.terms.len() - 2);
//! assert_eq!(f.sentences.len(), 2);
//! # Ok::<(), tessera_fingerprint::Error>(())
//! ```
//!
//! # When to use this
//! Whenever a text must be fingerprinted as an index was: adding documents (the index
//! stores the [`Fingerprint`]), checking a suspect (search aligns its fingerprint with
//! the sources'), or sketching documents for near-duplicate detection. It depends on
//! normalization only, so indexing needs neither the index's readers nor search.
#![deny(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod error;
mod fingerprinter;
mod fingerprinters;
mod names;
mod sentence;
mod shingle;
mod synonyms;
pub mod translate;

pub use error::{Error, Result};
pub use fingerprinter::{Fingerprint, Fingerprinter, MIN_LATIN_WORDS, SketchInput, SuspectFingerprint};
pub use fingerprinters::Fingerprinters;
pub use names::{MAX_NAME_SHARE, names};
pub use sentence::{MAX_SENTENCE_LEAD, MAX_SENTENCE_TERMS, SentenceEdge, sentence_edges, sentences};
pub use shingle::{
    MAX_SHINGLE_SIZE, MAX_SYNONYMS_PER_TERM, MAX_VARIANT_SHINGLES, ShingleConfig, Shingler, VariantShingle,
    edit_shingles, shingles_for_sketch, synonym_shingles, term_hash, variant_shingles,
};
pub use synonyms::Synonyms;
pub use translate::{Lexicon, Translations};
