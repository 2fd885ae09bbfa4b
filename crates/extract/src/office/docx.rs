//! DOCX (Word 2007+, Office Open XML): a streaming walk over
//! `word/document.xml`, then footnotes, endnotes, headers, footers and
//! comments, with run properties resolved through `word/styles.xml` to find
//! hidden, white and tiny text.

use std::collections::HashMap;
use std::io::BufRead;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use super::xml_walker::{self, Blocks, Paragraph, PartName, RunProperties, Step, Visit, Writer, layered};
use super::{
    MAX_STYLE_DEPTH, attr, local, local_end, on_off, ooxml_metadata, part_relationships, resolve, stream_reader,
};
use crate::container::{PartText, ZipPackage};
use crate::extract::Extract;
use crate::{Error, ExtractConfig, Extracted, Format, Part, Result, Trick};

/// Extracts Word 2007+ documents (`.docx`, also `.docm`, `.dotx`).
///
/// - Body paragraphs in document order: runs, tabs and breaks; table cells
///   separated by a space and rows by a line break ([`Part::Table`]); text
///   boxes ([`Part::TextBox`]); deleted revisions and field codes left out.
/// - Then footnotes ([`Part::Footnote`]) and endnotes ([`Part::Endnote`]),
///   then headers ([`Part::Header`]), footers ([`Part::Footer`]) and
///   comments ([`Part::Comment`]), each part once.
/// - Every origin carries its paragraph, counted through the document (only
///   paragraphs with text count), and its page when the document marks page
///   breaks (`w:br w:type="page"`, `w:pageBreakBefore`,
///   `w:lastRenderedPageBreak`).
/// - Hidden text is left out and reported: `w:vanish`
///   ([`Trick::HiddenText`]), a colour equal to the run's or paragraph's
///   shading, or white where there is none ([`Trick::WhiteText`]), a size
///   of 2 pt or less ([`Trick::TinyText`]); run properties are resolved
///   through `w:rPrDefault`, the paragraph style and the character style
///   (with their `basedOn` chains) and the direct formatting.
/// - Title and metadata from `docProps/core.xml` and `docProps/app.xml`.
#[derive(Debug, Clone, Copy, Default)]
pub struct DocxExtractor;

impl Extract for DocxExtractor {
    fn format(&self) -> Format {
        Format::Docx
    }

    /// DOCX is recognised by its ZIP members, not sniffed.
    fn sniff(&self, _name: &str, _head: &[u8]) -> bool {
        false
    }

    fn extract(&self, name: &str, bytes: &[u8], config: &ExtractConfig) -> Result<Extracted> {
        let mut package = ZipPackage::open(name, Format::Docx, bytes, config)?;
        let main = main_part(&mut package)?;
        // The main part is streamed twice, never held whole: once to learn
        // whether it marks pages (which decides every origin's page), once
        // to walk it.
        let marks_pages = package.stream(&main, PAGE_MARKS, |text| {
            text.drain();
            Ok(PAGE_MARKS.iter().any(|mark| text.found(mark)))
        })?;
        let Some(marks_pages) = marks_pages else {
            return Err(Error::Malformed { name: name.into(), format: "docx", reason: format!("no {main}") });
        };
        let rels = part_relationships(&mut package, &main)?;
        let target = |suffix: &str| -> Vec<String> {
            let mut found: Vec<String> = rels
                .values()
                .filter(|(kind, _)| kind.ends_with(suffix))
                .map(|(_, target)| resolve(&main, target))
                .collect();
            found.sort();
            found.dedup();
            found
        };
        let styles_part = target("/styles").first().cloned().unwrap_or_else(|| "word/styles.xml".to_owned());
        let styles =
            package.stream(&styles_part, &[], |text| Ok(Styles::parse(&mut stream_reader(text))))?.unwrap_or_default();
        let mut writer = Writer::with_limit(marks_pages, config.text_limit());
        package.stream(&main, &[], |text| walk_part(&mut writer, &styles, name, &main, text, Part::Body))?;
        for (suffix, part) in [
            ("/footnotes", Part::Footnote),
            ("/endnotes", Part::Endnote),
            ("/header", Part::Header),
            ("/footer", Part::Footer),
            ("/comments", Part::Comment),
        ] {
            for member in target(suffix) {
                package.stream(&member, &[], |text| walk_part(&mut writer, &styles, name, &member, text, part))?;
            }
        }
        let (title, metadata) = ooxml_metadata(&mut package)?;
        let mut doc = writer.builder.finish(name, Format::Docx)?;
        doc.title = title;
        doc.metadata = metadata;
        Ok(doc)
    }
}

