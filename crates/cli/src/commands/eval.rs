//! `tessera eval`: detection quality on evaluation corpora.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use rayon::prelude::*;
use tessera_engine::{AddMode, CollectionConfig, CollectionKind, Engine, shards};
use tessera_eval::{Annotation, PanCorpus};

use super::CreateArgs;

#[path = "clough.rs"]
mod clough;
#[path = "neardup.rs"]
mod neardup;

/// Evaluation commands.
// Parsed once per run: the size of the largest variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum EvalCommand {
    /// PAN text alignment corpus: index all sources into one collection, check every
    /// suspicious document against the whole collection, write PAN XML detections and
    /// score them.
    Pan(PanArgs),
    /// Clough & Stevenson short answers: how the similarity of each answer to its task's
    /// source orders cut > light > heavy > non, and how well one threshold separates
    /// `non` from the rest.
    Clough(clough::CloughArgs),
    /// Planted near-duplicates (base texts and copies edited at known rates): how many
    /// pairs above the threshold `tessera dedup` puts in one cluster, and how many below
    /// it it merges.
    Neardup(neardup::NeardupArgs),
}

/// Arguments of `tessera eval pan`.
#[derive(Debug, Args)]
pub struct PanArgs {
    /// The corpus root (with `pairs`, `src/`, `susp/` and one folder per subset).
    #[arg(long)]
    corpus: PathBuf,
    /// Output folder: detections/ (one XML per pair), index/ unless --index is given,
    /// scores.json and evidence.jsonl (each detection with its evidence and confidence).
    #[arg(long)]
    out: PathBuf,
    /// Reuse this index (it must hold the corpus sources in collection "pan").
    #[arg(long)]
    index: Option<PathBuf>,
    /// The PAN pairwise task instead: align each listed suspect with its listed source
    /// only (`tessera align`), no index.
    #[arg(long)]
    pairwise: bool,
    /// Keep the sources' texts in the index (when it is created), so that alignment gets
    /// their terms and sentences (sentence seeding), as a collection created with
    /// `--keep-texts` does.
    #[arg(long)]
    keep_texts: bool,
    /// Index the sources into N shards (`tessera index --shards N`) and check against
    /// them as one index: the evidence is the same as one index's.
    #[arg(long, value_name = "N", conflicts_with = "pairwise", value_parser = clap::value_parser!(u16).range(1..))]
    shards: Option<u16>,
    #[command(flatten)]
    create: CreateArgs,
    #[command(flatten)]
    search: super::SearchArgs,
    /// Output format of the scores.
    #[arg(long, value_enum, default_value_t = super::Format::Text)]
    format: super::Format,
}

pub fn run(cmd: EvalCommand, quiet: bool) -> Result<ExitCode> {
    match cmd {
        EvalCommand::Pan(args) => pan(&args, quiet),
        EvalCommand::Clough(args) => clough::run(&args),
        EvalCommand::Neardup(args) => neardup::run(&args),
    }
}

