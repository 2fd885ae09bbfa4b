//! What the CLI's tests share: runs of the `tessera` binary in a directory, the demo
//! index, and a real `tessera serve` process over it (the restart and browser tests).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;

pub const THESIS: &str = include_str!("../../../../testdata/demo/thesis.txt");

/// The binary under test; `TESSERA_BIN` overrides it, for worktrees that share a target
/// directory (where `target/debug/tessera` is whichever worktree linked last).
pub fn bin() -> PathBuf {
    std::env::var_os("TESSERA_BIN").map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_tessera")), PathBuf::from)
}

pub fn tessera() -> Command {
    Command::new(bin())
}

/// What one run of the binary did.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    fn of(out: Output) -> Run {
        let run = Run {
            code: out.status.code(),
            stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
        };
        run.assert_no_panic();
        run
    }

    /// Asserts exit code 0 and returns stdout.
    #[track_caller]
    pub fn ok(self) -> String {
        assert_eq!(self.code, Some(0), "expected success\nstdout:\n{}\nstderr:\n{}", self.stdout, self.stderr);
        self.stdout
    }

    /// Asserts the exit code and that stderr holds every one of `needles`.
    #[track_caller]
    pub fn fails(&self, code: i32, needles: &[&str]) {
        assert_eq!(self.code, Some(code), "exit code\nstdout:\n{}\nstderr:\n{}", self.stdout, self.stderr);
        for needle in needles {
            assert!(self.stderr.contains(needle), "stderr lacks {needle:?}:\n{}", self.stderr);
        }
    }

    /// Whether the exit code is 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }

    /// (exit code, stdout, stderr).
    pub fn into_parts(self) -> (Option<i32>, String, String) {
        (self.code, self.stdout, self.stderr)
    }

    #[track_caller]
    fn assert_no_panic(&self) {
        assert!(!self.stderr.contains("panicked"), "the binary panicked:\n{}", self.stderr);
        assert!(!self.stderr.contains("RUST_BACKTRACE"), "the binary panicked:\n{}", self.stderr);
    }
}

/// `tessera` in `dir` (relative paths in arguments and outputs), with no `TESSERA_INDEX`,
/// `TESSERA_THREADS` or `RUST_LOG` from the environment.
fn command_in(dir: &Path, args: &[&str]) -> Command {
    let mut command = tessera();
    command
        .args(args)
        .current_dir(dir)
        .env_remove("TESSERA_INDEX")
        .env_remove("TESSERA_THREADS")
        .env_remove("RUST_LOG");
    command
}

/// Runs `tessera args...` in `dir` (see [`command_in`]); asserts that it did not panic.
#[track_caller]
pub fn run(dir: &Path, args: &[&str]) -> Run {
    Run::of(command_in(dir, args).output().expect("running tessera"))
}

/// [`run`] with the environment variables `env` set.
#[track_caller]
pub fn run_env(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> Run {
    let mut command = command_in(dir, args);
    for (name, value) in env {
        command.env(name, value);
    }
    Run::of(command.output().expect("running tessera"))
}

/// [`run`] with `input` on the standard input.
#[track_caller]
pub fn run_stdin(dir: &Path, args: &[&str], input: &[u8]) -> Run {
    let mut child = command_in(dir, args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running tessera");
    child.stdin.take().unwrap().write_all(input).unwrap();
    Run::of(child.wait_with_output().unwrap())
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

// ---------------------------------------------------------------------------------------
// Workspaces with the demo texts (tests/cli.rs, tests/reviewer.rs)
// ---------------------------------------------------------------------------------------

pub fn demo_src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/demo")
}

pub fn demo_text(name: &str) -> String {
    fs::read_to_string(demo_src().join(name)).unwrap()
}

pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    let mut entries: Vec<_> = fs::read_dir(from).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            fs::copy(&path, &target).unwrap();
        }
    }
}

/// A temporary directory with the demo texts in `demo/` and no index yet.
pub fn workspace() -> TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&demo_src(), &tmp.path().join("demo"));
    tmp
}

/// Builds the demo index at `index` (relative to `dir`): collection `library` (sources,
/// texts kept) and `citations` (kind citation). Returns both `index` stdouts.
pub fn build_index(dir: &Path, index: &str) -> (String, String) {
    let library = run(dir, &["index", "--index", index, "-c", "library", "--keep-texts", "demo/library"]).ok();
    let citations = run(dir, &["index", "--index", index, "-c", "citations", "--kind", "citation", "demo/citations"]);
    (library, citations.ok())
}

/// A workspace with the demo index at `lib`.
pub fn indexed() -> TempDir {
    let tmp = workspace();
    build_index(tmp.path(), "lib");
    tmp
}

/// Parses JSON output, showing it when it is not JSON.
pub fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}
