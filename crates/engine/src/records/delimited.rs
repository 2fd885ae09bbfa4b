//! CSV and TSV records: a header naming the columns, then one record per row (a quoted
//! value may span lines), each kept with its original bytes.

use std::cell::RefCell;
use std::io::Read;
use std::rc::Rc;

use super::{Record, RecordFail, RecordFields, RecordsError};

/// A reader that keeps a copy of the bytes it passes on, so that the CSV reader's record
/// positions can be cut out of the original bytes. The copy holds the record being read
/// (what was not cut yet); past `cap` bytes the read fails with [`TooLong`]: a quote that
/// is never closed would otherwise make the rest of the file one record.
struct Tee<R> {
    inner: R,
    copy: Rc<RefCell<Vec<u8>>>,
    cap: usize,
}

/// The error [`Tee`] fails with when one record runs past its cap.
#[derive(Debug)]
struct TooLong;

impl std::fmt::Display for TooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a record over the size limit")
    }
}

impl std::error::Error for TooLong {}

impl<R: Read> Read for Tee<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.copy.borrow().len() > self.cap {
            return Err(std::io::Error::other(TooLong));
        }
        let n = self.inner.read(buf)?;
        self.copy.borrow_mut().extend_from_slice(&buf[..n]);
        Ok(n)
    }
}

/// Whether a CSV reading error is [`Tee`]'s cap.
fn is_too_long(e: &csv::Error) -> bool {
    matches!(e.kind(), csv::ErrorKind::Io(io) if io.get_ref().is_some_and(|inner| inner.is::<TooLong>()))
}

/// Reads CSV or TSV records (a header first) in order: `sink` gets each record's first line
/// number, its original bytes and its record or failure; `header` gets the header's bytes
/// first. A missing column is an error at once, naming the columns. The default id is the
/// line number.
pub(super) fn read<E: From<RecordsError>>(
    reader: impl Read,
    delimiter: u8,
    name: &str,
    fields: &RecordFields,
    mut header: impl FnMut(&[u8]) -> Result<(), E>,
    mut sink: impl FnMut(u64, &[u8], Result<Record, RecordFail>) -> Result<(), E>,
) -> Result<(), E> {
    let copy = Rc::new(RefCell::new(Vec::new()));
    // The copy also holds what the CSV reader buffered ahead (8 KiB at most).
    let tee = Tee { inner: reader, copy: Rc::clone(&copy), cap: fields.max_bytes.saturating_add(1 << 16) };
    let mut csv = csv::ReaderBuilder::new().delimiter(delimiter).flexible(true).from_reader(tee);
    let names: Vec<String> = csv
        .byte_headers()
        .map_err(|e| RecordsError::read(format!("reading the header of {name}"), e))?
        .iter()
        .map(|h| String::from_utf8_lossy(h).into_owned())
        .collect();
    let column = |f: &str| names.iter().position(|n| n == f);
    let missing = |f: &str| RecordsError::Invalid(format!("{name} has no column {f}; columns: {}", names.join(", ")));
    let text_at = column(&fields.text).ok_or_else(|| missing(&fields.text))?;
    let id_at = match &fields.id {
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
    header(&cut(csv.position().byte()).1)?;
    let mut record = csv::ByteRecord::new();
    loop {
        let more = match csv.read_byte_record(&mut record) {
            Ok(more) => more,
            // One record ran past the cap: a quote never closed (or a record of gigabytes).
            // It fails by itself, named by its first line; what follows cannot be told
            // apart from it, so the file ends there.
            Err(e) if is_too_long(&e) => {
                let fail = RecordFail::Bad(format!(
                    "a record running past {} bytes from line {} (a quote never closed?): the rest of {name} is not read",
                    fields.max_bytes,
                    lines + 1
                ));
                return sink(lines + 1, b"", Err(fail));
            }
            Err(e) => return Err(RecordsError::read(format!("reading {name}"), e).into()),
        };
        if !more {
            return Ok(());
        }
        let (line, raw) = cut(csv.position().byte());
        if record.len() != names.len() {
            let fail = RecordFail::Bad(format!("{} fields where the header has {}", record.len(), names.len()));
            sink(line, &raw, Err(fail))?;
            continue;
        }
        let cell = |at: usize| -> Result<String, RecordFail> {
            let bytes = record.get(at).ok_or_else(|| RecordFail::Bad(format!("no value in column {}", at + 1)))?;
            String::from_utf8(bytes.to_vec()).map_err(|_| RecordFail::Bad(format!("column {} is not UTF-8", names[at])))
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
        let fields = RecordFields::new(Some("text"), Some("id"));
        let mut head = Vec::new();
        let mut got = Vec::new();
        read(
            data.as_bytes(),
            b',',
            "x",
            &fields,
            |h| {
                head = h.to_vec();
                Ok::<_, RecordsError>(())
            },
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

    /// Line numbers and reasons of every record `data` gives, as `sink` gets them.
    fn outcomes(data: &[u8], fields: &RecordFields) -> Vec<(u64, Result<String, String>)> {
        let mut got = Vec::new();
        read(
            data,
            b',',
            "x.csv",
            fields,
            |_| Ok::<_, RecordsError>(()),
            |line, _, r| {
                got.push((line, r.map(|r| r.text).map_err(|e| e.reason(fields))));
                Ok(())
            },
        )
        .unwrap();
        got
    }

    #[test]
    fn a_row_of_the_wrong_width_fails_by_itself() {
        let fields = RecordFields::new(Some("text"), Some("id"));
        let got = outcomes(b"id,text\n1,a\n2,b,extra\n3\n4,d\n", &fields);
        assert_eq!(got[0], (2, Ok("a".to_owned())));
        assert_eq!(got[1], (3, Err("3 fields where the header has 2".to_owned())));
        assert_eq!(got[2], (4, Err("1 fields where the header has 2".to_owned())));
        assert_eq!(got[3], (5, Ok("d".to_owned())));
    }

    #[test]
    fn a_quote_never_closed_fails_its_record_with_its_line_not_the_memory() {
        let fields = RecordFields::new(Some("text"), Some("id")).with_max_bytes(1000);
        let mut data = b"id,text\n1,fine\n2,\"opened and never closed\n".to_vec();
        for i in 0..20_000 {
            data.extend_from_slice(format!("{i},more text on a line\n").as_bytes());
        }
        let got = outcomes(&data, &fields);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0], (2, Ok("fine".to_owned())));
        let (line, reason) = (&got[1].0, got[1].1.as_ref().unwrap_err());
        assert_eq!(*line, 3);
        assert!(reason.contains("running past 1000 bytes from line 3") && reason.contains("x.csv"), "{reason}");
    }

    #[test]
    fn a_missing_column_names_the_columns() {
        let fields = RecordFields::new(Some("body"), None);
        let err = read(
            "id,lang,text\n1,en,a\n".as_bytes(),
            b',',
            "x.csv",
            &fields,
            |_| Ok::<_, RecordsError>(()),
            |_, _, _| Ok(()),
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "x.csv has no column body; columns: id, lang, text");
    }
}
