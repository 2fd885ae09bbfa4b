//! Parses and fully decodes arbitrary bytes as a segment file.
//!
//! `cargo +nightly fuzz run open_segment` (from `fuzz/`). Seed the corpus with real
//! segments, e.g. `cp ../crates/index/testdata/index-v{1,2,3,4}/segments/*.seg corpus/open_segment/`.
//! Crash inputs go to `crates/index/tests/` as regression tests.
#![cfg_attr(not(feature = "replay"), no_main)]

use tessera_fuzz::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // With checksums: must reject almost everything cleanly.
    let _ = tessera_index::check_segment_bytes(data);
    // Without section checksums, so mutations reach the decoders.
    let _ = tessera_index::check_segment_bytes_ignoring_checksums(data);
});
