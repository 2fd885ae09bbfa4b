//! Decompression bombs (issue 18): refused while unpacking, by name, with
//! no more than the budget read. The bombs are built in memory here, small
//! enough to be quick but past the same limits as the big ones measured in
//! docs/performance.md (`examples/bombs.rs` builds those).

#![allow(clippy::unwrap_used)]

mod support;

use std::io::Read;
use support::bombs;

use tessera_extract::{Document, Error, ExtractConfig, Extractor, UnpackLimits};

/// The unpacked byte count an error reports (`unpacks N bytes from M ...`).
fn reported_unpacked(limit: &str) -> u64 {
    let (before, _) = limit.split_once(" bytes from ").expect("a ratio error gives its figures");
    before.rsplit(['(', ' ']).next().unwrap().parse().unwrap()
}

fn ratio_error(doc: &Document) -> (String, String) {
    match &doc.result {
        Err(Error::Limit { name, limit }) if limit.contains("ratio over 200:1") => (name.clone(), limit.clone()),
        other => panic!("{}: {other:?}", doc.name),
    }
}

#[test]
fn a_7z_of_zeros_is_refused_while_decoding() {
    // 64 MiB of zeros: the 7z headers give no packed size per member, so
    // the ratio is measured on the packed bytes decoded so far.
    let bytes = bombs::sevenz_of_zeros(64 << 20);
    assert!(bytes.len() < 64 << 10, "{}", bytes.len());
    let docs = Extractor::default().extract_documents("bomb.7z", &bytes);
    assert_eq!(docs.len(), 2, "{docs:?}");
    assert!(docs[0].result.as_ref().unwrap().text.starts_with("Bees make honey"));
    let (name, limit) = ratio_error(&docs[1]);
    assert_eq!(name, "bomb.7z!/zeros.txt");
    // Stopped a little after the 1 MiB floor, not at 64 MiB.
    assert!(reported_unpacked(&limit) <= 2 << 20, "{limit}");
}

