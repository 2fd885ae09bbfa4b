//! Index build and lookup speed on synthetic shingles; prints bytes per posting.
//!
//! `cargo bench -p tessera-index`. For the large figures in docs/design.md use the
//! `measure` example (`cargo run --release -p tessera-index --example measure`).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tessera_index::{CollectionConfig, CollectionKind, DocMeta, Index, NewDocument, Snapshot, WriterOptions};

use tessera_test_support::splitmix as mix;

/// Document `d`: `len` shingles, 5% of them drawn from a shared pool of common phrases.
fn snapshot(d: u64, len: u64) -> Snapshot {
    let hashes = (0..len)
        .map(|i| {
            let r = mix(d << 32 | i);
            if r.is_multiple_of(20) { mix(r % 5000) } else { r }
        })
        .collect();
    let spans: Vec<(u64, u64)> = (0..len + 4).map(|t| (t * 6, t * 6 + 5)).collect();
    // Real snapshots carry a term per token and a sentence start every ~20 tokens.
    let terms = (0..len + 4).map(|t| (mix(d << 32 | t) >> 40) as u32).collect();
    let sentence_starts = (0..len + 4).step_by(20).collect();
    Snapshot { hashes, token_bytes: spans.clone(), token_chars: spans, terms, sentence_starts, ..Snapshot::default() }
}

fn build(dir: &std::path::Path, docs: u64, len: u64) -> Index {
    let index = Index::create(dir, serde_json::Value::Null).expect("create");
    let mut w = index.writer(WriterOptions::default()).expect("writer");
    w.ensure_collection(CollectionConfig { name: "bench".into(), kind: CollectionKind::Source, keep_texts: false })
        .expect("collection");
    for d in 0..docs {
        let s = snapshot(d, len);
        let meta = DocMeta {
            title: String::new(),
            origin: format!("doc-{d}"),
            added_at: 0,
            byte_len: len * 6,
            char_len: len * 6,
            text_hash: None,
            check_id: None,
        };
        w.add("bench", NewDocument { meta, snapshot: &s, text: None }).expect("add");
    }
    w.commit().expect("commit");
    index
}

fn benches(c: &mut Criterion) {
    let (docs, len) = (2_000, 300);
    let dir = tempfile::tempdir().expect("tempdir");
    let index = build(dir.path(), docs, len);
    let reader = index.reader().expect("reader");
    let info = &reader.collections()[0];
    println!(
        "{docs} docs x {len} shingles: {} postings, {:.3} bytes/posting (postings sections), \
         {:.3} bytes/posting (whole segment files)",
        info.postings,
        info.postings_bytes as f64 / info.postings as f64,
        info.total_bytes as f64 / info.postings as f64
    );
    let cr = reader.collection("bench").expect("collection");

    // A suspect of 10k hashes: half from indexed docs, half absent.
    let mut suspect: Vec<u64> = (0..5_000u64)
        .map(|i| snapshot(mix(i) % docs, len).hashes[(i % len) as usize])
        .chain((0..5_000u64).map(|i| mix(!i)))
        .collect();
    suspect.sort_unstable();
    suspect.dedup();

    let mut g = c.benchmark_group("lookup");
    g.throughput(Throughput::Elements(suspect.len() as u64));
    g.bench_function("lookup_sorted_10k", |b| {
        b.iter(|| {
            let mut n = 0u64;
            cr.lookup_sorted(black_box(&suspect), |i, d| n += i as u64 ^ d.0).expect("lookup");
            n
        })
    });
    g.finish();

    let mut g = c.benchmark_group("build");
    g.sample_size(10);
    g.throughput(Throughput::Elements(500 * len));
    g.bench_function("build_500x300", |b| {
        b.iter(|| {
            let dir = tempfile::tempdir().expect("tempdir");
            build(dir.path(), 500, len);
        })
    });
    g.finish();
}

criterion_group!(index_benches, benches);
criterion_main!(index_benches);
