//! Shares and totals, hand-computed on real passages.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use tessera_core::{CollectionKind, DocId};
use tessera_report::{BlockId, BlockKind, Report, ReportOptions, SCHEMA_VERSION, Source, SuspectInfo};

fn pct(part: u64, whole: u64) -> f64 {
    part as f64 * 100.0 / whole as f64
}

fn assert_close(actual: f64, expected: f64) {
    assert!((actual - expected).abs() < 1e-9, "{actual} != {expected}");
}

fn by_id(report: &Report, id: u64) -> &Source {
    report.source(DocId(id)).unwrap()
}

/// (text_chars, report_chars) of every source, in rank order.
fn chars_of(report: &Report) -> Vec<(u64, u64, u64)> {
    let mut by_rank: Vec<_> = report.sources.iter().collect();
    by_rank.sort_by_key(|s| s.rank);
    by_rank.iter().map(|s| (s.id.0, s.text_chars, s.report_chars)).collect()
}

#[test]
fn russian_suspect_is_measured_in_chars_and_bytes() {
    let report = russian();
    assert_eq!(report.schema_version, SCHEMA_VERSION);
    assert_eq!(report.suspect.char_len, 257);
    assert_eq!(report.suspect.byte_len, 464);
    assert!(!report.suspect.partial);
}

#[test]
fn blocks_are_sorted_by_suspect_start_then_source_and_keep_both_spans() {
    let report = russian();
    let order: Vec<(u32, u64, usize, usize)> = report
        .blocks
        .iter()
        .map(|b| (b.id.0, b.source.0, b.suspect_span.chars.start, b.suspect_span.chars.end))
        .collect();
    assert_eq!(order, vec![(0, 1, 0, 41), (1, 2, 0, 90), (2, 1, 92, 122), (3, 3, 92, 201)]);
    let first = &report.blocks[0];
    assert_eq!(first.suspect_span.bytes.start, 0);
    assert_eq!(first.suspect_span.bytes.end, 76);
    assert_eq!(first.suspect_excerpt, "Все счастливые семьи похожи друг на друга");
    // The source text is kept and 29 chars (53 bytes) longer at the start.
    assert_eq!(first.source_span.chars.start, 29);
    assert_eq!(first.source_span.chars.end, 70);
    assert_eq!(first.source_span.bytes.start, RU_SOURCE_PREFIX.len());
    assert_eq!(first.source_excerpt.as_deref(), Some("Все счастливые семьи похожи друг на друга"));
    // Source 3's text is not kept.
    assert_eq!(report.blocks[3].source_excerpt, None);
    assert_eq!(report.blocks[3].suspect_span.bytes.start, 169);
    assert_eq!(report.blocks[3].suspect_span.bytes.end, 367);
}

#[test]
fn overlapping_sources_share_the_report_in_rank_order() {
    let report = russian();
    // Text shares: each source's own coverage. Report shares: 2 loses [0, 41) to 1,
    // 3 loses [92, 122) to 1.
    assert_eq!(chars_of(&report), vec![(1, 41 + 30, 41 + 30), (2, 90, 90 - 41), (3, 109, 109 - 30)]);
    assert_close(by_id(&report, 1).share_in_text, pct(71, 257));
    assert_close(by_id(&report, 2).share_in_text, pct(90, 257));
    assert_close(by_id(&report, 2).share_in_report, pct(49, 257));
    assert_close(by_id(&report, 3).share_in_report, pct(79, 257));
    // Listed by number, largest share in report first; ranks keep the priority order.
    let listed: Vec<(u64, u32, u32)> = report.sources.iter().map(|s| (s.id.0, s.rank, s.number)).collect();
    assert_eq!(listed, vec![(3, 3, 1), (1, 1, 2), (2, 2, 3)]);

    // Union: [0, 90) and [92, 201).
    let t = report.totals;
    assert_eq!((t.borrowed_chars, t.cited_chars, t.original_chars), (199, 0, 58));
    assert_close(t.borrowings, pct(199, 257));
    assert_close(t.citations, 0.0);
    assert_close(t.originality, pct(58, 257));
    let report_sum: f64 = report.sources.iter().map(|s| s.share_in_report).sum();
    assert_close(report_sum, t.borrowings + t.citations);
    let text_sum: f64 = report.sources.iter().map(|s| s.share_in_text).sum();
    assert!(text_sum > t.borrowings, "text shares overlap, so they add up to more");
}

