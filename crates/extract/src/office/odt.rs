//! ODT (OpenDocument text): a streaming walk over `content.xml`, with
//! styles from `styles.xml` and the automatic styles of `content.xml`, and
//! metadata from `meta.xml`.

use std::collections::HashMap;
use std::io::BufRead;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use super::xml_walker::{self, Blocks, Paragraph, PartName, RunProperties, Step, Visit, Writer, layered};
use super::{MAX_STYLE_DEPTH, attr, local, local_end, simple_fields, stream_reader};
use crate::container::{PartText, ZipPackage};
use crate::extract::Extract;
use crate::{Error, ExtractConfig, Extracted, Format, Metadata, Part, Result, Trick};

/// Extracts OpenDocument text documents (`.odt`, also `.ott`).
///
/// - Headings and paragraphs (`text:h`, `text:p`) in document order, lists,
///   spaces (`text:s`), tabs and line breaks; table cells separated by a
///   space and rows by a line break ([`Part::Table`]); frames' text boxes
///   ([`Part::TextBox`]); tracked changes and note citations left out.
/// - Footnotes, endnotes and annotations after the body
///   ([`Part::Footnote`], [`Part::Endnote`], [`Part::Comment`]), then the headers ([`Part::Header`]) and footers
///   ([`Part::Footer`]) of the master pages in `styles.xml`.
/// - Every origin carries its paragraph (counted through the document,
///   paragraphs with text only) and its page when the document marks page
///   breaks (`fo:break-before="page"` in a paragraph style,
///   `text:soft-page-break` written by the authoring program).
/// - Hidden text is left out and reported: `text:display="none"`
///   ([`Trick::HiddenText`]), `fo:color` equal to the background (white when
///   none is set) ([`Trick::WhiteText`]), `fo:font-size` of 2 pt or less
///   ([`Trick::TinyText`]), resolved through the default style, the
///   paragraph style and every enclosing span's style, with their parents.
/// - Title and metadata from `meta.xml`.
#[derive(Debug, Clone, Copy, Default)]
pub struct OdtExtractor;

impl Extract for OdtExtractor {
    fn format(&self) -> Format {
        Format::Odt
    }

    /// ODT is recognised by its ZIP members, not sniffed.
    fn sniff(&self, _name: &str, _head: &[u8]) -> bool {
        false
    }

    fn extract(&self, name: &str, bytes: &[u8], config: &ExtractConfig) -> Result<Extracted> {
        let mut package = ZipPackage::open(name, Format::Odt, bytes, config)?;
        let encrypted = package.stream("META-INF/manifest.xml", &["encryption-data"], |text| {
            text.drain();
            Ok(text.found("encryption-data"))
        })?;
        if encrypted == Some(true) {
            return Err(Error::Encrypted { name: name.into() });
        }
        // content.xml and styles.xml are streamed a few times, never held
        // whole: first to learn what the walks need (page marks, whether
        // there are notes, the styles), then once per walk.
        let marks = package.stream("content.xml", CONTENT_MARKS, |text| {
            text.drain();
            Ok(CONTENT_MARKS.map(|mark| text.found(mark)))
        })?;
        let Some([soft_page_breaks, note_bodies, annotations]) = marks else {
            return Err(Error::Malformed { name: name.into(), format: "odt", reason: "no content.xml".into() });
        };
        let mut styles = Styles::default();
        let master_styles = package.stream("styles.xml", &["master-styles"], |text| {
            styles.parse(&mut stream_reader(text));
            text.drain();
            Ok(text.found("master-styles"))
        })?;
        package.stream("content.xml", &[], |text| {
            styles.parse(&mut stream_reader(text));
            Ok(())
        })?;
        let marks_pages = soft_page_breaks || styles.any_break_before;
        let mut writer = Writer::with_limit(marks_pages, config.text_limit());
        package.stream("content.xml", &[], |text| walk_pass(&mut writer, &styles, name, text, Pass::Body))?;
        if note_bodies || annotations {
            package.stream("content.xml", &[], |text| walk_pass(&mut writer, &styles, name, text, Pass::Notes))?;
        }
        if master_styles == Some(true) {
            package.stream("styles.xml", &[], |text| walk_pass(&mut writer, &styles, name, text, Pass::Master))?;
        }
        let fields = package.stream("meta.xml", &[], |text| Ok(metadata_fields(&mut stream_reader(text))))?;
        let (title, metadata) = match fields {
            Some((title, mut metadata)) => {
                let pages = package.stream("meta.xml", &[], |text| Ok(page_count(&mut stream_reader(text))))?;
                metadata.pages = pages.flatten();
                (title, metadata)
            }
            None => (None, Metadata::default()),
        };
        let mut doc = writer.builder.finish(name, Format::Odt)?;
        doc.title = title;
        doc.metadata = metadata;
        Ok(doc)
    }
}

