//! `tessera crawl`

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use tessera_crawl::{CrawlConfig, CrawlStats, Crawler, DocumentSink, EngineSink, Outcome, ServerSink};
use tessera_engine::{CollectionConfig, CollectionKind, Engine, EngineOptions, WriterMode};

use super::{CreateArgs, Format, IndexDir};

/// Arguments of `tessera crawl`.
#[derive(Debug, Args)]
pub struct CrawlArgs {
    #[command(flatten)]
    dir: IndexDir,
    /// Collection the pages are added to (a new crawl only).
    #[arg(long, short = 'c', default_value = "web")]
    collection: String,
    /// File of seed URLs, one a line (`#` starts a comment).
    #[arg(long, value_name = "FILE")]
    seeds: Option<PathBuf>,
    /// A seed URL (repeatable).
    #[arg(long = "seed", value_name = "URL")]
    seed: Vec<String>,
    /// Continue the crawl of this index (after a stop or a crash); seeds given are added.
    #[arg(long)]
    resume: bool,
    /// With --resume: fetch every page again with a conditional request (ETag /
    /// Last-Modified of the last visit); changed pages are offered again (added only if
    /// new), unchanged ones cost a 304.
    #[arg(long, requires = "resume")]
    revisit: bool,
    /// List the URLs attached to indexed documents (URL, document, containment) and exit.
    #[arg(long, conflicts_with = "resume")]
    attached: bool,
    /// Pages fetched over the whole crawl at most.
    #[arg(long)]
    max_pages: Option<u64>,
    /// Domains the crawl may visit, with subdomains (repeatable; default: the seeds' hosts).
    #[arg(long = "allow-domain", value_name = "DOMAIN")]
    allow_domain: Vec<String>,
    /// Links followed from a seed at most.
    #[arg(long)]
    max_depth: Option<u32>,
    /// Least time between two requests to one host (e.g. 2s, 500ms); robots.txt's
    /// Crawl-delay wins when larger.
    #[arg(long, value_parser = parse_duration)]
    per_host_delay: Option<Duration>,
    /// Hosts fetched at once.
    #[arg(long)]
    concurrency: Option<usize>,
    /// User-Agent header (name the tool and a contact URL).
    #[arg(long)]
    user_agent: Option<String>,
    /// Share of a page's shingle hashes contained in one indexed document that makes it
    /// a duplicate, attached instead of added.
    #[arg(long)]
    containment: Option<f64>,
    /// Fewest words a page needs.
    #[arg(long)]
    min_words: Option<usize>,
    /// Languages accepted (ISO 639-3, e.g. eng, rus; repeatable; default any).
    #[arg(long = "lang")]
    lang: Vec<String>,
    /// Retries of transient failures; the first back-off (doubling each time).
    #[arg(long)]
    max_retries: Option<u32>,
    /// First retry back-off (e.g. 1s).
    #[arg(long, value_parser = parse_duration)]
    retry_backoff: Option<Duration>,
    /// Time limit of one request (e.g. 30s).
    #[arg(long, value_parser = parse_duration)]
    timeout: Option<Duration>,
    /// Largest response read, in bytes.
    #[arg(long)]
    max_bytes: Option<u64>,
    /// Hand pages to the `tessera serve` at this URL (e.g. http://127.0.0.1:8080), which
    /// writes the index, instead of writing it here: the way to crawl into an index a
    /// server is running on. The crawl's own state stays in the --index folder.
    #[arg(long, value_name = "URL")]
    server: Option<String>,
    /// Bearer token of the server (with --server).
    #[arg(long, env = "TESSERA_TOKEN", hide_env_values = true, requires = "server")]
    token: Option<String>,
    /// Print each URL's outcome on stderr (rejections with their reason, failures).
    #[arg(long, short = 'v')]
    verbose: bool,
    /// Summary format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    #[command(flatten)]
    create: CreateArgs,
}

/// Parses `2s`, `500ms`, `1.5s`, `1m`, or plain seconds.
fn parse_duration(s: &str) -> std::result::Result<Duration, String> {
    let s = s.trim();
    let (num, unit) = match s.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => s.split_at(i),
        None => (s, "s"),
    };
    let v: f64 = num.trim().parse().map_err(|_| format!("not a duration: {s:?} (try 2s or 500ms)"))?;
    let secs = match unit {
        "ms" => v / 1000.0,
        "s" => v,
        "m" => v * 60.0,
        _ => return Err(format!("unknown unit in {s:?} (ms, s or m)")),
    };
    Duration::try_from_secs_f64(secs).map_err(|e| format!("{s:?}: {e}"))
}

