//! The reviewer's filters (`ReportFilters`): what they take out, how totals and shares
//! follow, and that switching them back restores the report.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use tessera_core::CollectionKind;
use tessera_report::{
    BlockKind, Exclusion, FilterError, HtmlRenderer, JsonRenderer, Render, Report, ReportFilters, ReportOptions,
    SuspectInfo, TextRenderer,
};

/// An essay: an unquoted copy (source 1), a quotation without a reference (source 1),
/// a short copied phrase (source 2), and a bibliography entry (source 3).
const ESSAY: &str = "Borrowed text that runs on for quite a few words here. She wrote \"a quoted line of several words\" once. tiny phrase.\n\nReferences\n1. Smith J. A book. London, 2010. 200 p.\n";

fn at(text: &str, what: &str) -> (usize, usize) {
    let byte = text.find(what).unwrap();
    let start = text[..byte].chars().count();
    (start, start + what.chars().count())
}

fn essay() -> Report {
    let b = |what: &str| {
        let (s, e) = at(ESSAY, what);
        same(ESSAY, s, e)
    };
    Report::build(
        SuspectInfo::new("essay.txt", "", ESSAY),
        &[revision(
            "web",
            CollectionKind::Source,
            vec![
                source_match(
                    1,
                    vec![
                        b("Borrowed text that runs on for quite a few words here."),
                        b("a quoted line of several words"),
                    ],
                ),
                source_match(2, vec![b("tiny phrase.")]),
                source_match(3, vec![b("1. Smith J. A book. London, 2010. 200 p.")]),
            ],
        )],
        &[
            info(1, "web", CollectionKind::Source, "One", "one.txt"),
            info(2, "web", CollectionKind::Source, "Two", "two.txt"),
            info(3, "web", CollectionKind::Source, "Three", "three.txt"),
        ],
        &ReportOptions::default(),
    )
}

fn excluded(report: &Report) -> Vec<Option<Exclusion>> {
    report.blocks.iter().map(|b| b.excluded).collect()
}

fn len(what: &str) -> u64 {
    what.chars().count() as u64
}

#[test]
fn filters_are_off_by_default_and_change_nothing() {
    let report = essay();
    assert!(report.filters.is_off());
    assert_eq!(excluded(&report), vec![None; 4]);
    let json = JsonRenderer::default().render_to_string(&report).unwrap();
    assert!(!json.contains("\"filters\"") && !json.contains("\"excluded\""), "{json}");
    // The bibliography entry is a citation by detection.
    assert_eq!(report.blocks[3].kind, BlockKind::Citation);
}

#[test]
fn exclude_quotes_counts_a_quotation_without_reference_as_a_citation() {
    let mut report = essay();
    let before = report.totals;
    report.set_filters(ReportFilters { exclude_quotes: true, ..ReportFilters::default() }).unwrap();
    assert_eq!(excluded(&report), vec![None, Some(Exclusion::Quote), None, None]);
    let quote = len("a quoted line of several words");
    assert_eq!(report.totals.borrowed_chars, before.borrowed_chars - quote);
    assert_eq!(report.totals.cited_chars, before.cited_chars + quote);
    // The block keeps its kind; what counts is in the segments.
    assert_eq!(report.blocks[1].kind, BlockKind::Borrowing);
    assert!(report.segments.iter().any(|s| s.block == report.blocks[1].id && s.kind == BlockKind::Citation));
    // Switched back: the report as built.
    report.set_filters(ReportFilters::default()).unwrap();
    assert_eq!(report, essay());
}

#[test]
fn a_block_a_reviewer_reclassified_keeps_the_reviewers_kind() {
    let mut report = essay();
    report.set_block_kind(report.blocks[1].id, BlockKind::Citation);
    report.set_block_kind(report.blocks[1].id, BlockKind::Borrowing);
    report.set_filters(ReportFilters { exclude_quotes: true, ..ReportFilters::default() }).unwrap();
    assert_eq!(report.blocks[1].excluded, Some(Exclusion::Quote), "unchanged kind: the filter applies");
    let mut report = essay();
    let quote = report.blocks[1].id;
    report.blocks[1].detected_kind = BlockKind::Citation; // as if detected, then the reviewer said borrowing
    report.set_filters(ReportFilters { exclude_quotes: true, ..ReportFilters::default() }).unwrap();
    assert_eq!(report.block(quote).unwrap().excluded, None);
}

