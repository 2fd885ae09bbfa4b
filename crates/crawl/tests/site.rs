//! A crawl of a small loopback site over three "hosts" (127.0.0.2-4): robots.txt rules
//! and Crawl-delay, redirects, duplicates and near-duplicates under different URLs, a
//! canonical alias, junk, a PDF, a slow host and a failing host. Every assertion comes
//! from the servers' request logs and the crawl's recorded outcomes.
#![allow(clippy::unwrap_used)]

mod support;

use std::collections::BTreeMap;
use std::time::Duration;

use support::{Resp, Server, article, words};
use tessera_crawl::{CrawlConfig, Crawler, EngineSink, Outcome};
use tessera_engine::{CollectionConfig, CollectionKind, Engine, EngineOptions, FingerprintSettings};

const DELAY_MS: u64 = 100;
const CRAWL_DELAY_MS: u64 = 250;

fn pdf() -> Vec<u8> {
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n".to_vec()
}

#[test]
fn polite_crawl_adds_only_what_is_new() {
    // Host C fails every page with 503.
    let failing =
        Server::start("127.0.0.4", |path, _| if path == "/robots.txt" { Resp::status(404) } else { Resp::status(503) });
    // Host B is slow.
    let slow = Server::start("127.0.0.3", |path, _| {
        let mut r = match path {
            "/robots.txt" => Resp::status(404),
            "/" => Resp::html(article("Slow home", &words(30, 200), &["/s1".into()])),
            "/s1" => Resp::html(article("Slow one", &words(31, 200), &[])),
            _ => Resp::status(404),
        };
        r.delay = Duration::from_millis(300);
        r
    });
    let (slow_url, failing_url) = (slow.url("/"), failing.url("/f1"));
    let text_a = words(1, 300);
    let mut near_a: Vec<&str> = text_a.split(' ').collect();
    let len = near_a.len();
    for w in near_a.iter_mut().skip(len - 8) {
        *w = "changed";
    }
    let near_a = near_a.join(" ");
    let links: Vec<String> = [
        "/a",
        "/dup-of-a?utm_source=news",
        "/near-a",
        "/private/secret",
        "/junk",
        "/short",
        "/old",
        "/doc.pdf",
        "/canon-alias",
        "/b#section",
        "/private/also",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .chain([slow_url.clone(), failing_url.clone(), "http://elsewhere.invalid/x".to_owned()])
    .collect();
    let site = Server::start("127.0.0.2", move |path, _| match path {
        "/robots.txt" => Resp::typed(
            "text/plain",
            format!("User-agent: *\nDisallow: /private/\nCrawl-delay: {}\n", CRAWL_DELAY_MS as f64 / 1000.0),
        ),
        "/" => Resp::html(article("Home", &words(9, 120), &links)),
        "/a" => Resp::html(article("Article A", &text_a, &[])),
        "/dup-of-a?" | "/dup-of-a" => Resp::html(article("Copy of A", &text_a, &["/a".into()])),
        "/near-a" => Resp::html(article("Nearly A", &near_a, &[])),
        "/b" => Resp::html(article("Article B", &words(2, 300), &[])),
        "/c" => Resp::html(article("Article C", &words(3, 300), &[])),
        "/old" => Resp::redirect("/c"),
        "/junk" => Resp::html(format!(
            "<html><body><article><p>{}</p></article></body></html>",
            (0..300).map(|i| format!("{i:06} ## {}", i * 7)).collect::<Vec<_>>().join(" ")
        )),
        "/short" => Resp::html(article("Short", "Only a few words here.", &[])),
        "/doc.pdf" => Resp::typed("application/pdf", pdf()),
        "/canon-alias" => Resp::html(
            article("Alias", &words(1, 300), &[]).replace("<head>", "<head><link rel=\"canonical\" href=\"/a\">"),
        ),
        _ => Resp::status(404),
    });

    let index = tempfile::tempdir().unwrap();
    let engine =
        Engine::open_or_create(index.path(), &FingerprintSettings::default(), EngineOptions::default()).unwrap();
    let config = CrawlConfig {
        allow_domains: vec!["127.0.0.2".into(), "127.0.0.3".into(), "127.0.0.4".into()],
        per_host_delay_ms: DELAY_MS,
        max_retries: 2,
        retry_base_ms: 50,
        timeout_ms: 5000,
        user_agent: "tessera-test/1 (+http://contact.invalid/)".into(),
        ..CrawlConfig::default()
    };
    let coll = CollectionConfig { name: "web".into(), kind: CollectionKind::Source, keep_texts: false };
    let mut sink = EngineSink::new(&engine, coll, config.containment).unwrap();
    let state = tessera_crawl::state_dir(index.path());
    let mut crawler = Crawler::create(&state, config).unwrap();
    assert_eq!(crawler.add_seeds([site.url("/").as_str()]).unwrap(), 1);
    let stats = crawler.run(&mut sink, &mut |_| {}).unwrap();

    // robots.txt: disallowed pages were never requested, robots.txt was read once per host.
    let hits = site.hits();
    assert!(hits.iter().all(|h| !h.path.starts_with("/private/")), "{hits:?}");
    assert_eq!(site.count("/robots.txt"), 1);
    assert_eq!(slow.count("/robots.txt"), 1);
    assert_eq!(stats.disallowed, 2);
    assert!(hits.iter().all(|h| h.user_agent == "tessera-test/1 (+http://contact.invalid/)"));
    // Politeness: on each host, requests start at least the delay apart (Crawl-delay
    // when it is larger), and every page was requested once.
    for (server, min) in [(&site, CRAWL_DELAY_MS), (&slow, DELAY_MS), (&failing, DELAY_MS)] {
        let hits = server.hits();
        for pair in hits.windows(2) {
            let gap = pair[1].at.duration_since(pair[0].at);
            assert!(gap >= Duration::from_millis(min), "{} then {} after {gap:?}", pair[0].path, pair[1].path);
        }
    }
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for h in &hits {
        *counts.entry(h.path.clone()).or_default() += 1;
    }
    assert!(counts.values().all(|&n| n == 1), "{counts:?}");
    // Tracking parameters and fragments are gone from the URLs requested.
    assert_eq!(counts.get("/dup-of-a"), Some(&1));
    assert_eq!(counts.get("/b"), Some(&1));
    // The failing host: one request and the retries, then a recorded failure.
    assert_eq!(failing.count("/f1"), 3);
    let outcomes = Crawler::outcomes(&state).unwrap();
    assert!(matches!(outcomes.get(&failing_url), Some(Outcome::Failed { .. })), "{outcomes:?}");
    // The slow host's pages were indexed.
    assert!(matches!(outcomes.get(&slow.url("/s1")), Some(Outcome::Added { .. })), "{outcomes:?}");
    // Redirect followed to its target, which was indexed.
    assert_eq!(outcomes.get(&site.url("/old")), Some(&Outcome::Redirect { to: site.url("/c") }));
    assert!(matches!(outcomes.get(&site.url("/c")), Some(Outcome::Added { .. })));
    // Duplicate and near-duplicate attached to A, not added.
    let Some(Outcome::Added { doc: a }) = outcomes.get(&site.url("/a")).cloned() else { panic!("{outcomes:?}") };
    for dup in ["/dup-of-a", "/near-a"] {
        match outcomes.get(&site.url(dup)) {
            Some(Outcome::Attached { doc, containment }) => {
                assert_eq!(*doc, a);
                assert!(*containment >= 0.9);
            }
            other => panic!("{dup}: {other:?}"),
        }
    }
    // The canonical alias names /a, already seen: not indexed again.
    assert_eq!(outcomes.get(&site.url("/canon-alias")), Some(&Outcome::Canonical { to: site.url("/a") }));
    // Rubbish rejected with its reason.
    assert_eq!(outcomes.get(&site.url("/junk")), Some(&Outcome::Rejected { reason: "junk".into() }));
    assert_eq!(outcomes.get(&site.url("/short")), Some(&Outcome::Rejected { reason: "too_short".into() }));
    // The PDF was fetched and handed to extraction (which on this build may not read PDF).
    assert_eq!(site.count("/doc.pdf"), 1);
    match outcomes.get(&site.url("/doc.pdf")) {
        Some(Outcome::Skipped { reason }) => assert!(reason.contains("pdf"), "{reason}"),
        Some(Outcome::Added { .. } | Outcome::Rejected { .. }) => {}
        other => panic!("pdf: {other:?}"),
    }
    // Off-domain links are not followed.
    assert!(!outcomes.contains_key("http://elsewhere.invalid/x"));
    // The index holds exactly the added pages.
    let added: Vec<_> = outcomes.values().filter(|o| matches!(o, Outcome::Added { .. })).collect();
    assert_eq!(web_docs(&engine), added.len() as u64);
    assert_eq!(stats.added, added.len() as u64);
    assert_eq!(stats.attached, 2);
    let attached = Crawler::attachments(&state).unwrap();
    assert_eq!(
        attached.iter().map(|x| x.url.clone()).collect::<Vec<_>>(),
        [site.url("/dup-of-a"), site.url("/near-a")]
    );
    // A second run of the same crawl fetches nothing again (and needs the first one
    // closed: one crawl at a time).
    let before = site.hits().len();
    assert!(Crawler::resume(&state, None).is_err());
    drop(crawler);
    let mut again = Crawler::resume(&state, None).unwrap();
    again.add_seeds([site.url("/").as_str()]).unwrap();
    let stats = again.run(&mut sink, &mut |_| {}).unwrap();
    assert_eq!(stats.fetched, 0);
    assert_eq!(site.hits().len(), before);
}

#[test]
fn retry_after_and_max_pages() {
    // The first request of /p answers 429 with Retry-After: 1; the retry waits for it.
    let site = Server::start("127.0.0.5", |path, n| match path {
        "/robots.txt" => Resp::status(404),
        "/" => Resp::html(article("Home", &words(5, 100), &(0..20).map(|i| format!("/p{i}")).collect::<Vec<_>>())),
        "/p0" if n == 3 => {
            let mut r = Resp::status(429);
            r.headers.push(("Retry-After".into(), "1".into()));
            r
        }
        p if p.starts_with("/p") => Resp::html(article(p, &words(100 + p.len() as u64, 100), &[])),
        _ => Resp::status(404),
    });
    let index = tempfile::tempdir().unwrap();
    let engine =
        Engine::open_or_create(index.path(), &FingerprintSettings::default(), EngineOptions::default()).unwrap();
    let config = CrawlConfig { per_host_delay_ms: 10, retry_base_ms: 10, max_pages: Some(4), ..CrawlConfig::default() };
    let coll = CollectionConfig { name: "web".into(), kind: CollectionKind::Source, keep_texts: false };
    let mut sink = EngineSink::new(&engine, coll, 0.9).unwrap();
    let mut crawler = Crawler::create(&tessera_crawl::state_dir(index.path()), config).unwrap();
    crawler.add_seeds([site.url("/").as_str()]).unwrap();
    let stats = crawler.run(&mut sink, &mut |_| {}).unwrap();
    let hits = site.hits();
    let p0: Vec<_> = hits.iter().filter(|h| h.path == "/p0").collect();
    assert_eq!(p0.len(), 2, "{hits:?}");
    assert!(p0[1].at.duration_since(p0[0].at) >= Duration::from_secs(1));
    assert_eq!(stats.fetched, 4);
    assert_eq!(hits.iter().filter(|h| h.path != "/robots.txt").count(), 5);
    assert!(stats.queued > 0);
}

#[test]
fn revisit_sends_conditional_requests() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    // After the first crawl /b changes; /a and / do not.
    let changed = Arc::new(AtomicBool::new(false));
    let changed2 = Arc::clone(&changed);
    let site = Server::start_with_headers("127.0.0.7", move |path, _, headers| {
        let header = |name: &str| headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
        match path {
            "/robots.txt" => Resp::status(404),
            "/" if header("if-modified-since") == Some("Mon, 02 Nov 2026 10:00:00 GMT") => Resp::status(304),
            "/" => Resp::html(article("Home", &words(70, 100), &["/a".into(), "/b".into()]))
                .header("Last-Modified", "Mon, 02 Nov 2026 10:00:00 GMT"),
            "/a" if header("if-none-match") == Some("\"a1\"") => Resp::status(304),
            "/a" => Resp::html(article("A", &words(71, 200), &[])).header("ETag", "\"a1\""),
            "/b" if changed2.load(Ordering::SeqCst) => {
                if header("if-none-match") == Some("\"b2\"") {
                    Resp::status(304)
                } else {
                    Resp::html(article("B, second edition", &words(73, 200), &[])).header("ETag", "\"b2\"")
                }
            }
            "/b" if header("if-none-match") == Some("\"b1\"") => Resp::status(304),
            "/b" => Resp::html(article("B", &words(72, 200), &[])).header("ETag", "\"b1\""),
            _ => Resp::status(404),
        }
    });
    let index = tempfile::tempdir().unwrap();
    let engine =
        Engine::open_or_create(index.path(), &FingerprintSettings::default(), EngineOptions::default()).unwrap();
    let config = CrawlConfig { per_host_delay_ms: 10, ..CrawlConfig::default() };
    let coll = CollectionConfig { name: "web".into(), kind: CollectionKind::Source, keep_texts: false };
    let mut sink = EngineSink::new(&engine, coll, 0.9).unwrap();
    let state = tessera_crawl::state_dir(index.path());
    let mut crawler = Crawler::create(&state, config).unwrap();
    crawler.add_seeds([site.url("/").as_str()]).unwrap();
    assert_eq!(crawler.run(&mut sink, &mut |_| {}).unwrap().added, 3);
    changed.store(true, Ordering::SeqCst);
    let first = site.hits().len();
    drop(crawler);
    let mut again = Crawler::resume(&state, None).unwrap();
    assert_eq!(again.revisit().unwrap(), 3);
    let stats = again.run(&mut sink, &mut |_| {}).unwrap();
    let hits = site.hits();
    let revisits: Vec<_> = hits[first..].iter().filter(|h| h.path != "/robots.txt").collect();
    assert_eq!(revisits.len(), 3, "{revisits:?}");
    let sent = |path: &str, name: &str| {
        revisits
            .iter()
            .find(|h| h.path == path)
            .and_then(|h| h.headers.iter().find(|(k, _)| k == name))
            .map(|(_, v)| v.clone())
    };
    assert_eq!(sent("/a", "if-none-match").as_deref(), Some("\"a1\""));
    assert_eq!(sent("/b", "if-none-match").as_deref(), Some("\"b1\""));
    assert_eq!(sent("/", "if-modified-since").as_deref(), Some("Mon, 02 Nov 2026 10:00:00 GMT"));
    assert_eq!(stats.not_modified, 2);
    let outcomes = Crawler::outcomes(&state).unwrap();
    assert_eq!(outcomes.get(&site.url("/a")), Some(&Outcome::NotModified));
    // The changed page is new text: added as a new document; the old one stays.
    assert!(matches!(outcomes.get(&site.url("/b")), Some(Outcome::Added { .. })));
    assert_eq!(web_docs(&engine), 4);
}

