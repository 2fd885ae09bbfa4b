//! The HTTP API: handlers, the router and the OpenAPI description.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::extract::{DefaultBodyLimit, FromRequest, Multipart, Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, patch, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use tessera_engine::{
    AddMode, AddOutcome, BlockId, BlockKind, CollectionConfig, CollectionKind, DocId, Document, HtmlRenderer,
    JsonRenderer, Render, Report, Sniffed,
};
use utoipa::{IntoParams, OpenApi, ToSchema};

use crate::assets;
use crate::error::{ApiError, ErrorBody, engine_error};
use crate::state::{AppState, blocking};
use crate::store::{CheckRecord, Edit, Progress, Stage, Status, new_id};

/// The OpenAPI description served at `/openapi.json`.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Tessera",
        description = "Find borrowed text: upload a document, follow the check, read and edit the report. The report object is described field by field in crates/report/SCHEMA.md."
    ),
    paths(
        create_check,
        get_check,
        edit_report,
        report_json,
        report_html,
        add_documents,
        delete_document,
        collections,
        health
    ),
    components(schemas(
        ErrorBody,
        TextCheck,
        Accepted,
        AcceptedMember,
        SkippedMember,
        Deleted,
        CheckView,
        Status,
        Stage,
        Progress,
        Edit,
        EditRequest,
        SourceEdit,
        BlockEdit,
        AddDocuments,
        NewText,
        AddedDocuments,
        AddedDocument,
        SkippedDocument,
        CollectionView,
        Health
    ))
)]
pub struct ApiDoc;

pub(crate) fn router(state: Arc<AppState>) -> Router {
    let limit = usize::try_from(state.config.max_upload_bytes).unwrap_or(usize::MAX).saturating_add(64 * 1024);
    Router::new()
        .route("/", get(assets::index))
        .route("/assets/{file}", get(assets::asset))
        .route("/openapi.json", get(openapi))
        .route("/api/health", get(health))
        .route("/api/collections", get(collections))
        .route("/api/checks", post(create_check))
        .route("/api/checks/{id}", get(get_check))
        .route("/api/checks/{id}/report", patch(edit_report))
        .route("/api/checks/{id}/report.json", get(report_json))
        .route("/api/checks/{id}/report.html", get(report_html))
        .route("/api/documents", post(add_documents))
        .route("/api/documents/{id}", delete(delete_document))
        .fallback(|| async { ApiError::not_found("no such endpoint") })
        .layer(DefaultBodyLimit::max(limit))
        .layer(axum::middleware::map_response(json_errors))
        .layer(tower_http::limit::RequestBodyLimitLayer::new(limit))
        .layer(tower_http::trace::TraceLayer::new_for_http())
        .with_state(state)
}

/// Layers below the handlers (the body limit) answer in plain text; every error of this
/// API is JSON.
async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let is_json =
        response.headers().get(header::CONTENT_TYPE).is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if is_json || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let code = match status {
        StatusCode::PAYLOAD_TOO_LARGE => "too_large",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
        StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
        s if s.is_server_error() => "internal",
        _ => "bad_request",
    };
    let body = axum::body::to_bytes(response.into_body(), 64 * 1024).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&body).trim().to_owned();
    let message = if text.is_empty() { status.canonical_reason().unwrap_or("error").to_owned() } else { text };
    ApiError::new(status, code, message).into_response()
}

async fn openapi() -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}

/// Writes need `Authorization: Bearer TOKEN` when the server has a token.
fn authorize(state: &AppState, headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(token) = &state.config.token else { return Ok(()) };
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    // Compare every byte whatever the first difference, so timing tells nothing.
    let same =
        given.len() == token.len() && given.bytes().zip(token.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0;
    if same {
        Ok(())
    } else {
        Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "this write needs the header Authorization: Bearer TOKEN",
        ))
    }
}

