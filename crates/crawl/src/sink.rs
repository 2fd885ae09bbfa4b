//! Add only if new: where crawled pages go, and the containment test.
//!
//! Two sinks: [`EngineSink`] writes the index itself (the crawler is the index's writer),
//! [`ServerSink`] hands pages to a running `tessera serve` over its documents API (the
//! server is the writer; the crawler keeps only its own log).

use std::time::Duration;

use tessera_engine::wire::{AddDocuments, AddedDocuments, ErrorBody, NewText};
use tessera_engine::{AddMode, AddOutcome, AddSession, CollectionConfig, DocId, Engine, Extracted};

use crate::{Error, Result};

/// What became of a page once its sink committed it.
#[derive(Debug, Clone, PartialEq)]
pub enum Committed {
    /// Indexed as this document (or found indexed under its own URL already, as when a
    /// page is offered again after a crash).
    Added(DocId),
    /// Not indexed: at least the threshold share of its distinct shingle hashes is in
    /// this indexed document, and the page's URL is attached to it.
    Attached {
        /// The document that contains the page.
        to: DocId,
        /// Share of the page's distinct shingle hashes found in `to` (0..=1).
        containment: f64,
    },
}

/// Where crawled pages go. The crawler offers each page that passed the quality filter,
/// commits every `batch` pages, and logs what the sink reports a page became only once
/// the commit made it durable (until then the page stays in the crawl's spool, and a
/// crash offers it again). An implementation decides what "new" means.
pub trait DocumentSink {
    /// Offers a page found at `url`; what became of it is reported by a later
    /// [`commit`](Self::commit).
    fn offer(&mut self, url: &str, extracted: Extracted) -> Result<()>;

    /// Offers pages in order, as [`offer`](Self::offer) one at a time would; a sink may
    /// do the work of several at once (the engine's sink fingerprints and looks them up
    /// in parallel).
    fn offer_all(&mut self, pages: Vec<(String, Extracted)>) -> Result<()> {
        for (url, extracted) in pages {
            self.offer(&url, extracted)?;
        }
        Ok(())
    }

    /// Makes every page offered so far durable and returns each page offered since the
    /// last call with what became of it.
    fn commit(&mut self) -> Result<Vec<(String, Committed)>>;

    /// Pages offered and not yet returned by [`commit`](Self::commit).
    fn pending(&self) -> usize;
}

/// The engine-backed sink: the engine's one add path under the add-only-if-new rule
/// ([`AddMode::IfNew`]): a page whose distinct shingle hashes are at least `threshold`
/// contained in one document of the collection (committed, or accepted earlier in this
/// batch) is attached to it, not added. Attachments are written with the batch's
/// commit, not one commit each. A page offered again after a crash (already indexed
/// under its own URL) is reported as added.
pub struct EngineSink<'e> {
    engine: &'e Engine,
    session: AddSession<'e>,
    /// Pages attached or found indexed already since the last commit.
    settled: Vec<(String, Committed)>,
}

impl std::fmt::Debug for EngineSink<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineSink").field("session", &self.session).field("settled", &self.settled.len()).finish()
    }
}

impl<'e> EngineSink<'e> {
    /// A sink adding to `collection` of `engine`, attaching pages contained at least
    /// `threshold` (e.g. [`tessera_engine::DEFAULT_MIN_CONTAINMENT`]) in an indexed
    /// document.
    pub fn new(engine: &'e Engine, collection: CollectionConfig, threshold: f64) -> Result<Self> {
        let session = engine.add_session(&collection, AddMode::if_new(Some(threshold))?)?;
        Ok(Self { engine, session, settled: Vec::new() })
    }
}

impl DocumentSink for EngineSink<'_> {
    fn offer(&mut self, url: &str, extracted: Extracted) -> Result<()> {
        self.offer_all(vec![(url.to_owned(), extracted)])
    }

    fn offer_all(&mut self, pages: Vec<(String, Extracted)>) -> Result<()> {
        let docs = self.engine.prepare_all(pages);
        for (doc, outcome) in docs.iter().zip(self.session.add_all(&docs)?) {
            let url = doc.origin.clone();
            match outcome {
                AddOutcome::Added { .. } => {} // returned by the session's commit
                AddOutcome::Seen { into, containment } => {
                    self.settled.push((url, Committed::Attached { to: into, containment }));
                }
                AddOutcome::AlreadyIndexed { doc, .. } => self.settled.push((url, Committed::Added(doc))),
            }
        }
        Ok(())
    }

    fn commit(&mut self) -> Result<Vec<(String, Committed)>> {
        let mut out: Vec<(String, Committed)> =
            self.session.commit()?.into_iter().map(|(url, doc)| (url, Committed::Added(doc))).collect();
        out.append(&mut self.settled);
        Ok(out)
    }

    fn pending(&self) -> usize {
        self.session.pending() + self.settled.len()
    }
}

