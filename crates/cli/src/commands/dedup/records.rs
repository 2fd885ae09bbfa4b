//! The record inputs of `tessera dedup`: JSONL lines and CSV/TSV rows (Parquet rows are in
//! `parquet.rs`; files and folders go to the engine's deduplicator as paths).

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read};
use std::rc::Rc;

use anyhow::{Context, Result, bail};
use tessera_engine::{JsonRecord, JsonRecordFail};

/// A record: an id and a text.
pub(super) struct Record {
    pub(super) id: String,
    pub(super) text: String,
}

/// Why a record gave no document.
pub(super) enum Fail {
    /// The text or id field is missing; the record's field names.
    Missing(Vec<String>),
    /// Anything else (not JSON, not a string, ...).
    Bad(String),
}

/// Where a record's id comes from.
pub(super) struct Fields<'a> {
    /// The text field (column).
    pub(super) text: &'a str,
    /// The id field (column); `None`: the default id.
    pub(super) id: Option<&'a str>,
}

/// Stops a wrong `--text-field` or `--id-field` early: when the first records of an input
/// all miss a field, one error names the fields seen instead of a line per record.
#[derive(Default)]
pub(super) struct FieldCheck {
    seen: BTreeSet<String>,
    found: u64,
    missing: u64,
    bad: u64,
    first_bad: Option<String>,
}

/// How many records may miss a field before any has it.
const FEW: u64 = 5;

impl FieldCheck {
    /// Counts one record; an error once `FEW` records missed a field and none had it.
    pub(super) fn count(&mut self, fail: Option<&Fail>, fields: &Fields, input: &str) -> Result<()> {
        match fail {
            None => self.found += 1,
            Some(Fail::Missing(names)) => {
                self.missing += 1;
                self.seen.extend(names.iter().cloned());
            }
            Some(Fail::Bad(reason)) => {
                self.bad += 1;
                self.first_bad.get_or_insert_with(|| reason.clone());
            }
        }
        if self.found == 0 && self.missing == 0 && self.bad >= FEW {
            let reason = self.first_bad.as_deref().unwrap_or_default();
            bail!("{input} does not read as records: its first {FEW} records failed, the first with: {reason}");
        }
        if self.found == 0 && self.missing > 0 && self.missing + self.bad >= FEW {
            return Err(self.no_field(fields, input));
        }
        Ok(())
    }

    /// At the end of an input: an error when records missed a field and none had it.
    pub(super) fn finish(&self, fields: &Fields, input: &str) -> Result<()> {
        if self.found == 0 && self.missing > 0 {
            return Err(self.no_field(fields, input));
        }
        Ok(())
    }

    fn no_field(&self, fields: &Fields, input: &str) -> anyhow::Error {
        let wanted = match fields.id {
            Some(id) => format!("fields {} and {id}", fields.text),
            None => format!("field {}", fields.text),
        };
        let seen = self.seen.iter().cloned().collect::<Vec<_>>().join(", ");
        let n = self.missing + self.bad;
        anyhow::anyhow!("no record has {wanted} (the first {n} records of {input}); fields seen: {seen}")
    }
}

/// The text and id of a JSON line (the engine's rule).
fn parse_json(line: &[u8], line_no: u64, fields: &Fields) -> Result<Record, Fail> {
    match JsonRecord::parse(line, line_no, fields.text, fields.id) {
        Ok(JsonRecord { id, text }) => Ok(Record { id, text }),
        Err(JsonRecordFail::Missing(names)) => Err(Fail::Missing(names)),
        Err(JsonRecordFail::Bad(reason)) => Err(Fail::Bad(reason)),
    }
}

impl Fail {
    /// The reason printed for a skipped record.
    pub(super) fn reason(&self, fields: &Fields) -> String {
        match self {
            Fail::Bad(reason) => reason.clone(),
            Fail::Missing(names) => match fields.id {
                Some(id) if names.iter().any(|n| n == fields.text) => format!("no field {id:?}"),
                _ => format!("no field {:?}", fields.text),
            },
        }
    }
}

/// Reads JSONL records in order: `sink` gets each non-blank line's number, its bytes
/// (with a final newline) and its record or failure. The default id is the line number.
pub(super) fn read_jsonl(
    reader: impl Read,
    name: &str,
    fields: &Fields,
    mut sink: impl FnMut(u64, &[u8], Result<Record, Fail>) -> Result<()>,
) -> Result<()> {
    let mut reader = BufReader::with_capacity(1 << 16, reader);
    let (mut line, mut line_no) = (Vec::new(), 0u64);
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).with_context(|| format!("reading {name}"))?;
        if n == 0 {
            return Ok(());
        }
        line_no += 1;
        if JsonRecord::is_blank(&line) {
            continue;
        }
        if line.last() != Some(&b'\n') {
            line.push(b'\n');
        }
        let record = parse_json(&line, line_no, fields);
        sink(line_no, &line, record)?;
    }
}

/// A reader that keeps a copy of the bytes it passes on, so that the CSV reader's record
/// positions can be cut out of the original bytes.
struct Tee<R> {
    inner: R,
    copy: Rc<RefCell<Vec<u8>>>,
}

