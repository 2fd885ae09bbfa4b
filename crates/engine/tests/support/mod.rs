//! What the engine's integration tests share: a new index in a temporary directory, the
//! demo texts and made-up words.
#![allow(dead_code, unused_imports, clippy::unwrap_used)]

use tessera_engine::{Engine, EngineOptions, FingerprintSettings};

/// A new index with the default fingerprint settings; the directory lives as long as the
/// returned guard.
pub fn new_engine(options: EngineOptions) -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open_or_create(&dir.path().join("idx"), &FingerprintSettings::default(), options).unwrap();
    (dir, engine)
}

/// A text of the bundled demo (`testdata/demo/NAME`).
pub fn demo(name: &str) -> String {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/demo").join(name);
    std::fs::read_to_string(&path).unwrap()
}

/// `n` made-up words of `min_len` to `min_len + spread - 1` letters, from `seed` (the
/// same words on every run).
pub use tessera_test_support::words::words;
