//! A reviewer's filters ([`ReportFilters`]): which blocks no longer count as borrowed.
//!
//! Filters are an edit like switching a source off: the report keeps every block, marks
//! the ones a filter takes out with the reason ([`Block::excluded`]), and counts by the
//! rules of `shares.rs` with the marks. So a filter switched back restores the report,
//! and totals, shares and every renderer follow from the one place.
//!
//! In this order, the first that applies wins:
//!
//! 1. **Bibliography**: a block lying inside the suspect's bibliography section (by the
//!    rule of [`find_bibliography`](crate::find_bibliography) and
//!    [`INSIDE_PERCENT`](crate::INSIDE_PERCENT)) counts for nothing: a reference list is
//!    neither borrowed nor quoted prose.
//! 2. **Fewer than `min_words` words** (runs of letters and digits): counts for nothing.
//! 3. **Quotes**: a borrowing lying inside quotation marks, with a reference next to them
//!    or not, counts as a citation (the reviewer takes the marks for attribution). A block
//!    a reviewer reclassified keeps the reviewer's kind.
//! 4. **Under `min_percent`**: a source whose blocks still counting (quotations
//!    included) cover less than that percent of the text counts for nothing, every block
//!    of it.

use std::collections::BTreeMap;

use tessera_core::DocId;

use crate::citations::{self, Chars, WordWeights};
use crate::model::{BlockKind, Exclusion, FilterError, Report, ReportFilters};

impl Report {
    /// Sets the reviewer's filters ([`Report::filters`]) and recomputes the shares and
    /// totals. The report keeps every block: the ones the filters take out are marked
    /// ([`Block::excluded`](crate::Block::excluded)); [`ReportFilters::default`] restores
    /// the report as built.
    ///
    /// # Errors
    ///
    /// [`FilterError`] when a filter is out of range ([`ReportFilters::validated`]); the
    /// report is then unchanged.
    pub fn set_filters(&mut self, filters: ReportFilters) -> Result<(), FilterError> {
        let filters = filters.validated()?;
        if filters == self.filters {
            // The report already counts by these filters.
            return Ok(());
        }
        self.filters = filters;
        self.recompute();
        Ok(())
    }

    /// Marks the blocks the filters take out (rules of this module), clearing the marks
    /// of the others.
    pub(crate) fn apply_filters(&mut self) {
        for block in &mut self.blocks {
            block.excluded = None;
        }
        let filters = self.filters;
        if filters.is_off() || self.blocks.is_empty() {
            return;
        }
        let chars = Chars::new(&self.suspect.text);
        let weights = WordWeights::new(&chars);
        let bibliography: Vec<_> = if filters.exclude_bibliography {
            citations::bibliography_zone(&chars).into_iter().collect()
        } else {
            vec![]
        };
        let quotes = if filters.exclude_quotes { citations::quotation_zones(&chars) } else { Vec::new() };
        for block in &mut self.blocks {
            block.excluded = if weights.inside(block.suspect_span, &bibliography).is_some() {
                Some(Exclusion::Bibliography)
            } else if filters.min_words > 0 && word_count(&block.suspect_excerpt) < filters.min_words as usize {
                Some(Exclusion::MinWords)
            } else if block.kind == BlockKind::Borrowing
                && block.kind == block.detected_kind
                && weights.inside(block.suspect_span, &quotes).is_some()
            {
                Some(Exclusion::Quote)
            } else {
                None
            };
        }
        if filters.min_percent > 0.0 {
            let total = self.suspect.char_len;
            let limit = usize::try_from(total).unwrap_or(usize::MAX);
            let mut spans: BTreeMap<DocId, Vec<(usize, usize)>> = BTreeMap::new();
            for b in &self.blocks {
                let counts = b.excluded.is_none_or(|e| e.counts_as().is_some());
                let (start, end) = (b.suspect_span.chars.start.min(limit), b.suspect_span.chars.end.min(limit));
                if counts && start < end {
                    spans.entry(b.source).or_default().push((start, end));
                }
            }
            let small: Vec<DocId> = self
                .sources
                .iter()
                .map(|s| s.id)
                .filter(|id| {
                    let mut covered = spans.remove(id).unwrap_or_default();
                    covered.sort_unstable();
                    crate::shares::percent(crate::shares::union_len(&covered), total) < filters.min_percent
                })
                .collect();
            for block in &mut self.blocks {
                if small.contains(&block.source) && block.excluded.is_none_or(|e| e.counts_as().is_some()) {
                    block.excluded = Some(Exclusion::MinPercent);
                }
            }
        }
    }
}

/// Words of a text, as the `min_words` filter counts them: runs of letters and digits.
#[must_use]
pub(crate) fn word_count(text: &str) -> usize {
    let mut count = 0;
    let mut in_word = false;
    for c in text.chars() {
        let letter = c.is_alphanumeric();
        if letter && !in_word {
            count += 1;
        }
        in_word = letter;
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_runs_of_letters_and_digits() {
        assert_eq!(word_count(""), 0);
        assert_eq!(word_count("  ...  "), 0);
        assert_eq!(word_count("It is a truth, universally acknowledged"), 6);
        assert_eq!(word_count("Быть или не быть — 2 раза"), 6);
    }
}
