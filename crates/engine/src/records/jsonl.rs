//! JSONL records: one JSON object per line, the rule `tessera dedup` reads JSONL lines
//! with, shared by the CLI's reader and the Python package's kernels (the Spark job parses
//! its raw lines with it, so both skip the same records).

use std::io::{BufRead, BufReader, Read};

use serde_json::Value;

use super::{Record, RecordFail, RecordFields, RecordsError};

/// The document of one JSONL line: its id and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonRecord {
    /// The id field's value (a string, or a number as JSON writes it), or the line number
    /// when no id field is named.
    pub id: String,
    /// The text field's value.
    pub text: String,
}

impl JsonRecord {
    /// A blank line (only ASCII whitespace) is no record: it is skipped without a failure,
    /// and still counts for line numbers.
    pub fn is_blank(line: &[u8]) -> bool {
        line.iter().all(u8::is_ascii_whitespace)
    }

    /// The record of a non-blank JSONL line (number `line_no`, from one): the string field
    /// `text_field` and the string or number field `id_field` (`None`: the line number).
    pub fn parse(line: &[u8], line_no: u64, text_field: &str, id_field: Option<&str>) -> Result<Self, RecordFail> {
        let value: Value =
            serde_json::from_slice(line).map_err(|e| RecordFail::Bad(format!("not a JSON line: {e}")))?;
        let Value::Object(mut map) = value else {
            return Err(RecordFail::Bad("not a JSON object".to_owned()));
        };
        let missing = |map: &serde_json::Map<String, Value>| RecordFail::Missing(map.keys().cloned().collect());
        match map.get(text_field) {
            Some(Value::String(_)) => {}
            Some(_) => return Err(RecordFail::Bad(format!("field {text_field:?} is not a string"))),
            None => return Err(missing(&map)),
        }
        let id = match id_field {
            None => line_no.to_string(),
            Some(f) => match map.get(f) {
                Some(Value::String(s)) => s.clone(),
                Some(v @ Value::Number(_)) => v.to_string(),
                Some(_) => return Err(RecordFail::Bad(format!("field {f:?} is not a string or number"))),
                None => return Err(missing(&map)),
            },
        };
        // The text is a string (checked above): moved out, not copied.
        let Some(Value::String(text)) = map.remove(text_field) else {
            return Err(RecordFail::Bad(format!("field {text_field:?} is not a string")));
        };
        Ok(JsonRecord { id, text })
    }
}

/// Reads JSONL records in order: `sink` gets each non-blank line's number, its bytes
/// (with a final newline) and its record or failure. The default id is the line number.
pub(super) fn read<E: From<RecordsError>>(
    reader: impl Read,
    name: &str,
    fields: &RecordFields,
    mut sink: impl FnMut(u64, &[u8], Result<Record, RecordFail>) -> Result<(), E>,
) -> Result<(), E> {
    let mut reader = BufReader::with_capacity(1 << 16, reader);
    let (mut line, mut line_no) = (Vec::new(), 0u64);
    loop {
        line.clear();
        let read = read_line_capped(&mut reader, &mut line, fields.max_bytes)
            .map_err(|e| RecordsError::read(format!("reading {name}"), e))?;
        match read {
            LineRead::End => return Ok(()),
            LineRead::Line => line_no += 1,
            LineRead::TooLong(bytes) => {
                line_no += 1;
                let fail = RecordFail::Bad(format!(
                    "a line of {bytes} bytes, over the limit of {} bytes a record (--max-record-bytes)",
                    fields.max_bytes
                ));
                sink(line_no, b"", Err(fail))?;
                continue;
            }
        }
        if JsonRecord::is_blank(&line) {
            continue;
        }
        if line.last() != Some(&b'\n') {
            line.push(b'\n');
        }
        let record = JsonRecord::parse(&line, line_no, &fields.text, fields.id.as_deref())
            .map(|JsonRecord { id, text }| Record { id, text });
        sink(line_no, &line, record)?;
    }
}

