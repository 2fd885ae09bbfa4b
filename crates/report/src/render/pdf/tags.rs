//! The tagged PDF (PDF/UA-1): the structure tree of the report's elements in reading
//! order, which marked-content sequences (MCIDs) of which page each one holds, and what is
//! drawn only as decoration or page furniture (an artifact). Layout builds the tree as it
//! draws; the writer wraps every drawing operation in its marked content and writes the
//! tree, its `ParentTree` and the XMP metadata.

use pdf_writer::types::{StructRole, TableHeaderScope};
use pdf_writer::writers::StructTreeRoot;
use pdf_writer::{Finish, Pdf, Rect, Ref, TextStr};
use tessera_normalize::{Normalizer, NormalizerConfig};

use super::PAGE_H;

/// A structure element, by its place in the [`Tree`].
pub(super) type NodeId = usize;

/// What a drawing operation is to a reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tag {
    /// Decoration: rules, the fills and underlines of passages (their elements say what
    /// they mean), bars, the swatches behind numbers. Marked `/Artifact`.
    Artifact,
    /// The footer of every page: a pagination artifact.
    Footer,
    /// Drawn again after a page break (the source table's header row): a pagination
    /// artifact.
    Repeated,
    /// Content of element `node`: the marked-content sequence `mcid` of its page.
    Content { node: NodeId, mcid: i32 },
}

/// A child of an element: an element, or a marked-content sequence of a page.
enum Kid {
    Node(NodeId),
    Content { page: usize, mcid: i32 },
}

struct Node {
    role: StructRole,
    /// The root's parent is itself.
    parent: NodeId,
    /// In its parent's kids (an element is placed there when its first content is
    /// drawn, so the kids follow the drawing order, which is the reading order).
    attached: bool,
    kids: Vec<Kid>,
    /// `/T`: what a highlighted passage is (its source, its kind).
    title: Option<String>,
    /// `/Alt` of a figure.
    alt: Option<String>,
    /// `/ActualText`: what a numbered badge says in words.
    actual_text: Option<String>,
    /// `/Lang` (ISO 639-1), written where it differs from the enclosing element's.
    lang: Option<String>,
    /// A table header cell whose scope is its column.
    column_header: bool,
    /// The bounding box of a figure or a table on one page: page, and `[x, top, w, h]`
    /// in layout coordinates (y down from the page's top).
    bbox: Option<(usize, [f32; 4])>,
}

/// The structure tree: the `Document` element at the root, every other element under
/// the one that encloses it.
pub(super) struct Tree {
    nodes: Vec<Node>,
    /// How many MCIDs each page has given out.
    mcids: Vec<i32>,
}

impl Tree {
    /// The `Document` element.
    pub(super) const ROOT: NodeId = 0;

    pub(super) fn new() -> Self {
        let mut tree = Self { nodes: Vec::new(), mcids: Vec::new() };
        tree.add(StructRole::Document, Self::ROOT);
        tree.nodes[Self::ROOT].attached = true;
        tree
    }

    /// A new element under `parent`; it joins `parent`'s kids with its first content
    /// (or when [`attach`](Self::attach)ed).
    pub(super) fn add(&mut self, role: StructRole, parent: NodeId) -> NodeId {
        self.nodes.push(Node {
            role,
            parent,
            attached: false,
            kids: Vec::new(),
            title: None,
            alt: None,
            actual_text: None,
            lang: None,
            column_header: false,
            bbox: None,
        });
        self.nodes.len() - 1
    }

    pub(super) fn role(&self, node: NodeId) -> StructRole {
        self.nodes[node].role
    }

    pub(super) fn set_title(&mut self, node: NodeId, title: String) {
        self.nodes[node].title = Some(title);
    }

    pub(super) fn set_alt(&mut self, node: NodeId, alt: &str) {
        self.nodes[node].alt = Some(alt.to_owned());
    }

