//! Inputs expanded (patterns, folders of record shards), recognised as documents or
//! records by name or content, and opened with gzip or zstd decompression recognised by
//! content.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use super::{RecordFormat, RecordsError, Result};

const GZIP: &[u8] = &[0x1f, 0x8b];
const ZSTD: &[u8] = &[0x28, 0xb5, 0x2f, 0xfd];
const PARQUET: &[u8] = b"PAR1";

/// An input's name in ids and messages (`-` for standard input).
pub(super) fn name(path: Option<&Path>) -> String {
    path.map_or_else(|| "-".to_owned(), |p| p.display().to_string())
}

/// The arguments with globs expanded (in sorted order) where the shell did not: an argument
/// that names no file and holds `*`, `?` or `[` is a pattern, and one that matches nothing
/// is an error.
pub(super) fn expand(args: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for arg in args {
        let text = arg.to_string_lossy();
        if text != "-" && !arg.exists() && text.contains(['*', '?', '[']) {
            let paths = glob::glob(&text).map_err(|e| RecordsError::read(format!("bad pattern {text}"), e))?;
            let before = out.len();
            for path in paths {
                out.push(path.map_err(|e| RecordsError::read(format!("expanding {text}"), e))?);
            }
            if out.len() == before {
                return Err(RecordsError::Invalid(format!("no file matches {text}")));
            }
        } else {
            out.push(arg.clone());
        }
    }
    Ok(out)
}

/// Folders of record files (shards: every file named `.jsonl`, `.csv.gz`, ...) replaced by
/// their files, sorted by path; a folder of documents stays; a folder of both is refused.
pub(super) fn open_folders(paths: Vec<PathBuf>) -> Result<Vec<PathBuf>> {
    let mut out = Vec::with_capacity(paths.len());
    for path in paths {
        if !path.is_dir() {
            out.push(path);
            continue;
        }
        let files = crate::list_files(std::slice::from_ref(&path))?;
        let by_name = |f: &PathBuf| f.file_name().and_then(|n| RecordFormat::by_name(&n.to_string_lossy()));
        let record = files.iter().find(|f| by_name(f).is_some());
        let document = files.iter().find(|f| by_name(f).is_none());
        match (record, document) {
            (Some(r), Some(d)) => {
                return Err(RecordsError::Invalid(format!(
                    "{} holds records ({}) and documents ({}): dedup takes one or the other; name the record files \
                     (a pattern such as '{}/*.jsonl')",
                    path.display(),
                    r.display(),
                    d.display(),
                    path.display()
                )));
            }
            (Some(_), None) => out.extend(files),
            _ => out.push(path),
        }
    }
    Ok(out)
}

/// Reads up to `n` bytes from the start of `reader` and gives them back with a reader of
/// the whole stream (the bytes read first, then the rest).
fn peek(mut reader: Box<dyn Read>, n: usize) -> std::io::Result<(Vec<u8>, Box<dyn Read>)> {
    let mut head = Vec::with_capacity(n);
    (&mut reader).take(n as u64).read_to_end(&mut head)?;
    let whole = std::io::Cursor::new(head.clone()).chain(reader);
    Ok((head, Box::new(whole)))
}

/// `reader` decompressed when it starts with the gzip or zstd magic bytes, and whether
/// it did.
fn decompressed(reader: Box<dyn Read>) -> Result<(Box<dyn Read>, bool)> {
    let (head, reader) = peek(reader, 4)?;
    if head.starts_with(GZIP) {
        Ok((Box::new(flate2::read::MultiGzDecoder::new(BufReader::new(reader))), true))
    } else if head.starts_with(ZSTD) {
        let decoder = ruzstd::decoding::StreamingDecoder::new(BufReader::new(reader))
            .map_err(|e| RecordsError::read("reading a zstd frame header", e))?;
        Ok((Box::new(ZstdFrames { current: Some(decoder) }), true))
    } else {
        Ok((reader, false))
    }
}

/// A zstd stream of one or more frames (`cat a.zst b.zst`, multi-threaded compressors):
/// the decoder reads one frame, so a new one starts where it ends.
struct ZstdFrames<R: BufRead> {
    current: Option<ruzstd::decoding::StreamingDecoder<R, ruzstd::decoding::FrameDecoder>>,
}

