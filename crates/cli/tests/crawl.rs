//! `tessera crawl` end to end: a real process killed with SIGKILL mid-crawl, then
//! resumed; the server's request log proves nothing was lost or fetched twice.
#![allow(clippy::unwrap_used)]

#[path = "../../crawl/tests/support/mod.rs"]
mod support;

use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use support::{Resp, Server, article, words};

const PAGES: usize = 30;
/// The request (counting robots.txt and the home page) during which the crawler dies.
const KILL_AT: usize = 14;

#[test]
fn resume_after_kill_9_loses_nothing_and_fetches_nothing_twice() {
    let pid = Arc::new(AtomicU32::new(0));
    let armed = Arc::new(AtomicBool::new(true));
    let (pid2, armed2) = (Arc::clone(&pid), Arc::clone(&armed));
    let links: Vec<String> = (0..PAGES).map(|i| format!("/p{i}")).collect();
    let site = Server::start("127.0.0.6", move |path, n| {
        if n == KILL_AT && armed2.swap(false, Ordering::SeqCst) {
            // Kill the crawler while this request is in flight; never answer it.
            let _ = Command::new("kill").arg("-9").arg(pid2.load(Ordering::SeqCst).to_string()).status();
            return Resp { hang_up: true, ..Resp::default() };
        }
        match path {
            "/robots.txt" => Resp::status(404),
            "/" => Resp::html(article("Home", &words(1000, 150), &links)),
            p => match p.strip_prefix("/p").and_then(|i| i.parse::<u64>().ok()) {
                Some(i) if (i as usize) < PAGES => Resp::html(article(p, &words(i + 1, 200), &[])),
                _ => Resp::status(404),
            },
        }
    });
    let index = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_tessera");
    let base_args = |resume: bool| {
        let mut c = Command::new(bin);
        c.args(["-q", "crawl", "--index"]).arg(index.path()).args(["--per-host-delay", "20ms", "--format", "json"]);
        if resume {
            c.arg("--resume");
        } else {
            c.args(["--seed", &site.url("/")]);
        }
        c.stdout(Stdio::piped()).stderr(Stdio::piped());
        c
    };
    let child = base_args(false).spawn().unwrap();
    pid.store(child.id(), Ordering::SeqCst);
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success(), "the first run must be killed: {}", String::from_utf8_lossy(&out.stderr));
    assert!(!armed.load(Ordering::SeqCst), "the kill happened");
    let out = base_args(true).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();

    // Every page was requested; only the request cut by the kill was repeated.
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for h in site.hits().iter().filter(|h| h.path != "/robots.txt") {
        *counts.entry(h.path.clone()).or_default() += 1;
    }
    let killed = site.hits()[KILL_AT - 1].path.clone();
    assert_eq!(counts.len(), PAGES + 1, "{counts:?}");
    for (path, n) in &counts {
        assert_eq!(*n, if *path == killed { 2 } else { 1 }, "{path} in {counts:?}");
    }
    // Every page (the home page too) is in the index exactly once.
    let stats = Command::new(bin).args(["stats", "--format", "json", "--index"]).arg(index.path()).output().unwrap();
    let stats: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    let web = stats["collections"].as_array().unwrap().iter().find(|c| c["name"] == "web").unwrap();
    assert_eq!(web["docs"].as_u64(), Some(PAGES as u64 + 1), "{stats}");
    assert_eq!(summary["failed"].as_u64(), Some(0), "{summary}");
    // Nothing attached; the list is empty but readable.
    let attached = Command::new(bin).args(["crawl", "--attached", "--index"]).arg(index.path()).output().unwrap();
    assert!(attached.status.success());
    assert!(attached.stdout.is_empty());
}

