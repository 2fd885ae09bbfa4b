//! Decompression bombs, built on the fly (never committed): used by
//! `tests/bombs.rs` with small sizes and by `examples/bombs.rs` with the
//! sizes of issue 18 for the memory figures in docs/performance.md.

#![allow(dead_code)]

use std::io::{Cursor, Read, Write};

use sevenz_rust2::encoder_options::Lzma2Options;
use sevenz_rust2::{ArchiveEntry, ArchiveWriter, EncoderConfiguration, EncoderMethod, SourceReader};
use zip::write::SimpleFileOptions;

/// A short English text that extracts fine.
pub const GOOD: &[u8] = b"Bees make honey from the nectar of flowers and store it in wax combs.\n";

/// A reader giving `pattern` over and over, `len` bytes in all.
pub fn repeat(pattern: &'static [u8], len: u64) -> impl Read {
    struct Cycle {
        pattern: &'static [u8],
        at: usize,
    }
    impl Read for Cycle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            for byte in buf.iter_mut() {
                *byte = self.pattern[self.at];
                self.at = (self.at + 1) % self.pattern.len();
            }
            Ok(buf.len())
        }
    }
    Cycle { pattern, at: 0 }.take(len)
}

/// A solid LZMA2 7z: `good.txt` (a real text), then `zeros.txt`, `size`
/// zero bytes.
pub fn sevenz_of_zeros(size: u64) -> Vec<u8> {
    let mut writer = ArchiveWriter::new(Cursor::new(Vec::new())).expect("7z writer");
    writer.set_content_methods(vec![
        EncoderConfiguration::new(EncoderMethod::LZMA2).with_options(Lzma2Options::from_level(1).into()),
    ]);
    let entries = vec![ArchiveEntry::new_file("good.txt"), ArchiveEntry::new_file("zeros.txt")];
    let good: Box<dyn Read> = Box::new(GOOD);
    let zeros: Box<dyn Read> = Box::new(std::io::repeat(0).take(size));
    writer.push_archive_entries(entries, vec![SourceReader::new(good), SourceReader::new(zeros)]).expect("7z entries");
    writer.finish().expect("7z finish").into_inner()
}

/// A solid LZMA2 7z of `count` members `zeros-N.txt`, `size` zero bytes
/// each: every member under the document size limit, together over the
/// unpack budget.
pub fn sevenz_of_zero_members(count: usize, size: u64) -> Vec<u8> {
    let mut writer = ArchiveWriter::new(Cursor::new(Vec::new())).expect("7z writer");
    writer.set_content_methods(vec![
        EncoderConfiguration::new(EncoderMethod::LZMA2).with_options(Lzma2Options::from_level(1).into()),
    ]);
    let entries = (0..count).map(|i| ArchiveEntry::new_file(&format!("zeros-{i}.txt"))).collect();
    let readers = (0..count).map(|_| SourceReader::new(std::io::repeat(0).take(size))).collect();
    writer.push_archive_entries(entries, readers).expect("7z entries");
    writer.finish().expect("7z finish").into_inner()
}

/// About `len` bytes (whole lines) of text that deflates at about 100:1, under the ratio guard: lines of a
/// fixed sentence, each ending in a made-up word of its own (seeded).
pub fn varied_text(len: u64, seed: u64) -> impl Read {
    varied_lines(len, seed, b"", b"\n")
}

