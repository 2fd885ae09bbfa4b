//! Parquet output of `tessera dedup` (cargo feature `parquet`): the kept and removed rows
//! of Parquet inputs written back as Parquet (the engine's `records` reads the rows).

use fs_err::File;
use std::io::Write;

use anyhow::{Context, Result, bail};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, BooleanArray, LargeStringArray, RecordBatch, StringArray, StringViewArray};
use arrow_select::filter::filter_record_batch;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use tessera_engine::records::{RecordFields, RecordInput};

/// Rows read at a time when records are written back.
const WRITE_BATCH_ROWS: usize = 8192;

/// Copies the rows of the Parquet `inputs` (in reading order) to Parquet
/// files with the inputs' schema (`--write-kept`, `--write-removed`): a row that gave a
/// document goes to `kept` or `removed` as `next_kept` says (called once per such row, in
/// order, with the lines `--method lines` removed from it), a row that gave none to
/// neither. The values of every column are copied as they were read, but for a kept row's
/// text without its removed lines; the outputs are Snappy-compressed. Each input is read twice (which rows
/// gave documents, then the batches), so memory holds one batch, never the file.
pub fn write_back<W: Write + Send>(
    inputs: &[RecordInput],
    fields: &RecordFields,
    mut next_kept: impl FnMut() -> Result<(bool, Vec<u32>)>,
    kept: Option<W>,
    removed: Option<W>,
) -> Result<()> {
    let mut outs = [kept, removed];
    let mut writers: [Option<ArrowWriter<W>>; 2] = [None, None];
    let mut schema = None;
    for input in inputs {
        let (Some(path), name) = (&input.path, input.name()) else {
            bail!("Parquet cannot be read from standard input")
        };
        let mut masks: [Vec<bool>; 2] = [Vec::new(), Vec::new()];
        // Rows whose text loses lines, with the lines, in row order.
        let mut edits: Vec<(usize, Vec<u32>)> = Vec::new();
        input.read_again(fields, |_, document| -> Result<()> {
            let keep = if document {
                let (kept, removed) = next_kept()?;
                if kept && !removed.is_empty() {
                    edits.push((masks[0].len(), removed));
                }
                Some(kept)
            } else {
                None
            };
            masks[0].push(keep == Some(true));
            masks[1].push(keep == Some(false));
            Ok(())
        })?;
        let mut edits = edits.into_iter().peekable();
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
            let mut here = Vec::new();
            while let Some(edit) = edits.next_if(|(row, _)| rows.contains(row)) {
                here.push((edit.0 - rows.start, edit.1));
            }
            let edited = if here.is_empty() { None } else { Some(without_lines(&batch, &fields.text, &here)?) };
            for (i, (mask, writer)) in masks.iter().zip(&mut writers).enumerate() {
                let Some(writer) = writer else { continue };
                let mask = BooleanArray::from(mask[rows.clone()].to_vec());
                let source = if i == 0 { edited.as_ref().unwrap_or(&batch) } else { &batch };
                let rows = filter_record_batch(source, &mask).context("selecting rows")?;
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

/// `batch` with the text column's value of each `(row, removed lines)` of `edits` without
/// those lines (the engine's rule for lines).
fn without_lines(batch: &RecordBatch, column: &str, edits: &[(usize, Vec<u32>)]) -> Result<RecordBatch> {
    let at = batch.schema().index_of(column).with_context(|| format!("no column {column} to write back"))?;
    let old = batch.column(at);
    let mut texts: Vec<Option<String>> = Vec::with_capacity(old.len());
    let value = |row: usize| -> Option<&str> {
        if old.is_null(row) {
            return None;
        }
        if let Some(a) = old.as_string_opt::<i32>() {
            Some(a.value(row))
        } else if let Some(a) = old.as_string_opt::<i64>() {
            Some(a.value(row))
        } else {
            old.as_string_view_opt().map(|a| a.value(row))
        }
    };
    let mut edits = edits.iter().peekable();
    for row in 0..old.len() {
        let text = value(row);
        texts.push(match edits.next_if(|(r, _)| *r == row) {
            Some((_, removed)) => text.map(|t| tessera_engine::remove_lines(t, removed)),
            None => text.map(str::to_owned),
        });
    }
    // The column keeps its type: the output's schema is the input's.
    let new: ArrayRef = if old.as_string_opt::<i32>().is_some() {
        Arc::new(StringArray::from(texts))
    } else if old.as_string_opt::<i64>().is_some() {
        Arc::new(LargeStringArray::from(texts))
    } else if old.as_string_view_opt().is_some() {
        Arc::new(StringViewArray::from(texts))
    } else {
        bail!("column {column} is {}, not text", old.data_type())
    };
    let mut columns = batch.columns().to_vec();
    columns[at] = new;
    RecordBatch::try_new(batch.schema(), columns).context("rebuilding a batch")
}
