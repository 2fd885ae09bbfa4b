//! Word 97-2003 documents through the public API: LibreOffice-made fixtures
//! of the known texts, hidden-text tricks, 8-bit pieces in a code page
//! (built here, since LibreOffice writes only UTF-16 pieces), and the named
//! errors of encrypted, damaged and non-Word files.

#![allow(clippy::unwrap_used)]

use std::io::{Cursor, Write};

mod support;

use support::fixtures::{
    assert_table_cells_are_paragraphs, assert_text_boxes_follow_the_body,
    assert_text_hidden_through_styles_is_left_out, assert_truncated_and_corrupted_copies_never_panic, extract, fixture,
    known, place_of, words,
};
use tessera_extract::{Error, ExtractConfig, Format, Part, Trick, extract_bytes};

#[test]
fn libreoffice_documents_equal_the_known_texts() {
    for lang in ["en", "ru"] {
        let doc = extract(&format!("doc/{lang}.doc"));
        assert_eq!(doc.format, Format::Doc);
        assert_eq!(words(&doc.text), words(&known(lang)), "{lang}");
        let paragraphs: Vec<String> = known(lang).split("\n\n").map(|p| p.trim().to_owned()).collect();
        for (i, paragraph) in paragraphs.iter().enumerate() {
            let head: String = paragraph.chars().take(20).collect();
            assert_eq!(place_of(&doc, &head).paragraph, Some(u32::try_from(i + 1).unwrap()), "{lang}: {head}");
        }
        assert!(doc.bypasses().next().is_none(), "{lang}: {:?}", doc.warnings);
    }
}

#[test]
fn hidden_white_and_tiny_runs_are_left_out_counted_and_located() {
    // tricks.doc is LibreOffice's conversion of testdata/rtf/tricks.rtf.
    let doc = extract("doc/tricks.doc");
    assert_eq!(
        words(&doc.text),
        "Visible first paragraph ends here. Second paragraph with inside. \
         Привет, мир для всех. Third page text. A footnote. Running head"
    );
    let bypasses: Vec<_> = doc.bypasses().collect();
    let find = |trick| bypasses.iter().find(|b| b.0 == trick).unwrap_or_else(|| panic!("{trick:?}: {bypasses:?}"));
    let hidden = find(Trick::HiddenText);
    assert_eq!(hidden.1, 17);
    assert_eq!(hidden.2[0].place.paragraph, Some(1));
    assert_eq!(&doc.text[..hidden.2[0].start], "Visible first paragraph");
    let white = find(Trick::WhiteText);
    assert_eq!(white.1, 9);
    assert_eq!(white.2.iter().map(|l| l.place.paragraph.unwrap()).collect::<Vec<_>>(), [2, 3]);
    let tiny = find(Trick::TinyText);
    assert_eq!(tiny.1, 8);
    assert_eq!(tiny.2[0].place.paragraph, Some(2));
}

#[test]
fn footnotes_and_headers_follow_the_body_marked() {
    let doc = extract("doc/tricks.doc");
    assert_eq!(place_of(&doc, "Visible").part, Part::Body);
    assert_eq!(place_of(&doc, "A footnote").part, Part::Footnote);
    assert_eq!(place_of(&doc, "Running head").part, Part::Header);
    assert_eq!(doc.title.as_deref(), Some("Hidden tricks"));
    assert_eq!(doc.metadata.authors, ["Jane Roe"]);
    assert!(doc.metadata.created.as_deref().unwrap().starts_with("2024-03-05"), "{:?}", doc.metadata);
}

#[test]
fn encrypted_damaged_and_foreign_files_are_named_errors() {
    let config = ExtractConfig::default();
    let err = extract_bytes("secret.doc", &fixture("doc/encrypted.doc"), &config).unwrap_err();
    assert!(matches!(err, Error::Encrypted { ref name } if name == "secret.doc"), "{err}");
    let err = extract_bytes("cut.doc", &fixture("doc/truncated.doc"), &config).unwrap_err();
    assert!(matches!(err, Error::Malformed { ref name, format: "doc", .. } if name == "cut.doc"), "{err}");
    let sheet = compound_file(&[("Workbook", b"\x09\x08".as_slice())]);
    let err = extract_bytes("sheet.doc", &sheet, &config).unwrap_err();
    assert!(
        matches!(err, Error::Unsupported { ref media_type, .. } if media_type == "application/vnd.ms-excel"),
        "{err}"
    );
    let mut header_only = fixture("doc/en.doc");
    header_only.truncate(600);
    assert!(matches!(extract_bytes("h.doc", &header_only, &config), Err(Error::Malformed { .. })));
}