/// What in `content.xml` says that the document marks pages
/// (`soft-page-break`) and has notes or annotations to walk.
const CONTENT_MARKS: &[&str; 3] = &["soft-page-break", "note-body", "annotation"];

/// Title and metadata from `meta.xml` (the page count apart:
/// [`page_count`]).
fn metadata_fields<R: BufRead>(reader: &mut Reader<R>) -> (Option<String>, Metadata) {
    let mut fields = simple_fields(
        reader,
        &["title", "initial-creator", "creator", "creation-date", "date", "language", "generator"],
    );
    let mut first = |name: &str| fields.get_mut(name).and_then(|v| (!v.is_empty()).then(|| v.swap_remove(0)));
    let mut authors: Vec<String> = Vec::new();
    for author in [first("initial-creator"), first("creator")].into_iter().flatten() {
        if !authors.contains(&author) {
            authors.push(author);
        }
    }
    let metadata = Metadata {
        authors,
        created: first("creation-date"),
        modified: first("date"),
        language: first("language"),
        pages: None,
        producer: first("generator"),
    };
    (first("title"), metadata)
}

/// The page count of `meta.xml`'s document statistics.
fn page_count<R: BufRead>(reader: &mut Reader<R>) -> Option<u32> {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_event_into(&mut buf) {
            Ok(Event::Eof) | Err(_) => return None,
            Ok(Event::Start(e) | Event::Empty(e)) if local(&e) == "document-statistic" => {
                return attr(&e, "page-count").and_then(|p| p.parse().ok());
            }
            Ok(_) => {}
        }
    }
}

/// The text properties that decide visibility; `None` means inherited.
/// Colours are lower-case `#rrggbb`.
#[derive(Debug, Clone, Default, PartialEq)]
struct Props {
    hidden: Option<bool>,
    color: Option<String>,
    /// Points.
    size: Option<f32>,
    background: Option<String>,
}

impl Props {
    fn apply_text(&mut self, e: &BytesStart<'_>) {
        if let Some(display) = attr(e, "display").or_else(|| attr(e, "text-display")) {
            self.hidden = Some(display == "none");
        }
        if let Some(color) = attr(e, "color") {
            self.color = Some(color.to_ascii_lowercase());
        }
        if let Some(size) = attr(e, "font-size").and_then(|s| points(&s)) {
            self.size = Some(size);
        }
        if let Some(background) = attr(e, "background-color") {
            self.background = Some(background.to_ascii_lowercase());
        }
    }
}

impl RunProperties for Props {
    fn overlay(&mut self, top: &Props) {
        if top.hidden.is_some() {
            self.hidden = top.hidden;
        }
        if top.color.is_some() {
            self.color.clone_from(&top.color);
        }
        if top.size.is_some() {
            self.size = top.size;
        }
        if top.background.is_some() {
            self.background.clone_from(&top.background);
        }
    }

    fn trick(&self, paragraph_background: Option<&str>) -> Option<Trick> {
        if self.hidden == Some(true) {
            return Some(Trick::HiddenText);
        }
        if self.size.is_some_and(|pt| pt <= 2.0) {
            return Some(Trick::TinyText);
        }
        let color = self.color.as_deref()?;
        let background =
            self.background.as_deref().filter(|b| *b != "transparent").or(paragraph_background).unwrap_or("#ffffff");
        (color == background).then_some(Trick::WhiteText)
    }
}

/// A length in points (`1pt`, `0.5mm`, `0.02in`...); `None` for percentages
/// and anything unreadable.
fn points(value: &str) -> Option<f32> {
    let value = value.trim();
    let split = value.find(|c: char| c.is_ascii_alphabetic() || c == '%')?;
    let (number, unit) = value.split_at(split);
    let number: f32 = number.trim().parse().ok()?;
    let factor = match unit {
        "pt" => 1.0,
        "pc" => 12.0,
        "in" => 72.0,
        "cm" => 72.0 / 2.54,
        "mm" => 72.0 / 25.4,
        "px" => 0.75,
        _ => return None,
    };
    Some(number * factor)
}

#[derive(Debug, Clone, Default)]
struct Style {
    parent: Option<String>,
    props: Props,
    background: Option<String>,
    break_before: bool,
}

