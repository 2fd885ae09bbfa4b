//! Character-encoding detection and decoding, shared by the text and HTML
//! extractors.
//!
//! The order of evidence, strongest first:
//!
//! 1. a byte-order mark (UTF-8, UTF-16LE, UTF-16BE); the mark is removed;
//! 2. a charset the document declares (HTML `<meta>`), unless the bytes
//!    contradict it (see [`decode`]);
//! 3. UTF-16 without a BOM, recognised by its regular high bytes (checked
//!    before UTF-8: Cyrillic in UTF-16LE is all bytes below 0x80);
//! 4. valid UTF-8;
//! 5. "mostly UTF-8": if most of the non-ASCII sequences are valid UTF-8
//!    multi-byte characters (more valid ones than invalid bytes), the file is
//!    UTF-8 with broken bytes (a truncated download, stray Latin-1 bytes pasted
//!    in), whatever their share. They become U+FFFD and a
//!    [`Warning::InvalidBytes`] says how many, rather than the whole file being
//!    mis-decoded as a legacy encoding (`cÃ©rvix`). A text in a legacy code page
//!    practically never holds valid multi-byte UTF-8 sequences: in
//!    Windows-1251 or Latin-1 a letter byte over 0x7F is followed by an ASCII
//!    byte or another letter, not by the continuation bytes 0x80-0xBF;
//! 6. statistical detection with `chardetng` (Windows-1251, KOI8-R, IBM866,
//!    Windows-1252 and the other legacy encodings of the Web); except that
//!    a text that is at least 95 % ASCII bytes stays UTF-8 as in step 5
//!    when the detected code page would put letters of another script
//!    inside Latin words in at least half of the words it changes (stray
//!    bytes in English read as Windows-1251 give `prоcess` with a Cyrillic
//!    `о`, which the bypass scan rightly calls a look-alike letter). Whole
//!    Cyrillic words in an English text keep their code page, and so do
//!    accented letters of Latin code pages (`café` in Windows-1252), which
//!    cannot be told from stray bytes.

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{DecoderResult, Encoding, KOI8_R, KOI8_U, UTF_8, UTF_16BE, UTF_16LE};

use crate::Warning;

/// How much of a document the statistical detector reads. Its guess is
/// settled long before this; the cap keeps huge files fast.
const DETECT_LEN: usize = 1 << 20;

/// Decoded text and how it was decoded.
#[derive(Debug)]
pub(crate) struct Decoded {
    /// The text, without a byte-order mark.
    pub(crate) text: String,
    /// The encoding used.
    pub(crate) encoding: &'static Encoding,
    /// Problems met while decoding.
    pub(crate) warnings: Vec<Warning>,
}

/// Decodes `bytes`, choosing the encoding as the module documentation
/// describes. `declared` is a charset label the document itself declares.
///
/// A declared charset loses to the bytes in two cases, each with a
/// [`Warning::DeclaredCharsetIgnored`]: UTF-8 declared but the bytes are not
/// (mostly) UTF-8, so detection decides; a legacy charset declared but the
/// bytes are valid UTF-8 with non-ASCII characters, which a legacy-encoded
/// text practically never is. A declared UTF-16 means UTF-8, as browsers do
/// (a UTF-16 page would have a BOM, and the declaration itself was readable
/// as ASCII).
pub(crate) fn decode(bytes: &[u8], declared: Option<&str>) -> Decoded {
    if let Some((encoding, bom_len)) = Encoding::for_bom(bytes) {
        return decode_with(encoding, bytes.get(bom_len..).unwrap_or_default());
    }
    let declared_encoding = declared.and_then(|label| Encoding::for_label(label.as_bytes()));
    let (Some(label), Some(declared_encoding)) = (declared, declared_encoding) else {
        return detect(bytes);
    };
    let declared_encoding = declared_encoding.output_encoding();
    let mut decoded = if declared_encoding == UTF_8 {
        detect(bytes)
    } else if std::str::from_utf8(bytes).is_ok() && !bytes.is_ascii() {
        decode_with(UTF_8, bytes)
    } else {
        decode_with(declared_encoding, bytes)
    };
    if decoded.encoding != declared_encoding {
        decoded.warnings.insert(
            0,
            Warning::DeclaredCharsetIgnored { declared: label.to_owned(), used: decoded.encoding.name().to_owned() },
        );
    }
    decoded
}

