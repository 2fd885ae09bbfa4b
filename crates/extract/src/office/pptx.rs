//! PPTX (PowerPoint 2007+, Office Open XML): slides in presentation order,
//! each slide's shapes with their paragraphs, then its speaker notes.

use std::io::BufRead;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use super::xml_walker::{self, Blocks, PartName, Step, Visit, Writer};
use super::{attr, local, ooxml_metadata, part_relationships, resolve, stream_reader};
use crate::container::{PartText, ZipPackage};
use crate::extract::Extract;
use crate::{Error, ExtractConfig, Extracted, Format, Part, Result, Trick, Warning};

/// Extracts PowerPoint 2007+ presentations (`.pptx`, also `.ppsx`, `.potx`).
///
/// - Slides in presentation order (`p:sldIdLst` through the presentation's
///   relationships); on each, the shapes in document order (the order of
///   the slide's XML, which is the z-order, not the visual order), their
///   paragraphs, line breaks and table cells ([`Part::Table`]); then the
///   slide's speaker notes ([`Part::Notes`]) without the slide image,
///   number, date, header and footer placeholders.
/// - Every origin carries its slide and its paragraph (counted through the
///   presentation, paragraphs with text only).
/// - Hidden text is left out and reported: text of hidden shapes
///   (`hidden="1"`, [`Trick::HiddenText`]) and runs of 2 pt or less
///   ([`Trick::TinyText`]). White text is not judged: slide backgrounds
///   come from themes and masters, and white on a dark slide is ordinary.
/// - Title and metadata from `docProps/core.xml` and `docProps/app.xml`;
///   [`Metadata::pages`](crate::Metadata::pages) is the number of slides.
#[derive(Debug, Clone, Copy, Default)]
pub struct PptxExtractor;

impl Extract for PptxExtractor {
    fn format(&self) -> Format {
        Format::Pptx
    }

    /// PPTX is recognised by its ZIP members, not sniffed.
    fn sniff(&self, _name: &str, _head: &[u8]) -> bool {
        false
    }

    fn extract(&self, name: &str, bytes: &[u8], config: &ExtractConfig) -> Result<Extracted> {
        let mut package = ZipPackage::open(name, Format::Pptx, bytes, config)?;
        let root_rels = part_relationships(&mut package, "")?;
        let main = root_rels
            .values()
            .find(|(kind, _)| kind.ends_with("/officeDocument"))
            .map(|(_, target)| resolve("", target))
            .filter(|part| package.has(part))
            .unwrap_or_else(|| "ppt/presentation.xml".to_owned());
        let Some(ids) = package.stream(&main, &[], |text| Ok(slide_ids(&mut stream_reader(text))))? else {
            return Err(Error::Malformed { name: name.into(), format: "pptx", reason: format!("no {main}") });
        };
        let rels = part_relationships(&mut package, &main)?;
        let mut slides: Vec<String> = ids
            .iter()
            .filter_map(|id| rels.get(id))
            .filter(|(kind, _)| kind.ends_with("/slide"))
            .map(|(_, target)| resolve(&main, target))
            .collect();
        // A slide listed twice is read once (each read counts against the
        // unpack limits).
        let mut seen = std::collections::BTreeSet::new();
        slides.retain(|slide| seen.insert(slide.clone()));
        if slides.is_empty() {
            slides = numbered_slides(&package.names());
        }
        // Slides mark no pages.
        let mut writer = Writer::with_limit(false, config.text_limit());
        let mut missing = 0;
        for (number, slide) in (1u32..).zip(&slides) {
            let walked =
                package.stream(slide, &[], |text| walk_part(&mut writer, name, slide, text, number, Part::Body))?;
            if walked.is_none() {
                missing += 1;
                continue;
            }
            let slide_rels = part_relationships(&mut package, slide)?;
            let notes =
                slide_rels.values().find(|(kind, _)| kind.ends_with("/notesSlide")).map(|(_, t)| resolve(slide, t));
            if let Some(notes) = notes {
                package.stream(&notes, &[], |text| walk_part(&mut writer, name, &notes, text, number, Part::Notes))?;
            }
        }
        if missing > 0 {
            writer.builder.warn(Warning::Skipped { what: "missing slide".into(), count: missing });
        }
        let (title, mut metadata) = ooxml_metadata(&mut package)?;
        metadata.pages = u32::try_from(slides.len()).ok();
        let mut doc = writer.builder.finish(name, Format::Pptx)?;
        doc.title = title;
        doc.metadata = metadata;
        Ok(doc)
    }
}

