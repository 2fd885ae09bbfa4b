//! Lexical signatures: a document's most characteristic words.

use crate::simhash::{Idf, term_frequencies};

fn top_k(mut scored: Vec<(f64, u64)>, k: usize) -> Vec<u64> {
    // Highest score first; equal scores by smaller term hash (deterministic).
    scored.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut out: Vec<u64> = scored.into_iter().take(k).map(|(_, t)| t).collect();
    out.sort_unstable();
    out
}

/// Local lexical signature: the `k` most frequent terms of the document (term hashes,
/// returned ascending).
pub fn local_signature(terms: &[u64], k: usize) -> Vec<u64> {
    top_k(term_frequencies(terms).into_iter().map(|(t, tf)| (f64::from(tf), t)).collect(), k)
}

/// Global lexical signature: the `k` terms of highest `tf * idf` (term hashes, ascending).
pub fn global_signature(terms: &[u64], idf: &Idf, k: usize) -> Vec<u64> {
    top_k(term_frequencies(terms).into_iter().map(|(t, tf)| (f64::from(tf) * idf.idf(t), t)).collect(), k)
}

/// Overlap of two signatures: shared terms over the longer signature's length (0 when
/// both are empty).
pub fn signature_overlap(a: &[u64], b: &[u64]) -> f64 {
    let longest = a.len().max(b.len());
    if longest == 0 { 0.0 } else { crate::similarity::intersection(a, b) as f64 / longest as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_takes_most_frequent() {
        assert_eq!(local_signature(&[9, 9, 9, 4, 4, 1, 7, 7], 2), [4, 9]);
        assert_eq!(local_signature(&[9, 9, 9, 4, 4, 1, 7, 7], 3), [4, 7, 9]);
    }

    #[test]
    fn global_prefers_rare_terms() {
        let mut idf = Idf::new();
        idf.add_document(&[1, 2]);
        idf.add_document(&[1]);
        idf.add_document(&[1]);
        // Term 1 is in every document, term 2 in one: with equal tf, 2 wins.
        assert_eq!(global_signature(&[1, 2], &idf, 1), [2]);
        assert_eq!(local_signature(&[1, 2], 1), [1]);
        assert!((signature_overlap(&[1, 2], &[2, 3]) - 0.5).abs() < 1e-12);
        assert!(signature_overlap(&[], &[]).abs() < 1e-12);
    }
}