/// Steps 3 to 6 of the module documentation: no BOM, no declaration.
fn detect(bytes: &[u8]) -> Decoded {
    // UTF-16 first: Cyrillic UTF-16LE is all bytes below 0x80, so valid UTF-8.
    if let Some(encoding) = utf16_without_bom(bytes) {
        let (text, errors) = decode_counting(encoding, bytes);
        if errors == 0 {
            return Decoded { text, encoding, warnings: Vec::new() };
        }
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Decoded { text: text.to_owned(), encoding: UTF_8, warnings: Vec::new() };
    }
    let (text, errors) = decode_counting(UTF_8, bytes);
    let non_ascii = text.chars().filter(|c| !c.is_ascii()).count();
    if errors > 0 && non_ascii.saturating_sub(errors) > errors {
        return Decoded { text, encoding: UTF_8, warnings: vec![invalid_bytes(UTF_8, errors)] };
    }
    let legacy = decode_with(guess_legacy(bytes), bytes);
    if stray_bytes_in_ascii(bytes, &legacy.text) {
        return Decoded { text, encoding: UTF_8, warnings: vec![invalid_bytes(UTF_8, errors)] };
    }
    legacy
}

/// The exception of step 6: `bytes` are at least 95 % ASCII and their
/// legacy decoding `legacy` mixes scripts inside words.
fn stray_bytes_in_ascii(bytes: &[u8], legacy: &str) -> bool {
    let non_ascii = bytes.iter().filter(|b| !b.is_ascii()).count();
    non_ascii * 20 <= bytes.len() && mixes_scripts_in_words(legacy)
}

/// Whether most words with a non-ASCII letter also hold ASCII letters next
/// to letters of another script (`prоcess` with a Cyrillic `о`): what stray
/// bytes in an English text become when decoded as a Cyrillic, Greek...
/// code page. Real text in those code pages has whole words in its script.
fn mixes_scripts_in_words(text: &str) -> bool {
    let (mut changed, mut mixed) = (0usize, 0usize);
    for word in text.split(|c: char| !c.is_alphabetic()) {
        if word.is_ascii() {
            continue;
        }
        changed += 1;
        let ascii = word.chars().any(|c| c.is_ascii_alphabetic());
        let foreign = word.chars().any(|c| !c.is_ascii() && !is_latin(c));
        mixed += usize::from(ascii && foreign);
    }
    changed > 0 && mixed * 2 >= changed
}

/// Latin letters beyond ASCII (accented letters of Western and Central
/// European code pages).
fn is_latin(c: char) -> bool {
    matches!(c, '\u{C0}'..='\u{24F}' | '\u{1E00}'..='\u{1EFF}')
}

/// Asks `chardetng` for a legacy encoding.
fn guess_legacy(bytes: &[u8]) -> &'static Encoding {
    let sample = bytes.get(..DETECT_LEN).unwrap_or(bytes);
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    let complete = sample.len() == bytes.len();
    detector.feed(sample, complete);
    let guess = detector.guess(None, Utf8Detection::Deny);
    // chardetng never answers KOI8-R: it reports the superset KOI8-U, which
    // differs only at these eight bytes (box drawing in KOI8-R, Ukrainian
    // letters in KOI8-U). Without them the text decodes the same either way,
    // and a Russian text is far more likely KOI8-R.
    if guess == KOI8_U && !sample.iter().any(|b| matches!(b, 0xA4 | 0xA6 | 0xA7 | 0xAD | 0xB4 | 0xB6 | 0xB7 | 0xBD)) {
        return KOI8_R;
    }
    guess
}

/// UTF-16 without a BOM: one byte of each pair (the high byte) is nearly
/// always zero (Latin) or one of very few values (one alphabet, e.g. 0x04 for
/// Cyrillic), while the other byte varies. Returns the byte order, if the
/// evidence is strong.
fn utf16_without_bom(bytes: &[u8]) -> Option<&'static Encoding> {
    let sample = bytes.get(..DETECT_LEN).unwrap_or(bytes);
    // Text in any other encoding has no NUL bytes.
    if bytes.len() < 4 || !bytes.len().is_multiple_of(2) || !sample.contains(&0) {
        return None;
    }
    let pairs = sample.len() / 2;
    let (mut zero_even, mut zero_odd) = (0usize, 0usize);
    let mut even_counts = [0usize; 256];
    let mut odd_counts = [0usize; 256];
    for pair in sample.chunks_exact(2) {
        let (even, odd) = (pair[0], pair[1]);
        even_counts[usize::from(even)] += 1;
        odd_counts[usize::from(odd)] += 1;
        zero_even += usize::from(even == 0);
        zero_odd += usize::from(odd == 0);
    }
    // The high byte: zero or its most common non-zero value at least 90 % of
    // the time, and zero somewhere (spaces and punctuation are in Basic
    // Latin); the low byte: almost never zero.
    let regular = |counts: &[usize; 256], zeros: usize| {
        let top = counts.iter().skip(1).max().copied().unwrap_or(0);
        zeros > 0 && (zeros + top) * 10 >= pairs * 9
    };
    if regular(&odd_counts, zero_odd) && zero_even * 20 < pairs {
        Some(UTF_16LE)
    } else if regular(&even_counts, zero_even) && zero_odd * 20 < pairs {
        Some(UTF_16BE)
    } else {
        None
    }
}

