//! [`DocExtractor`]: Word 97-2003 documents (`.doc`), read from the OLE
//! compound file with `cfb` and a piece-table reader of our own
//! ([MS-DOC]).
//!
//! 1. The FIB at the start of the `WordDocument` stream gives the version
//!    (`nFib`; Word 6/95 files are refused as unsupported), the encryption
//!    flags, the language id, which table stream holds the tables
//!    (`0Table`/`1Table`), the character counts of each story (main text,
//!    footnotes, headers, annotations, endnotes, text boxes) and where the
//!    CLX is.
//! 2. The CLX's piece table maps character positions to the bytes of the
//!    `WordDocument` stream: 8-bit ("compressed") pieces are decoded with the
//!    code page of the FIB's language id (e.g. Russian 0x0419 ->
//!    Windows-1251; anything unknown -> Windows-1252) when most of their
//!    letters are in the upper half, else as Windows-1252 (what the
//!    specification says they are); other pieces are UTF-16LE.
//! 3. Special characters become structure: 0x0D paragraph end, 0x0B line
//!    break, 0x07 cell or row end, 0x0C page or section break (pages are
//!    counted from them), fields `0x13 code 0x14 result 0x15` keep only the
//!    result, pictures and drawn objects (0x01, 0x08) are dropped and counted.
//! 4. Character properties mark hidden (`sprmCFVanish`), white (`sprmCCv`,
//!    `sprmCIco`) and tiny (`sprmCHps` <= 4 half-points) text, which is left
//!    out and reported: the paragraph's style (PAPX runs of `PlcBtePapx`,
//!    resolved through the style sheet with its base styles), then the
//!    character style (`sprmCIstd`) and the direct formatting (CHPX runs of
//!    `PlcBteChpx`).
//! 5. Title, author and dates come from the `\x05SummaryInformation`
//!    property set.
//!
//! [MS-DOC]: https://learn.microsoft.com/en-us/openspecs/office_file_formats/ms-doc/

use std::io::{Cursor, Read};

use encoding_rs::{Encoding, UTF_16LE, WINDOWS_1252};

mod props;

use props::{Delta, ParagraphRun, Styles};

use crate::builder::TextBuilder;
use crate::extract::Extract;
use crate::origin::{Part, Place};
use crate::{Error, ExtractConfig, Extracted, Format, Metadata, Result, Trick, Warning};

/// Word 97's `nFib`; older files (Word 6 and 95) have another layout.
const NFIB_WORD97: u16 = 0x00C1;

/// Most nested fields tracked (deeper ones are treated as the deepest).
const MAX_FIELD_DEPTH: usize = 64;

/// Extracts the text of Word 97-2003 documents; see the module
/// documentation of the crate for what it keeps.
#[derive(Debug, Clone, Copy, Default)]
pub struct DocExtractor;

impl Extract for DocExtractor {
    fn format(&self) -> Format {
        Format::Doc
    }

    fn sniff(&self, _name: &str, _head: &[u8]) -> bool {
        // Dispatched by its OLE magic number (container::classify).
        false
    }

    fn extract(&self, name: &str, bytes: &[u8], config: &ExtractConfig) -> Result<Extracted> {
        // `cfb` is a third-party parser of untrusted input: a panic in it
        // must not take the caller down.
        let streams = std::panic::catch_unwind(|| read_streams(name, bytes))
            .unwrap_or_else(|_| Err(malformed(name, "the compound file could not be read")))?;
        Document::parse(name, &streams)?.extract(name, config.text_limit())
    }
}

fn malformed(name: &str, reason: impl Into<String>) -> Error {
    Error::Malformed { name: name.into(), format: "doc", reason: reason.into() }
}

/// The streams of the compound file that a Word document needs.
struct Streams {
    word: Vec<u8>,
    table0: Option<Vec<u8>>,
    table1: Option<Vec<u8>>,
    summary: Option<Vec<u8>>,
}

