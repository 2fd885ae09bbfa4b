//! OCR of PDF pages without a text layer: the page is rendered by PDFium
//! (300 dpi, grey), piped to `tesseract stdin stdout -l rus+eng tsv`, and
//! the recognised words come back as lines with their boxes in PDF points.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::thread;
use std::time::Duration;

use pdfium_render::prelude::*;

use crate::origin::BBox;
use crate::pdf_layout::{Glyph, Line};
use crate::pdfium::pdfium_reason;
use crate::{Error, Result, worker};

/// How to get OCR, for error messages.
pub(crate) const INSTALL_HINT: &str = "install Tesseract: Debian packages tesseract-ocr and tesseract-ocr-rus";

/// Rendering resolution for OCR.
const DPI: f32 = 300.0;
/// Largest rendered side in pixels (a page size comes from the file).
const MAX_PIXELS: i32 = 7000;
/// Time limit for recognising one page.
const PAGE_TIMEOUT: Duration = Duration::from_secs(300);
/// Most bytes of TSV read back for one page.
const MAX_TSV: u64 = 64 << 20;

/// Tesseract, looked up on first use.
pub(crate) struct Ocr {
    enabled: bool,
    /// `None`: not looked up yet; `Some(None)`: not installed;
    /// `Some(Some(langs))`: installed, with the languages to use.
    languages: Option<Option<String>>,
}

impl Ocr {
    pub(crate) fn new(enabled: bool) -> Self {
        Self { enabled, languages: None }
    }

    /// Whether OCR is enabled and Tesseract was found.
    pub(crate) fn available(&mut self) -> bool {
        self.enabled && self.languages().is_some()
    }

    fn languages(&mut self) -> Option<String> {
        self.languages.get_or_insert_with(tesseract_languages).clone()
    }

    /// The text of a page as lines, or `None` when OCR is off or missing.
    pub(crate) fn page(&mut self, page: &PdfPage<'_>, name: &str) -> Result<Option<Vec<Line>>> {
        if !self.enabled {
            return Ok(None);
        }
        let Some(languages) = self.languages() else { return Ok(None) };
        let failed = |reason: String| Error::Failed { name: name.into(), reason };
        let config = PdfRenderConfig::new()
            .scale_page_by_factor(DPI / 72.0)
            .set_maximum_width(MAX_PIXELS)
            .set_maximum_height(MAX_PIXELS);
        let bitmap = page
            .render_with_config(&config)
            .map_err(|e| failed(format!("cannot render a page: {}", pdfium_reason(&e))))?;
        let (width, height) = (bitmap.width(), bitmap.height());
        let mut image = format!("P5\n{width} {height}\n255\n").into_bytes();
        image.extend(bitmap.as_rgba_bytes().chunks_exact(4).map(|p| {
            let grey = (77 * u32::from(p[0]) + 150 * u32::from(p[1]) + 29 * u32::from(p[2])) >> 8;
            u8::try_from(grey).unwrap_or(u8::MAX)
        }));
        drop(bitmap);
        let tsv = run_tesseract(&image, &languages).map_err(failed)?;
        #[allow(clippy::cast_precision_loss)]
        let scale = (width as f32 / page.width().value.max(1.0), height as f32 / page.height().value.max(1.0));
        Ok(Some(parse_tsv(&tsv, scale, page.height().value)))
    }
}

/// The installed languages among Russian and English, joined for `-l`;
/// `None` when Tesseract is not installed.
fn tesseract_languages() -> Option<String> {
    let out = Command::new("tesseract").arg("--list-langs").stdin(Stdio::null()).output().ok()?;
    let listed = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let have: Vec<&str> = ["rus", "eng"].into_iter().filter(|l| listed.lines().any(|line| line.trim() == *l)).collect();
    Some(if have.is_empty() { "eng".to_owned() } else { have.join("+") })
}

