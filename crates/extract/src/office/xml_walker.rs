//! What the DOCX, ODT and PPTX walkers share: the event loop over one XML
//! part (damage handling, skipped elements), the writer that numbers
//! paragraphs and places text, the table / cell / text-box rules for
//! separators, and run properties resolved in layers.
//!
//! A format's walker is a [`Visit`]: it sees start tags, end tags and
//! character data, and decides what they mean; [`walk`] drives it.

use std::io::BufRead;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use super::{Pages, chars, local, local_end, xml_damage};
use crate::builder::TextBuilder;
use crate::{Format, Part, Place, Result, Trick};

/// What to do with an element's content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Walk into it.
    Enter,
    /// Leave it out (an empty element has none anyway).
    Skip,
}

/// A format's view of the events of one XML part.
pub(crate) trait Visit {
    /// Where damage warnings go and whether text was already found.
    fn writer(&mut self) -> &mut Writer;
    /// A start tag (`empty`: a self-closing one), its local name `tag`.
    fn start(&mut self, e: &BytesStart<'_>, tag: &str, empty: bool) -> Step;
    /// An end tag, by local name.
    fn end(&mut self, tag: &str);
    /// Character data (text, CDATA, a resolved reference).
    fn text(&mut self, text: &str);
    /// The end of an element whose content was skipped.
    fn skipped(&mut self) {}
}

/// Where the part being walked sits, for errors and warnings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PartName<'a> {
    /// The document's name.
    pub(crate) name: &'a str,
    /// Its format.
    pub(crate) format: Format,
    /// The package member being walked, e.g. `word/document.xml`.
    pub(crate) member: &'a str,
}

/// Drives `visit` over every event of `reader`. A parse error ends the walk:
/// with text already written it becomes a [`Warning::Damaged`]
/// (crate::Warning::Damaged) and the text is kept, otherwise the document
/// fails with [`Error::Malformed`](crate::Error::Malformed).
///
/// # Errors
///
/// [`Error::Malformed`](crate::Error::Malformed) as above.
pub(crate) fn walk<R: BufRead>(reader: &mut Reader<R>, part: PartName<'_>, visit: &mut impl Visit) -> Result<()> {
    let mut buf = Vec::new();
    let mut skip = 0usize;
    loop {
        // Past the text limit the document fails anyway: read no further.
        if visit.writer().builder.is_over() {
            break;
        }
        buf.clear();
        let event = match reader.read_event_into(&mut buf) {
            Ok(Event::Eof) => break,
            Ok(event) => event,
            Err(e) => {
                let writer = visit.writer();
                let warning = xml_damage(part.name, part.format, part.member, &e, !writer.builder.text().is_empty())?;
                writer.builder.warn(warning);
                break;
            }
        };
        if skip > 0 {
            match event {
                Event::Start(_) => skip += 1,
                Event::End(_) => {
                    skip -= 1;
                    if skip == 0 {
                        visit.skipped();
                    }
                }
                _ => {}
            }
            continue;
        }
        match &event {
            Event::Start(e) => {
                if visit.start(e, local(e), false) == Step::Skip {
                    skip = 1;
                }
            }
            Event::Empty(e) => {
                visit.start(e, local(e), true);
            }
            Event::End(e) => visit.end(local_end(e.name().0)),
            other => {
                if let Some(text) = chars(other) {
                    visit.text(&text);
                }
            }
        }
    }
    Ok(())
}

/// The text being built, with the paragraph counter and the pages.
#[derive(Debug)]
pub(crate) struct Writer {
    pub(crate) builder: TextBuilder,
    pub(crate) pages: Pages,
    /// Paragraphs with text so far, through the whole document.
    pub(crate) paragraphs: u32,
}

impl Writer {
    /// A writer; `marks_pages` says whether the document marks page breaks.
    pub(crate) fn new(marks_pages: bool) -> Self {
        Self { builder: TextBuilder::new(), pages: Pages::new(marks_pages), paragraphs: 0 }
    }

