//! `POST /api/documents` (add to a collection, optionally only what is new) and
//! `DELETE /api/documents/{id}`.

use std::sync::Arc;

use axum::Json;
use axum::extract::{FromRequest, Multipart, Path, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use serde::{Deserialize, Serialize};
use tessera_engine::{AddMode, AddOutcome, CollectionConfig, CollectionKind, DocId};
use utoipa::ToSchema;

use crate::error::{ApiError, ErrorBody, engine_error};
use crate::state::{AppState, blocking};

use super::checks::SkippedMember;
use super::{authorize, clean_member_name, clean_name, multipart_error};

/// Documents to add to a collection (JSON form; multipart takes `collection`, `kind`,
/// `keep_texts`, `if_new`, `if_new_threshold`, `force` fields and `file` parts).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AddDocuments {
    /// Collection name (created if missing).
    pub collection: String,
    /// `source` (default) or `citation`; used when the collection is created.
    #[serde(default)]
    pub kind: Option<String>,
    /// Keep the texts (used when the collection is created).
    #[serde(default)]
    pub keep_texts: bool,
    /// Add a document only if it is new: not when at least `if_new_threshold` of its
    /// distinct shingles are contained in one document of the collection; its origin is
    /// then attached to that document (reports list it under `seen_at`).
    #[serde(default)]
    pub if_new: bool,
    /// Containment that makes a document not new, in `(0, 1]` (default 0.9, the seed's
    /// 90 % rule).
    #[serde(default)]
    pub if_new_threshold: Option<f64>,
    /// Add every document, even one the collection already holds from the same origin
    /// with the same text. Without it (and without `if_new`) such repeats are not added
    /// again and are listed under `skipped` with containment 1.
    #[serde(default)]
    pub force: bool,
    /// The documents.
    pub documents: Vec<NewText>,
}

/// One text to add.
#[derive(Debug, Deserialize, ToSchema)]
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
#[derive(Debug, Serialize, ToSchema)]
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
#[derive(Debug, Serialize, ToSchema)]
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
#[derive(Debug, Serialize, ToSchema)]
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

async fn read_add_request(state: &AppState, request: Request) -> Result<(AddDocuments, Vec<SkippedMember>), ApiError> {
    let content_type =
        request.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    if content_type.starts_with("application/json") {
        let Json(body) = Json::<AddDocuments>::from_request(request, &())
            .await
            .map_err(|e| ApiError::new(e.status(), "bad_request", e.body_text()))?;
        return Ok((body, Vec::new()));
    }
    if !content_type.starts_with("multipart/form-data") {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "send application/json or multipart/form-data",
        ));
    }
    let mut multipart =
        Multipart::from_request(request, &()).await.map_err(|e| ApiError::bad_request(e.body_text()))?;
    let mut add = AddDocuments {
        collection: String::new(),
        kind: None,
        keep_texts: false,
        if_new: false,
        if_new_threshold: None,
        force: false,
        documents: Vec::new(),
    };
    let mut failed = Vec::new();
    while let Some(field) = multipart.next_field().await.map_err(|e| multipart_error(&e))? {
        let field_name = field.name().unwrap_or("").to_owned();
        if let Some(file_name) = field.file_name().map(clean_name) {
            let bytes = field.bytes().await.map_err(|e| multipart_error(&e))?;
            // An archive gives one document per member, as `tessera index` does.
            let engine = Arc::clone(&state.engine);
            let documents = blocking(move || Ok(engine.extract_documents(&file_name, &bytes))).await?;
            let single = documents.len() == 1;
            for doc in documents {
                match doc.result {
                    Ok(extracted) => add.documents.push(NewText {
                        // Titled in the add below, by the engine's rule.
                        title: extracted.title.unwrap_or_default(),
                        text: extracted.text,
                        origin: clean_member_name(&doc.name),
                    }),
                    Err(e) if single => return Err(engine_error(e.into())),
                    Err(e) => failed.push(SkippedMember { name: clean_member_name(&doc.name), error: e.to_string() }),
                }
            }
            continue;
        }
        let value = field.text().await.map_err(|e| multipart_error(&e))?;
        match field_name.as_str() {
            "collection" => add.collection = value,
            "kind" => add.kind = Some(value),
            "keep_texts" => add.keep_texts = value == "true",
            "if_new" => add.if_new = value == "true",
            "force" => add.force = value == "true",
            "if_new_threshold" => {
                add.if_new_threshold =
                    Some(value.parse().map_err(|_| ApiError::bad_request("if_new_threshold is not a number"))?)
            }
            other => return Err(ApiError::bad_request(format!("unknown form field {other:?}"))),
        }
    }
    Ok((add, failed))
}

