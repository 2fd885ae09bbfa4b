//! PDF: a report to file, written in Rust (pdf-writer) with an embedded, subset DejaVu Sans.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use pdf_writer::types::{CidFontType, FontFlags, SystemInfo, UnicodeCmap};
use pdf_writer::{Content, Date, Filter, Finish, Name, Pdf, Rect, Ref, Str, TextStr};

use crate::model::{Block, BlockKind, Report};
use crate::render::{
    BlockHeading, Mark, PALETTE, Piece, Render, Side, block_excerpt_pieces, fmt_percent, sentence_pairs_heading,
    source_label, source_not_kept, source_range,
};

/// Renders the report as a PDF to file: A4 pages, page numbers, text wrapped.
///
/// Page one starts with a header (Tessera report, the document's title and name, the
/// date of the check when [`checked_at_ms`](Self::checked_at_ms) is set, its size), the
/// totals (originality, borrowings, citations, with a bar), the extraction notices in
/// plain words, and the source list by number (largest share first: colour swatch with
/// the number, shares in report and in text, blocks, title, origin, collection). Then
/// the document's whole text: every counted run filled with its source's colour (the
/// palette of the HTML report) with a numbered marker where a run of a source starts,
/// borrowings underlined in the source's colour, citations with a dashed green line,
/// places of tricks to hide copied text underlined in red. Then the blocks, as the HTML
/// report lists them: each with its kind, source, place, confidence and how it was found,
/// a rewording's or a summary's sentence pairs side by side, and the document's and the
/// source's text of the block with the words that differ marked (changed, added in the
/// document, left out of the source). Every page has a footer with the document's name
/// and `page N of M`.
///
/// Text is drawn with DejaVu Sans (Latin, Cyrillic, Greek and more), embedded and
/// subset to the glyphs used, with a `ToUnicode` map so the text can be searched and
/// copied. Characters the font lacks (e.g. Chinese) show as its missing-glyph box and
/// are not given back when the text is copied. Deterministic: the same report and settings give the same bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PdfRenderer {
    /// When the check was made, in milliseconds since the Unix epoch (UTC); shown in the
    /// header and stored as the PDF's creation date. `None`: no date (the report does
    /// not carry one).
    pub checked_at_ms: Option<u64>,
}

impl PdfRenderer {
    /// A renderer that shows the date of the check (milliseconds since the Unix epoch).
    #[must_use]
    pub fn checked_at(unix_ms: u64) -> Self {
        Self { checked_at_ms: Some(unix_ms) }
    }

    /// The PDF's bytes.
    ///
    /// # Errors
    ///
    /// When the PDF library fails to write the document (e.g. it cannot embed the font).
    pub fn render_to_bytes(&self, report: &Report) -> std::io::Result<Vec<u8>> {
        let fonts = Fonts::load()?;
        let mut layout = Layout::new(&fonts);
        layout.report(report, self.checked_at_ms.map(civil_time));
        let pages = layout.pages;
        write_pdf(report, &fonts, pages, self.checked_at_ms)
    }
}

impl Render for PdfRenderer {
    fn render(&self, report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
        out.write_all(&self.render_to_bytes(report)?)
    }

    /// A PDF is not text: this always fails; use [`render`](Render::render) or
    /// [`PdfRenderer::render_to_bytes`].
    fn render_to_string(&self, _report: &Report) -> std::io::Result<String> {
        Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "a PDF is binary, not a string"))
    }
}

const REGULAR: &[u8] = include_bytes!("../../fonts/DejaVuSans.ttf");
const BOLD: &[u8] = include_bytes!("../../fonts/DejaVuSans-Bold.ttf");

/// A4 in points.
const PAGE_W: f32 = 595.28;
const PAGE_H: f32 = 841.89;
const MARGIN_X: f32 = 50.0;
const MARGIN_TOP: f32 = 48.0;
/// Where the text area ends; the footer sits below.
const BOTTOM: f32 = PAGE_H - 56.0;
const TEXT_W: f32 = PAGE_W - 2.0 * MARGIN_X;

/// Body text size and line height of the document's text.
const BODY: f32 = 10.0;
const BODY_LINE: f32 = 15.0;

type Rgb = (u8, u8, u8);
const INK: Rgb = (0x1f, 0x23, 0x28);
const MUTED: Rgb = (0x65, 0x6d, 0x76);
const ORANGE: Rgb = (0xc2, 0x41, 0x0c);
const GREEN: Rgb = (0x2f, 0x9e, 0x44);
const ALERT: Rgb = (0xe0, 0x31, 0x31);
const GREY: Rgb = (0xad, 0xb5, 0xbd);
const LINE: Rgb = (0xd8, 0xde, 0xe4);
const WHITE: Rgb = (0xff, 0xff, 0xff);

/// `#rrggbb` as RGB (black if malformed; the palette is well-formed).
fn hex(colour: &str) -> Rgb {
    let c = colour.trim_start_matches('#');
    let byte = |i: usize| c.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()).unwrap_or(0);
    (byte(0), byte(2), byte(4))
}

/// The strong colour and the fill of source number `number` (the palette repeats after
/// twelve sources; the numbers tell them apart).
fn source_colours(number: u32) -> (Rgb, Rgb) {
    let (strong, light) = PALETTE[(number.max(1) - 1) as usize % PALETTE.len()];
    (hex(strong), hex(light))
}

/// One face of the embedded font, with what layout needs (glyph ids and advances).
struct Face {
    data: &'static [u8],
    face: ttf_parser::Face<'static>,
    units_per_em: f32,
    cache: RefCell<HashMap<char, (u16, f32)>>,
}