/// What in the main part says that the document marks page breaks.
const PAGE_MARKS: &[&str] = &["w:type=\"page\"", "lastRenderedPageBreak", "pageBreakBefore"];

/// The main document part, from the package relationships
/// (`word/document.xml` when they do not say).
fn main_part(package: &mut ZipPackage<'_>) -> Result<String> {
    let rels = part_relationships(package, "")?;
    let from_rels = rels
        .values()
        .find(|(kind, _)| kind.ends_with("/officeDocument"))
        .map(|(_, target)| resolve("", target))
        .filter(|part| package.has(part));
    Ok(from_rels.unwrap_or_else(|| "word/document.xml".to_owned()))
}

/// The run properties that decide whether text is visible. `None` means
/// "not set here" (inherited); colours and fills are upper-case hex or
/// `AUTO`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct RunProps {
    vanish: Option<bool>,
    color: Option<String>,
    /// Half-points.
    size: Option<u32>,
    fill: Option<String>,
}

impl RunProps {
    /// Reads one property element of a `w:rPr`.
    fn apply(&mut self, e: &BytesStart<'_>) {
        match local(e) {
            "vanish" => self.vanish = Some(on_off(e)),
            "color" => {
                let theme = attr(e, "themeColor");
                self.color = match theme.as_deref() {
                    Some("background1" | "light1") => Some("FFFFFF".into()),
                    _ => attr(e, "val").map(|v| v.to_ascii_uppercase()),
                };
            }
            "sz" => self.size = attr(e, "val").and_then(|v| v.trim().parse().ok()),
            "shd" => {
                if let Some(fill) = attr(e, "fill") {
                    self.fill = Some(fill.to_ascii_uppercase());
                }
            }
            "highlight" => {
                self.fill = match attr(e, "val").as_deref() {
                    Some("white") => Some("FFFFFF".into()),
                    Some("black") => Some("000000".into()),
                    Some("none") | None => None,
                    Some(other) => Some(other.to_ascii_uppercase()),
                };
            }
            _ => {}
        }
    }
}

impl RunProperties for RunProps {
    fn overlay(&mut self, top: &RunProps) {
        if top.vanish.is_some() {
            self.vanish = top.vanish;
        }
        if top.color.is_some() {
            self.color.clone_from(&top.color);
        }
        if top.size.is_some() {
            self.size = top.size;
        }
        if top.fill.is_some() {
            self.fill.clone_from(&top.fill);
        }
    }

    fn trick(&self, paragraph_fill: Option<&str>) -> Option<Trick> {
        if self.vanish == Some(true) {
            return Some(Trick::HiddenText);
        }
        if self.size.is_some_and(|half_points| half_points <= 4) {
            return Some(Trick::TinyText);
        }
        let color = self.color.as_deref().filter(|c| *c != "AUTO")?;
        let background = self.fill.as_deref().filter(|f| *f != "AUTO").or(paragraph_fill).unwrap_or("FFFFFF");
        (color == background).then_some(Trick::WhiteText)
    }
}

#[derive(Debug, Clone, Default)]
struct Style {
    based_on: Option<String>,
    props: RunProps,
}

/// `word/styles.xml`: document defaults and the run properties of each
/// style.
#[derive(Debug, Default)]
struct Styles {
    defaults: RunProps,
    styles: HashMap<String, Style>,
    default_paragraph: Option<String>,
}

