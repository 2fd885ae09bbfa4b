//! A shard's side: answering a sharded check's [`Request`]s from a view of the shard's
//! index. `LocalShards` calls it in the process; the Python `Shard` (which a Ray
//! deployment holds) calls it on the machine that has the shard.

use std::collections::BTreeSet;

use tessera_index::IndexReader;

use super::wire::{Answer, Document, Hits, Request, ShardCollection, ShardInfo};
use crate::{IndexView, Result};

impl IndexView {
    /// Answers a sharded check's request (its bytes: [`Request::encode`]) from this view
    /// of one shard; the answer's bytes ([`Answer::encode`]) say what failed, if anything.
    pub fn answer_shard_request(&self, request: &[u8]) -> Vec<u8> {
        let answer = match Request::decode(request) {
            Ok(request) => match self.index() {
                Ok(reader) => answer(reader, request).unwrap_or_else(|e| Answer::Error(e.to_string())),
                Err(e) => Answer::Error(e.to_string()),
            },
            Err(e) => Answer::Error(e),
        };
        answer.encode()
    }
}

fn answer(reader: &IndexReader, request: Request) -> Result<Answer> {
    // A shard holds none of a collection's documents until one is added to it: its
    // look-ups there find nothing (the collection exists in the index as a whole).
    let collection = |name: &str| reader.collection(name);
    Ok(match request {
        Request::Info => Answer::Info(ShardInfo {
            settings: reader.fingerprint_settings().to_string(),
            collections: reader
                .collections()
                .into_iter()
                .map(|info| ShardCollection {
                    doc_count: reader.collection(&info.config.name).map_or(0, |c| c.doc_count()),
                    info,
                })
                .collect(),
            live_docs: reader.live_docs().count() as u64,
        }),
        Request::Hashes { collection: name, hashes, max_docs } => {
            let Some(collection) = collection(&name) else { return Ok(Answer::Hits(Hits::default())) };
            let mut hits = Vec::new();
            let over = collection.lookup_sorted_bounded(&hashes, to_usize(max_docs), |i, doc| {
                hits.push((i as u32, doc.0));
            })?;
            Answer::Hits(Hits { hits, over: over.into_iter().map(|i| i as u32).collect(), lengths: Vec::new() })
        }
        Request::Terms { collection: name, terms, max_docs } => {
            let Some(collection) = collection(&name) else { return Ok(Answer::Hits(Hits::default())) };
            let mut hits = Vec::new();
            let over = collection.lookup_terms_bounded(&terms, to_usize(max_docs), |i, doc| {
                hits.push((i as u32, doc.0));
            })?;
            let docs: BTreeSet<u64> = hits.iter().map(|&(_, d)| d).collect();
            let lengths = docs
                .into_iter()
                .map(|d| Ok((d, reader.meta(tessera_index::DocId(d))?.char_len)))
                .collect::<Result<_>>()?;
            Answer::Hits(Hits { hits, over: over.into_iter().map(|i| i as u32).collect(), lengths })
        }
        Request::HoldsTerms { collection: name, terms } => {
            let mut held = vec![false; terms.len()];
            if let Some(collection) = collection(&name) {
                collection.lookup_terms_at_most(&terms, usize::MAX, |i, _| held[i] = true)?;
            }
            Answer::Held(held)
        }
        Request::Holds { asked } => Answer::HeldByDoc(
            asked
                .into_iter()
                .map(|(d, hashes)| Ok(reader.snapshot(tessera_index::DocId(d))?.holds_hashes(&hashes)))
                .collect::<Result<_>>()?,
        ),
        Request::DocIds => Answer::DocIds(reader.docs().map(|d| d.0).collect()),
        Request::Documents { docs, snapshots, texts } => Answer::Documents(
            docs.into_iter()
                .map(|d| {
                    let doc = tessera_index::DocId(d);
                    Ok(Document {
                        doc: d,
                        meta: reader.meta(doc)?.into(),
                        seen_at: reader.seen_at(doc)?,
                        deleted: reader.is_deleted(doc),
                        collection: reader.collection_of(doc).unwrap_or_default().to_owned(),
                        snapshot: if snapshots { Some(reader.snapshot(doc)?.into()) } else { None },
                        text: if texts { reader.text(doc)? } else { None },
                    })
                })
                .collect::<Result<_>>()?,
        ),
    })
}

fn to_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}