/// Add documents to a collection, optionally only those that are new.
#[utoipa::path(post, path = "/api/documents", request_body = AddDocuments,
    responses((status = 200, body = AddedDocuments), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub(super) async fn add_documents(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    request: Request,
) -> Result<Json<AddedDocuments>, ApiError> {
    authorize(&state, &headers)?;
    let (add, failed) = read_add_request(&state, request).await?;
    let kind = match add.kind.as_deref() {
        None | Some("source") => CollectionKind::Source,
        Some("citation") => CollectionKind::Citation,
        Some(other) => {
            return Err(ApiError::bad_request(format!("unknown collection kind {other:?}: source or citation")));
        }
    };
    let mode = match (add.if_new, add.force) {
        (true, true) => return Err(ApiError::bad_request("if_new and force cannot be used together")),
        (true, false) => AddMode::if_new(add.if_new_threshold).map_err(engine_error)?,
        (false, true) => AddMode::All,
        (false, false) => AddMode::SkipRepeats,
    };
    if let Some(doc) = add.documents.iter().find(|d| d.text.trim().is_empty()) {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "empty",
            format!("document {:?} has no text", doc.origin),
        ));
    }
    let config = CollectionConfig { name: add.collection.clone(), kind, keep_texts: add.keep_texts };
    let _writer = state.writer.lock().await;
    let engine = Arc::clone(&state.engine);
    let out = blocking(move || {
        // One session, one commit: the engine's add path, as `tessera index` takes it.
        let mut session = engine.add_session(&config, mode).map_err(engine_error)?;
        let mut out = AddedDocuments { added: Vec::new(), skipped: Vec::new(), failed };
        for doc in add.documents {
            // The title stored and answered: the one given, else the engine's rule.
            let title = tessera_engine::document_title(Some(&doc.title), &doc.text, &doc.origin);
            let prepared =
                engine.prepare(doc.origin.clone(), tessera_engine::Extracted::from_text(doc.text, Some(title.clone())));
            match session.add(&prepared).map_err(engine_error)? {
                AddOutcome::Added { doc: id } => out.added.push(AddedDocument { id: id.0, origin: doc.origin, title }),
                AddOutcome::Seen { into, containment } => out.skipped.push(SkippedDocument {
                    origin: doc.origin,
                    duplicate_of: into.0,
                    containment,
                    same_origin: false,
                }),
                AddOutcome::AlreadyIndexed { doc: into, containment } => out.skipped.push(SkippedDocument {
                    origin: doc.origin,
                    duplicate_of: into.0,
                    containment,
                    same_origin: true,
                }),
            }
        }
        session.commit().map_err(engine_error)?;
        Ok(out)
    })
    .await?;
    Ok(Json(out))
}

/// A deleted document.
#[derive(Debug, Serialize, ToSchema)]
pub struct Deleted {
    /// Its id.
    pub deleted: u64,
}

/// Delete a document from the index: later checks no longer find it.
#[utoipa::path(delete, path = "/api/documents/{id}", params(("id" = u64, Path, description = "Document id")),
    responses((status = 200, body = Deleted), (status = 404, body = ErrorBody), (status = 401, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub(super) async fn delete_document(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Path(id): Path<u64>,
) -> Result<Json<Deleted>, ApiError> {
    authorize(&state, &headers)?;
    let _writer = state.writer.lock().await;
    let engine = Arc::clone(&state.engine);
    let removed = blocking(move || engine.delete(&[DocId(id)]).map_err(engine_error)).await?;
    if removed == 0 {
        return Err(ApiError::not_found(format!("no live document with id {id}")));
    }
    Ok(Json(Deleted { deleted: id }))
}
