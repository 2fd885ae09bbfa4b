//! Add only if new: where crawled pages go, and the containment test.

use tessera_engine::{AddMode, AddOutcome, AddSession, CollectionConfig, DocId, Engine, Extracted};

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

/// The engine-backed sink: the engine's one add path under the add-only-if-new rule
/// ([`AddMode::IfNew`]): a page whose distinct shingle hashes are at least `threshold`
/// contained in one document of the collection (committed, or accepted earlier in this
/// batch) is attached to it, not added. A page offered again after a crash (already
/// indexed under its own URL) is reported as added.
pub struct EngineSink<'e> {
    engine: &'e Engine,
    session: AddSession<'e>,
}

impl std::fmt::Debug for EngineSink<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineSink").field("session", &self.session).finish()
    }
}

impl<'e> EngineSink<'e> {
    /// A sink adding to `collection` of `engine`, attaching pages contained at least
    /// `threshold` (e.g. [`tessera_engine::DEFAULT_MIN_CONTAINMENT`]) in an indexed
    /// document.
    pub fn new(engine: &'e Engine, collection: CollectionConfig, threshold: f64) -> Result<Self> {
        let session = engine.add_session(&collection, AddMode::if_new(Some(threshold))?)?;
        Ok(Self { engine, session })
    }
}

impl DocumentSink for EngineSink<'_> {
    fn offer(&mut self, url: &str, extracted: Extracted) -> Result<Offer> {
        let doc = self.engine.prepare(url.to_owned(), extracted);
        Ok(match self.session.add(&doc)? {
            AddOutcome::Added { .. } => Offer::Pending,
            AddOutcome::Seen { into, containment } => Offer::Attached { to: into, containment },
            AddOutcome::AlreadyIndexed { doc, .. } => Offer::Added(doc),
        })
    }

    fn commit(&mut self) -> Result<Vec<(String, DocId)>> {
        Ok(self.session.commit()?)
    }

    fn pending(&self) -> usize {
        self.session.pending()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_engine::{CollectionKind, EngineOptions, FingerprintSettings};

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
        // Every attached URL is in the index's "seen at" list of its document.
        let reader = engine.view().unwrap();
        assert_eq!(reader.seen_at(to).unwrap(), ["http://h/a", "http://h/a2"]);
        let b_doc = committed.iter().find(|(u, _)| u == "http://h/b").unwrap().1;
        assert_eq!(reader.seen_at(b_doc).unwrap(), ["http://h/b", "http://h/b-part"]);
    }
}
