//! One text's sentences as token ranges ([`Sentences`]: short ones joined to the next,
//! long ones cut into equal pieces) and the tf-idf term bags they are compared as
//! ([`Bag`], and [`BagPostings`] to meet many bags at once).

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use tessera_normalize::Span;

use crate::Query;

/// One text's sentences as weighted term bags.
#[derive(Debug, Clone)]
pub(super) struct Sentences {
    /// Token ranges of the sentences (short ones joined to the next).
    pub(super) units: Vec<Span>,
    /// Sentence of each token.
    pub(super) unit_of: Vec<u32>,
}

impl Sentences {
    /// Sentences of a query, made contiguous and in bounds whatever `q.sentences` holds
    /// (only their ends are used), short ones joined to the next, long ones cut into
    /// equal pieces of at most `max_terms`.
    pub(super) fn new(q: &Query, min_terms: usize, max_terms: usize) -> Self {
        let n = q.token_bytes.len();
        let mut units: Vec<Span> = Vec::new();
        let mut start = 0;
        for s in &q.sentences {
            let end = s.end.min(n);
            if end > start && end - start >= min_terms {
                units.push(Span { start, end });
                start = end;
            }
        }
        if start < n {
            match units.last_mut() {
                Some(last) if n - start < min_terms => last.end = n,
                _ => units.push(Span { start, end: n }),
            }
        }
        let max_terms = max_terms.max(1);
        if units.iter().any(|u| u.end - u.start > max_terms) {
            let mut cut = Vec::with_capacity(units.len());
            for u in units {
                let len = u.end - u.start;
                let pieces = len.div_ceil(max_terms);
                for k in 0..pieces {
                    cut.push(Span { start: u.start + len * k / pieces, end: u.start + len * (k + 1) / pieces });
                }
            }
            units = cut;
        }
        let mut unit_of = vec![0u32; q.token_bytes.len()];
        for (u, span) in units.iter().enumerate() {
            let end = span.end.min(unit_of.len());
            unit_of[span.start.min(end)..end].fill(u as u32);
        }
        Self { units, unit_of }
    }

    /// The tokens just before `r`: the rest of the sentence it starts in, else the
    /// previous sentence (`None` at the start of the text).
    pub(super) fn piece_before(&self, r: Span) -> Option<Span> {
        let prev = r.start.checked_sub(1)?;
        let unit = self.units[self.unit_of[prev] as usize];
        Some(Span { start: unit.start.min(r.start), end: r.start })
    }

    /// The tokens just after `r`: the rest of the sentence it ends in, else the next
    /// sentence (`None` at the end of the text).
    pub(super) fn piece_after(&self, r: Span) -> Option<Span> {
        let unit = self.units[*self.unit_of.get(r.end)? as usize];
        Some(Span { start: r.end, end: unit.end.max(r.end) })
    }

    /// Calls `f(sentence, term)` once for each distinct term of each sentence, in order
    /// (terms as hashes, or as a suspect's dense ids).
    pub(super) fn for_each_distinct_term<T: Copy + Eq + std::hash::Hash>(
        &self,
        terms: &[T],
        mut f: impl FnMut(usize, T),
    ) {
        let mut seen: HashSet<T> = HashSet::new();
        for (i, u) in self.units.iter().enumerate() {
            seen.clear();
            for &term in &terms[u.start..u.end] {
                if seen.insert(term) {
                    f(i, term);
                }
            }
        }
    }

    /// Sentence range `[first, last]` of a token range.
    pub(super) fn range(&self, r: Span) -> (usize, usize) {
        let at = |k: usize| self.unit_of.get(k).copied().unwrap_or(0) as usize;
        (at(r.start), at(r.end.saturating_sub(1).max(r.start)))
    }
}

/// A sparse tf-idf vector: (term, weight) sorted by term, and its norm.
pub(super) struct Bag {
    pub(super) weights: Vec<(u64, f64)>,
    pub(super) norm: f64,
}

impl Bag {
    /// Cosine of this bag and `other` given their dot product.
    pub(super) fn cosine_with(&self, other: &Bag, dot: f64) -> f64 {
        if self.norm > 0.0 && other.norm > 0.0 { dot / (self.norm * other.norm) } else { 0.0 }
    }

    /// Dice coefficient of this bag's terms and `other`'s given how many they share.
    pub(super) fn dice_with(&self, other: &Bag, shared: usize) -> f64 {
        2.0 * shared as f64 / (self.weights.len() + other.weights.len()) as f64
    }
}

/// Source-side bags under an inverted index, for scoring many suspect bags against them:
/// a suspect bag meets only the bags sharing a term with it (a whole reworded book has
/// thousands of sentences a side). Used by the seeds (step 2) and the sentence pairs of
/// a standing passage (step 5).
pub(super) struct BagPostings {
    postings: HashMap<u64, Vec<(u32, f64)>>,
    dot: Vec<f64>,
    shared: Vec<u32>,
    touched: Vec<u32>,
}

impl BagPostings {
    pub(super) fn new<'b>(bags: impl ExactSizeIterator<Item = &'b Bag>) -> Self {
        let n = bags.len();
        let mut postings: HashMap<u64, Vec<(u32, f64)>> = HashMap::new();
        for (c, bag) in bags.enumerate() {
            for &(term, w) in &bag.weights {
                postings.entry(term).or_default().push((c as u32, w));
            }
        }
        Self { postings, dot: vec![0.0; n], shared: vec![0; n], touched: Vec::new() }
    }

    /// Scores `a` against every bag sharing a term with it; [`touched`](Self::touched)
    /// then lists those bags in index order, with their [`dot`](Self::dot) products and
    /// [`shared`](Self::shared) term counts, until [`clear`](Self::clear).
    pub(super) fn meet(&mut self, a: &Bag) {
        for (term, w) in &a.weights {
            for &(c, wt) in self.postings.get(term).map_or(&[][..], Vec::as_slice) {
                if self.shared[c as usize] == 0 {
                    self.touched.push(c);
                }
                self.dot[c as usize] += w * wt;
                self.shared[c as usize] += 1;
            }
        }
        self.touched.sort_unstable();
    }

    pub(super) fn touched(&self) -> &[u32] {
        &self.touched
    }

    pub(super) fn dot(&self, c: usize) -> f64 {
        self.dot[c]
    }

    pub(super) fn shared(&self, c: usize) -> usize {
        self.shared[c] as usize
    }

    /// Forgets the last bag met.
    pub(super) fn clear(&mut self) {
        for &c in &self.touched {
            self.dot[c as usize] = 0.0;
            self.shared[c as usize] = 0;
        }
        self.touched.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_sentences_are_cut_into_equal_pieces() {
        let q = Query {
            token_bytes: (0..10).map(|i| Span { start: 2 * i, end: 2 * i + 1 }).collect(),
            terms: (0..10).collect(),
            sentences: vec![Span { start: 0, end: 1 }, Span { start: 1, end: 10 }],
            ..Query::default()
        };
        // The one-term sentence joins the next; the 10 terms become 3 pieces of <= 4.
        let s = Sentences::new(&q, 3, 4);
        let units: Vec<(usize, usize)> = s.units.iter().map(|u| (u.start, u.end)).collect();
        assert_eq!(units, vec![(0, 3), (3, 6), (6, 10)]);
        assert_eq!(s.unit_of, vec![0, 0, 0, 1, 1, 1, 2, 2, 2, 2]);
        assert_eq!(Sentences::new(&q, 3, 40).units.len(), 1);
    }
}
