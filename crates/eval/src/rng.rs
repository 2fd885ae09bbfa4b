//! The seeded generator behind every generated corpus (`bench generate`, the planted
//! near-duplicate set), so the same seed gives the same data everywhere: the workspace's
//! one SplitMix64 (`tessera-near`'s, the generator of its coefficients), with the draws a
//! corpus generator makes ([`Draws`]).

pub use tessera_near::SplitMix64;

/// The draws a corpus generator makes from [`SplitMix64`].
pub trait Draws {
    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64;

    /// In `[0, n)` (0 when `n` is 0).
    fn below(&mut self, n: u64) -> u64;

    /// An index into a sequence of `len` items (0 when it is empty).
    fn index(&mut self, len: usize) -> usize;
}

impl Draws for SplitMix64 {
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequence_is_splitmix64s() {
        // The first outputs of SplitMix64 seeded with 0 (Vigna's reference code): every
        // generated corpus depends on them.
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        let mut rng = SplitMix64::new(7);
        assert!((0..1000).all(|_| rng.unit() < 1.0 && rng.below(10) < 10 && rng.index(0) == 0));
    }
}
