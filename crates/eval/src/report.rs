//! Scoring a detector's output against a whole corpus, per subset and overall.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::annotation::Annotation;
use crate::corpus::{PanCorpus, xml_files};
use crate::error::Result;
use crate::measure::{Scores, score};
use crate::xml::read_detections;

/// Name of the overall row of a [`Report`], as PAN calls it.
pub const ENTIRE: &str = "entire";

/// The scores of one subset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubsetScores {
    /// Subset name, e.g. `02-no-obfuscation`.
    pub subset: String,
    /// Number of pairs the subset lists.
    pub pairs: usize,
    /// The scores over those pairs.
    pub scores: Scores,
}

/// The scores of a detection set against a corpus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// One row per subset, in the corpus' subset order.
    pub subsets: Vec<SubsetScores>,
    /// The scores over every listed pair of every subset.
    pub entire: Scores,
    /// Number of detection files read (0 for [`score_annotations`]).
    pub detection_files: usize,
    /// Detection files whose name is not the XML name of a listed pair.
    pub unlisted_files: usize,
    /// Distinct detections for pairs no subset lists (not scored).
    pub unlisted_detections: usize,
    /// Suspect characters that detections cover, over every detection (listed pairs or
    /// not; see [`Report::multi_claimed_share`]).
    #[serde(default)]
    pub claimed_chars: u64,
    /// ... of which detections of two or more sources cover.
    #[serde(default)]
    pub multi_claimed_chars: u64,
    /// The scores over every listed pair on the suspect side alone
    /// ([`crate::score_suspect_side`]): for corpora whose source spans are approximate.
    #[serde(default)]
    pub suspect_side: Option<Scores>,
}

impl Report {
    /// The share of claimed suspect characters that two or more sources claim. PAN
    /// scores listed pairs only, so a passage claimed again by a second source holding
    /// the same text counts as recall whenever the second is the listed one, and the
    /// scores alone cannot tell a better search from one that claims passages twice; a
    /// report shows such a passage under every source. Some double claims are right (a
    /// summary beside a copy of its sentence from another source). 0 with nothing claimed.
    pub fn multi_claimed_share(&self) -> f64 {
        if self.claimed_chars == 0 { 0.0 } else { self.multi_claimed_chars as f64 / self.claimed_chars as f64 }
    }

    /// The scores of a subset, or of [`ENTIRE`].
    pub fn get(&self, subset: &str) -> Option<&Scores> {
        if subset == ENTIRE {
            return Some(&self.entire);
        }
        self.subsets.iter().find(|s| s.subset == subset).map(|s| &s.scores)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<28} {:>7} {:>7} {:>9} {:>11} {:>7} {:>10}",
            "subset", "plagdet", "recall", "precision", "granularity", "cases", "detections"
        )?;
        let rows =
            self.subsets.iter().map(|s| (s.subset.as_str(), &s.scores)).chain(std::iter::once((ENTIRE, &self.entire)));
        for (name, s) in rows {
            writeln!(
                f,
                "{:<28} {:>7.4} {:>7.4} {:>9.4} {:>11.4} {:>7} {:>10}",
                name, s.plagdet, s.recall, s.precision, s.granularity, s.cases, s.detections
            )?;
        }
        if let Some(s) = &self.suspect_side {
            writeln!(
                f,
                "{:<28} {:>7.4} {:>7.4} {:>9.4} {:>11.4} {:>7} {:>10}",
                "entire, suspect side only", s.plagdet, s.recall, s.precision, s.granularity, s.cases, s.detections
            )?;
        }
        write!(
            f,
            "{} detection files; {} not named for a listed pair; {} detections for unlisted pairs; \
             {} suspect characters claimed, {:.2} % of them by two or more sources",
            self.detection_files,
            self.unlisted_files,
            self.unlisted_detections,
            self.claimed_chars,
            100.0 * self.multi_claimed_share()
        )
    }
}

