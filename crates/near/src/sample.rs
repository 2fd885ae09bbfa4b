//! Shingle samples other than MinHash: bottom-k, "hash mod M", and cyclic shingles for
//! very short documents.

use tessera_fingerprint::Shingler;

/// The `k` smallest distinct hashes, ascending (Broder's bottom-k sketch). Shingle hashes
/// are uniform xxh3 values, so the smallest ones are a uniform sample of the set.
pub fn bottom_k(hashes: &[u64], k: usize) -> Vec<u64> {
    let mut v = hashes.to_vec();
    if v.len() > k && k > 0 {
        v.select_nth_unstable(k - 1);
        // Duplicates can hide behind position k: keep the distinct smallest ones.
        v.truncate(k);
        v.sort_unstable();
        v.dedup();
        if v.len() < k {
            let mut all = hashes.to_vec();
            all.sort_unstable();
            all.dedup();
            all.truncate(k);
            return all;
        }
        return v;
    }
    v.sort_unstable();
    v.dedup();
    v.truncate(k);
    v
}

/// Estimated Jaccard similarity of two bottom-k sketches (same `k`): among the `k`
/// smallest hashes of their union, the share present in both.
pub fn bottom_k_jaccard(a: &[u64], b: &[u64], k: usize) -> f64 {
    let (mut i, mut j, mut seen, mut both) = (0, 0, 0usize, 0usize);
    while seen < k && (i < a.len() || j < b.len()) {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                both += 1;
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x < y => i += 1,
            (Some(_), None) => i += 1,
            _ => j += 1,
        }
        seen += 1;
    }
    if seen == 0 { 0.0 } else { both as f64 / seen as f64 }
}

/// "Hash mod M" sample (seed 004): the distinct hashes with `h % m == 0`, ascending; the
/// sample grows with the document, so it estimates containment as well as resemblance.
/// A document too short to have `floor` such hashes gets its `floor` smallest distinct
/// hashes instead (a log-size sample: pass `floor = log2(shingles)` or a constant), so it
/// is never left without a sample. `m = 0` is treated as 1.
pub fn mod_m(hashes: &[u64], m: u64, floor: usize) -> Vec<u64> {
    let m = m.max(1);
    let mut v: Vec<u64> = hashes.iter().copied().filter(|h| h % m == 0).collect();
    v.sort_unstable();
    v.dedup();
    if v.len() < floor {
        return bottom_k(hashes, floor);
    }
    v
}

/// Containment of `a` in `b` estimated from two "mod M" samples taken with the same `m`:
/// the share of `a`'s sample found in `b`'s.
pub fn mod_m_containment(a: &[u64], b: &[u64]) -> f64 {
    crate::similarity::containment(a, b)
}

/// Shingle hashes with cyclic extension (seed 004) for short documents: a text of `n`
/// terms, `n < min_terms`, is read as a ring, so it gives `n` shingles (windows wrap to the
/// start) instead of `n - size + 1` or one. One edited word then changes only `size`
/// shingles of a short text, as in a long one. Longer texts get the plain shingles.
pub fn shingles_for_sketch(shingler: &Shingler, terms: &[u64], min_terms: usize) -> Vec<u64> {
    let size = shingler.config().size;
    let n = terms.len();
    if n == 0 || n >= min_terms || size == 1 {
        return shingler.hashes(terms);
    }
    let mut ring = Vec::with_capacity(n + size - 1);
    ring.extend_from_slice(terms);
    for i in 0..size - 1 {
        ring.push(terms[i % n]);
    }
    let mut out = shingler.hashes(&ring);
    out.truncate(n);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_fingerprint::ShingleConfig;

    #[test]
    fn bottom_k_keeps_distinct_smallest() {
        assert_eq!(bottom_k(&[5, 1, 1, 9, 3, 3, 7], 3), [1, 3, 5]);
        assert_eq!(bottom_k(&[4, 4], 3), [4]);
        assert!(bottom_k(&[1, 2], 0).is_empty());
    }

    #[test]
    fn bottom_k_jaccard_counts_union_prefix() {
        assert!((bottom_k_jaccard(&[1, 2, 3], &[1, 2, 3], 3) - 1.0).abs() < 1e-12);
        // union's 3 smallest: 1, 2, 3; shared: 1 and 3.
        assert!((bottom_k_jaccard(&[1, 3, 5], &[1, 2, 3], 3) - 2.0 / 3.0).abs() < 1e-12);
        assert!(bottom_k_jaccard(&[], &[], 3).abs() < 1e-12);
    }

    #[test]
    fn mod_m_falls_back_to_smallest() {
        assert_eq!(mod_m(&[10, 3, 20, 7, 10], 10, 1), [10, 20]);
        assert_eq!(mod_m(&[11, 3, 21, 7], 10, 2), [3, 7]);
        assert!((mod_m_containment(&[10, 20], &[10, 20, 30]) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn cyclic_extension_gives_one_shingle_per_term() {
        let s = Shingler::new(ShingleConfig { size: 3, seed: 0 }).unwrap();
        let short = shingles_for_sketch(&s, &[1, 2], 10);
        assert_eq!(short.len(), 2);
        assert_eq!(short[0], s.hashes(&[1, 2, 1])[0]);
        assert_eq!(shingles_for_sketch(&s, &[1, 2, 3, 4, 5], 10).len(), 5);
        assert_eq!(shingles_for_sketch(&s, &[1, 2, 3, 4, 5], 5), s.hashes(&[1, 2, 3, 4, 5]));
        assert!(shingles_for_sketch(&s, &[], 10).is_empty());
        // One changed word of a short text changes `size` shingles, not all of them.
        let a = shingles_for_sketch(&s, &[1, 2, 3, 4, 5, 6], 10);
        let b = shingles_for_sketch(&s, &[1, 2, 3, 9, 5, 6], 10);
        assert_eq!(a.iter().zip(&b).filter(|(x, y)| x != y).count(), 3);
    }
}
