//! Normalization (canonicalisation): turn a text into canonical word tokens that keep
//! their byte span in the original text.
//!
//! What it owns: the canonical words of a text, each with its byte span in the original
//! text. It must never rewrite the text or lose an offset: every later stage maps back to
//! the original through these spans.
//!
//! # Overview
//! [`Normalizer::normalize`] finds the words of a text and reduces each to a canonical
//! term, so that texts that differ only in form (case, line breaks, Unicode tricks,
//! inflection, function words) give the same term sequence. Each kept word becomes a
//! [`Token`]: its byte [`Span`] in the **original** text (the text is never rewritten;
//! each word is canonicalised on its own, so spans are exact) and `term =
//! xxh3_64(canonical term)`, which fingerprinting shingles. [`CharIndex`] converts byte
//! offsets to character offsets for reports and evaluation.
//!
//! # The rules
//! **Words.** A word is a maximal run of letters, digits and combining marks.
//! Whitespace, line breaks, punctuation, symbols and emoji separate words, so re-flowed
//! lines and repeated spaces never change the tokens. Invisible format characters
//! (U+200B..U+200F, U+2060.., U+FEFF, soft hyphen U+00AD, every `Cf`, variation
//! selectors) are skipped *inside* a word and do not split it (`pla\u{200B}giarism` is
//! `plagiarism`).
//! - *Apostrophes*: `'`, `’`, `‘`, `＇` (and the letter `ʼ`) between two word characters
//!   belong to the word and become ASCII `'`: `don't`, `O’Neil` -> `o'neil`. Elsewhere
//!   (quotes, `students'`) they separate. The English Snowball stemmer strips
//!   possessives (`John's` -> `john`); contractions are in the English stop list.
//! - *Hyphens* separate (`well-known` is two words); a soft hyphen does not.
//! - *CJK*: Han, Hiragana and Katakana have no spaces between words; for now each such
//!   character is a word by itself (with its combining marks). Thai, Lao, Khmer and
//!   Myanmar runs stay one word each (a known limitation: char shingles suit them).
//!
//! **Per word**, in order:
//! 1. NFKC, only when the word is not ASCII and not already NFKC (`ﬁle` -> `file`,
//!    fullwidth `ＡＢＣ` -> `ABC`); characters NFKC turns into non-word ones are removed,
//!    so one original word is always at most one token.
//! 2. Latin/Cyrillic look-alike letters in a word that mixes both scripts are folded to
//!    its dominant script (`пpивeт` with Latin `p`, `e` -> `привет`); see
//!    [`Normalized::folded_words`]. Dominance: more letters *without* a look-alike wins;
//!    on a tie, more letters wins; on a tie again, Cyrillic.
//! 3. Lowercase; `ё` -> `е`; Greek final `ς` -> `σ`; stress marks on Cyrillic removed.
//! 4. Numbers dropped: a word without any letter (`2024`, `3.14` is two such words).
//!    Words mixing letters and digits are kept whole (`covid19`, `mp3`, `3rd`).
//! 5. Stop words dropped: the curated lists `stopwords/ru.txt` (Cyrillic words) and
//!    `stopwords/en.txt` (Latin words when the document's Latin language is English),
//!    plus [`NormalizerConfig::extra_stop_words`].
//! 6. Snowball stem (rust-stemmers, one pass): Cyrillic -> Russian; Greek, Arabic,
//!    Tamil -> their own; Latin -> the document's language if Snowball has it, else
//!    English. Other scripts are not stemmed.
//!
//! **Language.** [`NormalizerConfig::language`] (ISO 639-1) forces it. Otherwise it is
//! detected on ~2 KB from the middle of the text: a quick stop-word check settles plain
//! English and Russian (90 % of the words in one script, enough stop words, and for
//! Russian its own letters `ы`/`э` and none of Ukrainian, Belarusian, South Slavic or
//! Turkic ones); anything else goes to `whatlang`, trusted only when it calls its answer
//! reliable. The result is [`Normalized::language`]. (`whatlang` costs 100-150 µs a
//! sample, more than normalizing a 10 KB text; on the 3,236 PAN-13 sources and the seed
//! texts the quick check never contradicts a reliable `whatlang` answer.) For a sample
//! whose main script is Latin, `whatlang`'s answer is computed by `latin_lang`: its
//! algorithm with the trigram profiles inverted (one probe per sample trigram instead of
//! 11,100), the same language and confidence, property-tested against `whatlang`.
//!
//! The term of a word is `xxh3_64` (seed 0) of its canonical string's UTF-8 bytes.
//! Changing these rules changes fingerprints; [`FORMAT_VERSION`] records them and the
//! index stores it with the [`NormalizerConfig`]. Versions: 1, the first rules; 2,
//! letters spaced apart (`p l a g i a r i s m`: four or more one-letter words in a row,
//! one same separator character apart) are joined into one word, and the Hangul fillers
//! (letters that render blank, used in place of spaces) split words.
//!
//! **Speed.** A byte-table tokenizer whose runs of ASCII letters and digits and of
//! two-byte Cyrillic letters are skipped eight bytes at a time (SWAR), and a
//! per-normalizer cache from each distinct word as written (keyed by its 64-bit
//! `xxh3`) to its term: a word is canonicalised, stemmed and hashed once. Words are
//! looked up in batches of 32 (independent probes overlap their waits for memory),
//! first in a small two-way hot cache that stays in L2 (keyed by the word's own bytes
//! when it has at most 15, so most words are never hashed), then in the large one;
//! no allocation per token. Each per-language cache is cleared at about a million
//! distinct words. [`Normalizer::normalize_terms`] skips the language identifier when
//! the text's main script is not Latin (the terms cannot depend on its answer), and
//! counts the quick check's sample words from the word cache while it normalizes the
//! text as English (normalizing again only a text found to be in another Latin-script
//! language). Every fast path has a property test against the general path.
//!
//! **Idempotence.** Without stemming, normalizing the canonical terms joined by spaces
//! gives the same terms back (language fixed). With stemming, the *surface* forms (the
//! words after steps 1-5) are a fixed point: normalizing them gives the same terms as
//! the text. Stems themselves are not: Snowball is not idempotent (Russian `красивая` ->
//! `красив` -> `крас`; about 30 % of the distinct Russian stems and 3 % of the English
//! ones in the seed texts shrink again), and a stem can be a stop word (`thesis` ->
//! `these`). Iterating the stemmer to a fixed point would over-stem, so don't
//! re-normalize terms: normalize the text (the engine always does). With detection on,
//! a list of stems may also be detected as another language.
//!
//! # Example
//! ```
//! use tessera_normalize::{CharIndex, Normalizer, NormalizerConfig};
//!
//! let mut normalizer = Normalizer::new(NormalizerConfig::default())?;
//! let text = "Студенты списывали рефераты. Стyдeнты (Latin y, e) тоже!";
//! let normalized = normalizer.normalize(text);
//! let words: Vec<&str> = normalized.tokens.iter().map(|t| &text[t.span.start..t.span.end]).collect();
//! assert_eq!(words, ["Студенты", "списывали", "рефераты", "Стyдeнты", "Latin", "y", "e"]);
//! // The look-alike spelling gives the same term as the real word.
//! assert_eq!(normalized.tokens[0].term, normalized.tokens[3].term);
//! assert_eq!(normalized.folded_words, 1);
//! assert_eq!(normalizer.canonical("Студенты").as_deref(), Some("студент"));
//!
//! // Character offsets for reports.
//! let chars = CharIndex::new(text);
//! assert_eq!(chars.char_range(normalized.tokens[1].span), 9..18);
//! # Ok::<(), tessera_normalize::Error>(())
//! ```
//!
//! # When to use this
//! Before fingerprinting any text that goes into, or is checked against, an index: the
//! same [`NormalizerConfig`] (stored in the index) must normalize both sides. Build one
//! [`Normalizer`] and reuse it (its cache warms up); clone one per thread. Use
//! [`Normalizer::canonical`] and [`Normalizer::canonical_terms`] to see the terms as
//! strings (tests, debugging, display), not on the hot path.
#![deny(missing_docs)]
// `unwrap` is fine in unit tests (the workspace lint is for library code).
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod char_index;
mod config;
mod confusables;
mod error;
mod latin_lang;
mod latin_profiles;
mod normalizer;
mod rules;
mod stem;
mod stopwords;
mod token;
mod tokenizer;
mod word_cache;

pub use char_index::CharIndex;
pub use config::{FORMAT_VERSION, NormalizerConfig};
pub use error::{Error, Result};
pub use normalizer::Normalizer;
pub use token::{Normalized, Span, Token};
