//! `tessera dedup`: clusters of near-duplicate documents in a collection.

//!
//! Only reading and writing: the inputs are resolved and read by the engine's `records`
//! (formats, order, ids), the clusters are the engine's `Deduplicator`'s, and every
//! default is `dedup_defaults`'s. `run` goes through named steps: sketch the documents or
//! the records, cluster, write the clusters, write the records back, report.

use fs_err::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use serde::Serialize;
use tessera_engine::dedup_defaults as defaults;
use tessera_engine::records::{DedupInputs, RecordEvent, RecordFields, RecordFormat, RecordInput, RecordInputs};
use tessera_engine::{DedupConfig, DedupLine, DedupMethod, DedupResult, DedupSummary, Deduplicator, Verify};

#[cfg(feature = "parquet")]
mod parquet;

use super::CreateArgs;

/// Near-duplicate methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// MinHash signatures, LSH bands, Jaccard similarity.
    Minhash,
    /// 64-bit SimHash with tf-idf weights, permuted tables, Hamming distance.
    Simhash,
    /// Identical texts (whitespace runs count as one space): the first is kept.
    Exact,
    /// Lines seen in an earlier document are removed from later ones (boilerplate); the
    /// records are written back with what is left (`--write-kept`), and one left with
    /// nothing is removed.
    Lines,
}

impl From<Method> for DedupMethod {
    fn from(m: Method) -> Self {
        match m {
            Method::Minhash => DedupMethod::Minhash,
            Method::Simhash => DedupMethod::Simhash,
            Method::Exact => DedupMethod::Exact,
            Method::Lines => DedupMethod::Lines,
        }
    }
}

impl From<DedupMethod> for Method {
    fn from(m: DedupMethod) -> Self {
        match m {
            DedupMethod::Minhash => Method::Minhash,
            DedupMethod::Simhash => Method::Simhash,
            DedupMethod::Exact => Method::Exact,
            DedupMethod::Lines => Method::Lines,
        }
    }
}

/// How MinHash candidates are verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum VerifyArg {
    /// Exact while the shingle sets fit the memory budget.
    Auto,
    /// The exact Jaccard similarity of the shingle sets.
    Exact,
    /// The signatures' estimate.
    Estimate,
}

impl From<Verify> for VerifyArg {
    fn from(v: Verify) -> Self {
        match v {
            Verify::Auto => VerifyArg::Auto,
            Verify::Exact => VerifyArg::Exact,
            Verify::Estimate => VerifyArg::Estimate,
        }
    }
}

/// Summary formats of `tessera dedup` (an HTML page makes no sense for a pipeline step).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SummaryFormat {
    /// One line for a person.
    Text,
    /// One JSON object.
    Json,
}