#[test]
fn disabling_a_source_hands_its_chars_to_the_next_and_keeps_its_text_share() {
    let mut report = russian();
    assert!(report.set_source_enabled(DocId(1), false));
    assert_eq!(chars_of(&report), vec![(1, 71, 0), (2, 90, 90), (3, 109, 109)]);
    assert_eq!(report.totals.borrowed_chars, 199);
    assert!(!by_id(&report, 1).enabled);
    assert_close(by_id(&report, 1).share_in_report, 0.0);
    assert_close(by_id(&report, 1).share_in_text, pct(71, 257));

    // Without source 3 only [92, 122) of the second sentence stays, from source 1... which
    // is disabled too: the totals fall to the first sentence.
    assert!(report.set_source_enabled(DocId(3), false));
    assert_eq!(chars_of(&report), vec![(1, 71, 0), (2, 90, 90), (3, 109, 0)]);
    assert_eq!((report.totals.borrowed_chars, report.totals.original_chars), (90, 167));
    assert_close(report.totals.originality, pct(167, 257));

    assert!(report.set_source_enabled(DocId(1), true));
    assert_eq!(chars_of(&report), vec![(1, 71, 71), (2, 90, 49), (3, 109, 0)]);
    assert_eq!(report.totals.borrowed_chars, 120);

    assert!(!report.set_source_enabled(DocId(99), false));
}

#[test]
fn reclassifying_a_block_as_citation_moves_its_chars_to_citations() {
    let mut report = russian();
    // Block 3 is source 3's [92, 201). As a citation it is inside no borrowing block, so
    // it wins over source 1's borrowing [92, 122).
    assert!(report.set_block_kind(BlockId(3), BlockKind::Citation));
    assert_eq!(report.blocks[3].kind, BlockKind::Citation);
    assert_eq!(report.blocks[3].detected_kind, BlockKind::Borrowing);
    let t = report.totals;
    assert_eq!((t.borrowed_chars, t.cited_chars, t.original_chars), (90, 109, 58));
    assert_close(t.borrowings, pct(90, 257));
    assert_close(t.citations, pct(109, 257));
    assert_eq!(chars_of(&report), vec![(1, 71, 41), (2, 90, 49), (3, 109, 109)]);

    // The override survives other edits.
    report.set_source_enabled(DocId(2), false);
    assert_eq!(report.blocks[3].kind, BlockKind::Citation);
    assert_eq!(report.totals.cited_chars, 109);
    assert_eq!(report.totals.borrowed_chars, 41);

    report.set_source_enabled(DocId(2), true);
    assert!(report.set_block_kind(BlockId(3), BlockKind::Borrowing));
    assert_eq!(report, russian());
    assert!(!report.set_block_kind(BlockId(4), BlockKind::Citation));
}

