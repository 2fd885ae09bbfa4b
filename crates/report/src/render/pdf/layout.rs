//! Layout: the report's parts (header, totals, notices, sources, the document's text,
//! the blocks) laid out into pages of drawing operations ([`Op`]), text wrapped into
//! lines of positioned fragments, and the structure tree built as they are drawn: every
//! operation is tagged with its element or as an artifact ([`Tag`]).
//!
//! The tree, in reading order: `Document` > the header (`P` "TESSERA REPORT", `H1` the
//! document's heading, `P` per line of facts, a `P` per total), then a `Sect` per part
//! with its `H2`: Notices (`L` > `LI` > `LBody` > `P`), Sources (a `Table`, header row
//! of `TH`, a `TR` of five `TD` per source), Document (the legend, then the text's
//! paragraphs, see [`document_atoms`]), Blocks (the legend, then a `Sect` per block:
//! `H3`, facts, the sentence pairs' `Table`, the excerpts as `P` with a `Span` per word
//! change and a `Figure` per caret).

use pdf_writer::types::StructRole;

use super::atoms::{Atom, Style, document_atoms, excerpt_atoms, flat, mark_style, plain_atoms};
use super::font::{Fonts, shown};
use super::tags::{Languages, NodeId, Tag, Tree};
use super::{
    ALERT, BODY, BODY_LINE, BOTTOM, GREEN, GREY, INK, LINE, MARGIN_TOP, MARGIN_X, MUTED, ORANGE, PAGE_W, Rgb, TEXT_W,
    WHITE, document_heading, source_colours,
};
use crate::model::{Block, BlockKind, Report};
use crate::render::{
    BlockHeading, Mark, Side, fmt_percent, sentence_pairs_heading, source_label, source_not_kept, source_range,
};

/// Something to draw on a page (y grows downwards from the top of the page), and what
/// it is in the structure tree.
pub(super) enum Op {
    Rect { x: f32, y: f32, w: f32, h: f32, colour: Rgb, tag: Tag },
    Text { x: f32, baseline: f32, size: f32, bold: bool, colour: Rgb, text: String, tag: Tag },
}

impl Op {
    pub(super) fn tag(&self) -> Tag {
        match self {
            Self::Rect { tag, .. } | Self::Text { tag, .. } => *tag,
        }
    }
}

/// Width of a caret (where the other side has words this one lacks), and its stroke.
pub(super) const CARET_W: f32 = 3.0;
pub(super) const CARET_STROKE: f32 = 1.2;

/// A positioned piece of a line.
pub(super) enum Frag {
    Text { x: f32, w: f32, text: String, style: Style },
    Badge { x: f32, w: f32, label: String, colour: Rgb, node: Option<NodeId> },
    Caret { x: f32, alt: &'static str },
}

pub(super) struct Line {
    frags: Vec<Frag>,
}

/// Lays the report out into pages of [`Op`]s and builds their structure tree.
pub(super) struct Layout<'f> {
    fonts: &'f Fonts,
    pub(super) pages: Vec<Vec<Op>>,
    pub(super) tree: Tree,
    /// The elements being laid out, innermost last: text goes into the last.
    open: Vec<NodeId>,
    languages: Languages,
    y: f32,
}

impl<'f> Layout<'f> {
    pub(super) fn new(fonts: &'f Fonts, report: &Report) -> Self {
        Self {
            fonts,
            pages: vec![Vec::new()],
            tree: Tree::new(),
            open: vec![Tree::ROOT],
            languages: Languages::new(&report.suspect.text),
            y: MARGIN_TOP,
        }
    }

    /// The element being laid out.
    fn at(&self) -> NodeId {
        self.open.last().copied().unwrap_or(Tree::ROOT)
    }

    /// A new element in the one being laid out (it joins it with its first content).
    fn add(&mut self, role: StructRole) -> NodeId {
        self.tree.add(role, self.at())
    }

    /// Lays out `f` inside `node`.
    fn within<R>(&mut self, node: NodeId, f: impl FnOnce(&mut Self) -> R) -> R {
        self.open.push(node);
        let r = f(self);
        self.open.pop();
        r
    }

