//! Names: the terms a text writes with a capital wherever a capital is not the sentence's.

use foldhash::{HashMap, HashMapExt};
use tessera_normalize::Span;

/// The terms that are *names* in a text: sorted, distinct term hashes of the tokens whose
/// every occurrence, apart from those that start a sentence or a line, begins with a
/// capital letter (a term seen only at sentence starts is none). "Alexian Brothers Hospital
/// Network", "OCD" and "Willebrand" are names of a text that writes them so throughout;
/// "Disorder" is not when the text also writes "disorder".
///
/// `token_bytes` and `terms` are the fingerprint's (one term per token). A token starts a
/// sentence when only non-word characters lie between it and the start of the text, a
/// line break or one of `.!?…;:` and the CJK sentence ends (stop words and numbers are
/// words here: "The Alexian" does not start with "Alexian"). Alignment uses the names of
/// a suspect to tell shared words from shared names (`tessera_search::Evidence`).
///
/// A text whose capitals mark more than words and names has none: one where names would
/// be over [`MAX_NAME_SHARE`] of the tokens (written in capitals, or in Title Case
/// throughout), and one in a language that capitalises every noun (German, by
/// `language`, the normalizer's ISO 639-1 code).
pub fn names(text: &str, token_bytes: &[Span], terms: &[u64], language: Option<&str>) -> Vec<u64> {
    if language == Some("de") {
        return Vec::new();
    }
    // Per term: (occurrences, those not starting a sentence, how many of those are
    // capitalised).
    let mut seen: HashMap<u64, (usize, u32, u32)> = HashMap::with_capacity(terms.len() / 2);
    for (span, &term) in token_bytes.iter().zip(terms) {
        let Some(first) = text.get(span.start..).and_then(|t| t.chars().next()) else {
            continue;
        };
        let e = seen.entry(term).or_insert((0, 0, 0));
        e.0 += 1;
        if !starts_sentence(text, span.start) {
            e.1 += 1;
            e.2 += u32::from(first.is_uppercase());
        }
    }
    seen.retain(|_, &mut (_, n, caps)| n > 0 && caps == n);
    let name_tokens: usize = seen.values().map(|&(all, _, _)| all).sum();
    if name_tokens as f64 > MAX_NAME_SHARE * terms.len() as f64 {
        return Vec::new();
    }
    let mut out: Vec<u64> = seen.into_keys().collect();
    out.sort_unstable();
    out
}

/// The largest share of a text's tokens that [`names`] takes as names: in English web
/// pages names are 15 % of the tokens (median of the PAN 2013 suspects), 41 % at the 99th
/// percentile; a text in capitals would make them all names.
pub const MAX_NAME_SHARE: f64 = 0.5;

