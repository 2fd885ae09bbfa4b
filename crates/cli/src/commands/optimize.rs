//! `tessera optimize`: merge an index's segments and purge deleted documents.

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use tessera_engine::EngineOptions;

use super::{Format, IndexDir};

/// Arguments of `tessera optimize`.
#[derive(Debug, Args)]
pub struct OptimizeArgs {
    #[command(flatten)]
    dir: IndexDir,
    /// Segments each collection keeps at most (at least 1).
    #[arg(long, default_value_t = 1)]
    max_segments: usize,
    /// Summary format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

pub fn run(args: &OptimizeArgs) -> Result<ExitCode> {
    let engine = super::open_engine(&args.dir, EngineOptions::default())?;
    let stats = engine
        .optimize(args.max_segments)
        .with_context(|| format!("optimizing the index at {}", args.dir.dir.display()))?;
    let collections = engine.collections()?;
    if args.format == Format::Json {
        let json = serde_json::json!({
            "merges": stats.merges,
            "segments_merged": stats.segments_merged,
            "segments_written": stats.segments_written,
            "docs": stats.docs,
            "purged": stats.purged,
            "bytes_read": stats.bytes_read,
            "bytes_written": stats.bytes_written,
            "segments": collections.iter().map(|c| (c.config.name.clone(), serde_json::Value::from(c.segments))).collect::<serde_json::Map<_, _>>(),
        });
        println!("{}", serde_json::to_string_pretty(&json)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "merged {} segments into {} ({} documents kept, {} deleted ones purged; {:.1} MB read, {:.1} MB written)",
        stats.segments_merged,
        stats.segments_written,
        stats.docs,
        stats.purged,
        stats.bytes_read as f64 / 1e6,
        stats.bytes_written as f64 / 1e6
    );
    for c in &collections {
        println!("collection {}: {} segments, {} documents", c.config.name, c.segments, c.docs);
    }
    Ok(ExitCode::SUCCESS)
}
