//! Exact similarities of shingle sets and of character-shingle profiles.

use xxhash_rust::xxh3::xxh3_64;

/// The distinct values of `hashes`, ascending: the set the exact measures take.
pub fn shingle_set(hashes: &[u64]) -> Vec<u64> {
    let mut v = hashes.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

/// Size of the intersection of two ascending, distinct sets.
pub fn intersection(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// Exact Jaccard similarity `|A ∩ B| / |A ∪ B|` of two ascending, distinct sets (0 when
/// both are empty).
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    let i = intersection(a, b);
    let union = a.len() + b.len() - i;
    if union == 0 { 0.0 } else { i as f64 / union as f64 }
}

/// Containment of `a` in `b`, `|A ∩ B| / |A|`, of two ascending, distinct sets (0 when
/// `a` is empty). Containment the other way is `containment(b, a)`.
pub fn containment(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() { 0.0 } else { intersection(a, b) as f64 / a.len() as f64 }
}

/// A character-shingle profile (seed 003): the text lowercased, keeping letters and
/// digits only (spaces and punctuation removed), cut into overlapping windows of `n`
/// characters, each counted. Comparing profiles by cosine finds duplicates in short texts
/// and in scripts without spaces, where word shingles are few.
#[derive(Debug, Clone, PartialEq)]
pub struct CharProfile {
    /// `(xxh3 of the window's UTF-8, count)`, ascending by hash.
    counts: Vec<(u64, u32)>,
    norm: f64,
}

impl CharProfile {
    /// The profile of `text` with windows of `n` characters (`n = 0` is treated as 1). A
    /// text shorter than `n` characters has its whole text as one window.
    pub fn new(text: &str, n: usize) -> Self {
        let n = n.max(1);
        let chars: Vec<char> = text.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
        let mut hashes = Vec::with_capacity(chars.len());
        let mut buf = String::new();
        let windows: Box<dyn Iterator<Item = &[char]>> = if chars.len() < n {
            Box::new((!chars.is_empty()).then_some(&chars[..]).into_iter())
        } else {
            Box::new(chars.windows(n))
        };
        for w in windows {
            buf.clear();
            buf.extend(w);
            hashes.push(xxh3_64(buf.as_bytes()));
        }
        hashes.sort_unstable();
        let mut counts: Vec<(u64, u32)> = Vec::new();
        for h in hashes {
            match counts.last_mut() {
                Some((last, c)) if *last == h => *c += 1,
                _ => counts.push((h, 1)),
            }
        }
        let norm = counts.iter().map(|&(_, c)| f64::from(c) * f64::from(c)).sum::<f64>().sqrt();
        Self { counts, norm }
    }

    /// Cosine similarity of two profiles (0 when either is empty).
    pub fn cosine(&self, other: &CharProfile) -> f64 {
        if self.norm == 0.0 || other.norm == 0.0 {
            return 0.0;
        }
        let (a, b) = (&self.counts, &other.counts);
        let (mut i, mut j, mut dot) = (0, 0, 0.0f64);
        while i < a.len() && j < b.len() {
            match a[i].0.cmp(&b[j].0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    dot += f64::from(a[i].1) * f64::from(b[j].1);
                    i += 1;
                    j += 1;
                }
            }
        }
        (dot / (self.norm * other.norm)).min(1.0)
    }
}

/// Every similarity the near-duplicate reports show for a pair of documents.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Similarities {
    /// Jaccard similarity estimated from MinHash signatures.
    pub estimated_jaccard: f64,
    /// Exact Jaccard similarity of the shingle sets.
    pub jaccard: f64,
    /// Share of the first document's shingles found in the second.
    pub containment_ab: f64,
    /// Share of the second document's shingles found in the first.
    pub containment_ba: f64,
}

impl Similarities {
    /// All measures from two shingle sets (ascending, distinct) and their signatures.
    pub fn of(a: &[u64], b: &[u64], sa: &crate::Signature, sb: &crate::Signature) -> Self {
        Self {
            estimated_jaccard: sa.jaccard(sb),
            jaccard: jaccard(a, b),
            containment_ab: containment(a, b),
            containment_ba: containment(b, a),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_measures() {
        let a = shingle_set(&[3, 1, 2, 2]);
        let b = shingle_set(&[2, 3, 4, 5]);
        assert_eq!(a, [1, 2, 3]);
        assert!((jaccard(&a, &b) - 2.0 / 5.0).abs() < 1e-12);
        assert!((containment(&a, &b) - 2.0 / 3.0).abs() < 1e-12);
        assert!((containment(&b, &a) - 0.5).abs() < 1e-12);
        assert!(jaccard(&[], &[]).abs() < 1e-12);
        assert!(containment(&[], &a).abs() < 1e-12);
    }

    #[test]
    fn char_profiles_ignore_case_spaces_and_punctuation() {
        let a = CharProfile::new("Презентация о шинглах.", 4);
        let b = CharProfile::new("презентация  о ШИНГЛАХ", 4);
        assert!((a.cosine(&b) - 1.0).abs() < 1e-9);
        let c = CharProfile::new("something else entirely", 4);
        assert!(a.cosine(&c) < 0.1);
        assert!(CharProfile::new("", 4).cosine(&a).abs() < 1e-12);
        let short = CharProfile::new("ab", 4);
        assert!((short.cosine(&CharProfile::new("A B", 4)) - 1.0).abs() < 1e-9);
    }
}
