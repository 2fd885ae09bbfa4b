//! The HTTP API: the router, the OpenAPI description, and what every resource shares
//! (authorization, upload names, JSON errors). One module per resource: `checks` (upload and
//! follow a check), `reports` (read and edit a check's report), `documents` (add to and delete
//! from the index), `collections`, `health`.

use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, patch, post};
use axum::{Json, Router};
use utoipa::OpenApi;

use crate::assets;
use crate::connections::{SlowBody, is_slow_upload};
use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;
use crate::store::{Edit, Progress, Stage, Status};

mod checks;
mod collections;
mod documents;
mod health;
mod reports;

pub use checks::{Accepted, AcceptedMember, CheckList, CheckSummary, CheckView, ShareTotals, SkippedMember, TextCheck};
pub use collections::CollectionView;
pub use documents::Deleted;
pub use health::Health;
pub use reports::{BlockEdit, EditRequest, FiltersEdit, SourceEdit};
pub use tessera_engine::wire::{AddDocuments, AddedDocument, AddedDocuments, NewText, SkippedDocument};

/// The OpenAPI description served at `/openapi.json`.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Tessera",
        description = "Find borrowed text: upload a document, follow the check, read and edit the report. The report object is described field by field in crates/report/SCHEMA.md."
    ),
    paths(
        checks::create_check,
        checks::list_checks,
        checks::get_check,
        reports::edit_report,
        reports::report_json,
        reports::report_html,
        reports::report_pdf,
        documents::add_documents,
        documents::delete_document,
        collections::collections,
        health::health
    ),
    components(schemas(
        ErrorBody,
        TextCheck,
        CheckList,
        CheckSummary,
        ShareTotals,
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
        FiltersEdit,
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
        .route("/api/health", get(health::health))
        .route("/api/collections", get(collections::collections))
        .route("/api/checks", post(checks::create_check).get(checks::list_checks))
        .route("/api/checks/{id}", get(checks::get_check))
        .route("/api/checks/{id}/report", patch(reports::edit_report))
        .route("/api/checks/{id}/report.json", get(reports::report_json))
        .route("/api/checks/{id}/report.html", get(reports::report_html))
        .route("/api/checks/{id}/report.pdf", get(reports::report_pdf))
        .route("/api/documents", post(documents::add_documents))
        .route("/api/documents/{id}", delete(documents::delete_document))
        .fallback(|| async { ApiError::not_found("no such endpoint") })
        .layer(DefaultBodyLimit::max(limit))
        // Outside the body limit: its own `413` for a declared length over the limit is
        // plain text, and every answer of the API is JSON.
        .layer(tower_http::limit::RequestBodyLimitLayer::new(limit))
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&state), slow_bodies))
        .layer(axum::middleware::map_response(json_errors))
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&state), admission))
        .layer(axum::middleware::map_response(security_headers))
        .layer(axum::middleware::from_fn(log_request))
        .with_state(state)
}

/// One line per request at info (`tessera serve`'s default log level), when its answer
/// goes out: method, path, status and how long the answer took, e.g.
/// `GET /api/checks/3f2a... 200 1.4 ms`. The query string is left out.
async fn log_request(request: Request, next: Next) -> Response {
    let (method, path) = (request.method().clone(), request.uri().path().to_owned());
    let started = std::time::Instant::now();
    let response = next.run(request).await;
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    tracing::info!(target: "tessera_server::request", "{method} {path} {} {ms:.1} ms", response.status().as_u16());
    response
}

/// At most `max_concurrent_requests` requests are handled at once; one more is refused at
/// once with `503 busy` and `Retry-After`, so a burst costs a bounded amount of memory and
/// threads. Health checks always pass, so a monitor sees a busy server as up.
async fn admission(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    if request.uri().path() == "/api/health" {
        return next.run(request).await;
    }
    let Ok(_permit) = Arc::clone(&state.requests).try_acquire_owned() else {
        let mut response = ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "busy",
            format!("the server is handling {} requests; try again shortly", state.config.max_concurrent_requests),
        )
        .into_response();
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        linger(request.into_body(), state.config.max_upload_bytes).await;
        return response;
    };
    next.run(request).await
}

/// How long a refused request's body is read before the answer goes out anyway.
const LINGER: std::time::Duration = std::time::Duration::from_secs(10);

/// Reads and drops what is left of a refused request's body (at most `most` bytes, for at
/// most [`LINGER`]) before the answer is sent, as nginx's lingering close does: a client
/// that writes its whole body before reading (Python's `http.client`, many scripts) then
/// reads `503 busy` and retries, instead of failing on a connection closed under it (5-8
/// of 200 uploads of 1 MB at once, docs/performance.md). Nothing is kept: memory stays
/// one frame.
async fn linger(body: axum::body::Body, most: u64) {
    use http_body_util::BodyExt;
    let drain = async move {
        let mut body = body;
        let mut read = 0u64;
        while let Some(Ok(frame)) = body.frame().await {
            read += frame.data_ref().map_or(0, |d| d.len() as u64);
            if read > most {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(LINGER, drain).await;
}

/// A request body must keep coming (see [`crate::connections`]): a client that stops
/// sending holds a request slot and its connection for a bounded time only.
async fn slow_bodies(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let (idle, total) = (state.config.body_read_timeout, state.config.upload_timeout);
    next.run(request.map(|body| axum::body::Body::new(SlowBody::new(body, idle, total)))).await
}

/// The answer to a body cut off by [`slow_bodies`].
pub(crate) fn slow_upload() -> ApiError {
    ApiError::new(StatusCode::REQUEST_TIMEOUT, "slow_upload", "the request body arrived too slowly; send it again")
}

/// A JSON body that could not be read or parsed: `408` when it came too slowly, else the
/// extractor's own status.
pub(crate) fn json_body_error(e: &axum::extract::rejection::JsonRejection) -> ApiError {
    if is_slow_upload(e) {
        return slow_upload();
    }
    ApiError::new(e.status(), "bad_request", e.body_text())
}

/// Headers that keep the page and the reports it shows (user content) from being framed,
/// sniffed into another type or made to load anything from elsewhere.
async fn security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; \
             object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        ),
    );
    response
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

fn multipart_error(e: &axum::extract::multipart::MultipartError) -> ApiError {
    // A body sent without a length (chunked) runs into the body limit while the form is
    // read: the same refusal as a declared length over the limit.
    if is_slow_upload(e) {
        return slow_upload();
    }
    let mut cause: Option<&dyn std::error::Error> = Some(e);
    let mut over_limit = false;
    while let Some(c) = cause {
        over_limit |= c.to_string().contains("length limit");
        cause = c.source();
    }
    if over_limit {
        return ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            "the upload is larger than the server accepts",
        );
    }
    let status = e.status();
    let code = if status == StatusCode::PAYLOAD_TOO_LARGE { "too_large" } else { "bad_request" };
    ApiError::new(status, code, e.body_text())
}

fn stem_of(name: &str) -> String {
    let stem = std::path::Path::new(name).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    if stem.is_empty() { "document".to_owned() } else { stem }
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
