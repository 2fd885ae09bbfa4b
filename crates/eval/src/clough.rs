//! The Corpus of Plagiarised Short Answers (Clough & Stevenson, 2011).
//!
//! `file_list.csv` (header `File,Group,Person,Task,Category,...`) labels 95 answers
//! `gXpY_taskZ.txt` with their task (`a`..`e`) and category (`cut`, `light`, `heavy`,
//! `non`); `orig_taskZ.txt` are the five Wikipedia source articles. Files are UTF-8
//! or Windows-1252, some with CRLF line ends; texts are decoded and otherwise kept as
//! they are (line ends included).

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// How an answer was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CloughCategory {
    /// Near copy of the source ("cut and paste").
    Cut,
    /// Light revision of the source.
    Light,
    /// Heavy revision of the source.
    Heavy,
    /// Written independently of the source.
    Non,
    /// The source article itself (`orig_taskX.txt`).
    Orig,
}

impl CloughCategory {
    /// The label used in `file_list.csv`.
    pub fn as_str(self) -> &'static str {
        match self {
            CloughCategory::Cut => "cut",
            CloughCategory::Light => "light",
            CloughCategory::Heavy => "heavy",
            CloughCategory::Non => "non",
            CloughCategory::Orig => "orig",
        }
    }

    /// Whether the answer was derived from the source (cut, light or heavy).
    pub fn is_plagiarised(self) -> bool {
        matches!(self, CloughCategory::Cut | CloughCategory::Light | CloughCategory::Heavy)
    }
}

impl fmt::Display for CloughCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for CloughCategory {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "cut" => Ok(CloughCategory::Cut),
            "light" => Ok(CloughCategory::Light),
            "heavy" => Ok(CloughCategory::Heavy),
            "non" => Ok(CloughCategory::Non),
            "orig" => Ok(CloughCategory::Orig),
            other => Err(format!("unknown category `{other}`")),
        }
    }
}

/// One text of the corpus: an answer, or a source article (category `Orig`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CloughAnswer {
    /// File name, e.g. `g0pA_taska.txt` or `orig_taska.txt`.
    pub file: String,
    /// Task letter, `a` to `e`.
    pub task: char,
    /// How the text was written.
    pub category: CloughCategory,
    /// The decoded text (UTF-8, or Windows-1252 when not valid UTF-8), line ends kept.
    pub text: String,
}

/// Reads the corpus at `root`: the answers listed by `file_list.csv`, in its order,
/// then the source articles `orig_task{a..e}.txt` (those present) with category
/// [`CloughCategory::Orig`].
pub fn read_clough(root: &Path) -> Result<Vec<CloughAnswer>> {
    let list = root.join("file_list.csv");
    let csv = read_text(&list)?;
    let bad = |line: usize, message: String| Error::BadLine { path: list.clone(), line, message };
    let mut lines = csv.lines().enumerate();
    let header: Vec<&str> = match lines.next() {
        Some((_, h)) => h.split(',').map(str::trim).collect(),
        None => return Err(bad(1, "empty file".into())),
    };
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h.eq_ignore_ascii_case(name))
            .ok_or_else(|| bad(1, format!("no `{name}` column in the header")))
    };
    let (file_col, task_col, category_col) = (column("File")?, column("Task")?, column("Category")?);

    let mut answers = Vec::new();
    for (i, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let field = |col: usize| {
            fields.get(col).copied().ok_or_else(|| bad(i + 1, format!("expected at least {} fields", col + 1)))
        };
        let file = field(file_col)?;
        let task_field = field(task_col)?;
        let task = parse_task(task_field).ok_or_else(|| bad(i + 1, format!("task `{task_field}` is not a letter")))?;
        let category = field(category_col)?.parse::<CloughCategory>().map_err(|m| bad(i + 1, m))?;
        if file.contains(['/', '\\']) {
            return Err(bad(i + 1, format!("`{file}` is not a plain file name")));
        }
        answers.push(CloughAnswer { file: file.to_owned(), task, category, text: read_text(&root.join(file))? });
    }
    for task in 'a'..='e' {
        let file = format!("orig_task{task}.txt");
        let path = root.join(&file);
        if path.is_file() {
            answers.push(CloughAnswer { file, task, category: CloughCategory::Orig, text: read_text(&path)? });
        }
    }
    Ok(answers)
}