/// The name shown for an upload: the last path component, no control characters, at
/// most 200 characters. It is never used as a path on disk.
pub(crate) fn clean_name(raw: &str) -> String {
    let last = raw.rsplit(['/', '\\']).next().unwrap_or("");
    let cleaned: String = last.chars().filter(|c| !c.is_control()).take(200).collect();
    let cleaned = cleaned.trim().trim_start_matches('.').to_owned();
    if cleaned.is_empty() { "document".to_owned() } else { cleaned }
}

/// A member's display name: `archive!/dir/member` with every part cleaned like an
/// upload name.
fn clean_member_name(raw: &str) -> String {
    raw.split("!/").map(clean_name).collect::<Vec<_>>().join("!/")
}

/// A text to check, sent as JSON.
#[derive(Debug, Deserialize, ToSchema)]
pub struct TextCheck {
    /// The text.
    pub text: String,
    /// A name for the report (default `text`).
    #[serde(default)]
    pub name: Option<String>,
    /// A title for the report.
    #[serde(default)]
    pub title: Option<String>,
}

/// A check was accepted and stored; it will complete even across a restart.
#[derive(Debug, Serialize, ToSchema)]
pub struct Accepted {
    /// The check id.
    pub id: String,
    /// `queued`.
    pub status: Status,
    /// Where to follow it.
    pub url: String,
    /// For an archive: one check per member document (`id` is the first); empty otherwise.
    pub members: Vec<AcceptedMember>,
    /// For an archive: members that could not be extracted, with the reason.
    pub skipped: Vec<SkippedMember>,
}

/// One member of an uploaded archive, checked on its own.
#[derive(Debug, Serialize, ToSchema)]
pub struct AcceptedMember {
    /// The check id.
    pub id: String,
    /// `archive!/member`.
    pub name: String,
    /// Where to follow it.
    pub url: String,
}

/// A member of an uploaded archive that was not checked.
#[derive(Debug, Serialize, ToSchema)]
pub struct SkippedMember {
    /// `archive!/member`.
    pub name: String,
    /// Why (damaged, encrypted, a size or ratio limit, an unsupported format).
    pub error: String,
}

fn multipart_error(e: &axum::extract::multipart::MultipartError) -> ApiError {
    let status = e.status();
    let code = if status == StatusCode::PAYLOAD_TOO_LARGE { "too_large" } else { "bad_request" };
    ApiError::new(status, code, e.body_text())
}

/// One document out of a request: name, optional title and bytes.
struct Upload {
    name: String,
    title: Option<String>,
    bytes: Vec<u8>,
    is_file: bool,
    /// Set for an archive: its member documents, extracted.
    members: Option<Vec<Document>>,
}

async fn read_check_request(state: &AppState, request: Request) -> Result<Upload, ApiError> {
    let content_type =
        request.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    if content_type.starts_with("multipart/form-data") {
        let mut multipart =
            Multipart::from_request(request, &()).await.map_err(|e| ApiError::bad_request(e.body_text()))?;
        let mut upload: Option<Upload> = None;
        let mut title = None;
        while let Some(field) = multipart.next_field().await.map_err(|e| multipart_error(&e))? {
            if field.file_name().is_some() || field.name() == Some("file") {
                if upload.is_some() {
                    return Err(ApiError::bad_request("send one file per check"));
                }
                let name = clean_name(field.file_name().unwrap_or("document"));
                let bytes = field.bytes().await.map_err(|e| multipart_error(&e))?.to_vec();
                upload = Some(Upload { name, title: None, bytes, is_file: true, members: None });
            } else if field.name() == Some("title") {
                title = Some(field.text().await.map_err(|e| multipart_error(&e))?);
            }
        }
        let mut upload = upload.ok_or_else(|| ApiError::bad_request("the form has no file field"))?;
        upload.title = title.filter(|t| !t.trim().is_empty());
        if upload.bytes.len() as u64 > state.config.max_upload_bytes {
            return Err(too_large(state));
        }
        // Refuse what no extractor reads now, not after the queue.
        let head = &upload.bytes[..upload.bytes.len().min(64 * 1024)];
        match state.engine.sniff(&upload.name, head).map_err(engine_error)? {
            Sniffed::Document => {}
            // An archive: every member is a document of its own, checked on its own.
            // Unpacking is bounded by the extractor's size, ratio and depth limits.
            Sniffed::Archive => {
                let name = upload.name.clone();
                let bytes = std::mem::take(&mut upload.bytes);
                let engine = Arc::clone(&state.engine);
                upload.members = Some(blocking(move || Ok(engine.extract_documents(&name, &bytes))).await?);
            }
        }
        Ok(upload)
    } else if content_type.starts_with("application/json") {
        let Json(body) =
            Json::<TextCheck>::from_request(request, &()).await.map_err(|e| ApiError::bad_request(e.body_text()))?;
        if body.text.len() as u64 > state.config.max_upload_bytes {
            return Err(too_large(state));
        }
        if body.text.trim().is_empty() {
            return Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "empty", "the text is empty"));
        }
        let name = clean_name(body.name.as_deref().unwrap_or("text"));
        Ok(Upload { name, title: body.title, bytes: body.text.into_bytes(), is_file: false, members: None })
    } else {
        Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "send multipart/form-data with a file field, or application/json {\"text\": ...}",
        ))
    }
}