impl Styles {
    fn parse<R: BufRead>(reader: &mut Reader<R>) -> Self {
        let mut styles = Styles::default();
        let mut in_defaults = false;
        let mut in_rpr = false;
        let mut skip = 0usize;
        let mut current: Option<(String, Style)> = None;
        let mut buf = Vec::new();
        loop {
            buf.clear();
            let event = match reader.read_event_into(&mut buf) {
                Ok(Event::Eof) | Err(_) => break,
                Ok(event) => event,
            };
            match &event {
                Event::Start(e) if skip > 0 => {
                    let _ = e;
                    skip += 1;
                }
                Event::End(_) if skip > 0 => skip -= 1,
                Event::Start(e) | Event::Empty(e) if skip == 0 => {
                    let empty = matches!(event, Event::Empty(_));
                    match local(e) {
                        "tblStylePr" | "pPr" if !empty => skip = 1,
                        "rPrDefault" => in_defaults = !empty,
                        "style" if !empty => {
                            let id = attr(e, "styleId").unwrap_or_default();
                            if attr(e, "type").as_deref() == Some("paragraph")
                                && attr(e, "default").is_some_and(|d| d == "1" || d == "true")
                            {
                                styles.default_paragraph = Some(id.clone());
                            }
                            current = Some((id, Style::default()));
                        }
                        "basedOn" => {
                            if let Some((_, style)) = current.as_mut() {
                                style.based_on = attr(e, "val");
                            }
                        }
                        "rPr" => in_rpr = !empty,
                        _ if in_rpr => {
                            if let Some((_, style)) = current.as_mut() {
                                style.props.apply(e);
                            } else if in_defaults {
                                styles.defaults.apply(e);
                            }
                        }
                        _ => {}
                    }
                }
                Event::End(e) if skip == 0 => match local_end(e.name().0) {
                    "rPr" => in_rpr = false,
                    "rPrDefault" => in_defaults = false,
                    "style" => {
                        if let Some((id, style)) = current.take() {
                            styles.styles.entry(id).or_insert(style);
                        }
                    }
                    _ => {}
                },
                _ => {}
            }
        }
        styles
    }

    /// The properties a style sets, its `basedOn` chain included (not the
    /// document defaults).
    fn chain(&self, id: &str) -> RunProps {
        let mut chain = Vec::new();
        let mut next = Some(id);
        while let Some(id) = next {
            if chain.len() >= MAX_STYLE_DEPTH {
                break;
            }
            let Some(style) = self.styles.get(id) else { break };
            chain.push(&style.props);
            next = style.based_on.as_deref();
        }
        let mut props = RunProps::default();
        for layer in chain.iter().rev() {
            props.overlay(layer);
        }
        props
    }

    /// Defaults plus a paragraph style (the default paragraph style when
    /// none is named).
    fn paragraph(&self, id: Option<&str>) -> RunProps {
        let mut props = self.defaults.clone();
        if let Some(id) = id.or(self.default_paragraph.as_deref()) {
            props.overlay(&self.chain(id));
        }
        props
    }
}

/// Elements whose content is never shown text: field codes, deleted
/// revisions, the fallback copy of alternate content, property-change
/// records, note separators.
const SKIPPED: &[&str] = &[
    "instrText",
    "delText",
    "delInstrText",
    "del",
    "moveFrom",
    "Fallback",
    "rPrChange",
    "pPrChange",
    "sectPrChange",
    "tblPrChange",
    "trPrChange",
    "tcPrChange",
    "numberingChange",
    "tabs",
];

/// Walks one part (`word/document.xml`, a footnotes, header... part) into
/// `writer`.
fn walk_part(
    writer: &mut Writer,
    styles: &Styles,
    name: &str,
    member: &str,
    text: &mut PartText<'_>,
    part: Part,
) -> Result<()> {
    let mut walk = Walk {
        writer,
        styles,
        part,
        paragraphs: Vec::new(),
        run: RunProps::default(),
        run_style: None,
        in_run: false,
        in_ppr: false,
        in_rpr: false,
        in_text: false,
        blocks: Blocks::default(),
        outer_runs: Vec::new(),
    };
    xml_walker::walk(&mut stream_reader(text), PartName { name, format: Format::Docx, member }, &mut walk)?;
    walk.writer.builder.paragraph_break();
    Ok(())
}

/// The state of one part's walk.
struct Walk<'w, 's> {
    writer: &'w mut Writer,
    styles: &'s Styles,
    part: Part,
    paragraphs: Vec<Paragraph<RunProps>>,
    run: RunProps,
    run_style: Option<String>,
    in_run: bool,
    in_ppr: bool,
    in_rpr: bool,
    in_text: bool,
    blocks: Blocks,
    /// The enclosing run's state while a text box inside it is read.
    outer_runs: Vec<(RunProps, Option<String>, bool)>,
}