fn parse_task(field: &str) -> Option<char> {
    let mut chars = field.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_ascii_alphabetic() => Some(c.to_ascii_lowercase()),
        _ => None,
    }
}

/// Reads a text file that is UTF-8 (a BOM is dropped) or else Windows-1252.
pub fn read_text(path: &Path) -> Result<String> {
    let bytes = fs_err::read(path).map_err(|e| Error::io(path, e))?;
    Ok(decode(&bytes))
}

/// Decodes UTF-8 (dropping a BOM), falling back to Windows-1252.
///
/// Some files of the corpus are Windows-1252 text that was converted to UTF-8 as if it
/// were Latin-1, leaving C1 control characters (U+0080..U+009F) where curly quotes
/// and dashes were; those are mapped to their Windows-1252 meaning.
pub fn decode(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) if text.chars().any(is_c1) => text
            .chars()
            .map(|c| match u8::try_from(u32::from(c)) {
                Ok(byte) if is_c1(c) => windows_1252(&[byte]).chars().next().unwrap_or(c),
                _ => c,
            })
            .collect(),
        Ok(text) => text.to_owned(),
        Err(_) => windows_1252(bytes),
    }
}

fn is_c1(c: char) -> bool {
    ('\u{80}'..='\u{9f}').contains(&c)
}

fn windows_1252(bytes: &[u8]) -> String {
    encoding_rs::WINDOWS_1252.decode_without_bom_handling(bytes).0.into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_both_encodings() {
        assert_eq!(decode("caf\u{e9}\r\n".as_bytes()), "caf\u{e9}\r\n");
        assert_eq!(decode(b"caf\xe9 \x93q\x94\r\n"), "caf\u{e9} \u{201c}q\u{201d}\r\n");
        assert_eq!(decode(b"\xEF\xBB\xBFabc"), "abc");
        // Windows-1252 converted to UTF-8 as Latin-1: C1 controls repaired.
        assert_eq!(decode("\u{91}G\u{92}\u{81}".as_bytes()), "\u{2018}G\u{2019}\u{81}");
    }

    #[test]
    fn categories() {
        assert_eq!("Cut".parse::<CloughCategory>(), Ok(CloughCategory::Cut));
        assert!("copy".parse::<CloughCategory>().is_err());
        assert!(CloughCategory::Heavy.is_plagiarised());
        assert!(!CloughCategory::Non.is_plagiarised());
        assert_eq!(CloughCategory::Light.to_string(), "light");
    }

    #[test]
    fn reads_a_small_corpus() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("file_list.csv"),
            "File,Group,Person,Task,Category\r\ng0pA_taska.txt,0,A,a,cut\r\n\r\n",
        )
        .unwrap();
        std::fs::write(root.join("g0pA_taska.txt"), b"x\x92s\r\n").unwrap();
        std::fs::write(root.join("orig_taska.txt"), "source").unwrap();
        let all = read_clough(root).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].text, "x\u{2019}s\r\n");
        assert_eq!(all[0].task, 'a');
        assert_eq!(all[1].category, CloughCategory::Orig);

        std::fs::write(root.join("file_list.csv"), "File,Task,Category\ng0pA_taska.txt,a,copied\n").unwrap();
        let err = read_clough(root).unwrap_err().to_string();
        assert!(err.contains("file_list.csv:2"), "{err}");
        std::fs::write(root.join("file_list.csv"), "File,Task\n").unwrap();
        assert!(read_clough(root).is_err());
    }
}
