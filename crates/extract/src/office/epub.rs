//! EPUB: the OPF package's spine, each XHTML chapter through the HTML text
//! renderer, metadata from the OPF.

use std::collections::{BTreeMap, BTreeSet};

use dom_query::{Document, NodeRef};
use quick_xml::events::Event;

use super::{attr, chars, local, local_end, reader, resolve, simple_fields};
use crate::builder::TextBuilder;
use crate::container::ZipPackage;
use crate::extract::Extract;
use crate::html_text::{Mode, render, strip_tags, too_costly_to_parse};
use crate::{Error, ExtractConfig, Extracted, Format, Metadata, Place, Result, Trick, Warning};

/// Extracts EPUB electronic books (EPUB 2 and 3).
///
/// - The package document (OPF) is found through
///   `META-INF/container.xml`; chapters are read in spine order (the
///   navigation document and non-XHTML items are left out).
/// - Each chapter's body is rendered as HTML pages are (blocks as
///   paragraphs, `<br>` as line breaks, scripts and styles dropped), but
///   without the Readability pass or the removal of headers and asides:
///   in a book they are content.
/// - Every origin carries its paragraph, counted through the book.
/// - Elements hidden with the `hidden` attribute or an inline
///   `display:none` / `visibility:hidden` style are left out and reported
///   as [`Trick::HiddenText`] (located at the start of their chapter).
/// - Title, creators, date, modification date and language from the OPF.
/// - Chapters encrypted with DRM (listed in `META-INF/encryption.xml` with
///   an algorithm other than font obfuscation) are skipped with a warning;
///   a book whose chapters are all encrypted is [`Error::Encrypted`].
#[derive(Debug, Clone, Copy, Default)]
pub struct EpubExtractor;

impl Extract for EpubExtractor {
    fn format(&self) -> Format {
        Format::Epub
    }

    /// EPUB is recognised by its `mimetype` member, not sniffed.
    fn sniff(&self, _name: &str, _head: &[u8]) -> bool {
        false
    }

    fn extract(&self, name: &str, bytes: &[u8], config: &ExtractConfig) -> Result<Extracted> {
        let mut package = ZipPackage::open(name, Format::Epub, bytes, config)?;
        let opf_path = match package.read_string("META-INF/container.xml")? {
            Some(container) => rootfile(&container),
            None => None,
        }
        .or_else(|| package.names().into_iter().find(|n| n.to_ascii_lowercase().ends_with(".opf")))
        .ok_or_else(|| Error::Malformed {
            name: name.into(),
            format: "epub",
            reason: "no package document (OPF)".into(),
        })?;
        let Some(opf) = package.read_string(&opf_path)? else {
            return Err(Error::Malformed { name: name.into(), format: "epub", reason: format!("no {opf_path}") });
        };
        let book = Opf::parse(&opf);
        let encrypted = match package.read_string("META-INF/encryption.xml")? {
            Some(xml) => encrypted_members(&xml),
            None => BTreeSet::new(),
        };
        let mut builder = TextBuilder::with_limit(config.text_limit());
        let mut paragraphs = 0u32;
        let (mut chapters, mut locked, mut skipped) = (0usize, 0usize, 0usize);
        let mut read = BTreeSet::new();
        for idref in &book.spine {
            let Some(item) = book.manifest.get(idref) else {
                skipped += 1;
                continue;
            };
            if item.properties.split_whitespace().any(|p| p == "nav") {
                continue;
            }
            if !matches!(
                item.media_type.as_str(),
                "application/xhtml+xml" | "text/html" | "application/xml" | "text/x-oeb1-document"
            ) {
                skipped += 1;
                continue;
            }
            let path = resolve(&opf_path, &item.href);
            // A chapter listed twice is read once.
            if !read.insert(path.clone()) {
                continue;
            }
            if encrypted.contains(&path) {
                locked += 1;
                continue;
            }
            let Some(xhtml) = package.read_string(&path)? else {
                skipped += 1;
                continue;
            };
            chapters += 1;
            chapter(&mut builder, &mut paragraphs, &xhtml);
        }
        if chapters == 0 && locked > 0 {
            return Err(Error::Encrypted { name: name.into() });
        }
        if locked > 0 {
            builder.warn(Warning::Skipped { what: "encrypted chapter".into(), count: locked });
        }
        if skipped > 0 {
            builder.warn(Warning::Skipped { what: "missing or non-XHTML spine item".into(), count: skipped });
        }
        let mut doc = builder.finish(name, Format::Epub)?;
        doc.title = book.title;
        doc.metadata = book.metadata;
        Ok(doc)
    }
}

