//! [`ShardedView`]: the shards of one index seen as that index, for one check.
//!
//! Each look-up goes to every shard at once (a thread per shard) and the answers are
//! merged by the index's own rule: a key is left out when the shards' documents holding
//! it pass the limit together, as one index counts them across its segments; documents
//! are fetched from the shard that owns their id ([`tessera_core::shard_of`]) and kept
//! for the rest of the check. What the search then sees is what one index holding the
//! same documents would show it, so the revisions and the report are the same.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tessera_core::{CollectionConfig, DocId, shard_of};
use tessera_index::{CollectionInfo, DocMeta, Snapshot};
use tessera_search::Sources;

use super::ShardSet;
use super::wire::{Answer, Document, Hits, Request, ShardInfo};
use crate::{Error, Result};

/// The shards of one index, as one check sees them.
pub(crate) struct ShardedView {
    set: Arc<dyn ShardSet>,
    /// The collections, their statistics summed over the shards, sorted by name; with
    /// their committed documents.
    collections: Vec<(CollectionInfo, u64)>,
    /// Documents fetched so far (metadata, places, snapshot and text once asked for).
    documents: Mutex<HashMap<DocId, Fetched>>,
    /// Lengths in characters learnt from term look-ups.
    lengths: Mutex<HashMap<DocId, u64>>,
}

impl std::fmt::Debug for ShardedView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShardedView").field("shards", &self.set.shards()).finish_non_exhaustive()
    }
}

/// A document fetched from its shard.
#[derive(Debug, Clone)]
struct Fetched {
    meta: DocMeta,
    seen_at: Vec<String>,
    deleted: bool,
    snapshot: Option<Arc<Snapshot>>,
    /// `Some` once asked for: the kept text or none.
    text: Option<Option<String>>,
}

impl ShardedView {
    /// Asks every shard for its settings and collections: they must have the same
    /// fingerprint `settings` (JSON, as stored) and the same collections' settings.
    pub(crate) fn open(set: Arc<dyn ShardSet>, settings: &crate::FingerprintSettings) -> Result<Self> {
        let settings = serde_json::to_value(settings).map_err(|e| Error::Settings(e.to_string()))?;
        let shards = set.shards();
        if shards == 0 {
            return Err(Error::Shards("no shards".to_owned()));
        }
        let infos = fan_out(&*set, &Request::Info)?;
        let mut collections: Vec<(CollectionInfo, u64)> = Vec::new();
        for (shard, answer) in infos.into_iter().enumerate() {
            let Answer::Info(ShardInfo { settings: theirs, collections: held, .. }) = answer else {
                return Err(unexpected(&*set, shard));
            };
            let theirs = serde_json::from_str::<crate::FingerprintSettings>(&theirs)
                .and_then(|s| serde_json::to_value(&s))
                .map_err(|e| Error::Shards(format!("shard {shard}'s settings are unreadable: {e}")))?;
            if theirs != settings {
                return Err(Error::Shards(format!("shard {shard} was built with other fingerprint settings")));
            }
            for c in held {
                match collections.iter_mut().find(|(info, _)| info.config.name == c.info.config.name) {
                    Some((info, _)) if info.config != c.info.config => {
                        return Err(Error::Shards(format!(
                            "collection {:?} has other settings in shard {shard}",
                            c.info.config.name
                        )));
                    }
                    Some((info, count)) => {
                        info.add(&c.info);
                        *count += c.doc_count;
                    }
                    None => collections.push((c.info, c.doc_count)),
                }
            }
        }
        collections.sort_by(|a, b| a.0.config.name.cmp(&b.0.config.name));
        Ok(Self { set, collections, documents: Mutex::default(), lengths: Mutex::default() })
    }

    /// How many shards.
    pub(crate) fn shards(&self) -> usize {
        self.set.shards()
    }

    /// The collections with their statistics summed over the shards, sorted by name.
    pub(crate) fn collections(&self) -> Vec<CollectionInfo> {
        self.collections.iter().map(|(info, _)| info.clone()).collect()
    }

