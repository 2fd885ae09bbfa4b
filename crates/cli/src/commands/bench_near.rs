//! `tessera bench sketch|lsh|simhash`: near-duplicate speed and memory figures for
//! docs/performance.md. Timing lives here, never in tests.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Args;
use rayon::prelude::*;
use tessera_engine::sketch::{
    LshIndex, LshParams, MinHashConfig, MinHasher, Signature, SketchStore, SplitMix64, StoreEntry, StoreSettings,
    TableDesign, all_pairs, update_store, write_store,
};
use tessera_engine::{Fingerprinter, Fingerprinters, MergePolicy};

/// Arguments of `tessera bench sketch`.
#[derive(Debug, Args)]
pub struct SketchArgs {
    /// Text files (read once; each is one document).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Thread counts to measure.
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    threads: Vec<usize>,
    /// Minimum measuring time per figure, in seconds.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    /// Hash functions.
    #[arg(long, default_value_t = 128)]
    num_perm: usize,
    /// Fingerprint settings (`--keep-stop-words --no-stemming` come close to what the
    /// peers that split on whitespace do).
    #[command(flatten)]
    create: super::CreateArgs,
}

/// Arguments of `tessera bench lsh`.
#[derive(Debug, Args)]
pub struct LshArgs {
    /// Documents (synthetic: 300 random shingles each, every tenth a near copy of an
    /// earlier one with 5 % of its shingles replaced).
    #[arg(long, default_value_t = 100_000)]
    docs: usize,
    /// Timed queries (the first documents' signatures).
    #[arg(long, default_value_t = 10_000)]
    queries: usize,
    /// Jaccard threshold of the bands.
    #[arg(long, default_value_t = 0.8)]
    threshold: f64,
    /// Directory for the on-disk store (written, then queried through its memory map).
    #[arg(long, default_value = "bench-lsh")]
    dir: PathBuf,
    /// Only open the store already in --dir and query it (resident memory of a process
    /// that holds no in-memory index).
    #[arg(long)]
    store_only: bool,
    /// Write the store in this many updates (the first written whole, the others added
    /// as segments and merged by the default policy), as an index fed by commits does.
    #[arg(long, default_value_t = 1)]
    updates: usize,
    /// Keep every signature in the store (as Python's `MinHashLSH.save` does; `4 P` bytes
    /// a document) instead of only the band and SimHash tables (an index's store).
    #[arg(long)]
    signatures: bool,
}

/// Arguments of `tessera bench simhash`.
#[derive(Debug, Args)]
pub struct SimhashArgs {
    /// Fingerprints (random; 1 % of them a neighbour of an earlier one).
    #[arg(long, default_value_t = 10_000_000)]
    fingerprints: usize,
    /// Hamming distance.
    #[arg(long, default_value_t = 3)]
    max_distance: u32,
}

/// Current resident memory from /proc (Linux), in MB (NaN elsewhere).
fn rss_mb() -> f64 {
    let status = fs_err::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// Peak and current resident memory from /proc (Linux), in MB.
fn memory() -> String {
    let status = fs_err::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or_else(|| "n/a".to_string(), |kb| format!("{:.0} MB", kb / 1024.0))
    };
    format!("peak RSS {}, current RSS {}", field("VmHWM:"), field("VmRSS:"))
}

fn pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().context("thread pool")
}

