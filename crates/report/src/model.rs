//! The report's data: what the JSON contract (`SCHEMA.md`) describes field by field.

use serde::{Deserialize, Serialize};
use tessera_core::{CollectionKind, DocId};
use tessera_search::TextSpan;

/// Version of the JSON schema in `SCHEMA.md`. Bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// What the caller knows about the checked (suspect) document.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SuspectInfo {
    /// Short name (file name or caller's id).
    pub name: String,
    /// Title (may be empty).
    pub title: String,
    /// The original text every block's suspect span points into.
    pub text: String,
    /// What extraction noticed (see [`Suspect::warnings`]).
    pub warnings: Vec<Notice>,
}

impl SuspectInfo {
    /// A suspect from its name, title and original text.
    pub fn new(name: impl Into<String>, title: impl Into<String>, text: impl Into<String>) -> Self {
        Self { name: name.into(), title: title.into(), text: text.into(), warnings: Vec::new() }
    }

    /// The same suspect with extraction's warnings.
    #[must_use]
    pub fn with_warnings(mut self, warnings: Vec<Notice>) -> Self {
        self.warnings = warnings;
        self
    }
}

/// What the caller knows about one source document (index metadata).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceInfo {
    /// The source document.
    pub doc: DocId,
    /// Name of the collection it belongs to.
    pub collection: String,
    /// Kind of that collection.
    pub kind: CollectionKind,
    /// Title (may be empty).
    pub title: String,
    /// Where it came from: a path or a URL.
    pub origin: String,
    /// Other places the same document was seen (paths or URLs attached by the
    /// add-only-if-new rule instead of adding a copy), in the order they were attached.
    pub seen_at: Vec<String>,
    /// The source's original text, when its collection keeps texts.
    pub text: Option<String>,
}

/// Settings of [`Report::build`](crate::Report::build).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReportOptions {
    /// Blocks whose suspect span is shorter than this many characters are left out of the
    /// report (and so count for nothing). `0` keeps every non-empty block.
    pub min_block_chars: u64,
    /// Copy the source passage of each block into the report when the source text is
    /// known. Off: `source_excerpt` is always `null` (e.g. for copyrighted collections).
    pub source_excerpts: bool,
    /// A borrowing block inside a quoted passage of the suspect that has a reference
    /// next to it (`«…» [12]`, `"…" (Smith, 2010)`, `”¹`) is a citation
    /// ([`find_quotations`](crate::find_quotations)).
    pub detect_quotations: bool,
    /// A borrowing block inside the suspect's bibliography section is a citation
    /// ([`find_bibliography`](crate::find_bibliography)).
    pub detect_bibliography: bool,
}

impl Default for ReportOptions {
    fn default() -> Self {
        Self { min_block_chars: 0, source_excerpts: true, detect_quotations: true, detect_bibliography: true }
    }
}

/// How a block counts in the totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockKind {
    /// Borrowed text (orange).
    Borrowing,
    /// Legitimate citation: a quotation with a reference, a bibliography entry, a
    /// common expression, a legal text (green).
    Citation,
}

impl BlockKind {
    /// The kind a block gets from the kind of its collection.
    #[must_use]
    pub fn from_collection(kind: CollectionKind) -> Self {
        match kind {
            CollectionKind::Citation => Self::Citation,
            _ => Self::Borrowing,
        }
    }

    /// Lower-case name, as in the JSON.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Borrowing => "borrowing",
            Self::Citation => "citation",
        }
    }
}

/// A block's id: its index in [`Report::blocks`](crate::Report::blocks), stable for the
/// life of the report (edits never reorder blocks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BlockId(pub u32);

/// The checked document as the report describes it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Suspect {
    /// Short name (file name or caller's id).
    pub name: String,
    /// Title (may be empty).
    pub title: String,
    /// Length of the text in characters (Unicode scalar values).
    pub char_len: u64,
    /// Length of the text in UTF-8 bytes.
    pub byte_len: u64,
    /// Some collections did not answer in time: the report is incomplete.
    pub partial: bool,
    /// Names of the collections that did not answer, sorted.
    pub missing_collections: Vec<String>,
    /// What extraction noticed: tricks that hide borrowing (look-alike letters,
    /// hidden text, ...), pages without text, damage. In extraction order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Notice>,
    /// The original text.
    pub text: String,
}

