//! Markdown must never panic, whether chosen by its extension or sniffed by
//! content, and its origins must stay inside the text.
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run markdown` (from the repository
//! root); seed the corpus with `crates/extract/testdata/markdown/*`.

#![cfg_attr(not(feature = "replay"), no_main)]

use tessera_extract::{ExtractConfig, Extractor};
use tessera_fuzz::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let extractor = Extractor::new(ExtractConfig::default());
    // By extension: the Markdown extractor, unless a magic number says
    // otherwise (an RTF named `.md` is RTF).
    if let Ok(doc) = extractor.extract_bytes("fuzz.md", data) {
        assert!(!doc.text.trim().is_empty());
        for origin in &doc.origins {
            assert!(origin.start < origin.end && origin.end <= doc.text.len());
            assert!(doc.text.is_char_boundary(origin.start) && doc.text.is_char_boundary(origin.end));
        }
    }
    // By content: the sniffer decides, and whatever it picks must hold.
    if let Ok(doc) = extractor.extract_bytes("upload", data) {
        assert!(!doc.text.trim().is_empty());
    }
});
