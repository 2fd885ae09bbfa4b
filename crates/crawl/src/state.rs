//! The crawl's state on disk: an append-only log of checksummed records, and a spool of
//! fetched documents waiting to be indexed.
//!
//! Layout of the state directory (`<index>/crawl/`):
//! - `log`: one record per line, `CCCCCCCC JSON\n`, where `CCCCCCCC` is the CRC-32 of
//!   the JSON bytes in lower-case hex. Records are only ever appended. On open, a last
//!   line that is incomplete or fails its checksum (a write torn by a crash) is cut
//!   off; a bad line before the last is corruption.
//! - `spool/<n>.json`: the extracted text of a fetched page not yet known to be in the
//!   index, written before the log record that names it. Once the record of its outcome
//!   is written, its number is free: a later page of the same run is written over it in
//!   place (a crash during that write tears a file no pending record names), and the run
//!   removes the free files when it ends. Reusing files instead of creating and removing
//!   one per page saves the file system's inode allocation, which was a tenth of a fast
//!   crawl's time.
//!
//! Replaying the log rebuilds the seen set (every `queued` URL), the frontier (queued,
//! neither fetched nor done), the pages to re-process from the spool (fetched, not
//! done) and every outcome.

use fs_err::{File, OpenOptions};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tessera_engine::{DocId, Extracted};

use crate::{CrawlConfig, Error, Result};

/// Version of the log's record set.
pub const STATE_VERSION: u32 = 1;

/// A URL waiting in the frontier.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QueuedUrl {
    /// Normalised URL.
    pub url: String,
    /// Links followed from a seed (seeds are 0).
    pub depth: u32,
    /// Higher first within a host.
    pub priority: i32,
    /// Redirects followed to reach it.
    pub hops: u32,
    /// On a re-visit: the `ETag` of the last visit, sent as `If-None-Match`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    /// On a re-visit: the `Last-Modified` of the last visit, sent as `If-Modified-Since`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// What became of a URL. Every fetched or refused URL gets exactly one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// Indexed as a new document.
    Added {
        /// The document.
        doc: DocId,
    },
    /// Not indexed: its shingle hashes are contained in an indexed document.
    Attached {
        /// The document that contains it.
        doc: DocId,
        /// Share of the page's distinct shingle hashes found in that document.
        containment: f64,
    },
    /// Rejected by the quality filter.
    Rejected {
        /// Why (`too_short`, `language`, `junk`, `boilerplate`).
        reason: String,
    },
    /// A redirect; the target was queued (or was already seen).
    Redirect {
        /// Normalised target.
        to: String,
    },
    /// The page names another URL as canonical, which is indexed instead.
    Canonical {
        /// Normalised canonical URL.
        to: String,
    },
    /// robots.txt disallows it.
    Disallowed,
    /// Unchanged since the last visit (HTTP 304).
    NotModified,
    /// Fetched but not indexed (content type, size, status, nothing to extract).
    Skipped {
        /// Why.
        reason: String,
    },
    /// Failed after retries.
    Failed {
        /// Why.
        error: String,
    },
}

/// HTTP facts of a fetch, kept for conditional requests on a later visit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FetchRecord {
    /// HTTP status.
    pub status: u16,
    /// `ETag` response header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    /// `Last-Modified` response header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
    /// `Content-Type` response header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// Body bytes.
    pub bytes: u64,
}

/// One line of the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "r", rename_all = "snake_case")]
pub enum Record {
    /// The crawl's settings (first record; a resume appends the settings it runs with).
    Config {
        /// Version of the record set.
        version: u32,
        /// Settings.
        config: Box<CrawlConfig>,
    },
    /// A URL entered the seen set and the frontier.
    Queued(QueuedUrl),
    /// A fetched URL re-entered the frontier for a re-visit (a conditional request).
    Revisit(QueuedUrl),
    /// A page was fetched and extracted; its text is in the spool, its outcome pending.
    Fetched {
        /// URL.
        url: String,
        /// HTTP facts.
        fetch: FetchRecord,
        /// Spool entry.
        spool: u64,
    },
    /// The final outcome of a URL.
    Done {
        /// URL.
        url: String,
        /// HTTP facts, when it was fetched.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fetch: Option<FetchRecord>,
        /// What became of it.
        outcome: Outcome,
    },
}