#[test]
fn rejections_are_logged_with_their_reason_and_counted() {
    let site = Server::start("127.0.0.9", |path, _| match path {
        "/robots.txt" => Resp::typed("text/plain", "User-agent: *\nDisallow: /no\n"),
        "/" => Resp::html(article("Home", &words(90, 120), &["/short".into(), "/copy".into(), "/no".into()])),
        "/short" => Resp::html(article("Short", "Too few words to index.", &[])),
        "/copy" => Resp::html(article("Copy", &words(90, 120), &[])),
        _ => Resp::status(404),
    });
    let index = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_tessera");
    let out = Command::new(bin)
        .args(["crawl", "-v", "--per-host-delay", "10ms", "--seed", &site.url("/"), "--index"])
        .arg(index.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("rejected too_short {}", site.url("/short"))), "{stderr}");
    assert!(stderr.contains(&format!("disallowed {}", site.url("/no"))), "{stderr}");
    assert!(stderr.contains(&format!("attached to doc 0 (100.0%) {}", site.url("/copy"))), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    for line in ["added 1\n", "attached 1\n", "rejected 1 (too_short 1)\n", "disallowed 1\n"] {
        assert!(stdout.contains(line), "{line:?} in {stdout}");
    }
    assert_eq!(site.count("/no"), 0);
    let attached = Command::new(bin).args(["crawl", "--attached", "--index"]).arg(index.path()).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&attached.stdout), format!("{}\t0\t1.0000\n", site.url("/copy")));
}

/// While `tessera serve` runs on an index it is the index's one writer: a crawl that
/// would write the index itself is refused, and `--server` hands the pages to the
/// server, which adds them only if new.
#[test]
fn crawl_into_a_served_index_goes_through_the_server() {
    let site = Server::start("127.0.0.10", |path, _| match path {
        "/robots.txt" => Resp::status(404),
        "/" => Resp::html(article("Home", &words(70, 150), &["/a".into(), "/b".into(), "/copy".into()])),
        "/a" => Resp::html(article("A", &words(71, 200), &[])),
        "/b" => Resp::html(article("B", &words(72, 200), &[])),
        "/copy" => Resp::html(article("Copy of A", &words(71, 200), &[])),
        _ => Resp::status(404),
    });
    let tmp = tempfile::tempdir().unwrap();
    let index = tmp.path().join("idx");
    let bin = env!("CARGO_BIN_EXE_tessera");
    let seed = tmp.path().join("seed.txt");
    std::fs::write(&seed, words(73, 200)).unwrap();
    let out = Command::new(bin).args(["-q", "index", "-c", "lib", "--index"]).arg(&index).arg(&seed).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let mut server = Command::new(bin)
        .args(["serve", "--addr", "127.0.0.1:0", "--index"])
        .arg(&index)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(server.stdout.take().unwrap()), &mut first).unwrap();
    let url = first.trim().strip_prefix("listening on ").unwrap().to_owned();

    let crawl = |extra: &[&str]| {
        Command::new(bin)
            .args(["-q", "crawl", "--per-host-delay", "10ms", "--format", "json", "--seed", &site.url("/"), "--index"])
            .arg(&index)
            .args(extra)
            .output()
            .unwrap()
    };
    let refused = crawl(&[]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(stderr.contains("tessera serve") && stderr.contains("--server URL") && stderr.contains("LOCK"), "{stderr}");
    assert!(!index.join("crawl").exists(), "a refused crawl leaves no state behind");

    let out = crawl(&["--server", &url]);
    let _ = Command::new("kill").arg(server.id().to_string()).status();
    server.wait().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((summary["added"].as_u64(), summary["attached"].as_u64()), (Some(3), Some(1)), "{summary}");
    assert_eq!(summary["segments"], serde_json::Value::Null, "the server, not the crawler, knows the segments");
    let stats = Command::new(bin).args(["stats", "--format", "json", "--index"]).arg(&index).output().unwrap();
    let stats: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    let web = stats["collections"].as_array().unwrap().iter().find(|c| c["name"] == "web").unwrap();
    assert_eq!(web["docs"].as_u64(), Some(3), "{stats}");
    let attached = Command::new(bin).args(["crawl", "--attached", "--index"]).arg(&index).output().unwrap();
    let attached = String::from_utf8_lossy(&attached.stdout);
    assert!(
        attached.starts_with(&format!("{}\t", site.url("/copy"))) && attached.ends_with("\t1.0000\n"),
        "{attached}"
    );
}