fn read_streams(name: &str, bytes: &[u8]) -> Result<Streams> {
    let mut file = cfb::CompoundFile::open(Cursor::new(bytes)).map_err(|e| malformed(name, e.to_string()))?;
    if !file.is_stream("/WordDocument") {
        let has = |path: &str| file.exists(path);
        let media_type = if has("/Workbook") || has("/Book") {
            "application/vnd.ms-excel"
        } else if has("/PowerPoint Document") {
            "application/vnd.ms-powerpoint"
        } else if has("/__properties_version1.0") {
            "application/vnd.ms-outlook"
        } else if has("/EncryptedPackage") {
            // An encrypted Office 2007+ document (DOCX, XLSX, PPTX).
            return Err(Error::Encrypted { name: name.into() });
        } else {
            "application/x-ole-storage"
        };
        return Err(Error::Unsupported { name: name.into(), media_type: media_type.into() });
    }
    // A stream cannot hold more than the file, whatever its directory says.
    let limit = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    let mut read = |path: &str, required: bool| -> Result<Option<Vec<u8>>> {
        if !file.is_stream(path) {
            return if required { Err(malformed(name, format!("no {path} stream"))) } else { Ok(None) };
        }
        let stream = file.open_stream(path).map_err(|e| malformed(name, format!("{path}: {e}")))?;
        let mut data = Vec::new();
        match stream.take(limit).read_to_end(&mut data) {
            Ok(_) => Ok(Some(data)),
            Err(e) if required => Err(malformed(name, format!("{path}: {e}"))),
            Err(_) => Ok(None),
        }
    };
    let word = read("/WordDocument", true)?.unwrap_or_default();
    let table0 = read("/0Table", false)?;
    let table1 = read("/1Table", false)?;
    let summary = read("/\u{5}SummaryInformation", false)?;
    Ok(Streams { word, table0, table1, summary })
}

fn u16_at(data: &[u8], at: usize) -> Option<u16> {
    let b = data.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([b[0], b[1]]))
}

fn u32_at(data: &[u8], at: usize) -> Option<u32> {
    let b = data.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn usize_at(data: &[u8], at: usize) -> Option<usize> {
    u32_at(data, at).and_then(|v| usize::try_from(v).ok())
}

/// One piece of the piece table: characters `cp..cp_end` are at byte `fc`
/// of the `WordDocument` stream, one byte each (`compressed`) or two.
#[derive(Debug, Clone, Copy)]
struct Piece {
    cp: usize,
    cp_end: usize,
    fc: usize,
    compressed: bool,
}

/// A run of text with one direct character formatting (CHPX).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    fc: usize,
    fc_end: usize,
    delta: Delta,
}

/// The character counts of the stories, in the order they follow each
/// other in character positions.
#[derive(Debug, Clone, Copy)]
struct Counts {
    text: usize,
    footnotes: usize,
    headers: usize,
    macros: usize,
    annotations: usize,
    endnotes: usize,
    text_boxes: usize,
    header_text_boxes: usize,
}

struct Document<'a> {
    word: &'a [u8],
    pieces: Vec<Piece>,
    runs: Vec<Run>,
    paragraphs: Vec<ParagraphRun>,
    styles: Styles,
    counts: Counts,
    /// Boundaries of the header and footer stories (PlcfHdd), relative to
    /// the start of the header text.
    header_stories: Vec<usize>,
    encoding: &'static Encoding,
    language: Option<&'static str>,
    metadata: Metadata,
    title: Option<String>,
    warnings: Vec<Warning>,
    /// Characters that may still be read: pieces may point at the same bytes
    /// again and again, but a real document never holds more characters than
    /// its `WordDocument` stream has bytes.
    budget: std::cell::Cell<usize>,
}

