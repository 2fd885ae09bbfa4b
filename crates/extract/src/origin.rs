//! Where the characters of an extracted text came from in the original
//! document: [`Origin`] runs, [`Place`]s and [`Location`]s.
//!
//! A report marks borrowed passages by byte offsets into
//! [`Extracted::text`](crate::Extracted::text); the origins turn such an
//! offset back into a page and a position on it (PDF), or a paragraph, slide
//! and part (office formats), so the report can point into the original file.

use serde::{Deserialize, Serialize};

/// The part of a document a piece of text belongs to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Part {
    /// The main text (paragraphs, lists, tables of the body, slide text).
    #[default]
    Body,
    /// A page header.
    Header,
    /// A page footer.
    Footer,
    /// A footnote.
    Footnote,
    /// An endnote.
    Endnote,
    /// A reviewer's comment or annotation.
    Comment,
    /// Speaker notes of a slide.
    Notes,
    /// A table cell (when the format tells table text apart).
    Table,
    /// A text box, frame or shape outside the running text.
    TextBox,
}

impl Part {
    /// Whether this part is outside the running text (headers, footers,
    /// comments): its text is kept but marked, so a report can tell it apart.
    #[must_use]
    pub fn is_marginal(self) -> bool {
        matches!(self, Part::Header | Part::Footer | Part::Comment)
    }
}

/// A rectangle on a page, in PDF points (1/72 inch), with the origin at the
/// bottom-left corner of the page as PDF has it: `left <= right`,
/// `bottom <= top`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BBox {
    /// Left edge.
    pub left: f32,
    /// Bottom edge.
    pub bottom: f32,
    /// Right edge.
    pub right: f32,
    /// Top edge.
    pub top: f32,
}

impl BBox {
    /// The smallest box holding both.
    #[must_use]
    pub fn union(self, other: BBox) -> BBox {
        BBox {
            left: self.left.min(other.left),
            bottom: self.bottom.min(other.bottom),
            right: self.right.max(other.right),
            top: self.top.max(other.top),
        }
    }
}

/// Where in the original document something is, as far as the format says.
/// All numbers are 1-based; `None` means the format does not tell.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Place {
    /// The page (PDF; office formats only where page breaks are explicit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    /// The slide (presentations).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slide: Option<u32>,
    /// The paragraph, counted through the whole document in reading order
    /// (office formats, RTF, EPUB; every part counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paragraph: Option<u32>,
    /// The part of the document.
    #[serde(default, skip_serializing_if = "is_body")]
    pub part: Part,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_body(part: &Part) -> bool {
    *part == Part::Body
}

/// One run of the text that came from one [`Place`] (and, for PDF, one
/// character's box on the page).
///
/// `start..end` is a byte range of [`Extracted::text`](crate::Extracted::text).
/// Runs are sorted, do not overlap, and need not cover the text: separators
/// that extraction inserted (line breaks between paragraphs, spaces between
/// table cells) have no origin.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Origin {
    /// First byte of the run in the extracted text.
    pub start: usize,
    /// One past the last byte of the run.
    pub end: usize,
    /// Where the run is in the original document.
    #[serde(flatten)]
    pub place: Place,
    /// For PDF: the box of the run on its page (one character per run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bbox: Option<BBox>,
}

/// A place a [`Warning`](crate::Warning) is about: a byte range of the
/// extracted text (empty when the text in question was removed there, as
/// hidden text is) and where that is in the original document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    /// First byte in the extracted text.
    pub start: usize,
    /// One past the last byte (equal to `start` for removed text).
    pub end: usize,
    /// Where in the original document, when known.
    #[serde(flatten)]
    pub place: Place,
}

/// How many locations a warning lists at most; its count is always the
/// whole number.
pub const MAX_LOCATIONS: usize = 100;

/// The origin run holding byte `offset`, by binary search over sorted runs.
pub(crate) fn origin_at(origins: &[Origin], offset: usize) -> Option<&Origin> {
    let i = origins.partition_point(|o| o.end <= offset);
    origins.get(i).filter(|o| o.start <= offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origin_lookup_by_offset() {
        let place = |p| Place { paragraph: Some(p), ..Place::default() };
        let origins = [
            Origin { start: 0, end: 5, place: place(1), bbox: None },
            Origin { start: 7, end: 9, place: place(2), bbox: None },
        ];
        assert_eq!(origin_at(&origins, 0).unwrap().place.paragraph, Some(1));
        assert_eq!(origin_at(&origins, 4).unwrap().place.paragraph, Some(1));
        assert!(origin_at(&origins, 5).is_none());
        assert_eq!(origin_at(&origins, 8).unwrap().place.paragraph, Some(2));
        assert!(origin_at(&origins, 9).is_none());
        assert!(origin_at(&[], 0).is_none());
    }

    #[test]
    fn place_serializes_compactly() {
        let place = Place { page: Some(3), ..Place::default() };
        assert_eq!(serde_json::to_string(&place).unwrap(), r#"{"page":3}"#);
        let place = Place { paragraph: Some(2), part: Part::Footnote, ..Place::default() };
        assert_eq!(serde_json::to_string(&place).unwrap(), r#"{"paragraph":2,"part":"footnote"}"#);
        let back: Place = serde_json::from_str(r#"{"paragraph":2,"part":"footnote"}"#).unwrap();
        assert_eq!(back, place);
    }

    #[test]
    fn bbox_union() {
        let a = BBox { left: 1.0, bottom: 2.0, right: 3.0, top: 4.0 };
        let b = BBox { left: 0.5, bottom: 3.0, right: 5.0, top: 3.5 };
        assert_eq!(a.union(b), BBox { left: 0.5, bottom: 2.0, right: 5.0, top: 4.0 });
    }
}
