//! The JSON bodies of `tessera serve`'s add and error answers: the server reads and
//! writes them, the crawler's server sink writes and reads the same types, so neither
//! spells the JSON by hand. With the `openapi` feature they describe themselves to the
//! server's OpenAPI document.

use serde::{Deserialize, Serialize};

/// Documents to add to a collection (JSON form; multipart takes `collection`, `kind`,
/// `keep_texts`, `if_new`, `if_new_threshold`, `force` fields and `file` parts).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct AddDocuments {
    /// Collection name (created if missing).
    pub collection: String,
    /// `source` (default) or `citation`; used when the collection is created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Keep the documents' texts, so reports show source passages. Left out: a new
    /// collection keeps them (the engine's `DEFAULT_KEEP_TEXTS`), an existing one keeps
    /// its choice; `true` switches them on for a collection of fingerprints only (from
    /// this add on); `false` (fingerprints only, as the crawler adds) is refused by a
    /// collection that keeps texts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_texts: Option<bool>,
    /// Add a document only if it is new: not when at least `if_new_threshold` of its
    /// distinct shingles are contained in one document of the collection; its origin is
    /// then attached to that document (reports list it under `seen_at`).
    #[serde(default)]
    pub if_new: bool,
    /// Containment that makes a document not new, in `(0, 1]` (default 0.9, the seed's
    /// 90 % rule).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub if_new_threshold: Option<f64>,
    /// Add every document, even one the collection already holds from the same origin
    /// with the same text. Without it (and without `if_new`) such repeats are not added
    /// again and are listed under `skipped` with containment 1.
    #[serde(default)]
    pub force: bool,
    /// The documents.
    pub documents: Vec<NewText>,
}

impl AddDocuments {
    /// An add of no document yet into `collection`, with every flag off.
    #[must_use]
    pub fn new(collection: impl Into<String>) -> Self {
        Self {
            collection: collection.into(),
            kind: None,
            keep_texts: None,
            if_new: false,
            if_new_threshold: None,
            force: false,
            documents: Vec::new(),
        }
    }
}

/// One text to add.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NewText {
    /// The text.
    pub text: String,
    /// Title.
    #[serde(default)]
    pub title: String,
    /// Path or URL it came from.
    #[serde(default)]
    pub origin: String,
}

/// What an add did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AddedDocuments {
    /// Documents added.
    pub added: Vec<AddedDocument>,
    /// Documents not added: not new (`if_new`), or repeats of a document added from the
    /// same origin with the same text (containment 1; `force` adds them).
    pub skipped: Vec<SkippedDocument>,
    /// Members of uploaded archives that could not be extracted, with the reason (the
    /// other documents were still added).
    pub failed: Vec<SkippedMember>,
}

/// A document added.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AddedDocument {
    /// Its id.
    pub id: u64,
    /// Its origin.
    pub origin: String,
    /// Its title.
    pub title: String,
}

/// A document left out by the add-only-if-new rule; its origin was attached to the
/// document that contains it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SkippedDocument {
    /// Its origin.
    pub origin: String,
    /// The indexed document that contains it.
    pub duplicate_of: u64,
    /// Share of its distinct shingles found in that document, in `[0, 1]`.
    pub containment: f64,
    /// That document was added from this very origin (a repeat: nothing was attached).
    pub same_origin: bool,
}

/// A member of an uploaded archive that was not checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SkippedMember {
    /// `archive!/member`.
    pub name: String,
    /// Why (damaged, encrypted, a size or ratio limit, an unsupported format).
    pub error: String,
}

/// The body of every error answer: `{"error": {"code": "...", "message": "..."}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorBody {
    /// The error.
    pub error: ErrorDetail,
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorDetail {
    /// A stable machine-readable code, e.g. `not_found`, `too_large`, `unauthorized`.
    pub code: String,
    /// A sentence for a person.
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_add_round_trips_and_refuses_unknown_fields() {
        let mut add = AddDocuments::new("web");
        add.if_new = true;
        add.if_new_threshold = Some(0.8);
        add.documents.push(NewText { text: "t".into(), title: String::new(), origin: "http://h/".into() });
        let json = serde_json::to_string(&add).unwrap();
        assert_eq!(
            json,
            r#"{"collection":"web","if_new":true,"if_new_threshold":0.8,"force":false,"documents":[{"text":"t","title":"","origin":"http://h/"}]}"#
        );
        assert_eq!(serde_json::from_str::<AddDocuments>(&json).unwrap(), add);
        assert!(serde_json::from_str::<AddDocuments>(r#"{"collection":"a","documents":[],"iff_new":true}"#).is_err());
    }

    #[test]
    fn an_error_body_reads_as_the_server_writes_it() {
        let body: ErrorBody =
            serde_json::from_str(r#"{"error":{"code":"not_found","message":"no such check"}}"#).unwrap();
        assert_eq!(body.error.code, "not_found");
    }
}
