//! Replaying a reviewer's edits on a report (what the server does when a late collection
//! rebuilds a report, and on `PATCH .../report`), then rendering it as JSON, HTML and
//! text: no edit, stored record or stored report may panic.
//!
//! The base report is a real check of `testdata/demo/thesis.txt` against the demo
//! library and citations. The first byte picks the mode:
//! - 0: the rest drives edits aimed at the report's own sources and blocks (3 bytes an
//!   edit: what, which, how), so most edits hit a target;
//! - 1: the rest is a JSON list of edits (`[{"target":"source",...}]`);
//! - 2: the rest is a stored check record (`check.json`) whose edits are replayed;
//! - 3: the rest is a stored report (`report.json`), edited by block id and rendered.
//!
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run report_edits`; seeds in
//! `fuzz/corpus/report_edits/`.
#![cfg_attr(not(feature = "replay"), no_main)]

use std::sync::OnceLock;

use tessera_engine::{
    AddMode, BlockKind, CollectionConfig, CollectionKind, Engine, EngineOptions, FingerprintSettings, HtmlRenderer,
    JsonRenderer, Render, Report, TextRenderer,
};
use tessera_fuzz::fuzz_target;
use tessera_server::{CheckRecord, Edit};

fn base() -> &'static Report {
    static BASE: OnceLock<Report> = OnceLock::new();
    BASE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let engine =
            Engine::open_or_create(&dir.path().join("idx"), &FingerprintSettings::default(), EngineOptions::default())
                .expect("index");
        let lib = CollectionConfig { name: "library".into(), kind: CollectionKind::Source, keep_texts: true };
        for (name, text) in [
            ("printing-press.txt", include_str!("../../testdata/demo/library/printing-press.txt")),
            ("honey-bees.txt", include_str!("../../testdata/demo/library/honey-bees.txt")),
            ("siberian-rivers.txt", include_str!("../../testdata/demo/library/siberian-rivers.txt")),
        ] {
            engine.add_text(&lib, name, name, text, AddMode::All).expect("add");
        }
        let cit = CollectionConfig { name: "citations".into(), kind: CollectionKind::Citation, keep_texts: false };
        let common = include_str!("../../testdata/demo/citations/common-expressions.txt");
        engine.add_text(&cit, "common-expressions.txt", "Common expressions", common, AddMode::All).expect("add");
        let thesis = include_str!("../../testdata/demo/thesis.txt");
        let report = engine.check_text("thesis.txt", "Thesis", thesis).expect("check");
        assert!(!report.blocks.is_empty() && !report.sources.is_empty(), "the demo check finds borrowings");
        report
    })
}

/// Edits aimed at `report`'s sources and blocks, 3 bytes each.
fn aimed(report: &Report, bytes: &[u8]) -> Vec<Edit> {
    bytes
        .chunks_exact(3)
        .map(|c| {
            let kind = if c[2] & 1 == 0 { BlockKind::Borrowing } else { BlockKind::Citation };
            if c[0] & 1 == 0 {
                let source = report.sources.get(c[1] as usize % report.sources.len()).map_or(0, |s| s.id.0);
                Edit::Source { source, enabled: c[2] & 1 == 0 }
            } else {
                let b = &report.blocks[c[1] as usize % report.blocks.len()];
                let shift = u64::from(c[0] >> 5);
                Edit::Block {
                    source: b.source.0,
                    start: b.suspect_span.chars.start as u64 + shift,
                    end: b.suspect_span.chars.end as u64,
                    kind,
                }
            }
        })
        .collect()
}

fn render(report: &Report) {
    let mut out = Vec::new();
    JsonRenderer::default().render(report, &mut out).expect("JSON to memory");
    out.clear();
    HtmlRenderer::default().render(report, &mut out).expect("HTML to memory");
    out.clear();
    TextRenderer::default().render(report, &mut out).expect("text to memory");
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let mut report = base().clone();
    let edits: Vec<Edit> = match mode % 4 {
        0 => aimed(&report, rest),
        1 => match serde_json::from_slice(rest) {
            Ok(edits) => edits,
            Err(_) => return,
        },
        2 => match serde_json::from_slice::<CheckRecord>(rest) {
            Ok(record) => record.edits,
            Err(_) => return,
        },
        _ => {
            let Ok(stored) = serde_json::from_slice::<Report>(rest) else { return };
            report = stored;
            aimed_by_id(&report, rest)
        }
    };
    let mut record = CheckRecord::new("0".repeat(32), 0, "thesis.txt".into(), None, false, 0);
    for edit in edits {
        edit.apply(&mut report);
        record.push_edit(edit);
    }
    render(&report);
});

/// For a stored report: one edit of each kind at the report's first source and block.
fn aimed_by_id(report: &Report, rest: &[u8]) -> Vec<Edit> {
    let mut out = Vec::new();
    if let Some(s) = report.sources.first() {
        out.push(Edit::Source { source: s.id.0, enabled: rest.len() % 2 == 0 });
    }
    if let Some(b) = report.blocks.first() {
        out.push(Edit::Block {
            source: b.source.0,
            start: b.suspect_span.chars.start as u64,
            end: b.suspect_span.chars.end as u64,
            kind: BlockKind::Citation,
        });
    }
    out
}
