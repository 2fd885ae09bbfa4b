//! Archives: one document per member, nested archives, and every guard
//! (bombs, depth, encryption, damage) failing alone and by name.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

mod support;

use support::fixtures::known;
use tessera_extract::{Document, Error, ExtractConfig, Extractor, Format, UnpackLimits};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/archive").join(name)
}

fn documents(name: &str) -> Vec<Document> {
    Extractor::default().extract_path_documents(&fixture(name))
}

fn short_names(docs: &[Document]) -> Vec<String> {
    docs.iter()
        .map(|d| {
            d.name.rsplit_once(".zip!/").or(d.name.rsplit_once(".7z!/")).map_or(d.name.clone(), |(_, n)| n.to_owned())
        })
        .collect()
}

fn check_thesis(docs: &[Document], archive: &str) {
    let names: Vec<&str> = docs.iter().map(|d| d.name.as_str()).collect();
    let prefix = fixture(archive).display().to_string();
    assert!(names.contains(&format!("{prefix}!/ch1/intro.txt").as_str()), "{names:?}");
    assert!(names.contains(&format!("{prefix}!/ch2/glava.txt").as_str()), "{names:?}");
    assert!(names.contains(&format!("{prefix}!/appendix.zip!/page.html").as_str()), "{names:?}");
    assert_eq!(docs.len(), 3, "the .DS_Store litter is skipped: {names:?}");
    for doc in docs {
        let extracted = doc.result.as_ref().unwrap_or_else(|e| panic!("{}: {e}", doc.name));
        if doc.name.ends_with("intro.txt") {
            assert_eq!(extracted.text, known("en"));
        } else if doc.name.ends_with("glava.txt") {
            assert_eq!(extracted.text, known("ru"));
            assert_eq!(extracted.encoding.as_deref(), Some("windows-1251"));
        } else {
            assert_eq!(extracted.format, Format::Html);
            assert_eq!(extracted.title.as_deref(), Some("Inner page"));
            assert!(extracted.text.starts_with("Before the middle of the fifteenth century"));
        }
    }
}

#[test]
fn zip_members_are_documents_with_nested_names() {
    check_thesis(&documents("thesis.zip"), "thesis.zip");
}

#[test]
fn seven_zip_members_are_documents_with_nested_names() {
    check_thesis(&documents("thesis.7z"), "thesis.7z");
}

