//! What every handler and worker shares.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::{Arc, Mutex};

use tessera_engine::Engine;

use crate::config::ServerConfig;
use crate::error::{ApiError, Result};
use crate::queue::Queue;
use crate::store::{CheckRecord, CheckStore};

/// Shared state of a running server.
#[derive(Debug)]
pub(crate) struct AppState {
    pub(crate) config: ServerConfig,
    pub(crate) engine: Arc<Engine>,
    pub(crate) store: CheckStore,
    pub(crate) queue: Queue,
    /// Next acceptance number.
    pub(crate) seq: AtomicU64,
    /// Checks a worker is running now.
    pub(crate) running: AtomicUsize,
    /// One lock per check: record and report changes of one check never interleave.
    locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    /// Index writes one at a time (the index has a single writer).
    pub(crate) writer: tokio::sync::Mutex<()>,
    /// Admission of requests: one permit per request being handled.
    pub(crate) requests: Arc<tokio::sync::Semaphore>,
}

impl AppState {
    pub(crate) fn new(config: ServerConfig, engine: Engine, store: CheckStore, next_seq: u64) -> Self {
        Self {
            engine: Arc::new(engine),
            store,
            queue: Queue::new(),
            seq: AtomicU64::new(next_seq),
            running: AtomicUsize::new(0),
            locks: Mutex::new(HashMap::new()),
            writer: tokio::sync::Mutex::new(()),
            requests: Arc::new(tokio::sync::Semaphore::new(config.max_concurrent_requests.max(1))),
            config,
        }
    }

    fn lock_of(&self, id: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self.locks.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(locks.entry(id.to_owned()).or_default())
    }

    /// Runs `f` on the check's record under its lock, in the blocking pool, and saves
    /// the record when `f` returns `Ok`.
    pub(crate) async fn update<T: Send + 'static>(
        self: &Arc<Self>,
        id: &str,
        f: impl FnOnce(&AppState, &mut CheckRecord) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<(CheckRecord, T), ApiError> {
        let lock = self.lock_of(id);
        let _guard = lock.lock().await;
        let state = Arc::clone(self);
        let id = id.to_owned();
        blocking(move || {
            let mut record =
                state.store.load(&id)?.ok_or_else(|| ApiError::not_found(format!("no check with id {id}")))?;
            let out = f(&state, &mut record)?;
            state.store.save(&mut record)?;
            Ok((record, out))
        })
        .await
    }
}

/// Runs blocking work (files, the engine) off the async threads.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| ApiError::internal(&e))?
}

impl From<std::io::Error> for ApiError {
    fn from(e: std::io::Error) -> Self {
        ApiError::internal(&e)
    }
}
