//! PDF extraction on the fixtures of testdata/pdf (made by make.py there).
//!
//! These tests need the PDFium library, which the build fetches (build.rs;
//! scripts/setup-pdfium.sh where it cannot). Without it they are skipped,
//! unless `TESSERA_REQUIRE_PDFIUM=1` (CI) makes them fail; when the build
//! fetched it, they run.
//! The OCR test needs `tesseract` (eng+rus); without it the test checks the
//! message that says so, unless `TESSERA_REQUIRE_TESSERACT=1`.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::PathBuf;

use support::fixtures::{known, testdata, words};
use tessera_extract::{
    Error, ExtractConfig, Extracted, Extractor, Format, Trick, Warning, extract_bytes, extract_path,
};
use tessera_test_support::pdfium::pdfium;

fn fixture(name: &str) -> PathBuf {
    testdata("pdf").join(name)
}

fn extract(name: &str) -> Extracted {
    extract_path(&fixture(name), &ExtractConfig::default()).unwrap()
}

fn page_at(doc: &Extracted, offset: usize) -> Option<u32> {
    doc.origin_at(offset).and_then(|o| o.place.page)
}

fn check_known(lang: &str) {
    if !pdfium() {
        return;
    }
    let doc = extract(&format!("{lang}.pdf"));
    let known = known(lang);
    assert_eq!(words(&doc.text), words(&known));
    assert_eq!(doc.format, Format::Pdf);
    let title = known.lines().next().unwrap();
    assert_eq!(doc.title.as_deref(), Some(title));
    assert_eq!(doc.metadata.authors, ["Tessera Fixtures"]);
    assert_eq!(doc.metadata.pages, Some(2));
    assert!(doc.metadata.producer.as_deref().unwrap().starts_with("LibreOffice"));
    assert!(doc.metadata.created.as_deref().unwrap().starts_with("20"));
    // Paragraphs are separated by blank lines, as in the known text.
    let paragraphs: Vec<&str> = doc.text.split("\n\n").collect();
    assert_eq!(paragraphs.len(), known.split("\n\n").filter(|p| !p.trim().is_empty()).count());
    // Every character has an origin with a box on an A4 page; the title
    // is paragraph 1 on page 1, the last paragraph is on page 2.
    for (offset, c) in doc.text.char_indices().filter(|(_, c)| !c.is_whitespace()) {
        let origin = doc.origin_at(offset).unwrap_or_else(|| panic!("no origin for {c:?} at {offset}"));
        let bbox = origin.bbox.unwrap();
        assert!(0.0 <= bbox.left && bbox.left <= bbox.right && bbox.right <= 596.0, "{bbox:?}");
        assert!(0.0 <= bbox.bottom && bbox.bottom <= bbox.top && bbox.top <= 843.0, "{bbox:?}");
    }
    assert_eq!(doc.origin_at(0).unwrap().place.paragraph, Some(1));
    assert_eq!(page_at(&doc, 0), Some(1));
    let last = doc.text.rfind("\n\n").unwrap() + 2;
    assert_eq!(page_at(&doc, last), Some(2));
    assert_eq!(page_at(&doc, last - 3), Some(1));
    let paragraph = u32::try_from(paragraphs.len()).unwrap();
    assert_eq!(doc.origin_at(last).unwrap().place.paragraph, Some(paragraph));
    // The title is above the first body line.
    let body = paragraphs[0].len() + 2;
    assert!(doc.origin_at(0).unwrap().bbox.unwrap().bottom > doc.origin_at(body).unwrap().bbox.unwrap().top);
    assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
}

#[test]
fn english_made_by_libreoffice() {
    check_known("en");
}

#[test]
fn russian_made_by_libreoffice() {
    check_known("ru");
}

