//! [`Sources`]: what a search reads of one collection, wherever the collection lives.
//!
//! A search needs these things of a collection: its settings and size, the documents
//! holding some hashes (stage 1) or some terms (the translated stage), which of its hits
//! a candidate really holds (stage 1's check of truncated keys), a candidate's snapshot
//! (stage 2) and a document's length (the translated stage's length division). An open index answers them at once ([`IndexCollection`]); the engine's
//! sharded view answers them from the shards of one index, merged so that the search
//! sees exactly what one index holding the same documents would show it. The search
//! itself is the same code either way.

use tessera_core::{CollectionConfig, DocId};
use tessera_index::{CollectionReader, IndexReader, Snapshot};

use crate::Error;

/// One collection as a search reads it.
pub trait Sources: Sync {
    /// The collection's settings.
    fn config(&self) -> &CollectionConfig;

    /// Documents committed to the collection (deleted ones not yet purged included, as
    /// [`CollectionReader::doc_count`] counts them).
    fn doc_count(&self) -> u64;

    /// `f(i, doc)` for every live document holding `hashes[i]` (sorted, distinct), the
    /// hashes held by more than `max_docs` live documents of the collection left out
    /// ([`CollectionReader::lookup_sorted_at_most`]). Calls may come in any order.
    fn lookup_hashes(&self, hashes: &[u64], max_docs: usize, f: &mut dyn FnMut(usize, DocId)) -> Result<(), Error>;

    /// `f(i, doc)` for every live document holding `terms[i]`, as
    /// [`CollectionReader::lookup_terms_at_most`] gives them.
    fn lookup_terms(&self, terms: &[u32], max_docs: usize, f: &mut dyn FnMut(usize, DocId)) -> Result<(), Error>;

    /// Whether any live document holds each of `terms` (a language's probe words:
    /// common ones, so sources that fetch from far away answer this without the
    /// documents).
    fn holds_terms(&self, terms: &[u32]) -> Result<Vec<bool>, Error> {
        let mut held = vec![false; terms.len()];
        self.lookup_terms(terms, usize::MAX, &mut |i, _| held[i] = true)?;
        Ok(held)
    }

    /// A document's snapshot.
    fn snapshot(&self, doc: DocId) -> Result<Snapshot, Error>;

    /// Which of the hashes asked of each document it really holds (`held[d][i]` for
    /// `asked[d] = (doc, hashes)`): the look-ups find documents by truncated keys, so stage
    /// 1 checks its candidates here. Sources that fetch from far away answer this where
    /// the snapshots are.
    fn holds_hashes(&self, asked: &[(DocId, Vec<u64>)]) -> Result<Vec<Vec<bool>>, Error> {
        asked.iter().map(|(doc, hashes)| Ok(self.snapshot(*doc)?.holds_hashes(hashes))).collect()
    }

    /// A document's length in characters.
    fn char_len(&self, doc: DocId) -> Result<u64, Error>;

    /// Says which documents the search will likely read next, best first: sources that
    /// fetch from far away read them together. Nothing to do for an open index.
    fn prefetch(&self, docs: &[DocId]) {
        let _ = docs;
    }
}

/// A collection of an open index.
#[derive(Debug)]
pub struct IndexCollection<'a> {
    reader: &'a IndexReader,
    collection: CollectionReader<'a>,
}

impl<'a> IndexCollection<'a> {
    /// Collection `name` of `reader`.
    pub fn new(reader: &'a IndexReader, name: &str) -> Result<Self, Error> {
        let collection = reader.collection(name).ok_or_else(|| Error::UnknownCollection(name.to_owned()))?;
        Ok(Self { reader, collection })
    }
}

impl Sources for IndexCollection<'_> {
    fn config(&self) -> &CollectionConfig {
        self.collection.config()
    }

    fn doc_count(&self) -> u64 {
        self.collection.doc_count()
    }

    fn lookup_hashes(&self, hashes: &[u64], max_docs: usize, f: &mut dyn FnMut(usize, DocId)) -> Result<(), Error> {
        Ok(self.collection.lookup_sorted_at_most(hashes, max_docs, f)?)
    }

    fn lookup_terms(&self, terms: &[u32], max_docs: usize, f: &mut dyn FnMut(usize, DocId)) -> Result<(), Error> {
        Ok(self.collection.lookup_terms_at_most(terms, max_docs, f)?)
    }

    fn snapshot(&self, doc: DocId) -> Result<Snapshot, Error> {
        Ok(self.reader.snapshot(doc)?)
    }

    fn char_len(&self, doc: DocId) -> Result<u64, Error> {
        Ok(self.reader.meta(doc)?.char_len)
    }
}
