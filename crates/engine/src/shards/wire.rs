//! The messages between a sharded check and its shards: a [`Request`] goes to a shard
//! as bytes ([`Request::encode`]), the shard answers with the bytes of an [`Answer`]
//! ([`crate::shards::answer`]). Whatever carries the bytes (a function call in one
//! process, Ray between machines) needs to know nothing of them.
//!
//! The bytes are postcard's (serde's compact binary form: varints, little-endian, no
//! field names), after a version byte. The types here mirror the index's with plain
//! fields, so a change to a stored type cannot change the messages unnoticed.

use serde::{Deserialize, Serialize};
use tessera_core::DocId;
use tessera_index::{CollectionInfo, DocMeta, SentenceEdge, Snapshot};

/// The version of these messages: a shard refuses a request of another.
pub const WIRE_VERSION: u8 = 2;

/// What a check asks of one shard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Request {
    /// The shard's fingerprint settings and collections.
    Info,
    /// The documents of `collection` holding each hash (sorted, distinct), the hashes
    /// held by more than `max_docs` of the shard's documents named instead.
    Hashes {
        /// The collection.
        collection: String,
        /// The hashes.
        hashes: Vec<u64>,
        /// The look-up's limit.
        max_docs: u64,
    },
    /// The same for terms (the translated stage), with the length of each document
    /// found.
    Terms {
        /// The collection.
        collection: String,
        /// Low 32 bits of term hashes.
        terms: Vec<u32>,
        /// The look-up's limit.
        max_docs: u64,
    },
    /// Whether any document of `collection` holds each term.
    HoldsTerms {
        /// The collection.
        collection: String,
        /// The terms.
        terms: Vec<u32>,
    },
    /// The ids of every document of this shard, deleted ones too.
    DocIds,
    /// Documents of this shard: metadata and further places always, snapshots and
    /// kept texts when asked.
    Documents {
        /// Their ids.
        docs: Vec<u64>,
        /// Whether to send snapshots.
        snapshots: bool,
        /// Whether to send kept texts.
        texts: bool,
    },
    /// Which of the hashes asked of each document (of this shard) it really holds: stage
    /// 1's check of its candidates' hits against their snapshots, made where the
    /// snapshots are.
    Holds {
        /// `(doc, hashes)` pairs.
        asked: Vec<(u64, Vec<u64>)>,
    },
}

/// A shard's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Answer {
    /// To [`Request::Info`].
    Info(ShardInfo),
    /// To [`Request::Hashes`] and [`Request::Terms`].
    Hits(Hits),
    /// To [`Request::HoldsTerms`].
    Held(Vec<bool>),
    /// To [`Request::Holds`]: one bool per hash asked, per document, in the order asked.
    HeldByDoc(Vec<Vec<bool>>),
    /// To [`Request::DocIds`], ascending.
    DocIds(Vec<u64>),
    /// To [`Request::Documents`], in the order asked.
    Documents(Vec<Document>),
    /// The request failed on the shard.
    Error(String),
}

/// A shard's settings and collections.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardInfo {
    /// The fingerprint settings stored in the shard (JSON): every shard of an index has
    /// the same.
    pub settings: String,
    /// Its collections, sorted by name.
    pub collections: Vec<ShardCollection>,
    /// Live documents of every collection.
    pub live_docs: u64,
}

/// One collection as a shard holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardCollection {
    /// Its statistics and settings.
    pub info: CollectionInfo,
    /// Committed documents (as `CollectionReader::doc_count`).
    pub doc_count: u64,
}

/// The answer to a look-up.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Hits {
    /// `(index in the request, doc)` for each document holding a key held at most
    /// `max_docs` times in this shard.
    pub hits: Vec<(u32, u64)>,
    /// Indexes of the keys held more often, ascending.
    pub over: Vec<u32>,
    /// For term look-ups: `(doc, char_len)` of every document in `hits`, ascending.
    pub lengths: Vec<(u64, u64)>,
}

/// One document as a shard sends it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Document {
    /// Its id.
    pub doc: u64,
    /// Its metadata.
    pub meta: Meta,
    /// Further places it was seen at (its origin first).
    pub seen_at: Vec<String>,
    /// Whether it is deleted.
    pub deleted: bool,
    /// Its collection.
    pub collection: String,
    /// Its snapshot, when asked.
    pub snapshot: Option<WireSnapshot>,
    /// Its kept text, when asked and kept.
    pub text: Option<String>,
}

/// [`DocMeta`] on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    title: String,
    origin: String,
    added_at: u64,
    byte_len: u64,
    char_len: u64,
    text_hash: Option<u128>,
    check_id: Option<String>,
}

impl From<DocMeta> for Meta {
    fn from(m: DocMeta) -> Self {
        Self {
            title: m.title,
            origin: m.origin,
            added_at: m.added_at,
            byte_len: m.byte_len,
            char_len: m.char_len,
            text_hash: m.text_hash,
            check_id: m.check_id,
        }
    }
}

