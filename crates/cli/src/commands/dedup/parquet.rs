//! Parquet input of `tessera dedup` (cargo feature `parquet`): one document per row, and
//! the kept and removed rows written back as Parquet.

use fs_err::File;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result, bail};
use arrow_array::BooleanArray;
use arrow_select::filter::filter_record_batch;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;

use super::records::{Fail, Fields, Record};

/// Reads the rows of a Parquet file in order and calls `sink` with each row's number
/// (from one) and its record, or the reason it has none. The text field must be a string
/// column (UTF-8 bytes are accepted); the id field, when given, a string or integer
/// column (default id: the row number).
pub fn read(path: &Path, fields: &Fields, mut sink: impl FnMut(u64, Result<Record, Fail>) -> Result<()>) -> Result<()> {
    let (text_field, id_field) = (fields.text, fields.id);
    // The reader wants the standard file; fs-err's names the path in the open error.
    let file = File::open(path)?.into_parts().0;
    let reader = SerializedFileReader::new(file).with_context(|| format!("reading {} as Parquet", path.display()))?;
    let rows = reader.get_row_iter(None).with_context(|| format!("reading {}", path.display()))?;
    for (i, row) in rows.enumerate() {
        let number = i as u64 + 1;
        let row = row.with_context(|| format!("reading row {number} of {}", path.display()))?;
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
    fn into_fail(self, names: Vec<String>) -> Fail {
        match self {
            RowFail::Missing => Fail::Missing(names),
            RowFail::Bad(reason) => Fail::Bad(reason),
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

/// Rows read at a time when records are written back.
const WRITE_BATCH_ROWS: usize = 8192;

/// Copies the rows of the Parquet `inputs` (path and name, in reading order) to Parquet
/// files with the inputs' schema (`--write-kept`, `--write-removed`): a row that gave a
/// document goes to `kept` or `removed` as `next_kept` says (called once per such row, in
/// order), a row that gave none to neither. The values of every column are copied as
/// they were read; the outputs are Snappy-compressed. Each input is read twice (which rows
/// gave documents, then the batches), so memory holds one batch, never the file.
pub fn write_back<W: Write + Send>(
    inputs: &[(&Path, String)],
    fields: &Fields,
    mut next_kept: impl FnMut() -> Result<bool>,
    kept: Option<W>,
    removed: Option<W>,
) -> Result<()> {
    let mut outs = [kept, removed];
    let mut writers: [Option<ArrowWriter<W>>; 2] = [None, None];
    let mut schema = None;
    for (path, name) in inputs {
        let mut masks: [Vec<bool>; 2] = [Vec::new(), Vec::new()];
        read(path, fields, |_, record| {
            let keep = if record.is_ok() { Some(next_kept()?) } else { None };
            masks[0].push(keep == Some(true));
            masks[1].push(keep == Some(false));
            Ok(())
        })?;
        let file = File::open(path)?.into_parts().0;
        let builder = ParquetRecordBatchReaderBuilder::try_new(file)
            .with_context(|| format!("reading {name} as Parquet"))?
            .with_batch_size(WRITE_BATCH_ROWS);
        match &schema {
            None => {
                let first = builder.schema().clone();
                let props = WriterProperties::builder().set_compression(Compression::SNAPPY).build();
                for (out, writer) in outs.iter_mut().zip(&mut writers) {
                    if let Some(out) = out.take() {
                        *writer = Some(
                            ArrowWriter::try_new(out, first.clone(), Some(props.clone()))
                                .context("starting a Parquet output")?,
                        );
                    }
                }
                schema = Some(first);
            }
            Some(first) if first.fields() != builder.schema().fields() => bail!(
                "{name} has other columns than the first Parquet input; --write-kept and --write-removed write \
                 one file with one schema"
            ),
            Some(_) => {}
        }
        let mut offset = 0;
        for batch in builder.build().with_context(|| format!("reading {name}"))? {
            let batch = batch.with_context(|| format!("reading {name}"))?;
            let rows = offset..offset + batch.num_rows();
            let (Some(_), Some(_)) = (masks[0].get(rows.clone()), masks[1].get(rows.clone())) else {
                bail!("{name} changed while dedup read it");
            };
            for (mask, writer) in masks.iter().zip(&mut writers) {
                let Some(writer) = writer else { continue };
                let mask = BooleanArray::from(mask[rows.clone()].to_vec());
                let rows = filter_record_batch(&batch, &mask).context("selecting rows")?;
                if rows.num_rows() > 0 {
                    writer.write(&rows).context("writing Parquet")?;
                }
            }
            offset = rows.end;
        }
        if offset != masks[0].len() {
            bail!("{name} changed while dedup read it");
        }
    }
    for writer in writers.into_iter().flatten() {
        writer.into_inner().context("finishing a Parquet output")?.flush()?;
    }
    Ok(())
}