fn pan(args: &PanArgs, quiet: bool) -> Result<ExitCode> {
    let corpus = PanCorpus::open(&args.corpus).with_context(|| format!("opening {}", args.corpus.display()))?;
    if args.pairwise {
        return pan_pairwise(args, &corpus, quiet);
    }
    let index_dir = args.index.clone().unwrap_or_else(|| args.out.join("index"));
    let collection = CollectionConfig { name: "pan".into(), kind: CollectionKind::Source, keep_texts: args.keep_texts };
    let mut timings = serde_json::Map::new();
    let sharded = args.shards.is_some() || shards::shard_dirs(&index_dir)?.is_some();
    let engine = if sharded {
        if shards::shard_dirs(&index_dir)?.is_none() {
            let n = usize::from(args.shards.unwrap_or(1));
            let started = Instant::now();
            let texts = source_texts(&corpus)?;
            let summary =
                shards::build(&index_dir, n, &args.create.settings(), args.search.options(), &collection, texts)?;
            let secs = started.elapsed().as_secs_f64();
            eprintln!("indexed {} sources into {n} shards in {secs:.1} s", summary.added);
            timings.insert("index_seconds".into(), secs.into());
        }
        Engine::open_sharded(&index_dir, args.search.options())
            .with_context(|| format!("opening the shards at {}", index_dir.display()))?
    } else {
        let engine = Engine::open_or_create(&index_dir, &args.create.settings(), args.search.options())
            .with_context(|| format!("opening {}", index_dir.display()))?;
        let has_sources = engine.collections()?.iter().any(|c| c.config.name == "pan" && c.docs > 0);
        if !has_sources {
            let started = Instant::now();
            let texts = source_texts(&corpus)?;
            let bar = super::progress::files_bar(quiet, "indexing sources");
            bar.set_length(texts.len() as u64);
            let summary = engine.add_texts(&collection, texts, AddMode::All, &|p| bar.set_position(p.done))?;
            bar.finish_and_clear();
            let secs = started.elapsed().as_secs_f64();
            eprintln!("indexed {} sources in {secs:.1} s", summary.added);
            timings.insert("index_seconds".into(), secs.into());
        }
        engine
    };

    // Every suspicious document of the listed pairs, checked against the whole collection.
    let mut suspects: Vec<String> = corpus.pairs.iter().map(|p| p.suspicious.clone()).collect();
    suspects.sort();
    suspects.dedup();
    let view = engine.view()?;
    let names: BTreeMap<u64, String> =
        view.docs()?.into_iter().map(|d| Ok((d.0, file_name(&view.meta(d)?.origin)))).collect::<Result<_>>()?;
    let det_dir = args.out.join("detections");
    if det_dir.exists() {
        fs_err::remove_dir_all(&det_dir)?;
    }
    fs_err::create_dir_all(&det_dir)?;
    let bar = super::progress::files_bar(quiet, "checking suspects");
    bar.set_length(suspects.len() as u64);
    let started = Instant::now();
    // Each detection with its evidence line and whether it is a copy's (not scored: PAN
    // lists one source per case, the one a revision credits).
    let detections: Vec<Vec<(Annotation, String, bool)>> = suspects
        .par_iter()
        .map(|susp| -> Result<Vec<(Annotation, String, bool)>> {
            let path = corpus.susp_dir().join(susp);
            let text = fs_err::read_to_string(&path)?;
            let suspect = engine.suspect_plain(susp, "", &text);
            let revision = engine.search(&view, &suspect, &collection.name)?;
            let mut out = Vec::new();
            for src in &revision.sources {
                for b in &src.blocks {
                    let source = names.get(&src.doc.0).cloned().unwrap_or_default();
                    let a = super::align::annotation(susp, &source, b);
                    let line = super::align::evidence_line(&a, b);
                    out.push((a, line, src.copy_of.is_some()));
                }
            }
            bar.inc(1);
            Ok(out)
        })
        .collect::<Result<_>>()?;
    bar.finish_and_clear();
    let check_secs = started.elapsed().as_secs_f64();
    timings.insert("check_seconds".into(), check_secs.into());
    timings.insert("suspects".into(), suspects.len().into());
    timings.insert("ms_per_suspect".into(), (1000.0 * check_secs / suspects.len().max(1) as f64).into());

    let mut by_pair: BTreeMap<(String, String), Vec<Annotation>> = BTreeMap::new();
    let (mut evidence, mut copy_evidence) = (Vec::new(), Vec::new());
    let mut copies = Vec::new();
    for (a, line, copy) in detections.into_iter().flatten() {
        if copy {
            copies.push(a);
            copy_evidence.push(line);
        } else {
            by_pair.entry((a.suspicious.clone(), a.source.clone())).or_default().push(a);
            evidence.push(line);
        }
    }
    write_evidence(&args.out, "evidence.jsonl", &evidence)?;
    write_evidence(&args.out, "copies.jsonl", &copy_evidence)?;
    // What a reader who also reads every source's copies sees.
    let with_copies = tessera_eval::score_annotations(
        &corpus,
        &by_pair.values().flatten().cloned().chain(copies.iter().cloned()).collect::<Vec<_>>(),
    )?;
    timings.insert("copy_detections".into(), copies.len().into());
    timings.insert("recall_with_copies".into(), with_copies.entire.recall.into());
    timings.insert("plagdet_with_copies".into(), with_copies.entire.plagdet.into());
    for ((susp, src), dets) in &by_pair {
        tessera_eval::write_detections(&det_dir, susp, src, dets)?;
    }
    write_scores(
        args,
        &corpus,
        &det_dir,
        timings,
        &format!(
            "checked {} suspects in {check_secs:.1} s ({:.1} ms each); with the {} blocks of copies, \
             recall {:.4}, plagdet {:.4}",
            suspects.len(),
            1000.0 * check_secs / suspects.len().max(1) as f64,
            copies.len(),
            with_copies.entire.recall,
            with_copies.entire.plagdet,
        ),
    )
}

