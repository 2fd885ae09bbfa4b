//! `tessera bench`: figures for docs/performance.md. Timing lives here, never in tests.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::{Args, Subcommand};
use tessera_engine::{AddMode, CollectionConfig, CollectionKind, Engine, EngineOptions, FingerprintSettings};
use tessera_eval::rng::{Draws, SplitMix64 as Rng};

use super::IndexDir;

/// Benchmarks that print figures.
// Parsed once per run: the size of the largest variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Normalize + shingle throughput on one core, in MB/s.
    Fingerprint(FingerprintArgs),
    /// Build a synthetic collection of N documents (and a 50,000-character suspect that
    /// borrows from some of them) to measure index size and check latency at scale.
    Generate(GenerateArgs),
    /// Check latency of one suspect against an index: p50, p99, mean over repeats.
    Check(CheckBenchArgs),
    /// MinHash signatures per second, end to end and the kernel alone, per thread count.
    Sketch(super::bench_near::SketchArgs),
    /// LSH build and query latency in memory and from the on-disk store, with memory.
    Lsh(super::bench_near::LshArgs),
    /// All pairs of SimHash fingerprints within a Hamming distance, with memory.
    Simhash(super::bench_near::SimhashArgs),
}

/// Arguments of `tessera bench fingerprint`.
#[derive(Debug, Args)]
pub struct FingerprintArgs {
    /// Text files to fingerprint (read once, then fingerprinted repeatedly).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Minimum measuring time in seconds.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
}

/// Arguments of `tessera bench generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    #[command(flatten)]
    dir: IndexDir,
    /// Documents to generate.
    #[arg(long, default_value_t = 1_000_000)]
    docs: u64,
    /// Words per document.
    #[arg(long, default_value_t = 300)]
    words: usize,
    /// Writer memory budget in MiB.
    #[arg(long, default_value_t = 2048)]
    memory_mb: usize,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where to write the suspect (50,000 characters).
    #[arg(long, default_value = "suspect-50k.txt")]
    suspect: PathBuf,
}

/// Arguments of `tessera bench check`.
#[derive(Debug, Args)]
pub struct CheckBenchArgs {
    #[command(flatten)]
    dir: IndexDir,
    /// The suspect.
    suspect: PathBuf,
    /// Timed repetitions (after one warm-up).
    #[arg(long, default_value_t = 20)]
    repeat: usize,
    #[command(flatten)]
    search: super::SearchArgs,
}

pub fn run(cmd: BenchCommand, quiet: bool) -> Result<ExitCode> {
    match cmd {
        BenchCommand::Fingerprint(a) => fingerprint(&a),
        BenchCommand::Generate(a) => generate(&a, quiet),
        BenchCommand::Check(a) => check(&a),
        BenchCommand::Sketch(a) => super::bench_near::sketch(&a),
        BenchCommand::Lsh(a) => super::bench_near::lsh(&a),
        BenchCommand::Simhash(a) => super::bench_near::simhash(&a),
    }
}

