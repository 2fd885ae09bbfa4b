//! Runs of the `tessera` binary with their peak resident memory, as the kernel measured
//! it (the attack suites, issues 18 and 52: memory is asserted on this, not on timing).
//! Included with `#[path = "support/peak.rs"] mod peak;`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::Path;
use std::process::{ChildStdin, Command, Stdio};

/// One run of the binary: exit code, outputs, peak RSS in MB.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub peak_mb: f64,
    /// Seconds from start to exit.
    pub secs: f64,
}

/// Runs `tessera ARGS` in `cwd` with nothing on standard input ([`run_with`] says how
/// the peak is measured).
pub fn run(args: &[&str], cwd: &Path) -> Run {
    run_with(args, cwd, None)
}

/// Runs `tessera ARGS` in `cwd` while `feed` writes its standard input from a thread
/// (closed when `feed` returns; a write error means the child stopped reading, and is
/// the child's to report). The thread streams: the test process's own peak counts as the
/// child's ([`run_with`]), so what it feeds must not be held whole.
pub fn run_fed(args: &[&str], cwd: &Path, feed: impl FnOnce(&mut ChildStdin) + Send + 'static) -> Run {
    run_with(args, cwd, Some(Box::new(feed)))
}

type Feed = Box<dyn FnOnce(&mut ChildStdin) + Send>;

/// Runs the binary and reaps it with `wait4`, whose resource usage gives the child's
/// peak resident memory (`ru_maxrss`, KB), whatever its duration. It is an upper bound:
/// the child is started by `vfork`, and Linux counts the peak of the test process it was
/// forked from (some 34 MB here) as the child's until `exec`.
#[allow(clippy::zombie_processes)] // reaped by `wait_with_peak`
fn run_with(args: &[&str], cwd: &Path, feed: Option<Feed>) -> Run {
    let stdout = tempfile::NamedTempFile::new().unwrap();
    let stderr = tempfile::NamedTempFile::new().unwrap();
    let started = std::time::Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .current_dir(cwd)
        .env("TESSERA_LOG", "warn")
        .stdin(if feed.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(stdout.reopen().unwrap())
        .stderr(stderr.reopen().unwrap())
        .spawn()
        .unwrap();
    let feeder = feed.map(|feed| {
        let mut stdin = child.stdin.take().expect("piped");
        std::thread::spawn(move || {
            feed(&mut stdin);
            let _ = stdin.flush();
        })
    });
    let (code, peak_kb) = wait_with_peak(child.id());
    let secs = started.elapsed().as_secs_f64();
    if let Some(feeder) = feeder {
        feeder.join().expect("the feeding thread");
    }
    Run {
        code,
        stdout: String::from_utf8_lossy(&std::fs::read(stdout.path()).unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&std::fs::read(stderr.path()).unwrap()).into_owned(),
        peak_mb: peak_kb as f64 / 1024.0,
        secs,
    }
}

/// Waits for the child `pid`: its exit code (-1 when a signal ended it) and peak RSS in KB.
/// The standard library's `wait` does not return resource usage, hence `libc::wait4`.
#[allow(unsafe_code)]
pub fn wait_with_peak(pid: u32) -> (i32, i64) {
    let pid = libc::pid_t::try_from(pid).unwrap();
    let mut status: libc::c_int = 0;
    // SAFETY: a zeroed `rusage` is a valid value of this plain C struct, which `wait4`
    // fills; `status` and `usage` outlive the call.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid, &raw mut status, 0, &raw mut usage) };
    assert_eq!(reaped, pid, "wait4: {}", std::io::Error::last_os_error());
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { -1 };
    (code, usage.ru_maxrss)
}
