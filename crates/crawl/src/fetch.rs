//! One host's work for one URL: robots.txt (once per host), the request with retries and
//! back-off, the body under a size limit, extraction and links.

use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

use tessera_engine::{Extracted, Extractor, Format};
use texting_robots::Robot;
use ureq::http::Response;
use ureq::http::header::{
    CONTENT_TYPE, ETAG, HeaderMap, HeaderValue, IF_MODIFIED_SINCE, IF_NONE_MATCH, LAST_MODIFIED, LOCATION, RETRY_AFTER,
};
use url::Url;

use crate::state::FetchRecord;
use crate::{CrawlConfig, Error, Result};

/// What robots.txt says for a host.
#[derive(Debug)]
pub enum Robots {
    /// No rules (robots.txt absent, 4xx, or unparsable).
    AllowAll,
    /// robots.txt could not be fetched (5xx, network): nothing is fetched from the host.
    Unreachable(String),
    /// The host's rules.
    Rules(Box<Robot>),
}

impl Robots {
    fn allowed(&self, url: &str) -> bool {
        match self {
            Robots::AllowAll => true,
            Robots::Unreachable(_) => false,
            Robots::Rules(r) => r.allowed(url),
        }
    }

    /// The `Crawl-delay` for our agent.
    pub fn crawl_delay(&self) -> Option<Duration> {
        match self {
            Robots::Rules(r) => {
                r.delay.filter(|d| d.is_finite() && *d > 0.0).map(|d| Duration::from_secs_f32(d.min(86_400.0)))
            }
            _ => None,
        }
    }
}

/// The result of fetching one URL.
#[derive(Debug)]
// One value per fetch, moved once from the task to the loop: boxing buys nothing.
#[allow(clippy::large_enum_variant)]
pub enum Fetched {
    /// robots.txt forbids it (no request was made for the page).
    Disallowed,
    /// A redirect to `location` (as sent, not yet resolved).
    Redirect {
        /// HTTP facts.
        fetch: FetchRecord,
        /// The `Location` header.
        location: String,
    },
    /// HTTP 304.
    NotModified(FetchRecord),
    /// Fetched, nothing to index.
    Skipped {
        /// HTTP facts, when a response came.
        fetch: Option<FetchRecord>,
        /// Why.
        reason: String,
    },
    /// Failed after retries.
    Failed(String),
    /// A page with its text.
    Page {
        /// HTTP facts.
        fetch: FetchRecord,
        /// Extracted text, or why extraction failed.
        extracted: std::result::Result<Extracted, String>,
        /// Absolute link targets (HTML only).
        links: Vec<String>,
        /// `<link rel="canonical">` target, absolute.
        canonical: Option<String>,
    },
}

/// Validators of an earlier visit, sent as a conditional request.
#[derive(Debug, Clone, Default)]
pub struct Conditional {
    /// `If-None-Match`.
    pub etag: Option<String>,
    /// `If-Modified-Since`.
    pub last_modified: Option<String>,
}

/// Shared by all fetch tasks. Requests are made with `ureq` (blocking) on Tokio's
/// blocking threads, so that a slow host holds one of those, never a task's worker.
pub struct Fetcher {
    agent: ureq::Agent,
    config: CrawlConfig,
    extractor: Extractor,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher").finish_non_exhaustive()
    }
}

enum Attempt {
    Response(Response<ureq::Body>),
    Transient { reason: String, retry_after: Option<Duration> },
    Fatal(String),
}

