//! Merges an index's collections down to at most N segments each and prints what it did,
//! until `tessera optimize` exists.
//!
//! ```text
//! cargo run --release -p tessera-index --example optimize -- INDEX_DIR [MAX_SEGMENTS]
//! ```

use std::time::Instant;

use tessera_index::{Index, WriterOptions};

fn main() -> tessera_index::Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("usage: optimize INDEX_DIR [MAX_SEGMENTS]");
    let max: usize = args.next().map_or(1, |a| a.parse().expect("a number of segments"));
    let index = Index::open(dir.as_ref())?;
    let before = index.reader()?.collections();
    let started = Instant::now();
    let stats = index.writer(WriterOptions::default())?.optimize(max)?;
    let seconds = started.elapsed().as_secs_f64();
    let after = index.reader()?.collections();
    for (b, a) in before.iter().zip(&after) {
        println!(
            "{}: {} -> {} segments, {} -> {} deleted, {:.1} -> {:.1} MB",
            a.config.name,
            b.segments,
            a.segments,
            b.deleted,
            a.deleted,
            b.total_bytes as f64 / 1e6,
            a.total_bytes as f64 / 1e6
        );
    }
    println!(
        "{} merges of {} segments: {} documents copied, {} purged, {:.1} MB read, {:.1} MB written in {seconds:.1} s",
        stats.merges,
        stats.segments_merged,
        stats.docs,
        stats.purged,
        stats.bytes_read as f64 / 1e6,
        stats.bytes_written as f64 / 1e6
    );
    Ok(())
}
