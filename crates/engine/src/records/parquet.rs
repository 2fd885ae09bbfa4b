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
    // The reader wants the standard file; fs-err's names the path in the open error.
    let file = StrictFile(fs_err::File::open(path).map_err(RecordsError::from)?.into_parts().0);
    let reader = SerializedFileReader::new(file)
        .map_err(|e| RecordsError::read(format!("reading {} as Parquet", path.display()), e))?;
    check_chunks(&reader).map_err(|e| RecordsError::read(format!("reading {} as Parquet", path.display()), e))?;
    // The parquet crate asserts on some damage it does not report as an error; a panic in
    // it fails this file by name, as its errors do, and the run goes on.
    let read_rows =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read_rows(path, &reader, fields, &mut sink)));
    read_rows.unwrap_or_else(|_| {
        Err(RecordsError::read(
            format!("reading {}", path.display()),
            std::io::Error::other("the Parquet reader failed on damaged data"),
        )
        .into())
    })
}

/// A Parquet file whose readers fail at its end instead of giving no more bytes. The
/// parquet crate skips unknown Thrift fields of a page header by copying the bytes they
/// declare, and a copy that meets the end of the file just stops: a 4 KB file declaring
/// nested lists of 2^31 elements keeps it skipping nothing for hours (fuzz target
/// `dedup_input`). Past the end of the file there is no page, so reading there is damage.
struct StrictFile(std::fs::File);

impl parquet::file::reader::Length for StrictFile {
    fn len(&self) -> u64 {
        parquet::file::reader::Length::len(&self.0)
    }
}

impl parquet::file::reader::ChunkReader for StrictFile {
    type T = StrictRead<std::io::BufReader<std::fs::File>>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        self.0.get_read(start).map(StrictRead)
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<bytes::Bytes> {
        self.0.get_bytes(start, length)
    }
}

/// A reader for which the end of the data is an error ([`StrictFile`]).
struct StrictRead<R>(R);

impl<R: std::io::Read> std::io::Read for StrictRead<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self.0.read(buf)? {
            0 if !buf.is_empty() => Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the Parquet data ends where more is declared",
            )),
            n => Ok(n),
        }
    }
}

/// Refuses column chunks whose offsets or sizes are negative or past the file's end
/// (the parquet crate asserts on them while reading rows, fuzz target `dedup_input`).
fn check_chunks(reader: &SerializedFileReader<StrictFile>) -> Result<(), std::io::Error> {
    let metadata = reader.metadata();
    for (g, group) in metadata.row_groups().iter().enumerate() {
        for (c, chunk) in group.columns().iter().enumerate() {
            let dictionary = chunk.dictionary_page_offset().unwrap_or(0);
            if dictionary < 0 || chunk.data_page_offset() < 0 || chunk.compressed_size() < 0 {
                return Err(std::io::Error::other(format!(
                    "damaged: column {c} of row group {g} has a negative offset or size"
                )));
            }
        }
    }
    Ok(())
}

fn read_rows<E: From<RecordsError>>(
    path: &Path,
    reader: &SerializedFileReader<StrictFile>,
    fields: &RecordFields,
    sink: &mut impl FnMut(u64, Result<Record, RecordFail>) -> Result<(), E>,
) -> Result<(), E> {
    let (text_field, id_field) = (fields.text.as_str(), fields.id.as_deref());
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