impl<R: BufRead> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            let Some(decoder) = &mut self.current else { return Ok(0) };
            let n = decoder.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            let Some(decoder) = self.current.take() else { return Ok(0) };
            let mut rest = decoder.into_inner();
            if rest.fill_buf()?.is_empty() {
                return Ok(0);
            }
            let next = ruzstd::decoding::StreamingDecoder::new(rest)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, format!("zstd frame: {e}")))?;
            self.current = Some(next);
        }
    }
}

/// Opens a file's bytes, decompressed (gzip and zstd are recognised by content).
pub fn open(path: &Path) -> Result<Box<dyn Read>> {
    Ok(decompressed(Box::new(fs_err::File::open(path)?))?.0)
}

/// What standard input holds, told by its first bytes (decompressed), and a reader of it
/// all: JSONL when its first line is a JSON object, else TSV or CSV when its first line is
/// a header naming `text_field`, else JSONL (whose reading then says what is wrong).
pub(super) fn recognise_stdin(text_field: &str) -> Result<(RecordFormat, Box<dyn Read>)> {
    let stdin = |e| RecordsError::read("reading standard input", e);
    let (raw_head, raw) = peek(Box::new(std::io::stdin()), 4).map_err(stdin)?;
    if raw_head.starts_with(PARQUET) {
        return Err(RecordsError::Invalid(
            "Parquet cannot be read from standard input (it is read from its end): give the file".to_owned(),
        ));
    }
    let (reader, _) = decompressed(raw)?;
    let (head, reader) = peek(reader, 64 * 1024).map_err(stdin)?;
    if looks_like_jsonl(&head) {
        return Ok((RecordFormat::Jsonl, reader));
    }
    let text = String::from_utf8_lossy(&head);
    let first = text.lines().next().unwrap_or_default();
    for delimiter in [b'\t', b','] {
        if first.split(char::from(delimiter)).any(|name| name.trim().trim_matches('"') == text_field) {
            return Ok((RecordFormat::Delimited(delimiter), reader));
        }
    }
    Ok((RecordFormat::Jsonl, reader))
}

/// Whether the first non-blank line of `head` is a JSON object (the last line may be cut
/// by the peek, so an unterminated one only needs to start like one).
fn looks_like_jsonl(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    let Some(first) = text.lines().find(|l| !l.trim().is_empty()) else { return false };
    let complete = text.len() > first.len() && text.contains('\n');
    if complete {
        matches!(serde_json::from_str::<serde_json::Value>(first), Ok(serde_json::Value::Object(_)))
    } else {
        first.trim_start().starts_with('{')
    }
}

/// What an input holds: `None` for documents (folders; other files), else the record
/// format by name ([`RecordFormat::by_name`]) or by content (Parquet's magic, a JSON
/// object on the first line); a file of another name is JSONL when `fields_given` (as
/// `--text-field` says), and a compressed one that holds no records is refused.
pub(super) fn recognise(path: &Path, fields_given: bool) -> Result<Option<RecordFormat>> {
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => RecordsError::Invalid(format!("no such file: {}", path.display())),
        _ => RecordsError::read(format!("reading {}", path.display()), e),
    })?;
    if meta.is_dir() {
        return Ok(None);
    }
    if let Some(format) = path.file_name().and_then(|n| RecordFormat::by_name(&n.to_string_lossy())) {
        return Ok(Some(format));
    }
    let name = path.display();
    let raw: Box<dyn Read> = Box::new(fs_err::File::open(path)?);
    let (raw_head, raw) = peek(raw, 4)?;
    if raw_head.starts_with(PARQUET) {
        return Ok(Some(RecordFormat::Parquet));
    }
    let (reader, compressed) = decompressed(raw)?;
    let (head, _) = peek(reader, 64 * 1024).map_err(|e| RecordsError::read(format!("reading {name}"), e))?;
    if looks_like_jsonl(&head) || fields_given {
        return Ok(Some(RecordFormat::Jsonl));
    }
    if compressed {
        return Err(RecordsError::Invalid(format!(
            "{name} is compressed and holds no records: dedup reads compressed JSONL, CSV and TSV \
             (name it .jsonl.gz, .csv.zst, ...)"
        )));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_object_on_the_first_line_is_jsonl() {
        assert!(looks_like_jsonl(b"\n{\"text\": \"a\"}\n{\"te"));
        assert!(looks_like_jsonl(b"{\"text\": \"a very long li"));
        assert!(!looks_like_jsonl(b"[1, 2]\n"));
        assert!(!looks_like_jsonl(b"{ a book chapter }\nwith words\n"));
        assert!(!looks_like_jsonl(b""));
    }
}
