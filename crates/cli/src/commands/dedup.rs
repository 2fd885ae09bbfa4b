//! `tessera dedup`: clusters of near-duplicate documents in a collection.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;
use tessera_engine::near::{self, Idf, LshParams, MinHashConfig, MinHasher, Signature};
use tessera_engine::{Fingerprinter, Fingerprinters, SketchInput};

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

/// One line of the output.
#[derive(Debug, Serialize)]
struct Line<'a> {
    id: &'a str,
    cluster: &'a str,
    kept: bool,
    similarity: f64,
}

/// The summary.
#[derive(Debug, Serialize)]
struct Summary {
    documents: usize,
    clusters: usize,
    duplicates_removed: usize,
    failed: usize,
    method: Method,
    #[serde(skip_serializing_if = "Option::is_none")]
    bands: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rows: Option<usize>,
    seconds: f64,
}

/// What is kept of a document between sketching and clustering.
enum Sketch {
    MinHash { signature: Signature, set: Vec<u64> },
    SimHash { tf: Vec<(u64, u32)> },
}

/// A document to sketch: a file, or a JSONL or Parquet record.
pub(super) enum Record {
    File(PathBuf),
    Text { id: String, text: String },
}

struct Sketcher<'a> {
    args: &'a DedupArgs,
    hasher: Option<MinHasher>,
}

impl Sketcher<'_> {
    fn sketch(&self, fp: &mut Fingerprinter, record: &Record) -> Result<(String, Sketch)> {
        let (id, extracted);
        let text = match record {
            Record::File(path) => {
                // Extraction errors name the file.
                extracted =
                    tessera_engine::extract::extract_path(path, &tessera_engine::extract::ExtractConfig::default())?;
                id = path.display().to_string();
                &extracted.text
            }
            Record::Text { id: i, text } => {
                id = i.clone();
                text
            }
        };
        let SketchInput { terms, shingles } = fp.sketch_input(text, self.args.short_words);
        let sketch = match &self.hasher {
            Some(h) => Sketch::MinHash {
                signature: h.sign(&shingles),
                set: if self.args.exact { near::shingle_set(&shingles) } else { Vec::new() },
            },
            None => Sketch::SimHash { tf: near::term_frequencies(&terms) },
        };
        Ok((id, sketch))
    }
}

const BATCH: usize = 1024;

pub fn run(args: &DedupArgs, quiet: bool) -> Result<ExitCode> {
    let started = Instant::now();
    if !(args.threshold > 0.0 && args.threshold < 1.0) {
        bail!("--threshold must be strictly between 0 and 1, got {}", args.threshold);
    }
    let settings = args.create.settings();
    let fingerprinters = Fingerprinters::new(Fingerprinter::new(&settings).context("fingerprint settings")?);
    let hasher = match args.method {
        Method::Minhash => Some(MinHasher::new(MinHashConfig { num_perm: args.num_perm, seed: args.seed })?),
        Method::Simhash => None,
    };
    let params = match args.method {
        Method::Minhash => Some(LshParams::optimal(args.threshold, args.num_perm, 0.5, 0.5)?),
        Method::Simhash => None,
    };
    let sketcher = Sketcher { args, hasher };

    let mut ids: Vec<String> = Vec::new();
    let mut sketches: Vec<Sketch> = Vec::new();
    let mut failed: Vec<(String, String)> = Vec::new();
    let mut process = |batch: &[Record], failed: &mut Vec<(String, String)>| {
        let done: Vec<Result<(String, Sketch)>> =
            batch.par_iter().map(|r| fingerprinters.with(|fp| sketcher.sketch(fp, r))).collect();
        for (r, result) in batch.iter().zip(done) {
            match result {
                Ok((id, s)) => {
                    ids.push(id);
                    sketches.push(s);
                }
                Err(e) => failed.push((record_name(r), format!("{e:#}"))),
            }
        }
    };

    if let Some(path) = parquet_input(args) {
        #[cfg(feature = "parquet")]
        {
            let text_field = args.text_field.as_deref().unwrap_or("text");
            let bar = super::progress::files_bar(quiet, "sketching");
            let mut batch = Vec::with_capacity(BATCH);
            super::dedup_parquet::read(&path, text_field, args.id_field.as_deref(), |record| {
                match record {
                    Ok(r) => batch.push(r),
                    Err(skipped) => failed.push(skipped),
                }
                if batch.len() == BATCH {
                    process(&batch, &mut failed);
                    bar.inc(batch.len() as u64);
                    batch.clear();
                }
                Ok(())
            })?;
            process(&batch, &mut failed);
            bar.finish_and_clear();
        }
        #[cfg(not(feature = "parquet"))]
        bail!(
            "{} is a Parquet file, and this tessera was built without Parquet support (cargo feature `parquet` of tessera-cli)",
            path.display()
        );
    } else if let Some(jsonl) = jsonl_input(args)? {
        let text_field = args.text_field.as_deref().unwrap_or("text");
        let file = File::open(&jsonl).with_context(|| format!("opening {}", jsonl.display()))?;
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
                Err(reason) => failed.push((format!("{}:{line_no}", jsonl.display()), reason)),
            }
            if batch.len() == BATCH {
                process(&batch, &mut failed);
                batch.clear();
                bar.set_position(read);
            }
        }
        process(&batch, &mut failed);
        bar.finish_and_clear();
    } else {
        let files = tessera_engine::list_files(&args.inputs)?;
        let bar = super::progress::files_bar(quiet, "sketching");
        bar.set_length(files.len() as u64);
        for chunk in files.chunks(BATCH / 4) {
            let records: Vec<Record> = chunk.iter().cloned().map(Record::File).collect();
            process(&records, &mut failed);
            bar.inc(chunk.len() as u64);
        }
        bar.finish_and_clear();
    }

    let clustering = match (args.method, params) {
        (Method::Minhash, Some(params)) => cluster_minhash(args, &sketches, params)?,
        _ => cluster_simhash(args, &sketches)?,
    };

    let mut out: Box<dyn Write> = match &args.output {
        Some(path) => {
            Box::new(BufWriter::new(File::create(path).with_context(|| format!("creating {}", path.display()))?))
        }
        None => Box::new(BufWriter::new(std::io::stdout().lock())),
    };
    for (i, id) in ids.iter().enumerate() {
        let kept = clustering.kept[i] as usize;
        let line = Line {
            id,
            cluster: &ids[kept],
            kept: kept == i,
            similarity: (clustering.similarity[i] * 1e4).round() / 1e4,
        };
        serde_json::to_writer(&mut out, &line)?;
        out.write_all(b"\n")?;
    }
    out.flush().context("writing the clusters")?;

    for (name, reason) in &failed {
        eprintln!("skipped {name}: {reason}");
    }
    let summary = Summary {
        documents: ids.len(),
        clusters: clustering.clusters(),
        duplicates_removed: clustering.duplicates(),
        failed: failed.len(),
        method: args.method,
        bands: params.map(|p| p.bands),
        rows: params.map(|p| p.rows),
        seconds: started.elapsed().as_secs_f64(),
    };
    match args.format {
        Format::Json => eprintln!("{}", serde_json::to_string(&summary)?),
        _ => {
            let how = match params {
                Some(p) => format!("minhash, threshold {}, {} bands of {} rows", args.threshold, p.bands, p.rows),
                None => format!("simhash, distance <= {}", args.max_distance),
            };
            eprintln!(
                "{} documents, {} clusters, {} duplicates removed ({how}) in {:.2} s; {} failed",
                summary.documents, summary.clusters, summary.duplicates_removed, summary.seconds, summary.failed
            );
        }
    }
    Ok(if failed.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(3) })
}