    pub(super) fn set_actual_text(&mut self, node: NodeId, text: String) {
        self.nodes[node].actual_text = Some(text);
    }

    pub(super) fn set_lang(&mut self, node: NodeId, lang: Option<String>) {
        self.nodes[node].lang = lang;
    }

    pub(super) fn set_column_header(&mut self, node: NodeId) {
        self.nodes[node].column_header = true;
    }

    pub(super) fn set_bbox(&mut self, node: NodeId, page: usize, x: f32, top: f32, w: f32, h: f32) {
        self.nodes[node].bbox = Some((page, [x, top, w, h]));
    }

    /// Places `node` (and its enclosing elements not placed yet) among its parent's kids
    /// now: a table's rows and cells, which keep their places even when empty.
    pub(super) fn attach(&mut self, node: NodeId) {
        let mut chain = Vec::new();
        let mut at = node;
        while !self.nodes[at].attached {
            chain.push(at);
            at = self.nodes[at].parent;
        }
        for &n in chain.iter().rev() {
            self.nodes[n].attached = true;
            let parent = self.nodes[n].parent;
            self.nodes[parent].kids.push(Kid::Node(n));
        }
    }

    /// The tag of one more drawing operation of `node` on page `page`: the sequence of
    /// `last` (the page's last operation so far) when that is `node`'s, else a new one.
    pub(super) fn content(&mut self, node: NodeId, page: usize, last: Option<Tag>) -> Tag {
        if let Some(tag @ Tag::Content { node: n, .. }) = last
            && n == node
        {
            return tag;
        }
        if self.mcids.len() <= page {
            self.mcids.resize(page + 1, 0);
        }
        let mcid = self.mcids[page];
        self.mcids[page] += 1;
        self.attach(node);
        self.nodes[node].kids.push(Kid::Content { page, mcid });
        Tag::Content { node, mcid }
    }

    /// The language `node`'s text is read in: its own or its nearest enclosing one's.
    fn lang_of<'a>(&'a self, node: NodeId, document: &'a str) -> &'a str {
        let mut at = node;
        loop {
            if let Some(lang) = &self.nodes[at].lang {
                return lang;
            }
            if at == Self::ROOT {
                return document;
            }
            at = self.nodes[at].parent;
        }
    }

