//! The PAN text-alignment measure (Potthast, Stein, Barrón-Cedeño, Rosso, COLING 2010):
//! macro-averaged character recall and precision, granularity, and plagdet.
//!
//! - A detection `r` *detects* a case `s` when both are for the same (suspicious,
//!   source) pair and their passages overlap in the suspicious document and in the
//!   source document ([`Annotation::overlaps`]).
//! - recall = mean over cases `s` of `|⋃ (s ∩ r)| / |s|`, the union over the
//!   detections `r` that detect `s`; sizes add the suspicious side and the source side.
//! - precision = the same with cases and detections swapped.
//! - granularity = mean over detected cases of the number of detections detecting it
//!   (1 when no case is detected).
//! - plagdet = F1(precision, recall) / log2(1 + granularity).
//!
//! Edge cases: no cases and no detections score 1 everywhere; if only one of the two
//! is empty, recall and precision are 0 (as in PAN's evaluation program). Both inputs
//! are read as sets: identical annotations count once. Annotations whose two passages
//! are both empty carry no characters and are ignored.
//!
//! Intersections are computed with interval arithmetic (sort and merge), so the cost
//! does not depend on passage lengths.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::annotation::Annotation;

/// The PAN scores of a detection set against a set of cases.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Scores {
    /// Macro-averaged character recall, in `[0, 1]`.
    pub recall: f64,
    /// Macro-averaged character precision, in `[0, 1]`.
    pub precision: f64,
    /// Mean number of detections per detected case, `>= 1`.
    pub granularity: f64,
    /// `F1(precision, recall) / log2(1 + granularity)`.
    pub plagdet: f64,
    /// Number of distinct (non-empty) cases.
    pub cases: usize,
    /// Number of distinct (non-empty) detections.
    pub detections: usize,
}

/// `F1(precision, recall) / log2(1 + granularity)`; 0 when precision and recall are
/// both 0. A granularity below 1 (impossible for a real detection set) is taken as 1.
pub fn plagdet(precision: f64, recall: f64, granularity: f64) -> f64 {
    if precision + recall <= 0.0 {
        return 0.0;
    }
    let f1 = 2.0 * precision * recall / (precision + recall);
    f1 / (1.0 + granularity.max(1.0)).log2()
}

/// Scores `detections` against `cases` with the PAN measure (see the module docs).
pub fn score(cases: &[Annotation], detections: &[Annotation]) -> Scores {
    score_sides(cases, detections, true)
}

/// [`score`] on the suspect side alone: a detection overlaps a case of its pair when
/// their suspect spans overlap, and only suspect characters count. For corpora whose
/// source spans are approximate (the cross-language set's source side was found by an
/// automatic aligner and may be a sentence off at an edge).
pub fn score_suspect_side(cases: &[Annotation], detections: &[Annotation]) -> Scores {
    score_sides(cases, detections, false)
}

fn score_sides(cases: &[Annotation], detections: &[Annotation], both: bool) -> Scores {
    let cases = distinct(cases);
    let detections = distinct(detections);
    let n_cases = cases.len();
    let n_dets = detections.len();
    if n_cases == 0 || n_dets == 0 {
        let value = if n_cases == 0 && n_dets == 0 { 1.0 } else { 0.0 };
        return Scores {
            recall: value,
            precision: value,
            granularity: 1.0,
            plagdet: value,
            cases: n_cases,
            detections: n_dets,
        };
    }
    let cases_by_pair = by_pair(&cases);
    let dets_by_pair = by_pair(&detections);

    let (recall_sum, detecting) = coverage(&cases, &dets_by_pair, both);
    let (precision_sum, _) = coverage(&detections, &cases_by_pair, both);

    let detected: Vec<usize> = detecting.into_iter().filter(|&n| n > 0).collect();
    let granularity =
        if detected.is_empty() { 1.0 } else { detected.iter().sum::<usize>() as f64 / detected.len() as f64 };
    let recall = recall_sum / n_cases as f64;
    let precision = precision_sum / n_dets as f64;
    Scores {
        recall,
        precision,
        granularity,
        plagdet: plagdet(precision, recall, granularity),
        cases: n_cases,
        detections: n_dets,
    }
}