    /// A writer whose text is held to `text_limit` bytes (see [`TextBuilder::with_limit`]).
    pub(crate) fn with_limit(marks_pages: bool, text_limit: usize) -> Self {
        Self { builder: TextBuilder::with_limit(text_limit), ..Self::new(marks_pages) }
    }

    /// The number of the paragraph whose number slot is `slot`, given on its
    /// first text (paragraphs without text are not counted); outside any
    /// paragraph, the last number (at least 1).
    pub(crate) fn number(&mut self, slot: Option<&mut Option<u32>>) -> u32 {
        match slot {
            Some(Some(number)) => *number,
            Some(slot) => {
                self.paragraphs = self.paragraphs.saturating_add(1);
                *slot = Some(self.paragraphs);
                self.paragraphs
            }
            None => self.paragraphs.max(1),
        }
    }

    /// Writes `text` of paragraph `paragraph` in `part` (of slide `slide`),
    /// or leaves it out as `trick` when it is hidden. Body, table and
    /// text-box text carries its page when the document marks pages.
    pub(crate) fn write(&mut self, text: &str, trick: Option<Trick>, paragraph: u32, part: Part, slide: Option<u32>) {
        let page = matches!(part, Part::Body | Part::Table | Part::TextBox).then(|| self.pages.current()).flatten();
        let place = Place { page, slide, paragraph: Some(paragraph), part };
        match trick {
            Some(trick) => self.builder.hidden(text, trick, place),
            None => {
                self.builder.push(text, place);
                self.pages.text();
            }
        }
    }
}

/// Tables, cells and text boxes open around the current position, and the
/// separators they imply: paragraphs in a cell are joined by a space, cells
/// by a space, rows by a line break; tables and text boxes stand apart as
/// paragraphs. Every method takes `write`: whether the walk is writing at
/// this position (the counters move either way).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Blocks {
    tables: u32,
    cells: u32,
    boxes: u32,
}

impl Blocks {
    /// Whether the position is in a table cell (and not in a text box in it).
    pub(crate) fn in_cell(self) -> bool {
        self.cells > 0 && self.boxes == 0
    }

    /// `base` (the part being walked), refined to [`Part::TextBox`] or
    /// [`Part::Table`] for body text inside one.
    pub(crate) fn part(self, base: Part) -> Part {
        match base {
            Part::Body if self.boxes > 0 => Part::TextBox,
            Part::Body if self.tables > 0 => Part::Table,
            other => other,
        }
    }

    pub(crate) fn paragraph_start(self, writer: &mut Writer, write: bool) {
        if write && !self.in_cell() {
            writer.builder.paragraph_break();
        }
    }

    pub(crate) fn paragraph_end(self, writer: &mut Writer, write: bool) {
        if write {
            if self.in_cell() {
                writer.builder.space();
            } else {
                writer.builder.paragraph_break();
            }
        }
    }

    pub(crate) fn table_start(&mut self, writer: &mut Writer, write: bool) {
        self.tables += 1;
        if write {
            writer.builder.paragraph_break();
        }
    }

    pub(crate) fn table_end(&mut self, writer: &mut Writer, write: bool) {
        self.tables = self.tables.saturating_sub(1);
        if write {
            writer.builder.paragraph_break();
        }
    }

    pub(crate) fn row_end(self, writer: &mut Writer, write: bool) {
        if write {
            writer.builder.line_break();
        }
    }

    pub(crate) fn cell_start(&mut self) {
        self.cells += 1;
    }

    pub(crate) fn cell_end(&mut self, writer: &mut Writer, write: bool) {
        self.cells = self.cells.saturating_sub(1);
        if write {
            writer.builder.space();
        }
    }

    pub(crate) fn box_start(&mut self, writer: &mut Writer, write: bool) {
        self.boxes += 1;
        if write {
            writer.builder.paragraph_break();
        }
    }

    pub(crate) fn box_end(&mut self, writer: &mut Writer, write: bool) {
        self.boxes = self.boxes.saturating_sub(1);
        if write {
            writer.builder.paragraph_break();
        }
    }
}

