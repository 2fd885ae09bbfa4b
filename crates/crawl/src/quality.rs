//! The quality filter: is an extracted page a text worth indexing, or rubbish?

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// Thresholds of the quality filter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct QualityConfig {
    /// Fewest words (runs of letters or digits) a page needs.
    pub min_words: usize,
    /// Smallest share of letters among the non-space characters.
    pub min_letter_share: f64,
    /// Largest share of non-empty lines that repeat another line of the page
    /// (navigation, footers, lists of the same link).
    pub max_repeated_line_share: f64,
    /// Languages accepted (ISO 639-3 codes as whatlang names them, e.g. `eng`, `rus`);
    /// empty accepts any.
    pub languages: Vec<String>,
}

impl Default for QualityConfig {
    fn default() -> Self {
        Self { min_words: 50, min_letter_share: 0.6, max_repeated_line_share: 0.5, languages: Vec::new() }
    }
}

/// Why a page was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rejection {
    /// Fewer words than [`QualityConfig::min_words`].
    TooShort,
    /// Not in an accepted language (or none detected).
    Language,
    /// Too few letters: numbers, symbols, markup debris.
    Junk,
    /// Mostly repeated lines.
    Boilerplate,
}

impl Rejection {
    /// The reason as logged and counted.
    pub fn as_str(self) -> &'static str {
        match self {
            Rejection::TooShort => "too_short",
            Rejection::Language => "language",
            Rejection::Junk => "junk",
            Rejection::Boilerplate => "boilerplate",
        }
    }
}

impl QualityConfig {
    /// Judges a text: `Ok(())` to index it, or the first reason it fails.
    pub fn judge(&self, text: &str) -> Result<(), Rejection> {
        let words = text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).count();
        if words < self.min_words {
            return Err(Rejection::TooShort);
        }
        let (mut letters, mut visible) = (0usize, 0usize);
        for c in text.chars().filter(|c| !c.is_whitespace()) {
            visible += 1;
            if c.is_alphabetic() {
                letters += 1;
            }
        }
        if visible == 0 || (letters as f64) < self.min_letter_share * visible as f64 {
            return Err(Rejection::Junk);
        }
        let mut counts: HashMap<&str, usize> = HashMap::new();
        let mut lines = 0usize;
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
            lines += 1;
            *counts.entry(line).or_default() += 1;
        }
        let repeated: usize = counts.values().filter(|&&n| n > 1).map(|n| n - 1).sum();
        if lines > 0 && repeated as f64 > self.max_repeated_line_share * lines as f64 {
            return Err(Rejection::Boilerplate);
        }
        if !self.languages.is_empty() {
            let lang = whatlang::detect(text).map(|info| info.lang().code());
            if !lang.is_some_and(|code| self.languages.iter().any(|l| l.eq_ignore_ascii_case(code))) {
                return Err(Rejection::Language);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROSE: &str = "The printing press spread across Europe within a few decades of its invention, \
        and with it came a flood of pamphlets, bibles, grammars and almanacs. Scholars who had copied \
        texts by hand for years found that a single workshop could produce hundreds of identical copies \
        in the time a scribe needed for one, and the price of books fell so far that merchants and \
        craftsmen began to own them. Historians still argue about how quickly literacy followed.";

    #[test]
    fn prose_passes() {
        assert_eq!(QualityConfig::default().judge(PROSE), Ok(()));
    }

    #[test]
    fn each_reason() {
        let q = QualityConfig::default();
        assert_eq!(q.judge("Too short a page."), Err(Rejection::TooShort));
        let junk = (0..100).map(|i| format!("{i:05} +++ $$$ {i}")).collect::<Vec<_>>().join(" ");
        assert_eq!(q.judge(&junk), Err(Rejection::Junk));
        let nav = "Home About Contact Blog Archive Login Register Help Terms Privacy\n".repeat(20);
        assert_eq!(q.judge(&nav), Err(Rejection::Boilerplate));
        let rus = QualityConfig { languages: vec!["rus".into()], ..QualityConfig::default() };
        assert_eq!(rus.judge(PROSE), Err(Rejection::Language));
        let eng = QualityConfig { languages: vec!["eng".into()], ..QualityConfig::default() };
        assert_eq!(eng.judge(PROSE), Ok(()));
    }
}