impl<'a> Document<'a> {
    fn parse(name: &str, streams: &'a Streams) -> Result<Self> {
        let word = streams.word.as_slice();
        let bad = |reason: &str| malformed(name, reason);
        if u16_at(word, 0) != Some(0xA5EC) {
            return Err(bad("no Word signature in the FIB"));
        }
        let nfib = u16_at(word, 2).ok_or_else(|| bad("short FIB"))?;
        let lid = u16_at(word, 6).ok_or_else(|| bad("short FIB"))?;
        let flags = u16_at(word, 0x0A).ok_or_else(|| bad("short FIB"))?;
        // fEncrypted, fObfuscated.
        if flags & 0x0100 != 0 || flags & 0x8000 != 0 {
            return Err(Error::Encrypted { name: name.into() });
        }
        if nfib < NFIB_WORD97 {
            return Err(Error::Unsupported {
                name: name.into(),
                media_type: "application/msword; version=6 (Word 6/95)".into(),
            });
        }
        let table = if flags & 0x0200 != 0 { &streams.table1 } else { &streams.table0 };
        let table = table.as_deref().ok_or_else(|| bad("no table stream"))?;

        // FibBase (32 bytes), csw + fibRgW, cslw + fibRgLw, cbRgFcLcb + fibRgFcLcb.
        let csw = usize::from(u16_at(word, 32).ok_or_else(|| bad("short FIB"))?);
        let lw = 34 + csw * 2;
        let cslw = usize::from(u16_at(word, lw).ok_or_else(|| bad("short FIB"))?);
        let rglw = lw + 2;
        let count =
            |i: usize| -> usize { if i < cslw { usize_at(word, rglw + i * 4).unwrap_or(0).min(1 << 30) } else { 0 } };
        let counts = Counts {
            text: count(3),
            footnotes: count(4),
            headers: count(5),
            macros: count(6),
            annotations: count(7),
            endnotes: count(8),
            text_boxes: count(9),
            header_text_boxes: count(10),
        };
        let fclcb = rglw + cslw * 4;
        let pairs = usize::from(u16_at(word, fclcb).ok_or_else(|| bad("short FIB"))?);
        let blob = fclcb + 2;
        let pair = |i: usize| -> Option<(usize, usize)> {
            if i >= pairs {
                return None;
            }
            let fc = usize_at(word, blob + i * 8)?;
            let lcb = usize_at(word, blob + i * 8 + 4)?;
            Some((fc, lcb))
        };
        let slice = |i: usize| -> Option<&[u8]> {
            let (fc, lcb) = pair(i)?;
            if lcb == 0 {
                return None;
            }
            table.get(fc..fc.checked_add(lcb)?)
        };
        let clx = slice(33).ok_or_else(|| bad("the CLX is missing or out of the table stream"))?;
        let pieces = read_pieces(clx).ok_or_else(|| bad("no piece table in the CLX"))?;
        let mut warnings = Vec::new();
        let runs = slice(12).map(|plc| read_chpx_runs(word, plc, &mut warnings)).unwrap_or_default();
        let header_stories = slice(11).map(read_plc_cps).unwrap_or_default();
        let paragraphs = slice(13).map(|plc| props::read_papx_runs(word, plc)).unwrap_or_default();
        let styles = slice(1).map(Styles::parse).unwrap_or_default();
        let (title, metadata) = streams.summary.as_deref().map(read_summary).unwrap_or_default();
        let (encoding, language) = language(lid);
        let budget = std::cell::Cell::new(word.len());
        Ok(Self {
            word,
            pieces,
            runs,
            paragraphs,
            styles,
            counts,
            header_stories,
            encoding,
            language,
            metadata,
            title,
            warnings,
            budget,
        })
    }

