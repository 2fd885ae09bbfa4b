//! Alignment speed on a reworded text: every sentence of a synthetic source with its
//! words swapped two by two and one word dropped (no three words in a row left, so no
//! exact shingle), so the aligner finds one rewording that spans the whole text (sentence
//! seeds, extension, evidence and the sentence pairs of the block). The book case is the
//! one that catches work quadratic in a passage's sentences: with each sentence of the
//! passage paired by comparing it with every sentence of its source, the book's alignment
//! took 1.24 s (the article's 1.8 ms); through postings, 38-49 ms (0.8-1.0 ms), quiet
//! machine. docs/performance.md has the figures.
//!
//! `cargo bench -p tessera-search --bench align`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use tessera_eval::rng::{Draws, SplitMix64};
use tessera_fingerprint::{Fingerprinter, ShingleConfig};
use tessera_normalize::NormalizerConfig;
use tessera_search::{AlignConfig, Query, align_pair};

/// A made-up word for rank `r`: letters only, so the normalizer keeps it whole.
fn word(r: usize) -> String {
    let mut w = String::from("w");
    let mut r = r + 1;
    while r > 0 {
        w.push(char::from(b'a' + (r % 26) as u8));
        r /= 26;
    }
    w
}

/// A source of `sentences` sentences of 8 to 20 words (frequent words more often: the
/// smaller of two uniform ranks) and its rewording, sentence by sentence.
fn texts(sentences: usize) -> (String, String) {
    // The seeded generator of every generated corpus: the same texts every run.
    let mut rng = SplitMix64::new(42);
    let (mut source, mut suspect) = (String::new(), String::new());
    for _ in 0..sentences {
        let n = 8 + rng.index(13);
        let mut words: Vec<String> = (0..n).map(|_| word(rng.index(6000).min(rng.index(6000)))).collect();
        source.push_str(&words.join(" "));
        source.push_str(". ");
        for pair in words.chunks_exact_mut(2) {
            pair.swap(0, 1);
        }
        words.remove(rng.index(n));
        suspect.push_str(&words.join(" "));
        suspect.push_str(". ");
    }
    (source, suspect)
}

fn queries(sentences: usize) -> (Query, Query) {
    let mut fp = Fingerprinter::new(NormalizerConfig::default(), ShingleConfig::default()).expect("fingerprinter");
    let (source, suspect) = texts(sentences);
    let query = |fp: &mut Fingerprinter, text: &str| Query::from_fingerprint(fp.fingerprint(text), 3, None);
    (query(&mut fp, &suspect), query(&mut fp, &source))
}

fn bench(c: &mut Criterion) {
    let config = AlignConfig::default();
    for (name, sentences) in [("article, 60 sentences", 60), ("book, 2,000 sentences", 2000)] {
        let (suspect, source) = queries(sentences);
        let blocks = align_pair(&suspect, &source, &[], &config);
        let paired: usize = blocks.iter().map(|b| b.pairs.len()).sum();
        assert!(paired > sentences / 2, "{name}: {} blocks, {paired} sentence pairs", blocks.len());
        let mut group = c.benchmark_group("align a reworded text");
        group.sample_size(10);
        group.bench_function(name, |b| b.iter(|| black_box(align_pair(&suspect, &source, &[], &config))));
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
