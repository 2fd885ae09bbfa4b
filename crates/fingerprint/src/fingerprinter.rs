//! From a text to its fingerprints: tokens with spans, terms, sentences, shingle hashes.

use std::sync::Arc;

use tessera_normalize::{Normalizer, NormalizerConfig, Span};

use crate::{
    MAX_SENTENCE_TERMS, Result, SentenceEdge, ShingleConfig, Shingler, Synonyms, VariantShingle, names, sentence_edges,
    sentences, shingles_for_sketch, variant_shingles,
};

/// Normalizes and shingles texts the way an index was built. Holds the normalizer's word
/// cache: clone one per thread (or use [`crate::Fingerprinters`]).
#[derive(Debug, Clone)]
pub struct Fingerprinter {
    normalizer: Normalizer,
    shingler: Shingler,
}

/// A suspect needs this many terms (words that are not stop words) starting with a
/// Latin letter for alignment to look up English WordNet neighbours (a reworded passage
/// is longer; a Russian text then does not pay for building the English table).
pub const MIN_LATIN_WORDS: usize = 20;

/// A fingerprinted text.
#[derive(Debug, Clone, Default)]
pub struct Fingerprint {
    /// Shingle hashes; shingle `i` covers tokens `i .. i + size`.
    pub hashes: Vec<u64>,
    /// Byte span of every token in the original text.
    pub token_bytes: Vec<Span>,
    /// Char span of every token in the original text.
    pub token_chars: Vec<Span>,
    /// Term hash of every token (the normalizer's `Token::term`).
    pub terms: Vec<u64>,
    /// Sentences as token ranges, in order, covering every token ([`sentences`]).
    pub sentences: Vec<Span>,
    /// How far each sentence's text reaches beyond its first and last tokens
    /// ([`sentence_edges`]).
    pub sentence_edges: Vec<SentenceEdge>,
    /// Words whose look-alike letters were folded to the word's script.
    pub folded_words: usize,
}

/// A suspect fingerprinted for search: its [`Fingerprint`], the shingle size, its names and the
/// WordNet neighbours of its words when it is written in Latin letters
/// ([`Fingerprinter::suspect`]).
#[derive(Debug, Clone, Default)]
pub struct SuspectFingerprint {
    /// The suspect's fingerprint.
    pub fingerprint: Fingerprint,
    /// Words per shingle.
    pub shingle_size: usize,
    /// The English WordNet table with terms made by the fingerprinter's normalizer;
    /// `None` for a text of fewer than [`MIN_LATIN_WORDS`] terms in Latin letters.
    pub synonyms: Option<Arc<Synonyms>>,
    /// The terms that are names in the suspect ([`names`]: sorted, distinct).
    pub names: Vec<u64>,
    /// The language the normalizer settled on (ISO 639-1; `None` when its terms did not
    /// depend on it: [`crate::translate::text_language`] tells the language of any text).
    pub language: Option<String>,
}

/// A text as near-duplicate sketches see it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SketchInput {
    /// Term hashes in text order (SimHash and lexical signatures use them).
    pub terms: Vec<u64>,
    /// Shingle hashes in text order (MinHash and exact similarities use them).
    pub shingles: Vec<u64>,
}

impl Fingerprinter {
    /// Builds the normalizer and shingler of these settings (an index stores them).
    pub fn new(normalizer: NormalizerConfig, shingles: ShingleConfig) -> Result<Self> {
        Ok(Self { normalizer: Normalizer::new(normalizer)?, shingler: Shingler::new(shingles)? })
    }

    /// Words per shingle.
    pub fn shingle_size(&self) -> usize {
        self.shingler.config().size
    }

    /// Fingerprints a text: shingle hashes, token spans, terms and sentences.
    pub fn fingerprint(&mut self, text: &str) -> Fingerprint {
        self.fingerprint_and_language(text).0
    }

