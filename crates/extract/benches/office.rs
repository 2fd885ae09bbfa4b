//! Pages per second for the office formats, on the 50-page fixtures made
//! by testdata/office/make.py (a page break every four paragraphs of the
//! known texts; 50 slides for PPTX). Run:
//! `cargo bench -p tessera-extract --bench office`.

use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tessera_extract::Extractor;

/// `(fixture, pages)`.
const FIXTURES: &[(&str, u64)] = &[
    ("docx/long.docx", 50),
    ("odt/long.odt", 50),
    ("pptx/long.pptx", 50),
    ("epub/long.epub", 50),
    ("markdown/long.md", 50),
];

fn pages_per_second(c: &mut Criterion) {
    let extractor = Extractor::default();
    let mut group = c.benchmark_group("office");
    for &(fixture, pages) in FIXTURES {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata").join(fixture);
        let bytes = std::fs::read(&path).expect("the fixture is committed");
        group.throughput(Throughput::Elements(pages));
        group.bench_function(fixture, |b| {
            b.iter(|| extractor.extract_bytes(fixture, &bytes).expect("the fixture extracts"));
        });
    }
    group.finish();
}

criterion_group!(benches, pages_per_second);
criterion_main!(benches);
