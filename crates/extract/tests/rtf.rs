//! RTF documents through the public API: LibreOffice-made fixtures of the
//! known texts, a hand-written one with hidden-text tricks, damage.

#![allow(clippy::unwrap_used)]

mod support;

use support::fixtures::{
    assert_table_cells_are_paragraphs, assert_text_boxes_follow_the_body,
    assert_text_hidden_through_styles_is_left_out, assert_truncated_and_corrupted_copies_never_panic, extract, fixture,
    known, words,
};
use tessera_extract::{ExtractConfig, Extracted, Format, Part, Trick, Warning, extract_bytes};

/// Every paragraph of the known text starts where an origin says it is
/// that paragraph.
fn assert_paragraphs(doc: &Extracted, known: &str) {
    let paragraphs: Vec<&str> = known.split("\n\n").map(str::trim).filter(|p| !p.is_empty()).collect();
    for (i, paragraph) in paragraphs.iter().enumerate() {
        let head: String = paragraph.chars().take(20).collect();
        let at = doc.text.find(&head).unwrap_or_else(|| panic!("{head:?} not in the text"));
        let origin = doc.origin_at(at).unwrap();
        assert_eq!(origin.place.paragraph, Some(u32::try_from(i + 1).unwrap()), "paragraph of {head:?}");
        assert_eq!(origin.place.part, Part::Body);
    }
}

#[test]
fn libreoffice_documents_equal_the_known_texts() {
    for lang in ["en", "ru"] {
        let doc = extract(&format!("rtf/{lang}.rtf"));
        assert_eq!(doc.format, Format::Rtf);
        assert_eq!(words(&doc.text), words(&known(lang)), "{lang}");
        assert_paragraphs(&doc, &known(lang));
        assert!(doc.bypasses().next().is_none(), "{lang}: {:?}", doc.warnings);
    }
}

#[test]
fn hidden_white_and_tiny_text_is_left_out_counted_and_located() {
    let doc = extract("rtf/tricks.rtf");
    assert_eq!(
        words(&doc.text),
        "Running head Visible first paragraph ends here. Second paragraph with inside. \
         Привет, мир для всех. Third page text. A footnote."
    );
    let bypasses: Vec<_> = doc.bypasses().collect();
    let find = |trick| bypasses.iter().find(|b| b.0 == trick).unwrap();
    // " secret hidden words", "WHITE" + "всех", " tiny text" without spaces.
    let hidden = find(Trick::HiddenText);
    assert_eq!(hidden.1, 17);
    assert_eq!(hidden.2[0].place.paragraph, Some(2));
    assert_eq!(&doc.text[..hidden.2[0].start], "Running head\n\nVisible first paragraph");
    let white = find(Trick::WhiteText);
    assert_eq!(white.1, 9);
    assert_eq!(white.2.iter().map(|l| l.place.paragraph.unwrap()).collect::<Vec<_>>(), [3, 4]);
    let tiny = find(Trick::TinyText);
    assert_eq!(tiny.1, 8);
    assert_eq!(tiny.2[0].place.paragraph, Some(3));
}

#[test]
fn parts_pages_and_metadata() {
    let doc = extract("rtf/tricks.rtf");
    let place = |needle: &str| doc.origin_at(doc.text.find(needle).unwrap()).unwrap().place;
    assert_eq!(place("Running head").part, Part::Header);
    assert_eq!(place("Visible").page, Some(1));
    assert_eq!(place("Third page").page, Some(2));
    assert_eq!(place("Third page").part, Part::Body);
    // The footnote follows the body, not the sentence that refers to it.
    assert!(doc.text.ends_with("A footnote."));
    assert_eq!(place("A footnote").part, Part::Footnote);
    assert_eq!(doc.title.as_deref(), Some("Hidden tricks"));
    assert_eq!(doc.metadata.authors, ["Jane Roe"]);
    assert_eq!(doc.metadata.created.as_deref(), Some("2024-03-05T10:30:00"));
    assert_eq!(doc.metadata.modified.as_deref(), Some("2024-04-06T11:45:00"));
}

#[test]
fn truncated_documents_keep_what_they_have_and_say_so() {
    let doc = extract("rtf/truncated.rtf");
    assert!(words(&known("en")).starts_with(&words(&doc.text)));
    assert!(doc.text.starts_with("The Printing Press"));
    assert!(doc.warnings.iter().any(|w| matches!(w, Warning::Damaged { .. })));
    let header_only = &fixture("rtf/en.rtf")[..400];
    let err = extract_bytes("cut.rtf", header_only, &ExtractConfig::default()).unwrap_err();
    assert!(matches!(err, tessera_extract::Error::Empty { ref name } if name == "cut.rtf"), "{err}");
}

#[test]
fn code_pages_come_from_ansicpg_and_fcharset() {
    let rtf = b"{\\rtf1\\ansi\\ansicpg1251{\\fonttbl{\\f0\\fcharset0 Arial;}{\\f1\\fcharset204 Arial;}{\\f2 Courier;}}\
        \\f1\\'cf\\'f0\\'e8\\'e2\\'e5\\'f2 \\f0 caf\\'e9 \\f2\\'ec\\'e8\\'f0\\par}";
    let doc = extract_bytes("cp.rtf", rtf, &ExtractConfig::default()).unwrap();
    assert_eq!(doc.text, "Привет café мир");
    assert_eq!(doc.encoding.as_deref(), Some("windows-1251"));
}

#[test]
fn pages_are_counted_from_page_breaks() {
    // The bench's 50-page document: ru.rtf's body 50 times, \page between.
    let ru = String::from_utf8(fixture("rtf/ru.rtf")).unwrap();
    let (head, body) = ru.split_at(ru.find("\\pard").unwrap());
    let body = body.trim_end().trim_end_matches('}');
    let long = format!("{head}{}}}", vec![body; 50].join("\\page\n"));
    let doc = extract_bytes("long.rtf", long.as_bytes(), &ExtractConfig::default()).unwrap();
    assert_eq!(words(&doc.text), vec![words(&known("ru")); 50].join(" "));
    let last = doc.origins.last().unwrap().place;
    assert_eq!((last.page, last.paragraph), (Some(50), Some(250)));
    let first = doc.origin_at(doc.text.rfind("Книгопечатание").unwrap()).unwrap().place;
    assert_eq!((first.page, first.paragraph), (Some(50), Some(246)));
}

#[test]
fn text_boxes_follow_the_body_marked() {
    assert_text_boxes_follow_the_body("rtf/textbox.rtf");
}

#[test]
fn truncated_and_corrupted_copies_never_panic() {
    assert_truncated_and_corrupted_copies_never_panic(&["rtf/en.rtf", "rtf/tricks.rtf", "rtf/textbox.rtf"]);
}

#[test]
fn table_cells_are_paragraphs_marked_as_table() {
    assert_table_cells_are_paragraphs("rtf/table.rtf");
}

#[test]
fn text_hidden_through_styles_is_left_out() {
    assert_text_hidden_through_styles_is_left_out("rtf/styles.rtf");
}
