//! Near-duplicates against an index: the sketch store next to it, the nearest documents
//! of a text, the crawler's add-only-if-new rule, and deletes.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use rayon::prelude::*;
use tessera_index::{CollectionConfig, DocId, IndexReader};
use tessera_near::{
    CharProfile, Idf, LshParams, MinHashConfig, MinHasher, SketchStore, StoreEntry, StoreSettings, TableDesign,
    containment, hamming, jaccard, shingle_set, simhash, write_store,
};

use crate::engine::add_prepared;
use crate::{AddProgress, Engine, Error, FingerprintSettings, Prepared, Result};

/// The sketch store's file name inside an index directory.
pub const SKETCH_FILE: &str = "NEAR";
/// The Jaccard threshold the store's LSH bands are tuned for: low, so that `near`
/// ranks documents well below the usual duplicate threshold too.
pub const SKETCH_LSH_THRESHOLD: f64 = 0.5;
/// Characters per window of the character-shingle profiles `near` compares.
const CHAR_SHINGLE: usize = 5;
/// The Hamming distance the store's SimHash tables serve.
pub const SKETCH_SIMHASH_DISTANCE: u32 = 3;

/// A document near a query text, with every similarity.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct NearHit {
    /// The document.
    pub doc: u64,
    /// Its collection.
    pub collection: String,
    /// Its title.
    pub title: String,
    /// Every place it was seen at (the first is where it was added from).
    pub seen_at: Vec<String>,
    /// Jaccard similarity estimated from the MinHash signatures.
    pub estimated_jaccard: f64,
    /// Exact Jaccard similarity of the shingle sets.
    pub jaccard: f64,
    /// Share of the query's shingles found in the document.
    pub query_in_doc: f64,
    /// Share of the document's shingles found in the query.
    pub doc_in_query: f64,
    /// Hamming distance of the SimHashes (shingles weighted by their count).
    pub simhash_distance: u32,
    /// Cosine of the character 5-gram profiles (seed 003), when the document's collection
    /// keeps texts (`None` otherwise).
    pub char_cosine: Option<f64>,
}

/// What an add-only-if-new did.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct IfNewSummary {
    /// Documents added (new).
    pub added: u64,
    /// Documents not added: `(origin, the document containing it, containment)`; the
    /// origin was attached to that document.
    pub seen: Vec<(String, u64, f64)>,
    /// Files that failed, with the reason.
    pub failed: Vec<(String, String)>,
    /// Seconds spent.
    pub seconds: f64,
}

/// What [`Engine::add_text_if_new`] did with one text.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub enum TextIfNew {
    /// It was new and was added with this id.
    Added(DocId),
    /// It was not added: this document holds `containment` of its distinct shingles,
    /// and the text's origin was attached to it.
    Seen {
        /// The containing document.
        into: DocId,
        /// The share of the text's distinct shingle hashes it holds.
        containment: f64,
    },
}

fn settings_hash(settings: &FingerprintSettings) -> u64 {
    let json = serde_json::to_vec(settings).unwrap_or_default();
    xxhash_rust::xxh3::xxh3_64(&json)
}

fn store_settings(hash: u64, docs: usize) -> Result<StoreSettings> {
    let minhash = MinHashConfig::default();
    let near = |e: tessera_near::Error| Error::Settings(e.to_string());
    Ok(StoreSettings {
        minhash,
        lsh: LshParams::optimal(SKETCH_LSH_THRESHOLD, minhash.num_perm, 0.5, 0.5).map_err(near)?,
        simhash: TableDesign::choose(SKETCH_SIMHASH_DISTANCE, docs as u64).map_err(near)?,
        settings_hash: hash,
    })
}

fn sketch_entry(hasher: &MinHasher, doc: u64, hashes: &[u64]) -> StoreEntry {
    StoreEntry { doc, signature: hasher.sign(hashes), simhash: simhash(hashes, &Idf::new()) }
}

fn near_err(path: PathBuf) -> impl Fn(tessera_near::Error) -> Error {
    move |e| Error::Io { path: path.clone(), source: std::io::Error::other(e.to_string()) }
}