    /// Writes the tree: the `StructTreeRoot` at `root_id`, one object per element that
    /// holds content, and the `ParentTree` (for page `p`, whose `/StructParents` is `p`,
    /// the element of each of its MCIDs). `lang` is the catalog's `/Lang`.
    pub(super) fn write(&self, pdf: &mut Pdf, root_id: Ref, alloc: &mut dyn FnMut() -> Ref, pages: &[Ref], lang: &str) {
        let ids: Vec<Option<Ref>> = self.nodes.iter().map(|n| n.attached.then(&mut *alloc)).collect();
        let mut parents: Vec<Vec<Option<Ref>>> =
            pages.iter().enumerate().map(|(p, _)| vec![None; self.mcids.get(p).map_or(0, |&n| n as usize)]).collect();
        for (n, node) in self.nodes.iter().enumerate() {
            let Some(id) = ids[n] else { continue };
            let mut element = pdf.struct_element(id);
            element.kind(node.role);
            element.parent(if n == Self::ROOT { root_id } else { ids[node.parent].unwrap_or(root_id) });
            let page = node.kids.iter().find_map(|k| match k {
                Kid::Content { page, .. } => Some(*page),
                Kid::Node(_) => None,
            });
            if let Some(page) = page {
                element.page(pages[page]);
            }
            if let Some(title) = &node.title {
                element.title(TextStr(title));
            }
            if let Some(alt) = &node.alt {
                element.alt(TextStr(alt));
            }
            if let Some(text) = &node.actual_text {
                element.actual_text(TextStr(text));
            }
            if let Some(own) = &node.lang {
                let around = if n == Self::ROOT { lang } else { self.lang_of(node.parent, lang) };
                if own != around {
                    element.lang(TextStr(own));
                }
            }
            if node.column_header || node.bbox.is_some() {
                let mut attributes = element.attributes();
                if node.column_header {
                    attributes.push().table().scope(TableHeaderScope::Column);
                }
                if let Some((_, [x, top, w, h])) = node.bbox {
                    attributes.push().layout().bbox(Rect::new(x, PAGE_H - top - h, x + w, PAGE_H - top));
                }
                attributes.finish();
            }
            if !node.kids.is_empty() {
                let mut kids = element.children();
                for kid in &node.kids {
                    match *kid {
                        Kid::Node(k) => {
                            if let Some(k) = ids[k] {
                                kids.struct_element(k);
                            }
                        }
                        Kid::Content { page: p, mcid } => {
                            if Some(p) == page {
                                kids.marked_content_id(mcid);
                            } else {
                                kids.marked_content_ref().page(pages[p]).marked_content_id(mcid);
                            }
                            if let Some(slot) = parents.get_mut(p).and_then(|v| v.get_mut(mcid as usize)) {
                                *slot = Some(id);
                            }
                        }
                    }
                }
                kids.finish();
            }
            element.finish();
        }

        let arrays: Vec<Ref> = parents.iter().map(|_| alloc()).collect();
        for (refs, &id) in parents.iter().zip(&arrays) {
            pdf.indirect(id).array().items(refs.iter().map(|r| r.unwrap_or(root_id)));
        }
        let mut root = pdf.indirect(root_id).start::<StructTreeRoot>();
        if let Some(document) = ids[Self::ROOT] {
            root.child(document);
        }
        let mut tree = root.parent_tree();
        let mut nums = tree.nums();
        for (p, &id) in arrays.iter().enumerate() {
            nums.insert(i32::try_from(p).unwrap_or(i32::MAX), id);
        }
        nums.finish();
        tree.finish();
        root.parent_tree_next_key(i32::try_from(pages.len()).unwrap_or(i32::MAX));
    }
}

/// The language of pieces of the report's text (ISO 639-1), detected as the index
/// detects a document's (tessera-normalize: a stop-word check for English and Russian,
/// else `whatlang` when it is sure), for the `/Lang` of the text that is not English.
pub(super) struct Languages {
    normalizer: Option<Normalizer>,
    /// The language of the document's whole text: that of its pieces too short to tell.
    pub(super) text: Option<String>,
}

/// Bytes of a piece looked at: detection reads a sample from the middle anyway.
const SAMPLE: usize = 4096;

impl Languages {
    pub(super) fn new(document: &str) -> Self {
        let config = NormalizerConfig { stemming: false, ..NormalizerConfig::default() };
        // A default configuration is valid; without a normalizer no language is given.
        let mut languages = Self { normalizer: Normalizer::new(config).ok(), text: None };
        languages.text = languages.detect(document);
        languages
    }

    /// The language of `text`, when detection is sure of it.
    pub(super) fn detect(&mut self, text: &str) -> Option<String> {
        let normalizer = self.normalizer.as_mut()?;
        let sample = if text.len() > SAMPLE {
            let start = text.floor_char_boundary((text.len() - SAMPLE) / 2);
            &text[start..text.floor_char_boundary(start + SAMPLE)]
        } else {
            text
        };
        normalizer.normalize(sample).language
    }

    /// The language of `text`, else (too short to tell) the document's.
    pub(super) fn of(&mut self, text: &str) -> Option<String> {
        self.detect(text).or_else(|| self.text.clone())
    }
}

