//! The DOC parser must never panic or hang, whatever the bytes; what it
//! returns must hold to the contract (text not blank, origins in bounds).
//! Run: `cargo +nightly fuzz run doc` (from the repository root); seed the
//! corpus with `crates/extract/testdata/doc/`.

#![cfg_attr(not(feature = "replay"), no_main)]

use tessera_extract::{DocExtractor, Extract, ExtractConfig};
use tessera_fuzz::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(extracted) = DocExtractor.extract("fuzz.doc", data, &ExtractConfig::default()) {
        assert!(!extracted.text.trim().is_empty());
        for origin in &extracted.origins {
            assert!(origin.start < origin.end && origin.end <= extracted.text.len());
            assert!(extracted.text.is_char_boundary(origin.start) && extracted.text.is_char_boundary(origin.end));
        }
    }
});
