//! PDF extraction speed in pages per second, on the committed fixtures:
//! in this process, and through a worker process when `TESSERA_BIN` names a
//! built `tessera` executable (one process start per document).
//!
//! `cargo bench -p tessera-extract --bench pdf` (needs libpdfium.so, which
//! the build fetches); with the worker:
//! `cargo build --release -p tessera-cli && TESSERA_BIN=target/release/tessera cargo bench -p tessera-extract --bench pdf`.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tessera_extract::{ExtractConfig, WorkerCommand, extract_bytes, pdfium_library};

fn pdf(c: &mut Criterion) {
    if !pdfium_library(None).iter().any(|p| p.is_file()) {
        eprintln!("libpdfium.so not found: the build could not fetch it (scripts/setup-pdfium.sh installs it)");
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/pdf");
    let local = ExtractConfig { ocr: false, ..ExtractConfig::default() };
    let worker = std::env::var_os("TESSERA_BIN").map(|bin| ExtractConfig {
        isolation: Some(WorkerCommand::new(bin, vec!["__extract-worker".into()])),
        ..local.clone()
    });
    let mut g = c.benchmark_group("pdf");
    for name in ["en.pdf", "ru.pdf", "layout.pdf"] {
        let bytes = std::fs::read(dir.join(name)).expect("fixture");
        let doc = extract_bytes(name, &bytes, &local).expect("extracts");
        g.throughput(Throughput::Elements(u64::from(doc.metadata.pages.unwrap_or(1))));
        g.bench_function(format!("in-process/{name}"), |b| {
            b.iter(|| extract_bytes(name, black_box(&bytes), &local).expect("extracts"));
        });
        if let Some(worker) = &worker {
            g.bench_function(format!("worker/{name}"), |b| {
                b.iter(|| extract_bytes(name, black_box(&bytes), worker).expect("extracts"));
            });
        }
    }
    g.finish();
}

criterion_group!(benches, pdf);
criterion_main!(benches);
