//! From a text to its fingerprints: tokens with spans, shingle hashes.

use tessera_fingerprint::Shingler;
use tessera_index::Snapshot;
use tessera_normalize::{Normalizer, Span};
use tessera_search::Query;

use crate::{FingerprintSettings, Result};

use std::cell::RefCell;

use thread_local::ThreadLocal;

/// Normalizes and shingles texts the way an index was built. Holds the normalizer's word
/// cache: clone one per thread.
#[derive(Debug, Clone)]
pub struct Fingerprinter {
    normalizer: Normalizer,
    shingler: Shingler,
}

/// One warm [`Fingerprinter`] per thread, kept for the life of this value.
///
/// The normalizer's word cache is what makes normalization cheap: a word is
/// canonicalised and stemmed once, then costs one hash-map probe. A fresh clone per
/// parallel job (rayon's `map_init` calls its init once per split, dozens of times per
/// batch) starts cold every time and stems every word again; this keeps one
/// fingerprinter per worker thread across jobs, batches and calls.
#[derive(Debug)]
pub struct Fingerprinters {
    template: Fingerprinter,
    per_thread: ThreadLocal<RefCell<Fingerprinter>>,
}

impl Fingerprinters {
    /// Per-thread copies of `template`, made on first use in each thread.
    pub fn new(template: Fingerprinter) -> Self {
        Self { template, per_thread: ThreadLocal::new() }
    }

    /// A cold copy of the template (its cache starts empty).
    pub fn template(&self) -> &Fingerprinter {
        &self.template
    }

    /// Runs `f` with this thread's fingerprinter. Re-entrant: if the thread's copy is
    /// already in use further up the stack (a nested parallel job stolen by the same
    /// thread), `f` gets a cold clone instead.
    pub fn with<R>(&self, f: impl FnOnce(&mut Fingerprinter) -> R) -> R {
        let cell = self.per_thread.get_or(|| RefCell::new(self.template.clone()));
        match cell.try_borrow_mut() {
            Ok(mut fp) => f(&mut fp),
            Err(_) => f(&mut self.template.clone()),
        }
    }
}

impl Clone for Fingerprinters {
    /// A new set of per-thread copies of the same template (caches start empty).
    fn clone(&self) -> Self {
        Self::new(self.template.clone())
    }
}

/// A suspect needs this many terms (words that are not stop words) starting with a
/// Latin letter for alignment to look up English WordNet neighbours (a reworded passage
/// is longer; a Russian text then does not pay for building the English table).
const MIN_LATIN_WORDS: usize = 20;

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
    /// Sentences as token ranges, in order, covering every token
    /// ([`tessera_search::sentences`]).
    pub sentences: Vec<Span>,
    /// Words whose look-alike letters were folded to the word's script.
    pub folded_words: usize,
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

    /// Fingerprints a text: shingle hashes, token spans, terms and sentences.
    pub fn fingerprint(&mut self, text: &str) -> Fingerprint {
        let normalized = self.normalizer.normalize_terms(text);
        let terms: Vec<u64> = normalized.tokens.iter().map(|t| t.term).collect();
        let token_bytes: Vec<Span> = normalized.tokens.iter().map(|t| t.span).collect();
        let token_chars = char_spans(text, &token_bytes);
        let sentences = tessera_search::sentences(text, &token_bytes, tessera_search::MAX_SENTENCE_TERMS);
        Fingerprint {
            hashes: self.shingler.hashes(&terms),
            token_bytes,
            token_chars,
            terms,
            sentences,
            folded_words: normalized.folded_words,
        }
    }

    /// What near-duplicate sketches take from a text: its term hashes and its shingle
    /// hashes, read cyclically when the text has fewer than `min_terms` terms (see
    /// [`tessera_near::shingles_for_sketch`]).
    pub fn sketch_input(&mut self, text: &str, min_terms: usize) -> SketchInput {
        let normalized = self.normalizer.normalize_terms(text);
        let terms: Vec<u64> = normalized.tokens.iter().map(|t| t.term).collect();
        let shingles = tessera_near::shingles_for_sketch(&self.shingler, &terms, min_terms);
        SketchInput { terms, shingles }
    }

    /// Fingerprints a suspect for search, with its terms and sentences (sentence
    /// seeding in alignment uses them) and the WordNet neighbours of its words, made
    /// with this fingerprinter's normalizer (built once per process and settings, and
    /// only for a text of at least [`MIN_LATIN_WORDS`] terms in Latin letters: the
    /// table is English).
    pub fn query(&mut self, text: &str) -> Query {
        let f = self.fingerprint(text);
        let latin = f.token_bytes.iter().filter(|s| text.as_bytes()[s.start].is_ascii_alphabetic()).count();
        // The table is compiled in: it fails to load only if the build is broken, which
        // the search crate's tests catch; alignment then uses exact terms alone.
        let synonyms = if latin >= MIN_LATIN_WORDS {
            tessera_search::Synonyms::english(self.normalizer.config()).ok()
        } else {
            None
        };
        Query {
            hashes: f.hashes,
            token_bytes: f.token_bytes,
            token_chars: f.token_chars,
            shingle_size: self.shingle_size(),
            terms: f.terms,
            sentences: f.sentences,
            synonyms,
        }
    }
}