#[test]
fn exclude_bibliography_counts_its_blocks_for_nothing() {
    let mut report = essay();
    let entry = len("1. Smith J. A book. London, 2010. 200 p.");
    assert_eq!(report.totals.cited_chars, entry);
    report.set_filters(ReportFilters { exclude_bibliography: true, ..ReportFilters::default() }).unwrap();
    assert_eq!(excluded(&report), vec![None, None, None, Some(Exclusion::Bibliography)]);
    assert_eq!(report.totals.cited_chars, 0);
    assert_eq!(report.totals.original_chars, essay().totals.original_chars + entry);
    let three = report.sources.iter().find(|s| s.title == "Three").unwrap();
    assert_eq!(three.report_chars, 0);
    assert!(three.share_in_report.abs() < f64::EPSILON);
    // The share in text does not follow filters, as it does not follow edits.
    assert!(three.share_in_text > 0.0);
}

#[test]
fn min_words_takes_out_short_matches() {
    let mut report = essay();
    report.set_filters(ReportFilters { min_words: 3, ..ReportFilters::default() }).unwrap();
    assert_eq!(excluded(&report), vec![None, None, Some(Exclusion::MinWords), None]);
    assert_eq!(report.totals.borrowed_chars, essay().totals.borrowed_chars - len("tiny phrase."));
}

#[test]
fn min_percent_takes_out_small_sources() {
    let mut report = essay();
    // Source 2 covers 12 of 166 chars (7.2 %), source 1 and 3 more.
    let two = report.sources.iter().find(|s| s.title == "Two").unwrap().share_in_text;
    report.set_filters(ReportFilters { min_percent: two + 0.1, ..ReportFilters::default() }).unwrap();
    assert_eq!(excluded(&report), vec![None, None, Some(Exclusion::MinPercent), None]);
    let sum: f64 = report.sources.iter().map(|s| s.share_in_report).sum();
    assert!((sum - report.totals.borrowings - report.totals.citations).abs() < 1e-9);
}

#[test]
fn out_of_range_filters_are_refused_and_change_nothing() {
    let mut report = essay();
    for bad in [-1.0, 100.5, f64::NAN] {
        let err = report.set_filters(ReportFilters { min_percent: bad, ..ReportFilters::default() }).unwrap_err();
        assert!(matches!(err, FilterError::Percent(_)));
    }
    assert_eq!(report, essay());
}

#[test]
fn filters_round_trip_through_json_and_old_reports_load() {
    let mut report = essay();
    let filters = ReportFilters { exclude_quotes: true, exclude_bibliography: true, min_words: 3, min_percent: 0.5 };
    report.set_filters(filters).unwrap();
    let json = JsonRenderer::default().render_to_string(&report).unwrap();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["filters"]["min_words"], 3);
    assert_eq!(value["blocks"][1]["excluded"], "quote");
    assert_eq!(value["blocks"][2]["excluded"], "min_words");
    assert_eq!(value["blocks"][3]["excluded"], "bibliography");
    let back: Report = serde_json::from_str(&json).unwrap();
    assert_eq!(back, report);
    // Written before filters existed: no filters, nothing excluded.
    let mut old = value;
    old.as_object_mut().unwrap().remove("filters");
    let mut old: Report = serde_json::from_value(old).unwrap();
    old.recompute();
    assert!(old.filters.is_off());
    assert_eq!(old, essay());
}

#[test]
fn renderers_say_which_filters_apply_and_why_a_block_is_out() {
    let mut report = essay();
    report.set_filters(ReportFilters { exclude_bibliography: true, min_words: 3, ..ReportFilters::default() }).unwrap();
    let text = TextRenderer::default().render_to_string(&report).unwrap();
    assert!(
        text.contains("Filters:      bibliography excluded, matches under 3 words excluded (2 of 4 blocks affected)"),
        "{text}"
    );
    assert!(text.contains("(excluded: fewer than 3 words: not counted (filter))"), "{text}");
    let html = HtmlRenderer.render_to_string(&report).unwrap();
    assert!(html.contains("<strong>Filters:</strong> bibliography excluded"), "{html}");
    assert!(html.contains("excluded: in the bibliography: not counted (filter)"), "{html}");
}