impl<R: Read> Read for Tee<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.copy.borrow_mut().extend_from_slice(&buf[..n]);
        Ok(n)
    }
}

/// Reads CSV or TSV records (a header first) in order: `sink` gets each record's first line
/// number, its original bytes and its record or failure; `header` gets the header's bytes
/// first. A missing column is an error at once, naming the columns. The default id is the
/// line number.
pub(super) fn read_delimited(
    reader: impl Read,
    delimiter: u8,
    name: &str,
    fields: &Fields,
    mut header: impl FnMut(&[u8]),
    mut sink: impl FnMut(u64, &[u8], Result<Record, Fail>) -> Result<()>,
) -> Result<()> {
    let copy = Rc::new(RefCell::new(Vec::new()));
    let tee = Tee { inner: reader, copy: Rc::clone(&copy) };
    let mut csv = csv::ReaderBuilder::new().delimiter(delimiter).flexible(true).from_reader(tee);
    let names: Vec<String> = csv
        .byte_headers()
        .with_context(|| format!("reading the header of {name}"))?
        .iter()
        .map(|h| String::from_utf8_lossy(h).into_owned())
        .collect();
    let column = |f: &str| names.iter().position(|n| n == f);
    let missing = |f: &str| anyhow::anyhow!("{name} has no column {f}; columns: {}", names.join(", "));
    let text_at = column(fields.text).ok_or_else(|| missing(fields.text))?;
    let id_at = match fields.id {
        Some(f) => Some(column(f).ok_or_else(|| missing(f))?),
        None => None,
    };
    // Bytes of `copy` start at offset `base` of the input. The reader's position after a
    // record may stop before its line terminator: `cut` takes the terminator along when it
    // was read already, and drops one left at the start of the next record.
    let mut base = 0u64;
    let mut start = 0u64;
    // Lines before `start`: the record's first line is counted here, since the reader's
    // own line numbers are off by one after a CRLF header.
    let mut lines = 0u64;
    let mut cut = |end: u64| -> (u64, Vec<u8>) {
        let mut bytes = copy.borrow_mut();
        let mut end = (end - base) as usize;
        match bytes.get(end) {
            Some(b'\n') => end += 1,
            Some(b'\r') => end += if bytes.get(end + 1) == Some(&b'\n') { 2 } else { 1 },
            _ => {}
        }
        let from = ((start - base) as usize).min(end);
        let mut raw: Vec<u8> = bytes[from..end].to_vec();
        bytes.drain(..end);
        base += end as u64;
        start = base;
        let lead = raw.iter().take_while(|b| matches!(b, b'\r' | b'\n')).count();
        let first = lines + 1 + raw[..lead].iter().filter(|&&b| b == b'\n').count() as u64;
        lines += raw.iter().filter(|&&b| b == b'\n').count() as u64;
        raw.drain(..lead);
        if raw.last() != Some(&b'\n') {
            raw.push(b'\n');
            lines += 1;
        }
        (first, raw)
    };
    header(&cut(csv.position().byte()).1);
    let mut record = csv::ByteRecord::new();
    loop {
        let more = csv.read_byte_record(&mut record).with_context(|| format!("reading {name}"))?;
        if !more {
            return Ok(());
        }
        let (line, raw) = cut(csv.position().byte());
        let cell = |at: usize| -> Result<String, Fail> {
            let bytes = record.get(at).ok_or_else(|| Fail::Bad(format!("no value in column {}", at + 1)))?;
            String::from_utf8(bytes.to_vec()).map_err(|_| Fail::Bad(format!("column {} is not UTF-8", names[at])))
        };
        let parsed = cell(text_at).and_then(|text| {
            let id = match id_at {
                Some(at) => cell(at)?,
                None => line.to_string(),
            };
            Ok(Record { id, text })
        });
        sink(line, &raw, parsed)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_records_keep_their_bytes_even_across_lines() {
        let data = "id,text\r\n1,\"two\nlines\"\n2,plain";
        let fields = Fields { text: "text", id: Some("id") };
        let mut head = Vec::new();
        let mut got = Vec::new();
        read_delimited(
            data.as_bytes(),
            b',',
            "x",
            &fields,
            |h| head = h.to_vec(),
            |line, raw, r| {
                let r = r.ok().unwrap();
                got.push((line, String::from_utf8(raw.to_vec()).unwrap(), r.id, r.text));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(head, b"id,text\r\n");
        assert_eq!(
            got,
            [
                (2, "1,\"two\nlines\"\n".to_owned(), "1".to_owned(), "two\nlines".to_owned()),
                (4, "2,plain\n".to_owned(), "2".to_owned(), "plain".to_owned()),
            ]
        );
    }

    #[test]
    fn a_missing_column_names_the_columns() {
        let fields = Fields { text: "body", id: None };
        let err = read_delimited("id,lang,text\n1,en,a\n".as_bytes(), b',', "x.csv", &fields, |_| {}, |_, _, _| Ok(()))
            .unwrap_err();
        assert_eq!(err.to_string(), "x.csv has no column body; columns: id, lang, text");
    }
}
