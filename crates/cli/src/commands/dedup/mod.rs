//! `tessera dedup`: clusters of near-duplicate documents in a collection.

use fs_err::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use serde::Serialize;
use tessera_engine::{DedupConfig, DedupMethod, DedupSummary, Deduplicator, Verify};

mod inputs;
#[cfg(feature = "parquet")]
mod parquet;
mod records;

use inputs::{Input, Kind};
use records::{Fail, FieldCheck, Fields, Record, read_delimited, read_jsonl};

use super::CreateArgs;

/// Near-duplicate methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// MinHash signatures, LSH bands, Jaccard similarity.
    Minhash,
    /// 64-bit SimHash with tf-idf weights, permuted tables, Hamming distance.
    Simhash,
}

impl From<Method> for DedupMethod {
    fn from(m: Method) -> Self {
        match m {
            Method::Minhash => DedupMethod::Minhash,
            Method::Simhash => DedupMethod::Simhash,
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
    #[arg(long, value_enum, default_value_t = Method::Minhash)]
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
    #[arg(long, default_value_t = 0.8)]
    threshold: f64,
    /// SimHash: the largest Hamming distance between near-duplicates.
    #[arg(long, default_value_t = 3)]
    max_distance: u32,
    /// MinHash: hash functions per signature.
    #[arg(long, default_value_t = 128)]
    num_perm: usize,
    /// MinHash: seed of the hash functions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// MinHash: how candidates are verified: `exact` keeps every document's shingle set
    /// (8 bytes per distinct shingle) and compares them; `estimate` compares signatures
    /// (less memory; its error is about 0.04 at 128 functions, so pairs near the
    /// threshold go either way); `auto` is exact while the sets fit 2 GiB.
    #[arg(long, value_enum, default_value_t = VerifyArg::Auto)]
    verify: VerifyArg,
    /// MinHash: the same as `--verify exact`.
    #[arg(long, conflicts_with = "verify")]
    exact: bool,
    /// Texts with fewer words than this are shingled cyclically (seed 004).
    #[arg(long, default_value_t = 10)]
    short_words: usize,
    /// Records: the field (column) holding the text (default "text"). With it, a file of
    /// another name is read as JSONL.
    #[arg(long)]
    text_field: Option<String>,
    /// Records: the field (column) holding the id, used as given (default: the line
    /// number, or `file:line` when there are several inputs).
    #[arg(long)]
    id_field: Option<String>,
    /// Where to write the clusters, one JSON line per document (default: stdout).
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// Write the kept records here, unchanged, in the input's format (a CSV/TSV with its
    /// header; Parquet: the rows with every column; documents: their paths, one a line).
    /// Files are read a second time for it (standard input's records are held in memory).
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

const BATCH: usize = 1024;

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
}

/// The record inputs' state: the batch being filled, the CSV header, and when records are
/// written back, the bytes of standard input's records (files are read a second time).
struct Collector<'a> {
    dedup: Deduplicator,
    fields: Fields<'a>,
    /// Several inputs: default ids are `file:line`.
    many: bool,
    batch: Vec<(String, String)>,
    /// Records are written back (`--write-kept`, `--write-removed`).
    writing: bool,
    /// The input being read is standard input.
    from_stdin: bool,
    stdin_raws: Vec<Vec<u8>>,
    header: Option<Vec<u8>>,
    /// Standard input, its first bytes read already to tell its format.
    stdin: Option<Box<dyn std::io::Read>>,
    bar: indicatif::ProgressBar,
}

impl Collector<'_> {
    fn flush(&mut self) {
        self.dedup.add_texts(&self.batch);
        self.bar.inc(self.batch.len() as u64);
        self.batch.clear();
    }

    fn take(
        &mut self,
        name: &str,
        check: &mut FieldCheck,
        line: u64,
        raw: &[u8],
        record: Result<Record, Fail>,
    ) -> Result<()> {
        check.count(record.as_ref().err(), &self.fields, name)?;
        match record {
            Ok(Record { id, text }) => {
                let id = if self.many && self.fields.id.is_none() { format!("{name}:{line}") } else { id };
                self.batch.push((id, text));
                if self.writing && self.from_stdin {
                    self.stdin_raws.push(raw.to_vec());
                }
                if self.batch.len() == BATCH {
                    self.flush();
                }
            }
            Err(fail) => self.dedup.add_failure(format!("{name}:{line}"), fail.reason(&self.fields)),
        }
        Ok(())
    }