/// Text bytes a [`ServerSink`] sends in one request at most: a batch of large pages goes
/// in several requests.
const SERVER_BATCH_BYTES: usize = 16 << 20;

/// Hands pages to a running `tessera serve` (`POST /api/documents` with `if_new`): the
/// server, the index's one writer, applies the add-only-if-new rule and answers once the
/// pages are committed. The crawler keeps its own state (frontier, log, spool) and logs a
/// page only after the server's answer, so a crash of either loses no page.
pub struct ServerSink {
    endpoint: String,
    token: Option<String>,
    collection: String,
    threshold: f64,
    agent: ureq::Agent,
    batch: Vec<NewText>,
    batch_bytes: usize,
    /// Pages answered by requests made before the crawler's commit.
    answered: Vec<(String, Committed)>,
}

impl std::fmt::Debug for ServerSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerSink").field("endpoint", &self.endpoint).field("batch", &self.batch.len()).finish()
    }
}

impl ServerSink {
    /// A sink posting to the server at `base` (e.g. `http://127.0.0.1:8080`), into
    /// `collection` (a source collection, created if missing, without texts), attaching
    /// pages contained at least `threshold` in an indexed document. `token` is the
    /// server's bearer token, when it has one.
    pub fn new(base: &str, token: Option<String>, collection: &str, threshold: f64) -> Result<Self> {
        AddMode::if_new(Some(threshold))?;
        let base = base.trim_end_matches('/');
        if !base.starts_with("http://") {
            return Err(Error::Config(format!(
                "server URL {base:?}: give http://HOST:PORT (the crawler speaks plain HTTP to the server)"
            )));
        }
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(600)))
            .http_status_as_error(false)
            .build()
            .new_agent();
        Ok(Self {
            endpoint: format!("{base}/api/documents"),
            token,
            collection: collection.to_owned(),
            threshold,
            agent,
            batch: Vec::new(),
            batch_bytes: 0,
            answered: Vec::new(),
        })
    }

    /// Sends the batch; its pages' fates go to `answered`.
    fn send(&mut self) -> Result<()> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let mut body = AddDocuments::new(self.collection.clone());
        body.if_new = true;
        body.if_new_threshold = Some(self.threshold);
        // Pages keep their fingerprints only (web scale), as `tessera crawl` into an index.
        body.keep_texts = Some(false);
        body.documents = std::mem::take(&mut self.batch);
        self.batch_bytes = 0;
        let origins: Vec<String> = body.documents.iter().map(|d| d.origin.clone()).collect();
        let fail = |what: String| Error::Server(format!("{}: {what}", self.endpoint));
        let mut request = self.agent.post(&self.endpoint);
        if let Some(token) = &self.token {
            request = request.header("Authorization", &format!("Bearer {token}"));
        }
        let mut response = request.send_json(&body).map_err(|e| fail(e.to_string()))?;
        let status = response.status();
        let unreadable = |e: ureq::Error| fail(format!("HTTP {status}, unreadable answer: {e}"));
        if !status.is_success() {
            let ErrorBody { error } = response.body_mut().read_json().map_err(unreadable)?;
            return Err(fail(format!("HTTP {status} {}: {}", error.code, error.message)));
        }
        let answer: AddedDocuments = response.body_mut().read_json().map_err(unreadable)?;
        let mut fates: std::collections::HashMap<String, Committed> = std::collections::HashMap::new();
        for a in answer.added {
            fates.insert(a.origin, Committed::Added(DocId(a.id)));
        }
        for s in answer.skipped {
            let to = DocId(s.duplicate_of);
            let fate = if s.same_origin {
                Committed::Added(to)
            } else {
                Committed::Attached { to, containment: s.containment }
            };
            fates.insert(s.origin, fate);
        }
        for origin in origins {
            let fate = fates.remove(&origin).ok_or_else(|| fail(format!("the answer does not mention {origin}")))?;
            self.answered.push((origin, fate));
        }
        Ok(())
    }
}

impl DocumentSink for ServerSink {
    fn offer(&mut self, url: &str, extracted: Extracted) -> Result<()> {
        self.batch_bytes += extracted.text.len();
        self.batch.push(NewText {
            text: extracted.text,
            title: extracted.title.unwrap_or_default(),
            origin: url.to_owned(),
        });
        if self.batch_bytes >= SERVER_BATCH_BYTES {
            self.send()?;
        }
        Ok(())
    }

