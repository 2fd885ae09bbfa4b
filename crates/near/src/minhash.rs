//! MinHash signatures over 64-bit shingle hashes.

use serde::{Deserialize, Serialize};

use crate::error::{Result, config};
use crate::rng::SplitMix64;

/// The largest number of hash functions accepted.
pub const MAX_PERMUTATIONS: usize = 4096;

/// MinHash settings. They change signatures, so an index stores them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct MinHashConfig {
    /// Number of hash functions (signature length).
    pub num_perm: usize,
    /// Seed of the hash family's coefficients.
    pub seed: u64,
}

impl Default for MinHashConfig {
    fn default() -> Self {
        Self { num_perm: 128, seed: 1 }
    }
}

/// A MinHash signature: for each hash function, the minimum over the document's
/// shingles. A document without shingles has every value `u32::MAX` and is *empty*.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Signature(pub Vec<u32>);

impl Signature {
    /// True when the document had no shingle.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&v| v == u32::MAX)
    }

    /// Estimated Jaccard similarity: the share of positions where both signatures agree.
    /// Signatures of different lengths, or an empty one, give 0.
    pub fn jaccard(&self, other: &Signature) -> f64 {
        if self.0.len() != other.0.len() || self.0.is_empty() || self.is_empty() || other.is_empty() {
            return 0.0;
        }
        let equal = self.0.iter().zip(&other.0).filter(|(a, b)| a == b).count();
        equal as f64 / self.0.len() as f64
    }
}

/// Computes MinHash signatures. Built once, reused (it holds the coefficients).
///
/// Hash function `i` maps a shingle hash `x` (a uniform 64-bit xxh3 value) to
/// `h_i(x) = (a_i * x + b_i) mod 2^64 >> 32`, the high 32 bits of a multiply-add in
/// wrapping `u64` arithmetic (Dietzfelbinger's multiply-add-shift family). `a_i` (forced
/// odd) and `b_i` are drawn, in that order for `i = 0, 1, ...`, from SplitMix64 seeded
/// with [`MinHashConfig::seed`]. The inner loop runs over the functions with no branch, so
/// the compiler vectorises it; with AVX-512 the functions are taken in blocks whose
/// coefficients and minimums stay in registers (`kernel_blocked`).
#[derive(Debug, Clone)]
pub struct MinHasher {
    config: MinHashConfig,
    a: Vec<u64>,
    b: Vec<u64>,
}

impl MinHasher {
    /// Validates the settings and draws the coefficients.
    pub fn new(config: MinHashConfig) -> Result<Self> {
        if config.num_perm == 0 || config.num_perm > MAX_PERMUTATIONS {
            return Err(config_err(config.num_perm));
        }
        let mut rng = SplitMix64::new(config.seed);
        let (mut a, mut b) = (Vec::with_capacity(config.num_perm), Vec::with_capacity(config.num_perm));
        for _ in 0..config.num_perm {
            a.push(rng.next_u64() | 1);
            b.push(rng.next_u64());
        }
        Ok(Self { config, a, b })
    }

    /// The settings.
    pub fn config(&self) -> MinHashConfig {
        self.config
    }

    /// The signature of a set of shingle hashes (duplicates and order do not matter).
    pub fn sign(&self, hashes: &[u64]) -> Signature {
        let mut out = vec![u32::MAX; self.a.len()];
        self.sign_into(hashes, &mut out);
        Signature(out)
    }

    /// Folds `hashes` into `mins` (length `num_perm`), so a signature can be built from
    /// several batches; start from `u32::MAX` everywhere.
    pub fn sign_into(&self, hashes: &[u64], mins: &mut [u32]) {
        let n = self.a.len().min(mins.len());
        let (a, b, mins) = (&self.a[..n], &self.b[..n], &mut mins[..n]);
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512dq") {
                // SAFETY: the CPU has AVX-512 F and DQ (checked just above); the function
                // is the portable kernel compiled with them enabled.
                #[allow(unsafe_code)]
                unsafe {
                    kernel_avx512(a, b, mins, hashes);
                }
                return;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2 (checked just above).
                #[allow(unsafe_code)]
                unsafe {
                    kernel_avx2(a, b, mins, hashes);
                }
                return;
            }
        }
        kernel(a, b, mins, hashes);
    }
}