impl Face {
    fn load(data: &'static [u8]) -> std::io::Result<Self> {
        let face = ttf_parser::Face::parse(data, 0)
            .map_err(|e| std::io::Error::other(format!("the embedded font cannot be read: {e}")))?;
        let units_per_em = f32::from(face.units_per_em());
        Ok(Self { data, face, units_per_em, cache: RefCell::new(HashMap::new()) })
    }

    /// Glyph id and advance (in ems) of `c` (glyph 0, the missing-glyph box, when the
    /// font lacks it).
    fn glyph(&self, c: char) -> (u16, f32) {
        if let Some(&g) = self.cache.borrow().get(&c) {
            return g;
        }
        let id = self.face.glyph_index(c).unwrap_or(ttf_parser::GlyphId(0));
        let advance = f32::from(self.face.glyph_hor_advance(id).unwrap_or(0)) / self.units_per_em;
        let g = (id.0, advance);
        self.cache.borrow_mut().insert(c, g);
        g
    }

    /// Width of `text` at `size` points.
    fn width(&self, text: &str, size: f32) -> f32 {
        text.chars().map(|c| self.glyph(shown(c)).1).sum::<f32>() * size
    }
}

/// What is drawn for `c`: tabs and other control characters as a space.
fn shown(c: char) -> char {
    if c.is_control() { ' ' } else { c }
}

struct Fonts {
    regular: Face,
    bold: Face,
}

impl Fonts {
    fn load() -> std::io::Result<Self> {
        Ok(Self { regular: Face::load(REGULAR)?, bold: Face::load(BOLD)? })
    }

    fn face(&self, bold: bool) -> &Face {
        if bold { &self.bold } else { &self.regular }
    }
}

/// Something to draw on a page (y grows downwards from the top of the page).
enum Op {
    Rect { x: f32, y: f32, w: f32, h: f32, colour: Rgb },
    Text { x: f32, baseline: f32, size: f32, bold: bool, colour: Rgb, text: String },
}

/// How a piece of the document's text is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Style {
    fill: Option<Rgb>,
    /// Underline colour, and whether it is dashed (a citation).
    line: Option<(Rgb, bool)>,
    /// A trick to hide copied text was found here (red underline).
    trick: bool,
    colour: Option<Rgb>,
    /// Struck through in the text's colour (words left out of the source).
    strike: bool,
}

/// The word changes in a block's excerpts, coloured as the HTML report colours them.
fn mark_style(mark: Mark) -> Style {
    match mark {
        Mark::Changed => {
            Style { fill: Some((0xff, 0xf3, 0xbf)), line: Some(((0xf5, 0x9f, 0x00), false)), ..Style::default() }
        }
        Mark::Added => Style { fill: Some((0xd3, 0xf9, 0xd8)), line: Some((GREEN, false)), ..Style::default() },
        Mark::LeftOut => {
            Style { fill: Some((0xff, 0xe3, 0xe3)), colour: Some((0xa6, 0x1e, 0x1e)), strike: true, ..Style::default() }
        }
    }
}

/// Width of a caret (where the other side has words this one lacks), and its stroke.
const CARET_W: f32 = 3.0;
const CARET_STROKE: f32 = 1.2;

/// One unit of flowing text.
#[derive(Clone, Copy)]
enum Atom {
    Char(char, Style),
    /// A numbered marker (or a label) in a colour, drawn before the next word.
    Badge(&'static str, u32, Rgb),
    /// Where the other side of a block has words this one lacks (a red bar).
    Caret,
    Break,
}

/// A positioned piece of a line.
enum Frag {
    Text { x: f32, w: f32, text: String, style: Style },
    Badge { x: f32, w: f32, label: String, colour: Rgb },
    Caret { x: f32 },
}

struct Line {
    frags: Vec<Frag>,
}

/// Lays the report out into pages of [`Op`]s.
struct Layout<'f> {
    fonts: &'f Fonts,
    pages: Vec<Vec<Op>>,
    y: f32,
}

impl<'f> Layout<'f> {
    fn new(fonts: &'f Fonts) -> Self {
        Self { fonts, pages: vec![Vec::new()], y: MARGIN_TOP }
    }

    fn ops(&mut self) -> &mut Vec<Op> {
        if self.pages.is_empty() {
            self.pages.push(Vec::new());
        }
        let last = self.pages.len() - 1;
        &mut self.pages[last]
    }

    fn new_page(&mut self) {
        self.pages.push(Vec::new());
        self.y = MARGIN_TOP;
    }

    /// Starts a new page unless `height` more points fit on this one.
    fn need(&mut self, height: f32) {
        if self.y + height > BOTTOM && self.y > MARGIN_TOP {
            self.new_page();
        }
    }

    fn rect(&mut self, x: f32, y: f32, w: f32, h: f32, colour: Rgb) {
        if w > 0.0 && h > 0.0 {
            self.ops().push(Op::Rect { x, y, w, h, colour });
        }
    }

    fn text(&mut self, x: f32, baseline: f32, size: f32, bold: bool, colour: Rgb, text: &str) {
        if !text.is_empty() {
            self.ops().push(Op::Text { x, baseline, size, bold, colour, text: text.to_owned() });
        }
    }

