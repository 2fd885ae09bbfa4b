//! The crawl loop: a frontier per host, politeness, and the processing of each fetch.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use tessera_engine::{DocId, ExtractConfig, Extractor};
use tokio::task::JoinSet;
use url::Url;

use crate::fetch::{Conditional, Fetched, Fetcher, Robots};
use crate::state::{CrawlState, FetchRecord, Outcome, QueuedUrl, Record, STATE_VERSION, Spooled};
use crate::urls::{UrlNormalizer, host_key, in_domain};
use crate::{Committed, CrawlConfig, DocumentSink, Error, Result};

/// Counters of a crawl run, for progress and the final summary.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CrawlStats {
    /// Pages requested (robots.txt not counted), this run.
    pub fetched: u64,
    /// Pages indexed as new documents.
    pub added: u64,
    /// Pages attached to an indexed document that contains them.
    pub attached: u64,
    /// Pages rejected by the quality filter, by reason.
    pub rejected: BTreeMap<String, u64>,
    /// URLs robots.txt forbids.
    pub disallowed: u64,
    /// Redirects met.
    pub redirects: u64,
    /// Pages indexed under their canonical URL or left to it.
    pub canonical: u64,
    /// Pages unchanged since the last visit.
    pub not_modified: u64,
    /// Pages fetched and not indexed (status, content type, size, extraction).
    pub skipped: u64,
    /// URLs that failed after retries.
    pub failed: u64,
    /// Body bytes received.
    pub bytes: u64,
    /// URLs queued and not fetched when the run stopped.
    pub queued: u64,
    /// Seconds of the run.
    pub seconds: f64,
}

impl CrawlStats {
    /// Pages fetched per second of the run.
    pub fn pages_per_second(&self) -> f64 {
        if self.seconds > 0.0 { self.fetched as f64 / self.seconds } else { 0.0 }
    }

    /// Pages rejected, all reasons.
    pub fn rejected_total(&self) -> u64 {
        self.rejected.values().sum()
    }
}

/// A URL attached to the indexed document that contains it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Attachment {
    /// The page's URL.
    pub url: String,
    /// The indexed document.
    pub doc: DocId,
    /// Share of the page's distinct shingle hashes found in it.
    pub containment: f64,
}

#[derive(Debug)]
struct Host {
    queue: BTreeMap<(i64, u64), QueuedUrl>,
    next_at: Instant,
    busy: bool,
    scheduled: bool,
    robots: Option<Arc<Robots>>,
}

struct TaskDone {
    host: String,
    entry: QueuedUrl,
    robots: Arc<Robots>,
    fetched: Fetched,
    requested: bool,
}

/// A callback told every final outcome (URL, outcome), e.g. to log rejections.
pub type OutcomeLog = Box<dyn FnMut(&str, &Outcome)>;

/// A crawl over one index: its settings, state directory and frontier.
pub struct Crawler {
    on_outcome: Option<OutcomeLog>,
    config: CrawlConfig,
    state: CrawlState,
    dir: PathBuf,
    normalizer: UrlNormalizer,
    seen: HashSet<String>,
    hosts: HashMap<String, Host>,
    ready: BTreeSet<(Instant, String)>,
    pending_spool: HashMap<String, (u64, FetchRecord)>,
    /// Spooled pages not yet offered to the sink: the pages of the fetches that finished
    /// together, offered at once.
    offers: Vec<Spooled>,
    resume_pending: Vec<(String, FetchRecord, u64)>,
    revisitable: Vec<QueuedUrl>,
    started_total: u64,
    order: u64,
    stats: CrawlStats,
}

impl std::fmt::Debug for Crawler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Crawler").field("dir", &self.dir).field("seen", &self.seen.len()).finish_non_exhaustive()
    }
}

impl Crawler {
    /// Starts a new crawl with state in `dir`; fails if one exists there.
    pub fn create(dir: &Path, config: CrawlConfig) -> Result<Self> {
        config.validate()?;
        if CrawlState::exists(dir) {
            return Err(Error::State(format!("a crawl exists in {}: resume it (--resume)", dir.display())));
        }
        Self::open_with(dir, Some(config))
    }

    /// Resumes the crawl in `dir`, with its stored settings, or with `config` when given.
    pub fn resume(dir: &Path, config: Option<CrawlConfig>) -> Result<Self> {
        if !CrawlState::exists(dir) {
            return Err(Error::State(format!("no crawl to resume in {}", dir.display())));
        }
        Self::open_with(dir, config)
    }

