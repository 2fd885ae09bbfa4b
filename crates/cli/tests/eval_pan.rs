//! `tessera eval pan` on a tiny hand-made corpus in the PAN text-alignment layout: one
//! suspect copies a passage of one source verbatim, the other copies nothing. The
//! ground truth is written here in PAN's XML, with offsets computed in characters (the
//! texts hold non-ASCII characters before the passage, so bytes would be wrong).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::Path;

use serde_json::Value;

mod support;

const SOURCE_1: &str = "\
Lighthouses of the Northern Coast — a short history

The first lights on this coast were open fires kept by monks and fishermen on the headlands. \
A traveller from Zürich who passed by in the winter of 1702 described them as naïve beacons, \
smoky and unreliable, that vanished whenever the wind turned.

Stone towers replaced the fires during the following century. Keepers climbed the spiral stairs \
every evening to trim the wicks, polish the brass reflectors and record the weather in a thick \
leather journal, and a single neglected lamp could send a whole merchant fleet onto the rocks. \
Families lived in cramped cottages beside the towers, growing potatoes in thin soil and waiting \
weeks for supply boats that often could not land.

Electric lamps and automatic clockwork finally made the keepers unnecessary. The last family left \
the island station in 1987, and today the light is monitored from an office on the mainland.
";

const SOURCE_2: &str = "\
On baking bread at home

Good bread needs little more than flour, water, salt and patience. A slow fermentation overnight \
in a cool kitchen develops flavour that no shortcut can imitate, and a hot oven with a tray of \
water on the lowest shelf gives the crust its shine. Bakers in every café of the old town still \
argue about whether rye or wheat makes the better loaf.
";

const SOURCE_3: &str = "\
Glaciers in retreat

Mountain glaciers have been shrinking for more than a century. Meltwater feeds rivers during dry \
summers, so the loss of ice threatens farms and towns far downstream. Researchers measure the \
retreat with stakes drilled into the ice and with photographs taken from the same viewpoints \
every year.
";

/// The copied passage: whole sentences, from a word that is neither a stop word nor
/// shared with the surrounding text to a full stop, so a perfect detection is exactly
/// this span.
const PASSAGE_START: &str = "Keepers climbed";
const PASSAGE_END: &str = "could not land.";

const SUSPECT_2: &str = "\
Notes on opening theory in chess

Beginners often memorise long sequences of moves without understanding the plans behind them. \
A better approach is to study a handful of typical pawn structures, learn where the pieces belong \
in each, and let the concrete moves follow from those ideas.
";

fn suspect_1(passage: &str) -> String {
    format!(
        "Coastal life in the old days — an essay\n\n\
         My grandmother's village lay on a windy bay where everyone depended on the sea. She often \
         told me about the lighthouse on the point and the people who tended it.\n\n\
         {passage}\n\n\
         Those stories taught me how much a small community relied on a few dedicated people, \
         and how quickly such work disappears once machines take over.\n"
    )
}

/// Character offset of byte offset `byte` of `text`.
fn chars(text: &str, byte: usize) -> usize {
    text[..byte].chars().count()
}

struct Corpus {
    _tmp: tempfile::TempDir,
    root: std::path::PathBuf,
    /// (this_offset, this_length, source_offset, source_length) of the one case.
    case: (usize, usize, usize, usize),
}

fn corpus() -> Corpus {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("pan");
    for dir in ["src", "susp", "01-no-plagiarism", "02-no-obfuscation"] {
        fs::create_dir_all(root.join(dir)).unwrap();
    }
    let start = SOURCE_1.find(PASSAGE_START).unwrap();
    let end = SOURCE_1.find(PASSAGE_END).unwrap() + PASSAGE_END.len();
    let passage = &SOURCE_1[start..end];
    assert!(passage.chars().count() > 200, "the passage is long enough to be a PAN case");
    let susp1 = suspect_1(passage);
    let at = susp1.find(passage).unwrap();
    // Non-ASCII before the passage on both sides: characters and bytes differ.
    assert_ne!(chars(&susp1, at), at);
    assert_ne!(chars(SOURCE_1, start), start);
    let case = (chars(&susp1, at), passage.chars().count(), chars(SOURCE_1, start), passage.chars().count());

    let write = |path: &str, text: &str| fs::write(root.join(path), text).unwrap();
    write("src/source-document00001.txt", SOURCE_1);
    write("src/source-document00002.txt", SOURCE_2);
    write("src/source-document00003.txt", SOURCE_3);
    write("susp/suspicious-document00001.txt", &susp1);
    write("susp/suspicious-document00002.txt", SUSPECT_2);
    write(
        "pairs",
        "suspicious-document00001.txt source-document00001.txt\n\
         suspicious-document00002.txt source-document00002.txt\n",
    );
    write("01-no-plagiarism/pairs", "suspicious-document00002.txt source-document00002.txt\n");
    write("02-no-obfuscation/pairs", "suspicious-document00001.txt source-document00001.txt\n");
    write(
        "02-no-obfuscation/suspicious-document00001-source-document00001.xml",
        &format!(
            "<document reference=\"suspicious-document00001.txt\">\n\
             <feature name=\"plagiarism\" obfuscation=\"none\" source_length=\"{}\" source_offset=\"{}\" \
             source_reference=\"source-document00001.txt\" this_length=\"{}\" this_offset=\"{}\" type=\"artificial\" />\n\
             </document>\n",
            case.3, case.2, case.1, case.0
        ),
    );
    Corpus { _tmp: tmp, root, case }
}

fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    support::run(dir, args).into_parts()
}

fn subset<'a>(scores: &'a Value, name: &str) -> &'a Value {
    scores["scores"]["subsets"].as_array().unwrap().iter().find(|s| s["subset"] == name).map(|s| &s["scores"]).unwrap()
}

/// A second source with the listed source's text, older (it sorts first, so it gets the
/// smaller id and wins the tie): the revision credits it, an unlisted pair, and the listed
/// source is found as its copy. The scores credit what the revision credits; the figures
/// with copies tell what a reader of every source's "also in" sees.
#[test]
fn a_case_credited_to_a_twin_source_is_found_among_its_copies() {
    let c = corpus();
    fs::write(c.root.join("src/source-document00000.txt"), SOURCE_1).unwrap();
    let dir = c.root.parent().unwrap();
    let (code, stdout, stderr) = run(dir, &["eval", "pan", "--corpus", "pan", "--out", "out", "--format", "json"]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let scores: Value = serde_json::from_str(&fs::read_to_string(dir.join("out/scores.json")).unwrap()).unwrap();
    assert_eq!(subset(&scores, "02-no-obfuscation")["recall"], 0.0, "{scores:#}");
    assert_eq!(scores["scores"]["unlisted_detections"], 1, "{scores:#}");
    assert_eq!(scores["timings"]["copy_detections"], 1, "{scores:#}");
    assert!(scores["timings"]["recall_with_copies"].as_f64().unwrap() > 0.99, "{scores:#}");
    let copies = fs::read_to_string(dir.join("out/copies.jsonl")).unwrap();
    let copy: Value = serde_json::from_str(copies.trim()).unwrap();
    assert_eq!(copy["source"], "source-document00001.txt", "{copies}");
    assert_eq!(copy["this_offset"].as_u64(), Some(c.case.0 as u64), "{copies}");

    // `--max-copies 0` finds none, and credits the same.
    let (code, stdout, stderr) =
        run(dir, &["eval", "pan", "--corpus", "pan", "--out", "out0", "--index", "out/index", "--max-copies", "0"]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let none: Value = serde_json::from_str(&fs::read_to_string(dir.join("out0/scores.json")).unwrap()).unwrap();
    assert_eq!(none["timings"]["copy_detections"], 0, "{none:#}");
    assert_eq!(none["scores"], scores["scores"]);
    assert_eq!(fs::read_to_string(dir.join("out0/copies.jsonl")).unwrap(), "");
}

#[test]
fn verbatim_copy_scores_plagdet_one() {
    let c = corpus();
    let dir = c.root.parent().unwrap();
    let (code, stdout, stderr) = run(dir, &["eval", "pan", "--corpus", "pan", "--out", "out"]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("02-no-obfuscation"), "{stdout}");
    assert!(stderr.contains("indexed 3 sources"), "{stderr}");

    let scores: Value = serde_json::from_str(&fs::read_to_string(dir.join("out/scores.json")).unwrap()).unwrap();
    let verbatim = subset(&scores, "02-no-obfuscation");
    assert_eq!(verbatim["cases"], 1, "{scores:#}");
    assert_eq!(verbatim["detections"], 1, "{scores:#}");
    assert!(verbatim["plagdet"].as_f64().unwrap() > 0.99, "{scores:#}");
    assert!(verbatim["recall"].as_f64().unwrap() > 0.99, "{scores:#}");
    assert!(verbatim["precision"].as_f64().unwrap() > 0.99, "{scores:#}");
    assert_eq!(verbatim["granularity"], 1.0);
    // Nothing copied, nothing detected: PAN scores an empty subset 1.
    let clean = subset(&scores, "01-no-plagiarism");
    assert_eq!((clean["cases"].as_u64(), clean["detections"].as_u64()), (Some(0), Some(0)), "{scores:#}");
    assert!(scores["scores"]["entire"]["plagdet"].as_f64().unwrap() > 0.99, "{scores:#}");
    assert_eq!(scores["scores"]["unlisted_detections"], 0);
    // The one detection's characters, claimed by one source.
    assert_eq!(scores["scores"]["claimed_chars"].as_u64(), Some(c.case.1 as u64), "{scores:#}");
    assert_eq!(scores["scores"]["multi_claimed_chars"], 0);
    assert_eq!(scores["timings"]["copy_detections"], 0, "{scores:#}");

    // The detection itself, in characters, is the case.
    let det = dir.join("out/detections/suspicious-document00001-source-document00001.xml");
    let dets = tessera_eval::read_detections(&det).unwrap();
    assert_eq!(dets.len(), 1, "{dets:?}");
    let d = &dets[0];
    assert_eq!(
        (d.this_offset, d.this_length, d.source_offset, d.source_length),
        (c.case.0 as u64, c.case.1 as u64, c.case.2 as u64, c.case.3 as u64)
    );
    assert_eq!(fs::read_dir(dir.join("out/detections")).unwrap().count(), 1, "no detections for the clean suspect");

    // Again with the index of the first run (--index) and JSON on stdout: the same scores.
    let (code, stdout, stderr) =
        run(dir, &["eval", "pan", "--corpus", "pan", "--out", "out2", "--index", "out/index", "--format", "json"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("indexed"), "the sources are not indexed twice: {stderr}");
    let again: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(again["scores"], scores["scores"]);
}

#[test]
fn not_a_corpus() {
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join("empty")).unwrap();
    for corpus in ["missing", "empty"] {
        let (code, stdout, stderr) = run(tmp.path(), &["eval", "pan", "--corpus", corpus, "--out", "out"]);
        assert_eq!(code, Some(1), "{stderr}");
        assert_eq!(stdout, "");
        assert!(stderr.contains(&format!("opening {corpus}")), "{stderr}");
    }
    assert!(!tmp.path().join("out").exists(), "nothing written for a bad corpus");
}

#[test]
fn pairwise_align_and_eval() {
    let c = corpus();
    let dir = c.root.parent().unwrap();
    // `tessera align`: one XML per listed pair, the copied passage exactly, nothing for
    // the clean pair; no index.
    let (code, stdout, stderr) =
        run(dir, &["align", "--pairs", "pan/pairs", "--src", "pan/src", "--susp", "pan/susp", "--out", "aligned"]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stderr.contains("aligned 2 pairs"), "{stderr}");
    let dets =
        tessera_eval::read_detections(&dir.join("aligned/suspicious-document00001-source-document00001.xml")).unwrap();
    assert_eq!(dets.len(), 1, "{dets:?}");
    let d = &dets[0];
    assert_eq!(
        (d.this_offset, d.this_length, d.source_offset, d.source_length),
        (c.case.0 as u64, c.case.1 as u64, c.case.2 as u64, c.case.3 as u64)
    );
    let clean =
        tessera_eval::read_detections(&dir.join("aligned/suspicious-document00002-source-document00002.xml")).unwrap();
    assert!(clean.is_empty(), "{clean:?}");
    assert!(!dir.join("aligned/index").exists());

    // `eval pan --pairwise`: the same alignment, scored.
    let (code, stdout, stderr) = run(dir, &["eval", "pan", "--pairwise", "--corpus", "pan", "--out", "pw"]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let scores: Value = serde_json::from_str(&fs::read_to_string(dir.join("pw/scores.json")).unwrap()).unwrap();
    assert!(scores["scores"]["entire"]["plagdet"].as_f64().unwrap() > 0.99, "{scores:#}");
    assert_eq!(scores["timings"]["pairs"], 2);
    assert!(!dir.join("pw/index").exists(), "pairwise needs no index");

    // A pairs file naming a missing document: exit 1 naming it.
    fs::write(dir.join("bad-pairs"), "suspicious-document00009.txt source-document00001.txt\n").unwrap();
    let (code, _, stderr) =
        run(dir, &["align", "--pairs", "bad-pairs", "--src", "pan/src", "--susp", "pan/susp", "--out", "bad"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("suspicious-document00009.txt"), "{stderr}");
}
