//! The attack suite of issue 18: hostile files and hostile requests against the real
//! `tessera` binary, as a hostile user would send them. The inputs are generated here
//! (decompression bombs at the sizes, damaged archives, invalid text, path
//! traversal names; nothing big is committed), then:
//!
//! - `tessera extract`, `index` and `check` run on them: no panic (exit 101 or
//!   "panicked"), an exit code of the README's table, an error naming the file, and a
//!   peak resident memory under 300 MB (the child's `ru_maxrss`, from `wait4`);
//! - a `tessera serve` on 127.0.0.1 gets them as uploads, with oversize bodies (sent
//!   with a length and chunked), invalid names, malformed requests and hundreds of
//!   uploads at once: no `500`, every API error in the documented JSON shape
//!   (`{"error": {"code", "message"}}`) with its status, every accepted check finished,
//!   and the server's peak RSS (`VmHWM`) under 500 MB.
//!
//! Memory is a bound, not a timing: the limits are the targets, checked with a
//! debug build (whose figures are higher than the release build's in
//! docs/performance.md). The whole suite runs in about a minute (docs/server.md).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

#[path = "../../extract/tests/support/bombs.rs"]
mod bombs;
#[path = "support/peak.rs"]
mod peak;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Barrier, OnceLock};
use std::time::{Duration, Instant};

use peak::{Run, run};
use serde_json::{Value, json};
use support::{agent, demo_index, get_json, tessera};

/// Peak RSS allowed to `extract`, `index` and `check` on any hostile file (issue 18).
const CLI_RSS_MB: f64 = 300.0;
/// Peak RSS allowed to the server through the whole attack (issue 18).
const SERVER_RSS_MB: f64 = 500.0;
/// The server's upload limit during the attack: the bombs fit under it.
const MAX_UPLOAD: usize = 4_000_000;

/// A generated hostile file and what `tessera extract` must say of it.
struct Hostile {
    name: &'static str,
    /// Exit codes of `tessera extract` (README "Exit codes").
    extract_codes: &'static [i32],
    /// Each failed document's error must contain one of these (with the file's name).
    reasons: &'static [&'static str],
}

const HOSTILE: &[Hostile] = &[
    Hostile { name: "zeros.7z", extract_codes: &[3], reasons: &["over the limit", "ratio", "budget"] },
    Hostile { name: "zeros.zip", extract_codes: &[3], reasons: &["ratio", "over the limit", "budget"] },
    Hostile { name: "huge.docx", extract_codes: &[1], reasons: &["word/document.xml"] },
    Hostile { name: "members.7z", extract_codes: &[3], reasons: &["ratio", "budget", "which was refused"] },
    Hostile { name: "liar.zip", extract_codes: &[3], reasons: &["ratio", "damaged", "checksum", "truncated", "zip"] },
    Hostile { name: "nested.zip", extract_codes: &[1, 3], reasons: &["nest", "deep", "ratio"] },
    Hostile { name: "truncated.7z", extract_codes: &[1, 3], reasons: &["truncated", "damaged", "7z"] },
    Hostile { name: "truncated.zip", extract_codes: &[1, 3], reasons: &["truncated", "damaged", "zip", "archive"] },
    Hostile { name: "cut.docx", extract_codes: &[1], reasons: &["damaged", "zip", "docx", "truncated", "archive"] },
    Hostile { name: "empty.txt", extract_codes: &[1], reasons: &["empty", "no text"] },
    Hostile { name: "binary.bin", extract_codes: &[0, 1], reasons: &["binary", "format", "not", "no text"] },
    Hostile { name: "traversal.zip", extract_codes: &[0], reasons: &[] },
    Hostile { name: "invalid-utf8.txt", extract_codes: &[0], reasons: &[] },
    // Just under the unpacking guards (issue 52): a member of 250 MiB of text at about
    // 100:1, and a DOCX of 64 MiB of text; both past the 16 MiB text cap.
    Hostile { name: "near.zip", extract_codes: &[3], reasons: &["its text is over the limit"] },
    Hostile { name: "near.docx", extract_codes: &[1], reasons: &["its text is over the limit"] },
];