fn too_large(state: &AppState) -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "too_large",
        format!("uploads are limited to {} bytes", state.config.max_upload_bytes),
    )
}

/// Upload a document (multipart field `file`, optional `title`) or send a text
/// (`{"text": ...}`) to check against every collection.
#[utoipa::path(post, path = "/api/checks", request_body(content = TextCheck, description = "JSON text, or multipart/form-data with a `file` field"),
    responses((status = 202, body = Accepted), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 413, body = ErrorBody), (status = 415, body = ErrorBody)))]
async fn create_check(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    request: Request,
) -> Result<Response, ApiError> {
    authorize(&state, &headers)?;
    let mut upload = read_check_request(&state, request).await?;
    let mut accepted = Vec::new();
    let mut skipped = Vec::new();
    // (name, title, bytes, is_file) of every check to accept.
    let mut jobs = Vec::new();
    let is_archive = upload.members.is_some();
    match upload.members.take() {
        None => jobs.push((upload.name, upload.title, upload.bytes, upload.is_file)),
        Some(members) => {
            for doc in members {
                match doc.result {
                    Ok(extracted) => {
                        // As `tessera check` titles a member: its own title, or its file stem.
                        let title = extracted.title.clone().or_else(|| Some(stem_of(&doc.name)));
                        jobs.push((clean_member_name(&doc.name), title, extracted.text.into_bytes(), false));
                    }
                    Err(e) => skipped.push(SkippedMember { name: clean_member_name(&doc.name), error: e.to_string() }),
                }
            }
            if jobs.is_empty() {
                let reasons: Vec<String> = skipped.iter().map(|m| format!("{}: {}", m.name, m.error)).collect();
                return Err(ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "unreadable_document",
                    format!("no document in the archive could be extracted ({})", reasons.join("; ")),
                ));
            }
        }
    }
    for (name, title, bytes, is_file) in jobs {
        let id = new_id()?;
        let seq = state.seq.fetch_add(1, Ordering::SeqCst);
        let record = CheckRecord::new(id.clone(), seq, name.clone(), title, is_file, bytes.len() as u64);
        let st = Arc::clone(&state);
        blocking(move || Ok(st.store.accept(&record, &bytes)?)).await?;
        state.queue.push(id.clone());
        accepted.push(AcceptedMember { url: format!("/api/checks/{id}"), id, name });
    }
    let (id, url) = (accepted[0].id.clone(), accepted[0].url.clone());
    let members = if is_archive { accepted } else { Vec::new() };
    let body = Accepted { id, status: Status::Queued, url: url.clone(), members, skipped };
    let mut response = (StatusCode::ACCEPTED, Json(body)).into_response();
    if let Ok(v) = HeaderValue::from_str(&url) {
        response.headers_mut().insert(header::LOCATION, v);
    }
    Ok(response)
}

