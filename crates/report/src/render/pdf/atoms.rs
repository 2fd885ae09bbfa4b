//! The report's text as atoms (characters with their style, numbered badges, carets,
//! line breaks): the document's whole text coloured by source, a block's excerpts with
//! their word changes, plain text. The document's text and the excerpts also get their
//! structure elements (a paragraph per paragraph, a span per highlighted passage).

use pdf_writer::types::StructRole;

use super::tags::{Languages, NodeId, Tree};
use super::{ALERT, GREEN, Rgb, source_colours};
use crate::model::{Block, BlockKind, Report};
use crate::render::{Mark, Piece, Side, block_excerpt_pieces};

/// How a piece of the document's text is drawn, and the structure element it belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) struct Style {
    /// The element that holds the piece (`None`: the one being laid out).
    pub(super) node: Option<NodeId>,
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
    Badge(&'static str, u32, Rgb, Option<NodeId>),
    /// Where the other side of a block has words this one lacks (a red bar), and what
    /// it says in words (the figure's `/Alt`).
    Caret(&'static str),
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
/// ([`block_excerpt_pieces`]) and each a span of `parent` titled with what it is.
pub(super) fn excerpt_atoms(block: &Block, side: Side, tree: &mut Tree, parent: NodeId) -> Vec<Atom> {
    let mut atoms = Vec::new();
    for piece in block_excerpt_pieces(block, side) {
        match piece {
            Piece::Caret => atoms.push(Atom::Caret(CARET_ALT)),
            Piece::Text(text, mark) => {
                let mut style = mark.map_or_else(Style::default, mark_style);
                if let Some(mark) = mark {
                    let span = tree.add(StructRole::Span, parent);
                    tree.set_title(span, mark_title(mark).to_owned());
                    style.node = Some(span);
                }
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

/// What a caret in an excerpt says to a reader.
const CARET_ALT: &str = "words added or left out on the other side";

/// A word change in words, as the legend above the blocks names it.
fn mark_title(mark: Mark) -> &'static str {
    match mark {
        Mark::Changed => "changed",
        Mark::Added => "added in the document",
        Mark::LeftOut => "left out of the source",
        Mark::Moved => "moved",
    }
}

/// The suspect's text as atoms: each counted run styled by its source, a numbered
/// badge where a run of a source starts, trick places underlined, and a label where
/// text was left out.
///
/// Its structure, under `parent`: a paragraph (`P`) per paragraph of the text (lines
/// apart from blank ones), in its language when it is not the report's; in it a `Span`
/// per counted run (titled with its kind and source), a `Span` per trick place, and a
/// `Span` per numbered badge that says "source N" in words (`/ActualText`).
pub(super) fn document_atoms(report: &Report, tree: &mut Tree, parent: NodeId, languages: &mut Languages) -> Vec<Atom> {
    let text = &report.suspect.text;
    let len = text.chars().count();
    let mut styles = vec![Style::default(); len];
    let mut runs: Vec<Option<usize>> = vec![None; len];
    let mut badges: Vec<Vec<Atom>> = vec![Vec::new(); len + 1];
    let mut last: Option<(crate::DocId, usize)> = None;
    for (k, seg) in report.segments.iter().enumerate() {
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
        runs[start..end].fill(Some(k));
        if last != Some((seg.source, seg.span.chars.start)) {
            badges[start].push(Atom::Badge("", number, strong, None));
        }
        last = Some((seg.source, seg.span.chars.end));
    }
    for notice in &report.suspect.warnings {
        for l in &notice.locations {
            let (start, end) = (l.span.chars.start.min(len), l.span.chars.end.min(len));
            if start >= end {
                badges[start].push(Atom::Badge("hidden text", 0, ALERT, None));
            }
            for style in styles.iter_mut().take(end).skip(start) {
                style.trick = true;
            }
        }
    }

    // Paragraphs: a new one starts at the first non-blank character after a blank line.
    let mut paragraph_of = vec![0usize; len];
    let mut bounds: Vec<(usize, usize)> = Vec::new();
    let mut newlines = 0;
    for (i, (at, c)) in text.char_indices().enumerate() {
        if c == '\n' {
            newlines += 1;
        } else if !c.is_whitespace() {
            if bounds.is_empty() || newlines >= 2 {
                if let Some(last) = bounds.last_mut() {
                    last.1 = at;
                }
                bounds.push((at, text.len()));
            }
            newlines = 0;
        }
        paragraph_of[i] = bounds.len().saturating_sub(1);
    }
    let paragraphs: Vec<NodeId> = if bounds.is_empty() {
        vec![tree.add(StructRole::P, parent)]
    } else {
        bounds
            .iter()
            .map(|&(from, to)| {
                let p = tree.add(StructRole::P, parent);
                tree.set_lang(p, languages.of(&text[from..to]));
                p
            })
            .collect()
    };

    // The element of each character: its paragraph, its run's span, a trick's span.
    let mut nodes = vec![paragraphs[0]; len];
    let mut run_span: Option<(usize, usize, NodeId)> = None;
    let mut trick_span: Option<(NodeId, NodeId)> = None;
    for i in 0..len {
        let paragraph = paragraph_of[i];
        let mut node = paragraphs[paragraph];
        if let Some(k) = runs[i] {
            node = match run_span {
                Some((p, r, span)) if p == paragraph && r == k => span,
                _ => {
                    let span = tree.add(StructRole::Span, node);
                    let seg = &report.segments[k];
                    let number = report.source(seg.source).map_or(0, |s| s.number);
                    let kind = match seg.kind {
                        BlockKind::Borrowing => "Borrowing",
                        BlockKind::Citation => "Citation",
                    };
                    tree.set_title(span, format!("{kind} from source {number}"));
                    run_span = Some((paragraph, k, span));
                    span
                }
            };
        }
        if styles[i].trick {
            node = match trick_span {
                Some((around, span)) if around == node => span,
                _ => {
                    let span = tree.add(StructRole::Span, node);
                    tree.set_title(span, "Where a trick to hide copied text was found".to_owned());
                    trick_span = Some((node, span));
                    span
                }
            };
        } else {
            trick_span = None;
        }
        nodes[i] = node;
        styles[i].node = Some(node);
    }

    let mut atoms = Vec::with_capacity(len + 64);
    for (i, c) in text.chars().enumerate() {
        for mut badge in badges[i].drain(..) {
            badge_span(&mut badge, tree, nodes[i]);
            atoms.push(badge);
        }
        match c {
            '\n' => atoms.push(Atom::Break),
            '\r' => {}
            _ => atoms.push(Atom::Char(c, styles[i])),
        }
    }
    let end = nodes.last().copied().unwrap_or(paragraphs[0]);
    for mut badge in badges[len].drain(..) {
        badge_span(&mut badge, tree, end);
        atoms.push(badge);
    }
    atoms
}

/// A badge's element: a numbered badge has its own span under `parent`, which says
/// "source N" in words; a labelled one ("hidden text") is read as it is, in `parent`.
fn badge_span(badge: &mut Atom, tree: &mut Tree, parent: NodeId) {
    if let Atom::Badge(label, n, _, node) = badge {
        if label.is_empty() {
            let span = tree.add(StructRole::Span, parent);
            tree.set_actual_text(span, format!("[source {n}] "));
            *node = Some(span);
        } else {
            *node = Some(parent);
        }
    }
}
