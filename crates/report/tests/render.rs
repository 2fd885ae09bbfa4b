//! Renderings of the fixture reports: snapshots and escaping.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use tessera_core::{CollectionKind, DocId};
use tessera_report::{
    BlockId, BlockKind, FoundBy, HtmlRenderer, JsonRenderer, Label, Render, Report, ReportOptions, SuspectInfo,
    TextRenderer,
};

/// The English case edited by a reviewer and marked partial: every feature shows.
fn edited_english() -> Report {
    let mut report = english();
    report.set_source_enabled(DocId(11), false);
    report.set_block_kind(BlockId(0), BlockKind::Citation);
    report.mark_missing("elibrary");
    report
}

fn text(report: &Report, renderer: TextRenderer) -> String {
    renderer.render_to_string(report).unwrap()
}

#[test]
fn text_russian() {
    insta::assert_snapshot!(text(&russian(), TextRenderer::default()));
}

#[test]
fn text_english_edited() {
    insta::assert_snapshot!(text(&edited_english(), TextRenderer::default()));
}

#[test]
fn text_narrow_with_colour() {
    let renderer = TextRenderer { color: true, width: 60 };
    insta::assert_snapshot!(text(&russian(), renderer));
}

#[test]
fn text_is_deterministic() {
    let a = text(&edited_english(), TextRenderer::default());
    let b = text(&edited_english(), TextRenderer::default());
    assert_eq!(a, b);
}

#[test]
fn json_russian() {
    insta::assert_snapshot!(JsonRenderer::pretty().render_to_string(&russian()).unwrap());
}

#[test]
fn json_english_edited() {
    insta::assert_snapshot!(JsonRenderer::pretty().render_to_string(&edited_english()).unwrap());
}

#[test]
fn json_compact_is_one_line_and_parses_back() {
    let report = edited_english();
    let json = JsonRenderer::compact().render_to_string(&report).unwrap();
    assert_eq!(json.lines().count(), 1);
    let back: Report = serde_json::from_str(&json).unwrap();
    assert_eq!(back, report);
}

#[test]
fn json_field_order_is_the_documented_one() {
    let json = JsonRenderer::compact().render_to_string(&russian()).unwrap();
    let at = |key: &str| json.find(&format!("\"{key}\"")).unwrap();
    assert!(at("schema_version") < at("suspect"));
    assert!(at("suspect") < at("totals"));
    assert!(at("totals") < at("sources"));
    assert!(at("sources") < at("blocks"));
}

#[test]
fn html_russian() {
    insta::assert_snapshot!(HtmlRenderer.render_to_string(&russian()).unwrap());
}

#[test]
fn html_english_edited() {
    insta::assert_snapshot!(HtmlRenderer.render_to_string(&edited_english()).unwrap());
}

#[test]
fn html_escapes_document_and_source_text() {
    let suspect = "Intro <script>alert('x')</script> & \"quoted\" text that was <b>borrowed</b>.";
    let n = suspect.chars().count();
    let revisions = vec![revision("web", CollectionKind::Source, vec![source_match(1, vec![same(suspect, 0, n)])])];
    let mut source = info(1, "web", CollectionKind::Source, "<img src=x onerror=alert(1)>", "javascript:alert(2)");
    source.text = Some(suspect.to_owned());
    let report =
        Report::build(SuspectInfo::new("<name>", "<title>", suspect), &revisions, &[source], &ReportOptions::default());
    let html = HtmlRenderer.render_to_string(&report).unwrap();
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("<img"));
    assert!(!html.contains("<b>"));
    assert!(!html.contains("href=\"javascript:"));
    assert!(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
    assert!(html.contains("&lt;title&gt;"));
    // The page is self-contained.
    assert!(!html.contains("src=\"http"));
    assert!(!html.contains("<link"));
}

#[test]
fn html_highlights_each_counted_run_once() {
    let report = english();
    let html = HtmlRenderer.render_to_string(&report).unwrap();
    // Four segments: source 10, citation 20, source 11, source 12.
    assert_eq!(html.matches("<a class=\"m ").count(), 4);
    assert_eq!(html.matches("<a class=\"m citation ").count(), 1);
    // Every block has a note, hidden blocks included.
    for block in &report.blocks {
        assert!(html.contains(&format!("id=\"block-{}\"", block.id.0)));
    }
}

