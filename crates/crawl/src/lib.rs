//! Tessera's crawler: indexes the web politely, adding only what is new.
//!
//! What it owns: fetching the web politely (robots.txt, per-host delays, redirects,
//! retries), the frontier and the crawl's resumable state, and handing pages to a
//! `DocumentSink`. It must never decide what is new or store documents itself: the add-
//! only-if-new rule and the index are the engine's (`AddSession`, or a running server
//! through the core's wire types).
//!
//! A [`Crawler`] keeps a frontier of URLs per host on disk (an append-only checksummed
//! log, see `docs/design.md`), fetches many hosts at once but each host one request at
//! a time with a delay (robots.txt obeyed, `Crawl-delay` honoured), extracts each page
//! with `tessera-extract`, filters rubbish ([`QualityConfig`]), and offers the rest to a
//! [`DocumentSink`]. The engine-backed [`EngineSink`] adds a page only if no indexed
//! document already contains 90% (configurable) of its shingle hashes; otherwise the
//! page's URL is attached to that document. Nothing is ever deleted.
//!
//! ```no_run
//! use tessera_crawl::{CrawlConfig, Crawler, EngineSink};
//! use tessera_engine::{CollectionConfig, CollectionKind, Engine, EngineOptions, FingerprintSettings};
//! # fn main() -> tessera_crawl::Result<()> {
//! let engine = Engine::open_or_create("lib".as_ref(), &FingerprintSettings::default(), EngineOptions::default())?;
//! let config = CrawlConfig { collection: "web".into(), ..CrawlConfig::default() };
//! let coll = CollectionConfig { name: "web".into(), kind: CollectionKind::Source, keep_texts: false };
//! let mut sink = EngineSink::new(&engine, coll, config.containment)?;
//! let mut crawler = Crawler::create(&tessera_crawl::state_dir("lib".as_ref()), config)?;
//! crawler.add_seeds(["https://example.org/"])?;
//! let stats = crawler.run(&mut sink, &mut |_| {})?;
//! println!("{} added, {} attached", stats.added, stats.attached);
//! # Ok(()) }
//! ```
//!
//! Use it to grow a web collection; for files on disk use `Engine::add_paths`.
#![deny(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod config;
mod crawler;
mod error;
mod fetch;
mod quality;
mod sink;
mod state;
mod urls;

pub use config::CrawlConfig;
pub use crawler::{Attachment, CrawlStats, Crawler, OutcomeLog};
pub use error::{Error, Result};
pub use fetch::links;
pub use quality::{QualityConfig, Rejection};
pub use sink::{Committed, DocumentSink, EngineSink, ServerSink};
pub use state::{FetchRecord, Outcome, QueuedUrl, Record, STATE_VERSION};
pub use urls::{DEFAULT_TRACKING_PARAMS, UrlNormalizer, host_key, in_domain};

/// The crawl state directory of an index (`<index>/crawl`).
pub fn state_dir(index: &std::path::Path) -> std::path::PathBuf {
    state::CrawlState::dir_of(index)
}