/// Named styles by `(family, name)`, and the paragraph default style.
#[derive(Debug, Default)]
struct Styles {
    styles: HashMap<(String, String), Style>,
    default: Props,
    any_break_before: bool,
}

impl Styles {
    fn parse<R: BufRead>(&mut self, reader: &mut Reader<R>) {
        let mut current: Option<((String, String), Style)> = None;
        let mut in_default = false;
        let mut buf = Vec::new();
        loop {
            buf.clear();
            let event = match reader.read_event_into(&mut buf) {
                Ok(Event::Eof) | Err(_) => break,
                Ok(event) => event,
            };
            match &event {
                Event::Start(e) | Event::Empty(e) => match local(e) {
                    // The body holds no style definitions.
                    "body" => break,
                    "style" => {
                        let key = (attr(e, "family").unwrap_or_default(), attr(e, "name").unwrap_or_default());
                        let style = Style { parent: attr(e, "parent-style-name"), ..Style::default() };
                        if matches!(event, Event::Empty(_)) {
                            self.styles.insert(key, style);
                        } else {
                            current = Some((key, style));
                        }
                    }
                    "default-style" => {
                        in_default =
                            matches!(event, Event::Start(_)) && attr(e, "family").as_deref() == Some("paragraph");
                    }
                    "text-properties" => {
                        if let Some((_, style)) = current.as_mut() {
                            style.props.apply_text(e);
                        } else if in_default {
                            self.default.apply_text(e);
                        }
                    }
                    "paragraph-properties" => {
                        if let Some((_, style)) = current.as_mut() {
                            if attr(e, "break-before").as_deref() == Some("page") {
                                style.break_before = true;
                                self.any_break_before = true;
                            }
                            if let Some(background) = attr(e, "background-color") {
                                style.background = Some(background.to_ascii_lowercase()).filter(|b| b != "transparent");
                            }
                        }
                    }
                    _ => {}
                },
                Event::End(e) => match local_end(e.name().0) {
                    "style" => {
                        if let Some((key, style)) = current.take() {
                            self.styles.insert(key, style);
                        }
                    }
                    "default-style" => in_default = false,
                    _ => {}
                },
                _ => {}
            }
        }
    }

    /// The styles of a chain, the named one first.
    fn chain(&self, family: &str, name: &str) -> Vec<&Style> {
        let mut chain = Vec::new();
        let mut next = Some(name.to_owned());
        while let Some(name) = next.take() {
            if chain.len() >= MAX_STYLE_DEPTH {
                break;
            }
            let Some(style) = self.styles.get(&(family.to_owned(), name)) else { break };
            chain.push(style);
            next.clone_from(&style.parent);
        }
        chain
    }

    fn props(&self, family: &str, name: &str) -> Props {
        let mut props = Props::default();
        for style in self.chain(family, name).iter().rev() {
            props.overlay(&style.props);
        }
        props
    }
}

/// What a walk writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// The body of `content.xml`, notes left out.
    Body,
    /// Only the notes of `content.xml`.
    Notes,
    /// The headers and footers of the master pages in `styles.xml`.
    Master,
}

/// Elements whose content is not document text.
const SKIPPED: &[&str] = &[
    "tracked-changes",
    "note-citation",
    "annotation-end",
    "sequence-decls",
    "variable-decls",
    "user-field-decls",
    "dde-connection-decls",
    "forms",
    "desc",
    "title",
    "deletion",
    "automatic-styles",
    "font-face-decls",
    "scripts",
];

/// One pass over `content.xml` (the body without notes, or only the notes'
/// bodies) or over `styles.xml` (the master pages' headers and footers).
fn walk_pass(writer: &mut Writer, styles: &Styles, name: &str, text: &mut PartText<'_>, pass: Pass) -> Result<()> {
    let member = if pass == Pass::Master { "styles.xml" } else { "content.xml" };
    let mut walk = Walk {
        writer,
        styles,
        pass,
        master: None,
        paragraphs: Vec::new(),
        spans: Vec::new(),
        blocks: Blocks::default(),
        note: None,
        note_part: Part::Footnote,
        note_depth: 0,
        in_body: false,
    };
    xml_walker::walk(&mut stream_reader(text), PartName { name, format: Format::Odt, member }, &mut walk)?;
    walk.writer.builder.paragraph_break();
    Ok(())
}