#[test]
fn hyphenated_words_joined_ligatures_expanded() {
    if !pdfium() {
        return;
    }
    let doc = extract("layout.pdf");
    assert_eq!(
        doc.text,
        "Printing changed the first universities: the information in books became cheap, and scholars could \
         compare editions side by side.\n\n\
         A second paragraph keeps a real hyphen at a line end: well-\n\
         Known names stay apart, and the flow of ideas grew, a softened tone."
    );
    // Both letters of the fi ligature keep its box.
    let fi = doc.text.find("first").unwrap();
    assert_eq!(doc.origin_at(fi).unwrap().bbox, doc.origin_at(fi + 1).unwrap().bbox);
    assert_ne!(doc.origin_at(fi + 1).unwrap().bbox, doc.origin_at(fi + 2).unwrap().bbox);
    // "in-" ends line 1, "formation" starts line 2: lower on the page.
    let info = doc.text.find("information").unwrap();
    let (i, f) = (doc.origin_at(info).unwrap(), doc.origin_at(info + 2).unwrap());
    assert!(i.bbox.unwrap().bottom > f.bbox.unwrap().top);
    assert_eq!(doc.origin_at(doc.text.find("A second").unwrap()).unwrap().place.paragraph, Some(2));
    assert_eq!(doc.title.as_deref(), Some("Layout"));
    assert_eq!(doc.metadata.created.as_deref(), Some("2026-01-01T12:00:00Z"));
    assert_eq!(doc.metadata.producer.as_deref(), Some("make.py"));
}

#[test]
fn invisible_white_and_tiny_text_left_out_and_reported() {
    if !pdfium() {
        return;
    }
    let doc = extract("tricks.pdf");
    assert_eq!(doc.text, "The borrowed sentence continues here and ends with a full stop.");
    let mut found: Vec<(Trick, usize, usize, Option<u32>)> =
        doc.bypasses().map(|(trick, count, at)| (trick, count, at[0].start, at[0].place.page)).collect();
    found.sort_by_key(|f| f.0);
    let at = |s: &str| doc.text.find(s).unwrap();
    let mut expected = vec![
        (Trick::HiddenText, "hidden".len(), at("continues"), Some(1)),
        (Trick::WhiteText, "white".len(), at("and ends"), Some(1)),
        (Trick::TinyText, "tiny".len(), at("with a"), Some(1)),
    ];
    expected.sort_by_key(|f| f.0);
    // Locations point at where the text was removed (before the space put
    // back, or after it).
    for (f, e) in found.iter().zip(&expected) {
        assert_eq!((f.0, f.1, f.3), (e.0, e.1, e.3));
        assert!(f.2 == e.2 || f.2 + 1 == e.2, "{f:?} vs {e:?}");
    }
    assert_eq!(found.len(), 3);
}

#[test]
fn scanned_page_without_ocr_says_how_to_get_it() {
    if !pdfium() {
        return;
    }
    let config = ExtractConfig { ocr: false, ..ExtractConfig::default() };
    let err = extract_path(&fixture("scan.pdf"), &config).unwrap_err();
    assert!(
        matches!(&err, Error::Failed { name, reason } if name.ends_with("scan.pdf") && reason.contains("without a text layer") && reason.contains("tesseract")),
        "{err}"
    );
}

#[test]
fn scanned_page_recognised_by_ocr() {
    if !pdfium() {
        return;
    }
    let have = std::process::Command::new("tesseract").arg("--version").output().is_ok();
    if !have {
        assert!(std::env::var("TESSERA_REQUIRE_TESSERACT").as_deref() != Ok("1"), "tesseract is not installed");
        eprintln!("skipped: tesseract not installed");
        return;
    }
    let doc = extract("scan.pdf");
    assert!(doc.warnings.contains(&Warning::NoTextLayer { pages: vec![1], ocr: true }), "{:?}", doc.warnings);
    // Page 1 of en.pdf: all but the last paragraph. OCR may misread a few
    // words: at least 95 % of the known words are read, in order.
    let known = known("en");
    let expected: Vec<&str> = known.trim().rsplit_once("\n\n").unwrap().0.split_whitespace().collect();
    let got: Vec<&str> = doc.text.split_whitespace().collect();
    let same = lcs(&expected, &got);
    assert!(same * 100 >= expected.len() * 95, "{same} of {} words: {}", expected.len(), doc.text);
    assert!(got.len() <= expected.len() + 5);
    // Words carry the page and a box in PDF points; the title is at the top.
    let title = doc.origin_at(0).unwrap();
    assert_eq!(title.place.page, Some(1));
    let bbox = title.bbox.unwrap();
    assert!(bbox.top > 700.0 && bbox.top <= 842.0 && bbox.left < 100.0, "{bbox:?}");
}

