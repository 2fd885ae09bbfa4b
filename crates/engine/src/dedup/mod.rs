//! Collection dedup: near-duplicate clusters of a set of documents, with no index.
//!
//! The [`Deduplicator`] holds every rule (settings and their valid ranges, how a text is
//! sketched, the LSH bands, SimHash weights, verification and clustering) so that
//! `tessera dedup`, the Python package and the Spark job give the same answer for the
//! same input. Surfaces only read their inputs and write the [`DedupLine`]s.

use std::path::Path;

use rayon::prelude::*;
use tessera_extract::ExtractConfig;
use tessera_near::{Clustering, Idf, Signature};

use crate::{Error, FingerprintSettings, Fingerprinter, Fingerprinters, Result, SketchInput};

mod hashed;
mod plan;

pub use hashed::{exact_key, line_keys, lines_outcome, remove_lines};
pub use plan::MinHashPlan;

use hashed::{cluster_exact_keys, line_chars, lines_verdict};

/// How documents are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DedupMethod {
    /// MinHash signatures, LSH bands, Jaccard similarity of shingle sets.
    #[default]
    Minhash,
    /// 64-bit SimHash with tf-idf weights, permuted tables, Hamming distance.
    Simhash,
    /// Identical texts (after [`exact_key`]'s whitespace rule): the first is kept.
    Exact,
    /// Lines (paragraphs) seen in an earlier document are removed from later ones
    /// (boilerplate: menus, notices, signatures), by [`line_keys`]'s rule; a document left
    /// with no line is removed.
    Lines,
}

impl DedupMethod {
    /// Every method, in the order the help lists them.
    pub const ALL: [DedupMethod; 4] =
        [DedupMethod::Minhash, DedupMethod::Simhash, DedupMethod::Exact, DedupMethod::Lines];

    /// The method's name on every surface (`--method`, Python's `method=`, JSON).
    pub fn name(self) -> &'static str {
        match self {
            DedupMethod::Minhash => "minhash",
            DedupMethod::Simhash => "simhash",
            DedupMethod::Exact => "exact",
            DedupMethod::Lines => "lines",
        }
    }
}

impl std::fmt::Display for DedupMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for DedupMethod {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Self::ALL.into_iter().find(|m| m.name() == s).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|m| m.name()).collect();
            Error::Settings(format!("method must be one of {}, got {s:?}", names.join(", ")))
        })
    }
}

/// Settings of a dedup run (plain data; checked by [`Deduplicator::new`]); the default
/// is [`crate::dedup_defaults`]'s values.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct DedupConfig {
    /// How documents are compared.
    pub method: DedupMethod,
    /// MinHash: the Jaccard similarity of the shingle sets at which two documents are
    /// near-duplicates, strictly between 0 and 1.
    pub threshold: f64,
    /// SimHash: the largest Hamming distance between near-duplicates (at most 8).
    pub max_distance: u32,
    /// MinHash: hash functions per signature.
    pub num_perm: usize,
    /// MinHash: seed of the hash functions.
    pub seed: u64,
    /// MinHash: how candidates are verified.
    pub verify: Verify,
    /// MinHash, [`Verify::Auto`]: the most bytes of shingle sets kept for exact
    /// verification; beyond it, the run verifies with the signatures' estimate.
    pub exact_budget: usize,
    /// Texts with fewer terms than this are shingled cyclically (seed 004).
    pub short_words: usize,
    /// How texts become terms and shingles.
    pub fingerprint: FingerprintSettings,
}

impl Default for DedupConfig {
    fn default() -> Self {
        use crate::dedup_defaults as d;
        let mut fingerprint = FingerprintSettings::default();
        fingerprint.shingles.size = d::SHINGLE_SIZE;
        fingerprint.normalizer.stop_words = d::STOP_WORDS;
        fingerprint.normalizer.stemming = d::STEMMING;
        Self {
            method: d::METHOD,
            threshold: d::THRESHOLD,
            max_distance: d::MAX_DISTANCE,
            num_perm: d::NUM_PERM,
            seed: d::SEED,
            verify: d::VERIFY,
            exact_budget: d::EXACT_BUDGET,
            short_words: d::SHORT_WORDS,
            fingerprint,
        }
    }
}