#[test]
fn word_6_is_unsupported() {
    let mut fib = fib(0x0409, 10, 0);
    fib[2..4].copy_from_slice(&0x0065u16.to_le_bytes());
    let doc = compound_file(&[("WordDocument", &fib), ("0Table", &[])]);
    let err = extract_bytes("old.doc", &doc, &ExtractConfig::default()).unwrap_err();
    assert!(matches!(err, Error::Unsupported { ref media_type, .. } if media_type.contains("Word 6")), "{err}");
}

#[test]
fn eight_bit_pieces_use_the_code_page_of_the_language() {
    // Russian in Windows-1251 (8-bit piece), then a UTF-16 piece with a
    // field (code dropped, result kept), a page break and a table cell.
    let (cyrillic, _, _) = encoding_rs::WINDOWS_1251.encode("Привет, мир.\r");
    let utf16: Vec<u8> = "Second \u{13}HYPERLINK x\u{14}link\u{15} text\u{c}Page two\u{7}cell\r"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    // Nested fields: only the outer result, without the inner field's code.
    let nested: Vec<u8> = "Nested: \u{13} IF \u{13} PAGE \u{14}1\u{15} = 1 \u{14}yes\u{15}.\r"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let doc = word_document(0x0419, &[(&cyrillic, true), (&utf16, false), (&nested, false)]);
    let doc = extract_bytes("ru.doc", &doc, &ExtractConfig::default()).unwrap();
    assert_eq!(doc.text, "Привет, мир.\n\nSecond link text\n\nPage two\n\ncell\n\nNested: yes.");
    assert_eq!(doc.encoding.as_deref(), Some("windows-1251"));
    assert_eq!(doc.metadata.language.as_deref(), Some("ru-RU"));
    assert_eq!(place_of(&doc, "мир").page, Some(1));
    assert_eq!(place_of(&doc, "Page two").page, Some(2));
    assert_eq!(place_of(&doc, "Page two").paragraph, Some(3));
    // Western text in an 8-bit piece of a Russian document stays
    // Windows-1252, as the specification defines such pieces.
    let (western, _, _) = encoding_rs::WINDOWS_1252.encode("Café résumé déjà vu");
    let doc = word_document(0x0419, &[(&western, true)]);
    let doc = extract_bytes("ru.doc", &doc, &ExtractConfig::default()).unwrap();
    assert_eq!(doc.text, "Café résumé déjà vu");
    // The Russian bytes under an English language id are Windows-1252.
    let doc = word_document(0x0409, &[(&cyrillic, true)]);
    let doc = extract_bytes("en.doc", &doc, &ExtractConfig::default()).unwrap();
    assert_eq!(doc.text, "Ïðèâåò, ìèð.");
}

/// A compound file with these streams.
fn compound_file(streams: &[(&str, &[u8])]) -> Vec<u8> {
    let mut file = cfb::CompoundFile::create(Cursor::new(Vec::new())).unwrap();
    for (name, data) in streams {
        file.create_stream(format!("/{name}")).unwrap().write_all(data).unwrap();
    }
    file.flush().unwrap();
    file.into_inner().into_inner()
}

/// Where the text starts in the `WordDocument` stream.
const TEXT_AT: usize = 1024;

