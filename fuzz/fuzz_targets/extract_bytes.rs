//! `extract_bytes` must never panic, whatever the bytes and the name.
//! Run: `cargo +nightly fuzz run extract_bytes` (from the repository root).

#![cfg_attr(not(feature = "replay"), no_main)]

use tessera_extract::{ExtractConfig, Extractor};
use tessera_fuzz::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first byte picks a name, so extension tie-breaks are fuzzed too.
    let (name, bytes) = match data.split_first() {
        Some((pick, rest)) => (["doc", "doc.txt", "doc.html"][usize::from(*pick % 3)], rest),
        None => ("doc", data),
    };
    let extractor = Extractor::new(ExtractConfig::default());
    if let Ok(extracted) = extractor.extract_bytes(name, bytes) {
        assert!(!extracted.text.trim().is_empty());
    }
});
