//! The crash harness: a test binary re-executes itself to run one of its own tests as a
//! child process, reads the numbers the child reports on its standard output, and kills
//! it with SIGKILL at a chosen moment, so the parent test can check that nothing the
//! child reported is lost.
//!
//! The child test is `#[ignore]`d (a normal run does not run it on its own, and does not
//! count it as passed) and reads its working directory from an environment variable
//! with [`child_dir`]; the parent runs it with `--exact NAME --ignored`, so a normal
//! `cargo test` runs the child through its parent:
//!
//! ```no_run
//! use std::time::Duration;
//! use tessera_test_support::child::{CrashChild, child_dir};
//!
//! const CHILD: CrashChild = CrashChild { test: "writer_child", env: "MY_CHILD_DIR", prefix: "committed " };
//!
//! // #[test] #[ignore = "the child of `killed_writers_lose_nothing`, which runs it"]
//! fn writer_child() {
//!     let dir = child_dir(CHILD.env, "killed_writers_lose_nothing");
//!     for n in 1.. {
//!         // ... write and commit in `dir` ...
//!         println!("committed {n}");
//!     }
//! }
//!
//! // #[test]
//! fn killed_writers_lose_nothing() {
//!     let dir = std::env::temp_dir().join("crash-example");
//!     for round in 0..12 {
//!         let last = CHILD.run_and_kill(&dir, 1 + round % 3, Duration::from_millis(round));
//!         // ... open `dir`: at least `last` commits are there, whole ...
//!     }
//! }
//! ```

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The working directory a child test was given by its parent in the environment variable
/// `env`. Panics, naming the `parent` test, when the variable is not set: a child run on
/// its own (`cargo test -- --ignored`) would test nothing.
#[track_caller]
pub fn child_dir(env: &str, parent: &str) -> PathBuf {
    match std::env::var_os(env) {
        Some(dir) => PathBuf::from(dir),
        None => panic!("this test is the child of `{parent}`, which runs it with {env} set: run `{parent}` instead"),
    }
}

/// A child test of the current test binary and how it reports.
#[derive(Debug, Clone, Copy)]
pub struct CrashChild<'a> {
    /// The `#[ignore]`d test the child runs.
    pub test: &'a str,
    /// The environment variable that gives the child its working directory.
    pub env: &'a str,
    /// What the child's report lines start with; a number follows (`"committed "`).
    pub prefix: &'a str,
}

impl CrashChild<'_> {
    /// Runs the child test on `dir`, waits until it printed `reports` report lines (at
    /// least one), sleeps `pause`, kills it with SIGKILL (none of its shutdown code runs)
    /// and returns the number of the last report line it printed, the lines it printed
    /// between the wait and its death included.
    pub fn run_and_kill(&self, dir: &Path, reports: u64, pause: Duration) -> u64 {
        assert!(reports > 0, "wait for at least one report");
        let exe = std::env::current_exe().expect("the test binary's path");
        let mut child = Command::new(exe)
            .args([self.test, "--exact", "--ignored", "--nocapture", "--test-threads=1"])
            .env(self.env, dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting the child test");
        let stdout = child.stdout.take().expect("the child's piped stdout");
        let mut lines = BufReader::new(stdout).lines();
        let mut last = None;
        let mut seen = 0;
        while seen < reports {
            let Some(line) = lines.next() else {
                let status = child.wait().expect("waiting for the child");
                panic!("child test `{}` ended early ({status}) after {seen} of {reports} reports", self.test);
            };
            if let Some(n) = self.report(&line.expect("reading the child's output")) {
                last = Some(n);
                seen += 1;
            }
        }
        std::thread::sleep(pause);
        child.kill().expect("killing the child"); // SIGKILL on Unix
        child.wait().expect("waiting for the killed child");
        for line in lines.map_while(Result::ok) {
            if let Some(n) = self.report(&line) {
                last = Some(n);
            }
        }
        last.expect("at least one report was read")
    }

    /// The number of a report line; `None` for the test harness's own lines.
    fn report(&self, line: &str) -> Option<u64> {
        let number = line.strip_prefix(self.prefix)?;
        Some(number.trim().parse().unwrap_or_else(|_| panic!("a report line without a number: {line:?}")))
    }
}
