//! The PAN 2013 text-alignment corpus layout.
//!
//! ```text
//! <root>/src/source-documentNNNNN.txt
//! <root>/susp/suspicious-documentNNNNN.txt
//! <root>/pairs                                 all pairs, "suspicious-documentX.txt source-documentY.txt"
//! <root>/<subset>/pairs                        the subset's pairs, same format
//! <root>/<subset>/suspicious-documentX-source-documentY.xml   ground truth of one pair
//! ```
//!
//! A subset is any sub-directory of the root that holds a `pairs` file
//! (`01-no-plagiarism`, `02-no-obfuscation`, ...).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::annotation::{Annotation, pair_file_name};
use crate::error::{Error, Result};
use crate::xml::{CASE_FEATURE, read_annotations};

/// One (suspicious, source) pair listed by a subset's `pairs` file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Pair {
    /// File name of the suspicious document, e.g. `suspicious-document00005.txt`.
    pub suspicious: String,
    /// File name of the source document, e.g. `source-document01090.txt`.
    pub source: String,
    /// Name of the subset listing the pair, e.g. `02-no-obfuscation`.
    pub subset: String,
}

impl Pair {
    /// Name of the pair's XML file, e.g. `suspicious-document00005-source-document01090.xml`.
    pub fn file_name(&self) -> String {
        pair_file_name(&self.suspicious, &self.source)
    }
}

/// A PAN text-alignment corpus on disk.
#[derive(Debug, Clone)]
pub struct PanCorpus {
    /// The corpus directory.
    pub root: PathBuf,
    /// Every pair of every subset, subset by subset in the order of their `pairs` files.
    pub pairs: Vec<Pair>,
    /// Subset names (directory names), sorted.
    pub subsets: Vec<String>,
}

impl PanCorpus {
    /// Opens the corpus at `root`: finds the subsets and reads their `pairs` files.
    /// Ground truth is read lazily by [`PanCorpus::cases`].
    pub fn open(root: &Path) -> Result<Self> {
        let mut subsets = Vec::new();
        for entry in fs_err::read_dir(root).map_err(|e| Error::io(root, e))? {
            let entry = entry.map_err(|e| Error::io(root, e))?;
            let path = entry.path();
            if path.is_dir()
                && path.join("pairs").is_file()
                && let Some(name) = entry.file_name().to_str()
            {
                subsets.push(name.to_owned());
            }
        }
        if subsets.is_empty() {
            return Err(Error::NoSubsets { path: root.to_path_buf() });
        }
        subsets.sort();
        let mut pairs = Vec::new();
        for subset in &subsets {
            let path = root.join(subset).join("pairs");
            for (suspicious, source) in read_pairs(&path)? {
                pairs.push(Pair { suspicious, source, subset: subset.clone() });
            }
        }
        Ok(PanCorpus { root: root.to_path_buf(), pairs, subsets })
    }

    /// Directory of the source documents (`<root>/src`).
    pub fn src_dir(&self) -> PathBuf {
        self.root.join("src")
    }

    /// Directory of the suspicious documents (`<root>/susp`).
    pub fn susp_dir(&self) -> PathBuf {
        self.root.join("susp")
    }

    /// Path of a source document, e.g. for `source-document01090.txt`.
    pub fn source_path(&self, name: &str) -> PathBuf {
        self.src_dir().join(name)
    }

    /// Path of a suspicious document, e.g. for `suspicious-document00005.txt`.
    pub fn suspicious_path(&self, name: &str) -> PathBuf {
        self.susp_dir().join(name)
    }

    /// Directory of a subset; [`Error::UnknownSubset`] if the corpus has no such subset.
    pub fn subset_dir(&self, subset: &str) -> Result<PathBuf> {
        if self.subsets.iter().any(|s| s == subset) {
            Ok(self.root.join(subset))
        } else {
            Err(Error::UnknownSubset { name: subset.into(), known: self.subsets.join(", ") })
        }
    }