/// A spooled page: what indexing needs, saved before the page is marked fetched.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Spooled {
    /// The URL it is indexed under.
    pub url: String,
    /// Extracted text and title.
    pub extracted: Extracted,
}

/// The state rebuilt from the log.
#[derive(Debug, Default)]
pub struct Replayed {
    /// The settings of the last `config` record.
    pub config: Option<CrawlConfig>,
    /// Every URL ever queued.
    pub seen: HashSet<String>,
    /// Queued URLs neither fetched nor done, in queue order.
    pub frontier: Vec<QueuedUrl>,
    /// Fetched pages without an outcome: spool number by URL.
    pub pending: BTreeMap<String, (FetchRecord, u64)>,
    /// Outcome of every finished URL.
    pub done: BTreeMap<String, Outcome>,
    /// The next free spool number.
    pub next_spool: u64,
    /// Finished URLs last answered with HTTP 200, ready for a re-visit, in URL order.
    pub revisitable: Vec<QueuedUrl>,
}

/// The append-only log and spool of one crawl.
#[derive(Debug)]
pub struct CrawlState {
    dir: PathBuf,
    log: File,
    next_spool: u64,
    /// Spool numbers whose pages have their outcome logged: their files are written over.
    free: Vec<u64>,
}

impl CrawlState {
    /// The state directory of the crawl of an index.
    pub fn dir_of(index: &Path) -> PathBuf {
        index.join("crawl")
    }

    /// Whether a crawl state exists in `dir`.
    pub fn exists(dir: &Path) -> bool {
        dir.join("log").is_file()
    }

