//! PDF extraction in this process (PDFium behind the global lock, no worker,
//! no OCR) must never panic, and any text it returns is not blank. PDFium
//! is C++ and not instrumented: a crash or hang found here inside PDFium is
//! exactly what the worker process (`ExtractConfig::isolation`) contains in
//! production. Needs libpdfium.so (fetched by the build of tessera-extract).
//! Run: `cargo +nightly fuzz run pdf` (seed: crates/extract/testdata/pdf).

#![cfg_attr(not(feature = "replay"), no_main)]

use std::sync::Once;

use tessera_extract::{Extract, ExtractConfig, PdfExtractor, pdfium_library};
use tessera_fuzz::fuzz_target;

static PDFIUM: Once = Once::new();

fuzz_target!(|data: &[u8]| {
    // Without the library every input is the same "not found" error: fuzzing nothing.
    PDFIUM.call_once(|| {
        assert!(
            pdfium_library(None).iter().any(|p| p.is_file()),
            "libpdfium.so not found: the build of tessera-extract could not fetch it (see its warning)"
        );
    });
    let config = ExtractConfig { ocr: false, ..ExtractConfig::default() };
    if let Ok(extracted) = PdfExtractor.extract("fuzz.pdf", data, &config) {
        assert!(!extracted.text.trim().is_empty());
        assert!(extracted.origins.iter().all(|o| o.start < o.end && o.end <= extracted.text.len()));
    }
});
