//! Recognising content by its bytes: magic numbers of formats that are not
//! text, and the "is this decoded text really binary?" test.

/// How many leading bytes detection looks at ([`Extract::sniff`] gets at most
/// this many).
///
/// [`Extract::sniff`]: crate::Extract::sniff
pub const HEAD_LEN: usize = 8192;

/// What a magic number says about a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A document or archive format that may hold text (a later version
    /// extracts these behind the same [`Extract`](crate::Extract) interface).
    Document,
    /// Images, audio, video, executables, databases: never text.
    Binary,
}

/// A recognised magic number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Signature {
    pub(crate) media_type: &'static str,
    pub(crate) kind: Kind,
}

/// `(offset, magic bytes, media type, kind)`. Only magic numbers long or
/// distinctive enough that no plain-text file starts with them.
const MAGIC: &[(usize, &[u8], &str, Kind)] = &[
    (0, b"%PDF-", "application/pdf", Kind::Document),
    (0, b"PK\x03\x04", "application/zip", Kind::Document),
    (0, b"PK\x05\x06", "application/zip", Kind::Document),
    (0, b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1", "application/x-ole-storage", Kind::Document),
    (0, b"{\\rtf", "application/rtf", Kind::Document),
    (0, b"7z\xBC\xAF\x27\x1C", "application/x-7z-compressed", Kind::Document),
    (0, b"Rar!\x1A\x07", "application/vnd.rar", Kind::Document),
    (0, b"\x1F\x8B", "application/gzip", Kind::Document),
    (0, b"\xFD7zXZ\x00", "application/x-xz", Kind::Document),
    (0, b"\x28\xB5\x2F\xFD", "application/zstd", Kind::Document),
    (0, b"BZh", "application/x-bzip2", Kind::Document),
    (0, b"\x89PNG\r\n\x1A\n", "image/png", Kind::Binary),
    (0, b"\xFF\xD8\xFF", "image/jpeg", Kind::Binary),
    (0, b"GIF87a", "image/gif", Kind::Binary),
    (0, b"GIF89a", "image/gif", Kind::Binary),
    (0, b"II*\x00", "image/tiff", Kind::Binary),
    (0, b"MM\x00*", "image/tiff", Kind::Binary),
    (0, b"\x00\x00\x01\x00", "image/x-icon", Kind::Binary),
    (8, b"WEBP", "image/webp", Kind::Binary),
    (8, b"WAVE", "audio/wav", Kind::Binary),
    (8, b"AVI ", "video/x-msvideo", Kind::Binary),
    (4, b"ftyp", "video/mp4", Kind::Binary),
    (0, b"ID3", "audio/mpeg", Kind::Binary),
    (0, b"OggS\x00", "audio/ogg", Kind::Binary),
    (0, b"fLaC", "audio/flac", Kind::Binary),
    (0, b"\x1AE\xDF\xA3", "video/x-matroska", Kind::Binary),
    (0, b"\x7FELF", "application/x-elf", Kind::Binary),
    (0, b"\xCA\xFE\xBA\xBE", "application/java-vm", Kind::Binary),
    (0, b"\xCF\xFA\xED\xFE", "application/x-mach-binary", Kind::Binary),
    (0, b"\xFE\xED\xFA\xCF", "application/x-mach-binary", Kind::Binary),
    (0, b"\x00asm", "application/wasm", Kind::Binary),
    (0, b"SQLite format 3\x00", "application/vnd.sqlite3", Kind::Binary),
    (0, b"wOFF", "font/woff", Kind::Binary),
    (0, b"wOF2", "font/woff2", Kind::Binary),
];

/// The magic number `head` starts with, if any.
pub(crate) fn signature(head: &[u8]) -> Option<Signature> {
    for &(offset, magic, media_type, kind) in MAGIC {
        let Some(window) = head.get(offset..offset + magic.len()) else {
            continue;
        };
        if window != magic {
            continue;
        }
        // Short magics that could begin a text file need a second look.
        let confirmed = match media_type {
            // "BZh" then a block-size digit then the block magic (pi).
            "application/x-bzip2" => {
                head.get(3).is_some_and(|d| (b'1'..=b'9').contains(d))
                    && head.get(4..10) == Some(b"\x31\x41\x59\x26\x53\x59")
            }
            "audio/mpeg" => head.get(3).is_some_and(|v| *v < 0x10),
            "application/gzip" => head.get(2) == Some(&8),
            // The RIFF container for the types at offset 8.
            "image/webp" | "audio/wav" | "video/x-msvideo" => head.starts_with(b"RIFF"),
            _ => true,
        };
        if confirmed {
            return Some(Signature { media_type, kind });
        }
    }
    // A PE executable: "MZ" alone is too weak, so also want NUL bytes early.
    if head.starts_with(b"MZ") && head.iter().take(64).filter(|b| **b == 0).count() > 8 {
        return Some(Signature { media_type: "application/vnd.microsoft.portable-executable", kind: Kind::Binary });
    }
    None
}

/// Whether decoded text is really binary data: more than 1 character in 20
/// is a control character (other than tab, line feed, vertical tab, form feed
/// and carriage return), a C1 control, or U+FFFD. Real text in the right
/// encoding has almost none; random bytes decoded as any encoding have more
/// than 10 %.
pub(crate) fn looks_binary(text: &str) -> bool {
    let mut total = 0usize;
    let mut bad = 0usize;
    for c in text.chars() {
        total += 1;
        if is_suspicious(c) {
            bad += 1;
        }
    }
    bad * 20 > total
}

fn is_suspicious(c: char) -> bool {
    match c {
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' => false,
        '\0'..='\u{1F}' | '\u{7F}'..='\u{9F}' | '\u{FFFD}' => true,
        _ => false,
    }
}

/// Whether `text` holds nothing a reader would see: only whitespace and
/// invisible format characters (zero-width spaces and joiners, BOMs).
pub(crate) fn is_blank(text: &str) -> bool {
    text.chars().all(|c| c.is_whitespace() || matches!(c, '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_magic_numbers() {
        let png = b"\x89PNG\r\n\x1A\n\0\0\0\rIHDR";
        assert_eq!(signature(png).map(|s| s.kind), Some(Kind::Binary));
        let pdf = signature(b"%PDF-1.7\n").unwrap();
        assert_eq!((pdf.media_type, pdf.kind), ("application/pdf", Kind::Document));
        assert_eq!(signature(b"\x7FELF\x02\x01\x01").unwrap().media_type, "application/x-elf");
        assert_eq!(signature(b"RIFF\0\0\0\0WEBPVP8 ").unwrap().media_type, "image/webp");
    }

    #[test]
    fn text_that_starts_like_a_short_magic_is_not_binary() {
        assert_eq!(signature(b"BZh, said the bee"), None);
        assert_eq!(signature(b"ID3 tags are metadata"), None);
        assert_eq!(signature(b"MZ is a prefix"), None);
        assert_eq!(signature(b"Plain text"), None);
        assert_eq!(signature(b""), None);
    }

    #[test]
    fn binary_share_of_control_characters() {
        assert!(!looks_binary("Hello,\tworld\r\n\x0C"));
        assert!(looks_binary("a\0b\0c\0"));
        assert!(looks_binary("\u{FFFD}\u{FFFD}abc"));
        assert!(!looks_binary(""));
        // One stray control character in a long line is tolerated.
        assert!(!looks_binary(&format!("{}\u{1B}", "x".repeat(40))));
    }

    #[test]
    fn blank_includes_invisible_characters() {
        assert!(is_blank(" \t\r\n\u{A0}\u{3000}"));
        assert!(is_blank("\u{200B}\u{FEFF}"));
        assert!(is_blank(""));
        assert!(!is_blank(" a "));
    }
}