fn cluster_minhash(args: &DedupArgs, sketches: &[Sketch], params: LshParams) -> Result<near::Clustering> {
    let mut signatures = Vec::with_capacity(sketches.len());
    let mut sets = Vec::with_capacity(sketches.len());
    for s in sketches {
        if let Sketch::MinHash { signature, set } = s {
            signatures.push(signature.clone());
            sets.push(set);
        }
    }
    if !args.exact {
        return Ok(near::cluster_minhash(&signatures, params, args.threshold)?);
    }
    let pairs = near::candidate_pairs(&signatures, params);
    let t = args.threshold;
    Ok(near::cluster(signatures.len(), &pairs, |a, b| {
        let s = near::jaccard(sets[a as usize], sets[b as usize]);
        (s >= t).then_some(s)
    }))
}

fn cluster_simhash(args: &DedupArgs, sketches: &[Sketch]) -> Result<near::Clustering> {
    let tfs: Vec<&[(u64, u32)]> = sketches
        .iter()
        .filter_map(|s| match s {
            Sketch::SimHash { tf } => Some(tf.as_slice()),
            Sketch::MinHash { .. } => None,
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
                near::simhash_weighted(&weighted)
            })
        })
        .collect();
    Ok(near::cluster_simhash(&fps, args.max_distance)?)
}

fn record_name(r: &Record) -> String {
    match r {
        Record::File(p) => p.display().to_string(),
        Record::Text { id, .. } => id.clone(),
    }
}

/// The Parquet file to read, if the input is one (a single `.parquet` file).
fn parquet_input(args: &DedupArgs) -> Option<PathBuf> {
    match args.inputs.as_slice() {
        [path] if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("parquet")) && path.is_file() => {
            Some(path.clone())
        }
        _ => None,
    }
}

/// The JSONL file to read, if the input is one.
fn jsonl_input(args: &DedupArgs) -> Result<Option<PathBuf>> {
    let [path] = args.inputs.as_slice() else {
        if args.text_field.is_some() || args.id_field.is_some() {
            bail!("--text-field and --id-field take exactly one JSONL file");
        }
        return Ok(None);
    };
    let meta = std::fs::metadata(path).with_context(|| format!("reading {}", path.display()))?;
    let by_name = matches!(path.extension().and_then(|e| e.to_str()), Some("jsonl" | "ndjson"));
    if meta.is_file() && (by_name || args.text_field.is_some()) {
        return Ok(Some(path.clone()));
    }
    if args.text_field.is_some() || args.id_field.is_some() {
        bail!("--text-field and --id-field take a JSONL file, and {} is a folder", path.display());
    }
    Ok(None)
}

fn parse_record(line: &str, line_no: u64, text_field: &str, id_field: Option<&str>) -> Result<Record, String> {
    let value: Value = serde_json::from_str(line).map_err(|e| format!("not a JSON line: {e}"))?;
    let text = match value.get(text_field) {
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Err(format!("field {text_field:?} is not a string")),
        None => return Err(format!("no field {text_field:?}")),
    };
    let id = match id_field {
        None => line_no.to_string(),
        Some(f) => match value.get(f) {
            Some(Value::String(s)) => s.clone(),
            Some(v @ Value::Number(_)) => v.to_string(),
            Some(_) => return Err(format!("field {f:?} is not a string or number")),
            None => return Err(format!("no field {f:?}")),
        },
    };
    Ok(Record::Text { id, text })
}