/// The distinct non-empty annotations, sorted (by pair, then `this_offset`, ...).
fn distinct(annotations: &[Annotation]) -> Vec<&Annotation> {
    let mut v: Vec<&Annotation> = annotations.iter().filter(|a| !a.is_empty()).collect();
    v.sort_unstable();
    v.dedup();
    v
}

type PairKey<'a> = (&'a str, &'a str);

fn by_pair<'a>(annotations: &[&'a Annotation]) -> HashMap<PairKey<'a>, Vec<&'a Annotation>> {
    let mut map: HashMap<PairKey<'a>, Vec<&'a Annotation>> = HashMap::new();
    for a in annotations {
        map.entry((a.suspicious.as_str(), a.source.as_str())).or_default().push(a);
    }
    map
}

/// For each target, the fraction of its characters (both sides, or the suspect side
/// alone) covered by the overlapping annotations of `others`; returns the sum of
/// fractions and, per target, how many of `others` overlap it.
fn coverage(targets: &[&Annotation], others: &HashMap<PairKey<'_>, Vec<&Annotation>>, both: bool) -> (f64, Vec<usize>) {
    let mut sum = 0.0;
    let mut counts = Vec::with_capacity(targets.len());
    let mut this_side: Vec<(u64, u64)> = Vec::new();
    let mut source_side: Vec<(u64, u64)> = Vec::new();
    for t in targets {
        this_side.clear();
        source_side.clear();
        let candidates = others.get(&(t.suspicious.as_str(), t.source.as_str())).map_or(&[][..], Vec::as_slice);
        // Groups are sorted by `this_offset` (see `distinct`): the ones starting at or
        // after the end of `t` cannot overlap it.
        let candidates = &candidates[..candidates.partition_point(|o| o.this_offset < t.this_end())];
        let overlaps = |o: &&&Annotation| {
            if both {
                t.overlaps(o)
            } else {
                crate::annotation::intervals_overlap(t.this_offset, t.this_end(), o.this_offset, o.this_end())
            }
        };
        for o in candidates.iter().filter(overlaps) {
            this_side.push((t.this_offset.max(o.this_offset), t.this_end().min(o.this_end())));
            if both {
                source_side.push((t.source_offset.max(o.source_offset), t.source_end().min(o.source_end())));
            }
        }
        counts.push(this_side.len());
        let length = if both { t.len() } else { t.this_length };
        if !this_side.is_empty() && length > 0 {
            let covered = union_length(&mut this_side) + union_length(&mut source_side);
            sum += covered as f64 / length as f64;
        }
    }
    (sum, counts)
}