impl Fetcher {
    /// A fetcher with the crawl's settings and the engine's extraction settings.
    pub fn new(config: &CrawlConfig, extractor: Extractor) -> Result<Self> {
        // The agent would panic on a user agent that is no header value: refused here.
        HeaderValue::from_str(&config.user_agent)
            .map_err(|e| Error::Client(format!("user agent {:?}: {e}", config.user_agent)))?;
        // Redirects are not followed (the crawler queues their targets), answers of any
        // status come back as answers, and the timeout covers a whole request (connection,
        // answer and body).
        let agent = ureq::Agent::config_builder()
            .user_agent(config.user_agent.as_str())
            .max_redirects(0)
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_millis(config.timeout_ms)))
            .timeout_connect(Some(Duration::from_millis(config.timeout_ms.min(10_000))))
            .max_idle_connections_per_host(1)
            .build()
            .new_agent();
        Ok(Self { agent, config: config.clone(), extractor })
    }

    /// The per-host wait: the configured delay, or robots.txt's `Crawl-delay` when
    /// larger (capped).
    pub fn host_delay(&self, robots: Option<&Robots>) -> Duration {
        let base = Duration::from_millis(self.config.per_host_delay_ms);
        let crawl = robots
            .and_then(Robots::crawl_delay)
            .map_or(Duration::ZERO, |d| d.min(Duration::from_millis(self.config.max_crawl_delay_ms)));
        base.max(crawl)
    }

    /// Fetches and reads a host's robots.txt.
    pub async fn robots(&self, url: &Url) -> Robots {
        let mut robots_url = url.clone();
        robots_url.set_path("/robots.txt");
        robots_url.set_query(None);
        let mut delay = self.host_delay(None);
        for attempt in 0..=self.config.max_retries {
            if attempt > 0 {
                tokio::time::sleep(delay).await;
            }
            match self.attempt(robots_url.as_str(), &Conditional::default()).await {
                Attempt::Response(resp) => {
                    let status = resp.status();
                    if status.is_success() {
                        return match read_body(resp, 512 << 10).await {
                            Ok(body) => match Robot::new(&self.config.robots_agent, &body) {
                                Ok(robot) => Robots::Rules(Box::new(robot)),
                                Err(_) => Robots::AllowAll,
                            },
                            Err(e) => Robots::Unreachable(e),
                        };
                    }
                    // RFC 9309: 4xx means no rules; a redirect we do not follow is treated
                    // the same (rules on another host do not bind this one).
                    return Robots::AllowAll;
                }
                Attempt::Transient { reason, retry_after } => {
                    if attempt == self.config.max_retries {
                        return Robots::Unreachable(format!("robots.txt: {reason}"));
                    }
                    delay = self.backoff(attempt, retry_after);
                }
                Attempt::Fatal(reason) => return Robots::Unreachable(format!("robots.txt: {reason}")),
            }
        }
        Robots::Unreachable("robots.txt: no answer".into())
    }

    fn backoff(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let exp = Duration::from_millis(self.config.retry_base_ms.saturating_mul(1u64 << attempt.min(16)));
        let told = retry_after.map_or(Duration::ZERO, |d| d.min(Duration::from_millis(self.config.max_retry_after_ms)));
        exp.max(told).max(self.host_delay(None))
    }

    async fn attempt(&self, url: &str, cond: &Conditional) -> Attempt {
        let mut req = self.agent.get(url);
        if let Some(etag) = &cond.etag {
            req = req.header(IF_NONE_MATCH, etag);
        }
        if let Some(lm) = &cond.last_modified {
            req = req.header(IF_MODIFIED_SINCE, lm);
        }
        let sent = match tokio::task::spawn_blocking(move || req.call()).await {
            Ok(sent) => sent,
            Err(e) => return Attempt::Fatal(format!("the request stopped: {e}")),
        };
        match sent {
            Ok(resp) => {
                let status = resp.status();
                if status.is_server_error() || status.as_u16() == 429 {
                    let retry_after = retry_after(resp.headers());
                    Attempt::Transient { reason: format!("HTTP {}", status.as_u16()), retry_after }
                } else {
                    Attempt::Response(resp)
                }
            }
            Err(e) if transient(&e) => Attempt::Transient { reason: error_chain(&e), retry_after: None },
            Err(e) => Attempt::Fatal(error_chain(&e)),
        }
    }

    /// Fetches one allowed-or-not URL of a host whose robots.txt is known, retrying
    /// transient failures (the host stays busy meanwhile: one request at a time).
    pub async fn fetch(self: Arc<Self>, url: Url, robots: Arc<Robots>, cond: Conditional) -> Fetched {
        if let Robots::Unreachable(reason) = &*robots {
            return Fetched::Failed(reason.clone());
        }
        if !robots.allowed(url.as_str()) {
            return Fetched::Disallowed;
        }
        let mut last = String::new();
        for attempt in 0..=self.config.max_retries {
            match self.attempt(url.as_str(), &cond).await {
                Attempt::Response(resp) => return self.read(url, resp).await,
                Attempt::Transient { reason, retry_after } => {
                    last = reason;
                    if attempt < self.config.max_retries {
                        tokio::time::sleep(self.backoff(attempt, retry_after).max(self.host_delay(Some(&robots))))
                            .await;
                    }
                }
                Attempt::Fatal(reason) => return Fetched::Failed(reason),
            }
        }
        Fetched::Failed(format!("{last} after {} retries", self.config.max_retries))
    }

    async fn read(self: Arc<Self>, url: Url, resp: Response<ureq::Body>) -> Fetched {
        let headers = resp.headers();
        let header = |name| headers.get(name).and_then(|v: &HeaderValue| v.to_str().ok()).map(str::to_owned);
        let mut fetch = FetchRecord {
            status: resp.status().as_u16(),
            etag: header(ETAG),
            last_modified: header(LAST_MODIFIED),
            content_type: header(CONTENT_TYPE),
            bytes: 0,
        };
        let status = resp.status();
        if status.is_redirection() && status.as_u16() != 304 {
            return match header(LOCATION) {
                Some(location) => Fetched::Redirect { fetch, location },
                None => Fetched::Skipped {
                    fetch: Some(fetch),
                    reason: format!("HTTP {} without Location", status.as_u16()),
                },
            };
        }
        if status.as_u16() == 304 {
            return Fetched::NotModified(fetch);
        }
        if !status.is_success() {
            return Fetched::Skipped { reason: format!("HTTP {}", status.as_u16()), fetch: Some(fetch) };
        }
        if !self.config.accepts(fetch.content_type.as_deref()) {
            let reason = format!("content type {}", fetch.content_type.as_deref().unwrap_or(""));
            return Fetched::Skipped { fetch: Some(fetch), reason };
        }
        let body = match read_body(resp, self.config.max_bytes).await {
            Ok(b) => b,
            Err(reason) => return Fetched::Skipped { fetch: Some(fetch), reason },
        };
        fetch.bytes = body.len() as u64;
        let this = Arc::clone(&self);
        let work = tokio::task::spawn_blocking(move || {
            let extracted = this.extractor.extract_bytes(url.as_str(), &body).map_err(|e| e.to_string());
            let (links, canonical) = match &extracted {
                Ok(x) if x.format == Format::Html => links(&url, &body),
                _ => (Vec::new(), None),
            };
            (extracted, links, canonical)
        });
        match work.await {
            Ok((extracted, links, canonical)) => Fetched::Page { fetch, extracted, links, canonical },
            Err(e) => Fetched::Skipped { fetch: Some(fetch), reason: format!("extraction stopped: {e}") },
        }
    }
}