    /// Wraps `atoms` into lines `width` points wide (words move whole to the next line;
    /// a word longer than a line is cut).
    fn wrap(&self, atoms: &[Atom], width: f32, size: f32, bold: bool) -> Vec<Line> {
        let face = self.fonts.face(bold);
        let badge_size = size * 0.72;
        let badge_w = |label: &str| self.fonts.bold.width(label, badge_size) + badge_size * 0.8;
        let mut lines = Vec::new();
        let mut line = Line { frags: Vec::new() };
        let mut x = 0.0f32;
        let mut i = 0;
        while i < atoms.len() {
            if let Atom::Break = atoms[i] {
                lines.push(std::mem::replace(&mut line, Line { frags: Vec::new() }));
                x = 0.0;
                i += 1;
                continue;
            }
            // A word: badges and non-space characters, then the spaces after them.
            let mut j = i;
            let mut ink_w = 0.0f32;
            let mut seen_space = false;
            let mut word_w = 0.0f32;
            while j < atoms.len() {
                match atoms[j] {
                    Atom::Break => break,
                    Atom::Badge(label, n, _) => {
                        if seen_space {
                            break;
                        }
                        word_w += badge_w(&badge_label(label, n)) + 1.5;
                        ink_w = word_w;
                    }
                    Atom::Caret => {
                        if seen_space {
                            break;
                        }
                        word_w += CARET_W;
                        ink_w = word_w;
                    }
                    Atom::Char(c, _) => {
                        let space = c.is_whitespace();
                        if seen_space && !space {
                            break;
                        }
                        seen_space |= space;
                        word_w += face.glyph(shown(c)).1 * size;
                        if !space {
                            ink_w = word_w;
                        }
                    }
                }
                j += 1;
            }
            if x > 0.0 && x + ink_w > width {
                lines.push(std::mem::replace(&mut line, Line { frags: Vec::new() }));
                x = 0.0;
            }
            for atom in &atoms[i..j] {
                match *atom {
                    Atom::Badge(label, n, colour) => {
                        let label = badge_label(label, n);
                        let w = badge_w(&label);
                        if x > 0.0 && x + w > width {
                            lines.push(std::mem::replace(&mut line, Line { frags: Vec::new() }));
                            x = 0.0;
                        }
                        line.frags.push(Frag::Badge { x, w, label, colour });
                        x += w + 1.5;
                    }
                    Atom::Caret => {
                        line.frags.push(Frag::Caret { x });
                        x += CARET_W;
                    }
                    Atom::Char(c, style) => {
                        let w = face.glyph(shown(c)).1 * size;
                        if x > 0.0 && x + w > width && !c.is_whitespace() {
                            lines.push(std::mem::replace(&mut line, Line { frags: Vec::new() }));
                            x = 0.0;
                        }
                        match line.frags.last_mut() {
                            Some(Frag::Text { x: fx, w: fw, text, style: s })
                                if *s == style && (*fx + *fw - x).abs() < 0.01 =>
                            {
                                text.push(shown(c));
                                *fw += w;
                            }
                            _ => line.frags.push(Frag::Text { x, w, text: shown(c).to_string(), style }),
                        }
                        x += w;
                    }
                    Atom::Break => {}
                }
            }
            i = j;
        }
        if !line.frags.is_empty() {
            lines.push(line);
        }
        lines
    }

