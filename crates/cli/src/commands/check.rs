//! `tessera check`

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use tessera_engine::report::Report;

use super::{Format, IndexDir};

/// Arguments of `tessera check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    dir: IndexDir,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Write the report to this file instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    search: super::SearchArgs,
    /// The document to check.
    suspect: PathBuf,
}

pub fn run(args: &CheckArgs) -> Result<ExitCode> {
    let engine = super::open_engine(&args.dir, args.search.options())?;
    let report = engine.check_path(&args.suspect).with_context(|| format!("checking {}", args.suspect.display()))?;
    write_report(&report, args.format, args.output.as_deref())?;
    Ok(ExitCode::SUCCESS)
}

/// Renders a report to a file or standard output.
pub fn write_report(report: &Report, format: Format, output: Option<&std::path::Path>) -> Result<()> {
    let mut buf = Vec::new();
    let color = output.is_none() && std::io::IsTerminal::is_terminal(&std::io::stdout());
    super::render(report, format, color, &mut buf)?;
    match output {
        Some(path) => {
            std::fs::write(path, &buf).with_context(|| format!("writing {}", path.display()))?;
        }
        None => std::io::stdout().lock().write_all(&buf).context("writing to standard output")?,
    }
    Ok(())
}
