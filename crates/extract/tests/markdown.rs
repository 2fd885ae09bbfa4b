//! Markdown fixtures (testdata/office/make.py writes them from the known
//! texts with emphasis, a hard-wrapped paragraph and a block quote).

#![allow(clippy::unwrap_used)]

mod support;

use support::fixtures::{testdata, words};
use tessera_extract::{Error, Extractor, Format};

#[test]
fn markdown_text_equals_the_known_text() {
    for lang in ["en", "ru"] {
        let known = std::fs::read_to_string(testdata(&format!("known/{lang}.txt"))).unwrap();
        let doc = Extractor::default().extract_path(&testdata(&format!("markdown/{lang}.md"))).unwrap();
        assert_eq!(doc.format, Format::Markdown);
        assert_eq!(words(&doc.text), words(&known), "{lang}");
        let paragraphs: Vec<String> = known.split("\n\n").map(words).collect();
        assert_eq!(doc.title.as_deref(), Some(paragraphs[0].as_str()));
        for (i, paragraph) in paragraphs.iter().enumerate() {
            let first_words: String = paragraph.split(' ').skip(2).take(2).collect::<Vec<_>>().join(" ");
            let at = doc.text.find(&first_words).unwrap_or_else(|| panic!("{first_words}"));
            let block = doc.origin_at(at).unwrap().place.paragraph;
            assert_eq!(block, Some(u32::try_from(i + 1).unwrap()), "{lang}: {first_words}");
        }
    }
}

#[test]
fn the_same_bytes_named_txt_stay_text() {
    let bytes = std::fs::read(testdata("markdown/en.md")).unwrap();
    let extractor = Extractor::default();
    let doc = extractor.extract_bytes("notes.txt", &bytes).unwrap();
    assert_eq!(doc.format, Format::Text);
    assert!(doc.text.starts_with("# The Printing Press"));
    assert_eq!(extractor.detect("notes.md", &bytes).unwrap(), Format::Markdown);
    let err = extractor.extract_bytes("blank.md", b" \n\n ").unwrap_err();
    assert!(matches!(err, Error::Empty { name } if name == "blank.md"));
}

#[test]
fn markdown_is_recognised_by_content_without_an_extension() {
    let bytes = std::fs::read(testdata("markdown/en.md")).unwrap();
    let extractor = Extractor::default();
    // An upload with no useful name: the markup decides.
    let doc = extractor.extract_bytes("upload", &bytes).unwrap();
    assert_eq!(doc.format, Format::Markdown);
    assert!(doc.text.starts_with("The Printing Press"), "{}", &doc.text[..40]);
    // Plain text without markup stays plain text.
    let plain = std::fs::read(testdata("known/en.txt")).unwrap();
    assert_eq!(extractor.detect("upload", &plain).unwrap(), Format::Text);
}