    fn commit(&mut self) -> Result<Vec<(String, Committed)>> {
        self.send()?;
        Ok(std::mem::take(&mut self.answered))
    }

    fn pending(&self) -> usize {
        self.batch.len() + self.answered.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use tessera_engine::{CollectionKind, EngineOptions, FingerprintSettings};

    fn words(seed: u64, n: usize) -> String {
        tessera_test_support::words::text(seed, n, 3, 6)
    }

    #[test]
    fn pages_the_session_committed_by_itself_stay_pending_until_returned() {
        // The engine commits every 2 documents by itself; the crawler commits (and logs the
        // pages' outcomes, and frees their spool files) when the sink's pending count
        // reaches its batch, so that count must include them.
        let dir = tempfile::tempdir().unwrap();
        let options = EngineOptions { batch_size: 2, ..EngineOptions::default() };
        let engine = Engine::open_or_create(dir.path(), &FingerprintSettings::default(), options).unwrap();
        let coll = CollectionConfig { name: "web".into(), kind: CollectionKind::Source, keep_texts: false };
        let mut sink = EngineSink::new(&engine, coll, 0.9).unwrap();
        for i in 0..5u64 {
            sink.offer(&format!("http://h/{i}"), Extracted::from_text(words(10 + i, 300), None)).unwrap();
        }
        assert_eq!(sink.pending(), 5);
        assert_eq!(sink.commit().unwrap().len(), 5);
        assert_eq!(sink.pending(), 0);
    }

    #[test]
    fn duplicates_attach_within_and_across_batches() {
        let dir = tempfile::tempdir().unwrap();
        let engine =
            Engine::open_or_create(dir.path(), &FingerprintSettings::default(), EngineOptions::default()).unwrap();
        let coll = CollectionConfig { name: "web".into(), kind: CollectionKind::Source, keep_texts: false };
        let mut sink = EngineSink::new(&engine, coll, 0.9).unwrap();
        let a = words(1, 300);
        let b = words(2, 300);
        sink.offer("http://h/a", Extracted::from_text(a.clone(), None)).unwrap();
        sink.offer("http://h/b", Extracted::from_text(b.clone(), None)).unwrap();
        // The same text under another URL, in the same batch: attached to the document of
        // the batch, reported by the commit that makes both durable.
        sink.offer("http://h/a2", Extracted::from_text(a.clone(), None)).unwrap();
        assert_eq!(sink.pending(), 3);
        let committed: BTreeMap<String, Committed> = sink.commit().unwrap().into_iter().collect();
        assert_eq!(sink.pending(), 0);
        let Committed::Added(a_doc) = committed["http://h/a"] else { panic!("a is new") };
        let Committed::Added(b_doc) = committed["http://h/b"] else { panic!("b is new") };
        let Committed::Attached { to, containment } = committed["http://h/a2"] else { panic!("a2 must attach") };
        assert_eq!(to, a_doc);
        assert!((containment - 1.0).abs() < 1e-9);
        // A page contained in `b` (its first 95%) attaches across batches.
        let part: Vec<&str> = b.split(' ').collect();
        let near = part[..285].join(" ");
        sink.offer("http://h/b-part", Extracted::from_text(near, None)).unwrap();
        // Half of `a` and half of something new: not contained, added.
        let mixed = format!("{} {}", &a[..a.len() / 2], words(3, 150));
        sink.offer("http://h/mixed", Extracted::from_text(mixed, None)).unwrap();
        // Re-offered after a crash: the page is already indexed under its own URL.
        sink.offer("http://h/b", Extracted::from_text(b, None)).unwrap();
        // Not durable yet: the index does not list the attachment before the commit.
        assert_eq!(engine.view().unwrap().seen_at(b_doc).unwrap(), ["http://h/b"]);
        let second: BTreeMap<String, Committed> = sink.commit().unwrap().into_iter().collect();
        assert_eq!(second.len(), 3);
        assert!(
            matches!(second["http://h/b-part"], Committed::Attached { to, containment } if to == b_doc && containment >= 0.9)
        );
        assert!(matches!(second["http://h/mixed"], Committed::Added(_)));
        assert_eq!(second["http://h/b"], Committed::Added(b_doc));
        // Every attached URL is in the index's "seen at" list of its document.
        let reader = engine.view().unwrap();
        assert_eq!(reader.seen_at(to).unwrap(), ["http://h/a", "http://h/a2"]);
        assert_eq!(reader.seen_at(b_doc).unwrap(), ["http://h/b", "http://h/b-part"]);
    }
}
