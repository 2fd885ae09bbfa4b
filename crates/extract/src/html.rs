//! HTML: decode, find the main text, turn blocks into line breaks.
//!
//! The tree comes from `dom_query` (html5ever underneath), the crate
//! `dom_smoothie` is built on, rather than `scraper`: one parser and one DOM
//! type for both the Readability pass and our own walk, and no second
//! html5ever version in the build.

use dom_query::Document;
use dom_smoothie::Readability;
use encoding_rs::Encoding;

use crate::extract::{Extract, extension};
use crate::html_text::{
    Hidden, Mode, depth_within, remove_hidden, render_with_hidden, strip_tags, too_costly_to_parse,
};
use crate::sniff::{is_blank, looks_binary};
use crate::{
    Error, ExtractConfig, Extracted, Format, Location, MAX_LOCATIONS, Place, Result, Trick, Warning, encoding,
};

/// How far into a page to look for a `<meta charset>`. Browsers look at
/// 1024 bytes; some pages put long comments or scripts first.
const CHARSET_SCAN_LEN: usize = 4096;

/// Pages with more elements than this skip the Readability pass (its cost
/// grows faster than linearly) and keep the whole body.
const READABILITY_MAX_ELEMENTS: usize = 100_000;

/// Pages nested deeper than this skip the Readability pass, which recurses
/// over the tree; our own walk does not.
const READABILITY_MAX_DEPTH: usize = 256;

/// An article from the Readability pass is kept when it has at least this
/// many visible characters, or at least half of the whole body's; otherwise
/// it is likely a fragment of a page that has no single article.
const ARTICLE_MIN_CHARS: usize = 500;

/// Extracts the main text of an HTML page.
///
/// - The charset comes from a BOM, then `<meta charset>` (or
///   `http-equiv` Content-Type, or an XML declaration), then detection; bytes
///   that contradict the declaration win (see the crate documentation).
/// - With [`ExtractConfig::main_content`], on a page Readability deems
///   readable (some paragraphs of 140 characters or more), a Readability pass
///   (`dom_smoothie`) picks the article. When it finds none (or too little:
///   under 500 visible characters and under half of the body's), the whole body is
///   used minus scripts, styles, `nav`, `header`, `footer`, `aside`,
///   `noscript`, `template`, forms controls, hidden elements and elements
///   whose ARIA role or class marks them as navigation, banners or ads.
/// - Block elements (`p`, `div`, `li`, `h1`-`h6`, `tr`, `br`, ...) become line
///   breaks, table cells are separated by a space, so words never glue
///   together; other whitespace collapses as a browser shows it, except in
///   `pre`. Entities are decoded.
/// - The title is the `<title>` element's text.
/// - A page whose nesting would make tree building take far longer than its
///   size warrants (thousands of unclosed `<div>`s) is not parsed: a linear
///   tag stripper gives its text, without main-content detection or title.
///
/// Its [`sniff`](Extract::sniff) accepts content that starts (after a BOM and
/// whitespace) with `<!DOCTYPE html`, `<html`, or, as browsers sniff, a common
/// HTML tag such as `<p` or `<div`; a name ending in `.txt` (or another
/// plain-text extension) overrules the weak tag signs, and a name ending in
/// `.html` or `.htm` needs only a leading `<`.
#[derive(Debug, Clone, Copy, Default)]
pub struct HtmlExtractor;

impl Extract for HtmlExtractor {
    fn format(&self) -> Format {
        Format::Html
    }

    fn sniff(&self, name: &str, head: &[u8]) -> bool {
        sniff_html(name, head)
    }