/// The state of one pass.
struct Walk<'w, 's> {
    writer: &'w mut Writer,
    styles: &'s Styles,
    pass: Pass,
    /// Inside a master page's header or footer.
    master: Option<Part>,
    paragraphs: Vec<Paragraph<Props>>,
    spans: Vec<Props>,
    blocks: Blocks,
    /// Inside a note's body, and which kind of note.
    note: Option<Part>,
    note_part: Part,
    note_depth: usize,
    in_body: bool,
}

impl Walk<'_, '_> {
    /// Whether this pass writes at the current position: the body outside
    /// notes, or the notes, or the master pages' headers and footers.
    fn active(&self) -> bool {
        match self.pass {
            Pass::Master => self.master.is_some() && self.note.is_none(),
            Pass::Body | Pass::Notes => self.in_body && ((self.pass == Pass::Notes) == self.note.is_some()),
        }
    }

    fn emit(&mut self, text: &str, part: Part) {
        // XML whitespace in ODF text collapses to one space.
        let mut collapsed = String::with_capacity(text.len());
        let mut last_space = false;
        for c in text.chars() {
            if matches!(c, ' ' | '\t' | '\n' | '\r') {
                if !last_space {
                    collapsed.push(' ');
                }
                last_space = true;
            } else {
                collapsed.push(c);
                last_space = false;
            }
        }
        if collapsed.is_empty() {
            return;
        }
        let Some(paragraph) = self.paragraphs.last_mut() else { return };
        let number = self.writer.number(Some(&mut paragraph.number));
        let props = layered(&paragraph.props, &self.spans);
        let trick = props.trick(paragraph.background.as_deref());
        self.writer.write(&collapsed, trick, number, part, None);
    }
}

impl Visit for Walk<'_, '_> {
    fn writer(&mut self) -> &mut Writer {
        self.writer
    }

    fn start(&mut self, e: &BytesStart<'_>, tag: &str, empty: bool) -> Step {
        if !empty && self.note.is_some() {
            self.note_depth += 1;
        }
        let active = self.active();
        let notes = self.pass == Pass::Notes;
        if SKIPPED.contains(&tag) {
            return Step::Skip;
        }
        let writer = &mut *self.writer;
        match tag {
            // An annotation's author and date.
            "creator" | "date" if self.note == Some(Part::Comment) => return Step::Skip,
            "body" => self.in_body = !empty,
            "header" | "header-left" | "header-first" if !empty && self.pass == Pass::Master => {
                self.master = Some(Part::Header);
            }
            "footer" | "footer-left" | "footer-first" if !empty && self.pass == Pass::Master => {
                self.master = Some(Part::Footer);
            }
            "note" => {
                self.note_part =
                    if attr(e, "note-class").as_deref() == Some("endnote") { Part::Endnote } else { Part::Footnote };
            }
            "note-body" | "annotation" if !empty => {
                self.note = Some(if tag == "annotation" { Part::Comment } else { self.note_part });
                self.note_depth = 1;
                if notes {
                    writer.builder.paragraph_break();
                }
            }
            "h" | "p" if !empty => {
                self.blocks.paragraph_start(writer, active);
                let style = attr(e, "style-name");
                let mut props = self.styles.default.clone();
                let mut background = None;
                let mut break_before = false;
                if let Some(style) = style.as_deref() {
                    props.overlay(&self.styles.props("paragraph", style));
                    let chain = self.styles.chain("paragraph", style);
                    background = chain.iter().find_map(|s| s.background.clone());
                    break_before = chain.iter().any(|s| s.break_before);
                }
                if break_before && active && !notes {
                    writer.pages.explicit();
                }
                self.paragraphs.push(Paragraph::new(props, background));
            }
            "span" if !empty => {
                let props = attr(e, "style-name").map(|s| self.styles.props("text", &s)).unwrap_or_default();
                self.spans.push(props);
            }
            "s" | "tab" if active => writer.builder.space(),
            "line-break" if active => writer.builder.line_break(),
            "soft-page-break" if active && !notes => writer.pages.rendered(),
            "table" if !empty => self.blocks.table_start(writer, active),
            "table-cell" | "covered-table-cell" if !empty => self.blocks.cell_start(),
            "text-box" if !empty => self.blocks.box_start(writer, active),
            _ => {}
        }
        Step::Enter
    }