fn fingerprint(args: &FingerprintArgs) -> Result<ExitCode> {
    let texts: Vec<String> = args.files.iter().map(fs_err::read_to_string).collect::<std::io::Result<_>>()?;
    let total: usize = texts.iter().map(String::len).sum();
    let mut fp = tessera_engine::Fingerprinter::new(&FingerprintSettings::default())?;
    let (mut bytes, mut shingles) = (0usize, 0usize);
    let started = Instant::now();
    while started.elapsed().as_secs_f64() < args.seconds {
        for t in &texts {
            shingles += fp.fingerprint(t).hashes.len();
            bytes += t.len();
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "fingerprint (normalize + 3-word shingles), 1 thread: {:.1} MB/s, {:.2} M shingles/s ({} files, {:.1} MB per pass)",
        bytes as f64 / secs / 1e6,
        shingles as f64 / secs / 1e6,
        texts.len(),
        total as f64 / 1e6
    );
    Ok(ExitCode::SUCCESS)
}

/// A vocabulary of pronounceable pseudo-words, drawn with a Zipf-like law (rank r with
/// weight 1/r), as words are in real text.
struct Vocabulary {
    words: Vec<String>,
    cumulative: Vec<f64>,
}

impl Vocabulary {
    fn new(size: usize, rng: &mut Rng) -> Self {
        const SYLLABLES: [&str; 24] = [
            "ka", "lo", "mi", "ren", "sta", "vo", "de", "nul", "pri", "ton", "bel", "gra", "shi", "mar", "qui", "zen",
            "ost", "ula", "fer", "dis", "com", "ple", "tiv", "ani",
        ];
        let mut words = Vec::with_capacity(size);
        let mut seen = std::collections::HashSet::new();
        while words.len() < size {
            let n = 2 + rng.below(3) as usize;
            let w: String = (0..n).map(|_| SYLLABLES[rng.below(SYLLABLES.len() as u64) as usize]).collect();
            if seen.insert(w.clone()) {
                words.push(w);
            }
        }
        let mut cumulative = Vec::with_capacity(size);
        let mut acc = 0.0;
        for r in 1..=size {
            acc += 1.0 / r as f64;
            cumulative.push(acc);
        }
        Self { words, cumulative }
    }

    fn word(&self, rng: &mut Rng) -> &str {
        let total = self.cumulative.last().copied().unwrap_or(1.0);
        let x = rng.unit() * total;
        let i = self.cumulative.partition_point(|&c| c < x).min(self.words.len() - 1);
        &self.words[i]
    }

    fn text(&self, words: usize, rng: &mut Rng) -> String {
        let mut s = String::with_capacity(words * 8);
        for i in 0..words {
            if i > 0 {
                s.push(if rng.below(12) == 0 { '\n' } else { ' ' });
            }
            s.push_str(self.word(rng));
        }
        s
    }
}

fn doc_seed(seed: u64, doc: u64) -> Rng {
    Rng::new(seed ^ doc.wrapping_mul(0xa076_1d64_78bd_642f))
}

fn generate(args: &GenerateArgs, quiet: bool) -> Result<ExitCode> {
    let mut rng = Rng::new(args.seed);
    let vocab = Vocabulary::new(100_000, &mut rng);
    let options = EngineOptions { memory_budget: args.memory_mb << 20, batch_size: 4096, ..EngineOptions::default() };
    let engine = Engine::open_or_create(&args.dir.dir, &FingerprintSettings::default(), options)?;
    let collection = CollectionConfig { name: "synthetic".into(), kind: CollectionKind::Source, keep_texts: false };
    let (docs, words, seed) = (args.docs, args.words, args.seed);
    let texts = (0..docs).map(|d| {
        let mut r = doc_seed(seed, d);
        (format!("synthetic://{d}"), format!("doc {d}"), vocab.text(words, &mut r))
    });
    let bar = super::progress::files_bar(quiet, "generating");
    bar.set_length(docs);
    let summary = engine.add_texts(&collection, texts, AddMode::All, &|p| bar.set_position(p.done))?;
    bar.finish_and_clear();
    println!(
        "added {} documents ({:.1} MB of text) in {:.1} s: {:.0} documents/s",
        summary.added,
        summary.bytes as f64 / 1e6,
        summary.seconds,
        summary.added as f64 / summary.seconds
    );
    // The suspect: passages of 10 generated documents between newly generated text.
    let mut suspect = String::new();
    let mut r = Rng::new(seed.wrapping_add(99));
    while suspect.chars().count() < 50_000 {
        let d = r.below(docs);
        let source = vocab.text(words, &mut doc_seed(seed, d));
        let cut: Vec<&str> = source.split_whitespace().collect();
        let from = r.below((cut.len() / 2) as u64) as usize;
        suspect.push_str(&cut[from..from + cut.len() / 3].join(" "));
        suspect.push_str("\n\n");
        suspect.push_str(&vocab.text(600, &mut r));
        suspect.push_str("\n\n");
    }
    fs_err::write(&args.suspect, &suspect)?;
    println!("wrote {} ({} characters)", args.suspect.display(), suspect.chars().count());
    Ok(ExitCode::SUCCESS)
}

fn check(args: &CheckBenchArgs) -> Result<ExitCode> {
    let engine = super::open_engine(&args.dir, args.search.options())?;
    let text = fs_err::read_to_string(&args.suspect)?;
    let name = args.suspect.display().to_string();
    let warm = engine.check_text(&name, "suspect", &text)?;
    let mut times: Vec<Duration> = Vec::with_capacity(args.repeat);
    for _ in 0..args.repeat {
        let started = Instant::now();
        let report = engine.check_text(&name, "suspect", &text)?;
        times.push(started.elapsed());
        std::hint::black_box(report);
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let p = |q: f64| ms(times[((times.len() as f64 - 1.0) * q).round() as usize]);
    let docs: u64 = engine.collections()?.iter().map(|c| c.docs).sum();
    println!(
        "check of {} characters against {docs} documents: p50 {:.1} ms, p99 {:.1} ms, mean {:.1} ms over {} runs; {} sources, {} blocks",
        text.chars().count(),
        p(0.5),
        p(0.99),
        times.iter().map(|&d| ms(d)).sum::<f64>() / times.len().max(1) as f64,
        times.len(),
        warm.sources.len(),
        warm.blocks.len(),
    );
    Ok(ExitCode::SUCCESS)
}