    /// Opens (creating if absent) the state in `dir`, replays its log, cuts a torn last
    /// record, and returns the state ready to append.
    pub fn open(dir: &Path) -> Result<(CrawlState, Replayed)> {
        let spool = dir.join("spool");
        fs_err::create_dir_all(&spool).map_err(|e| Error::io(&spool, e))?;
        let path = dir.join("log");
        let log = OpenOptions::new()
            .create(true)
            .append(false)
            .write(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        // One crawl at a time per state; the OS drops the lock when the process dies.
        log.file()
            .try_lock()
            .map_err(|_| Error::State(format!("{}: another crawl is running on this index", path.display())))?;
        let (replayed, good_len) = replay(&path)?;
        log.set_len(good_len).map_err(|e| Error::io(&path, e))?;
        let mut log = log;
        use std::io::Seek;
        log.seek(std::io::SeekFrom::End(0)).map_err(|e| Error::io(&path, e))?;
        let next_spool = replayed.next_spool;
        Ok((CrawlState { dir: dir.to_path_buf(), log, next_spool, free: Vec::new() }, replayed))
    }

    /// Replays the log without locking or repairing it (to list outcomes while a crawl
    /// may be running): a torn or half-written last line is ignored.
    pub fn read(dir: &Path) -> Result<Replayed> {
        let path = dir.join("log");
        if !path.is_file() {
            return Ok(Replayed::default());
        }
        Ok(replay(&path)?.0)
    }

    /// Appends records with one write (so a crash tears at most the last line).
    pub fn append(&mut self, records: &[Record]) -> Result<()> {
        if records.is_empty() {
            return Ok(());
        }
        let mut buf = Vec::new();
        for r in records {
            let json = serde_json::to_vec(r).map_err(|e| Error::State(format!("cannot encode a record: {e}")))?;
            buf.extend_from_slice(format!("{:08x} ", crc32fast::hash(&json)).as_bytes());
            buf.extend_from_slice(&json);
            buf.push(b'\n');
        }
        let path = self.dir.join("log");
        self.log.write_all(&buf).map_err(|e| Error::io(&path, e))
    }

    /// Makes appended records durable against power loss (a killed process loses
    /// nothing written: the kernel holds it).
    pub fn sync(&mut self) -> Result<()> {
        self.log.sync_data().map_err(|e| Error::io(self.dir.join("log"), e))
    }

    /// Saves a page to the spool and returns its number (a free one when there is one).
    /// Call before appending the record that names the number: until then a torn write
    /// is never read.
    pub fn spool(&mut self, page: &Spooled) -> Result<u64> {
        let json = serde_json::to_vec(page).map_err(|e| Error::State(format!("cannot encode a page: {e}")))?;
        let n = self.free.pop().unwrap_or_else(|| {
            self.next_spool += 1;
            self.next_spool - 1
        });
        let path = self.spool_path(n);
        fs_err::write(&path, json).map_err(|e| Error::io(&path, e))?;
        Ok(n)
    }

    /// Reads the spooled page of `url`.
    pub fn read_spool(&self, n: u64, url: &str) -> Result<Spooled> {
        let path = self.spool_path(n);
        let bytes = fs_err::read(&path).map_err(|e| Error::io(&path, e))?;
        let page: Spooled =
            serde_json::from_slice(&bytes).map_err(|e| Error::Corrupt { file: path.clone(), reason: e.to_string() })?;
        if page.url != url {
            return Err(Error::Corrupt {
                file: path,
                reason: format!("holds the page of {}, not of {url}, which the log names it for", page.url),
            });
        }
        Ok(page)
    }

    /// Frees the spool number of a page whose outcome is logged (its file is written over
    /// by a later page, or removed by [`release_spool`](Self::release_spool)).
    pub fn unspool(&mut self, n: u64) {
        if self.free.len() < MAX_FREE_SPOOL {
            self.free.push(n);
        } else {
            // A leftover file is harmless: replay never reads a spool entry that has an
            // outcome.
            let _ = fs_err::remove_file(self.spool_path(n));
        }
    }

    /// Removes the files of the free spool numbers (at the end of a run).
    pub fn release_spool(&mut self) {
        for n in std::mem::take(&mut self.free) {
            let _ = fs_err::remove_file(self.spool_path(n));
        }
    }

    fn spool_path(&self, n: u64) -> PathBuf {
        self.dir.join("spool").join(format!("{n}.json"))
    }
}

/// Free spool files kept for reuse at most (more than the pages in flight of a crawl:
/// a batch and the fetches beside it).
const MAX_FREE_SPOOL: usize = 4096;

/// Reads the log; returns the state and the byte length of its valid prefix.
fn replay(path: &Path) -> Result<(Replayed, u64)> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut reader = BufReader::new(file);
    let mut out = Replayed::default();
    let mut queue: HashMap<String, (u64, QueuedUrl)> = HashMap::new();
    let mut depths: HashMap<String, u32> = HashMap::new();
    let mut last_fetch: HashMap<String, FetchRecord> = HashMap::new();
    let mut order = 0u64;
    let mut good = 0u64;
    let mut line = Vec::new();
    let mut torn: Option<String> = None;
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).map_err(|e| Error::io(path, e))?;
        if n == 0 {
            break;
        }
        if let Some(reason) = torn.take() {
            // A bad record followed by more records is not a torn tail.
            return Err(Error::Corrupt { file: path.to_path_buf(), reason });
        }
        let record = match parse_line(&line) {
            Ok(r) => r,
            Err(reason) => {
                torn = Some(format!("record at byte {good}: {reason}"));
                continue;
            }
        };
        good += n as u64;
        match record {
            Record::Config { config, .. } => out.config = Some(*config),
            Record::Queued(q) => {
                if out.seen.insert(q.url.clone()) {
                    order += 1;
                    depths.insert(q.url.clone(), q.depth);
                    queue.insert(q.url.clone(), (order, q));
                }
            }
            Record::Revisit(q) => {
                order += 1;
                queue.insert(q.url.clone(), (order, q));
            }
            Record::Fetched { url, fetch, spool } => {
                queue.remove(&url);
                last_fetch.insert(url.clone(), fetch.clone());
                // The last number is refused: the next one would not exist.
                let next = spool.checked_add(1).ok_or_else(|| Error::Corrupt {
                    file: path.to_path_buf(),
                    reason: format!("record at byte {}: spool number {spool} out of range", good - n as u64),
                })?;
                out.next_spool = out.next_spool.max(next);
                out.pending.insert(url, (fetch, spool));
            }
            Record::Done { url, outcome, fetch } => {
                queue.remove(&url);
                if let Some(f) = fetch
                    && f.status != 304
                {
                    last_fetch.insert(url.clone(), f);
                }
                out.pending.remove(&url);
                out.done.insert(url, outcome);
            }
        }
    }
    for (url, outcome) in &out.done {
        let Some(f) = last_fetch.get(url).filter(|f| f.status == 200) else { continue };
        if queue.contains_key(url) || matches!(outcome, Outcome::Failed { .. } | Outcome::Disallowed) {
            continue;
        }
        let depth = depths.get(url).copied().unwrap_or(0);
        out.revisitable.push(QueuedUrl {
            url: url.clone(),
            depth,
            priority: 0i32.saturating_sub_unsigned(depth),
            hops: 0,
            etag: f.etag.clone(),
            last_modified: f.last_modified.clone(),
        });
    }
    let mut frontier: Vec<(u64, QueuedUrl)> = queue.into_values().collect();
    frontier.sort_by_key(|(o, _)| *o);
    out.frontier = frontier.into_iter().map(|(_, q)| q).collect();
    Ok((out, good))
}

