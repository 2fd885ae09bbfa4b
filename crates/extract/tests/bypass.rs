//! Tricks that hide borrowing: each is found, located and reported as a
//! warning, whatever the format; hidden text is left out of the text.

#![allow(clippy::unwrap_used)]

use tessera_extract::{ExtractConfig, Extracted, Trick, Warning, extract_bytes};

fn extract(name: &str, bytes: &[u8]) -> Extracted {
    extract_bytes(name, bytes, &ExtractConfig::default()).unwrap()
}

fn bypass(doc: &Extracted, trick: Trick) -> Option<(usize, Vec<(usize, usize)>)> {
    doc.warnings.iter().find_map(|w| match w {
        Warning::Bypass { trick: t, count, locations } if *t == trick => {
            Some((*count, locations.iter().map(|l| (l.start, l.end)).collect()))
        }
        _ => None,
    })
}

#[test]
fn text_level_tricks_in_plain_text() {
    let text = "Перепиcанный тeкст (Latin c and e). pla\u{200B}gia\u{200C}rism here.\n\
                Then p l a g i a r i s m spaced, and words\u{3164}glued\u{3164}by\u{3164}fillers.";
    let doc = extract("t.txt", text.as_bytes());
    assert_eq!(doc.text, text, "plain text is kept as it is");
    let (count, spans) = bypass(&doc, Trick::Homoglyphs).unwrap();
    assert_eq!(count, 2);
    assert_eq!(&text[spans[0].0..spans[0].1], "Перепиcанный");
    assert_eq!(bypass(&doc, Trick::InvisibleCharacters).unwrap().0, 1);
    let (_, spans) = bypass(&doc, Trick::SpacedLetters).unwrap();
    assert_eq!(&text[spans[0].0..spans[0].1], "p l a g i a r i s m");
    assert_eq!(bypass(&doc, Trick::SpaceSubstitutes).unwrap().0, 3);
    let shown: Vec<String> = doc.warnings.iter().map(ToString::to_string).collect();
    assert!(shown.iter().any(|s| s.starts_with("look-alike letters of another script inside words: 2")), "{shown:?}");
}

#[test]
fn clean_text_has_no_warnings() {
    let en = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/known/en.txt")).unwrap();
    let ru = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/known/ru.txt")).unwrap();
    assert!(extract("en.txt", &en).warnings.is_empty());
    assert!(extract("ru.txt", &ru).warnings.is_empty());
}

#[test]
fn html_hidden_white_and_tiny_text_is_left_out_and_reported() {
    let page = "<!doctype html><title>T</title><body>\
        <p>Visible start<span style='display:none'>hidden words</span> middle\
        <span style='color: #FFFFFF'>white</span>end.</p>\
        <p>Tiny<span style='font-size:1px'>xx</span> text.</p>\
        <div style='display:none'><a>menu item</a></div>\
        </body>";
    let doc = extract("p.html", page.as_bytes());
    assert_eq!(doc.text, "Visible start middle end.\n\nTiny text.");
    assert_eq!(bypass(&doc, Trick::HiddenText).unwrap().0, "hiddenwords".len(), "the hidden div menu is not counted");
    let (white, spans) = bypass(&doc, Trick::WhiteText).unwrap();
    assert_eq!(white, 5);
    assert_eq!(&doc.text[..spans[0].0], "Visible start middle");
    assert_eq!(bypass(&doc, Trick::TinyText).unwrap().0, 2);
}
