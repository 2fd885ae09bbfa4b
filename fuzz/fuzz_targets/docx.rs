//! The docx walker must never panic and must keep its origins sound.
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run docx` (from fuzz/).
//!
//! The input is split at the first two 0xFF bytes into three XML parts
//! (word/document.xml, word/styles.xml, word/footnotes.xml) packed into a stored ZIP, so the
//! fuzzer works on our XML walker rather than on decompression; an input
//! that starts with "PK" is passed as it is.

#![cfg_attr(not(feature = "replay"), no_main)]

use std::io::{Cursor, Write};

use tessera_extract::{DocxExtractor, Extract, ExtractConfig};
use tessera_fuzz::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let bytes = if data.starts_with(b"PK") { data.to_vec() } else { package(data) };
    if let Ok(doc) = DocxExtractor.extract("fuzz.docx", &bytes, &ExtractConfig::default()) {
        assert!(!doc.text.trim().is_empty());
        let mut end = 0;
        for origin in &doc.origins {
            assert!(origin.start >= end && origin.start < origin.end && origin.end <= doc.text.len());
            assert!(doc.text.is_char_boundary(origin.start) && doc.text.is_char_boundary(origin.end));
            end = origin.end;
        }
    }
});

fn package(data: &[u8]) -> Vec<u8> {
    let mut parts = data.splitn(3, |b| *b == 0xFF);
    let main = parts.next().unwrap_or_default();
    let second = parts.next().unwrap_or_default();
    let third = parts.next().unwrap_or_default();
    let members: [(&str, &[u8]); _] = [
        ("[Content_Types].xml", &b"<Types/>"[..]),
        (
            "word/_rels/document.xml.rels",
            &b"<Relationships><Relationship Id=\"f\" Type=\"x/footnotes\" Target=\"footnotes.xml\"/></Relationships>"[..],
        ),
        ("word/document.xml", main),
        ("word/styles.xml", second),
        ("word/footnotes.xml", third),
    ];
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, content) in members {
        if out.start_file(name, options).is_err() || out.write_all(content).is_err() {
            return Vec::new();
        }
    }
    out.finish().map(Cursor::into_inner).unwrap_or_default()
}
