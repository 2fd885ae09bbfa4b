//! Parquet input of `tessera dedup` (cargo feature `parquet`): one document per row.

use fs_err::File;
use std::path::Path;

use anyhow::{Context, Result};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;

use super::records::Record;

/// Reads the rows of a Parquet file in order and calls `sink` with each row's record,
/// or with the row's name and the reason it has none. `text_field` must be a string
/// column (UTF-8 bytes are accepted); `id_field`, when given, a string or integer column
/// (default id: the row number, from 1).
pub fn read(
    path: &Path,
    text_field: &str,
    id_field: Option<&str>,
    mut sink: impl FnMut(Result<Record, (String, String)>) -> Result<()>,
) -> Result<()> {
    let file = File::open(path)?;
    let reader = SerializedFileReader::new(file).with_context(|| format!("reading {} as Parquet", path.display()))?;
    let rows = reader.get_row_iter(None).with_context(|| format!("reading {}", path.display()))?;
    for (i, row) in rows.enumerate() {
        let number = i as u64 + 1;
        let row = row.with_context(|| format!("reading row {number} of {}", path.display()))?;
        let (mut text, mut id) = (None, None);
        for (name, field) in row.get_column_iter() {
            if name == text_field {
                text = Some(field);
            }
            if id_field == Some(name.as_str()) {
                id = Some(field);
            }
        }
        sink(
            record(number, text_field, text, id_field, id)
                .map_err(|reason| (format!("{}:{number}", path.display()), reason)),
        )?;
    }
    Ok(())
}

fn record(
    number: u64,
    text_field: &str,
    text: Option<&Field>,
    id_field: Option<&str>,
    id: Option<&Field>,
) -> Result<Record, String> {
    let text = match text {
        Some(Field::Str(s)) => s.clone(),
        Some(Field::Bytes(b)) => match std::str::from_utf8(b.data()) {
            Ok(s) => s.to_owned(),
            Err(_) => return Err(format!("column {text_field:?} is not UTF-8")),
        },
        Some(Field::Null) => return Err(format!("column {text_field:?} is null")),
        Some(_) => return Err(format!("column {text_field:?} is not a string")),
        None => return Err(format!("no column {text_field:?}")),
    };
    let id = match (id_field, id) {
        (None, _) => number.to_string(),
        (Some(_), Some(Field::Str(s))) => s.clone(),
        (Some(_), Some(f @ (Field::Byte(_) | Field::Short(_) | Field::Int(_) | Field::Long(_)))) => f.to_string(),
        (Some(_), Some(f @ (Field::UByte(_) | Field::UShort(_) | Field::UInt(_) | Field::ULong(_)))) => f.to_string(),
        (Some(f), Some(_)) => return Err(format!("column {f:?} is not a string or integer")),
        (Some(f), None) => return Err(format!("no column {f:?}")),
    };
    Ok(Record { id, text })
}
