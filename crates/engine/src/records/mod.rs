//! The inputs of collection dedup: what each input holds, the order its records are read
//! in, and each record's id, so that `tessera dedup`, the Python package and the Spark job
//! read the same documents under the same ids.
//!
//! It owns: the expansion of the inputs (patterns, folders of record shards, `-` for
//! standard input: [`DedupInputs::resolve`]); recognising an input as documents or
//! records by its name or its content ([`RecordFormat::by_name`], Parquet's magic bytes, a
//! JSON object on the first line), gzip and zstd recognised by content; reading the
//! records of JSONL, CSV/TSV and (cargo feature `parquet`) Parquet in order, keeping each
//! record's bytes; the default id (the line or row number, `FILE:LINE` when there are
//! several inputs: [`record_id`]); and stopping early when a field named by the caller is
//! in no record. It never writes: writing kept records back is a surface's work, which
//! [`RecordInput::read_again`] serves.
//!
//! ```no_run
//! use tessera_engine::records::{DedupInputs, RecordEvent, RecordFields};
//! # fn main() -> Result<(), tessera_engine::records::RecordsError> {
//! let fields = RecordFields::new(None, Some("id"));
//! if let DedupInputs::Records(mut records) = DedupInputs::resolve(&["data/part-*.jsonl.gz".into()], &fields)? {
//!     records.read(&fields, |_input, event| {
//!         if let RecordEvent::Document { id, text, .. } = event {
//!             println!("{id}: {} bytes", text.len());
//!         }
//!         Ok::<(), tessera_engine::records::RecordsError>(())
//!     })?;
//! }
//! # Ok(()) }
//! ```

use std::collections::BTreeSet;
use std::io::Read;
use std::path::PathBuf;

mod delimited;
mod inputs;
mod jsonl;
#[cfg(feature = "parquet")]
mod parquet;
mod rewrite;

pub use inputs::open;
pub use jsonl::JsonRecord;
pub use rewrite::rewrite_text;

/// Why reading dedup inputs failed. Messages name the input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordsError {
    /// The inputs or a record's fields are not what dedup reads (mixed inputs, a missing
    /// column, a field in no record, ...).
    #[error("{0}")]
    Invalid(String),
    /// Reading failed; `what` says what was read, `source` why it failed.
    #[error("{what}")]
    Read {
        /// What was read ("reading x.csv").
        what: String,
        /// The cause.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A file could not be opened or read (the cause names it, from `fs_err`).
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// Listing a folder failed.
    #[error(transparent)]
    List(Box<crate::Error>),
}

impl RecordsError {
    fn read(what: impl Into<String>, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        RecordsError::Read { what: what.into(), source: Box::new(source) }
    }
}

impl From<crate::Error> for RecordsError {
    fn from(e: crate::Error) -> Self {
        RecordsError::List(Box::new(e))
    }
}

type Result<T, E = RecordsError> = std::result::Result<T, E>;

/// The format of a record input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordFormat {
    /// One JSON object per line.
    Jsonl,
    /// Delimited records with a header (`,` for CSV, tab for TSV).
    Delimited(u8),
    /// Parquet rows.
    Parquet,
}

impl RecordFormat {
    /// The format's name in messages: JSONL, CSV, TSV, Parquet.
    pub fn name(self) -> &'static str {
        match self {
            RecordFormat::Jsonl => "JSONL",
            RecordFormat::Delimited(b'\t') => "TSV",
            RecordFormat::Delimited(_) => "CSV",
            RecordFormat::Parquet => "Parquet",
        }
    }

    /// The record format a file name says (`.jsonl`, `.ndjson`, `.csv`, `.tsv`,
    /// `.parquet`, in any case), looking under `.gz`, `.zst` and `.zstd`; `None` for
    /// another name.
    pub fn by_name(name: &str) -> Option<Self> {
        let mut name = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
        for suffix in [".gz", ".zst", ".zstd"] {
            if let Some(stem) = name.strip_suffix(suffix) {
                name = stem.to_owned();
                break;
            }
        }
        match name.rsplit_once('.')?.1 {
            "jsonl" | "ndjson" => Some(RecordFormat::Jsonl),
            "csv" => Some(RecordFormat::Delimited(b',')),
            "tsv" => Some(RecordFormat::Delimited(b'\t')),
            "parquet" => Some(RecordFormat::Parquet),
            _ => None,
        }
    }
}