/// A check as the API shows it.
#[derive(Debug, Serialize, ToSchema)]
pub struct CheckView {
    /// The check id.
    pub id: String,
    /// Where it is.
    pub status: Status,
    /// What the worker is doing.
    pub stage: Stage,
    /// Document name.
    pub name: String,
    /// Bytes uploaded.
    pub upload_bytes: u64,
    /// Accepted at (Unix milliseconds).
    pub created_ms: u64,
    /// Last change (Unix milliseconds).
    pub updated_ms: u64,
    /// Checks ahead of this one in the queue (while queued).
    pub queue_position: Option<usize>,
    /// Collections searched so far.
    pub progress: Progress,
    /// Rough completion in percent, for a progress bar.
    pub percent: u32,
    /// Why it failed.
    pub error: Option<String>,
    /// Warnings for the reader (extraction, failed collections).
    pub warnings: Vec<String>,
    /// Collections that missed their timeout and answered later.
    pub late_collections: Vec<String>,
    /// Times a worker started it.
    pub attempts: u32,
    /// The reviewer's edits.
    pub edits: Vec<Edit>,
    /// The report (schema: crates/report/SCHEMA.md), once there is one, unless
    /// `?report=false`.
    #[schema(value_type = Option<Object>)]
    pub report: Option<Report>,
}

fn percent(r: &CheckRecord) -> u32 {
    match r.stage {
        Stage::Queued => 0,
        Stage::Extracting => 5,
        Stage::Searching => 10 + 85 * r.progress.collections_done / r.progress.collections_total.max(1),
        Stage::Waiting => 95,
        Stage::Finished => 100,
    }
}

/// Whether to include the report.
#[derive(Debug, Deserialize, IntoParams)]
pub struct ViewParams {
    /// `false` leaves the report out (for polling).
    report: Option<bool>,
}

/// Status, progress and, when ready, the report.
#[utoipa::path(get, path = "/api/checks/{id}", params(("id" = String, Path, description = "Check id"), ViewParams),
    responses((status = 200, body = CheckView), (status = 404, body = ErrorBody)))]
async fn get_check(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Query(params): Query<ViewParams>,
) -> Result<Json<CheckView>, ApiError> {
    let with_report = params.report.unwrap_or(true);
    let st = Arc::clone(&state);
    let lookup = id.clone();
    let (record, report) = blocking(move || {
        let record =
            st.store.load(&lookup)?.ok_or_else(|| ApiError::not_found(format!("no check with id {lookup}")))?;
        let report = if with_report && matches!(record.status, Status::Partial | Status::Done) {
            st.store.load_report(&lookup)?
        } else {
            None
        };
        Ok((record, report))
    })
    .await?;
    Ok(Json(CheckView {
        queue_position: if record.status == Status::Queued { state.queue.position(&id) } else { None },
        percent: percent(&record),
        id: record.id,
        status: record.status,
        stage: record.stage,
        name: record.name,
        upload_bytes: record.upload_bytes,
        created_ms: record.created_ms,
        updated_ms: record.updated_ms,
        progress: record.progress,
        error: record.error,
        warnings: record.warnings,
        late_collections: record.late_collections,
        attempts: record.attempts,
        edits: record.edits,
        report,
    }))
}

/// Reviewer's edits to a report.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EditRequest {
    /// Sources to switch on or off.
    #[serde(default)]
    pub sources: Vec<SourceEdit>,
    /// Blocks to reclassify.
    #[serde(default)]
    pub blocks: Vec<BlockEdit>,
}

/// Switch a source on or off.
#[derive(Debug, Deserialize, ToSchema)]
pub struct SourceEdit {
    /// Source document id (`sources[].id`).
    pub id: u64,
    /// Whether it counts.
    pub enabled: bool,
}

