//! PDF text layout: characters with boxes -> lines -> paragraphs, with
//! hyphenated words joined and ligatures expanded. Independent of PDFium
//! (the OCR path feeds it too), so it is unit-tested on its own.

use crate::Trick;
use crate::builder::TextBuilder;
use crate::origin::{BBox, Place};

/// One character of a page (or a space or line end PDFium inserted).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Glyph {
    /// The character (`' '` for a space, `'\n'` for a line end).
    pub c: char,
    /// Its box on the page, PDF points.
    pub bbox: BBox,
    /// Its font size in points (after scaling).
    pub size: f32,
    /// The y of its baseline.
    pub baseline: f32,
    /// How it is hidden from a reader, if it is.
    pub hidden: Option<Trick>,
    /// A line end marker.
    pub line_end: bool,
}

const NO_BOX: BBox = BBox { left: 0.0, bottom: 0.0, right: 0.0, top: 0.0 };

impl Glyph {
    pub(crate) fn space() -> Self {
        Glyph { c: ' ', bbox: NO_BOX, size: 0.0, baseline: 0.0, hidden: None, line_end: false }
    }

    pub(crate) fn line_end() -> Self {
        Glyph { c: '\n', bbox: NO_BOX, size: 0.0, baseline: 0.0, hidden: None, line_end: true }
    }

    fn is_space(&self) -> bool {
        self.c.is_whitespace()
    }

    /// A character a reader sees.
    fn is_visible(&self) -> bool {
        self.hidden.is_none() && !self.is_space()
    }
}

/// One line of a page.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Line {
    pub glyphs: Vec<Glyph>,
    /// Set by OCR, which knows paragraphs; `None`: decided from geometry.
    pub starts_paragraph: Option<bool>,
}

/// The geometry of a line's visible characters.
#[derive(Debug, Clone, Copy)]
struct Metrics {
    top: f32,
    bottom: f32,
    baseline: f32,
    size: f32,
}

impl Line {
    fn metrics(&self) -> Option<Metrics> {
        let mut visible = self.glyphs.iter().filter(|g| g.is_visible());
        let first = visible.next()?;
        let mut m =
            Metrics { top: first.bbox.top, bottom: first.bbox.bottom, baseline: first.baseline, size: first.size };
        for g in visible {
            m.top = m.top.max(g.bbox.top);
            m.bottom = m.bottom.min(g.bbox.bottom);
            m.size = m.size.max(g.size);
        }
        Some(m)
    }
}

/// Splits a page's characters into lines: at PDFium's line ends and where
/// the baseline moves by more than half the font size.
pub(crate) fn split_lines(glyphs: Vec<Glyph>) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut current = Line::default();
    let mut last: Option<(f32, f32)> = None; // baseline and size of the last character
    for g in glyphs {
        if g.line_end {
            if !current.glyphs.is_empty() {
                lines.push(std::mem::take(&mut current));
            }
            last = None;
            continue;
        }
        if g.is_space() {
            if !current.glyphs.is_empty() {
                current.glyphs.push(g);
            }
            continue;
        }
        if let Some((baseline, size)) = last
            && (g.baseline - baseline).abs() > 0.5 * size.max(g.size).max(1.0)
            && !current.glyphs.is_empty()
        {
            lines.push(std::mem::take(&mut current));
        }
        // Hidden tiny characters must not move the line's baseline.
        if g.hidden.is_none() || last.is_none() {
            last = Some((g.baseline, g.size));
        }
        current.glyphs.push(g);
    }
    if !current.glyphs.is_empty() {
        lines.push(current);
    }
    lines
}

/// Whether a paragraph starts between two lines with these metrics.
fn paragraph_between(prev: Metrics, cur: Metrics) -> bool {
    let small = prev.size.min(cur.size).max(1.0);
    let large = prev.size.max(cur.size);
    let goes_up = cur.baseline > prev.baseline + 0.5 * small;
    let gap = prev.bottom - cur.top;
    goes_up || gap > 0.5 * small || large > 1.2 * small
}

/// The letters of a ligature, or `None` for any other character.
pub(crate) fn expand_ligature(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{FB00}' => "ff",
        '\u{FB01}' => "fi",
        '\u{FB02}' => "fl",
        '\u{FB03}' => "ffi",
        '\u{FB04}' => "ffl",
        '\u{FB05}' | '\u{FB06}' => "st",
        _ => return None,
    })
}

/// Hyphens that may end a line inside a word: `-`, U+2010, the soft hyphen,
/// and U+0002 (PDFium's mark for a hyphen it found at a line end).
fn is_line_end_hyphen(c: char) -> bool {
    matches!(c, '-' | '\u{2010}' | '\u{AD}' | '\u{2}')
}