impl CrawlArgs {
    fn apply(&self, c: &mut CrawlConfig) {
        if !self.allow_domain.is_empty() {
            c.allow_domains.clone_from(&self.allow_domain);
        }
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        if let Some(v) = self.max_pages {
            c.max_pages = Some(v);
        }
        if let Some(v) = self.max_depth {
            c.max_depth = v;
        }
        if let Some(v) = self.per_host_delay {
            c.per_host_delay_ms = ms(v);
        }
        if let Some(v) = self.concurrency {
            c.concurrency = v;
        }
        if let Some(v) = &self.user_agent {
            c.user_agent.clone_from(v);
        }
        if let Some(v) = self.containment {
            c.containment = v;
        }
        if let Some(v) = self.min_words {
            c.quality.min_words = v;
        }
        if !self.lang.is_empty() {
            c.quality.languages.clone_from(&self.lang);
        }
        if let Some(v) = self.max_retries {
            c.max_retries = v;
        }
        if let Some(v) = self.retry_backoff {
            c.retry_base_ms = ms(v);
        }
        if let Some(v) = self.timeout {
            c.timeout_ms = ms(v);
        }
        if let Some(v) = self.max_bytes {
            c.max_bytes = v;
        }
    }

    fn seed_urls(&self) -> Result<Vec<String>> {
        let mut out = self.seed.clone();
        if let Some(path) = &self.seeds {
            let text = fs_err::read_to_string(path).context("reading the seed list")?;
            out.extend(
                text.lines()
                    .map(|l| l.split('#').next().unwrap_or("").trim())
                    .filter(|l| !l.is_empty())
                    .map(String::from),
            );
        }
        Ok(out)
    }
}

pub fn run(args: &CrawlArgs, quiet: bool) -> Result<ExitCode> {
    let state = tessera_crawl::state_dir(&args.dir.dir);
    if args.attached {
        return list_attached(args, &state);
    }
    let seeds = args.seed_urls()?;
    // The index's writer first: while another process writes the index (a running
    // `tessera serve`), the crawl is refused before it creates or changes its state.
    let engine = match &args.server {
        Some(_) => None,
        None => {
            fs_err::create_dir_all(&args.dir.dir)?;
            let options = EngineOptions { writer: WriterMode::Resident, ..EngineOptions::default() };
            Some(
                Engine::open_or_create(&args.dir.dir, &args.create.settings(), options)
                    .with_context(|| format!("opening the index at {}", args.dir.dir.display()))?,
            )
        }
    };
    let mut crawler = if args.resume {
        let mut config = Crawler::stored_config(&state)?
            .with_context(|| format!("no crawl to resume in {}", args.dir.dir.display()))?;
        args.apply(&mut config);
        Crawler::resume(&state, Some(config)).context("resuming the crawl")?
    } else {
        if seeds.is_empty() {
            bail!("no seeds: give --seeds FILE or --seed URL (or --resume)");
        }
        let mut config = CrawlConfig { collection: args.collection.clone(), ..CrawlConfig::default() };
        args.apply(&mut config);
        fs_err::create_dir_all(&args.dir.dir)?;
        Crawler::create(&state, config).context("starting the crawl")?
    };
    let added = crawler.add_seeds(seeds.iter().map(String::as_str))?;
    let revisits = if args.revisit { crawler.revisit()? } else { 0 };
    let config = crawler.config().clone();
    let mut sink: Box<dyn DocumentSink + '_> = match &engine {
        Some(engine) => {
            let collection =
                CollectionConfig { name: config.collection.clone(), kind: CollectionKind::Source, keep_texts: false };
            Box::new(EngineSink::new(engine, collection, config.containment)?)
        }
        None => {
            let url = args.server.as_deref().unwrap_or_default();
            Box::new(ServerSink::new(url, args.token.clone(), &config.collection, config.containment)?)
        }
    };
    if args.verbose {
        crawler.log_outcomes(Box::new(|url, outcome| eprintln!("{} {url}", describe(outcome))));
    }
    if !quiet {
        let into =
            args.server.as_ref().map_or_else(|| args.dir.dir.display().to_string(), |u| format!("the server at {u}"));
        eprintln!(
            "crawling into collection {:?} of {into} ({added} new seeds, {revisits} re-visits, domains: {})",
            config.collection,
            config.allow_domains.join(", ")
        );
    }
    // On a terminal one line rewritten every second; otherwise (a log file) a line
    // every ten seconds.
    let terminal = std::io::stderr().is_terminal();
    let every = Duration::from_secs(if terminal { 1 } else { 10 });
    let mut last = Instant::now();
    let mut shown = false;
    let stats = crawler
        .run(sink.as_mut(), &mut |s| {
            if !quiet && last.elapsed() >= every {
                last = Instant::now();
                shown = true;
                if terminal {
                    eprint!("\r{}   ", progress_line(s));
                } else {
                    eprintln!("{}", progress_line(s));
                }
            }
        })
        .context("crawling")?;
    drop(sink);
    // The crawl ends with the segments the merge policy allows.
    let index = match &engine {
        Some(engine) => {
            let merges = engine.wait_for_merges();
            if let Some(e) = &merges.last_error {
                eprintln!("warning: a background merge failed: {e}");
            }
            let segments =
                engine.collections()?.iter().find(|c| c.config.name == config.collection).map_or(0, |c| c.segments);
            Some((segments, merges.stats.merges))
        }
        None => None,
    };
    if shown && terminal {
        eprintln!();
    }
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&summary_json(&stats, index))?),
        _ => {
            println!("{}", summary_text(&stats));
            if let Some((segments, merges)) = index {
                println!("segments {segments} (merges {merges})");
            }
        }
    }
    Ok(super::inputs_exit_code(stats.fetched, stats.failed))
}

