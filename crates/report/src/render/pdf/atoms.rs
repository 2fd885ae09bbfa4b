//! The report's text as atoms (characters with their style, numbered badges, carets,
//! line breaks): the document's whole text coloured by source, a block's excerpts with
//! their word changes, plain text.

use super::{ALERT, GREEN, Rgb, source_colours};
use crate::model::{Block, BlockKind, Report};
use crate::render::{Mark, Piece, Side, block_excerpt_pieces};

/// How a piece of the document's text is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) struct Style {
    pub(super) fill: Option<Rgb>,
    /// Underline colour, and whether it is dashed (a citation).
    pub(super) line: Option<(Rgb, bool)>,
    /// A trick to hide copied text was found here (red underline).
    pub(super) trick: bool,
    pub(super) colour: Option<Rgb>,
    /// Struck through in the text's colour (words left out of the source).
    pub(super) strike: bool,
}

/// The word changes in a block's excerpts, coloured as the HTML report colours them.
pub(super) fn mark_style(mark: Mark) -> Style {
    match mark {
        Mark::Changed => {
            Style { fill: Some((0xff, 0xf3, 0xbf)), line: Some(((0xf5, 0x9f, 0x00), false)), ..Style::default() }
        }
        Mark::Added => Style { fill: Some((0xd3, 0xf9, 0xd8)), line: Some((GREEN, false)), ..Style::default() },
        Mark::LeftOut => {
            Style { fill: Some((0xff, 0xe3, 0xe3)), colour: Some((0xa6, 0x1e, 0x1e)), strike: true, ..Style::default() }
        }
        // Blue, as the HTML report's moved words (with the legend's word "moved").
        Mark::Moved => {
            Style { fill: Some((0xe7, 0xf5, 0xff)), line: Some(((0x1c, 0x7e, 0xd6), false)), ..Style::default() }
        }
    }
}

/// One unit of flowing text.
#[derive(Clone, Copy)]
pub(super) enum Atom {
    Char(char, Style),
    /// A numbered marker (or a label) in a colour, drawn before the next word.
    Badge(&'static str, u32, Rgb),
    /// Where the other side of a block has words this one lacks (a red bar).
    Caret,
    Break,
}

/// Plain text as atoms: line breaks break lines.
pub(super) fn plain_atoms(text: &str) -> Vec<Atom> {
    text.chars().map(|c| if c == '\n' { Atom::Break } else { Atom::Char(c, Style::default()) }).collect()
}

/// A sentence on one line: its line breaks and tabs as spaces, its ends trimmed.
pub(super) fn flat(text: &str) -> String {
    text.trim().chars().map(|c| if c.is_whitespace() { ' ' } else { c }).collect()
}

/// One side's excerpt of `block` as atoms, its word changes styled
/// ([`block_excerpt_pieces`]).
pub(super) fn excerpt_atoms(block: &Block, side: Side) -> Vec<Atom> {
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
pub(super) fn document_atoms(report: &Report) -> Vec<Atom> {
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