    /// The characters `from..to` (character positions), each with the byte
    /// offset it came from, in order; characters outside every piece are
    /// missing.
    fn chars(&self, from: usize, to: usize, out: &mut Vec<(char, usize)>) {
        out.clear();
        let first = self.pieces.partition_point(|p| p.cp_end <= from);
        for piece in self.pieces.iter().skip(first) {
            if piece.cp >= to {
                break;
            }
            let start = from.max(piece.cp);
            let end = to.min(piece.cp_end);
            let offset = start - piece.cp;
            let n = end - start;
            if piece.compressed {
                let fc = piece.fc / 2 + offset;
                let Some(bytes) = self.word.get(fc..fc.saturating_add(n).min(self.word.len())) else { continue };
                let bytes = bytes.get(..self.budget.get()).unwrap_or(bytes);
                let encoding = self.eight_bit_encoding(bytes);
                self.budget.set(self.budget.get() - bytes.len());
                let (text, _) = encoding.decode_without_bom_handling(bytes);
                out.extend(text.chars().zip(fc..));
            } else {
                let fc = piece.fc.saturating_add(offset.saturating_mul(2));
                let end = fc.saturating_add(n.saturating_mul(2)).min(self.word.len());
                let Some(bytes) = self.word.get(fc..end) else { continue };
                let bytes = bytes.get(..self.budget.get().saturating_mul(2)).unwrap_or(bytes);
                self.budget.set(self.budget.get().saturating_sub(bytes.len() / 2));
                let units = bytes.chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]]));
                let mut at = fc;
                for c in char::decode_utf16(units) {
                    let c = c.unwrap_or('\u{FFFD}');
                    out.push((c, at));
                    at += c.len_utf16() * 2;
                }
            }
        }
    }

    /// The code page of an 8-bit piece. [MS-DOC] defines them as
    /// Windows-1252, and Word 97 and later only store text that fits there
    /// in them; but files converted from older Word versions on Cyrillic and
    /// other systems hold their letters in the code page of their language.
    /// So the language's code page is used when most letters of the piece
    /// are in the upper half (Cyrillic: every letter; Western text: an
    /// accented letter now and then), else Windows-1252. Multi-byte code
    /// pages never apply: one byte is one character in such a piece.
    fn eight_bit_encoding(&self, bytes: &[u8]) -> &'static Encoding {
        if self.encoding == WINDOWS_1252 || !self.encoding.is_single_byte() {
            return WINDOWS_1252;
        }
        let high = bytes.iter().filter(|&&b| b >= 0xC0).count();
        let ascii = bytes.iter().filter(|b| b.is_ascii_alphabetic()).count();
        if high > ascii { self.encoding } else { WINDOWS_1252 }
    }

    /// What hides the character at byte `fc`: its paragraph's style, its
    /// character style, its direct formatting, in that order.
    fn trick_at(&self, fc: usize) -> Option<Trick> {
        let i = self.paragraphs.partition_point(|r| r.fc_end <= fc);
        let paragraph = self.paragraphs.get(i).filter(|r| r.fc <= fc).map_or(0, |r| r.istd);
        let mut base = self.styles.props(paragraph);
        let i = self.runs.partition_point(|r| r.fc_end <= fc);
        let delta = self.runs.get(i).filter(|r| r.fc <= fc).map(|r| r.delta).unwrap_or_default();
        if let Some(style) = delta.istd {
            base = base.or(self.styles.props(style));
        }
        delta.apply(base, base).trick()
    }

    fn extract(mut self, name: &str, text_limit: usize) -> Result<Extracted> {
        let c = self.counts;
        let mut out = Output {
            builder: TextBuilder::with_limit(text_limit),
            paragraph: 1,
            filled: false,
            objects: 0,
            page: None,
        };
        let mut body = Vec::new();
        self.chars(0, c.text, &mut body);
        out.page = body.iter().any(|&(ch, _)| ch == '\u{C}').then_some(1);
        self.story_chars(&mut out, &body, Part::Body);
        drop(body);
        out.page = None;
        let mut cp = c.text;
        self.story(&mut out, cp, cp + c.footnotes, Part::Footnote);
        cp += c.footnotes;
        self.headers(&mut out, cp);
        cp += c.headers + c.macros;
        self.story(&mut out, cp, cp + c.annotations, Part::Comment);
        cp += c.annotations;
        self.story(&mut out, cp, cp + c.endnotes, Part::Endnote);
        cp += c.endnotes;
        self.story(&mut out, cp, cp + c.text_boxes, Part::TextBox);
        cp += c.text_boxes;
        self.story(&mut out, cp, cp + c.header_text_boxes, Part::TextBox);

        let mut builder = out.builder;
        if self.budget.get() == 0 {
            builder.warn(Warning::Damaged { problem: "the piece table repeats text; the rest was not read".into() });
        }
        for warning in std::mem::take(&mut self.warnings) {
            builder.warn(warning);
        }
        if out.objects > 0 {
            builder.warn(Warning::Skipped { what: "picture or drawn object".into(), count: out.objects });
        }
        let mut extracted = builder.finish(name, Format::Doc)?;
        extracted.title = self.title;
        extracted.metadata = Metadata { language: self.language.map(str::to_owned), ..self.metadata };
        extracted.encoding = Some(self.encoding.name().to_owned());
        Ok(extracted)
    }

    /// The header and footer stories: six per section after six separator
    /// stories (even header, odd header, even footer, odd footer, first-page
    /// header, first-page footer).
    fn headers(&self, out: &mut Output, start: usize) {
        let len = self.counts.headers;
        if len == 0 {
            return;
        }
        let bounds = &self.header_stories;
        if bounds.len() < 2 {
            self.story(out, start, start + len, Part::Header);
            return;
        }
        // Stories are in order; overlapping bounds (damaged files) must not
        // make the same text be read again and again.
        let mut done = 0;
        for (i, pair) in bounds.windows(2).enumerate() {
            let (a, b) = (pair[0].min(len).max(done), pair[1].min(len));
            if a >= b {
                continue;
            }
            done = b;
            if i < 6 {
                continue; // footnote and endnote separators
            }
            let part = if matches!((i - 6) % 6, 2 | 3 | 5) { Part::Footer } else { Part::Header };
            self.story(out, start + a, start + b, part);
        }
    }

    fn story(&self, out: &mut Output, from: usize, to: usize, part: Part) {
        if from >= to {
            return;
        }
        let mut chars = Vec::new();
        self.chars(from, to, &mut chars);
        self.story_chars(out, &chars, part);
    }

    fn story_chars(&self, out: &mut Output, chars: &[(char, usize)], part: Part) {
        // Per open field: whether its result has started; and how many open
        // fields are still in their code.
        let mut fields: Vec<bool> = Vec::new();
        let mut in_code = 0usize;
        let mut deep_fields = 0usize;
        let mut run = String::new();
        let mut run_trick: Option<Trick> = None;
        // Paragraphs ending with a cell mark are table cells (a cell of
        // several paragraphs has only its last marked: the paragraph
        // properties that say "in table" are not read).
        let mut in_table = vec![false; chars.len()];
        let mut flag = false;
        for (i, &(c, _)) in chars.iter().enumerate().rev() {
            match c {
                '\r' | '\u{C}' => flag = false,
                '\u{7}' => flag = true,
                _ => {}
            }
            in_table[i] = flag;
        }
        for (&(c, fc), &table) in chars.iter().zip(&in_table) {
            let part = if part == Part::Body && table { Part::Table } else { part };
            match c {
                '\u{13}' => {
                    out.flush(&mut run, run_trick, part);
                    if fields.len() < MAX_FIELD_DEPTH {
                        fields.push(false);
                        in_code += 1;
                    } else {
                        deep_fields += 1;
                    }
                    continue;
                }
                '\u{14}' => {
                    out.flush(&mut run, run_trick, part);
                    if deep_fields == 0
                        && let Some(last) = fields.last_mut()
                        && !*last
                    {
                        *last = true;
                        in_code -= 1;
                    }
                    continue;
                }
                '\u{15}' => {
                    out.flush(&mut run, run_trick, part);
                    if deep_fields > 0 {
                        deep_fields -= 1;
                    } else if fields.pop() == Some(false) {
                        in_code -= 1;
                    }
                    continue;
                }
                _ => {}
            }
            // Inside a field code (of this field or an outer one): dropped.
            if deep_fields > 0 || in_code > 0 {
                continue;
            }
            match c {
                '\r' => {
                    out.flush(&mut run, run_trick, part);
                    out.paragraph_end();
                }
                '\u{7}' => {
                    out.flush(&mut run, run_trick, part);
                    out.paragraph_end();
                }
                '\u{C}' => {
                    out.flush(&mut run, run_trick, part);
                    out.paragraph_end();
                    out.page = out.page.map(|p| p.saturating_add(1));
                }
                '\u{B}' | '\u{E}' => {
                    out.flush(&mut run, run_trick, part);
                    out.builder.line_break();
                }
                '\t' => {
                    out.flush(&mut run, run_trick, part);
                    out.builder.space();
                }
                '\u{1}' | '\u{8}' => out.objects += 1,
                '\u{1E}' | '\u{2011}' => self.add(out, &mut run, &mut run_trick, '-', fc, part),
                c if c < ' ' || c == '\u{1F}' => {}
                c => self.add(out, &mut run, &mut run_trick, c, fc, part),
            }
        }
        out.flush(&mut run, run_trick, part);
        out.paragraph_end();
    }

    fn add(&self, out: &mut Output, run: &mut String, run_trick: &mut Option<Trick>, c: char, fc: usize, part: Part) {
        let trick = self.trick_at(fc);
        if trick != *run_trick {
            out.flush(run, *run_trick, part);
            *run_trick = trick;
        }
        run.push(c);
    }
}

