//! The two embedded faces of DejaVu Sans (regular and bold) and what layout needs of
//! them: glyph ids and advances, text widths, text cut to a width.

use std::cell::RefCell;
use std::collections::HashMap;

pub(super) const REGULAR: &[u8] = include_bytes!("../../../fonts/DejaVuSans.ttf");
pub(super) const BOLD: &[u8] = include_bytes!("../../../fonts/DejaVuSans-Bold.ttf");

/// One face of the embedded font, with what layout needs (glyph ids and advances).
pub(super) struct Face {
    pub(super) data: &'static [u8],
    pub(super) face: ttf_parser::Face<'static>,
    pub(super) units_per_em: f32,
    /// Glyph id, advance, and whether the glyph is the character's own.
    cache: RefCell<HashMap<char, (u16, f32, bool)>>,
}

impl Face {
    fn load(data: &'static [u8]) -> std::io::Result<Self> {
        let face = ttf_parser::Face::parse(data, 0)
            .map_err(|e| std::io::Error::other(format!("the embedded font cannot be read: {e}")))?;
        let units_per_em = f32::from(face.units_per_em());
        Ok(Self { data, face, units_per_em, cache: RefCell::new(HashMap::new()) })
    }

    /// Glyph id and advance (in ems) of `c` (that of [`MISSING`] when the font lacks it:
    /// a tagged PDF must not show glyph 0, the missing-glyph box).
    pub(super) fn glyph(&self, c: char) -> (u16, f32) {
        let (id, advance, _) = self.lookup(c);
        (id, advance)
    }

    /// Whether the font has a glyph of its own for `c`.
    pub(super) fn has(&self, c: char) -> bool {
        self.lookup(c).2
    }

    fn lookup(&self, c: char) -> (u16, f32, bool) {
        if let Some(&g) = self.cache.borrow().get(&c) {
            return g;
        }
        let own = self.face.glyph_index(c);
        let id = own.or_else(|| self.face.glyph_index(MISSING)).unwrap_or(ttf_parser::GlyphId(0));
        let advance = f32::from(self.face.glyph_hor_advance(id).unwrap_or(0)) / self.units_per_em;
        let g = (id.0, advance, own.is_some());
        self.cache.borrow_mut().insert(c, g);
        g
    }

    /// Width of `text` at `size` points.
    pub(super) fn width(&self, text: &str, size: f32) -> f32 {
        text.chars().map(|c| self.glyph(shown(c)).1).sum::<f32>() * size
    }
}

/// What is drawn for a character the font lacks (e.g. Chinese): a white square.
pub(super) const MISSING: char = '\u{25a1}';

/// What is drawn for `c`: tabs and other control characters as a space.
pub(super) fn shown(c: char) -> char {
    if c.is_control() { ' ' } else { c }
}

pub(super) struct Fonts {
    pub(super) regular: Face,
    pub(super) bold: Face,
}

impl Fonts {
    pub(super) fn load() -> std::io::Result<Self> {
        Ok(Self { regular: Face::load(REGULAR)?, bold: Face::load(BOLD)? })
    }

    pub(super) fn face(&self, bold: bool) -> &Face {
        if bold { &self.bold } else { &self.regular }
    }
}

/// `text` cut with an ellipsis to fit `width` points.
pub(super) fn fit(face: &Face, text: &str, size: f32, width: f32) -> String {
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
