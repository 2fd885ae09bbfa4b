//! Translated borrowings in the one check path: whether a check looks across languages
//! ([`CrossLanguage`]), the lexicon it uses, and a suspect's translations into a source's
//! language (`tessera_fingerprint::translate`; the alignment is
//! [`tessera_search::align_translated`]).

use std::sync::Arc;

use tessera_fingerprint::{Lexicon, SuspectFingerprint, Translations, translate::text_language};
use tessera_normalize::NormalizerConfig;
use tessera_search::CrossLanguage;

use crate::{Error, Result};

/// The cross-language step of a check, as its settings and this machine allow.
#[derive(Debug, Clone)]
pub struct CrossLanguageStep {
    /// The lexicon, or why the step is off (asked off, or no dictionary installed).
    lexicon: std::result::Result<Arc<Lexicon>, String>,
}

impl CrossLanguageStep {
    /// The step for `mode` with terms made by `normalizer`: `On` without an installed
    /// dictionary is an error naming what was searched; `Auto` without one is off, and
    /// [`CrossLanguageStep::off_because`] says why.
    pub fn new(mode: CrossLanguage, normalizer: &NormalizerConfig) -> Result<Self> {
        let lexicon = match mode {
            CrossLanguage::Off => Err("cross-language search is off (--cross-language off)".to_owned()),
            CrossLanguage::Auto => {
                Lexicon::installed(normalizer).map_err(|e| format!("translated borrowings are not searched: {e}"))
            }
            CrossLanguage::On => Ok(Lexicon::installed(normalizer)
                .map_err(|e| Error::Settings(format!("--cross-language on needs a bilingual dictionary: {e}")))?),
        };
        Ok(Self { lexicon })
    }

    /// Why the step is off (`None` when it is on).
    pub fn off_because(&self) -> Option<&str> {
        self.lexicon.as_ref().err().map(String::as_str)
    }

    /// The suspect's language (ISO 639-1) as translation sees it.
    pub fn language(text: &str, suspect: &SuspectFingerprint) -> Option<String> {
        text_language(text, &suspect.fingerprint.token_bytes, suspect.language.as_deref())
    }

    /// The suspect's translations into `to`, when the step is on, the suspect's language
    /// (`from`) differs from `to` and the lexicon translates between them.
    pub fn translations(&self, text: &str, suspect: &SuspectFingerprint, from: &str, to: &str) -> Option<Translations> {
        let lexicon = self.lexicon.as_ref().ok()?;
        (from != to && lexicon.translates(from, to))
            .then(|| lexicon.translate(text, &suspect.fingerprint, &suspect.names, from, to))
    }
}
