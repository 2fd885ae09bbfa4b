//! A real server on loopback over a small index built from the demo sample.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;
use tessera_engine::{AddMode, CollectionConfig, CollectionKind};
use tessera_engine::{Engine, EngineOptions, FingerprintSettings};
use tessera_server::{Server, ServerConfig};

pub const THESIS: &str = include_str!("../../../../testdata/demo/thesis.txt");
const LIBRARY: &[(&str, &str)] = &[
    ("printing-press.txt", include_str!("../../../../testdata/demo/library/printing-press.txt")),
    ("honey-bees.txt", include_str!("../../../../testdata/demo/library/honey-bees.txt")),
    ("siberian-rivers.txt", include_str!("../../../../testdata/demo/library/siberian-rivers.txt")),
];
const COMMON: &str = include_str!("../../../../testdata/demo/citations/common-expressions.txt");

/// Builds the demo index in `dir`: collections `library` (source, texts kept) and
/// `citations` (citation).
pub fn demo_index(dir: &Path) {
    let engine = Engine::open_or_create(dir, &FingerprintSettings::default(), EngineOptions::default()).unwrap();
    let lib = CollectionConfig { name: "library".into(), kind: CollectionKind::Source, keep_texts: true };
    for (name, text) in LIBRARY {
        engine.add_text(&lib, name, name, text, AddMode::All).unwrap();
    }
    let cit = CollectionConfig { name: "citations".into(), kind: CollectionKind::Citation, keep_texts: false };
    engine.add_text(&cit, "common-expressions.txt", "Common expressions", COMMON, AddMode::All).unwrap();
}

/// A running server; stopped on drop.
pub struct TestServer {
    pub base: String,
    pub dir: tempfile::TempDir,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    pub agent: ureq::Agent,
}

impl TestServer {
    pub fn start(tweak: impl FnOnce(&mut ServerConfig)) -> TestServer {
        let dir = tempfile::tempdir().unwrap();
        demo_index(&dir.path().join("index"));
        Self::start_in(dir, tweak)
    }

    pub fn start_in(dir: tempfile::TempDir, tweak: impl FnOnce(&mut ServerConfig)) -> TestServer {
        Self::start_with(dir, tweak, EngineOptions::default())
    }

    pub fn start_with(
        dir: tempfile::TempDir,
        tweak: impl FnOnce(&mut ServerConfig),
        options: EngineOptions,
    ) -> TestServer {
        let mut config = ServerConfig::new(dir.path().join("index"));
        config.workers = 2;
        tweak(&mut config);
        let server = Server::build(config, options).unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            runtime
                .block_on(server.serve(listener, async move {
                    let _ = stopped.await;
                }))
                .unwrap();
        });
        // No call of a test waits forever: a server that stops answering fails the test.
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(120)))
            .build()
            .into();
        TestServer { base, dir, stop: Some(stop), thread: Some(thread), agent }
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("index").join("server")
    }

    pub fn get(&self, path: &str) -> (u16, Value) {
        let mut r = self.agent.get(format!("{}{path}", self.base)).call().unwrap();
        let status = r.status().as_u16();
        (status, r.body_mut().read_json().unwrap_or(Value::Null))
    }

    pub fn get_raw(&self, path: &str) -> (u16, String, String, String) {
        let mut r = self.agent.get(format!("{}{path}", self.base)).call().unwrap();
        let header = |h: &str| r.headers().get(h).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
        let (ct, cd) = (header("content-type"), header("content-disposition"));
        (r.status().as_u16(), ct, cd, r.body_mut().read_to_string().unwrap())
    }

    /// Status, content type, content disposition and the body's bytes.
    pub fn get_bytes(&self, path: &str) -> (u16, String, String, Vec<u8>) {
        let mut r = self.agent.get(format!("{}{path}", self.base)).call().unwrap();
        let header = |h: &str| r.headers().get(h).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
        let (ct, cd) = (header("content-type"), header("content-disposition"));
        (r.status().as_u16(), ct, cd, r.body_mut().read_to_vec().unwrap())
    }

    /// Edits check `id`'s report (`PATCH /api/checks/{id}/report`) without a token.
    pub fn edit_report(&self, id: &str, edit: &Value) -> (u16, Value) {
        self.send_json("PATCH", &format!("/api/checks/{id}/report"), edit, None)
    }

    pub fn send_json(&self, method: &str, path: &str, body: &Value, token: Option<&str>) -> (u16, Value) {
        let url = format!("{}{path}", self.base);
        let mut req = match method {
            "POST" => self.agent.post(&url),
            "PATCH" => self.agent.patch(&url),
            other => panic!("{other}"),
        };
        if let Some(t) = token {
            req = req.header("authorization", format!("Bearer {t}"));
        }
        let mut r = req.send_json(body).unwrap();
        (r.status().as_u16(), r.body_mut().read_json().unwrap_or(Value::Null))
    }

    pub fn upload(&self, file_name: &str, bytes: &[u8], token: Option<&str>) -> (u16, Value) {
        let (content_type, body) = multipart(&[("file", Some(file_name), bytes)]);
        let mut req = self.agent.post(format!("{}/api/checks", self.base)).header("content-type", content_type);
        if let Some(t) = token {
            req = req.header("authorization", format!("Bearer {t}"));
        }
        let mut r = req.send(&body[..]).unwrap();
        (r.status().as_u16(), r.body_mut().read_json().unwrap_or(Value::Null))
    }

    pub fn delete(&self, path: &str) -> (u16, Value) {
        let mut r = self.agent.delete(format!("{}{path}", self.base)).call().unwrap();
        (r.status().as_u16(), r.body_mut().read_json().unwrap_or(Value::Null))
    }

    /// Polls a check until it is done or failed.
    pub fn wait(&self, id: &str) -> Value {
        wait_for(&self.agent, &self.base, id)
    }
}

/// Polls until the check is `done` or `failed` (giving up after two minutes: a hang
/// is a failure, not a timing measurement).
pub fn wait_for(agent: &ureq::Agent, base: &str, id: &str) -> Value {
    let give_up = Instant::now() + Duration::from_secs(120);
    loop {
        let mut r = agent.get(format!("{base}/api/checks/{id}")).call().unwrap();
        let v: Value = r.body_mut().read_json().unwrap();
        if v["status"] == "done" || v["status"] == "failed" {
            return v;
        }
        assert!(Instant::now() < give_up, "check {id} never finished: {v}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A multipart/form-data body: (field, file name, bytes) parts.
pub fn multipart(parts: &[(&str, Option<&str>, &[u8])]) -> (String, Vec<u8>) {
    let boundary = "tessera-test-boundary-7d1f";
    let mut body = Vec::new();
    for (field, file, bytes) in parts {
        body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        match file {
            Some(f) => body.extend_from_slice(
                format!("Content-Disposition: form-data; name=\"{field}\"; filename=\"{f}\"\r\nContent-Type: application/octet-stream\r\n\r\n").as_bytes(),
            ),
            None => body.extend_from_slice(format!("Content-Disposition: form-data; name=\"{field}\"\r\n\r\n").as_bytes()),
        }
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}
