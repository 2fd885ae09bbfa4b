//! Every supported encoding of plain text, through the public API: bytes are
//! made by encoding a known text, and extraction must give the text back.

#![allow(clippy::unwrap_used)]

use encoding_rs::{Encoding, IBM866, KOI8_R, WINDOWS_1251, WINDOWS_1252};
use tessera_extract::{ExtractConfig, Extracted, Format, Warning, extract_bytes};

const RUSSIAN: &str = "Глава 1.\r\n\r\nВ начале июня 1812 года армия Наполеона перешла Неман.\n\
    Съешь же ещё этих мягких французских булок, да выпей чаю!\n\tКонец  абзаца.  ";
const FRENCH: &str = "Chapitre 1.\r\nOù est la bibliothèque ? À côté de l'église, \
    près du café où l'on mange des crêpes. Noël, naïveté, cœur.\n";

fn extract(name: &str, bytes: &[u8]) -> Extracted {
    extract_bytes(name, bytes, &ExtractConfig::default()).expect("extracts")
}

fn legacy(encoding: &'static Encoding, text: &str) -> Vec<u8> {
    let (bytes, _, unmappable) = encoding.encode(text);
    assert!(!unmappable, "{} cannot encode the sample", encoding.name());
    bytes.into_owned()
}

#[test]
fn utf8_is_kept_exactly() {
    let out = extract("ru.txt", RUSSIAN.as_bytes());
    assert_eq!(out.text, RUSSIAN);
    assert_eq!(out.encoding.as_deref(), Some("UTF-8"));
    assert_eq!(out.format, Format::Text);
    assert!(out.warnings.is_empty());
}

#[test]
fn utf8_bom_is_stripped() {
    let bytes = [b"\xEF\xBB\xBF", RUSSIAN.as_bytes()].concat();
    let out = extract("ru.txt", &bytes);
    assert_eq!(out.text, RUSSIAN);
    assert_eq!(out.encoding.as_deref(), Some("UTF-8"));
}

#[test]
fn utf16_with_bom() {
    let le: Vec<u8> = "\u{FEFF}".encode_utf16().chain(RUSSIAN.encode_utf16()).flat_map(u16::to_le_bytes).collect();
    let out = extract("ru.txt", &le);
    assert_eq!((out.text.as_str(), out.encoding.as_deref()), (RUSSIAN, Some("UTF-16LE")));
    let be: Vec<u8> = "\u{FEFF}".encode_utf16().chain(FRENCH.encode_utf16()).flat_map(u16::to_be_bytes).collect();
    let out = extract("fr.txt", &be);
    assert_eq!((out.text.as_str(), out.encoding.as_deref()), (FRENCH, Some("UTF-16BE")));
}

#[test]
fn utf16_without_bom() {
    let le: Vec<u8> = RUSSIAN.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let out = extract("ru.txt", &le);
    assert_eq!((out.text.as_str(), out.encoding.as_deref()), (RUSSIAN, Some("UTF-16LE")));
}

#[test]
fn windows_1251() {
    let out = extract("ru.txt", &legacy(WINDOWS_1251, RUSSIAN));
    assert_eq!((out.text.as_str(), out.encoding.as_deref()), (RUSSIAN, Some("windows-1251")));
}

#[test]
fn koi8_r() {
    let out = extract("ru.txt", &legacy(KOI8_R, RUSSIAN));
    assert_eq!((out.text.as_str(), out.encoding.as_deref()), (RUSSIAN, Some("KOI8-R")));
}

#[test]
fn cp866() {
    let out = extract("ru.txt", &legacy(IBM866, RUSSIAN));
    assert_eq!((out.text.as_str(), out.encoding.as_deref()), (RUSSIAN, Some("IBM866")));
}

/// CP866 built from its table by hand, not by encoding_rs, so the test does
/// not only check encoding_rs against itself.
#[test]
fn cp866_from_a_manual_table() {
    let text = "Привет, мир! Ёжик в тумане съел яблоко.";
    let bytes: Vec<u8> = text
        .chars()
        .map(|c| match c {
            'А'..='Я' => 0x80 + (u32::from(c) - u32::from('А')) as u8,
            'а'..='п' => 0xA0 + (u32::from(c) - u32::from('а')) as u8,
            'р'..='я' => 0xE0 + (u32::from(c) - u32::from('р')) as u8,
            'Ё' => 0xF0,
            'ё' => 0xF1,
            c if c.is_ascii() => c as u8,
            c => panic!("no CP866 byte for {c}"),
        })
        .collect();
    assert_eq!(bytes, legacy(IBM866, text));
    let out = extract("ru.txt", &bytes);
    assert_eq!((out.text.as_str(), out.encoding.as_deref()), (text, Some("IBM866")));
}

#[test]
fn windows_1252() {
    let out = extract("fr.txt", &legacy(WINDOWS_1252, FRENCH));
    assert_eq!((out.text.as_str(), out.encoding.as_deref()), (FRENCH, Some("windows-1252")));
}

#[test]
fn mostly_utf8_with_a_broken_byte_stays_utf8() {
    let mut bytes = RUSSIAN.as_bytes().to_vec();
    bytes.insert(10, 0xFF);
    let out = extract("ru.txt", &bytes);
    assert_eq!(out.encoding.as_deref(), Some("UTF-8"));
    assert!(out.text.contains('\u{FFFD}'));
    assert_eq!(out.text.replace('\u{FFFD}', ""), RUSSIAN);
    assert_eq!(out.warnings, vec![Warning::InvalidBytes { encoding: "UTF-8".into(), count: 1 }]);
}

/// Issue 18: English text with a few invalid UTF-8 bytes inside words was
/// decoded in a legacy code page, each stray byte a letter of another
/// script in a Latin word (Windows-1251 in the attack file, with 1,999
/// look-alike-letter bypasses reported; here the detector guesses
/// Windows-1252, whose `ª`, `µ`, `º` do the same).
#[test]
fn english_with_invalid_bytes_stays_utf8_without_false_homoglyphs() {
    let english =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/known/en.txt")).unwrap().repeat(4);
    let mut bytes = Vec::new();
    let mut stray = 0;
    for (i, word) in english.split(' ').enumerate() {
        if i > 0 {
            bytes.push(b' ');
        }
        // A stray byte in the middle of every tenth long word.
        if i % 10 == 7 && word.len() > 4 && word.is_ascii() {
            bytes.extend_from_slice(&word.as_bytes()[..2]);
            bytes.push([0xAA, 0xB5, 0xBA][i % 3]);
            bytes.extend_from_slice(&word.as_bytes()[2..]);
            stray += 1;
        } else {
            bytes.extend_from_slice(word.as_bytes());
        }
    }
    assert!(stray >= 5, "{stray}");
    let out = extract("notes.txt", &bytes);
    assert_eq!(out.encoding.as_deref(), Some("UTF-8"));
    assert_eq!(out.text.matches('\u{FFFD}').count(), stray);
    assert!(
        out.warnings.contains(&Warning::InvalidBytes { encoding: "UTF-8".into(), count: stray }),
        "{:?}",
        out.warnings
    );
    assert!(out.bypasses().next().is_none(), "{:?}", out.warnings);
}