/// Copies of `near.zip` in a folder of the hostile ones, so `index` of the folder meets
/// four of them (issue 52: four such files killed it at 8 GB).
const NEAR_COPIES: usize = 3;

/// The hostile files, generated once for every test of this binary.
fn hostile_dir() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let started = Instant::now();
        let mut times = Vec::new();
        for h in HOSTILE {
            let one = Instant::now();
            std::fs::write(dir.path().join(h.name), generate(h.name)).unwrap();
            times.push(format!("{} {:.1} s", h.name, one.elapsed().as_secs_f64()));
        }
        let copies = dir.path().join("near-copies");
        std::fs::create_dir(&copies).unwrap();
        for i in 0..NEAR_COPIES {
            std::fs::copy(dir.path().join("near.zip"), copies.join(format!("near-{i}.zip"))).unwrap();
        }
        eprintln!("hostile files generated in {:.1} s: {}", started.elapsed().as_secs_f64(), times.join(", "));
        dir
    })
    .path()
}

fn generate(name: &str) -> Vec<u8> {
    match name {
        // The bombs of issue 18, smaller than its (2 GiB, 1 GiB, 628 MB) so that making
        // them takes seconds, not minutes, yet each unpacks to well over the 300 MB bound:
        // memory that grew with the unpacked bytes (the issue saw 2.2 to 2.6 times them)
        // fails the bound. crates/extract/examples/bombs.rs makes them at the issue's
        // sizes, measured in docs/performance.md.
        "zeros.7z" => bombs::sevenz_of_zeros(512 << 20),
        "zeros.zip" => bombs::zip_of_zeros(512 << 20),
        "huge.docx" => bombs::docx_of(400_000_000),
        "members.7z" => bombs::sevenz_of_zero_members(8, 64 << 20),
        "liar.zip" => {
            let mut zip = bombs::zip_of_zeros(256 << 20);
            bombs::lie_about_sizes(&mut zip, 1000);
            zip
        }
        // A ZIP in a ZIP ... five deep, a bomb at the bottom.
        "nested.zip" => {
            let mut inner = bombs::zip_of_zeros(64 << 20);
            for level in 0..5 {
                inner = zip_of(&[(&format!("level{level}.zip"), &inner)]);
            }
            inner
        }
        "truncated.7z" => {
            let whole = bombs::sevenz_of_zeros(4 << 20);
            whole[..whole.len() / 2].to_vec()
        }
        "truncated.zip" => {
            let whole = zip_of(&[("a.txt", THESIS.as_bytes()), ("b.txt", THESIS.as_bytes())]);
            whole[..whole.len() * 2 / 3].to_vec()
        }
        // A DOCX whose main part stops in the middle of its deflate stream.
        "cut.docx" => {
            let mut docx = bombs::docx_of(4 << 20);
            let cut = docx.len() / 2;
            docx.truncate(cut);
            docx
        }
        "empty.txt" => Vec::new(),
        "binary.bin" => {
            let mut rng = tessera_test_support::words::XorShift64::new(0x9E37_79B9_7F4A_7C15);
            (0..65_536).map(|_| rng.next_u64().to_le_bytes()[3]).collect()
        }
        "traversal.zip" => zip_of(&[
            ("../../../../tmp/evil.txt", bombs::GOOD),
            ("/etc/cron.d/evil.txt", bombs::GOOD),
            ("..\\..\\windows.txt", bombs::GOOD),
        ]),
        "near.zip" => bombs::zip_of_text(250 << 20),
        "near.docx" => bombs::docx_of_text(64 << 20),
        "invalid-utf8.txt" => {
            let mut text = THESIS.as_bytes().to_vec();
            for at in (100..text.len()).step_by(997) {
                text[at] = 0xFF;
            }
            text
        }
        other => panic!("no generator for {other}"),
    }
}

const THESIS: &str = support::THESIS;