#[test]
fn a_7z_member_larger_than_a_document_is_refused_from_its_header() {
    let bytes = bombs::sevenz_of_zeros(8 << 20);
    let config = ExtractConfig { max_bytes: 1 << 20, ..ExtractConfig::default() };
    let docs = Extractor::new(config).extract_documents("big.7z", &bytes);
    match &docs[1].result {
        Err(Error::TooLarge { name, size, limit }) => {
            assert_eq!((name.as_str(), *size, *limit), ("big.7z!/zeros.txt", 8 << 20, 1 << 20));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_zip_of_zeros_is_refused_from_its_directory() {
    let bytes = bombs::zip_of_zeros(64 << 20);
    let docs = Extractor::default().extract_documents("bomb.zip", &bytes);
    assert_eq!(docs.len(), 2, "{docs:?}");
    assert!(docs[0].result.is_ok());
    let (name, limit) = ratio_error(&docs[1]);
    assert_eq!(name, "bomb.zip!/zeros.txt");
    // The declared size, refused before inflating.
    assert_eq!(reported_unpacked(&limit), 64 << 20, "{limit}");
}

#[test]
fn a_zip_that_lies_about_its_sizes_is_refused_while_inflating() {
    let mut bytes = bombs::zip_of_zeros(64 << 20);
    bombs::lie_about_sizes(&mut bytes, 1000);
    let docs = Extractor::default().extract_documents("liar.zip", &bytes);
    let zeros = docs.iter().find(|d| d.name.ends_with("zeros.txt")).expect("the member is reported");
    match &zeros.result {
        // Inflating stops at the ratio guard ...
        Err(Error::Limit { limit, .. }) => assert!(reported_unpacked(limit) <= 2 << 20, "{limit}"),
        // ... or the ZIP reader stops at the declared size and the check
        // sum fails: either way no bomb comes out.
        Err(Error::Malformed { .. }) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_docx_with_a_huge_document_is_refused_naming_the_part() {
    let bytes = bombs::docx_of(64 << 20);
    let result = Extractor::default().extract_bytes("bomb.docx", &bytes);
    match &result.map(|doc| doc.text.len()) {
        Err(Error::Limit { name, limit }) => {
            assert_eq!(name, "bomb.docx");
            assert!(limit.starts_with("word/document.xml unpacks"), "{limit}");
            assert!(limit.contains("compression ratio over 200:1"), "{limit}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_budget_is_counted_as_bytes_arrive() {
    // A member under the ratio limit but over the whole budget: stopped at
    // the budget (the headers are honest here, so refused from them).
    let bytes = bombs::zip_of_zeros(2 << 20);
    let config = ExtractConfig {
        unpack: UnpackLimits { max_total_bytes: 1 << 20, ..UnpackLimits::default() },
        ..ExtractConfig::default()
    };
    let docs = Extractor::new(config).extract_documents("small.zip", &bytes);
    assert!(
        matches!(&docs[1].result, Err(Error::Limit { name, limit }) if name == "small.zip!/zeros.txt" && limit.contains("1048576 bytes")),
        "{docs:?}"
    );
}

/// The text cap (issue 52): a document whose text passes `max_text_bytes` fails by name,
/// and a member or file without a magic number is read no further than 4 times the cap.
mod text_cap {
    use super::*;

    const CAP: u64 = 1 << 20;

    fn capped() -> Extractor {
        Extractor::new(ExtractConfig { max_text_bytes: CAP, ..ExtractConfig::default() })
    }

    fn text_too_large(doc: &Document) -> &str {
        match &doc.result {
            Err(Error::TextTooLarge { name, limit }) => {
                assert_eq!(*limit, CAP);
                name
            }
            other => panic!("{}: {other:?}", doc.name),
        }
    }

    #[test]
    fn an_archive_member_of_text_is_refused_after_four_times_the_cap() {
        // 64 MiB of text at ~100:1, under the ratio guard: stopped after 4 MiB.
        let bytes = bombs::zip_of_text(64 << 20);
        let docs = capped().extract_documents("near.zip", &bytes);
        assert_eq!(docs.len(), 2, "{docs:?}");
        assert!(docs[0].result.is_ok());
        assert_eq!(text_too_large(&docs[1]), "near.zip!/big.txt");
        let e = docs[1].result.as_ref().unwrap_err().to_string();
        assert_eq!(e, "near.zip!/big.txt: its text is over the limit of 1048576 bytes");
    }

    #[test]
    fn text_between_the_cap_and_four_times_it_is_refused_once_decoded() {
        let bytes = bombs::zip_of_text(2 << 20);
        let docs = capped().extract_documents("mid.zip", &bytes);
        assert_eq!(text_too_large(&docs[1]), "mid.zip!/big.txt");
        let mut text = Vec::new();
        bombs::varied_text(2 << 20, 3).read_to_end(&mut text).unwrap();
        assert!(matches!(capped().extract_bytes("mid.txt", &text), Err(Error::TextTooLarge { .. })));
        // At the cap exactly, the text is kept.
        text.truncate(CAP as usize);
        assert_eq!(capped().extract_bytes("at.txt", &text).unwrap().text.len() as u64, CAP);
    }

    #[test]
    fn a_docx_stops_building_its_text_at_the_cap() {
        let bytes = bombs::docx_of_text(3 << 20);
        let docs = capped().extract_documents("near.docx", &bytes);
        assert_eq!(docs.len(), 1);
        assert_eq!(text_too_large(&docs[0]), "near.docx");
        assert!(Extractor::default().extract_bytes("near.docx", &bytes).is_ok());
    }

    #[test]
    fn a_text_file_over_four_times_the_cap_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("long.txt");
        let file = std::fs::File::create(&path).unwrap();
        // Sparse, and under max_bytes: refused from its size, not read.
        file.set_len(4 * CAP + 1).unwrap();
        drop(file);
        match capped().extract_path(&path) {
            Err(Error::TextTooLarge { name, limit }) => assert_eq!((name, limit), (path.display().to_string(), CAP)),
            other => panic!("{other:?}"),
        }
    }
}
