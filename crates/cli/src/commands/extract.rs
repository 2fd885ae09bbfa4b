//! `tessera extract`: what extraction makes of a file (text, metadata, where each
//! character came from, warnings), one document per archive member.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use tessera_engine::{Document, Extractor, describe_error};

/// Arguments of `tessera extract`.
#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = ExtractFormat::Text)]
    format: ExtractFormat,
    /// With `--format json`: leave out the per-character origins (PDF has one per character).
    #[arg(long)]
    no_origins: bool,
    /// The files to extract (archives give one document per member).
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

/// Output formats of `tessera extract`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExtractFormat {
    /// A header per document (format, title, metadata, warnings), then its text.
    Text,
    /// One JSON object per document per line (JSON Lines): name, and the extracted
    /// document or the error.
    Json,
}

pub fn run(args: &ExtractArgs) -> Result<ExitCode> {
    let extractor = Extractor::new(super::extract_config());
    let mut out = std::io::stdout().lock();
    let (mut documents, mut failed) = (0u64, 0u64);
    for file in &args.files {
        for doc in extractor.extract_path_documents(file) {
            documents += 1;
            failed += u64::from(doc.result.is_err());
            match args.format {
                ExtractFormat::Json => write_json(&mut out, doc, args.no_origins)?,
                ExtractFormat::Text => write_text(&mut out, &doc)?,
            }
        }
    }
    out.flush().context("writing to standard output")?;
    Ok(super::inputs_exit_code(documents, failed))
}

fn write_json(out: &mut impl Write, doc: Document, no_origins: bool) -> Result<()> {
    let value = match doc.result {
        Ok(mut extracted) => {
            if no_origins {
                extracted.origins.clear();
            }
            serde_json::json!({ "name": doc.name, "document": extracted })
        }
        Err(e) => serde_json::json!({ "name": doc.name, "error": describe_error(&e) }),
    };
    serde_json::to_writer(&mut *out, &value).context("writing JSON")?;
    writeln!(out).context("writing to standard output")
}

fn write_text(out: &mut impl Write, doc: &Document) -> Result<()> {
    writeln!(out, "== {}", doc.name)?;
    match &doc.result {
        Err(e) => writeln!(out, "error: {}", describe_error(e))?,
        Ok(d) => {
            write!(out, "format: {}", d.format)?;
            if let Some(encoding) = &d.encoding {
                write!(out, ", encoding: {encoding}")?;
            }
            writeln!(out, ", {} characters", d.text.chars().count())?;
            if let Some(title) = &d.title {
                writeln!(out, "title: {title}")?;
            }
            let m = &d.metadata;
            if !m.authors.is_empty() {
                writeln!(out, "authors: {}", m.authors.join("; "))?;
            }
            for (label, value) in [
                ("created", &m.created),
                ("modified", &m.modified),
                ("language", &m.language),
                ("producer", &m.producer),
            ] {
                if let Some(value) = value {
                    writeln!(out, "{label}: {value}")?;
                }
            }
            if let Some(pages) = m.pages {
                writeln!(out, "pages: {pages}")?;
            }
            for warning in &d.warnings {
                writeln!(out, "warning: {warning}")?;
            }
            writeln!(out)?;
            writeln!(out, "{}", d.text)?;
        }
    }
    writeln!(out)?;
    Ok(())
}