/// The relationship ids of `p:sldIdLst`, in order.
fn slide_ids<R: BufRead>(reader: &mut Reader<R>) -> Vec<String> {
    let mut ids = Vec::new();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_event_into(&mut buf) {
            Ok(Event::Eof) | Err(_) => break,
            Ok(Event::Start(e) | Event::Empty(e)) if local(&e) == "sldId" => {
                if let Some(id) = relationship_id(&e) {
                    ids.push(id);
                }
            }
            Ok(_) => {}
        }
    }
    ids
}

/// The `r:id` attribute (any prefix, but prefixed: `id` alone is the
/// slide's own number).
fn relationship_id(e: &BytesStart<'_>) -> Option<String> {
    e.attributes().flatten().find_map(|a| {
        let key = a.key.0;
        key.rsplit_once(':').filter(|(_, local)| *local == "id").map(|_| a.value.to_string())
    })
}

/// Slides by member name (`ppt/slides/slide7.xml`), in number order, for
/// packages whose presentation part does not list them.
fn numbered_slides(names: &[String]) -> Vec<String> {
    let mut slides: Vec<(u32, String)> = names
        .iter()
        .filter_map(|n| {
            let number = n.strip_prefix("ppt/slides/slide")?.strip_suffix(".xml")?.parse().ok()?;
            Some((number, n.clone()))
        })
        .collect();
    slides.sort();
    slides.into_iter().map(|(_, n)| n).collect()
}

/// Placeholders of notes pages that are not notes.
const FURNITURE: &[&str] = &["sldImg", "sldNum", "hdr", "ftr", "dt"];

#[derive(Debug, Default, Clone, Copy)]
struct Shape {
    hidden: bool,
    furniture: bool,
}

/// Walks one slide or notes part into `writer`.
fn walk_part(
    writer: &mut Writer,
    name: &str,
    member: &str,
    text: &mut PartText<'_>,
    slide: u32,
    part: Part,
) -> Result<()> {
    let mut walk = Walk {
        writer,
        slide,
        part,
        shapes: Vec::new(),
        blocks: Blocks::default(),
        number: None,
        tiny: false,
        in_text: false,
    };
    xml_walker::walk(&mut stream_reader(text), PartName { name, format: Format::Pptx, member }, &mut walk)?;
    walk.writer.builder.paragraph_break();
    Ok(())
}

/// The state of one part's walk.
struct Walk<'w> {
    writer: &'w mut Writer,
    slide: u32,
    part: Part,
    shapes: Vec<Shape>,
    blocks: Blocks,
    /// The current paragraph's number, given on its first text.
    number: Option<u32>,
    tiny: bool,
    in_text: bool,
}

