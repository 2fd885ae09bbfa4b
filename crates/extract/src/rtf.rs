//! [`RtfExtractor`]: Rich Text Format, with a tokenizer of our own.
//!
//! The reader is one pass over the bytes, with an explicit stack of group
//! states (no recursion; nesting deeper than [`MAX_DEPTH`] shares the
//! deepest state), so any input takes linear time and bounded memory.
//!
//! - Text: runs of bytes and `\'hh` escapes are decoded with the code page
//!   of the current font (`\fcharset` in the font table) or else the
//!   document's `\ansicpg` (else Windows-1252); `\uN` is a UTF-16 unit
//!   (surrogate pairs joined), followed by `\ucN` fallback characters that
//!   are skipped, scoped to the group.
//! - Skipped: `{\*...}` destinations, the style sheet, pictures, objects
//!   (but not their `\result`), field instructions (field results are kept),
//!   and other non-text destinations. The font table, the colour table and
//!   `\info` (title, author, creation and revision times) are parsed.
//! - Places: paragraphs counted through the document (`\par`); pages where
//!   the document has `\page` breaks; headers and footers marked
//!   ([`Part::Header`], [`Part::Footer`]); footnotes, endnotes and
//!   annotations are moved after the body (they sit inside the sentence that
//!   refers to them) as [`Part::Footnote`], [`Part::Endnote`],
//!   [`Part::Comment`], and so is the text of shapes (`\shptxt`,
//!   [`Part::TextBox`]); table paragraphs (`\intbl`) are [`Part::Table`].
//! - Hidden text: `\v` ([`Trick::HiddenText`]), a `\cfN` colour that is
//!   white ([`Trick::WhiteText`]), `\fsN` with `N <= 4` half-points, i.e.
//!   2 pt or less ([`Trick::TinyText`]).

use std::collections::BTreeMap;

use encoding_rs::{Encoding, WINDOWS_1252};

use crate::builder::TextBuilder;
use crate::extract::Extract;
use crate::origin::{Part, Place};
use crate::{ExtractConfig, Extracted, Format, Metadata, Result, Trick};

/// Groups nested deeper than this share the state of the deepest one.
pub(crate) const MAX_DEPTH: usize = 512;

/// Longest control word read (the specification says 32 letters).
const MAX_WORD: usize = 32;

/// Extracts the text of RTF documents. Recognised by its `{\rtf` magic
/// number; see the module documentation of the crate for what it keeps.
#[derive(Debug, Clone, Copy, Default)]
pub struct RtfExtractor;

impl Extract for RtfExtractor {
    fn format(&self) -> Format {
        Format::Rtf
    }

    fn sniff(&self, _name: &str, head: &[u8]) -> bool {
        head.starts_with(b"{\\rtf")
    }

    fn extract(&self, name: &str, bytes: &[u8], config: &ExtractConfig) -> Result<Extracted> {
        let mut parser = Parser::new(bytes);
        parser.run();
        parser.finish(name, config.text_limit())
    }
}

/// Where the text of a group goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dest {
    /// Visible text of this part.
    Text(Part),
    /// Dropped.
    Skip,
    FontTable,
    ColorTable,
    /// An `\info` field (title, author, ...) or the `\info` group itself.
    Info(InfoField),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InfoField {
    None,
    Title,
    Author,
    Created,
    Modified,
}

/// Character and destination state of one group.
#[derive(Debug, Clone, Copy)]
struct State {
    dest: Dest,
    /// The part text goes to when an `\object`'s `\result` brings it back.
    text_part: Part,
    hidden: bool,
    color: usize,
    /// Font size in half-points.
    size: i32,
    font: i32,
    /// Fallback characters after each `\uN`.
    uc: u32,
    in_table: bool,
    /// Inside an `\object`, whose `\result` is visible text.
    object: bool,
    /// Inside `{\upr ANSI-text {\*\ud Unicode-text}}`: where the Unicode
    /// text goes.
    upr: Option<Dest>,
}

