//! The PDF report read back with lopdf: pages, embedded subset fonts, and the text
//! (Russian and English) given back by the `ToUnicode` maps.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use lopdf::{Document, Object};
use tessera_index::CollectionKind;
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
