//! `tessera index`

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use tessera_engine::{AddMode, AddProgress, DEFAULT_MIN_CONTAINMENT, Engine, EngineOptions, shards};

use super::{CollectionArgs, CreateArgs, Format, IndexDir};

/// Arguments of `tessera index`.
#[derive(Debug, Args)]
pub struct IndexArgs {
    #[command(flatten)]
    dir: IndexDir,
    #[command(flatten)]
    collection: CollectionArgs,
    #[command(flatten)]
    create: CreateArgs,
    /// Memory the documents being extracted and fingerprinted may be expected to take
    /// together, in MiB: files are taken in batches that fit it (a larger one alone).
    #[arg(long, value_name = "MIB", default_value_t = tessera_engine::memory::DEFAULT_MEMORY_LIMIT >> 20)]
    memory_mb: u64,
    /// Memory the index writer may buffer before it writes a segment, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = EngineOptions::default().memory_budget >> 20)]
    writer_mb: usize,
    /// Summary format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Add only new documents (the crawler's rule): a document whose shingles are at
    /// least --min-containment contained in one document of the collection is not added;
    /// its path is attached to that document instead.
    #[arg(long)]
    if_new: bool,
    /// With --if-new: the share of a document's shingles another must contain, in (0, 1].
    #[arg(long, default_value_t = DEFAULT_MIN_CONTAINMENT)]
    min_containment: f64,
    /// Add every document, even one the collection already holds from the same path with
    /// the same text. Without it such repeats (a folder indexed again) are left out and
    /// counted; a file whose text changed is added as a new document.
    #[arg(long, conflicts_with = "if_new")]
    force: bool,
    /// Split the index into N shards (folders `shard-S-of-N` under --index, each an
    /// ordinary index; a sharded index keeps its number): each document goes to the
    /// shard owning its id, with the id one index would give it, so checks against the
    /// shards report as one index (`tessera check --index DIR` reads them as one; the Ray
    /// application serves them across machines). Every document is added (no --if-new).
    #[arg(long, value_name = "N", conflicts_with_all = ["if_new", "force"], value_parser = clap::value_parser!(u16).range(1..))]
    shards: Option<u16>,
    /// Files and folders to add (folders recursively; archives give one document per
    /// member).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

/// Repeats listed one per line; beyond this only their count is printed.
const MAX_REPEATS_LISTED: usize = 20;

pub fn run(args: &IndexArgs, quiet: bool) -> Result<ExitCode> {
    let mode = AddMode::from_flags(args.if_new, Some(args.min_containment), args.force).context("--min-containment")?;
    if args.memory_mb == 0 || args.writer_mb == 0 {
        anyhow::bail!("--memory-mb and --writer-mb must be at least 1");
    }
    let options = EngineOptions {
        memory_limit: args.memory_mb << 20,
        memory_budget: args.writer_mb << 20,
        extract: super::extract_config(),
        ..EngineOptions::default()
    };
    let bar = super::progress::files_bar(quiet, "indexing");
    let progress = |p: AddProgress| {
        bar.set_length(p.total);
        bar.set_position(p.done);
    };
    let dir = &args.dir.dir;
    let summary = match args.shards {
        Some(n) => {
            let n = usize::from(n);
            shards::check_shard_count(dir, n)?;
            // The collection's settings as the first shard has them (every shard the same).
            let first = Engine::open_or_create(&shards::shard_dir(dir, 0, n), &args.create.settings(), options.clone())
                .with_context(|| format!("opening the shards at {}", dir.display()))?;
            let config = args.collection.config(&first)?;
            drop(first);
            shards::build_paths(dir, n, &args.create.settings(), options, &config, &args.paths, &progress)
                .with_context(|| format!("adding to the shards at {}", dir.display()))?
        }
        None => {
            let engine = Engine::open_or_create(dir, &args.create.settings(), options)
                .with_context(|| format!("opening the index at {}", dir.display()))?;
            let config = args.collection.config(&engine)?;
            engine
                .add_paths(&config, &args.paths, mode, &progress)
                .with_context(|| format!("adding to the index at {}", dir.display()))?
        }
    };
    bar.finish_and_clear();
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&summary)?),
        _ => {
            for f in &summary.failed {
                eprintln!("skipped {}: {}", f.origin, f.reason);
            }
            let repeats = summary.seen.iter().filter(|s| s.same_origin).count();
            for s in &summary.seen {
                if s.same_origin {
                    if repeats <= MAX_REPEATS_LISTED {
                        println!("already indexed: {} (doc {})", s.origin, s.into.0);
                    }
                } else {
                    println!(
                        "seen before: {} is {:.1} % contained in {} (doc {})",
                        s.origin,
                        s.containment * 100.0,
                        s.into_origin,
                        s.into.0
                    );
                }
            }
            if args.if_new {
                println!(
                    "added {} new documents to collection {:?} in {:.2} s; {} seen before, {} failed",
                    summary.added,
                    args.collection.collection,
                    summary.seconds,
                    summary.seen.len(),
                    summary.failed.len()
                );
            } else {
                println!(
                    "added {} documents ({:.1} MB) to collection {:?} in {:.2} s; {} failed",
                    summary.added,
                    summary.bytes as f64 / 1e6,
                    args.collection.collection,
                    summary.seconds,
                    summary.failed.len()
                );
            }
            if repeats > 0 && !args.if_new {
                println!(
                    "{repeats} already indexed from the same path with the same text, not added again \
                     (--force adds them)"
                );
            }
        }
    }
    // Some files failed but the rest were added: a distinct exit code scripts can test.
    let inputs = summary.added + summary.seen.len() as u64 + summary.failed.len() as u64;
    Ok(super::inputs_exit_code(inputs, summary.failed.len() as u64))
}