#[test]
fn bad_input_does_not_stop_the_crawl() {
    let site = Server::start("127.0.0.8", |path, _| match path {
        // Garbage robots.txt: not UTF-8, no structure. Read as no rules.
        "/robots.txt" => Resp::typed("text/plain", b"\xff\xfe\x00User-agent \x80\n:::\nDisallow\n\xc3".to_vec()),
        "/" => Resp::html(article(
            "Home",
            &words(80, 100),
            &[
                "/huge".into(),
                "/png".into(),
                "/nolocation".into(),
                "/loop1".into(),
                "http://[::1".into(),
                "javascript:alert(1)".into(),
                "http://127.0.0.8:0/".into(),
                "/%zz".into(),
            ],
        )),
        "/huge" => Resp::html("x".repeat(300_000)),
        "/png" => Resp::typed("text/html", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR".to_vec()),
        "/nolocation" => Resp::status(302),
        "/loop1" => Resp::redirect("/loop2"),
        "/loop2" => Resp::redirect("/loop1"),
        _ => Resp::status(404),
    });
    let index = tempfile::tempdir().unwrap();
    let engine =
        Engine::open_or_create(index.path(), &FingerprintSettings::default(), EngineOptions::default()).unwrap();
    let config = CrawlConfig { per_host_delay_ms: 5, max_bytes: 100_000, max_retries: 0, ..CrawlConfig::default() };
    let coll = CollectionConfig { name: "web".into(), kind: CollectionKind::Source, keep_texts: false };
    let mut sink = EngineSink::new(&engine, coll, 0.9).unwrap();
    let state = tessera_crawl::state_dir(index.path());
    let mut crawler = Crawler::create(&state, config).unwrap();
    assert_eq!(crawler.add_seeds(["not a url", "ftp://x/", site.url("/").as_str()]).unwrap(), 1);
    crawler.run(&mut sink, &mut |_| {}).unwrap();
    let outcomes = Crawler::outcomes(&state).unwrap();
    let skipped = |path: &str, needle: &str| match outcomes.get(&site.url(path)) {
        Some(Outcome::Skipped { reason }) => assert!(reason.contains(needle), "{path}: {reason}"),
        other => panic!("{path}: {other:?}"),
    };
    skipped("/huge", "larger than 100000 bytes");
    skipped("/png", "");
    skipped("/nolocation", "without Location");
    // The redirect loop ends: each URL is fetched once.
    assert_eq!(site.count("/loop1"), 1);
    assert_eq!(site.count("/loop2"), 1);
    assert!(matches!(outcomes.get(&site.url("/")), Some(Outcome::Added { .. })), "{outcomes:?}");
}

/// Live documents of the collection "web".
fn web_docs(engine: &Engine) -> u64 {
    engine.collections().unwrap().into_iter().find(|c| c.config.name == "web").map_or(0, |c| c.docs)
}
