//! A check's report: `PATCH /api/checks/{id}/report` (reviewer's edits and filters) and the downloads
//! `report.json`, `report.html` and `report.pdf`.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use tessera_engine::{BlockId, BlockKind, HtmlRenderer, JsonRenderer, PdfRenderer, Render, Report};
use utoipa::ToSchema;

use crate::error::{ApiError, ErrorBody};
use crate::state::{AppState, blocking};
use crate::store::{Edit, Status};

use super::{authorize, json_body_error, stem_of};

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
    /// The report's filters: the fields given change, the others keep their values.
    #[serde(default)]
    pub filters: Option<FiltersEdit>,
}

/// A reviewer's filters (crates/report/SCHEMA.md, "Filters"): what no longer counts as
/// borrowed. Excluded blocks stay in the report with `excluded` saying why.
#[derive(Debug, Default, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FiltersEdit {
    /// A borrowing in quotation marks counts as a citation, even without a reference.
    #[serde(default)]
    pub exclude_quotes: Option<bool>,
    /// Blocks in the bibliography section count for nothing.
    #[serde(default)]
    pub exclude_bibliography: Option<bool>,
    /// Matches of fewer words count for nothing (0: off).
    #[serde(default)]
    pub min_words: Option<u32>,
    /// Sources covering less than this percent of the text count for nothing (0 to 100;
    /// 0: off).
    #[serde(default)]
    pub min_percent: Option<f64>,
}

impl FiltersEdit {
    /// Whether no field is given.
    pub(super) fn is_empty(&self) -> bool {
        self.exclude_quotes.is_none()
            && self.exclude_bibliography.is_none()
            && self.min_words.is_none()
            && self.min_percent.is_none()
    }

    /// The stored edit these fields make over `current` (a report's filters; `None`: a new
    /// check, filters off). `422 invalid_filters` for a percent out of range (the report's
    /// rule, `ReportFilters::validated`, checked here too so a new check is refused before
    /// it is queued).
    pub(super) fn over(&self, current: Option<&Report>) -> Result<Edit, ApiError> {
        let f = current.map(|r| r.filters);
        let min_percent = self.min_percent.or(f.map(|f| f.min_percent)).unwrap_or(0.0);
        if !(0.0..=100.0).contains(&min_percent) {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_filters",
                format!("min_percent must be a number from 0 to 100, not {min_percent}"),
            ));
        }
        Ok(Edit::Filters {
            exclude_quotes: self.exclude_quotes.or(f.map(|f| f.exclude_quotes)).unwrap_or(false),
            exclude_bibliography: self.exclude_bibliography.or(f.map(|f| f.exclude_bibliography)).unwrap_or(false),
            min_words: self.min_words.or(f.map(|f| f.min_words)).unwrap_or(0),
            min_percent,
        })
    }
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

/// Disable or enable sources, reclassify blocks, set the filters (exclude quotes, the
/// bibliography, small matches); answers the recomputed report. Edits are stored with the
/// check, survive a restart and are applied again when a late collection completes it.
#[utoipa::path(patch, path = "/api/checks/{id}/report", request_body = EditRequest, params(("id" = String, Path, description = "Check id")),
    responses((status = 200, description = "The recomputed report (crates/report/SCHEMA.md)", body = Object), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub(super) async fn edit_report(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Result<Json<EditRequest>, axum::extract::rejection::JsonRejection>,
) -> Result<Json<Report>, ApiError> {
    authorize(&state, &headers)?;
    let Json(edits) = body.map_err(|e| json_body_error(&e))?;
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
            if let Some(filters) = edits.filters.as_ref().filter(|f| !f.is_empty()) {
                let edit = filters.over(Some(&report))?;
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

/// A check's name, its creation time (ms since the Unix epoch) and its report.
async fn stored_report(state: &Arc<AppState>, id: String) -> Result<(String, u64, Report), ApiError> {
    let st = Arc::clone(state);
    blocking(move || {
        let record = st.store.load(&id)?.ok_or_else(|| ApiError::not_found(format!("no check with id {id}")))?;
        let report = st.store.load_report(&id)?.ok_or_else(|| {
            ApiError::new(StatusCode::CONFLICT, "not_ready", format!("the check is {:?}: no report yet", record.status))
        })?;
        Ok((record.name, record.created_ms, report))
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
pub(super) async fn report_json(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let (name, _, report) = stored_report(&state, id).await?;
    let mut out = Vec::new();
    JsonRenderer::pretty().render(&report, &mut out)?;
    Ok(download(out, "application/json", &format!("{}.report.json", stem_of(&name))))
}

/// The report as one self-contained HTML page, as a download.
#[utoipa::path(get, path = "/api/checks/{id}/report.html", params(("id" = String, Path, description = "Check id")),
    responses((status = 200, description = "The report page", content_type = "text/html"), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub(super) async fn report_html(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let (name, _, report) = stored_report(&state, id).await?;
    let mut out = Vec::new();
    HtmlRenderer.render(&report, &mut out)?;
    Ok(download(out, "text/html; charset=utf-8", &format!("{}.report.html", stem_of(&name))))
}

/// The report as a PDF to file (A4, font embedded, the date of the check in the header),
/// as a download.
#[utoipa::path(get, path = "/api/checks/{id}/report.pdf", params(("id" = String, Path, description = "Check id")),
    responses((status = 200, description = "The report as a PDF", content_type = "application/pdf"), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub(super) async fn report_pdf(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let (name, created_ms, report) = stored_report(&state, id).await?;
    let out = blocking(move || Ok(PdfRenderer::checked_at(created_ms).render_to_bytes(&report)?)).await?;
    Ok(download(out, "application/pdf", &format!("{}.report.pdf", stem_of(&name))))
}
