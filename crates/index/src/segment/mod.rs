//! Segments: immutable files holding the postings, snapshots, metadata and (optionally)
//! texts of a contiguous batch of documents of one collection.
//!
//! A segment file is a sequence of sections followed by a fixed-size footer; see
//! `docs/design.md` for the byte layout. The writer ([`SegmentBuilder`]) buffers one
//! segment in memory and writes it in one go; the reader ([`SegmentReader`]) maps a
//! file and verifies its footer and small sections before handing out views; buckets
//! and records carry their own crc32, checked on every read.

mod footer;
mod reader;
mod writer;

pub(crate) use footer::{Footer, Section};
pub(crate) use reader::{SegmentReader, SegmentView};
pub(crate) use writer::SegmentBuilder;

use std::path::Path;

use crate::Result;

/// Parses a whole segment held in memory and decodes every record of it: footer,
/// every section's checksum, postings (every bucket, with its crc32), snapshots,
/// metadata and texts (every record, with its crc32).
///
/// This is the entry point for fuzzing (`fuzz/fuzz_targets/open_segment.rs`): whatever
/// the bytes, it returns `Ok` or an [`Error::Corrupt`](crate::Error::Corrupt) /
/// [`Error::VersionUnsupported`](crate::Error::VersionUnsupported) naming `<memory>`,
/// and never panics or allocates more than a small multiple of the input.
pub fn check_segment_bytes(bytes: &[u8]) -> Result<()> {
    let file = Path::new("<memory>");
    let footer = Footer::parse(bytes, file)?;
    footer.verify_checksums(bytes, file, &Section::ALL)?;
    SegmentView::new(bytes, &footer, file, true)?.check_all().map(drop)
}

/// Like [`check_segment_bytes`] but skips the section, bucket and record checksums, so a
/// fuzzer's mutations reach the decoders instead of stopping at the first crc32. The
/// footer checksum is still checked. Not part of the stable API.
#[doc(hidden)]
pub fn check_segment_bytes_ignoring_checksums(bytes: &[u8]) -> Result<()> {
    let file = Path::new("<memory>");
    let footer = Footer::parse(bytes, file)?;
    SegmentView::new(bytes, &footer, file, false)?.check_all().map(drop)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // unwrap is fine in tests
mod tests {
    use super::*;
    use crate::test_util::mix;
    use crate::{DocMeta, Snapshot};

    fn sample_segment() -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let mut b = SegmentBuilder::new(true);
        for d in 0..12u64 {
            let n = 5 + d * 3;
            let s = Snapshot {
                hashes: (0..n).map(|i| mix(d * 100 + i % 9)).collect(),
                token_bytes: (0..n).map(|i| (i * 4, i * 4 + 3)).collect(),
                token_chars: (0..n).map(|i| (i * 4, i * 4 + 3)).collect(),
                terms: (0..n).map(|i| (mix(d ^ i) >> 32) as u32).collect(),
                sentence_starts: (0..n).step_by(4).collect(),
                sentence_edges: Vec::new(),
            };
            let meta = DocMeta {
                title: format!("t{d}"),
                origin: "o".into(),
                added_at: d,
                byte_len: 1,
                char_len: 1,
                text_hash: (d % 2 == 0).then_some(u128::from(d) << 64 | 7),
                check_id: (d % 3 == 1).then(|| format!("check-{d}")),
            };
            b.add(&meta, &s, (d % 3 != 0).then_some("some text some text"), None);
        }
        let path = dir.path().join("x.seg");
        b.write(&path).unwrap();
        std::fs::read(&path).unwrap()
    }

    /// Rewrites every section checksum and the footer checksum to match the bytes.
    fn fix_checksums(bytes: &mut [u8]) {
        let body = bytes.len() - footer::FOOTER_LEN;
        let f = Footer::parse(bytes, Path::new("x"));
        let Ok(mut f) = f else { return };
        for s in Section::ALL {
            let crc = crc32fast::hash(f.section(bytes, s));
            f.sections[s as usize].crc = crc;
        }
        bytes[body..].copy_from_slice(&f.to_bytes());
    }

    #[test]
    fn decoders_survive_corruption_behind_valid_checksums() {
        let good = sample_segment();
        check_segment_bytes(&good).unwrap();
        let body = good.len() - footer::FOOTER_LEN;
        for i in 0..body {
            for bit in [0x01u8, 0x10, 0x80] {
                let mut b = good.clone();
                b[i] ^= bit;
                fix_checksums(&mut b);
                let _ = check_segment_bytes(&b);
                let _ = check_segment_bytes_ignoring_checksums(&b);
            }
        }
    }

    #[test]
    fn footer_fields_are_validated() {
        let good = sample_segment();
        let body = good.len() - footer::FOOTER_LEN;
        for i in body..body + 208 {
            for v in [0u8, 1, 0x40, 0xFF] {
                let mut b = good.clone();
                b[i] = v;
                // Recompute the footer checksum so the field checks run.
                let crc = crc32fast::hash(&b[body..body + 208]);
                b[body + 208..body + 212].copy_from_slice(&crc.to_le_bytes());
                let _ = check_segment_bytes_ignoring_checksums(&b);
            }
        }
    }
}