fn run_tesseract(image: &[u8], languages: &str) -> std::result::Result<String, String> {
    let mut child = Command::new("tesseract")
        .args(["stdin", "stdout", "-l", languages, "--psm", "3", "tsv"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start tesseract: {e}"))?;
    let (status, out, err) = thread::scope(|scope| {
        let mut stdin = child.stdin.take().expect("stdin is piped");
        let writer = scope.spawn(move || {
            let _ = stdin.write_all(image);
        });
        let stdout = child.stdout.take().expect("stdout is piped");
        let reader = scope.spawn(move || {
            let mut out = Vec::new();
            let mut stdout = stdout;
            let _ = (&mut stdout).take(MAX_TSV).read_to_end(&mut out);
            let _ = std::io::copy(&mut stdout, &mut std::io::sink());
            out
        });
        let stderr = child.stderr.take().expect("stderr is piped");
        let err_reader = scope.spawn(move || {
            let mut err = Vec::new();
            let mut stderr = stderr;
            let _ = (&mut stderr).take(4096).read_to_end(&mut err);
            let _ = std::io::copy(&mut stderr, &mut std::io::sink());
            err
        });
        let status = worker::wait_timeout(&mut child, PAGE_TIMEOUT);
        let _ = writer.join();
        (status, reader.join().unwrap_or_default(), err_reader.join().unwrap_or_default())
    });
    match status {
        Ok(Some(status)) if status.success() => Ok(String::from_utf8_lossy(&out).into_owned()),
        Ok(Some(status)) => Err(format!("tesseract failed ({status}): {}", String::from_utf8_lossy(&err).trim())),
        Ok(None) => Err(format!("tesseract took over {} s on a page (stopped)", PAGE_TIMEOUT.as_secs())),
        Err(e) => Err(format!("waiting for tesseract: {e}")),
    }
}

/// Tesseract's TSV (level, page, block, paragraph, line, word, left, top,
/// width, height, confidence, text) as lines of glyphs; each letter gets its
/// word's box, converted from pixels (top-left origin) to PDF points.
pub(crate) fn parse_tsv(tsv: &str, (sx, sy): (f32, f32), page_height: f32) -> Vec<Line> {
    let mut lines: Vec<Line> = Vec::new();
    let mut key: Option<(u32, u32, u32)> = None;
    for row in tsv.lines().skip(1) {
        let f: Vec<&str> = row.split('\t').collect();
        let [level, _, block, par, line, _, left, top, width, height, _conf, text] = f[..] else { continue };
        let text = text.trim();
        if level != "5" || text.is_empty() {
            continue;
        }
        let num = |s: &str| s.parse::<u32>().ok();
        let px = |s: &str| s.parse::<f32>().ok();
        let (Some(block), Some(par), Some(line)) = (num(block), num(par), num(line)) else { continue };
        let (Some(left), Some(top), Some(width), Some(height)) = (px(left), px(top), px(width), px(height)) else {
            continue;
        };
        let here = (block, par, line);
        if key != Some(here) {
            let starts_paragraph = key.is_none_or(|(b, p, _)| (b, p) != (block, par));
            lines.push(Line { glyphs: Vec::new(), starts_paragraph: Some(starts_paragraph) });
            key = Some(here);
        }
        let bbox = BBox {
            left: left / sx,
            bottom: page_height - (top + height) / sy,
            right: (left + width) / sx,
            top: page_height - top / sy,
        };
        let current = lines.last_mut().expect("pushed above");
        if !current.glyphs.is_empty() {
            current.glyphs.push(Glyph::space());
        }
        let size = bbox.top - bbox.bottom;
        current.glyphs.extend(text.chars().map(|c| Glyph {
            c,
            bbox,
            size,
            baseline: bbox.bottom,
            hidden: None,
            line_end: false,
        }));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsv_words_become_lines_with_boxes() {
        let tsv = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n\
                   1\t1\t0\t0\t0\t0\t0\t0\t2480\t3508\t-1\t\n\
                   5\t1\t1\t1\t1\t1\t300\t300\t100\t50\t96.1\tHello\n\
                   5\t1\t1\t1\t1\t2\t420\t300\t100\t50\t95.0\tworld\n\
                   5\t1\t1\t1\t2\t1\t300\t360\t100\t50\t95.0\tagain\n\
                   5\t1\t1\t2\t1\t1\t300\t500\t100\t50\t95.0\tНовый\n";
        let lines = parse_tsv(tsv, (300.0 / 72.0, 300.0 / 72.0), 842.0);
        assert_eq!(lines.len(), 3);
        assert_eq!(lines.iter().map(|l| l.starts_paragraph).collect::<Vec<_>>(), [Some(true), Some(false), Some(true)]);
        let first = lines[0].glyphs[0];
        assert_eq!(first.c, 'H');
        assert!((first.bbox.left - 72.0).abs() < 0.01 && (first.bbox.top - (842.0 - 72.0)).abs() < 0.01);
        assert_eq!(lines[0].glyphs.iter().map(|g| g.c).collect::<String>(), "Hello world");
    }
}