impl Default for State {
    fn default() -> Self {
        Self {
            dest: Dest::Text(Part::Body),
            text_part: Part::Body,
            hidden: false,
            color: 0,
            size: 24,
            font: -1,
            uc: 1,
            in_table: false,
            object: false,
            upr: None,
        }
    }
}

/// What the text stream holds, before paragraphs and pages are numbered.
#[derive(Debug)]
enum Event {
    Text { text: String, part: Part, page: u32, trick: Option<Trick> },
    Paragraph,
    Line,
    Space,
    Page,
}

#[derive(Debug, Default)]
struct Info {
    title: String,
    author: String,
    created: Option<String>,
    modified: Option<String>,
    /// `\yr \mo \dy \hr \min` of the date group being read.
    date: [i32; 5],
}

struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
    state: State,
    stack: Vec<State>,
    /// Groups opened past [`MAX_DEPTH`] and not yet closed.
    overflow: usize,
    /// The next group is `{\*...}`.
    starred: bool,
    /// Bytes of text waiting to be decoded, and their encoding.
    pending: Vec<u8>,
    pending_encoding: &'static Encoding,
    /// A high surrogate from a `\uN`, waiting for its low half.
    high_surrogate: Option<u16>,
    /// Fallback characters still to skip after a `\uN`.
    skip: u32,
    ansi: &'static Encoding,
    /// Font number to code page, from the font table.
    fonts: BTreeMap<i32, &'static Encoding>,
    /// The colour table: `None` is the "auto" entry.
    colors: Vec<Option<(u8, u8, u8)>>,
    color: (Option<u8>, Option<u8>, Option<u8>),
    /// The font being defined in the font table.
    font_def: i32,
    info: Info,
    body: Vec<Event>,
    notes: Vec<Event>,
    page: u32,
    objects: usize,
    pictures: usize,
    /// Groups still open at the end of the input.
    unclosed: usize,
}

