//! Which shard of an index owns a document: the one rule every surface calls (the
//! engine's shard builder and sharded view, the Python shard, the Ray application).
//!
//! An index split into `n` shards keeps document `id` in shard `shard_of(id, n)`: a
//! 64-bit mix of the id (SplitMix64's finaliser) modulo `n`, so consecutive ids spread
//! evenly whatever the input order. A shard adds documents only under ids it owns, so
//! ids never meet across shards, and a document's id alone says where to fetch it.

use crate::DocId;

/// The shard (`0 .. shards`) owning `doc` in an index of `shards` shards (`0` for one
/// shard or none).
///
/// ```
/// use tessera_core::{DocId, shard_of};
/// assert_eq!(shard_of(DocId(7), 1), 0);
/// let counts = (0..10_000).fold([0; 4], |mut c, id| { c[shard_of(DocId(id), 4)] += 1; c });
/// assert!(counts.iter().all(|&c| (2_300..2_700).contains(&c)));
/// ```
pub fn shard_of(doc: DocId, shards: usize) -> usize {
    if shards <= 1 {
        return 0;
    }
    // The finaliser of SplitMix64 (Steele, Lea, Flood 2014): a bijection of u64 whose
    // output bits each depend on every input bit; written here because it is three lines.
    let mut z = doc.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z % shards as u64) as usize
}

/// The first id at or after `from` that shard `shard` of `shards` owns.
///
/// ```
/// use tessera_core::{DocId, next_owned_id, shard_of};
/// let id = next_owned_id(100, 2, 5);
/// assert!(id >= 100 && shard_of(DocId(id), 5) == 2);
/// assert!((100..id).all(|i| shard_of(DocId(i), 5) != 2));
/// ```
pub fn next_owned_id(from: u64, shard: usize, shards: usize) -> u64 {
    (from..=u64::MAX).find(|&id| shard_of(DocId(id), shards) == shard).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_has_one_owner_and_owners_take_turns() {
        for shards in 1..=7 {
            let mut next = vec![0u64; shards];
            for id in 0..2_000u64 {
                let owner = shard_of(DocId(id), shards);
                assert!(owner < shards);
                // The owner's next owned id is this one: no shard skips an id it owns.
                assert_eq!(next_owned_id(next[owner], owner, shards), id);
                next[owner] = id + 1;
            }
        }
    }
}
