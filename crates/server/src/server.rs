//! [`Server`]: opens the index and the check queue, requeues unfinished checks, serves.

use std::sync::Arc;
use std::time::Duration;

use tessera_engine::{Engine, EngineOptions, WriterMode};
use tokio::net::TcpListener;

use crate::config::ServerConfig;
use crate::error::{Error, IoContext, Result};
use crate::state::AppState;
use crate::store::CheckStore;

/// A built server: the index open, the queue loaded. Call [`serve`](Self::serve).
#[derive(Debug)]
pub struct Server {
    state: Arc<AppState>,
    requeued: usize,
}

impl Server {
    /// Validates the settings, opens the index and the check queue, and finds the checks
    /// a previous run accepted but did not finish.
    ///
    /// The server is the index's one writer while it runs ([`WriterMode::Resident`],
    /// whatever `options` say): it takes the writer here (failing while another process
    /// writes the index) and keeps it until it is dropped, so `tessera index` or `tessera
    /// crawl` on the same index are refused and told to go through the API
    /// (`POST /api/documents`; `tessera crawl --server`). Segments are merged in the
    /// background after each add; checks keep the view they opened.
    pub fn build(config: ServerConfig, mut options: EngineOptions) -> Result<Server> {
        options.writer = WriterMode::Resident;
        if config.token.is_none() && !config.addr.ip().is_loopback() {
            return Err(Error::Config(format!(
                "{} is not a loopback address: give a token (--token or TESSERA_TOKEN) so writes need it",
                config.addr
            )));
        }
        if config.token.as_deref().is_some_and(str::is_empty) {
            return Err(Error::Config("the token is empty".to_owned()));
        }
        if config.max_connections == 0 {
            return Err(Error::Config("the connection limit is 0".to_owned()));
        }
        if [config.header_read_timeout, config.body_read_timeout, config.upload_timeout].contains(&Duration::ZERO) {
            return Err(Error::Config("a read timeout is 0".to_owned()));
        }
        if config.max_upload_bytes == 0 {
            return Err(Error::Config("the upload limit is 0".to_owned()));
        }
        if config.max_checks_bytes == 0 {
            return Err(Error::Config("the limit on stored checks is 0".to_owned()));
        }
        let engine = Engine::open(&config.index, options)?;
        let data_dir = config.data_dir();
        fs_err::create_dir_all(&data_dir).at(&data_dir)?;
        let store = CheckStore::open(&data_dir)?.with_max_bytes(config.max_checks_bytes);
        let all = store.all()?;
        let next_seq = all.iter().map(|r| r.seq + 1).max().unwrap_or(0);
        let state = Arc::new(AppState::new(config, engine, store, next_seq));
        let mut requeued = 0;
        for record in all.into_iter().filter(|r| r.status.pending()) {
            state.queue.push(record.id);
            requeued += 1;
        }
        Ok(Server { state, requeued })
    }

    /// Checks found unfinished at start-up and queued again.
    #[must_use]
    pub fn requeued(&self) -> usize {
        self.requeued
    }

    /// The router, for embedding in another axum application or testing.
    pub fn router(&self) -> axum::Router {
        crate::api::router(Arc::clone(&self.state))
    }

    /// Starts the workers and serves on `listener` until `shutdown` completes, with the
    /// connection limits of the settings (see [`crate::connections`]); then waits for the
    /// requests in progress.
    pub async fn serve(self, listener: TcpListener, shutdown: impl Future<Output = ()> + Send + 'static) -> Result<()> {
        crate::worker::start(&self.state, self.state.config.workers);
        crate::connections::serve(listener, self.router(), &self.state.config, shutdown).await;
        Ok(())
    }
}