/// Text properties that decide visibility, set in layers (defaults, styles,
/// direct formatting): a layer's set values win over the ones below.
pub(crate) trait RunProperties: Clone + Default {
    /// These properties with `top`'s set ones on top.
    fn overlay(&mut self, top: &Self);
    /// Why text with these properties is invisible on `background` (the
    /// paragraph's, when the run sets none), if it is.
    fn trick(&self, background: Option<&str>) -> Option<Trick>;
}

/// `base` with each of `layers` on top, in order.
pub(crate) fn layered<'a, P: RunProperties + 'a>(base: &P, layers: impl IntoIterator<Item = &'a P>) -> P {
    let mut props = base.clone();
    for layer in layers {
        props.overlay(layer);
    }
    props
}

/// A paragraph being read: its properties, its background and its number
/// (given on its first text).
#[derive(Debug)]
pub(crate) struct Paragraph<P> {
    pub(crate) props: P,
    pub(crate) background: Option<String>,
    pub(crate) number: Option<u32>,
}

impl<P> Paragraph<P> {
    pub(crate) fn new(props: P, background: Option<String>) -> Self {
        Self { props, background, number: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::office::reader;

    /// Records what it sees, skipping `<skip>`.
    #[derive(Default)]
    struct Recorder {
        writer: Option<Writer>,
        seen: Vec<String>,
        skipped: usize,
    }

    impl Visit for Recorder {
        fn writer(&mut self) -> &mut Writer {
            self.writer.get_or_insert_with(|| Writer::new(false))
        }
        fn start(&mut self, _: &BytesStart<'_>, tag: &str, empty: bool) -> Step {
            self.seen.push(format!("<{tag}{}>", if empty { "/" } else { "" }));
            if tag == "skip" { Step::Skip } else { Step::Enter }
        }
        fn end(&mut self, tag: &str) {
            self.seen.push(format!("</{tag}>"));
        }
        fn text(&mut self, text: &str) {
            self.seen.push(text.to_owned());
        }
        fn skipped(&mut self) {
            self.skipped += 1;
        }
    }

    fn run(xml: &str) -> (Result<()>, Recorder) {
        let mut recorder = Recorder::default();
        let part = PartName { name: "t.docx", format: Format::Docx, member: "word/document.xml" };
        let result = walk(&mut reader(xml), part, &mut recorder);
        (result, recorder)
    }

    #[test]
    fn skipped_elements_hide_their_content_only() {
        let (result, recorder) = run("<w:a>x&amp;<skip><b>no</b></skip><skip/>y</w:a>");
        result.unwrap();
        assert_eq!(recorder.seen, ["<a>", "x", "&", "<skip>", "<skip/>", "y", "</a>"]);
        assert_eq!(recorder.skipped, 1);
    }

    #[test]
    fn damage_after_text_is_a_warning_before_text_an_error() {
        let (result, _) = run("<a><b x='1></a>");
        assert!(matches!(result, Err(crate::Error::Malformed { .. })), "{result:?}");
        let mut recorder = Recorder::default();
        recorder.writer().builder.push("text", Place { page: None, slide: None, paragraph: None, part: Part::Body });
        let part = PartName { name: "t.docx", format: Format::Docx, member: "word/document.xml" };
        walk(&mut reader("<a>t</a><b x='1></a>"), part, &mut recorder).unwrap();
        let doc = recorder.writer.unwrap().builder.finish("t.docx", Format::Docx).unwrap();
        assert!(matches!(doc.warnings.as_slice(), [crate::Warning::Damaged { .. }]), "{:?}", doc.warnings);
    }

    #[test]
    fn paragraphs_are_numbered_on_their_first_text() {
        let mut writer = Writer::new(false);
        assert_eq!(writer.number(None), 1);
        let mut slot = None;
        assert_eq!(writer.number(Some(&mut slot)), 1);
        assert_eq!(writer.number(Some(&mut slot)), 1);
        let mut next = None;
        assert_eq!(writer.number(Some(&mut next)), 2);
        assert_eq!(writer.number(None), 2);
    }
}
