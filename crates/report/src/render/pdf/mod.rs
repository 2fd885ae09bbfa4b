//! PDF: a report to file, written in Rust (pdf-writer) with an embedded, subset DejaVu Sans.
//!
//! The steps, one file each: `font.rs` (the embedded faces and their metrics),
//! `atoms.rs` (the report's text as styled atoms), `layout.rs` (atoms and headings laid
//! out into pages of drawing operations, and the structure tree built as they are drawn),
//! `tags.rs` (the structure tree, the languages of the text, the XMP metadata),
//! `writer.rs` (the pages written as a tagged PDF with the faces subset and embedded)
//! and `date.rs` (the date of the check). This file holds the renderer, the page
//! geometry and the colours they share.

use std::io::Write;

mod atoms;
mod font;
mod layout;
mod tags;
mod writer;

use crate::date::civil_time;
use crate::model::Report;
use crate::render::{PALETTE, Render};
use font::Fonts;
use layout::Layout;
use writer::write_pdf;

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
/// copied. Characters the font lacks (e.g. Chinese) show as a white square (□); their
/// text is given back through `/ActualText`.
///
/// The PDF is tagged for PDF/UA-1: a structure tree in reading order (headings, the
/// header's paragraphs, the source table, the notices' list, the document's text as a
/// paragraph per paragraph with a span per highlighted passage, the blocks with their
/// sentence tables and excerpts, a figure with words for each caret), every text and
/// drawing operation in the marked content of its element, and what only decorates
/// (rules, fills, underlines, bars, swatches) or repeats on every page (the footer, the
/// source table's header row again) marked as an artifact. The catalog gives the
/// language (English, the labels'; text in another language is marked where detection
/// is sure of it), shows the title, and carries XMP metadata with `pdfuaid:part` 1.
/// Deterministic: the same report and settings give the same bytes.
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
        let mut layout = Layout::new(&fonts, report);
        layout.report(report, self.checked_at_ms.map(civil_time));
        let Layout { pages, tree, .. } = layout;
        write_pdf(report, &fonts, pages, &tree, self.checked_at_ms)
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
/// The language of the report's labels (the catalog's `/Lang`).
const LANG: &str = "en";

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

/// The document's heading: its title, else its name.
fn document_heading(report: &Report) -> String {
    let s = &report.suspect;
    let heading = if s.title.trim().is_empty() { s.name.trim() } else { s.title.trim() };
    if heading.is_empty() { "Untitled document".to_owned() } else { heading.to_owned() }
}
