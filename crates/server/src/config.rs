//! Server settings: plain data, validated once by [`Server::build`](crate::Server::build).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// The default upload limit: 100 MB.
pub const DEFAULT_MAX_UPLOAD_BYTES: u64 = 100 * 1000 * 1000;

/// The default for [`ServerConfig::max_checks_bytes`]: 10 GiB.
pub const DEFAULT_MAX_CHECKS_BYTES: u64 = 10 << 30;

/// The default for [`ServerConfig::max_connections`].
pub const DEFAULT_MAX_CONNECTIONS: usize = 10_000;
/// The default for [`ServerConfig::header_read_timeout`].
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(15);
/// The default for [`ServerConfig::body_read_timeout`].
pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// The default for [`ServerConfig::upload_timeout`].
pub const DEFAULT_UPLOAD_TIMEOUT: Duration = Duration::from_secs(600);

/// Settings of a [`Server`](crate::Server).
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The index directory (it must exist).
    pub index: PathBuf,
    /// Where the check queue lives (checks, uploads, reports). Default: `INDEX/server`.
    pub data_dir: Option<PathBuf>,
    /// Address the server is meant to listen on; decides whether writes need a token
    /// (an address that is not loopback requires [`token`](Self::token)).
    pub addr: SocketAddr,
    /// Checks run at the same time (the worker pool's size); at least 1.
    pub workers: usize,
    /// Largest accepted upload (request body), in bytes.
    pub max_upload_bytes: u64,
    /// The checks' files (uploads, reports, records) kept under the data directory in
    /// all, in bytes (default 10 GiB): past it the oldest finished checks are dropped;
    /// checks still running are never dropped, so these may pass it by what they hold.
    pub max_checks_bytes: u64,
    /// Bearer token that writes (`POST`, `PATCH`, `DELETE`) must present. `None`: writes
    /// are open, which is allowed only on a loopback address.
    pub token: Option<String>,
    /// How long a check waits for each collection before the report goes out partial.
    pub collection_timeout: Duration,
    /// Per-collection timeouts that override [`collection_timeout`](Self::collection_timeout).
    pub collection_timeouts: BTreeMap<String, Duration>,
    /// How long a check keeps waiting, after the partial report, for the collections that
    /// missed their timeout; then the report stays partial.
    pub late_answer_limit: Duration,
    /// Requests handled at the same time; one more is answered `503 busy` with
    /// `Retry-After` (health checks excepted), so memory stays bounded under any load.
    pub max_concurrent_requests: usize,
    /// Connections open at the same time, counted before any handler (default 10,000, kept
    /// under the process's open-file limit); at the cap new clients wait in the backlog.
    pub max_connections: usize,
    /// How long a client has to send a request's head (line and headers), from the
    /// connection's start or the previous answer; then the connection is closed
    /// (default 15 s). This also closes a kept-alive connection left idle that long.
    pub header_read_timeout: Duration,
    /// Longest wait for the next piece of a request body (default 30 s); past it the
    /// request is answered `408 slow_upload`.
    pub body_read_timeout: Duration,
    /// Longest time to receive a whole request body (default 10 min: 100 MB at 170 KB/s);
    /// past it the request is answered `408 slow_upload`.
    pub upload_timeout: Duration,
    /// The collection of submissions a check's document is kept in once checked, when
    /// the request does not say (`submit_to`); `None`: checks keep nothing unless asked.
    pub submissions: Option<String>,
}

impl ServerConfig {
    /// Defaults for an index: loopback port 8080, a worker per core (at most 8), 100 MB
    /// uploads, 10 GiB of checks kept, no token, 30 s per collection, 10,000 connections,
    /// 15 s for a request head.
    pub fn new(index: impl Into<PathBuf>) -> Self {
        let cores = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
        Self {
            index: index.into(),
            data_dir: None,
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            workers: cores.clamp(1, 8),
            max_upload_bytes: DEFAULT_MAX_UPLOAD_BYTES,
            max_checks_bytes: DEFAULT_MAX_CHECKS_BYTES,
            token: None,
            collection_timeout: Duration::from_secs(30),
            collection_timeouts: BTreeMap::new(),
            late_answer_limit: Duration::from_secs(600),
            max_concurrent_requests: 64,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            body_read_timeout: DEFAULT_BODY_READ_TIMEOUT,
            upload_timeout: DEFAULT_UPLOAD_TIMEOUT,
            submissions: None,
        }
    }

    /// The check queue's directory.
    #[must_use]
    pub fn data_dir(&self) -> PathBuf {
        self.data_dir.clone().unwrap_or_else(|| self.index.join("server"))
    }

    /// The timeout of one collection.
    #[must_use]
    pub fn timeout_for(&self, collection: &str) -> Duration {
        self.collection_timeouts.get(collection).copied().unwrap_or(self.collection_timeout)
    }
}