struct Output {
    builder: TextBuilder,
    paragraph: u32,
    /// The current paragraph has text (visible or hidden).
    filled: bool,
    objects: usize,
    page: Option<u32>,
}

impl Output {
    fn flush(&mut self, run: &mut String, trick: Option<Trick>, part: Part) {
        if run.is_empty() {
            return;
        }
        let place = Place { page: self.page, slide: None, paragraph: Some(self.paragraph), part };
        self.filled |= run.chars().any(|c| !c.is_whitespace());
        match trick {
            Some(trick) => self.builder.hidden(run, trick, place),
            None => self.builder.push(run, place),
        }
        run.clear();
    }

    fn paragraph_end(&mut self) {
        self.builder.paragraph_break();
        if std::mem::take(&mut self.filled) {
            self.paragraph = self.paragraph.saturating_add(1);
        }
    }
}

/// The piece table of a CLX: skips the `Prc` entries, reads the `Pcdt`.
fn read_pieces(clx: &[u8]) -> Option<Vec<Piece>> {
    let mut at = 0;
    while clx.get(at) == Some(&0x01) {
        let size = usize::from(u16_at(clx, at + 1)?);
        at = at.checked_add(3 + size)?;
    }
    if clx.get(at) != Some(&0x02) {
        return None;
    }
    let lcb = usize_at(clx, at + 1)?;
    let plc = clx.get(at + 5..at.checked_add(5)?.checked_add(lcb)?)?;
    if plc.len() < 4 {
        return None;
    }
    let n = (plc.len() - 4) / 12;
    let mut pieces = Vec::with_capacity(n);
    for i in 0..n {
        let cp = usize_at(plc, i * 4)?;
        let cp_end = usize_at(plc, (i + 1) * 4)?;
        let pcd = (n + 1) * 4 + i * 8;
        let raw = u32_at(plc, pcd + 2)?;
        let compressed = raw & 0x4000_0000 != 0;
        let fc = usize::try_from(raw & 0x3FFF_FFFF).ok()?;
        // Pieces are sorted; a piece out of order or empty is ignored.
        if cp_end > cp && pieces.last().is_none_or(|p: &Piece| p.cp_end <= cp) {
            pieces.push(Piece { cp, cp_end, fc, compressed });
        }
    }
    (!pieces.is_empty()).then_some(pieces)
}

