//! The per-segment term dictionary of segment format 3: every distinct term hash of the
//! segment's snapshots once, so a snapshot stores small term ids, and the shingle
//! settings that let a reader derive a snapshot's shingle hashes from its terms instead
//! of storing them.
//!
//! Block layout (little-endian), after the snapshot offset table in the snapshot offsets
//! section:
//!
//! ```text
//! u32  shingle size (0: no record of the segment derives its hashes)
//! u64  shingle seed
//! u64  term_count
//! u64  terms[term_count]     full 64-bit term hashes, in first-seen order (id = index)
//! ```
//!
//! A term of a document added without its full term hashes is its low 32 bits,
//! zero-extended; such documents store their shingle hashes, so the missing high bits
//! never matter.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use tessera_fingerprint::{ShingleConfig, Shingler};

use crate::varint::ByteReader;

/// Bytes of the block's header.
pub(crate) const DICT_HEADER_LEN: usize = 4 + 8 + 8;

/// Term hashes are uniform already: hash them by taking their bits.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct TermHasher(u64);

impl Hasher for TermHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, v: u64) {
        // Mixed once so that zero-extended 32-bit terms spread over the table too.
        self.0 = v.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (v >> 29);
    }
}

/// Builds one segment's dictionary.
#[derive(Debug, Default)]
pub(crate) struct DictBuilder {
    ids: HashMap<u64, u32, BuildHasherDefault<TermHasher>>,
    terms: Vec<u64>,
    /// The shingle settings of the first document given with full terms; documents
    /// with other settings store their hashes.
    shingler: Option<Shingler>,
}

impl DictBuilder {
    /// The id of `term`, added if new.
    pub(crate) fn id(&mut self, term: u64) -> u32 {
        let next = self.terms.len() as u32;
        *self.ids.entry(term).or_insert_with(|| {
            self.terms.push(term);
            next
        })
    }

    /// The shingler hashes of this segment may be derived with, given the settings of
    /// a new document: the segment's, fixed by its first document that had them.
    pub(crate) fn shingler_for(&mut self, config: ShingleConfig) -> Option<Shingler> {
        match self.shingler {
            Some(s) => (s.config() == config).then_some(s),
            None => {
                self.shingler = Shingler::new(config).ok();
                self.shingler
            }
        }
    }

    /// Memory held, in bytes.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.terms.capacity() * 8 + self.ids.capacity() * 16
    }

    /// The block's bytes.
    pub(crate) fn write(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let (size, seed) = self.shingler.map_or((0, 0), |s| (s.config().size as u32, s.config().seed));
        let mut head = Vec::with_capacity(DICT_HEADER_LEN);
        head.extend_from_slice(&size.to_le_bytes());
        head.extend_from_slice(&seed.to_le_bytes());
        head.extend_from_slice(&(self.terms.len() as u64).to_le_bytes());
        out.write_all(&head)?;
        let mut body = Vec::with_capacity(self.terms.len() * 8);
        for t in &self.terms {
            body.extend_from_slice(&t.to_le_bytes());
        }
        out.write_all(&body)
    }
}

/// A read-only view of one segment's dictionary. O(1) to build.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TermDict<'a> {
    terms: &'a [u8],
    shingler: Option<Shingler>,
}

impl<'a> TermDict<'a> {
    /// Parses a block; `Err` holds the reason.
    pub(crate) fn parse(bytes: &'a [u8]) -> Result<TermDict<'a>, String> {
        let mut r = ByteReader::new(bytes);
        let short = || format!("term dictionary of {} bytes is truncated", bytes.len());
        let size = r.u32_le().ok_or_else(short)?;
        let seed = r.u64_le().ok_or_else(short)?;
        let count = r.u64_le().ok_or_else(short)?;
        if count.checked_mul(8) != Some(r.remaining() as u64) {
            return Err(format!("term dictionary claims {count} terms in {} bytes", r.remaining()));
        }
        let shingler = if size == 0 {
            None
        } else {
            let config = ShingleConfig { size: size as usize, seed };
            Some(Shingler::new(config).map_err(|e| format!("term dictionary: {e}"))?)
        };
        Ok(TermDict { terms: &bytes[DICT_HEADER_LEN..], shingler })
    }

    /// An empty dictionary (segments of format 1 and 2).
    pub(crate) fn empty() -> TermDict<'static> {
        TermDict { terms: &[], shingler: None }
    }

    /// Term `id`, if the dictionary has it.
    #[inline]
    pub(crate) fn term(&self, id: u64) -> Option<u64> {
        let at = usize::try_from(id).ok()?.checked_mul(8)?;
        let b = self.terms.get(at..at + 8)?;
        Some(u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }

    /// Terms in the dictionary.
    pub(crate) fn len(&self) -> usize {
        self.terms.len() / 8
    }

    /// The shingler hashes are derived with, if any record may derive them.
    pub(crate) fn shingler(&self) -> Option<Shingler> {
        self.shingler
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // unwrap is fine in tests
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_damage() {
        let mut b = DictBuilder::default();
        assert_eq!((b.id(7), b.id(u64::MAX), b.id(7)), (0, 1, 0));
        assert!(b.shingler_for(ShingleConfig { size: 3, seed: 9 }).is_some());
        assert!(b.shingler_for(ShingleConfig { size: 4, seed: 9 }).is_none());
        let mut bytes = Vec::new();
        b.write(&mut bytes).unwrap();
        let d = TermDict::parse(&bytes).unwrap();
        assert_eq!((d.len(), d.term(0), d.term(1), d.term(2)), (2, Some(7), Some(u64::MAX), None));
        assert_eq!(d.shingler().unwrap().config(), ShingleConfig { size: 3, seed: 9 });
        for cut in 0..bytes.len() {
            assert!(TermDict::parse(&bytes[..cut]).is_err());
        }
        bytes[0] = 99; // shingle size 99: invalid
        assert!(TermDict::parse(&bytes).is_err());
    }
}
