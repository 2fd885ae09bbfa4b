//! PDF: [`PdfExtractor`], through PDFium (`pdfium-render`, bound at run time
//! to `libpdfium.so`), with OCR of pages without a text layer by Tesseract.
//!
//! The text of each page is taken character by character in PDFium's
//! reading order, each with its page and box ([`BBox`], PDF points). Lines
//! are split where the baseline moves or PDFium marks a line end;
//! paragraphs where the gap between two lines exceeds half the font size,
//! the font size changes, or the text goes back up the page (a new column).
//! Words hyphenated at line ends are joined when a lower-case letter
//! follows; soft hyphens are dropped; ligatures are expanded. Text in render
//! mode 3 (invisible), filled white, or 2 pt and smaller is left out and
//! reported as a bypass.

use std::panic::{AssertUnwindSafe, catch_unwind};

use pdfium_render::prelude::*;

use crate::builder::TextBuilder;
use crate::extract::Extract;
use crate::origin::BBox;
use crate::pdf_layout::{Glyph, Line, emit_lines, split_lines};
use crate::pdf_ocr::{self, Ocr};
use crate::pdfium::{self, pdfium_reason};
use crate::{Error, ExtractConfig, Extracted, Format, Metadata, Result, Trick, Warning, worker};

/// Extracts PDF documents; see the crate documentation (PDF) and docs/design.md. Needs the PDFium
/// library at run time: the build fetches it (`build.rs`), `scripts/setup-pdfium.sh` installs it
/// where the build cannot; see [`crate::pdfium_library`] for where it is looked for.
///
/// With [`ExtractConfig::isolation`] set, each document is extracted in a
/// worker process ([`crate::worker`]); otherwise in this process, one
/// document at a time (PDFium is not thread-safe).
#[derive(Debug, Clone, Copy, Default)]
pub struct PdfExtractor;

impl Extract for PdfExtractor {
    fn format(&self) -> Format {
        Format::Pdf
    }

    /// PDF is recognised by its magic number (`%PDF-`) before sniffing.
    fn sniff(&self, _name: &str, _head: &[u8]) -> bool {
        false
    }

    fn extract(&self, name: &str, bytes: &[u8], config: &ExtractConfig) -> Result<Extracted> {
        match &config.isolation {
            Some(command) => worker::extract_isolated(command, name, bytes, config),
            None => extract_in_process(name, bytes, config),
        }
    }
}

/// Extracts a PDF in this process, behind the process-wide PDFium lock.
fn extract_in_process(name: &str, bytes: &[u8], config: &ExtractConfig) -> Result<Extracted> {
    pdfium::with_pdfium(name, config.pdfium.as_deref(), |pdfium| {
        // pdfium-render unwraps in places; a panic there must not take the
        // caller down.
        catch_unwind(AssertUnwindSafe(|| extract_document(pdfium, name, bytes, config))).unwrap_or_else(|_| {
            Err(Error::Failed { name: name.into(), reason: "the PDF parser failed (panic in pdfium-render)".into() })
        })
    })
}

fn load_error(name: &str, error: PdfiumError) -> Error {
    let malformed = |reason: &str| Error::Malformed { name: name.into(), format: "pdf", reason: reason.into() };
    match error {
        PdfiumError::PdfiumLibraryInternalError(
            PdfiumInternalError::PasswordError | PdfiumInternalError::SecurityError,
        ) => Error::Encrypted { name: name.into() },
        PdfiumError::PdfiumLibraryInternalError(PdfiumInternalError::FormatError) => {
            malformed("not a readable PDF (bad header, cross-reference table or trailer)")
        }
        PdfiumError::PdfiumLibraryInternalError(PdfiumInternalError::PageError) => malformed("a page cannot be read"),
        other => malformed(&format!("PDFium cannot open it ({})", pdfium_reason(&other))),
    }
}
fn extract_document(pdfium: &Pdfium, name: &str, bytes: &[u8], config: &ExtractConfig) -> Result<Extracted> {
    let document = pdfium.load_pdf_from_byte_slice(bytes, None).map_err(|e| load_error(name, e))?;
    let mut builder = TextBuilder::with_limit(config.text_limit());
    if !ends_with_eof_marker(bytes) {
        builder.warn(Warning::Damaged { problem: "truncated: no %%EOF at the end of the file".into() });
    }
    let pages = document.pages();
    let page_count = u32::try_from(pages.len()).unwrap_or(0);
    let mut ocr = Ocr::new(config.ocr);
    let mut scanned = Vec::new();
    let mut unreadable = 0usize;
    let mut all_lines: Vec<(u32, Vec<Line>)> = Vec::new();
    for index in 0..pages.len() {
        let number = u32::try_from(index).unwrap_or(0) + 1;
        let Ok(page) = pages.get(index) else {
            unreadable += 1;
            continue;
        };
        let glyphs = match page.text() {
            Ok(text) => page_glyphs(&text),
            Err(_) => {
                unreadable += 1;
                Vec::new()
            }
        };
        if glyphs.iter().any(|g| !g.c.is_whitespace()) {
            all_lines.push((number, split_lines(glyphs)));
        } else if has_image(&page) {
            scanned.push(number);
            if let Some(lines) = ocr.page(&page, name)? {
                all_lines.push((number, lines));
            }
        }
    }
    emit_lines(&mut builder, &all_lines);
    if unreadable > 0 {
        builder.warn(Warning::Skipped { what: "unreadable page".into(), count: unreadable });
    }
    let ocr_done = ocr.available();
    if !scanned.is_empty() {
        builder.warn(Warning::NoTextLayer { pages: scanned.clone(), ocr: ocr_done });
    }
    let mut extracted = match builder.finish(name, Format::Pdf) {
        Err(Error::Empty { .. }) if !scanned.is_empty() && !ocr_done => {
            return Err(Error::Failed {
                name: name.into(),
                reason: format!(
                    "{} page(s) without a text layer and OCR is not available ({})",
                    scanned.len(),
                    pdf_ocr::INSTALL_HINT
                ),
            });
        }
        other => other?,
    };
    let tag =
        |kind| document.metadata().get(kind).map(|t| t.value().trim().to_owned()).filter(|v: &String| !v.is_empty());
    extracted.title = tag(PdfDocumentMetadataTagType::Title);
    extracted.metadata = Metadata {
        authors: tag(PdfDocumentMetadataTagType::Author).into_iter().collect(),
        created: tag(PdfDocumentMetadataTagType::CreationDate).map(|d| pdf_date(&d)),
        modified: tag(PdfDocumentMetadataTagType::ModificationDate).map(|d| pdf_date(&d)),
        language: None,
        pages: Some(page_count),
        producer: tag(PdfDocumentMetadataTagType::Producer),
    };
    Ok(extracted)
}