fn zip_of(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut readers: Vec<(&str, Box<dyn Read + '_>)> =
        members.iter().map(|&(name, bytes)| (name, Box::new(bytes) as Box<dyn Read + '_>)).collect();
    bombs::zip_of(&mut readers)
}

/// No panic, no Rust debug formatting, memory under the bound.
fn assert_sane(run: &Run, what: &str) {
    assert_ne!(run.code, 101, "{what}: panicked\n{}", run.stderr);
    assert_ne!(run.code, -1, "{what}: killed by a signal\n{}", run.stderr);
    for output in [&run.stdout, &run.stderr] {
        assert!(!output.contains("panicked"), "{what}: {output}");
        assert!(!output.contains("Error {") && !output.contains("kind: "), "{what}: Rust debug output: {output}");
    }
    assert!(run.peak_mb <= CLI_RSS_MB, "{what}: peak RSS {:.0} MB over {CLI_RSS_MB} MB", run.peak_mb);
}

#[test]
fn hostile_files_through_extract_index_and_check() {
    let dir = hostile_dir();
    let work = tempfile::tempdir().unwrap();
    let mut figures = Vec::new();
    for h in HOSTILE {
        let path = dir.join(h.name);
        let r = run(&["extract", "--format", "json", "--no-origins", path.to_str().unwrap()], work.path());
        assert_sane(&r, &format!("extract {}", h.name));
        assert!(h.extract_codes.contains(&r.code), "extract {}: exit {}\n{}{}", h.name, r.code, r.stdout, r.stderr);
        figures.push(format!("{} {:.0} MB", h.name, r.peak_mb));
        let docs: Vec<Value> = r.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert!(!docs.is_empty(), "extract {}: no output", h.name);
        let folder = format!("{}/", dir.display());
        for doc in &docs {
            let name = doc["name"].as_str().unwrap();
            let name = name.strip_prefix(&folder).unwrap_or(name);
            assert!(name.starts_with(h.name), "extract {}: {name}", h.name);
            assert!(!name.contains("..") && !name.contains("!//"), "extract {}: member name {name}", h.name);
            if let Some(error) = doc["error"].as_str() {
                // The error names the file (its message, or the document it is reported on).
                let reason = error.to_lowercase();
                assert!(
                    h.reasons.iter().any(|r| reason.contains(r)),
                    "extract {}: {name}: unexpected reason {error:?}",
                    h.name
                );
            }
        }
        match h.name {
            "traversal.zip" => {
                let names: Vec<&str> =
                    docs.iter().map(|d| d["name"].as_str().unwrap().strip_prefix(&folder).unwrap()).collect();
                assert!(names.contains(&"traversal.zip!/tmp/evil.txt"), "{names:?}");
                assert!(names.contains(&"traversal.zip!/etc/cron.d/evil.txt"), "{names:?}");
            }
            "invalid-utf8.txt" => {
                let doc = &docs[0]["document"];
                let warnings = doc["warnings"].to_string();
                assert!(warnings.contains("invalid"), "{warnings}");
                assert!(!warnings.contains("bypass") && !warnings.contains("homoglyph"), "{warnings}");
                assert!(doc["text"].as_str().unwrap().contains('\u{FFFD}'));
            }
            "zeros.7z" | "zeros.zip" => {
                // The good member beside the bomb is still extracted.
                assert!(docs.iter().any(|d| d["document"]["text"].as_str().is_some_and(|t| t.contains("honey"))));
            }
            _ => {}
        }
    }
    // Nothing was written where the traversal names point.
    assert!(std::fs::read_dir(work.path()).unwrap().next().is_none(), "extract wrote files");

    // The whole folder indexed: each bad file named, the good members indexed.
    let index = work.path().join("idx");
    let r = run(&["index", "--index", index.to_str().unwrap(), dir.to_str().unwrap()], work.path());
    assert_sane(&r, "index");
    assert_eq!(r.code, 3, "index: {}{}", r.stdout, r.stderr);
    for name in [
        "zeros.7z!/zeros.txt",
        "huge.docx",
        "members.7z",
        "empty.txt",
        "truncated.7z",
        "near.zip!/big.txt",
        "near.docx",
        "near-copies/near-2.zip!/big.txt",
    ] {
        assert!(r.stderr.contains(name), "index does not name {name}:\n{}", r.stderr);
    }
    figures.push(format!("index {:.0} MB", r.peak_mb));
    let r = run(&["verify", "--index", index.to_str().unwrap()], work.path());
    assert_eq!(r.code, 0, "verify after indexing hostile files: {}{}", r.stdout, r.stderr);

    for (file, codes) in [
        ("huge.docx", &[1][..]),
        ("zeros.7z", &[0, 3][..]),
        ("empty.txt", &[1][..]),
        ("near.zip", &[0, 3][..]),
        ("near.docx", &[1][..]),
    ] {
        let path = dir.join(file);
        let r = run(&["check", "--index", index.to_str().unwrap(), path.to_str().unwrap()], work.path());
        assert_sane(&r, &format!("check {file}"));
        assert!(codes.contains(&r.code), "check {file}: exit {}\n{}{}", r.code, r.stdout, r.stderr);
        if r.code != 0 {
            assert!(r.stderr.contains(file) || r.stdout.contains(file), "check {file}: {}{}", r.stdout, r.stderr);
        }
        figures.push(format!("check {file} {:.0} MB", r.peak_mb));
    }
    eprintln!("peak RSS: {}", figures.join(", "));
}

/// A `tessera serve` with its stderr kept, killed on drop.
struct Serve {
    child: std::process::Child,
    base: String,
    addr: String,
    log: PathBuf,
}

impl Serve {
    fn start(index: &Path, log: PathBuf) -> Serve {
        Self::start_with(index, log, &["--memory-mb", "300"])
    }

    fn start_with(index: &Path, log: PathBuf, more: &[&str]) -> Serve {
        let mut child = tessera()
            .arg("serve")
            .arg("--index")
            .arg(index)
            .args(["--addr", "127.0.0.1:0", "--workers", "2", "--max-upload-bytes", &MAX_UPLOAD.to_string()])
            .args(more)
            .env("TESSERA_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let base =
            line.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("first line {line:?}")).to_owned();
        let addr = base.trim_start_matches("http://").to_owned();
        Serve { child, base, addr, log }
    }

    /// Peak resident memory so far (`VmHWM`), in MB.
    fn peak_mb(&self) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let kb: f64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .expect("VmHWM in /proc");
        kb / 1024.0
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An answer read off the wire: status, headers (lower-case names), body.
struct Answer {
    status: u16,
    headers: BTreeMap<String, String>,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        let body = self.body.trim();
        // A chunked body: the JSON object inside.
        let body = body.find('{').and_then(|a| body.rfind('}').map(|b| &body[a..=b])).unwrap_or(body);
        serde_json::from_str(body).unwrap_or(Value::Null)
    }
}

/// Sends raw bytes as one HTTP/1.1 exchange (`Connection: close` expected in `head`) and
/// reads the answer. Write errors are ignored: the server may answer and close first.
fn exchange(addr: &str, head: &str, body: &[u8], chunked: bool) -> Answer {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let _ = stream.write_all(head.as_bytes());
    if chunked {
        for chunk in body.chunks(16 * 1024) {
            if stream.write_all(format!("{:x}\r\n", chunk.len()).as_bytes()).is_err()
                || stream.write_all(chunk).is_err()
                || stream.write_all(b"\r\n").is_err()
            {
                break;
            }
        }
        let _ = stream.write_all(b"0\r\n\r\n");
    } else {
        let _ = stream.write_all(body);
    }
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let mut lines = head.lines();
    let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|s| s.parse().ok()).unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    Answer { status, headers, body: body.to_owned() }
}

fn multipart(parts: &[(&str, Option<&str>, &[u8])]) -> (String, Vec<u8>) {
    let boundary = "tessera-attack-7d1f9";
    let mut body = Vec::new();
    for (field, file, bytes) in parts {
        body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        let disposition = match file {
            Some(f) => {
                format!("form-data; name=\"{field}\"; filename=\"{f}\"\r\nContent-Type: application/octet-stream")
            }
            None => format!("form-data; name=\"{field}\""),
        };
        body.extend_from_slice(format!("Content-Disposition: {disposition}\r\n\r\n").as_bytes());
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// A POST of `body` with its length or chunked.
fn post(addr: &str, path: &str, content_type: &str, body: &[u8], chunked: bool) -> Answer {
    let length =
        if chunked { "Transfer-Encoding: chunked".to_owned() } else { format!("Content-Length: {}", body.len()) };
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {content_type}\r\n{length}\r\nConnection: close\r\n\r\n"
    );
    exchange(addr, &head, body, chunked)
}

fn upload(addr: &str, file_name: &str, bytes: &[u8]) -> Answer {
    let (content_type, body) = multipart(&[("file", Some(file_name), bytes)]);
    post(addr, "/api/checks", &content_type, &body, false)
}

/// What every answer of the API must be: never a 5xx but `503 busy`; an error is
/// `{"error": {"code", "message"}}` with a message; `503` says when to come back.
fn assert_api_answer(answer: &Answer, what: &str) {
    assert_ne!(answer.status, 0, "{what}: no answer");
    assert!(answer.status < 500 || answer.status == 503, "{what}: {} {}", answer.status, answer.body);
    if answer.status >= 400 {
        let v = answer.json();
        let code = v["error"]["code"].as_str();
        let message = v["error"]["message"].as_str();
        assert!(
            code.is_some_and(|c| !c.is_empty()) && message.is_some_and(|m| !m.is_empty()),
            "{what}: {} without the JSON error shape: {}",
            answer.status,
            answer.body
        );
    }
    if answer.status == 503 {
        assert_eq!(answer.json()["error"]["code"], "busy", "{what}");
        assert!(answer.headers.contains_key("retry-after"), "{what}: 503 without Retry-After");
    }
}

/// Sends `body` to `/api/checks` until it is not `503 busy` (after the advertised wait).
fn upload_until_taken(addr: &str, file_name: &str, bytes: &[u8]) -> Answer {
    loop {
        let answer = upload(addr, file_name, bytes);
        assert_api_answer(&answer, file_name);
        if answer.status != 503 {
            return answer;
        }
        let wait: u64 = answer.headers.get("retry-after").and_then(|s| s.parse().ok()).unwrap_or(1);
        std::thread::sleep(Duration::from_millis(wait * 1000 / 4));
    }
}

#[test]
fn hostile_requests_to_the_server() {
    let dir = hostile_dir();
    let work = tempfile::tempdir().unwrap();
    let index = demo_index(work.path());
    let server = Serve::start(&index, work.path().join("serve.log"));
    let addr = server.addr.clone();
    let mut accepted: Vec<(String, String)> = Vec::new();

    // Every hostile file as an upload: accepted (an archive: its bad members skipped by
    // name) or refused in the documented shape, the file named.
    for h in HOSTILE {
        let bytes = std::fs::read(dir.join(h.name)).unwrap();
        let answer = upload_until_taken(&addr, h.name, &bytes);
        let v = answer.json();
        match answer.status {
            202 => {
                accepted.push((v["id"].as_str().unwrap().to_owned(), h.name.to_owned()));
                for skipped in v["skipped"].as_array().into_iter().flatten() {
                    let name = skipped["name"].as_str().unwrap();
                    assert!(name.starts_with(h.name) && !name.contains(".."), "{}: {skipped}", h.name);
                    assert!(!skipped["error"].as_str().unwrap().is_empty(), "{}: {skipped}", h.name);
                }
                for member in v["members"].as_array().into_iter().flatten() {
                    assert!(!member["name"].as_str().unwrap().contains(".."), "{}: {member}", h.name);
                    accepted.push((member["id"].as_str().unwrap().to_owned(), h.name.to_owned()));
                }
            }
            413 | 415 | 422 => {
                let message = v["error"]["message"].as_str().unwrap();
                assert!(message.contains(h.name) || answer.status == 413, "{}: {message}", h.name);
            }
            other => panic!("{}: {other} {}", h.name, answer.body),
        }
        match h.name {
            "empty.txt" => assert_eq!((answer.status, v["error"]["code"].as_str()), (415, Some("unsupported_format"))),
            "zeros.7z" | "zeros.zip" | "traversal.zip" | "invalid-utf8.txt" => assert_eq!(answer.status, 202, "{v}"),
            _ => {}
        }
    }

    // Oversize bodies: 413 too_large in JSON whether the length is given or not.
    let big = "word ".repeat(MAX_UPLOAD / 4);
    let (form_type, form) = multipart(&[("file", Some("big.txt"), big.as_bytes())]);
    let text = serde_json::to_vec(&json!({ "text": big })).unwrap();
    for (content_type, body) in [(form_type.as_str(), &form), ("application/json", &text)] {
        for chunked in [false, true] {
            let answer = post(&addr, "/api/checks", content_type, body, chunked);
            assert_api_answer(&answer, "oversize");
            assert_eq!(
                (answer.status, answer.json()["error"]["code"].as_str()),
                (413, Some("too_large")),
                "{content_type} chunked={chunked}: {}",
                answer.body
            );
        }
    }

    // Invalid names and malformed requests: 4xx in JSON, never 500.
    let requests: Vec<(&str, String, &str, Vec<u8>, u16)> = vec![
        (
            "POST",
            "/api/documents".into(),
            "application/json",
            serde_json::to_vec(&json!({"collection": "../../x", "documents": [{"text": THESIS}]})).unwrap(),
            400,
        ),
        (
            "POST",
            "/api/documents".into(),
            "application/json",
            serde_json::to_vec(&json!({"collection": "a/b", "documents": [{"text": THESIS}]})).unwrap(),
            400,
        ),
        ("POST", "/api/checks".into(), "application/json", b"{\"text\": \"unterminated".to_vec(), 400),
        ("POST", "/api/checks".into(), "application/json", b"[1, 2, 3]".to_vec(), 400),
        ("POST", "/api/checks".into(), "text/plain", b"hello".to_vec(), 415),
        ("POST", "/api/checks".into(), "multipart/form-data", b"no boundary".to_vec(), 400),
        ("POST", "/api/checks".into(), "multipart/form-data; boundary=x", b"--x\r\ngarbage".to_vec(), 400),
        ("GET", "/api/checks/..%2F..%2F..%2Fetc%2Fpasswd".into(), "", Vec::new(), 404),
        ("GET", "/api/checks/../../etc/passwd".into(), "", Vec::new(), 404),
        ("GET", format!("/api/checks/{}", "a".repeat(5000)), "", Vec::new(), 404),
        ("GET", "/api/checks?limit=100000".into(), "", Vec::new(), 400),
        (
            "PATCH",
            "/api/checks/0123456789abcdef0123456789abcdef/report".into(),
            "application/json",
            b"{}".to_vec(),
            404,
        ),
        ("DELETE", "/api/documents/-1".into(), "", Vec::new(), 400),
    ];
    for (method, path, content_type, body, status) in &requests {
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        let answer = exchange(&addr, &head, body, false);
        assert_api_answer(&answer, &format!("{method} {path}"));
        assert_eq!(answer.status, *status, "{method} {path}: {}", answer.body);
    }
    // Not HTTP at all, and a header too large: refused by the HTTP layer, never a 5xx.
    for head in
        ["GARBAGE\r\n\r\n".to_owned(), format!("GET / HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n", "a".repeat(1 << 20))]
    {
        let answer = exchange(&addr, &head, b"", false);
        assert!(answer.status == 0 || (400..500).contains(&answer.status), "{}: {}", answer.status, answer.body);
    }

    // Many at once: 200 uploads of 12 KB, 8 of each bomb, all sent together; each is
    // accepted or told to come back (503 + Retry-After), and comes back until accepted.
    let document: Vec<u8> = THESIS.as_bytes().iter().copied().cycle().take(12 * 1024).collect();
    let mut load: Vec<(String, Vec<u8>)> = (0..200).map(|i| (format!("load-{i}.txt"), document.clone())).collect();
    for bomb in ["zeros.7z", "huge.docx", "members.7z", "near.zip", "near.docx"] {
        let bytes = std::fs::read(dir.join(bomb)).unwrap();
        load.extend((0..8).map(|i| (format!("{i}-{bomb}"), bytes.clone())));
    }
    let barrier = Arc::new(Barrier::new(load.len()));
    let threads: Vec<_> = load
        .into_iter()
        .map(|(name, bytes)| {
            let (addr, barrier) = (addr.clone(), Arc::clone(&barrier));
            std::thread::spawn(move || {
                barrier.wait();
                let answer = upload_until_taken(&addr, &name, &bytes);
                (name, answer.status, answer.json())
            })
        })
        .collect();
    for thread in threads {
        let (name, status, v) = thread.join().unwrap();
        match status {
            202 => accepted.push((v["id"].as_str().unwrap().to_owned(), name)),
            422 if !name.starts_with("load-") => {}
            other => panic!("{name}: {other} {v}"),
        }
    }

    // Every accepted check finishes (done, or failed with a message naming the file).
    let agent = agent();
    let give_up = Instant::now() + Duration::from_secs(300);
    for (id, name) in &accepted {
        loop {
            let v = get_json(&agent, &format!("{}/api/checks/{id}?report=false", server.base));
            match v["status"].as_str() {
                Some("done" | "partial") => break,
                Some("failed") => {
                    let error = v["error"].as_str().unwrap_or_default();
                    assert!(name.ends_with(".docx") || name.ends_with(".bin"), "{name} failed: {v}");
                    assert!(error.contains(name.as_str()) || error.contains(".docx"), "{name}: {error}");
                    break;
                }
                _ => {
                    assert!(Instant::now() < give_up, "check {id} ({name}) never finished: {v}");
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        }
    }
    let health = get_json(&agent, &format!("{}/api/health", server.base));
    assert_eq!(health["status"], "ok", "{health}");
    let peak = server.peak_mb();
    eprintln!("{} checks accepted and finished; server peak RSS {peak:.0} MB", accepted.len());
    assert!(peak <= SERVER_RSS_MB, "server peak RSS {peak:.0} MB over {SERVER_RSS_MB} MB");
    let mut server = server;
    assert!(server.child.try_wait().unwrap().is_none(), "the server died");
    let log = std::fs::read_to_string(&server.log).unwrap();
    assert!(!log.contains("panicked"), "{log}");
}

/// Issue 52's case: three uploads just under the unpacking guards at once (a ZIP of
/// 250 MiB of text, twice, and a DOCX of 64 MiB of text) on a server whose memory limit
/// is 256 MB: each is refused by the text cap as it is read, and the server's peak stays
/// under its limit (before: 3.0 GB per upload, and three killed the server).
#[test]
fn three_near_limit_uploads_at_once_stay_under_the_memory_limit() {
    const LIMIT_MB: f64 = 256.0;
    let dir = hostile_dir();
    let work = tempfile::tempdir().unwrap();
    let index = demo_index(work.path());
    let server = Serve::start_with(&index, work.path().join("serve.log"), &["--memory-mb", "256"]);
    let files = ["near.zip", "near-copies/near-0.zip", "near.docx"];
    let barrier = Arc::new(Barrier::new(files.len()));
    let threads: Vec<_> = files
        .iter()
        .map(|file| {
            let (addr, barrier) = (server.addr.clone(), Arc::clone(&barrier));
            let bytes = std::fs::read(dir.join(file)).unwrap();
            let name = file.rsplit('/').next().unwrap().to_owned();
            std::thread::spawn(move || {
                barrier.wait();
                upload_until_taken(&addr, &name, &bytes)
            })
        })
        .collect();
    let agent = agent();
    for thread in threads {
        let answer = thread.join().unwrap();
        let v = answer.json();
        match answer.status {
            // A ZIP: its good member is checked, the big one skipped by the text cap.
            202 => {
                for skipped in v["skipped"].as_array().into_iter().flatten() {
                    assert!(skipped["error"].as_str().unwrap().contains("its text is over the limit"), "{skipped}");
                }
                let id = v["id"].as_str().unwrap();
                let give_up = Instant::now() + Duration::from_secs(120);
                loop {
                    let check = get_json(&agent, &format!("{}/api/checks/{id}?report=false", server.base));
                    match check["status"].as_str() {
                        Some("done" | "partial") => break,
                        // The DOCX: its check fails by the text cap, naming it.
                        Some("failed") => {
                            assert!(check["error"].as_str().unwrap().contains("its text is over the limit"), "{check}");
                            break;
                        }
                        _ => {
                            assert!(Instant::now() < give_up, "{check}");
                            std::thread::sleep(Duration::from_millis(50));
                        }
                    }
                }
            }
            // The DOCX, unpacked at upload as a ZIP would be: refused by the text cap.
            422 => assert!(v["error"]["message"].as_str().unwrap().contains("its text is over the limit"), "{v}"),
            other => panic!("{other} {}", answer.body),
        }
    }
    let peak = server.peak_mb();
    eprintln!("three near-limit uploads at once: server peak RSS {peak:.0} MB");
    assert!(peak <= LIMIT_MB, "server peak RSS {peak:.0} MB over its {LIMIT_MB} MB limit");
}

/// Issue 52's item 3: 200 uploads of 1 MB at the same instant, on a server of `--memory-mb
/// 256` and two workers. Each upload goes to disk as it arrives (64 KiB of it kept to tell
/// its format), so receiving them all stays under the server's bound of the attack
/// (500 MB), the checks that start meanwhile included (measured: 235-257 MB). The drain that
/// follows (200 checks of 1 MB, four minutes in a debug build) is not waited for: its peak
/// is two checks plus what the allocator keeps of the uploads' memory, which `--memory-mb`
/// does not bound; docs/performance.md ("Server memory under many uploads") measures it.
#[test]
fn two_hundred_uploads_of_1_mb_at_once_are_received_under_the_bound() {
    const UPLOADS: usize = 200;
    let work = tempfile::tempdir().unwrap();
    let index = demo_index(work.path());
    let server = Serve::start_with(&index, work.path().join("serve.log"), &["--memory-mb", "256"]);
    // Sixteen different documents of 1 MB (`bench/server_load.py` sends as many).
    let bodies: Vec<Arc<Vec<u8>>> = (0..16)
        .map(|seed| {
            let mut text = tessera_test_support::words::text(seed + 1, 200_000, 2, 8).into_bytes();
            text.truncate(1 << 20);
            Arc::new(text)
        })
        .collect();
    let barrier = Arc::new(Barrier::new(UPLOADS));
    let started = Instant::now();
    let threads: Vec<_> = (0..UPLOADS)
        .map(|i| {
            let (addr, barrier, body) = (server.addr.clone(), Arc::clone(&barrier), Arc::clone(&bodies[i % 16]));
            std::thread::spawn(move || {
                barrier.wait();
                upload_until_taken(&addr, &format!("load-{i}.txt"), &body).status
            })
        })
        .collect();
    for thread in threads {
        assert_eq!(thread.join().unwrap(), 202);
    }
    let peak = server.peak_mb();
    eprintln!(
        "{UPLOADS} uploads of 1 MB received in {:.1} s: server peak RSS {peak:.0} MB",
        started.elapsed().as_secs_f64()
    );
    assert!(peak <= SERVER_RSS_MB, "server peak RSS {peak:.0} MB over {SERVER_RSS_MB} MB");
}
