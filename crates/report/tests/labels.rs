//! What a block is called (its label follows what the comparison of its two sides shows),
//! moved text, and blocks cut at the suspect's quotation marks.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use tessera_core::{CollectionKind, DocId};
use tessera_report::{
    BlockKind, ChangeKind, HtmlRenderer, Label, Render, Report, ReportFilters, ReportOptions, SourceInfo, SuspectInfo,
};
use tessera_search::Evidence;

/// A report of `suspect` against one source whose text is kept, with one block covering
/// both whole texts, found as `evidence` says.
fn compared(source: &str, suspect: &str, evidence: Evidence) -> Report {
    let mut b = block(suspect, 0, suspect.chars().count(), span(source, 0, source.chars().count()));
    b.evidence = evidence;
    build(source, suspect, b)
}

fn build(source: &str, suspect: &str, b: tessera_search::Block) -> Report {
    let info = SourceInfo { text: Some(source.to_owned()), ..info(1, "web", CollectionKind::Source, "Pride", "p.txt") };
    Report::build(
        SuspectInfo::new("essay.txt", "", suspect),
        &[revision("web", CollectionKind::Source, vec![source_match(1, vec![b])])],
        &[info],
        &ReportOptions::default(),
    )
}

fn copy() -> Evidence {
    Evidence { longest_run: 8, ..Evidence::default() }
}

fn rewording() -> Evidence {
    Evidence { sentences: true, longest_run: 2, ..Evidence::default() }
}

const PRIDE: &str = "It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife.";

#[test]
fn a_verbatim_passage_found_through_sentence_pairs_is_copied_not_reworded() {
    let report = compared(PRIDE, PRIDE, rewording());
    assert_eq!(report.blocks[0].label, Some(Label::Copied));
    let html = HtmlRenderer.render_to_string(&report).unwrap();
    assert!(html.contains("% sure · <span class=\"found-by\">copied</span>"), "{html}");
}

#[test]
fn case_punctuation_and_look_alike_letters_are_still_copied() {
    let suspect = "it is a truth universally acknowledged that a single man in possession of a good fortune must be in want of a wіfe!";
    assert_eq!(compared(PRIDE, suspect, copy()).blocks[0].label, Some(Label::Copied));
}

#[test]
fn words_the_alignment_took_on_one_side_only_at_an_edge_are_still_copied() {
    // The source's side starts three words earlier (where the aligner's ends fell).
    let suspect =
        "truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife.";
    assert_eq!(compared(PRIDE, suspect, copy()).blocks[0].label, Some(Label::Copied));
}

#[test]
fn a_copy_with_words_changed_is_edited_not_copied() {
    let suspect = "It is a fact universally acknowledged, that a single man in possession of a large fortune, must be in want of a wife.";
    let report = compared(PRIDE, suspect, copy());
    assert_eq!(report.blocks[0].label, Some(Label::Edited));
    // The confidence is about where it came from, not about the wording.
    assert_eq!(report.blocks[0].confidence, 100);
    let html = HtmlRenderer.render_to_string(&report).unwrap();
    assert!(html.contains("copied with edits"), "{html}");
}

#[test]
fn a_passage_keeping_few_of_the_sources_words_is_reworded() {
    let suspect = "Everyone agrees that a rich bachelor is surely looking for somebody to marry, people say.";
    let report = compared(PRIDE, suspect, copy());
    assert_eq!(report.blocks[0].label, Some(Label::Reworded));
}

#[test]
fn summaries_and_translations_keep_their_names_and_without_text_the_claim_stands() {
    assert_eq!(Label::of(tessera_report::FoundBy::Summary, Some((true, 1.0))), Label::Summary);
    assert_eq!(Label::of(tessera_report::FoundBy::Translation, Some((false, 0.1))), Label::Translated);
    assert_eq!(Label::of(tessera_report::FoundBy::Copy, None), Label::Copied);
    assert_eq!(Label::of(tessera_report::FoundBy::Rewording, None), Label::Reworded);
    assert_eq!(Label::of(tessera_report::FoundBy::Copy, Some((false, 0.9))), Label::Edited);
    assert_eq!(Label::of(tessera_report::FoundBy::Rewording, Some((false, 0.5))), Label::Reworded);
}