/// The corpus's sources as `(origin, title, text)`, in file name order. The corpus defines
/// offsets on the raw files, so they are read as they are rather than through extraction
/// (which would also refuse the few junk web pages whose text is mostly control
/// characters).
fn source_texts(corpus: &PanCorpus) -> Result<Vec<(String, String, String)>> {
    let mut files: Vec<PathBuf> =
        fs_err::read_dir(corpus.src_dir())?.map(|e| e.map(|e| e.path())).collect::<std::io::Result<_>>()?;
    files.sort();
    files
        .iter()
        .map(|path| {
            let bytes = fs_err::read(path)?;
            let origin = path.display().to_string();
            Ok((origin.clone(), file_name(&origin), String::from_utf8_lossy(&bytes).into_owned()))
        })
        .collect()
}

/// The pairwise task: every listed pair aligned on its own, then scored.
fn pan_pairwise(args: &PanArgs, corpus: &PanCorpus, quiet: bool) -> Result<ExitCode> {
    let det_dir = args.out.join("detections");
    if det_dir.exists() {
        fs_err::remove_dir_all(&det_dir)?;
    }
    let pairs: Vec<(String, String)> = corpus.pairs.iter().map(|p| (p.suspicious.clone(), p.source.clone())).collect();
    let summary = super::align::align_pairs(
        &pairs,
        &corpus.src_dir(),
        &corpus.susp_dir(),
        &det_dir,
        &args.create.settings(),
        args.search.config(),
        quiet,
    )?;
    write_evidence(&args.out, "evidence.jsonl", &summary.evidence)?;
    let ms = 1000.0 * summary.seconds / summary.pairs.max(1) as f64;
    let mut timings = serde_json::Map::new();
    timings.insert("align_seconds".into(), summary.seconds.into());
    timings.insert("pairs".into(), summary.pairs.into());
    timings.insert("ms_per_pair".into(), ms.into());
    write_scores(
        args,
        corpus,
        &det_dir,
        timings,
        &format!("aligned {} pairs in {:.1} s ({ms:.2} ms each)", summary.pairs, summary.seconds),
    )
}

/// Writes `<out>/<name>` (`evidence.jsonl`, `copies.jsonl`): one line per detection with
/// its block's evidence and confidence, in suspect order (what `scripts/fit_confidence.py`
/// fits the model on).
fn write_evidence(out: &Path, name: &str, lines: &[String]) -> Result<()> {
    let mut text = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    fs_err::write(out.join(name), text)?;
    Ok(())
}

/// Scores a detection folder, writes scores.json and prints the scores.
fn write_scores(
    args: &PanArgs,
    corpus: &PanCorpus,
    det_dir: &Path,
    timings: serde_json::Map<String, serde_json::Value>,
    speed: &str,
) -> Result<ExitCode> {
    let report = tessera_eval::score_dir(corpus, det_dir)?;
    let json = serde_json::json!({ "scores": report, "timings": timings });
    fs_err::write(args.out.join("scores.json"), serde_json::to_string_pretty(&json)?)?;
    if args.format == super::Format::Json {
        println!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        println!("{report}");
        println!("{speed}");
    }
    Ok(ExitCode::SUCCESS)
}

fn file_name(origin: &str) -> String {
    Path::new(origin).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| origin.to_owned())
}
