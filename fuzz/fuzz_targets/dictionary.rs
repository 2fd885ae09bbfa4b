//! Bilingual dictionaries (`tessera_fingerprint::translate`): whatever a dictionary file
//! holds, reading it gives a lexicon or a typed error naming the file, never a panic, and
//! a lexicon read from it translates a text without panicking.
//!
//! The first byte picks the format: even, the rest is an `en-ru.tsv` file read from a
//! folder (`Lexicon::from_dirs`); odd, the rest is a dictd index, a NUL byte, then the
//! dictionary's text (uncompressed: the harness skips gzip, which `flate2` owns), parsed
//! (`parse_index`) and read as the Mueller dictionary's entries (`mueller_pairs`).
//!
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run dictionary` (from the repository root); seeds
//! are in `fuzz/seeds/dictionary/`.
#![cfg_attr(not(feature = "replay"), no_main)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tessera_fingerprint::translate::{Lexicon, mueller_pairs, parse_index};
use tessera_fingerprint::{Fingerprinter, ShingleConfig, names};
use tessera_fuzz::fuzz_target;
use tessera_normalize::NormalizerConfig;

fn dir() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &DIR.get_or_init(|| {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path().join("dictionaries");
        std::fs::create_dir_all(&dir).expect("dictionaries dir");
        (tmp, dir)
    })
    .1
}

const TEXT: &str = "The old doctor Samoylenko lived in a small town by the river. Старый доктор жил у реки.";

fn translate(lexicon: &Lexicon) {
    let mut fp = Fingerprinter::new(NormalizerConfig::default(), ShingleConfig::default()).expect("fingerprinter");
    let f = fp.fingerprint(TEXT);
    let n = names(TEXT, &f.token_bytes, &f.terms, None);
    for (from, to) in [("en", "ru"), ("ru", "en")] {
        let t = lexicon.translate(TEXT, &f, &n, from, to);
        assert_eq!(t.len(), f.terms.len());
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let config = NormalizerConfig::default();
    if mode & 1 == 0 {
        let path = dir().join("en-ru.tsv");
        std::fs::write(&path, rest).expect("write the dictionary");
        match Lexicon::from_dirs(&[dir().to_path_buf()], &config) {
            Ok(lexicon) => translate(&lexicon),
            Err(e) => assert!(e.to_string().contains("en-ru.tsv"), "the error names the file: {e}"),
        }
        return;
    }
    let (index, dict) = match rest.iter().position(|&b| b == 0) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &[][..]),
    };
    let Ok(entries) = parse_index(&String::from_utf8_lossy(index), dict) else { return };
    let pairs = mueller_pairs(&entries);
    if let Ok(lexicon) = Lexicon::from_pairs(&[("en".into(), "ru".into(), pairs)], &config) {
        translate(&lexicon);
    }
});
