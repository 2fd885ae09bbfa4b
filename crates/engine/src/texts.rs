//! Kept texts: whether a collection keeps its documents' texts (the default, switching it
//! on), the one hash of a document's text, and where a report finds a source's text, or
//! why it has none.
//!
//! A collection keeps texts by default ([`DEFAULT_KEEP_TEXTS`]): a reviewer's first
//! question is "show me the source". Snapshot-only stays for web-scale collections (the
//! crawler chooses it). A collection of fingerprints only may start keeping texts at any
//! add that asks for them; documents added before have none, and a report then reads the
//! original file when its recorded path still holds the same text, checked by the hash
//! stored when it was indexed ([`text_hash`]). A collection never stops keeping texts.

use std::path::Path;

use tessera_index::{CollectionConfig, DocId, DocMeta};

use crate::{CollectionKind, Engine, Result};

/// Whether a collection created by an add that does not say keeps its documents' texts
/// (`tessera index`, `POST /api/documents`, Python's `Index.add*`; `--snapshots-only`
/// or `keep_texts: false` says otherwise). An existing collection keeps its own choice.
pub const DEFAULT_KEEP_TEXTS: bool = true;

/// The hash of a document's text stored in its metadata when it is indexed (xxh3-128 of
/// its UTF-8 bytes): a file whose text hashes the same still holds what was indexed.
#[must_use]
pub fn text_hash(text: &str) -> u128 {
    xxhash_rust::xxh3::xxh3_128(text.as_bytes())
}

/// A source's text for a report: the text, or why there is none (a sentence for the
/// reviewer).
pub(crate) type SourceText = std::result::Result<String, String>;

impl Engine {
    /// The collection an add asks for: `keep_texts` as given; when not given, the
    /// existing collection's own choice, or [`DEFAULT_KEEP_TEXTS`] for a new one. Asking
    /// for texts in a collection of fingerprints only switches them on (from this add
    /// on); asking for none in a collection that keeps them is refused by the add.
    pub fn collection_config(
        &self,
        name: &str,
        kind: CollectionKind,
        keep_texts: Option<bool>,
    ) -> Result<CollectionConfig> {
        let existing = self.reader()?.collection(name).map(|c| c.config().keep_texts);
        Ok(CollectionConfig {
            name: name.to_owned(),
            kind,
            keep_texts: keep_texts.or(existing).unwrap_or(DEFAULT_KEEP_TEXTS),
        })
    }

    /// The text of source `doc` of collection `config` for a report: its kept text, else
    /// (in a collection that keeps texts now but did not when `doc` was indexed) its
    /// original file's, when that still holds the same text; else why there is none.
    pub(crate) fn source_text(
        &self,
        view: &crate::IndexView,
        doc: DocId,
        meta: &DocMeta,
        config: &CollectionConfig,
    ) -> Result<SourceText> {
        if let Some(text) = view.text(doc)? {
            return Ok(Ok(text));
        }
        let name = &config.name;
        if !config.keep_texts {
            return Ok(Err(format!(
                "The collection \u{201c}{name}\u{201d} keeps fingerprints only, not texts (it was made with \
                 --snapshots-only, by the crawler, or before texts were kept by default). Adding documents with \
                 `tessera index --index INDEX -c {name} --keep-texts PATHS` keeps texts from then on, and \
                 shows the documents indexed before from their original files while those are unchanged."
            )));
        }
        Ok(self.original_text(meta).map_err(|why| {
            format!("This document was indexed before the collection \u{201c}{name}\u{201d} kept texts, and {why}.")
        }))
    }

    /// The text of a document's original file (or archive member), if it still is what
    /// was indexed; else why not (the end of a sentence).
    fn original_text(&self, meta: &DocMeta) -> SourceText {
        let origin = meta.origin.as_str();
        let Some(hash) = meta.text_hash else {
            return Err("it was indexed by an older version that stored no hash of its text, so its original file \
                        cannot be checked: add it again with --force to keep its text"
                .to_owned());
        };
        if origin.contains("://") {
            return Err(format!("its origin {origin} is not a file"));
        }
        let file = origin.split_once("!/").map_or(origin, |(archive, _)| archive);
        let path = Path::new(file);
        if !path.is_file() {
            return Err(format!("its original file {file} is no longer there"));
        }
        let extractor = tessera_extract::Extractor::new(self.options().extract.clone());
        let Some(doc) = extractor.extract_path_documents(path).into_iter().find(|d| d.name == origin) else {
            return Err(format!("its original file {file} no longer holds {origin}"));
        };
        let extracted = doc.result.map_err(|e| format!("its original file {file} cannot be read now ({e})"))?;
        if text_hash(&extracted.text) != hash {
            return Err(format!("the original file {file} changed since it was indexed"));
        }
        Ok(extracted.text)
    }
}
