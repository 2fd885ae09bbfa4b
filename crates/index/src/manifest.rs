//! The manifest: the one file that says what the index holds.
//!
//! Layout (little-endian):
//!
//! ```text
//! 8 bytes  magic "TSRMANIF"
//! u32      manifest format version (1; 2 when the body holds the sketch section)
//! u64      body length in bytes
//! body     UTF-8 JSON (see `Manifest`)
//! u32      crc32 of every byte before it
//! ```
//!
//! JSON keeps the manifest readable with any tool, and it is small: it lists collections
//! and segments, not documents. A commit writes `MANIFEST.tmp`, syncs it, renames it over
//! `MANIFEST` and syncs the directory, so readers see either the old or the new manifest,
//! never a mix; the checksum catches a torn or damaged file anyway.
//!
//! The sketch component (`sketch`) keeps its state in the same file, as the optional
//! `sketch` section: a manifest that has one is format version 2 (older builds refuse it
//! by its version, not by a JSON error), one without is version 1, byte for byte as before.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{CollectionConfig, Error, Result, durable};

/// First 8 bytes of a manifest.
pub(crate) const MANIFEST_MAGIC: &[u8; 8] = b"TSRMANIF";
/// The manifest format of an index without a sketch section (written as it always was).
pub(crate) const MANIFEST_FORMAT_VERSION: u32 = 1;
/// The manifest format with the sketch component's section: the newest this build reads.
pub(crate) const MANIFEST_SKETCH_VERSION: u32 = 2;
/// File name of the current manifest.
pub(crate) const MANIFEST_FILE: &str = "MANIFEST";
/// File name the next manifest is written under before the rename.
pub(crate) const MANIFEST_TMP_FILE: &str = "MANIFEST.tmp";
/// Directory of segment files.
pub(crate) const SEGMENTS_DIR: &str = "segments";

/// The manifest body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Manifest {
    /// Repeats the header's version, for people reading the JSON.
    pub format_version: u32,
    /// Opaque settings chosen by the engine at create time.
    pub fingerprint_settings: serde_json::Value,
    /// The next document id to assign.
    pub next_doc_id: u64,
    /// The next segment id to assign.
    pub next_segment_id: u64,
    /// Collections sorted by name.
    pub collections: Vec<CollectionEntry>,
    /// Deleted document ids, strictly ascending (the field is absent when empty, so
    /// manifests without deletes are unchanged).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deleted: Vec<u64>,
    /// Further places (paths, URLs) each document was seen at, besides its metadata's
    /// origin, in the order they were attached (absent when empty).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub seen_at: std::collections::BTreeMap<u64, Vec<String>>,
    /// The sketch component's state (format version 2 only; absent in version 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sketch: Option<crate::sketch::SketchSection>,
}

/// One collection in the manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CollectionEntry {
    pub config: CollectionConfig,
    /// Segments in the order they were committed.
    pub segments: Vec<SegmentEntry>,
}

/// One segment in the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SegmentEntry {
    /// Segment id: the file is `segments/<id as 16 hex digits>.seg`.
    pub id: u64,
    /// The global doc ids the segment holds, as ranges in increasing order; local id `i`
    /// is the `i`-th id of their concatenation. Usually one range; a writer that
    /// interleaves adds to several collections produces more.
    pub doc_ranges: Vec<DocRange>,
    /// Total documents (the sum of the range counts).
    pub doc_count: u64,
    /// File length, checked on open to report truncation clearly.
    pub file_len: u64,
}

/// A run of consecutive doc ids `[base, base + count)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DocRange {
    pub base: u64,
    pub count: u64,
}

/// The path of segment `id` in index directory `dir`.
pub(crate) fn segment_path(dir: &Path, id: u64) -> PathBuf {
    dir.join(SEGMENTS_DIR).join(segment_file_name(id))
}

/// The file name of segment `id`.
pub(crate) fn segment_file_name(id: u64) -> String {
    format!("{id:016x}.seg")
}

pub(crate) use tessera_core::valid_collection_name as valid_name;

impl Manifest {
    /// An empty index's manifest.
    pub(crate) fn new(fingerprint_settings: serde_json::Value) -> Manifest {
        Manifest {
            format_version: MANIFEST_FORMAT_VERSION,
            fingerprint_settings,
            next_doc_id: 0,
            next_segment_id: 0,
            collections: Vec::new(),
            deleted: Vec::new(),
            seen_at: std::collections::BTreeMap::new(),
            sketch: None,
        }
    }