impl Visit for Walk<'_, '_> {
    fn writer(&mut self) -> &mut Writer {
        self.writer
    }

    fn start(&mut self, e: &BytesStart<'_>, tag: &str, empty: bool) -> Step {
        if SKIPPED.contains(&tag) {
            return Step::Skip;
        }
        let writer = &mut *self.writer;
        match tag {
            "footnote" | "endnote"
                if attr(e, "type").is_some_and(|t| t.contains("eparator") || t == "continuationNotice") =>
            {
                return Step::Skip;
            }
            "p" => {
                self.blocks.paragraph_start(writer, true);
                if !empty {
                    self.paragraphs.push(Paragraph::new(self.styles.paragraph(None), None));
                }
            }
            "pPr" => self.in_ppr = !empty,
            "rPr" => self.in_rpr = !empty,
            "r" => {
                self.in_run = !empty;
                self.run = RunProps::default();
                self.run_style = None;
            }
            "t" => self.in_text = !empty,
            "pStyle" if self.in_ppr && !self.in_rpr => {
                if let Some(paragraph) = self.paragraphs.last_mut() {
                    paragraph.props = self.styles.paragraph(attr(e, "val").as_deref());
                }
            }
            "shd" if self.in_ppr && !self.in_rpr => {
                if let Some(paragraph) = self.paragraphs.last_mut() {
                    paragraph.background = attr(e, "fill").map(|f| f.to_ascii_uppercase()).filter(|f| f != "AUTO");
                }
            }
            "pageBreakBefore" if self.in_ppr && on_off(e) => writer.pages.explicit(),
            "rStyle" if self.in_run && self.in_rpr => self.run_style = attr(e, "val"),
            _ if self.in_run && self.in_rpr => self.run.apply(e),
            "tab" | "ptab" if self.in_run => writer.builder.space(),
            "br" | "cr" if self.in_run => {
                if attr(e, "type").as_deref() == Some("page") {
                    writer.pages.explicit();
                }
                writer.builder.line_break();
            }
            "lastRenderedPageBreak" => writer.pages.rendered(),
            "noBreakHyphen" if self.in_run => self.emit("-"),
            "tbl" if !empty => self.blocks.table_start(writer, true),
            "tc" if !empty => self.blocks.cell_start(),
            "txbxContent" if !empty => {
                self.outer_runs.push((std::mem::take(&mut self.run), self.run_style.take(), self.in_run));
                self.in_run = false;
                self.blocks.box_start(writer, true);
            }
            _ => {}
        }
        Step::Enter
    }

    fn end(&mut self, tag: &str) {
        let writer = &mut *self.writer;
        match tag {
            "p" => {
                self.paragraphs.pop();
                self.blocks.paragraph_end(writer, true);
            }
            "pPr" => self.in_ppr = false,
            "rPr" => self.in_rpr = false,
            "r" => self.in_run = false,
            "t" => self.in_text = false,
            "tbl" => self.blocks.table_end(writer, true),
            "tr" => self.blocks.row_end(writer, true),
            "tc" => self.blocks.cell_end(writer, true),
            "txbxContent" => {
                if let Some((outer, style, was_in_run)) = self.outer_runs.pop() {
                    (self.run, self.run_style, self.in_run) = (outer, style, was_in_run);
                }
                self.blocks.box_end(writer, true);
            }
            _ => {}
        }
    }

    fn text(&mut self, text: &str) {
        if self.in_text {
            self.emit(text);
        }
    }
}

