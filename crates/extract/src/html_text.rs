//! Turning a parsed HTML tree into text: what to leave out, which elements
//! break lines, how whitespace collapses. Also a linear tag stripper for
//! pages too pathological to parse.

use dom_query::NodeRef;

use crate::Trick;

/// What to leave out when rendering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// A whole page: also drop navigation, header, footer, asides, ads.
    Page,
    /// Readability's article: already cleaned, keep its headers.
    Article,
}

/// Elements whose content is never text a reader sees as the document.
const NEVER_TEXT: &[&str] = &[
    "head", "title", "script", "style", "noscript", "template", "iframe", "object", "embed", "svg", "canvas", "select",
    "button", "input", "textarea", "audio", "video", "map", "datalist", "meta", "link",
];

/// Elements that are page furniture rather than content.
const FURNITURE: &[&str] = &["nav", "header", "footer", "aside", "menu"];

/// ARIA roles of page furniture.
const FURNITURE_ROLES: &[&str] =
    &["navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar", "toolbar"];

/// Class or id words of page furniture (matched as whole words).
const FURNITURE_NAMES: &[&str] = &[
    "ad",
    "ads",
    "advert",
    "adverts",
    "advertisement",
    "banner",
    "sidebar",
    "menu",
    "navbar",
    "navigation",
    "breadcrumb",
    "breadcrumbs",
    "cookie-banner",
    "cookies",
];

fn skipped(node: &NodeRef<'_>, tag: &str, mode: Mode) -> bool {
    if NEVER_TEXT.contains(&tag) || node.has_attr("hidden") {
        return true;
    }
    if node.attr("aria-hidden").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
        return true;
    }
    if mode == Mode::Article {
        return false;
    }
    if FURNITURE.contains(&tag) {
        return true;
    }
    if node.attr("role").is_some_and(|role| FURNITURE_ROLES.contains(&role.trim().to_ascii_lowercase().as_str())) {
        return true;
    }
    let names = [node.attr("class"), node.attr("id")];
    names
        .iter()
        .flatten()
        .any(|value| value.split_whitespace().any(|word| FURNITURE_NAMES.contains(&word.to_ascii_lowercase().as_str())))
}

/// How an inline `style` hides an element from a reader: `display:none` or
/// `visibility:hidden`, white colour, or a font of 2 pt (or px) and less.
pub(crate) fn hidden_by_style(node: &NodeRef<'_>) -> Option<Trick> {
    let style = node.attr("style")?;
    let style: String = style.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
    let mut trick = None;
    for declaration in style.split(';') {
        let Some((property, value)) = declaration.split_once(':') else { continue };
        let value = value.trim_end_matches("!important");
        match property {
            "display" if value == "none" => return Some(Trick::HiddenText),
            "visibility" if value == "hidden" || value == "collapse" => return Some(Trick::HiddenText),
            "color" if matches!(value, "#fff" | "#ffffff" | "white" | "rgb(255,255,255)" | "#ffffffff") => {
                trick = Some(Trick::WhiteText);
            }
            "font-size" => {
                let number = value.trim_end_matches(|c: char| c.is_ascii_alphabetic());
                let tiny = number.parse::<f32>().is_ok_and(|n| n <= 2.0)
                    && (value.ends_with("pt") || value.ends_with("px") || value == "0");
                if tiny {
                    trick = Some(Trick::TinyText);
                }
            }
            _ => {}
        }
    }
    trick
}

/// Replaces every element that an inline style hides (see [`render_with_hidden`]) with
/// a space, so that a later pass that ignores styles (Readability drops `style`
/// attributes) cannot bring hidden text back into the words around it.
pub(crate) fn remove_hidden(root: NodeRef<'_>) {
    let mut stack = vec![root];
    let mut hidden = Vec::new();
    while let Some(node) = stack.pop() {
        if node.is_element() && hidden_by_style(&node).is_some() {
            hidden.push(node);
            continue;
        }
        stack.extend(node.children_it(false));
    }
    for node in hidden {
        node.replace_with_html(" ");
    }
}

/// Text left out of a rendering because a reader would not see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hidden {
    /// How it was hidden.
    pub(crate) trick: Trick,
    /// Its characters, whitespace aside.
    pub(crate) chars: usize,
    /// Where in the rendered text it would have been (a byte offset).
    pub(crate) offset: usize,
}

