//! Word-level differences, numbered sources and notices at their place, through the
//! public API and the renderers.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use tessera_core::CollectionKind;
use tessera_report::{
    ChangeKind, HtmlRenderer, JsonRenderer, Notice, NoticeLocation, Render, Report, ReportOptions, SuspectInfo,
    TextRenderer,
};

/// The source: Gogol-like prose.
const SOURCE: &str = "Он долго лежал, не в силах пошевелить рукой, измученный дорогой и жарой.";
/// The suspect rewrote two words, added one, dropped one, and hid a Latin "о" in «дорогой».
const SUSPECT: &str = "Введение. Он лежал, не в силах пошевельнуть рукой, замученный долгой дорогой и жарой. Конец.";

fn paraphrased() -> Report {
    let start = SUSPECT.find("Он").unwrap();
    let end = SUSPECT.find(" Конец").unwrap();
    let s0 = SUSPECT[..start].chars().count();
    let s1 = SUSPECT[..end].chars().count();
    let source_len = SOURCE.chars().count();
    // The theses revision comes first, so its smaller source has rank 1: it must still
    // be numbered 2.
    let revisions = [
        revision("theses", CollectionKind::Source, vec![source_match(2, vec![same(SUSPECT, 0, 9)])]),
        revision(
            "web",
            CollectionKind::Source,
            vec![source_match(1, vec![block(SUSPECT, s0, s1, span(SOURCE, 0, source_len))])],
        ),
    ];
    let mut web = info(1, "web", CollectionKind::Source, "Мёртвые души", "https://example.org/gogol");
    web.text = Some(SOURCE.to_owned());
    let theses = info(2, "theses", CollectionKind::Source, "", "/archive/intro.docx");
    // The located word holds a Latin "o"; chars (the spans' truth) stay where they were.
    let text = SUSPECT.replacen("дорогой", "дорoгой", 1);
    let word = find(&text, "дорoгой");
    let notice = Notice {
        kind: "homoglyphs".into(),
        bypass: true,
        message: "look-alike letters of another script inside words: 1 (first at byte 150)".into(),
        count: 1,
        locations: vec![NoticeLocation { span: word, page: Some(2), paragraph: None }],
    };
    let suspect = SuspectInfo::new("essay.docx", "Эссе о дороге", text).with_warnings(vec![notice]);
    Report::build(suspect, &revisions, &[web, theses], &ReportOptions::default())
}

#[test]
fn sources_are_numbered_by_share_not_rank() {
    let report = paraphrased();
    let order: Vec<(u64, u32, u32)> = report.sources.iter().map(|s| (s.id.0, s.rank, s.number)).collect();
    assert_eq!(order, vec![(1, 2, 1), (2, 1, 2)]);
    assert!(report.sources[0].share_in_report > report.sources[1].share_in_report);
}

#[test]
fn changed_inserted_and_deleted_words_are_found() {
    let report = paraphrased();
    let block = report.blocks.iter().find(|b| b.source.0 == 1).unwrap();
    let text = &report.suspect.text;
    let words: Vec<(ChangeKind, &str, &str)> = block
        .diff
        .iter()
        .map(|c| {
            (
                c.kind,
                &SOURCE[c.source.bytes.start..c.source.bytes.end],
                &text[c.suspect.bytes.start..c.suspect.bytes.end],
            )
        })
        .collect();
    assert_eq!(
        words,
        vec![
            (ChangeKind::Deleted, "долго", ""),
            (ChangeKind::Changed, "пошевелить", "пошевельнуть"),
            (ChangeKind::Changed, "измученный", "замученный"),
            (ChangeKind::Inserted, "", "долгой"),
        ]
    );
    // The look-alike "о" in «дорoгой» is not a change of wording.
    assert!(!words.iter().any(|(_, _, s)| s.contains("дор")));
}

#[test]
fn json_carries_numbers_and_diff() {
    let json: serde_json::Value =
        serde_json::from_str(&JsonRenderer::compact().render_to_string(&paraphrased()).unwrap()).unwrap();
    assert_eq!(json["sources"][0]["number"], 1);
    assert_eq!(json["sources"][0]["id"], 1);
    let block = json["blocks"].as_array().unwrap().iter().find(|b| b["source"] == 1).unwrap();
    assert_eq!(block["diff"][1]["kind"], "changed");
    assert!(block["diff"][1]["suspect"]["chars"]["start"].is_u64());
    // No diff for a block whose source text is not kept.
    let other = json["blocks"].as_array().unwrap().iter().find(|b| b["source"] == 2).unwrap();
    assert!(other.get("diff").is_none());
    // Reports read back equal the reports written.
    let back: Report = serde_json::from_value(json).unwrap();
    assert_eq!(back, paraphrased());
}

#[test]
fn reports_without_numbers_get_them_on_recompute() {
    let mut json: serde_json::Value =
        serde_json::from_str(&JsonRenderer::compact().render_to_string(&paraphrased()).unwrap()).unwrap();
    // An old report: no numbers, sources in rank order.
    let sources = json["sources"].as_array_mut().unwrap();
    sources.reverse();
    for s in sources.iter_mut() {
        s.as_object_mut().unwrap().remove("number");
    }
    let mut report: Report = serde_json::from_value(json).unwrap();
    assert!(report.sources.iter().all(|s| s.number == 0));
    report.recompute();
    assert_eq!(report, paraphrased());
}