/// How MinHash candidates (documents sharing an LSH band) are verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verify {
    /// Exact while the shingle sets fit [`DedupConfig::exact_budget`], else the estimate.
    #[default]
    Auto,
    /// The exact Jaccard similarity of the shingle sets (kept in memory, 8 bytes per
    /// distinct shingle), whatever memory it takes.
    Exact,
    /// The signatures' estimate (the share of equal values; its standard deviation is
    /// `sqrt(J (1 - J) / num_perm)`, 0.044 at J = 0.5 with 128 functions).
    Estimate,
}

/// How a run verified its candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verified {
    /// With the exact similarity of the shingle sets.
    Exact,
    /// With the signatures' estimate.
    Estimate,
}

/// LSH bands are chosen so that a pair this far above the threshold is a candidate with
/// probability [`CANDIDATE_RECALL`] (candidates are verified, so a false one costs a
/// comparison while a missed one is a duplicate kept).
pub const RECALL_MARGIN: f64 = 0.03;
/// See [`RECALL_MARGIN`].
pub const CANDIDATE_RECALL: f64 = 0.995;

/// One document's answer.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DedupLine {
    /// The document's id.
    pub id: String,
    /// The id of the document its cluster keeps.
    pub cluster: String,
    /// Whether this is the kept document.
    pub kept: bool,
    /// Its similarity to the kept document (1 for the kept one), rounded to 4 digits.
    /// [`DedupMethod::Lines`]: the share of its characters in removed lines.
    pub similarity: f64,
    /// [`DedupMethod::Lines`]: the lines removed (0-based, ascending, as [`line_keys`]
    /// counts them); [`remove_lines`] gives the text that remains.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub removed_lines: Vec<u32>,
}

/// What a dedup run found.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DedupSummary {
    /// Documents sketched.
    pub documents: usize,
    /// Clusters (a document alone is a cluster).
    pub clusters: usize,
    /// Documents not kept.
    pub duplicates_removed: usize,
    /// Documents that could not be read.
    pub failed: usize,
    /// The method.
    pub method: DedupMethod,
    /// MinHash: how candidates were verified.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verified: Option<Verified>,
    /// MinHash: LSH bands.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bands: Option<usize>,
    /// MinHash: rows per band.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<usize>,
    /// Lines: lines removed in all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines_removed: Option<u64>,
}

/// The answer of a dedup run: one line per document, in input order.
#[derive(Debug, Clone)]
pub struct DedupResult {
    /// One line per document sketched, in the order they were given.
    pub lines: Vec<DedupLine>,
    /// Inputs that failed, with the reason.
    pub failed: Vec<(String, String)>,
    /// The totals.
    pub summary: DedupSummary,
}

/// What is kept of a document between sketching and clustering.
#[derive(Debug, Clone)]
pub(crate) enum Sketch {
    MinHash {
        signature: Signature,
        set: Vec<u64>,
    },
    SimHash {
        tf: Vec<(u64, u32)>,
    },
    Exact {
        key: u128,
    },
    /// The line keys and each line's length in characters (with its line break).
    Lines {
        keys: Vec<Option<u64>>,
        chars: Vec<u32>,
    },
}

pub(crate) fn check_threshold(threshold: f64) -> Result<()> {
    if threshold > 0.0 && threshold < 1.0 {
        Ok(())
    } else {
        Err(Error::Settings(format!("threshold must be strictly between 0 and 1, got {threshold}")))
    }
}

/// Similarities are given to 4 decimals, so that outputs compare equal across machines.
pub(crate) fn round_similarity(s: f64) -> f64 {
    (s * 1e4).round() / 1e4
}

