//! Opening a segment file and reading from it.

use std::fs::File;
use std::path::{Path, PathBuf};

use super::footer::{Footer, Section};
use crate::docmeta::{decode_meta, decode_text};
use crate::error::IoContext;
use crate::postings::{Postings, PostingsIter};
use crate::snapshot::{decode_snapshot, decode_snapshot_v3};
use crate::store::Store;
use crate::termdict::TermDict;
use crate::{DocMeta, Error, Result, ShingleConfig, Snapshot};

/// An open segment file whose footer and small sections (postings directory, offset
/// tables) are verified; buckets and records are verified as they are read.
#[derive(Debug)]
pub(crate) struct SegmentReader {
    map: memmap2::Mmap,
    path: PathBuf,
    footer: Footer,
}

impl SegmentReader {
    /// Maps `path`, parses its footer and verifies the small sections: O(buckets +
    /// documents), not O(file size). `expected_len` (from the manifest) catches
    /// truncation with a clear message.
    pub(crate) fn open(path: &Path, expected_len: u64) -> Result<SegmentReader> {
        let file = File::open(path).at(path)?;
        let len = file.metadata().at(path)?.len();
        if len != expected_len {
            return Err(Error::corrupt(path, format!("segment is {len} bytes, the manifest says {expected_len}")));
        }
        // SAFETY: segment files are immutable once written: the writer creates each under
        // a fresh id with `create_new`, syncs it, and nothing in this crate opens a
        // committed segment for writing, truncates or rewrites it. Files are only deleted
        // (when no manifest references them), which on Unix leaves existing maps valid.
        // Another process modifying the file behind our back would break that promise;
        // like every mmap-based store, we document that an index directory must not be
        // edited by hand.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(&file) }.at(path)?;
        let footer = Footer::parse(&map, path)?;
        footer.verify_checksums(&map, path, &Section::SMALL)?;
        SegmentView::new(&map, &footer, path, true)?.check_tables()?;
        Ok(SegmentReader { map, path: path.to_path_buf(), footer })
    }

    /// Length of the file.
    pub(crate) fn file_len(&self) -> u64 {
        self.map.len() as u64
    }

    /// The parsed footer.
    pub(crate) fn footer(&self) -> &Footer {
        &self.footer
    }

    /// The file's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Views of the sections.
    pub(crate) fn view(&self) -> Result<SegmentView<'_>> {
        SegmentView::new(&self.map, &self.footer, &self.path, true)
    }

    /// Verifies everything: every bucket and record (their own crc32s, so an error names
    /// the damaged one, and their decoding), the footer's counts, then every section's
    /// crc32 (which also covers any byte no bucket or record claims).
    pub(crate) fn verify(&self) -> Result<SegmentCounts> {
        let counts = self.view()?.check_all()?;
        self.footer.verify_checksums(&self.map, &self.path, &Section::ALL)?;
        Ok(counts)
    }
}

/// The full terms and shingle settings a snapshot's hashes were derived from.
pub(crate) type DerivedFrom = (Vec<u64>, ShingleConfig);

/// Borrowed views of one segment's sections; cheap to build (no decoding).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SegmentView<'a> {
    postings: Postings<'a>,
    snapshots: Store<'a>,
    metas: Store<'a>,
    texts: Option<Store<'a>>,
    /// The term dictionary (empty before format 3).
    dict: TermDict<'a>,
    footer: &'a Footer,
    file: &'a Path,
}

impl<'a> SegmentView<'a> {
    /// Views of the sections of `bytes`, whose footer is `footer`; `checksums` turns
    /// the per-bucket and per-record crc32 checks on (off only for fuzzing). O(1).
    pub(crate) fn new(bytes: &'a [u8], footer: &'a Footer, file: &'a Path, checksums: bool) -> Result<SegmentView<'a>> {
        let n = footer.doc_count;
        let store = |offsets: &'a [u8], records: Section, what: &'static str| {
            Store::new(offsets, footer.section(bytes, records), n, what, file, checksums)
        };
        // Format 3: the snapshot offset table is followed by the term dictionary.
        let snapshot_offsets = footer.section(bytes, Section::SnapshotOffsets);
        let (snapshot_table, dict) = if footer.version >= 3 {
            let table_len = usize::try_from(n).ok().and_then(|n| n.checked_add(1)?.checked_mul(8));
            let Some(table_len) = table_len.filter(|&l| l <= snapshot_offsets.len()) else {
                return Err(Error::corrupt(file, "snapshot offsets section too short for its table"));
            };
            let (table, dict) = snapshot_offsets.split_at(table_len);
            (table, TermDict::parse(dict).map_err(|r| Error::corrupt(file, r))?)
        } else {
            (snapshot_offsets, TermDict::empty())
        };
        Ok(SegmentView {
            postings: Postings::new(
                footer.section(bytes, Section::PostingsDirectory),
                footer.section(bytes, Section::Postings),
                footer.params,
                file,
                checksums,
            )?,
            snapshots: store(snapshot_table, Section::Snapshots, "snapshot")?,
            metas: store(footer.section(bytes, Section::MetadataOffsets), Section::Metadata, "metadata")?,
            texts: if footer.has_texts() {
                Some(store(footer.section(bytes, Section::TextOffsets), Section::Texts, "text")?)
            } else {
                None
            },
            dict,
            footer,
            file,
        })
    }

    /// Checks the postings directory and the offset tables entry by entry: O(buckets +
    /// documents), run on open.
    pub(crate) fn check_tables(&self) -> Result<()> {
        self.postings.check_directory()?;
        self.snapshots.check_table()?;
        self.metas.check_table()?;
        if let Some(t) = &self.texts {
            t.check_table()?;
        }
        Ok(())
    }

    fn check_local(&self, local: u32) -> Result<()> {
        if u64::from(local) < self.footer.doc_count {
            Ok(())
        } else {
            Err(Error::corrupt(self.file, format!("no document {local} in a segment of {}", self.footer.doc_count)))
        }
    }

    /// The postings.
    pub(crate) fn postings(&self) -> &Postings<'a> {
        &self.postings
    }