    /// Collection `name`, as a search reads it.
    pub(crate) fn sources(&self, name: &str) -> Result<ShardSources<'_>> {
        let (info, doc_count) = self
            .collections
            .iter()
            .find(|(info, _)| info.config.name == name)
            .ok_or_else(|| Error::UnknownCollection(name.to_owned()))?;
        Ok(ShardSources { view: self, config: info.config.clone(), doc_count: *doc_count })
    }

    /// A document's metadata.
    pub(crate) fn meta(&self, doc: DocId) -> Result<DocMeta> {
        Ok(self.fetched(doc, false, false)?.meta)
    }

    /// Whether a document exists and is not deleted.
    pub(crate) fn is_live(&self, doc: DocId) -> bool {
        self.fetched(doc, false, false).is_ok_and(|d| !d.deleted)
    }

    /// Every place a document was seen at, its origin first.
    pub(crate) fn seen_at(&self, doc: DocId) -> Result<Vec<String>> {
        Ok(self.fetched(doc, false, false)?.seen_at)
    }

    /// A document's kept text.
    pub(crate) fn text(&self, doc: DocId) -> Result<Option<String>> {
        Ok(self.fetched(doc, false, true)?.text.flatten())
    }

    /// Fetches `docs` (with their kept texts when `texts`) from their shards at once.
    pub(crate) fn prefetch(&self, docs: &[DocId], texts: bool) -> Result<()> {
        self.fetch(docs, false, texts)
    }

    /// Which of the hashes asked of each document it holds (the search's
    /// [`Sources::holds_hashes`]), each shard answering for its own documents, at once.
    fn holds_hashes(&self, asked: &[(DocId, Vec<u64>)]) -> Result<Vec<Vec<bool>>> {
        let shards = self.set.shards();
        let mut per_shard: Vec<Vec<(u64, Vec<u64>)>> = vec![Vec::new(); shards];
        let mut order: Vec<Vec<usize>> = vec![Vec::new(); shards];
        for (at, (doc, hashes)) in asked.iter().enumerate() {
            let shard = shard_of(*doc, shards);
            per_shard[shard].push((doc.0, hashes.clone()));
            order[shard].push(at);
        }
        let requests: Vec<(usize, Request)> = per_shard
            .into_iter()
            .enumerate()
            .filter(|(_, a)| !a.is_empty())
            .map(|(shard, asked)| (shard, Request::Holds { asked }))
            .collect();
        let mut held = vec![Vec::new(); asked.len()];
        for (shard, answer) in call_each(&*self.set, &requests)? {
            let Answer::HeldByDoc(theirs) = answer else { return Err(unexpected(&*self.set, shard)) };
            if theirs.len() != order[shard].len() {
                return Err(unexpected(&*self.set, shard));
            }
            for (&at, h) in order[shard].iter().zip(theirs) {
                held[at] = h;
            }
        }
        Ok(held)
    }

    /// Every document of every shard (deleted ones too), ascending.
    pub(crate) fn docs(&self) -> Result<Vec<DocId>> {
        let mut out = Vec::new();
        for (shard, answer) in fan_out(&*self.set, &Request::DocIds)?.into_iter().enumerate() {
            let Answer::DocIds(ids) = answer else { return Err(unexpected(&*self.set, shard)) };
            out.extend(ids.into_iter().map(DocId));
        }
        out.sort_unstable();
        Ok(out)
    }

    /// Document `doc`, fetched from its shard unless it was (with its snapshot or text
    /// when asked).
    fn fetched(&self, doc: DocId, snapshot: bool, text: bool) -> Result<Fetched> {
        if let Some(d) = self.lock().get(&doc)
            && (!snapshot || d.snapshot.is_some())
            && (!text || d.text.is_some())
        {
            return Ok(d.clone());
        }
        self.fetch(&[doc], snapshot, text)?;
        self.lock().get(&doc).cloned().ok_or(Error::Index(tessera_index::Error::UnknownDoc(doc)))
    }

    /// Fetches the documents of `docs` not fetched yet (with snapshots, texts), from
    /// their shards at once.
    fn fetch(&self, docs: &[DocId], snapshots: bool, texts: bool) -> Result<()> {
        let shards = self.set.shards();
        let mut per_shard: Vec<Vec<u64>> = vec![Vec::new(); shards];
        {
            let held = self.lock();
            for &doc in docs {
                let have = held
                    .get(&doc)
                    .is_some_and(|d| (!snapshots || d.snapshot.is_some()) && (!texts || d.text.is_some()));
                if !have {
                    per_shard[shard_of(doc, shards)].push(doc.0);
                }
            }
        }
        let asked: Vec<(usize, Request)> = per_shard
            .into_iter()
            .enumerate()
            .filter(|(_, d)| !d.is_empty())
            .map(|(shard, docs)| (shard, Request::Documents { docs, snapshots, texts }))
            .collect();
        for (shard, answer) in call_each(&*self.set, &asked)? {
            let Answer::Documents(found) = answer else { return Err(unexpected(&*self.set, shard)) };
            let mut held = self.lock();
            for d in found {
                let id = d.id();
                let old = held.remove(&id);
                held.insert(id, merge_fetched(old, d));
            }
        }
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<DocId, Fetched>> {
        self.documents.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A look-up on every shard, merged: the hits of the keys the shards hold at most
    /// `max_docs` times together, in shard order.
    fn lookup(&self, request: &Request, keys: usize, max_docs: usize, f: &mut dyn FnMut(usize, DocId)) -> Result<()> {
        let answers = fan_out(&*self.set, request)?;
        let mut count = vec![0usize; keys];
        let mut all: Vec<Hits> = Vec::with_capacity(answers.len());
        for (shard, answer) in answers.into_iter().enumerate() {
            let Answer::Hits(hits) = answer else { return Err(unexpected(&*self.set, shard)) };
            for &i in &hits.over {
                if let Some(c) = count.get_mut(i as usize) {
                    *c = usize::MAX;
                }
            }
            for &(i, _) in &hits.hits {
                if let Some(c) = count.get_mut(i as usize) {
                    *c = c.saturating_add(1);
                }
            }
            all.push(hits);
        }
        let mut lengths = self.lengths.lock().unwrap_or_else(PoisonError::into_inner);
        for hits in all {
            lengths.extend(hits.lengths.iter().map(|&(d, l)| (DocId(d), l)));
            for (i, doc) in hits.hits {
                if count.get(i as usize).is_some_and(|&c| c <= max_docs) {
                    f(i as usize, DocId(doc));
                }
            }
        }
        Ok(())
    }
}

/// `old`'s snapshot and text kept when the new fetch did not ask for them.
fn merge_fetched(old: Option<Fetched>, d: Document) -> Fetched {
    let snapshot =
        d.snapshot.map(|s| Arc::new(Snapshot::from(s))).or_else(|| old.as_ref().and_then(|o| o.snapshot.clone()));
    let text = if d.text.is_some() { Some(d.text) } else { old.and_then(|o| o.text) };
    Fetched { meta: d.meta.into(), seen_at: d.seen_at, deleted: d.deleted, snapshot, text }
}

/// `request` asked of every shard at once; answers in shard order.
fn fan_out(set: &dyn ShardSet, request: &Request) -> Result<Vec<Answer>> {
    let asked: Vec<(usize, Request)> = (0..set.shards()).map(|s| (s, request.clone())).collect();
    Ok(call_each(set, &asked)?.into_iter().map(|(_, a)| a).collect())
}

/// Each `(shard, request)` asked at once (a thread per shard past the first); answers in
/// the order asked. The first shard that fails fails the whole.
fn call_each(set: &dyn ShardSet, asked: &[(usize, Request)]) -> Result<Vec<(usize, Answer)>> {
    let call = |&(shard, ref request): &(usize, Request)| -> Result<(usize, Answer)> {
        let shards = set.shards();
        let unavailable = |reason: String| Error::ShardUnavailable { shard, shards, reason };
        let bytes = set.call(shard, &request.encode()).map_err(unavailable)?;
        match Answer::decode(&bytes).map_err(unavailable)? {
            Answer::Error(reason) => Err(unavailable(reason)),
            answer => Ok((shard, answer)),
        }
    };
    if asked.len() <= 1 {
        return asked.iter().map(call).collect();
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = asked.iter().map(|a| scope.spawn(move || call(a))).collect();
        handles
            .into_iter()
            .zip(asked)
            .map(|(h, &(shard, _))| {
                h.join().unwrap_or_else(|_| {
                    Err(Error::ShardUnavailable {
                        shard,
                        shards: set.shards(),
                        reason: "the call to it stopped on a panic".to_owned(),
                    })
                })
            })
            .collect()
    })
}

