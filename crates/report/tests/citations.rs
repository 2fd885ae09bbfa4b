//! Citations found in the suspect's own text: quotations with references and the
//! bibliography, on real passages in Russian and English.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use tessera_core::{CollectionKind, DocId};
use tessera_report::{BlockId, BlockKind, Report, ReportOptions, SuspectInfo};

/// (excerpt, kind, reason) of every block, in block order.
fn kinds(report: &Report) -> Vec<(String, BlockKind, Option<String>)> {
    report.blocks.iter().map(|b| (b.suspect_excerpt.clone(), b.kind, b.reason.clone())).collect()
}

fn len(text: &str) -> u64 {
    text.chars().count() as u64
}

#[test]
fn russian_quotation_with_reference_and_bibliography_are_citations() {
    let report = russian_quoted(&ReportOptions::default());
    assert_eq!(
        kinds(&report),
        vec![
            (RU_Q1.to_owned(), BlockKind::Citation, Some("quoted with reference [3, с. 7]".to_owned())),
            // The same passage without quotation marks is a borrowing.
            (RU_Q2.to_owned(), BlockKind::Borrowing, None),
            // In quotation marks but with no reference: a borrowing.
            (RU_Q3.to_owned(), BlockKind::Borrowing, None),
            // A bibliography entry that matches an indexed catalogue record.
            (RU_Q4.to_owned(), BlockKind::Citation, Some("bibliography".to_owned())),
        ]
    );
    assert!(report.blocks.iter().all(|b| b.kind == b.detected_kind));
    let t = report.totals;
    assert_eq!(t.cited_chars, len(RU_Q1) + len(RU_Q4));
    assert_eq!(t.borrowed_chars, len(RU_Q2) + len(RU_Q3));
    assert_eq!(t.original_chars, len(RU_QUOTED) - t.cited_chars - t.borrowed_chars);
    assert!((t.borrowings + t.citations + t.originality - 100.0).abs() < 1e-9);
    // Shares per source as before: source 1 has a citation and two borrowings.
    let karenina = report.source(DocId(1)).unwrap();
    assert_eq!(karenina.report_chars, len(RU_Q1) + len(RU_Q2) + len(RU_Q3));
    assert_eq!(report.source(DocId(2)).unwrap().report_chars, len(RU_Q4));
}

#[test]
fn detection_can_be_switched_off() {
    let off = ReportOptions { detect_quotations: false, detect_bibliography: false, ..ReportOptions::default() };
    let report = russian_quoted(&off);
    assert!(report.blocks.iter().all(|b| b.kind == BlockKind::Borrowing && b.reason.is_none()));
    assert_eq!(report.totals.cited_chars, 0);

    let only_bibliography = ReportOptions { detect_quotations: false, ..ReportOptions::default() };
    let report = russian_quoted(&only_bibliography);
    let cited: Vec<&str> =
        report.blocks.iter().filter(|b| b.kind == BlockKind::Citation).map(|b| b.suspect_excerpt.as_str()).collect();
    assert_eq!(cited, [RU_Q4]);
}

#[test]
fn a_reviewer_may_overrule_a_detected_citation() {
    let mut report = russian_quoted(&ReportOptions::default());
    assert!(report.set_block_kind(BlockId(0), BlockKind::Borrowing));
    let block = &report.blocks[0];
    assert_eq!((block.kind, block.detected_kind), (BlockKind::Borrowing, BlockKind::Citation));
    assert_eq!(block.reason.as_deref(), Some("quoted with reference [3, с. 7]"));
    assert_eq!(report.totals.cited_chars, len(RU_Q4));
}

/// Dickens quoted three ways, with a reference list.
const EN_QUOTED: &str = "Dickens opens the novel with a paradox: “It was the best of times, it was the worst of times” (Dickens, 1859, p. 1). Many essays repeat it without quotation marks: it was the best of times, it was the worst of times. Others quote “it was the age of wisdom, it was the age of foolishness” and name no source. A footnote works as well: \"it was the epoch of belief, it was the epoch of incredulity\"¹.\n\nReferences\nDickens, C. (1859). A Tale of Two Cities. London: Chapman & Hall.\n";

const DICKENS: &str = "It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of foolishness, it was the epoch of belief, it was the epoch of incredulity, it was the season of Light, it was the season of Darkness";

const EN_ENTRY: &str = "Dickens, C. (1859). A Tale of Two Cities. London: Chapman & Hall.";

fn english_quoted() -> Report {
    let q1 = "It was the best of times, it was the worst of times";
    let q2 = "it was the best of times, it was the worst of times";
    let q3 = "it was the age of wisdom, it was the age of foolishness";
    let q4 = "it was the epoch of belief, it was the epoch of incredulity";
    let catalogue = format!("Catalogue record: {EN_ENTRY} 448 pages.");
    let s2 = find(EN_QUOTED, q2);
    let revisions = vec![revision(
        "web",
        CollectionKind::Source,
        vec![
            source_match(
                1,
                vec![
                    matched(EN_QUOTED, DICKENS, q1),
                    block(EN_QUOTED, s2.chars.start, s2.chars.end, find(DICKENS, q1)),
                    matched(EN_QUOTED, DICKENS, q3),
                    matched(EN_QUOTED, DICKENS, q4),
                ],
            ),
            source_match(2, vec![matched(EN_QUOTED, &catalogue, EN_ENTRY)]),
        ],
    )];
    Report::build(SuspectInfo::new("essay.txt", "", EN_QUOTED), &revisions, &[], &ReportOptions::default())
}

