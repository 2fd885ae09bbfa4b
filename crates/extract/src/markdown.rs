//! Markdown: CommonMark (with tables, footnotes, strikethrough, task lists
//! and front matter) through `pulldown-cmark`; the markup goes, the text
//! stays.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use crate::builder::TextBuilder;
use crate::extract::{Extract, extension};
use crate::html_text::strip_tags;
use crate::sniff::{is_blank, looks_binary};
use crate::{Error, ExtractConfig, Extracted, Format, Place, Result, Trick, encoding};

/// Extensions that mark a Markdown file.
const EXTENSIONS: &[&str] = &["md", "markdown", "mdown", "mkd", "mkdn", "mdwn"];

/// Extensions that say "plain text" (or source code, whose comments look
/// like headings): never sniffed as Markdown.
const PLAIN: &[&str] = &[
    "txt", "text", "log", "csv", "tsv", "py", "sh", "bash", "rb", "pl", "r", "rs", "c", "h", "cpp", "js", "ts", "java",
    "go", "json", "xml", "yaml", "yml", "toml", "ini", "cfg", "conf", "tex", "rst", "adoc", "org",
];

/// Markup kinds [`looks_like_markdown`] looks for.
const HEADING: u8 = 1;
const LINK: u8 = 2;
const FENCE: u8 = 4;
const LIST: u8 = 8;
const EMPHASIS: u8 = 16;
const SETEXT: u8 = 32;

/// Whether the first bytes of a document read as Markdown, conservatively:
/// at least two different kinds of markup among ATX headings (`# Title`),
/// links (`[text](target)`), code fences, list items, strong emphasis
/// (`**bold**`, `__bold__`) and setext underlines, one of them a heading,
/// a link or a fence (which plain text practically never has), and no
/// shebang or leading `<` (scripts, HTML and XML).
pub(crate) fn looks_like_markdown(head: &[u8]) -> bool {
    let valid = match std::str::from_utf8(head) {
        Ok(text) => text,
        // A multi-byte character cut at the end of the head.
        Err(e) => std::str::from_utf8(head.get(..e.valid_up_to()).unwrap_or_default()).unwrap_or_default(),
    };
    let text = valid.trim_start_matches('\u{FEFF}');
    if text.starts_with("#!") || text.trim_start().starts_with('<') {
        return false;
    }
    let mut kinds = 0u8;
    let mut previous_text = false;
    for line in text.lines().take(400) {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let trimmed = line.trim();
        if indent <= 3 {
            let hashes = trimmed.bytes().take_while(|b| *b == b'#').count();
            if (1..=6).contains(&hashes)
                && trimmed.as_bytes().get(hashes) == Some(&b' ')
                && trimmed.get(hashes + 1..).is_some_and(|rest| rest.chars().next().is_some_and(char::is_alphanumeric))
            {
                kinds |= HEADING;
            }
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                kinds |= FENCE;
            }
            let numbered = trimmed
                .split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.len() <= 3 && n.bytes().all(|b| b.is_ascii_digit()));
            if ["- ", "* ", "+ "].iter().any(|marker| trimmed.starts_with(marker)) || numbered {
                kinds |= LIST;
            }
            if previous_text
                && trimmed.len() >= 3
                && (trimmed.bytes().all(|b| b == b'=') || trimmed.bytes().all(|b| b == b'-'))
            {
                kinds |= SETEXT;
            }
        }
        if has_link(trimmed) {
            kinds |= LINK;
        }
        if has_strong(trimmed, "**") || has_strong(trimmed, "__") {
            kinds |= EMPHASIS;
        }
        previous_text = !trimmed.is_empty() && trimmed.chars().next().is_some_and(char::is_alphanumeric);
    }
    kinds.count_ones() >= 2 && kinds & (HEADING | LINK | FENCE) != 0
}

/// `[text](target)` with text and a target without spaces.
fn has_link(line: &str) -> bool {
    line.match_indices("](").any(|(at, _)| {
        let before = line.get(..at).unwrap_or_default();
        let after = line.get(at + 2..).unwrap_or_default();
        let text_ok = before.rfind('[').is_some_and(|open| at > open + 1);
        let target_ok = after.find(')').is_some_and(|close| close > 0 && !after[..close].contains(' '));
        text_ok && target_ok
    })
}