fn unexpected(set: &dyn ShardSet, shard: usize) -> Error {
    Error::ShardUnavailable { shard, shards: set.shards(), reason: "it answered another question".to_owned() }
}

/// One collection of a [`ShardedView`], as a search reads it.
pub(crate) struct ShardSources<'v> {
    view: &'v ShardedView,
    config: CollectionConfig,
    doc_count: u64,
}

impl ShardSources<'_> {
    /// A document's kept text.
    pub(crate) fn text(&self, doc: DocId) -> Result<Option<String>> {
        self.view.text(doc)
    }
}

fn search_error(e: Error) -> tessera_search::Error {
    match e {
        Error::Search(e) => e,
        Error::Index(e) => tessera_search::Error::Index(e),
        e => tessera_search::Error::Sources(e.to_string()),
    }
}

impl Sources for ShardSources<'_> {
    fn config(&self) -> &CollectionConfig {
        &self.config
    }

    fn doc_count(&self) -> u64 {
        self.doc_count
    }

    fn lookup_hashes(
        &self,
        hashes: &[u64],
        max_docs: usize,
        f: &mut dyn FnMut(usize, DocId),
    ) -> Result<(), tessera_search::Error> {
        let request = Request::Hashes {
            collection: self.config.name.clone(),
            hashes: hashes.to_vec(),
            max_docs: max_docs as u64,
        };
        self.view.lookup(&request, hashes.len(), max_docs, f).map_err(search_error)
    }

    fn lookup_terms(
        &self,
        terms: &[u32],
        max_docs: usize,
        f: &mut dyn FnMut(usize, DocId),
    ) -> Result<(), tessera_search::Error> {
        let request =
            Request::Terms { collection: self.config.name.clone(), terms: terms.to_vec(), max_docs: max_docs as u64 };
        self.view.lookup(&request, terms.len(), max_docs, f).map_err(search_error)
    }

    fn holds_terms(&self, terms: &[u32]) -> Result<Vec<bool>, tessera_search::Error> {
        let request = Request::HoldsTerms { collection: self.config.name.clone(), terms: terms.to_vec() };
        let mut held = vec![false; terms.len()];
        for (shard, answer) in fan_out(&*self.view.set, &request).map_err(search_error)?.into_iter().enumerate() {
            let Answer::Held(theirs) = answer else {
                return Err(search_error(unexpected(&*self.view.set, shard)));
            };
            for (h, t) in held.iter_mut().zip(theirs) {
                *h |= t;
            }
        }
        Ok(held)
    }

    fn holds_hashes(&self, asked: &[(DocId, Vec<u64>)]) -> Result<Vec<Vec<bool>>, tessera_search::Error> {
        self.view.holds_hashes(asked).map_err(search_error)
    }

    fn snapshot(&self, doc: DocId) -> Result<Snapshot, tessera_search::Error> {
        let fetched = self.view.fetched(doc, true, false).map_err(search_error)?;
        Ok(fetched.snapshot.map(|s| (*s).clone()).unwrap_or_default())
    }

    fn char_len(&self, doc: DocId) -> Result<u64, tessera_search::Error> {
        if let Some(&l) = self.view.lengths.lock().unwrap_or_else(PoisonError::into_inner).get(&doc) {
            return Ok(l);
        }
        Ok(self.view.meta(doc).map_err(search_error)?.char_len)
    }

    fn prefetch(&self, docs: &[DocId]) {
        // A failure here shows again, with its reason, when the document is read.
        let _ = self.view.fetch(docs, true, false);
    }
}
