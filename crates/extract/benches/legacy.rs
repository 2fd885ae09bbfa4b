//! DOC and RTF extraction speed: documents per second on the one-page
//! LibreOffice fixtures of the known texts, and pages per second on a
//! 50-page RTF built from them (`\page` between copies).
//!
//! `cargo bench -p tessera-extract --bench legacy`; figures in
//! docs/performance.md.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tessera_extract::{DocExtractor, Extract, ExtractConfig, RtfExtractor};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/testdata/{name}", env!("CARGO_MANIFEST_DIR"))).expect("fixture")
}

fn bench(c: &mut Criterion) {
    let config = ExtractConfig::default();
    let mut group = c.benchmark_group("legacy");
    for (name, extractor) in [
        ("doc/en.doc", &DocExtractor as &dyn Extract),
        ("doc/ru.doc", &DocExtractor),
        ("rtf/en.rtf", &RtfExtractor),
        ("rtf/ru.rtf", &RtfExtractor),
    ] {
        let bytes = fixture(name);
        group.throughput(Throughput::Elements(1));
        group.bench_function(name, |b| {
            b.iter(|| extractor.extract(name, black_box(&bytes), &config).expect("extracts"));
        });
    }
    // 50 pages: the body of ru.rtf 50 times, a \page between copies.
    let ru = String::from_utf8(fixture("rtf/ru.rtf")).expect("ASCII RTF");
    let body_at = ru.find("\\pard").expect("a paragraph");
    let (head, body) = ru.split_at(body_at);
    let body = body.trim_end().trim_end_matches('}');
    let pages = 50;
    let long = format!("{head}{}}}", vec![body; pages].join("\\page\n"));
    group.throughput(Throughput::Elements(pages as u64));
    group.bench_function("rtf/ru x50 pages", |b| {
        b.iter(|| RtfExtractor.extract("long.rtf", black_box(long.as_bytes()), &config).expect("extracts"));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
