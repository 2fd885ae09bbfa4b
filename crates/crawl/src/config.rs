//! Settings of a crawl.

use serde::{Deserialize, Serialize};

use crate::QualityConfig;
use crate::urls::DEFAULT_TRACKING_PARAMS;

/// Everything a crawl needs besides its seeds. Plain data with defaults; stored in the
/// crawl's log so a resume runs with the same settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CrawlConfig {
    /// Collection pages are added to.
    pub collection: String,
    /// Hosts (and their subdomains) the crawl may visit; empty: the seeds' hosts.
    pub allow_domains: Vec<String>,
    /// Links followed from a seed at most.
    pub max_depth: u32,
    /// Pages fetched over the whole crawl at most (resumes included); `None`: no limit.
    pub max_pages: Option<u64>,
    /// Least time between the starts of two requests to one host, in milliseconds
    /// (robots.txt `Crawl-delay` wins when larger).
    pub per_host_delay_ms: u64,
    /// Largest `Crawl-delay` obeyed, in milliseconds (a larger one is cut to this).
    pub max_crawl_delay_ms: u64,
    /// Hosts fetched at once (each host one request at a time).
    pub concurrency: usize,
    /// `User-Agent` header: the tool's name and a contact URL.
    pub user_agent: String,
    /// The name matched against robots.txt `User-agent` lines.
    pub robots_agent: String,
    /// Redirects followed from one URL at most.
    pub max_redirects: u32,
    /// Largest response body read, in bytes.
    pub max_bytes: u64,
    /// Time limit of one request (connect to last byte), in milliseconds.
    pub timeout_ms: u64,
    /// Retries of a transient failure (5xx, 429, timeout, connection error).
    pub max_retries: u32,
    /// First retry back-off in milliseconds; doubles each retry.
    pub retry_base_ms: u64,
    /// Longest wait honoured from `Retry-After`, in milliseconds.
    pub max_retry_after_ms: u64,
    /// Media types fetched (`type/subtype`, or `type/prefix*`); a response of another
    /// type is skipped.
    pub content_types: Vec<String>,
    /// Query parameters removed from URLs (`name` or `prefix*`).
    pub tracking_params: Vec<String>,
    /// Share of a page's distinct shingle hashes contained in one indexed document that
    /// makes it a duplicate (attached, not added).
    pub containment: f64,
    /// Pages indexed per commit.
    pub batch: usize,
    /// The quality filter.
    pub quality: QualityConfig,
}

impl Default for CrawlConfig {
    fn default() -> Self {
        Self {
            collection: "web".into(),
            allow_domains: Vec::new(),
            max_depth: 5,
            max_pages: None,
            per_host_delay_ms: 2000,
            max_crawl_delay_ms: 60_000,
            concurrency: 64,
            user_agent: concat!(
                "tessera-crawl/",
                env!("CARGO_PKG_VERSION"),
                " (+https://example.invalid/tessera/crawler)"
            )
            .into(),
            robots_agent: "tessera".into(),
            max_redirects: 5,
            max_bytes: 20 << 20,
            timeout_ms: 30_000,
            max_retries: 3,
            retry_base_ms: 1000,
            max_retry_after_ms: 60_000,
            content_types: [
                "text/html",
                "application/xhtml+xml",
                "text/plain",
                "application/pdf",
                "application/msword",
                "application/vnd.openxmlformats-officedocument.*",
                "application/vnd.oasis.opendocument.*",
                "application/rtf",
                "text/rtf",
                "application/epub+zip",
            ]
            .map(String::from)
            .to_vec(),
            tracking_params: DEFAULT_TRACKING_PARAMS.iter().map(|s| (*s).to_owned()).collect(),
            containment: tessera_engine::DEFAULT_MIN_CONTAINMENT,
            batch: 256,
            quality: QualityConfig::default(),
        }
    }
}

impl CrawlConfig {
    /// Checks the settings once, before a crawl starts.
    pub fn validate(&self) -> crate::Result<()> {
        let bad = |m: &str| Err(crate::Error::Config(m.into()));
        if self.concurrency == 0 {
            return bad("concurrency must be at least 1");
        }
        // The add mode's own check; its error reads "invalid crawl setting: ..." too.
        tessera_engine::AddMode::if_new(Some(self.containment))?;
        if self.user_agent.trim().is_empty() || self.robots_agent.trim().is_empty() {
            return bad("the user agent must not be empty");
        }
        if self.batch == 0 {
            return bad("batch must be at least 1");
        }
        if self.collection.is_empty() {
            return bad("collection must not be empty");
        }
        Ok(())
    }

    /// Whether a response's `Content-Type` is accepted (absent: yes, extraction decides).
    pub fn accepts(&self, content_type: Option<&str>) -> bool {
        let Some(ct) = content_type else { return true };
        let media = ct.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        self.content_types.iter().any(|t| match t.strip_suffix('*') {
            Some(prefix) => media.starts_with(&prefix.to_ascii_lowercase()),
            None => media == t.to_ascii_lowercase(),
        })
    }
}
