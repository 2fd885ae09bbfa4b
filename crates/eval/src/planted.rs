//! Planted near-duplicates: real texts and copies of them edited at known rates, and the
//! measure of a dedup run on them (issue 19: "near-duplicates found at their threshold").
//!
//! [`plant`] takes base texts (e.g. the PAN sources) and makes, for each, copies whose
//! words are edited at each of the given rates: every word is, with probability `rate`,
//! replaced by another word of the same text, deleted, or followed by an inserted word
//! (one third each). Families are interleaved in a fixed pseudo-random order with each
//! base before its copies (the order a crawl or a dataset usually has: the original is
//! seen first). The set is a function of the texts, the rates and the seed.
//!
//! [`measure`] scores clusters against similarities the caller computed for every pair
//! that shares a family or a cluster (with the similarity the dedup run documents).

use serde::Serialize;

/// One document of a planted set.
#[derive(Debug, Clone, PartialEq)]
pub struct PlantedDoc {
    /// Its id: `f{family}` for a base, `f{family}-e{percent}` for a copy.
    pub id: String,
    /// The index of its base text.
    pub family: usize,
    /// The share of words edited (0 for the base).
    pub rate: f64,
    /// The text.
    pub text: String,
}

use crate::rng::{Draws, SplitMix64 as Rng};

/// A copy of `text` with words edited at `rate`.
fn edit(text: &str, rate: f64, rng: &mut Rng) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out: Vec<&str> = Vec::with_capacity(words.len() + words.len() / 8);
    for &w in &words {
        if rng.unit() >= rate {
            out.push(w);
            continue;
        }
        match rng.below(3) {
            0 => out.push(words[rng.index(words.len())]),
            1 => {}
            _ => {
                out.push(w);
                out.push(words[rng.index(words.len())]);
            }
        }
    }
    out.join(" ")
}

/// The planted set of `bases`: each base followed (in its family) by one copy per rate.
pub fn plant(bases: &[String], rates: &[f64], seed: u64) -> Vec<PlantedDoc> {
    let mut rng = Rng::new(seed);
    let mut families: Vec<Vec<PlantedDoc>> = bases
        .iter()
        .enumerate()
        .map(|(family, base)| {
            let mut docs = vec![PlantedDoc { id: format!("f{family}"), family, rate: 0.0, text: base.clone() }];
            for &rate in rates {
                docs.push(PlantedDoc {
                    id: format!("f{family}-e{}", (rate * 100.0).round()),
                    family,
                    rate,
                    text: edit(base, rate, &mut rng),
                });
            }
            docs
        })
        .collect();
    // Interleave: repeatedly take the next document of a family drawn at random.
    let mut out = Vec::with_capacity(families.iter().map(Vec::len).sum());
    let mut live: Vec<usize> = (0..families.len()).collect();
    for f in &mut families {
        f.reverse();
    }
    while !live.is_empty() {
        let k = rng.index(live.len());
        let f = live[k];
        if let Some(doc) = families[f].pop() {
            out.push(doc);
        }
        if families[f].is_empty() {
            live.swap_remove(k);
        }
    }
    out
}

/// A pair of documents (positions in the set) and its similarity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoredPair {
    /// One document.
    pub a: usize,
    /// The other.
    pub b: usize,
    /// Their similarity, as the dedup run documents it.
    pub similarity: f64,
}

/// How a dedup run did on a planted set at one threshold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlantedScores {
    /// The threshold.
    pub threshold: f64,
    /// Family pairs whose similarity is at least `threshold + 0.03`.
    pub pairs_above: usize,
    /// Of those, the pairs found in one cluster.
    pub found_above: usize,
    /// `found_above / pairs_above` (1 when there is none).
    pub recall_above: f64,
    /// Family pairs whose similarity is at least the threshold, and of those found.
    pub pairs_at: usize,
    /// Of `pairs_at`, the pairs found in one cluster.
    pub found_at: usize,
    /// Documents joined to a kept document they are less similar to than
    /// `threshold - 0.1` (a merge is a member joined to its cluster's kept document;
    /// two members of one cluster may differ more, as each was compared with the kept one).
    pub false_merges: usize,
    /// Documents joined to a kept document they are less similar to than the threshold.
    pub merged_below: usize,
    /// Copies (not bases) in the set, and those placed in their base's cluster, per rate.
    pub copies_found: Vec<(f64, usize, usize)>,
}