impl Engine {
    /// The sketch store of the last commit (`<index>/NEAR`): opened as it is when it
    /// covers exactly the live documents with this index's settings, otherwise brought
    /// up to date first (documents it lacks are sketched from their snapshots, deleted
    /// ones dropped; a damaged store is rebuilt) and rewritten atomically. It is derived
    /// data: deleting it only costs a rebuild.
    pub fn sketch_store(&self) -> Result<SketchStore> {
        let reader = self.reader()?;
        let path = self.dir().join(SKETCH_FILE);
        let live: Vec<u64> = reader.live_docs().map(|d| d.0).collect();
        let hash = settings_hash(self.settings());
        let existing = SketchStore::open(&path)
            .ok()
            .filter(|s| s.settings().settings_hash == hash && s.settings().minhash == MinHashConfig::default());
        let wanted = store_settings(hash, live.len())?;
        let current = existing.as_ref().is_some_and(|store| {
            store.len() == live.len()
                && live.iter().enumerate().all(|(i, &d)| store.doc(i) == d)
                && store.settings() == &wanted
        });
        if current {
            return Ok(existing.expect("checked just above"));
        }
        let known: BTreeMap<u64, StoreEntry> =
            existing.map(|s| s.entries().into_iter().map(|e| (e.doc, e)).collect()).unwrap_or_default();
        let hasher = MinHasher::new(MinHashConfig::default()).map_err(|e| Error::Settings(e.to_string()))?;
        let entries: Vec<StoreEntry> = live
            .par_iter()
            .map(|&d| match known.get(&d) {
                Some(e) => Ok(e.clone()),
                None => Ok(sketch_entry(&hasher, d, &reader.snapshot(DocId(d))?.hashes)),
            })
            .collect::<Result<_>>()?;
        write_store(&path, &wanted, &entries).map_err(near_err(path.clone()))?;
        SketchStore::open(&path).map_err(near_err(path))
    }

    /// The `top` documents nearest to `text`: candidates share an LSH band (tuned for
    /// Jaccard [`SKETCH_LSH_THRESHOLD`]) or are within SimHash distance
    /// [`SKETCH_SIMHASH_DISTANCE`] (with `exhaustive`, every live document is one);
    /// they are ranked by exact Jaccard similarity, then the estimate, then id.
    pub fn near_text(&self, store: &SketchStore, text: &str, top: usize, exhaustive: bool) -> Result<Vec<NearHit>> {
        let reader = self.reader()?;
        let hashes = self.with_fingerprinter(|fp| fp.fingerprint(text).hashes);
        let hasher = MinHasher::new(store.settings().minhash).map_err(|e| Error::Settings(e.to_string()))?;
        let query = sketch_entry(&hasher, 0, &hashes);
        let set = shingle_set(&hashes);
        let profile = CharProfile::new(text, CHAR_SHINGLE);
        let mut ordinals =
            if exhaustive { (0..store.len() as u32).collect() } else { store.lsh_candidates(&query.signature) };
        ordinals.extend(store.simhash_candidates(query.simhash));
        ordinals.sort_unstable();
        ordinals.dedup();
        let mut hits = Vec::with_capacity(ordinals.len());
        for i in ordinals {
            let i = i as usize;
            let doc = DocId(store.doc(i));
            if reader.is_deleted(doc) || reader.collection_of(doc).is_none() {
                continue;
            }
            let other = shingle_set(&reader.snapshot(doc)?.hashes);
            let mut hit = self.hit(
                &reader,
                doc,
                &set,
                &other,
                query.signature.jaccard(&store.signature(i)),
                hamming(query.simhash, store.simhash(i)),
            )?;
            hit.char_cosine = reader.text(doc)?.map(|t| profile.cosine(&CharProfile::new(&t, CHAR_SHINGLE)));
            hits.push(hit);
        }
        hits.sort_by(|a, b| {
            b.jaccard
                .total_cmp(&a.jaccard)
                .then(b.estimated_jaccard.total_cmp(&a.estimated_jaccard))
                .then(a.doc.cmp(&b.doc))
        });
        hits.truncate(top);
        Ok(hits)
    }

    fn hit(
        &self,
        reader: &IndexReader,
        doc: DocId,
        set: &[u64],
        other: &[u64],
        est: f64,
        distance: u32,
    ) -> Result<NearHit> {
        Ok(NearHit {
            doc: doc.0,
            collection: reader.collection_of(doc).unwrap_or_default().to_string(),
            title: reader.meta(doc)?.title,
            seen_at: reader.seen_at(doc)?,
            estimated_jaccard: est,
            jaccard: jaccard(set, other),
            query_in_doc: containment(set, other),
            doc_in_query: containment(other, set),
            simhash_distance: distance,
            char_cosine: None,
        })
    }

