//! Add only if new: where crawled pages go, and the containment test.

use std::collections::HashSet;

use tessera_engine::extract::Extracted;
use tessera_engine::index::{CollectionConfig, DocId, IndexReader};
use tessera_engine::{Engine, Fingerprinter, Prepared};

use crate::Result;

/// What a sink did with a page.
#[derive(Debug, Clone, PartialEq)]
pub enum Offer {
    /// Indexed (committed) as this document.
    Added(DocId),
    /// Accepted; indexed at the next [`DocumentSink::commit`].
    Pending,
    /// Not indexed: at least the threshold share of its distinct shingle hashes is in
    /// this indexed document.
    Attached {
        /// The document that contains the page.
        to: DocId,
        /// Share of the page's distinct shingle hashes found in `to` (0..=1).
        containment: f64,
    },
}

/// Where crawled pages go. The crawler offers each page that passed the quality filter
/// and logs what the sink did; an implementation decides what "new" means.
pub trait DocumentSink {
    /// Offers a page found at `url`.
    fn offer(&mut self, url: &str, extracted: Extracted) -> Result<Offer>;

    /// Commits pending pages and returns every page committed since the last call (by
    /// this call or by an earlier [`offer`](Self::offer) that had to commit), with its
    /// document.
    fn commit(&mut self) -> Result<Vec<(String, DocId)>>;

    /// Pages offered and not yet committed.
    fn pending(&self) -> usize;
}

/// A page accepted and not yet committed.
struct PendingDoc {
    prepared: Prepared,
    distinct: Vec<u64>,
}

/// The engine-backed sink: a page whose distinct shingle hashes are at least
/// `threshold` contained in one document of the collection (committed, or accepted
/// earlier in this batch) is attached to it, not added.
///
/// Containment is computed exactly: the collection's postings name candidate documents
/// (a superset: postings keep truncated keys), the best few are verified against their
/// stored snapshots (full 64-bit hashes), and pages of the current batch are compared
/// directly. This is faster and more exact than a full search with alignment, whose
/// matched share depends on block thresholds.
pub struct EngineSink<'e> {
    engine: &'e Engine,
    collection: CollectionConfig,
    threshold: f64,
    fingerprinter: Fingerprinter,
    reader: Option<IndexReader>,
    batch: Vec<PendingDoc>,
    committed: Vec<(String, DocId)>,
}

impl std::fmt::Debug for EngineSink<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineSink")
            .field("collection", &self.collection.name)
            .field("pending", &self.batch.len())
            .finish()
    }
}

/// Candidates verified against their snapshots per page, best first.
const MAX_VERIFIED: usize = 8;

impl<'e> EngineSink<'e> {
    /// A sink adding to `collection` of `engine`, attaching pages contained at least
    /// `threshold` (e.g. 0.9) in an indexed document.
    pub fn new(engine: &'e Engine, collection: CollectionConfig, threshold: f64) -> Result<Self> {
        let reader = Some(engine.reader()?);
        Ok(Self {
            engine,
            collection,
            threshold,
            fingerprinter: engine.fingerprinter(),
            reader,
            batch: Vec::new(),
            committed: Vec::new(),
        })
    }

    /// The committed document that best contains `distinct` (sorted, distinct hashes),
    /// with its containment, if it reaches the threshold.
    fn best_committed(&self, distinct: &[u64]) -> Result<Option<(DocId, f64)>> {
        let Some(reader) = &self.reader else { return Ok(None) };
        let Some(coll) = reader.collection(&self.collection.name) else { return Ok(None) };
        let mut counts: std::collections::HashMap<DocId, usize> = std::collections::HashMap::new();
        coll.lookup_sorted(distinct, |_, doc| *counts.entry(doc).or_default() += 1)?;
        let need = (self.threshold * distinct.len() as f64).ceil() as usize;
        let mut candidates: Vec<(usize, DocId)> =
            counts.into_iter().filter(|&(_, n)| n >= need).map(|(d, n)| (n, d)).collect();
        candidates.sort_unstable_by(|a, b| b.cmp(a));
        let mut best: Option<(DocId, f64)> = None;
        for (_, doc) in candidates.into_iter().take(MAX_VERIFIED) {
            let snapshot = reader.snapshot(doc)?;
            let theirs: HashSet<u64> = snapshot.hashes.into_iter().collect();
            let shared = distinct.iter().filter(|h| theirs.contains(h)).count();
            let c = shared as f64 / distinct.len() as f64;
            if c >= self.threshold && best.is_none_or(|(bd, bc)| c > bc || (c == bc && doc < bd)) {
                best = Some((doc, c));
            }
        }
        Ok(best)
    }