#[test]
fn html_marks_numbers_diff_and_notice() {
    let html = HtmlRenderer.render_to_string(&paraphrased()).unwrap();
    // Numbered markers in the text and numbered badges in the source list, source 1 first.
    assert!(html.contains("data-n=\"1\""));
    let one = html.find("id=\"src-1\"").unwrap();
    let two = html.find("id=\"src-2\"").unwrap();
    assert!(one < two);
    assert!(html.contains(".page:has(#src-1:target)"), "click-to-isolate rule");
    // Word changes on both sides.
    assert!(html.contains("<span class=\"chg\">пошевелить</span>"), "{html}");
    assert!(html.contains("<span class=\"chg\">пошевельнуть</span>"));
    assert!(html.contains("<ins>долгой</ins>"));
    assert!(html.contains("<del>долго</del>"));
    // The notice in plain words, linked to its place, which is marked in the text.
    assert!(html.contains("1 word uses Latin letters that look like Cyrillic ones"));
    assert!(html.contains("<a href=\"#trick-0-0\">page 2</a>"));
    assert!(html.contains("<mark class=\"trick\" id=\"trick-0-0\""));
    insta::assert_snapshot!(html);
}

#[test]
fn text_explains_the_notice() {
    let text = TextRenderer { width: 400, ..TextRenderer::default() }.render_to_string(&paraphrased()).unwrap();
    assert!(text.contains("1 word uses Latin letters that look like Cyrillic ones"), "{text}");
}

/// The words of `text` outside the changes' spans on one side, lower-cased.
fn kept_words(text: &str, spans: &[(usize, usize)]) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut start = 0;
    let flush = |word: &mut String, start: usize, end: usize, out: &mut Vec<String>| {
        if !word.is_empty() && !spans.iter().any(|&(s, e)| s <= start && end <= e && s < e) {
            out.push(word.to_lowercase());
        }
        word.clear();
    };
    for (i, c) in text.char_indices() {
        if c.is_alphanumeric() {
            if word.is_empty() {
                start = i;
            }
            word.push(c);
        } else {
            flush(&mut word, start, i, &mut out);
        }
    }
    flush(&mut word, start, text.len(), &mut out);
    out
}

proptest::proptest! {
    /// Whatever the edits, changes are in bounds and in order on both sides, empty
    /// exactly on the side that lacks words, and the words outside them are the same
    /// on both sides (the diff accounts for every difference).
    #[test]
    fn diff_accounts_for_every_difference(
        source_words in proptest::collection::vec(0usize..6, 0..25),
        suspect_words in proptest::collection::vec(0usize..6, 0..25),
    ) {
        const VOCAB: [&str; 6] = ["мир", "дом", "Дом", "дорога", "road", "ёж"];
        let source: String = source_words.iter().map(|&w| VOCAB[w]).collect::<Vec<_>>().join(" ");
        let suspect: String = format!("Начало. {}", suspect_words.iter().map(|&w| VOCAB[w]).collect::<Vec<_>>().join(", "));
        let n = suspect.chars().count();
        let revisions = vec![revision("web", CollectionKind::Source,
            vec![source_match(1, vec![block(&suspect, 8.min(n), n, span(&source, 0, source.chars().count()))])])];
        let mut web = info(1, "web", CollectionKind::Source, "", "");
        web.text = Some(source.clone());
        let report = Report::build(SuspectInfo::new("p", "", suspect.clone()), &revisions, &[web], &ReportOptions::default());
        // An empty source passage has no excerpt, so no diff.
        let Some(block) = report.blocks.first().filter(|b| b.source_excerpt.is_some()) else { return Ok(()) };
        let (mut prev_suspect, mut prev_source) = (block.suspect_span.bytes.start, block.source_span.bytes.start);
        for c in &block.diff {
            proptest::prop_assert!(prev_suspect <= c.suspect.bytes.start && c.suspect.bytes.end <= block.suspect_span.bytes.end);
            proptest::prop_assert!(prev_source <= c.source.bytes.start && c.source.bytes.end <= block.source_span.bytes.end);
            proptest::prop_assert_eq!(c.kind == ChangeKind::Inserted, c.source.bytes.start == c.source.bytes.end);
            proptest::prop_assert_eq!(c.kind == ChangeKind::Deleted, c.suspect.bytes.start == c.suspect.bytes.end);
            prev_suspect = c.suspect.bytes.end;
            prev_source = c.source.bytes.end;
        }
        let suspect_spans: Vec<(usize, usize)> = block.diff.iter()
            .map(|c| (c.suspect.bytes.start - block.suspect_span.bytes.start, c.suspect.bytes.end - block.suspect_span.bytes.start)).collect();
        let source_spans: Vec<(usize, usize)> = block.diff.iter().map(|c| (c.source.bytes.start, c.source.bytes.end)).collect();
        let fold = |w: Vec<String>| w.into_iter().map(|w| w.replace('ё', "е")).collect::<Vec<_>>();
        proptest::prop_assert_eq!(
            fold(kept_words(&block.suspect_excerpt, &suspect_spans)),
            fold(kept_words(&source, &source_spans))
        );
    }
}