/// Scores `cluster` (each document's kept document: its position in `docs`) given the
/// similarities of `pairs`: every pair of one family and every pair of one cluster must be
/// listed (others are ignored).
pub fn measure(docs: &[PlantedDoc], cluster: &[usize], pairs: &[ScoredPair], threshold: f64) -> PlantedScores {
    let (mut pairs_above, mut found_above, mut pairs_at, mut found_at) = (0, 0, 0, 0);
    let (mut false_merges, mut merged_below) = (0, 0);
    for p in pairs {
        let together = cluster[p.a] == cluster[p.b];
        if docs[p.a].family == docs[p.b].family {
            if p.similarity >= threshold + 0.03 {
                pairs_above += 1;
                found_above += usize::from(together);
            }
            if p.similarity >= threshold {
                pairs_at += 1;
                found_at += usize::from(together);
            }
        }
        if cluster[p.b] == p.a || cluster[p.a] == p.b {
            false_merges += usize::from(p.similarity < threshold - 0.1);
            merged_below += usize::from(p.similarity < threshold);
        }
    }
    let mut rates: Vec<f64> = docs.iter().filter(|d| d.rate > 0.0).map(|d| d.rate).collect();
    rates.sort_by(f64::total_cmp);
    rates.dedup();
    let base: std::collections::HashMap<usize, usize> =
        docs.iter().enumerate().filter(|(_, d)| d.rate == 0.0).map(|(i, d)| (d.family, i)).collect();
    let copies_found = rates
        .iter()
        .map(|&rate| {
            let copies: Vec<usize> = (0..docs.len()).filter(|&i| docs[i].rate == rate).collect();
            let found = copies
                .iter()
                .filter(|&&i| base.get(&docs[i].family).is_some_and(|&b| cluster[b] == cluster[i]))
                .count();
            (rate, copies.len(), found)
        })
        .collect();
    PlantedScores {
        threshold,
        pairs_above,
        found_above,
        recall_above: if pairs_above == 0 { 1.0 } else { found_above as f64 / pairs_above as f64 },
        pairs_at,
        found_at,
        false_merges,
        merged_below,
        copies_found,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bases() -> Vec<String> {
        (0..4).map(|f| (0..200).map(|w| format!("w{f}x{w}")).collect::<Vec<_>>().join(" ")).collect()
    }

    #[test]
    fn the_set_is_fixed_by_its_seed_and_each_base_comes_first() {
        let a = plant(&bases(), &[0.1, 0.3], 7);
        assert_eq!(a, plant(&bases(), &[0.1, 0.3], 7));
        assert_ne!(a, plant(&bases(), &[0.1, 0.3], 8));
        assert_eq!(a.len(), 12);
        for f in 0..4 {
            let first = a.iter().position(|d| d.family == f).unwrap();
            assert_eq!(a[first].rate, 0.0);
        }
        // Edits happen at about the rate asked.
        let copy = a.iter().find(|d| d.rate == 0.3).unwrap();
        let base = &bases()[copy.family];
        // Words are distinct, so a missing word was deleted or replaced (2 of 3 edits).
        let words: std::collections::HashSet<&str> = copy.text.split(' ').collect();
        let missing = base.split(' ').filter(|w| !words.contains(w)).count();
        assert!((20..60).contains(&missing), "{missing}");
    }

    #[test]
    fn the_measure_counts_found_pairs_and_false_merges() {
        let docs = plant(&bases(), &[0.1], 1);
        let family_pairs: Vec<(usize, usize)> = (0..docs.len())
            .flat_map(|a| (a + 1..docs.len()).map(move |b| (a, b)))
            .filter(|&(a, b)| docs[a].family == docs[b].family)
            .collect();
        let mut pairs: Vec<ScoredPair> =
            family_pairs.iter().map(|&(a, b)| ScoredPair { a, b, similarity: 0.7 }).collect();
        // Each family's base is kept; family 1 joined family 0's base by mistake; one copy
        // of family 2 is left alone.
        let base = |f: usize| docs.iter().position(|d| d.family == f && d.rate == 0.0).unwrap();
        let mut cluster: Vec<usize> = docs.iter().map(|d| base(if d.family == 1 { 0 } else { d.family })).collect();
        let split = docs.iter().position(|d| d.family == 2 && d.rate > 0.0).unwrap();
        cluster[split] = split;
        for a in 0..docs.len() {
            for b in a + 1..docs.len() {
                if docs[a].family != docs[b].family && cluster[a] == cluster[b] {
                    pairs.push(ScoredPair { a, b, similarity: 0.1 });
                }
            }
        }
        let s = measure(&docs, &cluster, &pairs, 0.5);
        assert_eq!((s.pairs_above, s.found_above), (4, 3));
        assert_eq!(s.false_merges, 2, "family 1's two documents joined family 0's base");
        assert_eq!(s.copies_found, vec![(0.1, 4, 3)]);
    }
}