/// Decodes with a known encoding, recording invalid sequences as a warning.
fn decode_with(encoding: &'static Encoding, bytes: &[u8]) -> Decoded {
    let (text, errors) = decode_counting(encoding, bytes);
    let warnings = if errors > 0 { vec![invalid_bytes(encoding, errors)] } else { Vec::new() };
    Decoded { text, encoding, warnings }
}

fn invalid_bytes(encoding: &'static Encoding, count: usize) -> Warning {
    Warning::InvalidBytes { encoding: encoding.name().to_owned(), count }
}

/// Decodes `bytes` (no BOM handling: the caller strips it) and counts the
/// malformed sequences, each replaced by U+FFFD.
fn decode_counting(encoding: &'static Encoding, bytes: &[u8]) -> (String, usize) {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let capacity =
        decoder.max_utf8_buffer_length_without_replacement(bytes.len()).unwrap_or(bytes.len().saturating_mul(3));
    let mut text = String::with_capacity(capacity.saturating_add(16));
    let mut errors = 0usize;
    let mut rest = bytes;
    loop {
        let (result, read) = decoder.decode_to_string_without_replacement(rest, &mut text, true);
        rest = rest.get(read..).unwrap_or_default();
        match result {
            DecoderResult::InputEmpty => break,
            DecoderResult::OutputFull => {
                text.reserve(rest.len().saturating_mul(3).saturating_add(16));
            }
            DecoderResult::Malformed(_, _) => {
                errors += 1;
                text.push('\u{FFFD}');
            }
        }
    }
    (text, errors)
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::{IBM866, WINDOWS_1251, WINDOWS_1252};

    const RUSSIAN: &str = "В начале июня 1812 года армия Наполеона перешла Неман. \
        Съешь же ещё этих мягких французских булок, да выпей чаю.";
    const FRENCH: &str = "Où est la bibliothèque ? À côté de l'église, près du café où l'on mange des crêpes.";

    fn roundtrip(encoding: &'static Encoding, text: &str) -> Decoded {
        let (bytes, _, unmappable) = encoding.encode(text);
        assert!(!unmappable);
        decode(&bytes, None)
    }

    #[test]
    fn legacy_cyrillic_encodings_are_detected() {
        for encoding in [WINDOWS_1251, KOI8_R, IBM866] {
            let decoded = roundtrip(encoding, RUSSIAN);
            assert_eq!(decoded.encoding.name(), encoding.name());
            assert_eq!(decoded.text, RUSSIAN);
            assert!(decoded.warnings.is_empty());
        }
    }

    #[test]
    fn windows_1252_is_detected() {
        let decoded = roundtrip(WINDOWS_1252, FRENCH);
        assert_eq!(decoded.encoding, WINDOWS_1252);
        assert_eq!(decoded.text, FRENCH);
    }

    #[test]
    fn boms_are_stripped() {
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend_from_slice("\u{FEFF}ok".as_bytes());
        let decoded = decode(&bytes, None);
        // Only the leading mark goes; a second one is text.
        assert_eq!(decoded.text, "\u{FEFF}ok");
        let decoded = decode(b"\xFF\xFEh\0i\0", None);
        assert_eq!((decoded.text.as_str(), decoded.encoding), ("hi", UTF_16LE));
        let decoded = decode(b"\xFE\xFF\0h\0i", None);
        assert_eq!((decoded.text.as_str(), decoded.encoding), ("hi", UTF_16BE));
    }

    #[test]
    fn utf16_without_bom_latin_and_cyrillic() {
        for text in [RUSSIAN, FRENCH] {
            let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
            let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
            let decoded = decode(&le, None);
            assert_eq!((decoded.text.as_str(), decoded.encoding), (text, UTF_16LE));
            let decoded = decode(&be, None);
            assert_eq!((decoded.text.as_str(), decoded.encoding), (text, UTF_16BE));
        }
    }

    #[test]
    fn mostly_utf8_keeps_utf8_and_warns() {
        let mut bytes = RUSSIAN.as_bytes().to_vec();
        bytes.push(0xD0); // a truncated two-byte sequence
        let decoded = decode(&bytes, None);
        assert_eq!(decoded.encoding, UTF_8);
        assert_eq!(decoded.text, format!("{RUSSIAN}\u{FFFD}"));
        assert_eq!(decoded.warnings, vec![Warning::InvalidBytes { encoding: "UTF-8".into(), count: 1 }]);
    }

    /// Issue 52: 190 valid multi-byte characters and 40 stray bytes are UTF-8 with 40
    /// broken bytes and a warning, not Windows-1252 (`cÃ©rvix`); legacy text stays legacy.
    #[test]
    fn many_stray_bytes_among_valid_utf8_still_make_utf8() {
        let mut bytes = Vec::new();
        for i in 0..190 {
            bytes.extend_from_slice("le cérvix ".as_bytes());
            if i % 19 == 0 || i % 5 == 0 {
                bytes.push(0xE9); // a Latin-1 é pasted in
            }
        }
        let errors = bytes.iter().filter(|&&b| b == 0xE9).count();
        assert!(errors * 20 > 190, "the case of the issue: more than 1 in 20 broken");
        let decoded = decode(&bytes, None);
        assert_eq!(decoded.encoding, UTF_8);
        assert!(decoded.text.starts_with("le cérvix "));
        assert_eq!(decoded.warnings, vec![Warning::InvalidBytes { encoding: "UTF-8".into(), count: errors }]);
        // Windows-1251 and Latin-1 texts hold no valid multi-byte sequences: unchanged.
        let (cyrillic, _, _) = WINDOWS_1251.encode(RUSSIAN);
        assert_eq!(decode(&cyrillic, None).text, RUSSIAN);
        let (latin, _, _) = encoding_rs::WINDOWS_1252.encode("Le cérvix est visé à l'été, déjà noté. ");
        assert_eq!(decode(&latin.repeat(30), None).encoding, encoding_rs::WINDOWS_1252);
    }

    #[test]
    fn declared_charset_is_used_unless_contradicted() {
        let (bytes, _, _) = WINDOWS_1251.encode(RUSSIAN);
        let decoded = decode(&bytes, Some("windows-1251"));
        assert_eq!(decoded.text, RUSSIAN);
        assert!(decoded.warnings.is_empty());
        // Declared UTF-8, but the bytes are Windows-1251.
        let decoded = decode(&bytes, Some("utf-8"));
        assert_eq!((decoded.text.as_str(), decoded.encoding), (RUSSIAN, WINDOWS_1251));
        assert!(matches!(decoded.warnings.as_slice(), [Warning::DeclaredCharsetIgnored { .. }]));
        // Declared Windows-1251, but the bytes are UTF-8.
        let decoded = decode(RUSSIAN.as_bytes(), Some("cp1251"));
        assert_eq!((decoded.text.as_str(), decoded.encoding), (RUSSIAN, UTF_8));
        assert_eq!(decoded.warnings.len(), 1);
        // An unknown label is ignored silently.
        let decoded = decode(RUSSIAN.as_bytes(), Some("no-such-charset"));
        assert!(decoded.warnings.is_empty());
    }

    /// Issue 18: stray bytes in English read as Windows-1251 put Cyrillic
    /// letters inside Latin words, which the bypass scan reports as
    /// look-alike letters (1,999 of them in the attack file).
    #[test]
    fn english_with_stray_bytes_read_as_windows_1251_stays_utf8() {
        let english = "The process of making honey starts with nectar. ".repeat(20);
        let mut bytes = english.clone().into_bytes();
        for at in [4usize, 120, 300, 610, 900] {
            bytes[at] = 0xEE; // Windows-1251 'о'
        }
        let (legacy, _, _) = WINDOWS_1251.decode(&bytes);
        assert!(stray_bytes_in_ascii(&bytes, &legacy));
        assert!(!crate::bypass::scan(&legacy, &[]).is_empty(), "the scan would report the legacy decoding");
        // Whole Russian words in English keep their code page.
        let with_russian = format!("{english} Привет, мир.");
        let (mixed, _, _) = WINDOWS_1251.encode(&with_russian);
        let (legacy, _, _) = WINDOWS_1251.decode(&mixed);
        assert!(!stray_bytes_in_ascii(&mixed, &legacy));
        // Mostly Russian text is never an exception.
        let (russian, _, _) = WINDOWS_1251.encode(RUSSIAN);
        let (legacy, _, _) = WINDOWS_1251.decode(&russian);
        assert!(!stray_bytes_in_ascii(&russian, &legacy));
    }

    #[test]
    fn koi8_u_letters_keep_koi8_u() {
        let text = "Ґанок і їжак: українська мова.";
        let decoded = roundtrip(KOI8_U, text);
        assert_eq!(decoded.text, text);
    }
}
