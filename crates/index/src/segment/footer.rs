//! The segment footer: where the sections are, their checksums, counts and postings
//! parameters. It sits at the end of the file so the writer can stream sections first.
//!
//! Layout (little-endian), [`FOOTER_LEN`] = 224 bytes, at `file_len - 224`:
//!
//! ```text
//!   0  8 x section entry: offset u64, length u64, crc32 u32      (20 bytes each)
//!      order: postings directory, postings, snapshot offsets, snapshot records,
//!             metadata offsets, metadata records, text offsets, text records
//! 160  u64 doc_count
//! 168  u64 posting_count        distinct (key, doc) entries
//! 176  u64 distinct_keys
//! 184  u64 bucket_count
//! 192  u64 bucket_width
//! 200  u8  rice_k, u8 repeat_code, u8 repeat_k, u8 doc_bits
//! 204  u32 flags                bit 0: the text sections are present;
//!                               bit 1: directory offsets are u64 (else u32);
//!                               bit 2: the postings hold term keys too
//!                               (`crate::term_key`: every document's distinct
//!                               terms, for cross-language stage 1)
//! 208  u32 crc32 of bytes 0..208 of the footer
//! 212  u32 segment format version (6; versions 1 to 5 are read too: version 1
//!          snapshot records have no terms or sentences, version 2 records store
//!          hashes and 32-bit terms; version 3 adds a term dictionary after the
//!          snapshot offset table and compact records, version 4 the records'
//!          sentence edges, see `snapshot.rs`; version 5 the term keys in the
//!          postings, flag bit 2, which a version 5 segment always sets; version
//!          6 the metadata records' text hash and check id, see `docmeta.rs`)
//! 216  8 bytes magic "TSRSEGM1"
//! ```
//!
//! The magic and version come last so a reader can recognise the file and its version
//! before it knows the footer's length. Opening verifies the crc32 of the small sections
//! (directory and offset tables); the large ones carry a crc32 per bucket or record,
//! checked on every read, and their whole-section crc32 is checked by a full verify.

use std::path::Path;

use crate::postings::PostingsParams;
use crate::varint::ByteReader;
use crate::{Error, Result};

/// Last 8 bytes of every segment file.
pub(crate) const SEGMENT_MAGIC: &[u8; 8] = b"TSRSEGM1";
/// The segment format this build writes.
pub(crate) const SEGMENT_FORMAT_VERSION: u32 = 6;
/// The oldest segment format this build reads (the same footer; snapshot records without
/// terms and sentences).
pub(crate) const SEGMENT_FORMAT_OLDEST: u32 = 1;
/// Size of the footer (versions 1 and 2).
pub(crate) const FOOTER_LEN: usize = 224;
/// Offset of the footer checksum inside the footer.
const FOOTER_CRC_AT: usize = 208;
/// Number of sections.
pub(crate) const SECTION_COUNT: usize = 8;
/// Footer flag: the texts section is present.
pub(crate) const FLAG_TEXTS: u32 = 1;
/// Footer flag: the postings directory's offsets are u64 (else u32).
pub(crate) const FLAG_WIDE_DIRECTORY: u32 = 2;
/// Footer flag: the postings hold each document's term keys beside its shingle hashes.
pub(crate) const FLAG_TERM_POSTINGS: u32 = 4;

/// The sections of a segment, in file order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Section {
    /// `bucket_count + 1` entries: byte offset, crc32 of the bucket.
    PostingsDirectory = 0,
    /// The Rice-coded buckets.
    Postings = 1,
    /// Snapshot offsets.
    SnapshotOffsets = 2,
    /// Snapshot records.
    Snapshots = 3,
    /// Metadata offsets.
    MetadataOffsets = 4,
    /// Metadata records.
    Metadata = 5,
    /// Text offsets (empty when the collection keeps no texts).
    TextOffsets = 6,
    /// Text records (empty when the collection keeps no texts).
    Texts = 7,
}

