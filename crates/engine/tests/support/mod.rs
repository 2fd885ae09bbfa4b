//! What the engine's integration tests share: a new index in a temporary directory and
//! made-up words.
#![allow(dead_code, clippy::unwrap_used)]

use tessera_engine::{Engine, EngineOptions, FingerprintSettings};

/// A new index with the default fingerprint settings; the directory lives as long as the
/// returned guard.
pub fn new_engine(options: EngineOptions) -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open_or_create(&dir.path().join("idx"), &FingerprintSettings::default(), options).unwrap();
    (dir, engine)
}

/// `n` made-up words of `min_len` to `min_len + spread - 1` letters, from `seed`
/// (xorshift: the same words on every run).
pub fn words(seed: u64, n: usize, min_len: usize, spread: u64) -> Vec<String> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (0..min_len + (x % spread) as usize).map(|k| (b'a' + ((x >> (k * 5)) % 26) as u8) as char).collect()
        })
        .collect()
}
