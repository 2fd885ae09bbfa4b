//! The normalizer's settings ([`NormalizerConfig`]) and the version of its rules
//! ([`FORMAT_VERSION`]): what an index stores so that its texts and its queries give the
//! same terms.

use serde::{Deserialize, Serialize};

/// Version of the canonicalisation rules (tokenizer, tables, stop lists, stemming
/// policy). Two normalizers with the same [`NormalizerConfig`] and the same version give
/// the same terms; an index stores it next to the config and refuses to mix versions.
pub const FORMAT_VERSION: u32 = 2;

/// Normalizer settings. Everything here changes fingerprints, so it is stored in the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct NormalizerConfig {
    /// Drop the built-in stop words (Russian for Cyrillic words, English for Latin words
    /// when the document's Latin-script language is English).
    pub stop_words: bool,
    /// Reduce words to Snowball stems.
    pub stemming: bool,
    /// Force the document language (ISO 639-1, e.g. `"en"`, `"ru"`) instead of
    /// detecting it. It picks the stemmer (and stop list) of Latin-script words;
    /// Cyrillic words always use Russian.
    pub language: Option<String>,
    /// More stop words, dropped whatever their script (also when `stop_words` is off).
    /// Each must be one word; it is canonicalised like text (NFKC, lowercase, `ё` -> `е`).
    pub extra_stop_words: Vec<String>,
    /// Fold Latin/Cyrillic look-alike letters inside mixed words.
    pub fold_confusables: bool,
    /// Drop words that have no letter (`2024`, `IV` in Roman numeral characters).
    pub drop_numbers: bool,
}

impl Default for NormalizerConfig {
    fn default() -> Self {
        Self {
            stop_words: true,
            stemming: true,
            language: None,
            extra_stop_words: Vec::new(),
            fold_confusables: true,
            drop_numbers: true,
        }
    }
}