    /// [`Fingerprinter::fingerprint`] and the language the normalizer settled on (ISO
    /// 639-1; `None` when the terms did not depend on it).
    pub fn fingerprint_and_language(&mut self, text: &str) -> (Fingerprint, Option<String>) {
        let normalized = self.normalizer.normalize_terms(text);
        let terms: Vec<u64> = normalized.tokens.iter().map(|t| t.term).collect();
        let token_bytes: Vec<Span> = normalized.tokens.iter().map(|t| t.span).collect();
        let token_chars = char_spans(text, &token_bytes);
        let sentences = sentences(text, &token_bytes, MAX_SENTENCE_TERMS);
        let sentence_edges = sentence_edges(text, &token_bytes, &sentences);
        let fingerprint = Fingerprint {
            hashes: self.shingler.hashes(&terms),
            token_bytes,
            token_chars,
            terms,
            sentences,
            sentence_edges,
            folded_words: normalized.folded_words,
        };
        (fingerprint, normalized.language)
    }

    /// What near-duplicate sketches take from a text: its term hashes and its shingle
    /// hashes, read cyclically when the text has fewer than `min_terms` terms (see
    /// [`shingles_for_sketch`]).
    pub fn sketch_input(&mut self, text: &str, min_terms: usize) -> SketchInput {
        let normalized = self.normalizer.normalize_terms(text);
        let terms: Vec<u64> = normalized.tokens.iter().map(|t| t.term).collect();
        let shingles = shingles_for_sketch(&self.shingler, &terms, min_terms);
        SketchInput { terms, shingles }
    }

    /// Fingerprints a suspect for search: its fingerprint (terms and sentences included:
    /// sentence seeding in alignment uses them), its [`names`] and the WordNet neighbours
    /// of its words,
    /// made with this fingerprinter's normalizer (built once per process and settings,
    /// and only for a text of at least [`MIN_LATIN_WORDS`] terms in Latin letters: the
    /// table is English).
    pub fn suspect(&mut self, text: &str) -> SuspectFingerprint {
        let (fingerprint, language) = self.fingerprint_and_language(text);
        let latin = fingerprint.token_bytes.iter().filter(|s| text.as_bytes()[s.start].is_ascii_alphabetic()).count();
        // The table is compiled in: it fails to load only if the build is broken, which
        // this crate's tests catch; alignment then uses exact terms alone.
        let synonyms = if latin >= MIN_LATIN_WORDS { Synonyms::english(self.normalizer.config()).ok() } else { None };
        let names = names(text, &fingerprint.token_bytes, &fingerprint.terms, language.as_deref());
        SuspectFingerprint { fingerprint, shingle_size: self.shingle_size(), synonyms, names, language }
    }

    /// A suspect's variant shingles ([`variant_shingles`], with this fingerprinter's
    /// shingler): what stage 1 of search looks up beside its own shingles. Synonym swaps
    /// when `synonyms` is asked and the suspect has its WordNet neighbours (a text in Latin
    /// letters), edits (a term dropped, two swapped) when `edits` is asked. Made apart from
    /// [`Fingerprinter::suspect`], only where a search will look them up.
    pub fn variant_shingles(&self, suspect: &SuspectFingerprint, synonyms: bool, edits: bool) -> Vec<VariantShingle> {
        let table = suspect.synonyms.as_deref().filter(|_| synonyms);
        variant_shingles(&self.shingler, &suspect.fingerprint.terms, table, edits)
    }
}

/// Char spans of sorted, non-overlapping byte spans, in one pass over the text.
///
/// Most texts are mostly ASCII: between two non-ASCII characters a char offset is the
/// byte offset minus a constant, so the pass jumps from one non-ASCII character to the
/// next (a vectorised scan) instead of counting every byte of every token.
fn char_spans(text: &str, spans: &[Span]) -> Vec<Span> {
    let bytes = text.as_bytes();
    let next_non_ascii =
        |from: usize| bytes[from.min(bytes.len())..].iter().position(|&b| b >= 0x80).map_or(usize::MAX, |p| from + p);
    // `extra`: bytes minus chars before `next`, the next non-ASCII character not yet counted.
    let (mut extra, mut next) = (0usize, next_non_ascii(0));
    let mut to_char = |byte: usize| {
        while next < byte {
            let len = utf8_len(bytes[next]);
            extra += len - 1;
            next = next_non_ascii(next + len);
        }
        byte - extra
    };
    spans.iter().map(|s| Span { start: to_char(s.start), end: to_char(s.end) }).collect()
}