#[test]
fn a_bomb_member_fails_alone() {
    let docs = documents("bomb.zip");
    assert_eq!(short_names(&docs), ["good.txt", "zeros.txt"]);
    assert_eq!(docs[0].result.as_ref().unwrap().text, known("en"));
    match &docs[1].result {
        Err(Error::Limit { name, limit }) => {
            assert!(name.ends_with("bomb.zip!/zeros.txt"), "{name}");
            assert!(limit.contains("ratio"), "{limit}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_total_budget_is_shared_by_nested_archives() {
    let config = ExtractConfig {
        unpack: UnpackLimits { max_total_bytes: 1500, ..UnpackLimits::default() },
        ..ExtractConfig::default()
    };
    let docs = Extractor::new(config).extract_path_documents(&fixture("thesis.zip"));
    let failed: Vec<&Document> = docs.iter().filter(|d| matches!(d.result, Err(Error::Limit { .. }))).collect();
    assert!(!failed.is_empty(), "{docs:?}");
    assert!(docs.iter().any(|d| d.result.is_ok()), "members within the budget are still read: {docs:?}");
}

#[test]
fn nesting_deeper_than_the_limit_is_refused_by_name() {
    let docs = documents("nested.zip");
    let names = short_names(&docs);
    assert!(names.contains(&"note1.txt".to_owned()), "{names:?}");
    assert!(names.contains(&"note3.txt".to_owned()), "{names:?}");
    let deep = docs.iter().find(|d| d.name.ends_with("level3.zip")).expect("the fourth level is one failed document");
    assert!(
        matches!(&deep.result, Err(Error::Limit { limit, .. }) if limit.contains("nested deeper than 3")),
        "{deep:?}"
    );
    let shallow = Extractor::new(ExtractConfig {
        unpack: UnpackLimits { max_depth: 1, ..UnpackLimits::default() },
        ..ExtractConfig::default()
    })
    .extract_path_documents(&fixture("nested.zip"));
    assert_eq!(shallow.len(), 2, "{shallow:?}");
}

#[test]
fn encrypted_archives_and_members_are_named() {
    let docs = documents("encrypted.7z");
    assert_eq!(docs.len(), 1);
    assert!(matches!(&docs[0].result, Err(Error::Encrypted { name }) if name.ends_with("encrypted.7z")), "{docs:?}");
    let docs = documents("encrypted.zip");
    assert_eq!(docs.len(), 1, "{docs:?}");
    assert!(
        matches!(&docs[0].result, Err(Error::Encrypted { name }) if name.ends_with("encrypted.zip!/ch1/intro.txt")),
        "{docs:?}"
    );
}

#[test]
fn a_truncated_archive_is_one_named_error() {
    let docs = documents("truncated.zip");
    assert_eq!(docs.len(), 1);
    assert!(
        matches!(&docs[0].result, Err(Error::Malformed { name, format: "zip", .. }) if name.ends_with("truncated.zip")),
        "{docs:?}"
    );
}

#[test]
fn a_plain_file_is_one_document() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/known/ru.txt");
    let docs = Extractor::default().extract_path_documents(&path);
    assert_eq!(docs.len(), 1);
    assert_eq!(docs[0].name, path.display().to_string());
    assert_eq!(docs[0].result.as_ref().unwrap().text, known("ru"));
    let missing = Extractor::default().extract_path_documents(&fixture("missing.zip"));
    assert!(matches!(&missing[0].result, Err(Error::Io { .. })));
}

#[test]
fn extract_bytes_on_an_archive_says_it_is_one() {
    let bytes = std::fs::read(fixture("thesis.7z")).unwrap();
    assert!(matches!(Extractor::default().extract_bytes("t.7z", &bytes), Err(Error::Archive { .. })));
}

#[cfg(feature = "rar")]
#[test]
fn rar_members_are_documents() {
    let docs = documents("version.rar");
    assert_eq!(docs.len(), 1, "{docs:?}");
    assert!(docs[0].name.ends_with("version.rar!/VERSION"), "{}", docs[0].name);
    assert!(!docs[0].result.as_ref().unwrap().text.trim().is_empty());
    let docs = documents("crypted.rar");
    assert!(
        matches!(&docs[0].result, Err(Error::Encrypted { name }) if name.ends_with("crypted.rar!/.gitignore")),
        "{docs:?}"
    );
}

#[cfg(not(feature = "rar"))]
#[test]
fn rar_without_the_feature_is_unsupported_by_name() {
    let docs = documents("version.rar");
    assert!(
        matches!(&docs[0].result, Err(Error::Unsupported { name, media_type }) if name.ends_with("version.rar") && media_type.contains("`rar` feature")),
        "{docs:?}"
    );
}

/// Issue 18: a truncated 7z showed `Io(Error { kind: UnexpectedEof ... })`.
#[test]
fn a_truncated_7z_is_a_sentence_not_debug_output() {
    let bytes = std::fs::read(fixture("thesis.7z")).unwrap();
    for cut in [bytes.len() / 2, bytes.len() - 10, 40] {
        for doc in Extractor::default().extract_documents("cut.7z", &bytes[..cut]) {
            let Err(error) = &doc.result else { continue };
            let message = error.to_string();
            assert!(message.starts_with("cut.7z"), "{message}");
            for debug in ["Error {", "kind:", "Io(", "Some(", "\"\""] {
                assert!(!message.contains(debug), "{message}");
            }
        }
    }
}
