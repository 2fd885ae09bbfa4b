//! Documents that cannot be extracted fail with an error naming them, and
//! quickly.

#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use tessera_extract::{Error, ExtractConfig, Extractor, extract_bytes, extract_path};

fn config() -> ExtractConfig {
    ExtractConfig::default()
}

/// `len` bytes from a seeded generator (SplitMix64), so failures replay.
fn random_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut rng = tessera_test_support::SplitMix64::new(seed);
    (0..len).map(|_| rng.next_u64() as u8).collect()
}

#[test]
fn empty_file_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.txt");
    std::fs::write(&path, b"").unwrap();
    match extract_path(&path, &config()) {
        Err(Error::Empty { name }) => assert_eq!(name, path.display().to_string()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn whitespace_only_is_empty() {
    for bytes in [&b"   \r\n\t\n  "[..], b"\xEF\xBB\xBF \n", "\u{A0}\u{200B}\u{3000}".as_bytes()] {
        assert!(matches!(
            extract_bytes("blank.txt", bytes, &config()),
            Err(Error::Empty { name }) if name == "blank.txt"
        ));
    }
    let page = b"<html><head><title>Only a title</title><script>x()</script></head><body> </body></html>";
    assert!(matches!(extract_bytes("blank.html", page, &config()), Err(Error::Empty { .. })));
}

#[test]
fn random_bytes_are_binary() {
    for seed in 0..50 {
        let bytes = random_bytes(seed, 4096);
        match extract_bytes("noise.bin", &bytes, &config()) {
            Err(Error::Binary { name }) => assert_eq!(name, "noise.bin"),
            other => panic!("seed {seed}: {other:?}"),
        }
    }
}

#[test]
fn images_and_executables_are_binary() {
    let mut png = b"\x89PNG\r\n\x1A\n\0\0\0\rIHDR\0\0\0\x10".to_vec();
    png.extend(random_bytes(1, 200));
    let elf = [b"\x7FELF\x02\x01\x01\0".as_slice(), &[0; 56]].concat();
    // Named as text on purpose: detection goes by content.
    for (name, bytes) in [("image.txt", png), ("program.txt", elf)] {
        assert!(matches!(
            extract_bytes(name, &bytes, &config()),
            Err(Error::Binary { name: n }) if n == name
        ));
    }
}

#[test]
fn recognised_formats_not_extracted_are_unsupported() {
    for (bytes, media_type) in
        [(&b"\x1F\x8B\x08\0\0\0\0\0"[..], "application/gzip"), (b"\xFD7zXZ\0\0", "application/x-xz")]
    {
        match extract_bytes("thesis.txt", bytes, &config()) {
            Err(Error::Unsupported { name, media_type: m }) => {
                assert_eq!((name.as_str(), m.as_str()), ("thesis.txt", media_type));
            }
            other => panic!("{media_type}: {other:?}"),
        }
    }
}

#[test]
fn an_archive_is_not_one_document() {
    match extract_bytes("thesis.docx", b"PK\x03\x04\x14\0\x06\0", &config()) {
        Err(Error::Archive { name, media_type }) => {
            assert_eq!((name.as_str(), media_type.as_str()), ("thesis.docx", "application/zip"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn over_the_limit_is_too_large() {
    let small = ExtractConfig { max_bytes: 10, ..ExtractConfig::default() };
    match extract_bytes("big.txt", b"eleven byte", &small) {
        Err(Error::TooLarge { name, size, limit }) => {
            assert_eq!((name.as_str(), size, limit), ("big.txt", 11, 10));
        }
        other => panic!("{other:?}"),
    }
    assert!(extract_bytes("ok.txt", b"ten bytes!", &small).is_ok());

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.txt");
    std::fs::write(&path, b"eleven byte").unwrap();
    assert!(matches!(extract_path(&path, &small), Err(Error::TooLarge { size: 11, limit: 10, .. })));
}

/// A sparse 1 GiB file is refused from its metadata: quickly, and without
/// reading (or allocating) a gigabyte.
#[test]
fn a_sparse_gigabyte_is_refused_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.txt");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(1 << 30).unwrap();
    drop(file);
    let start = Instant::now();
    let result = Extractor::default().extract_path(&path);
    assert!(start.elapsed() < Duration::from_secs(2), "{:?}", start.elapsed());
    match result {
        Err(Error::TooLarge { name, size, limit }) => {
            assert_eq!(name, path.display().to_string());
            assert_eq!(size, 1 << 30);
            assert_eq!(limit, tessera_extract::DEFAULT_MAX_BYTES);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn missing_file_is_io_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no-such-file.txt");
    match extract_path(&path, &config()) {
        Err(error @ Error::Io { .. }) => {
            // The path and the system's reason, in the message itself.
            let message = error.to_string();
            assert!(message.contains("no-such-file.txt") && message.contains("No such file"), "{message}");
            let Error::Io { path: p, reason } = error else { unreachable!() };
            assert_eq!(p, path);
            assert_eq!(reason.kind(), std::io::ErrorKind::NotFound);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_directory_is_io() {
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(extract_path(dir.path(), &config()), Err(Error::Io { .. })));
}

#[test]
fn files_are_read_like_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ru.txt");
    let (bytes, _, _) = encoding_rs::KOI8_R.encode("Мороз и солнце; день чудесный!");
    std::fs::write(&path, &bytes).unwrap();
    let out = extract_path(&path, &config()).unwrap();
    assert_eq!(out.text, "Мороз и солнце; день чудесный!");
    assert_eq!(out.encoding.as_deref(), Some("KOI8-R"));
}
