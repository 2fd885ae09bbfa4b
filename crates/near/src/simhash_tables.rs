//! Manku, Jain and Das Sarma's permuted sorted tables: every fingerprint within Hamming
//! distance `k` of a query, without scanning the collection.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{Result, config};
use crate::simhash::hamming;

/// The largest Hamming distance the tables serve.
pub const MAX_DISTANCE: u32 = 8;
/// The most tables a design may use.
pub const MAX_TABLES: usize = 256;

/// How the 64 bits are cut into blocks and which blocks key each table.
///
/// The bits are cut into `m > k` blocks of contiguous bits (block 0 holds the highest
/// bits; the first `64 mod m` blocks are one bit longer). Two fingerprints within distance
/// `k` differ in at most `k` blocks, so they agree on all blocks of at least one set of
/// `m - k` blocks. There is one table per such set (`C(m, k)` tables, sets in
/// lexicographic order): its entries are the fingerprints permuted so that the set's
/// blocks come first (ascending), then the others (ascending), sorted. A query permutes
/// itself the same way, finds the run of entries whose leading `p` bits (the set's bits)
/// equal its own by binary search, and checks each by popcount.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableDesign {
    /// The Hamming distance served.
    pub max_distance: u32,
    /// Block lengths in bits, highest bits first; they add up to 64.
    pub blocks: Vec<u32>,
}

/// One table's permutation: `(shift in the fingerprint, length, shift in the permuted
/// value)` per block, and the key's bit count and mask in fingerprint bit space. The
/// sketch store's segments (crates/index) keep their tables' records permuted by these.
#[derive(Debug, Clone)]
pub struct Permutation {
    moves: Vec<(u32, u32, u32)>,
    key_bits: u32,
    key_mask: u64,
}

fn low_mask(len: u32) -> u64 {
    if len >= 64 { u64::MAX } else { (1u64 << len) - 1 }
}

impl Permutation {
    /// `fp` with its blocks moved into this table's order.
    pub fn apply(&self, fp: u64) -> u64 {
        self.moves.iter().fold(0u64, |out, &(from, len, to)| out | (((fp >> from) & low_mask(len)) << to))
    }

    /// The table key (leading bits) of a permuted fingerprint.
    pub fn key(&self, permuted: u64) -> u64 {
        // key_bits is in 1..=64
        permuted >> (64 - self.key_bits)
    }
}

fn binomial(n: usize, k: usize) -> usize {
    (0..k).fold(1usize, |acc, i| acc.saturating_mul(n - i) / (i + 1))
}

fn blocks_of(m: usize) -> Vec<u32> {
    (0..m).map(|i| (64 / m + usize::from(i < 64 % m)) as u32).collect()
}

impl TableDesign {
    /// The design with `m` blocks for distance `k`.
    pub fn with_blocks(k: u32, m: usize) -> Result<Self> {
        if k > MAX_DISTANCE {
            return Err(config("max_distance", format!("at most {MAX_DISTANCE}, got {k}")));
        }
        if m <= k as usize || m > 64 || binomial(m, k as usize) > MAX_TABLES {
            return Err(config("blocks", format!("{m} blocks do not serve distance {k} within {MAX_TABLES} tables")));
        }
        Ok(Self { max_distance: k, blocks: blocks_of(m) })
    }

    /// The design for distance `k` over a collection of `n` fingerprints: the block count
    /// `m` minimising the expected work of a query, `C(m, k) * (1 + n / 2^p)` (one binary
    /// search per table plus the entries sharing the key, `p` being the fewest key bits
    /// of any table), among designs of at most [`MAX_TABLES`] tables; ties take fewer
    /// tables (less memory). For `k = 3`: 4 tables up to ~100,000 fingerprints, 10 tables
    /// of 25-bit keys at 10 million.
    pub fn choose(k: u32, n: u64) -> Result<Self> {
        if k > MAX_DISTANCE {
            return Err(config("max_distance", format!("at most {MAX_DISTANCE}, got {k}")));
        }
        let mut best: Option<(f64, usize)> = None;
        for m in (k as usize + 1)..=64 {
            let tables = binomial(m, k as usize);
            if tables > MAX_TABLES {
                break;
            }
            let mut sizes = blocks_of(m);
            sizes.sort_unstable();
            let p: u32 = sizes[..m - k as usize].iter().sum();
            let cost = tables as f64 * (1.0 + n as f64 / 2f64.powi(p as i32));
            if best.is_none_or(|(c, _)| cost < c * (1.0 - 1e-9)) {
                best = Some((cost, m));
            }
        }
        let (_, m) = best.ok_or_else(|| config("max_distance", "no design fits"))?;
        Self::with_blocks(k, m)
    }