/// How an element lays out its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    Inline,
    /// A block: this many line breaks before and after (1 = new line,
    /// 2 = blank line).
    Block(usize),
    /// A table cell: a space before and after.
    Cell,
    /// `<br>`: one more line break.
    LineBreak,
}

fn layout(tag: &str) -> Layout {
    match tag {
        "br" => Layout::LineBreak,
        "td" | "th" => Layout::Cell,
        "p" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "blockquote" | "pre" | "ul" | "ol" | "dl" | "table" | "hr"
        | "figure" | "address" | "fieldset" | "details" | "listing" | "plaintext" | "xmp" => Layout::Block(2),
        "div" | "li" | "dt" | "dd" | "tr" | "caption" | "figcaption" | "summary" | "legend" | "article" | "section"
        | "main" | "header" | "footer" | "nav" | "aside" | "form" | "center" | "body" | "html" | "thead" | "tbody"
        | "tfoot" | "option" | "dialog" | "hgroup" | "search" | "menu" | "dir" | "frameset" | "frame" | "optgroup" => {
            Layout::Block(1)
        }
        _ => Layout::Inline,
    }
}

/// One step of the iterative walk (deeply nested pages must not overflow
/// the stack).
enum Step<'a> {
    Open(NodeRef<'a>),
    Close { layout: Layout, pre: bool },
}

/// The visible text under `root`, laid out as [`HtmlExtractor`] describes.
#[allow(dead_code)] // for callers that do not report hidden text (EPUB chapters, tests)
pub(crate) fn render(root: NodeRef<'_>, mode: Mode) -> String {
    render_with_hidden(root, mode).0
}

/// The visible text under `root` and the text left out as hidden (inline
/// styles: `display:none`, `visibility:hidden`, white colour, tiny fonts).
/// Hidden text is counted only in content elements (paragraphs, headings,
/// cells, inline elements): hidden menus and dialogs are `div`s and lists.
pub(crate) fn render_with_hidden(root: NodeRef<'_>, mode: Mode) -> (String, Vec<Hidden>) {
    let mut hidden = Vec::new();
    let mut out = TextBuilder::default();
    let mut stack: Vec<Step<'_>> = root.children_it(true).map(Step::Open).collect();
    let mut pre_depth = 0usize;
    while let Some(step) = stack.pop() {
        let node = match step {
            Step::Close { layout, pre } => {
                pre_depth -= usize::from(pre);
                out.close(layout);
                continue;
            }
            Step::Open(node) => node,
        };
        if node.is_text() {
            let text = node.text();
            if pre_depth > 0 {
                out.verbatim(&text);
            } else {
                out.text(&text);
            }
            continue;
        }
        if !node.is_element() {
            continue;
        }
        let Some(tag) = node.node_name() else {
            continue;
        };
        let tag = tag.to_ascii_lowercase();
        if skipped(&node, &tag, mode) {
            continue;
        }
        let layout = layout(&tag);
        if let Some(trick) = hidden_by_style(&node) {
            if layout != Layout::Block(1) {
                let chars = node.text().chars().filter(|c| !c.is_whitespace()).count();
                if chars > 0 {
                    hidden.push(Hidden { trick, chars, offset: out.out.len() });
                }
            }
            // Hidden text still separates the words around it.
            out.space = true;
            continue;
        }
        out.open(layout);
        let pre = matches!(tag.as_str(), "pre" | "listing" | "plaintext" | "xmp");
        pre_depth += usize::from(pre);
        stack.push(Step::Close { layout, pre });
        stack.extend(node.children_it(true).map(Step::Open));
    }
    (out.finish(), hidden)
}

/// Builds text from a walk: collapses whitespace, merges line breaks.
#[derive(Debug, Default)]
struct TextBuilder {
    out: String,
    /// Whitespace seen since the last character.
    space: bool,
    /// Line breaks requested since the last character.
    breaks: usize,
}

impl TextBuilder {
    fn open(&mut self, layout: Layout) {
        match layout {
            Layout::Inline => {}
            Layout::Block(n) => self.breaks = self.breaks.max(n),
            Layout::Cell => self.space = true,
            Layout::LineBreak => self.breaks += 1,
        }
    }

    fn close(&mut self, layout: Layout) {
        if layout != Layout::LineBreak {
            self.open(layout);
        }
    }

