//! The server's request parsing: multipart and JSON bodies, paths and query strings of
//! every endpoint, driven through the real router in process (no socket, no workers) over
//! a small index. Whatever the bytes, the answer is never a `500` and every error is the
//! documented JSON shape.
//!
//! The first byte picks the endpoint and content type; the rest is the body (or the
//! path and query string, for the `GET` endpoints). The upload limit is 1 byte, so
//! bodies are parsed but almost nothing is accepted (nothing piles up on disk); the
//! index and check store live in a temporary directory.
//!
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run server_request`; seeds in
//! `fuzz/corpus/server_request/`.
#![cfg_attr(not(feature = "replay"), no_main)]

use std::sync::OnceLock;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use tessera_engine::{AddMode, CollectionConfig, CollectionKind, Engine, EngineOptions, FingerprintSettings};
use tessera_fuzz::fuzz_target;
use tessera_server::{Server, ServerConfig};
use tower::ServiceExt;

struct Fixture {
    _dir: tempfile::TempDir,
    runtime: tokio::runtime::Runtime,
    router: axum::Router,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let index = dir.path().join("idx");
        let engine =
            Engine::open_or_create(&index, &FingerprintSettings::default(), EngineOptions::default()).expect("index");
        let lib = CollectionConfig { name: "library".into(), kind: CollectionKind::Source, keep_texts: true };
        let text = include_str!("../../testdata/demo/library/honey-bees.txt");
        engine.add_text(&lib, "honey-bees.txt", "Honey bees", text, AddMode::All).expect("add");
        drop(engine);
        let mut config = ServerConfig::new(&index);
        config.data_dir = Some(dir.path().join("data"));
        config.max_upload_bytes = 1;
        let server = Server::build(config, EngineOptions::default()).expect("server");
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        Fixture { _dir: dir, runtime, router: server.router() }
    })
}

const MULTIPART: &str = "multipart/form-data; boundary=XyZ";

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    let (method, uri, content_type, body): (Method, String, Option<&str>, Vec<u8>) = match selector % 8 {
        0 => (Method::POST, "/api/checks".into(), Some(MULTIPART), rest.to_vec()),
        1 => (Method::POST, "/api/checks".into(), Some("application/json"), rest.to_vec()),
        2 => (Method::POST, "/api/documents".into(), Some(MULTIPART), rest.to_vec()),
        3 => (Method::POST, "/api/documents".into(), Some("application/json"), rest.to_vec()),
        4 => (
            Method::PATCH,
            "/api/checks/0123456789abcdef0123456789abcdef/report".into(),
            Some("application/json"),
            rest.to_vec(),
        ),
        5 => (Method::GET, format!("/api/checks?{text}"), None, Vec::new()),
        6 => (Method::GET, format!("/api/checks/{text}"), None, Vec::new()),
        _ => (Method::DELETE, format!("/api/documents/{text}"), None, Vec::new()),
    };
    let mut request = Request::builder().method(method).uri(uri);
    if let Some(ct) = content_type {
        request = request.header(header::CONTENT_TYPE, ct);
    }
    // Bytes that make no URI are refused by the HTTP layer before the router.
    let Ok(request) = request.body(Body::from(body)) else { return };
    let fx = fixture();
    let response = fx.runtime.block_on(fx.router.clone().oneshot(request)).expect("infallible");
    let status = response.status();
    assert!(!status.is_server_error() || status == StatusCode::SERVICE_UNAVAILABLE, "{status} for selector {selector}");
    if status.is_client_error() {
        let ct = response.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
        assert!(ct.starts_with("application/json"), "{status} answered as {ct:?}");
    }
});