    /// Reads one record input.
    fn read(&mut self, input: &Input) -> Result<()> {
        let name = input.name();
        let mut check = FieldCheck::default();
        self.from_stdin = input.path.is_none();
        let read = match input.kind {
            Kind::Jsonl => {
                let reader = self.open(input)?;
                let fields = Fields { text: self.fields.text, id: self.fields.id };
                read_jsonl(reader, &name, &fields, |line, raw, record| self.take(&name, &mut check, line, raw, record))
            }
            Kind::Delimited(delimiter) => {
                let reader = self.open(input)?;
                let fields = Fields { text: self.fields.text, id: self.fields.id };
                // The header comes before the first record (or alone, in an input with none).
                let header = std::cell::RefCell::new(None);
                let mut first = true;
                read_delimited(
                    reader,
                    delimiter,
                    &name,
                    &fields,
                    |h| *header.borrow_mut() = Some(h.to_vec()),
                    |line, raw, record| {
                        if first {
                            first = false;
                            self.header_is(&name, header.borrow_mut().take())?;
                        }
                        self.take(&name, &mut check, line, raw, record)
                    },
                )?;
                if first { self.header_is(&name, header.into_inner()) } else { Ok(()) }
            }
            Kind::Parquet => self.read_parquet(input, &name, &mut check),
            Kind::Documents => bail!("{name} holds documents, not records"),
        };
        read?;
        check.finish(&self.fields, &name)
    }

    /// An input's bytes, decompressed.
    fn open(&mut self, input: &Input) -> Result<Box<dyn std::io::Read>> {
        match &input.path {
            Some(path) => inputs::open(path),
            None => self.stdin.take().context("standard input is read once"),
        }
    }

    /// Keeps the first CSV header; another input's must be the same when records are
    /// written back into one file.
    fn header_is(&mut self, name: &str, header: Option<Vec<u8>>) -> Result<()> {
        let Some(header) = header else { return Ok(()) };
        let trim = |h: &[u8]| h.trim_ascii_end().to_vec();
        match &self.header {
            None => self.header = Some(header),
            Some(first) if self.writing && trim(first) != trim(&header) => bail!(
                "{name} has another header than the first CSV/TSV input; --write-kept and --write-removed \
                 write one file with one header"
            ),
            Some(_) => {}
        }
        Ok(())
    }

    #[cfg(feature = "parquet")]
    fn read_parquet(&mut self, input: &Input, name: &str, check: &mut FieldCheck) -> Result<()> {
        let Some(path) = &input.path else { bail!("Parquet cannot be read from standard input") };
        let fields = Fields { text: self.fields.text, id: self.fields.id };
        parquet::read(path, &fields, |row, record| self.take(name, check, row, &[], record))
    }

    #[cfg(not(feature = "parquet"))]
    fn read_parquet(&mut self, _: &Input, name: &str, _: &mut FieldCheck) -> Result<()> {
        bail!(
            "{name} is a Parquet file, and this tessera was built without Parquet support (cargo feature `parquet` of tessera-cli)"
        )
    }
}

/// Writes each record to the kept or the removed output (`outs`), by its line of `lines`
/// (records that gave no document go to neither). Files are read a second time, so memory
/// never holds the records; standard input's were kept from the first reading.
fn write_back(
    records: &[&Input],
    fields: &Fields,
    lines: &[tessera_engine::DedupLine],
    stdin_raws: &[Vec<u8>],
    outs: [Option<&mut BufWriter<File>>; 2],
) -> Result<()> {
    let [mut kept, mut removed] = outs;
    let mut next = lines.iter();
    let mut put = |raw: &[u8]| -> Result<()> {
        let line = next.next().context("an input changed while dedup read it")?;
        let out = if line.kept { kept.as_mut() } else { removed.as_mut() };
        if let Some(out) = out {
            out.write_all(raw)?;
        }
        Ok(())
    };
    for input in records {
        let name = input.name();
        match (&input.path, input.kind) {
            (None, _) => stdin_raws.iter().try_for_each(|raw| put(raw))?,
            (Some(path), Kind::Jsonl) => {
                read_jsonl(inputs::open(path)?, &name, fields, |_, raw, r| if r.is_ok() { put(raw) } else { Ok(()) })?
            }
            (Some(path), Kind::Delimited(delimiter)) => read_delimited(
                inputs::open(path)?,
                delimiter,
                &name,
                fields,
                |_| {},
                |_, raw, r| if r.is_ok() { put(raw) } else { Ok(()) },
            )?,
            (Some(_), kind) => bail!("{name}: {} records are not written back", kind.name()),
        }
    }
    if next.next().is_some() {
        bail!("an input changed while dedup read it");
    }
    Ok(())
}