impl Section {
    /// All sections in file order.
    pub(crate) const ALL: [Section; SECTION_COUNT] = [
        Section::PostingsDirectory,
        Section::Postings,
        Section::SnapshotOffsets,
        Section::Snapshots,
        Section::MetadataOffsets,
        Section::Metadata,
        Section::TextOffsets,
        Section::Texts,
    ];

    /// The sections verified whole on open: O(buckets + documents) bytes.
    pub(crate) const SMALL: [Section; 4] =
        [Section::PostingsDirectory, Section::SnapshotOffsets, Section::MetadataOffsets, Section::TextOffsets];

    fn name(self) -> &'static str {
        match self {
            Section::PostingsDirectory => "postings directory",
            Section::Postings => "postings",
            Section::SnapshotOffsets => "snapshot offsets",
            Section::Snapshots => "snapshot records",
            Section::MetadataOffsets => "metadata offsets",
            Section::Metadata => "metadata records",
            Section::TextOffsets => "text offsets",
            Section::Texts => "text records",
        }
    }
}

/// One entry of the section table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SectionEntry {
    pub offset: u64,
    pub len: u64,
    pub crc: u32,
}

/// A decoded footer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Footer {
    pub sections: [SectionEntry; SECTION_COUNT],
    pub doc_count: u64,
    pub posting_count: u64,
    pub distinct_keys: u64,
    pub params: PostingsParams,
    pub flags: u32,
    /// Segment format version (written: [`SEGMENT_FORMAT_VERSION`]).
    pub version: u32,
}