    /// The tag of one more operation of `node` on the current page.
    fn tag(&mut self, node: NodeId) -> Tag {
        let page = self.pages.len().saturating_sub(1);
        let last = self.pages.last().and_then(|ops| ops.last()).map(Op::tag);
        self.tree.content(node, page, last)
    }

    /// The page and position where a table or a figure starts, to give it a bounding
    /// box when it ends on the same page.
    fn here(&self) -> (usize, f32) {
        (self.pages.len() - 1, self.y)
    }

    /// Gives `node`, which started at `start`, its bounding box from there to here, `w`
    /// wide from `x`, when it is all on one page.
    fn bbox_since(&mut self, node: NodeId, (page, top): (usize, f32), x: f32, w: f32) {
        if page == self.pages.len() - 1 && self.y > top {
            self.tree.set_bbox(node, page, x, top, w, self.y - top);
        }
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

    /// A filled rectangle: decoration (an artifact).
    fn rect(&mut self, x: f32, y: f32, w: f32, h: f32, colour: Rgb) {
        if w > 0.0 && h > 0.0 {
            self.ops().push(Op::Rect { x, y, w, h, colour, tag: Tag::Artifact });
        }
    }

    /// Text in element `node`.
    #[allow(clippy::too_many_arguments)]
    fn text_in(&mut self, node: NodeId, x: f32, baseline: f32, size: f32, bold: bool, colour: Rgb, text: &str) {
        if !text.is_empty() {
            let tag = self.tag(node);
            self.ops().push(Op::Text { x, baseline, size, bold, colour, text: text.to_owned(), tag });
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
                    Atom::Badge(label, n, ..) => {
                        if seen_space {
                            break;
                        }
                        word_w += badge_w(&badge_label(label, n)) + 1.5;
                        ink_w = word_w;
                    }
                    Atom::Caret(_) => {
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
                    Atom::Badge(label, n, colour, node) => {
                        let label = badge_label(label, n);
                        let w = badge_w(&label);
                        if x > 0.0 && x + w > width {
                            lines.push(std::mem::replace(&mut line, Line { frags: Vec::new() }));
                            x = 0.0;
                        }
                        line.frags.push(Frag::Badge { x, w, label, colour, node });
                        x += w + 1.5;
                    }
                    Atom::Caret(alt) => {
                        line.frags.push(Frag::Caret { x, alt });
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

    /// Draws `lines` at `x0` from the current position, `line_h` apart, breaking pages;
    /// their text goes into the element being laid out, or the element of its atoms.
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
                    let node = style.node.unwrap_or_else(|| self.at());
                    let ink = style.colour.unwrap_or(colour);
                    self.text_in(node, x0 + x, baseline, size, bold, ink, text.trim_end());
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
                Frag::Caret { x, alt } => {
                    // A drawing that says something: a figure with its words.
                    let figure = self.add(StructRole::Figure);
                    self.tree.set_alt(figure, alt);
                    let (x, y, w, h) =
                        (x0 + x + (CARET_W - CARET_STROKE) / 2.0, baseline - size * 0.9, CARET_STROKE, size * 1.15);
                    let tag = self.tag(figure);
                    self.ops().push(Op::Rect { x, y, w, h, colour: ALERT, tag });
                    self.tree.set_bbox(figure, self.pages.len() - 1, x, y, w, h);
                }
                Frag::Badge { x, w, label, colour: c, node } => {
                    let bs = size * 0.72;
                    let h = bs * 1.35;
                    self.rect(x0 + x, baseline - size * 0.85, *w, h, *c);
                    let tw = self.fonts.bold.width(label, bs);
                    let by = baseline - size * 0.85 + h / 2.0 + bs * 0.36;
                    let node = node.unwrap_or_else(|| self.at());
                    self.text_in(node, x0 + x + (w - tw) / 2.0, by, bs, true, WHITE, label);
                }
            }
        }
    }

    /// A paragraph (`P`) of one style, wrapped to `width` at `x0`.
    #[allow(clippy::too_many_arguments)]
    fn para(&mut self, text: &str, x0: f32, width: f32, size: f32, line_h: f32, bold: bool, colour: Rgb) {
        self.para_as(StructRole::P, text, x0, width, size, line_h, bold, colour);
    }

    /// A paragraph of one style as an element of `role` (a heading, a paragraph); the
    /// element.
    #[allow(clippy::too_many_arguments)]
    fn para_as(
        &mut self,
        role: StructRole,
        text: &str,
        x0: f32,
        width: f32,
        size: f32,
        line_h: f32,
        bold: bool,
        colour: Rgb,
    ) -> NodeId {
        let node = self.add(role);
        let atoms = plain_atoms(text);
        let lines = self.wrap(&atoms, width, size, bold);
        self.within(node, |l| l.place(&lines, x0, size, line_h, bold, colour));
        node
    }

    /// A part's heading (`H2`) and its rule.
    fn heading(&mut self, text: &str) {
        self.y += 10.0;
        self.need(60.0);
        self.para_as(StructRole::H2, text, MARGIN_X, TEXT_W, 13.0, 18.0, true, INK);
        self.rect(MARGIN_X, self.y, TEXT_W, 0.6, LINE);
        self.y += 6.0;
    }

    /// A part of the report: a `Sect` with what `f` lays out.
    fn section(&mut self, f: impl FnOnce(&mut Self)) {
        let sect = self.add(StructRole::Sect);
        self.within(sect, f);
    }

    pub(super) fn report(&mut self, report: &Report, date: Option<String>) {
        self.header(report, date.as_deref());
        self.section(|l| l.sources(report));
        self.section(|l| l.document(report));
        self.section(|l| l.blocks(report));
    }

    fn header(&mut self, report: &Report, date: Option<&str>) {
        let s = &report.suspect;
        self.para("TESSERA REPORT", MARGIN_X, TEXT_W, 8.5, 12.0, true, MUTED);
        self.y += 2.0;
        let heading = document_heading(report);
        let h1 = self.para_as(StructRole::H1, &heading, MARGIN_X, TEXT_W, 17.0, 22.0, true, INK);
        let lang = self.languages.of(&heading);
        self.tree.set_lang(h1, lang);
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
        if let Some(line) = crate::render::filters_line(report) {
            self.para(&format!("Filters: {line}"), MARGIN_X, TEXT_W, 9.0, 13.0, false, MUTED);
        }
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
            // One paragraph each, read as "72.00% ORIGINALITY".
            let x = MARGIN_X + i as f32 * 150.0;
            let p = self.add(StructRole::P);
            self.text_in(p, x, top + 20.0, 22.0, true, colour, &fmt_percent(pct));
            self.text_in(p, x, top + 33.0, 8.0, false, MUTED, label);
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
            self.section(|l| l.notices(report));
        }
    }

    /// The extraction's notices: a list, an item per notice.
    fn notices(&mut self, report: &Report) {
        let s = &report.suspect;
        self.heading("Notices");
        let list = self.add(StructRole::L);
        self.open.push(list);
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
            let item = self.add(StructRole::LI);
            let body = self.tree.add(StructRole::LBody, item);
            self.within(body, |l| {
                l.para(&text, MARGIN_X + 8.0, TEXT_W - 8.0, 9.5, 13.0, false, INK);
                l.para(&notice.message, MARGIN_X + 8.0, TEXT_W - 8.0, 8.0, 11.0, false, MUTED);
            });
            let top = if self.y < top { MARGIN_TOP } else { top };
            self.rect(MARGIN_X, top, 2.5, self.y - top, colour);
            self.y += 4.0;
        }
        self.open.pop();
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
        let table = self.add(StructRole::Table);
        let start = self.here();
        // The header row: a row of column headers, and a pagination artifact where it is
        // drawn again at the top of a page.
        let head = |l: &mut Self, again: bool| {
            let y = l.y + 9.0;
            let row = (!again).then(|| l.tree.add(StructRole::TR, table));
            for (x, label) in cols.iter().zip(["#", "IN REPORT", "IN TEXT", "BLOCKS", "SOURCE"]) {
                if let Some(row) = row {
                    let cell = l.tree.add(StructRole::TH, row);
                    l.tree.set_column_header(cell);
                    l.text_in(cell, *x, y, 7.0, true, MUTED, label);
                } else {
                    let text = label.to_owned();
                    let (x, size, colour, tag) = (*x, 7.0, MUTED, Tag::Repeated);
                    l.ops().push(Op::Text { x, baseline: y, size, bold: true, colour, text, tag });
                }
            }
            l.y += 14.0;
        };
        head(self, false);
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
            for line in crate::render::copy_lines(report, source) {
                origin.push('\n');
                origin.push_str(&line);
            }
            let title_lines = self.wrap(&plain_atoms(&title), title_w, 9.5, true);
            let origin_lines = self.wrap(&plain_atoms(&origin), title_w, 8.0, false);
            let height = title_lines.len() as f32 * 13.0 + origin_lines.len() as f32 * 11.0 + 6.0;
            if self.y + height.min(BOTTOM - MARGIN_TOP - 20.0) > BOTTOM {
                self.new_page();
                head(self, true);
            }
            // A row of five cells, each in its place even if it were empty.
            let row = self.tree.add(StructRole::TR, table);
            let cells: Vec<NodeId> = (0..5).map(|_| self.tree.add(StructRole::TD, row)).collect();
            for &cell in &cells {
                self.tree.attach(cell);
            }
            let top = self.y;
            let number = source.number.to_string();
            let nw = self.fonts.bold.width(&number, 8.5) + 8.0;
            self.rect(cols[0], top + 1.5, nw.max(16.0), 12.0, strong);
            self.text_in(
                cells[0],
                cols[0] + (nw.max(16.0) - self.fonts.bold.width(&number, 8.5)) / 2.0,
                top + 10.5,
                8.5,
                true,
                WHITE,
                &number,
            );
            let ink = if source.enabled { INK } else { MUTED };
            self.text_in(cells[1], cols[1], top + 10.0, 9.5, false, ink, &fmt_percent(source.share_in_report));
            self.text_in(cells[2], cols[2], top + 10.0, 9.5, false, ink, &fmt_percent(source.share_in_text));
            self.text_in(cells[3], cols[3], top + 10.0, 9.5, false, ink, &source.blocks.to_string());
            self.within(cells[4], |l| {
                l.place(&title_lines, cols[4], 9.5, 13.0, true, ink);
                l.place(&origin_lines, cols[4], 8.0, 11.0, false, MUTED);
            });
            self.y += 3.0;
            self.rect(MARGIN_X, self.y, TEXT_W, 0.4, LINE);
            self.y += 3.0;
        }
        self.bbox_since(table, start, MARGIN_X, TEXT_W);
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
        let at = self.at();
        let atoms = document_atoms(report, &mut self.tree, at, &mut self.languages);
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
        legend.extend(plain(", "));
        legend.extend(styled("moved", Mark::Moved));
        legend.extend(plain("; "));
        legend.push(Atom::Caret("a red bar"));
        legend.extend(plain(" marks where words were added or left out on the other side."));
        let lines = self.wrap(&legend, TEXT_W, 8.0, false);
        let p = self.add(StructRole::P);
        self.within(p, |l| l.place(&lines, MARGIN_X, 8.0, 12.0, false, MUTED));
        for block in &report.blocks {
            self.section(|l| l.block(report, block));
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

        self.para_as(StructRole::H3, &format!("{} · {}", heading.kind, heading.source), X, W, 9.5, 13.0, true, INK);
        let mut meta = vec![heading.place.clone(), heading.sure.clone()];
        meta.extend(heading.flags.iter().map(crate::render::BlockFlag::text));
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
        self.excerpt(block, Side::Suspect, X, W);
        self.y += 4.0;
        self.need(30.0);
        if block.source_excerpt.is_some() {
            self.para(&format!("Source, {}:", source_range(block)), X, W, 8.0, 11.0, true, MUTED);
            self.excerpt(block, Side::Source, X, W);
        } else {
            self.para(&source_not_kept(report, block), X, W, 8.0, 11.0, false, MUTED);
        }
        self.bar_since(page, top, bar);
    }