/// [`write_back`] for Parquet inputs: Parquet files with the inputs' columns.
#[cfg(feature = "parquet")]
fn write_back_parquet(
    records: &[&Input],
    fields: &Fields,
    lines: &[tessera_engine::DedupLine],
    kept: Option<BufWriter<File>>,
    removed: Option<BufWriter<File>>,
) -> Result<()> {
    let inputs: Vec<(&std::path::Path, String)> =
        records.iter().filter_map(|i| i.path.as_deref().map(|p| (p, i.name()))).collect();
    let mut next = lines.iter();
    let next_kept = || Ok(next.next().context("an input changed while dedup read it")?.kept);
    parquet::write_back(&inputs, fields, next_kept, kept, removed)?;
    if next.next().is_some() {
        bail!("an input changed while dedup read it");
    }
    Ok(())
}

#[cfg(not(feature = "parquet"))]
fn write_back_parquet(
    _: &[&Input],
    _: &Fields,
    _: &[tessera_engine::DedupLine],
    _: Option<BufWriter<File>>,
    _: Option<BufWriter<File>>,
) -> Result<()> {
    bail!("this tessera was built without Parquet support (cargo feature `parquet` of tessera-cli)")
}

/// Opens an output file of `--write-kept` or `--write-removed`.
fn create(path: Option<&PathBuf>) -> Result<Option<BufWriter<File>>> {
    path.map(|p| Ok(BufWriter::new(File::create(p)?))).transpose()
}

