//! Tests on the real PAN 2013 training corpus; they skip (with a message) when the
//! data is absent (it may not be redistributed, so it is not in the repository).
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use tessera_eval::{Annotation, CharOffsets, ENTIRE, PanCorpus, read_detections, score, score_dir, write_detections};

fn corpus() -> Option<PanCorpus> {
    let Some(dir) = tessera_eval::eval_data_dir().map(|d| d.join("pan13-training")) else {
        eprintln!(
            "SKIPPED: evaluation data not found (set {} or put it in ../shared/eval)",
            tessera_eval::EVAL_DIR_VAR
        );
        return None;
    };
    if !dir.is_dir() {
        eprintln!("SKIPPED: {} not found", dir.display());
        return None;
    }
    Some(PanCorpus::open(&dir).expect("open PAN corpus"))
}

#[test]
fn layout_and_case_counts() {
    let Some(corpus) = corpus() else { return };
    assert_eq!(
        corpus.subsets,
        [
            "01-no-plagiarism",
            "02-no-obfuscation",
            "03-random-obfuscation",
            "04-translation-obfuscation",
            "05-summary-obfuscation",
        ]
    );
    assert_eq!(corpus.pairs.len(), 5185);
    let all_pairs = tessera_eval::read_pairs(&corpus.root.join("pairs")).unwrap();
    assert_eq!(all_pairs.len(), corpus.pairs.len());
    let expected_pairs = [1000, 1000, 1000, 1000, 1185];
    let expected_cases = [Some(0), Some(1252), Some(1267), Some(1250), None];
    for (i, subset) in corpus.subsets.iter().enumerate() {
        let pairs = corpus.pairs_of(subset);
        let cases = corpus.cases(subset).unwrap();
        println!("{subset}: {} pairs, {} cases", pairs.len(), cases.len());
        assert_eq!(pairs.len(), expected_pairs[i], "{subset}");
        if let Some(n) = expected_cases[i] {
            assert_eq!(cases.len(), n, "{subset}");
        }
        // One XML file per listed pair, named like the pair.
        for pair in pairs {
            let path = corpus.root.join(subset).join(pair.file_name());
            assert!(path.is_file(), "{}", path.display());
        }
        // Every case belongs to a pair of its subset and lies inside its documents.
        let listed: std::collections::HashSet<_> =
            corpus.pairs_of(subset).into_iter().map(|p| (p.suspicious.clone(), p.source.clone())).collect();
        for c in &cases {
            assert!(listed.contains(&(c.suspicious.clone(), c.source.clone())), "{c:?}");
            assert!(c.this_length > 0 && c.source_length > 0, "{c:?}");
        }
    }
    // About 20% of the summary pairs hold a case.
    let summary = corpus.cases("05-summary-obfuscation").unwrap().len();
    assert!((150..=400).contains(&summary), "{summary}");
}

#[test]
fn ground_truth_scores_one_against_itself() {
    let Some(corpus) = corpus() else { return };
    for subset in &corpus.subsets {
        let cases = corpus.cases(subset).unwrap();
        let s = score(&cases, &cases);
        println!("{subset}: {s:?}");
        assert_eq!(s.plagdet, 1.0, "{subset}: {s:?}");
        assert_eq!(s.granularity, 1.0, "{subset}");
    }
}

#[test]
fn score_dir_of_ground_truth_written_as_detections() {
    let Some(corpus) = corpus() else { return };
    let out = tempfile::tempdir().unwrap();
    let mut by_pair: BTreeMap<(String, String), Vec<Annotation>> = BTreeMap::new();
    for subset in &corpus.subsets {
        for c in corpus.cases(subset).unwrap() {
            by_pair.entry((c.suspicious.clone(), c.source.clone())).or_default().push(c);
        }
    }
    for ((susp, src), dets) in &by_pair {
        write_detections(out.path(), susp, src, dets).unwrap();
    }
    // A detection for a pair no subset lists: counted, not scored.
    let stray = Annotation {
        suspicious: "suspicious-document99999.txt".into(),
        source: "source-document99999.txt".into(),
        this_offset: 0,
        this_length: 10,
        source_offset: 0,
        source_length: 10,
    };
    write_detections(out.path(), &stray.suspicious, &stray.source, std::slice::from_ref(&stray)).unwrap();
    let report = score_dir(&corpus, out.path()).unwrap();
    println!("{report}");
    for row in &report.subsets {
        assert_eq!(row.scores.plagdet, 1.0, "{}: {:?}", row.subset, row.scores);
    }
    assert_eq!(report.get(ENTIRE).unwrap().plagdet, 1.0);
    assert_eq!(report.detection_files, by_pair.len() + 1);
    assert_eq!(report.unlisted_files, 1);
    assert_eq!(report.unlisted_detections, 1);

    // Files written by write_detections read back identically.
    let ((susp, src), dets) = by_pair.iter().next().unwrap();
    let path = out.path().join(tessera_eval::pair_file_name(susp, src));
    assert_eq!(&read_detections(&path).unwrap(), dets);

    // No detections at all: only the no-plagiarism subset scores 1.
    let empty = tempfile::tempdir().unwrap();
    let report = score_dir(&corpus, empty.path()).unwrap();
    assert_eq!(report.get("01-no-plagiarism").unwrap().plagdet, 1.0);
    assert_eq!(report.get("02-no-obfuscation").unwrap().plagdet, 0.0);
}

/// Offsets count characters: verbatim cases match their source once whitespace is
/// collapsed.
#[test]
fn verbatim_cases_match_in_characters() {
    let Some(corpus) = corpus() else { return };
    let cases = corpus.cases("02-no-obfuscation").unwrap();
    let collapse = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let passage = |path: PathBuf, offset: u64, length: u64| {
        let text = std::fs::read_to_string(&path).unwrap();
        let chars = CharOffsets::new(&text);
        assert!(offset + length <= chars.char_len(), "{}", path.display());
        text.chars().skip(offset as usize).take(length as usize).collect::<String>()
    };
    let mut matched = 0;
    let sample: Vec<&Annotation> = cases.iter().step_by(25).collect();
    for c in &sample {
        let susp = passage(corpus.suspicious_path(&c.suspicious), c.this_offset, c.this_length);
        let src = passage(corpus.source_path(&c.source), c.source_offset, c.source_length);
        if collapse(&susp) == collapse(&src) {
            matched += 1;
        }
    }
    println!("{matched} of {} sampled verbatim cases match", sample.len());
    assert!(matched * 10 >= sample.len() * 9, "{matched}/{}", sample.len());
}
