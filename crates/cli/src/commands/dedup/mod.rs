//! `tessera dedup`: clusters of near-duplicate documents in a collection.

use fs_err::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use serde::Serialize;
use tessera_engine::{DedupConfig, DedupMethod, DedupSummary, Deduplicator};

#[cfg(feature = "parquet")]
mod parquet;
mod records;

use records::{Record, jsonl_input, parquet_input, parse_record};

use super::{CreateArgs, Format};

/// Near-duplicate methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// MinHash signatures, LSH bands, Jaccard similarity.
    Minhash,
    /// 64-bit SimHash with tf-idf weights, permuted tables, Hamming distance.
    Simhash,
}

impl From<Method> for DedupMethod {
    fn from(m: Method) -> Self {
        match m {
            Method::Minhash => DedupMethod::Minhash,
            Method::Simhash => DedupMethod::Simhash,
        }
    }
}

/// Arguments of `tessera dedup`.
#[derive(Debug, Args)]
pub struct DedupArgs {
    /// A folder or files of documents (any format `tessera index` reads), one JSONL
    /// file (`.jsonl`/`.ndjson`, or any file when `--text-field` is given), or one
    /// Parquet file (`.parquet`, one document per row; cargo feature `parquet`).
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// How documents are compared.
    #[arg(long, value_enum, default_value_t = Method::Minhash)]
    method: Method,
    /// MinHash: the Jaccard similarity at which two documents are near-duplicates.
    #[arg(long, default_value_t = 0.8)]
    threshold: f64,
    /// SimHash: the largest Hamming distance between near-duplicates.
    #[arg(long, default_value_t = 3)]
    max_distance: u32,
    /// MinHash: hash functions per signature.
    #[arg(long, default_value_t = 128)]
    num_perm: usize,
    /// MinHash: seed of the hash functions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// MinHash: verify candidates with the exact Jaccard similarity of the shingle sets
    /// (kept in memory) instead of the signatures' estimate.
    #[arg(long)]
    exact: bool,
    /// Texts with fewer words than this are shingled cyclically (seed 004).
    #[arg(long, default_value_t = 10)]
    short_words: usize,
    /// JSONL and Parquet: the field (column) holding the text (default "text").
    #[arg(long)]
    text_field: Option<String>,
    /// JSONL and Parquet: the field (column) holding the id (default: the line or row
    /// number).
    #[arg(long)]
    id_field: Option<String>,
    /// Where to write the JSONL lines (default: stdout).
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// Summary format (on stderr).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    #[command(flatten)]
    create: CreateArgs,
}

/// The summary on stderr: the engine's totals and the time.
#[derive(Debug, Serialize)]
struct Summary {
    #[serde(flatten)]
    totals: DedupSummary,
    seconds: f64,
}

const BATCH: usize = 1024;

impl DedupArgs {
    /// The engine's dedup settings these flags give.
    fn config(&self) -> DedupConfig {
        DedupConfig {
            method: self.method.into(),
            threshold: self.threshold,
            max_distance: self.max_distance,
            num_perm: self.num_perm,
            seed: self.seed,
            exact: self.exact,
            short_words: self.short_words,
            fingerprint: self.create.settings(),
        }
    }
}

/// Sketches a batch of JSONL or Parquet records.
fn process(dedup: &mut Deduplicator, batch: &[Record]) {
    let texts: Vec<(String, String)> = batch.iter().map(|r| (r.id.clone(), r.text.clone())).collect();
    dedup.add_texts(&texts);
}

pub fn run(args: &DedupArgs, quiet: bool) -> Result<ExitCode> {
    let started = Instant::now();
    let mut dedup = Deduplicator::new(args.config(), super::extract_config())?;

    if let Some(path) = parquet_input(args) {
        #[cfg(feature = "parquet")]
        {
            let text_field = args.text_field.as_deref().unwrap_or("text");
            let bar = super::progress::files_bar(quiet, "sketching");
            let mut batch = Vec::with_capacity(BATCH);
            parquet::read(&path, text_field, args.id_field.as_deref(), |record| {
                match record {
                    Ok(r) => batch.push(r),
                    Err((name, reason)) => dedup.add_failure(name, reason),
                }
                if batch.len() == BATCH {
                    process(&mut dedup, &batch);
                    bar.inc(batch.len() as u64);
                    batch.clear();
                }
                Ok(())
            })?;
            process(&mut dedup, &batch);
            bar.finish_and_clear();
        }
        #[cfg(not(feature = "parquet"))]
        anyhow::bail!(
            "{} is a Parquet file, and this tessera was built without Parquet support (cargo feature `parquet` of tessera-cli)",
            path.display()
        );
    } else if let Some(jsonl) = jsonl_input(args)? {
        let text_field = args.text_field.as_deref().unwrap_or("text");
        let file = File::open(&jsonl)?;
        let size = file.metadata().map(|m| m.len()).unwrap_or(0);
        let bar = super::progress::bytes_bar(quiet, "sketching", size);
        let mut reader = BufReader::new(file);
        let (mut line, mut line_no, mut read) = (String::new(), 0u64, 0u64);
        let mut batch = Vec::with_capacity(BATCH);
        loop {
            line.clear();
            let n = reader.read_line(&mut line).with_context(|| format!("reading {}", jsonl.display()))?;
            if n == 0 {
                break;
            }
            line_no += 1;
            read += n as u64;
            if line.trim().is_empty() {
                continue;
            }
            match parse_record(&line, line_no, text_field, args.id_field.as_deref()) {
                Ok(r) => batch.push(r),
                Err(reason) => dedup.add_failure(format!("{}:{line_no}", jsonl.display()), reason),
            }
            if batch.len() == BATCH {
                process(&mut dedup, &batch);
                batch.clear();
                bar.set_position(read);
            }
        }
        process(&mut dedup, &batch);
        bar.finish_and_clear();
    } else {
        let files = tessera_engine::list_files(&args.inputs)?;
        let bar = super::progress::files_bar(quiet, "sketching");
        bar.set_length(files.len() as u64);
        for chunk in files.chunks(BATCH / 4) {
            dedup.add_files(chunk);
            bar.inc(chunk.len() as u64);
        }
        bar.finish_and_clear();
    }

    let lsh = dedup.lsh();
    let result = dedup.finish()?;
    let mut out: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(BufWriter::new(File::create(path)?)),
        None => Box::new(BufWriter::new(std::io::stdout().lock())),
    };
    for line in &result.lines {
        serde_json::to_writer(&mut out, line)?;
        out.write_all(b"\n")?;
    }
    out.flush().context("writing the clusters")?;

    for (name, reason) in &result.failed {
        eprintln!("skipped {name}: {reason}");
    }
    let summary = Summary { totals: result.summary, seconds: started.elapsed().as_secs_f64() };
    match args.format {
        Format::Json => eprintln!("{}", serde_json::to_string(&summary)?),
        _ => {
            let how = match lsh {
                Some((bands, rows)) => format!("minhash, threshold {}, {bands} bands of {rows} rows", args.threshold),
                None => format!("simhash, distance <= {}", args.max_distance),
            };
            let t = &summary.totals;
            eprintln!(
                "{} documents, {} clusters, {} duplicates removed ({how}) in {:.2} s; {} failed",
                t.documents, t.clusters, t.duplicates_removed, summary.seconds, t.failed
            );
        }
    }
    Ok(if result.failed.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(3) })
}