fn ends_with_eof_marker(bytes: &[u8]) -> bool {
    let tail = &bytes[bytes.len().saturating_sub(1024)..];
    tail.windows(5).any(|w| w == b"%%EOF")
}

fn has_image(page: &PdfPage<'_>) -> bool {
    page.objects().iter().any(|o| o.object_type() == PdfPageObjectType::Image)
}

/// The characters of a page with their boxes, sizes and hiding tricks.
fn page_glyphs(text: &PdfPageText<'_>) -> Vec<Glyph> {
    let chars = text.chars();
    let mut glyphs = Vec::with_capacity(chars.len());
    for ch in chars.iter() {
        let Some(c) = ch.unicode_char() else { continue };
        if c == '\r' || c == '\n' {
            glyphs.push(Glyph::line_end());
            continue;
        }
        if c.is_whitespace() {
            glyphs.push(Glyph::space());
            continue;
        }
        // U+0002 is how PDFium reports a hyphen it found at a line end.
        if c.is_control() && c != '\u{2}' {
            continue;
        }
        let Ok(rect) = ch.loose_bounds().or_else(|_| ch.tight_bounds()) else { continue };
        let bbox = BBox {
            left: rect.left().value,
            bottom: rect.bottom().value,
            right: rect.right().value,
            top: rect.top().value,
        };
        let size = ch.scaled_font_size().value;
        let baseline = ch.origin_y().map_or(bbox.bottom, |y| y.value);
        glyphs.push(Glyph { c, bbox, size, baseline, hidden: trick_of(&ch, size), line_end: false });
    }
    glyphs
}

/// How a character is hidden from a reader, if it is.
fn trick_of(ch: &PdfPageTextChar<'_>, size: f32) -> Option<Trick> {
    let mode = ch.render_mode().unwrap_or(PdfPageTextRenderMode::FilledUnstroked);
    if mode == PdfPageTextRenderMode::Invisible {
        return Some(Trick::HiddenText);
    }
    let filled = matches!(
        mode,
        PdfPageTextRenderMode::FilledUnstroked
            | PdfPageTextRenderMode::FilledUnstrokedClipping
            | PdfPageTextRenderMode::FilledThenStroked
            | PdfPageTextRenderMode::FilledThenStrokedClipping
    );
    if filled && let Ok(color) = ch.fill_color() {
        if color.alpha() == 0 {
            return Some(Trick::HiddenText);
        }
        if color.red() >= 250 && color.green() >= 250 && color.blue() >= 250 {
            return Some(Trick::WhiteText);
        }
    }
    (size > 0.0 && size <= 2.0).then_some(Trick::TinyText)
}

/// A PDF date (`D:YYYYMMDDHHmmSSOHH'mm'`) as ISO 8601, as far as it goes;
/// anything else is returned as written.
fn pdf_date(raw: &str) -> String {
    let s = raw.strip_prefix("D:").unwrap_or(raw);
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    if digits.len() < 4 || !digits.is_ascii() {
        return raw.to_owned();
    }
    let part = |from: usize, len: usize| digits.get(from..from + len);
    let mut out = digits[..4].to_owned();
    for (from, sep) in [(4, "-"), (6, "-")] {
        match part(from, 2) {
            Some(p) => {
                out.push_str(sep);
                out.push_str(p);
            }
            None => return out,
        }
    }
    let Some(hour) = part(8, 2) else { return out };
    out.push('T');
    out.push_str(hour);
    out.push(':');
    out.push_str(part(10, 2).unwrap_or("00"));
    out.push(':');
    out.push_str(part(12, 2).unwrap_or("00"));
    let rest = &s[digits.len()..];
    match rest.chars().next() {
        Some('Z') => out.push('Z'),
        Some(sign @ ('+' | '-')) => {
            let tz: String = rest[1..].chars().filter(char::is_ascii_digit).collect();
            if let (Some(h), m) = (tz.get(..2), tz.get(2..4).unwrap_or("00")) {
                out.push(sign);
                out.push_str(h);
                out.push(':');
                out.push_str(m);
            }
        }
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pdf_dates_become_iso() {
        assert_eq!(pdf_date("D:20260101120000Z"), "2026-01-01T12:00:00Z");
        assert_eq!(pdf_date("D:20261122041549+03'00'"), "2026-11-22T04:15:49+03:00");
        assert_eq!(pdf_date("D:2026"), "2026");
        assert_eq!(pdf_date("D:202611"), "2026-11");
        assert_eq!(pdf_date("yesterday"), "yesterday");
    }

    #[test]
    fn eof_marker() {
        assert!(ends_with_eof_marker(b"%PDF-1.4 ... %%EOF\n"));
        assert!(!ends_with_eof_marker(b"%PDF-1.4 ... trail"));
    }
}
