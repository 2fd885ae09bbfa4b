//! `tessera verify`

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;

use super::{Format, IndexDir};

/// Arguments of `tessera verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    dir: IndexDir,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// Checks every byte of the index: the manifest, every segment's sections, every
/// postings bucket and every record. Fails (exit 1) naming the first damaged file.
pub fn run(args: &VerifyArgs) -> Result<ExitCode> {
    let dir = &args.dir.dir;
    let report = tessera_engine::verify(dir).with_context(|| format!("verifying the index at {}", dir.display()))?;
    if args.format == Format::Json {
        let json = serde_json::json!({
            "index": dir.display().to_string(),
            "ok": true,
            "collections": report.collections,
            "segments": report.segments,
            "docs": report.docs,
            "postings": report.postings,
            "buckets": report.buckets,
            "records": report.records,
            "bytes": report.bytes,
            "files": report.files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&json)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("index {}: ok", dir.display());
    println!(
        "checked the manifest and {} segment files ({:.1} MB) of {} collections: {} documents, {} records, \
         {} postings in {} buckets",
        report.segments,
        report.bytes as f64 / 1e6,
        report.collections,
        report.docs,
        report.records,
        report.postings,
        report.buckets
    );
    Ok(ExitCode::SUCCESS)
}
