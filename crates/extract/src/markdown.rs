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

/// Extracts Markdown documents.
///
/// - Recognised by the name's extension (`.md`, `.markdown`, `.mdown`,
///   `.mkd`, `.mkdn`, `.mdwn`) on text content: Markdown has no magic
///   number, and a `.txt` file that happens to start with `# ` stays text.
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
        extension(name).is_some_and(|ext| EXTENSIONS.contains(&ext.as_str())) && !head.is_empty()
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
    fn sniffed_by_extension_only() {
        assert!(MarkdownExtractor.sniff("README.md", b"# Title"));
        assert!(MarkdownExtractor.sniff("notes.markdown", b"plain"));
        assert!(!MarkdownExtractor.sniff("notes.txt", b"# Title"));
        assert!(!MarkdownExtractor.sniff("x.md", b""));
    }
}