/// The fields (columns) a record's text and id are read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordFields {
    /// The text field ([`crate::dedup_defaults::TEXT_FIELD`] unless given).
    pub text: String,
    /// The id field; `None`: the default id ([`record_id`]).
    pub id: Option<String>,
    /// Whether a field was named by the caller (a file of any name is then read as
    /// JSONL, and documents are refused).
    pub given: bool,
    /// A record (a JSONL line, a CSV or TSV row with its quoted line breaks) of more bytes
    /// than this is refused by itself, named by its line, and never held in memory
    /// ([`MAX_RECORD_BYTES`] unless given): a line of gigabytes (a decompressed bomb, a
    /// stream of zeros) or a CSV quote never closed costs this much, not the file.
    pub max_bytes: usize,
}

/// The largest record read by default: 16 MiB, the cap on one document's text
/// ([`crate::DEFAULT_MAX_TEXT_BYTES`]), a dozen times a long thesis: a record's text is
/// one document. At 64 MiB a record just under the cap cost 486 MB to dedup and a CSV
/// row over it 346 MB, past the 300 MB the CLI is held to (issue 52).
pub const MAX_RECORD_BYTES: usize = 16 << 20;

const _: () = assert!(MAX_RECORD_BYTES as u64 == crate::DEFAULT_MAX_TEXT_BYTES, "a record is capped as a text is");

impl RecordFields {
    /// The fields the caller named, the default text field for one not named.
    pub fn new(text: Option<&str>, id: Option<&str>) -> Self {
        Self {
            text: text.unwrap_or(crate::dedup_defaults::TEXT_FIELD).to_owned(),
            id: id.map(str::to_owned),
            given: text.is_some() || id.is_some(),
            max_bytes: MAX_RECORD_BYTES,
        }
    }

    /// These fields with records capped at `max_bytes` ([`RecordFields::max_bytes`]).
    #[must_use]
    pub fn with_max_bytes(self, max_bytes: usize) -> Self {
        Self { max_bytes: max_bytes.max(1), ..self }
    }
}

/// A record: its id (the id field's value, or the line or row number) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The id.
    pub id: String,
    /// The text.
    pub text: String,
}

/// Why a record gives no document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordFail {
    /// The text or id field is missing; the record's field names.
    Missing(Vec<String>),
    /// Anything else (not JSON, not an object, a text that is not a string, ...).
    Bad(String),
}

impl RecordFail {
    /// The reason given for a skipped record.
    pub fn reason(&self, fields: &RecordFields) -> String {
        match self {
            RecordFail::Bad(reason) => reason.clone(),
            RecordFail::Missing(names) => match &fields.id {
                Some(id) if names.contains(&fields.text) => format!("no field {id:?}"),
                _ => format!("no field {:?}", fields.text),
            },
        }
    }
}

/// The id of a record read without an id field, or the name of one that failed: its line
/// (or row) number `line` in input `name`, as `FILE:LINE` when there are several inputs
/// (`many`).
pub fn record_id(name: &str, line: u64, many: bool) -> String {
    if many { format!("{name}:{line}") } else { line.to_string() }
}

/// Stops a wrong text or id field early: when the first records of an input all miss a
/// field, one error names the fields seen instead of a line per record.
#[derive(Debug, Default)]
pub struct FieldCheck {
    seen: BTreeSet<String>,
    found: u64,
    missing: u64,
    bad: u64,
    first_bad: Option<String>,
}

/// How many records may fail before any gives a document.
const FEW: u64 = 5;

impl FieldCheck {
    /// Counts one record of `input` (`None`: it gave a document); an error once [`FEW`]
    /// records failed and none gave a document.
    pub fn count(&mut self, fail: Option<&RecordFail>, fields: &RecordFields, input: &str) -> Result<()> {
        match fail {
            None => self.found += 1,
            Some(RecordFail::Missing(names)) => {
                self.missing += 1;
                self.seen.extend(names.iter().cloned());
            }
            Some(RecordFail::Bad(reason)) => {
                self.bad += 1;
                self.first_bad.get_or_insert_with(|| reason.clone());
            }
        }
        if self.found == 0 && self.missing == 0 && self.bad >= FEW {
            let reason = self.first_bad.as_deref().unwrap_or_default();
            return Err(RecordsError::Invalid(format!(
                "{input} does not read as records: its first {FEW} records failed, the first with: {reason}"
            )));
        }
        if self.found == 0 && self.missing > 0 && self.missing + self.bad >= FEW {
            return Err(self.no_field(fields, input));
        }
        Ok(())
    }