/// Scores the detection files of `detections_dir` (every `*.xml` directly in it, read
/// with [`read_detections`]) against the corpus' ground truth, per subset and over the
/// entire corpus. Only the pairs each subset lists are scored; detections are
/// attributed to pairs by their own (suspicious, source) names, whatever file holds
/// them. A listed pair without a file has no detections.
pub fn score_dir(corpus: &PanCorpus, detections_dir: &Path) -> Result<Report> {
    let listed_files: HashSet<String> = corpus.pairs.iter().map(|p| p.file_name()).collect();
    let mut detections = Vec::new();
    let mut files = 0;
    let mut unlisted_files = 0;
    for path in xml_files(detections_dir)? {
        files += 1;
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !listed_files.contains(name) {
            unlisted_files += 1;
        }
        detections.extend(read_detections(&path)?);
    }
    let mut report = score_annotations(corpus, &detections)?;
    report.detection_files = files;
    report.unlisted_files = unlisted_files;
    Ok(report)
}

/// Scores in-memory detections against the corpus, like [`score_dir`] (which also
/// counts files).
pub fn score_annotations(corpus: &PanCorpus, detections: &[Annotation]) -> Result<Report> {
    // Subsets (indexes into corpus.subsets) listing each pair.
    let mut listed: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    for pair in &corpus.pairs {
        if let Some(i) = corpus.subsets.iter().position(|s| *s == pair.subset) {
            listed.entry((pair.suspicious.as_str(), pair.source.as_str())).or_default().push(i);
        }
    }
    let n = corpus.subsets.len();
    let mut subset_dets: Vec<Vec<Annotation>> = vec![Vec::new(); n];
    let mut all_dets = Vec::new();
    let mut unlisted: BTreeSet<&Annotation> = BTreeSet::new();
    for d in detections {
        match listed.get(&(d.suspicious.as_str(), d.source.as_str())) {
            Some(subsets) => {
                for &i in subsets {
                    subset_dets[i].push(d.clone());
                }
                all_dets.push(d.clone());
            }
            None => {
                if !d.is_empty() {
                    unlisted.insert(d);
                }
            }
        }
    }

    let mut rows = Vec::with_capacity(n);
    let mut all_cases = Vec::new();
    for (i, subset) in corpus.subsets.iter().enumerate() {
        let pairs: HashSet<(&str, &str)> =
            corpus.pairs_of(subset).into_iter().map(|p| (p.suspicious.as_str(), p.source.as_str())).collect();
        let cases: Vec<Annotation> = corpus
            .cases(subset)?
            .into_iter()
            .filter(|c| pairs.contains(&(c.suspicious.as_str(), c.source.as_str())))
            .collect();
        rows.push(SubsetScores { subset: subset.clone(), pairs: pairs.len(), scores: score(&cases, &subset_dets[i]) });
        all_cases.extend(cases);
    }
    let (claimed_chars, multi_claimed_chars) = claimed_chars(detections);
    Ok(Report {
        subsets: rows,
        entire: score(&all_cases, &all_dets),
        suspect_side: Some(crate::measure::score_suspect_side(&all_cases, &all_dets)),
        detection_files: 0,
        unlisted_files: 0,
        unlisted_detections: unlisted.len(),
        claimed_chars,
        multi_claimed_chars,
    })
}