/// Emits the lines of all pages into the builder, with line and paragraph
/// breaks, joined hyphenated words and expanded ligatures. Paragraphs are
/// numbered through the document.
pub(crate) fn emit_lines(builder: &mut TextBuilder, pages: &[(u32, Vec<Line>)]) {
    let mut prev: Option<(u32, Metrics)> = None;
    let mut pending_hyphen: Option<Glyph> = None;
    let mut paragraph = 0u32;
    for (page, lines) in pages {
        for line in lines {
            let metrics = line.metrics();
            let place = |paragraph| Place { page: Some(*page), paragraph: Some(paragraph), ..Place::default() };
            let Some(metrics) = metrics else {
                // Only hidden text (or nothing) on this line: report it where it is.
                for g in &line.glyphs {
                    if let Some(trick) = g.hidden {
                        builder.hidden(g.c.encode_utf8(&mut [0; 4]), trick, place(paragraph.max(1)));
                    }
                }
                continue;
            };
            let first_visible = line.glyphs.iter().find(|g| g.is_visible()).map(|g| g.c);
            let new_paragraph = match (prev, line.starts_paragraph) {
                (None, _) => true,
                (Some(_), Some(starts)) => starts,
                (Some((prev_page, _)), None) if prev_page != *page => true,
                (Some((_, prev_metrics)), None) => paragraph_between(prev_metrics, metrics),
            };
            let joined = pending_hyphen.is_some() && first_visible.is_some_and(char::is_lowercase);
            if let Some(hyphen) = pending_hyphen.take()
                && !joined
            {
                // Not a hyphenated word: a real hyphen stays, a soft one goes.
                if hyphen.c != '\u{AD}' {
                    builder.push_char('-', place(paragraph), hyphen.bbox);
                }
            }
            if !joined {
                if new_paragraph {
                    builder.paragraph_break();
                    paragraph += 1;
                } else {
                    builder.line_break();
                }
            }
            let paragraph_place = place(paragraph.max(1));
            let last_visible = line.glyphs.iter().rposition(Glyph::is_visible);
            for (i, g) in line.glyphs.iter().enumerate() {
                if g.is_space() {
                    // A space after a word joined over the line end stays.
                    if Some(i) < last_visible {
                        builder.space();
                    }
                    continue;
                }
                if let Some(trick) = g.hidden {
                    builder.hidden(g.c.encode_utf8(&mut [0; 4]), trick, paragraph_place);
                    continue;
                }
                if Some(i) == last_visible && is_line_end_hyphen(g.c) {
                    let after_letter = i > 0 && line.glyphs[i - 1].c.is_alphabetic();
                    if after_letter {
                        pending_hyphen = Some(*g);
                        continue;
                    }
                }
                match g.c {
                    '\u{AD}' => {}
                    '\u{2}' => builder.push_char('-', paragraph_place, g.bbox),
                    c => match expand_ligature(c) {
                        Some(letters) => letters.chars().for_each(|l| builder.push_char(l, paragraph_place, g.bbox)),
                        None => builder.push_char(c, paragraph_place, g.bbox),
                    },
                }
            }
            prev = Some((*page, metrics));
        }
    }
    if let Some(hyphen) = pending_hyphen.filter(|h| h.c != '\u{AD}') {
        let page = prev.map_or(1, |(page, _)| page);
        let place = Place { page: Some(page), paragraph: Some(paragraph.max(1)), ..Place::default() };
        builder.push_char('-', place, hyphen.bbox);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Format;

    /// A line of text at `baseline`, 12 pt, characters 6 pt wide.
    fn line_glyphs(text: &str, baseline: f32, size: f32) -> Vec<Glyph> {
        let mut out: Vec<Glyph> = text
            .chars()
            .enumerate()
            .map(|(i, c)| {
                #[allow(clippy::cast_precision_loss)]
                let left = 72.0 + 6.0 * i as f32;
                let bbox = BBox { left, bottom: baseline - 0.2 * size, right: left + 6.0, top: baseline + 0.8 * size };
                if c == ' ' { Glyph::space() } else { Glyph { c, bbox, size, baseline, hidden: None, line_end: false } }
            })
            .collect();
        out.push(Glyph::line_end());
        out
    }

    fn run(pages: &[(u32, Vec<Line>)]) -> crate::Extracted {
        let mut b = TextBuilder::new();
        emit_lines(&mut b, pages);
        b.finish("t.pdf", Format::Pdf).unwrap()
    }

    #[test]
    fn lines_paragraphs_hyphens_and_ligatures() {
        let mut glyphs = line_glyphs("The in-", 700.0, 12.0);
        glyphs.extend(line_glyphs("formation is \u{FB01}ne, well-", 686.0, 12.0));
        glyphs.extend(line_glyphs("Known.", 672.0, 12.0));
        glyphs.extend(line_glyphs("Next para\u{AD}", 640.0, 12.0));
        glyphs.extend(line_glyphs("graph.", 626.0, 12.0));
        let lines = split_lines(glyphs);
        assert_eq!(lines.len(), 5);
        let doc = run(&[(1, lines)]);
        assert_eq!(doc.text, "The information is fine, well-\nKnown.\n\nNext paragraph.");
        // Each letter of the ligature keeps its box.
        let f = doc.text.find("fine").unwrap();
        assert_eq!(doc.origin_at(f).unwrap().bbox, doc.origin_at(f + 1).unwrap().bbox);
        let next = doc.text.find("Next").unwrap();
        assert_eq!(doc.origin_at(next).unwrap().place.paragraph, Some(2));
        assert_eq!(doc.origin_at(0).unwrap().place.page, Some(1));
    }

    #[test]
    fn baseline_moves_split_lines_and_pages_split_paragraphs() {
        let mut glyphs = line_glyphs("one", 700.0, 12.0);
        glyphs.pop();
        glyphs.extend(line_glyphs("two", 686.0, 12.0));
        let lines = split_lines(glyphs);
        assert_eq!(lines.len(), 2);
        let page2 = split_lines(line_glyphs("three", 700.0, 12.0));
        let doc = run(&[(1, lines), (2, page2)]);
        assert_eq!(doc.text, "one\ntwo\n\nthree");
        assert_eq!(doc.origin_at(doc.text.len() - 1).unwrap().place.page, Some(2));
    }

    #[test]
    fn hidden_characters_are_left_out() {
        let mut glyphs = line_glyphs("see secret this", 700.0, 12.0);
        for g in &mut glyphs[4..10] {
            g.hidden = Some(Trick::WhiteText);
        }
        let doc = run(&[(1, split_lines(glyphs))]);
        assert_eq!(doc.text, "see this");
        let (trick, count, locations) = doc.bypasses().next().unwrap();
        assert_eq!((trick, count, locations[0].start), (Trick::WhiteText, 6, 4));
    }
}