    fn extract(&self, name: &str, bytes: &[u8], config: &ExtractConfig) -> Result<Extracted> {
        let declared = if Encoding::for_bom(bytes).is_some() {
            None
        } else {
            declared_charset(bytes.get(..CHARSET_SCAN_LEN).unwrap_or(bytes))
        };
        let decoded = encoding::decode(bytes, declared.as_deref());
        if is_blank(&decoded.text) {
            return Err(Error::Empty { name: name.into() });
        }
        if looks_binary(&decoded.text) {
            return Err(Error::Binary { name: name.into() });
        }
        if too_costly_to_parse(&decoded.text) {
            return finish(name, strip_tags(&decoded.text), None, decoded);
        }
        let document = Document::from(decoded.text.as_str());
        let title = title(&document);
        let (page, page_hidden) = render_with_hidden(document.root(), Mode::Page);
        let article = if config.main_content
            && depth_within(document.root(), READABILITY_MAX_DEPTH)
            && dom_smoothie::is_probably_readable(&document, None, None)
        {
            remove_hidden(document.root());
            main_content(&document.html()).filter(|(article, _)| {
                let (article, page) = (visible_chars(article), visible_chars(&page));
                article > 0 && (article >= ARTICLE_MIN_CHARS || article * 2 >= page)
            })
        } else {
            None
        };
        let (text, hidden) = match article {
            // Hidden elements were removed before the Readability pass (it
            // drops styles): they are counted from the page, without a
            // location in the article.
            Some((article, _)) => {
                let hidden = page_hidden.iter().map(|h| Hidden { offset: usize::MAX, ..*h }).collect();
                (article, hidden)
            }
            None => (page, page_hidden),
        };
        let mut extracted = finish(name, text, title, decoded)?;
        extracted.warnings.extend(hidden_warnings(&hidden, extracted.text.len()));
        Ok(extracted)
    }
}

fn finish(name: &str, text: String, title: Option<String>, decoded: encoding::Decoded) -> Result<Extracted> {
    if is_blank(&text) {
        return Err(Error::Empty { name: name.into() });
    }
    Ok(Extracted {
        text,
        title,
        format: Format::Html,
        encoding: Some(decoded.encoding.name().to_owned()),
        metadata: crate::Metadata::default(),
        origins: Vec::new(),
        warnings: decoded.warnings,
    })
}

/// Extensions that mean "this is plain text" even if it starts with a tag.
const PLAIN_TEXT_EXTENSIONS: &[&str] = &["txt", "text", "md", "markdown", "rst", "csv", "tsv", "log"];

/// Extensions that mean HTML when the content starts with `<`.
const HTML_EXTENSIONS: &[&str] = &["html", "htm", "xhtml", "xht", "shtml"];

/// Tags that, at the very start of a file, make browsers treat it as HTML.
const LEADING_TAGS: &[&[u8]] = &[
    b"head", b"body", b"script", b"iframe", b"h1", b"div", b"font", b"table", b"a", b"style", b"title", b"b", b"br",
    b"p", b"meta", b"!--",
];

fn sniff_html(name: &str, head: &[u8]) -> bool {
    // A UTF-16 page: look at its decoded start.
    let decoded;
    let head = match Encoding::for_bom(head) {
        Some((encoding, bom_len)) if encoding != encoding_rs::UTF_8 => {
            let rest = head.get(bom_len..).unwrap_or_default();
            decoded = encoding.decode_without_bom_handling(rest).0.into_owned();
            decoded.as_bytes()
        }
        _ => head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head),
    };
    let start = head.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(head.len());
    let head = head.get(start..).unwrap_or_default();
    if !head.starts_with(b"<") {
        return false;
    }
    let lower = head.get(..1024).unwrap_or(head).to_ascii_lowercase();
    if lower.starts_with(b"<!doctype html") || lower.starts_with(b"<html") {
        return true;
    }
    let ext = extension(name);
    let ext = ext.as_deref().unwrap_or_default();
    if HTML_EXTENSIONS.contains(&ext) {
        return true;
    }
    if (lower.starts_with(b"<?xml") || lower.starts_with(b"<!")) && find(&lower, b"<html").is_some() {
        return true;
    }
    if PLAIN_TEXT_EXTENSIONS.contains(&ext) {
        return false;
    }
    LEADING_TAGS.iter().any(|tag| {
        lower.get(1..).and_then(|rest| rest.strip_prefix(*tag)).is_some_and(|after| {
            matches!(after.first(), Some(b' ' | b'\t' | b'\n' | b'\r' | b'>' | b'/')) || (*tag == b"!--")
        })
    })
}

/// The charset a page declares in an XML declaration, `<meta charset=...>`
/// or `<meta http-equiv="Content-Type" content="...; charset=...">`.
fn declared_charset(head: &[u8]) -> Option<String> {
    let lower = head.to_ascii_lowercase();
    if lower.starts_with(b"<?xml") {
        let end = find(&lower, b"?>").unwrap_or(lower.len());
        if let Some(value) = lower.get(..end).and_then(|decl| value_of(decl, b"encoding")) {
            return Some(value);
        }
    }
    let mut pos = 0;
    while let Some(found) = lower.get(pos..).and_then(|rest| find(rest, b"<meta")) {
        let start = pos + found + b"<meta".len();
        let rest = lower.get(start..).unwrap_or_default();
        let end = start + find(rest, b">").unwrap_or(rest.len());
        if let Some(value) = lower.get(start..end).and_then(|tag| value_of(tag, b"charset")) {
            return Some(value);
        }
        pos = end;
    }
    None
}