/// Length of the longest common subsequence of two word lists.
fn lcs(a: &[&str], b: &[&str]) -> usize {
    let mut row = vec![0usize; b.len() + 1];
    for x in a {
        let mut diagonal = 0;
        for (j, y) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = if x == y { diagonal + 1 } else { up.max(row[j]) };
            diagonal = up;
        }
    }
    row[b.len()]
}

#[test]
fn encrypted_truncated_and_corrupt_are_named_errors() {
    if !pdfium() {
        return;
    }
    let err = extract_path(&fixture("encrypted.pdf"), &ExtractConfig::default()).unwrap_err();
    assert!(matches!(&err, Error::Encrypted { name } if name.ends_with("encrypted.pdf")), "{err}");
    let err = extract_path(&fixture("truncated.pdf"), &ExtractConfig::default()).unwrap_err();
    assert!(matches!(&err, Error::Malformed { name, format: "pdf", .. } if name.ends_with("truncated.pdf")), "{err}");
    let err = extract_bytes("junk.pdf", b"%PDF-1.7\nnot really a pdf\n", &ExtractConfig::default()).unwrap_err();
    assert!(matches!(&err, Error::Malformed { name, .. } if name == "junk.pdf"), "{err}");
    // A PDF cut after its first objects, with a page whose text survives, is
    // read and the damage reported; one with none left is Empty or Malformed.
    let whole = std::fs::read(fixture("layout.pdf")).unwrap();
    let cut = &whole[..whole.len() - 40];
    match extract_bytes("cut.pdf", cut, &ExtractConfig::default()) {
        Ok(doc) => assert!(doc.warnings.iter().any(|w| matches!(w, Warning::Damaged { .. })), "{:?}", doc.warnings),
        Err(err) => assert!(matches!(&err, Error::Malformed { name, .. } if name == "cut.pdf"), "{err}"),
    }
}

#[test]
fn detected_by_content_whatever_the_name() {
    if !pdfium() {
        return;
    }
    let bytes = std::fs::read(fixture("layout.pdf")).unwrap();
    let extractor = Extractor::default();
    assert_eq!(extractor.detect("notes.txt", &bytes).unwrap(), Format::Pdf);
    let doc = extractor.extract_bytes("notes.txt", &bytes).unwrap();
    assert!(doc.text.starts_with("Printing changed"));
}

#[test]
fn a_worker_that_cannot_start_is_a_named_error() {
    let config = ExtractConfig {
        isolation: Some(tessera_extract::WorkerCommand::new("/nonexistent/tessera", vec!["__extract-worker".into()])),
        ..ExtractConfig::default()
    };
    let err = extract_bytes("w.pdf", b"%PDF-1.4\n", &config).unwrap_err();
    assert!(matches!(&err, Error::Failed { name, reason } if name == "w.pdf" && reason.contains("worker")), "{err}");
}

#[test]
fn tricks_inside_a_known_text_are_all_found() {
    if !pdfium() {
        return;
    }
    let doc = extract("tricks_en.pdf");
    let known = known("en");
    let expected: Vec<&str> = known.split("\n\n").skip(1).take(2).collect();
    assert_eq!(words(&doc.text), words(&expected.join(" ")));
    assert_eq!(doc.text.matches("\n\n").count(), 1);
    // make.py hides one word after every third: invisible, white, tiny in turn.
    let tricks: Vec<(Trick, usize, usize)> = doc.bypasses().map(|(t, count, at)| (t, count, at.len())).collect();
    assert_eq!(tricks.len(), 3, "{tricks:?}");
    for (trick, count, locations) in tricks {
        assert!(count >= 5 * 4 && locations >= 4, "{trick:?}: {count} characters at {locations} places");
    }
}