/// Whether the word at byte `at` starts a sentence or a line: nothing but non-word
/// characters between it and the text's start, a line break or a sentence end.
fn starts_sentence(text: &str, at: usize) -> bool {
    let Some(before) = text.get(..at) else {
        return false;
    };
    for c in before.chars().rev() {
        if c.is_alphanumeric() {
            return false;
        }
        if matches!(c, '.' | '!' | '?' | '…' | ';' | ':' | '\n' | '\r' | '。' | '！' | '？') {
            return true;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Fingerprinter, ShingleConfig};
    use tessera_normalize::NormalizerConfig;

    /// The words of `text` that [`names`] gives, read back through the fingerprint.
    fn name_words(text: &str) -> Vec<String> {
        let mut fp = Fingerprinter::new(NormalizerConfig::default(), ShingleConfig::default()).unwrap();
        let f = fp.fingerprint(text);
        let names = names(text, &f.token_bytes, &f.terms, None);
        let mut words: Vec<String> = f
            .token_bytes
            .iter()
            .zip(&f.terms)
            .filter(|(_, t)| names.binary_search(t).is_ok())
            .map(|(s, _)| text[s.start..s.end].to_owned())
            .collect();
        words.sort();
        words.dedup();
        words
    }

    #[test]
    fn names_are_capitalised_wherever_the_capital_is_not_the_sentences() {
        let text = "Obsessive compulsive disorder is common. The Alexian Brothers run a hospital in \
            Elk Grove Village. Disorder of this kind is treated there; the hospital of the Alexian \
            Brothers treats OCD too.\nHospital staff say the disorder responds to treatment.";
        // "Disorder" and "Hospital" start sentences or lines, where the capital is the
        // sentence's; elsewhere the text writes them in lower case.
        assert_eq!(name_words(text), ["Alexian", "Brothers", "Elk", "Grove", "OCD", "Village"]);
    }

    #[test]
    fn suspects_carry_their_names() {
        let mut fp = Fingerprinter::new(NormalizerConfig::default(), ShingleConfig::default()).unwrap();
        let text = "Patients of the Alexian Brothers hospital were treated by nurses. The Alexian Brothers run it with doctors.";
        let s = fp.suspect(text);
        assert_eq!(s.names, names(text, &s.fingerprint.token_bytes, &s.fingerprint.terms, Some("en")));
        assert_eq!(s.names.len(), 2);
    }

    /// Capitals that mark every word, or every noun, mark no names.
    #[test]
    fn texts_in_capitals_or_in_german_have_no_names() {
        let plain = "Patients of the Alexian Brothers hospital were treated by nurses of the hospital.";
        assert_eq!(name_words(plain), ["Alexian", "Brothers"]);
        assert!(name_words(&plain.to_uppercase()).is_empty());
        let title = "Patients Of The Alexian Brothers Hospital Were Treated By Nurses Of The Hospital.";
        assert!(name_words(title).is_empty());
        let mut fp = Fingerprinter::new(NormalizerConfig::default(), ShingleConfig::default()).unwrap();
        let german = "Die Patienten wurden im Krankenhaus der Alexianer von den Pflegern behandelt, \
            und die Pfleger lobten das Krankenhaus.";
        let f = fp.fingerprint(german);
        assert!(!names(german, &f.token_bytes, &f.terms, None).is_empty(), "capitalised nouns look like names");
        assert!(names(german, &f.token_bytes, &f.terms, Some("de")).is_empty());
        assert!(fp.suspect(german).names.is_empty(), "the normalizer tells German");
    }

    #[test]
    fn a_word_seen_only_at_sentence_starts_is_no_name() {
        assert!(name_words("Students copied. Students wrote.").is_empty());
        assert!(name_words("").is_empty());
        assert_eq!(name_words("Дети читали «Войну и мир». Дети любят Толстого."), ["Войну", "Толстого"]);
    }

    proptest::proptest! {
        /// Any text: names are sorted, distinct terms of the text; odd spans are skipped.
        #[test]
        fn names_are_sorted_terms_of_the_text(text in "[A-Za-zЁёЖж .!?;:\n«»()é]{0,80}", shift in 0usize..3) {
            let mut fp = Fingerprinter::new(NormalizerConfig::default(), ShingleConfig::default()).unwrap();
            let f = fp.fingerprint(&text);
            let n = names(&text, &f.token_bytes, &f.terms, None);
            proptest::prop_assert!(n.windows(2).all(|w| w[0] < w[1]));
            proptest::prop_assert!(n.iter().all(|t| f.terms.contains(t)));
            // Spans off char boundaries or past the end never panic.
            let odd: Vec<Span> = f.token_bytes.iter().map(|s| Span { start: s.start + shift, end: s.end + shift }).collect();
            let _ = names(&text, &odd, &f.terms, None);
        }
    }

    #[test]
    fn sentence_starts_look_past_punctuation_and_stop_words() {
        assert!(starts_sentence("Hello", 0));
        assert!(starts_sentence("end. \"Next", 6));
        assert!(starts_sentence("line\n  (Next", 8));
        assert!(!starts_sentence("end. The Next", 9), "a stop word is a word");
        assert!(!starts_sentence("a, Next", 3));
        assert!(!starts_sentence("é", 1), "not a char boundary");
    }
}
