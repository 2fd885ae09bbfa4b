//! A real `tessera serve` process over the demo index, for the restart and browser tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

pub const THESIS: &str = include_str!("../../../../testdata/demo/thesis.txt");

pub fn tessera() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
}

/// Builds the demo index (collections `library`, texts kept, and `citations`) in
/// `dir/index` with `tessera demo`.
pub fn demo_index(dir: &Path) -> PathBuf {
    let out = tessera().arg("demo").arg("--out").arg(dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    dir.join("index")
}

/// A running `tessera serve`; killed on drop.
pub struct ServeProcess {
    pub child: Child,
    pub base: String,
}

impl ServeProcess {
    /// Starts `tessera serve --index INDEX --addr 127.0.0.1:0 EXTRA...` and reads the
    /// address from its first stdout line.
    pub fn start(index: &Path, extra: &[&str]) -> ServeProcess {
        let mut child = tessera()
            .arg("serve")
            .arg("--index")
            .arg(index)
            .args(["--addr", "127.0.0.1:0"])
            .args(extra)
            .env("TESSERA_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let base = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        ServeProcess { child, base }
    }

    /// SIGKILL: no shutdown code runs.
    pub fn kill9(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder().http_status_as_error(false).build().into()
}

pub fn get_json(agent: &ureq::Agent, url: &str) -> Value {
    agent.get(url).call().unwrap().body_mut().read_json().unwrap()
}

/// Polls until the check is done or failed; gives up after five minutes (a hang is a
/// failure, not a timing measurement).
pub fn wait_done(agent: &ureq::Agent, base: &str, id: &str) -> Value {
    let give_up = Instant::now() + Duration::from_secs(300);
    loop {
        let v = get_json(agent, &format!("{base}/api/checks/{id}"));
        if v["status"] == "done" || v["status"] == "failed" {
            return v;
        }
        assert!(Instant::now() < give_up, "check {id} never finished: {v}");
        std::thread::sleep(Duration::from_millis(25));
    }
}
