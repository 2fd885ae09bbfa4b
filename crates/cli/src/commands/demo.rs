//! `tessera demo`: a bundled sample, end to end.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use tessera_engine::{AddMode, CheckedFile, CollectionKind, Engine, EngineOptions, FingerprintSettings};

use super::Format;

/// The bundled sample: (collection, file name, text).
const SAMPLE: &[(&str, &str, &str)] = &[
    ("library", "printing-press.txt", include_str!("../../../../testdata/demo/library/printing-press.txt")),
    ("library", "honey-bees.txt", include_str!("../../../../testdata/demo/library/honey-bees.txt")),
    ("library", "siberian-rivers.txt", include_str!("../../../../testdata/demo/library/siberian-rivers.txt")),
    ("citations", "common-expressions.txt", include_str!("../../../../testdata/demo/citations/common-expressions.txt")),
];
const SUSPECT: &str = include_str!("../../../../testdata/demo/thesis.txt");

/// Arguments of `tessera demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Folder for the sample, its index and report.html (default: tessera-demo).
    #[arg(long, default_value = "tessera-demo")]
    out: PathBuf,
}

pub fn run(args: &DemoArgs, _quiet: bool) -> Result<ExitCode> {
    let out = &args.out;
    let index_dir = out.join("index");
    if index_dir.exists() {
        fs_err::remove_dir_all(&index_dir).context("removing the old demo index")?;
    }
    let engine = Engine::open_or_create(&index_dir, &FingerprintSettings::default(), EngineOptions::default())
        .with_context(|| format!("creating the demo index at {}", index_dir.display()))?;
    for (collection, name, text) in SAMPLE {
        let dir = out.join("sample").join(collection);
        fs_err::create_dir_all(&dir)?;
        let path = dir.join(name);
        fs_err::write(&path, text)?;
    }
    for (name, kind) in [("library", CollectionKind::Source), ("citations", CollectionKind::Citation)] {
        let config = engine.collection_config(name, kind, None)?;
        let summary = engine.add_paths(&config, &[out.join("sample").join(name)], AddMode::All, &|_| {})?;
        eprintln!("indexed {} documents into collection {name:?} ({kind:?})", summary.added);
    }
    let suspect = out.join("sample").join("thesis.txt");
    fs_err::write(&suspect, SUSPECT)?;
    let CheckedFile::Document(report) = engine.check_path(&suspect)? else {
        anyhow::bail!("{} is one document, not an archive", suspect.display());
    };
    super::check::write_report(&report, Format::Text, None)?;
    let html = out.join("report.html");
    super::check::write_report(&report, Format::Html, Some(&html))?;
    let json = out.join("report.json");
    super::check::write_report(&report, Format::Json, Some(&json))?;
    eprintln!("wrote {} and {}", html.display(), json.display());
    Ok(ExitCode::SUCCESS)
}