impl Fingerprint {
    /// The digital snapshot the index stores for this text: hashes, spans, the low 32
    /// bits of each term hash and where sentences start (no words, no text).
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            hashes: self.hashes.clone(),
            token_bytes: self.token_bytes.iter().map(|s| (s.start as u64, s.end as u64)).collect(),
            token_chars: self.token_chars.iter().map(|s| (s.start as u64, s.end as u64)).collect(),
            terms: self.terms.iter().map(|&t| t as u32).collect(),
            sentence_starts: self.sentences.iter().map(|s| s.start as u64).collect(),
        }
    }
}

/// The digital snapshot the index stores for a fingerprinted text.
pub(crate) fn snapshot(f: &Fingerprint) -> Snapshot {
    f.snapshot()
}

/// A suspect's (or a kept source text's) fingerprints for search.
pub(crate) fn query(fp: &mut Fingerprinter, text: &str) -> Query {
    fp.query(text)
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

    #[test]
    fn per_thread_fingerprinters_give_what_a_fresh_one_gives_and_nest() {
        use rayon::prelude::*;
        let template = Fingerprinter::new(&FingerprintSettings::default()).unwrap();
        let texts: Vec<String> = (0..64)
            .map(|i| {
                format!("Students copied {i} essays from the internet; teachers compared the essays word by word.")
            })
            .collect();
        let expected: Vec<Vec<u64>> = texts.iter().map(|t| template.clone().fingerprint(t).hashes).collect();
        let pool = Fingerprinters::new(template);
        for _ in 0..3 {
            let got: Vec<Vec<u64>> = texts.par_iter().map(|t| pool.with(|fp| fp.fingerprint(t).hashes)).collect();
            assert_eq!(got, expected);
        }
        // A nested call on the same thread gets its own fingerprinter instead of a
        // second borrow of the busy one.
        let nested = pool.with(|outer| {
            let inner = pool.with(|inner| inner.fingerprint(&texts[1]).hashes);
            (outer.fingerprint(&texts[0]).hashes, inner)
        });
        assert_eq!(nested, (expected[0].clone(), expected[1].clone()));
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
    fn queries_of_latin_texts_carry_wordnet_neighbours() {
        let mut fp = Fingerprinter::new(&FingerprintSettings::default()).unwrap();
        let english = "The committee approved the new budget after a long debate about taxes, and several \
            members argued that the city must repair its old bridges before the winter arrives. \
            The mayor promised to publish a detailed report on the spending every month.";
        let q = fp.query(english);
        let synonyms = q.synonyms.expect("an English text gets the table");
        let term = |w: &str| {
            q.terms[english.find(w).map(|at| q.token_bytes.iter().position(|s| s.start == at).unwrap()).unwrap()]
        };
        assert!(!synonyms.own(term("approved")).is_empty());
        let russian = "Комиссия одобрила новый бюджет после долгого спора о налогах, и несколько членов \
            утверждали, что город должен отремонтировать старые мосты до наступления зимы.";
        assert!(fp.query(russian).synonyms.is_none(), "no Latin words, no English table");
        assert!(fp.query("A short note.").synonyms.is_none());
    }
}
