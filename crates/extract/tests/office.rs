//! DOCX, ODT, PPTX and EPUB fixtures made by LibreOffice from the known texts
//! (testdata/office/make.py): text, positions, metadata, hidden-text
//! tricks, damaged and encrypted inputs.

#![allow(clippy::unwrap_used)]

mod support;

use support::fixtures::{known, place_of, testdata, words};
use tessera_extract::{Error, ExtractConfig, Extracted, Extractor, Format, Part, Trick};

fn extract(path: &str) -> Extracted {
    Extractor::default().extract_path(&testdata(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The known text's paragraphs (the title is the first).
fn known_paragraphs(lang: &str) -> Vec<String> {
    known(lang).split("\n\n").map(words).filter(|p| !p.is_empty()).collect()
}

#[test]
fn docx_and_odt_text_equals_the_known_text() {
    for ext in ["docx", "odt"] {
        for lang in ["en", "ru"] {
            let doc = extract(&format!("{ext}/{lang}.{ext}"));
            assert_eq!(words(&doc.text), words(&known(lang)), "{ext} {lang}");
            assert_eq!(doc.format, if ext == "docx" { Format::Docx } else { Format::Odt });
            let paragraphs = known_paragraphs(lang);
            assert_eq!(doc.title.as_deref(), Some(paragraphs[0].as_str()), "{ext} {lang}");
            assert!(doc.bypasses().next().is_none(), "{ext} {lang}: {:?}", doc.warnings);
            // Paragraph numbers, and the page break before the third
            // paragraph of the body (the fourth with the title).
            for (i, paragraph) in paragraphs.iter().enumerate() {
                let first_words: String = paragraph.split(' ').take(3).collect::<Vec<_>>().join(" ");
                let place = place_of(&doc, &first_words);
                assert_eq!(place.paragraph, Some(u32::try_from(i + 1).unwrap()), "{ext} {lang} {first_words}");
                assert_eq!(place.part, Part::Body);
                assert_eq!(place.page, Some(if i >= 3 { 2 } else { 1 }), "{ext} {lang} {first_words}");
            }
            let author = if lang == "en" { "Ada Writer" } else { "Анна Писарева" };
            assert_eq!(doc.metadata.authors.first().map(String::as_str), Some(author), "{ext} {lang}");
            assert!(doc.metadata.created.as_deref().is_some_and(|d| d.starts_with("2026-01-02")), "{ext} {lang}");
            assert!(doc.metadata.language.as_deref().is_some_and(|l| l.starts_with(lang)), "{ext} {lang}");
            assert!(doc.metadata.producer.as_deref().is_some_and(|p| p.contains("LibreOffice")), "{ext} {lang}");
        }
    }
}

#[test]
fn hidden_white_and_tiny_text_is_left_out_and_reported() {
    for ext in ["docx", "odt"] {
        let doc = extract(&format!("{ext}/tricks.{ext}"));
        assert_eq!(words(&doc.text), words(&known("ru")), "{ext}");
        let tricks: Vec<(Trick, usize, Option<u32>)> =
            doc.bypasses().map(|(t, n, at)| (t, n, at.first().and_then(|l| l.place.paragraph))).collect();
        // "скрытый текст" (12 letters), "белые" (5) plus the white-styled
        // paragraph "Невидимый абзац белым стилем." (26), "крошечный" (9).
        assert_eq!(
            tricks,
            [(Trick::WhiteText, 5 + 26, Some(2)), (Trick::TinyText, 9, Some(2)), (Trick::HiddenText, 12, Some(2))],
            "{ext}"
        );
        let (_, _, white) = doc.bypasses().find(|(t, _, _)| *t == Trick::WhiteText).unwrap();
        assert_eq!(white.len(), 2, "{ext}: white text in two places");
        assert_eq!(white[1].place.paragraph, Some(3), "{ext}: the white paragraph counts");
        // The location is where the text was removed: after "книгу ".
        let removed_at = white[0].start;
        assert!(doc.text[..removed_at].ends_with("книгу "), "{ext}: {:?}", &doc.text[..removed_at]);
        assert!(doc.text[removed_at..].starts_with("в Европе"), "{ext}");
    }
}

#[test]
fn tables_notes_headers_and_footers_are_marked() {
    for ext in ["docx", "odt"] {
        let doc = extract(&format!("{ext}/structure.{ext}"));
        let text = words(&doc.text);
        assert!(
            text.starts_with("Structure Body before the table. Cell A1 Cell B1 Cell A2 Cell B2 Body after the table."),
            "{ext}: {text}"
        );
        assert!(doc.text.contains("Cell A1 Cell B1\nCell A2 Cell B2"), "{ext}: {:?}", doc.text);
        assert_eq!(place_of(&doc, "Cell B2").part, Part::Table, "{ext}");
        assert_eq!(place_of(&doc, "The footnote text.").part, Part::Footnote, "{ext}");
        assert!(doc.text.find("The footnote").unwrap() > doc.text.find("Body after").unwrap(), "{ext}");
        assert_eq!(place_of(&doc, "The page header").part, Part::Header, "{ext}");
        assert_eq!(place_of(&doc, "The page footer").part, Part::Footer, "{ext}");
        assert!(doc.text.find("The page header").unwrap() > doc.text.find("The footnote").unwrap(), "{ext}");
    }
}

#[test]
fn pptx_slides_notes_and_metadata() {
    for lang in ["en", "ru"] {
        let doc = extract(&format!("pptx/{lang}.pptx"));
        assert_eq!(doc.format, Format::Pptx);
        let paragraphs = known_paragraphs(lang);
        let notes = if lang == "en" {
            "Speaker notes for slide two."
        } else {
            "Заметки докладчика ко второму слайду."
        };
        // Slide 1: title + paragraph 1; slide 2: paragraphs 2, 3 and the
        // notes; slide 3: paragraph 4.
        let expected = [&paragraphs[..4], &[notes.to_owned()], &paragraphs[4..]].concat().join(" ");
        assert_eq!(words(&doc.text), expected, "{lang}");
        for (i, slide) in [1, 1, 2, 2, 3].iter().enumerate() {
            let first_words: String = paragraphs[i].split(' ').take(3).collect::<Vec<_>>().join(" ");
            let place = place_of(&doc, &first_words);
            assert_eq!((place.slide, place.part), (Some(*slide), Part::Body), "{lang} {first_words}");
        }
        let place = place_of(&doc, notes);
        assert_eq!((place.slide, place.part), (Some(2), Part::Notes));
        assert_eq!(doc.metadata.pages, Some(3));
        assert_eq!(doc.title.as_deref(), Some(paragraphs[0].as_str()));
    }
}

#[test]
fn damaged_truncated_and_encrypted_packages_give_named_errors() {
    let extractor = Extractor::default();
    for (path, main) in [
        ("docx/en.docx", "word/document.xml"),
        ("odt/en.odt", "content.xml"),
        ("pptx/en.pptx", "ppt/slides/slide1.xml"),
    ] {
        let bytes = std::fs::read(testdata(path)).unwrap();
        // Truncated: the central directory is gone.
        let cut = &bytes[..bytes.len() / 2];
        match extractor.extract_bytes("cut", cut) {
            Err(Error::Malformed { name, .. }) => assert_eq!(name, "cut"),
            // Without its central directory a package is no longer told
            // apart from a plain ZIP archive.
            Err(Error::Archive { name, .. }) => assert_eq!(name, "cut"),
            other => panic!("{path}: {other:?}"),
        }
        // Damaged: bytes of the main part's compressed data flipped.
        let mut damaged = bytes.clone();
        let data = member_data(&bytes, main);
        for byte in &mut damaged[data + 8..data + 40] {
            *byte ^= 0x5A;
        }
        match extractor.extract_bytes("flipped", &damaged) {
            Err(Error::Malformed { name, .. }) => assert_eq!(name, "flipped"),
            other => panic!("{path}: {other:?}"),
        }
    }
    // A ZIP member marked encrypted (general purpose flag bit 0).
    let mut bytes = std::fs::read(testdata("docx/en.docx")).unwrap();
    set_encrypted_flags(&mut bytes);
    match extractor.extract_bytes("locked.docx", &bytes) {
        Err(Error::Encrypted { name }) => assert_eq!(name, "locked.docx"),
        other => panic!("{other:?}"),
    }
}

/// Where the data of member `name` starts, from its local header.
fn member_data(bytes: &[u8], name: &str) -> usize {
    let u16_at = |i: usize| usize::from(u16::from_le_bytes([bytes[i], bytes[i + 1]]));
    (0..bytes.len() - 30)
        .find(|&i| bytes[i..].starts_with(b"PK\x03\x04") && bytes[i + 30..].starts_with(name.as_bytes()))
        .map(|i| i + 30 + u16_at(i + 26) + u16_at(i + 28))
        .unwrap_or_else(|| panic!("no member {name}"))
}

#[test]
fn truncated_xml_keeps_the_text_read_so_far_with_a_warning() {
    use std::io::{Read, Write};
    let bytes = std::fs::read(testdata("docx/en.docx")).unwrap();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(&bytes)).unwrap();
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for i in 0..archive.len() {
        let mut file = archive.by_index(i).unwrap();
        let name = file.name().unwrap().into_owned();
        let mut content = Vec::new();
        file.read_to_end(&mut content).unwrap();
        if name == "word/document.xml" {
            content.truncate(content.len() * 2 / 3);
        }
        out.start_file(name, zip::write::SimpleFileOptions::default()).unwrap();
        out.write_all(&content).unwrap();
    }
    let bytes = out.finish().unwrap().into_inner();
    let doc = Extractor::default().extract_bytes("cut.docx", &bytes).unwrap();
    assert!(words(&known("en")).starts_with(&words(&doc.text)), "{}", doc.text);
    assert!(doc.text.len() > 200);
    assert!(doc.warnings.iter().any(|w| matches!(w, tessera_extract::Warning::Damaged { .. })), "{:?}", doc.warnings);
}

/// Sets the "encrypted" bit on every local and central header.
fn set_encrypted_flags(bytes: &mut [u8]) {
    let mut i = 0;
    while i + 8 < bytes.len() {
        if bytes[i..].starts_with(b"PK\x03\x04") {
            bytes[i + 6] |= 1;
        } else if bytes[i..].starts_with(b"PK\x01\x02") {
            bytes[i + 8] |= 1;
        }
        i += 1;
    }
}

#[test]
fn unpack_limits_apply_to_office_packages() {
    let config = ExtractConfig {
        unpack: tessera_extract::UnpackLimits { max_total_bytes: 1000, ..Default::default() },
        ..ExtractConfig::default()
    };
    let err = Extractor::new(config).extract_path(&testdata("docx/ru.docx")).unwrap_err();
    assert!(matches!(err, Error::Limit { .. }), "{err}");
}

#[test]
fn epub_text_equals_the_known_text() {
    for lang in ["en", "ru"] {
        let doc = extract(&format!("epub/{lang}.epub"));
        assert_eq!(doc.format, Format::Epub);
        assert_eq!(words(&doc.text), words(&known(lang)), "{lang}");
        let paragraphs = known_paragraphs(lang);
        assert_eq!(doc.title.as_deref(), Some(paragraphs[0].as_str()));
        for (i, paragraph) in paragraphs.iter().enumerate() {
            let first_words: String = paragraph.split(' ').take(3).collect::<Vec<_>>().join(" ");
            assert_eq!(place_of(&doc, &first_words).paragraph, Some(u32::try_from(i + 1).unwrap()), "{lang}");
        }
        let author = if lang == "en" { "Ada Writer" } else { "Анна Писарева" };
        assert_eq!(doc.metadata.authors, [author]);
        assert!(doc.metadata.language.as_deref().is_some_and(|l| l.starts_with(lang)));
    }
}

/// Truncations and byte flips of every fixture (a fixed pseudo-random
/// sequence) give a document or a named error, never a panic.
#[test]
fn mutated_fixtures_never_panic() {
    let extractor = Extractor::default();
    let mut rng = tessera_test_support::words::XorShift64::new(0x9E37_79B9_7F4A_7C15);
    let mut next = move || rng.next_u64();
    for path in [
        "docx/tricks.docx",
        "docx/structure.docx",
        "odt/tricks.odt",
        "odt/structure.odt",
        "pptx/en.pptx",
        "epub/ru.epub",
        "markdown/ru.md",
    ] {
        let bytes = std::fs::read(testdata(path)).unwrap();
        let name = path.rsplit('/').next().unwrap();
        for cut in (0..bytes.len()).step_by(bytes.len() / 64 + 1) {
            if let Err(e) = extractor.extract_bytes(name, &bytes[..cut]) {
                assert!(e.to_string().contains(name), "{path}: {e}");
            }
        }
        for _ in 0..64 {
            let mut mutated = bytes.clone();
            for _ in 0..1 + next() % 8 {
                let at = usize::try_from(next() % bytes.len() as u64).unwrap();
                mutated[at] ^= u8::try_from(next() % 255 + 1).unwrap();
            }
            if let Err(e) = extractor.extract_bytes(name, &mutated) {
                assert!(e.to_string().contains(name), "{path}: {e}");
            }
        }
    }
}

#[test]
fn pptx_hidden_shapes_and_tiny_runs_are_left_out_and_reported() {
    let doc = extract("pptx/tricks.pptx");
    let paragraphs = known_paragraphs("ru");
    let notes = "Заметки докладчика ко второму слайду.";
    let expected = [&paragraphs[..4], &[notes.to_owned()], &paragraphs[4..]].concat().join(" ");
    assert_eq!(words(&doc.text), expected);
    let tricks: Vec<(Trick, usize, Option<u32>)> =
        doc.bypasses().map(|(t, n, at)| (t, n, at.first().and_then(|l| l.place.slide))).collect();
    // "крошечный" on slide 1, "Призрачная фигура" (16 letters) on slide 3.
    assert_eq!(tricks, [(Trick::TinyText, 9, Some(1)), (Trick::HiddenText, 16, Some(3))]);
}