impl Walk<'_, '_> {
    /// Writes `text` of the current run with its resolved properties:
    /// paragraph (defaults and paragraph style), character style, direct
    /// formatting.
    fn emit(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        let (base, fill) = match self.paragraphs.last() {
            Some(p) => (p.props.clone(), p.background.clone()),
            None => (self.styles.paragraph(None), None),
        };
        let style = self.run_style.as_deref().map(|id| self.styles.chain(id));
        let props = layered(&base, style.iter().chain([&self.run]));
        let number = self.writer.number(self.paragraphs.last_mut().map(|p| &mut p.number));
        let part = self.blocks.part(self.part);
        self.writer.write(text, props.trick(fill.as_deref()), number, part, None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::tests::zip_of;

    const W: &str = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main""#;

    fn docx(body: &str, styles: &str) -> Result<Extracted> {
        let document = format!(r#"<w:document {W}><w:body>{body}</w:body></w:document>"#);
        let styles = format!(r#"<w:styles {W}>{styles}</w:styles>"#);
        let bytes = zip_of(&[
            ("[Content_Types].xml", b"<Types/>"),
            ("word/document.xml", document.as_bytes()),
            ("word/styles.xml", styles.as_bytes()),
        ]);
        DocxExtractor.extract("t.docx", &bytes, &ExtractConfig::default())
    }

    #[test]
    fn runs_tabs_breaks_and_tables() {
        let doc = docx(
            "<w:p><w:r><w:t xml:space='preserve'>One </w:t></w:r><w:r><w:t>t&amp;wo</w:t><w:tab/><w:t>three</w:t><w:br/><w:t>four</w:t></w:r></w:p>\
             <w:tbl><w:tr><w:tc><w:p><w:r><w:t>a</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>b</w:t></w:r></w:p></w:tc></w:tr>\
             <w:tr><w:tc><w:p><w:r><w:t>c</w:t></w:r></w:p></w:tc></w:tr></w:tbl>\
             <w:p><w:r><w:instrText>PAGE</w:instrText><w:delText>gone</w:delText><w:t>end</w:t></w:r></w:p>",
            "",
        )
        .unwrap();
        assert_eq!(doc.text, "One t&wo three\nfour\n\na b\nc\n\nend");
        let at = |s: &str| doc.origin_at(doc.text.find(s).unwrap()).unwrap().place;
        assert_eq!(at("four").paragraph, Some(1));
        assert_eq!((at("b").paragraph, at("b").part), (Some(3), Part::Table));
        assert_eq!((at("end").paragraph, at("end").part, at("end").page), (Some(5), Part::Body, None));
    }

    #[test]
    fn style_level_and_direct_tricks() {
        let styles = r#"<w:docDefaults><w:rPrDefault><w:rPr><w:sz w:val="24"/></w:rPr></w:rPrDefault></w:docDefaults>
            <w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:rPr><w:color w:val="000000"/></w:rPr></w:style>
            <w:style w:type="paragraph" w:styleId="Base"><w:rPr><w:color w:val="ffffff"/></w:rPr></w:style>
            <w:style w:type="paragraph" w:styleId="Ghost"><w:basedOn w:val="Base"/></w:style>
            <w:style w:type="character" w:styleId="Small"><w:rPr><w:sz w:val="3"/></w:rPr></w:style>
            <w:style w:type="paragraph" w:styleId="Loop"><w:basedOn w:val="Loop"/></w:style>"#;
        let doc = docx(
            r#"<w:p><w:r><w:t>seen</w:t></w:r><w:r><w:rPr><w:vanish/></w:rPr><w:t>hid</w:t></w:r><w:r><w:rPr><w:vanish w:val="0"/></w:rPr><w:t>den</w:t></w:r></w:p>
               <w:p><w:pPr><w:pStyle w:val="Ghost"/></w:pPr><w:r><w:t>white</w:t></w:r><w:r><w:rPr><w:color w:val="FF0000"/></w:rPr><w:t>red</w:t></w:r></w:p>
               <w:p><w:r><w:rPr><w:rStyle w:val="Small"/></w:rPr><w:t>tiny</w:t></w:r><w:r><w:t>big</w:t></w:r></w:p>
               <w:p><w:pPr><w:shd w:fill="000000"/></w:pPr><w:r><w:rPr><w:color w:val="FFFFFF"/></w:rPr><w:t>onblack</w:t></w:r><w:r><w:rPr><w:color w:val="000000"/></w:rPr><w:t>blackonblack</w:t></w:r></w:p>
               <w:p><w:pPr><w:pStyle w:val="Loop"/></w:pPr><w:r><w:t>loop</w:t></w:r></w:p>"#,
            styles,
        )
        .unwrap();
        assert_eq!(doc.text, "seen den\n\nred\n\nbig\n\nonblack\n\nloop");
        let tricks: Vec<(Trick, usize)> = doc.bypasses().map(|(t, n, _)| (t, n)).collect();
        assert_eq!(tricks, [(Trick::WhiteText, 17), (Trick::TinyText, 4), (Trick::HiddenText, 3)]);
    }

    #[test]
    fn text_boxes_keep_the_outer_run_and_rendered_breaks_give_pages() {
        let doc = docx(
            r#"<w:p><w:r><w:rPr><w:vanish/></w:rPr><w:t>gone</w:t><w:drawing><wps:txbx><w:txbxContent><w:p><w:r><w:t>boxed</w:t></w:r></w:p></w:txbxContent></wps:txbx></w:drawing><w:t>also</w:t></w:r></w:p>
               <w:p><w:r><w:t>one</w:t></w:r><w:r><w:br w:type="page"/></w:r><w:r><w:lastRenderedPageBreak/><w:t>two</w:t></w:r></w:p>
               <w:p><w:r><w:lastRenderedPageBreak/><w:t>three</w:t></w:r></w:p>"#,
            "",
        )
        .unwrap();
        assert_eq!(doc.text, "boxed\n\none\ntwo\n\nthree");
        let at = |s: &str| doc.origin_at(doc.text.find(s).unwrap()).unwrap().place;
        assert_eq!(at("boxed").part, Part::TextBox);
        assert_eq!((at("one").page, at("two").page, at("three").page), (Some(1), Some(2), Some(3)));
        let tricks: Vec<(Trick, usize)> = doc.bypasses().map(|(t, n, _)| (t, n)).collect();
        assert_eq!(tricks, [(Trick::HiddenText, 8)]);
    }

    #[test]
    fn parts_follow_the_body_in_order() {
        let document =
            format!(r#"<w:document {W}><w:body><w:p><w:r><w:t>Body</w:t></w:r></w:p></w:body></w:document>"#);
        let rels = r#"<Relationships><Relationship Id="c" Type="x/comments" Target="comments.xml"/><Relationship Id="h" Type="x/header" Target="/word/header1.xml"/><Relationship Id="e" Type="x/endnotes" Target="endnotes.xml"/></Relationships>"#;
        let bytes = zip_of(&[
            ("_rels/.rels", br#"<Relationships><Relationship Id="d" Type="x/officeDocument" Target="word/document.xml"/></Relationships>"#),
            ("word/document.xml", document.as_bytes()),
            ("word/_rels/document.xml.rels", rels.as_bytes()),
            ("word/comments.xml", br#"<w:comments><w:comment w:id="0"><w:p><w:r><w:t>A remark</w:t></w:r></w:p></w:comment></w:comments>"#),
            ("word/header1.xml", br#"<w:hdr><w:p><w:r><w:t>Running head</w:t></w:r></w:p></w:hdr>"#),
            ("word/endnotes.xml", br#"<w:endnotes><w:endnote w:type="separator" w:id="0"><w:p><w:r><w:separator/></w:r></w:p></w:endnote><w:endnote w:id="1"><w:p><w:r><w:endnoteRef/></w:r><w:r><w:t>End note</w:t></w:r></w:p></w:endnote></w:endnotes>"#),
        ]);
        let doc = DocxExtractor.extract("p.docx", &bytes, &ExtractConfig::default()).unwrap();
        assert_eq!(doc.text, "Body\n\nEnd note\n\nRunning head\n\nA remark");
        let at = |s: &str| doc.origin_at(doc.text.find(s).unwrap()).unwrap().place;
        assert_eq!(
            (at("End").part, at("Running").part, at("remark").part),
            (Part::Endnote, Part::Header, Part::Comment)
        );
        assert_eq!(at("remark").paragraph, Some(4));
    }

    #[test]
    fn damaged_xml_is_a_named_error_or_a_warning() {
        let err = docx("<w:p><w:r><w:t>x</w:t", "").map(|d| d.text);
        assert_eq!(err.unwrap(), "x");
        let err = docx("<w:p><w:r></w:r></w:p>", "").unwrap_err();
        assert!(matches!(err, Error::Empty { name } if name == "t.docx"));
    }
}
