//! Shingle samples other than MinHash: bottom-k and "hash mod M" (cyclic shingles for
//! very short documents are made by `tessera_fingerprint::shingles_for_sketch`).

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