    /// At the end of an input: an error when records missed a field and none had it.
    pub fn finish(&self, fields: &RecordFields, input: &str) -> Result<()> {
        if self.found == 0 && self.missing > 0 {
            return Err(self.no_field(fields, input));
        }
        Ok(())
    }

    fn no_field(&self, fields: &RecordFields, input: &str) -> RecordsError {
        let wanted = match &fields.id {
            Some(id) => format!("fields {} and {id}", fields.text),
            None => format!("field {}", fields.text),
        };
        let seen = self.seen.iter().cloned().collect::<Vec<_>>().join(", ");
        let n = self.missing + self.bad;
        RecordsError::Invalid(format!("no record has {wanted} (the first {n} records of {input}); fields seen: {seen}"))
    }
}

/// Checks the first lines of a JSONL input (`name` in messages) as
/// [`RecordInputs::read`] checks them ([`FieldCheck`]), for a job that reads the input
/// itself (the Spark job): an error when the first records all miss a field or none reads
/// as a record. Blank lines are no records.
pub fn check_jsonl_sample<'a>(
    name: &str,
    lines: impl IntoIterator<Item = &'a [u8]>,
    fields: &RecordFields,
) -> Result<()> {
    let mut check = FieldCheck::default();
    for (i, line) in lines.into_iter().enumerate() {
        if !JsonRecord::is_blank(line) {
            let record = JsonRecord::parse(line, i as u64 + 1, &fields.text, fields.id.as_deref());
            check.count(record.as_ref().err(), fields, name)?;
        }
    }
    check.finish(fields, name)
}

/// One record input: a file, or standard input (`-`), and its format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordInput {
    /// The path; `None` for standard input.
    pub path: Option<PathBuf>,
    /// Its format.
    pub format: RecordFormat,
}

impl RecordInput {
    /// Its name in ids and messages (`-` for standard input).
    pub fn name(&self) -> String {
        inputs::name(self.path.as_deref())
    }

    /// Reads a file input's records again, in the order [`RecordInputs::read`] read them,
    /// for writing them back: `sink` gets each record's bytes as read (a JSONL line or a
    /// CSV/TSV record, with a final newline; nothing for a Parquet row) and whether it
    /// gives a document. Blank JSONL lines are no records. Standard input cannot be read
    /// again (keep its records' bytes from the first reading).
    pub fn read_again<E: From<RecordsError>>(
        &self,
        fields: &RecordFields,
        mut sink: impl FnMut(&[u8], bool) -> Result<(), E>,
    ) -> Result<(), E> {
        let name = self.name();
        let Some(path) = &self.path else {
            return Err(RecordsError::Invalid("standard input is read once".to_owned()).into());
        };
        match self.format {
            RecordFormat::Jsonl => jsonl::read(open(path)?, &name, fields, |_, raw, r| sink(raw, r.is_ok())),
            RecordFormat::Delimited(delimiter) => {
                delimited::read(open(path)?, delimiter, &name, fields, |_| Ok(()), |_, raw, r| sink(raw, r.is_ok()))
            }
            RecordFormat::Parquet => read_parquet(path, &name, fields, |_, r| sink(&[], r.is_ok())),
        }
    }
}

/// What a record input gives, in order.
#[derive(Debug)]
pub enum RecordEvent<'a> {
    /// The header of a CSV/TSV input (its bytes as read), before its first record.
    Header(&'a [u8]),
    /// A record that gives a document: its id, its text and its bytes as read (a JSONL
    /// line or a CSV/TSV record, with a final newline; empty for a Parquet row).
    Document {
        /// The id: the id field's value, or [`record_id`].
        id: String,
        /// The text.
        text: String,
        /// The record's bytes.
        raw: &'a [u8],
    },
    /// A record that gives no document: `FILE:LINE` (or `-:LINE`) and the reason.
    Failed {
        /// Where the record is.
        name: String,
        /// Why it gives no document.
        reason: String,
    },
}

/// The record inputs of a dedup run, in order, with standard input opened once (its first
/// bytes were read to tell its format).
pub struct RecordInputs {
    inputs: Vec<RecordInput>,
    stdin: Option<Box<dyn Read>>,
}

impl std::fmt::Debug for RecordInputs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordInputs").field("inputs", &self.inputs).finish_non_exhaustive()
    }
}

/// What the inputs of a dedup run hold: documents or records, never both.
#[derive(Debug)]
pub enum DedupInputs {
    /// Folders and document files, in order (ids are the files' paths).
    Documents(Vec<PathBuf>),
    /// Record inputs, in order.
    Records(RecordInputs),
}

