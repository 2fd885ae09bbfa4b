//! A record written back with another text: what `tessera dedup --method lines` writes
//! for a record whose boilerplate lines it removed. Every other field stays as read.

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::{RecordFields, RecordFormat, RecordsError};

/// `raw` (a record's bytes as [`super::RecordEvent::Document`] or
/// [`super::RecordInput::read_again`] give them, with its final newline) with the value
/// of the text field replaced by `rewrite` of it, in the same format: a JSONL line keeps its other
/// fields' JSON as written and their order (the object is written compactly); a CSV/TSV
/// record (`header`: its file's header bytes) is written again with the csv crate's
/// quoting. Parquet rows are rewritten by their writer, column by column, not here.
pub fn rewrite_text(
    format: RecordFormat,
    header: Option<&[u8]>,
    raw: &[u8],
    fields: &RecordFields,
    rewrite: impl FnOnce(&str) -> String,
) -> Result<Vec<u8>, RecordsError> {
    match format {
        RecordFormat::Jsonl => rewrite_json(raw, &fields.text, rewrite),
        RecordFormat::Delimited(delimiter) => {
            let header = header.ok_or_else(|| RecordsError::Invalid("a CSV/TSV record without its header".into()))?;
            rewrite_delimited(delimiter, header, raw, &fields.text, rewrite)
        }
        RecordFormat::Parquet => Err(RecordsError::Invalid("Parquet rows are not rewritten one by one".into())),
    }
}

/// An object's members in their order, each value as written.
struct Members(Vec<(String, Box<RawValue>)>);

impl<'de> serde::Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Walk;
        impl<'de> Visitor<'de> for Walk {
            type Value = Members;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry::<String, Box<RawValue>>()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }
        d.deserialize_map(Walk)
    }
}

fn rewrite_json(raw: &[u8], field: &str, rewrite: impl FnOnce(&str) -> String) -> Result<Vec<u8>, RecordsError> {
    let invalid = |e: serde_json::Error| RecordsError::Invalid(format!("a JSONL record changed while read: {e}"));
    let Members(mut members) = serde_json::from_slice(raw).map_err(invalid)?;
    let slot = members
        .iter_mut()
        .find(|(name, _)| name == field)
        .ok_or_else(|| RecordsError::Invalid(format!("a JSONL record without its field {field:?}")))?;
    let old: String = serde_json::from_str(slot.1.get()).map_err(invalid)?;
    slot.1 = RawValue::from_string(serde_json::to_string(&rewrite(&old)).map_err(invalid)?).map_err(invalid)?;
    let mut out = Vec::with_capacity(raw.len());
    out.push(b'{');
    for (i, (name, value)) in members.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        serde_json::to_writer(&mut out, name).map_err(invalid)?;
        out.push(b':');
        out.extend_from_slice(value.get().as_bytes());
    }
    out.extend_from_slice(b"}\n");
    Ok(out)
}

fn rewrite_delimited(
    delimiter: u8,
    header: &[u8],
    raw: &[u8],
    field: &str,
    rewrite: impl FnOnce(&str) -> String,
) -> Result<Vec<u8>, RecordsError> {
    let read = |bytes: &[u8]| -> Result<csv::ByteRecord, RecordsError> {
        let mut reader =
            csv::ReaderBuilder::new().delimiter(delimiter).has_headers(false).flexible(true).from_reader(bytes);
        let mut record = csv::ByteRecord::new();
        match reader.read_byte_record(&mut record) {
            Ok(true) => Ok(record),
            Ok(false) => Err(RecordsError::Invalid("an empty CSV/TSV record".into())),
            Err(e) => Err(RecordsError::read("reading a CSV/TSV record again", e)),
        }
    };
    let names = read(header)?;
    let at = names
        .iter()
        .position(|n| n == field.as_bytes())
        .ok_or_else(|| RecordsError::Invalid(format!("no column {field}")))?;
    let record = read(raw)?;
    let old =
        record.get(at).ok_or_else(|| RecordsError::Invalid(format!("a CSV/TSV record without its column {field}")))?;
    let text = rewrite(&String::from_utf8_lossy(old));
    let mut writer = csv::WriterBuilder::new().delimiter(delimiter).flexible(true).from_writer(Vec::new());
    let values = record.iter().enumerate().map(|(i, v)| if i == at { text.as_bytes() } else { v });
    writer.write_record(values).map_err(|e| RecordsError::read("writing a CSV/TSV record", e))?;
    writer.into_inner().map_err(|e| RecordsError::Invalid(format!("writing a CSV/TSV record: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields() -> RecordFields {
        RecordFields::new(None, None)
    }

    #[test]
    fn a_jsonl_record_keeps_its_other_fields_and_their_order() {
        let raw = br#"{"z": 1, "text": "old\nlines", "a": {"b": [1, 2.50]}, "id": "x"}
"#;
        let out = rewrite_text(RecordFormat::Jsonl, None, raw, &fields(), |old| format!("{old} \"text\"\n")).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"z\":1,\"text\":\"old\\nlines \\\"text\\\"\\n\",\"a\":{\"b\": [1, 2.50]},\"id\":\"x\"}\n"
        );
    }

    #[test]
    fn a_csv_record_has_its_text_column_replaced_and_quoted() {
        let header = b"id,text,lang\n";
        let raw = b"7,\"two\nlines, quoted\",en\n";
        let out = rewrite_text(RecordFormat::Delimited(b','), Some(header), raw, &fields(), |old| {
            assert_eq!(old, "two\nlines, quoted");
            "one, \"kept\"\nline".to_owned()
        })
        .unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "7,\"one, \"\"kept\"\"\nline\",en\n");
        let tsv =
            rewrite_text(RecordFormat::Delimited(b'\t'), Some(b"text\tid\n"), b"a\tb\n", &fields(), |_| "c".into())
                .unwrap();
        assert_eq!(tsv, b"c\tb\n");
    }

    #[test]
    fn records_that_are_not_what_was_read_are_errors_not_panics() {
        for raw in [&b"[1, 2]\n"[..], b"{\"id\": 1}\n", b"not json", b""] {
            assert!(rewrite_text(RecordFormat::Jsonl, None, raw, &fields(), |_| "x".into()).is_err());
        }
        assert!(
            rewrite_text(RecordFormat::Delimited(b','), Some(b"id,body\n"), b"1,2\n", &fields(), |_| "x".into())
                .is_err()
        );
        assert!(rewrite_text(RecordFormat::Delimited(b','), None, b"1,2\n", &fields(), |_| "x".into()).is_err());
    }
}