/// Near-duplicate clusters of documents given in batches (texts or files); memory holds
/// one sketch per document, not the texts.
#[derive(Debug)]
pub struct Deduplicator {
    config: DedupConfig,
    extract: ExtractConfig,
    method: Method,
    ids: Vec<String>,
    sketches: Vec<Sketch>,
    failed: Vec<(String, String)>,
    /// Shingle sets are kept (exact verification, within the budget for `Auto`).
    keep_sets: bool,
    set_bytes: usize,
}

/// The method's state: MinHash's plan (which holds the fingerprinters), or SimHash's
/// fingerprinters.
// One per run: the size of the larger variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
enum Method {
    MinHash(MinHashPlan),
    SimHash(Fingerprinters),
    /// Exact and lines compare hashes of the text itself: no fingerprinter.
    Hashes,
}

impl Deduplicator {
    /// Checks the settings once; files are extracted with `extract`.
    pub fn new(config: DedupConfig, extract: ExtractConfig) -> Result<Self> {
        let method = match config.method {
            DedupMethod::Minhash => Method::MinHash(MinHashPlan::new(&config)?),
            DedupMethod::Simhash => {
                if config.max_distance > tessera_near::MAX_DISTANCE {
                    return Err(Error::Settings(format!(
                        "max_distance (SimHash) must be at most {}, got {}",
                        tessera_near::MAX_DISTANCE,
                        config.max_distance
                    )));
                }
                Method::SimHash(Fingerprinters::new(Fingerprinter::new(&config.fingerprint)?))
            }
            DedupMethod::Exact | DedupMethod::Lines => Method::Hashes,
        };
        let keep_sets = config.method == DedupMethod::Minhash && config.verify != Verify::Estimate;
        Ok(Self {
            config,
            extract,
            method,
            ids: Vec::new(),
            sketches: Vec::new(),
            failed: Vec::new(),
            keep_sets,
            set_bytes: 0,
        })
    }

    /// The settings.
    pub fn config(&self) -> &DedupConfig {
        &self.config
    }

    fn plan(&self) -> Option<&MinHashPlan> {
        match &self.method {
            Method::MinHash(plan) => Some(plan),
            Method::SimHash(_) | Method::Hashes => None,
        }
    }

    /// The LSH bands and rows (MinHash).
    pub fn lsh(&self) -> Option<(usize, usize)> {
        self.plan().map(|p| (p.bands(), p.rows()))
    }