    /// The stored settings of the crawl in `dir`.
    pub fn stored_config(dir: &Path) -> Result<Option<CrawlConfig>> {
        if !CrawlState::exists(dir) {
            return Ok(None);
        }
        Ok(CrawlState::read(dir)?.config)
    }

    /// URLs attached to indexed documents, sorted by URL.
    pub fn attachments(dir: &Path) -> Result<Vec<Attachment>> {
        if !CrawlState::exists(dir) {
            return Err(Error::State(format!("no crawl in {}", dir.display())));
        }
        let replayed = CrawlState::read(dir)?;
        Ok(replayed
            .done
            .into_iter()
            .filter_map(|(url, o)| match o {
                Outcome::Attached { doc, containment } => Some(Attachment { url, doc, containment }),
                _ => None,
            })
            .collect())
    }

    /// Every finished URL with its outcome, sorted by URL.
    pub fn outcomes(dir: &Path) -> Result<BTreeMap<String, Outcome>> {
        Ok(CrawlState::read(dir)?.done)
    }

    fn open_with(dir: &Path, config: Option<CrawlConfig>) -> Result<Self> {
        let (mut state, replayed) = CrawlState::open(dir)?;
        let config = match config.or(replayed.config.clone()) {
            Some(c) => c,
            None => return Err(Error::State(format!("{}: the crawl has no settings", dir.display()))),
        };
        config.validate()?;
        if replayed.config.as_ref() != Some(&config) {
            state.append(&[Record::Config { version: STATE_VERSION, config: Box::new(config.clone()) }])?;
        }
        let started_total = (replayed.done.len() + replayed.pending.len()) as u64;
        let mut crawler = Crawler {
            on_outcome: None,
            normalizer: UrlNormalizer::new(config.tracking_params.clone()),
            config,
            state,
            dir: dir.to_path_buf(),
            seen: replayed.seen,
            hosts: HashMap::new(),
            ready: BTreeSet::new(),
            pending_spool: HashMap::new(),
            offers: Vec::new(),
            resume_pending: replayed.pending.into_iter().map(|(u, (f, n))| (u, f, n)).collect(),
            revisitable: replayed.revisitable,
            started_total,
            order: 0,
            stats: CrawlStats::default(),
        };
        for q in replayed.frontier {
            crawler.push(q);
        }
        Ok(crawler)
    }

    /// Calls `log` with every final outcome from now on.
    pub fn log_outcomes(&mut self, log: OutcomeLog) {
        self.on_outcome = Some(log);
    }

    fn append(&mut self, records: &[Record]) -> Result<()> {
        if let Some(log) = &mut self.on_outcome {
            for r in records {
                if let Record::Done { url, outcome, .. } = r {
                    log(url, outcome);
                }
            }
        }
        self.state.append(records)
    }

    /// The settings of this crawl.
    pub fn config(&self) -> &CrawlConfig {
        &self.config
    }