/// Arguments of `tessera dedup`.
#[derive(Debug, Args)]
pub struct DedupArgs {
    /// Inputs, in order: folders and files of documents (any format `tessera index` reads),
    /// or records: JSONL (`.jsonl`/`.ndjson`, or a JSON object on the first line), CSV and
    /// TSV with a header (`.csv`/`.tsv`), Parquet (`.parquet`, one document per row); gzip
    /// and zstd files are recognised by content (name them `.jsonl.gz`, `.csv.zst`, ...).
    /// Patterns (`data/part-*.jsonl`) are expanded when the shell did not; `-` is standard
    /// input (JSONL, or CSV/TSV whose header names the text field). A folder of record files only is read as those records. Documents
    /// and records cannot be mixed.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// How documents are compared.
    #[arg(long, value_enum, default_value_t = Method::from(defaults::METHOD))]
    method: Method,
    /// MinHash: the Jaccard similarity at which two documents are near-duplicates. It is
    /// measured on the sets of word shingles Tessera fingerprints with (words lowercased
    /// and NFKC-folded, stop words dropped and words stemmed unless `--keep-stop-words` /
    /// `--no-stemming`, numbers dropped, `--shingle-size` words per shingle): dropping
    /// stop words and stemming raise it for edited copies. For the raw word n-grams that
    /// datasketch and text-dedup users compare with, add `--keep-stop-words --no-stemming`.
    /// Pairs just above the threshold are found: bands are chosen so that a pair at
    /// threshold + 0.03 is a candidate with probability 0.995, and candidates are
    /// verified exactly (see `--verify`).
    #[arg(long, default_value_t = defaults::THRESHOLD)]
    threshold: f64,
    /// SimHash: the largest Hamming distance between near-duplicates.
    #[arg(long, default_value_t = defaults::MAX_DISTANCE)]
    max_distance: u32,
    /// MinHash: hash functions per signature.
    #[arg(long, default_value_t = defaults::NUM_PERM)]
    num_perm: usize,
    /// MinHash: seed of the hash functions.
    #[arg(long, default_value_t = defaults::SEED)]
    seed: u64,
    /// MinHash: how candidates are verified: `exact` keeps every document's shingle set
    /// (8 bytes per distinct shingle) and compares them; `estimate` compares signatures
    /// (less memory; its error is about 0.04 at 128 functions, so pairs near the
    /// threshold go either way); `auto` is exact while the sets fit 2 GiB.
    #[arg(long, value_enum, default_value_t = VerifyArg::from(defaults::VERIFY))]
    verify: VerifyArg,
    /// MinHash: the same as `--verify exact`.
    #[arg(long, conflicts_with = "verify")]
    exact: bool,
    /// Texts with fewer words than this are shingled cyclically (seed 004).
    #[arg(long, default_value_t = defaults::SHORT_WORDS)]
    short_words: usize,
    /// Records: the field (column) holding the text (default "text"). With it, a file of
    /// another name is read as JSONL.
    #[arg(long)]
    text_field: Option<String>,
    /// Records: the field (column) holding the id, used as given (default: the line
    /// number, or `file:line` when there are several inputs).
    #[arg(long)]
    id_field: Option<String>,
    /// Records: a record (a JSONL line, a CSV/TSV row) of more bytes than this is refused
    /// by itself, named by its line, without being held in memory (the run goes on and
    /// exits 3); a CSV quote never closed fails its record and ends its file.
    #[arg(long, value_name = "BYTES", default_value_t = tessera_engine::records::MAX_RECORD_BYTES)]
    max_record_bytes: usize,
    /// Where to write the clusters, one JSON line per document (default, or `-`: stdout).
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// Write the kept records here, unchanged, in the input's format (a CSV/TSV with its
    /// header; Parquet: the rows with every column; documents: their paths, one a line).
    /// With `--method lines`, a record's text is written without its removed lines (a JSONL
    /// line compactly, its other fields as they were). Files are read a second time for it
    /// (standard input's records are held in memory).
    #[arg(long, value_name = "FILE")]
    write_kept: Option<PathBuf>,
    /// Write the removed records (the duplicates) here, as `--write-kept` does.
    #[arg(long, value_name = "FILE")]
    write_removed: Option<PathBuf>,
    /// MinHash: write every document's signature here, one JSON line each
    /// (`{"id": ..., "minhash": [u32, ...]}`, in input order): the values the Python
    /// package's `tessera.sketch` gives for the same settings.
    #[arg(long, value_name = "FILE")]
    write_signatures: Option<PathBuf>,
    /// Summary format (on stderr).
    #[arg(long, value_enum, default_value_t = SummaryFormat::Text)]
    format: SummaryFormat,
    #[command(flatten)]
    create: CreateArgs,
}

/// The summary on stderr: the engine's totals and the time.
#[derive(Debug, Serialize)]
struct Summary {
    #[serde(flatten)]
    totals: DedupSummary,
    seconds: f64,
}

/// Documents (records) handed to the engine at a time; files a quarter of it.
const BATCH: usize = 1024;

/// How many skipped inputs are named one by one.
const NAMED_FAILURES: usize = 20;

impl DedupArgs {
    /// The engine's dedup settings these flags give.
    fn config(&self) -> DedupConfig {
        DedupConfig {
            method: self.method.into(),
            threshold: self.threshold,
            max_distance: self.max_distance,
            num_perm: self.num_perm,
            seed: self.seed,
            verify: match (self.exact, self.verify) {
                (true, _) | (_, VerifyArg::Exact) => Verify::Exact,
                (_, VerifyArg::Auto) => Verify::Auto,
                (_, VerifyArg::Estimate) => Verify::Estimate,
            },
            short_words: self.short_words,
            fingerprint: self.create.settings(),
            ..DedupConfig::default()
        }
    }

    /// The record fields `--text-field` and `--id-field` name.
    fn fields(&self) -> RecordFields {
        RecordFields::new(self.text_field.as_deref(), self.id_field.as_deref()).with_max_bytes(self.max_record_bytes)
    }

