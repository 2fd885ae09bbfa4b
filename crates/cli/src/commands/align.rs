//! `tessera align`: the PAN pairwise text-alignment task. Each listed suspect is aligned
//! with its listed source only (no index), with the alignment `check` uses.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use rayon::prelude::*;
use tessera_engine::{Block, FingerprintSettings, PairAligner, SearchConfig};
use tessera_eval::Annotation;

/// Arguments of `tessera align`.
#[derive(Debug, Args)]
pub struct AlignArgs {
    /// Pairs file: one `suspicious-documentX.txt source-documentY.txt` a line.
    #[arg(long)]
    pairs: PathBuf,
    /// Folder of the source documents.
    #[arg(long)]
    src: PathBuf,
    /// Folder of the suspicious documents.
    #[arg(long)]
    susp: PathBuf,
    /// Output folder: one PAN XML per pair.
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    create: super::CreateArgs,
    #[command(flatten)]
    search: super::SearchArgs,
}

/// What an alignment run did.
#[derive(Debug, Clone)]
pub struct AlignSummary {
    /// Pairs aligned.
    pub pairs: usize,
    /// Detections written.
    pub detections: usize,
    /// Seconds spent (reading, fingerprinting, aligning, writing).
    pub seconds: f64,
    /// One JSON line per detection with the evidence behind it ([`evidence_line`]),
    /// in pair order.
    pub evidence: Vec<String>,
}

pub fn run(args: &AlignArgs, quiet: bool) -> Result<ExitCode> {
    let pairs = tessera_eval::read_pairs(&args.pairs).with_context(|| format!("reading {}", args.pairs.display()))?;
    let summary =
        align_pairs(&pairs, &args.src, &args.susp, &args.out, &args.create.settings(), args.search.config(), quiet)?;
    eprintln!(
        "aligned {} pairs in {:.1} s ({:.2} ms each), {} detections",
        summary.pairs,
        summary.seconds,
        1000.0 * summary.seconds / summary.pairs.max(1) as f64,
        summary.detections
    );
    Ok(ExitCode::SUCCESS)
}

/// Aligns every (suspicious, source) pair and writes one PAN XML per pair into `out`
/// (a pair without detections gets an empty document). Texts are read as they are
/// (invalid UTF-8 replaced): PAN offsets count the characters of the raw files.
pub fn align_pairs(
    pairs: &[(String, String)],
    src_dir: &Path,
    susp_dir: &Path,
    out: &Path,
    settings: &FingerprintSettings,
    search: SearchConfig,
    quiet: bool,
) -> Result<AlignSummary> {
    fs_err::create_dir_all(out)?;
    let aligner = PairAligner::new(settings, search)?;
    let bar = super::progress::files_bar(quiet, "aligning pairs");
    bar.set_length(pairs.len() as u64);
    let started = Instant::now();
    let lines: Vec<Vec<String>> = pairs
        .par_iter()
        .map(|(susp, src)| -> Result<Vec<String>> {
            let (suspect, source) = (read_text(&susp_dir.join(susp))?, read_text(&src_dir.join(src))?);
            let blocks = aligner.align(&suspect, &source);
            let dets: Vec<Annotation> = blocks.iter().map(|b| annotation(susp, src, b)).collect();
            tessera_eval::write_detections(out, susp, src, &dets)?;
            bar.inc(1);
            Ok(dets.iter().zip(&blocks).map(|(a, b)| evidence_line(a, b)).collect())
        })
        .collect::<Result<_>>()?;
    bar.finish_and_clear();
    let evidence: Vec<String> = lines.into_iter().flatten().collect();
    Ok(AlignSummary {
        pairs: pairs.len(),
        detections: evidence.len(),
        seconds: started.elapsed().as_secs_f64(),
        evidence,
    })
}

fn read_text(path: &Path) -> Result<String> {
    let bytes = fs_err::read(path)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A detection and the evidence of its block as one JSON line (`tessera eval pan` writes
/// them to `evidence.jsonl`, which `scripts/fit_confidence.py` reads).
pub fn evidence_line(a: &Annotation, b: &Block) -> String {
    serde_json::json!({
        "suspicious": a.suspicious,
        "source": a.source,
        "this_offset": a.this_offset,
        "this_length": a.this_length,
        "source_offset": a.source_offset,
        "source_length": a.source_length,
        "evidence": b.evidence,
        "confidence": b.evidence.confidence(),
        "sentence_pairs": b.pairs.len(),
    })
    .to_string()
}

/// A block as a PAN detection (character offsets).
pub fn annotation(suspicious: &str, source: &str, b: &Block) -> Annotation {
    Annotation {
        suspicious: suspicious.to_owned(),
        source: source.to_owned(),
        this_offset: b.suspect.chars.start as u64,
        this_length: (b.suspect.chars.end - b.suspect.chars.start) as u64,
        source_offset: b.source.chars.start as u64,
        source_length: (b.source.chars.end - b.source.chars.start) as u64,
    }
}
