//! Near-duplicates against an index: the sketch store of its segment layer (its segments
//! beside the index's, its state a section of the index's manifest) and the nearest
//! documents of a text.

use std::collections::BTreeMap;
use std::path::PathBuf;

use rayon::prelude::*;
use tessera_index::sketch::{STORE_FILE, STORE_VERSION, SketchStore, StoreEntry, StoreSettings};
use tessera_index::{DocId, IndexReader, MergePolicy};
use tessera_near::{
    CharProfile, Idf, LshParams, MinHashConfig, MinHasher, containment, hamming, jaccard, shingle_set, simhash,
};

use crate::{Engine, Error, FingerprintSettings, Result};

/// The sketch store's name inside an index directory: its segments are `NEAR-<n>.seg`
/// (its state is a section of the index's `MANIFEST`; stores before format 4 kept it in a
/// file of this name).
pub const SKETCH_FILE: &str = STORE_FILE;
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

/// The nearest documents of a text.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct NearAnswer {
    /// The nearest documents, most similar first.
    pub hits: Vec<NearHit>,
    /// Live documents the sketch store holds.
    pub searched: usize,
    /// What bringing the store up to date did that a person should know of (an old store
    /// upgraded), for the command to say once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
}

/// The sketches `near` searches: the index's sketch store and, when it could not be
/// brought up to date because another process holds the index's writer, the sketches of
/// the live documents it lacks, held in memory only and compared one by one with the
/// store's own rules (a shared LSH band, the SimHash distance).
pub(crate) struct Sketches {
    store: Option<SketchStore>,
    /// Sorted by document id; none of them live in `store`.
    pending: Vec<StoreEntry>,
    settings: StoreSettings,
    /// The index's live documents.
    searched: usize,
    notice: Option<String>,
}

impl Sketches {
    /// Live documents sharing an LSH band with `query` or within the SimHash distance
    /// (every live document with `exhaustive`), in no particular order, maybe repeated.
    fn candidates(&self, query: &StoreEntry, exhaustive: bool) -> Vec<u64> {
        let mut docs = Vec::new();
        if let Some(store) = &self.store {
            let ordinals = if exhaustive {
                (0..store.len() as u32).filter(|&i| store.is_live(i as usize)).collect()
            } else {
                store.lsh_candidates(&query.signature)
            };
            let ordinals = ordinals.into_iter().chain(store.simhash_candidates(query.simhash));
            docs.extend(ordinals.map(|i| store.doc(i as usize)));
        }
        let lsh = self.settings.lsh;
        let banded = query.signature.0.len() == self.settings.minhash.num_perm && !query.signature.is_empty();
        let keys: Vec<u64> = if banded { lsh.band_keys(&query.signature) } else { Vec::new() };
        docs.extend(
            self.pending
                .iter()
                .filter(|e| {
                    exhaustive
                        || hamming(e.simhash, query.simhash) <= self.settings.simhash_distance
                        || keys.iter().enumerate().any(|(band, &key)| lsh.band_key(&e.signature, band) == key)
                })
                .map(|e| e.doc),
        );
        docs
    }

    /// The stored signature (when the store keeps them) and the SimHash of live document
    /// `doc`, if the sketches hold it.
    fn sketch(&self, doc: u64) -> Option<(Option<tessera_near::Signature>, u64)> {
        if let Ok(i) = self.pending.binary_search_by_key(&doc, |e| e.doc) {
            let e = &self.pending[i];
            return Some((Some(e.signature.clone()), e.simhash));
        }
        let store = self.store.as_ref()?;
        let i = store.ordinal_of(doc)? as usize;
        Some((store.signature(i), store.simhash(i)))
    }
}

fn settings_hash(settings: &FingerprintSettings) -> u64 {
    let json = serde_json::to_vec(settings).unwrap_or_default();
    xxhash_rust::xxh3::xxh3_64(&json)
}

fn store_settings(hash: u64) -> Result<StoreSettings> {
    let minhash = MinHashConfig::default();
    let near = |e: tessera_near::Error| Error::Settings(e.to_string());
    Ok(StoreSettings {
        minhash,
        lsh: LshParams::optimal(SKETCH_LSH_THRESHOLD, minhash.num_perm, 0.5, 0.5).map_err(near)?,
        simhash_distance: SKETCH_SIMHASH_DISTANCE,
        settings_hash: hash,
        // A signature derives from the document's snapshot, which `near` reads anyway:
        // the store keeps only what queries look up (two thirds smaller).
        signatures: false,
    })
}

/// The ids of `a` missing from `b` (both ascending).
fn missing_from(a: &[u64], b: &[u64]) -> Vec<u64> {
    a.iter().copied().filter(|d| b.binary_search(d).is_err()).collect()
}

fn sketch_entry(hasher: &MinHasher, doc: u64, hashes: &[u64]) -> StoreEntry {
    StoreEntry { doc, signature: hasher.sign(hashes), simhash: simhash(hashes, &Idf::new()) }
}

fn near_err(path: PathBuf) -> impl Fn(tessera_index::Error) -> Error {
    move |e| Error::Io { path: path.clone(), source: std::io::Error::other(e.to_string()) }
}

