//! The crawl log (`<index>/crawl/log`): replaying arbitrary bytes must give a state or a
//! typed error, never a panic, whether the crawl is listed (`outcomes`, `attachments`,
//! `stored_config`: read-only replay) or resumed (replay, torn-tail repair, frontier).
//!
//! The first byte picks the mode: even, the rest is the log as is (every line needs its
//! crc32, so almost all are refused); odd, the harness prefixes each line of the rest with
//! its checksum, so mutations reach the record decoder and the replay.
//!
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run crawl_log`; seeds in `fuzz/corpus/crawl_log/`
//! (odd mode: JSON records one a line).
#![cfg_attr(not(feature = "replay"), no_main)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tessera_crawl::Crawler;
use tessera_fuzz::fuzz_target;

fn state_dir() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &DIR.get_or_init(|| {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path().join("crawl");
        std::fs::create_dir_all(&dir).expect("state dir");
        (tmp, dir)
    })
    .1
}

/// Each line of `rest` as a log record: `crc32 (8 hex digits) SP json LF`.
fn checksummed(rest: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(rest.len() * 2);
    for line in rest.split(|&b| b == b'\n') {
        out.extend_from_slice(format!("{:08x} ", crc32fast::hash(line)).as_bytes());
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let bytes = if mode & 1 == 0 { rest.to_vec() } else { checksummed(rest) };
    let dir = state_dir();
    std::fs::write(dir.join("log"), &bytes).expect("write log");
    let _ = Crawler::stored_config(dir);
    let _ = Crawler::outcomes(dir);
    let _ = Crawler::attachments(dir);
    if let Ok(mut crawler) = Crawler::resume(dir, None) {
        let _ = crawler.revisit();
    }
});