#[test]
fn citation_wins_where_it_overlaps_but_is_not_inside_a_borrowing() {
    let report = english();
    assert_eq!(report.suspect.char_len, 228);
    let kinds: Vec<(u64, BlockKind)> = report.blocks.iter().map(|b| (b.source.0, b.kind)).collect();
    assert_eq!(
        kinds,
        vec![
            (10, BlockKind::Borrowing),
            (20, BlockKind::Citation),
            (11, BlockKind::Borrowing),
            (12, BlockKind::Borrowing),
            (21, BlockKind::Citation),
        ]
    );
    // Citation [26, 77) beats borrowings [0, 51) and [60, 108) where they overlap:
    // source 10 keeps [0, 26), source 11 keeps [77, 108).
    // Citation [129, 155) lies wholly inside borrowing [129, 188): the borrowing keeps it.
    assert_eq!(chars_of(&report), vec![(10, 51, 26), (11, 48, 31), (12, 59, 59), (20, 51, 51), (21, 26, 0)]);
    let t = report.totals;
    assert_eq!((t.borrowed_chars, t.cited_chars, t.original_chars), (116, 51, 61));
    assert_close(t.borrowings, pct(116, 228));
    assert_close(t.citations, pct(51, 228));
    assert_close(t.originality, pct(61, 228));
    assert_close(t.borrowings + t.citations + t.originality, 100.0);
}

#[test]
fn citation_inside_a_borrowing_counts_once_the_borrowing_is_gone() {
    let mut report = english();
    // Disable source 12: citation [129, 155) is no longer inside a counted borrowing.
    report.set_source_enabled(DocId(12), false);
    assert_eq!(chars_of(&report), vec![(10, 51, 26), (11, 48, 31), (12, 59, 0), (20, 51, 51), (21, 26, 26)]);
    let t = report.totals;
    assert_eq!((t.borrowed_chars, t.cited_chars, t.original_chars), (57, 77, 94));

    // Reclassify source 12's block as a citation instead: both citations count, the
    // higher-ranked source 12 owns the shared [129, 155).
    report.set_source_enabled(DocId(12), true);
    let id = report.blocks.iter().find(|b| b.source == DocId(12)).unwrap().id;
    report.set_block_kind(id, BlockKind::Citation);
    assert_eq!(chars_of(&report), vec![(10, 51, 26), (11, 48, 31), (12, 59, 59), (20, 51, 51), (21, 26, 0)]);
    let t = report.totals;
    assert_eq!((t.borrowed_chars, t.cited_chars, t.original_chars), (57, 110, 61));
}

#[test]
fn a_borrowing_only_partly_covering_a_citation_loses_the_overlap() {
    // Borrowing [0, 60) and citation [40, 100) of one English sentence pair.
    let revisions = vec![
        revision("web", CollectionKind::Source, vec![source_match(1, vec![same(EN, 0, 60)])]),
        revision("law", CollectionKind::Citation, vec![source_match(2, vec![same(EN, 40, 100)])]),
    ];
    let report = Report::build(SuspectInfo::new("a", "", EN), &revisions, &[], &ReportOptions::default());
    assert_eq!(chars_of(&report), vec![(1, 60, 40), (2, 60, 60)]);
    // Unknown sources keep their revision's collection name.
    assert_eq!(by_id(&report, 2).collection, "law");
    assert_eq!(by_id(&report, 2).title, "");
}

#[test]
fn segments_cover_exactly_the_counted_chars() {
    let report = english();
    let segments: Vec<(usize, usize, u64, BlockKind)> =
        report.segments.iter().map(|s| (s.span.chars.start, s.span.chars.end, s.source.0, s.kind)).collect();
    assert_eq!(
        segments,
        vec![
            (0, 26, 10, BlockKind::Borrowing),
            (26, 77, 20, BlockKind::Citation),
            (77, 108, 11, BlockKind::Borrowing),
            (129, 188, 12, BlockKind::Borrowing),
        ]
    );
}