/// Reclassify a block.
#[derive(Debug, Deserialize, ToSchema)]
pub struct BlockEdit {
    /// Block id (`blocks[].id`).
    pub id: u32,
    /// `borrowing` or `citation`.
    #[schema(value_type = String, example = "citation")]
    pub kind: BlockKind,
}

/// Disable or enable sources, reclassify blocks; answers the recomputed report. Edits
/// are stored with the check and survive a restart.
#[utoipa::path(patch, path = "/api/checks/{id}/report", request_body = EditRequest, params(("id" = String, Path, description = "Check id")),
    responses((status = 200, description = "The recomputed report (crates/report/SCHEMA.md)", body = Object), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
async fn edit_report(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Result<Json<EditRequest>, axum::extract::rejection::JsonRejection>,
) -> Result<Json<Report>, ApiError> {
    authorize(&state, &headers)?;
    let Json(edits) = body.map_err(|e| ApiError::new(e.status(), "bad_request", e.body_text()))?;
    let (_, report) = state
        .update(&id, move |state, record| {
            if !matches!(record.status, Status::Partial | Status::Done) {
                return Err(ApiError::new(StatusCode::CONFLICT, "not_ready", "the report is not ready yet"));
            }
            let mut report = state.store.load_report(&record.id)?.ok_or_else(|| ApiError::not_found("no report"))?;
            for e in &edits.sources {
                let edit = Edit::Source { source: e.id, enabled: e.enabled };
                if !edit.apply(&mut report) {
                    return Err(unknown(format!("the report has no source {}", e.id)));
                }
                record.push_edit(edit);
            }
            for e in &edits.blocks {
                let block =
                    report.block(BlockId(e.id)).ok_or_else(|| unknown(format!("the report has no block {}", e.id)))?;
                let edit = Edit::Block {
                    source: block.source.0,
                    start: block.suspect_span.chars.start as u64,
                    end: block.suspect_span.chars.end as u64,
                    kind: e.kind,
                };
                edit.apply(&mut report);
                record.push_edit(edit);
            }
            state.store.save_report(&record.id, &report)?;
            Ok(report)
        })
        .await?;
    Ok(Json(report))
}

fn unknown(message: String) -> ApiError {
    ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "unknown_target", message)
}

async fn stored_report(state: &Arc<AppState>, id: String) -> Result<(String, Report), ApiError> {
    let st = Arc::clone(state);
    blocking(move || {
        let record = st.store.load(&id)?.ok_or_else(|| ApiError::not_found(format!("no check with id {id}")))?;
        let report = st.store.load_report(&id)?.ok_or_else(|| {
            ApiError::new(StatusCode::CONFLICT, "not_ready", format!("the check is {:?}: no report yet", record.status))
        })?;
        Ok((record.name, report))
    })
    .await
}

fn download(bytes: Vec<u8>, content_type: &'static str, file_name: &str) -> Response {
    let safe: String =
        file_name.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect();
    let disposition = format!("attachment; filename=\"{safe}\"");
    let mut response = ([(header::CONTENT_TYPE, content_type)], bytes).into_response();
    if let Ok(v) = HeaderValue::from_str(&disposition) {
        response.headers_mut().insert(header::CONTENT_DISPOSITION, v);
    }
    response
}

