//! The inputs of `tessera dedup`: arguments expanded (globs, `-`), each one recognised as
//! documents or records (JSONL, CSV, TSV, Parquet), and opened with gzip or zstd
//! decompression recognised by content.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// What an input holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A folder or a document file: one document, id the path.
    Documents,
    /// One JSON object per line.
    Jsonl,
    /// Delimited records with a header (`,` for CSV, tab for TSV).
    Delimited(u8),
    /// Parquet rows.
    Parquet,
}

impl Kind {
    /// The format's name in messages.
    pub(super) fn name(self) -> &'static str {
        match self {
            Kind::Documents => "documents",
            Kind::Jsonl => "JSONL",
            Kind::Delimited(b'\t') => "TSV",
            Kind::Delimited(_) => "CSV",
            Kind::Parquet => "Parquet",
        }
    }
}

/// One input: a path, or standard input (`-`).
#[derive(Debug, Clone)]
pub(super) struct Input {
    /// The path; `None` for standard input.
    pub(super) path: Option<PathBuf>,
    /// What it holds.
    pub(super) kind: Kind,
}

impl Input {
    /// Its name in ids and messages (`-` for standard input).
    pub(super) fn name(&self) -> String {
        self.path.as_ref().map_or_else(|| "-".to_owned(), |p| p.display().to_string())
    }
}

const GZIP: &[u8] = &[0x1f, 0x8b];
const ZSTD: &[u8] = &[0x28, 0xb5, 0x2f, 0xfd];
const PARQUET: &[u8] = b"PAR1";

/// The arguments with globs expanded (in sorted order) where the shell did not: an argument
/// that names no file and holds `*`, `?` or `[` is a pattern, and one that matches nothing
/// is an error.
pub(super) fn expand(args: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for arg in args {
        let text = arg.to_string_lossy();
        if text != "-" && !arg.exists() && text.contains(['*', '?', '[']) {
            let paths = glob::glob(&text).with_context(|| format!("bad pattern {text}"))?;
            let before = out.len();
            for path in paths {
                out.push(path.with_context(|| format!("expanding {text}"))?);
            }
            if out.len() == before {
                bail!("no file matches {text}");
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
        let files = tessera_engine::list_files(std::slice::from_ref(&path))?;
        let record = files.iter().find(|f| kind_by_name(f).is_some());
        let document = files.iter().find(|f| kind_by_name(f).is_none());
        match (record, document) {
            (Some(r), Some(d)) => bail!(
                "{} holds records ({}) and documents ({}): dedup takes one or the other; name the record files                  (a pattern such as '{}/*.jsonl')",
                path.display(),
                r.display(),
                d.display(),
                path.display()
            ),
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
        let decoder =
            ruzstd::decoding::StreamingDecoder::new(BufReader::new(reader)).context("reading a zstd frame header")?;
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
pub(super) fn open(path: &Path) -> Result<Box<dyn Read>> {
    Ok(decompressed(Box::new(fs_err::File::open(path)?))?.0)
}

/// What standard input holds, told by its first bytes (decompressed), and a reader of it
/// all: JSONL when its first line is a JSON object, else TSV or CSV when its first line is
/// a header naming `text_field`, else JSONL (whose reading then says what is wrong).
pub(super) fn recognise_stdin(text_field: &str) -> Result<(Kind, Box<dyn Read>)> {
    let (raw_head, raw) = peek(Box::new(std::io::stdin()), 4).context("reading standard input")?;
    if raw_head.starts_with(PARQUET) {
        bail!("Parquet cannot be read from standard input (it is read from its end): give the file");
    }
    let (reader, _) = decompressed(raw)?;
    let (head, reader) = peek(reader, 64 * 1024).context("reading standard input")?;
    if looks_like_jsonl(&head) {
        return Ok((Kind::Jsonl, reader));
    }
    let text = String::from_utf8_lossy(&head);
    let first = text.lines().next().unwrap_or_default();
    for delimiter in [b'\t', b','] {
        if first.split(char::from(delimiter)).any(|name| name.trim().trim_matches('"') == text_field) {
            return Ok((Kind::Delimited(delimiter), reader));
        }
    }
    Ok((Kind::Jsonl, reader))
}

/// The record format a file name says, looking under `.gz`/`.zst`.
fn kind_by_name(path: &Path) -> Option<Kind> {
    let mut name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    for suffix in [".gz", ".zst", ".zstd"] {
        if let Some(stem) = name.strip_suffix(suffix) {
            name = stem.to_owned();
            break;
        }
    }
    let ext = name.rsplit_once('.')?.1;
    match ext {
        "jsonl" | "ndjson" => Some(Kind::Jsonl),
        "csv" => Some(Kind::Delimited(b',')),
        "tsv" => Some(Kind::Delimited(b'\t')),
        "parquet" => Some(Kind::Parquet),
        _ => None,
    }
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

/// What an input holds: folders are documents; files are records by name (`.jsonl`,
/// `.ndjson`, `.csv`, `.tsv`, `.parquet`, also under `.gz`/`.zst`) or by content (Parquet's
/// magic, a JSON object on the first line); other files are documents, unless
/// `fields_given` (then JSONL, as `--text-field` says) or compressed (refused).
pub(super) fn recognise(path: &Path, fields_given: bool) -> Result<Kind> {
    if fs_err::metadata(path)?.is_dir() {
        return Ok(Kind::Documents);
    }
    if let Some(kind) = kind_by_name(path) {
        return Ok(kind);
    }
    let name = path.display();
    let raw: Box<dyn Read> = Box::new(fs_err::File::open(path)?);
    let (raw_head, raw) = peek(raw, 4)?;
    if raw_head.starts_with(PARQUET) {
        return Ok(Kind::Parquet);
    }
    let (reader, compressed) = decompressed(raw)?;
    let (head, _) = peek(reader, 64 * 1024).with_context(|| format!("reading {name}"))?;
    if looks_like_jsonl(&head) || fields_given {
        return Ok(Kind::Jsonl);
    }
    if compressed {
        bail!(
            "{name} is compressed and holds no records: dedup reads compressed JSONL, CSV and TSV \
             (name it .jsonl.gz, .csv.zst, ...)"
        );
    }
    Ok(Kind::Documents)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_say_the_format_under_compression() {
        assert_eq!(kind_by_name(Path::new("a/part-1.jsonl.gz")), Some(Kind::Jsonl));
        assert_eq!(kind_by_name(Path::new("x.TSV.zst")), Some(Kind::Delimited(b'\t')));
        assert_eq!(kind_by_name(Path::new("x.csv")), Some(Kind::Delimited(b',')));
        assert_eq!(kind_by_name(Path::new("x.txt.gz")), None);
        assert_eq!(kind_by_name(Path::new("gz")), None);
    }

    #[test]
    fn a_json_object_on_the_first_line_is_jsonl() {
        assert!(looks_like_jsonl(b"\n{\"text\": \"a\"}\n{\"te"));
        assert!(looks_like_jsonl(b"{\"text\": \"a very long li"));
        assert!(!looks_like_jsonl(b"[1, 2]\n"));
        assert!(!looks_like_jsonl(b"{ a book chapter }\nwith words\n"));
        assert!(!looks_like_jsonl(b""));
    }
}