impl Visit for Walk<'_> {
    fn writer(&mut self) -> &mut Writer {
        self.writer
    }

    fn start(&mut self, e: &BytesStart<'_>, tag: &str, empty: bool) -> Step {
        match tag {
            "Fallback" => return Step::Skip,
            "sp" | "grpSp" | "graphicFrame" | "cxnSp" | "pic" if !empty => {
                let outer = self.shapes.last().copied().unwrap_or_default();
                self.shapes.push(outer);
            }
            "cNvPr" => {
                if attr(e, "hidden").is_some_and(|h| h == "1" || h == "true")
                    && let Some(shape) = self.shapes.last_mut()
                {
                    shape.hidden = true;
                }
            }
            "ph" => {
                if self.part == Part::Notes
                    && attr(e, "type").is_some_and(|t| FURNITURE.contains(&t.as_str()))
                    && let Some(shape) = self.shapes.last_mut()
                {
                    shape.furniture = true;
                }
            }
            "p" if !empty => {
                self.number = None;
                self.blocks.paragraph_start(self.writer, true);
            }
            "r" | "fld" => self.tiny = false,
            "rPr" => {
                self.tiny =
                    attr(e, "sz").and_then(|s| s.parse::<u32>().ok()).is_some_and(|hundredths| hundredths <= 200);
            }
            "t" => self.in_text = !empty,
            "br" => self.writer.builder.line_break(),
            "tc" if !empty => self.blocks.cell_start(),
            _ => {}
        }
        Step::Enter
    }

    fn end(&mut self, tag: &str) {
        match tag {
            "sp" | "grpSp" | "graphicFrame" | "cxnSp" | "pic" => {
                self.shapes.pop();
            }
            "p" => self.blocks.paragraph_end(self.writer, true),
            "t" => self.in_text = false,
            "tr" => self.blocks.row_end(self.writer, true),
            "tc" => self.blocks.cell_end(self.writer, true),
            // Slides' tables are not counted: a cell says it is a table.
            "tbl" => self.writer.builder.paragraph_break(),
            _ => {}
        }
    }

    fn text(&mut self, text: &str) {
        let shape = self.shapes.last().copied().unwrap_or_default();
        if !self.in_text || shape.furniture || text.is_empty() {
            return;
        }
        let paragraph = self.writer.number(Some(&mut self.number));
        let part = if self.part == Part::Body && self.blocks.in_cell() { Part::Table } else { self.part };
        let trick = if shape.hidden {
            Some(Trick::HiddenText)
        } else if self.tiny {
            Some(Trick::TinyText)
        } else {
            None
        };
        self.writer.write(text, trick, paragraph, part, Some(self.slide));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::tests::zip_of;

    fn slide(body: &str) -> String {
        format!(r#"<p:sld xmlns:p="p" xmlns:a="a"><p:cSld><p:spTree>{body}</p:spTree></p:cSld></p:sld>"#)
    }

    #[test]
    fn slides_in_presentation_order_with_notes_and_tricks() {
        let presentation = r#"<p:presentation xmlns:p="p" xmlns:r="r"><p:sldIdLst><p:sldId id="256" r:id="rB"/><p:sldId id="257" r:id="rA"/></p:sldIdLst></p:presentation>"#;
        let rels = r#"<Relationships><Relationship Id="rA" Type="x/slide" Target="slides/slide1.xml"/><Relationship Id="rB" Type="x/slide" Target="slides/slide2.xml"/></Relationships>"#;
        let first = slide(
            r#"<p:sp><p:nvSpPr><p:cNvPr id="2" name="t"/></p:nvSpPr><p:txBody><a:p><a:r><a:t>Second file</a:t></a:r><a:br/><a:r><a:rPr sz="100"/><a:t>tiny</a:t></a:r><a:r><a:t>line</a:t></a:r></a:p></p:txBody></p:sp>
               <p:sp><p:nvSpPr><p:cNvPr id="3" name="h" hidden="1"/></p:nvSpPr><p:txBody><a:p><a:r><a:t>ghost</a:t></a:r></a:p></p:txBody></p:sp>"#,
        );
        let second = slide(
            r#"<p:graphicFrame><a:tbl><a:tr><a:tc><a:txBody><a:p><a:r><a:t>c1</a:t></a:r></a:p></a:txBody></a:tc><a:tc><a:txBody><a:p><a:r><a:t>c2</a:t></a:r></a:p></a:txBody></a:tc></a:tr></a:tbl></p:graphicFrame>"#,
        );
        let notes = slide(
            r#"<p:sp><p:nvSpPr><p:nvPr><p:ph type="sldImg"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>image</a:t></a:r></a:p></p:txBody></p:sp><p:sp><p:txBody><a:p><a:r><a:t>Say this.</a:t></a:r></a:p></p:txBody></p:sp>"#,
        );
        let slide_rels = r#"<Relationships><Relationship Id="n" Type="x/notesSlide" Target="../notesSlides/notesSlide9.xml"/></Relationships>"#;
        let bytes = zip_of(&[
            ("ppt/presentation.xml", presentation.as_bytes()),
            ("ppt/_rels/presentation.xml.rels", rels.as_bytes()),
            ("ppt/slides/slide1.xml", second.as_bytes()),
            ("ppt/slides/slide2.xml", first.as_bytes()),
            ("ppt/slides/_rels/slide2.xml.rels", slide_rels.as_bytes()),
            ("ppt/notesSlides/notesSlide9.xml", notes.as_bytes()),
        ]);
        let doc = PptxExtractor.extract("t.pptx", &bytes, &ExtractConfig::default()).unwrap();
        assert_eq!(doc.text, "Second file\nline\n\nSay this.\n\nc1 c2");
        let at = |s: &str| doc.origin_at(doc.text.find(s).unwrap()).unwrap().place;
        assert_eq!((at("line").slide, at("line").paragraph), (Some(1), Some(1)));
        assert_eq!((at("Say").slide, at("Say").part), (Some(1), Part::Notes));
        assert_eq!((at("c2").slide, at("c2").part), (Some(2), Part::Table));
        assert_eq!(doc.metadata.pages, Some(2));
        let tricks: Vec<(Trick, usize)> = doc.bypasses().map(|(t, n, _)| (t, n)).collect();
        assert_eq!(tricks, [(Trick::TinyText, 4), (Trick::HiddenText, 5)]);
    }

    #[test]
    fn slides_by_name_when_unlisted() {
        let names = ["ppt/slides/slide10.xml", "ppt/slides/slide2.xml", "ppt/slides/_rels/slide2.xml.rels"];
        let names: Vec<String> = names.iter().map(|s| (*s).to_owned()).collect();
        assert_eq!(numbered_slides(&names), ["ppt/slides/slide2.xml", "ppt/slides/slide10.xml"]);
    }
}