    /// Adds files and folders to a collection only if new (seed 000, the crawler's
    /// rule): a document whose distinct shingle hashes are at least `min_containment`
    /// contained in one live document of the collection (committed, or added earlier in
    /// this run) is not added; its path is attached to that document (the one containing
    /// the most, then the lowest id), which lists every place it was seen. Containment is
    /// exact: candidates come from the postings, and each is checked on its snapshot.
    pub fn add_paths_if_new(
        &self,
        collection: &CollectionConfig,
        paths: &[PathBuf],
        min_containment: f64,
        progress: &(dyn Fn(AddProgress) + Sync),
    ) -> Result<IfNewSummary> {
        let started = Instant::now();
        let files = crate::list_files(paths)?;
        let total = files.len() as u64;
        let mut writer = self.writer()?;
        writer.ensure_collection(collection.clone())?;
        writer.commit()?;
        let mut summary = IfNewSummary::default();
        let mut done = 0u64;
        for chunk in files.chunks(self.options().batch_size.max(1)) {
            let prepared: Vec<(PathBuf, Result<Prepared>)> = chunk
                .par_iter()
                .map(|path| (path.clone(), self.with_fingerprinter(|fp| self.prepare_path(path, fp))))
                .collect();
            let reader = self.reader()?;
            // Documents added in this batch (not committed yet): id and distinct hashes.
            let mut fresh: Vec<(DocId, Vec<u64>)> = Vec::new();
            let mut attach_later: Vec<(DocId, String)> = Vec::new();
            for (path, result) in prepared {
                done += 1;
                let doc = match result {
                    Ok(doc) => doc,
                    Err(e) => {
                        summary.failed.push((path.display().to_string(), e.to_string()));
                        continue;
                    }
                };
                let set = shingle_set(&doc.fingerprint.hashes);
                match container(&reader, &collection.name, &set, &fresh, min_containment)? {
                    Some((into, share, committed)) => {
                        if committed {
                            writer.attach_origin(into, &doc.origin)?;
                        } else {
                            attach_later.push((into, doc.origin.clone()));
                        }
                        summary.seen.push((doc.origin.clone(), into.0, share));
                    }
                    None => {
                        let id = add_prepared(&mut writer, collection, &doc)?;
                        fresh.push((id, set));
                        summary.added += 1;
                    }
                }
            }
            writer.commit()?;
            for (into, origin) in attach_later {
                writer.attach_origin(into, &origin)?;
            }
            writer.commit()?;
            progress(AddProgress { done, total });
        }
        summary.seconds = started.elapsed().as_secs_f64();
        Ok(summary)
    }

    /// The add-only-if-new rule of [`Engine::add_paths_if_new`] for one text (the server's
    /// `POST /api/documents` with `if_new`): if one live document of the collection holds
    /// at least `min_containment` of the text's distinct shingle hashes (exact, checked on
    /// its snapshot), `origin` is attached to it (the one holding most, then the lowest
    /// id); otherwise the text is added. One commit either way.
    pub fn add_text_if_new(
        &self,
        collection: &CollectionConfig,
        origin: &str,
        title: &str,
        text: &str,
        min_containment: f64,
    ) -> Result<TextIfNew> {
        let mut writer = self.writer()?;
        writer.ensure_collection(collection.clone())?;
        writer.commit()?;
        let reader = self.reader()?;
        let doc = Prepared {
            origin: origin.to_owned(),
            extracted: tessera_extract::Extracted::from_text(text.to_owned(), Some(title.to_owned())),
            fingerprint: self.with_fingerprinter(|fp| fp.fingerprint(text)),
        };
        let set = shingle_set(&doc.fingerprint.hashes);
        let outcome = match container(&reader, &collection.name, &set, &[], min_containment)? {
            Some((into, containment, _)) => {
                writer.attach_origin(into, origin)?;
                TextIfNew::Seen { into, containment }
            }
            None => TextIfNew::Added(add_prepared(&mut writer, collection, &doc)?),
        };
        writer.commit()?;
        Ok(outcome)
    }

    /// Deletes documents by id (one commit). Returns how many were live before.
    pub fn delete(&self, docs: &[DocId]) -> Result<u64> {
        let mut writer = self.writer()?;
        let mut n = 0;
        for &d in docs {
            n += u64::from(writer.delete(d)?);
        }
        writer.commit()?;
        Ok(n)
    }
}

/// The live document of `collection` (or of `fresh`) containing at least `min` of `set`:
/// `(doc, containment, committed)`, the highest containment first, then the lowest id.
fn container(
    reader: &IndexReader,
    collection: &str,
    set: &[u64],
    fresh: &[(DocId, Vec<u64>)],
    min: f64,
) -> Result<Option<(DocId, f64, bool)>> {
    if set.is_empty() {
        return Ok(None);
    }
    let need = (min * set.len() as f64).ceil().max(1.0) as usize;
    let mut counts: BTreeMap<DocId, usize> = BTreeMap::new();
    if let Some(c) = reader.collection(collection) {
        c.lookup_sorted(set, |_, d| *counts.entry(d).or_insert(0) += 1)?;
    }
    let mut best: Option<(DocId, f64, bool)> = None;
    let mut consider = |doc: DocId, share: f64, committed: bool| {
        if share >= min && best.is_none_or(|(bd, bs, _)| share > bs || (share == bs && doc < bd)) {
            best = Some((doc, share, committed));
        }
    };
    for (doc, n) in counts {
        if n >= need {
            // Postings keys are truncated: confirm on the snapshot's full hashes.
            let other = shingle_set(&reader.snapshot(doc)?.hashes);
            consider(doc, containment(set, &other), true);
        }
    }
    for (doc, other) in fresh {
        consider(*doc, containment(set, other), false);
    }
    Ok(best)
}
