//! PPTX (PowerPoint 2007+, Office Open XML): slides in presentation order,
//! each slide's shapes with their paragraphs, then its speaker notes.

use quick_xml::events::{BytesStart, Event};

use super::{attr, chars, local, local_end, ooxml_metadata, reader, relationships, rels_path, resolve, xml_damage};
use crate::builder::TextBuilder;
use crate::container::ZipPackage;
use crate::extract::Extract;
use crate::{Error, ExtractConfig, Extracted, Format, Part, Place, Result, Trick, Warning};

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
        let mut package = ZipPackage::open(name, Format::Pptx, bytes, &config.unpack)?;
        let root_rels = package.read_string("_rels/.rels")?.map(|xml| relationships(&xml)).unwrap_or_default();
        let main = root_rels
            .values()
            .find(|(kind, _)| kind.ends_with("/officeDocument"))
            .map(|(_, target)| resolve("", target))
            .filter(|part| package.has(part))
            .unwrap_or_else(|| "ppt/presentation.xml".to_owned());
        let Some(presentation) = package.read_string(&main)? else {
            return Err(Error::Malformed { name: name.into(), format: "pptx", reason: format!("no {main}") });
        };
        let rels = package.read_string(&rels_path(&main))?.map(|xml| relationships(&xml)).unwrap_or_default();
        let mut slides: Vec<String> = slide_ids(&presentation)
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
        let mut walker = Walker { builder: TextBuilder::new(), paragraphs: 0 };
        let mut missing = 0;
        for (number, slide) in (1u32..).zip(&slides) {
            let Some(xml) = package.read_string(slide)? else {
                missing += 1;
                continue;
            };
            walker.walk(name, slide, &xml, number, Part::Body)?;
            let slide_rels = package.read_string(&rels_path(slide))?.map(|xml| relationships(&xml)).unwrap_or_default();
            let notes =
                slide_rels.values().find(|(kind, _)| kind.ends_with("/notesSlide")).map(|(_, t)| resolve(slide, t));
            if let Some(notes) = notes
                && let Some(xml) = package.read_string(&notes)?
            {
                walker.walk(name, &notes, &xml, number, Part::Notes)?;
            }
        }
        if missing > 0 {
            walker.builder.warn(Warning::Skipped { what: "missing slide".into(), count: missing });
        }
        let (title, mut metadata) = ooxml_metadata(&mut package)?;
        metadata.pages = u32::try_from(slides.len()).ok();
        let mut doc = walker.builder.finish(name, Format::Pptx)?;
        doc.title = title;
        doc.metadata = metadata;
        Ok(doc)
    }
}

/// The relationship ids of `p:sldIdLst`, in order.
fn slide_ids(presentation: &str) -> Vec<String> {
    let mut ids = Vec::new();
    let mut reader = reader(presentation);
    loop {
        match reader.read_event() {
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

struct Walker {
    builder: TextBuilder,
    paragraphs: u32,
}

impl Walker {
    fn walk(&mut self, name: &str, member: &str, xml: &str, slide: u32, part: Part) -> Result<()> {
        let mut reader = reader(xml);
        let mut shapes: Vec<Shape> = Vec::new();
        let (mut cells, mut skip) = (0u32, 0usize);
        let mut number: Option<u32> = None;
        let mut tiny = false;
        let mut in_text = false;
        loop {
            let event = match reader.read_event() {
                Ok(Event::Eof) => break,
                Ok(event) => event,
                Err(e) => {
                    let warning = xml_damage(name, Format::Pptx, member, &e, !self.builder.text().is_empty())?;
                    self.builder.warn(warning);
                    break;
                }
            };
            if skip > 0 {
                match event {
                    Event::Start(_) => skip += 1,
                    Event::End(_) => skip -= 1,
                    _ => {}
                }
                continue;
            }
            match &event {
                Event::Start(e) | Event::Empty(e) => {
                    let empty = matches!(event, Event::Empty(_));
                    match local(e) {
                        "Fallback" => skip = usize::from(!empty),
                        "sp" | "grpSp" | "graphicFrame" | "cxnSp" | "pic" if !empty => {
                            let outer = shapes.last().copied().unwrap_or_default();
                            shapes.push(outer);
                        }
                        "cNvPr" => {
                            if attr(e, "hidden").is_some_and(|h| h == "1" || h == "true")
                                && let Some(shape) = shapes.last_mut()
                            {
                                shape.hidden = true;
                            }
                        }
                        "ph" => {
                            if part == Part::Notes
                                && attr(e, "type").is_some_and(|t| FURNITURE.contains(&t.as_str()))
                                && let Some(shape) = shapes.last_mut()
                            {
                                shape.furniture = true;
                            }
                        }
                        "p" if !empty => {
                            number = None;
                            if cells == 0 {
                                self.builder.paragraph_break();
                            }
                        }
                        "r" | "fld" => tiny = false,
                        "rPr" => {
                            tiny = attr(e, "sz")
                                .and_then(|s| s.parse::<u32>().ok())
                                .is_some_and(|hundredths| hundredths <= 200);
                        }
                        "t" => in_text = !empty,
                        "br" => self.builder.line_break(),
                        "tc" if !empty => cells += 1,
                        _ => {}
                    }
                }
                Event::End(e) => match local_end(e.name().0) {
                    "sp" | "grpSp" | "graphicFrame" | "cxnSp" | "pic" => {
                        shapes.pop();
                    }
                    "p" => {
                        if cells > 0 {
                            self.builder.space();
                        } else {
                            self.builder.paragraph_break();
                        }
                    }
                    "t" => in_text = false,
                    "tr" => self.builder.line_break(),
                    "tc" => {
                        cells = cells.saturating_sub(1);
                        self.builder.space();
                    }
                    "tbl" => self.builder.paragraph_break(),
                    _ => {}
                },
                other if in_text => {
                    let shape = shapes.last().copied().unwrap_or_default();
                    let Some(text) = chars(other) else { continue };
                    if shape.furniture || text.is_empty() {
                        continue;
                    }
                    let paragraph = *number.get_or_insert_with(|| {
                        self.paragraphs = self.paragraphs.saturating_add(1);
                        self.paragraphs
                    });
                    let part = if part == Part::Body && cells > 0 { Part::Table } else { part };
                    let place = Place { page: None, slide: Some(slide), paragraph: Some(paragraph), part };
                    if shape.hidden {
                        self.builder.hidden(&text, Trick::HiddenText, place);
                    } else if tiny {
                        self.builder.hidden(&text, Trick::TinyText, place);
                    } else {
                        self.builder.push(&text, place);
                    }
                }
                _ => {}
            }
        }
        self.builder.paragraph_break();
        Ok(())
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
