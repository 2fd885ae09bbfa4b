//! [`TextBuilder`]: how every structured format (office documents, PDF, RTF,
//! EPUB) assembles its text, its [`Origin`]s and its hidden-text warnings,
//! so they all follow the same rules.

use std::collections::BTreeMap;

use crate::origin::{BBox, Location, MAX_LOCATIONS, Origin, Place};
use crate::sniff::is_blank;
use crate::{Error, Extracted, Format, Metadata, Result, Trick, Warning};

/// Assembles an extracted text from pieces with their places.
///
/// Rules every format gets from it:
/// - visible text is appended with its [`Place`]; consecutive pieces from
///   the same place merge into one [`Origin`] run (PDF characters with boxes
///   stay one run each);
/// - separators (`line_break`, `paragraph_break`, `space`) never double up
///   and never start the text;
/// - hidden text ([`hidden`](Self::hidden)) is left out, counted and located
///   per [`Trick`]; when it stood between two letters (white letters used as
///   spaces), a space takes its place so the words stay apart.
#[derive(Debug, Default)]
pub(crate) struct TextBuilder {
    text: String,
    origins: Vec<Origin>,
    removed: BTreeMap<Trick, (usize, Vec<Location>)>,
    warnings: Vec<Warning>,
    /// Hidden text was removed after a letter: a letter pushed next gets a
    /// space before it.
    gap_pending: bool,
    /// The longest text kept ([`ExtractConfig::max_text_bytes`](crate::ExtractConfig));
    /// `None`: no limit.
    limit: Option<usize>,
    /// The text passed `limit`: nothing more is kept, and [`finish`](Self::finish) fails.
    over: bool,
}

impl TextBuilder {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// A builder that keeps at most `limit` bytes of text: past it, pieces are dropped
    /// and [`finish`](Self::finish) fails with [`Error::TextTooLarge`], so a document
    /// whose text would pass the limit never holds more than it.
    pub(crate) fn with_limit(limit: usize) -> Self {
        Self { limit: Some(limit), ..Self::default() }
    }

    /// Whether the text passed the limit (the rest of the document may be skipped).
    pub(crate) fn is_over(&self) -> bool {
        self.over
    }

    /// Whether `more` bytes still fit under the limit; marks the builder over it if not.
    fn fits(&mut self, more: usize) -> bool {
        if self.over {
            return false;
        }
        if self.limit.is_some_and(|limit| self.text.len().saturating_add(more) > limit) {
            self.over = true;
            return false;
        }
        true
    }

    /// The text so far.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// Appends visible text that came from `place`.
    pub(crate) fn push(&mut self, s: &str, place: Place) {
        if s.is_empty() || !self.fits(s.len() + 1) {
            return;
        }
        self.close_gap(s);
        let start = self.text.len();
        self.text.push_str(s);
        let end = self.text.len();
        if let Some(last) = self.origins.last_mut()
            && last.end == start
            && last.place == place
            && last.bbox.is_none()
        {
            last.end = end;
            return;
        }
        self.origins.push(Origin { start, end, place, bbox: None });
    }

    /// Appends one character with its box on the page (PDF).
    pub(crate) fn push_char(&mut self, c: char, place: Place, bbox: BBox) {
        let mut buf = [0u8; 4];
        let s = c.encode_utf8(&mut buf);
        if !self.fits(s.len() + 1) {
            return;
        }
        self.close_gap(s);
        let start = self.text.len();
        self.text.push(c);
        self.origins.push(Origin { start, end: self.text.len(), place, bbox: Some(bbox) });
    }

    fn close_gap(&mut self, next: &str) {
        if std::mem::take(&mut self.gap_pending) && next.chars().next().is_some_and(char::is_alphanumeric) {
            self.text.push(' ');
        }
    }

    /// Appends a separator with no origin, unless the text is empty or
    /// already ends with whitespace.
    pub(crate) fn space(&mut self) {
        if self.text.chars().next_back().is_some_and(|c| !c.is_whitespace()) {
            self.text.push(' ');
        }
        self.gap_pending = false;
    }

