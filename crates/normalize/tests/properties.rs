//! Property tests of the public API: spans, reflow invariance, idempotence.

use proptest::prelude::*;
use tessera_normalize::{Normalizer, NormalizerConfig};

/// Word pieces that exercise every rule: ASCII, Cyrillic with ё, look-alikes, NFKC
/// forms, accents, digits, apostrophes, CJK, emoji, ignorables.
const PIECES: &[&str] = &[
    "plagiarism",
    "Text",
    "students",
    "copying",
    "don't",
    "O’Neil",
    "covid19",
    "2024",
    "the",
    "and",
    "Привет",
    "ёлка",
    "Ёжик",
    "студенты",
    "пpивeт",
    "и",
    "которые",
    "ﬁle",
    "ＦＵＬＬ",
    "café",
    "cafe\u{0301}",
    "за\u{0301}мок",
    "pla\u{200B}giarism",
    "при\u{00AD}мер",
    "東京",
    "タワー",
    "🔥",
    "λόγος",
    "naïve",
    "Straße",
    "x²",
    "İstanbul",
    "ΣΟΦΟΣ",
];

/// Separators, including line breaks and odd spaces.
const SEPARATORS: &[&str] = &[" ", "  ", "\n", "\r\n", "\t", ", ", ". ", " - ", "\u{00A0}", "\u{2028}", "!\n\n"];

/// Sentences of several languages and scripts, for texts longer than the samples.
const LONG_SENTENCES: &[&str] = &[
    "The students were copying their essays from the Internet, and the teachers did not notice it.",
    "Студенты списывали свои рефераты из интернета, а преподаватели этого не замечали.",
    "Він сказав дітям, що вони мають їсти, бо сонце вже сіло, і мати кличе їх додому.",
    "Le chat est sur la table et il regarde les oiseaux par la fenêtre de la maison.",
    "Die Studenten haben ihre Hausarbeiten aus dem Internet kopiert, und die Lehrer haben es nicht bemerkt.",
    "Los estudiantes copiaban sus ensayos de Internet y los profesores no se daban cuenta.",
    "bindresvport(3) sockfd sin->sin_port NULL 0x7f 2024-11-24",
    "p l a g i a r i s m  w.o.r.k.s pla\u{200B}giarism don’t O’Neil",
    "Η γλώσσα είναι ελληνική και το κείμενο είναι μικρό.",
];

fn text_strategy() -> impl Strategy<Value = String> {
    proptest::collection::vec((0..PIECES.len(), 0..SEPARATORS.len()), 0..40).prop_map(|parts| {
        let mut text = String::new();
        for (p, s) in parts {
            text.push_str(PIECES[p]);
            text.push_str(SEPARATORS[s]);
        }
        text
    })
}

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![text_strategy(), "\\PC{0,300}", any::<String>()]
}

fn normalizer(stemming: bool) -> Normalizer {
    Normalizer::new(NormalizerConfig { stemming, language: Some("en".into()), ..Default::default() })
        .expect("valid config")
}

/// `normalize_terms` (by `b`) gives the tokens, word counts and, when it names one, the
/// language that `normalize` (by `a`) gives for `text`.
fn terms_equal_full(a: &mut Normalizer, b: &mut Normalizer, text: &str) -> Result<(), TestCaseError> {
    let full = a.normalize(text);
    let terms = b.normalize_terms(text);
    prop_assert_eq!(&terms.tokens, &full.tokens);
    prop_assert_eq!((terms.words, terms.folded_words), (full.words, full.folded_words));
    if terms.language.is_some() {
        prop_assert_eq!(&terms.language, &full.language);
    }
    Ok(())
}