    fn end(&mut self, tag: &str) {
        if self.note.is_some() {
            self.note_depth = self.note_depth.saturating_sub(1);
            if self.note_depth == 0 {
                self.note = None;
                if self.pass == Pass::Notes {
                    self.writer.builder.paragraph_break();
                }
                return;
            }
        }
        let active = self.active();
        let writer = &mut *self.writer;
        match tag {
            "body" => self.in_body = false,
            "header" | "header-left" | "header-first" | "footer" | "footer-left" | "footer-first"
                if self.master.is_some() =>
            {
                self.master = None;
                writer.builder.paragraph_break();
            }
            "h" | "p" => {
                self.paragraphs.pop();
                self.blocks.paragraph_end(writer, active);
            }
            "span" => {
                self.spans.pop();
            }
            "table" => self.blocks.table_end(writer, active),
            "table-row" => self.blocks.row_end(writer, active),
            "table-cell" | "covered-table-cell" => self.blocks.cell_end(writer, active),
            "text-box" => self.blocks.box_end(writer, active),
            _ => {}
        }
    }

    fn text(&mut self, text: &str) {
        if self.active() && !self.paragraphs.is_empty() {
            let part = self.note.or(self.master).unwrap_or_else(|| self.blocks.part(Part::Body));
            self.emit(text, part);
        }
    }

    fn skipped(&mut self) {
        // The skipped element's start was counted in the note.
        if self.note.is_some() {
            self.note_depth = self.note_depth.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::tests::zip_of;

    fn odt(body: &str, styles: &str) -> Result<Extracted> {
        let content = format!(
            r#"<office:document-content xmlns:office="o" xmlns:text="t" xmlns:style="s" xmlns:fo="f"><office:automatic-styles>{styles}</office:automatic-styles><office:body><office:text>{body}</office:text></office:body></office:document-content>"#
        );
        let bytes =
            zip_of(&[("mimetype", b"application/vnd.oasis.opendocument.text"), ("content.xml", content.as_bytes())]);
        OdtExtractor.extract("t.odt", &bytes, &ExtractConfig::default())
    }

    #[test]
    fn paragraphs_spaces_notes_and_tricks() {
        let styles = r##"<style:style style:name="H" style:family="text"><style:text-properties text:display="none"/></style:style>
            <style:style style:name="W" style:family="text"><style:text-properties fo:color="#FFFFFF"/></style:style>
            <style:style style:name="Tiny" style:family="paragraph"><style:text-properties fo:font-size="0.5mm"/></style:style>
            <style:style style:name="PB" style:family="paragraph"><style:paragraph-properties fo:break-before="page"/></style:style>"##;
        let body = r#"<text:h>Title</text:h><text:p>one<text:s text:c="3"/>two<text:tab/>three<text:line-break/>four<text:note text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>The note.</text:p></text:note-body></text:note></text:p>
            <text:p>a <office:annotation><dc:creator>Me</dc:creator><text:p>A remark.</text:p></office:annotation><text:span text:style-name="H">hidden</text:span><text:span text:style-name="W">white</text:span>b</text:p>
            <text:p text:style-name="Tiny">tiny words</text:p>
            <text:p text:style-name="PB">next
              page</text:p>"#;
        let doc = odt(body, styles).unwrap();
        assert_eq!(doc.text, "Title\n\none two three\nfour\n\na b\n\nnext page\n\nThe note.\n\nA remark.");
        let at = |s: &str| doc.origin_at(doc.text.find(s).unwrap()).unwrap().place;
        assert_eq!((at("next").paragraph, at("next").page), (Some(5), Some(2)));
        assert_eq!((at("four").page, at("note").part, at("note").paragraph), (Some(1), Part::Footnote, Some(6)));
        assert_eq!((at("remark").part, at("remark").paragraph), (Part::Comment, Some(7)));
        let tricks: Vec<(Trick, usize)> = doc.bypasses().map(|(t, n, _)| (t, n)).collect();
        assert_eq!(tricks, [(Trick::WhiteText, 5), (Trick::TinyText, 9), (Trick::HiddenText, 6)]);
        assert_eq!(points("80%"), None);
        assert!((points("1in").unwrap() - 72.0).abs() < 0.01);
    }

    #[test]
    fn encrypted_and_damaged() {
        let bytes = zip_of(&[
            ("mimetype", b"application/vnd.oasis.opendocument.text"),
            ("META-INF/manifest.xml", b"<manifest:encryption-data/>"),
            ("content.xml", b"\x01\x02"),
        ]);
        assert!(
            matches!(OdtExtractor.extract("e.odt", &bytes, &ExtractConfig::default()), Err(Error::Encrypted { name }) if name == "e.odt")
        );
        let bytes = zip_of(&[("mimetype", b"application/vnd.oasis.opendocument.text")]);
        assert!(
            matches!(OdtExtractor.extract("m.odt", &bytes, &ExtractConfig::default()), Err(Error::Malformed { name, .. }) if name == "m.odt")
        );
    }
}
