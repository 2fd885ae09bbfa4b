//! Properties over random block sets, checked against a character-by-character model.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use proptest::prelude::*;
use tessera_core::{CollectionKind, DocId};
use tessera_report::{BlockId, BlockKind, Report, ReportOptions, SuspectInfo};

/// A random text mixing one- and two-byte characters.
fn text_strategy() -> impl Strategy<Value = String> {
    // Quotation marks, brackets, digits and line breaks make quotation and bibliography
    // detection turn some blocks into citations.
    let c = prop_oneof![
        6 => Just('a'), 4 => Just(' '), 3 => Just('ж'), 3 => Just('ё'), 1 => Just('«'), 1 => Just('»'),
        1 => Just('"'), 1 => Just('['), 1 => Just(']'), 1 => Just('1'), 1 => Just('\n'),
    ];
    proptest::collection::vec(c, 0..120).prop_map(|chars| chars.into_iter().collect())
}

/// Revisions: (is_citation, sources: [(blocks: [(start, len)])], copies: [(copied
/// source, document, blocks)]). A copy copies source `copied % sources`; its document
/// is a new one, or (`document % 3 == 0`) another source of the revision, which is then
/// both a source and a copy.
type RawRevisions = Vec<(bool, Vec<RawBlocks>, Vec<(usize, usize, RawBlocks)>)>;
type RawBlocks = Vec<(usize, usize)>;

fn revisions_strategy() -> impl Strategy<Value = RawRevisions> {
    let block = (0usize..130, 0usize..60);
    let source = proptest::collection::vec(block.clone(), 0..4);
    let copy = (0usize..4, 0usize..6, proptest::collection::vec(block, 0..3));
    let revision = (any::<bool>(), proptest::collection::vec(source, 0..4), proptest::collection::vec(copy, 0..3));
    proptest::collection::vec(revision, 0..4)
}

fn build(text: &str, raw: &RawRevisions) -> Report {
    let (mut doc, mut copy_doc) = (0, 1000);
    let blocks_of = |blocks: &RawBlocks| blocks.iter().map(|&(start, len)| same(text, start, start + len)).collect();
    let revisions: Vec<_> = raw
        .iter()
        .enumerate()
        .map(|(r, (is_citation, sources, copies))| {
            let kind = if *is_citation { CollectionKind::Citation } else { CollectionKind::Source };
            let mut found: Vec<_> = sources
                .iter()
                .map(|blocks| {
                    doc += 1;
                    source_match(doc, blocks_of(blocks))
                })
                .collect();
            let ids: Vec<u64> = found.iter().map(|s| s.doc.0).collect();
            for (copied, document, blocks) in copies {
                let Some(&of) = ids.get(copied % ids.len().max(1)) else { continue };
                let id = match ids.get(document / 3 % ids.len()) {
                    Some(&other) if document % 3 == 0 && other != of => other,
                    // Ids of their own, so that sources keep theirs with copies or without.
                    _ => {
                        copy_doc += 1;
                        copy_doc
                    }
                };
                let mut copy = source_match(id, blocks_of(blocks));
                copy.copy_of = Some(DocId(of));
                found.push(copy);
            }
            revision(&format!("c{r}"), kind, found)
        })
        .collect();
    Report::build(SuspectInfo::new("p", "", text), &revisions, &[], &ReportOptions::default())
}

/// Where a block counts (SCHEMA.md rule 5): its span, or for a copy block its part inside
/// each block of the copied source (not a copy), one part per block.
fn counting_parts(report: &Report, block: &tessera_report::Block) -> Vec<(usize, usize)> {
    let (s, e) = (block.suspect_span.chars.start, block.suspect_span.chars.end);
    let Some(of) = block.copy_of else { return vec![(s, e)] };
    report
        .blocks
        .iter()
        .filter(|o| o.source == of && o.copy_of.is_none())
        .map(|o| (s.max(o.suspect_span.chars.start), e.min(o.suspect_span.chars.end)))
        .filter(|(ps, pe)| ps < pe)
        .collect()
}

/// Per character: (kind, owner source) by the documented rules, one character at a time.
fn model(report: &Report) -> Vec<Option<(BlockKind, DocId)>> {
    let n = report.suspect.char_len as usize;
    // Priority is the rank (SCHEMA.md rule 4), not the position: sources are listed by
    // number; copies come after every block that is not a copy (rule 5).
    let priority = |b: &tessera_report::Block| {
        let rank = report.sources.iter().find(|s| s.id == b.source && s.enabled).map(|s| s.rank)?;
        Some((b.copy_of.is_some(), rank))
    };
    // (part, block, priority) of every counting block.
    let counted: Vec<_> = report
        .blocks
        .iter()
        .filter_map(|b| priority(b).map(|p| (b, p)))
        .flat_map(|(b, p)| counting_parts(report, b).into_iter().map(move |part| (part, b, p)))
        .collect();
    let inside_borrowing = |s: usize, e: usize| {
        counted
            .iter()
            .any(|((ps, pe), b, _)| b.kind == BlockKind::Borrowing && b.copy_of.is_none() && *ps <= s && e <= *pe)
    };
    (0..n)
        .map(|i| {
            let covering: Vec<_> = counted.iter().filter(|((s, e), _, _)| *s <= i && i < *e).collect();
            let citation = covering
                .iter()
                .filter(|((s, e), b, _)| b.kind == BlockKind::Citation && !inside_borrowing(*s, *e))
                .min_by_key(|(_, _, p)| *p);
            let borrowing =
                covering.iter().filter(|(_, b, _)| b.kind == BlockKind::Borrowing).min_by_key(|(_, _, p)| *p);
            citation
                .map(|(_, b, _)| (BlockKind::Citation, b.source))
                .or_else(|| borrowing.map(|(_, b, _)| (BlockKind::Borrowing, b.source)))
        })
        .collect()
}

