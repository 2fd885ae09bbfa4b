//! `POST /api/checks` (upload a document or send a text) and `GET /api/checks/{id}`.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::Json;
use axum::extract::{FromRequest, Multipart, Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use tessera_engine::{DocId, Document, Report, Sniffed};
use utoipa::{IntoParams, ToSchema};

use crate::connections::is_slow_upload;
use crate::error::{ApiError, ErrorBody, engine_error};
use crate::state::{AppState, blocking};
use crate::store::{CheckRecord, Edit, Progress, Stage, Staged, Status, new_id};

use super::{authorize, clean_member_name, clean_name, multipart_error};

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
    /// Keep the document in this collection of submissions once it is checked, so later
    /// checks find it (made on first use; texts kept). Left out: the server's default
    /// (`tessera serve --submissions`); `""`: not kept.
    #[serde(default)]
    pub submit_to: Option<String>,
    /// The report's filters (exclude quotes, the bibliography, small matches), remembered
    /// with the check as a reviewer's edit: `PATCH /api/checks/{id}/report` changes them.
    #[serde(default)]
    pub filters: Option<super::FiltersEdit>,
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

pub use tessera_engine::wire::SkippedMember;

/// One document out of a request: name, optional title and body.
struct Upload {
    name: String,
    title: Option<String>,
    body: Body,
    is_file: bool,
    /// Set for an archive: its member documents, extracted.
    members: Option<Vec<Document>>,
    /// The request's `submit_to`, as sent.
    submit_to: Option<String>,
    /// The request's filters, as the edit stored with the check.
    filters: Option<Edit>,
}

/// What a check is made of: bytes in memory (a JSON text, an archive member's text), or
/// an uploaded file written to the store as it arrived (never held whole in memory).
enum Body {
    Bytes(Vec<u8>),
    Staged { id: String, staged: Staged, len: u64 },
}

/// Bytes of an upload kept in memory to recognise its format.
const SNIFF_BYTES: usize = 64 * 1024;

/// Receives a multipart file field into the store, chunk by chunk, refusing it once it
/// passes the upload limit. Returns the staged file, its first bytes and its length.
async fn stage_upload(
    state: &AppState,
    field: &mut axum::extract::multipart::Field<'_>,
) -> Result<(String, Staged, Vec<u8>, u64), ApiError> {
    use tokio::io::AsyncWriteExt;
    let id = new_id()?;
    let staged = state.store.stage(&id)?;
    let mut file = tokio::fs::File::create(staged.file()).await?;
    let (mut head, mut len) = (Vec::new(), 0u64);
    while let Some(chunk) = field.chunk().await.map_err(|e| multipart_error(&e))? {
        len += chunk.len() as u64;
        if len > state.config.max_upload_bytes {
            return Err(too_large(state));
        }
        let room = SNIFF_BYTES.saturating_sub(head.len()).min(chunk.len());
        head.extend_from_slice(&chunk[..room]);
        file.write_all(&chunk).await?;
    }
    file.flush().await?;
    Ok((id, staged, head, len))
}

async fn read_check_request(state: &AppState, request: Request) -> Result<Upload, ApiError> {
    let content_type =
        request.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    if content_type.starts_with("multipart/form-data") {
        let mut multipart =
            Multipart::from_request(request, &()).await.map_err(|e| ApiError::bad_request(e.body_text()))?;
        let mut upload: Option<Upload> = None;
        let mut title = None;
        let mut submit_to = None;
        let mut filters = super::FiltersEdit::default();
        let mut head = Vec::new();
        while let Some(mut field) = multipart.next_field().await.map_err(|e| multipart_error(&e))? {
            if field.file_name().is_some() || field.name() == Some("file") {
                if upload.is_some() {
                    return Err(ApiError::bad_request("send one file per check"));
                }
                let name = clean_name(field.file_name().unwrap_or("document"));
                let (id, staged, first, len) = stage_upload(state, &mut field).await?;
                if len == 0 {
                    return Err(ApiError::new(
                        StatusCode::UNSUPPORTED_MEDIA_TYPE,
                        "unsupported_format",
                        format!("{name} is empty: there is nothing to check"),
                    ));
                }
                head = first;
                let body = Body::Staged { id, staged, len };
                upload = Some(Upload {
                    name,
                    title: None,
                    body,
                    is_file: true,
                    members: None,
                    submit_to: None,
                    filters: None,
                });
            } else if field.name() == Some("title") {
                title = Some(field.text().await.map_err(|e| multipart_error(&e))?);
            } else if field.name() == Some("submit_to") {
                submit_to = Some(field.text().await.map_err(|e| multipart_error(&e))?);
            } else if let Some(name) = field.name().filter(|n| FILTER_FIELDS.contains(n)).map(str::to_owned) {
                let value = field.text().await.map_err(|e| multipart_error(&e))?;
                filter_field(&mut filters, &name, value.trim())?;
            }
        }
        let mut upload = upload.ok_or_else(|| ApiError::bad_request("the form has no file field"))?;
        upload.title = title.filter(|t| !t.trim().is_empty());
        upload.submit_to = submit_to;
        upload.filters = if filters.is_empty() { None } else { Some(filters.over(None)?) };
        // Refuse what no extractor reads now, not after the queue.
        match state.engine.sniff(&upload.name, &head).map_err(engine_error)? {
            Sniffed::Document => {}
            // An archive: every member is a document of its own, checked on its own.
            // Unpacking is bounded by the extractor's size, ratio and depth limits; the
            // archive itself is read once here (requests at once are limited) and its
            // staged file deleted.
            Sniffed::Archive => {
                let Body::Staged { staged, len, .. } = std::mem::replace(&mut upload.body, Body::Bytes(Vec::new()))
                else {
                    return Err(ApiError::bad_request("an archive is sent as a file"));
                };
                let name = upload.name.clone();
                let engine = Arc::clone(&state.engine);
                // Its members are extracted here, under the memory limit as checks are.
                let expected = engine.expected_cost(tessera_engine::memory::Work::Check, &name, &head, len);
                let _memory = state.admit(expected).await;
                upload.members = Some(
                    blocking(move || {
                        let bytes = std::fs::read(staged.file())?;
                        Ok(engine.extract_documents(&name, &bytes))
                    })
                    .await?,
                );
            }
        }
        Ok(upload)
    } else if content_type.starts_with("application/json") {
        let Json(body) = Json::<TextCheck>::from_request(request, &()).await.map_err(|e| json_rejection(state, &e))?;
        if body.text.len() as u64 > state.config.max_upload_bytes {
            return Err(too_large(state));
        }
        if body.text.trim().is_empty() {
            return Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "empty", "the text is empty"));
        }
        let name = clean_name(body.name.as_deref().unwrap_or("text"));
        state.engine.check_text_len(&name, body.text.len()).map_err(engine_error)?;
        let filters = body.filters.filter(|f| !f.is_empty()).map(|f| f.over(None)).transpose()?;
        Ok(Upload {
            name,
            title: body.title,
            body: Body::Bytes(body.text.into_bytes()),
            is_file: false,
            members: None,
            submit_to: body.submit_to,
            filters,
        })
    } else {
        Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "send multipart/form-data with a file field, or application/json {\"text\": ...}",
        ))
    }
}