/// What [`read_line_capped`] read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineRead {
    /// Nothing: the input ended.
    End,
    /// A line (with its newline, unless it was the last).
    Line,
    /// A line longer than the cap, of this many bytes: skipped to its end, not kept.
    TooLong(u64),
}

/// Reads one line into `line` (cleared by the caller) as `read_until` does, but never
/// keeps more than `cap` bytes of it: a longer line is read to its end and dropped.
fn read_line_capped(reader: &mut impl BufRead, line: &mut Vec<u8>, cap: usize) -> std::io::Result<LineRead> {
    let mut total = 0u64;
    let mut over = false;
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(match (total, over) {
                (0, _) => LineRead::End,
                (_, true) => LineRead::TooLong(total),
                (_, false) => LineRead::Line,
            });
        }
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(at) => (&buf[..=at], true),
            None => (buf, false),
        };
        let n = chunk.len();
        total += n as u64;
        if !over && line.len() + n > cap {
            over = true;
            line.clear();
            line.shrink_to_fit();
        }
        if !over {
            line.extend_from_slice(chunk);
        }
        reader.consume(n);
        if done {
            return Ok(if over { LineRead::TooLong(total) } else { LineRead::Line });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_over_the_cap_is_skipped_whole_and_the_next_read() {
        let input: Vec<u8> = [b"{\"text\": \"a\"}\n".as_slice(), &[b'0'; 5000], b"\n{\"text\": \"b\"}"].concat();
        let mut reader = BufReader::with_capacity(64, input.as_slice());
        let mut line = Vec::new();
        let mut got = Vec::new();
        loop {
            line.clear();
            match read_line_capped(&mut reader, &mut line, 100).unwrap() {
                LineRead::End => break,
                read => got.push((read, line.clone())),
            }
        }
        assert_eq!(
            got,
            vec![
                (LineRead::Line, b"{\"text\": \"a\"}\n".to_vec()),
                (LineRead::TooLong(5001), Vec::new()),
                (LineRead::Line, b"{\"text\": \"b\"}".to_vec()),
            ]
        );
        // Through the reader: the long line is a failure of its own, the others records.
        let fields = RecordFields::new(None, None).with_max_bytes(100);
        let mut seen = Vec::new();
        read::<RecordsError>(input.as_slice(), "x.jsonl", &fields, |n, _, r| {
            seen.push((n, r.map(|r| r.text).map_err(|e| e.reason(&fields))));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen.len(), 3);
        assert_eq!(seen[0], (1, Ok("a".to_owned())));
        assert!(seen[1].0 == 2 && seen[1].1.as_ref().unwrap_err().contains("over the limit of 100 bytes"));
        assert_eq!(seen[2], (3, Ok("b".to_owned())));
    }

    #[test]
    fn records_ids_and_failures() {
        let r = JsonRecord::parse(br#"{"id": 7, "text": "a b"}"#, 3, "text", Some("id")).unwrap();
        assert_eq!(r, JsonRecord { id: "7".into(), text: "a b".into() });
        let r = JsonRecord::parse(b"{\"text\": \"x\"}\n", 3, "text", None).unwrap();
        assert_eq!(r.id, "3");
        let fail = JsonRecord::parse(br#"{"id": "a", "body": "x"}"#, 1, "text", Some("id")).unwrap_err();
        assert_eq!(fail, RecordFail::Missing(vec!["body".into(), "id".into()]));
        let fail = JsonRecord::parse(br#"{"text": "x"}"#, 1, "text", Some("id")).unwrap_err();
        assert_eq!(fail, RecordFail::Missing(vec!["text".into()]));
        let fail = JsonRecord::parse(br#"{"text": 5}"#, 1, "text", None).unwrap_err();
        assert_eq!(fail, RecordFail::Bad("field \"text\" is not a string".into()));
        assert!(matches!(JsonRecord::parse(b"[1]", 1, "text", None), Err(RecordFail::Bad(_))));
        assert!(matches!(JsonRecord::parse(b"{not json", 1, "text", None), Err(RecordFail::Bad(_))));
        assert!(JsonRecord::is_blank(b" \t\r\n") && !JsonRecord::is_blank(b" {}"));
    }
}