/// The kernel, compiled with AVX-512 (8 lanes of 64-bit multiplies, `vpmullq`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
fn kernel_avx512(a: &[u64], b: &[u64], mins: &mut [u32], hashes: &[u64]) {
    kernel_blocked(a, b, mins, hashes);
}

/// The kernel, compiled with AVX2 (4 lanes).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn kernel_avx2(a: &[u64], b: &[u64], mins: &mut [u32], hashes: &[u64]) {
    kernel(a, b, mins, hashes);
}

/// Functions per block of [`kernel_blocked`]: 64 coefficients `a`, 64 `b` and 64
/// running minimums of 64 bits are 24 AVX-512 registers of the 32.
const BLOCK: usize = 64;

/// The kernel for AVX-512, which has unsigned 64-bit minimums (`vpminuq`): for each block
/// of [`BLOCK`] functions, every shingle is folded into 64-bit minimums of `a * x + b`
/// held in registers (no load or store of `mins` per shingle, no shift), and the block's
/// minimums are shifted once at the end. The same values as [`kernel`]: `v >> 32` does
/// not decrease as `v` grows, so the smallest `v >> 32` is the smallest `v`, shifted.
#[inline(always)]
fn kernel_blocked(a: &[u64], b: &[u64], mins: &mut [u32], hashes: &[u64]) {
    let mut a_blocks = a.chunks_exact(BLOCK);
    let mut b_blocks = b.chunks_exact(BLOCK);
    let mut m_blocks = mins.chunks_exact_mut(BLOCK);
    for ((a, b), m) in (&mut a_blocks).zip(&mut b_blocks).zip(&mut m_blocks) {
        let a: &[u64; BLOCK] = a.try_into().expect("a block");
        let b: &[u64; BLOCK] = b.try_into().expect("a block");
        let mut low = [u64::MAX; BLOCK];
        for &x in hashes {
            for j in 0..BLOCK {
                low[j] = low[j].min(a[j].wrapping_mul(x).wrapping_add(b[j]));
            }
        }
        for (m, low) in m.iter_mut().zip(low) {
            *m = (*m).min((low >> 32) as u32);
        }
    }
    kernel(a_blocks.remainder(), b_blocks.remainder(), m_blocks.into_remainder(), hashes);
}

/// The portable kernel: branch-free loops over the functions, which the compiler
/// vectorises for whatever instruction set the caller enables. Every variant computes the
/// same values.
#[inline(always)]
fn kernel(a: &[u64], b: &[u64], mins: &mut [u32], hashes: &[u64]) {
    // Four shingles per pass over the coefficients: fewer loads and stores of `mins`.
    let mut chunks = hashes.chunks_exact(4);
    for c in &mut chunks {
        let (x0, x1, x2, x3) = (c[0], c[1], c[2], c[3]);
        for ((m, &a), &b) in mins.iter_mut().zip(a).zip(b) {
            let h0 = (a.wrapping_mul(x0).wrapping_add(b) >> 32) as u32;
            let h1 = (a.wrapping_mul(x1).wrapping_add(b) >> 32) as u32;
            let h2 = (a.wrapping_mul(x2).wrapping_add(b) >> 32) as u32;
            let h3 = (a.wrapping_mul(x3).wrapping_add(b) >> 32) as u32;
            *m = (*m).min(h0.min(h1)).min(h2.min(h3));
        }
    }
    for &x in chunks.remainder() {
        for ((m, &a), &b) in mins.iter_mut().zip(a).zip(b) {
            *m = (*m).min((a.wrapping_mul(x).wrapping_add(b) >> 32) as u32);
        }
    }
}

