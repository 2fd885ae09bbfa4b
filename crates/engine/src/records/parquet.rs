//! Parquet records (cargo feature `parquet`): one document per row.

use std::path::Path;

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;

use super::{Record, RecordFail, RecordFields, RecordsError};

/// Reads the rows of a Parquet file in order and calls `sink` with each row's number
/// (from one) and its record, or the reason it has none. The text field must be a string
/// column (UTF-8 bytes are accepted); the id field, when given, a string or integer
/// column (default id: the row number).
pub(super) fn read<E: From<RecordsError>>(
    path: &Path,
    fields: &RecordFields,
    mut sink: impl FnMut(u64, Result<Record, RecordFail>) -> Result<(), E>,
) -> Result<(), E> {
    let (text_field, id_field) = (fields.text.as_str(), fields.id.as_deref());
    // The reader wants the standard file; fs-err's names the path in the open error.
    let file = fs_err::File::open(path).map_err(RecordsError::from)?.into_parts().0;
    let reader = SerializedFileReader::new(file)
        .map_err(|e| RecordsError::read(format!("reading {} as Parquet", path.display()), e))?;
    let rows = reader.get_row_iter(None).map_err(|e| RecordsError::read(format!("reading {}", path.display()), e))?;
    for (i, row) in rows.enumerate() {
        let number = i as u64 + 1;
        let row = row.map_err(|e| RecordsError::read(format!("reading row {number} of {}", path.display()), e))?;
        let (mut text, mut id, mut names) = (None, None, Vec::new());
        for (name, field) in row.get_column_iter() {
            names.push(name.clone());
            if name == text_field {
                text = Some(field);
            }
            if id_field == Some(name.as_str()) {
                id = Some(field);
            }
        }
        sink(number, record(number, text_field, text, id_field, id).map_err(|e| e.into_fail(names)))?;
    }
    Ok(())
}

/// Why a row has no record: a missing column (the row's columns are added by the caller)
/// or another reason.
enum RowFail {
    Missing,
    Bad(String),
}

impl RowFail {
    fn into_fail(self, names: Vec<String>) -> RecordFail {
        match self {
            RowFail::Missing => RecordFail::Missing(names),
            RowFail::Bad(reason) => RecordFail::Bad(reason),
        }
    }
}

fn record(
    number: u64,
    text_field: &str,
    text: Option<&Field>,
    id_field: Option<&str>,
    id: Option<&Field>,
) -> Result<Record, RowFail> {
    let text = match text {
        Some(Field::Str(s)) => s.clone(),
        Some(Field::Bytes(b)) => match std::str::from_utf8(b.data()) {
            Ok(s) => s.to_owned(),
            Err(_) => return Err(RowFail::Bad(format!("column {text_field:?} is not UTF-8"))),
        },
        Some(Field::Null) => return Err(RowFail::Bad(format!("column {text_field:?} is null"))),
        Some(_) => return Err(RowFail::Bad(format!("column {text_field:?} is not a string"))),
        None => return Err(RowFail::Missing),
    };
    let id = match (id_field, id) {
        (None, _) => number.to_string(),
        (Some(_), Some(Field::Str(s))) => s.clone(),
        (Some(_), Some(f @ (Field::Byte(_) | Field::Short(_) | Field::Int(_) | Field::Long(_)))) => f.to_string(),
        (Some(_), Some(f @ (Field::UByte(_) | Field::UShort(_) | Field::UInt(_) | Field::ULong(_)))) => f.to_string(),
        (Some(f), Some(_)) => return Err(RowFail::Bad(format!("column {f:?} is not a string or integer"))),
        (Some(_), None) => return Err(RowFail::Missing),
    };
    Ok(Record { id, text })
}