    /// Draws `lines` at `x0` from the current position, `line_h` apart, breaking pages.
    fn place(&mut self, lines: &[Line], x0: f32, size: f32, line_h: f32, bold: bool, colour: Rgb) {
        for line in lines {
            self.need(line_h);
            self.draw_line(line, x0, self.y, size, line_h, bold, colour);
            self.y += line_h;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn draw_line(&mut self, line: &Line, x0: f32, top: f32, size: f32, line_h: f32, bold: bool, colour: Rgb) {
        let baseline = top + line_h / 2.0 + size * 0.35;
        // Fills first, then text, then lines over them.
        for frag in &line.frags {
            if let Frag::Text { x, w, style: Style { fill: Some(fill), .. }, .. } = frag {
                self.rect(x0 + x, baseline - size * 0.95, *w, size * 1.25, *fill);
            }
        }
        for frag in &line.frags {
            match frag {
                Frag::Text { x, w, text, style } => {
                    self.text(x0 + x, baseline, size, bold, style.colour.unwrap_or(colour), text.trim_end());
                    if let Some((c, dashed)) = style.line {
                        let y = baseline + size * 0.25;
                        if dashed {
                            let mut dx = 0.0;
                            while dx < *w {
                                self.rect(x0 + x + dx, y, (w - dx).min(3.0), 1.1, c);
                                dx += 5.0;
                            }
                        } else {
                            self.rect(x0 + x, y, *w, 1.1, c);
                        }
                    }
                    if style.trick {
                        self.rect(x0 + x, baseline + size * 0.42, *w, 0.9, ALERT);
                    }
                    if style.strike {
                        let ink = self.fonts.face(bold).width(text.trim_end(), size);
                        self.rect(x0 + x, baseline - size * 0.3, ink, 0.8, style.colour.unwrap_or(colour));
                    }
                }
                Frag::Caret { x } => {
                    let x = x0 + x + (CARET_W - CARET_STROKE) / 2.0;
                    self.rect(x, baseline - size * 0.9, CARET_STROKE, size * 1.15, ALERT);
                }
                Frag::Badge { x, w, label, colour: c } => {
                    let bs = size * 0.72;
                    let h = bs * 1.35;
                    self.rect(x0 + x, baseline - size * 0.85, *w, h, *c);
                    let tw = self.fonts.bold.width(label, bs);
                    let by = baseline - size * 0.85 + h / 2.0 + bs * 0.36;
                    self.text(x0 + x + (w - tw) / 2.0, by, bs, true, WHITE, label);
                }
            }
        }
    }

    /// A paragraph of one style, wrapped to `width` at `x0`.
    #[allow(clippy::too_many_arguments)]
    fn para(&mut self, text: &str, x0: f32, width: f32, size: f32, line_h: f32, bold: bool, colour: Rgb) {
        let atoms = plain_atoms(text);
        let lines = self.wrap(&atoms, width, size, bold);
        self.place(&lines, x0, size, line_h, bold, colour);
    }

    fn heading(&mut self, text: &str) {
        self.y += 10.0;
        self.need(60.0);
        self.para(text, MARGIN_X, TEXT_W, 13.0, 18.0, true, INK);
        self.rect(MARGIN_X, self.y, TEXT_W, 0.6, LINE);
        self.y += 6.0;
    }

    fn report(&mut self, report: &Report, date: Option<String>) {
        self.header(report, date.as_deref());
        self.sources(report);
        self.document(report);
        self.blocks(report);
    }

    fn header(&mut self, report: &Report, date: Option<&str>) {
        let s = &report.suspect;
        self.para("TESSERA REPORT", MARGIN_X, TEXT_W, 8.5, 12.0, true, MUTED);
        self.y += 2.0;
        self.para(&document_heading(report), MARGIN_X, TEXT_W, 17.0, 22.0, true, INK);
        let mut meta = Vec::new();
        if !s.title.trim().is_empty() && !s.name.trim().is_empty() {
            meta.push(s.name.trim().to_owned());
        }
        if let Some(date) = date {
            meta.push(format!("checked {date}"));
        }
        meta.push(format!("{} characters", s.char_len));
        meta.push(format!("{} sources, {} blocks", report.sources.len(), report.blocks.len()));
        self.para(&meta.join(" · "), MARGIN_X, TEXT_W, 9.0, 13.0, false, MUTED);
        if s.partial {
            let missing = if s.missing_collections.is_empty() {
                "some collections".to_owned()
            } else {
                s.missing_collections.join(", ")
            };
            self.y += 4.0;
            self.para(
                &format!("Partial report. No answer in time from: {missing}. Borrowings may be understated."),
                MARGIN_X,
                TEXT_W,
                9.5,
                13.0,
                true,
                ALERT,
            );
        }

        // Totals: three figures and a bar.
        let t = &report.totals;
        self.y += 12.0;
        self.need(60.0);
        let top = self.y;
        for (i, (label, pct, colour)) in [
            ("ORIGINALITY", t.originality, INK),
            ("BORROWINGS", t.borrowings, ORANGE),
            ("CITATIONS", t.citations, GREEN),
        ]
        .into_iter()
        .enumerate()
        {
            let x = MARGIN_X + i as f32 * 150.0;
            self.text(x, top + 20.0, 22.0, true, colour, &fmt_percent(pct));
            self.text(x, top + 33.0, 8.0, false, MUTED, label);
        }
        self.y = top + 42.0;
        let bar = |p: f64| (p.clamp(0.0, 100.0) / 100.0) as f32 * TEXT_W;
        self.rect(MARGIN_X, self.y, TEXT_W, 5.0, (0xe9, 0xec, 0xef));
        self.rect(MARGIN_X, self.y, bar(t.borrowings), 5.0, (0xf0, 0x8c, 0x00));
        self.rect(MARGIN_X + bar(t.borrowings), self.y, bar(t.citations), 5.0, GREEN);
        self.y += 10.0;
        self.para(
            &format!(
                "{} of {} characters borrowed, {} cited, {} original.",
                t.borrowed_chars, t.total_chars, t.cited_chars, t.original_chars
            ),
            MARGIN_X,
            TEXT_W,
            8.5,
            12.0,
            false,
            MUTED,
        );

        if !s.warnings.is_empty() {
            self.heading("Notices");
            for notice in &s.warnings {
                let label = if notice.bypass { "Attempt to hide copied text: " } else { "Note: " };
                let mut places: Vec<String> = notice
                    .locations
                    .iter()
                    .take(8)
                    .map(|l| match (l.page, l.paragraph) {
                        (Some(page), _) => format!("page {page}"),
                        (None, Some(p)) => format!("paragraph {p}"),
                        (None, None) => format!("character {}", l.span.chars.start),
                    })
                    .collect();
                if notice.locations.len() > 8 {
                    places.push(format!("{} more", notice.locations.len() - 8));
                }
                let mut text = format!("{label}{}", notice.explain(&s.text));
                if !places.is_empty() {
                    text.push_str(&format!(" Marked in the text at {}.", places.join(", ")));
                }
                let colour = if notice.bypass { ALERT } else { GREY };
                self.need(28.0);
                let top = self.y;
                self.para(&text, MARGIN_X + 8.0, TEXT_W - 8.0, 9.5, 13.0, false, INK);
                self.para(&notice.message, MARGIN_X + 8.0, TEXT_W - 8.0, 8.0, 11.0, false, MUTED);
                let top = if self.y < top { MARGIN_TOP } else { top };
                self.rect(MARGIN_X, top, 2.5, self.y - top, colour);
                self.y += 4.0;
            }
        }
    }

    fn sources(&mut self, report: &Report) {
        self.heading("Sources");
        if report.sources.is_empty() {
            self.para("No sources found.", MARGIN_X, TEXT_W, 9.5, 13.0, false, MUTED);
            return;
        }
        // Columns: number, share in report, share in text, blocks, source.
        let cols = [MARGIN_X, MARGIN_X + 30.0, MARGIN_X + 92.0, MARGIN_X + 150.0, MARGIN_X + 190.0];
        let title_w = PAGE_W - MARGIN_X - cols[4];
        let head = |l: &mut Self| {
            let y = l.y + 9.0;
            for (x, label) in cols.iter().zip(["#", "IN REPORT", "IN TEXT", "BLOCKS", "SOURCE"]) {
                l.text(*x, y, 7.0, true, MUTED, label);
            }
            l.y += 14.0;
        };
        head(self);
        for source in &report.sources {
            let (strong, _) = source_colours(source.number);
            let strong = if source.enabled { strong } else { GREY };
            let mut title = source_label(&source.title, &source.origin, source.id.0);
            if BlockKind::from_collection(source.kind) == BlockKind::Citation {
                title.push_str("  [citation]");
            }
            if !source.enabled {
                title.push_str("  [disabled]");
            }
            let mut origin = String::new();
            if !source.title.trim().is_empty() && !source.origin.trim().is_empty() {
                origin.push_str(source.origin.trim());
                origin.push('\n');
            }
            origin.push_str(&format!("{} · id {}", source.collection, source.id.0));
            if !source.seen_at.is_empty() {
                origin.push_str(&format!("\nalso seen at: {}", source.seen_at.join(", ")));
            }
            for line in super::copy_lines(report, source) {
                origin.push('\n');
                origin.push_str(&line);
            }
            let title_lines = self.wrap(&plain_atoms(&title), title_w, 9.5, true);
            let origin_lines = self.wrap(&plain_atoms(&origin), title_w, 8.0, false);
            let height = title_lines.len() as f32 * 13.0 + origin_lines.len() as f32 * 11.0 + 6.0;
            if self.y + height.min(BOTTOM - MARGIN_TOP - 20.0) > BOTTOM {
                self.new_page();
                head(self);
            }
            let top = self.y;
            let number = source.number.to_string();
            let nw = self.fonts.bold.width(&number, 8.5) + 8.0;
            self.rect(cols[0], top + 1.5, nw.max(16.0), 12.0, strong);
            self.text(
                cols[0] + (nw.max(16.0) - self.fonts.bold.width(&number, 8.5)) / 2.0,
                top + 10.5,
                8.5,
                true,
                WHITE,
                &number,
            );
            let ink = if source.enabled { INK } else { MUTED };
            self.text(cols[1], top + 10.0, 9.5, false, ink, &fmt_percent(source.share_in_report));
            self.text(cols[2], top + 10.0, 9.5, false, ink, &fmt_percent(source.share_in_text));
            self.text(cols[3], top + 10.0, 9.5, false, ink, &source.blocks.to_string());
            self.place(&title_lines, cols[4], 9.5, 13.0, true, ink);
            self.place(&origin_lines, cols[4], 8.0, 11.0, false, MUTED);
            self.y += 3.0;
            self.rect(MARGIN_X, self.y, TEXT_W, 0.4, LINE);
            self.y += 3.0;
        }
    }

    fn document(&mut self, report: &Report) {
        self.heading("Document");
        self.para(
            "Each source has a number and a colour, as in the source list: its passages are filled with its colour, with its number where a passage starts; borrowings are underlined in the source's colour, citations with a dashed green line. Text underlined in red is where a trick to hide copied text was found.",
            MARGIN_X,
            TEXT_W,
            8.0,
            11.0,
            false,
            MUTED,
        );
        self.y += 8.0;
        let atoms = document_atoms(report);
        let lines = self.wrap(&atoms, TEXT_W, BODY, false);
        self.place(&lines, MARGIN_X, BODY, BODY_LINE, false, INK);
    }

    /// The list of blocks, in the report's order (by place in the document).
    fn blocks(&mut self, report: &Report) {
        self.heading("Blocks");
        if report.blocks.is_empty() {
            self.para("No blocks.", MARGIN_X, TEXT_W, 9.5, 13.0, false, MUTED);
            return;
        }
        let plain = plain_atoms;
        let styled =
            |text: &str, mark: Mark| -> Vec<Atom> { text.chars().map(|c| Atom::Char(c, mark_style(mark))).collect() };
        let mut legend = plain("Words that differ from the source: ");
        legend.extend(styled("changed", Mark::Changed));
        legend.extend(plain(", "));
        legend.extend(styled("added in the document", Mark::Added));
        legend.extend(plain(", "));
        legend.extend(styled("left out of the source", Mark::LeftOut));
        legend.extend(plain("; "));
        legend.push(Atom::Caret);
        legend.extend(plain(" marks where words were added or left out on the other side."));
        let lines = self.wrap(&legend, TEXT_W, 8.0, false);
        self.place(&lines, MARGIN_X, 8.0, 12.0, false, MUTED);
        for block in &report.blocks {
            self.block(report, block);
        }
    }

    /// One block: its heading, its sentence pairs, its two excerpts; a bar in its source's
    /// colour down the left side (grey for a disabled source), over as many pages as it takes.
    fn block(&mut self, report: &Report, block: &Block) {
        const X: f32 = MARGIN_X + 10.0;
        const W: f32 = TEXT_W - 10.0;
        let heading = BlockHeading::of(report, block);
        let bar = if heading.disabled { GREY } else { source_colours(heading.number).0 };
        self.y += 10.0;
        self.need(70.0);
        let (page, top) = (self.pages.len() - 1, self.y);

        self.para(&format!("{} · {}", heading.kind, heading.source), X, W, 9.5, 13.0, true, INK);
        let mut meta = vec![heading.place.clone(), heading.sure.clone()];
        meta.extend(heading.flags.iter().map(super::BlockFlag::text));
        self.para(&meta.join(" · "), X, W, 8.5, 12.0, false, MUTED);

        let rows: Vec<(&str, &str)> = block.pairs.iter().filter_map(|pair| block.pair_texts(pair)).collect();
        if !rows.is_empty() {
            self.y += 4.0;
            self.need(40.0);
            self.para(&sentence_pairs_heading(rows.len()), X, W, 8.5, 12.0, true, MUTED);
            self.sentence_table(&rows, X, W);
        }

        // A summary's source excerpt is several times the summary: its pairs say more
        // sentence by sentence, but the whole source passage is still given.
        self.y += 4.0;
        self.need(30.0);
        self.para("Document:", X, W, 8.0, 11.0, true, MUTED);
        let atoms = excerpt_atoms(block, Side::Suspect);
        let lines = self.wrap(&atoms, W, 9.0, false);
        self.place(&lines, X, 9.0, 13.5, false, INK);
        self.y += 4.0;
        self.need(30.0);
        if block.source_excerpt.is_some() {
            self.para(&format!("Source, {}:", source_range(block)), X, W, 8.0, 11.0, true, MUTED);
            let lines = self.wrap(&excerpt_atoms(block, Side::Source), W, 9.0, false);
            self.place(&lines, X, 9.0, 13.5, false, INK);
        } else {
            self.para(&source_not_kept(report, block), X, W, 8.0, 11.0, false, MUTED);
        }
        self.bar_since(page, top, bar);
    }

    /// A two-column table of sentence pairs (document, source), rows wrapped side by side
    /// and broken over pages line by line.
    fn sentence_table(&mut self, rows: &[(&str, &str)], x0: f32, width: f32) {
        const GAP: f32 = 12.0;
        const SIZE: f32 = 8.5;
        const LINE_H: f32 = 12.0;
        let col = (width - GAP) / 2.0;
        self.need(14.0 + 2.0 * LINE_H);
        self.text(x0, self.y + 9.0, 7.0, true, MUTED, "DOCUMENT");
        self.text(x0 + col + GAP, self.y + 9.0, 7.0, true, MUTED, "SOURCE");
        self.y += 12.0;
        for (suspect, source) in rows {
            let left = self.wrap(&plain_atoms(&flat(suspect)), col, SIZE, false);
            let right = self.wrap(&plain_atoms(&flat(source)), col, SIZE, false);
            self.need(4.0 + LINE_H * left.len().max(right.len()).min(3) as f32);
            self.rect(x0, self.y, width, 0.4, LINE);
            self.y += 3.0;
            for i in 0..left.len().max(right.len()) {
                self.need(LINE_H);
                if let Some(line) = left.get(i) {
                    self.draw_line(line, x0, self.y, SIZE, LINE_H, false, INK);
                }
                if let Some(line) = right.get(i) {
                    self.draw_line(line, x0 + col + GAP, self.y, SIZE, LINE_H, false, INK);
                }
                self.y += LINE_H;
            }
            self.y += 1.0;
        }
    }

    /// A bar in `colour` down the left margin from `top` of page `page` to the current
    /// position, on every page between.
    fn bar_since(&mut self, page: usize, top: f32, colour: Rgb) {
        let last = self.pages.len() - 1;
        for p in page..=last {
            let from = if p == page { top } else { MARGIN_TOP };
            let to = if p == last { self.y } else { BOTTOM };
            if to > from {
                self.pages[p].push(Op::Rect { x: MARGIN_X, y: from, w: 2.5, h: to - from, colour });
            }
        }
    }
}

fn badge_label(label: &'static str, n: u32) -> String {
    if label.is_empty() { n.to_string() } else { label.to_owned() }
}

/// `text` cut with an ellipsis to fit `width` points.
fn fit(face: &Face, text: &str, size: f32, width: f32) -> String {
    if face.width(text, size) <= width {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut w = face.width("…", size);
    for c in text.chars() {
        w += face.glyph(shown(c)).1 * size;
        if w > width {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out
}

/// The document's heading: its title, else its name.
fn document_heading(report: &Report) -> String {
    let s = &report.suspect;
    let heading = if s.title.trim().is_empty() { s.name.trim() } else { s.title.trim() };
    if heading.is_empty() { "Untitled document".to_owned() } else { heading.to_owned() }
}

/// Plain text as atoms: line breaks break lines.
fn plain_atoms(text: &str) -> Vec<Atom> {
    text.chars().map(|c| if c == '\n' { Atom::Break } else { Atom::Char(c, Style::default()) }).collect()
}

/// A sentence on one line: its line breaks and tabs as spaces, its ends trimmed.
fn flat(text: &str) -> String {
    text.trim().chars().map(|c| if c.is_whitespace() { ' ' } else { c }).collect()
}

/// One side's excerpt of `block` as atoms, its word changes styled
/// ([`block_excerpt_pieces`]).
fn excerpt_atoms(block: &Block, side: Side) -> Vec<Atom> {
    let mut atoms = Vec::new();
    for piece in block_excerpt_pieces(block, side) {
        match piece {
            Piece::Caret => atoms.push(Atom::Caret),
            Piece::Text(text, mark) => {
                let style = mark.map_or_else(Style::default, mark_style);
                atoms.extend(
                    text.chars().filter(|&c| c != '\r').map(
                        |c| {
                            if c == '\n' { Atom::Break } else { Atom::Char(c, style) }
                        },
                    ),
                );
            }
        }
    }
    atoms
}

/// The suspect's text as atoms: each counted run styled by its source, a numbered
/// badge where a run of a source starts, trick places underlined, and a label where
/// text was left out.
fn document_atoms(report: &Report) -> Vec<Atom> {
    let text = &report.suspect.text;
    let len = text.chars().count();
    let mut styles = vec![Style::default(); len];
    let mut badges: Vec<Vec<Atom>> = vec![Vec::new(); len + 1];
    let mut last: Option<(crate::DocId, usize)> = None;
    for seg in &report.segments {
        let number = report.source(seg.source).map_or(0, |s| s.number);
        let (strong, light) = source_colours(number);
        let line = match seg.kind {
            BlockKind::Borrowing => (strong, false),
            BlockKind::Citation => (GREEN, true),
        };
        let (start, end) = (seg.span.chars.start.min(len), seg.span.chars.end.min(len));
        for style in &mut styles[start..end] {
            style.fill = Some(light);
            style.line = Some(line);
        }
        if last != Some((seg.source, seg.span.chars.start)) {
            badges[start].push(Atom::Badge("", number, strong));
        }
        last = Some((seg.source, seg.span.chars.end));
    }
    for notice in &report.suspect.warnings {
        for l in &notice.locations {
            let (start, end) = (l.span.chars.start.min(len), l.span.chars.end.min(len));
            if start >= end {
                badges[start].push(Atom::Badge("hidden text", 0, ALERT));
            }
            for style in styles.iter_mut().take(end).skip(start) {
                style.trick = true;
            }
        }
    }
    let mut atoms = Vec::with_capacity(len + 64);
    for (i, c) in text.chars().enumerate() {
        atoms.append(&mut badges[i]);
        match c {
            '\n' => atoms.push(Atom::Break),
            '\r' => {}
            _ => atoms.push(Atom::Char(c, styles[i])),
        }
    }
    atoms.append(&mut badges[len]);
    atoms
}

/// A face as used in one PDF: its glyphs renumbered from 0 in order of first use
/// (the subset's glyph ids, which are also the CIDs), and the text of each glyph.
struct Used {
    remapper: subsetter::GlyphRemapper,
    text: BTreeMap<u16, char>,
}

impl Used {
    fn new() -> Self {
        Self { remapper: subsetter::GlyphRemapper::new(), text: BTreeMap::new() }
    }

    /// The CID of `c` in the subset.
    fn cid(&mut self, face: &Face, c: char) -> u16 {
        let (old, _) = face.glyph(shown(c));
        let new = self.remapper.remap(old);
        if old != 0 {
            self.text.entry(new).or_insert(c);
        }
        new
    }
}

/// Writes the laid-out pages as a PDF: the ops, a footer per page (name, page N of M),
/// the two faces subset and embedded as CID fonts with `ToUnicode` maps.
fn write_pdf(
    report: &Report,
    fonts: &Fonts,
    pages: Vec<Vec<Op>>,
    checked_at_ms: Option<u64>,
) -> std::io::Result<Vec<u8>> {
    let mut used = [Used::new(), Used::new()];
    let mut next = 1;
    let mut alloc = || {
        let r = Ref::new(next);
        next += 1;
        r
    };
    let catalog_id = alloc();
    let tree_id = alloc();
    let info_id = alloc();
    let font_ids: Vec<[Ref; 5]> = (0..2).map(|_| [alloc(), alloc(), alloc(), alloc(), alloc()]).collect();

    let total = pages.len();
    let name = document_heading(report);
    let mut contents = Vec::with_capacity(total);
    for (n, mut ops) in pages.into_iter().enumerate() {
        ops.push(Op::Rect { x: MARGIN_X, y: PAGE_H - 44.0, w: TEXT_W, h: 0.4, colour: LINE });
        ops.push(Op::Text {
            x: MARGIN_X,
            baseline: PAGE_H - 32.0,
            size: 7.5,
            bold: false,
            colour: MUTED,
            text: fit(&fonts.regular, &format!("Tessera report · {name}"), 7.5, TEXT_W - 80.0),
        });
        let label = format!("page {} of {total}", n + 1);
        let w = fonts.regular.width(&label, 7.5);
        ops.push(Op::Text {
            x: PAGE_W - MARGIN_X - w,
            baseline: PAGE_H - 32.0,
            size: 7.5,
            bold: false,
            colour: MUTED,
            text: label,
        });

        let mut content = Content::new();
        for op in &ops {
            match op {
                Op::Rect { x, y, w, h, colour } => {
                    content.set_fill_rgb(unit(colour.0), unit(colour.1), unit(colour.2));
                    content.rect(*x, PAGE_H - y - h, *w, *h);
                    content.fill_nonzero();
                }
                Op::Text { x, baseline, size, bold, colour, text } => {
                    let at = usize::from(*bold);
                    let face = fonts.face(*bold);
                    let mut codes = Vec::with_capacity(text.len() * 2);
                    for c in text.chars() {
                        codes.extend_from_slice(&used[at].cid(face, c).to_be_bytes());
                    }
                    content.set_fill_rgb(unit(colour.0), unit(colour.1), unit(colour.2));
                    content.begin_text();
                    content.set_font(Name(FONT_NAMES[at].as_bytes()), *size);
                    content.next_line(*x, PAGE_H - baseline);
                    content.show(Str(&codes));
                    content.end_text();
                }
            }
        }
        contents.push(deflate(&content.finish())?);
    }

    let mut pdf = Pdf::new();
    pdf.catalog(catalog_id).pages(tree_id);
    let page_ids: Vec<(Ref, Ref)> = (0..total).map(|_| (alloc(), alloc())).collect();
    pdf.pages(tree_id).kids(page_ids.iter().map(|p| p.0)).count(i32::try_from(total).unwrap_or(i32::MAX));
    for ((page_id, content_id), content) in page_ids.iter().zip(&contents) {
        let mut page = pdf.page(*page_id);
        page.media_box(Rect::new(0.0, 0.0, PAGE_W, PAGE_H));
        page.parent(tree_id);
        page.contents(*content_id);
        let mut resources = page.resources();
        let mut font_dict = resources.fonts();
        for (at, ids) in font_ids.iter().enumerate() {
            font_dict.pair(Name(FONT_NAMES[at].as_bytes()), ids[0]);
        }
        font_dict.finish();
        resources.finish();
        page.finish();
        pdf.stream(*content_id, content).filter(Filter::FlateDecode);
    }

    for (at, ids) in font_ids.iter().enumerate() {
        embed_font(&mut pdf, fonts.face(at == 1), &used[at], *ids, at == 1)?;
    }

    let mut info = pdf.document_info(info_id);
    info.title(TextStr(&format!("Tessera report: {name}")));
    info.creator(TextStr("Tessera"));
    info.producer(TextStr("Tessera"));
    if let Some(ms) = checked_at_ms {
        let (y, m, d, hh, mm, ss) = civil(ms);
        let date = Date::new(y).month(m).day(d).hour(hh).minute(mm).second(ss).utc_offset_hour(0).utc_offset_minute(0);
        info.creation_date(date);
    }
    info.finish();
    Ok(pdf.finish())
}

const FONT_NAMES: [&str; 2] = ["F1", "F2"];

/// Embeds one face: Type0 font, CID font, descriptor, subset font file, `ToUnicode`.
fn embed_font(pdf: &mut Pdf, face: &Face, used: &Used, ids: [Ref; 5], bold: bool) -> std::io::Result<()> {
    let [type0_id, cid_id, descriptor_id, file_id, cmap_id] = ids;
    let subset = subsetter::subset(face.data, 0, &used.remapper)
        .map_err(|e| std::io::Error::other(format!("cannot subset the font: {e}")))?;
    // A subset's name starts with a tag of six capitals that depends on its glyphs.
    let mut hash: u32 = 0x811c_9dc5;
    for gid in used.remapper.remapped_gids() {
        for b in gid.to_be_bytes() {
            hash = (hash ^ u32::from(b)).wrapping_mul(0x0100_0193);
        }
    }
    let tag: String = (0..6).map(|i| char::from(b'A' + ((hash >> (i * 5)) % 26) as u8)).collect();
    let base = format!("{tag}+{}", if bold { "DejaVuSans-Bold" } else { "DejaVuSans" });
    let system = SystemInfo { registry: Str(b"Adobe"), ordering: Str(b"Identity"), supplement: 0 };

    pdf.type0_font(type0_id)
        .base_font(Name(base.as_bytes()))
        .encoding_predefined(Name(b"Identity-H"))
        .descendant_font(cid_id)
        .to_unicode(cmap_id);

    let scale = 1000.0 / face.units_per_em;
    let widths: Vec<f32> = used
        .remapper
        .remapped_gids()
        .map(|old| f32::from(face.face.glyph_hor_advance(ttf_parser::GlyphId(old)).unwrap_or(0)) * scale)
        .collect();
    let mut cid = pdf.cid_font(cid_id);
    cid.subtype(CidFontType::Type2)
        .base_font(Name(base.as_bytes()))
        .system_info(system)
        .font_descriptor(descriptor_id)
        .cid_to_gid_map_predefined(Name(b"Identity"));
    cid.widths().consecutive(0, widths);
    cid.finish();

    let f = &face.face;
    let bbox = f.global_bounding_box();
    pdf.font_descriptor(descriptor_id)
        .name(Name(base.as_bytes()))
        .flags(FontFlags::NON_SYMBOLIC)
        .bbox(Rect::new(
            f32::from(bbox.x_min) * scale,
            f32::from(bbox.y_min) * scale,
            f32::from(bbox.x_max) * scale,
            f32::from(bbox.y_max) * scale,
        ))
        .italic_angle(0.0)
        .ascent(f32::from(f.ascender()) * scale)
        .descent(f32::from(f.descender()) * scale)
        .cap_height(f32::from(f.capital_height().unwrap_or(f.ascender())) * scale)
        .stem_v(if bold { 140.0 } else { 80.0 })
        .font_file2(file_id);

    let packed = deflate(&subset)?;
    pdf.stream(file_id, &packed)
        .filter(Filter::FlateDecode)
        .pair(Name(b"Length1"), i32::try_from(subset.len()).unwrap_or(i32::MAX));

    let mut cmap = UnicodeCmap::new(Name(b"Custom"), system);
    for (&gid, &c) in &used.text {
        cmap.pair(gid, c);
    }
    let cmap = cmap.finish();
    pdf.cmap(cmap_id, &cmap);
    Ok(())
}

/// A colour channel from 0..=255 to 0..=1.
fn unit(c: u8) -> f32 {
    f32::from(c) / 255.0
}

/// Zlib-compressed `data` (a `FlateDecode` stream).
fn deflate(data: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(data)?;
    encoder.finish()
}

/// `unix_ms` as `YYYY-MM-DD HH:MM UTC` and as a PDF date.
fn civil_time(unix_ms: u64) -> String {
    let (y, m, d, hh, mm, _) = civil(unix_ms);
    format!("{y:04}-{m:02}-{d:02} {hh:02}:{mm:02} UTC")
}

/// Year, month, day, hour, minute, second (UTC) of `unix_ms` (proleptic Gregorian
/// calendar; Howard Hinnant's days-to-civil).
fn civil(unix_ms: u64) -> (u16, u8, u8, u8, u8, u8) {
    let secs = unix_ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    (
        u16::try_from(y).unwrap_or(u16::MAX),
        m as u8,
        d as u8,
        (rem / 3600) as u8,
        (rem % 3600 / 60) as u8,
        (rem % 60) as u8,
    )
}
