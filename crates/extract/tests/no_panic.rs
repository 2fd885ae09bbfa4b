//! No input makes extraction panic: a few thousand seeded pseudo-random and
//! mutated inputs (what the `extract_bytes` fuzz target does without
//! nightly), and property tests.

#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use tessera_extract::{Error, ExtractConfig, Format, extract_bytes};
use tessera_test_support::SplitMix64;

/// SplitMix64: small, seeded, good enough to drive mutations.
struct Rng(SplitMix64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn byte(&mut self) -> u8 {
        self.next() as u8
    }
}

/// Seeds the mutations start from: one of each kind the extractors handle.
fn corpus() -> Vec<Vec<u8>> {
    let russian = "Съешь же ещё этих мягких французских булок, да выпей чаю.";
    let html = format!(
        "<!DOCTYPE html><html><head><meta charset=\"windows-1251\"><title>T</title>\
         <script>var a = '<p>';</script></head><body><nav>m</nav><article><h1>H</h1>\
         <p>{russian}</p><p>{russian}</p><pre> x\n y</pre><table><tr><td>a</td><td>b</td></tr>\
         </table></article><footer>f</footer></body></html>"
    );
    vec![
        russian.as_bytes().to_vec(),
        encoding_rs::WINDOWS_1251.encode(russian).0.into_owned(),
        encoding_rs::IBM866.encode(russian).0.into_owned(),
        encoding_rs::KOI8_R.encode(russian).0.into_owned(),
        "\u{FEFF}Hello".encode_utf16().flat_map(u16::to_le_bytes).collect(),
        [b"\xEF\xBB\xBF", russian.as_bytes()].concat(),
        html.clone().into_bytes(),
        encoding_rs::WINDOWS_1251.encode(&html).0.into_owned(),
        b"<p>a<div>b<li>c<br>d&amp;&#x41;&#0;&#xD800;&bogus;".to_vec(),
        b"<?xml version='1.0' encoding='koi8-r'?><html><body>x</body></html>".to_vec(),
        b"<meta http-equiv=Content-Type content='text/html; charset=utf-16'><p>x".to_vec(),
        b"\x89PNG\r\n\x1A\n\0\0\0\rIHDR".to_vec(),
        b"%PDF-1.4".to_vec(),
        b"{\\rtf1 x}".to_vec(),
    ]
}

fn mutate(rng: &mut Rng, input: &mut Vec<u8>) {
    for _ in 0..=rng.below(8) {
        match rng.below(6) {
            0 if !input.is_empty() => {
                let at = rng.below(input.len());
                input[at] = rng.byte();
            }
            1 => {
                let at = rng.below(input.len() + 1);
                input.insert(at, rng.byte());
            }
            2 if !input.is_empty() => {
                let at = rng.below(input.len());
                let len = rng.below(input.len() - at + 1);
                input.drain(at..at + len);
            }
            3 => {
                let tokens: [&[u8]; 10] = [
                    b"<div>",
                    b"</p>",
                    b"<script>",
                    b"<pre>",
                    b"&nbsp;",
                    b"<!--",
                    b"\0",
                    b"\xEF\xBB\xBF",
                    b"<meta charset=koi8-r>",
                    b"\xFF\xFE",
                ];
                let token = tokens[rng.below(tokens.len())];
                let at = rng.below(input.len() + 1);
                input.splice(at..at, token.iter().copied());
            }
            4 if !input.is_empty() => {
                let at = rng.below(input.len());
                input.truncate(at);
            }
            _ => {
                let at = rng.below(input.len() + 1);
                let piece: Vec<u8> = input[..at].to_vec();
                input.extend_from_slice(&piece);
            }
        }
        input.truncate(64 * 1024);
    }
}

fn check(name: &str, bytes: &[u8]) {
    match extract_bytes(name, bytes, &ExtractConfig::default()) {
        Ok(out) => assert!(!out.text.trim().is_empty(), "{name}: blank text accepted"),
        Err(Error::Empty { .. } | Error::Binary { .. } | Error::Unsupported { .. } | Error::TooLarge { .. }) => {}
        // Random bytes after a magic number (PDF): a damaged document, named.
        Err(Error::Malformed { name: n, .. } | Error::Encrypted { name: n } | Error::Failed { name: n, .. })
            if n == name => {}
        Err(other) => panic!("{name}: unexpected {other:?}"),
    }
}

#[test]
fn thousands_of_random_and_mutated_inputs_never_panic() {
    let corpus = corpus();
    let mut rng = Rng(SplitMix64::new(0x7E55_E4A0));
    for round in 0..3000 {
        let bytes = if round % 4 == 0 {
            let len = rng.below(2048);
            (0..len).map(|_| rng.byte()).collect()
        } else {
            let mut input = corpus[rng.below(corpus.len())].clone();
            mutate(&mut rng, &mut input);
            input
        };
        let name = ["x.txt", "x.html", "x", "dir/x.HTM"][round % 4];
        check(name, &bytes);
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        check("fuzz.bin", &bytes);
    }

    /// Printable UTF-8 text comes back byte for byte: offsets stay valid.
    #[test]
    fn utf8_text_comes_back_unchanged(text in "[^\u{0}-\u{8}\u{e}-\u{1f}\u{7f}-\u{9f}<\u{feff}\u{fffd}]{1,300}") {
        prop_assume!(!text.trim().is_empty());
        let out = extract_bytes("x.txt", text.as_bytes(), &ExtractConfig::default()).unwrap();
        prop_assert_eq!(out.format, Format::Text);
        prop_assert_eq!(out.text, text);
    }
}