    /// Records are written back (`--write-kept`, `--write-removed`).
    fn writing(&self) -> bool {
        self.write_kept.is_some() || self.write_removed.is_some()
    }
}

pub fn run(args: &DedupArgs, quiet: bool) -> Result<ExitCode> {
    let started = Instant::now();
    if args.write_signatures.is_some() && args.method != Method::Minhash {
        bail!("--write-signatures writes MinHash signatures, and --method is {}", DedupMethod::from(args.method));
    }
    let dedup = Deduplicator::new(args.config(), super::extract_config())?;
    let fields = args.fields();
    let mut inputs = DedupInputs::resolve(&args.inputs, &fields)?;
    if let DedupInputs::Records(records) = &inputs {
        same_format_when_writing(args, records.inputs())?;
    }
    let mut outs = WriteBack::create(args)?;
    let (dedup, read) = match &mut inputs {
        DedupInputs::Documents(paths) => (sketch_documents(dedup, paths, quiet)?, Reading::default()),
        DedupInputs::Records(records) => sketch_records(dedup, records, &fields, args.writing(), quiet)?,
    };
    let (result, lsh) = finish(dedup, args.write_signatures.as_ref())?;
    write_clusters(&result.lines, args.output.as_ref())?;
    match &inputs {
        DedupInputs::Documents(_) => outs.write_ids(&result.lines)?,
        DedupInputs::Records(records) => outs.write_records(records.inputs(), &fields, &result.lines, &read)?,
    }
    outs.flush(args)?;
    report(args, &result, lsh, started)
}

/// `--write-kept` and `--write-removed` write one file in the inputs' one format.
fn same_format_when_writing(args: &DedupArgs, records: &[RecordInput]) -> Result<()> {
    if let Some(first) = records.first()
        && args.writing()
        && let Some(other) = records.iter().find(|i| i.format != first.format)
    {
        bail!(
            "--write-kept and --write-removed write the input's format, and {} is {} while {} is {}",
            first.name(),
            first.format.name(),
            other.name(),
            other.format.name()
        );
    }
    Ok(())
}

/// Extracts and sketches the files of the document inputs (folders walked), a batch at a
/// time.
fn sketch_documents(mut dedup: Deduplicator, paths: &[PathBuf], quiet: bool) -> Result<Deduplicator> {
    let files = tessera_engine::list_files(paths)?;
    let bar = super::progress::files_bar(quiet, "sketching");
    bar.set_length(files.len() as u64);
    for chunk in files.chunks(BATCH / 4) {
        dedup.add_files(chunk);
        bar.inc(chunk.len() as u64);
    }
    bar.finish_and_clear();
    Ok(dedup)
}

/// What reading the records leaves for writing them back: the first CSV/TSV header and,
/// when records are written back, the bytes of standard input's records (files are read
/// a second time).
#[derive(Default)]
struct Reading {
    header: Option<Vec<u8>>,
    stdin_raws: Vec<Vec<u8>>,
}

impl Reading {
    /// Keeps the first CSV header; another input's must be the same when records are
    /// written back into one file.
    fn header_is(&mut self, name: &str, header: &[u8], writing: bool) -> Result<()> {
        let trim = |h: &[u8]| h.trim_ascii_end().to_vec();
        match &self.header {
            None => self.header = Some(header.to_vec()),
            Some(first) if writing && trim(first) != trim(header) => bail!(
                "{name} has another header than the first CSV/TSV input; --write-kept and --write-removed \
                 write one file with one header"
            ),
            Some(_) => {}
        }
        Ok(())
    }
}

/// Reads the records of every input in order (the engine's rules: formats, ids,
/// failures) and sketches them a batch at a time.
fn sketch_records(
    mut dedup: Deduplicator,
    records: &mut RecordInputs,
    fields: &RecordFields,
    writing: bool,
    quiet: bool,
) -> Result<(Deduplicator, Reading)> {
    let bar = super::progress::records_bar(quiet, "sketching");
    let mut batch: Vec<(String, String)> = Vec::with_capacity(BATCH);
    let mut read = Reading::default();
    let flush = |dedup: &mut Deduplicator, batch: &mut Vec<(String, String)>| {
        dedup.add_texts(batch);
        bar.inc(batch.len() as u64);
        batch.clear();
    };
    records.read(fields, |input, event| -> Result<()> {
        match event {
            RecordEvent::Header(header) => read.header_is(&input.name(), header, writing)?,
            RecordEvent::Document { id, text, raw } => {
                batch.push((id, text));
                if writing && input.path.is_none() {
                    read.stdin_raws.push(raw.to_vec());
                }
                if batch.len() == BATCH {
                    flush(&mut dedup, &mut batch);
                }
            }
            RecordEvent::Failed { name, reason } => dedup.add_failure(name, reason),
        }
        Ok(())
    })?;
    flush(&mut dedup, &mut batch);
    bar.finish_and_clear();
    Ok((dedup, read))
}