/// The XMP metadata packet: the title (`dc:title`, as the document information's), the
/// language, the tools, the date of the check and the PDF/UA-1 identification
/// (`pdfuaid:part`). Written by hand: a dozen fixed lines do not need the `xmp-writer`
/// crate.
pub(super) fn xmp(title: &str, lang: &str, created: Option<&str>) -> Vec<u8> {
    let date = created.map_or_else(String::new, |d| format!("\n   <xmp:CreateDate>{d}</xmp:CreateDate>"));
    format!(
        "<?xpacket begin=\"\u{feff}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>
<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">
 <rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">
  <rdf:Description rdf:about=\"\"
    xmlns:dc=\"http://purl.org/dc/elements/1.1/\"
    xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\"
    xmlns:pdf=\"http://ns.adobe.com/pdf/1.3/\"
    xmlns:pdfuaid=\"http://www.aiim.org/pdfua/ns/id/\">
   <dc:format>application/pdf</dc:format>
   <dc:title><rdf:Alt><rdf:li xml:lang=\"x-default\">{}</rdf:li></rdf:Alt></dc:title>
   <dc:language><rdf:Bag><rdf:li>{}</rdf:li></rdf:Bag></dc:language>
   <xmp:CreatorTool>Tessera</xmp:CreatorTool>{date}
   <pdf:Producer>Tessera</pdf:Producer>
   <pdfuaid:part>1</pdfuaid:part>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end=\"w\"?>",
        escape_xml(title),
        escape_xml(lang)
    )
    .into_bytes()
}

/// `text` as XML character data (and attribute values); characters XML 1.0 forbids
/// (control characters other than tab and line breaks) are left out.
fn escape_xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() || c == '\u{fffe}' || c == '\u{ffff}' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_join_their_parents_in_drawing_order() {
        let mut tree = Tree::new();
        let first = tree.add(StructRole::P, Tree::ROOT);
        let second = tree.add(StructRole::P, Tree::ROOT);
        // The second paragraph is drawn first: it reads first.
        let a = tree.content(second, 0, None);
        assert_eq!(a, Tag::Content { node: second, mcid: 0 });
        // One more operation of the same element right after: the same sequence.
        assert_eq!(tree.content(second, 0, Some(a)), a);
        let b = tree.content(first, 0, Some(a));
        assert_eq!(b, Tag::Content { node: first, mcid: 1 });
        // MCIDs count per page.
        assert_eq!(tree.content(first, 1, Some(Tag::Footer)), Tag::Content { node: first, mcid: 0 });
        let kids: Vec<NodeId> = tree.nodes[Tree::ROOT]
            .kids
            .iter()
            .filter_map(|k| if let Kid::Node(n) = k { Some(*n) } else { None })
            .collect();
        assert_eq!(kids, vec![second, first]);
        // An element never drawn is not in the tree; an attached one is, in its place.
        let empty = tree.add(StructRole::P, Tree::ROOT);
        assert!(!tree.nodes[empty].attached);
        let row = tree.add(StructRole::TR, Tree::ROOT);
        let cell = tree.add(StructRole::TD, row);
        tree.attach(cell);
        assert!(tree.nodes[row].attached && tree.nodes[cell].attached);
    }

    #[test]
    fn xmp_escapes_the_title() {
        let xmp = String::from_utf8(xmp("Tom & \"Jerry\" <1>\u{1}", "en", Some("2025-11-25T14:00:00Z"))).unwrap();
        assert!(xmp.contains("Tom &amp; &quot;Jerry&quot; &lt;1&gt;</rdf:li>"), "{xmp}");
        assert!(xmp.contains("<pdfuaid:part>1</pdfuaid:part>"));
        assert!(xmp.contains("<xmp:CreateDate>2025-11-25T14:00:00Z</xmp:CreateDate>"));
    }

    #[test]
    fn languages_are_detected_when_sure() {
        let mut languages = Languages::new(
            &"Все счастливые семьи похожи друг на друга, каждая несчастливая семья несчастлива по-своему. ".repeat(4),
        );
        assert_eq!(languages.text.as_deref(), Some("ru"));
        let english = "It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of foolishness, it was the epoch of belief.";
        assert_eq!(languages.of(english).as_deref(), Some("en"));
        // Too short to tell: the document's language.
        assert_eq!(languages.of("Глава 1").as_deref(), Some("ru"));
    }
}
