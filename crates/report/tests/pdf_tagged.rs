//! The PDF report is tagged (PDF/UA-1), read back with lopdf: the catalog (marked, its
//! language, the title shown, XMP metadata with `pdfuaid:part` 1), every page (`/Tabs
//! /S`, `/StructParents`), every drawing operation in the marked content of one
//! structure element or of an artifact, every MCID owned by exactly one element whose
//! page is its page (and so in the `ParentTree`), and the text read by walking the tree
//! in the report's reading order.
#![allow(clippy::unwrap_used)]

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::*;
use lopdf::content::Content;
use lopdf::{Dictionary, Document, Object, ObjectId, decode_text_string};
use proptest::prelude::*;
use tessera_core::CollectionKind;
use tessera_report::{Notice, NoticeLocation, PdfRenderer, Render, Report, ReportOptions, SourceInfo, SuspectInfo};

fn render(report: &Report) -> Vec<u8> {
    let mut out = Vec::new();
    PdfRenderer::checked_at(1_764_079_200_000).render(report, &mut out).unwrap();
    out
}

/// An essay over several pages: a Russian paragraph and an English one per part, each
/// Russian one borrowed from its own source, an English sentence cited, a notice with a
/// place in the text and a place where hidden text was left out, and a long conclusion.
fn essay() -> Report {
    let mut text = String::new();
    let mut sources = Vec::new();
    let mut infos = Vec::new();
    for i in 0..10 {
        text.push_str(&format!("Часть {i}. "));
        let start = text.chars().count();
        text.push_str(RU);
        let doc = 100 + i as u64;
        sources.push(source_match(doc, vec![same(&text, start, start + 120)]));
        infos.push(info(doc, "books", CollectionKind::Source, &format!("Книга {i}"), &format!("library/{i}.txt")));
        text.push_str(&format!("\n\nPart {i}. {EN}\n\n"));
    }
    // A last paragraph longer than a page: its element has content on two pages.
    text.push_str("The end, in my own words.");
    for _ in 0..150 {
        text.push_str(" My own conclusion goes on and on, a sentence at a time.");
    }
    let quote = find(&text, "Part 3. It was the best of times");
    let citation = vec![source_match(900, vec![same(&text, quote.chars.start + 8, quote.chars.end)])];
    infos.push(info(900, "quotes", CollectionKind::Citation, "Famous opening lines", "quotes/openings.txt"));
    let notice = Notice {
        kind: "homoglyphs".into(),
        bypass: true,
        message: "look-alike letters: 3 word(s)".into(),
        count: 3,
        locations: vec![
            NoticeLocation { span: find(&text, "Part 5. It was"), page: None, paragraph: Some(11) },
            NoticeLocation { span: span(&text, quote.chars.start, quote.chars.start), page: None, paragraph: None },
        ],
    };
    let revisions = vec![
        revision("books", CollectionKind::Source, sources),
        revision("quotes", CollectionKind::Citation, citation),
    ];
    let suspect = SuspectInfo::new("essay.docx", "Эссе о семье", text).with_warnings(vec![notice]);
    Report::build(suspect, &revisions, &infos, &ReportOptions::default())
}

/// A rewording with its sentence pairs and the source's text kept: a table of sentence
/// pairs, and excerpts with word changes and carets.
fn bees() -> Report {
    let intro = "My own opening words about bees and their habits. ";
    let reworded = "A colony of honey bees has a single queen. Worker bees gather nectar from many flowers.";
    let suspect = format!("{intro}{reworded} My own closing words.");
    let source = "Each colony has one queen. The worker bees collect nectar from the flowers around.";
    let s0 = intro.chars().count();
    let s1 = s0 + reworded.chars().count();
    let mut b = block(&suspect, s0, s1, span(source, 0, source.chars().count()));
    b.evidence = tessera_search::Evidence {
        suspect_terms: 12,
        source_terms: 10,
        shared_terms: 6,
        rare_shared_terms: 4,
        order: 1.0,
        cosine: 0.6,
        sentences: true,
        ..tessera_search::Evidence::default()
    };
    let first = "A colony of honey bees has a single queen.".chars().count();
    let second = "Each colony has one queen.".chars().count();
    b.pairs = vec![
        tessera_search::SentencePair {
            suspect: span(&suspect, s0, s0 + first),
            source: span(source, 0, second),
            cosine: 0.5,
            words: Vec::new(),
        },
        tessera_search::SentencePair {
            suspect: span(&suspect, s0 + first + 1, s1),
            source: span(source, second + 1, source.chars().count()),
            cosine: 0.6,
            words: Vec::new(),
        },
    ];
    Report::build(
        SuspectInfo::new("bees.txt", "Bees", suspect.clone()),
        &[revision("web", CollectionKind::Source, vec![source_match(7, vec![b])])],
        &[SourceInfo {
            text: Some(source.to_owned()),
            ..info(7, "web", CollectionKind::Source, "The honey bee", "https://example.org/bees")
        }],
        &ReportOptions::default(),
    )
}