/// A warning about the suspect from extraction, for the reader of the report.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Notice {
    /// A stable machine name, e.g. `homoglyphs`, `hidden_text`, `white_text`,
    /// `spaced_letters`, `no_text_layer`, `invalid_bytes`.
    pub kind: String,
    /// Whether it is a trick to hide borrowing (a bypass).
    pub bypass: bool,
    /// The message for people, e.g. `white text: 120 character(s), left out of the text`.
    pub message: String,
    /// How many times (characters of hidden text, words otherwise; 1 when not countable).
    pub count: u64,
    /// Where, at most 100 places: character spans of the text (empty for text that was
    /// left out there), with the page or paragraph of the original when known.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<NoticeLocation>,
}

/// One place a [`Notice`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoticeLocation {
    /// Where in the suspect text (bytes and characters; empty for text that was
    /// left out there).
    pub span: crate::TextSpan,
    /// The page of the original document, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    /// The paragraph of the original document, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paragraph: Option<u32>,
}

/// Borrowings, citations and originality of the whole document.
///
/// Every suspect character (Unicode scalar value, whitespace included) is exactly one of
/// borrowed, cited or original, so the three character counts add up to `total_chars`
/// and the three percentages to 100.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Totals {
    /// Percent of the text that is borrowed, in `[0, 100]`.
    pub borrowings: f64,
    /// Percent of the text that is cited, in `[0, 100]`.
    pub citations: f64,
    /// `100 - borrowings - citations`, in `[0, 100]`.
    pub originality: f64,
    /// Characters counted as borrowed.
    pub borrowed_chars: u64,
    /// Characters counted as cited.
    pub cited_chars: u64,
    /// Characters covered by no enabled block.
    pub original_chars: u64,
    /// All characters of the text (`suspect.char_len`).
    pub total_chars: u64,
}

/// One source document in the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Source {
    /// The source document.
    pub id: DocId,
    /// 1-based priority: the order the revisions picked the sources in (revision order,
    /// then greedy order inside a revision). A character covered by several sources is
    /// counted for the one with the smallest rank.
    pub rank: u32,
    /// 1-based number the reader sees (and the colour follows): 1 is the largest share
    /// in report when the report was built (ties: larger share in text, then smaller
    /// rank). `sources` is ordered by it. Edits keep numbers, so a source keeps its
    /// number and colour while a reviewer works; reports written without numbers (`0`)
    /// get them on [`recompute`](crate::Report::recompute).
    #[serde(default)]
    pub number: u32,
    /// Collection name.
    pub collection: String,
    /// Collection kind.
    pub kind: CollectionKind,
    /// Title (may be empty).
    pub title: String,
    /// Path or URL.
    pub origin: String,
    /// Other places the same document was seen (the add-only-if-new rule attached them
    /// instead of adding copies); omitted from JSON when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seen_at: Vec<String>,
    /// Whether the source counts (a reviewer may disable it).
    pub enabled: bool,
    /// Whether the source's text is known (then blocks carry source excerpts).
    pub text_kept: bool,
    /// Number of blocks from this source.
    pub blocks: u32,
    /// Suspect characters covered by this source's blocks.
    pub text_chars: u64,
    /// `text_chars / suspect.char_len * 100`. Independent of edits.
    pub share_in_text: f64,
    /// Suspect characters counted for this source (each character for one source only).
    pub report_chars: u64,
    /// `report_chars / suspect.char_len * 100`; `0` when disabled. Sums over sources to
    /// `totals.borrowings + totals.citations`.
    pub share_in_report: f64,
    /// "Also in": the other sources found holding passages of this one's blocks (their
    /// blocks with [`Block::copy_of`] this source), by rank. Omitted from JSON when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub copies: Vec<DocId>,
    /// The sources some of whose passages this one holds too (it is among their
    /// `copies`), by rank. Omitted from JSON when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub copy_of: Vec<DocId>,
    /// When `text_kept` is false: why the source's text is not known, as a sentence for
    /// the reviewer (set by the engine: a collection of fingerprints only, an original
    /// file changed since it was indexed, ...). Omitted from JSON when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_missing: Option<String>,
    /// Set when the source is an earlier submission (a document a check added to a
    /// submissions collection; set by the engine). Omitted from JSON when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submission: Option<EarlierSubmission>,
}