#[test]
fn english_quotations_with_author_year_and_footnote_are_citations() {
    let report = english_quoted();
    let got: Vec<(BlockKind, Option<&str>)> = report.blocks.iter().map(|b| (b.kind, b.reason.as_deref())).collect();
    assert_eq!(
        got,
        vec![
            (BlockKind::Citation, Some("quoted with reference (Dickens, 1859, p. 1)")),
            (BlockKind::Borrowing, None),
            (BlockKind::Borrowing, None),
            (BlockKind::Citation, Some("quoted with footnote mark ¹")),
            (BlockKind::Citation, Some("bibliography")),
        ]
    );
}

#[test]
fn a_block_mostly_inside_a_quotation_is_a_citation() {
    let text = RU_QUOTED;
    let quote = find(text, RU_Q1);
    let build = |start: usize, end: usize| {
        let revisions =
            vec![revision("web", CollectionKind::Source, vec![source_match(1, vec![same(text, start, end)])])];
        Report::build(SuspectInfo::new("e", "", text), &revisions, &[], &ReportOptions::default()).blocks[0].kind
    };
    let (s, e) = (quote.chars.start, quote.chars.end);
    // Exactly the quoted words, the marks and reference included, or a part of them.
    assert_eq!(build(s, e), BlockKind::Citation);
    assert_eq!(build(s - 1, e + 1 + " [3, с. 7].".chars().count()), BlockKind::Citation);
    assert_eq!(build(s + 20, e - 20), BlockKind::Citation);
    // Reaching back over "афоризмом: " (9 of the block's 84 word chars outside: under
    // 90 % inside) makes it a borrowing.
    assert_eq!(build(s - "афоризмом: «".chars().count(), e), BlockKind::Borrowing);
    // Reaching over the next sentence too.
    let next = find(text, "Эту мысль часто повторяют");
    assert_eq!(build(s, next.chars.end), BlockKind::Borrowing);
}

#[test]
fn a_quoted_citation_wholly_inside_another_borrowing_is_a_borrowing() {
    // Source 2 holds the whole first sentence of the essay, quotation and reference
    // included (the essay copied it); source 1 is the novel. The citation from source 1
    // lies wholly inside source 2's borrowing, which keeps those characters.
    let sentence = find(RU_QUOTED, "Роман открывается афоризмом");
    let end = find(RU_QUOTED, "[3, с. 7].").chars.end;
    let revisions = vec![revision(
        "web",
        CollectionKind::Source,
        vec![
            source_match(1, vec![matched(RU_QUOTED, RU, RU_Q1)]),
            source_match(2, vec![same(RU_QUOTED, sentence.chars.start, end)]),
        ],
    )];
    let report = Report::build(SuspectInfo::new("e", "", RU_QUOTED), &revisions, &[], &ReportOptions::default());
    let kinds: Vec<(u64, BlockKind)> = report.blocks.iter().map(|b| (b.source.0, b.kind)).collect();
    assert_eq!(kinds, vec![(2, BlockKind::Borrowing), (1, BlockKind::Citation)]);
    assert_eq!(report.totals.cited_chars, 0);
    assert_eq!(report.totals.borrowed_chars, (end - sentence.chars.start) as u64);
    assert_eq!(report.source(DocId(1)).unwrap().report_chars, 0);
}

#[test]
fn the_english_fixture_quotes_dickens_with_a_reference() {
    // With detection on, source 12's block (the quoted sentence before "[1]") is a
    // citation, so source 21's citation no longer lies inside a borrowing.
    let report = english_detected();
    let twelve = report.blocks.iter().find(|b| b.source == DocId(12)).unwrap();
    assert_eq!(twelve.kind, BlockKind::Citation);
    assert_eq!(twelve.reason.as_deref(), Some("quoted with reference [1]"));
    let twenty = report.blocks.iter().find(|b| b.source == DocId(20)).unwrap();
    assert_eq!(twenty.reason.as_deref(), Some("citation collection \"quotes\""));
    let t = report.totals;
    assert_eq!((t.borrowed_chars, t.cited_chars, t.original_chars), (57, 110, 61));
}

#[test]
fn reports_without_the_reason_field_still_parse() {
    let report = russian_quoted(&ReportOptions::default());
    let mut json = serde_json::to_value(&report).unwrap();
    for block in json["blocks"].as_array_mut().unwrap() {
        block.as_object_mut().unwrap().remove("reason");
    }
    let back: Report = serde_json::from_value(json).unwrap();
    assert!(back.blocks.iter().all(|b| b.reason.is_none()));
    assert_eq!(back.totals, report.totals);
}