fn check(report: &Report) -> Result<(), TestCaseError> {
    let t = report.totals;
    for p in [t.borrowings, t.citations, t.originality] {
        prop_assert!((0.0..=100.0).contains(&p), "{p} out of range");
    }
    prop_assert!((t.borrowings + t.citations + t.originality - 100.0).abs() < 1e-9);
    prop_assert_eq!(t.borrowed_chars + t.cited_chars + t.original_chars, t.total_chars);

    let owners = model(report);
    let count = |kind| owners.iter().filter(|o| o.is_some_and(|(k, _)| k == kind)).count() as u64;
    prop_assert_eq!(t.borrowed_chars, count(BlockKind::Borrowing));
    prop_assert_eq!(t.cited_chars, count(BlockKind::Citation));

    let mut report_sum = 0.0;
    for source in &report.sources {
        let owned = owners.iter().filter(|o| o.is_some_and(|(_, d)| d == source.id)).count();
        prop_assert_eq!(source.report_chars, owned as u64);
        prop_assert!(source.report_chars <= source.text_chars);
        prop_assert!(source.share_in_report <= source.share_in_text + 1e-12);
        report_sum += source.share_in_report;
    }
    prop_assert!((report_sum - (t.borrowings + t.citations)).abs() < 1e-9);

    // Segments are ordered, disjoint, and agree with the model.
    let mut last_end = 0;
    for segment in &report.segments {
        let (s, e) = (segment.span.chars.start, segment.span.chars.end);
        prop_assert!(last_end <= s && s < e);
        last_end = e;
        for owner in &owners[s..e] {
            prop_assert_eq!(*owner, Some((segment.kind, segment.source)));
        }
        let text = &report.suspect.text;
        prop_assert_eq!(text[segment.span.bytes.start..segment.span.bytes.end].chars().count(), e - s);
    }
    Ok(())
}

proptest! {
    #[test]
    fn totals_stay_in_range_and_add_up(text in text_strategy(), raw in revisions_strategy()) {
        let report = build(&text, &raw);
        check(&report)?;
        // Numbered 1..=n in list order, largest share in report first.
        let numbers: Vec<u32> = report.sources.iter().map(|s| s.number).collect();
        prop_assert_eq!(numbers, (1..=report.sources.len() as u32).collect::<Vec<_>>());
        for pair in report.sources.windows(2) {
            prop_assert!(pair[0].report_chars >= pair[1].report_chars);
        }
    }

    #[test]
    fn copies_change_nothing_while_every_source_counts(text in text_strategy(), raw in revisions_strategy()) {
        let with = build(&text, &raw);
        let without: RawRevisions = raw.iter().map(|(c, sources, _)| (*c, sources.clone(), Vec::new())).collect();
        let without = build(&text, &without);
        prop_assert_eq!(with.totals, without.totals);
        for source in &without.sources {
            prop_assert_eq!(with.source(source.id).unwrap().report_chars, source.report_chars);
        }
    }

    #[test]
    fn edits_keep_totals_consistent(
        text in text_strategy(),
        raw in revisions_strategy(),
        edits in proptest::collection::vec((any::<bool>(), 0u64..12, 0u32..12, any::<bool>()), 0..6),
    ) {
        let mut report = build(&text, &raw);
        let text_shares: Vec<f64> = report.sources.iter().map(|s| s.share_in_text).collect();
        let numbers: Vec<(DocId, u32)> = report.sources.iter().map(|s| (s.id, s.number)).collect();
        for (toggle, doc, block, flag) in edits {
            if toggle {
                report.set_source_enabled(DocId(doc), flag);
            } else {
                let kind = if flag { BlockKind::Citation } else { BlockKind::Borrowing };
                report.set_block_kind(BlockId(block), kind);
            }
            check(&report)?;
        }
        // Shares in text never change with edits.
        let after: Vec<f64> = report.sources.iter().map(|s| s.share_in_text).collect();
        prop_assert_eq!(text_shares, after);
        // Edits keep every source's number (and so its colour).
        let after: Vec<(DocId, u32)> = report.sources.iter().map(|s| (s.id, s.number)).collect();
        prop_assert_eq!(numbers, after);
    }
}