/// Writes the signatures (`--write-signatures`) of everything sketched, then clusters.
fn finish(
    dedup: Deduplicator,
    signatures: Option<&PathBuf>,
) -> Result<(tessera_engine::DedupResult, Option<(usize, usize)>)> {
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

/// How many skipped inputs are named one by one.
const NAMED_FAILURES: usize = 20;

pub fn run(args: &DedupArgs, quiet: bool) -> Result<ExitCode> {
    let started = Instant::now();
    if args.write_signatures.is_some() && args.method != Method::Minhash {
        bail!("--write-signatures writes MinHash signatures; SimHash fingerprints depend on the whole collection");
    }
    let mut dedup = Deduplicator::new(args.config(), super::extract_config())?;
    let fields_given = args.text_field.is_some() || args.id_field.is_some();
    let writing = args.write_kept.is_some() || args.write_removed.is_some();

    let paths = inputs::open_folders(inputs::expand(&args.inputs)?)?;
    if paths.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        bail!("- (standard input) can be given once");
    }
    let mut all = Vec::with_capacity(paths.len());
    let mut stdin = None;
    for path in paths {
        if path.as_os_str() == "-" {
            let (kind, reader) = inputs::recognise_stdin(args.text_field.as_deref().unwrap_or("text"))?;
            stdin = Some(reader);
            all.push(Input { path: None, kind });
        } else {
            let kind = inputs::recognise(&path, fields_given)?;
            all.push(Input { path: Some(path), kind });
        }
    }
    let documents: Vec<&Input> = all.iter().filter(|i| i.kind == Kind::Documents).collect();
    let records: Vec<&Input> = all.iter().filter(|i| i.kind != Kind::Documents).collect();
    if let (Some(d), Some(r)) = (documents.first(), records.first()) {
        bail!(
            "dedup takes documents or records, not both: {} holds documents and {} {} records; \
             run dedup on each, or turn the documents into records",
            d.name(),
            r.name(),
            r.kind.name()
        );
    }
    let mut kept_out = create(args.write_kept.as_ref())?;
    let mut removed_out = create(args.write_removed.as_ref())?;

    let (result, lsh, header, stdin_raws) = if records.is_empty() {
        if fields_given {
            let first = &documents[0];
            let what = if first.path.as_ref().is_some_and(|p| p.is_dir()) { "a folder" } else { "a document" };
            bail!(
                "--text-field and --id-field name fields of records (JSONL, CSV, TSV, Parquet), and {} is {what}",
                first.name()
            );
        }
        let paths: Vec<PathBuf> = documents.iter().filter_map(|i| i.path.clone()).collect();
        let files = tessera_engine::list_files(&paths)?;
        let bar = super::progress::files_bar(quiet, "sketching");
        bar.set_length(files.len() as u64);
        for chunk in files.chunks(BATCH / 4) {
            dedup.add_files(chunk);
            bar.inc(chunk.len() as u64);
        }
        bar.finish_and_clear();
        let (result, lsh) = finish(dedup, args.write_signatures.as_ref())?;
        (result, lsh, None, Vec::new())
    } else {
        if writing && let Some(other) = records.iter().find(|i| i.kind != records[0].kind) {
            bail!(
                "--write-kept and --write-removed write the input's format, and {} is {} while {} is {}",
                records[0].name(),
                records[0].kind.name(),
                other.name(),
                other.kind.name()
            );
        }
        let mut collector = Collector {
            dedup,
            fields: Fields { text: args.text_field.as_deref().unwrap_or("text"), id: args.id_field.as_deref() },
            many: records.len() > 1,
            batch: Vec::with_capacity(BATCH),
            writing,
            from_stdin: false,
            stdin_raws: Vec::new(),
            header: None,
            stdin,
            bar: super::progress::records_bar(quiet, "sketching"),
        };
        for input in &records {
            collector.read(input)?;
        }
        collector.flush();
        collector.bar.finish_and_clear();
        let (result, lsh) = finish(collector.dedup, args.write_signatures.as_ref())?;
        (result, lsh, collector.header, collector.stdin_raws)
    };

    let mut out: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(BufWriter::new(File::create(path)?)),
        None => Box::new(BufWriter::new(std::io::stdout().lock())),
    };
    for line in &result.lines {
        serde_json::to_writer(&mut out, line)?;
        out.write_all(b"\n")?;
    }
    out.flush().context("writing the clusters")?;

    if writing && records.is_empty() {
        for line in &result.lines {
            let out = if line.kept { kept_out.as_mut() } else { removed_out.as_mut() };
            if let Some(out) = out {
                writeln!(out, "{}", line.id)?;
            }
        }
    } else if writing && records[0].kind == Kind::Parquet {
        let fields = Fields { text: args.text_field.as_deref().unwrap_or("text"), id: args.id_field.as_deref() };
        write_back_parquet(&records, &fields, &result.lines, kept_out.take(), removed_out.take())?;
    } else if writing {
        for out in [&mut kept_out, &mut removed_out] {
            if let (Some(out), Some(header)) = (out.as_mut(), &header) {
                out.write_all(header)?;
            }
        }
        let fields = Fields { text: args.text_field.as_deref().unwrap_or("text"), id: args.id_field.as_deref() };
        let outs = [kept_out.as_mut(), removed_out.as_mut()];
        write_back(&records, &fields, &result.lines, &stdin_raws, outs)?;
    }
    for (out, path) in [(kept_out, &args.write_kept), (removed_out, &args.write_removed)] {
        if let (Some(mut out), Some(path)) = (out, path) {
            out.flush().with_context(|| format!("writing {}", path.display()))?;
        }
    }

    for (name, reason) in result.failed.iter().take(NAMED_FAILURES) {
        eprintln!("skipped {name}: {reason}");
    }
    if result.failed.len() > NAMED_FAILURES {
        eprintln!("... and {} more skipped", result.failed.len() - NAMED_FAILURES);
    }
    let summary = Summary { totals: result.summary, seconds: started.elapsed().as_secs_f64() };
    match args.format {
        SummaryFormat::Json => eprintln!("{}", serde_json::to_string(&summary)?),
        SummaryFormat::Text => {
            let how = match lsh {
                Some((bands, rows)) => format!(
                    "minhash, threshold {}, {bands} bands of {rows} rows, verified {}",
                    args.threshold,
                    match summary.totals.verified {
                        Some(tessera_engine::Verified::Exact) => "exactly",
                        _ => "by estimate",
                    }
                ),
                None => format!("simhash, distance <= {}", args.max_distance),
            };
            let t = &summary.totals;
            eprintln!(
                "{} documents, {} clusters, {} duplicates removed ({how}) in {:.2} s; {} failed",
                t.documents, t.clusters, t.duplicates_removed, summary.seconds, t.failed
            );
        }
    }
    let t = &summary.totals;
    Ok(super::inputs_exit_code((t.documents + t.failed) as u64, result.failed.len() as u64))
}
