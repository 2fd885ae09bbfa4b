//! Translated borrowings in the one check path: whether a check looks across languages
//! ([`CrossLanguage`]), the lexicon it uses (read on first need: a check of collections
//! in the suspect's own language never reads it), and a suspect's way into the other
//! languages ([`CrossQuery`]; `tessera_fingerprint::translate` translates, search's
//! translated stage finds and aligns the sources: [`tessera_search::align_translated`]).

use std::sync::{Arc, OnceLock};

use tessera_fingerprint::{Lexicon, SuspectFingerprint, Translations, translate::text_language};
use tessera_normalize::NormalizerConfig;
use tessera_search::{CrossLanguage, CrossQuery, Query, Translate};

use crate::{Error, Result};

/// The lexicon once read, or why there is none.
type Loaded = OnceLock<std::result::Result<Arc<Lexicon>, String>>;

/// The cross-language step of a check, as its settings and this machine allow.
#[derive(Debug)]
pub struct CrossLanguageStep {
    mode: CrossLanguage,
    normalizer: NormalizerConfig,
    /// Shared with the suspects' translators, which read it on first need.
    lexicon: Arc<Loaded>,
    /// Each language's probe terms ([`Lexicon::probes`]).
    probes: Vec<(String, Vec<u32>)>,
    /// The language pairs the installed dictionaries give, from their file names, read
    /// once when the step is made (not at every check).
    installed: Vec<(String, String)>,
}

impl CrossLanguageStep {
    /// The step for `mode` with terms made by `normalizer`. `On` reads the lexicon now,
    /// and its absence is an error naming what was searched; `Auto` reads it when a
    /// check first needs it, and without a dictionary the step is off
    /// ([`CrossLanguageStep::off_because`] says why).
    pub fn new(mode: CrossLanguage, normalizer: &NormalizerConfig) -> Result<Self> {
        let (probes, installed) = if mode == CrossLanguage::Off {
            (Vec::new(), Vec::new())
        } else {
            (Lexicon::probes(normalizer)?, Lexicon::installed_pairs())
        };
        let step = Self { mode, normalizer: normalizer.clone(), lexicon: Arc::new(OnceLock::new()), probes, installed };
        if mode == CrossLanguage::On
            && let Err(e) = load(&step.lexicon, &step.normalizer)
        {
            return Err(Error::Settings(format!("--cross-language on needs a bilingual dictionary ({e})")));
        }
        Ok(step)
    }

    /// Why translated borrowings are not searched, when they are not: the step is off,
    /// no dictionary is installed, or the one installed could not be read. Reads nothing
    /// that was not read before (a dictionary's presence is a look at its files).
    pub fn off_because(&self) -> Option<String> {
        if self.mode == CrossLanguage::Off {
            return Some("translated borrowings are not searched (cross-language: off)".to_owned());
        }
        match self.lexicon.get() {
            Some(Err(e)) => Some(format!("translated borrowings are not searched: {e}")),
            Some(Ok(_)) => None,
            None if !self.installed.is_empty() => None,
            None => Some(format!(
                "translated borrowings are not searched: no bilingual dictionary is installed (looked in {}; \
                 install Debian's mueller7-dict for Russian <-> English)",
                tessera_fingerprint::translate::dictionary_dirs()
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// The suspect's language (ISO 639-1) as translation sees it.
    pub fn language(text: &str, suspect: &SuspectFingerprint) -> Option<String> {
        text_language(text, &suspect.fingerprint.token_bytes, suspect.language.as_deref())
    }

    /// The suspect's translations into `to` (reads the lexicon), when the step is on, the
    /// suspect's language (`from`) differs from `to` and the lexicon translates between
    /// them.
    pub fn translations(&self, text: &str, suspect: &SuspectFingerprint, from: &str, to: &str) -> Option<Translations> {
        if self.mode == CrossLanguage::Off {
            return None;
        }
        let lexicon = load(&self.lexicon, &self.normalizer).ok()?;
        (from != to && lexicon.translates(from, to))
            .then(|| lexicon.translate(text, &suspect.fingerprint, &suspect.names, from, to))
    }

    /// The suspect's way into the other languages ([`CrossQuery`]: each language with
    /// its probe terms, translated on first need, through the lexicon read then); `None`
    /// when the step is off, no dictionary is installed or the suspect's language is
    /// unknown.
    pub fn cross_query(&self, text: &str, suspect: &SuspectFingerprint) -> Option<Arc<CrossQuery>> {
        if self.mode == CrossLanguage::Off || matches!(self.lexicon.get(), Some(Err(_))) {
            return None;
        }
        let from = Self::language(text, suspect)?;
        // The languages the installed dictionaries translate `from` into (their file
        // names tell, or the lexicon once read), each with its probe terms (none for a
        // language without a built-in list: every collection is searched).
        let pairs = match self.lexicon.get() {
            Some(Ok(lexicon)) => lexicon.targets(&from),
            _ => self.installed.iter().filter(|(a, _)| *a == from).map(|(_, b)| b.clone()).collect(),
        };
        let targets: Vec<(String, Vec<u32>)> = pairs
            .into_iter()
            .filter(|to| *to != from)
            .map(|to| {
                let probe = self.probes.iter().find(|(l, _)| *l == to).map(|(_, p)| p.clone()).unwrap_or_default();
                (to, probe)
            })
            .collect();
        if targets.is_empty() {
            return None;
        }
        let (lexicon, normalizer) = (Arc::clone(&self.lexicon), self.normalizer.clone());
        let (text, language) = (Arc::<str>::from(text), from.clone());
        let translate: Arc<Translate> = Arc::new(move |query: &Query, to: &str| match load(&lexicon, &normalizer) {
            Ok(lexicon) => {
                lexicon.translate_tokens(&text, &query.token_bytes, &query.terms, &query.names, &language, to)
            }
            // No translations: the stage finds nothing, and the check's notice says why.
            Err(_) => Translations::default(),
        });
        Some(Arc::new(CrossQuery::new(from, targets, translate)))
    }
}

/// The lexicon in `cell`, read on first call.
fn load<'a>(cell: &'a Loaded, normalizer: &NormalizerConfig) -> std::result::Result<&'a Arc<Lexicon>, &'a str> {
    cell.get_or_init(|| Lexicon::installed(normalizer).map_err(|e| e.to_string())).as_ref().map_err(String::as_str)
}
