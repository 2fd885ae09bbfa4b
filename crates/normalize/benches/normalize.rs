//! Normalization throughput (MB/s) on real English and Russian text.
//!
//! Texts: `/work/shared/seeds/*.txt` (000 and 002 English, 001 and 003 Russian) and a
//! concatenation of PAN-13 source documents (English). Missing files are skipped; set
//! `TESSERA_BENCH_DATA` to the directory holding `seeds/` and `eval/` to move them.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tessera_normalize::{CharIndex, Normalizer, NormalizerConfig};

fn data_dir() -> PathBuf {
    std::env::var_os("TESSERA_BENCH_DATA").map_or_else(|| PathBuf::from("/work/shared"), PathBuf::from)
}

fn read_seeds(dir: &Path, prefixes: &[&str]) -> Option<String> {
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(dir.join("seeds")).ok()?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    let mut text = String::new();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if path.extension().is_some_and(|e| e == "txt") && prefixes.iter().any(|p| name.starts_with(p)) {
            text.push_str(&std::fs::read_to_string(&path).ok()?);
            text.push('\n');
        }
    }
    (!text.is_empty()).then_some(text)
}

fn read_pan(dir: &Path, max_bytes: usize) -> Option<String> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir.join("eval/pan13-training/src"))
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    entries.sort();
    let mut text = String::new();
    for path in entries {
        if text.len() >= max_bytes {
            break;
        }
        if let Ok(doc) = std::fs::read_to_string(&path) {
            text.push_str(&doc);
            text.push('\n');
        }
    }
    (!text.is_empty()).then_some(text)
}

fn bench(c: &mut Criterion) {
    let dir = data_dir();
    let texts = [
        ("english_seeds", read_seeds(&dir, &["000", "002"])),
        ("russian_seeds", read_seeds(&dir, &["001", "003"])),
        ("english_pan13_4mb", read_pan(&dir, 4 << 20)),
    ];
    let mut group = c.benchmark_group("normalize");
    for (name, text) in &texts {
        let Some(text) = text else {
            eprintln!("skipping {name}: data not found under {}", dir.display());
            continue;
        };
        group.throughput(Throughput::Bytes(text.len() as u64));
        let mut normalizer = Normalizer::new(NormalizerConfig::default()).expect("default config is valid");
        group.bench_function(*name, |b| b.iter(|| black_box(normalizer.normalize(black_box(text)))));
        // Cold cache: a fresh normalizer per text (the worst case for one-off documents).
        group.bench_function(format!("{name}_cold"), |b| {
            b.iter(|| {
                let mut fresh = Normalizer::new(NormalizerConfig::default()).expect("default config is valid");
                black_box(fresh.normalize(black_box(text)))
            })
        });
        group.bench_function(format!("{name}_char_index"), |b| {
            b.iter(|| {
                let index = CharIndex::new(black_box(text));
                black_box(index.byte_to_char(text.len() / 2))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