/// The value after `key`, optional whitespace, `=` and an optional quote,
/// in a lower-cased tag.
fn value_of(tag: &[u8], key: &[u8]) -> Option<String> {
    let mut pos = 0;
    while let Some(found) = tag.get(pos..).and_then(|rest| find(rest, key)) {
        pos += found + key.len();
        let rest = tag.get(pos..).unwrap_or_default();
        let rest = trim_start(rest);
        let Some(rest) = rest.strip_prefix(b"=") else {
            continue;
        };
        let rest = trim_start(rest);
        let rest = rest.strip_prefix(b"\"").or_else(|| rest.strip_prefix(b"'")).unwrap_or(rest);
        let len = rest
            .iter()
            .position(|b| matches!(b, b'"' | b'\'' | b';' | b'>' | b'/') || b.is_ascii_whitespace())
            .unwrap_or(rest.len());
        let value = rest.get(..len).unwrap_or_default();
        if !value.is_empty() {
            return Some(String::from_utf8_lossy(value).into_owned());
        }
    }
    None
}

fn trim_start(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(bytes.len());
    bytes.get(start..).unwrap_or_default()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}

/// The `<title>` text, whitespace collapsed.
fn title(document: &Document) -> Option<String> {
    let text = document.select_single("title").text();
    let title = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!title.is_empty()).then_some(title)
}

/// The article Readability finds, rendered like the rest.
/// One [`Warning::Bypass`] per trick, with the places (offsets past the end
/// mean "not located").
fn hidden_warnings(hidden: &[Hidden], len: usize) -> Vec<Warning> {
    let mut by_trick: std::collections::BTreeMap<Trick, (usize, Vec<Location>)> = std::collections::BTreeMap::new();
    for h in hidden {
        let entry = by_trick.entry(h.trick).or_default();
        entry.0 += h.chars;
        if h.offset <= len && entry.1.len() < MAX_LOCATIONS {
            entry.1.push(Location { start: h.offset, end: h.offset, place: Place::default() });
        }
    }
    by_trick.into_iter().map(|(trick, (count, locations))| Warning::Bypass { trick, count, locations }).collect()
}

fn main_content(html: &str) -> Option<(String, Vec<Hidden>)> {
    let config =
        dom_smoothie::Config { max_elements_to_parse: READABILITY_MAX_ELEMENTS, ..dom_smoothie::Config::default() };
    let mut readability = Readability::new(html, None, Some(config)).ok()?;
    let article = readability.parse().ok()?;
    let fragment = Document::fragment(article.content);
    Some(render_with_hidden(fragment.root(), Mode::Article))
}

fn visible_chars(text: &str) -> usize {
    text.chars().filter(|c| !c.is_whitespace()).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffing() {
        assert!(sniff_html("x", b"<!DOCTYPE html><p>"));
        assert!(sniff_html("x.txt", b"\xEF\xBB\xBF  <HTML>"));
        assert!(sniff_html("x", b"<p>hello</p>"));
        assert!(!sniff_html("x.txt", b"<p>hello</p>"));
        assert!(sniff_html("x.htm", b"<custom>"));
        assert!(!sniff_html("x", b"<custom>"));
        assert!(!sniff_html("x.html", b"plain words"));
        assert!(sniff_html("x", b"<?xml version='1.0'?><html xmlns='...'>"));
        assert!(sniff_html("x", b"<!-- c --><html>"));
        assert!(!sniff_html("x", b"<a"));
        let utf16: Vec<u8> = "\u{FEFF}<html><body>x".encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert!(sniff_html("x", &utf16));
    }

    #[test]
    fn charset_declarations() {
        assert_eq!(declared_charset(b"<head><meta charset=\"Windows-1251\">").as_deref(), Some("windows-1251"));
        assert_eq!(
            declared_charset(b"<meta http-equiv='Content-Type' content='text/html; charset=koi8-r'>").as_deref(),
            Some("koi8-r")
        );
        assert_eq!(declared_charset(b"<?xml version=\"1.0\" encoding=\"cp866\"?><html>").as_deref(), Some("cp866"));
        assert_eq!(declared_charset(b"<meta name=charset-x content=a>"), None);
        assert_eq!(declared_charset(b"<meta charset=>"), None);
        assert_eq!(declared_charset(b"<meta"), None);
    }
}