impl DedupInputs {
    /// The inputs of `args`, in order: patterns (`data/part-*.jsonl`) expanded where the
    /// shell did not (sorted), a folder of record files replaced by its files (sorted by
    /// path), `-` standard input (once), and each recognised as documents or records
    /// ([`RecordFormat::by_name`], else by content). Documents and records cannot be mixed,
    /// and documents take no `fields` ([`RecordFields::given`]).
    pub fn resolve(args: &[PathBuf], fields: &RecordFields) -> Result<Self> {
        let paths = inputs::open_folders(inputs::expand(args)?)?;
        if paths.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
            return Err(RecordsError::Invalid("- (standard input) can be given once".to_owned()));
        }
        let mut documents = Vec::new();
        let mut records = Vec::new();
        let mut stdin = None;
        for path in paths {
            if path.as_os_str() == "-" {
                let (format, reader) = inputs::recognise_stdin(&fields.text)?;
                stdin = Some(reader);
                records.push(RecordInput { path: None, format });
            } else {
                match inputs::recognise(&path, fields.given)? {
                    Some(format) => records.push(RecordInput { path: Some(path), format }),
                    None => documents.push(path),
                }
            }
        }
        match (documents.first(), records.first()) {
            (Some(d), Some(r)) => Err(RecordsError::Invalid(format!(
                "dedup takes documents or records, not both: {} holds documents and {} {} records; \
                 run dedup on each, or turn the documents into records",
                d.display(),
                r.name(),
                r.format.name()
            ))),
            (Some(first), None) if fields.given => {
                let what = if first.is_dir() { "a folder" } else { "a document" };
                Err(RecordsError::Invalid(format!(
                    "--text-field and --id-field name fields of records (JSONL, CSV, TSV, Parquet), and {} is {what}",
                    first.display()
                )))
            }
            (_, None) => Ok(DedupInputs::Documents(documents)),
            (None, Some(_)) => Ok(DedupInputs::Records(RecordInputs { inputs: records, stdin })),
        }
    }
}

impl RecordInputs {
    /// The inputs, in order.
    pub fn inputs(&self) -> &[RecordInput] {
        &self.inputs
    }

