//! The segment footer: where the sections are, their checksums, counts and postings
//! parameters. It sits at the end of the file so the writer can stream sections first.
//!
//! Layout (little-endian), [`FOOTER_LEN`] = 148 bytes, at `file_len - 148`:
//!
//! ```text
//!   0  5 x section entry: offset u64, length u64, crc32 u32      (20 bytes each)
//!      order: postings directory, postings, snapshots, metadata, texts
//! 100  u64 doc_count
//! 108  u64 posting_count        distinct (key, doc) entries
//! 116  u64 distinct_keys
//! 124  u8  key_bits, u8 bucket_bits, u8 rice_k, u8 doc_bits
//! 128  u32 flags                bit 0: the texts section is present
//! 132  u32 crc32 of bytes 0..132 of the footer
//! 136  u32 segment format version (1)
//! 140  8 bytes magic "TSRSEGM1"
//! ```
//!
//! The magic and version come last so a reader can recognise the file and its version
//! before it knows the footer's length.

use std::path::Path;

use crate::postings::PostingsParams;
use crate::varint::ByteReader;
use crate::{Error, Result};

/// Last 8 bytes of every segment file.
pub(crate) const SEGMENT_MAGIC: &[u8; 8] = b"TSRSEGM1";
/// The segment format this build reads and writes.
pub(crate) const SEGMENT_FORMAT_VERSION: u32 = 1;
/// Size of the version 1 footer.
pub(crate) const FOOTER_LEN: usize = 148;
/// Offset of the footer checksum inside the footer.
const FOOTER_CRC_AT: usize = 132;
/// Number of sections.
pub(crate) const SECTION_COUNT: usize = 5;
/// Footer flag: the texts section is present.
pub(crate) const FLAG_TEXTS: u32 = 1;

/// The sections of a segment, in file order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Section {
    /// `2^bucket_bits + 1` u64 bit offsets.
    PostingsDirectory = 0,
    /// The Rice-coded bucket bit stream.
    Postings = 1,
    /// Snapshot store.
    Snapshots = 2,
    /// Metadata store.
    Metadata = 3,
    /// Text store (empty when the collection keeps no texts).
    Texts = 4,
}

impl Section {
    /// All sections in file order.
    pub(crate) const ALL: [Section; SECTION_COUNT] =
        [Section::PostingsDirectory, Section::Postings, Section::Snapshots, Section::Metadata, Section::Texts];

    fn name(self) -> &'static str {
        match self {
            Section::PostingsDirectory => "postings directory",
            Section::Postings => "postings",
            Section::Snapshots => "snapshots",
            Section::Metadata => "metadata",
            Section::Texts => "texts",
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
        // All four are <= 64 (checked by PostingsParams::validate on read).
        out.extend_from_slice(&[p.key_bits as u8, p.bucket_bits as u8, p.rice_k as u8, p.doc_bits as u8]);
        out.extend_from_slice(&self.flags.to_le_bytes());
        debug_assert_eq!(out.len(), FOOTER_CRC_AT);
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(&SEGMENT_FORMAT_VERSION.to_le_bytes());
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
        if version != SEGMENT_FORMAT_VERSION {
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
        let mut param = || r.u8().map(u32::from).ok_or_else(short);
        let key_bits = param()?;
        let bucket_bits = param()?;
        let rice_k = param()?;
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
        if flags & !FLAG_TEXTS != 0 {
            return Err(corrupt(format!("unknown flags {flags:#x}")));
        }
        if flags & FLAG_TEXTS == 0 && sections[Section::Texts as usize].len != 0 {
            return Err(corrupt("texts section present but not flagged".into()));
        }
        if distinct_keys > posting_count {
            return Err(corrupt("more distinct keys than postings".into()));
        }
        let params = PostingsParams { key_bits, bucket_bits, rice_k, doc_bits, doc_count };
        params.validate().map_err(|r| corrupt(format!("postings parameters: {r}")))?;
        Ok(Footer { sections, doc_count, posting_count, distinct_keys, params, flags })
    }

    /// The bytes of one section (bounds were checked by [`Footer::parse`]).
    pub(crate) fn section<'a>(&self, bytes: &'a [u8], s: Section) -> &'a [u8] {
        let e = self.sections[s as usize];
        &bytes[e.offset as usize..(e.offset + e.len) as usize]
    }

    /// Checks every section's crc32.
    pub(crate) fn verify_checksums(&self, bytes: &[u8], file: &Path) -> Result<()> {
        for s in Section::ALL {
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
}