#[test]
fn text_quoted_citations() {
    insta::assert_snapshot!(text(&russian_quoted(&ReportOptions::default()), TextRenderer::default()));
}

#[test]
fn json_quoted_citations() {
    insta::assert_snapshot!(
        JsonRenderer::pretty().render_to_string(&russian_quoted(&ReportOptions::default())).unwrap()
    );
}

#[test]
fn html_quoted_citations() {
    let html = HtmlRenderer.render_to_string(&russian_quoted(&ReportOptions::default())).unwrap();
    assert!(html.contains("<span class=\"reason\">quoted with reference [3, с. 7]</span>"), "{html}");
    assert!(html.contains("<span class=\"reason\">bibliography</span>"));
    assert!(html.contains("title=\"Citation (quoted with reference [3, с. 7]) from source 1"));
    insta::assert_snapshot!(html);
}

/// Places attached by the add-only-if-new rule show under their source in every renderer
/// (links only for http and https, everything escaped) and are absent when there are none.
#[test]
fn seen_at_is_listed_by_every_renderer() {
    let plain = english();
    let json = JsonRenderer::default().render_to_string(&plain).unwrap();
    assert!(!json.contains("seen_at") && !text(&plain, TextRenderer::default()).contains("also seen at"));

    let mut report = english();
    report.sources[0].seen_at = vec!["https://mirror.example/a".into(), "/srv/<copy>.txt".into()];
    let t = text(&report, TextRenderer { width: 200, ..TextRenderer::default() });
    assert!(t.contains("also seen at: https://mirror.example/a, /srv/<copy>.txt"), "{t}");
    let json: serde_json::Value =
        serde_json::from_str(&JsonRenderer::default().render_to_string(&report).unwrap()).unwrap();
    assert_eq!(json["sources"][0]["seen_at"], serde_json::json!(["https://mirror.example/a", "/srv/<copy>.txt"]));
    let html = HtmlRenderer.render_to_string(&report).unwrap();
    assert!(html.contains("also seen at: <a href=\"https://mirror.example/a\""), "{html}");
    assert!(html.contains("/srv/&lt;copy&gt;.txt") && !html.contains("/srv/<copy>"));
}

