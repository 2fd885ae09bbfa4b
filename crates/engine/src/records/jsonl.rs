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
        let n = reader.read_until(b'\n', &mut line).map_err(|e| RecordsError::read(format!("reading {name}"), e))?;
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
        let record = JsonRecord::parse(&line, line_no, &fields.text, fields.id.as_deref())
            .map(|JsonRecord { id, text }| Record { id, text });
        sink(line_no, &line, record)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