    /// Text outside `pre`: runs of HTML whitespace become one space.
    fn text(&mut self, text: &str) {
        for c in text.chars() {
            if matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{0C}') {
                self.space = true;
            } else {
                self.flush();
                self.out.push(c);
            }
        }
    }

    /// Text inside `pre`, kept as it is.
    fn verbatim(&mut self, text: &str) {
        if !text.is_empty() {
            self.flush();
            self.out.push_str(text);
        }
    }

    /// Writes the pending separator before a character.
    fn flush(&mut self) {
        if !self.out.is_empty() {
            if self.breaks > 0 {
                for _ in 0..self.breaks.min(2) {
                    self.out.push('\n');
                }
            } else if self.space {
                self.out.push(' ');
            }
        }
        self.breaks = 0;
        self.space = false;
    }

    fn finish(mut self) -> String {
        let end = self.out.trim_end().len();
        self.out.truncate(end);
        self.out
    }
}

/// Whether no element under `root` is nested deeper than `max`.
pub(crate) fn depth_within(root: NodeRef<'_>, max: usize) -> bool {
    let mut stack = vec![(root, 0usize)];
    while let Some((node, depth)) = stack.pop() {
        if depth > max {
            return false;
        }
        stack.extend(node.children_it(false).map(|child| (child, depth + 1)));
    }
    true
}

/// Elements without content (no end tag), or closed implicitly by the next
/// sibling: neither deepens the tree for long.
const NOT_NESTING: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr", "p",
    "li", "dt", "dd", "tr", "td", "th", "option", "optgroup", "thead", "tbody", "tfoot", "colgroup", "rb", "rt", "rp",
];

/// Whether parsing `html` into a tree would take time far beyond its size.
///
/// The HTML tree builder walks the stack of open elements for most start
/// tags, so its work grows with the sum, over start tags, of the nesting
/// depth: quadratic for thousands of unclosed `<div>`s (20 000 of them took
/// 8 s). This linear pass estimates that sum from the tags alone and says
/// whether it exceeds a budget proportional to the input (ordinary pages use
/// well under one unit per byte).
pub(crate) fn too_costly_to_parse(html: &str) -> bool {
    const UNITS_PER_BYTE: usize = 16;
    const FREE_UNITS: usize = 1_000_000;
    let budget = html.len().saturating_mul(UNITS_PER_BYTE).saturating_add(FREE_UNITS);
    let bytes = html.as_bytes();
    let mut depth = 0usize;
    let mut cost = 0usize;
    let mut pos = 0;
    while let Some(found) = bytes.get(pos..).and_then(|rest| memchr(b'<', rest)) {
        pos += found + 1;
        let closing = bytes.get(pos) == Some(&b'/');
        let name = tag_name(bytes.get(pos + usize::from(closing)..).unwrap_or_default());
        if name.is_empty() || NOT_NESTING.iter().any(|n| n.as_bytes().eq_ignore_ascii_case(name)) {
            continue;
        }
        if closing {
            depth = depth.saturating_sub(1);
        } else {
            depth += 1;
            cost = cost.saturating_add(depth);
            if cost > budget {
                return true;
            }
        }
    }
    false
}

fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|b| *b == needle)
}

/// The tag name at the start of `bytes`: ASCII letters, then letters,
/// digits and dashes.
fn tag_name(bytes: &[u8]) -> &[u8] {
    if !bytes.first().is_some_and(u8::is_ascii_alphabetic) {
        return &[];
    }
    let len = bytes.iter().position(|b| !(b.is_ascii_alphanumeric() || *b == b'-')).unwrap_or(bytes.len());
    bytes.get(..len).unwrap_or_default()
}

/// Elements whose raw content the stripper skips up to the end tag.
const RAW_SKIPPED: &[&str] =
    &["script", "style", "noscript", "template", "textarea", "title", "xmp", "iframe", "noembed", "noframes"];