/// Copies show in every renderer: "also in" under the copied source, "holds passages
/// of" under the copy, and the copy block's heading names the passage it repeats.
#[test]
fn copies_are_listed_by_every_renderer() {
    let plain = text(&russian(), TextRenderer { width: 200, ..TextRenderer::default() });
    assert!(!plain.contains("also in") && !plain.contains("found here too"), "{plain}");

    let report = russian_with_copies();
    let number = |id: u64| report.source(tessera_core::DocId(id)).unwrap().number;
    let (n1, n3, n4, n5) = (number(1), number(3), number(4), number(5));
    let also_in_3 = format!("also in source {n4}");
    let holds = format!("holds passages of source {n3} too");
    let heading = format!("the passage of source {n1}, found here too");
    let t = text(&report, TextRenderer { width: 200, ..TextRenderer::default() });
    assert!(t.contains(&also_in_3) && t.contains(&format!("also in source {n5}")) && t.contains(&holds), "{t}");
    assert!(t.contains(&heading), "{t}");
    let html = HtmlRenderer.render_to_string(&report).unwrap();
    assert!(html.contains(&also_in_3) && html.contains(&holds) && html.contains(&heading), "{html}");
    let json: serde_json::Value =
        serde_json::from_str(&JsonRenderer::default().render_to_string(&report).unwrap()).unwrap();
    let source = |id: u64| json["sources"].as_array().unwrap().iter().find(|s| s["id"] == id).unwrap().clone();
    assert_eq!(source(3)["copies"], serde_json::json!([4]));
    assert_eq!(source(4)["copy_of"], serde_json::json!([3]));
    assert!(source(2).get("copies").is_none() && source(2).get("copy_of").is_none());
    let copy_blocks: Vec<_> = json["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b.get("copy_of").map(|of| (b["source"].clone(), of.clone())))
        .collect();
    assert_eq!(
        copy_blocks,
        vec![(serde_json::json!(5), serde_json::json!(1)), (serde_json::json!(4), serde_json::json!(3))]
    );
}

/// The evidence of a reworded passage of 20 terms on each side, without an exact run,
/// found through sentence pairs.
fn reworded_evidence(shared_terms: u32, rare_shared_terms: u32, order: f32, cosine: f32) -> tessera_search::Evidence {
    tessera_search::Evidence {
        suspect_terms: 20,
        source_terms: 20,
        shared_terms,
        rare_shared_terms,
        order,
        cosine,
        sentences: true,
        ..tessera_search::Evidence::default()
    }
}

/// Each block's confidence is its evidence's, in percent, shown in every rendering; a
/// report stored before the field existed reads as sure.
#[test]
fn confidence_follows_the_evidence_and_is_shown() {
    let sure = same(RU, 0, 41);
    let mut weak = same(RU, 92, 122);
    weak.evidence = reworded_evidence(6, 1, 0.5, 0.42);
    let expected = (weak.evidence.confidence() * 100.0).round() as u8;
    assert!(expected < 50, "{expected}");
    let report = Report::build(
        SuspectInfo::new("essay.txt", "Эссе", RU),
        &[revision("web", CollectionKind::Source, vec![source_match(1, vec![sure, weak])])],
        &[info(1, "web", CollectionKind::Source, "Анна Каренина", "https://example.org/anna")],
        &ReportOptions::default(),
    );
    let confidences: Vec<u8> = report.blocks.iter().map(|b| b.confidence).collect();
    assert_eq!(confidences, vec![100, expected]);
    let plain = text(&report, TextRenderer::default());
    assert!(plain.contains(&format!(", {expected}% sure")), "{plain}");
    let html = HtmlRenderer.render_to_string(&report).unwrap();
    assert!(html.contains(&format!("{expected}% sure")));
    // Stored before confidence existed: read as 100.
    let mut json: serde_json::Value = serde_json::to_value(&report).unwrap();
    json["blocks"][1].as_object_mut().unwrap().remove("confidence");
    let back: Report = serde_json::from_value(json).unwrap();
    assert_eq!(back.blocks[1].confidence, 100);
}

/// Each block says how it was found (a copy, a rewording, a summary), from its evidence,
/// in every rendering; a report stored before the field existed reads as unknown.
#[test]
fn found_by_follows_the_evidence_and_is_shown() {
    let copy = same(RU, 0, 41);
    let mut reworded = same(RU, 92, 122);
    reworded.evidence = reworded_evidence(14, 6, 0.9, 0.7);
    let mut summary = same(RU, 41, 92);
    summary.evidence = tessera_search::Evidence { summary: true, ..reworded.evidence };
    let report = Report::build(
        SuspectInfo::new("essay.txt", "Эссе", RU),
        &[revision("web", CollectionKind::Source, vec![source_match(1, vec![copy, summary, reworded])])],
        &[info(1, "web", CollectionKind::Source, "Анна Каренина", "https://example.org/anna")],
        &ReportOptions::default(),
    );
    let found: Vec<Option<FoundBy>> = report.blocks.iter().map(|b| b.found_by).collect();
    assert_eq!(found, vec![Some(FoundBy::Copy), Some(FoundBy::Summary), Some(FoundBy::Rewording)]);
    // A summary is a summary whatever its seeds were.
    let of_runs = tessera_search::Evidence { summary: true, sentences: false, ..tessera_search::Evidence::default() };
    assert_eq!(FoundBy::of(&of_runs), FoundBy::Summary);
    // Without the source's text there is nothing to compare: the label is the aligner's
    // claim (tests/labels.rs has the rules with texts).
    let labels: Vec<Option<Label>> = report.blocks.iter().map(|b| b.label).collect();
    assert_eq!(labels, vec![Some(Label::Copied), Some(Label::Summary), Some(Label::Reworded)]);
    let plain = text(&report, TextRenderer::default());
    for word in ["% sure, copied", "% sure, summary", "% sure, reworded"] {
        assert!(plain.contains(word), "{word}: {plain}");
    }
    let html = HtmlRenderer.render_to_string(&report).unwrap();
    for word in ["% sure · copied", "% sure · summary of a longer passage", "% sure · reworded"] {
        assert!(html.contains(word), "{word}: {html}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&JsonRenderer::default().render_to_string(&report).unwrap()).unwrap();
    let listed: Vec<&str> =
        json["blocks"].as_array().unwrap().iter().map(|b| b["found_by"].as_str().unwrap()).collect();
    assert_eq!(listed, vec!["copy", "summary", "rewording"]);
    // Stored before the field existed: unknown, and nothing is shown.
    let mut old: serde_json::Value = serde_json::to_value(&report).unwrap();
    for b in old["blocks"].as_array_mut().unwrap() {
        b.as_object_mut().unwrap().remove("found_by");
        b.as_object_mut().unwrap().remove("label");
    }
    let back: Report = serde_json::from_value(old).unwrap();
    assert!(back.blocks.iter().all(|b| b.found_by.is_none()));
    let plain = text(&back, TextRenderer::default());
    assert!(!plain.contains("% sure, "), "{plain}");
}

/// A rewording's sentence pairs are cut to the block, fitted to the texts and shown
/// beside each other (open for a summary); without the source's text there are none.
#[test]
fn sentence_pairs_are_cut_to_the_block_and_shown() {
    let p = RU_SOURCE_PREFIX.chars().count();
    let source_text = format!("{RU_SOURCE_PREFIX}{RU}");
    let mut reworded = block(RU, 0, 122, span(&source_text, p, p + 122));
    reworded.evidence = reworded_evidence(14, 6, 0.9, 0.7);
    // The second source sentence runs past the block: it is cut to the block's end.
    let pair = |s: (usize, usize), t: (usize, usize)| tessera_search::SentencePair {
        suspect: span(RU, s.0, s.1),
        source: span(&source_text, t.0, t.1),
        cosine: 0.8,
        words: Vec::new(),
    };
    reworded.pairs = vec![pair((0, 90), (p, p + 90)), pair((92, 122), (p + 92, p + 201))];
    let build = |b: tessera_search::Block, text: Option<&str>| {
        Report::build(
            SuspectInfo::new("essay.txt", "Эссе", RU),
            &[revision("web", CollectionKind::Source, vec![source_match(1, vec![b])])],
            &[tessera_report::SourceInfo {
                text: text.map(str::to_owned),
                ..info(1, "web", CollectionKind::Source, "Анна Каренина", "https://example.org/anna")
            }],
            &ReportOptions::default(),
        )
    };
    let report = build(reworded.clone(), Some(&source_text));
    let b = &report.blocks[0];
    let texts: Vec<(&str, &str)> = b.pairs.iter().map(|pair| b.pair_texts(pair).unwrap()).collect();
    let first = "Все счастливые семьи похожи друг на друга, каждая несчастливая семья несчастлива по-своему";
    let second = "Всё смешалось в доме Облонских";
    assert_eq!(texts, vec![(first, first), (second, second)]);
    assert_eq!(b.pairs[1].source.chars.end, b.source_span.chars.end);

    let html = HtmlRenderer.render_to_string(&report).unwrap();
    assert!(html.contains("<details class=\"sentences\"><summary>Sentence by sentence: 2 sentences"), "{html}");
    assert!(html.contains(&format!("<tr><td>{second}</td><td>{second}</td></tr>")), "{html}");
    let json: serde_json::Value =
        serde_json::from_str(&JsonRenderer::default().render_to_string(&report).unwrap()).unwrap();
    assert_eq!(json["blocks"][0]["pairs"][1]["source"]["chars"]["end"], p + 122);

    // A summary's pairs are open: they read better than its long source excerpt.
    let mut summary = reworded.clone();
    summary.evidence.summary = true;
    let html = HtmlRenderer.render_to_string(&build(summary, Some(&source_text))).unwrap();
    assert!(html.contains("<details class=\"sentences\" open>"), "{html}");

    // Without the source's text, nothing to read side by side.
    let report = build(reworded, None);
    assert!(report.blocks[0].pairs.is_empty());
    assert!(!HtmlRenderer.render_to_string(&report).unwrap().contains("Sentence by sentence"));

    // Stored before the field existed: none.
    let mut old =
        serde_json::to_value(build(block(RU, 0, 122, span(&source_text, p, p + 122)), Some(&source_text))).unwrap();
    old["blocks"][0].as_object_mut().unwrap().remove("pairs");
    let back: Report = serde_json::from_value(old).unwrap();
    assert!(back.blocks[0].pairs.is_empty());
}