/// Appends one chapter's text.
fn chapter(builder: &mut TextBuilder, paragraphs: &mut u32, xhtml: &str) {
    let text = if too_costly_to_parse(xhtml) {
        strip_tags(xhtml)
    } else {
        let document = Document::from(xhtml);
        let hidden = hidden_text(&document);
        if !hidden.is_empty() {
            let place = Place { paragraph: Some(paragraphs.saturating_add(1)), ..Place::default() };
            builder.hidden(&hidden, Trick::HiddenText, place);
        }
        render(document.root(), Mode::Article)
    };
    for block in text.split("\n\n") {
        if block.trim().is_empty() {
            continue;
        }
        *paragraphs = paragraphs.saturating_add(1);
        let place = Place { paragraph: Some(*paragraphs), ..Place::default() };
        for line in block.split('\n') {
            builder.push(line, place);
            builder.line_break();
        }
        builder.paragraph_break();
    }
}

/// Whether an element is hidden by its own attributes.
fn is_hidden(node: &NodeRef<'_>) -> bool {
    node.has_attr("hidden")
        || node.attr("style").is_some_and(|style| {
            let style: String = style.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
            style.contains("display:none") || style.contains("visibility:hidden")
        })
}

/// The text of hidden elements in the body (outermost ones only), joined by
/// spaces.
fn hidden_text(document: &Document) -> String {
    let mut out = String::new();
    for node in document.select("body [hidden], body [style]").nodes() {
        if !is_hidden(node) || node.ancestors_it(None).any(|a| is_hidden(&a)) {
            continue;
        }
        let text = node.text();
        if !text.trim().is_empty() {
            out.push_str(text.trim());
            out.push(' ');
        }
    }
    out
}

/// The first rootfile's path in `META-INF/container.xml`.
fn rootfile(container: &str) -> Option<String> {
    let mut reader = reader(container);
    loop {
        match reader.read_event() {
            Ok(Event::Eof) | Err(_) => return None,
            Ok(Event::Start(e) | Event::Empty(e)) if local(&e) == "rootfile" => {
                if let Some(path) = attr(&e, "full-path") {
                    return Some(resolve("", &path));
                }
            }
            Ok(_) => {}
        }
    }
}

/// Members encrypted with anything but font obfuscation.
fn encrypted_members(xml: &str) -> BTreeSet<String> {
    const OBFUSCATION: &[&str] = &["http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"];
    let mut members = BTreeSet::new();
    let mut reader = reader(xml);
    let mut algorithm = String::new();
    loop {
        match reader.read_event() {
            Ok(Event::Eof) | Err(_) => break,
            Ok(Event::Start(e) | Event::Empty(e)) => match local(&e) {
                "EncryptedData" => algorithm.clear(),
                "EncryptionMethod" => algorithm = attr(&e, "Algorithm").unwrap_or_default(),
                "CipherReference" => {
                    if let Some(uri) = attr(&e, "URI")
                        && !OBFUSCATION.contains(&algorithm.as_str())
                    {
                        members.insert(resolve("", &uri));
                    }
                }
                _ => {}
            },
            Ok(_) => {}
        }
    }
    members
}

#[derive(Debug, Default)]
struct Item {
    href: String,
    media_type: String,
    properties: String,
}

/// What the package document says.
#[derive(Debug, Default)]
struct Opf {
    title: Option<String>,
    metadata: Metadata,
    manifest: BTreeMap<String, Item>,
    spine: Vec<String>,
}