/// A source that is an earlier submission ([`Source::submission`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EarlierSubmission {
    /// The check that submitted it.
    pub check_id: String,
    /// When it was submitted: UTC, RFC 3339 (`2026-12-01T10:00:00Z`).
    pub submitted_at: String,
    /// Its text is the checked document's, character for character: the same work
    /// handed in again (by the same person, or by another).
    pub identical: bool,
}

/// One borrowed or cited fragment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// Stable id (the block's index in `blocks`).
    pub id: BlockId,
    /// The source document.
    pub source: DocId,
    /// Current kind (after a reviewer's reclassification, if any).
    pub kind: BlockKind,
    /// Kind Tessera detected, before any edit: a citation when the source's collection
    /// is of kind citation, or the block lies in a quotation with a reference or in the
    /// bibliography; a borrowing otherwise.
    pub detected_kind: BlockKind,
    /// Why `detected_kind` is a citation (`None` when it is a borrowing):
    /// `citation collection "NAME"`, `quoted with reference [12]`,
    /// `quoted with footnote mark ¹` or `bibliography`.
    #[serde(default)]
    pub reason: Option<String>,
    /// Span in the suspect's text.
    pub suspect_span: TextSpan,
    /// Span in the source's text.
    pub source_span: TextSpan,
    /// Suspect shingles inside the block that the source shares.
    pub matched_shingles: u32,
    /// How sure Tessera is that the suspect took this fragment from the source, in
    /// percent: 100 for a long exact copy, lower for a reworded passage whose evidence
    /// is thinner (few rare words shared, words out of order, no exact run); see
    /// `tessera_search::Evidence::confidence`. Reports stored before it existed read as 100.
    #[serde(default = "full_confidence")]
    pub confidence: u8,
    /// How Tessera found the block, which says what it claims: a copy, a rewording or a
    /// summary. `None` in reports stored before this field existed.
    #[serde(default)]
    pub found_by: Option<FoundBy>,
    /// What the comparison of the block's two sides shows ([`Label::of`]): `copied` only
    /// when the words are the same; what the reports and the page say next to the
    /// confidence. Omitted from JSON when `None` (reports stored before it: read
    /// `found_by` instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<Label>,
    /// Why a filter of the report ([`Report::filters`](crate::Report::filters)) takes the
    /// block out of the borrowings: it then counts as a citation (a quotation) or not at
    /// all. Set by [`recompute`](crate::Report::recompute) from the filters; omitted from
    /// JSON when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excluded: Option<Exclusion>,
    /// The suspect's text of the block.
    pub suspect_excerpt: String,
    /// The source's text of the block, when known.
    pub source_excerpt: Option<String>,
    /// Word-level differences between `source_excerpt` and `suspect_excerpt`, in text
    /// order; empty when the words are the same (up to case, look-alike letters and
    /// punctuation) or the source's text is not known.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diff: Vec<WordChange>,
    /// For a rewording or a summary whose source's text is known: each sentence of the
    /// block that has a partner in the source, with the source sentence (or two adjacent
    /// ones) it matches best, in text order (`tessera_search::Block::pairs`). What a
    /// reviewer reads to judge a reworded or condensed passage sentence by sentence;
    /// empty for a copy (`diff` shows it word by word) and in reports stored before it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pairs: Vec<SentencePair>,
    /// `Some(doc)`: the block is a passage of source `doc`'s blocks, found again in this
    /// block's source (a copy: `tessera_search::SourceMatch::copy_of`). It counts only
    /// inside `doc`'s blocks and after every block that is not a copy, so it changes no
    /// share while `doc` counts, and takes the passage over when a reviewer disables
    /// `doc`. Omitted from JSON when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_of: Option<DocId>,
}