/// `**word**`: the marker not right after a letter or digit (`a**b` is
/// arithmetic), a letter right after it, and the marker again later on the
/// line, right after a non-space.
fn has_strong(line: &str, marker: &str) -> bool {
    line.match_indices(marker).any(|(at, _)| {
        let opens = line.get(..at).and_then(|s| s.chars().last()).is_none_or(|c| !c.is_alphanumeric());
        let rest = line.get(at + marker.len()..).unwrap_or_default();
        opens
            && rest.chars().next().is_some_and(char::is_alphanumeric)
            && rest.match_indices(marker).any(|(end, _)| {
                end > 0 && rest.get(..end).and_then(|s| s.chars().last()).is_some_and(|c| !c.is_whitespace())
            })
    })
}

/// Extracts Markdown documents.
///
/// - Recognised by the name's extension (`.md`, `.markdown`, `.mdown`,
///   `.mkd`, `.mkdn`, `.mdwn`) on text content, or by its content when the
///   name has no extension that says plain text or source code (`.txt`,
///   `.py`...): at least two kinds of markup, one of them a heading, a link
///   or a code fence (see [`looks_like_markdown`]). Markdown has no magic
///   number, so a `.txt` file that happens to start with `# ` stays text.
/// - The encoding is detected as for plain text.
/// - Markup is dropped and the text kept: headings, paragraphs, block
///   quotes, list items (one per line), code blocks and spans, table cells
///   (separated by a space, rows by a line break), link text (not the
///   URL), footnote definitions. Image descriptions, front matter and
///   HTML tags are dropped; the text inside HTML blocks is kept. Source
///   line breaks inside a paragraph stay line breaks.
/// - Every origin carries its block number in [`Place::paragraph`]
///   (headings, paragraphs, list items, table rows, code blocks, counted
///   through the document, blocks with text only).
/// - HTML comments (`<!-- ... -->`), which no reader sees, are left out
///   and reported as [`Trick::HiddenText`].
/// - The title is the first level-1 heading.
#[derive(Debug, Clone, Copy, Default)]
pub struct MarkdownExtractor;

impl Extract for MarkdownExtractor {
    fn format(&self) -> Format {
        Format::Markdown
    }

    fn sniff(&self, name: &str, head: &[u8]) -> bool {
        match extension(name) {
            Some(ext) if EXTENSIONS.contains(&ext.as_str()) => !head.is_empty(),
            // The name says plain text: Markdown is plain text too, and the
            // name breaks the tie.
            Some(ext) if PLAIN.contains(&ext.as_str()) => false,
            _ => looks_like_markdown(head),
        }
    }

    fn extract(&self, name: &str, bytes: &[u8], _config: &ExtractConfig) -> Result<Extracted> {
        let decoded = encoding::decode(bytes, None);
        if is_blank(&decoded.text) {
            return Err(Error::Empty { name: name.into() });
        }
        if looks_binary(&decoded.text) {
            return Err(Error::Binary { name: name.into() });
        }
        let (builder, title) = walk(&decoded.text);
        let mut doc = builder.finish(name, Format::Markdown)?;
        doc.title = title;
        doc.encoding = Some(decoded.encoding.name().to_owned());
        let mut warnings = decoded.warnings;
        warnings.append(&mut doc.warnings);
        doc.warnings = warnings;
        Ok(doc)
    }
}

/// Numbers blocks as their first text arrives.
#[derive(Debug, Default)]
struct Blocks {
    count: u32,
    /// A block started or ended since the last text.
    fresh: bool,
}

impl Blocks {
    fn place(&mut self) -> Place {
        if std::mem::take(&mut self.fresh) || self.count == 0 {
            self.count = self.count.saturating_add(1);
        }
        Place { paragraph: Some(self.count), ..Place::default() }
    }
}