fn config_err(n: usize) -> crate::Error {
    config("num_perm", format!("must be between 1 and {MAX_PERMUTATIONS}, got {n}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn hasher(n: usize) -> MinHasher {
        MinHasher::new(MinHashConfig { num_perm: n, seed: 7 }).unwrap()
    }

    #[test]
    fn rejects_bad_sizes() {
        assert!(MinHasher::new(MinHashConfig { num_perm: 0, seed: 0 }).is_err());
        assert!(MinHasher::new(MinHashConfig { num_perm: MAX_PERMUTATIONS + 1, seed: 0 }).is_err());
    }

    #[test]
    fn order_and_duplicates_do_not_matter() {
        let h = hasher(64);
        let a = h.sign(&[1, 2, 3, 4, 5, 6, 7]);
        let b = h.sign(&[7, 6, 5, 5, 4, 3, 2, 1, 1]);
        assert_eq!(a, b);
        assert!((a.jaccard(&b) - 1.0).abs() < f64::EPSILON);
    }

    #[test]
    fn empty_documents_match_nothing() {
        let h = hasher(16);
        let e = h.sign(&[]);
        assert!(e.is_empty());
        assert!(e.jaccard(&e).abs() < f64::EPSILON);
        assert!(!h.sign(&[1]).is_empty());
    }

    #[test]
    fn every_kernel_gives_the_same_values() {
        let h = hasher(128);
        let xs: Vec<u64> = (0..1001u64).map(crate::rng::mix64).collect();
        let mut portable = vec![u32::MAX; 128];
        kernel(&h.a, &h.b, &mut portable, &xs);
        assert_eq!(h.sign(&xs).0, portable);
        // Golden values (computed independently in Python from the documented family):
        // the family is part of the on-disk format.
        assert_eq!(&h.sign(&[1, 2, 3]).0[..2], &[800055940, 1224977650]);
    }

    proptest! {
        /// The blocked kernel (AVX-512) against the plain one, for every remainder of a
        /// block and batch sizes around the four-shingle step.
        #[test]
        fn blocked_kernel_gives_the_same_values(n in 1usize..200, len in 0usize..40, salt in any::<u64>()) {
            let h = hasher(n);
            let mut rng = SplitMix64::new(salt);
            let xs: Vec<u64> = (0..len).map(|_| rng.next_u64()).collect();
            let start: Vec<u32> = (0..n).map(|i| if i % 3 == 0 { u32::MAX } else { rng.next_u64() as u32 }).collect();
            let (mut plain, mut blocked) = (start.clone(), start);
            kernel(&h.a, &h.b, &mut plain, &xs);
            kernel_blocked(&h.a, &h.b, &mut blocked, &xs);
            prop_assert_eq!(&blocked, &plain);
            prop_assert_eq!(h.sign(&xs).0, {
                let mut fresh = vec![u32::MAX; n];
                kernel(&h.a, &h.b, &mut fresh, &xs);
                fresh
            });
        }
    }

    #[test]
    fn batches_equal_one_call() {
        let h = hasher(32);
        let all: Vec<u64> = (0..37u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        let mut mins = vec![u32::MAX; 32];
        h.sign_into(&all[..10], &mut mins);
        h.sign_into(&all[10..], &mut mins);
        assert_eq!(Signature(mins), h.sign(&all));
    }

    proptest! {
        // With 256 functions the estimate's standard error is at most 0.5/16 = 0.031;
        // 5 standard errors make a false failure practically impossible.
        #[test]
        fn estimate_is_near_exact_jaccard(shared in 0usize..300, only_a in 0usize..300, only_b in 0usize..300, salt in any::<u64>()) {
            prop_assume!(shared + only_a + only_b > 0);
            let mut rng = SplitMix64::new(salt);
            let s: Vec<u64> = (0..shared).map(|_| rng.next_u64()).collect();
            let mut a = s.clone();
            a.extend((0..only_a).map(|_| rng.next_u64()));
            let mut b = s;
            b.extend((0..only_b).map(|_| rng.next_u64()));
            let exact = shared as f64 / (shared + only_a + only_b) as f64;
            let h = hasher(256);
            let (sa, sb) = (h.sign(&a), h.sign(&b));
            let est = if a.is_empty() || b.is_empty() { 0.0 } else { sa.jaccard(&sb) };
            let expected = if a.is_empty() || b.is_empty() { 0.0 } else { exact };
            prop_assert!((est - expected).abs() <= 5.0 * 0.5 / 16.0, "estimate {est} exact {expected}");
        }
    }
}
