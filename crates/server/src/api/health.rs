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
pub(super) async fn health(State(state): State<Arc<AppState>>) -> Json<Health> {
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
