//! The PDF report read back with lopdf: pages, embedded subset fonts, and the text
//! (Russian and English) given back by the `ToUnicode` maps.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use lopdf::{Document, Object};
use tessera_core::CollectionKind;
use tessera_report::{Notice, NoticeLocation, PdfRenderer, Render, Report, ReportOptions, SuspectInfo};

/// A Russian and English essay, long enough for several pages, with fourteen sources
/// (more than the twelve colours), a citation and a bypass notice.
fn mixed() -> (String, Report) {
    let mut text = String::new();
    for i in 0..14 {
        text.push_str(&format!("Глава {i}. {RU}\n{EN}\n\n"));
    }
    for _ in 0..20 {
        text.push_str("Заключение: собственный текст автора без заимствований, довольно длинный абзац. ");
    }
    let mut sources = Vec::new();
    let mut infos = Vec::new();
    let mut at = 0;
    for (i, paragraph) in text.split("\n\n").take(14).enumerate() {
        let start = text[..at].chars().count();
        // Source i covers the Russian sentence of its chapter, a shorter piece each time.
        let len = RU.chars().count() - i * 5;
        let skip = format!("Глава {i}. ").chars().count();
        let doc = 100 + i as u64;
        sources.push(source_match(doc, vec![same(&text, start + skip, start + skip + len)]));
        infos.push(info(
            doc,
            "books",
            CollectionKind::Source,
            &format!("Книга номер {i}"),
            &format!("library/book-{i}.txt"),
        ));
        at += paragraph.len() + 2;
    }
    let en_at = text.find(EN).unwrap();
    let en_start = text[..en_at].chars().count();
    let citation = vec![source_match(900, vec![same(&text, en_start, en_start + 51)])];
    infos.push(info(900, "quotes", CollectionKind::Citation, "Famous opening lines", "quotes/openings.txt"));
    let revisions = vec![
        revision("books", CollectionKind::Source, sources),
        revision("quotes", CollectionKind::Citation, citation),
    ];
    let notice = Notice {
        kind: "homoglyphs".into(),
        bypass: true,
        message: "look-alike letters: 3 word(s)".into(),
        count: 3,
        locations: vec![NoticeLocation { span: span(&text, 10, 20), page: None, paragraph: None }],
    };
    let suspect =
        SuspectInfo::new("essay.docx", "Эссе о семье / An essay on families", text.clone()).with_warnings(vec![notice]);
    let report = Report::build(suspect, &revisions, &infos, &ReportOptions::default());
    (text, report)
}

fn render(report: &Report) -> Vec<u8> {
    let mut out = Vec::new();
    PdfRenderer::checked_at(1_764_079_200_000).render(report, &mut out).unwrap();
    out
}