/// [`varied_text`] with each line between `before` and `after` (markup): as many whole
/// lines as fit in `len` bytes, made as they are read.
fn varied_lines(len: u64, seed: u64, before: &'static [u8], after: &'static [u8]) -> impl Read {
    struct Lines {
        rng: u64,
        line: Vec<u8>,
        at: usize,
        before: &'static [u8],
        after: &'static [u8],
    }
    impl Read for Lines {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            for byte in buf.iter_mut() {
                if self.at == self.line.len() {
                    self.line.clear();
                    self.line.extend_from_slice(self.before);
                    for _ in 0..14 {
                        self.line.extend_from_slice(GOOD.strip_suffix(b"\n").unwrap_or(GOOD));
                        self.line.push(b' ');
                    }
                    for _ in 0..8 {
                        self.rng ^= self.rng << 13;
                        self.rng ^= self.rng >> 7;
                        self.rng ^= self.rng << 17;
                        self.line.push(b'a' + (self.rng % 26) as u8);
                    }
                    self.line.push(b'.');
                    self.line.extend_from_slice(self.after);
                    self.at = 0;
                }
                *byte = self.line[self.at];
                self.at += 1;
            }
            Ok(buf.len())
        }
    }
    // Whole lines only, so markup is never cut.
    let line = (before.len() + 14 * GOOD.len() + 9 + after.len()) as u64;
    let lines = (len / line).max(1);
    Lines { rng: seed | 1, line: Vec::new(), at: 0, before, after }.take(lines * line)
}

/// A deflated ZIP: `good.txt`, then `big.txt` of `len` bytes of [`varied_text`].
pub fn zip_of_text(len: u64) -> Vec<u8> {
    zip_of(&mut [("good.txt", Box::new(GOOD) as Box<dyn Read>), ("big.txt", Box::new(varied_text(len, 7)))])
}

/// A DOCX whose `word/document.xml` is `len` bytes of [`varied_text`] lines, a paragraph
/// each (made as it is compressed, never held whole).
pub fn docx_of_text(len: u64) -> Vec<u8> {
    let head: &[u8] = br#"<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>"#;
    let tail: &[u8] = b"</w:body></w:document>";
    let body = varied_lines(len, 11, b"<w:p><w:r><w:t>", b"</w:t></w:r></w:p>");
    zip_of(&mut [
        ("[Content_Types].xml", Box::new(&b"<Types/>"[..]) as Box<dyn Read>),
        ("word/document.xml", Box::new(head.chain(body).chain(tail))),
    ])
}

/// A deflated ZIP: `good.txt`, then `zeros.txt` of `size` zero bytes.
pub fn zip_of_zeros(size: u64) -> Vec<u8> {
    zip_of(&mut [("good.txt", Box::new(GOOD) as Box<dyn Read>), ("zeros.txt", Box::new(std::io::repeat(0).take(size)))])
}

/// A DOCX whose `word/document.xml` is `size` bytes of paragraphs, each a
/// run of 4,000 letters (deflated about 700:1).
pub fn docx_of(size: u64) -> Vec<u8> {
    let head: &[u8] = br#"<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>"#;
    let tail: &[u8] = b"</w:body></w:document>";
    let mut paragraph = b"<w:p><w:r><w:t>".to_vec();
    paragraph.extend(std::iter::repeat_n(b'a', 4000));
    paragraph.extend_from_slice(b"</w:t></w:r></w:p>");
    let body = repeat(Vec::leak(paragraph), size);
    zip_of(&mut [
        ("[Content_Types].xml", Box::new(&b"<Types/>"[..]) as Box<dyn Read>),
        ("word/document.xml", Box::new(head.chain(body).chain(tail))),
    ])
}

/// A deflated ZIP of these members, each read to its end.
pub fn zip_of(members: &mut [(&str, Box<dyn Read + '_>)]) -> Vec<u8> {
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, reader) in members.iter_mut() {
        out.start_file(*name, options).expect("zip member");
        std::io::copy(reader, &mut out).expect("zip write");
    }
    let mut bytes = out.finish().expect("zip finish").into_inner();
    bytes.flush().expect("flush");
    bytes
}

/// Rewrites the uncompressed size of every member (local headers and
/// central directory; ZIP32 fields) to `size`: a ZIP that lies.
pub fn lie_about_sizes(zip: &mut [u8], size: u32) {
    let mut at = 0;
    while at + 46 <= zip.len() {
        let field = match &zip[at..at + 4] {
            b"PK\x03\x04" => Some(at + 22),
            b"PK\x01\x02" => Some(at + 24),
            _ => None,
        };
        if let Some(field) = field {
            zip[field..field + 4].copy_from_slice(&size.to_le_bytes());
        }
        at += 1;
    }
}
