//! One plagiarism case or detection: a passage of a suspicious document aligned with a
//! passage of a source document.

use serde::{Deserialize, Serialize};

/// A plagiarism case (ground truth) or a detection, as in PAN's XML files.
///
/// Offsets and lengths count **Unicode characters** (not bytes), as PAN does. The
/// passages are the half-open intervals `[this_offset, this_offset + this_length)` of
/// the suspicious document and `[source_offset, source_offset + source_length)` of the
/// source document. Document names are the file names used by PAN, with their
/// extension (`suspicious-document00005.txt`, `source-document01090.txt`).
///
/// The derived ordering and equality make annotations usable as set elements: two
/// annotations with the same documents, offsets and lengths are the same annotation.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
pub struct Annotation {
    /// File name of the suspicious document (`reference` of `<document>`).
    pub suspicious: String,
    /// File name of the source document (`source_reference` of `<feature>`).
    pub source: String,
    /// Start of the passage in the suspicious document, in characters.
    pub this_offset: u64,
    /// Length of the passage in the suspicious document, in characters.
    pub this_length: u64,
    /// Start of the passage in the source document, in characters.
    pub source_offset: u64,
    /// Length of the passage in the source document, in characters.
    pub source_length: u64,
}

impl Annotation {
    /// One past the last character of the suspicious passage (saturating).
    pub fn this_end(&self) -> u64 {
        self.this_offset.saturating_add(self.this_length)
    }

    /// One past the last character of the source passage (saturating).
    pub fn source_end(&self) -> u64 {
        self.source_offset.saturating_add(self.source_length)
    }

    /// Size used by the measure: the suspicious side plus the source side.
    pub fn len(&self) -> u64 {
        self.this_length.saturating_add(self.source_length)
    }

    /// Whether both passages are empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether `self` and `other` concern the same (suspicious, source) pair.
    pub fn same_pair(&self, other: &Annotation) -> bool {
        self.suspicious == other.suspicious && self.source == other.source
    }

    /// The PAN "detects" relation (symmetric): same pair, and the passages overlap
    /// in the suspicious document and in the source document.
    pub fn overlaps(&self, other: &Annotation) -> bool {
        self.same_pair(other)
            && intervals_overlap(self.this_offset, self.this_end(), other.this_offset, other.this_end())
            && intervals_overlap(self.source_offset, self.source_end(), other.source_offset, other.source_end())
    }
}

/// Whether half-open intervals `[a0, a1)` and `[b0, b1)` share a point.
pub(crate) fn intervals_overlap(a0: u64, a1: u64, b0: u64, b1: u64) -> bool {
    a0 < b1 && b0 < a1 && a0 < a1 && b0 < b1
}

/// The name PAN gives the XML file of a (suspicious, source) pair:
/// `suspicious-document00005-source-document01090.xml` for
/// (`suspicious-document00005.txt`, `source-document01090.txt`). A trailing `.txt` is
/// dropped from each name; names without it are used as they are.
pub fn pair_file_name(suspicious: &str, source: &str) -> String {
    format!("{}-{}.xml", strip_txt(suspicious), strip_txt(source))
}

fn strip_txt(name: &str) -> &str {
    name.strip_suffix(".txt").unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ann(t0: u64, tl: u64, s0: u64, sl: u64) -> Annotation {
        Annotation {
            suspicious: "s.txt".into(),
            source: "r.txt".into(),
            this_offset: t0,
            this_length: tl,
            source_offset: s0,
            source_length: sl,
        }
    }

    #[test]
    fn overlap_needs_both_sides() {
        let a = ann(0, 100, 0, 100);
        assert!(a.overlaps(&ann(99, 10, 50, 1)));
        assert!(!a.overlaps(&ann(100, 10, 50, 1)), "touching is not overlapping");
        assert!(!a.overlaps(&ann(50, 10, 200, 1)), "source side apart");
        assert!(!a.overlaps(&ann(50, 0, 50, 10)), "empty side overlaps nothing");
        let mut other_pair = ann(0, 100, 0, 100);
        other_pair.source = "x.txt".into();
        assert!(!a.overlaps(&other_pair));
    }

    #[test]
    fn pair_file_names() {
        assert_eq!(
            pair_file_name("suspicious-document00005.txt", "source-document01090.txt"),
            "suspicious-document00005-source-document01090.xml"
        );
        assert_eq!(pair_file_name("a", "b"), "a-b.xml");
    }

    #[test]
    fn saturating_ends() {
        let a = ann(u64::MAX, 5, 1, 2);
        assert_eq!(a.this_end(), u64::MAX);
        assert_eq!(a.len(), 7);
    }
}