const FIRST: &str =
    "However little known the feelings or views of such a man may be on his first entering a neighbourhood.";
const SECOND: &str = "This truth is so well fixed in the minds of the surrounding families.";
const THIRD: &str = "He is considered the rightful property of some one or other of their daughters.";

#[test]
fn reordered_identical_sentences_are_moved_with_no_changed_word() {
    let source = format!("{FIRST} {SECOND} {THIRD}");
    let suspect = format!("{SECOND} {FIRST} {THIRD}");
    let report = compared(&source, &suspect, rewording());
    let b = &report.blocks[0];
    assert!(!b.diff.is_empty());
    assert!(b.diff.iter().all(|c| c.kind == ChangeKind::Moved), "{:?}", b.diff);
    assert_eq!(b.label, Some(Label::Copied));
    // Each moved run's two sides hold the same words.
    for c in &b.diff {
        let cut = |text: &str, s: tessera_search::TextSpan| text[s.bytes.start..s.bytes.end].to_owned();
        assert_eq!(cut(&suspect, c.suspect), cut(&source, c.source));
    }
    let html = HtmlRenderer.render_to_string(&report).unwrap();
    assert!(html.contains("<span class=\"moved\" title=\"moved\">"), "{html}");
}

const ATTRIBUTED: &str = "Austen writes that \"It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife\" and then my own words go on about the Regency.";

/// The quotation's chars: from the opening to the closing mark.
fn quoted(text: &str) -> (usize, usize) {
    let open = text.chars().position(|c| c == '"').unwrap();
    let close = text.chars().skip(open + 1).position(|c| c == '"').unwrap() + open + 1;
    (open, close + 1)
}

#[test]
fn an_attributed_quotation_does_not_run_past_its_closing_mark_as_a_borrowing() {
    // The aligner's block covers the whole sentence, the writer's words around the
    // quotation included.
    let report = compared(PRIDE, ATTRIBUTED, copy());
    let (open, close) = quoted(ATTRIBUTED);
    assert_eq!(report.blocks.len(), 1, "{:?}", report.blocks);
    let b = &report.blocks[0];
    assert_eq!((b.suspect_span.chars.start, b.suspect_span.chars.end), (open, close));
    assert_eq!(b.source_excerpt.as_deref(), Some(&PRIDE[..PRIDE.len() - 1]));
    assert_eq!(b.kind, BlockKind::Borrowing);
    assert_eq!(b.label, Some(Label::Copied));
    assert_eq!(report.totals.borrowed_chars, (close - open) as u64);

    // With quotes excluded the quotation counts as a citation, even without a reference.
    let mut report = report;
    report.set_filters(ReportFilters { exclude_quotes: true, ..ReportFilters::default() }).unwrap();
    assert_eq!(report.totals.borrowed_chars, 0);
    assert_eq!(report.totals.cited_chars, (close - open) as u64);
}

#[test]
fn a_referenced_quotation_followed_by_an_unquoted_copy_is_cut_in_two() {
    let source = format!("{PRIDE} {FIRST}");
    let suspect = format!("As noted, \"{}\" [1]. {FIRST}", &PRIDE[..PRIDE.len() - 1]);
    let report = compared(&source, &suspect, copy());
    let kinds: Vec<(BlockKind, Option<&str>)> = report.blocks.iter().map(|b| (b.kind, b.reason.as_deref())).collect();
    assert_eq!(
        kinds,
        vec![(BlockKind::Citation, Some("quoted with reference [1]")), (BlockKind::Borrowing, None)],
        "{:?}",
        report.blocks
    );
    assert_eq!(report.blocks[1].suspect_excerpt, FIRST);
    assert_eq!(report.blocks[1].source_excerpt.as_deref(), Some(FIRST));
}

#[test]
fn dialogue_the_source_quotes_too_is_not_cut() {
    let text = format!(
        "{FIRST} \"My dear Mr. Bennet,\" said his lady to him one day, \"have you heard that Netherfield Park is let at last?\" {SECOND}"
    );
    let report = compared(&text, &text, copy());
    assert_eq!(report.blocks.len(), 1, "{:?}", report.blocks);
    assert_eq!(report.blocks[0].source, DocId(1));
}