/// Writes the signatures (`--write-signatures`) of everything sketched, then clusters.
fn finish(dedup: Deduplicator, signatures: Option<&PathBuf>) -> Result<(DedupResult, Option<(usize, usize)>)> {
    if let Some(path) = signatures {
        #[derive(Serialize)]
        struct Line<'a> {
            id: &'a str,
            minhash: &'a [u32],
        }
        let mut out = BufWriter::new(File::create(path)?);
        for (id, signature) in dedup.signatures() {
            serde_json::to_writer(&mut out, &Line { id, minhash: &signature.0 })?;
            out.write_all(b"\n")?;
        }
        out.flush().with_context(|| format!("writing {}", path.display()))?;
    }
    let lsh = dedup.lsh();
    Ok((dedup.finish()?, lsh))
}

/// Writes the clusters, one JSON line per document, to `--output` or standard output.
fn write_clusters(lines: &[DedupLine], output: Option<&PathBuf>) -> Result<()> {
    let mut out: Box<dyn Write> = match output.filter(|p| p.as_os_str() != "-") {
        Some(path) => Box::new(BufWriter::new(File::create(path)?)),
        None => Box::new(BufWriter::new(std::io::stdout().lock())),
    };
    for line in lines {
        serde_json::to_writer(&mut out, line)?;
        out.write_all(b"\n")?;
    }
    out.flush().context("writing the clusters")
}

/// The outputs of `--write-kept` and `--write-removed`.
struct WriteBack {
    kept: Option<BufWriter<File>>,
    removed: Option<BufWriter<File>>,
}

impl WriteBack {
    /// Opens the output files.
    fn create(args: &DedupArgs) -> Result<Self> {
        let create = |path: Option<&PathBuf>| -> Result<Option<BufWriter<File>>> {
            path.map(|p| Ok(BufWriter::new(File::create(p)?))).transpose()
        };
        Ok(Self { kept: create(args.write_kept.as_ref())?, removed: create(args.write_removed.as_ref())? })
    }

    fn out(&mut self, kept: bool) -> Option<&mut BufWriter<File>> {
        if kept { self.kept.as_mut() } else { self.removed.as_mut() }
    }

    /// Documents: their paths, one a line.
    fn write_ids(&mut self, lines: &[DedupLine]) -> Result<()> {
        for line in lines {
            if let Some(out) = self.out(line.kept) {
                writeln!(out, "{}", line.id)?;
            }
        }
        Ok(())
    }

    /// Records: each record that gave a document to the kept or the removed output, by its
    /// line of `lines`, in the input's format (a CSV/TSV with its header). Files are read
    /// a second time, so memory never holds the records; standard input's were kept from
    /// the first reading.
    fn write_records(
        &mut self,
        records: &[RecordInput],
        fields: &RecordFields,
        lines: &[DedupLine],
        read: &Reading,
    ) -> Result<()> {
        if self.kept.is_none() && self.removed.is_none() {
            return Ok(());
        }
        if records.first().is_some_and(|r| r.format == RecordFormat::Parquet) {
            return self.write_parquet(records, fields, lines);
        }
        if let Some(header) = &read.header {
            for out in [self.kept.as_mut(), self.removed.as_mut()].into_iter().flatten() {
                out.write_all(header)?;
            }
        }
        let mut next = lines.iter();
        let mut put = |input: &RecordInput, raw: &[u8]| -> Result<()> {
            let line = next.next().context("an input changed while dedup read it")?;
            let Some(out) = self.out(line.kept) else { return Ok(()) };
            if line.kept && !line.removed_lines.is_empty() {
                out.write_all(&without_lines(input, read.header.as_deref(), raw, fields, &line.removed_lines)?)?;
            } else {
                out.write_all(raw)?;
            }
            Ok(())
        };
        for input in records {
            match &input.path {
                None => read.stdin_raws.iter().try_for_each(|raw| put(input, raw))?,
                Some(_) => input.read_again(fields, |raw, document| if document { put(input, raw) } else { Ok(()) })?,
            }
        }
        if next.next().is_some() {
            bail!("an input changed while dedup read it");
        }
        Ok(())
    }