/// Text of `html` without building a tree, in linear time: for pages
/// [`too_costly_to_parse`]. Tags are dropped, the content of scripts,
/// styles and the like is skipped, block tags break lines as in
/// [`render`], entities are decoded. No main-content or furniture detection.
pub(crate) fn strip_tags(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut out = TextBuilder::default();
    let mut pos = 0;
    while pos < bytes.len() {
        let next = bytes.get(pos..).and_then(|rest| memchr(b'<', rest)).map_or(bytes.len(), |found| pos + found);
        if let Some(text) = html.get(pos..next) {
            out.text(&html_escape::decode_html_entities(text));
        }
        pos = next;
        if pos >= bytes.len() {
            break;
        }
        let rest = bytes.get(pos..).unwrap_or_default();
        if rest.starts_with(b"<!--") {
            pos = find_from(bytes, pos + 4, b"-->").map_or(bytes.len(), |end| end + 3);
            continue;
        }
        let closing = rest.get(1) == Some(&b'/');
        let name = tag_name(rest.get(1 + usize::from(closing)..).unwrap_or_default());
        if name.is_empty() && !matches!(rest.get(1), Some(b'!' | b'?')) {
            // A lone '<' is text.
            out.text("<");
            pos += 1;
            continue;
        }
        let tag_end = memchr(b'>', rest).map_or(bytes.len(), |end| pos + end + 1);
        let name = std::str::from_utf8(name).unwrap_or_default();
        if !closing && RAW_SKIPPED.contains(&name) {
            let end_tag = format!("</{name}");
            pos = find_from(bytes, tag_end, end_tag.as_bytes())
                .and_then(|start| find_from(bytes, start, b">"))
                .map_or(bytes.len(), |end| end + 1);
            continue;
        }
        let layout = layout(name);
        if closing {
            out.close(layout);
        } else {
            out.open(layout);
        }
        pos = tag_end;
    }
    out.finish()
}

fn find_from(haystack: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    let rest = haystack.get(from..)?;
    rest.windows(needle.len()).position(|window| window == needle).map(|found| from + found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dom_query::Document;

    fn page_text(html: &str) -> String {
        let document = Document::from(html);
        render(document.root(), Mode::Page)
    }

    #[test]
    fn blocks_become_line_breaks() {
        let html = "<p>One</p><p>Two<br>three</p><ul><li>a</li><li>b</li></ul>\
                    <div>x</div><div>y</div><table><tr><td>c1</td><td>c2</td></tr></table>";
        assert_eq!(page_text(html), "One\n\nTwo\nthree\n\na\nb\n\nx\ny\n\nc1 c2");
    }

    #[test]
    fn whitespace_collapses_outside_pre() {
        assert_eq!(page_text("<p>  a \n\t b  </p>"), "a b");
        assert_eq!(page_text("<pre>a\n   b</pre>"), "a\n   b");
        assert_eq!(page_text("<span>ab</span><span>cd</span>"), "abcd");
    }

    #[test]
    fn entities_are_decoded() {
        assert_eq!(page_text("<p>caf&eacute; &amp; &#1044;&#x430;</p>"), "café & Да");
    }

    #[test]
    fn furniture_is_dropped_from_the_page() {
        let html = "<nav>Menu</nav><header>Head</header><div class='ad big'>Buy</div>\
                    <div role=navigation>Links</div><p hidden>secret</p>\
                    <p style='display: none'>gone</p><main><p>Body</p></main>\
                    <script>var x;</script><style>p{}</style><footer>Foot</footer>";
        assert_eq!(page_text(html), "Body");
    }

    #[test]
    fn deep_nesting_is_walked_without_recursion() {
        let html = format!("{}deep{}", "<div>".repeat(3_000), "</div>".repeat(3_000));
        let document = Document::from(html.as_str());
        assert!(!depth_within(document.root(), 256));
        assert_eq!(render(document.root(), Mode::Page), "deep");
    }

    #[test]
    fn pathological_nesting_is_detected_in_linear_time() {
        let deep = format!("{}deep{}", "<div>".repeat(20_000), "</div>".repeat(20_000));
        assert!(too_costly_to_parse(&deep));
        let flat = "<div><p>text<br>more</p></div>".repeat(20_000);
        assert!(!too_costly_to_parse(&flat));
        let unclosed = "<p>para<li>item<td>cell".repeat(20_000);
        assert!(!too_costly_to_parse(&unclosed));
    }

    #[test]
    fn stripper_keeps_text_and_breaks_blocks() {
        let html = "<html><head><title>T</title><style>p{}</style></head><body>\
                    <p>One &amp; <b>two</b></p><!-- note --><script>if (a < b) x();</script>\
                    <div>three<br>four</div> 1 < 2 <td>c</td><td>d</td></body></html>";
        assert_eq!(strip_tags(html), "One & two\n\nthree\nfour\n1 < 2 c d");
        assert_eq!(strip_tags("<div"), "");
        assert_eq!(strip_tags("<script>never closed"), "");
        assert_eq!(strip_tags("a<!-- open"), "a");
    }
}