/// Text of every page, through the fonts' `ToUnicode` maps, spaces and breaks squeezed.
fn page_texts(doc: &Document) -> Vec<String> {
    doc.get_pages()
        .keys()
        .map(|&n| doc.extract_text(&[n]).unwrap().split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

#[test]
fn pdf_is_valid_paged_and_gives_the_text_back() {
    let (_, report) = mixed();
    assert_eq!(report.sources.len(), 15);
    let bytes = render(&report);
    assert!(bytes.starts_with(b"%PDF-"));
    let doc = Document::load_mem(&bytes).unwrap();
    let pages = doc.get_pages();
    assert!(pages.len() >= 3, "{} pages", pages.len());
    for &id in pages.values() {
        let page = doc.get_dictionary(id).unwrap();
        let media = page.get(b"MediaBox").unwrap().as_array().unwrap();
        let wh: Vec<f32> = media.iter().map(|o| o.as_float().unwrap()).collect();
        assert_eq!(wh, vec![0.0, 0.0, 595.28, 841.89], "A4");
    }

    let texts = page_texts(&doc);
    let all = texts.join(" ");
    let first = &texts[0];
    assert!(first.contains("TESSERA REPORT"), "{first}");
    assert!(first.contains("Эссе о семье / An essay on families"), "{first}");
    assert!(first.contains("checked 2025-11-25 14:00 UTC"), "{first}");
    assert!(first.contains("ORIGINALITY") && first.contains("BORROWINGS") && first.contains("CITATIONS"));
    assert!(first.contains(&format!("{:.2}%", report.totals.borrowings)), "{first}");
    assert!(first.contains("Attempt to hide copied text"), "{first}");
    assert!(all.contains("Книга номер 0") && all.contains("library/book-13.txt"), "{all}");
    assert!(all.contains("Famous opening lines"));
    // The suspect's text in full, Russian and English, wrapped over the pages.
    assert!(all.contains("Всё смешалось в доме Облонских."), "{all}");
    assert!(all.contains("it was the age of wisdom"), "{all}");
    assert!(all.contains("Заключение: собственный текст автора без заимствований"));
    for (n, text) in texts.iter().enumerate() {
        assert!(text.contains(&format!("page {} of {}", n + 1, texts.len())), "{text}");
    }

    // Two fonts, both embedded as TrueType subsets with ToUnicode maps.
    let mut fonts = 0;
    for object in doc.objects.values() {
        let Ok(dict) = object.as_dict() else { continue };
        if dict.get(b"Type").and_then(Object::as_name).ok() != Some(b"Font".as_slice())
            || dict.get(b"Subtype").and_then(Object::as_name).ok() != Some(b"Type0".as_slice())
        {
            continue;
        }
        fonts += 1;
        let base = String::from_utf8(dict.get(b"BaseFont").unwrap().as_name().unwrap().to_vec()).unwrap();
        let (tag, name) = base.split_once('+').unwrap();
        assert!(tag.len() == 6 && tag.bytes().all(|b| b.is_ascii_uppercase()), "{base}");
        assert!(name.starts_with("DejaVuSans"), "{base}");
        assert!(dict.get(b"ToUnicode").is_ok());
        let descendants = dict.get(b"DescendantFonts").unwrap().as_array().unwrap();
        let cid = doc.get_dictionary(descendants[0].as_reference().unwrap()).unwrap();
        let descriptor = doc.get_dictionary(cid.get(b"FontDescriptor").unwrap().as_reference().unwrap()).unwrap();
        let file = doc.get_object(descriptor.get(b"FontFile2").unwrap().as_reference().unwrap()).unwrap();
        let stream = file.as_stream().unwrap();
        let font = stream.decompressed_content().unwrap();
        assert_eq!(font.len() as i64, stream.dict.get(b"Length1").unwrap().as_i64().unwrap());
        // DejaVu Sans is 700 to 760 kB; the subset of a few hundred glyphs is far smaller.
        assert!(font.len() < 150_000, "{base}: {} bytes, not subset", font.len());
    }
    assert_eq!(fonts, 2);
}

#[test]
fn pdf_is_deterministic_and_small() {
    let (_, report) = mixed();
    let a = render(&report);
    let b = render(&report);
    assert_eq!(a, b);
    assert!(a.len() < 200_000, "{} bytes", a.len());
    assert!(PdfRenderer::default().render_to_string(&report).is_err());
}

#[test]
fn empty_and_english_reports_render() {
    let empty = Report::build(SuspectInfo::new("empty.txt", "", ""), &[], &[], &ReportOptions::default());
    let doc = Document::load_mem(&render(&empty)).unwrap();
    assert_eq!(doc.get_pages().len(), 1);
    let text = page_texts(&doc).join(" ");
    assert!(text.contains("empty.txt") && text.contains("No sources found."), "{text}");

    let doc = Document::load_mem(&render(&english())).unwrap();
    let text = page_texts(&doc).join(" ");
    assert!(text.contains("A Tale of Two Cities") && text.contains("https://www.gutenberg.org/ebooks/98"), "{text}");
    assert!(text.contains("The rest of this essay is my own."), "{text}");
}

/// A copied source lists its copies, the copy the source it copies, and a copy block's
/// heading names the passage it repeats.
#[test]
fn pdf_lists_copies() {
    let report = russian_with_copies();
    let number = |id: u64| report.source(tessera_core::DocId(id)).unwrap().number;
    let text = page_texts(&Document::load_mem(&render(&report)).unwrap()).join(" ");
    for line in [
        format!("also in source {}", number(4)),
        format!("holds passages of source {} too", number(3)),
        format!("the passage of source {}, found here too", number(1)),
    ] {
        assert!(text.contains(&line), "{line:?} not in {text}");
    }
}

/// The fill colours ("r g b rg") set in a page's content stream.
fn fills(doc: &Document, page: lopdf::ObjectId) -> Vec<[f32; 3]> {
    let content = lopdf::content::Content::decode(&doc.get_page_content(page)).unwrap();
    content
        .operations
        .iter()
        .filter(|op| op.operator == "rg")
        .map(|op| {
            let v: Vec<f32> = op.operands.iter().map(|o| o.as_float().unwrap()).collect();
            [v[0], v[1], v[2]]
        })
        .collect()
}

/// How many times `rgb` is set as the fill colour.
fn count_fill(fills: &[[f32; 3]], rgb: (u8, u8, u8)) -> usize {
    let want = [f32::from(rgb.0) / 255.0, f32::from(rgb.1) / 255.0, f32::from(rgb.2) / 255.0];
    fills.iter().filter(|f| f.iter().zip(want).all(|(a, b)| (a - b).abs() < 0.01)).count()
}

/// After the document's text, the PDF lists the blocks as the HTML report does: heading
/// (kind, source, place, confidence, how found), a rewording's sentence pairs side by
/// side, both excerpts with the differing words coloured; without the source's text it
/// says so.
#[test]
fn pdf_lists_blocks_with_their_sentences_and_word_changes() {
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
    let build = |text: Option<&str>| {
        Report::build(
            SuspectInfo::new("bees.txt", "Bees", suspect.clone()),
            &[revision("web", CollectionKind::Source, vec![source_match(7, vec![b.clone()])])],
            &[tessera_report::SourceInfo {
                text: text.map(str::to_owned),
                ..info(7, "web", CollectionKind::Source, "The honey bee", "https://example.org/bees")
            }],
            &ReportOptions::default(),
        )
    };
    let report = build(Some(source));
    assert!(!report.blocks[0].diff.is_empty() && report.blocks[0].pairs.len() == 2);
    let doc = Document::load_mem(&render(&report)).unwrap();
    let all = page_texts(&doc).join(" ");
    let blocks = all.find("Blocks").expect(&all);
    assert!(all.find("My own closing words.").unwrap() < blocks, "{all}");
    let listed = &all[blocks..];
    for needle in [
        "Borrowing · source 1: The honey bee",
        &format!("characters {s0}–{s1} of the document"),
        &format!("{}% sure · reworded", report.blocks[0].confidence),
        "Sentence by sentence: 2 sentences of the document and the source sentences they draw on",
        "DOCUMENT SOURCE",
        "A colony of honey bees has a single queen. Each colony has one queen.",
        "Worker bees gather nectar from many flowers. The worker bees collect nectar from the flowers around.",
        "Document: A colony of honey bees",
        &format!("Source, characters 0–{} of the source: Each colony", source.chars().count()),
    ] {
        assert!(listed.contains(needle), "{needle:?} not in {listed}");
    }
    // The word changes are filled as the HTML report colours them: changed, added in the
    // document (its side), left out of the source (the source's side); the legend above
    // the blocks shows each colour once, so the same report without its diff has fewer.
    let colours = |doc: &Document| -> Vec<[f32; 3]> { doc.get_pages().values().flat_map(|&p| fills(doc, p)).collect() };
    let mut unmarked = report.clone();
    unmarked.blocks[0].diff.clear();
    let (marked, plain) = (colours(&doc), colours(&Document::load_mem(&render(&unmarked)).unwrap()));
    for rgb in [(0xff, 0xf3, 0xbf), (0xd3, 0xf9, 0xd8), (0xff, 0xe3, 0xe3)] {
        assert!(count_fill(&marked, rgb) > count_fill(&plain, rgb), "no fill {rgb:?} in the excerpts");
        assert!(count_fill(&plain, rgb) >= 1, "no fill {rgb:?} in the legend");
    }

    // Without the source's text: no pairs, no source excerpt, and the PDF says why.
    let doc = Document::load_mem(&render(&build(None))).unwrap();
    let all = page_texts(&doc).join(" ");
    assert!(!all.contains("Sentence by sentence"), "{all}");
    assert!(
        all.contains(&format!(
            "Source text not kept: The honey bee, https://example.org/bees, characters 0–{} of the source.",
            source.chars().count()
        )),
        "{all}"
    );
}