    /// The pairs a subset lists (none for an unknown subset).
    pub fn pairs_of(&self, subset: &str) -> Vec<&Pair> {
        self.pairs.iter().filter(|p| p.subset == subset).collect()
    }

    /// The ground-truth cases of a subset: the `name="plagiarism"` features of every
    /// `*.xml` file in the subset's directory, files in name order.
    pub fn cases(&self, subset: &str) -> Result<Vec<Annotation>> {
        let dir = self.subset_dir(subset)?;
        let mut cases = Vec::new();
        for path in xml_files(&dir)? {
            cases.extend(read_annotations(&path, &[CASE_FEATURE])?);
        }
        Ok(cases)
    }
}

/// Reads a `pairs` file: one `suspicious-documentX.txt source-documentY.txt` a line;
/// blank lines are skipped.
pub fn read_pairs(path: &Path) -> Result<Vec<(String, String)>> {
    let text = fs_err::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let mut pairs = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut fields = line.split_whitespace();
        match (fields.next(), fields.next(), fields.next()) {
            (None, _, _) => {}
            (Some(suspicious), Some(source), None) => {
                pairs.push((suspicious.to_owned(), source.to_owned()));
            }
            _ => {
                return Err(Error::BadLine {
                    path: path.to_path_buf(),
                    line: i + 1,
                    message: format!("expected `suspicious-document.txt source-document.txt`, got `{line}`"),
                });
            }
        }
    }
    Ok(pairs)
}

/// The `*.xml` files directly in `dir`, sorted by name.
pub(crate) fn xml_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in fs_err::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let path = entry.map_err(|e| Error::io(dir, e))?.path();
        if path.extension().is_some_and(|x| x == "xml") && path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_corpus() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("02-x")).unwrap();
        std::fs::create_dir_all(root.join("01-y")).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("pairs"), "s1.txt r1.txt\ns2.txt r2.txt\n").unwrap();
        std::fs::write(root.join("02-x/pairs"), "s1.txt r1.txt\n\n").unwrap();
        std::fs::write(root.join("01-y/pairs"), "s2.txt  r2.txt\r\n").unwrap();
        std::fs::write(
            root.join("02-x/s1-r1.xml"),
            r#"<document reference="s1.txt"><feature name="plagiarism" this_offset="1" this_length="2" source_reference="r1.txt" source_offset="3" source_length="4"/></document>"#,
        )
        .unwrap();
        let corpus = PanCorpus::open(root).unwrap();
        assert_eq!(corpus.subsets, ["01-y", "02-x"]);
        assert_eq!(corpus.pairs.len(), 2);
        assert_eq!(corpus.pairs_of("01-y")[0].source, "r2.txt");
        assert_eq!(corpus.pairs_of("02-x")[0].file_name(), "s1-r1.xml");
        assert!(corpus.pairs_of("zz").is_empty());
        assert_eq!(corpus.cases("02-x").unwrap().len(), 1);
        assert!(corpus.cases("01-y").unwrap().is_empty());
        let err = corpus.cases("zz").unwrap_err().to_string();
        assert!(err.contains("01-y, 02-x"), "{err}");
        assert_eq!(corpus.src_dir(), root.join("src"));
        assert_eq!(corpus.susp_dir(), root.join("susp"));
    }

    #[test]
    fn bad_pairs_line_names_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a")).unwrap();
        std::fs::write(dir.path().join("a/pairs"), "s r\nonly-one\n").unwrap();
        let err = PanCorpus::open(dir.path()).unwrap_err().to_string();
        assert!(err.contains("pairs:2"), "{err}");
    }

    #[test]
    fn not_a_corpus() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(PanCorpus::open(dir.path()), Err(Error::NoSubsets { .. })));
        assert!(matches!(PanCorpus::open(&dir.path().join("missing")), Err(Error::Io { .. })));
    }
}