/// The character positions of a PLC whose entries we do not need: the
/// positions are all the 4-byte values up to the data, which for `PlcfHdd`
/// is all of it (it has no data).
fn read_plc_cps(plc: &[u8]) -> Vec<usize> {
    plc.chunks_exact(4).filter_map(|b| usize::try_from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])).ok()).collect()
}

/// The character property runs of the FKP pages listed in `PlcBteChpx`,
/// with what each says about visibility.
fn read_chpx_runs(word: &[u8], plc: &[u8], warnings: &mut Vec<Warning>) -> Vec<Run> {
    if plc.len() < 4 {
        return Vec::new();
    }
    let n = (plc.len() - 4) / 8;
    let mut runs = Vec::new();
    let mut bad_pages = 0usize;
    for i in 0..n {
        let Some(pn) = u32_at(plc, (n + 1) * 4 + i * 4) else { break };
        let page_at = usize::try_from(pn & 0x003F_FFFF).unwrap_or(usize::MAX).saturating_mul(512);
        let Some(page) = word.get(page_at..page_at.saturating_add(512)) else {
            bad_pages += 1;
            continue;
        };
        let crun = usize::from(page[511]);
        for r in 0..crun {
            let (Some(fc), Some(fc_end)) = (usize_at(page, r * 4), usize_at(page, (r + 1) * 4)) else { break };
            let Some(&offset) = page.get((crun + 1) * 4 + r) else { break };
            let delta = if offset == 0 {
                Delta::default()
            } else {
                let at = usize::from(offset) * 2;
                page.get(at)
                    .and_then(|&cb| page.get(at + 1..at + 1 + usize::from(cb)))
                    .map(Delta::parse)
                    .unwrap_or_default()
            };
            if fc_end > fc {
                runs.push(Run { fc, fc_end, delta });
            }
        }
    }
    if bad_pages > 0 {
        warnings.push(Warning::Damaged { problem: format!("{bad_pages} character property pages out of the file") });
    }
    runs.sort_by_key(|r| r.fc);
    // Overlapping runs (damaged files) would break the binary search.
    let mut end = 0;
    runs.retain(|r| {
        let keep = r.fc >= end;
        if keep {
            end = r.fc_end;
        }
        keep
    });
    runs
}