impl Footer {
    /// The footer's bytes.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(FOOTER_LEN);
        for s in &self.sections {
            out.extend_from_slice(&s.offset.to_le_bytes());
            out.extend_from_slice(&s.len.to_le_bytes());
            out.extend_from_slice(&s.crc.to_le_bytes());
        }
        out.extend_from_slice(&self.doc_count.to_le_bytes());
        out.extend_from_slice(&self.posting_count.to_le_bytes());
        out.extend_from_slice(&self.distinct_keys.to_le_bytes());
        let p = &self.params;
        out.extend_from_slice(&p.bucket_count.to_le_bytes());
        out.extend_from_slice(&p.bucket_width.to_le_bytes());
        // All four are <= 64 (checked by PostingsParams::validate on read).
        out.extend_from_slice(&[p.rice_k as u8, p.repeat_code as u8, p.repeat_k as u8, p.doc_bits as u8]);
        out.extend_from_slice(&self.flags.to_le_bytes());
        debug_assert_eq!(out.len(), FOOTER_CRC_AT);
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(&self.version.to_le_bytes());
        out.extend_from_slice(SEGMENT_MAGIC);
        debug_assert_eq!(out.len(), FOOTER_LEN);
        out
    }

    /// Parses and checks the footer of a whole segment file's bytes: magic, version,
    /// footer checksum, section bounds and parameters. Section checksums are checked by
    /// [`Footer::verify_checksums`].
    pub(crate) fn parse(bytes: &[u8], file: &Path) -> Result<Footer> {
        let corrupt = |r: String| Error::corrupt(file, r);
        if bytes.len() < 12 {
            return Err(corrupt(format!("{} bytes is too short for a segment", bytes.len())));
        }
        let (head, magic) = bytes.split_at(bytes.len() - 8);
        if magic != SEGMENT_MAGIC {
            return Err(corrupt("no segment magic at the end (truncated or not a segment)".into()));
        }
        let version = u32::from_le_bytes(head[head.len() - 4..].try_into().expect("4 bytes"));
        if !(SEGMENT_FORMAT_OLDEST..=SEGMENT_FORMAT_VERSION).contains(&version) {
            return Err(Error::VersionUnsupported {
                file: file.to_path_buf(),
                found: version,
                supported: SEGMENT_FORMAT_VERSION,
            });
        }
        if bytes.len() < FOOTER_LEN {
            return Err(corrupt(format!("{} bytes is too short for a segment footer", bytes.len())));
        }
        let body_len = bytes.len() - FOOTER_LEN;
        let footer = &bytes[body_len..];
        let stored_crc = u32::from_le_bytes(footer[FOOTER_CRC_AT..FOOTER_CRC_AT + 4].try_into().expect("4 bytes"));
        if crc32fast::hash(&footer[..FOOTER_CRC_AT]) != stored_crc {
            return Err(corrupt("footer checksum mismatch".into()));
        }
        let mut r = ByteReader::new(&footer[..FOOTER_CRC_AT]);
        let short = || Error::corrupt(file, "footer too short");
        let mut sections = [SectionEntry::default(); SECTION_COUNT];
        for s in &mut sections {
            s.offset = r.u64_le().ok_or_else(short)?;
            s.len = r.u64_le().ok_or_else(short)?;
            s.crc = r.u32_le().ok_or_else(short)?;
        }
        let doc_count = r.u64_le().ok_or_else(short)?;
        let posting_count = r.u64_le().ok_or_else(short)?;
        let distinct_keys = r.u64_le().ok_or_else(short)?;
        let bucket_count = r.u64_le().ok_or_else(short)?;
        let bucket_width = r.u64_le().ok_or_else(short)?;
        let mut param = || r.u8().map(u32::from).ok_or_else(short);
        let rice_k = param()?;
        let repeat_code = param()?;
        let repeat_k = param()?;
        let doc_bits = param()?;
        let flags = r.u32_le().ok_or_else(short)?;
        // Sections must lie in order, without overlap, before the footer.
        let mut prev_end = 0u64;
        for (s, which) in sections.iter().zip(Section::ALL) {
            let end = s.offset.checked_add(s.len);
            match end {
                Some(end) if s.offset >= prev_end && end <= body_len as u64 => prev_end = end,
                _ => {
                    return Err(corrupt(format!("{} section {}+{} out of bounds", which.name(), s.offset, s.len)));
                }
            }
        }
        if doc_count > u64::from(u32::MAX) {
            return Err(corrupt(format!("doc count {doc_count} too large")));
        }
        if flags & !(FLAG_TEXTS | FLAG_WIDE_DIRECTORY | FLAG_TERM_POSTINGS) != 0
            || (flags & FLAG_TERM_POSTINGS != 0 && version < 5)
        {
            return Err(corrupt(format!("unknown flags {flags:#x}")));
        }
        if flags & FLAG_TEXTS == 0
            && (sections[Section::Texts as usize].len != 0 || sections[Section::TextOffsets as usize].len != 0)
        {
            return Err(corrupt("texts section present but not flagged".into()));
        }
        if distinct_keys > posting_count {
            return Err(corrupt("more distinct keys than postings".into()));
        }
        let params = PostingsParams {
            bucket_count,
            bucket_width,
            rice_k,
            repeat_code,
            repeat_k,
            doc_bits,
            offset_bytes: if flags & FLAG_WIDE_DIRECTORY != 0 { 8 } else { 4 },
            doc_count,
        };
        params.validate().map_err(|r| corrupt(format!("postings parameters: {r}")))?;
        Ok(Footer { sections, doc_count, posting_count, distinct_keys, params, flags, version })
    }

    /// The bytes of one section (bounds were checked by [`Footer::parse`]).
    pub(crate) fn section<'a>(&self, bytes: &'a [u8], s: Section) -> &'a [u8] {
        let e = self.sections[s as usize];
        &bytes[e.offset as usize..(e.offset + e.len) as usize]
    }

    /// Checks the crc32 of each of `sections`.
    pub(crate) fn verify_checksums(&self, bytes: &[u8], file: &Path, sections: &[Section]) -> Result<()> {
        for &s in sections {
            if crc32fast::hash(self.section(bytes, s)) != self.sections[s as usize].crc {
                return Err(Error::corrupt(file, format!("{} section checksum mismatch", s.name())));
            }
        }
        Ok(())
    }

    /// Whether the segment stores texts.
    pub(crate) fn has_texts(&self) -> bool {
        self.flags & FLAG_TEXTS != 0
    }

    /// Whether the segment's postings hold its documents' term keys.
    pub(crate) fn has_term_postings(&self) -> bool {
        self.flags & FLAG_TERM_POSTINGS != 0
    }
}