    /// The state directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Adds seed URLs (normalised; already seen ones are skipped; with no
    /// `allow_domains`, a seed's host becomes allowed). Returns how many were new.
    pub fn add_seeds<'a>(&mut self, seeds: impl IntoIterator<Item = &'a str>) -> Result<usize> {
        let mut records = Vec::new();
        let mut hosts = Vec::new();
        for raw in seeds {
            let Some(url) = self.normalizer.normalize(raw, None) else { continue };
            if let Some(h) = url.host_str() {
                hosts.push(h.to_owned());
            }
            if self.seen.insert(url.to_string()) {
                records.push(QueuedUrl { url: url.to_string(), ..QueuedUrl::default() });
            }
        }
        if self.config.allow_domains.is_empty() && !hosts.is_empty() {
            hosts.sort();
            hosts.dedup();
            self.config.allow_domains = hosts;
            self.state.append(&[Record::Config { version: STATE_VERSION, config: Box::new(self.config.clone()) }])?;
        }
        let n = records.len();
        self.state.append(&records.iter().cloned().map(Record::Queued).collect::<Vec<_>>())?;
        for q in records {
            self.push(q);
        }
        Ok(n)
    }

    /// Queues every finished URL last answered with HTTP 200 again, with its `ETag` and
    /// `Last-Modified` for a conditional request: an unchanged page costs a 304, a
    /// changed one is offered to the sink again (and added only if new). Returns how
    /// many were queued.
    pub fn revisit(&mut self) -> Result<usize> {
        let list = std::mem::take(&mut self.revisitable);
        self.append(&list.iter().cloned().map(Record::Revisit).collect::<Vec<_>>())?;
        let n = list.len();
        for q in list {
            self.push(q);
        }
        Ok(n)
    }

    fn allowed_domain(&self, url: &Url) -> bool {
        let Some(host) = url.host_str() else { return false };
        self.config.allow_domains.iter().any(|d| in_domain(host, d))
    }

    fn push(&mut self, q: QueuedUrl) {
        let Ok(url) = Url::parse(&q.url) else { return };
        let key = host_key(&url);
        self.order += 1;
        let now = Instant::now();
        let host = self.hosts.entry(key.clone()).or_insert_with(|| Host {
            queue: BTreeMap::new(),
            next_at: now,
            busy: false,
            scheduled: false,
            robots: None,
        });
        host.queue.insert((-i64::from(q.priority), self.order), q);
        if !host.busy && !host.scheduled {
            host.scheduled = true;
            self.ready.insert((host.next_at, key));
        }
    }

    fn budget_left(&self) -> bool {
        self.config.max_pages.is_none_or(|m| self.started_total < m)
    }

    /// Runs the crawl until the frontier is empty or `max_pages` is reached, offering
    /// pages to `sink`. `progress` is called after each fetch with the running counters.
    pub fn run(&mut self, sink: &mut dyn DocumentSink, progress: &mut dyn FnMut(&CrawlStats)) -> Result<CrawlStats> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| Error::Client(format!("runtime: {e}")))?;
        let started = Instant::now();
        self.stats = CrawlStats::default();
        // Pages fetched before a crash and not yet known to be indexed.
        for (url, fetch, n) in std::mem::take(&mut self.resume_pending) {
            let page = self.state.read_spool(n, &url)?;
            self.pending_spool.insert(url.clone(), (n, fetch));
            self.offers.push(page);
        }
        self.offer_spooled(sink)?;
        let extractor = Extractor::new(ExtractConfig { max_bytes: self.config.max_bytes, ..ExtractConfig::default() });
        let fetcher = Arc::new(Fetcher::new(&self.config, extractor)?);
        let result = runtime.block_on(self.drive(&fetcher, sink, progress, started));
        let tail = self.commit(sink);
        self.state.release_spool();
        self.state.sync()?;
        result?;
        tail?;
        self.stats.queued = self.hosts.values().map(|h| h.queue.len() as u64).sum();
        self.stats.seconds = started.elapsed().as_secs_f64();
        Ok(self.stats.clone())
    }

    async fn drive(
        &mut self,
        fetcher: &Arc<Fetcher>,
        sink: &mut dyn DocumentSink,
        progress: &mut dyn FnMut(&CrawlStats),
        started: Instant,
    ) -> Result<()> {
        let mut tasks: JoinSet<TaskDone> = JoinSet::new();
        loop {
            let now = Instant::now();
            while tasks.len() < self.config.concurrency && self.budget_left() {
                let Some((at, key)) = self.ready.first().cloned() else { break };
                if at > now {
                    break;
                }
                self.ready.pop_first();
                let host = self.hosts.get_mut(&key).expect("a ready host exists");
                host.scheduled = false;
                let Some((_, entry)) = host.queue.pop_first() else { continue };
                host.busy = true;
                self.started_total += 1;
                let robots = host.robots.clone();
                let fetcher = Arc::clone(fetcher);
                tasks.spawn(async move {
                    let Ok(url) = Url::parse(&entry.url) else {
                        return TaskDone {
                            host: key,
                            entry,
                            robots: Arc::new(Robots::AllowAll),
                            fetched: Fetched::Failed("unparsable URL".into()),
                            requested: false,
                        };
                    };
                    let robots = match robots {
                        Some(r) => r,
                        None => {
                            let r = Arc::new(fetcher.robots(&url).await);
                            tokio::time::sleep(fetcher.host_delay(Some(&r))).await;
                            r
                        }
                    };
                    let cond = Conditional { etag: entry.etag.clone(), last_modified: entry.last_modified.clone() };
                    let fetched = Arc::clone(&fetcher).fetch(url, Arc::clone(&robots), cond).await;
                    let requested = !matches!(fetched, Fetched::Disallowed);
                    TaskDone { host: key, entry, robots, fetched, requested }
                });
            }
            if tasks.is_empty() && (self.ready.is_empty() || !self.budget_left()) {
                return Ok(());
            }
            let wake = self.ready.first().map(|(at, _)| *at).filter(|_| self.budget_left());
            tokio::select! {
                done = tasks.join_next(), if !tasks.is_empty() => {
                    match done {
                        Some(Ok(done)) => {
                            self.finish_task(fetcher, done)?;
                            // Every fetch already finished is handled now too, and their
                            // pages go to the sink together (it works on them in parallel).
                            while let Some(more) = tasks.try_join_next() {
                                let done = more.map_err(|e| Error::State(format!("a fetch task stopped: {e}")))?;
                                self.finish_task(fetcher, done)?;
                            }
                            self.offer_spooled(sink)?;
                            self.stats.seconds = started.elapsed().as_secs_f64();
                            progress(&self.stats);
                        }
                        Some(Err(e)) => return Err(Error::State(format!("a fetch task stopped: {e}"))),
                        None => {}
                    }
                }
                () = sleep_until(wake) => {}
            }
        }
    }

    fn finish_task(&mut self, fetcher: &Fetcher, done: TaskDone) -> Result<()> {
        let delay = fetcher.host_delay(Some(&done.robots));
        self.finish_host(&done.host, &done.robots, if done.requested { delay } else { Duration::ZERO });
        self.handle(done.entry, done.fetched)
    }

    fn finish_host(&mut self, key: &str, robots: &Arc<Robots>, delay: Duration) {
        let Some(host) = self.hosts.get_mut(key) else { return };
        host.busy = false;
        host.robots = Some(Arc::clone(robots));
        let at = Instant::now() + delay;
        host.next_at = host.next_at.max(at);
        if !host.queue.is_empty() && !host.scheduled {
            host.scheduled = true;
            self.ready.insert((host.next_at, key.to_owned()));
        }
    }

    /// Queues `raw` (normalised against `base`) if allowed and unseen; returns the
    /// normal form when it is an acceptable URL.
    fn discover(
        &mut self,
        raw: &str,
        base: Option<&Url>,
        depth: u32,
        hops: u32,
        records: &mut Vec<Record>,
    ) -> Option<Url> {
        let url = self.normalizer.normalize(raw, base)?;
        if !self.allowed_domain(&url) {
            return None;
        }
        if self.seen.insert(url.to_string()) {
            let q = QueuedUrl {
                url: url.to_string(),
                depth,
                priority: 0i32.saturating_sub_unsigned(depth),
                hops,
                ..QueuedUrl::default()
            };
            records.push(Record::Queued(q.clone()));
            self.push(q);
        }
        Some(url)
    }

    fn handle(&mut self, entry: QueuedUrl, fetched: Fetched) -> Result<()> {
        let url = entry.url.clone();
        let mut records = Vec::new();
        let done = |fetch: Option<FetchRecord>, outcome: Outcome| Record::Done { url: url.clone(), fetch, outcome };
        if !matches!(fetched, Fetched::Disallowed) {
            self.stats.fetched += 1;
        }
        match fetched {
            Fetched::Disallowed => {
                self.stats.disallowed += 1;
                tracing::debug!(%url, "disallowed by robots.txt");
                records.push(done(None, Outcome::Disallowed));
            }
            Fetched::Failed(error) => {
                self.stats.failed += 1;
                tracing::warn!(%url, %error, "fetch failed");
                records.push(done(None, Outcome::Failed { error }));
            }
            Fetched::NotModified(fetch) => {
                self.stats.not_modified += 1;
                records.push(done(Some(fetch), Outcome::NotModified));
            }
            Fetched::Skipped { fetch, reason } => {
                self.stats.skipped += 1;
                self.stats.bytes += fetch.as_ref().map_or(0, |f| f.bytes);
                tracing::info!(%url, %reason, "skipped");
                records.push(done(fetch, Outcome::Skipped { reason }));
            }
            Fetched::Redirect { fetch, location } => {
                self.stats.redirects += 1;
                let base = Url::parse(&url).ok();
                let outcome = if entry.hops >= self.config.max_redirects {
                    Outcome::Failed { error: format!("more than {} redirects", self.config.max_redirects) }
                } else {
                    match self.discover(
                        &location,
                        base.as_ref(),
                        entry.depth,
                        entry.hops.saturating_add(1),
                        &mut records,
                    ) {
                        Some(to) => Outcome::Redirect { to: to.to_string() },
                        None => Outcome::Skipped { reason: format!("redirect to {location} (not allowed)") },
                    }
                };
                records.push(done(Some(fetch), outcome));
            }
            Fetched::Page { fetch, extracted, links, canonical } => {
                self.stats.bytes += fetch.bytes;
                let base = Url::parse(&url).ok();
                if entry.depth < self.config.max_depth {
                    for link in &links {
                        self.discover(link, base.as_ref(), entry.depth.saturating_add(1), 0, &mut records);
                    }
                }
                let mut index_as = url.clone();
                if let Some(c) = canonical.as_deref().and_then(|c| self.normalizer.normalize(c, base.as_ref()))
                    && c.as_str() != url
                    && self.allowed_domain(&c)
                {
                    self.stats.canonical += 1;
                    if self.seen.insert(c.to_string()) {
                        // Indexed under its canonical URL, which is marked seen and never
                        // fetched itself.
                        records.push(Record::Queued(QueuedUrl {
                            url: c.to_string(),
                            depth: entry.depth,
                            ..QueuedUrl::default()
                        }));
                        records.push(done(Some(fetch.clone()), Outcome::Canonical { to: c.to_string() }));
                        index_as = c.to_string();
                    } else {
                        records.push(done(Some(fetch), Outcome::Canonical { to: c.to_string() }));
                        self.append(&records)?;
                        return Ok(());
                    }
                }
                let done_as = |outcome| Record::Done { url: index_as.clone(), fetch: Some(fetch.clone()), outcome };
                match extracted {
                    Err(reason) => {
                        self.stats.skipped += 1;
                        records.push(done_as(Outcome::Skipped { reason }));
                    }
                    Ok(extracted) => match self.config.quality.judge(&extracted.text) {
                        Err(why) => {
                            *self.stats.rejected.entry(why.as_str().to_owned()).or_default() += 1;
                            tracing::info!(url = %index_as, reason = why.as_str(), "rejected");
                            records.push(done_as(Outcome::Rejected { reason: why.as_str().to_owned() }));
                        }
                        Ok(()) => {
                            let page = Spooled { url: index_as.clone(), extracted };
                            let n = self.state.spool(&page)?;
                            records.push(Record::Fetched { url: index_as.clone(), fetch: fetch.clone(), spool: n });
                            self.append(&records)?;
                            self.pending_spool.insert(index_as.clone(), (n, fetch));
                            self.offers.push(page);
                            return Ok(());
                        }
                    },
                }
            }
        }
        self.append(&records)
    }

    /// Offers the spooled pages waiting to the sink; what became of each is logged once a
    /// commit of the sink made it durable.
    fn offer_spooled(&mut self, sink: &mut dyn DocumentSink) -> Result<()> {
        if self.offers.is_empty() {
            return Ok(());
        }
        sink.offer_all(std::mem::take(&mut self.offers).into_iter().map(|p| (p.url, p.extracted)).collect())?;
        if sink.pending() >= self.config.batch {
            self.commit(sink)?;
        }
        Ok(())
    }

    fn commit(&mut self, sink: &mut dyn DocumentSink) -> Result<()> {
        for (url, fate) in sink.commit()? {
            match fate {
                Committed::Added(doc) => self.finish_page(&url, Outcome::Added { doc })?,
                Committed::Attached { to, containment } => {
                    tracing::info!(%url, doc = to.0, containment, "attached");
                    self.finish_page(&url, Outcome::Attached { doc: to, containment })?;
                }
            }
        }
        Ok(())
    }

    fn finish_page(&mut self, url: &str, outcome: Outcome) -> Result<()> {
        match &outcome {
            Outcome::Added { .. } => self.stats.added += 1,
            Outcome::Attached { .. } => self.stats.attached += 1,
            _ => {}
        }
        let (spool, fetch) = self.pending_spool.remove(url).map_or((None, None), |(n, f)| (Some(n), Some(f)));
        self.append(&[Record::Done { url: url.to_owned(), fetch, outcome }])?;
        if let Some(n) = spool {
            self.state.unspool(n);
        }
        Ok(())
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(tokio::time::Instant::from_std(at)).await,
        None => std::future::pending().await,
    }
}