/// The code page of 8-bit pieces and the language tag, from the FIB's
/// language id.
fn language(lid: u16) -> (&'static Encoding, Option<&'static str>) {
    let (codepage, tag) = match lid {
        0x0419 => (1251, Some("ru-RU")),
        0x0422 => (1251, Some("uk-UA")),
        0x0423 => (1251, Some("be-BY")),
        0x0402 => (1251, Some("bg-BG")),
        0x0C1A => (1251, Some("sr-Cyrl-RS")),
        0x042F => (1251, Some("mk-MK")),
        0x043F => (1251, Some("kk-KZ")),
        0x0409 => (1252, Some("en-US")),
        0x0809 => (1252, Some("en-GB")),
        0x0407 => (1252, Some("de-DE")),
        0x040C => (1252, Some("fr-FR")),
        0x0410 => (1252, Some("it-IT")),
        0x0C0A | 0x040A => (1252, Some("es-ES")),
        0x0415 => (1250, Some("pl-PL")),
        0x0405 => (1250, Some("cs-CZ")),
        0x040E => (1250, Some("hu-HU")),
        0x0408 => (1253, Some("el-GR")),
        0x041F => (1254, Some("tr-TR")),
        0x040D => (1255, Some("he-IL")),
        0x0401 => (1256, Some("ar-SA")),
        0x0425..=0x0427 => (1257, None),
        0x0411 => (932, Some("ja-JP")),
        0x0804 => (936, Some("zh-CN")),
        0x0412 => (949, Some("ko-KR")),
        0x0404 => (950, Some("zh-TW")),
        _ => (1252, None),
    };
    (crate::rtf::codepage(codepage).unwrap_or(WINDOWS_1252), tag)
}

