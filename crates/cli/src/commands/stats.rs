//! `tessera stats`

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::{Format, IndexDir};

/// Arguments of `tessera stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    #[command(flatten)]
    dir: IndexDir,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

pub fn run(args: &StatsArgs) -> Result<ExitCode> {
    let engine = super::open_engine(&args.dir, tessera_engine::EngineOptions::default())?;
    let collections = engine.collections()?;
    if args.format == Format::Json {
        let json = engine.stats_json()?;
        println!("{}", serde_json::to_string_pretty(&json)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("index {}", args.dir.dir.display());
    let s = engine.settings();
    println!(
        "fingerprints: {}-word shingles, seed {}, stop words {}, stemming {}",
        s.shingles.size,
        s.shingles.seed,
        if s.normalizer.stop_words { "dropped" } else { "kept" },
        if s.normalizer.stemming { "on" } else { "off" }
    );
    for c in &collections {
        let per_posting = if c.postings > 0 { c.postings_bytes as f64 / c.postings as f64 } else { 0.0 };
        println!(
            "collection {:<16} kind {:<8} docs {:>10}{} segments {:>4} postings {:>12} ({:.2} B/posting) size {:.1} MB{}",
            c.config.name,
            format!("{:?}", c.config.kind).to_lowercase(),
            c.docs,
            if c.deleted > 0 { format!(" (+{} deleted)", c.deleted) } else { String::new() },
            c.segments,
            c.postings,
            per_posting,
            c.total_bytes as f64 / 1e6,
            if c.config.keep_texts {
                format!(", texts kept ({:.1} KB compressed)", c.text_bytes as f64 / 1e3)
            } else {
                ", fingerprints only".to_owned()
            }
        );
    }
    if collections.is_empty() {
        println!("no collections yet");
    }
    Ok(ExitCode::SUCCESS)
}