    /// Reads every input's records in order (inputs in the order given, records in file
    /// order): `sink` gets the input and each of its events. A record's id is its id
    /// field's value, else [`record_id`] (`FILE:LINE` when there are several inputs);
    /// an input whose first records all miss a field is an error ([`FieldCheck`]).
    pub fn read<E: From<RecordsError>>(
        &mut self,
        fields: &RecordFields,
        sink: impl FnMut(&RecordInput, RecordEvent<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let many = self.inputs.len() > 1;
        // The header of a CSV/TSV input and its records go to the one sink.
        let sink = std::cell::RefCell::new(sink);
        for input in &self.inputs {
            let name = input.name();
            let mut check = FieldCheck::default();
            let mut take = |line: u64, raw: &[u8], record: Result<Record, RecordFail>| -> Result<(), E> {
                check.count(record.as_ref().err(), fields, &name)?;
                let event = match record {
                    Ok(Record { id, text }) => {
                        let id = if fields.id.is_none() { record_id(&name, line, many) } else { id };
                        RecordEvent::Document { id, text, raw }
                    }
                    Err(fail) => RecordEvent::Failed { name: format!("{name}:{line}"), reason: fail.reason(fields) },
                };
                (sink.borrow_mut())(input, event)
            };
            let reader = match &input.path {
                Some(path) if input.format != RecordFormat::Parquet => Some(open(path)?),
                Some(_) => None,
                None => Some(
                    self.stdin.take().ok_or_else(|| RecordsError::Invalid("standard input is read once".to_owned()))?,
                ),
            };
            match (input.format, reader) {
                (RecordFormat::Jsonl, Some(reader)) => jsonl::read(reader, &name, fields, &mut take)?,
                (RecordFormat::Delimited(delimiter), Some(reader)) => delimited::read(
                    reader,
                    delimiter,
                    &name,
                    fields,
                    |header| (sink.borrow_mut())(input, RecordEvent::Header(header)),
                    &mut take,
                )?,
                (_, _) => match &input.path {
                    Some(path) => read_parquet(path, &name, fields, |row, record| take(row, &[], record))?,
                    None => {
                        return Err(
                            RecordsError::Invalid("Parquet cannot be read from standard input".to_owned()).into()
                        );
                    }
                },
            }
            check.finish(fields, &name)?;
        }
        Ok(())
    }
}

/// The rows of a Parquet file, in order, with their number from one.
#[cfg(feature = "parquet")]
fn read_parquet<E: From<RecordsError>>(
    path: &std::path::Path,
    _name: &str,
    fields: &RecordFields,
    sink: impl FnMut(u64, Result<Record, RecordFail>) -> Result<(), E>,
) -> Result<(), E> {
    parquet::read(path, fields, sink)
}

#[cfg(not(feature = "parquet"))]
fn read_parquet<E: From<RecordsError>>(
    _: &std::path::Path,
    name: &str,
    _: &RecordFields,
    _: impl FnMut(u64, Result<Record, RecordFail>) -> Result<(), E>,
) -> Result<(), E> {
    Err(RecordsError::Invalid(format!(
        "{name} is a Parquet file, and this tessera was built without Parquet support (cargo feature `parquet` of \
         tessera-cli)"
    ))
    .into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_say_the_format_under_compression() {
        assert_eq!(RecordFormat::by_name("a/part-1.jsonl.gz"), Some(RecordFormat::Jsonl));
        assert_eq!(RecordFormat::by_name("x.TSV.zst"), Some(RecordFormat::Delimited(b'\t')));
        assert_eq!(RecordFormat::by_name("x.csv"), Some(RecordFormat::Delimited(b',')));
        assert_eq!(RecordFormat::by_name("x.parquet"), Some(RecordFormat::Parquet));
        assert_eq!(RecordFormat::by_name("x.txt.gz"), None);
        assert_eq!(RecordFormat::by_name("gz"), None);
        assert_eq!(RecordFormat::by_name("file:///data/part-0.ndjson"), Some(RecordFormat::Jsonl));
    }

    #[test]
    fn ids_and_reasons() {
        assert_eq!(record_id("a.jsonl", 3, false), "3");
        assert_eq!(record_id("a.jsonl", 3, true), "a.jsonl:3");
        let fields = RecordFields::new(None, Some("key"));
        assert_eq!(fields.text, crate::dedup_defaults::TEXT_FIELD);
        assert!(fields.given && !RecordFields::new(None, None).given);
        assert_eq!(RecordFail::Missing(vec!["text".into()]).reason(&fields), "no field \"key\"");
        assert_eq!(RecordFail::Missing(vec!["key".into()]).reason(&fields), "no field \"text\"");
    }

    #[test]
    fn a_sample_of_lines_is_checked_as_a_whole_input_is() {
        let fields = RecordFields::new(Some("body"), None);
        let lines: [&[u8]; 3] = [b"{\"id\": 1, \"text\": \"a\"}\n", b"\n", b"{\"lang\": \"en\", \"text\": \"b\"}"];
        let err = check_jsonl_sample("x.jsonl", lines, &fields).unwrap_err();
        assert_eq!(
            err.to_string(),
            "no record has field body (the first 2 records of x.jsonl); fields seen: id, lang, text"
        );
        assert!(check_jsonl_sample("x.jsonl", lines, &RecordFields::new(None, None)).is_ok());
        let junk: [&[u8]; 5] = [b"a", b"b", b"c", b"d", b"e"];
        let err = check_jsonl_sample("x.jsonl", junk, &fields).unwrap_err().to_string();
        assert!(err.starts_with("x.jsonl does not read as records: its first 5 records failed"), "{err}");
    }

    #[test]
    fn records_are_read_in_order_with_file_line_ids() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.jsonl");
        std::fs::write(&a, "{\"text\": \"one\"}\n\n{\"body\": 1}\n{\"text\": \"two\"}").unwrap();
        let b = dir.path().join("b.csv");
        std::fs::write(&b, "id,text\n7,three\n").unwrap();
        let fields = RecordFields::new(None, None);
        let DedupInputs::Records(mut records) = DedupInputs::resolve(&[a.clone(), b.clone()], &fields).unwrap() else {
            panic!("records")
        };
        let mut got = Vec::new();
        records
            .read(&fields, |_, event| {
                got.push(match event {
                    RecordEvent::Header(h) => format!("header {}", String::from_utf8_lossy(h).trim_end()),
                    RecordEvent::Document { id, text, .. } => format!("{id} {text}"),
                    RecordEvent::Failed { name, reason } => format!("failed {name} {reason}"),
                });
                Ok::<_, RecordsError>(())
            })
            .unwrap();
        let (a, b) = (a.display(), b.display());
        assert_eq!(
            got,
            [
                format!("{a}:1 one"),
                format!("failed {a}:3 no field \"text\""),
                format!("{a}:4 two"),
                "header id,text".to_owned(),
                format!("{b}:2 three"),
            ]
        );
    }
}