pub fn sketch(args: &SketchArgs) -> Result<ExitCode> {
    let texts: Vec<String> = args.files.iter().map(fs_err::read_to_string).collect::<std::io::Result<_>>()?;
    let total: usize = texts.iter().map(String::len).sum();
    let settings = args.create.settings();
    let fingerprinters = Fingerprinters::new(Fingerprinter::new(&settings)?);
    let hasher = MinHasher::new(MinHashConfig { num_perm: args.num_perm, seed: 1 })?;
    println!(
        "{} documents, {:.1} MB; {}-word shingles, {} functions; stop words {}, stemming {}",
        texts.len(),
        total as f64 / 1e6,
        settings.shingles.size,
        args.num_perm,
        if settings.normalizer.stop_words { "dropped" } else { "kept" },
        if settings.normalizer.stemming { "on" } else { "off" },
    );
    for &threads in &args.threads {
        let pool = pool(threads)?;
        let (passes, secs) = pool.install(|| {
            let started = Instant::now();
            let mut passes = 0usize;
            while passes == 0 || started.elapsed().as_secs_f64() < args.seconds {
                let sigs: Vec<Signature> = texts
                    .par_iter()
                    .map(|t| hasher.sign(&fingerprinters.with(|fp| fp.sketch_input(t, 10)).shingles))
                    .collect();
                std::hint::black_box(sigs);
                passes += 1;
            }
            (passes, started.elapsed().as_secs_f64())
        });
        println!(
            "end to end (text -> normalize -> shingles -> signature), {threads} thread(s): {:.1} MB/s, {:.0} documents/s",
            (passes * total) as f64 / secs / 1e6,
            (passes * texts.len()) as f64 / secs
        );
    }
    // The kernel alone, on shingles computed beforehand.
    let mut fp = fingerprinters.template().clone();
    let shingles: Vec<Vec<u64>> = texts.iter().map(|t| fp.sketch_input(t, 10).shingles).collect();
    let count: usize = shingles.iter().map(Vec::len).sum();
    for &threads in &args.threads {
        let pool = pool(threads)?;
        let (passes, secs) = pool.install(|| {
            let started = Instant::now();
            let mut passes = 0usize;
            while passes == 0 || started.elapsed().as_secs_f64() < args.seconds {
                let sigs: Vec<Signature> = shingles.par_iter().map(|s| hasher.sign(s)).collect();
                std::hint::black_box(sigs);
                passes += 1;
            }
            (passes, started.elapsed().as_secs_f64())
        });
        println!(
            "MinHash kernel only, {threads} thread(s): {:.1} M shingles/s ({:.1} MB/s of the text they came from)",
            (passes * count) as f64 / secs / 1e6,
            (passes * total) as f64 / secs / 1e6
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn synthetic_signatures(docs: usize, hasher: &MinHasher) -> Vec<Signature> {
    (0..docs)
        .into_par_iter()
        .map(|i| {
            let mut rng = SplitMix64::new(i as u64);
            let base = if i % 10 == 9 { i - 5 } else { i };
            let mut src = SplitMix64::new(base as u64);
            let mut set: Vec<u64> = (0..300).map(|_| src.next_u64()).collect();
            if base != i {
                for x in set.iter_mut().take(15) {
                    *x = rng.next_u64();
                }
            }
            hasher.sign(&set)
        })
        .collect()
}

fn percentiles(mut times: Vec<Duration>) -> (f64, f64) {
    times.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let p = |q: f64| us(times[((times.len() as f64 - 1.0) * q).round() as usize]);
    (p(0.5), p(0.99))
}

pub fn lsh(args: &LshArgs) -> Result<ExitCode> {
    let hasher = MinHasher::new(MinHashConfig::default())?;
    let params = LshParams::optimal(args.threshold, 128, 0.5, 0.5)?;
    let path = args.dir.join("NEAR");
    let queries = args.queries.min(args.docs).max(1);
    if args.store_only {
        let started = Instant::now();
        let store = SketchStore::open(&path).map_err(anyhow::Error::from)?;
        let open = started.elapsed();
        let sigs = synthetic_signatures(queries, &hasher);
        let mut found = 0usize;
        // One candidate buffer for every query: no allocation per query.
        let mut out = Vec::with_capacity(1024);
        let times: Vec<Duration> = sigs
            .iter()
            .map(|s| {
                let t = Instant::now();
                store.lsh_candidates_into(s, &mut out);
                let elapsed = t.elapsed();
                found += out.len();
                elapsed
            })
            .collect();
        let (p50, p99) = percentiles(times);
        println!(
            "on-disk store of {} documents in {} segment(s) (opened, checksummed and its band tables mapped in {:.2} s): query p50 {p50:.1} µs, p99 {p99:.1} µs ({found} candidates); {}",
            store.live_len(),
            store.segment_count(),
            open.as_secs_f64(),
            memory()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let started = Instant::now();
    let sigs = synthetic_signatures(args.docs, &hasher);
    println!(
        "{} signatures in {:.2} s; {} bands of {} rows",
        args.docs,
        started.elapsed().as_secs_f64(),
        params.bands,
        params.rows
    );
    let before = rss_mb();
    let started = Instant::now();
    let index = LshIndex::build(&sigs, params);
    let build = started.elapsed().as_secs_f64();
    let grown = rss_mb() - before;
    let mut found = 0usize;
    let times: Vec<Duration> = sigs[..queries]
        .iter()
        .map(|s| {
            let t = Instant::now();
            found += index.query(s).len();
            t.elapsed()
        })
        .collect();
    let (p50, p99) = percentiles(times);
    println!(
        "in memory: build {build:.2} s (the index grew RSS by {grown:.0} MB, signatures held apart), query p50 {p50:.1} µs, p99 {p99:.1} µs ({found} candidates for {queries} queries); {}",
        memory()
    );
    drop(index);
    fs_err::create_dir_all(&args.dir)?;
    let entries: Vec<StoreEntry> = sigs
        .into_iter()
        .enumerate()
        .map(|(i, s)| StoreEntry { doc: i as u64, signature: s, simhash: i as u64 })
        .collect();
    let settings = StoreSettings {
        minhash: MinHashConfig::default(),
        lsh: params,
        simhash_distance: 3,
        settings_hash: 0,
        signatures: args.signatures,
    };
    let updates = args.updates.max(1);
    let chunk = entries.len().div_ceil(updates).max(1);
    let started = Instant::now();
    let mut chunks = entries.chunks(chunk);
    write_store(&path, &settings, chunks.next().unwrap_or_default())?;
    let mut merged = 0usize;
    for c in chunks {
        merged += update_store(&path, &settings, c, &[], &MergePolicy::default())?.merged_docs;
    }
    let secs = started.elapsed().as_secs_f64();
    let size: u64 = fs_err::read_dir(&args.dir)?
        .filter_map(|f| f.ok())
        .filter(|f| f.file_name().to_string_lossy().starts_with("NEAR"))
        .map(|f| f.metadata().map(|m| m.len()).unwrap_or(0))
        .sum();
    println!(
        "on-disk store ({}) written in {secs:.2} s, {:.2} M signatures/s, synced to disk ({updates} update(s), {merged} signatures rewritten by merges; {:.0} MB at {}); query it with --store-only",
        if args.signatures { "signatures kept" } else { "band and SimHash tables, no signatures" },
        entries.len() as f64 / secs / 1e6,
        size as f64 / 1e6,
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}

pub fn simhash(args: &SimhashArgs) -> Result<ExitCode> {
    let n = args.fingerprints;
    let started = Instant::now();
    let fps: Vec<u64> = (0..n)
        .into_par_iter()
        .map(|i| {
            let mut rng = SplitMix64::new(i as u64);
            if i % 100 == 99 {
                let mut f = SplitMix64::new((i - 50) as u64).next_u64();
                for _ in 0..rng.next_u64() % u64::from(args.max_distance + 1) {
                    f ^= 1 << (rng.next_u64() % 64);
                }
                f
            } else {
                rng.next_u64()
            }
        })
        .collect();
    let design = TableDesign::choose(args.max_distance, n as u64)?;
    println!(
        "{n} fingerprints generated in {:.2} s; design: {} blocks {:?}, {} tables",
        started.elapsed().as_secs_f64(),
        design.blocks.len(),
        design.blocks,
        design.tables()
    );
    let started = Instant::now();
    let pairs = all_pairs(&fps, &design);
    println!(
        "all pairs within distance {}: {} pairs in {:.2} s on {} thread(s); {}",
        args.max_distance,
        pairs.len(),
        started.elapsed().as_secs_f64(),
        rayon::current_num_threads(),
        memory()
    );
    Ok(ExitCode::SUCCESS)
}