    /// Documents sketched so far.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no document was sketched yet.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    fn sketch(&self, text: &str) -> Sketch {
        let input = |fp: &Fingerprinters| fp.with(|fp| fp.sketch_input(text, self.config.short_words));
        match &self.method {
            Method::MinHash(plan) => {
                let SketchInput { shingles, .. } = input(&plan.fingerprinters);
                Sketch::MinHash {
                    signature: plan.hasher.sign(&shingles),
                    // Kept as they come: only documents that turn out to be candidates
                    // are sorted into sets, when the run finishes.
                    set: if self.keep_sets { shingles } else { Vec::new() },
                }
            }
            Method::SimHash(fingerprinters) => {
                Sketch::SimHash { tf: tessera_near::term_frequencies(&input(fingerprinters).terms) }
            }
            Method::Hashes if self.config.method == DedupMethod::Exact => Sketch::Exact { key: exact_key(text) },
            Method::Hashes => Sketch::Lines { keys: line_keys(text), chars: line_chars(text) },
        }
    }

    /// Sketches a batch of `(id, text)` in parallel, in order.
    pub fn add_texts(&mut self, batch: &[(String, String)]) {
        let sketches: Vec<Sketch> = batch.par_iter().map(|(_, text)| self.sketch(text)).collect();
        for ((id, _), s) in batch.iter().zip(sketches) {
            self.push(id.clone(), s);
        }
    }

    /// Keeps a document's sketch; [`Verify::Auto`] drops every shingle set (and
    /// verifies with the estimate) once they would exceed the budget.
    fn push(&mut self, id: String, sketch: Sketch) {
        if let Sketch::MinHash { set, .. } = &sketch {
            self.set_bytes += set.len() * std::mem::size_of::<u64>();
        }
        self.ids.push(id);
        self.sketches.push(sketch);
        if self.keep_sets && self.config.verify == Verify::Auto && self.set_bytes > self.config.exact_budget {
            self.keep_sets = false;
            for s in &mut self.sketches {
                if let Sketch::MinHash { set, .. } = s {
                    *set = Vec::new();
                }
            }
        }
    }

    /// Extracts and sketches a batch of files in parallel, in order (the id is the path);
    /// a file that cannot be read is listed with the reason, by name.
    pub fn add_files(&mut self, batch: &[impl AsRef<Path> + Sync]) {
        let done: Vec<Result<Sketch>> = batch
            .par_iter()
            .map(|path| {
                let extracted = tessera_extract::extract_path(path.as_ref(), &self.extract)?;
                Ok(self.sketch(&extracted.text))
            })
            .collect();
        for (path, result) in batch.iter().zip(done) {
            let id = path.as_ref().display().to_string();
            match result {
                Ok(s) => self.push(id, s),
                Err(e) => self.failed.push((id, crate::describe_error(&e))),
            }
        }
    }

    /// MinHash: every document's id and signature so far, in order (none with SimHash,
    /// whose fingerprints depend on the whole collection's term weights).
    pub fn signatures(&self) -> impl Iterator<Item = (&str, &Signature)> {
        self.ids.iter().zip(&self.sketches).filter_map(|(id, s)| match s {
            Sketch::MinHash { signature, .. } => Some((id.as_str(), signature)),
            _ => None,
        })
    }

    /// Records an input that could not be read (a bad record of a JSONL file).
    pub fn add_failure(&mut self, name: String, reason: String) {
        self.failed.push((name, reason));
    }

    /// Clusters everything sketched: each document is checked against its cluster's
    /// kept document (no chaining), so the answer does not depend on thread count.
    pub fn finish(mut self) -> Result<DedupResult> {
        let near = |e: tessera_near::Error| Error::Settings(e.to_string());
        let clustering = match &self.method {
            Method::MinHash(plan) => cluster_minhash(plan, &mut self.sketches, self.keep_sets),
            Method::SimHash(_) => self.cluster_simhash().map_err(near)?,
            Method::Hashes if self.config.method == DedupMethod::Exact => cluster_exact_keys(&self.sketches),
            Method::Hashes => return Ok(self.finish_lines()),
        };
        let plan = self.plan();
        let lines = self
            .ids
            .iter()
            .enumerate()
            .map(|(i, id)| {
                let kept = clustering.kept[i] as usize;
                DedupLine {
                    id: id.clone(),
                    cluster: self.ids[kept].clone(),
                    kept: kept == i,
                    similarity: round_similarity(clustering.similarity[i]),
                    removed_lines: Vec::new(),
                }
            })
            .collect();
        let summary = DedupSummary {
            documents: self.ids.len(),
            clusters: clustering.clusters(),
            duplicates_removed: clustering.duplicates(),
            failed: self.failed.len(),
            method: self.config.method,
            verified: plan.map(|_| if self.keep_sets { Verified::Exact } else { Verified::Estimate }),
            bands: plan.map(MinHashPlan::bands),
            rows: plan.map(MinHashPlan::rows),
            lines_removed: None,
        };
        Ok(DedupResult { lines, failed: self.failed, summary })
    }

    /// [`DedupMethod::Lines`]: in document order, a line whose key an earlier document
    /// had is removed (repeats inside one document stay: they are its own). Each document
    /// is its own cluster; one left without a non-blank line is not kept. The similarity
    /// is the share of its characters in removed lines.
    fn finish_lines(self) -> DedupResult {
        let mut seen: std::collections::HashSet<u64> = std::collections::HashSet::new();
        let mut lines = Vec::with_capacity(self.ids.len());
        let mut lines_removed = 0u64;
        for (id, sketch) in self.ids.into_iter().zip(&self.sketches) {
            let Sketch::Lines { keys, chars } = sketch else { unreachable!("a lines run sketches lines") };
            let removed: Vec<u32> = keys
                .iter()
                .enumerate()
                .filter(|(_, k)| k.is_some_and(|k| seen.contains(&k)))
                .map(|(line, _)| line as u32)
                .collect();
            seen.extend(keys.iter().flatten().copied());
            let (kept, similarity) = lines_verdict(keys, chars, &removed);
            lines_removed += removed.len() as u64;
            lines.push(DedupLine { cluster: id.clone(), id, kept, similarity, removed_lines: removed });
        }
        let removed = lines.iter().filter(|l| !l.kept).count();
        let summary = DedupSummary {
            documents: lines.len(),
            clusters: lines.len() - removed,
            duplicates_removed: removed,
            failed: self.failed.len(),
            method: DedupMethod::Lines,
            verified: None,
            bands: None,
            rows: None,
            lines_removed: Some(lines_removed),
        };
        DedupResult { lines, failed: self.failed, summary }
    }

    fn cluster_simhash(&self) -> std::result::Result<Clustering, tessera_near::Error> {
        let tfs: Vec<&[(u64, u32)]> = self
            .sketches
            .iter()
            .filter_map(|s| match s {
                Sketch::SimHash { tf } => Some(tf.as_slice()),
                _ => None,
            })
            .collect();
        let idf = tfs
            .par_iter()
            .fold(Idf::new, |mut idf, tf| {
                idf.add_document(&tf.iter().map(|t| t.0).collect::<Vec<_>>());
                idf
            })
            .reduce(Idf::new, |mut a, b| {
                a.merge(b);
                a
            });
        let fps: Vec<Option<u64>> = tfs
            .par_iter()
            .map(|tf| {
                (!tf.is_empty()).then(|| {
                    let weighted: Vec<(u64, f64)> = tf.iter().map(|&(f, n)| (f, f64::from(n) * idf.idf(f))).collect();
                    tessera_near::simhash_weighted(&weighted)
                })
            })
            .collect();
        tessera_near::cluster_simhash(&fps, self.config.max_distance)
    }
}