/// A FIB of Word 97 (`nFib` 0xC1) with `ccpText` and the CLX at `fc_clx`
/// (`lcb_clx` bytes) in the `0Table` stream.
fn fib(lid: u16, ccp_text: u32, lcb_clx: u32) -> Vec<u8> {
    let mut fib = vec![0u8; TEXT_AT];
    fib[0..2].copy_from_slice(&0xA5ECu16.to_le_bytes());
    fib[2..4].copy_from_slice(&0x00C1u16.to_le_bytes());
    fib[6..8].copy_from_slice(&lid.to_le_bytes());
    // csw = 14, cslw = 22, cbRgFcLcb = 93.
    fib[32..34].copy_from_slice(&14u16.to_le_bytes());
    fib[62..64].copy_from_slice(&22u16.to_le_bytes());
    fib[64 + 12..64 + 16].copy_from_slice(&ccp_text.to_le_bytes());
    fib[152..154].copy_from_slice(&93u16.to_le_bytes());
    let clx = 154 + 33 * 8;
    fib[clx..clx + 4].copy_from_slice(&0u32.to_le_bytes());
    fib[clx + 4..clx + 8].copy_from_slice(&lcb_clx.to_le_bytes());
    fib
}

/// A Word document whose main text is these pieces (bytes, compressed).
fn word_document(lid: u16, pieces: &[(&[u8], bool)]) -> Vec<u8> {
    let mut cps = vec![0u32];
    let mut pcds = Vec::new();
    let mut stream = Vec::new();
    for (bytes, compressed) in pieces {
        let fc = u32::try_from(TEXT_AT + stream.len()).unwrap();
        let chars = if *compressed { bytes.len() } else { bytes.len() / 2 };
        cps.push(cps.last().unwrap() + u32::try_from(chars).unwrap());
        pcds.extend_from_slice(&[0, 0]);
        pcds.extend_from_slice(&(if *compressed { (fc * 2) | 0x4000_0000 } else { fc }).to_le_bytes());
        pcds.extend_from_slice(&[0, 0]);
        stream.extend_from_slice(bytes);
    }
    let mut plc: Vec<u8> = cps.iter().flat_map(|cp| cp.to_le_bytes()).collect();
    plc.extend_from_slice(&pcds);
    word_document_raw(lid, *cps.last().unwrap(), &plc, &stream)
}

/// A Word document from its `PlcPcd` and the text bytes after the FIB.
fn word_document_raw(lid: u16, ccp_text: u32, plc: &[u8], text: &[u8]) -> Vec<u8> {
    let mut clx = vec![0x02];
    clx.extend_from_slice(&u32::try_from(plc.len()).unwrap().to_le_bytes());
    clx.extend_from_slice(plc);
    let mut word = fib(lid, ccp_text, u32::try_from(clx.len()).unwrap());
    word.extend_from_slice(text);
    compound_file(&[("WordDocument", &word), ("0Table", &clx)])
}

#[test]
fn pieces_repeating_the_same_bytes_cannot_blow_up_the_text() {
    // 100,000 pieces of 100 characters, all at the same 100 bytes.
    let n = 100_000u32;
    let mut plc: Vec<u8> = (0..=n).flat_map(|i| (i * 100).to_le_bytes()).collect();
    for _ in 0..n {
        plc.extend_from_slice(&[0, 0]);
        plc.extend_from_slice(&((u32::try_from(TEXT_AT).unwrap() * 2) | 0x4000_0000).to_le_bytes());
        plc.extend_from_slice(&[0, 0]);
    }
    let text = "0123456789".repeat(10);
    let doc = word_document_raw(0x0409, n * 100, &plc, text.as_bytes());
    let doc = extract_bytes("bomb.doc", &doc, &ExtractConfig::default()).unwrap();
    assert!(doc.text.len() <= TEXT_AT + 100, "{}", doc.text.len());
    assert!(doc.warnings.iter().any(|w| matches!(w, tessera_extract::Warning::Damaged { .. })));
}

#[test]
fn text_boxes_follow_the_body_marked() {
    assert_text_boxes_follow_the_body("doc/textbox.doc");
}

#[test]
fn truncated_and_corrupted_copies_never_panic() {
    assert_truncated_and_corrupted_copies_never_panic(&["doc/en.doc", "doc/tricks.doc", "doc/textbox.doc"]);
}

#[test]
fn table_cells_are_paragraphs_marked_as_table() {
    assert_table_cells_are_paragraphs("doc/table.doc");
}

#[test]
fn text_hidden_through_styles_is_left_out() {
    assert_text_hidden_through_styles_is_left_out("doc/styles.doc");
}