/// Reads a body, failing past `limit` bytes (checked as chunks arrive, so a huge
/// response is cut off, not buffered).
async fn read_body(resp: Response<ureq::Body>, limit: u64) -> std::result::Result<Vec<u8>, String> {
    let body = resp.into_body();
    if body.content_length().is_some_and(|n| n > limit) {
        return Err(format!("larger than {limit} bytes"));
    }
    tokio::task::spawn_blocking(move || read_limited(body, limit))
        .await
        .unwrap_or_else(|e| Err(format!("reading stopped: {e}")))
}

/// [`read_body`]'s reading, on a blocking thread.
fn read_limited(body: ureq::Body, limit: u64) -> std::result::Result<Vec<u8>, String> {
    let mut reader = body.into_reader();
    let mut body = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        match reader.read(&mut chunk) {
            Ok(0) => return Ok(body),
            Ok(n) => {
                if body.len() as u64 + n as u64 > limit {
                    return Err(format!("larger than {limit} bytes"));
                }
                body.extend_from_slice(&chunk[..n]);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(error_chain(&e)),
        }
    }
}

/// Whether a failed request is worth retrying: the network or the host failed (no
/// answer in time, no connection, a broken or garbled answer), not the request itself
/// (a URL or header that cannot be sent, a proxy setting).
fn transient(e: &ureq::Error) -> bool {
    !matches!(
        e,
        ureq::Error::Http(_)
            | ureq::Error::BadUri(_)
            | ureq::Error::InvalidProxyUrl
            | ureq::Error::RequireHttpsOnly(_)
            | ureq::Error::TlsRequired
            | ureq::Error::TooManyRedirects
            | ureq::Error::RedirectFailed
    )
}

fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let v = headers.get(RETRY_AFTER)?.to_str().ok()?;
    v.trim().parse::<u64>().ok().map(Duration::from_secs)
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(cause) = src {
        s.push_str(": ");
        s.push_str(&cause.to_string());
        src = cause.source();
    }
    s
}

/// Link targets and the canonical URL of an HTML page, resolved against the page's URL
/// (or its `<base href>`).
pub fn links(url: &Url, body: &[u8]) -> (Vec<String>, Option<String>) {
    let html = String::from_utf8_lossy(body);
    let doc = dom_query::Document::from(html.as_ref());
    let base = doc
        .select("base[href]")
        .iter()
        .next()
        .and_then(|b| b.attr("href"))
        .and_then(|h| url.join(h.as_ref()).ok())
        .unwrap_or_else(|| url.clone());
    let mut out = Vec::new();
    for a in doc.select("a[href], area[href]").iter() {
        let rel = a.attr("rel").map(|r| r.to_ascii_lowercase()).unwrap_or_default();
        if rel.split_whitespace().any(|r| r == "nofollow") {
            continue;
        }
        if let Some(href) = a.attr("href")
            && let Ok(u) = base.join(href.trim())
        {
            out.push(u.to_string());
        }
    }
    let canonical = doc
        .select("link[rel][href]")
        .iter()
        .find(|l| l.attr("rel").is_some_and(|r| r.split_whitespace().any(|t| t.eq_ignore_ascii_case("canonical"))))
        .and_then(|l| l.attr("href"))
        .and_then(|h| base.join(h.trim()).ok())
        .map(String::from);
    (out, canonical)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_canonical() {
        let url = Url::parse("http://h.test/dir/p.html").unwrap();
        let html = br#"<html><head><link rel="canonical" href="/c"></head><body>
            <a href="a.html">a</a> <a href="http://other.test/x#f">x</a> <a href="/n" rel="nofollow">n</a>
            <a href="mailto:x@y">m</a><a>no href</a><a href="http://[bad">bad</a></body></html>"#;
        let (links, canonical) = links(&url, html);
        assert_eq!(links, ["http://h.test/dir/a.html", "http://other.test/x#f", "mailto:x@y"]);
        assert_eq!(canonical.as_deref(), Some("http://h.test/c"));
    }

    #[test]
    fn garbage_html_does_not_panic() {
        let url = Url::parse("http://h.test/").unwrap();
        let _ = links(&url, b"<a href=\"\xff\xfe\"><<<>>><base href='::::'>");
        let _ = links(&url, &[0u8; 1000]);
    }
}
