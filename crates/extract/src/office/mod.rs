//! ZIP-based document formats: DOCX, ODT, PPTX and EPUB. Each has its own
//! small streaming walker over the XML parts (quick-xml events, no DOM), so
//! memory stays bounded by the largest part and positions stay ours.
//!
//! This module holds what the walkers share: reading XML events with
//! entities resolved, attributes by local name, OPC relationships, package
//! paths, and the `docProps` metadata of Office Open XML.

pub(crate) mod docx;
pub(crate) mod epub;
pub(crate) mod odt;
pub(crate) mod pptx;
pub(crate) mod xml_walker;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::BufRead;

use quick_xml::Reader;
use quick_xml::events::{BytesRef, BytesStart, Event};

use crate::container::{PartText, ZipPackage};
use crate::{Error, Format, Metadata, Result, Warning};

/// Most styles followed through `basedOn` / `parent-style-name` chains
/// (cycles in a damaged file end here).
pub(crate) const MAX_STYLE_DEPTH: usize = 32;

/// A forgiving XML reader over a whole part: text is not trimmed, end tags
/// need not match (damaged files still give their text).
pub(crate) fn reader(xml: &str) -> Reader<&[u8]> {
    forgiving(Reader::from_str(xml))
}

/// The same forgiving reader over a part streamed from its package
/// ([`ZipPackage::stream`]): a buffer of it in memory at a time.
pub(crate) fn stream_reader<'p, 'r>(part: &'p mut PartText<'r>) -> Reader<&'p mut PartText<'r>> {
    forgiving(Reader::from_reader(part))
}

fn forgiving<R>(mut reader: Reader<R>) -> Reader<R> {
    let config = reader.config_mut();
    config.trim_text(false);
    config.check_end_names = false;
    config.allow_unmatched_ends = true;
    config.allow_dangling_amp = true;
    reader
}

/// The local name (without prefix) of an element.
pub(crate) fn local<'a>(e: &'a BytesStart<'_>) -> &'a str {
    let name = e.name().0;
    name.rsplit_once(':').map_or(name, |(_, local)| local)
}

/// The local name of an end tag's element.
pub(crate) fn local_end(name: &str) -> &str {
    name.rsplit_once(':').map_or(name, |(_, local)| local)
}

/// The value of the attribute with this local name (any prefix), unescaped.
pub(crate) fn attr(e: &BytesStart<'_>, name: &str) -> Option<String> {
    e.attributes().flatten().find_map(|a| {
        let key = a.key.0;
        let key_local = key.rsplit_once(':').map_or(key, |(_, local)| local);
        (key_local == name).then(|| {
            a.normalized_value(quick_xml::XmlVersion::Implicit1_0).map_or_else(|_| a.value.to_string(), Cow::into_owned)
        })
    })
}

/// The text an entity or character reference stands for.
pub(crate) fn entity(r: &BytesRef<'_>) -> Option<Cow<'static, str>> {
    if let Ok(Some(c)) = r.resolve_char_ref() {
        return Some(Cow::Owned(c.to_string()));
    }
    let s = match r.xml10_content().as_ref() {
        "amp" => "&",
        "lt" => "<",
        "gt" => ">",
        "quot" => "\"",
        "apos" => "'",
        "nbsp" => "\u{A0}",
        _ => return None,
    };
    Some(Cow::Borrowed(s))
}

/// The character data of a text, CDATA or reference event, if it is one.
pub(crate) fn chars<'a>(event: &'a Event<'_>) -> Option<Cow<'a, str>> {
    match event {
        Event::Text(t) => Some(t.xml10_content()),
        Event::CData(t) => Some(t.xml10_content()),
        Event::GeneralRef(r) => entity(r),
        _ => None,
    }
}

/// Whether an OOXML on/off property is on: present without `w:val`, or with
/// a value other than `0`, `false`, `off`.
pub(crate) fn on_off(e: &BytesStart<'_>) -> bool {
    attr(e, "val").is_none_or(|v| !matches!(v.as_str(), "0" | "false" | "off"))
}

/// The text content of the first element of each local name in `wanted`
/// (and every occurrence for `repeated` ones), from a small XML part such as
/// `docProps/core.xml`, `meta.xml` or an OPF's metadata.
pub(crate) fn simple_fields<R: BufRead>(reader: &mut Reader<R>, wanted: &[&str]) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let event = match reader.read_event_into(&mut buf) {
            Ok(Event::Eof) | Err(_) => break,
            Ok(event) => event,
        };
        match &event {
            Event::Start(e) => {
                let name = local(e);
                current = wanted.contains(&name).then(|| (name.to_owned(), String::new()));
            }
            Event::End(_) => {
                if let Some((name, value)) = current.take() {
                    let value = value.trim();
                    if !value.is_empty() {
                        out.entry(name).or_default().push(value.to_owned());
                    }
                }
            }
            other => {
                if let (Some((_, value)), Some(text)) = (current.as_mut(), chars(other))
                    && value.len() < 4096
                {
                    value.push_str(&text);
                }
            }
        }
    }
    out
}