/// Suspect characters that `detections` cover, and those that detections of two or more
/// sources cover (a source's own overlapping detections count once).
fn claimed_chars(detections: &[Annotation]) -> (u64, u64) {
    let mut spans: BTreeMap<(&str, &str), Vec<(u64, u64)>> = BTreeMap::new();
    for d in detections.iter().filter(|d| d.this_length > 0) {
        spans.entry((d.suspicious.as_str(), d.source.as_str())).or_default().push((d.this_offset, d.this_end()));
    }
    // Per suspect: +1 where a source's covered run starts, -1 where it ends.
    let mut events: BTreeMap<&str, Vec<(u64, i32)>> = BTreeMap::new();
    for ((suspect, _), mut runs) in spans {
        runs.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::new();
        for (start, end) in runs {
            match merged.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => merged.push((start, end)),
            }
        }
        let list = events.entry(suspect).or_default();
        for (start, end) in merged {
            list.extend([(start, 1), (end, -1)]);
        }
    }
    let (mut claimed, mut multi) = (0, 0);
    for mut list in events.into_values() {
        // Ends before starts at one position: touching runs do not overlap.
        list.sort_unstable();
        let (mut active, mut at) = (0i32, 0u64);
        for (pos, delta) in list {
            let len = pos - at;
            if active >= 1 {
                claimed += len;
            }
            if active >= 2 {
                multi += len;
            }
            active += delta;
            at = pos;
        }
    }
    (claimed, multi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xml::write_detections;

    #[test]
    fn characters_claimed_by_two_sources_are_counted_once_each() {
        let at = |source: &str, start: u64, end: u64| Annotation {
            suspicious: "s.txt".into(),
            source: source.into(),
            this_offset: start,
            this_length: end - start,
            source_offset: 0,
            source_length: end - start,
        };
        // r1 covers [0, 12) with two detections of its own, r2 [5, 15), r3 touches r2's end.
        let detections = [at("r1", 0, 10), at("r1", 8, 12), at("r2", 5, 15), at("r3", 15, 20), at("r4", 30, 30)];
        assert_eq!(claimed_chars(&detections), (20, 7));
        // Another suspect's detections never overlap this one's.
        let other = Annotation { suspicious: "t.txt".into(), ..at("r2", 0, 12) };
        assert_eq!(claimed_chars(&[at("r1", 0, 12), other]), (24, 0));
        assert_eq!(claimed_chars(&[]), (0, 0));
    }

    fn case(s: &str, r: &str, o: u64) -> Annotation {
        Annotation {
            suspicious: s.into(),
            source: r.into(),
            this_offset: o,
            this_length: 10,
            source_offset: o,
            source_length: 10,
        }
    }

    fn corpus() -> (tempfile::TempDir, PanCorpus) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (subset, pairs, xml) in [
            ("01-none", "s1.txt r1.txt\n", None),
            (
                "02-some",
                "s2.txt r2.txt\ns3.txt r3.txt\n",
                Some((
                    "s2-r2.xml",
                    r#"<document reference="s2.txt"><feature name="plagiarism" this_offset="0" this_length="10" source_reference="r2.txt" source_offset="0" source_length="10"/></document>"#,
                )),
            ),
        ] {
            std::fs::create_dir_all(root.join(subset)).unwrap();
            std::fs::write(root.join(subset).join("pairs"), pairs).unwrap();
            if let Some((name, text)) = xml {
                std::fs::write(root.join(subset).join(name), text).unwrap();
            }
        }
        let corpus = PanCorpus::open(root).unwrap();
        (dir, corpus)
    }

    #[test]
    fn per_subset_and_entire() {
        let (_keep, corpus) = corpus();
        let out = tempfile::tempdir().unwrap();
        let hit = case("s2.txt", "r2.txt", 0);
        write_detections(out.path(), "s2.txt", "r2.txt", std::slice::from_ref(&hit)).unwrap();
        // A false positive in the no-plagiarism subset.
        write_detections(out.path(), "s1.txt", "r1.txt", &[case("s1.txt", "r1.txt", 0)]).unwrap();
        // A pair no subset lists: counted, not scored.
        write_detections(out.path(), "s9.txt", "r9.txt", &[case("s9.txt", "r9.txt", 0)]).unwrap();
        let report = score_dir(&corpus, out.path()).unwrap();
        assert_eq!(report.detection_files, 3);
        assert_eq!(report.unlisted_files, 1);
        assert_eq!(report.unlisted_detections, 1);
        let none = report.get("01-none").unwrap();
        assert_eq!((none.cases, none.detections, none.plagdet), (0, 1, 0.0));
        let some = report.get("02-some").unwrap();
        assert_eq!((some.cases, some.detections, some.plagdet), (1, 1, 1.0));
        let entire = report.get(ENTIRE).unwrap();
        assert_eq!((entire.recall, entire.precision), (1.0, 0.5));
        assert_eq!(report.subsets[1].pairs, 2);
        assert!(report.to_string().contains("entire"));
        // Three detections over three suspects, one source each: nothing claimed twice.
        assert_eq!((report.claimed_chars, report.multi_claimed_chars), (30, 0));
    }

    #[test]
    fn empty_output_dir() {
        let (_keep, corpus) = corpus();
        let out = tempfile::tempdir().unwrap();
        let report = score_dir(&corpus, out.path()).unwrap();
        assert_eq!(report.get("01-none").unwrap().plagdet, 1.0);
        assert_eq!(report.get("02-some").unwrap().plagdet, 0.0);
        assert!(score_dir(&corpus, &out.path().join("missing")).is_err());
    }
}
