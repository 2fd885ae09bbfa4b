//! End to end in headless Chromium, driven through chromedriver's WebDriver HTTP API:
//! upload the demo thesis on the page, wait for the report, read the totals, switch a
//! source off and see the totals change.
//!
//! Runs when `TESSERA_E2E=1` (`.ci/run` sets it and installs chromium and
//! chromium-driver); skips with a message otherwise or when they are absent. With
//! `TESSERA_SCREENSHOTS=DIR` it also saves the page as PNG files (docs/).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{ServeProcess, THESIS, agent, demo_index};

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?.to_str()?.split(':').map(|d| Path::new(d).join(name)).find(|p| p.is_file())
}

struct Driver {
    child: Child,
    base: String,
    session: String,
    agent: ureq::Agent,
}

impl Driver {
    fn start(chromium: &Path, chromedriver: &Path, profile: &Path) -> Driver {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let base = format!("http://127.0.0.1:{port}");
        let agent = agent();
        let give_up = Instant::now() + Duration::from_secs(60);
        while agent.get(format!("{base}/status")).call().is_err() {
            assert!(Instant::now() < give_up, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        let caps = json!({"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": chromium,
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-quic",
                     "--no-first-run", "--disable-component-update", "--disable-sync", "--window-size=1440,1000",
                     format!("--user-data-dir={}", profile.display())]
        }}}});
        let v: Value = agent.post(format!("{base}/session")).send_json(&caps).unwrap().body_mut().read_json().unwrap();
        let session = v["value"]["sessionId"].as_str().unwrap_or_else(|| panic!("no session: {v}")).to_owned();
        Driver { child, base, session, agent }
    }

    fn call(&self, method: &str, path: &str, body: Value) -> Value {
        let url = format!("{}/session/{}{path}", self.base, self.session);
        let mut r = match method {
            "GET" => self.agent.get(&url).call().unwrap(),
            _ => self.agent.post(&url).send_json(&body).unwrap(),
        };
        let v: Value = r.body_mut().read_json().unwrap();
        assert!(v["value"].get("error").is_none(), "{method} {path}: {v}");
        v["value"].clone()
    }

    fn find(&self, css: &str) -> String {
        let v = self.call("POST", "/element", json!({"using": "css selector", "value": css}));
        v.as_object().unwrap().values().next().unwrap().as_str().unwrap().to_owned()
    }

    fn script(&self, js: &str) -> Value {
        self.call("POST", "/execute/sync", json!({"script": js, "args": []}))
    }

    /// Polls a script until it returns something truthy (gives up after two minutes).
    fn wait_for(&self, js: &str) -> Value {
        let give_up = Instant::now() + Duration::from_secs(120);
        loop {
            let v = self.script(js);
            if !(v.is_null() || v == json!(false) || v == json!("")) {
                return v;
            }
            assert!(Instant::now() < give_up, "the page never satisfied: {js}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn screenshot(&self, dir: Option<&Path>, name: &str) {
        let Some(dir) = dir else { return };
        let b64 = self.call("GET", "/screenshot", Value::Null);
        std::fs::write(dir.join(name), base64_decode(b64.as_str().unwrap())).unwrap();
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.agent.delete(format!("{}/session/{}", self.base, self.session)).call();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let bytes: Vec<u8> = s.bytes().filter(|c| !c.is_ascii_whitespace() && *c != b'=').collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, c)| acc | u32::from(val(*c)) << (18 - 6 * i));
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

fn totals(d: &Driver) -> (f64, f64, f64) {
    let v = d.script(
        "return ['total-borrowings','total-citations','total-originality'].map(id => parseFloat(document.getElementById(id).textContent));",
    );
    let a = v.as_array().unwrap();
    (a[0].as_f64().unwrap(), a[1].as_f64().unwrap(), a[2].as_f64().unwrap())
}

#[test]
fn upload_on_the_page_read_totals_switch_a_source_off() {
    if std::env::var("TESSERA_E2E").as_deref() != Ok("1") {
        eprintln!("skipped: set TESSERA_E2E=1 to run the headless Chromium test (.ci/run does)");
        return;
    }
    let (Some(chromium), Some(chromedriver)) =
        (which("chromium").or_else(|| which("chromium-browser")), which("chromedriver"))
    else {
        eprintln!("skipped: chromium and chromedriver are not installed (apt-get install -y chromium chromium-driver)");
        return;
    };
    let shots = std::env::var_os("TESSERA_SCREENSHOTS").map(PathBuf::from);
    let dir = tempfile::tempdir().unwrap();
    let index = demo_index(dir.path());
    let server = ServeProcess::start(&index, &[]);
    let upload = dir.path().join("thesis.txt");
    std::fs::write(&upload, THESIS).unwrap();

    let d = Driver::start(&chromium, &chromedriver, &dir.path().join("profile"));
    d.call("POST", "/url", json!({"url": format!("{}/", server.base)}));
    d.wait_for("return document.querySelectorAll('#collection-list li').length >= 2;");
    d.screenshot(shots.as_deref(), "page-upload.png");

    let input = d.find("#file-input");
    d.call("POST", &format!("/element/{input}/value"), json!({"text": upload.to_str().unwrap()}));
    d.wait_for("return !document.getElementById('report-view').hidden && document.querySelectorAll('#document mark').length > 0;");
    let (b0, c0, o0) = totals(&d);
    assert!(b0 > 0.0 && c0 > 0.0 && o0 > 0.0, "{b0} {c0} {o0}");
    assert!((b0 + c0 + o0 - 100.0).abs() < 0.5);
    d.screenshot(shots.as_deref(), "page-report.png");

    // Compare a borrowed passage with its source.
    let mark = d.find("#document mark.borrowing");
    d.call("POST", &format!("/element/{mark}/click"), json!({}));
    let excerpt = d.wait_for(
        "return !document.getElementById('compare').hidden && document.getElementById('compare-source').textContent;",
    );
    assert!(excerpt.as_str().unwrap().contains("fifteenth century"), "{excerpt}");
    d.screenshot(shots.as_deref(), "page-compare.png");
    d.call("POST", &format!("/element/{}/click", d.find("#compare-close")), json!({}));

    // Switch the first borrowing source off: borrowings fall, originality rises.
    let toggle = d.find(".src-row:has(.kind.source) input.source-toggle");
    d.call("POST", &format!("/element/{toggle}/click"), json!({}));
    d.wait_for(&format!("return parseFloat(document.getElementById('total-borrowings').textContent) !== {b0};"));
    let (b1, _, o1) = totals(&d);
    assert!(b1 < b0 && o1 > o0, "borrowings {b0} -> {b1}, originality {o0} -> {o1}");
    assert_eq!(d.script("return document.querySelectorAll('.src-row.disabled').length;"), json!(1));
    d.screenshot(shots.as_deref(), "page-edited.png");

    // The edit is stored: a reload shows the same totals.
    d.call("POST", "/refresh", json!({}));
    d.wait_for("return !document.getElementById('report-view').hidden;");
    assert_eq!(totals(&d).0, b1);
}