fn parse_line(line: &[u8]) -> std::result::Result<Record, String> {
    let line = line.strip_suffix(b"\n").ok_or("no end of line")?;
    if line.len() < 10 || line[8] != b' ' {
        return Err("no checksum".into());
    }
    let crc = std::str::from_utf8(&line[..8])
        .ok()
        .and_then(|h| u32::from_str_radix(h, 16).ok())
        .ok_or("bad checksum field")?;
    let json = &line[9..];
    if crc32fast::hash(json) != crc {
        return Err("checksum mismatch".into());
    }
    serde_json::from_slice(json).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(url: &str) -> Record {
        Record::Queued(QueuedUrl { url: url.into(), ..QueuedUrl::default() })
    }

    #[test]
    fn replay_rebuilds_frontier_pending_and_outcomes() {
        let dir = tempfile::tempdir().unwrap();
        {
            let (mut s, r) = CrawlState::open(dir.path()).unwrap();
            assert!(r.seen.is_empty());
            let n = s
                .spool(&Spooled { url: "http://a/2".into(), extracted: Extracted::from_text("t".into(), None) })
                .unwrap();
            s.append(&[q("http://a/1"), q("http://a/2"), q("http://a/3"), q("http://a/1")]).unwrap();
            s.append(&[Record::Done { url: "http://a/1".into(), fetch: None, outcome: Outcome::Disallowed }]).unwrap();
            s.append(&[Record::Fetched { url: "http://a/2".into(), fetch: FetchRecord::default(), spool: n }]).unwrap();
        }
        let (s, r) = CrawlState::open(dir.path()).unwrap();
        assert_eq!(r.seen.len(), 3);
        assert_eq!(r.frontier.iter().map(|q| q.url.as_str()).collect::<Vec<_>>(), ["http://a/3"]);
        assert_eq!(r.pending.keys().collect::<Vec<_>>(), ["http://a/2"]);
        assert_eq!(r.done.get("http://a/1"), Some(&Outcome::Disallowed));
        assert_eq!(s.read_spool(r.pending["http://a/2"].1, "http://a/2").unwrap().extracted.text, "t");
        assert_eq!(r.next_spool, 1);
    }

    /// A freed spool number is written over by the next page; replay reads the page the
    /// log names the number for, refuses a file holding another URL's page, and a run's
    /// end removes the free files only.
    #[test]
    fn spool_numbers_are_reused_after_their_outcome() {
        let dir = tempfile::tempdir().unwrap();
        let page =
            |url: &str, text: &str| Spooled { url: url.into(), extracted: Extracted::from_text(text.into(), None) };
        let fetched = |url: &str, n| Record::Fetched { url: url.into(), fetch: FetchRecord::default(), spool: n };
        let added =
            |url: &str| Record::Done { url: url.into(), fetch: None, outcome: Outcome::Added { doc: DocId(1) } };
        let (first, second, third);
        {
            let (mut s, _) = CrawlState::open(dir.path()).unwrap();
            s.append(&[q("http://a/1"), q("http://a/2"), q("http://a/3")]).unwrap();
            first = s.spool(&page("http://a/1", "one")).unwrap();
            s.append(&[fetched("http://a/1", first)]).unwrap();
            second = s.spool(&page("http://a/2", "two")).unwrap();
            s.append(&[fetched("http://a/2", second)]).unwrap();
            assert_ne!(first, second);
            s.append(&[added("http://a/1")]).unwrap();
            s.unspool(first);
            third = s.spool(&page("http://a/3", "three")).unwrap();
            assert_eq!(third, first, "the freed number is reused");
            s.append(&[fetched("http://a/3", third)]).unwrap();
            // Killed here: pages 2 and 3 are pending.
        }
        let (mut s, r) = CrawlState::open(dir.path()).unwrap();
        assert_eq!(r.pending.keys().collect::<Vec<_>>(), ["http://a/2", "http://a/3"]);
        assert_eq!(s.read_spool(r.pending["http://a/3"].1, "http://a/3").unwrap().extracted.text, "three");
        assert_eq!(s.read_spool(r.pending["http://a/2"].1, "http://a/2").unwrap().extracted.text, "two");
        let err = s.read_spool(third, "http://a/1").unwrap_err();
        assert!(matches!(&err, Error::Corrupt { reason, .. } if reason.contains("http://a/3")), "{err}");
        assert_eq!(r.next_spool, 2);
        s.append(&[added("http://a/2")]).unwrap();
        s.unspool(second);
        s.release_spool();
        assert!(!s.spool_path(second).exists());
        assert!(s.spool_path(third).exists(), "a pending page's file stays");
    }

    #[test]
    fn torn_tail_is_cut_and_appending_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        {
            let (mut s, _) = CrawlState::open(dir.path()).unwrap();
            s.append(&[q("http://a/1"), q("http://a/2")]).unwrap();
        }
        let log = dir.path().join("log");
        let mut bytes = std::fs::read(&log).unwrap();
        let full = bytes.len();
        bytes.extend_from_slice(b"0000abcd {\"r\":\"queued\",\"url\":\"http://a/");
        std::fs::write(&log, &bytes).unwrap();
        {
            let (mut s, r) = CrawlState::open(dir.path()).unwrap();
            assert_eq!(r.frontier.len(), 2);
            assert_eq!(std::fs::metadata(&log).unwrap().len(), full as u64);
            s.append(&[q("http://a/3")]).unwrap();
        }
        let (_, r) = CrawlState::open(dir.path()).unwrap();
        assert_eq!(r.frontier.len(), 3);
    }

    fn checksummed(json: &str) -> String {
        format!("{:08x} {json}\n", crc32fast::hash(json.as_bytes()))
    }

    /// A log whose checksums are right but whose numbers are at their limits: a spool
    /// number of `u64::MAX` (the next one overflowed) is a typed error; a depth above
    /// `i32::MAX` (its negation as a priority overflowed) gives the lowest priority.
    #[test]
    fn numbers_at_their_limits_do_not_overflow() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log");
        let fetched =
            format!(r#"{{"r":"fetched","url":"http://a/","fetch":{{"status":200,"bytes":1}},"spool":{}}}"#, u64::MAX);
        std::fs::write(&log, checksummed(&fetched)).unwrap();
        let err = CrawlState::read(dir.path()).unwrap_err();
        assert!(matches!(&err, Error::Corrupt { reason, .. } if reason.contains("spool number")), "{err}");

        let deep = format!(r#"{{"r":"queued","url":"http://a/","depth":{},"priority":0,"hops":0}}"#, u32::MAX);
        let done =
            r#"{"r":"done","url":"http://a/","fetch":{"status":200,"bytes":1},"outcome":{"kind":"added","doc":1}}"#;
        std::fs::write(&log, checksummed(&deep) + &checksummed(done)).unwrap();
        let r = CrawlState::read(dir.path()).unwrap();
        assert_eq!(r.revisitable.len(), 1);
        assert_eq!(r.revisitable[0].priority, i32::MIN);
    }

    #[test]
    fn one_crawl_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let (mut s, _) = CrawlState::open(dir.path()).unwrap();
        s.append(&[q("http://a/1")]).unwrap();
        assert!(matches!(CrawlState::open(dir.path()), Err(Error::State(_))));
        assert_eq!(CrawlState::read(dir.path()).unwrap().frontier.len(), 1);
        drop(s);
        assert!(CrawlState::open(dir.path()).is_ok());
    }

    #[test]
    fn a_bad_record_in_the_middle_is_corruption() {
        let dir = tempfile::tempdir().unwrap();
        {
            let (mut s, _) = CrawlState::open(dir.path()).unwrap();
            s.append(&[q("http://a/1"), q("http://a/2")]).unwrap();
        }
        let log = dir.path().join("log");
        let mut bytes = std::fs::read(&log).unwrap();
        bytes[12] ^= 0x20;
        std::fs::write(&log, &bytes).unwrap();
        assert!(matches!(CrawlState::open(dir.path()), Err(Error::Corrupt { .. })));
    }
}