#[test]
fn short_blocks_are_dropped_and_bad_spans_clamped() {
    let revisions = vec![revision(
        "web",
        CollectionKind::Source,
        vec![source_match(1, vec![same(RU, 4, 20), same(RU, 0, 41), same(RU, 250, 400), same(RU, 300, 310)])],
    )];
    let options = ReportOptions { min_block_chars: 17, ..ReportOptions::default() };
    let report = Report::build(SuspectInfo::new("r", "", RU), &revisions, &[], &options);
    // [4, 20) has 16 chars: dropped. [250, 400) is clamped to [250, 257); 7 chars: dropped.
    // [300, 310) is outside the text: dropped.
    assert_eq!(report.blocks.len(), 1);
    assert_eq!(report.totals.borrowed_chars, 41);

    let report = Report::build(SuspectInfo::new("r", "", RU), &revisions, &[], &ReportOptions::default());
    assert_eq!(report.blocks.len(), 3);
    let last = &report.blocks[2];
    assert_eq!((last.suspect_span.chars.start, last.suspect_span.chars.end), (250, 257));
    assert_eq!(last.suspect_span.bytes.end, RU.len());
    assert_eq!(last.suspect_excerpt, "м доме.");
    assert_eq!(report.totals.borrowed_chars, 48);
}

#[test]
fn empty_document_is_wholly_original() {
    let report = Report::build(SuspectInfo::new("empty", "", ""), &[], &[], &ReportOptions::default());
    assert_close(report.totals.originality, 100.0);
    assert_close(report.totals.borrowings, 0.0);
    assert!(report.sources.is_empty());
}

#[test]
fn source_excerpts_can_be_switched_off() {
    let report = russian_with(&ReportOptions { source_excerpts: false, ..ReportOptions::default() });
    assert!(!by_id(&report, 1).text_kept);
    assert!(report.blocks.iter().all(|b| b.source_excerpt.is_none()));
    // The spans are still there, and the numbers do not change.
    assert_eq!(report.blocks[0].source_span.chars.start, 29);
    assert_eq!(report.totals, russian().totals);
}

#[test]
fn json_round_trips() {
    for report in [russian(), english()] {
        let json = serde_json::to_string(&report).unwrap();
        let back: Report = serde_json::from_str(&json).unwrap();
        assert_eq!(back, report);
    }
}

#[test]
fn partial_reports_list_missing_collections_once_sorted() {
    let mut report = english();
    report.mark_missing("elibrary");
    report.mark_missing("archive");
    report.mark_missing("elibrary");
    assert!(report.suspect.partial);
    assert_eq!(report.suspect.missing_collections, vec!["archive", "elibrary"]);
}

#[test]
fn a_copy_counts_only_inside_its_sources_blocks_and_only_once_that_source_is_disabled() {
    let mut report = russian_with_copies();
    // Ranks: 5 (copy of 1), 1, 2, 3, 4 (copy of 3). Copies own nothing while 1 and 3 count.
    assert_eq!(chars_of(&report), vec![(5, 90, 0), (1, 71, 71), (2, 90, 49), (3, 109, 79), (4, 121, 0)]);
    assert_eq!(by_id(&report, 1).copies, vec![DocId(5)]);
    assert_eq!(by_id(&report, 3).copies, vec![DocId(4)]);
    assert_eq!(by_id(&report, 4).copy_of, vec![DocId(3)]);
    assert!(by_id(&report, 2).copies.is_empty() && by_id(&report, 2).copy_of.is_empty());

    // Without source 3, its copy takes over what 3 owned; [80, 92) is outside 3's block
    // and stays with source 2 (up to 90) and original.
    assert!(report.set_source_enabled(DocId(3), false));
    assert_eq!(chars_of(&report), vec![(5, 90, 0), (1, 71, 71), (2, 90, 49), (3, 109, 0), (4, 121, 79)]);
    assert_eq!(report.totals.borrowed_chars, 199);

    // Without source 1 too: source 2, not a copy, takes [0, 41) before copy 5 (though 5
    // ranks first); copy 4 gets [92, 122).
    assert!(report.set_source_enabled(DocId(1), false));
    assert_eq!(chars_of(&report), vec![(5, 90, 0), (1, 71, 0), (2, 90, 90), (3, 109, 0), (4, 121, 109)]);
    assert_eq!(report.totals.borrowed_chars, 199);
    // Without source 2, copy 5 stands in for source 1 on [0, 41) only: [41, 90) is
    // outside source 1's blocks.
    assert!(report.set_source_enabled(DocId(2), false));
    assert_eq!(chars_of(&report), vec![(5, 90, 41), (1, 71, 0), (2, 90, 0), (3, 109, 0), (4, 121, 109)]);
    assert_eq!(report.totals.borrowed_chars, 150);

    // A copy disabled with its source leaves the passage original.
    assert!(report.set_source_enabled(DocId(4), false));
    assert_eq!(report.totals.borrowed_chars, 41);
    let back: Report = serde_json::from_str(&serde_json::to_string(&report).unwrap()).unwrap();
    assert_eq!(back, report);
}

