//! Reports: what a person reads after a check.
//!
//! What it owns: a report from revisions (block kinds, citations, shares, totals, edits)
//! and its renderers. It must never search or read an index: it works on the revisions
//! and source facts it is given.
//!
//! The search stage answers with one [`Revision`](tessera_search::Revision) per
//! collection: the sources it picked, in greedy order, each with aligned blocks. This
//! crate merges the revisions into one [`Report`]:
//!
//! - every block becomes a *borrowing* or a *citation* ([`BlockKind`]): a block from a
//!   collection of kind citation is a citation; so is a block lying in a quoted passage
//!   of the suspect with a reference next to it (`«…» [12]`, `"…" (Smith, 2010)`,
//!   [`find_quotations`]) or in its bibliography section ([`find_bibliography`]); any
//!   other is a borrowing. [`Block::reason`] says why a block is a citation;
//! - every source gets a *share in text* (suspect characters its blocks cover) and a
//!   *share in report* (the same, but each character counted for one source only, the
//!   first in revision order), so report shares add up to the borrowed plus cited total;
//! - the totals give borrowings, citations and originality (`100 - both`) over the
//!   union of covered characters. A citation wins over a borrowing where they overlap,
//!   unless the citation lies wholly inside one borrowing block.
//!
//! Characters are Unicode scalar values, and every character of a span counts,
//! whitespace and punctuation included; the denominator is every character of the
//! suspect. Blocks carry both char and byte spans into the original UTF-8 texts.
//!
//! A reviewer edits a report with [`Report::set_source_enabled`],
//! [`Report::set_block_kind`] and [`Report::set_filters`] (exclude quotes, the
//! bibliography, small matches: [`ReportFilters`]); each recomputes shares and totals. A disabled source keeps
//! its share in text (as in the Antiplagiat report, it does not change with edits) but
//! its share in report drops to zero and its characters go to the next source.
//!
//! Four renderers implement [`Render`]: [`JsonRenderer`] (the documented contract,
//! `SCHEMA.md`, [`SCHEMA_VERSION`]), [`TextRenderer`] (a terminal), [`HtmlRenderer`]
//! (one self-contained page) and [`PdfRenderer`] (A4 pages to file, font embedded).
//!
//! # Example
//!
//! ```
//! use tessera_core::{CollectionKind, DocId};
//! use tessera_normalize::Span;
//! use tessera_report::{Render, Report, ReportOptions, SourceInfo, SuspectInfo, TextRenderer};
//! use tessera_search::{Block, Evidence, Revision, SourceMatch, TextSpan};
//!
//! let text = "Быть или не быть, вот в чём вопрос.";
//! // The first 16 characters ("Быть или не быть", 29 bytes) match a source.
//! let span = TextSpan { bytes: Span { start: 0, end: 29 }, chars: Span { start: 0, end: 16 } };
//! let revision = Revision {
//!     collection: "books".into(),
//!     kind: CollectionKind::Source,
//!     sources: vec![SourceMatch {
//!         doc: DocId(7),
//!         shared_hashes: 2,
//!         blocks: vec![Block {
//!             suspect: span,
//!             source: span,
//!             suspect_tokens: Span { start: 0, end: 4 },
//!             source_tokens: Span { start: 0, end: 4 },
//!             matched_shingles: 2,
//!             evidence: Evidence { longest_run: 2, ..Evidence::default() },
//!             pairs: vec![],
//!         }],
//!         copy_of: None,
//!     }],
//! };
//! let source = SourceInfo {
//!     doc: DocId(7),
//!     collection: "books".into(),
//!     kind: CollectionKind::Source,
//!     title: "Гамлет".into(),
//!     origin: "https://example.org/hamlet".into(),
//!     seen_at: vec![],
//!     text: None,
//! };
//! let report = Report::build(
//!     SuspectInfo::new("essay.txt", "Эссе", text),
//!     &[revision],
//!     &[source],
//!     &ReportOptions::default(),
//! );
//! assert_eq!(report.totals.borrowed_chars, 16);
//! assert_eq!(report.totals.total_chars, 35);
//! assert!((report.totals.borrowings - 16.0 / 35.0 * 100.0).abs() < 1e-9);
//!
//! let mut out = Vec::new();
//! TextRenderer::default().render(&report, &mut out)?;
//! assert!(String::from_utf8_lossy(&out).contains("Borrowings"));
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # When to use this
//!
//! Use it to turn search results into something a person reads, edits and archives:
//! the engine calls [`Report::build`] after a check; the CLI and the server pick a
//! renderer; a server keeps the JSON and applies a reviewer's edits to it. To find
//! near-duplicates in bulk (no one reads a report per pair), use the search results
//! directly.
#![deny(missing_docs)]

mod build;
mod citations;
pub mod date;
mod diff;
mod explain;
mod filters;
mod model;
mod render;
mod shares;

pub use citations::{
    INSIDE_PERCENT, MAX_QUOTE_CHARS, Quotation, Reference, ReferenceKind, find_bibliography, find_quotations,
};
pub use model::{
    Block, BlockId, BlockKind, ChangeKind, EarlierSubmission, Exclusion, FilterError, FoundBy, Label, Notice,
    NoticeLocation, Report, ReportFilters, ReportOptions, SCHEMA_VERSION, SentencePair, Source, SourceInfo, Suspect,
    SuspectInfo, Totals, WordChange,
};
pub use render::{HtmlRenderer, JsonRenderer, PdfRenderer, Render, TextRenderer};
pub use shares::Segment;
pub use tessera_core::{CollectionKind, DocId};
pub use tessera_search::TextSpan;
