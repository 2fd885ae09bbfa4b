//! `GET /api/collections`: collections with their kinds and sizes.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::{ApiError, engine_error};
use crate::state::{AppState, blocking};

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
    /// Bytes of kept texts on disk (compressed), part of `bytes`.
    pub text_bytes: u64,
}

/// Collections with their kinds and sizes.
#[utoipa::path(get, path = "/api/collections", responses((status = 200, body = [CollectionView])))]
pub(super) async fn collections(State(state): State<Arc<AppState>>) -> Result<Json<Vec<CollectionView>>, ApiError> {
    let engine = Arc::clone(&state.engine);
    let list = blocking(move || engine.collections().map_err(engine_error)).await?;
    Ok(Json(
        list.into_iter()
            .map(|c| CollectionView {
                kind: c.config.kind.to_string(),
                name: c.config.name,
                keep_texts: c.config.keep_texts,
                documents: c.docs,
                bytes: c.total_bytes,
                text_bytes: c.text_bytes,
            })
            .collect(),
    ))
}