/// Title, author and dates from the `\x05SummaryInformation` property set.
fn read_summary(data: &[u8]) -> (Option<String>, Metadata) {
    let mut metadata = Metadata::default();
    let mut title = None;
    let Some(section) = usize_at(data, 28 + 16) else { return (title, metadata) };
    let Some(count) = usize_at(data, section + 4) else { return (title, metadata) };
    let mut encoding = WINDOWS_1252;
    let mut props = Vec::new();
    for i in 0..count.min(256) {
        let (Some(id), Some(offset)) = (u32_at(data, section + 8 + i * 8), usize_at(data, section + 12 + i * 8)) else {
            break;
        };
        let at = section.saturating_add(offset);
        if id == 1
            && u32_at(data, at) == Some(2)
            && let Some(cp) = u16_at(data, at + 4)
        {
            encoding = if cp == 1200 { UTF_16LE } else { crate::rtf::codepage(i32::from(cp)).unwrap_or(WINDOWS_1252) };
        }
        props.push((id, at));
    }
    for (id, at) in props {
        let Some(kind) = u32_at(data, at) else { continue };
        match (id, kind) {
            (2 | 4 | 18, 0x1E) => {
                let Some(len) = usize_at(data, at + 4) else { continue };
                let Some(bytes) = data.get(at + 8..(at + 8).saturating_add(len.min(4096))) else { continue };
                let (s, _) = encoding.decode_without_bom_handling(bytes);
                let s = s.trim_end_matches('\0').trim().to_owned();
                if s.is_empty() {
                    continue;
                }
                match id {
                    2 => title = Some(s),
                    4 => metadata.authors = vec![s],
                    _ => metadata.producer = Some(s),
                }
            }
            (12 | 13, 0x40) => {
                let (Some(low), Some(high)) = (u32_at(data, at + 4), u32_at(data, at + 8)) else { continue };
                let ticks = (u64::from(high) << 32) | u64::from(low);
                let Some(date) = filetime(ticks) else { continue };
                if id == 12 {
                    metadata.created = Some(date);
                } else {
                    metadata.modified = Some(date);
                }
            }
            _ => {}
        }
    }
    (title, metadata)
}

/// A FILETIME (100 ns ticks since 1601-01-01 UTC) as an ISO 8601 date and
/// time, when it is a plausible date (1980 to 9999).
fn filetime(ticks: u64) -> Option<String> {
    let secs = ticks / 10_000_000;
    // Seconds from 1601-01-01 to 1970-01-01.
    let unix = i64::try_from(secs).ok()? - 11_644_473_600;
    if !(315_532_800..253_402_300_800).contains(&unix) {
        return None;
    }
    let days = unix.div_euclid(86_400);
    let rest = unix.rem_euclid(86_400);
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    Some(format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rest / 3600, rest % 3600 / 60, rest % 60))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filetimes_become_iso_dates() {
        // 2024-03-05T10:30:00Z
        let unix = 1_709_634_600u64;
        assert_eq!(filetime((unix + 11_644_473_600) * 10_000_000).as_deref(), Some("2024-03-05T10:30:00Z"));
        assert_eq!(filetime(0), None);
    }

    #[test]
    fn piece_tables_skip_prc_and_reject_garbage() {
        // One Prc of 2 bytes, then a Pcdt with one compressed piece of 5 characters at byte 100.
        let mut clx = vec![0x01, 0x02, 0x00, 0xAA, 0xBB, 0x02];
        clx.extend_from_slice(&16u32.to_le_bytes());
        clx.extend_from_slice(&0u32.to_le_bytes());
        clx.extend_from_slice(&5u32.to_le_bytes());
        clx.extend_from_slice(&[0, 0]);
        clx.extend_from_slice(&(200u32 | 0x4000_0000).to_le_bytes());
        clx.extend_from_slice(&[0, 0]);
        let pieces = read_pieces(&clx).unwrap();
        assert_eq!((pieces[0].cp, pieces[0].cp_end, pieces[0].fc, pieces[0].compressed), (0, 5, 200, true));
        assert!(read_pieces(&[0x01, 0xFF, 0xFF]).is_none());
        assert!(read_pieces(&[0x02, 0xFF, 0xFF, 0xFF, 0xFF]).is_none());
    }
}