/// Relationships of an OPC part (`_rels/*.rels`): id -> (type, target).
pub(crate) fn relationships<R: BufRead>(reader: &mut Reader<R>) -> BTreeMap<String, (String, String)> {
    let mut out = BTreeMap::new();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_event_into(&mut buf) {
            Ok(Event::Eof) | Err(_) => break,
            Ok(Event::Start(e) | Event::Empty(e)) if local(&e) == "Relationship" => {
                if attr(&e, "TargetMode").is_some_and(|m| m.eq_ignore_ascii_case("External")) {
                    continue;
                }
                if let (Some(id), Some(kind), Some(target)) = (attr(&e, "Id"), attr(&e, "Type"), attr(&e, "Target")) {
                    out.insert(id, (kind, target));
                }
            }
            Ok(_) => {}
        }
    }
    out
}

/// The relationships of package part `part` (none when it has no
/// relationships part).
///
/// # Errors
///
/// As [`ZipPackage::stream`].
pub(crate) fn part_relationships(
    package: &mut ZipPackage<'_>,
    part: &str,
) -> Result<BTreeMap<String, (String, String)>> {
    let rels = package.stream(&rels_path(part), &[], |text| Ok(relationships(&mut stream_reader(text))))?;
    Ok(rels.unwrap_or_default())
}

/// The relationships part of a package part: `word/document.xml` ->
/// `word/_rels/document.xml.rels`.
pub(crate) fn rels_path(part: &str) -> String {
    match part.rsplit_once('/') {
        Some((dir, file)) => format!("{dir}/_rels/{file}.rels"),
        None => format!("_rels/{part}.rels"),
    }
}

