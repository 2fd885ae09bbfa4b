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
    /// Admission of checks by memory: one permit per MiB of the engine's memory limit; a
    /// check holds its expected cost from before its extraction to its report.
    pub(crate) memory: Arc<tokio::sync::Semaphore>,
    /// The permits of [`memory`](Self::memory) in all.
    pub(crate) memory_mib: u32,
    /// Checks holding memory now (admitted; the others of `running` wait for it).
    pub(crate) admitted: Arc<AtomicUsize>,
}

/// Memory a check holds under the server's limit, given back when dropped.
pub(crate) struct MemoryLease {
    permit: tokio::sync::OwnedSemaphorePermit,
    admitted: Arc<AtomicUsize>,
}

impl Drop for MemoryLease {
    fn drop(&mut self) {
        self.admitted.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

impl AppState {
    pub(crate) fn new(config: ServerConfig, engine: Engine, store: CheckStore, next_seq: u64) -> Self {
        let memory_mib = u32::try_from(engine.options().memory_limit >> 20).unwrap_or(u32::MAX).max(1);
        Self {
            store,
            queue: Queue::new(),
            seq: AtomicU64::new(next_seq),
            running: AtomicUsize::new(0),
            locks: Mutex::new(HashMap::new()),
            writer: tokio::sync::Mutex::new(()),
            requests: Arc::new(tokio::sync::Semaphore::new(config.max_concurrent_requests.max(1))),
            memory: Arc::new(tokio::sync::Semaphore::new(memory_mib as usize)),
            memory_mib,
            admitted: Arc::new(AtomicUsize::new(0)),
            config,
            engine: Arc::new(engine),
        }
    }

    /// Waits until `bytes` of memory fit the engine's memory limit, in the order checks
    /// asked (a check over the whole limit waits until it runs alone).
    pub(crate) async fn admit(&self, bytes: u64) -> MemoryLease {
        let wanted = self.mib(bytes);
        let permit =
            Arc::clone(&self.memory).acquire_many_owned(wanted).await.expect("the memory semaphore is never closed");
        self.admitted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        MemoryLease { permit, admitted: Arc::clone(&self.admitted) }
    }

    /// Sets what `permit` holds to `bytes`: gives back what it held over, takes more if
    /// it is free now (a check never waits holding memory, so checks cannot wait on each
    /// other; one whose text costs more than expected runs over the limit by the
    /// difference).
    pub(crate) fn resize(&self, lease: &mut MemoryLease, bytes: u64) {
        let permit = &mut lease.permit;
        let wanted = self.mib(bytes) as usize;
        let held = permit.num_permits();
        if wanted < held {
            drop(permit.split(held - wanted));
        } else if wanted > held
            && let Ok(more) = Arc::clone(&self.memory).try_acquire_many_owned((wanted - held) as u32)
        {
            permit.merge(more);
        }
    }

    /// `bytes` in whole MiB, at least 1, at most the whole limit.
    fn mib(&self, bytes: u64) -> u32 {
        u32::try_from(bytes.div_ceil(1 << 20)).unwrap_or(u32::MAX).clamp(1, self.memory_mib)
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