fn walk(text: &str) -> (TextBuilder, Option<String>) {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS;
    let mut builder = TextBuilder::new();
    let mut blocks = Blocks::default();
    let mut title: Option<String> = None;
    let mut in_title = false;
    let (mut images, mut metadata) = (0usize, false);
    let mut html = String::new();
    for event in Parser::new_ext(text, options) {
        match event {
            Event::Start(tag) => {
                match tag {
                    Tag::Image { .. } => images += 1,
                    Tag::MetadataBlock(_) => metadata = true,
                    Tag::Heading { level: pulldown_cmark::HeadingLevel::H1, .. } if title.is_none() => {
                        in_title = true;
                        title = Some(String::new());
                    }
                    Tag::HtmlBlock => html.clear(),
                    _ => {}
                }
                blocks.fresh |= is_block(&tag);
            }
            Event::End(tag) => {
                match tag {
                    TagEnd::Image => images = images.saturating_sub(1),
                    TagEnd::MetadataBlock(_) => metadata = false,
                    TagEnd::Heading(_) => in_title = false,
                    TagEnd::HtmlBlock => {
                        hide_comments(&mut builder, &mut blocks, &html);
                        let visible = strip_tags(&html);
                        if !visible.trim().is_empty() {
                            let place = blocks.place();
                            for line in visible.split('\n') {
                                builder.push(line, place);
                                builder.line_break();
                            }
                        }
                        html.clear();
                    }
                    _ => {}
                }
                match tag {
                    TagEnd::Item | TagEnd::TableRow | TagEnd::TableHead => builder.line_break(),
                    TagEnd::TableCell => builder.space(),
                    TagEnd::Paragraph
                    | TagEnd::Heading(_)
                    | TagEnd::BlockQuote(_)
                    | TagEnd::CodeBlock
                    | TagEnd::HtmlBlock
                    | TagEnd::List(_)
                    | TagEnd::Table
                    | TagEnd::FootnoteDefinition
                    | TagEnd::DefinitionList => builder.paragraph_break(),
                    _ => {}
                }
                blocks.fresh |= is_block_end(tag);
            }
            Event::Text(s) | Event::Code(s) | Event::InlineMath(s) | Event::DisplayMath(s) => {
                if images > 0 || metadata {
                    continue;
                }
                if let Some(title) = title.as_mut().filter(|_| in_title) {
                    title.push_str(&s);
                }
                let place = blocks.place();
                let mut lines = s.split('\n').peekable();
                while let Some(line) = lines.next() {
                    builder.push(line, place);
                    if lines.peek().is_some() {
                        builder.line_break();
                    }
                }
            }
            Event::Html(s) => html.push_str(&s),
            Event::InlineHtml(s) => {
                if s.starts_with("<!--") {
                    hide_comments(&mut builder, &mut blocks, &s);
                } else if s.get(..3).is_some_and(|t| t.eq_ignore_ascii_case("<br")) {
                    builder.line_break();
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if in_title && let Some(title) = title.as_mut() {
                    title.push(' ');
                }
                builder.line_break();
            }
            _ => {}
        }
    }
    let title = title.map(|t| t.split_whitespace().collect::<Vec<_>>().join(" ")).filter(|t| !t.is_empty());
    (builder, title)
}

/// Records the text of every HTML comment in `html` as hidden.
fn hide_comments(builder: &mut TextBuilder, blocks: &mut Blocks, html: &str) {
    let mut rest = html;
    while let Some(start) = rest.find("<!--") {
        let after = rest.get(start + 4..).unwrap_or_default();
        let end = after.find("-->").unwrap_or(after.len());
        let comment = after.get(..end).unwrap_or_default();
        if !comment.trim().is_empty() {
            let place = Place { paragraph: Some(blocks.count.saturating_add(1)), ..Place::default() };
            builder.hidden(comment, Trick::HiddenText, place);
        }
        rest = after.get(end..).unwrap_or_default();
    }
}

fn is_block(tag: &Tag<'_>) -> bool {
    matches!(
        tag,
        Tag::Paragraph
            | Tag::Heading { .. }
            | Tag::BlockQuote(_)
            | Tag::CodeBlock(_)
            | Tag::HtmlBlock
            | Tag::List(_)
            | Tag::Item
            | Tag::FootnoteDefinition(_)
            | Tag::Table(_)
            | Tag::TableHead
            | Tag::TableRow
    )
}

fn is_block_end(tag: TagEnd) -> bool {
    matches!(
        tag,
        TagEnd::Paragraph
            | TagEnd::Heading(_)
            | TagEnd::BlockQuote(_)
            | TagEnd::CodeBlock
            | TagEnd::HtmlBlock
            | TagEnd::List(_)
            | TagEnd::Item
            | TagEnd::FootnoteDefinition
            | TagEnd::Table
            | TagEnd::TableHead
            | TagEnd::TableRow
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(text: &str) -> Extracted {
        MarkdownExtractor.extract("t.md", text.as_bytes(), &ExtractConfig::default()).unwrap()
    }

    #[test]
    fn markup_goes_text_stays() {
        let doc = md(
            "---\ntitle: x\n---\n# Заголовок *один*\n\nText with **bold**, `code` and [a link](http://x.org).\nNext line.\n\n\
                      - item one\n- item two\n\n| a | b |\n|---|---|\n| c | d |\n\n![alt text](i.png)\n\n```\nfn main() {}\n```\n",
        );
        assert_eq!(
            doc.text,
            "Заголовок один\n\nText with bold, code and a link.\nNext line.\n\nitem one\nitem two\n\na b\nc d\n\nfn main() {}"
        );
        assert_eq!(doc.title.as_deref(), Some("Заголовок один"));
        let at = |s: &str| doc.origin_at(doc.text.find(s).unwrap()).unwrap().place.paragraph;
        assert_eq!(
            (at("Заголовок"), at("Next"), at("item two"), at("c d"), at("fn")),
            (Some(1), Some(2), Some(4), Some(6), Some(7))
        );
    }

    #[test]
    fn html_comments_are_hidden_text() {
        let doc = md("Visible <!-- secret words --> text.\n\n<!--\nblock comment\n-->\n\n<div>html block</div>\n");
        assert_eq!(doc.text, "Visible  text.\n\nhtml block");
        let tricks: Vec<(Trick, usize)> = doc.bypasses().map(|(t, n, _)| (t, n)).collect();
        assert_eq!(tricks, [(Trick::HiddenText, 11 + 12)]);
    }

    #[test]
    fn sniffed_by_extension_then_by_content() {
        assert!(MarkdownExtractor.sniff("README.md", b"# Title"));
        assert!(MarkdownExtractor.sniff("notes.markdown", b"plain"));
        assert!(!MarkdownExtractor.sniff("notes.txt", b"# Title\n\n- one\n- two"));
        assert!(!MarkdownExtractor.sniff("x.md", b""));
        let markdown = b"# Notes\n\nSee [the guide](https://example.org/guide) and **this**.\n\n- one\n- two\n";
        assert!(MarkdownExtractor.sniff("upload.bin", markdown));
        assert!(MarkdownExtractor.sniff("upload", b"Title\n=====\n\n```\ncode\n```\n"));
        assert!(!MarkdownExtractor.sniff("script.py", markdown));
    }

    #[test]
    fn plain_text_stays_plain_text() {
        for text in [
            &b"Dear Anna,\n\nthe meeting is at 10. Bring:\n- the report\n- the slides\n\nBest, Ivan"[..],
            b"# Only one heading-like line\nand nothing else marked up.",
            b"#!/bin/sh\n# Install\n[ -f x ](y)\n- a\n",
            b"<html><body># Title\n[a](b)</body></html>",
            b"Chapter 1\n---------\n\n1. First point. 2. Second point.",
            b"x = a**b + c**d  # Python\n# comment with words\n",
        ] {
            assert!(!looks_like_markdown(text), "{}", String::from_utf8_lossy(text));
        }
        // A cut multi-byte character at the end of the head is fine.
        assert!(looks_like_markdown("# Заголовок\n\n[ссылка](https://x.org) Я".as_bytes().split_last().unwrap().1));
    }
}