impl From<Meta> for DocMeta {
    fn from(m: Meta) -> Self {
        Self {
            title: m.title,
            origin: m.origin,
            added_at: m.added_at,
            byte_len: m.byte_len,
            char_len: m.char_len,
            text_hash: m.text_hash,
            check_id: m.check_id,
        }
    }
}

/// [`Snapshot`] on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireSnapshot {
    hashes: Vec<u64>,
    token_bytes: Vec<(u64, u64)>,
    token_chars: Vec<(u64, u64)>,
    terms: Vec<u32>,
    sentence_starts: Vec<u64>,
    /// `(lead_bytes, lead_chars, tail_bytes, tail_chars)` per sentence.
    sentence_edges: Vec<(u32, u32, u32, u32)>,
}

impl From<Snapshot> for WireSnapshot {
    fn from(s: Snapshot) -> Self {
        Self {
            hashes: s.hashes,
            token_bytes: s.token_bytes,
            token_chars: s.token_chars,
            terms: s.terms,
            sentence_starts: s.sentence_starts,
            sentence_edges: s
                .sentence_edges
                .iter()
                .map(|e| (e.lead_bytes, e.lead_chars, e.tail_bytes, e.tail_chars))
                .collect(),
        }
    }
}

impl From<WireSnapshot> for Snapshot {
    fn from(s: WireSnapshot) -> Self {
        Self {
            hashes: s.hashes,
            token_bytes: s.token_bytes,
            token_chars: s.token_chars,
            terms: s.terms,
            sentence_starts: s.sentence_starts,
            sentence_edges: s
                .sentence_edges
                .into_iter()
                .map(|(lead_bytes, lead_chars, tail_bytes, tail_chars)| SentenceEdge {
                    lead_bytes,
                    lead_chars,
                    tail_bytes,
                    tail_chars,
                })
                .collect(),
        }
    }
}

impl Document {
    /// Its id.
    pub fn id(&self) -> DocId {
        DocId(self.doc)
    }
}

fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    let mut out = vec![WIRE_VERSION];
    // Serialising these plain types into a Vec cannot fail.
    out.extend(postcard::to_allocvec(value).unwrap_or_default());
    out
}

fn decode<'a, T: Deserialize<'a>>(bytes: &'a [u8], what: &str) -> Result<T, String> {
    match bytes.split_first() {
        Some((&WIRE_VERSION, rest)) => postcard::from_bytes(rest).map_err(|e| format!("a damaged {what}: {e}")),
        Some((v, _)) => Err(format!("a {what} of message version {v} (this build speaks {WIRE_VERSION})")),
        None => Err(format!("an empty {what}")),
    }
}

impl Request {
    /// The request's bytes.
    pub fn encode(&self) -> Vec<u8> {
        encode(self)
    }

    /// A request from its bytes; `Err` says what is wrong with them.
    pub fn decode(bytes: &[u8]) -> Result<Self, String> {
        decode(bytes, "request")
    }
}

impl Answer {
    /// The answer's bytes.
    pub fn encode(&self) -> Vec<u8> {
        encode(self)
    }

    /// An answer from its bytes; `Err` says what is wrong with them.
    pub fn decode(bytes: &[u8]) -> Result<Self, String> {
        decode(bytes, "answer")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_and_other_versions_are_refused() {
        let request = Request::Hashes { collection: "lib".into(), hashes: vec![1, u64::MAX], max_docs: 1000 };
        assert_eq!(Request::decode(&request.encode()).unwrap(), request);
        let mut bytes = request.encode();
        bytes[0] = 9;
        assert!(Request::decode(&bytes).unwrap_err().contains("message version 9"));
        assert!(Request::decode(&[]).unwrap_err().contains("empty"));
        assert!(Answer::decode(&[WIRE_VERSION, 200, 1]).unwrap_err().contains("damaged answer"));
        let answer = Answer::Hits(Hits { hits: vec![(0, 7)], over: vec![1], lengths: vec![(7, 120)] });
        assert_eq!(Answer::decode(&answer.encode()).unwrap(), answer);
    }

    #[test]
    fn snapshots_and_metadata_cross_unchanged() {
        let snapshot = Snapshot {
            hashes: vec![3, u64::MAX],
            token_bytes: vec![(0, 4), (5, 9)],
            token_chars: vec![(0, 4), (5, 9)],
            terms: vec![1, 2],
            sentence_starts: vec![0],
            sentence_edges: vec![SentenceEdge { lead_bytes: 1, lead_chars: 1, tail_bytes: 2, tail_chars: 1 }],
        };
        assert_eq!(Snapshot::from(WireSnapshot::from(snapshot.clone())), snapshot);
        let meta = DocMeta {
            title: "T".into(),
            origin: "a.txt".into(),
            added_at: 5,
            byte_len: 9,
            char_len: 9,
            text_hash: Some(u128::MAX),
            check_id: None,
        };
        assert_eq!(DocMeta::from(Meta::from(meta.clone())), meta);
    }
}