impl<'a> Parser<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            pos: 0,
            state: State::default(),
            stack: Vec::new(),
            overflow: 0,
            starred: false,
            pending: Vec::new(),
            pending_encoding: WINDOWS_1252,
            high_surrogate: None,
            skip: 0,
            ansi: WINDOWS_1252,
            fonts: BTreeMap::new(),
            colors: Vec::new(),
            color: (None, None, None),
            font_def: -1,
            info: Info::default(),
            body: Vec::new(),
            notes: Vec::new(),
            page: 1,
            objects: 0,
            pictures: 0,
            unclosed: 0,
        }
    }

    fn run(&mut self) {
        while let Some(&byte) = self.bytes.get(self.pos) {
            self.pos += 1;
            match byte {
                b'{' => {
                    self.flush();
                    self.skip = 0;
                    if self.stack.len() < MAX_DEPTH {
                        self.stack.push(self.state);
                    } else {
                        self.overflow += 1;
                    }
                    self.starred = false;
                }
                b'}' => {
                    self.flush();
                    self.skip = 0;
                    self.close_group();
                }
                b'\\' => self.control(),
                b'\r' | b'\n' | 0 => {}
                b'\t' => {
                    self.flush();
                    self.emit_break(Event::Space);
                }
                _ => self.text_byte(byte),
            }
        }
        self.flush();
        self.unclosed = self.stack.len() + self.overflow;
    }

    fn close_group(&mut self) {
        if self.overflow > 0 {
            self.overflow -= 1;
            return;
        }
        let closing = self.state;
        let Some(outer) = self.stack.pop() else {
            return;
        };
        match closing.dest {
            Dest::ColorTable if outer.dest != Dest::ColorTable => self.end_color(),
            Dest::Info(field @ (InfoField::Created | InfoField::Modified)) if outer.dest != closing.dest => {
                let [yr, mo, dy, hr, min] = std::mem::take(&mut self.info.date);
                if yr > 0 {
                    let date = format!("{yr:04}-{mo:02}-{dy:02}T{hr:02}:{min:02}:00");
                    if field == InfoField::Created {
                        self.info.created = Some(date);
                    } else {
                        self.info.modified = Some(date);
                    }
                }
            }
            _ => {}
        }
        if matches!(closing.dest, Dest::Text(part) if deferred(part))
            && !matches!(outer.dest, Dest::Text(part) if deferred(part))
        {
            self.notes.push(Event::Paragraph);
        }
        self.state = outer;
    }

    /// Reads what follows a backslash.
    fn control(&mut self) {
        let Some(&first) = self.bytes.get(self.pos) else {
            return;
        };
        if !first.is_ascii_alphabetic() {
            self.pos += 1;
            self.symbol(first);
            return;
        }
        let bytes: &'a [u8] = self.bytes;
        let start = self.pos;
        while self.pos - start < MAX_WORD && self.bytes.get(self.pos).is_some_and(u8::is_ascii_alphabetic) {
            self.pos += 1;
        }
        let word = &bytes[start..self.pos];
        let mut param: Option<i32> = None;
        let negative =
            self.bytes.get(self.pos) == Some(&b'-') && self.bytes.get(self.pos + 1).is_some_and(u8::is_ascii_digit);
        if negative {
            self.pos += 1;
        }
        let mut digits = 0;
        while let Some(&d) = self.bytes.get(self.pos).filter(|d| d.is_ascii_digit()) {
            self.pos += 1;
            digits += 1;
            if digits <= 10 {
                let value = param.unwrap_or(0).saturating_mul(10).saturating_add(i32::from(d - b'0'));
                param = Some(value);
            }
        }
        if negative {
            param = param.map(|p| -p);
        }
        if self.bytes.get(self.pos) == Some(&b' ') {
            self.pos += 1;
        }
        if word == b"bin" {
            self.flush();
            let n = usize::try_from(param.unwrap_or(0).max(0)).unwrap_or(0);
            self.pos = self.pos.saturating_add(n).min(self.bytes.len());
            return;
        }
        if word == b"u" {
            self.flush();
            self.unicode(param.unwrap_or(0));
            return;
        }
        if self.skip > 0 {
            // A control word stands for one fallback character.
            self.skip -= 1;
            return;
        }
        self.flush();
        self.word(word, param);
    }

    fn symbol(&mut self, symbol: u8) {
        match symbol {
            b'\'' => {
                let hex = self.bytes.get(self.pos..self.pos + 2).and_then(|h| {
                    let h = std::str::from_utf8(h).ok()?;
                    u8::from_str_radix(h, 16).ok()
                });
                if let Some(byte) = hex {
                    self.pos += 2;
                    self.text_byte(byte);
                }
            }
            b'*' => self.starred = true,
            b'\\' | b'{' | b'}' => self.text_byte(symbol),
            b'~' => self.text_char('\u{A0}'),
            b'_' => self.text_char('\u{2011}'),
            b'\r' | b'\n' => {
                self.flush();
                self.emit_break(Event::Paragraph);
            }
            // `\-` optional hyphen, `\:` index sub-entry, and unknown symbols.
            _ => {
                if self.skip > 0 {
                    self.skip -= 1;
                }
            }
        }
    }

    fn unicode(&mut self, param: i32) {
        let unit = u16::try_from(param.rem_euclid(65_536)).unwrap_or(0xFFFD);
        self.skip = self.state.uc;
        if (0xD800..0xDC00).contains(&unit) {
            self.high_surrogate = Some(unit);
            return;
        }
        let c = if (0xDC00..0xE000).contains(&unit) {
            match self.high_surrogate.take() {
                Some(high) => {
                    let code = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                    char::from_u32(code).unwrap_or('\u{FFFD}')
                }
                None => '\u{FFFD}',
            }
        } else {
            char::from_u32(u32::from(unit)).unwrap_or('\u{FFFD}')
        };
        self.high_surrogate = None;
        self.emit_text(c.encode_utf8(&mut [0; 4]));
    }

    fn text_byte(&mut self, byte: u8) {
        if self.skip > 0 {
            self.skip -= 1;
            return;
        }
        if self.starred {
            // `{\*` followed by text, not a control word: not a destination.
            self.starred = false;
        }
        if matches!(self.state.dest, Dest::Skip | Dest::FontTable) {
            // Picture data and font names: nothing to keep, nothing to buffer.
            return;
        }
        let encoding = self.encoding();
        if encoding != self.pending_encoding {
            self.flush();
            self.pending_encoding = encoding;
        }
        self.pending.push(byte);
    }

    fn text_char(&mut self, c: char) {
        if self.skip > 0 {
            self.skip -= 1;
            return;
        }
        self.flush();
        self.emit_text(c.encode_utf8(&mut [0; 4]));
    }

    /// The code page of the current font, else the document's.
    fn encoding(&self) -> &'static Encoding {
        self.fonts.get(&self.state.font).copied().unwrap_or(self.ansi)
    }

    /// Decodes the pending bytes into the current destination.
    fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let bytes = std::mem::take(&mut self.pending);
        let (text, _) = self.pending_encoding.decode_without_bom_handling(&bytes);
        self.emit_text(&text);
        self.pending = bytes;
        self.pending.clear();
    }

    fn emit_text(&mut self, text: &str) {
        let state = self.state;
        match state.dest {
            Dest::Text(part) => {
                let part = if part == Part::Body && state.in_table { Part::Table } else { part };
                let white = self.colors.get(state.color).copied().flatten() == Some((255, 255, 255));
                let trick = if state.hidden {
                    Some(Trick::HiddenText)
                } else if white {
                    Some(Trick::WhiteText)
                } else if state.size <= 4 {
                    Some(Trick::TinyText)
                } else {
                    None
                };
                let page = self.page;
                let events = self.events(part);
                if let Some(Event::Text { text: last, part: p, page: at, trick: t }) = events.last_mut()
                    && *p == part
                    && *t == trick
                    && *at == page
                {
                    last.push_str(text);
                    return;
                }
                events.push(Event::Text { text: text.to_owned(), part, page, trick });
            }
            Dest::FontTable => {}
            Dest::ColorTable => {
                for c in text.chars() {
                    if c == ';' {
                        self.end_color();
                    }
                }
            }
            Dest::Info(field) => {
                let target = match field {
                    InfoField::Title => &mut self.info.title,
                    InfoField::Author => &mut self.info.author,
                    _ => return,
                };
                if target.len() < 1024 {
                    target.push_str(text);
                }
            }
            Dest::Skip => {}
        }
    }

    fn events(&mut self, part: Part) -> &mut Vec<Event> {
        if deferred(part) { &mut self.notes } else { &mut self.body }
    }

    fn emit_break(&mut self, event: Event) {
        if let Dest::Text(part) = self.state.dest {
            if self.state.hidden && matches!(event, Event::Space) {
                return;
            }
            if matches!(event, Event::Page) {
                self.page = self.page.saturating_add(1);
            }
            self.events(part).push(event);
        }
    }

    fn end_color(&mut self) {
        let entry = match self.color {
            (None, None, None) => None,
            (r, g, b) => Some((r.unwrap_or(0), g.unwrap_or(0), b.unwrap_or(0))),
        };
        self.color = (None, None, None);
        if self.colors.len() < 4096 {
            self.colors.push(entry);
        }
    }

    /// Opens a destination for the current group.
    fn destination(&mut self, dest: Dest) {
        self.state.dest = dest;
        if let Dest::Text(part) = dest {
            self.state.text_part = part;
            self.state.in_table = false;
        }
    }

    #[allow(clippy::too_many_lines)] // one arm per control word
    fn word(&mut self, word: &[u8], param: Option<i32>) {
        let starred = std::mem::take(&mut self.starred);
        let on = param != Some(0);
        let byte = |p: Option<i32>| u8::try_from(p.unwrap_or(0).clamp(0, 255)).unwrap_or(0);
        let in_text = matches!(self.state.dest, Dest::Text(_));
        if self.state.dest == Dest::Skip {
            match word {
                b"result" if self.state.object => {
                    let part = self.state.text_part;
                    self.destination(Dest::Text(part));
                }
                b"uc" => self.state.uc = u32::try_from(param.unwrap_or(1).clamp(0, 16)).unwrap_or(1),
                // The text of a shape (text box) inside `{\*\shpinst ...}`.
                b"shptxt" => self.destination(Dest::Text(Part::TextBox)),
                b"ud" => {
                    if let Some(dest) = self.state.upr.take() {
                        self.state.dest = dest;
                    }
                }
                _ => {}
            }
            return;
        }
        match word {
            b"ansicpg" => {
                if let Some(encoding) = param.and_then(codepage) {
                    self.ansi = encoding;
                }
            }
            b"mac" => self.ansi = encoding_rs::MACINTOSH,
            b"pc" | b"pca" => self.ansi = encoding_rs::IBM866,
            b"fonttbl" => self.destination(Dest::FontTable),
            b"colortbl" => self.destination(Dest::ColorTable),
            b"info" => self.destination(Dest::Info(InfoField::None)),
            b"title" if matches!(self.state.dest, Dest::Info(_)) => self.destination(Dest::Info(InfoField::Title)),
            b"author" if matches!(self.state.dest, Dest::Info(_)) => {
                self.destination(Dest::Info(InfoField::Author));
            }
            b"creatim" if matches!(self.state.dest, Dest::Info(_)) => {
                self.destination(Dest::Info(InfoField::Created));
            }
            b"revtim" if matches!(self.state.dest, Dest::Info(_)) => {
                self.destination(Dest::Info(InfoField::Modified));
            }
            b"yr" | b"mo" | b"dy" | b"hr" | b"min" if matches!(self.state.dest, Dest::Info(_)) => {
                let i = match word {
                    b"yr" => 0,
                    b"mo" => 1,
                    b"dy" => 2,
                    b"hr" => 3,
                    _ => 4,
                };
                self.info.date[i] = param.unwrap_or(0).clamp(0, 9999);
            }
            b"f" => {
                let f = param.unwrap_or(0);
                if self.state.dest == Dest::FontTable {
                    self.font_def = f;
                } else {
                    self.state.font = f;
                }
            }
            b"fcharset" if self.state.dest == Dest::FontTable => {
                if let Some(encoding) = param.and_then(charset)
                    && self.fonts.len() < 4096
                {
                    self.fonts.insert(self.font_def, encoding);
                }
            }
            b"red" if self.state.dest == Dest::ColorTable => self.color.0 = Some(byte(param)),
            b"green" if self.state.dest == Dest::ColorTable => self.color.1 = Some(byte(param)),
            b"blue" if self.state.dest == Dest::ColorTable => self.color.2 = Some(byte(param)),
            b"header" | b"headerl" | b"headerr" | b"headerf" => self.destination(Dest::Text(Part::Header)),
            b"footer" | b"footerl" | b"footerr" | b"footerf" => self.destination(Dest::Text(Part::Footer)),
            b"footnote" => self.destination(Dest::Text(Part::Footnote)),
            b"ftnalt" if self.state.dest == Dest::Text(Part::Footnote) => {
                self.destination(Dest::Text(Part::Endnote));
            }
            b"annotation" => self.destination(Dest::Text(Part::Comment)),
            b"pict" => {
                self.pictures += 1;
                self.destination(Dest::Skip);
            }
            b"object" => {
                self.objects += 1;
                self.state.object = true;
                self.destination(Dest::Skip);
            }
            b"deff" => self.state.font = param.unwrap_or(0),
            b"upr" => {
                self.state.upr = Some(self.state.dest);
                self.state.dest = Dest::Skip;
            }
            b"stylesheet"
            | b"listtable"
            | b"listoverridetable"
            | b"revtbl"
            | b"rsidtbl"
            | b"filetbl"
            | b"fldinst"
            | b"themedata"
            | b"colorschememapping"
            | b"datastore"
            | b"latentstyles"
            | b"xmlnstbl"
            | b"atnid"
            | b"atnauthor"
            | b"atndate"
            | b"atnref"
            | b"nonshppict"
            | b"bkmkstart"
            | b"bkmkend"
            | b"template"
            | b"docvar"
            | b"pgdsctbl"
            | b"listtext"
            | b"pntext"
            | b"pntxta"
            | b"pntxtb" => {
                self.destination(Dest::Skip);
            }
            _ if starred => self.destination(Dest::Skip),
            b"uc" => self.state.uc = u32::try_from(param.unwrap_or(1).clamp(0, 16)).unwrap_or(1),
            b"plain" => {
                self.state.hidden = false;
                self.state.color = 0;
                self.state.size = 24;
            }
            b"v" => self.state.hidden = on,
            b"cf" => self.state.color = usize::try_from(param.unwrap_or(0)).unwrap_or(0),
            b"fs" => self.state.size = param.unwrap_or(24),
            b"pard" => self.state.in_table = false,
            b"intbl" => self.state.in_table = true,
            _ if !in_text => {}
            b"par" | b"sect" => self.emit_break(Event::Paragraph),
            b"row" => self.emit_break(Event::Paragraph),
            // A cell ends a paragraph, as in Word's model (and in DOC).
            b"cell" | b"nestcell" => self.emit_break(Event::Paragraph),
            b"line" => self.emit_break(Event::Line),
            b"tab" => self.emit_break(Event::Space),
            b"page" => self.emit_break(Event::Page),
            _ => {
                if let Some(c) = special(word) {
                    self.emit_text(c);
                }
            }
        }
    }

    fn finish(mut self, name: &str, text_limit: usize) -> Result<Extracted> {
        let has_pages = self.body.iter().any(|e| matches!(e, Event::Page));
        let mut builder = TextBuilder::with_limit(text_limit);
        let mut paragraph = 1u32;
        let mut filled = false;
        let events = std::mem::take(&mut self.body).into_iter().chain(std::mem::take(&mut self.notes));
        for event in events {
            match event {
                Event::Text { text, part, page, trick } => {
                    let place =
                        Place { page: has_pages.then_some(page), paragraph: Some(paragraph), part, slide: None };
                    filled |= text.chars().any(|c| !c.is_whitespace());
                    match trick {
                        Some(trick) => builder.hidden(&text, trick, place),
                        None => builder.push(&text, place),
                    }
                }
                Event::Paragraph | Event::Page => {
                    builder.paragraph_break();
                    if std::mem::take(&mut filled) {
                        paragraph = paragraph.saturating_add(1);
                    }
                }
                Event::Line => builder.line_break(),
                Event::Space => builder.space(),
            }
        }
        if self.pictures + self.objects > 0 {
            let mut warn = |what: &str, count| {
                if count > 0 {
                    builder.warn(crate::Warning::Skipped { what: what.into(), count });
                }
            };
            warn("picture", self.pictures);
            warn("embedded object", self.objects);
        }
        if self.unclosed > 0 {
            builder.warn(crate::Warning::Damaged {
                problem: format!("truncated: {} groups not closed at the end", self.unclosed),
            });
        }
        let mut extracted = builder.finish(name, Format::Rtf)?;
        let title = self.info.title.trim();
        extracted.title = (!title.is_empty()).then(|| title.to_owned());
        let author = self.info.author.trim();
        extracted.metadata = Metadata {
            authors: if author.is_empty() { Vec::new() } else { vec![author.to_owned()] },
            created: self.info.created,
            modified: self.info.modified,
            ..Metadata::default()
        };
        extracted.encoding = Some(self.ansi.name().to_owned());
        Ok(extracted)
    }
}