/// A structure element as read back.
#[derive(Debug)]
struct Element {
    role: String,
    lang: Option<String>,
    alt: Option<String>,
    title: Option<String>,
    /// Its text: its `/ActualText`, else its marked content and its kids' in order.
    text: String,
}

/// What a tagged PDF says, checked on the way.
struct Tagged {
    /// The text read by walking the tree (whitespace left out: lines are drawn apart).
    reading: String,
    /// Every element, in the tree's order.
    elements: Vec<Element>,
    /// How many elements have content on more than one page.
    spanning: usize,
}

impl Tagged {
    fn with_role(&self, role: &str) -> Vec<&Element> {
        self.elements.iter().filter(|e| e.role == role).collect()
    }

    /// Where `needle` (whitespace left out) is in the reading text.
    fn at(&self, needle: &str) -> usize {
        let needle = squeeze(needle);
        self.reading.find(&needle).unwrap_or_else(|| panic!("{needle:?} not read in {}", self.reading))
    }
}

fn squeeze(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

fn name(object: &Object) -> String {
    String::from_utf8(object.as_name().unwrap().to_vec()).unwrap()
}

fn text_of(dict: &Dictionary, key: &[u8]) -> Option<String> {
    dict.get(key).ok().map(|o| decode_text_string(o).unwrap())
}

/// A font's `ToUnicode` map: CID to text.
fn to_unicode(doc: &Document, font: &Dictionary) -> BTreeMap<u16, String> {
    let stream = doc.get_object(font.get(b"ToUnicode").unwrap().as_reference().unwrap()).unwrap().as_stream().unwrap();
    let cmap = String::from_utf8(stream.decompressed_content().unwrap_or_else(|_| stream.content.clone())).unwrap();
    let mut map = BTreeMap::new();
    for section in cmap.split("beginbfchar").skip(1) {
        let section = section.split("endbfchar").next().unwrap();
        let hexes: Vec<&str> = section
            .split(['<', '>'])
            .map(str::trim)
            .filter(|s| !s.is_empty() && !s.contains(char::is_whitespace))
            .collect();
        for pair in hexes.chunks(2) {
            let cid = u16::from_str_radix(pair[0], 16).unwrap();
            let units: Vec<u16> =
                (0..pair[1].len() / 4).map(|i| u16::from_str_radix(&pair[1][i * 4..i * 4 + 4], 16).unwrap()).collect();
            map.insert(cid, String::from_utf16(&units).unwrap());
        }
    }
    map
}

/// One open marked-content sequence.
struct Marked {
    mcid: Option<i64>,
    artifact: bool,
    actual_text: Option<String>,
}

/// Reads `bytes` as a tagged PDF and checks it; panics on the first fault.
fn check(bytes: &[u8]) -> Tagged {
    let doc = Document::load_mem(bytes).unwrap();
    let catalog = doc.catalog().unwrap();

    // The catalog: tagged, its language, its title shown, its metadata.
    let mark_info = doc.dereference(catalog.get(b"MarkInfo").unwrap()).unwrap().1.as_dict().unwrap();
    assert!(mark_info.get(b"Marked").unwrap().as_bool().unwrap(), "MarkInfo /Marked true");
    assert_eq!(text_of(catalog, b"Lang").as_deref(), Some("en"));
    let prefs = doc.dereference(catalog.get(b"ViewerPreferences").unwrap()).unwrap().1.as_dict().unwrap();
    assert!(prefs.get(b"DisplayDocTitle").unwrap().as_bool().unwrap());
    let info = doc.get_dictionary(doc.trailer.get(b"Info").unwrap().as_reference().unwrap()).unwrap();
    let title = text_of(info, b"Title").unwrap();
    let metadata = doc.get_object(catalog.get(b"Metadata").unwrap().as_reference().unwrap()).unwrap();
    let metadata = metadata.as_stream().unwrap();
    assert_eq!(metadata.dict.get(b"Subtype").map(name).unwrap(), "XML");
    let xmp = String::from_utf8(metadata.content.clone()).unwrap();
    assert!(xmp.contains("<pdfuaid:part>1</pdfuaid:part>"), "{xmp}");
    let escaped = title.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;");
    assert!(xmp.contains(&format!("<rdf:li xml:lang=\"x-default\">{escaped}</rdf:li>")), "dc:title {title:?} in {xmp}");

    // Every page: structure order for tabs, its key in the ParentTree; its content: every
    // painting operation inside marked content, tagged (an MCID) or an artifact, never
    // both; each MCID once; the text of each MCID.
    let pages: Vec<ObjectId> = doc.get_pages().values().copied().collect();
    let mut keys = BTreeMap::new();
    let mut texts: BTreeMap<(ObjectId, i64), String> = BTreeMap::new();
    let mut marked = BTreeSet::new();
    for &page_id in &pages {
        let page = doc.get_dictionary(page_id).unwrap();
        assert_eq!(page.get(b"Tabs").map(name).unwrap(), "S", "page /Tabs /S");
        keys.insert(page.get(b"StructParents").unwrap().as_i64().unwrap(), page_id);
        let resources = doc.dereference(page.get(b"Resources").unwrap()).unwrap().1.as_dict().unwrap();
        let fonts = doc.dereference(resources.get(b"Font").unwrap()).unwrap().1.as_dict().unwrap();
        let maps: BTreeMap<Vec<u8>, BTreeMap<u16, String>> = fonts
            .iter()
            .map(|(k, v)| (k.clone(), to_unicode(&doc, doc.get_dictionary(v.as_reference().unwrap()).unwrap())))
            .collect();
        let content = Content::decode(&doc.get_page_content(page_id)).unwrap();
        let mut stack: Vec<Marked> = Vec::new();
        let mut font: Option<Vec<u8>> = None;
        let mut seen = BTreeSet::new();
        for op in &content.operations {
            let mcid = stack.iter().rev().find_map(|m| m.mcid);
            let artifact = stack.iter().any(|m| m.artifact);
            match op.operator.as_str() {
                "BDC" | "BMC" => {
                    let tag = name(&op.operands[0]);
                    let props = op.operands.get(1).map(|o| o.as_dict().unwrap());
                    let own = props.and_then(|p| p.get(b"MCID").ok()).map(|m| m.as_i64().unwrap());
                    if let Some(own) = own {
                        assert!(mcid.is_none() && !artifact, "MCID {own} inside other marked content");
                        assert!(seen.insert(own), "MCID {own} twice on a page");
                        marked.insert((page_id, own));
                    }
                    if tag == "Artifact" {
                        assert!(mcid.is_none(), "an artifact inside tagged content");
                    }
                    let actual_text = props.and_then(|p| text_of(p, b"ActualText"));
                    stack.push(Marked { mcid: own, artifact: tag == "Artifact", actual_text });
                }
                "EMC" => {
                    let closed = stack.pop().expect("EMC without BDC");
                    if let (Some(text), Some(mcid)) = (closed.actual_text, mcid) {
                        texts.entry((page_id, mcid)).or_default().push_str(&text);
                    }
                }
                "BT" | "re" | "f" | "Tj" | "TJ" => {
                    assert!(
                        mcid.is_some() != artifact,
                        "{} outside marked content, or both tagged and artifact",
                        op.operator
                    );
                    if op.operator == "Tj" {
                        let codes = op.operands[0].as_str().unwrap();
                        let map = &maps[font.as_ref().expect("a font before text")];
                        let shown: String = codes
                            .chunks(2)
                            .map(|c| {
                                let cid = u16::from_be_bytes([c[0], c[1]]);
                                assert_ne!(cid, 0, "glyph 0 (.notdef) shown");
                                map.get(&cid).cloned().unwrap_or_else(|| panic!("CID {cid} not in ToUnicode"))
                            })
                            .collect();
                        let in_actual_text = stack.iter().any(|m| m.actual_text.is_some());
                        if let (Some(mcid), false) = (mcid, in_actual_text) {
                            texts.entry((page_id, mcid)).or_default().push_str(&shown);
                        }
                    }
                }
                "Tf" => font = Some(op.operands[0].as_name().unwrap().to_vec()),
                _ => {}
            }
        }
        assert!(stack.is_empty(), "marked content left open");
    }
    let mut all_keys: Vec<i64> = keys.keys().copied().collect();
    all_keys.dedup();
    assert_eq!(all_keys.len(), pages.len(), "one StructParents key per page");

    // The tree: every element's parent is the element that lists it; every MCID of the
    // content is owned by exactly one element, on that element's page (or its MCR's).
    let root_id = catalog.get(b"StructTreeRoot").unwrap().as_reference().unwrap();
    let root = doc.get_dictionary(root_id).unwrap();
    assert_eq!(root.get(b"Type").map(name).unwrap(), "StructTreeRoot");
    let mut owners: BTreeMap<(ObjectId, i64), Vec<ObjectId>> = BTreeMap::new();
    let mut elements = Vec::new();
    let kids = match root.get(b"K").unwrap() {
        Object::Array(kids) => kids.iter().map(|k| k.as_reference().unwrap()).collect(),
        k => vec![k.as_reference().unwrap()],
    };
    assert_eq!(kids.len(), 1, "one Document element");
    let document = doc.get_dictionary(kids[0]).unwrap();
    assert_eq!(document.get(b"S").map(name).unwrap(), "Document");
    let reading = walk(&doc, kids[0], root_id, &texts, &mut owners, &mut elements);
    for (place, owned) in &owners {
        assert_eq!(owned.len(), 1, "MCID {place:?} owned by {owned:?}");
        assert!(marked.contains(place), "MCID {place:?} of an element is not in its page's content");
    }
    for place in &marked {
        assert!(owners.contains_key(place), "MCID {place:?} of the content has no element");
    }

    // The ParentTree: page key -> array of each MCID's element.
    let parent_tree = doc.dereference(root.get(b"ParentTree").unwrap()).unwrap().1.as_dict().unwrap();
    let nums = parent_tree.get(b"Nums").unwrap().as_array().unwrap();
    let mut listed = 0;
    for pair in nums.chunks(2) {
        let page_id = keys[&pair[0].as_i64().unwrap()];
        let array = doc.dereference(&pair[1]).unwrap().1.as_array().unwrap();
        for (mcid, element) in array.iter().enumerate() {
            let owner = &owners[&(page_id, mcid as i64)];
            assert_eq!(owner[0], element.as_reference().unwrap(), "ParentTree of MCID {mcid}");
            listed += 1;
        }
    }
    assert_eq!(listed, owners.len(), "every MCID in the ParentTree");
    assert!(root.get(b"ParentTreeNextKey").unwrap().as_i64().unwrap() >= pages.len() as i64);

    // Roles that PDF/UA asks something of.
    for element in &elements {
        if element.role == "Figure" {
            assert!(element.alt.as_deref().is_some_and(|a| !a.is_empty()), "a figure without /Alt");
        }
        if element.role.starts_with('H') {
            assert!(!element.text.is_empty(), "an empty {}", element.role);
        }
    }
    let headings: Vec<u8> =
        elements.iter().filter_map(|e| e.role.strip_prefix('H').and_then(|n| n.parse().ok())).collect();
    assert_eq!(headings.first(), Some(&1), "the first heading is H1");
    for pair in headings.windows(2) {
        assert!(pair[1] <= pair[0] + 1, "a heading level skipped: {headings:?}");
    }
    let mut pages_of: BTreeMap<ObjectId, BTreeSet<ObjectId>> = BTreeMap::new();
    for ((page, _), owned) in &owners {
        pages_of.entry(owned[0]).or_default().insert(*page);
    }
    let spanning = pages_of.values().filter(|p| p.len() > 1).count();
    Tagged { reading, elements, spanning }
}

/// Walks element `id` (whose parent is `parent`): checks it, records the MCIDs it owns
/// and the elements; returns its text.
fn walk(
    doc: &Document,
    id: ObjectId,
    parent: ObjectId,
    texts: &BTreeMap<(ObjectId, i64), String>,
    owners: &mut BTreeMap<(ObjectId, i64), Vec<ObjectId>>,
    elements: &mut Vec<Element>,
) -> String {
    let element = doc.get_dictionary(id).unwrap();
    assert_eq!(element.get(b"Type").map(name).unwrap(), "StructElem");
    assert_eq!(element.get(b"P").unwrap().as_reference().unwrap(), parent, "{id:?}'s /P");
    let role = name(element.get(b"S").unwrap());
    let page = element.get(b"Pg").ok().map(|p| p.as_reference().unwrap());
    let actual_text = text_of(element, b"ActualText");
    let at = elements.len();
    elements.push(Element {
        role: role.clone(),
        lang: text_of(element, b"Lang"),
        alt: text_of(element, b"Alt"),
        title: text_of(element, b"T"),
        text: String::new(),
    });
    let kids: Vec<Object> = match element.get(b"K") {
        Ok(Object::Array(kids)) => kids.clone(),
        Ok(kid) => vec![kid.clone()],
        Err(_) => Vec::new(),
    };
    let mut text = String::new();
    for kid in kids {
        let place = match &kid {
            Object::Integer(mcid) => Some((page.expect("an MCID kid with no /Pg"), *mcid)),
            Object::Dictionary(mcr) => {
                assert_eq!(mcr.get(b"Type").map(name).unwrap(), "MCR");
                let pg = mcr.get(b"Pg").ok().map(|p| p.as_reference().unwrap()).or(page).unwrap();
                Some((pg, mcr.get(b"MCID").unwrap().as_i64().unwrap()))
            }
            Object::Reference(child) => {
                text.push_str(&walk(doc, *child, id, texts, owners, elements));
                None
            }
            other => panic!("unexpected kid {other:?}"),
        };
        if let Some(place) = place {
            owners.entry(place).or_default().push(id);
            text.push_str(texts.get(&place).map_or("", String::as_str));
        }
    }
    let text = squeeze(&actual_text.unwrap_or(text));
    elements[at].text = text.clone();
    // Tables: rows of cells, all rows as wide; lists: items of labels and bodies.
    let child_roles = |doc: &Document| -> Vec<String> {
        match element.get(b"K") {
            Ok(Object::Array(kids)) => kids
                .iter()
                .filter_map(|k| k.as_reference().ok())
                .map(|r| name(doc.get_dictionary(r).unwrap().get(b"S").unwrap()))
                .collect(),
            _ => Vec::new(),
        }
    };
    match role.as_str() {
        "Table" => assert!(child_roles(doc).iter().all(|r| r == "TR"), "a table of rows"),
        "TR" => {
            let cells = child_roles(doc);
            assert!(!cells.is_empty() && cells.iter().all(|r| r == "TD" || r == "TH"), "a row of cells: {cells:?}");
        }
        "L" => assert!(child_roles(doc).iter().all(|r| r == "LI"), "a list of items"),
        "LI" => assert!(child_roles(doc).iter().all(|r| r == "Lbl" || r == "LBody"), "an item of label and body"),
        "TH" => {
            let scope = element.get(b"A").ok().and_then(|a| {
                let attributes = match a {
                    Object::Array(list) => list.clone(),
                    one => vec![one.clone()],
                };
                attributes.iter().find_map(|a| a.as_dict().ok().and_then(|d| d.get(b"Scope").ok()).map(name))
            });
            assert_eq!(scope.as_deref(), Some("Column"), "a header cell's scope");
        }
        _ => {}
    }
    text
}

#[test]
fn the_pdf_is_tagged_in_reading_order() {
    let report = essay();
    let tagged = check(&render(&report));

    // Header, totals, notices, sources, the document's text, the blocks: in that order.
    let order = [
        "TESSERA REPORT",
        "Эссе о семье",
        "ORIGINALITY",
        "Notices",
        "Attempt to hide copied text",
        "Sources",
        "Книга 0",
        "Famous opening lines",
        "Document",
        "Часть 0.",
        "Part 0.",
        "Часть 9.",
        "Part 9.",
        "The end, in my own words.",
        "Blocks",
    ];
    let places: Vec<usize> = order.iter().map(|needle| tagged.at(needle)).collect();
    for (pair, needles) in places.windows(2).zip(order.windows(2)) {
        assert!(pair[0] < pair[1], "{:?} read before {:?}", needles[1], needles[0]);
    }
    // The passages in the order of the text, each part's borrowed run after its badge.
    let mut last = tagged.at("Document");
    for i in 0..10 {
        let number = report.source(tessera_core::DocId(100 + i)).unwrap().number;
        let at = tagged.at(&format!("Часть {i}. [source {number}] Все счастливые семьи"));
        assert!(at > last, "part {i} out of order");
        last = tagged.at(&format!("Part {i}."));
        assert!(last > at, "part {i}'s English out of order");
    }
    assert!(tagged.spanning >= 1, "no element over a page break");
    assert_eq!(tagged.elements[0].role, "Document");
    let h1 = tagged.with_role("H1");
    assert_eq!(h1.len(), 1);
    assert_eq!(h1[0].text, squeeze("Эссе о семье"));
    let h2: Vec<&str> = tagged.with_role("H2").iter().map(|e| e.text.as_str()).collect();
    assert_eq!(h2, ["Notices", "Sources", "Document", "Blocks"]);
    assert_eq!(tagged.with_role("H3").len(), report.blocks.len());

    // The text's paragraphs: one each, Russian ones marked as Russian, English ones
    // left in the document's language.
    let paragraphs = tagged.with_role("P");
    let russian = paragraphs.iter().find(|p| p.text.starts_with(&squeeze("Часть 4."))).unwrap();
    assert_eq!(russian.lang.as_deref(), Some("ru"));
    let english = paragraphs.iter().find(|p| p.text.starts_with(&squeeze("Part 4."))).unwrap();
    assert_eq!(english.lang, None, "English, the document's language");
    assert!(english.text.ends_with(&squeeze("The rest of this essay is my own.")));
    // Highlighted runs are spans that say what they are.
    let spans = tagged.with_role("Span");
    let titled = |prefix: &str| spans.iter().any(|s| s.title.as_deref().is_some_and(|t| t.starts_with(prefix)));
    assert!(titled("Citation from source ") && titled("Borrowing from source "));
    assert!(spans.iter().any(|s| s.title.as_deref() == Some("Where a trick to hide copied text was found")));
    // The source list is a table: a header row and a row per source.
    let rows = tagged.with_role("TR");
    assert!(rows.len() > report.sources.len(), "{} rows", rows.len());
    assert_eq!(tagged.with_role("TH").len(), 5);
    assert_eq!(tagged.with_role("LI").len(), 1, "one notice");
    // Page numbers and the footer are artifacts: never read.
    assert!(!tagged.reading.contains("pageof"), "{}", tagged.reading);
    assert!(!tagged.reading.contains(&squeeze("Tessera report · Эссе")));
}

#[test]
fn every_report_is_tagged() {
    let empty = Report::build(SuspectInfo::new("empty.txt", "", ""), &[], &[], &ReportOptions::default());
    let tagged = check(&render(&empty));
    assert!(tagged.reading.contains("Nosourcesfound.") && tagged.reading.contains("empty.txt"));
    for report in [russian(), english(), russian_with_copies()] {
        let tagged = check(&render(&report));
        let opening: String = report.suspect.text.chars().take(30).collect();
        assert!(tagged.at(&opening) > tagged.at("Document"));
    }

    // Sentence pairs are a table with column headers; word changes are spans; carets are
    // figures with words.
    let report = bees();
    let tagged = check(&render(&report));
    let headers: Vec<&str> = tagged.with_role("TH").iter().map(|e| e.text.as_str()).collect();
    assert!(headers.ends_with(&["DOCUMENT", "SOURCE"]), "{headers:?}");
    let cells: Vec<&str> = tagged.with_role("TD").iter().map(|e| e.text.as_str()).collect();
    let pair = cells.windows(2).any(|w| {
        w[0] == squeeze("A colony of honey bees has a single queen.") && w[1] == squeeze("Each colony has one queen.")
    });
    assert!(pair, "{cells:?}");
    let titles: BTreeSet<&str> = tagged.with_role("Span").iter().filter_map(|s| s.title.as_deref()).collect();
    for title in ["changed", "added in the document", "left out of the source"] {
        assert!(titles.contains(title), "{titles:?}");
    }
    let figures = tagged.with_role("Figure");
    assert!(figures.iter().any(|f| f.alt.as_deref() == Some("a red bar")), "the legend's caret");
    assert!(tagged.at("Document: A colony of honey bees") < tagged.at("Source, characters 0–"));
}

#[test]
fn characters_the_font_lacks_are_read_as_themselves() {
    let text = "Chinese, which the font lacks: 汉字. Then English again.";
    let report = Report::build(SuspectInfo::new("zh.txt", "", text), &[], &[], &ReportOptions::default());
    // No glyph 0 is shown (checked for every string), and the text is read back whole.
    let tagged = check(&render(&report));
    assert!(tagged.reading.contains(&squeeze(text)), "{}", tagged.reading);
}

/// A random text: Latin, Cyrillic, Chinese (which the font lacks), spaces, tabs, line
/// and paragraph breaks.
fn text_strategy() -> impl Strategy<Value = String> {
    let c = prop_oneof![
        6 => Just('a'), 4 => Just(' '), 3 => Just('ж'), 1 => Just('汉'), 1 => Just('\t'), 2 => Just('\n'),
        1 => Just('\r'), 1 => Just('.'),
    ];
    proptest::collection::vec(c, 0..400).prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Whatever the text and wherever its borrowed runs and trick places, the PDF is
    /// tagged: every operation in marked content, every MCID owned once, the text read
    /// back through the tree.
    #[test]
    fn any_text_is_tagged(text in text_strategy(), runs in proptest::collection::vec((0usize..400, 0usize..120), 0..5), trick in (0usize..400, 0usize..40)) {
        let len = text.chars().count();
        let sources: Vec<_> = runs
            .iter()
            .enumerate()
            .map(|(i, &(start, n))| {
                let start = start.min(len);
                source_match(100 + i as u64, vec![same(&text, start, (start + n).min(len))])
            })
            .collect();
        let (at, n) = (trick.0.min(len), trick.1);
        let notice = Notice {
            kind: "white_text".into(),
            bypass: true,
            message: "white text".into(),
            count: 1,
            locations: vec![
                NoticeLocation { span: span(&text, at, (at + n).min(len)), page: None, paragraph: None },
                NoticeLocation { span: span(&text, at, at), page: None, paragraph: None },
            ],
        };
        let suspect = SuspectInfo::new("random.txt", "", text.clone()).with_warnings(vec![notice]);
        let report = Report::build(suspect, &[revision("web", CollectionKind::Source, sources)], &[], &ReportOptions::default());
        let tagged = check(&render(&report));
        // The document's text, read through the tree: every character but whitespace,
        // in order (the badges' "[source N]" and "hidden text" between them).
        let legend = "Text underlined in red is where a trick to hide copied text was found.";
        let mut read = tagged.reading[tagged.at(legend) + squeeze(legend).len()..].chars();
        for c in text.chars().filter(|c| !c.is_whitespace() && !c.is_control()) {
            prop_assert!(read.any(|r| r == c), "{c:?} of {text:?} not read in order: {}", tagged.reading);
        }
    }
}