/// A JSON body that could not be read: too large (a body sent without a length runs into
/// the limit while it is read) or not the expected object.
fn json_rejection(state: &AppState, e: &axum::extract::rejection::JsonRejection) -> ApiError {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE || e.body_text().contains("length limit") {
        return too_large(state);
    }
    if is_slow_upload(e) {
        return super::slow_upload();
    }
    ApiError::bad_request(e.body_text())
}

fn too_large(state: &AppState) -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "too_large",
        format!("uploads are limited to {} bytes", state.config.max_upload_bytes),
    )
}

/// Upload a document (multipart field `file`, optional `title`, `submit_to` and filter
/// fields `exclude_quotes`, `exclude_bibliography`, `min_words`, `min_percent`) or send a
/// text (`{"text": ...}`, optional `filters`) to check against every collection. Filters
/// are stored with the check as a reviewer's edit.
#[utoipa::path(post, path = "/api/checks", request_body(content = TextCheck, description = "JSON text, or multipart/form-data with a `file` field"),
    responses((status = 202, body = Accepted), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 413, body = ErrorBody), (status = 415, body = ErrorBody)))]
pub(super) async fn create_check(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    request: Request,
) -> Result<Response, ApiError> {
    authorize(&state, &headers)?;
    let mut upload = read_check_request(&state, request).await?;
    let submit_to = submission_collection(&state, upload.submit_to.take())?;
    let filters = upload.filters.take();
    let mut accepted = Vec::new();
    let mut skipped = Vec::new();
    // (name, title, bytes, is_file) of every check to accept.
    let mut jobs = Vec::new();
    let is_archive = upload.members.is_some();
    match upload.members.take() {
        None => jobs.push((upload.name, upload.title, upload.body, upload.is_file)),
        Some(members) => {
            for doc in members {
                match doc.result {
                    Ok(extracted) => {
                        // Titled as `tessera check` titles a member (the engine's rule, when
                        // the suspect is made from the text).
                        let title = extracted.title.clone();
                        jobs.push((
                            clean_member_name(&doc.name),
                            title,
                            Body::Bytes(extracted.text.into_bytes()),
                            false,
                        ));
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
    for (name, title, body, is_file) in jobs {
        let seq = state.seq.fetch_add(1, Ordering::SeqCst);
        let st = Arc::clone(&state);
        let id = match body {
            Body::Bytes(bytes) => {
                let id = new_id()?;
                let mut record = CheckRecord::new(id.clone(), seq, name.clone(), title, is_file, bytes.len() as u64);
                record.submit_to.clone_from(&submit_to);
                record.edits.extend(filters.clone());
                blocking(move || Ok(st.store.accept(&record, &bytes)?)).await?;
                id
            }
            Body::Staged { id, staged, len } => {
                let mut record = CheckRecord::new(id.clone(), seq, name.clone(), title, is_file, len);
                record.submit_to.clone_from(&submit_to);
                record.edits.extend(filters.clone());
                blocking(move || Ok(st.store.accept_staged(&record, staged)?)).await?;
                id
            }
        };
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

/// The multipart fields of a check's filters (as in JSON's `filters`).
const FILTER_FIELDS: [&str; 4] = ["exclude_quotes", "exclude_bibliography", "min_words", "min_percent"];

/// Reads one multipart filter field into `filters`: `true`/`false` (`on`, `1`, `off`,
/// `0`, empty) for the switches, a number for the others; `400` otherwise.
fn filter_field(filters: &mut super::FiltersEdit, name: &str, value: &str) -> Result<(), ApiError> {
    let bad = || ApiError::bad_request(format!("{name} {value:?} is not a valid value"));
    let switch = || match value.to_ascii_lowercase().as_str() {
        "true" | "on" | "1" | "yes" => Ok(true),
        "false" | "off" | "0" | "no" | "" => Ok(false),
        _ => Err(bad()),
    };
    match name {
        "exclude_quotes" => filters.exclude_quotes = Some(switch()?),
        "exclude_bibliography" => filters.exclude_bibliography = Some(switch()?),
        "min_words" => filters.min_words = Some(value.parse().map_err(|_| bad())?),
        _ => filters.min_percent = Some(value.parse().map_err(|_| bad())?),
    }
    Ok(())
}

/// The submissions collection of a check: the one the request names (`""`: none), else
/// the server's default.
fn submission_collection(state: &AppState, asked: Option<String>) -> Result<Option<String>, ApiError> {
    match asked {
        None => Ok(state.config.submissions.clone()),
        Some(name) if name.trim().is_empty() => Ok(None),
        Some(name) if tessera_engine::valid_collection_name(&name) => Ok(Some(name)),
        Some(name) => Err(ApiError::bad_request(format!(
            "submit_to {name:?} is not a collection name (1 to 64 of A-Z a-z 0-9 _ . -)"
        ))),
    }
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
    /// The collection of submissions the document is kept in once checked.
    pub submit_to: Option<String>,
    /// The document id of the submission, once kept (`DELETE /api/documents/{id}`
    /// removes it).
    pub submitted: Option<u64>,
    /// The submission was removed since (`DELETE /api/documents/{id}`): later checks no
    /// longer find it.
    pub submission_removed: bool,
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
pub(super) async fn get_check(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Query(params): Query<ViewParams>,
) -> Result<Json<CheckView>, ApiError> {
    let with_report = params.report.unwrap_or(true);
    let st = Arc::clone(&state);
    let lookup = id.clone();
    let (record, report, submission_removed) = blocking(move || {
        let record =
            st.store.load(&lookup)?.ok_or_else(|| ApiError::not_found(format!("no check with id {lookup}")))?;
        let report = if with_report && matches!(record.status, Status::Partial | Status::Done) {
            st.store.load_report(&lookup)?
        } else {
            None
        };
        // Asked of the index now: a removal is the index's news, not the check's record.
        let removed = match record.submitted {
            Some(doc) => !st.engine.view().map_err(engine_error)?.is_live(DocId(doc)),
            None => false,
        };
        Ok((record, report, removed))
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
        submit_to: record.submit_to,
        submitted: record.submitted,
        submission_removed,
        report,
    }))
}

/// Which page of past checks.
#[derive(Debug, Deserialize, IntoParams)]
pub struct ListParams {
    /// Checks to skip, newest first (default 0).
    offset: Option<usize>,
    /// Checks to answer, 1 to 100 (default 20).
    limit: Option<usize>,
}

/// One past check, as the list shows it.
#[derive(Debug, Serialize, ToSchema)]
pub struct CheckSummary {
    /// The check id.
    pub id: String,
    /// Document name.
    pub name: String,
    /// The document's title, once known.
    pub title: Option<String>,
    /// Where it is.
    pub status: Status,
    /// Accepted at (Unix milliseconds).
    pub created_ms: u64,
    /// Borrowed, cited and original shares in percent, once there is a report.
    pub totals: Option<ShareTotals>,
}

/// A report's shares in percent.
#[derive(Debug, Serialize, ToSchema)]
pub struct ShareTotals {
    /// Percent of the text borrowed.
    pub borrowings: f64,
    /// Percent of the text cited.
    pub citations: f64,
    /// Percent of the text original.
    pub originality: f64,
}

/// A page of past checks, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct CheckList {
    /// The checks of this page.
    pub checks: Vec<CheckSummary>,
    /// Checks in all.
    pub total: usize,
    /// Checks skipped.
    pub offset: usize,
    /// Page size.
    pub limit: usize,
}

/// Past checks, newest first, a page at a time.
#[utoipa::path(get, path = "/api/checks", params(ListParams),
    responses((status = 200, body = CheckList), (status = 400, body = ErrorBody)))]
pub(super) async fn list_checks(
    State(state): State<Arc<AppState>>,
    Query(params): Query<ListParams>,
) -> Result<Json<CheckList>, ApiError> {
    let offset = params.offset.unwrap_or(0);
    let limit = params.limit.unwrap_or(20);
    if !(1..=100).contains(&limit) {
        return Err(ApiError::bad_request("limit must be between 1 and 100"));
    }
    let st = Arc::clone(&state);
    let list = blocking(move || {
        let mut all = st.store.all()?;
        all.reverse();
        let total = all.len();
        let mut checks = Vec::new();
        for record in all.into_iter().skip(offset).take(limit) {
            let report = if matches!(record.status, Status::Partial | Status::Done) {
                st.store.load_report(&record.id)?
            } else {
                None
            };
            checks.push(CheckSummary {
                title: report.as_ref().map(|r| r.suspect.title.clone()).filter(|t| !t.is_empty()).or(record.title),
                totals: report.map(|r| ShareTotals {
                    borrowings: r.totals.borrowings,
                    citations: r.totals.citations,
                    originality: r.totals.originality,
                }),
                id: record.id,
                name: record.name,
                status: record.status,
                created_ms: record.created_ms,
            });
        }
        Ok(CheckList { checks, total, offset, limit })
    })
    .await?;
    Ok(Json(list))
}