/// The report as JSON (crates/report/SCHEMA.md), as a download.
#[utoipa::path(get, path = "/api/checks/{id}/report.json", params(("id" = String, Path, description = "Check id")),
    responses((status = 200, description = "The report", content_type = "application/json", body = Object), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn report_json(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let (name, report) = stored_report(&state, id).await?;
    let mut out = Vec::new();
    JsonRenderer::pretty().render(&report, &mut out)?;
    Ok(download(out, "application/json", &format!("{}.report.json", stem_of(&name))))
}

/// The report as one self-contained HTML page, as a download.
#[utoipa::path(get, path = "/api/checks/{id}/report.html", params(("id" = String, Path, description = "Check id")),
    responses((status = 200, description = "The report page", content_type = "text/html"), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn report_html(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let (name, report) = stored_report(&state, id).await?;
    let mut out = Vec::new();
    HtmlRenderer.render(&report, &mut out)?;
    Ok(download(out, "text/html; charset=utf-8", &format!("{}.report.html", stem_of(&name))))
}

fn stem_of(name: &str) -> String {
    let stem = std::path::Path::new(name).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    if stem.is_empty() { "document".to_owned() } else { stem }
}

/// Documents to add to a collection (JSON form; multipart takes `collection`, `kind`,
/// `keep_texts`, `if_new` fields and `file` parts).
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
    /// Documents not added because they are not new (`if_new`).
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
                        title: extracted.title.unwrap_or_else(|| stem_of(&doc.name)),
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
async fn add_documents(
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
    let mode = if add.if_new { AddMode::if_new(add.if_new_threshold).map_err(engine_error)? } else { AddMode::All };
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
            let title = doc.title.clone();
            let prepared =
                engine.prepare(doc.origin.clone(), tessera_engine::Extracted::from_text(doc.text, Some(doc.title)));
            match session.add(&prepared).map_err(engine_error)? {
                AddOutcome::Added { doc: id } => out.added.push(AddedDocument { id: id.0, origin: doc.origin, title }),
                AddOutcome::Seen { into, containment } | AddOutcome::AlreadyIndexed { doc: into, containment } => {
                    out.skipped.push(SkippedDocument { origin: doc.origin, duplicate_of: into.0, containment });
                }
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
async fn delete_document(
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

/// One collection.
#[derive(Debug, Serialize, ToSchema)]
pub struct CollectionView {
    /// Name.
    pub name: String,
    /// `source` or `citation`.
    pub kind: String,
    /// Whether it keeps texts (reports then show source passages).
    pub keep_texts: bool,
    /// Documents.
    pub documents: u64,
    /// Bytes on disk.
    pub bytes: u64,
}

/// Collections with their kinds and sizes.
#[utoipa::path(get, path = "/api/collections", responses((status = 200, body = [CollectionView])))]
async fn collections(State(state): State<Arc<AppState>>) -> Result<Json<Vec<CollectionView>>, ApiError> {
    let engine = Arc::clone(&state.engine);
    let list = blocking(move || engine.collections().map_err(engine_error)).await?;
    Ok(Json(
        list.into_iter()
            .map(|c| CollectionView {
                kind: match c.config.kind {
                    CollectionKind::Citation => "citation".to_owned(),
                    _ => "source".to_owned(),
                },
                name: c.config.name,
                keep_texts: c.config.keep_texts,
                documents: c.docs,
                bytes: c.total_bytes,
            })
            .collect(),
    ))
}

/// Server health.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `ok`.
    pub status: String,
    /// Server version.
    pub version: String,
    /// Checks waiting for a worker.
    pub queued: usize,
    /// Checks running.
    pub running: usize,
    /// Worker pool size.
    pub workers: usize,
    /// Whether writes need a token.
    pub token_required: bool,
    /// Largest upload in bytes.
    pub max_upload_bytes: u64,
}

/// Is the server up, and how busy.
#[utoipa::path(get, path = "/api/health", responses((status = 200, body = Health)))]
async fn health(State(state): State<Arc<AppState>>) -> Json<Health> {
    Json(Health {
        status: "ok".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        queued: state.queue.len(),
        running: state.running.load(Ordering::SeqCst),
        workers: state.config.workers,
        token_required: state.config.token.is_some(),
        max_upload_bytes: state.config.max_upload_bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upload_names_lose_their_directories() {
        assert_eq!(clean_name("../../etc/passwd"), "passwd");
        assert_eq!(clean_name("C:\\Users\\x\\thesis.docx"), "thesis.docx");
        assert_eq!(clean_name(".."), "document");
        assert_eq!(clean_name("a/b/"), "document");
        assert_eq!(clean_name("..hidden"), "hidden");
        assert_eq!(clean_name("bad\u{0}name\n.txt"), "badname.txt");
    }
}