/// Parts whose text is anchored inside a sentence of the body and is put
/// after the body instead.
fn deferred(part: Part) -> bool {
    matches!(part, Part::Footnote | Part::Endnote | Part::Comment | Part::TextBox)
}

/// Control words that stand for one character.
fn special(word: &[u8]) -> Option<&'static str> {
    Some(match word {
        b"emdash" => "\u{2014}",
        b"endash" => "\u{2013}",
        b"lquote" => "\u{2018}",
        b"rquote" => "\u{2019}",
        b"ldblquote" => "\u{201C}",
        b"rdblquote" => "\u{201D}",
        b"bullet" => "\u{2022}",
        b"emspace" | b"enspace" | b"qmspace" => " ",
        _ => return None,
    })
}

/// The encoding of a Windows code page number (`\ansicpg`, `\cpg`).
pub(crate) fn codepage(cp: i32) -> Option<&'static Encoding> {
    let label: &[u8] = match cp {
        437 | 850 | 852 | 1252 => b"windows-1252",
        866 => b"ibm866",
        874 => b"windows-874",
        932 => b"shift_jis",
        936 => b"gbk",
        949 => b"euc-kr",
        950 => b"big5",
        1250 => b"windows-1250",
        1251 => b"windows-1251",
        1253 => b"windows-1253",
        1254 => b"windows-1254",
        1255 => b"windows-1255",
        1256 => b"windows-1256",
        1257 => b"windows-1257",
        1258 => b"windows-1258",
        10000 => b"macintosh",
        10007 => b"x-mac-cyrillic",
        20866 => b"koi8-r",
        21866 => b"koi8-u",
        28591 => b"windows-1252",
        28595 => b"iso-8859-5",
        65001 => b"utf-8",
        _ => return None,
    };
    Encoding::for_label(label)
}

