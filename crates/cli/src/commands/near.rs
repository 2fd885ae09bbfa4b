//! `tessera near` and `tessera delete`: near-duplicates of one document in an index, and
//! deleting documents by id.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use tessera_engine::{DocId, EngineOptions};

use super::{Format, IndexDir};

/// Arguments of `tessera near`.
#[derive(Debug, Args)]
pub struct NearArgs {
    #[command(flatten)]
    dir: IndexDir,
    /// The document (any format `tessera index` reads).
    document: PathBuf,
    /// Documents to list at most.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Compare with every document, not only the candidates of the bands and tables
    /// (exact ranking at any similarity; time grows with the index).
    #[arg(long)]
    exhaustive: bool,
}

/// Arguments of `tessera delete`.
#[derive(Debug, Args)]
pub struct DeleteArgs {
    #[command(flatten)]
    dir: IndexDir,
    /// Document ids (as `tessera near` and reports show them).
    #[arg(required = true)]
    ids: Vec<u64>,
}

pub fn run(args: &NearArgs) -> Result<ExitCode> {
    let engine =
        super::open_engine(&args.dir, EngineOptions { extract: super::extract_config(), ..EngineOptions::default() })?;
    let extracted = engine.extract_path(&args.document)?;
    let answer = engine
        .near_text(&extracted.text, args.top, args.exhaustive)
        .with_context(|| format!("searching the sketch store of {}", args.dir.dir.display()))?;
    if let Some(notice) = &answer.notice {
        eprintln!("{notice}");
    }
    let hits = answer.hits;
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&hits)?),
        _ => {
            if hits.is_empty() {
                println!("no near-duplicate of {} among {} documents", args.document.display(), answer.searched);
            }
            for (rank, h) in hits.iter().enumerate() {
                println!(
                    "{:>3}. doc {} ({}) {:?}: jaccard {:.3} (estimated {:.3}), it holds {:.3} of the query, the query holds {:.3} of it, simhash distance {}",
                    rank + 1,
                    h.doc,
                    h.collection,
                    h.title,
                    h.jaccard,
                    h.estimated_jaccard,
                    h.query_in_doc,
                    h.doc_in_query,
                    h.simhash_distance
                );
                if let Some(c) = h.char_cosine {
                    println!("     character 5-gram cosine {c:.3}");
                }
                for place in &h.seen_at {
                    println!("     seen at {place}");
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn delete(args: &DeleteArgs) -> Result<ExitCode> {
    let engine = super::open_engine(&args.dir, EngineOptions::default())?;
    let ids: Vec<DocId> = args.ids.iter().map(|&i| DocId(i)).collect();
    let n = engine.delete(&ids).with_context(|| format!("deleting from the index at {}", args.dir.dir.display()))?;
    println!("deleted {n} documents ({} were deleted already)", ids.len() as u64 - n);
    Ok(ExitCode::SUCCESS)
}