/// Resolves `target` (relative to the folder of `base`, or absolute from
/// the package root when it starts with `/`) to a member name: `.` and `..`
/// segments folded, percent escapes decoded.
pub(crate) fn resolve(base: &str, target: &str) -> String {
    let target = percent_decode(target.split(['#', '?']).next().unwrap_or_default());
    let mut parts: Vec<&str> = Vec::new();
    if !target.starts_with('/')
        && let Some((dir, _)) = base.rsplit_once('/')
    {
        parts.extend(dir.split('/').filter(|s| !s.is_empty()));
    }
    for segment in target.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes.get(i).copied().unwrap_or_default();
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (byte, hex) {
            (b'%', Some(value)) => {
                out.push(value);
                i += 3;
            }
            _ => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Title and metadata from `docProps/core.xml` and `docProps/app.xml`
/// (DOCX, PPTX). Missing or unreadable parts give nothing.
pub(crate) fn ooxml_metadata(package: &mut ZipPackage<'_>) -> Result<(Option<String>, Metadata)> {
    let mut metadata = Metadata::default();
    let mut title = None;
    let wanted = ["title", "creator", "created", "modified", "language"];
    if let Some(mut fields) =
        package.stream("docProps/core.xml", &[], |text| Ok(simple_fields(&mut stream_reader(text), &wanted)))?
    {
        let mut first = |name: &str| fields.get_mut(name).and_then(|v| (!v.is_empty()).then(|| v.swap_remove(0)));
        title = first("title");
        metadata.created = first("created");
        metadata.modified = first("modified");
        metadata.language = first("language");
        metadata.authors = fields.remove("creator").unwrap_or_default();
    }
    let wanted = ["Application", "Pages", "Slides"];
    if let Some(fields) =
        package.stream("docProps/app.xml", &[], |text| Ok(simple_fields(&mut stream_reader(text), &wanted)))?
    {
        let first = |name: &str| fields.get(name).and_then(|v| v.first()).cloned();
        metadata.producer = first("Application");
        metadata.pages = first("Pages").or_else(|| first("Slides")).and_then(|p| p.parse().ok());
    }
    Ok((title, metadata))
}

/// Turns an XML error in a part into a document error, or, when some text
/// was already extracted, a [`Warning::Damaged`] (the text so far is kept).
pub(crate) fn xml_damage(
    name: &str,
    format: Format,
    part: &str,
    error: &quick_xml::Error,
    have_text: bool,
) -> Result<Warning> {
    let problem = format!("{part}: {error}");
    if have_text {
        Ok(Warning::Damaged { problem })
    } else {
        Err(Error::Malformed { name: name.into(), format: format.name(), reason: problem })
    }
}

/// A page counter for formats whose page breaks are marked in the text
/// (explicit breaks, and the breaks the authoring program last rendered).
/// A rendered break right after an explicit one is the same break.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pages {
    page: u32,
    /// No text since the last break.
    fresh: bool,
    /// Whether the document marks pages at all (otherwise no page is given).
    known: bool,
}

impl Pages {
    pub(crate) fn new(known: bool) -> Self {
        Self { page: 1, fresh: true, known }
    }

    /// An explicit break (page break, break-before): always a new page,
    /// unless nothing was written since the last one.
    pub(crate) fn explicit(&mut self) {
        if !self.fresh {
            self.page = self.page.saturating_add(1);
        }
        self.fresh = true;
    }

    /// A break where the authoring program last laid out a new page.
    pub(crate) fn rendered(&mut self) {
        self.explicit();
    }

    /// Text was written on the current page.
    pub(crate) fn text(&mut self) {
        self.fresh = false;
    }

    /// The current page, when the document marks pages.
    pub(crate) fn current(&self) -> Option<u32> {
        self.known.then_some(self.page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_against_their_part() {
        assert_eq!(resolve("ppt/presentation.xml", "slides/slide1.xml"), "ppt/slides/slide1.xml");
        assert_eq!(resolve("ppt/slides/slide1.xml", "../notesSlides/n1.xml"), "ppt/notesSlides/n1.xml");
        assert_eq!(resolve("word/document.xml", "/word/header1.xml"), "word/header1.xml");
        assert_eq!(resolve("OEBPS/content.opf", "Text/ch%201.xhtml#x"), "OEBPS/Text/ch 1.xhtml");
        assert_eq!(resolve("a.opf", "../../x.html"), "x.html");
        assert_eq!(rels_path("word/document.xml"), "word/_rels/document.xml.rels");
        assert_eq!(percent_decode("%D0%AF%zz%"), "Я%zz%");
    }

    #[test]
    fn fields_and_relationships() {
        let xml = r#"<cp:x xmlns:dc="d"><dc:title>A &amp; B</dc:title><dc:creator>X</dc:creator><dc:creator>Y</dc:creator></cp:x>"#;
        let fields = simple_fields(&mut reader(xml), &["title", "creator"]);
        assert_eq!(fields["title"], ["A & B"]);
        assert_eq!(fields["creator"], ["X", "Y"]);
        let rels = r#"<Relationships><Relationship Id="r1" Type="t/slide" Target="slides/s1.xml"/><Relationship Id="r2" Type="h" Target="http://x" TargetMode="External"/></Relationships>"#;
        let rels = relationships(&mut reader(rels));
        assert_eq!(rels.len(), 1);
        assert_eq!(rels["r1"], ("t/slide".to_owned(), "slides/s1.xml".to_owned()));
    }

    #[test]
    fn rendered_break_after_explicit_one_counts_once() {
        let mut pages = Pages::new(true);
        pages.text();
        pages.explicit();
        pages.rendered();
        assert_eq!(pages.current(), Some(2));
        pages.text();
        pages.rendered();
        assert_eq!(pages.current(), Some(3));
        assert_eq!(Pages::new(false).current(), None);
    }
}