/// One sentence of a block and the source text it draws on ([`Block::pairs`]); both spans
/// lie inside the block's spans.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SentencePair {
    /// The sentence in the suspect's text.
    pub suspect: TextSpan,
    /// The source sentence, or two adjacent ones, in the source's text.
    pub source: TextSpan,
    /// For a translation: the suspect's words of the sentence whose translations the
    /// source sentence holds, each with that source word (inside the two spans above);
    /// the HTML report and the page mark them. Omitted from JSON when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub words: Vec<tessera_search::WordMatch>,
}

impl Block {
    /// The texts of one of this block's sentence pairs, cut from its excerpts: the
    /// suspect's sentence and the source's (`None` without the source's text, or for a
    /// pair outside the block's spans).
    #[must_use]
    pub fn pair_texts(&self, pair: &SentencePair) -> Option<(&str, &str)> {
        let source = cut(self.source_excerpt.as_deref()?, self.source_span, pair.source)?;
        Some((cut(&self.suspect_excerpt, self.suspect_span, pair.suspect)?, source))
    }
}

/// The part of `excerpt` (the text of `outer`) that `inner` spans, by bytes.
fn cut(excerpt: &str, outer: TextSpan, inner: TextSpan) -> Option<&str> {
    let start = inner.bytes.start.checked_sub(outer.bytes.start)?;
    let end = inner.bytes.end.checked_sub(outer.bytes.start)?;
    excerpt.get(start..end)
}

fn full_confidence() -> u8 {
    100
}

/// How a block was found ([`Block::found_by`]): what the aligner's evidence says the
/// suspect did with the source passage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FoundBy {
    /// Runs of the same words: the passage was copied (perhaps with a few words changed
    /// between the runs).
    Copy,
    /// Sentences sharing most of their words, reordered or replaced: a rewording.
    Rewording,
    /// A passage condensing a source passage several times longer: a summary. Its
    /// evidence is the source's key terms in their order, which a text on the same
    /// subject may share too: a reviewer reads these before accusing anyone.
    Summary,
    /// A passage translating a source passage written in another language, matched
    /// sentence by sentence through a bilingual lexicon. Its evidence is the share of
    /// each sentence's words whose translations the paired source sentence holds, in
    /// the source's order: a reviewer reads the sentence pairs side by side.
    Translation,
}

impl FoundBy {
    /// How the aligner found a block, from its evidence: a translation when it crosses
    /// languages, a summary whatever its seeds (its claim is the condensation), else a
    /// rewording when sentence pairs found it, else a copy.
    #[must_use]
    pub fn of(evidence: &tessera_search::Evidence) -> Self {
        if evidence.translated {
            return Self::Translation;
        }
        match (evidence.summary, evidence.sentences) {
            (true, _) => Self::Summary,
            (false, true) => Self::Rewording,
            (false, false) => Self::Copy,
        }
    }

    /// Lower-case name, as in the JSON.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Copy => "copy",
            Self::Rewording => "rewording",
            Self::Summary => "summary",
            Self::Translation => "translation",
        }
    }
}

/// What the comparison of a block's two sides shows ([`Block::label`]): the name a
/// reviewer reads next to the confidence. `found_by` says how the aligner found a block;
/// the label says what the words show, so a verbatim quotation the aligner reached through
/// sentence pairs is still "copied", and a copy with words changed is not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Label {
    /// The same words on both sides, up to case, look-alike letters and punctuation,
    /// perhaps moved ([`ChangeKind::Moved`]).
    Copied,
    /// Copied with words changed, added or left out: at least
    /// [`EDITED_MIN_KEPT`](Label::EDITED_MIN_KEPT) of the suspect's words are the source's.
    Edited,
    /// Fewer of the suspect's words are the source's: a rewording.
    Reworded,
    /// A summary of a source passage several times longer ([`FoundBy::Summary`]).
    Summary,
    /// A translation ([`FoundBy::Translation`]).
    Translated,
}

