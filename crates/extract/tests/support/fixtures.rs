//! The fixtures of `testdata/` and the checks the format tests make the same way for
//! every format that has them (DOC and RTF: text boxes, tables, styles, damage).

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use tessera_extract::{ExtractConfig, Extracted, Part, Place, Trick, extract_bytes};

/// The path of `path` under the crate's `testdata/`.
pub fn testdata(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata").join(path)
}

/// The bytes of `testdata/<path>`.
pub fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(testdata(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The known text in `lang` (`testdata/known/<lang>.txt`) the fixtures were made from.
pub fn known(lang: &str) -> String {
    String::from_utf8(fixture(&format!("known/{lang}.txt"))).expect("the known texts are UTF-8")
}

/// `s` with every run of white space one space.
pub fn words(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `testdata/<path>` extracted under a misleading name: detection is by content.
pub fn extract(path: &str) -> Extracted {
    extract_bytes(&format!("upload-{path}.bin"), &fixture(path), &ExtractConfig::default())
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Where the first occurrence of `needle` came from.
pub fn place_of(doc: &Extracted, needle: &str) -> Place {
    let at = doc.text.find(needle).unwrap_or_else(|| panic!("{needle:?} not in {:?}", doc.text));
    doc.origin_at(at).unwrap_or_else(|| panic!("no origin for {needle:?}")).place
}

/// The fixture `textbox.<ext>`: the body first, then the text box, marked as one.
pub fn assert_text_boxes_follow_the_body(path: &str) {
    let doc = extract(path);
    assert_eq!(doc.text, "Body before the box.\n\nBody after the box.\n\nText in a box.");
    assert_eq!(place_of(&doc, "Body after").part, Part::Body);
    let place = place_of(&doc, "Text in a box");
    assert_eq!((place.part, place.paragraph), (Part::TextBox, Some(3)));
}

/// Truncations and byte flips of each of `paths` (a deterministic slice of what the
/// fuzz targets do, replayed in CI): no panic, and origins in bounds when they extract.
pub fn assert_truncated_and_corrupted_copies_never_panic(paths: &[&str]) {
    let config = ExtractConfig::default();
    for &path in paths {
        let bytes = fixture(path);
        for len in (0..bytes.len()).step_by(97) {
            let _ = extract_bytes(path, &bytes[..len], &config);
        }
        for at in (0..bytes.len()).step_by(53) {
            let mut copy = bytes.clone();
            copy[at] ^= 0xFF;
            if let Ok(doc) = extract_bytes(path, &copy, &config) {
                assert!(doc.origins.iter().all(|o| o.start < o.end && o.end <= doc.text.len()));
            }
        }
    }
}

/// The fixture `table.<ext>`: each table cell a paragraph of its own, marked as a table.
pub fn assert_table_cells_are_paragraphs(path: &str) {
    let doc = extract(path);
    assert_eq!(words(&doc.text), "Before the table. Cell one Cell two After the table.");
    let places: Vec<_> = ["Before", "Cell one", "Cell two", "After"]
        .iter()
        .map(|needle| {
            let place = place_of(&doc, needle);
            (place.paragraph.expect("a paragraph"), place.part)
        })
        .collect();
    assert_eq!(places, [(1, Part::Body), (2, Part::Table), (3, Part::Table), (4, Part::Body)]);
}

/// The fixture `styles.<ext>`: text hidden by a character style and by a paragraph style
/// is left out and reported as one hidden-text bypass.
pub fn assert_text_hidden_through_styles_is_left_out(path: &str) {
    let doc = extract(path);
    assert_eq!(words(&doc.text), "Visible text. Last.");
    let bypasses: Vec<_> = doc.bypasses().collect();
    assert_eq!(bypasses.len(), 1, "{bypasses:?}");
    let (trick, count, locations) = &bypasses[0];
    // "styled secret" (character style), "A hidden paragraph style." (paragraph style).
    assert_eq!((*trick, *count), (Trick::HiddenText, 12 + 22));
    assert_eq!(locations.iter().map(|l| l.place.paragraph.expect("a paragraph")).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(place_of(&doc, "Last").paragraph, Some(3));
}