    /// Parquet inputs: Parquet files with the inputs' columns.
    #[cfg(feature = "parquet")]
    fn write_parquet(&mut self, records: &[RecordInput], fields: &RecordFields, lines: &[DedupLine]) -> Result<()> {
        let mut next = lines.iter();
        let next_kept = || {
            let line = next.next().context("an input changed while dedup read it")?;
            Ok((line.kept, line.removed_lines.clone()))
        };
        parquet::write_back(records, fields, next_kept, self.kept.take(), self.removed.take())?;
        if next.next().is_some() {
            bail!("an input changed while dedup read it");
        }
        Ok(())
    }

    #[cfg(not(feature = "parquet"))]
    fn write_parquet(&mut self, _: &[RecordInput], _: &RecordFields, _: &[DedupLine]) -> Result<()> {
        bail!("this tessera was built without Parquet support (cargo feature `parquet` of tessera-cli)")
    }

    /// Flushes what is left open, naming the file that failed.
    fn flush(self, args: &DedupArgs) -> Result<()> {
        for (out, path) in [(self.kept, &args.write_kept), (self.removed, &args.write_removed)] {
            if let (Some(mut out), Some(path)) = (out, path) {
                out.flush().with_context(|| format!("writing {}", path.display()))?;
            }
        }
        Ok(())
    }
}

/// A kept record of `--method lines` without its removed lines (the engine's rules for
/// lines and for records).
fn without_lines(
    input: &RecordInput,
    header: Option<&[u8]>,
    raw: &[u8],
    fields: &RecordFields,
    removed: &[u32],
) -> Result<Vec<u8>> {
    tessera_engine::records::rewrite_text(input.format, header, raw, fields, |text| {
        tessera_engine::remove_lines(text, removed)
    })
    .with_context(|| format!("writing a record of {} back", input.name()))
}

/// Names the skipped inputs, prints the summary (stderr) and gives the exit code.
fn report(args: &DedupArgs, result: &DedupResult, lsh: Option<(usize, usize)>, started: Instant) -> Result<ExitCode> {
    for (name, reason) in result.failed.iter().take(NAMED_FAILURES) {
        eprintln!("skipped {name}: {reason}");
    }
    if result.failed.len() > NAMED_FAILURES {
        eprintln!("... and {} more skipped", result.failed.len() - NAMED_FAILURES);
    }
    let summary = Summary { totals: result.summary.clone(), seconds: started.elapsed().as_secs_f64() };
    let t = &summary.totals;
    match args.format {
        SummaryFormat::Json => eprintln!("{}", serde_json::to_string(&summary)?),
        SummaryFormat::Text => {
            let how = match lsh {
                Some((bands, rows)) => format!(
                    "minhash, threshold {}, {bands} bands of {rows} rows, verified {}",
                    args.threshold,
                    match t.verified {
                        Some(tessera_engine::Verified::Exact) => "exactly",
                        _ => "by estimate",
                    }
                ),
                None if args.method == Method::Simhash => format!("simhash, distance <= {}", args.max_distance),
                None if args.method == Method::Lines => {
                    format!("lines, {} lines removed", t.lines_removed.unwrap_or_default())
                }
                None => "exact".to_owned(),
            };
            eprintln!(
                "{} documents, {} clusters, {} duplicates removed ({how}) in {:.2} s; {} failed",
                t.documents, t.clusters, t.duplicates_removed, summary.seconds, t.failed
            );
        }
    }
    Ok(super::inputs_exit_code((t.documents + t.failed) as u64, result.failed.len() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Command {
        #[command(flatten)]
        dedup: DedupArgs,
    }

    /// Every default of `tessera dedup` is the engine's (`dedup_defaults`).
    #[test]
    fn the_cli_defaults_are_the_engines() {
        let args = Command::try_parse_from(["tessera", "in.jsonl"]).unwrap().dedup;
        assert_eq!(args.config(), DedupConfig::default());
        assert_eq!(args.fields(), RecordFields::new(None, None));
        assert_eq!(args.fields().text, defaults::TEXT_FIELD);
        assert_eq!(args.create.shingle_size, defaults::SHINGLE_SIZE);
    }
}
