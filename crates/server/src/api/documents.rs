//! `POST /api/documents` (add to a collection, optionally only what is new) and
//! `DELETE /api/documents/{id}`.

use std::sync::Arc;

use axum::Json;
use axum::extract::{FromRequest, Multipart, Path, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use serde::Serialize;
use tessera_engine::wire::{AddDocuments, AddedDocument, AddedDocuments, NewText, SkippedDocument, SkippedMember};
use tessera_engine::{AddMode, AddOutcome, CollectionKind, DocId};
use utoipa::ToSchema;

use crate::error::{ApiError, ErrorBody, engine_error};
use crate::state::{AppState, blocking};

use super::{authorize, clean_member_name, clean_name, json_body_error, multipart_error};

async fn read_add_request(state: &AppState, request: Request) -> Result<(AddDocuments, Vec<SkippedMember>), ApiError> {
    let content_type =
        request.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    if content_type.starts_with("application/json") {
        let Json(body) = Json::<AddDocuments>::from_request(request, &()).await.map_err(|e| json_body_error(&e))?;
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
    let mut add = AddDocuments::new(String::new());
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
            "keep_texts" => add.keep_texts = Some(value == "true"),
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
        None => CollectionKind::default(),
        Some(name) => name.parse::<CollectionKind>().map_err(|e| ApiError::bad_request(e.to_string()))?,
    };
    let mode = AddMode::from_flags(add.if_new, add.if_new_threshold, add.force)
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    if let Some(doc) = add.documents.iter().find(|d| d.text.trim().is_empty()) {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "empty",
            format!("document {:?} has no text", doc.origin),
        ));
    }
    let _writer = state.writer.lock().await;
    let engine = Arc::clone(&state.engine);
    let out = blocking(move || {
        // Texts kept unless the request says otherwise (a new collection), or as the
        // collection chose (an existing one): the engine's one rule.
        let config = engine.collection_config(&add.collection, kind, add.keep_texts).map_err(engine_error)?;
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

/// Delete a document from the index (a source, or a submission a check added): later
/// checks no longer find it, and the next merge of its collection purges its bytes.
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
