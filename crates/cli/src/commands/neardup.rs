//! `tessera eval neardup`: how `tessera dedup` finds planted near-duplicates (real texts
//! and copies edited at known rates) at its threshold.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Args;
use rayon::prelude::*;
use serde::Serialize;
use tessera_engine::{DedupConfig, DedupMethod, Deduplicator, MinHashPlan, Verify};
use tessera_eval::{PlantedScores, ScoredPair, measure_planted, plant};

use crate::commands::CreateArgs;

/// Arguments of `tessera eval neardup`.
#[derive(Debug, Args)]
pub struct NeardupArgs {
    /// A folder of base texts (`.txt`, read in name order), e.g. the PAN sources.
    #[arg(long)]
    corpus: PathBuf,
    /// Base texts taken (each gets one copy per rate).
    #[arg(long, default_value_t = 300)]
    docs: usize,
    /// Edit rates of the copies (share of words replaced, deleted or inserted).
    #[arg(long, value_delimiter = ',', default_value = "0.02,0.05,0.08,0.1,0.12,0.15,0.2,0.3")]
    rates: Vec<f64>,
    /// Thresholds to run `tessera dedup` at (one run each).
    #[arg(long, value_delimiter = ',', default_value = "0.5,0.8")]
    threshold: Vec<f64>,
    /// Seed of the edits and of the order.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// MinHash: hash functions per signature.
    #[arg(long, default_value_t = 128)]
    num_perm: usize,
    /// Verify candidates with the signatures' estimate instead of exact shingle sets.
    #[arg(long)]
    estimate: bool,

    /// Also write the planted set here as JSONL (`{"id", "text"}`, in order), to run
    /// `tessera dedup` or another tool on it.
    #[arg(long, value_name = "FILE")]
    write_set: Option<PathBuf>,
    #[command(flatten)]
    create: CreateArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = crate::commands::Format::Text)]
    format: crate::commands::Format,
}

#[derive(Debug, Serialize)]
struct Run {
    #[serde(flatten)]
    scores: PlantedScores,
    documents: usize,
    bands: usize,
    rows: usize,
    dedup_seconds: f64,
}

pub fn run(args: &NeardupArgs) -> Result<ExitCode> {
    let mut files: Vec<PathBuf> = fs_err::read_dir(&args.corpus)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    files.truncate(args.docs);
    if files.is_empty() {
        bail!("{} holds no .txt file", args.corpus.display());
    }
    let bases: Vec<String> = files
        .iter()
        .map(|p| fs_err::read(p).map(|b| String::from_utf8_lossy(&b).into_owned()))
        .collect::<std::io::Result<_>>()?;
    let docs = plant(&bases, &args.rates, args.seed);
    let batch: Vec<(String, String)> = docs.iter().map(|d| (d.id.clone(), d.text.clone())).collect();
    if let Some(path) = &args.write_set {
        use std::io::Write;
        let mut out = std::io::BufWriter::new(fs_err::File::create(path)?);
        for (id, text) in &batch {
            serde_json::to_writer(&mut out, &serde_json::json!({ "id": id, "text": text }))?;
            out.write_all(b"\n")?;
        }
        out.flush().with_context(|| format!("writing {}", path.display()))?;
    }
    let mut runs = Vec::new();
    for &threshold in &args.threshold {
        let config = DedupConfig {
            method: DedupMethod::Minhash,
            threshold,
            num_perm: args.num_perm,
            verify: if args.estimate { Verify::Estimate } else { Verify::Exact },
            fingerprint: args.create.settings(),
            ..DedupConfig::default()
        };
        let started = Instant::now();
        let mut dedup = Deduplicator::new(config.clone(), crate::commands::extract_config())?;
        dedup.add_texts(&batch);
        let (bands, rows) = dedup.lsh().context("MinHash has bands")?;
        let result = dedup.finish()?;
        let dedup_seconds = started.elapsed().as_secs_f64();
        let position: std::collections::HashMap<&str, usize> =
            docs.iter().enumerate().map(|(i, d)| (d.id.as_str(), i)).collect();
        let cluster: Vec<usize> = result.lines.iter().map(|l| position[l.cluster.as_str()]).collect();
        // The exact similarity of every pair of one family or one cluster.
        let plan = MinHashPlan::new(&config)?;
        let sets: Vec<Vec<u64>> = docs.par_iter().map(|d| plan.shingle_set(&d.text)).collect();
        let mut wanted: Vec<(usize, usize)> = Vec::new();
        let mut groups: std::collections::BTreeMap<(bool, usize), Vec<usize>> = Default::default();
        for (i, d) in docs.iter().enumerate() {
            groups.entry((false, d.family)).or_default().push(i);
            groups.entry((true, cluster[i])).or_default().push(i);
        }
        for members in groups.values() {
            for (k, &a) in members.iter().enumerate() {
                wanted.extend(members[k + 1..].iter().map(|&b| (a.min(b), a.max(b))));
            }
        }
        wanted.sort_unstable();
        wanted.dedup();
        let pairs: Vec<ScoredPair> = wanted
            .par_iter()
            .map(|&(a, b)| ScoredPair { a, b, similarity: tessera_engine::sketch::jaccard(&sets[a], &sets[b]) })
            .collect();
        let scores = measure_planted(&docs, &cluster, &pairs, threshold);
        runs.push(Run { scores, documents: docs.len(), bands, rows, dedup_seconds });
    }
    match args.format {
        crate::commands::Format::Json => println!("{}", serde_json::to_string_pretty(&runs)?),
        _ => {
            for r in &runs {
                let s = &r.scores;
                println!(
                    "threshold {}: {} documents, {} bands of {} rows, dedup {:.2} s\n  pairs >= T+0.03: {}/{} in one cluster ({:.2} %); pairs >= T: {}/{}\n  false merges (a member < T-0.1 to its kept document): {}; merged below T: {}",
                    s.threshold,
                    r.documents,
                    r.bands,
                    r.rows,
                    r.dedup_seconds,
                    s.found_above,
                    s.pairs_above,
                    s.recall_above * 100.0,
                    s.found_at,
                    s.pairs_at,
                    s.false_merges,
                    s.merged_below
                );
                let per_rate: Vec<String> =
                    s.copies_found.iter().map(|(rate, n, f)| format!("{:.0}%: {f}/{n}", rate * 100.0)).collect();
                println!("  copies in their base's cluster, by edit rate: {}", per_rate.join(", "));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