fn describe(o: &Outcome) -> String {
    match o {
        Outcome::Added { doc } => format!("added doc {}", doc.0),
        Outcome::Attached { doc, containment } => format!("attached to doc {} ({:.1}%)", doc.0, containment * 100.0),
        Outcome::Rejected { reason } => format!("rejected {reason}"),
        Outcome::Redirect { to } => format!("redirect to {to}"),
        Outcome::Canonical { to } => format!("canonical {to}"),
        Outcome::Disallowed => "disallowed".into(),
        Outcome::NotModified => "not-modified".into(),
        Outcome::Skipped { reason } => format!("skipped ({reason})"),
        Outcome::Failed { error } => format!("failed ({error})"),
    }
}

fn rejected(s: &CrawlStats) -> String {
    if s.rejected.is_empty() {
        return "0".into();
    }
    let parts: Vec<String> = s.rejected.iter().map(|(k, v)| format!("{k} {v}")).collect();
    format!("{} ({})", s.rejected_total(), parts.join(", "))
}

fn progress_line(s: &CrawlStats) -> String {
    format!(
        "fetched {} added {} attached {} rejected {} errors {} ({:.1} pages/s)",
        s.fetched,
        s.added,
        s.attached,
        rejected(s),
        s.failed,
        s.pages_per_second()
    )
}

fn summary_text(s: &CrawlStats) -> String {
    format!(
        "fetched {} pages in {:.1} s ({:.1} pages/s, {:.1} MB)\nadded {}\nattached {}\nrejected {}\n\
         disallowed {}\nredirects {}\ncanonical {}\nnot modified {}\nskipped {}\nfailed {}\nqueued {}",
        s.fetched,
        s.seconds,
        s.pages_per_second(),
        s.bytes as f64 / 1e6,
        s.added,
        s.attached,
        rejected(s),
        s.disallowed,
        s.redirects,
        s.canonical,
        s.not_modified,
        s.skipped,
        s.failed,
        s.queued
    )
}

/// The JSON summary; `index` is the collection's segments and the background merges
/// once they are done (not known with --server).
fn summary_json(s: &CrawlStats, index: Option<(u64, u64)>) -> serde_json::Value {
    let mut v = serde_json::to_value(s).unwrap_or_default();
    if let Some(o) = v.as_object_mut() {
        o.insert("pages_per_second".into(), serde_json::json!(s.pages_per_second()));
        o.insert("segments".into(), serde_json::json!(index.map(|(segments, _)| segments)));
        o.insert("merges".into(), serde_json::json!(index.map(|(_, merges)| merges)));
    }
    v
}

fn list_attached(args: &CrawlArgs, state: &std::path::Path) -> Result<ExitCode> {
    let list = Crawler::attachments(state).context("reading the crawl state")?;
    if args.format == Format::Json {
        println!("{}", serde_json::to_string_pretty(&list)?);
    } else {
        for a in &list {
            println!("{}\t{}\t{:.4}", a.url, a.doc.0, a.containment);
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("1m"), Ok(Duration::from_secs(60)));
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("2h").is_err());
        assert!(parse_duration("-1s").is_err());
    }
}