/// MinHash clusters of the sketches: candidates from the LSH bands, verified exactly
/// (`keep_sets`: the shingles of candidates become sorted sets) or by the estimate.
fn cluster_minhash(plan: &MinHashPlan, sketches: &mut [Sketch], keep_sets: bool) -> Clustering {
    let signatures: Vec<Signature> = sketches
        .iter()
        .filter_map(|s| match s {
            Sketch::MinHash { signature, .. } => Some(signature.clone()),
            _ => None,
        })
        .collect();
    let pairs = tessera_near::candidate_pairs(&signatures, plan.params);
    if !keep_sets {
        return plan.cluster_signatures(&signatures, &pairs);
    }
    // The shingles of candidates become sorted sets; the others are dropped.
    let mut candidate = vec![false; signatures.len()];
    for &(a, b) in &pairs {
        candidate[a as usize] = true;
        candidate[b as usize] = true;
    }
    sketches.par_iter_mut().zip(candidate).for_each(|(s, is_candidate)| {
        if let Sketch::MinHash { set, .. } = s {
            if is_candidate {
                set.sort_unstable();
                set.dedup();
            } else {
                *set = Vec::new();
            }
        }
    });
    let sets: Vec<&[u64]> = sketches
        .iter()
        .filter_map(|s| match s {
            Sketch::MinHash { set, .. } => Some(set.as_slice()),
            _ => None,
        })
        .collect();
    plan.cluster_exact(&sets, &pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(seed: u64, n: usize) -> String {
        tessera_test_support::words::text(seed, n, 3, 6)
    }

    #[test]
    fn copies_cluster_and_the_first_is_kept_in_both_methods() {
        let a = text(1, 300);
        let b = text(2, 300);
        let batch =
            [("a".to_owned(), a.clone()), ("b".to_owned(), b), ("a2".to_owned(), format!("{a} extra words here"))];
        for method in [DedupMethod::Minhash, DedupMethod::Simhash] {
            for verify in [Verify::Auto, Verify::Exact, Verify::Estimate] {
                let config = DedupConfig { method, verify, threshold: 0.7, ..DedupConfig::default() };
                let mut d = Deduplicator::new(config, ExtractConfig::default()).unwrap();
                d.add_texts(&batch[..1]);
                d.add_texts(&batch[1..]);
                let result = d.finish().unwrap();
                let clusters: Vec<(&str, &str, bool)> =
                    result.lines.iter().map(|l| (l.id.as_str(), l.cluster.as_str(), l.kept)).collect();
                assert_eq!(clusters, [("a", "a", true), ("b", "b", true), ("a2", "a", false)], "{method:?} {verify:?}");
                assert_eq!(result.summary.duplicates_removed, 1);
                assert!(result.lines[2].similarity > 0.7 || method == DedupMethod::Simhash);
            }
        }
    }

    #[test]
    fn method_names_read_back() {
        for m in DedupMethod::ALL {
            assert_eq!(m.name().parse::<DedupMethod>().unwrap(), m);
            assert_eq!(serde_json::to_value(m).unwrap(), m.name());
        }
        assert!("minhash2".parse::<DedupMethod>().is_err());
    }

    #[test]
    fn auto_verification_falls_back_to_the_estimate_beyond_its_budget() {
        let batch: Vec<(String, String)> = (0..20).map(|i| (i.to_string(), text(i, 200))).collect();
        for (budget, verified) in [(1 << 20, Verified::Exact), (20_000, Verified::Estimate)] {
            let config = DedupConfig { exact_budget: budget, ..DedupConfig::default() };
            let mut d = Deduplicator::new(config, ExtractConfig::default()).unwrap();
            d.add_texts(&batch);
            assert_eq!(d.finish().unwrap().summary.verified, Some(verified), "{budget}");
        }
        // Exact keeps its sets whatever they take.
        let config = DedupConfig { exact_budget: 0, verify: Verify::Exact, ..DedupConfig::default() };
        let mut d = Deduplicator::new(config, ExtractConfig::default()).unwrap();
        d.add_texts(&batch);
        assert_eq!(d.finish().unwrap().summary.verified, Some(Verified::Exact));
    }

    #[test]
    fn settings_out_of_range_are_refused() {
        for threshold in [0.0, 1.0, -0.5, f64::NAN] {
            let config = DedupConfig { threshold, ..DedupConfig::default() };
            assert!(Deduplicator::new(config, ExtractConfig::default()).is_err(), "{threshold}");
        }
        let config = DedupConfig { method: DedupMethod::Simhash, max_distance: 9, ..DedupConfig::default() };
        assert!(Deduplicator::new(config, ExtractConfig::default()).is_err());
    }

    #[test]
    fn unreadable_files_are_listed_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.txt");
        std::fs::write(&good, text(3, 100)).unwrap();
        let missing = dir.path().join("missing.txt");
        let mut d = Deduplicator::new(DedupConfig::default(), ExtractConfig::default()).unwrap();
        d.add_files(&[good.clone(), missing.clone()]);
        let result = d.finish().unwrap();
        assert_eq!(result.lines.len(), 1);
        assert_eq!(result.failed.len(), 1);
        assert_eq!(result.failed[0].0, missing.display().to_string());
    }
}