    fn flush(&mut self) -> Result<()> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let docs: Vec<Prepared> = std::mem::take(&mut self.batch).into_iter().map(|p| p.prepared).collect();
        let ids = self.engine.add_prepared(&self.collection, &docs)?;
        self.committed.extend(docs.into_iter().map(|d| d.origin).zip(ids));
        self.reader = Some(self.engine.reader()?);
        Ok(())
    }
}

/// Size of the intersection of two sorted, distinct slices.
fn shared_sorted(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

impl DocumentSink for EngineSink<'_> {
    fn offer(&mut self, url: &str, extracted: Extracted) -> Result<Offer> {
        let fingerprint = self.fingerprinter.fingerprint(&extracted.text);
        let mut distinct = fingerprint.hashes.clone();
        distinct.sort_unstable();
        distinct.dedup();
        if !distinct.is_empty() {
            if let Some((doc, containment)) = self.best_committed(&distinct)? {
                // Re-offered after a crash between the index commit and the log record:
                // the page is already indexed under its own URL.
                let reader = self.reader.as_ref().expect("best_committed found a reader");
                if reader.meta(doc)?.origin == url {
                    return Ok(Offer::Added(doc));
                }
                return Ok(Offer::Attached { to: doc, containment });
            }
            let in_batch = self
                .batch
                .iter()
                .position(|p| shared_sorted(&distinct, &p.distinct) as f64 >= self.threshold * distinct.len() as f64);
            if let Some(i) = in_batch {
                let containment = shared_sorted(&distinct, &self.batch[i].distinct) as f64 / distinct.len() as f64;
                let origin = self.batch[i].prepared.origin.clone();
                self.flush()?;
                let doc = self.committed.iter().find(|(o, _)| *o == origin).map(|(_, d)| *d);
                if let Some(to) = doc {
                    return Ok(Offer::Attached { to, containment });
                }
            }
        }
        let prepared = Prepared { origin: url.to_owned(), extracted, fingerprint };
        self.batch.push(PendingDoc { prepared, distinct });
        Ok(Offer::Pending)
    }

    fn commit(&mut self) -> Result<Vec<(String, DocId)>> {
        self.flush()?;
        Ok(std::mem::take(&mut self.committed))
    }

    fn pending(&self) -> usize {
        self.batch.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_engine::index::CollectionKind;
    use tessera_engine::{EngineOptions, FingerprintSettings};

    fn words(seed: u64, n: usize) -> String {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let len = 3 + (x % 6) as usize;
                (0..len).map(|k| (b'a' + ((x >> (k * 5)) % 26) as u8) as char).collect::<String>()
            })
            .collect::<Vec<_>>()
            .join(" ")
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
        assert_eq!(sink.offer("http://h/a", Extracted::from_text(a.clone(), None)).unwrap(), Offer::Pending);
        assert_eq!(sink.offer("http://h/b", Extracted::from_text(b.clone(), None)).unwrap(), Offer::Pending);
        // The same text under another URL, in the same batch: the batch is committed and
        // the page attached to the committed document.
        let Offer::Attached { to, containment } =
            sink.offer("http://h/a2", Extracted::from_text(a.clone(), None)).unwrap()
        else {
            panic!("a duplicate must attach")
        };
        assert!((containment - 1.0).abs() < 1e-9);
        let committed = sink.commit().unwrap();
        assert_eq!(committed.iter().find(|(u, _)| u == "http://h/a").map(|(_, d)| *d), Some(to));
        // A page contained in `b` (its first 95%) attaches across batches.
        let part: Vec<&str> = b.split(' ').collect();
        let near = part[..285].join(" ");
        assert!(matches!(
            sink.offer("http://h/b-part", Extracted::from_text(near, None)).unwrap(),
            Offer::Attached { containment, .. } if containment >= 0.9
        ));
        // Half of `a` and half of something new: not contained, added.
        let mixed = format!("{} {}", &a[..a.len() / 2], words(3, 150));
        assert_eq!(sink.offer("http://h/mixed", Extracted::from_text(mixed, None)).unwrap(), Offer::Pending);
        // Re-offered after a crash: the page is already indexed under its own URL.
        assert_eq!(
            sink.offer("http://h/b", Extracted::from_text(b, None)).unwrap(),
            Offer::Added(committed.iter().find(|(u, _)| u == "http://h/b").unwrap().1)
        );
        assert_eq!(sink.commit().unwrap().len(), 1);
    }
}
