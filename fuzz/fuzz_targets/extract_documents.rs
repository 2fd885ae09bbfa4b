//! `extract_documents` (archives: ZIP and 7z members, nested) must never panic or
//! unpack past its limits, whatever the bytes.
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run extract_documents` (from the repository
//! root); seed the corpus with `crates/extract/testdata/archive/*`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tessera_extract::{ExtractConfig, Extractor, UnpackLimits};

fuzz_target!(|data: &[u8]| {
    // Small limits so that bombs are found quickly.
    let config = ExtractConfig {
        unpack: UnpackLimits { max_total_bytes: 8 << 20, ..UnpackLimits::default() },
        ..ExtractConfig::default()
    };
    let extractor = Extractor::new(config);
    let documents = extractor.extract_documents("fuzz.zip", data);
    assert!(!documents.is_empty());
    for doc in documents {
        assert!(doc.name.starts_with("fuzz.zip"));
        if let Ok(extracted) = doc.result {
            assert!(!extracted.text.trim().is_empty());
        }
    }
});