/// Length of the UTF-8 sequence a lead byte starts.
fn utf8_len(lead: u8) -> usize {
    match lead {
        0xF0.. => 4,
        0xE0.. => 3,
        0xC0.. => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fingerprinter() -> Fingerprinter {
        Fingerprinter::new(NormalizerConfig::default(), ShingleConfig::default()).unwrap()
    }

    /// Byte spans of the space-separated words of `text` and their char spans counted
    /// the slow, obvious way.
    fn words_and_naive_chars(text: &str) -> (Vec<Span>, Vec<Span>) {
        let mut spans = Vec::new();
        let mut at = 0;
        for w in text.split(' ') {
            spans.push(Span { start: at, end: at + w.len() });
            at += w.len() + 1;
        }
        let naive = spans
            .iter()
            .map(|s| Span { start: text[..s.start].chars().count(), end: text[..s.end].chars().count() })
            .collect();
        (spans, naive)
    }

    #[test]
    fn char_spans_agree_with_counting() {
        let text = "a ё ж 𝄞x plain ascii tail, и снова 中文 end";
        let (spans, naive) = words_and_naive_chars(text);
        assert_eq!(char_spans(text, &spans), naive);
    }

    proptest::proptest! {
        #[test]
        fn char_spans_equal_naive_counting(words in proptest::collection::vec("[a-zё中𝄞 ]{0,6}", 0..40)) {
            let text = words.join(" ");
            let (spans, naive) = words_and_naive_chars(&text);
            proptest::prop_assert_eq!(char_spans(&text, &spans), naive);
        }
    }

    #[test]
    fn char_spans_count_scalar_values() {
        let text = "ёж и кот";
        let spans = [Span { start: 0, end: 4 }, Span { start: 8, end: 14 }];
        assert_eq!(char_spans(text, &spans), vec![Span { start: 0, end: 2 }, Span { start: 5, end: 8 }]);
    }

    #[test]
    fn fingerprints_hold_terms_spans_sentences_and_shingles() {
        let text = "Students copied essays. Teachers compared them word by word!";
        let f = fingerprinter().fingerprint(text);
        let words: Vec<&str> = f.token_bytes.iter().map(|s| &text[s.start..s.end]).collect();
        assert_eq!(words, ["Students", "copied", "essays", "Teachers", "compared", "word", "word"]);
        assert_eq!(f.token_chars, f.token_bytes, "ASCII: chars are bytes");
        assert_eq!(f.sentences, [Span { start: 0, end: 3 }, Span { start: 3, end: 7 }]);
        assert_eq!(f.hashes.len(), 5);
        assert_eq!(f.terms[5], f.terms[6]);
        assert_eq!(f.folded_words, 0);
    }

    #[test]
    fn suspects_in_latin_letters_carry_wordnet_neighbours() {
        let mut fp = fingerprinter();
        let english = "The committee approved the new budget after a long debate about taxes, and several \
            members argued that the city must repair its old bridges before the winter arrives. \
            The mayor promised to publish a detailed report on the spending every month.";
        let s = fp.suspect(english);
        assert_eq!(s.shingle_size, 3);
        let synonyms = s.synonyms.expect("an English text gets the table");
        let f = &s.fingerprint;
        let term = |w: &str| {
            f.terms[english.find(w).map(|at| f.token_bytes.iter().position(|s| s.start == at).unwrap()).unwrap()]
        };
        assert!(!synonyms.own(term("approved")).is_empty());
        let russian = "Комиссия одобрила новый бюджет после долгого спора о налогах, и несколько членов \
            утверждали, что город должен отремонтировать старые мосты до наступления зимы.";
        assert!(fp.suspect(russian).synonyms.is_none(), "no Latin words, no English table");
        assert!(fp.suspect("A short note.").synonyms.is_none());
    }

    #[test]
    fn sketch_inputs_of_short_texts_are_cyclic() {
        let mut fp = fingerprinter();
        let short = fp.sketch_input("Students copied essays twice", 10);
        assert_eq!(short.terms.len(), 4);
        assert_eq!(short.shingles.len(), 4, "one cyclic shingle per term");
        let long = fp.sketch_input("Students copied essays twice", 4);
        assert_eq!(long.shingles, fp.fingerprint("Students copied essays twice").hashes);
    }
}
