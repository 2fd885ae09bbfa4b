//! Scoring a detector's output against a whole corpus, per subset and overall.

use std::collections::{BTreeSet, HashMap, HashSet};
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
}

impl Report {
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
        write!(
            f,
            "{} detection files; {} not named for a listed pair; {} detections for unlisted pairs",
            self.detection_files, self.unlisted_files, self.unlisted_detections
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
    Ok(Report {
        subsets: rows,
        entire: score(&all_cases, &all_dets),
        detection_files: 0,
        unlisted_files: 0,
        unlisted_detections: unlisted.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xml::write_detections;

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