impl Label {
    /// Share of the suspect's words that must be the source's (in place or moved) for a
    /// block with changes to read as an edited copy rather than a rewording.
    pub const EDITED_MIN_KEPT: f64 = 0.7;

    /// The label of a block found `found_by` whose sides compare as `comparison` says:
    /// `(same words, share of the suspect's words that are the source's)`, `None` when
    /// the source's text is not known (then the aligner's claim stands: a copy is
    /// "copied", a rewording "reworded"). A summary and a translation keep their names:
    /// their words differ by nature.
    #[must_use]
    pub fn of(found_by: FoundBy, comparison: Option<(bool, f64)>) -> Self {
        match (found_by, comparison) {
            (FoundBy::Translation, _) => Self::Translated,
            (FoundBy::Summary, _) => Self::Summary,
            (_, Some((true, _))) | (FoundBy::Copy, None) => Self::Copied,
            (_, Some((false, kept))) if kept >= Self::EDITED_MIN_KEPT => Self::Edited,
            _ => Self::Reworded,
        }
    }

    /// Lower-case name, as in the JSON.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Copied => "copied",
            Self::Edited => "edited",
            Self::Reworded => "reworded",
            Self::Summary => "summary",
            Self::Translated => "translated",
        }
    }

    /// The words the reports and the page show.
    #[must_use]
    pub fn words(self) -> &'static str {
        match self {
            Self::Copied => "copied",
            Self::Edited => "copied with edits",
            Self::Reworded => "reworded",
            Self::Summary => "summary of a longer passage",
            Self::Translated => "translated from another language",
        }
    }
}

/// A reviewer's filters of a report (as Turnitin's "exclude quotes", "exclude
/// bibliography", "exclude small matches"): what no longer counts as borrowed. Off by
/// default; the report keeps every block and marks the ones a filter takes out
/// ([`Block::excluded`]), so switching a filter back restores them.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReportFilters {
    /// A borrowing in quotation marks counts as a citation even without a reference
    /// next to it (`Austen writes that "…"`).
    pub exclude_quotes: bool,
    /// Blocks in the suspect's bibliography section count for nothing.
    pub exclude_bibliography: bool,
    /// Blocks of fewer words than this count for nothing (`0`: off).
    pub min_words: u32,
    /// A source whose counting blocks cover less than this percent of the text counts
    /// for nothing (`0`: off).
    pub min_percent: f64,
}

impl ReportFilters {
    /// Whether every filter is off (then the report is as built).
    #[must_use]
    pub fn is_off(&self) -> bool {
        *self == Self::default()
    }

    /// The filters, checked: `min_percent` must be a number in `[0, 100]`.
    ///
    /// # Errors
    ///
    /// [`FilterError::Percent`] otherwise.
    pub fn validated(self) -> Result<Self, FilterError> {
        if !(0.0..=100.0).contains(&self.min_percent) {
            return Err(FilterError::Percent(self.min_percent));
        }
        Ok(self)
    }
}

/// Filters that cannot be applied.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FilterError {
    /// `min_percent` is not a number from 0 to 100.
    #[error("min_percent must be a number from 0 to 100, not {0}")]
    Percent(f64),
}

/// Why a filter takes a block out of the borrowings ([`Block::excluded`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Exclusion {
    /// In quotation marks ([`ReportFilters::exclude_quotes`]): counts as a citation.
    Quote,
    /// In the bibliography ([`ReportFilters::exclude_bibliography`]): counts for nothing.
    Bibliography,
    /// Fewer words than [`ReportFilters::min_words`]: counts for nothing.
    MinWords,
    /// Its source covers less than [`ReportFilters::min_percent`]: counts for nothing.
    MinPercent,
}