impl Engine {
    /// The sketches of the last commit's live documents: the index's sketch store, opened
    /// as it is when it covers exactly the live documents with this index's settings,
    /// otherwise brought up to date first through the index's writer (its one `LOCK`;
    /// the store's state is published in the one `MANIFEST`): documents it lacks are
    /// sketched from their snapshots (before the writer is taken, so the lock is held only
    /// while files are written) into a new segment, deleted ones become tombstones,
    /// segments are merged by the index's tiered [`MergePolicy`] (never a rewrite of the
    /// whole store on an add). A store of other settings, or a damaged one, is rebuilt
    /// whole; one of an older format (its own `NEAR` manifest and `NEAR.LOCK`) is upgraded
    /// by that write, and the answer's notice says so. While another process holds the
    /// writer, nothing is written: the documents the store lacks are compared from memory
    /// ([`Sketches`]), so `near` neither waits for nor blocks a process adding documents.
    /// The store is derived data: deleting its segments only costs a rebuild.
    pub(crate) fn sketch_store(&self) -> Result<Sketches> {
        let reader = self.reader()?;
        let path = self.dir().join(SKETCH_FILE);
        let live: Vec<u64> = reader.live_docs().map(|d| d.0).collect();
        let wanted = store_settings(settings_hash(self.settings()))?;
        let hasher = MinHasher::new(MinHashConfig::default()).map_err(|e| Error::Settings(e.to_string()))?;
        let sketch = |docs: &[u64]| -> Result<Vec<StoreEntry>> {
            docs.par_iter().map(|&d| Ok(sketch_entry(&hasher, d, &reader.snapshot(DocId(d))?.hashes))).collect()
        };
        let sketches = |store, pending, notice| Sketches {
            store,
            pending,
            settings: wanted.clone(),
            searched: live.len(),
            notice,
        };
        let opened = SketchStore::open(&path).ok().filter(|s| s.settings() == &wanted);
        let held = opened.as_ref().map(SketchStore::live_docs);
        if held.as_ref() == Some(&live) {
            return Ok(sketches(opened, Vec::new(), None));
        }
        let held = held.unwrap_or_default();
        let add = sketch(&missing_from(&live, &held))?;
        let delete = missing_from(&held, &live);
        let mut writer = match self.writer() {
            Ok(writer) => writer,
            Err(Error::WriterBusy { .. }) => return Ok(sketches(opened, add, None)),
            Err(e) => return Err(e),
        };
        let older = opened.as_ref().map(SketchStore::format_version).filter(|&v| v < STORE_VERSION);
        let update = opened.is_some();
        drop(opened);
        // An update that fails (a document deleted from the store came back) leaves the
        // store as it was: rebuild it whole.
        if !(update && writer.update_sketches(&wanted, &add, &delete, &MergePolicy::default()).is_ok()) {
            let all = if update { sketch(&live)? } else { add };
            writer.write_sketches(&wanted, &all).map_err(near_err(path.clone()))?;
        }
        drop(writer);
        let store = SketchStore::open(&path).map_err(near_err(path))?;
        let notice = older.map(|v| {
            format!(
                "the sketch store of {} was upgraded from format {v} to {STORE_VERSION}: its state is now part of \
                 the index's MANIFEST and its writers take the index's LOCK (NEAR and NEAR.LOCK removed; \
                 builds before it cannot open this index)",
                self.dir().display()
            )
        });
        Ok(sketches(Some(store), Vec::new(), notice))
    }

    /// The `top` documents nearest to `text`: candidates share an LSH band (tuned for
    /// Jaccard [`SKETCH_LSH_THRESHOLD`]), are within SimHash distance
    /// [`SKETCH_SIMHASH_DISTANCE`], or hold at least half of the text's distinct shingles
    /// (with `exhaustive`, every live document is one); documents sharing no shingle are
    /// never listed. They are ranked by exact Jaccard similarity of the shingle sets,
    /// then the estimate, then id.
    pub fn near_text(&self, text: &str, top: usize, exhaustive: bool) -> Result<NearAnswer> {
        let sketches = self.sketch_store()?;
        let reader = self.reader()?;
        let hashes = self.with_fingerprinter(|fp| fp.fingerprint(text).hashes);
        let hasher = MinHasher::new(sketches.settings.minhash).map_err(|e| Error::Settings(e.to_string()))?;
        let query = sketch_entry(&hasher, 0, &hashes);
        let set = shingle_set(&hashes);
        let profile = CharProfile::new(text, CHAR_SHINGLE);
        let mut docs = sketches.candidates(&query, exhaustive);
        // A text contained in a longer document has a low Jaccard similarity that the bands
        // may miss: documents holding at least half of its shingles (by the postings) are
        // candidates too, so `near` finds what the add-only-if-new rule finds.
        if !exhaustive && !set.is_empty() {
            let need = set.len().div_ceil(2);
            for info in reader.collections() {
                let Some(c) = reader.collection(&info.config.name) else { continue };
                let mut counts: BTreeMap<DocId, usize> = BTreeMap::new();
                c.lookup_sorted(&set, |_, d| *counts.entry(d).or_insert(0) += 1)?;
                docs.extend(counts.into_iter().filter(|&(_, n)| n >= need).map(|(doc, _)| doc.0));
            }
        }
        docs.sort_unstable();
        docs.dedup();
        let mut hits = Vec::with_capacity(docs.len());
        for doc in docs {
            let doc = DocId(doc);
            if reader.is_deleted(doc) || reader.collection_of(doc).is_none() {
                continue;
            }
            let Some((stored, fingerprint)) = sketches.sketch(doc.0) else { continue };
            let snapshot = reader.snapshot(doc)?;
            let other = shingle_set(&snapshot.hashes);
            // Nothing shared: not near at all, whatever the sketches' estimate says.
            if tessera_near::intersection(&set, &other) == 0 {
                continue;
            }
            let signature = stored.unwrap_or_else(|| hasher.sign(&snapshot.hashes));
            let mut hit = self.hit(
                &reader,
                doc,
                &set,
                &other,
                query.signature.jaccard(&signature),
                hamming(query.simhash, fingerprint),
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
        Ok(NearAnswer { hits, searched: sketches.searched, notice: sketches.notice })
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
}