    /// Reads `dir/MANIFEST`.
    pub(crate) fn load(dir: &Path) -> Result<Manifest> {
        let path = dir.join(MANIFEST_FILE);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::NotAnIndex { path: dir.to_path_buf() });
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
                return Err(Error::NotAnIndex { path: dir.to_path_buf() });
            }
            Err(e) => return Err(Error::io(&path, e)),
        };
        Manifest::from_bytes(&bytes, &path)
    }

    /// Parses and validates a manifest file's bytes.
    pub(crate) fn from_bytes(bytes: &[u8], file: &Path) -> Result<Manifest> {
        let corrupt = |r: String| Error::corrupt(file, r);
        const HEAD: usize = 8 + 4 + 8;
        if bytes.len() < 8 || &bytes[..8] != MANIFEST_MAGIC {
            return Err(corrupt("not a manifest (bad magic)".into()));
        }
        if bytes.len() < HEAD + 4 {
            return Err(corrupt(format!("{} bytes is too short", bytes.len())));
        }
        let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
        if !(MANIFEST_FORMAT_VERSION..=MANIFEST_SKETCH_VERSION).contains(&version) {
            return Err(Error::VersionUnsupported {
                file: file.to_path_buf(),
                found: version,
                supported: MANIFEST_SKETCH_VERSION,
            });
        }
        let body_len = u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes"));
        if body_len != (bytes.len() - HEAD - 4) as u64 {
            return Err(corrupt(format!(
                "body length {body_len} does not match the file size {} (truncated?)",
                bytes.len()
            )));
        }
        let content = durable::unseal(bytes).ok_or_else(|| corrupt("checksum mismatch".into()))?;
        let m: Manifest =
            serde_json::from_slice(&content[HEAD..]).map_err(|e| corrupt(format!("bad JSON body: {e}")))?;
        m.validate(version).map_err(corrupt)?;
        Ok(m)
    }

    /// The file's bytes.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let body = serde_json::to_vec_pretty(self).expect("a manifest always serializes");
        let mut out = Vec::with_capacity(body.len() + 24);
        out.extend_from_slice(MANIFEST_MAGIC);
        out.extend_from_slice(&self.format_version.to_le_bytes());
        out.extend_from_slice(&(body.len() as u64).to_le_bytes());
        out.extend_from_slice(&body);
        durable::seal(&mut out);
        out
    }

    /// Replaces `dir/MANIFEST` atomically and durably: write the temp file, sync it,
    /// rename it over the manifest, sync the directory.
    pub(crate) fn store(&self, dir: &Path) -> Result<()> {
        durable::replace(&dir.join(MANIFEST_FILE), &dir.join(MANIFEST_TMP_FILE), &self.to_bytes())
    }

    /// Checks the invariants readers rely on; `Err` holds the reason.
    fn validate(&self, version: u32) -> Result<(), String> {
        if self.format_version != version {
            return Err(format!("body format_version {} differs from the header", self.format_version));
        }
        match &self.sketch {
            None if version == MANIFEST_SKETCH_VERSION => return Err("format 2 without a sketch section".into()),
            Some(_) if version == MANIFEST_FORMAT_VERSION => return Err("format 1 with a sketch section".into()),
            Some(s) => s.check().map(drop)?,
            None => {}
        }
        let mut ranges = Vec::new();
        let mut ids = Vec::new();
        for (i, c) in self.collections.iter().enumerate() {
            if !valid_name(&c.config.name) {
                return Err(format!("invalid collection name {:?}", c.config.name));
            }
            if i > 0 && self.collections[i - 1].config.name >= c.config.name {
                return Err("collections not sorted by name or duplicated".into());
            }
            for s in &c.segments {
                ids.push(s.id);
                let mut total = 0u64;
                for r in &s.doc_ranges {
                    let end = r.base.checked_add(r.count);
                    if r.count == 0 || end.is_none_or(|e| e > self.next_doc_id) {
                        return Err(format!("segment {} has a bad doc range", s.id));
                    }
                    total += r.count;
                    ranges.push((r.base, r.count));
                }
                if total != s.doc_count || total > u64::from(u32::MAX) {
                    return Err(format!("segment {} doc count does not match its ranges", s.id));
                }
                if s.id >= self.next_segment_id {
                    return Err(format!("segment id {} >= next_segment_id", s.id));
                }
            }
        }
        ids.sort_unstable();
        if ids.windows(2).any(|w| w[0] == w[1]) {
            return Err("a segment is listed twice".into());
        }
        ranges.sort_unstable();
        if ranges.windows(2).any(|w| w[0].0 + w[0].1 > w[1].0) {
            return Err("two segments claim the same doc id".into());
        }
        if self.deleted.windows(2).any(|w| w[0] >= w[1]) || self.deleted.last().is_some_and(|&d| d >= self.next_doc_id)
        {
            return Err("deleted ids are not ascending or not below next_doc_id".into());
        }
        if self.seen_at.keys().next_back().is_some_and(|&d| d >= self.next_doc_id) {
            return Err("seen_at names a doc id not below next_doc_id".into());
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // unwrap is fine in tests
mod tests {
    use super::*;
    use crate::CollectionKind;

    fn sample() -> Manifest {
        let mut m = Manifest::new(serde_json::json!({"shingle": 5}));
        m.next_doc_id = 10;
        m.next_segment_id = 2;
        m.collections.push(CollectionEntry {
            config: CollectionConfig { name: "web".into(), kind: CollectionKind::Source, keep_texts: false },
            segments: vec![SegmentEntry {
                id: 1,
                doc_ranges: vec![DocRange { base: 0, count: 4 }, DocRange { base: 6, count: 4 }],
                doc_count: 8,
                file_len: 999,
            }],
        });
        m
    }

    #[test]
    fn round_trip() {
        let m = sample();
        assert_eq!(Manifest::from_bytes(&m.to_bytes(), Path::new("M")).unwrap(), m);
    }

    #[test]
    fn every_flip_and_cut_is_detected() {
        let bytes = sample().to_bytes();
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x01;
            assert!(Manifest::from_bytes(&b, Path::new("M")).is_err(), "flip at {i}");
            assert!(Manifest::from_bytes(&bytes[..i], Path::new("M")).is_err(), "cut at {i}");
        }
    }

    #[test]
    fn overlapping_ranges_are_refused() {
        let mut m = sample();
        m.collections[0].segments.push(SegmentEntry {
            id: 0,
            doc_ranges: vec![DocRange { base: 3, count: 1 }],
            doc_count: 1,
            file_len: 1,
        });
        assert!(Manifest::from_bytes(&m.to_bytes(), Path::new("M")).is_err());
    }

    #[test]
    fn names() {
        assert!(valid_name("web-2024_v1.0"));
        assert!(!valid_name(""));
        assert!(!valid_name("a/b"));
        assert!(!valid_name(&"x".repeat(65)));
    }
}