impl Exclusion {
    /// Name as in the JSON.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Quote => "quote",
            Self::Bibliography => "bibliography",
            Self::MinWords => "min_words",
            Self::MinPercent => "min_percent",
        }
    }

    /// How the block counts once excluded: a quotation as a citation, the others not at
    /// all.
    #[must_use]
    pub fn counts_as(self) -> Option<BlockKind> {
        match self {
            Self::Quote => Some(BlockKind::Citation),
            _ => None,
        }
    }

    /// Why, in words (the reports and the page say it the same).
    #[must_use]
    pub fn describe(self, filters: &ReportFilters) -> String {
        match self {
            Self::Quote => "in quotation marks: counted as a citation (filter)".to_owned(),
            Self::Bibliography => "in the bibliography: not counted (filter)".to_owned(),
            Self::MinWords => format!("fewer than {} words: not counted (filter)", filters.min_words),
            Self::MinPercent => format!("source under {}% of the text: not counted (filter)", filters.min_percent),
        }
    }
}

/// What happened to words between a source passage and the suspect's passage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// Words only in the suspect (the writer added them); the source span is empty.
    Inserted,
    /// Words only in the source (the writer left them out); the suspect span is empty.
    Deleted,
    /// Words of the source replaced by other words in the suspect; both spans are set.
    Changed,
    /// Words the suspect has in another place than the source (sentences reordered): the
    /// same words on both sides, so no change of wording; both spans are set, and unlike
    /// the other kinds they need not follow the text order on the source's side.
    Moved,
}

impl ChangeKind {
    /// Lower-case name, as in the JSON.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Inserted => "inserted",
            Self::Deleted => "deleted",
            Self::Changed => "changed",
            Self::Moved => "moved",
        }
    }
}

/// One run of differing words inside a block ([`Block::diff`]).
///
/// Spans point into the same texts as the block's spans (the suspect's text and the
/// source's text), from the first differing word's first character to the last one's
/// last character; an empty span marks where words were inserted or deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WordChange {
    /// Inserted, deleted, changed or moved.
    pub kind: ChangeKind,
    /// The words in the suspect's text (empty for [`ChangeKind::Deleted`]).
    pub suspect: TextSpan,
    /// The words in the source's text (empty for [`ChangeKind::Inserted`]).
    pub source: TextSpan,
}

/// A whole report: the suspect, the totals, the sources and the blocks.
///
/// Built by [`Report::build`](crate::Report::build); edited with
/// [`set_source_enabled`](crate::Report::set_source_enabled) and
/// [`set_block_kind`](crate::Report::set_block_kind); drawn by a
/// [`Render`](crate::Render). Fields are public plain data; after changing them by hand,
/// call [`recompute`](crate::Report::recompute).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The checked document.
    pub suspect: Suspect,
    /// Borrowings, citations, originality.
    pub totals: Totals,
    /// Sources by [`Source::number`] (largest share first).
    pub sources: Vec<Source>,
    /// Blocks sorted by suspect start, then source id, then suspect end, then source start.
    pub blocks: Vec<Block>,
    /// Who each character is counted for: the maximal runs of the suspect with one owner
    /// (the counting rules of SCHEMA.md), in text order; what a renderer highlights, so
    /// that no renderer applies the rules itself. Derived from the blocks, the sources'
    /// `enabled` flags and the blocks' kinds by [`recompute`](crate::Report::recompute)
    /// (reports stored before this field read as empty until recomputed).
    #[serde(default)]
    pub segments: Vec<crate::Segment>,
    /// The reviewer's filters ([`Report::set_filters`](crate::Report::set_filters)),
    /// applied by `recompute`. Omitted from JSON when all are off (and absent from
    /// reports stored before filters existed: read as off).
    #[serde(default, skip_serializing_if = "ReportFilters::is_off")]
    pub filters: ReportFilters,
}

impl Report {
    /// The source with this id.
    #[must_use]
    pub fn source(&self, doc: DocId) -> Option<&Source> {
        self.sources.iter().find(|s| s.id == doc)
    }

    /// The block with this id.
    #[must_use]
    pub fn block(&self, id: BlockId) -> Option<&Block> {
        self.blocks.get(id.0 as usize).filter(|b| b.id == id)
    }

    /// Marks the report partial because `collection` did not answer in time.
    pub fn mark_missing(&mut self, collection: impl Into<String>) {
        let collection = collection.into();
        self.suspect.partial = true;
        if let Err(at) = self.suspect.missing_collections.binary_search(&collection) {
            self.suspect.missing_collections.insert(at, collection);
        }
    }
}