    /// Number of tables.
    pub fn tables(&self) -> usize {
        binomial(self.blocks.len(), self.max_distance as usize)
    }

    /// One permutation per table, in table order.
    pub fn permutations(&self) -> Vec<Permutation> {
        let m = self.blocks.len();
        let keyed = m - self.max_distance as usize;
        // Shift of block j's lowest bit in the fingerprint.
        let mut shifts = Vec::with_capacity(m);
        let mut top = 64u32;
        for &len in &self.blocks {
            top -= len;
            shifts.push(top);
        }
        combinations(m, keyed)
            .into_iter()
            .map(|set| {
                let rest = (0..m).filter(|j| !set.contains(j));
                let mut to = 64u32;
                let mut moves = Vec::with_capacity(m);
                let (mut key_bits, mut key_mask) = (0u32, 0u64);
                for j in set.iter().copied().chain(rest) {
                    let len = self.blocks[j];
                    to -= len;
                    moves.push((shifts[j], len, to));
                }
                for &j in &set {
                    key_bits += self.blocks[j];
                    key_mask |= low_mask(self.blocks[j]) << shifts[j];
                }
                Permutation { moves, key_bits, key_mask }
            })
            .collect()
    }
}

/// All `r`-subsets of `0..n`, each ascending, in lexicographic order.
fn combinations(n: usize, r: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut cur: Vec<usize> = (0..r).collect();
    if r > n {
        return out;
    }
    loop {
        out.push(cur.clone());
        let Some(i) = (0..r).rev().find(|&i| cur[i] != i + n - r) else { break };
        cur[i] += 1;
        for j in i + 1..r {
            cur[j] = cur[j - 1] + 1;
        }
    }
    out
}

/// One sorted permuted table: permuted fingerprints and their document ids.
#[derive(Debug, Clone)]
struct Table {
    perm: Permutation,
    values: Vec<u64>,
    ids: Vec<u32>,
}

fn build_table(perm: Permutation, fps: &[u64]) -> Table {
    let mut entries: Vec<(u64, u32)> = fps.iter().enumerate().map(|(i, &f)| (perm.apply(f), i as u32)).collect();
    entries.par_sort_unstable();
    let (values, ids) = entries.into_iter().unzip();
    Table { perm, values, ids }
}

/// In-memory permuted tables over a set of fingerprints (document `i` is `fps[i]`).
#[derive(Debug, Clone)]
pub struct SimhashTables {
    design: TableDesign,
    tables: Vec<Table>,
}

impl SimhashTables {
    /// Builds the tables of `design`.
    pub fn build(fps: &[u64], design: TableDesign) -> Self {
        let tables = design.permutations().into_iter().map(|p| build_table(p, fps)).collect();
        Self { design, tables }
    }

    /// The design.
    pub fn design(&self) -> &TableDesign {
        &self.design
    }