/// A found document: (doc, blocks as (start, end), the source it is a copy of).
type Found = (u64, Vec<(usize, usize)>, Option<u64>);

/// Builds a report of `revisions` (is a citation collection, documents found) over
/// `text`, and the same without the copies.
fn with_and_without_copies(text: &str, revisions: &[(bool, Vec<Found>)]) -> (Report, Report) {
    let build = |copies: bool| {
        let revisions: Vec<_> = revisions
            .iter()
            .enumerate()
            .map(|(r, (citation, sources))| {
                let kind = if *citation { CollectionKind::Citation } else { CollectionKind::Source };
                let found = sources
                    .iter()
                    .filter(|(_, _, of)| copies || of.is_none())
                    .map(|(doc, blocks, of)| {
                        let mut found = source_match(*doc, blocks.iter().map(|&(s, e)| same(text, s, e)).collect());
                        found.copy_of = of.map(DocId);
                        found
                    })
                    .collect();
                revision(&format!("c{r}"), kind, found)
            })
            .collect();
        Report::build(SuspectInfo::new("p", "", text), &revisions, &[], &ReportOptions::default())
    };
    (build(true), build(false))
}

/// A copy spanning two blocks of its source counts as two parts: the citation block that
/// lies inside a borrowing stays ignored, as it is without the copy (the copy's part
/// over both used to be a citation of its own and took those characters from the
/// borrowing).
#[test]
fn a_copy_over_two_blocks_of_its_source_counts_block_by_block() {
    let text = "a".repeat(58);
    let (with, without) = with_and_without_copies(
        &text,
        &[
            (false, vec![(1, vec![(13, 48)], None)]),
            (true, vec![(2, vec![(23, 49), (13, 23)], None), (3, vec![(0, 49)], Some(2))]),
        ],
    );
    assert_eq!((without.totals.borrowed_chars, without.totals.cited_chars), (10, 26));
    assert_eq!(with.totals, without.totals);
    assert_eq!(with.source(DocId(3)).unwrap().report_chars, 0);
}

/// A copy found as a borrowing on a passage its source's block cites does not hide that
/// citation (a citation wholly inside a borrowing block is ignored, but a copy's part is
/// no such block).
#[test]
fn a_copy_does_not_hide_the_citation_it_copies() {
    let text = "aaaaaaaaaaaж[1aaaaaaaaa  a«a] aa«\"a\"a\nж»";
    let (with, without) =
        with_and_without_copies(text, &[(false, vec![(1, vec![(11, 22)], None), (2, vec![(0, 22)], Some(1))])]);
    assert_eq!(without.blocks[0].kind, BlockKind::Citation, "{:?}", without.blocks);
    assert_eq!(with.blocks.iter().find(|b| b.source == DocId(2)).unwrap().kind, BlockKind::Borrowing);
    assert_eq!((without.totals.borrowed_chars, without.totals.cited_chars), (0, 11));
    assert_eq!(with.totals, without.totals);
    // Without source 1, the copy stands in for it: the passage is borrowed from 2.
    let mut with = with;
    assert!(with.set_source_enabled(DocId(1), false));
    assert_eq!((with.totals.borrowed_chars, with.totals.cited_chars), (11, 0));
}