impl Opf {
    fn parse(xml: &str) -> Self {
        let mut opf = Opf::default();
        let mut fields = simple_fields(&mut reader(xml), &["title", "creator", "date", "language"]);
        let mut first = |name: &str| fields.get_mut(name).and_then(|v| (!v.is_empty()).then(|| v.swap_remove(0)));
        opf.title = first("title");
        opf.metadata.created = first("date");
        opf.metadata.language = first("language");
        opf.metadata.authors = fields.remove("creator").unwrap_or_default();
        let mut reader = reader(xml);
        let mut modified: Option<String> = None;
        loop {
            let event = match reader.read_event() {
                Ok(Event::Eof) | Err(_) => break,
                Ok(event) => event,
            };
            match &event {
                Event::Start(e) | Event::Empty(e) => match local(e) {
                    "item" => {
                        if let (Some(id), Some(href)) = (attr(e, "id"), attr(e, "href")) {
                            let item = Item {
                                href,
                                media_type: attr(e, "media-type").unwrap_or_default(),
                                properties: attr(e, "properties").unwrap_or_default(),
                            };
                            opf.manifest.insert(id, item);
                        }
                    }
                    "itemref" => {
                        if let Some(id) = attr(e, "idref") {
                            opf.spine.push(id);
                        }
                    }
                    "meta"
                        if matches!(event, Event::Start(_))
                            && attr(e, "property").as_deref() == Some("dcterms:modified") =>
                    {
                        modified = Some(String::new());
                    }
                    _ => {}
                },
                Event::End(e) if local_end(e.name().0) == "meta" => {
                    if let Some(value) = modified.take().filter(|v| !v.trim().is_empty()) {
                        opf.metadata.modified.get_or_insert(value.trim().to_owned());
                    }
                }
                other => {
                    if let (Some(value), Some(text)) = (modified.as_mut(), chars(other))
                        && value.len() < 256
                    {
                        value.push_str(&text);
                    }
                }
            }
        }
        opf
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::tests::zip_of;

    const CONTAINER: &[u8] = br#"<container><rootfiles><rootfile full-path="OPS/book.opf"/></rootfiles></container>"#;

    fn opf(spine: &str) -> String {
        format!(
            r#"<package xmlns:dc="dc"><metadata><dc:title>Книга</dc:title><dc:creator>A</dc:creator><dc:creator>B</dc:creator><dc:language>ru</dc:language><meta property="dcterms:modified">2026-01-01</meta></metadata>
            <manifest><item id="c1" href="text/one.xhtml" media-type="application/xhtml+xml"/><item id="c2" href="text/two%20b.xhtml" media-type="application/xhtml+xml"/>
            <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/><item id="img" href="i.png" media-type="image/png"/></manifest>
            <spine>{spine}</spine></package>"#
        )
    }

    fn book(spine: &str, extra: &[(&str, &[u8])]) -> Result<Extracted> {
        let opf = opf(spine);
        let mut members: Vec<(&str, &[u8])> = vec![
            ("mimetype", b"application/epub+zip"),
            ("META-INF/container.xml", CONTAINER),
            ("OPS/book.opf", opf.as_bytes()),
            (
                "OPS/text/one.xhtml",
                b"<html><body><h1>One</h1><p>First <span style='display: none'>secret</span>para.</p></body></html>",
            ),
            ("OPS/text/two b.xhtml", b"<html><body><p>Second<br/>line</p><header>kept</header></body></html>"),
            ("OPS/nav.xhtml", b"<html><body><nav>TOC</nav></body></html>"),
        ];
        members.extend_from_slice(extra);
        EpubExtractor.extract("b.epub", &zip_of(&members), &ExtractConfig::default())
    }

    #[test]
    fn spine_order_metadata_and_hidden_text() {
        let doc =
            book(r#"<itemref idref="nav"/><itemref idref="c2"/><itemref idref="c1"/><itemref idref="img"/>"#, &[])
                .unwrap();
        assert_eq!(doc.text, "Second\nline\n\nkept\n\nOne\n\nFirst para.");
        assert_eq!(doc.origin_at(doc.text.find("First").unwrap()).unwrap().place.paragraph, Some(4));
        assert_eq!(doc.title.as_deref(), Some("Книга"));
        assert_eq!(doc.metadata.authors, ["A", "B"]);
        assert_eq!(doc.metadata.modified.as_deref(), Some("2026-01-01"));
        let tricks: Vec<(Trick, usize)> = doc.bypasses().map(|(t, n, _)| (t, n)).collect();
        assert_eq!(tricks, [(Trick::HiddenText, 6)]);
        assert!(doc.warnings.contains(&Warning::Skipped { what: "missing or non-XHTML spine item".into(), count: 1 }));
    }

    #[test]
    fn drm_is_encrypted_and_fonts_are_not() {
        let drm: &[u8] = br#"<encryption><EncryptedData><EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/><CipherData><CipherReference URI="OPS/text/one.xhtml"/></CipherData></EncryptedData></encryption>"#;
        let err = book(r#"<itemref idref="c1"/>"#, &[("META-INF/encryption.xml", drm)]).unwrap_err();
        assert!(matches!(err, Error::Encrypted { name } if name == "b.epub"));
        let doc = book(r#"<itemref idref="c1"/><itemref idref="c2"/>"#, &[("META-INF/encryption.xml", drm)]).unwrap();
        assert!(doc.text.starts_with("Second"));
        let fonts: &[u8] = br#"<encryption><EncryptedData><EncryptionMethod Algorithm="http://www.idpf.org/2008/embedding"/><CipherData><CipherReference URI="OPS/text/one.xhtml"/></CipherData></EncryptedData></encryption>"#;
        assert!(book(r#"<itemref idref="c1"/>"#, &[("META-INF/encryption.xml", fonts)]).is_ok());
        let err = EpubExtractor
            .extract("x.epub", &zip_of(&[("mimetype", b"application/epub+zip")]), &ExtractConfig::default())
            .unwrap_err();
        assert!(matches!(err, Error::Malformed { name, .. } if name == "x.epub"));
    }
}
