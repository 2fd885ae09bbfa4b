//! `tessera check`

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use tessera_engine::{CheckProgress, CheckedFile, Report, ReportFilters, describe_error};

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
    /// Once checked, keep the document in this collection of submissions (made on first
    /// use; texts kept), so later checks find it: the same work handed in twice.
    #[arg(long, value_name = "COLLECTION")]
    submit_to: Option<String>,
    /// With --submit-to: the submission's title (default: the document's).
    #[arg(long, value_name = "TITLE", requires = "submit_to")]
    submission_title: Option<String>,
    #[command(flatten)]
    filters: FilterArgs,
    /// The document to check.
    suspect: PathBuf,
}

/// A reviewer's filters of the report (as Turnitin's), applied by the report's own rules
/// (totals, shares and every format follow; excluded blocks stay in the report, marked).
#[derive(Debug, Args)]
struct FilterArgs {
    /// Count a borrowing in quotation marks as a citation, even without a reference next
    /// to it.
    #[arg(long)]
    exclude_quotes: bool,
    /// Count nothing in the document's bibliography section.
    #[arg(long)]
    exclude_bibliography: bool,
    /// Count no match of fewer words than this (0: every match).
    #[arg(long, value_name = "N", default_value_t = ReportFilters::default().min_words)]
    min_words: u32,
    /// Count no source whose matches cover less than this percent of the text (0 to 100).
    #[arg(long, value_name = "P", default_value_t = ReportFilters::default().min_percent, value_parser = percent)]
    min_percent: f64,
}

/// A percentage from 0 to 100, refused before the check runs.
fn percent(s: &str) -> std::result::Result<f64, String> {
    let p: f64 = s.parse().map_err(|_| format!("{s:?} is not a number"))?;
    if (0.0..=100.0).contains(&p) { Ok(p) } else { Err(format!("{p} is not between 0 and 100")) }
}

impl FilterArgs {
    /// The report's filters these flags give.
    fn filters(&self) -> ReportFilters {
        ReportFilters {
            exclude_quotes: self.exclude_quotes,
            exclude_bibliography: self.exclude_bibliography,
            min_words: self.min_words,
            min_percent: self.min_percent,
        }
    }

    /// Sets the filters on `report` (its totals, shares and every format follow).
    fn apply(&self, report: &mut Report) -> Result<()> {
        report.set_filters(self.filters()).map_err(|e| anyhow::anyhow!("--min-percent: {e}"))
    }
}

pub fn run(args: &CheckArgs, quiet: bool) -> Result<ExitCode> {
    let engine = super::open_engine(&args.dir, args.search.options())?;
    let bar = super::progress::check_bar(quiet);
    let observe = |progress: CheckProgress<'_>| bar.set_message(describe_progress(progress));
    let submission =
        args.submit_to.as_ref().map(|c| tessera_engine::Submission::new(c.clone(), args.submission_title.clone()));
    let checked = engine.check_path_submitting(&args.suspect, submission.as_ref(), &observe);
    bar.finish_and_clear();
    let (checked, submitted) = checked.with_context(|| format!("checking {}", args.suspect.display()))?;
    for (name, done) in &submitted {
        let collection = args.submit_to.as_deref().unwrap_or_default();
        eprintln!("{name}: kept as document {} of collection {collection:?}", done.doc().0);
    }
    // An archive: every member is checked and reported on its own.
    let mut results = match checked {
        CheckedFile::Document(mut report) => {
            args.filters.apply(&mut report)?;
            write_report(&report, args.format, args.output.as_deref())?;
            return Ok(ExitCode::SUCCESS);
        }
        CheckedFile::Archive(results) => results,
    };
    for report in results.iter_mut().filter_map(|(_, r)| r.as_mut().ok()) {
        args.filters.apply(report)?;
    }
    let failed = results.iter().filter(|(_, r)| r.is_err()).count();
    match args.format {
        Format::Json => {
            let items: Vec<serde_json::Value> = results
                .iter()
                .map(|(name, result)| match result {
                    Ok(report) => serde_json::json!({ "name": name, "report": report }),
                    Err(e) => serde_json::json!({ "name": name, "error": format!("{e:#}") }),
                })
                .collect();
            let mut buf = serde_json::to_vec_pretty(&items).context("rendering JSON")?;
            buf.push(b'\n');
            write_bytes(&buf, args.output.as_deref())?;
        }
        Format::Text => {
            let color = args.output.is_none() && std::io::IsTerminal::is_terminal(&std::io::stdout());
            let mut buf = Vec::new();
            for (name, result) in &results {
                writeln!(buf, "== {name}")?;
                match result {
                    Ok(report) => super::render(report, Format::Text, color, &mut buf)?,
                    Err(e) => writeln!(buf, "error: {}", describe_error(e))?,
                }
                writeln!(buf)?;
            }
            write_bytes(&buf, args.output.as_deref())?;
        }
        Format::Html | Format::Pdf => {
            let (ext, kind) = if args.format == Format::Pdf { ("pdf", "PDF") } else { ("html", "HTML") };
            let Some(dir) = args.output.as_deref() else {
                anyhow::bail!(
                    "{} is an archive of {} documents: give a directory with -o for their {kind} reports",
                    args.suspect.display(),
                    results.len()
                );
            };
            fs_err::create_dir_all(dir)?;
            for (i, (name, result)) in results.iter().enumerate() {
                let member = name.rsplit("!/").next().unwrap_or(name);
                let file: String =
                    member.chars().map(|c| if c.is_alphanumeric() || c == '.' || c == '-' { c } else { '_' }).collect();
                match result {
                    Ok(report) => {
                        let path = dir.join(format!("{:03}-{file}.{ext}", i + 1));
                        write_report(report, args.format, Some(&path))?;
                        eprintln!("{name}: {}", path.display());
                    }
                    Err(e) => eprintln!("{name}: error: {}", describe_error(e)),
                }
            }
        }
    }
    Ok(super::inputs_exit_code(results.len() as u64, failed as u64))
}

/// What the progress bar says at each step of a check.
fn describe_progress(progress: CheckProgress<'_>) -> String {
    match progress {
        CheckProgress::Extracting { name } => format!("reading {name}"),
        CheckProgress::Fingerprinting { name, chars } => format!("fingerprinting {name} ({chars} characters)"),
        CheckProgress::Searching { collection, progress } => {
            format!("searching {collection}: {} sources aligned, {} candidates left", progress.aligned, progress.left)
        }
        CheckProgress::Reporting => "building the report".to_owned(),
    }
}

fn write_bytes(buf: &[u8], output: Option<&std::path::Path>) -> Result<()> {
    match output {
        Some(path) => Ok(fs_err::write(path, buf)?),
        None => std::io::stdout().lock().write_all(buf).context("writing to standard output"),
    }
}

/// Renders a report to a file or standard output.
pub fn write_report(report: &Report, format: Format, output: Option<&std::path::Path>) -> Result<()> {
    if format == Format::Pdf && output.is_none() && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        anyhow::bail!("a PDF report is binary and is not written to a terminal: give a file with -o report.pdf");
    }
    let mut buf = Vec::new();
    let color = output.is_none() && std::io::IsTerminal::is_terminal(&std::io::stdout());
    super::render(report, format, color, &mut buf)?;
    match output {
        Some(path) => {
            fs_err::write(path, &buf)?;
        }
        None => std::io::stdout().lock().write_all(&buf).context("writing to standard output")?,
    }
    Ok(())
}