    /// All postings entries in order: `(truncated key, local doc)`. Merging will consume
    /// this.
    #[allow(dead_code)]
    pub(crate) fn postings_iter(&self) -> PostingsIter<'a> {
        self.postings.iter()
    }

    /// Metadata of document `local`.
    pub(crate) fn meta(&self, local: u32) -> Result<DocMeta> {
        self.check_local(local)?;
        decode_meta(self.metas.get(local)?, self.footer.version)
            .map_err(|r| Error::corrupt(self.file, format!("doc {local}: {r}")))
    }

    /// Snapshot of document `local`.
    pub(crate) fn snapshot(&self, local: u32) -> Result<Snapshot> {
        self.snapshot_and_terms(local).map(|(s, _)| s)
    }

    /// Snapshot of document `local`, with the full terms and shingle settings its hashes
    /// were derived from, if they were (format 3).
    pub(crate) fn snapshot_and_terms(&self, local: u32) -> Result<(Snapshot, Option<DerivedFrom>)> {
        self.check_local(local)?;
        let corrupt = |r: String| Error::corrupt(self.file, format!("doc {local}: {r}"));
        let record = self.snapshots.get(local)?;
        if self.footer.version < 3 {
            return decode_snapshot(record, self.footer.version).map(|s| (s, None)).map_err(corrupt);
        }
        let d = decode_snapshot_v3(record, &self.dict, self.footer.version).map_err(corrupt)?;
        let config = self.dict.shingler().map(|s| s.config());
        Ok((d.snapshot, d.full_terms.zip(config)))
    }

    /// Kept text of document `local`, if any.
    pub(crate) fn text(&self, local: u32) -> Result<Option<String>> {
        self.check_local(local)?;
        match &self.texts {
            None => Ok(None),
            Some(t) => decode_text(t.get(local)?).map_err(|r| Error::corrupt(self.file, format!("doc {local}: {r}"))),
        }
    }

    /// Decodes everything (checking every bucket's and record's crc32 unless checksums
    /// are off) and checks the footer's counts against the content.
    pub(crate) fn check_all(&self) -> Result<SegmentCounts> {
        self.check_tables()?;
        let mut postings = 0u64;
        let mut distinct = 0u64;
        let mut prev: Option<(u64, u32)> = None;
        for entry in self.postings.iter() {
            let (key, doc) = entry?;
            if prev.is_some_and(|p| (key, doc) <= p) {
                return Err(Error::corrupt(self.file, "postings entries out of order"));
            }
            if prev.map(|p| p.0) != Some(key) {
                distinct += 1;
            }
            postings += 1;
            prev = Some((key, doc));
        }
        if postings != self.footer.posting_count || distinct != self.footer.distinct_keys {
            return Err(Error::corrupt(
                self.file,
                format!(
                    "postings hold {postings} entries with {distinct} keys, the footer says {} and {}",
                    self.footer.posting_count, self.footer.distinct_keys
                ),
            ));
        }
        let mut records = 0;
        for local in 0..self.footer.doc_count {
            let local = local as u32; // doc_count <= u32::MAX (Footer::parse)
            self.meta(local)?;
            self.snapshot(local)?;
            self.text(local)?;
            records += if self.texts.is_some() { 3 } else { 2 };
        }
        Ok(SegmentCounts { docs: self.footer.doc_count, postings, buckets: self.postings.bucket_count(), records })
    }
}

/// What a full check of one segment covered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SegmentCounts {
    pub docs: u64,
    pub postings: u64,
    pub buckets: u64,
    pub records: u64,
}
