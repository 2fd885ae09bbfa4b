//! Profiling aid for the sketch path (docs/performance.md, near-duplicates).
//!
//! `sketch_profile PASSES FILES...`: `sketch_input` + a 128-function MinHash signature
//! of every file, one cold pass (it fills the word caches) then `PASSES` warm ones in
//! `measured`, and their MB/s by wall clock and by CPU time. Profile the warm passes with
//! `valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*sketch_profile::measured*'`
//! or `perf record -e cpu-clock`.
//!
//! `sketch_profile checksum FILES...`: one hash per file of everything fingerprinting
//! and sketching produce (shingles, terms, token spans, sentences, folded words), and
//! one of them all: equal before and after a change means no fingerprint changed.
#![allow(clippy::unwrap_used, missing_docs)]

use tessera_engine::{FingerprintSettings, Fingerprinter};
use tessera_near::{MinHashConfig, MinHasher};

#[inline(never)]
fn pass(fp: &mut Fingerprinter, hasher: &MinHasher, texts: &[String]) -> u64 {
    let mut acc = 0u64;
    for t in texts {
        let input = fp.sketch_input(t, 10);
        acc = acc.wrapping_add(
            std::hint::black_box(hasher.sign(&input.shingles)).jaccard(&std::hint::black_box(hasher.sign(&[]))) as u64,
        );
    }
    acc
}

#[inline(never)]
fn measured(fp: &mut Fingerprinter, hasher: &MinHasher, texts: &[String]) -> u64 {
    pass(fp, hasher, texts)
}

fn checksum(files: &[String]) {
    use std::hash::{Hash, Hasher};
    let mut fp = Fingerprinter::new(&FingerprintSettings::default()).unwrap();
    let mut all = std::collections::hash_map::DefaultHasher::new();
    for p in files {
        let Ok(t) = std::fs::read_to_string(p) else { continue };
        let f = fp.fingerprint(&t);
        let s = fp.sketch_input(&t, 10);
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (&f.hashes, &f.terms, &f.sentences, &f.token_chars, f.folded_words, &s.terms, &s.shingles).hash(&mut h);
        f.token_bytes.iter().for_each(|b| (b.start, b.end).hash(&mut h));
        let v = h.finish();
        println!("{v:016x} {p}");
        v.hash(&mut all);
    }
    eprintln!("all {:016x}", all.finish());
}

/// CPU seconds (user + system) of this process so far, from /proc.
fn cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap().split_whitespace().collect();
    (fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap()) / 100.0
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args[0] == "checksum" {
        checksum(&args[1..]);
        return;
    }
    let passes: usize = args.remove(0).parse().unwrap();
    let texts: Vec<String> = args.iter().map(|p| std::fs::read_to_string(p).unwrap()).collect();
    let total: usize = texts.iter().map(String::len).sum();
    let mut fp = Fingerprinter::new(&FingerprintSettings::default()).unwrap();
    let hasher = MinHasher::new(MinHashConfig { num_perm: 128, seed: 1 }).unwrap();
    let started = std::time::Instant::now();
    let mut acc = pass(&mut fp, &hasher, &texts);
    let cold = started.elapsed().as_secs_f64();
    let started = std::time::Instant::now();
    let cpu0 = cpu();
    for _ in 0..passes {
        acc = acc.wrapping_add(measured(&mut fp, &hasher, &texts));
    }
    let warm = started.elapsed().as_secs_f64();
    let warm_cpu = cpu() - cpu0;
    eprintln!(
        "{acc} cold {:.1} MB/s, warm {:.1} MB/s, warm cpu {:.1} MB/s",
        total as f64 / cold / 1e6,
        (passes * total) as f64 / warm / 1e6,
        (passes * total) as f64 / warm_cpu / 1e6
    );
}