    /// One side's excerpt of a block: a paragraph in its language, its word changes as
    /// spans, its carets as figures.
    fn excerpt(&mut self, block: &Block, side: Side, x0: f32, width: f32) {
        let p = self.add(StructRole::P);
        let atoms = excerpt_atoms(block, side, &mut self.tree, p);
        let text: String =
            atoms.iter().filter_map(|a| if let Atom::Char(c, _) = a { Some(*c) } else { None }).collect();
        let lang = self.languages.of(&text);
        self.tree.set_lang(p, lang);
        let lines = self.wrap(&atoms, width, 9.0, false);
        self.within(p, |l| l.place(&lines, x0, 9.0, 13.5, false, INK));
    }

    /// A two-column table of sentence pairs (document, source), rows wrapped side by side
    /// and broken over pages line by line.
    fn sentence_table(&mut self, rows: &[(&str, &str)], x0: f32, width: f32) {
        const GAP: f32 = 12.0;
        const SIZE: f32 = 8.5;
        const LINE_H: f32 = 12.0;
        let col = (width - GAP) / 2.0;
        self.need(14.0 + 2.0 * LINE_H);
        let table = self.add(StructRole::Table);
        let start = self.here();
        // Rows and cells are placed as they are made: a cell keeps its place when empty.
        let row = |l: &mut Self, kind: StructRole| -> [NodeId; 2] {
            let row = l.tree.add(StructRole::TR, table);
            let cells = [l.tree.add(kind, row), l.tree.add(kind, row)];
            for cell in cells {
                l.tree.attach(cell);
            }
            cells
        };
        let [document, source] = row(self, StructRole::TH);
        for cell in [document, source] {
            self.tree.set_column_header(cell);
        }
        self.text_in(document, x0, self.y + 9.0, 7.0, true, MUTED, "DOCUMENT");
        self.text_in(source, x0 + col + GAP, self.y + 9.0, 7.0, true, MUTED, "SOURCE");
        self.y += 12.0;
        for (suspect, source) in rows {
            let left = self.wrap(&plain_atoms(&flat(suspect)), col, SIZE, false);
            let right = self.wrap(&plain_atoms(&flat(source)), col, SIZE, false);
            self.need(4.0 + LINE_H * left.len().max(right.len()).min(3) as f32);
            self.rect(x0, self.y, width, 0.4, LINE);
            self.y += 3.0;
            let cells = row(self, StructRole::TD);
            for (cell, text) in cells.iter().zip([suspect, source]) {
                let lang = self.languages.of(text);
                self.tree.set_lang(*cell, lang);
            }
            for i in 0..left.len().max(right.len()) {
                self.need(LINE_H);
                if let Some(line) = left.get(i) {
                    self.within(cells[0], |l| l.draw_line(line, x0, l.y, SIZE, LINE_H, false, INK));
                }
                if let Some(line) = right.get(i) {
                    self.within(cells[1], |l| l.draw_line(line, x0 + col + GAP, l.y, SIZE, LINE_H, false, INK));
                }
                self.y += LINE_H;
            }
            self.y += 1.0;
        }
        self.bbox_since(table, start, x0, width);
    }

    /// A bar in `colour` down the left margin from `top` of page `page` to the current
    /// position, on every page between.
    fn bar_since(&mut self, page: usize, top: f32, colour: Rgb) {
        let last = self.pages.len() - 1;
        for p in page..=last {
            let from = if p == page { top } else { MARGIN_TOP };
            let to = if p == last { self.y } else { BOTTOM };
            if to > from {
                self.pages[p].push(Op::Rect { x: MARGIN_X, y: from, w: 2.5, h: to - from, colour, tag: Tag::Artifact });
            }
        }
    }
}

pub(super) fn badge_label(label: &'static str, n: u32) -> String {
    if label.is_empty() { n.to_string() } else { label.to_owned() }
}