    /// Documents within the design's distance of `fp`, ascending.
    pub fn query(&self, fp: u64) -> Vec<u32> {
        let k = self.design.max_distance;
        let mut out = Vec::new();
        for t in &self.tables {
            let q = t.perm.apply(fp);
            let key = t.perm.key(q);
            let start = t.values.partition_point(|&v| t.perm.key(v) < key);
            for (v, id) in t.values[start..].iter().zip(&t.ids[start..]) {
                if t.perm.key(*v) != key {
                    break;
                }
                if hamming(*v, q) <= k {
                    out.push(*id);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Every pair `(i, j)`, `i < j`, with `hamming(fps[i], fps[j]) <= design.max_distance`,
/// ascending: the same as comparing all pairs. One table at a time (memory: one table),
/// each pair reported by the first table whose key it shares only, so no pair is seen
/// twice. Identical fingerprints make one run of quadratic size: collapse exact copies
/// first when they are many (clustering does).
pub fn all_pairs(fps: &[u64], design: &TableDesign) -> Vec<(u32, u32)> {
    let k = design.max_distance;
    let perms = design.permutations();
    let mut pairs = Vec::new();
    for (t, perm) in perms.iter().enumerate() {
        let table = build_table(perm.clone(), fps);
        let mut runs = Vec::new();
        let mut start = 0;
        for i in 1..=table.values.len() {
            if i == table.values.len() || perm.key(table.values[i]) != perm.key(table.values[start]) {
                if i - start > 1 {
                    runs.push(start..i);
                }
                start = i;
            }
        }
        let earlier = &perms[..t];
        let found: Vec<(u32, u32)> = runs
            .into_par_iter()
            .flat_map_iter(|run| {
                let mut out = Vec::new();
                for a in run.clone() {
                    for b in a + 1..run.end {
                        if hamming(table.values[a], table.values[b]) > k {
                            continue;
                        }
                        let (ia, ib) = (table.ids[a], table.ids[b]);
                        let diff = fps[ia as usize] ^ fps[ib as usize];
                        if earlier.iter().any(|p| diff & p.key_mask == 0) {
                            continue;
                        }
                        out.push((ia.min(ib), ia.max(ib)));
                    }
                }
                out
            })
            .collect();
        pairs.extend(found);
    }
    pairs.par_sort_unstable();
    pairs
}

/// All pairs by comparing every pair: the reference the tables must equal.
pub fn all_pairs_brute_force(fps: &[u64], k: u32) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for i in 0..fps.len() {
        for j in i + 1..fps.len() {
            if hamming(fps[i], fps[j]) <= k {
                out.push((i as u32, j as u32));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;
    use proptest::prelude::*;

    #[test]
    fn designs_follow_collection_size() {
        let small = TableDesign::choose(3, 1000).unwrap();
        assert_eq!(small.blocks.len(), 4);
        assert_eq!(small.tables(), 4);
        let big = TableDesign::choose(3, 10_000_000).unwrap();
        assert_eq!(big.blocks, [13, 13, 13, 13, 12]);
        assert_eq!(big.tables(), 10);
        assert!(TableDesign::choose(MAX_DISTANCE + 1, 10).is_err());
        assert!(TableDesign::with_blocks(3, 3).is_err());
        assert_eq!(TableDesign::choose(0, 10).unwrap().tables(), 1);
    }

    #[test]
    fn permutations_are_bijections() {
        let d = TableDesign::with_blocks(3, 6).unwrap();
        let mut rng = SplitMix64::new(3);
        for p in d.permutations() {
            for _ in 0..100 {
                let (a, b) = (rng.next_u64(), rng.next_u64());
                assert_eq!(hamming(p.apply(a), p.apply(b)), hamming(a, b));
                assert_eq!(p.apply(a).count_ones(), a.count_ones());
            }
        }
        assert_eq!(combinations(4, 2).len(), 6);
    }

    fn planted(seed: u64, n: usize, k: u32) -> Vec<u64> {
        let mut rng = SplitMix64::new(seed);
        let mut fps: Vec<u64> = Vec::with_capacity(n);
        for i in 0..n {
            let r = rng.next_u64();
            if i > 0 && r.is_multiple_of(2) {
                // A neighbour of an earlier fingerprint: flip up to k + 1 random bits.
                let mut f = fps[(r as usize / 2) % i];
                for _ in 0..(rng.next_u64() % u64::from(k + 2)) {
                    f ^= 1 << (rng.next_u64() % 64);
                }
                fps.push(f);
            } else {
                fps.push(rng.next_u64());
            }
        }
        fps
    }

    proptest! {
        #[test]
        fn tables_equal_brute_force(seed in any::<u64>(), n in 1usize..120, k in 0u32..5, extra in 1usize..4) {
            let fps = planted(seed, n, k);
            let m = k as usize + extra;
            let design = TableDesign::with_blocks(k, m).unwrap();
            let brute = all_pairs_brute_force(&fps, k);
            prop_assert_eq!(all_pairs(&fps, &design), brute.clone());
            let tables = SimhashTables::build(&fps, design);
            for (i, &f) in fps.iter().enumerate() {
                let expect: Vec<u32> = (0..fps.len() as u32).filter(|&j| hamming(fps[j as usize], f) <= k).collect();
                prop_assert_eq!(tables.query(f), expect, "query {}", i);
            }
        }
    }
}