    /// Ends a line: the text ends with one `\n` (trailing spaces and tabs
    /// before it are dropped, and they never carry an origin).
    pub(crate) fn line_break(&mut self) {
        self.trim_end_spaces();
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            self.text.push('\n');
        }
        self.gap_pending = false;
    }

    /// Ends a paragraph: the text ends with a blank line (`\n\n`).
    pub(crate) fn paragraph_break(&mut self) {
        self.line_break();
        if !self.text.is_empty() && !self.text.ends_with("\n\n") {
            self.text.push('\n');
        }
    }

    fn trim_end_spaces(&mut self) {
        let trimmed = self.text.trim_end_matches([' ', '\t']).len();
        if trimmed < self.text.len() {
            self.text.truncate(trimmed);
            while let Some(last) = self.origins.last_mut() {
                if last.start >= trimmed {
                    self.origins.pop();
                } else {
                    last.end = last.end.min(trimmed);
                    break;
                }
            }
        }
    }

    /// Records text that a reader would not see (hidden, white, tiny), left
    /// out of the text.
    pub(crate) fn hidden(&mut self, s: &str, trick: Trick, place: Place) {
        let chars = s.chars().filter(|c| !c.is_whitespace()).count();
        if chars == 0 {
            // Hidden whitespace still separates words.
            if !s.is_empty() {
                self.space();
            }
            return;
        }
        let at = self.text.len();
        let entry = self.removed.entry(trick).or_default();
        entry.0 += chars;
        let merged = entry.1.last_mut().filter(|l| l.end == at && l.place == place).is_some();
        if !merged && entry.1.len() < MAX_LOCATIONS {
            entry.1.push(Location { start: at, end: at, place });
        }
        if self.text.chars().next_back().is_some_and(char::is_alphanumeric) {
            self.gap_pending = true;
        }
    }

    /// Adds a warning that is not about hidden text.
    pub(crate) fn warn(&mut self, warning: Warning) {
        self.warnings.push(warning);
    }

    /// The finished document: trailing whitespace trimmed, hidden-text
    /// warnings (one per trick, sorted) after the others.
    ///
    /// # Errors
    ///
    /// [`Error::Empty`] naming `name` when no visible text was found;
    /// [`Error::TextTooLarge`] when the text passed the limit.
    pub(crate) fn finish(mut self, name: &str, format: Format) -> Result<Extracted> {
        if let (true, Some(limit)) = (self.over, self.limit) {
            return Err(Error::TextTooLarge { name: name.into(), limit: limit as u64 });
        }
        let trimmed = self.text.trim_end().len();
        self.text.truncate(trimmed);
        self.origins.retain(|o| o.start < trimmed);
        if let Some(last) = self.origins.last_mut() {
            last.end = last.end.min(trimmed);
        }
        if is_blank(&self.text) {
            return Err(Error::Empty { name: name.into() });
        }
        let mut warnings = self.warnings;
        for (trick, (count, locations)) in self.removed {
            let locations = locations
                .into_iter()
                .map(|l| Location { start: l.start.min(trimmed), end: l.end.min(trimmed), ..l })
                .collect();
            warnings.push(Warning::Bypass { trick, count, locations });
        }
        Ok(Extracted {
            text: self.text,
            title: None,
            format,
            encoding: None,
            warnings,
            metadata: Metadata::default(),
            origins: self.origins,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::origin::Part;

    fn para(n: u32) -> Place {
        Place { paragraph: Some(n), ..Place::default() }
    }

    #[test]
    fn pieces_merge_into_runs_per_place() {
        let mut b = TextBuilder::new();
        b.paragraph_break();
        b.push("Hello, ", para(1));
        b.push("world.", para(1));
        b.paragraph_break();
        b.push("Next", para(2));
        b.space();
        b.space();
        let doc = b.finish("x", Format::Docx).unwrap();
        assert_eq!(doc.text, "Hello, world.\n\nNext");
        assert_eq!(doc.origins.len(), 2);
        assert_eq!((doc.origins[0].start, doc.origins[0].end), (0, 13));
        assert_eq!((doc.origins[1].start, doc.origins[1].end), (15, 19));
        assert_eq!(doc.origin_at(16).unwrap().place, para(2));
        assert!(doc.origin_at(14).is_none());
    }

    #[test]
    fn hidden_text_is_left_out_counted_and_keeps_words_apart() {
        let mut b = TextBuilder::new();
        b.push("one", para(1));
        b.hidden("x", Trick::WhiteText, para(1));
        b.push("two", para(1));
        b.hidden("secret words", Trick::HiddenText, para(1));
        b.push(" three", para(1));
        let doc = b.finish("x", Format::Docx).unwrap();
        assert_eq!(doc.text, "one two three");
        let bypasses: Vec<_> = doc.bypasses().collect();
        assert_eq!(bypasses.len(), 2);
        assert_eq!((bypasses[0].0, bypasses[0].1), (Trick::WhiteText, 1));
        assert_eq!(bypasses[0].2[0].start, 3);
        assert_eq!((bypasses[1].0, bypasses[1].1), (Trick::HiddenText, 11));
        assert_eq!(bypasses[1].2[0].start, 7);
    }

    #[test]
    fn pdf_characters_keep_their_boxes() {
        let mut b = TextBuilder::new();
        let page = Place { page: Some(2), ..Place::default() };
        let bbox = BBox { left: 10.0, bottom: 20.0, right: 15.0, top: 30.0 };
        for c in "Hé".chars() {
            b.push_char(c, page, bbox);
        }
        let doc = b.finish("x", Format::Pdf).unwrap();
        assert_eq!(doc.origins.len(), 2);
        assert_eq!((doc.origins[1].start, doc.origins[1].end), (1, 3));
        assert_eq!(doc.origin_at(2).unwrap().bbox, Some(bbox));
    }

    #[test]
    fn trailing_spaces_lose_their_origin_and_blank_is_empty() {
        let mut b = TextBuilder::new();
        b.push("a  ", Place { part: Part::Header, ..Place::default() });
        b.line_break();
        b.push("b", para(1));
        let doc = b.finish("x", Format::Odt).unwrap();
        assert_eq!(doc.text, "a\nb");
        assert_eq!((doc.origins[0].start, doc.origins[0].end), (0, 1));
        let mut b = TextBuilder::new();
        b.hidden("all hidden", Trick::HiddenText, para(1));
        assert!(matches!(b.finish("y.docx", Format::Docx), Err(Error::Empty { name }) if name == "y.docx"));
    }

    #[test]
    fn text_past_the_limit_fails_without_being_kept() {
        let mut b = TextBuilder::with_limit(10);
        b.push("12345", para(1));
        assert!(!b.is_over());
        b.push("678901", para(1));
        assert!(b.is_over());
        assert_eq!(b.text(), "12345");
        let e = b.finish("big.docx", Format::Docx).unwrap_err();
        assert_eq!(e.to_string(), "big.docx: its text is over the limit of 10 bytes");
    }
}
