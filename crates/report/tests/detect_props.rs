//! The citation detectors read arbitrary user text: they never panic and every span
//! they return lies on character boundaries inside the text, with matching char and
//! byte offsets.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use tessera_report::{TextSpan, find_bibliography, find_quotations};

/// Text built from the characters the detectors react to, plus letters of two scripts.
fn tricky_text() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        Just("«"),
        Just("»"),
        Just("„"),
        Just("“"),
        Just("”"),
        Just("‘"),
        Just("’"),
        Just("‚"),
        Just("‹"),
        Just("›"),
        Just("\""),
        Just("'"),
        Just("「"),
        Just("」"),
        Just("["),
        Just("]"),
        Just("("),
        Just(")"),
        Just("¹"),
        Just("*"),
        Just("12"),
        Just("2010"),
        Just(", "),
        Just(". "),
        Just(" "),
        Just("\n"),
        Just("\r\n"),
        Just("\n\n"),
        Just("p. 5"),
        Just("с. "),
        Just("Иванов"),
        Just("Smith"),
        Just("слово"),
        Just("word"),
        Just("ё"),
        Just("𝄞"),
        Just("Список литературы\n"),
        Just("References\n"),
        Just("Приложение А\n"),
        Just("1. "),
        Just("//"),
        Just("Там же"),
        Just("Электронный ресурс"),
    ];
    proptest::collection::vec(pieces, 0..80).prop_map(|p| p.concat())
}

fn check_span(text: &str, span: &TextSpan) -> Result<(), TestCaseError> {
    prop_assert!(span.bytes.start <= span.bytes.end && span.bytes.end <= text.len());
    prop_assert!(text.is_char_boundary(span.bytes.start) && text.is_char_boundary(span.bytes.end));
    prop_assert_eq!(text[..span.bytes.start].chars().count(), span.chars.start);
    prop_assert_eq!(text[..span.bytes.end].chars().count(), span.chars.end);
    Ok(())
}

fn check(text: &str) -> Result<(), TestCaseError> {
    let quotes = find_quotations(text);
    let mut last = (0, 0);
    for q in &quotes {
        check_span(text, &q.span)?;
        let inner = &text[q.span.bytes.start..q.span.bytes.end];
        prop_assert_eq!(inner.chars().next(), Some(q.marks.0));
        prop_assert_eq!(inner.chars().last(), Some(q.marks.1));
        prop_assert!(q.span.chars.end - q.span.chars.start <= tessera_report::MAX_QUOTE_CHARS + 1);
        prop_assert!((q.span.chars.start, q.span.chars.end) >= last, "sorted");
        last = (q.span.chars.start, q.span.chars.end);
        if let Some(r) = &q.reference {
            check_span(text, &r.span)?;
            prop_assert!(!r.text.is_empty());
        }
    }
    if let Some(span) = find_bibliography(text) {
        check_span(text, &span)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn detectors_never_panic_on_tricky_text(text in tricky_text()) {
        check(&text)?;
    }

    #[test]
    fn detectors_never_panic_on_any_text(text in any::<String>()) {
        check(&text)?;
    }
}

/// Adversarial texts stay fast (linear): a quadratic detector would not finish.
#[test]
fn pathological_texts_are_linear() {
    let texts = [
        "References\n".repeat(20_000),
        "Список литературы\n1. Иванов, 2010.\n".repeat(10_000),
        "«".repeat(200_000),
        "«a".repeat(100_000) + &"»".repeat(100_000),
        "\"a\" [1] ".repeat(30_000),
        "[".repeat(100_000) + &"]".repeat(100_000),
        "«x»".repeat(50_000) + &"(".repeat(50_000),
    ];
    for text in &texts {
        check(text).unwrap();
    }
}
