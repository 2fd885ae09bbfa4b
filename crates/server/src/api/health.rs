//! `GET /api/health`: is the server up, and how busy.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use crate::state::AppState;

/// Server health.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `ok`.
    pub status: String,
    /// Server version.
    pub version: String,
    /// Requests being handled (health checks not counted), at most `--max-requests`.
    pub requests: usize,
    /// Checks waiting for a worker.
    pub queued: usize,
    /// Checks a worker took: holding memory, or waiting for it.
    pub running: usize,
    /// Checks holding memory under the limit (the rest of `running` wait for it).
    pub admitted: usize,
    /// The memory limit of the checks in progress, in MiB (`--memory-mb`).
    pub memory_limit_mb: u32,
    /// The part of it the admitted checks are expected to use, in MiB.
    pub memory_in_use_mb: u32,
    /// Worker pool size.
    pub workers: usize,
    /// Whether writes need a token.
    pub token_required: bool,
    /// Largest upload in bytes.
    pub max_upload_bytes: u64,
    /// The collection of submissions a check's document is kept in when the check names
    /// none (`--submissions`), or null: the page fills its "Keep as a submission" field
    /// with it.
    pub submissions: Option<String>,
}

/// Is the server up, and how busy.
#[utoipa::path(get, path = "/api/health", responses((status = 200, body = Health)))]
pub(super) async fn health(State(state): State<Arc<AppState>>) -> Json<Health> {
    Json(Health {
        status: "ok".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        requests: state.config.max_concurrent_requests.max(1).saturating_sub(state.requests.available_permits()),
        queued: state.queue.len(),
        running: state.running.load(Ordering::SeqCst),
        admitted: state.admitted.load(Ordering::SeqCst),
        memory_limit_mb: state.memory_mib,
        memory_in_use_mb: state
            .memory_mib
            .saturating_sub(u32::try_from(state.memory.available_permits()).unwrap_or(u32::MAX)),
        workers: state.config.workers,
        token_required: state.config.token.is_some(),
        max_upload_bytes: state.config.max_upload_bytes,
        submissions: state.config.submissions.clone(),
    })
}