proptest! {
    #[test]
    fn spans_are_in_bounds_on_boundaries_and_increasing(text in any_text()) {
        let mut n = Normalizer::new(NormalizerConfig::default()).expect("valid config");
        let normalized = n.normalize(&text);
        prop_assert!(normalized.tokens.len() <= normalized.words);
        let mut last_end = 0;
        for token in &normalized.tokens {
            let span = token.span;
            prop_assert!(span.start < span.end);
            prop_assert!(span.end <= text.len());
            prop_assert!(span.start >= last_end);
            prop_assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
            last_end = span.end;
        }
    }

    #[test]
    fn reflow_does_not_change_terms(parts in proptest::collection::vec((0..PIECES.len(), 0..SEPARATORS.len(), 0..SEPARATORS.len()), 0..30)) {
        let mut n = normalizer(true);
        let (mut a, mut b) = (String::new(), String::new());
        for (p, s1, s2) in parts {
            // Same words, different whitespace (only whitespace separators here).
            let ws = |s: usize| if SEPARATORS[s].trim().is_empty() { SEPARATORS[s] } else { " \n " };
            a.push_str(PIECES[p]);
            a.push_str(ws(s1));
            b.push_str(PIECES[p]);
            b.push_str(ws(s2));
            b.push_str("   ");
        }
        prop_assert_eq!(n.normalize(&a).term_hashes(), n.normalize(&b).term_hashes());
    }

    /// The fast path (byte-class tokenizer runs, hot and large word caches) gives the
    /// terms the slow path (no cache, each word canonicalised as a string) gives, also
    /// when one normalizer's caches are warm from other texts, and for detected
    /// languages.
    #[test]
    fn cached_fast_path_equals_the_general_path(texts in proptest::collection::vec(any_text(), 1..6)) {
        let mut n = Normalizer::new(NormalizerConfig::default()).expect("valid config");
        for text in texts.iter().chain(texts.iter()) {
            let fast = n.normalize(text);
            let slow = n.canonical_terms(text);
            let slow_tokens: Vec<(usize, usize, u64)> = slow
                .iter()
                .map(|(span, term)| (span.start, span.end, xxhash_rust::xxh3::xxh3_64(term.as_bytes())))
                .collect();
            let fast_tokens: Vec<(usize, usize, u64)> =
                fast.tokens.iter().map(|t| (t.span.start, t.span.end, t.term)).collect();
            prop_assert_eq!(fast_tokens, slow_tokens);
        }
    }

    /// `normalize_terms` (language identified only as far as terms need it) gives the
    /// tokens, word counts and language (when it has one) of `normalize`.
    #[test]
    fn normalize_terms_equals_normalize(text in any_text(), prefix in proptest::sample::select(vec![
        "",
        "Функция используется для привязки сокета к привилегированному порту. ",
        "Він сказав дітям, що вони мають їсти, бо сонце вже сіло. ",
        "Le chat est sur la table et il regarde les oiseaux par la fenêtre. ",
        "The students were copying their essays from the Internet. ",
    ])) {
        let text = format!("{prefix}{text}");
        let mut a = Normalizer::new(NormalizerConfig::default()).expect("valid config");
        let mut b = a.clone();
        terms_equal_full(&mut a, &mut b, &text)?;
    }

    /// The same on texts longer than the language samples, in several languages (the
    /// quick check's words are counted while normalizing; a text in another Latin-script
    /// language is normalized again with its stemmer).
    #[test]
    fn normalize_terms_equals_normalize_on_long_texts(
        sentences in proptest::collection::vec((0..LONG_SENTENCES.len(), 0..SEPARATORS.len()), 1..80),
        text in text_strategy(),
    ) {
        let mut long = String::new();
        for (i, s) in sentences {
            long.push_str(LONG_SENTENCES[i]);
            long.push_str(SEPARATORS[s]);
        }
        long.push_str(&text);
        let mut a = Normalizer::new(NormalizerConfig::default()).expect("valid config");
        let mut b = a.clone();
        for _ in 0..2 {
            terms_equal_full(&mut a, &mut b, &long)?;
        }
    }

    /// Without stemming, normalizing the canonical terms gives them back exactly.
    #[test]
    fn idempotent_without_stemming(text in text_strategy()) {
        let mut n = normalizer(false);
        let terms: Vec<String> = n.canonical_terms(&text).into_iter().map(|(_, t)| t).collect();
        let again: Vec<String> = n.canonical_terms(&terms.join(" ")).into_iter().map(|(_, t)| t).collect();
        prop_assert_eq!(&again, &terms);
        prop_assert_eq!(n.normalize(&terms.join(" ")).term_hashes(), n.normalize(&text).term_hashes());
    }

    /// With stemming, the surface forms (everything before the stemmer) are a fixed
    /// point: normalizing them gives the same term hashes as normalizing the text.
    #[test]
    fn surface_forms_are_a_fixed_point_of_stemming_normalization(text in text_strategy()) {
        let mut surface = normalizer(false);
        let mut stemming = normalizer(true);
        let forms: Vec<String> = surface.canonical_terms(&text).into_iter().map(|(_, t)| t).collect();
        prop_assert_eq!(stemming.normalize(&forms.join(" ")).term_hashes(), stemming.normalize(&text).term_hashes());
    }
}

/// Snowball stems are not always stems of themselves (`красивая` -> `красив` ->
/// `крас`), so normalizing stems again is not idempotent; the engine never does that
/// (queries are normalized from their text). On realistic English vocabulary stems are
/// almost always stable.
#[test]
fn stems_are_mostly_stable_on_english_vocabulary() {
    let text = "Plagiarism detection systems compare a suspicious document with a large collection \
        of sources. Each text is split into words, the words are reduced to canonical terms, and \
        overlapping windows of terms are hashed into fingerprints. Documents sharing many \
        fingerprints are aligned to find the borrowed passages, which reviewers then inspect \
        carefully before drawing conclusions about academic honesty and originality.";
    let mut n = normalizer(true);
    let terms: Vec<String> = n.canonical_terms(text).into_iter().map(|(_, t)| t).collect();
    let stable = terms.iter().filter(|t| n.canonical(t).as_deref() == Some(t.as_str())).count();
    assert!(stable * 100 >= terms.len() * 90, "{stable} of {}", terms.len());
    let mut ru =
        Normalizer::new(NormalizerConfig { language: Some("ru".into()), ..Default::default() }).expect("valid");
    assert_eq!(ru.canonical("красивая").as_deref(), Some("красив"));
    assert_eq!(ru.canonical("красив").as_deref(), Some("крас"));
}