/// Total length of the union of half-open intervals `(start, end)` (sorts them).
pub(crate) fn union_length(intervals: &mut [(u64, u64)]) -> u64 {
    intervals.sort_unstable();
    let mut total = 0u64;
    let mut current: Option<(u64, u64)> = None;
    for &(start, end) in intervals.iter() {
        if end <= start {
            continue;
        }
        current = match current {
            Some((s, e)) if start <= e => Some((s, e.max(end))),
            Some((s, e)) => {
                total += e - s;
                Some((start, end))
            }
            None => Some((start, end)),
        };
    }
    if let Some((s, e)) = current {
        total += e - s;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A detection with the suspect side right and the source side a sentence off
    /// scores 1 on the suspect side alone; with both sides, less; a detection of
    /// another suspect span scores 0 either way.
    #[test]
    fn the_suspect_side_alone_ignores_the_source_spans() {
        let case = ann(("s", "r"), (100, 300), (1000, 1400));
        let off = ann(("s", "r"), (100, 300), (1100, 1500));
        let one = score_suspect_side(std::slice::from_ref(&case), std::slice::from_ref(&off));
        assert!((one.plagdet - 1.0).abs() < EPS, "{one:?}");
        let both = score(std::slice::from_ref(&case), std::slice::from_ref(&off));
        assert!(both.plagdet < 0.9, "{both:?}");
        let elsewhere = ann(("s", "r"), (400, 600), (1000, 1400));
        assert_eq!(score_suspect_side(std::slice::from_ref(&case), &[elsewhere]).recall, 0.0);
    }

    const EPS: f64 = 1e-8;

    fn ann(pair: (&str, &str), t: (u64, u64), s: (u64, u64)) -> Annotation {
        Annotation {
            suspicious: pair.0.into(),
            source: pair.1.into(),
            this_offset: t.0,
            this_length: t.1 - t.0,
            source_offset: s.0,
            source_length: s.1 - s.0,
        }
    }

    const P: (&str, &str) = ("suspicious-document00001.txt", "source-document00001.txt");
    const Q: (&str, &str) = ("suspicious-document00001.txt", "source-document00002.txt");

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < EPS
    }

    #[test]
    fn plagdet_readme_vectors() {
        assert!(close(plagdet(1.0, 1.0, 1.0), 1.0));
        assert!(close(plagdet(0.5, 1.0, 1.0), 2.0 / 3.0));
        assert!(close(plagdet(1.0, 1.0, 2.0), 0.63092975));
        assert!(close(plagdet(0.25, 0.75, 2.0), 0.23659865));
        assert_eq!(plagdet(0.0, 0.0, 1.0), 0.0);
    }

    #[test]
    fn recall_half() {
        let s = score(&[ann(P, (0, 100), (0, 100))], &[ann(P, (50, 150), (50, 150))]);
        assert!(close(s.recall, 0.5), "{s:?}");
        assert!(close(s.precision, 0.5), "{s:?}");
        assert_eq!(s.granularity, 1.0);
    }

    #[test]
    fn precision_half() {
        let s = score(&[ann(P, (0, 100), (0, 100))], &[ann(P, (0, 200), (0, 200))]);
        assert!(close(s.recall, 1.0), "{s:?}");
        assert!(close(s.precision, 0.5), "{s:?}");
        assert!(close(s.plagdet, 2.0 / 3.0));
    }

    #[test]
    fn sides_are_added() {
        // Suspicious side fully covered (100 of 100), source side half (100 of 200).
        let s = score(&[ann(P, (0, 100), (0, 200))], &[ann(P, (0, 100), (0, 100))]);
        assert!(close(s.recall, 200.0 / 300.0), "{s:?}");
        assert!(close(s.precision, 1.0), "{s:?}");
    }

    #[test]
    fn edge_cases() {
        let perfect = score(&[], &[]);
        assert_eq!((perfect.recall, perfect.precision, perfect.granularity, perfect.plagdet), (1.0, 1.0, 1.0, 1.0));
        let case = [ann(P, (0, 10), (0, 10))];
        let nothing_found = score(&case, &[]);
        assert_eq!((nothing_found.recall, nothing_found.precision, nothing_found.plagdet), (0.0, 0.0, 0.0));
        let nothing_to_find = score(&[], &case);
        assert_eq!((nothing_to_find.recall, nothing_to_find.precision, nothing_to_find.plagdet), (0.0, 0.0, 0.0));
        assert_eq!(nothing_to_find.detections, 1);
    }

    #[test]
    fn granularity_two_when_split() {
        let s = score(&[ann(P, (0, 100), (0, 100))], &[ann(P, (0, 50), (0, 50)), ann(P, (50, 100), (50, 100))]);
        assert!(close(s.recall, 1.0));
        assert!(close(s.precision, 1.0));
        assert_eq!(s.granularity, 2.0);
        assert!(close(s.plagdet, 0.63092975));
    }

    #[test]
    fn overlapping_detections_count_chars_once() {
        let s = score(&[ann(P, (0, 100), (0, 100))], &[ann(P, (0, 60), (0, 60)), ann(P, (40, 80), (40, 80))]);
        assert!(close(s.recall, 0.8), "{s:?}");
        assert_eq!(s.granularity, 2.0);
    }

    #[test]
    fn duplicates_count_once() {
        let d = ann(P, (0, 100), (0, 100));
        let s = score(std::slice::from_ref(&d), &[d.clone(), d.clone(), d.clone()]);
        assert_eq!(s.detections, 1);
        assert_eq!(s.granularity, 1.0);
        assert_eq!(s.plagdet, 1.0);
    }

    #[test]
    fn unrelated_pair_does_not_count() {
        // Same offsets, other source document: detects nothing.
        let s = score(&[ann(P, (0, 100), (0, 100))], &[ann(Q, (0, 100), (0, 100))]);
        assert_eq!((s.recall, s.precision), (0.0, 0.0));
        assert_eq!(s.granularity, 1.0);
        assert_eq!(s.plagdet, 0.0);
        // Overlap on one side only does not detect either.
        let s = score(&[ann(P, (0, 100), (0, 100))], &[ann(P, (0, 100), (500, 600))]);
        assert_eq!((s.recall, s.precision), (0.0, 0.0));
    }

    #[test]
    fn macro_average_over_cases() {
        // Case 1 fully found, case 2 (10x longer) not at all: recall 0.5, not 1/11.
        let cases = [ann(P, (0, 10), (0, 10)), ann(Q, (0, 100), (0, 100))];
        let s = score(&cases, &[ann(P, (0, 10), (0, 10))]);
        assert!(close(s.recall, 0.5));
        assert!(close(s.precision, 1.0));
    }

    #[test]
    fn union_length_merges() {
        assert_eq!(union_length(&mut [(5, 10), (0, 3), (2, 6), (20, 20)]), 10);
        assert_eq!(union_length(&mut [(0, 5), (5, 10)]), 10);
        assert_eq!(union_length(&mut []), 0);
    }

    fn arb_annotation() -> impl Strategy<Value = Annotation> {
        (0usize..2, 0usize..2, 0u64..500, 0u64..200, 0u64..500, 0u64..200).prop_map(|(p, q, t0, tl, s0, sl)| {
            Annotation {
                suspicious: format!("susp{p}.txt"),
                source: format!("src{q}.txt"),
                this_offset: t0,
                this_length: tl,
                source_offset: s0,
                source_length: sl,
            }
        })
    }

    /// The measure's definition with explicit character sets (slow, for checking).
    fn brute_mean(targets: &[&Annotation], others: &[&Annotation]) -> f64 {
        use std::collections::HashSet;
        let chars = |a: &Annotation| -> HashSet<(bool, u64)> {
            (a.this_offset..a.this_end())
                .map(|c| (true, c))
                .chain((a.source_offset..a.source_end()).map(|c| (false, c)))
                .collect()
        };
        let mut sum = 0.0;
        for t in targets {
            let tc = chars(t);
            let mut covered = HashSet::new();
            for o in others.iter().filter(|o| t.overlaps(o)) {
                covered.extend(tc.intersection(&chars(o)).copied());
            }
            sum += covered.len() as f64 / tc.len() as f64;
        }
        sum / targets.len() as f64
    }

    proptest! {
        #[test]
        fn scores_are_bounded(
            cases in proptest::collection::vec(arb_annotation(), 0..8),
            dets in proptest::collection::vec(arb_annotation(), 0..12),
        ) {
            let s = score(&cases, &dets);
            prop_assert!((0.0..=1.0).contains(&s.recall), "{s:?}");
            prop_assert!((0.0..=1.0).contains(&s.precision), "{s:?}");
            prop_assert!(s.granularity >= 1.0, "{s:?}");
            prop_assert!((0.0..=1.0).contains(&s.plagdet), "{s:?}");
        }

        #[test]
        fn matches_character_set_definition(
            cases in proptest::collection::vec(arb_annotation(), 1..6),
            dets in proptest::collection::vec(arb_annotation(), 1..8),
        ) {
            let s = score(&cases, &dets);
            let cases = distinct(&cases);
            let dets = distinct(&dets);
            prop_assume!(!cases.is_empty() && !dets.is_empty());
            prop_assert!((s.recall - brute_mean(&cases, &dets)).abs() < 1e-9, "{s:?}");
            prop_assert!((s.precision - brute_mean(&dets, &cases)).abs() < 1e-9, "{s:?}");
        }

        #[test]
        fn perfect_detection_scores_one(
            cases in proptest::collection::vec(arb_annotation(), 0..8),
        ) {
            // The cases themselves detect each case with full coverage; the cases of a
            // corpus do not overlap each other, so keep only mutually disjoint ones
            // (with both passages non-empty: an empty side overlaps nothing).
            let mut disjoint: Vec<Annotation> = Vec::new();
            for c in cases {
                let both_sides = c.this_length > 0 && c.source_length > 0;
                if both_sides && !disjoint.iter().any(|d| d.overlaps(&c) || *d == c) {
                    disjoint.push(c);
                }
            }
            let s = score(&disjoint, &disjoint);
            prop_assert_eq!(s.recall, 1.0);
            prop_assert_eq!(s.precision, 1.0);
            prop_assert_eq!(s.granularity, 1.0);
            prop_assert_eq!(s.plagdet, 1.0);
        }
    }
}
