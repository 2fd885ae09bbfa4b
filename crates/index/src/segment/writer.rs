//! Building one segment in memory and writing it to its file.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use super::footer::{
    FLAG_TERM_POSTINGS, FLAG_TEXTS, FLAG_WIDE_DIRECTORY, Footer, SECTION_COUNT, SEGMENT_FORMAT_VERSION, SectionEntry,
};
use crate::docmeta::{encode_meta, encode_text};
use crate::error::IoContext;
use crate::postings::{self, pack};
use crate::snapshot::encode_snapshot_v3;
use crate::store::StoreWriter;
use crate::termdict::DictBuilder;
use crate::{DocMeta, FullTerms, Result, Snapshot};

/// Bytes the postings encoder adds per buffered posting while it writes (the bit stream
/// and directory, with margin), counted in the memory estimate.
const ENCODE_BYTES_PER_POSTING: usize = 5;

/// The buffered content of one segment.
///
/// Snapshots, metadata and texts are encoded to their on-disk records as they arrive, so
/// the buffer holds them at their final, compact size. Postings are held as
/// `(hash << 32 | local_doc)` u128 values (16 bytes each) and are sorted and encoded only
/// when the segment is written.
#[derive(Debug)]
pub(crate) struct SegmentBuilder {
    postings: Vec<u128>,
    snapshots: StoreWriter,
    metas: StoreWriter,
    texts: Option<StoreWriter>,
    /// The term dictionary of the snapshot records.
    dict: DictBuilder,
    scratch: Vec<u64>,
}

/// What [`SegmentBuilder::write`] produced.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WrittenSegment {
    pub file_len: u64,
    pub doc_count: u64,
    pub posting_count: u64,
}

impl SegmentBuilder {
    /// An empty segment; `keep_texts` adds a text store.
    pub(crate) fn new(keep_texts: bool) -> SegmentBuilder {
        SegmentBuilder {
            postings: Vec::new(),
            snapshots: StoreWriter::default(),
            metas: StoreWriter::default(),
            texts: keep_texts.then(StoreWriter::default),
            dict: DictBuilder::default(),
            scratch: Vec::new(),
        }
    }

    /// Documents buffered.
    pub(crate) fn doc_count(&self) -> u32 {
        // At most u32::MAX docs: the writer flushes before that (see `is_full`).
        self.metas.len() as u32
    }

    /// True when no more documents fit (local ids are u32).
    pub(crate) fn is_full(&self) -> bool {
        self.metas.len() >= u32::MAX as usize
    }

    /// Estimated memory held, including what writing the segment will add.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.postings.capacity() * 16
            + self.postings.len() * ENCODE_BYTES_PER_POSTING
            + self.snapshots.heap_bytes()
            + self.metas.heap_bytes()
            + self.texts.as_ref().map_or(0, StoreWriter::heap_bytes)
            + self.dict.heap_bytes()
            + self.scratch.capacity() * 8
    }

    /// Buffers one document; returns its local id. With `full` terms that make its
    /// hashes, the record derives them instead of storing them.
    pub(crate) fn add(
        &mut self,
        meta: &DocMeta,
        snapshot: &Snapshot,
        text: Option<&str>,
        full: Option<FullTerms<'_>>,
    ) -> u32 {
        let local = self.doc_count();
        self.scratch.clear();
        self.scratch.extend_from_slice(&snapshot.hashes);
        // Term keys: what cross-language stage 1 looks up (a suspect's translations).
        self.scratch.extend(snapshot.terms.iter().map(|&t| crate::term_key(t)));
        self.scratch.sort_unstable();
        self.scratch.dedup();
        self.postings.extend(self.scratch.iter().map(|&h| pack(h, local)));
        encode_snapshot_v3(snapshot, full, &mut self.dict, self.snapshots.buf());
        self.snapshots.end_record();
        encode_meta(meta, self.metas.buf());
        self.metas.end_record();
        if let Some(texts) = &mut self.texts {
            encode_text(text, texts.buf());
            texts.end_record();
        }
        local
    }

    /// Writes the segment to `path` (which must not exist) and syncs it to disk.
    pub(crate) fn write(mut self, path: &Path) -> Result<WrittenSegment> {
        let doc_count = u64::from(self.doc_count());
        let enc = postings::encode(&mut self.postings, doc_count);
        drop(std::mem::take(&mut self.postings));

        let file = File::options().write(true).create_new(true).open(path).at(path)?;
        let mut out =
            SectionWriter { inner: BufWriter::with_capacity(1 << 20, file), pos: 0, crc: crc32fast::Hasher::new() };
        let mut sections = [SectionEntry::default(); SECTION_COUNT];
        let mut write_section =
            |i: usize, out: &mut SectionWriter, f: &dyn Fn(&mut SectionWriter) -> std::io::Result<()>| {
                let start = out.pos;
                out.crc = crc32fast::Hasher::new();
                f(out)?;
                sections[i] =
                    SectionEntry { offset: start, len: out.pos - start, crc: std::mem::take(&mut out.crc).finalize() };
                Ok::<(), std::io::Error>(())
            };
        let io = |e| crate::Error::io(path, e);
        write_section(0, &mut out, &|o| o.write_all(&enc.directory)).map_err(io)?;
        write_section(1, &mut out, &|o| o.write_all(&enc.data)).map_err(io)?;
        write_section(2, &mut out, &|o| {
            self.snapshots.write_offsets(o)?;
            self.dict.write(o)
        })
        .map_err(io)?;
        write_section(3, &mut out, &|o| self.snapshots.write_records(o)).map_err(io)?;
        write_section(4, &mut out, &|o| self.metas.write_offsets(o)).map_err(io)?;
        write_section(5, &mut out, &|o| self.metas.write_records(o)).map_err(io)?;
        if let Some(texts) = &self.texts {
            write_section(6, &mut out, &|o| texts.write_offsets(o)).map_err(io)?;
            write_section(7, &mut out, &|o| texts.write_records(o)).map_err(io)?;
        } else {
            sections[6] = SectionEntry { offset: out.pos, len: 0, crc: crc32fast::hash(&[]) };
            sections[7] = sections[6];
        }
        let footer = Footer {
            sections,
            doc_count,
            posting_count: enc.posting_count,
            distinct_keys: enc.distinct_keys,
            params: enc.params,
            flags: if self.texts.is_some() { FLAG_TEXTS } else { 0 }
                | if enc.params.offset_bytes == 8 { FLAG_WIDE_DIRECTORY } else { 0 }
                | FLAG_TERM_POSTINGS,
            version: SEGMENT_FORMAT_VERSION,
        };
        out.write_all(&footer.to_bytes()).map_err(io)?;
        let file_len = out.pos;
        let file = out.inner.into_inner().map_err(|e| io(e.into_error()))?;
        // The manifest will point at this file only after it is durable.
        file.sync_all().at(path)?;
        Ok(WrittenSegment { file_len, doc_count, posting_count: enc.posting_count })
    }
}

/// Counts bytes and checksums the current section as it streams to the file.
struct SectionWriter {
    inner: BufWriter<File>,
    pos: u64,
    crc: crc32fast::Hasher,
}

impl Write for SectionWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
        self.pos += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}