/// The encoding of a font's `\fcharset`.
fn charset(charset: i32) -> Option<&'static Encoding> {
    codepage(match charset {
        0 | 1 => 1252,
        77 => 10000,
        128 => 932,
        129 => 949,
        134 => 936,
        136 => 950,
        161 => 1253,
        162 => 1254,
        163 => 1258,
        177 => 1255,
        178 => 1256,
        186 => 1257,
        204 => 1251,
        222 => 874,
        238 => 1250,
        255 => 437,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(rtf: &str) -> String {
        RtfExtractor.extract("t.rtf", rtf.as_bytes(), &ExtractConfig::default()).unwrap().text
    }

    #[test]
    fn unicode_escapes_skip_their_fallback_in_scope() {
        assert_eq!(text(r"{\rtf1\uc1\u1055?\u1088?\u1080? \u1074?\u1077?\u1090?}"), "При вет");
        assert_eq!(text(r"{\rtf1\uc2\u1055\'3f\'3f{\uc0\u1088}\u1080??x}"), "Приx");
        assert_eq!(text(r"{\rtf1 a\u-10179?\u-8704?b}"), "a\u{1F600}b");
        // \upr: the ANSI version is dropped for the Unicode one.
        assert_eq!(text(r"{\rtf1 {\upr{a ??}{\*\ud{a \u1076?\u1072?}}} b}"), "a да b");
    }

    #[test]
    fn hex_escapes_use_the_font_charset_then_ansicpg() {
        let rtf = r"{\rtf1\ansi\ansicpg1251{\fonttbl{\f0 Arial;}{\f1\fcharset0 Arial;}}\f0\'cf\'f0\f1\'e9}";
        assert_eq!(text(rtf), "Пр\u{e9}");
    }

    #[test]
    fn destinations_are_skipped_and_fields_keep_results() {
        let rtf = r"{\rtf1{\*\generator Foo;}{\stylesheet{Normal;}}A{\field{\*\fldinst HYPERLINK x}{\fldrslt link}} b{\pict 0123}\par}";
        assert_eq!(text(rtf), "Alink b");
    }

    #[test]
    fn deep_nesting_and_binary_data_are_harmless() {
        let deep = format!("{{\\rtf1 a{}b{}c}}", "{".repeat(100_000), "}".repeat(100_000));
        assert_eq!(text(&deep), "abc");
        assert_eq!(text("{\\rtf1 x\\bin3 {{{y}"), "xy");
        assert_eq!(text("{\\rtf1 x\\bin999999999"), "x");
    }
}
