//! Isolation of native parsers: extraction in a worker process under a time
//! and memory limit.
//!
//! PDFium (C++) is not thread-safe, and a native parser can crash or loop on
//! a hostile file. With [`ExtractConfig::isolation`] set, the formats that
//! use such parsers (PDF) are extracted by a worker process:
//!
//! 1. the parent starts [`WorkerCommand::program`] with its
//!    [`args`](WorkerCommand::args) (the CLI runs itself as
//!    `tessera __extract-worker`, which calls [`serve_stdio`]);
//! 2. it writes one request on the worker's stdin: a JSON header line
//!    (document name, the configuration without `isolation`, the memory
//!    limit) and then the document's bytes up to end of file;
//! 3. the worker sets its own address-space limit (`RLIMIT_AS`), extracts
//!    the document with an in-process [`Extractor`] and writes one JSON
//!    reply on stdout: the [`Extracted`] document or the error;
//! 4. the parent waits at most [`WorkerCommand::timeout_secs`]; past that it
//!    kills the worker and fails with [`Error::Limit`] naming the document.
//!    A worker that dies (a crash, the memory limit) gives [`Error::Failed`]
//!    naming the document and saying how it ended.
//!
//! Nothing here is specific to PDF: [`extract_isolated`] extracts any
//! document in a worker.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::{Error, ExtractConfig, Extracted, Extractor, Format, Result};

/// The default time limit per document in a worker: 120 s.
pub const DEFAULT_TIMEOUT_SECS: u64 = 120;
/// The default address-space limit of a worker: 2 GiB.
pub const DEFAULT_MEMORY_MB: u64 = 2048;

/// How to start an extraction worker, and its limits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkerCommand {
    /// The program (e.g. the `tessera` executable itself).
    pub program: PathBuf,
    /// Its arguments (e.g. `["__extract-worker"]`).
    #[serde(default)]
    pub args: Vec<String>,
    /// Time limit per document, in seconds (the worker is killed past it).
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
    /// Address-space limit of the worker, in MiB (`RLIMIT_AS`; 0: none).
    #[serde(default = "default_memory")]
    pub memory_mb: u64,
}

fn default_timeout() -> u64 {
    DEFAULT_TIMEOUT_SECS
}

fn default_memory() -> u64 {
    DEFAULT_MEMORY_MB
}

impl WorkerCommand {
    /// A worker command with the default limits.
    #[must_use]
    pub fn new(program: impl Into<PathBuf>, args: Vec<String>) -> Self {
        Self { program: program.into(), args, timeout_secs: DEFAULT_TIMEOUT_SECS, memory_mb: DEFAULT_MEMORY_MB }
    }
}

/// The header line of a request.
#[derive(Serialize, Deserialize)]
struct Request {
    name: String,
    config: ExtractConfig,
    memory_mb: u64,
}

/// The reply of a worker.
#[derive(Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
enum Reply {
    Ok { extracted: Box<Extracted> },
    Err { error: WireError },
}

/// An [`Error`] as it crosses the process boundary (the name is the
/// parent's).
#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum WireError {
    Empty,
    Binary,
    TooLarge { size: u64, limit: u64 },
    TextTooLarge { limit: u64 },
    Unsupported { media_type: String },
    Encrypted,
    Malformed { format: String, reason: String },
    Limit { limit: String },
    Archive { media_type: String },
    Failed { reason: String },
}

impl WireError {
    fn from_error(error: Error) -> Self {
        match error {
            Error::Io { reason, .. } => WireError::Failed { reason: reason.to_string() },
            Error::Empty { .. } => WireError::Empty,
            Error::Binary { .. } => WireError::Binary,
            Error::TooLarge { size, limit, .. } => WireError::TooLarge { size, limit },
            Error::TextTooLarge { limit, .. } => WireError::TextTooLarge { limit },
            Error::Unsupported { media_type, .. } => WireError::Unsupported { media_type },
            Error::Encrypted { .. } => WireError::Encrypted,
            Error::Malformed { format, reason, .. } => WireError::Malformed { format: format.into(), reason },
            Error::Limit { limit, .. } => WireError::Limit { limit },
            Error::Archive { media_type, .. } => WireError::Archive { media_type },
            Error::Failed { reason, .. } => WireError::Failed { reason },
        }
    }

    fn into_error(self, name: &str) -> Error {
        let name = name.to_owned();
        match self {
            WireError::Empty => Error::Empty { name },
            WireError::Binary => Error::Binary { name },
            WireError::TooLarge { size, limit } => Error::TooLarge { name, size, limit },
            WireError::TextTooLarge { limit } => Error::TextTooLarge { name, limit },
            WireError::Unsupported { media_type } => Error::Unsupported { name, media_type },
            WireError::Encrypted => Error::Encrypted { name },
            WireError::Malformed { format, reason } => {
                Error::Malformed { name, format: static_format(&format), reason }
            }
            WireError::Limit { limit } => Error::Limit { name, limit },
            WireError::Archive { media_type } => Error::Archive { name, media_type },
            WireError::Failed { reason } => Error::Failed { name, reason },
        }
    }
}

/// The `'static` name of a format named in a reply.
fn static_format(name: &str) -> &'static str {
    const ALL: [Format; 10] = [
        Format::Text,
        Format::Html,
        Format::Markdown,
        Format::Pdf,
        Format::Docx,
        Format::Doc,
        Format::Odt,
        Format::Pptx,
        Format::Rtf,
        Format::Epub,
    ];
    ALL.iter().map(|f| f.name()).find(|n| *n == name).unwrap_or("document")
}

/// Most bytes of a worker's stderr kept for an error message.
const STDERR_KEPT: u64 = 4096;

/// Extracts a document in a worker process started with `command`; see the
/// [module docs](self).
///
/// # Errors
///
/// The document's own errors as the worker reports them;
/// [`Error::Limit`] when the worker ran out of time (it is killed);
/// [`Error::Failed`] when it could not be started, crashed, or replied
/// something unreadable. All name `name`.
pub fn extract_isolated(
    command: &WorkerCommand,
    name: &str,
    bytes: &[u8],
    config: &ExtractConfig,
) -> Result<Extracted> {
    let failed = |reason: String| Error::Failed { name: name.into(), reason };
    let request = Request {
        name: name.into(),
        config: ExtractConfig { isolation: None, ..config.clone() },
        memory_mb: command.memory_mb,
    };
    let mut header = serde_json::to_vec(&request).map_err(|e| failed(format!("cannot encode the request: {e}")))?;
    header.push(b'\n');
    let mut child = Command::new(&command.program)
        .args(&command.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| failed(format!("cannot start the extraction worker {}: {e}", command.program.display())))?;
    // The reply holds the text plus an origin per character: bound it
    // generously by the input (a worker cannot make the parent run out of
    // memory).
    let reply_limit = u64::try_from(bytes.len()).unwrap_or(u64::MAX).saturating_mul(64).saturating_add(64 << 20);
    let timeout = Duration::from_secs(command.timeout_secs.max(1));
    // Owned threads, not scoped ones: after a timeout the pipes may stay
    // open (a grandchild holds them) and the threads are left to end alone.
    let mut request = header;
    request.extend_from_slice(bytes);
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let writer = thread::spawn(move || {
        // A worker that exits early closes the pipe: its reply says why.
        let _ = stdin.write_all(&request);
    });
    let stdout = child.stdout.take().expect("stdout is piped");
    let reader = thread::spawn(move || read_limited(stdout, reply_limit));
    let stderr = child.stderr.take().expect("stderr is piped");
    let err_reader = thread::spawn(move || read_limited(stderr, STDERR_KEPT));
    let status = wait_timeout(&mut child, timeout);
    let (out, err) = if matches!(status, Ok(Some(_))) {
        let _ = writer.join();
        (reader.join().unwrap_or_default(), err_reader.join().unwrap_or_default())
    } else {
        (Vec::new(), Vec::new())
    };
    let status = match status {
        Ok(Some(status)) => status,
        Ok(None) => {
            return Err(Error::Limit {
                name: name.into(),
                limit: format!("extraction took over {} s (the worker was stopped)", timeout.as_secs()),
            });
        }
        Err(e) => return Err(failed(format!("waiting for the extraction worker: {e}"))),
    };
    match serde_json::from_slice::<Reply>(&out) {
        Ok(Reply::Ok { extracted }) => Ok(*extracted),
        Ok(Reply::Err { error }) => Err(error.into_error(name)),
        Err(_) => Err(failed(describe_death(status, &err))),
    }
}

/// Reads at most `limit` bytes, then drains the rest (so the writer never
/// blocks on a full pipe).
fn read_limited(mut from: impl Read, limit: u64) -> Vec<u8> {
    let mut kept = Vec::new();
    let _ = (&mut from).take(limit).read_to_end(&mut kept);
    let _ = std::io::copy(&mut from, &mut std::io::sink());
    kept
}

/// Waits for a child at most `timeout`; kills it past that (`Ok(None)`).
pub(crate) fn wait_timeout(child: &mut Child, timeout: Duration) -> std::io::Result<Option<ExitStatus>> {
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        let now = Instant::now();
        if now >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

fn describe_death(status: ExitStatus, stderr: &[u8]) -> String {
    let how = signal_of(status).map_or_else(
        || match status.code() {
            Some(0) => "the extraction worker gave no readable reply".to_owned(),
            Some(code) => format!("the extraction worker failed (exit code {code})"),
            None => "the extraction worker died".to_owned(),
        },
        |signal| format!("the extraction worker crashed (signal {signal})"),
    );
    let tail = String::from_utf8_lossy(stderr);
    let tail = tail.trim();
    if tail.is_empty() { how } else { format!("{how}: {tail}") }
}

#[cfg(unix)]
fn signal_of(status: ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(&status)
}

#[cfg(not(unix))]
fn signal_of(_: ExitStatus) -> Option<i32> {
    None
}

/// The worker's side: reads one request from stdin, sets its memory limit,
/// extracts the document in this process and writes the reply on stdout.
/// The CLI's hidden `__extract-worker` command calls this.
///
/// # Errors
///
/// Only I/O errors on stdin/stdout and an unreadable request header; the
/// document's own errors are sent to the parent in the reply.
pub fn serve_stdio() -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut header = Vec::new();
    // The header is one short JSON line; anything longer is not ours.
    std::io::BufRead::read_until(&mut (&mut input).take(1 << 20), b'\n', &mut header)?;
    let request: Request = serde_json::from_slice(&header).map_err(std::io::Error::other)?;
    let mut bytes = Vec::new();
    (&mut input).take(request.config.max_bytes.saturating_add(1)).read_to_end(&mut bytes)?;
    set_memory_limit(request.memory_mb)?;
    let extractor = Extractor::new(ExtractConfig { isolation: None, ..request.config });
    let reply = match extractor.extract_bytes(&request.name, &bytes) {
        Ok(extracted) => Reply::Ok { extracted: Box::new(extracted) },
        Err(error) => Reply::Err { error: WireError::from_error(error) },
    };
    let out = std::io::stdout();
    let mut out = out.lock();
    serde_json::to_writer(&mut out, &reply).map_err(std::io::Error::other)?;
    out.flush()
}

#[cfg(unix)]
fn set_memory_limit(memory_mb: u64) -> std::io::Result<()> {
    if memory_mb == 0 {
        return Ok(());
    }
    let bytes = memory_mb.saturating_mul(1 << 20);
    let (_, hard) = rlimit::getrlimit(rlimit::Resource::AS)?;
    rlimit::setrlimit(rlimit::Resource::AS, bytes.min(hard), hard)
}

#[cfg(not(unix))]
fn set_memory_limit(_: u64) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_cross_the_boundary_with_their_kind() {
        let back = |e: Error| {
            let json = serde_json::to_string(&WireError::from_error(e)).unwrap();
            serde_json::from_str::<WireError>(&json).unwrap().into_error("p.pdf")
        };
        assert!(matches!(back(Error::Encrypted { name: "x".into() }), Error::Encrypted { name } if name == "p.pdf"));
        let e = back(Error::Malformed { name: "x".into(), format: "pdf", reason: "bad xref".into() });
        assert!(matches!(e, Error::Malformed { format: "pdf", ref reason, .. } if reason == "bad xref"));
        let e = back(Error::Limit { name: "x".into(), limit: "too deep".into() });
        assert_eq!(e.to_string(), "p.pdf: too deep");
    }

    #[cfg(unix)]
    #[test]
    fn a_worker_that_hangs_is_stopped_and_one_that_dies_is_named() {
        let hang = WorkerCommand { timeout_secs: 1, ..WorkerCommand::new("sh", vec!["-c".into(), "sleep 30".into()]) };
        let e = extract_isolated(&hang, "slow.pdf", b"%PDF-", &ExtractConfig::default()).unwrap_err();
        assert!(matches!(&e, Error::Limit { name, .. } if name == "slow.pdf"), "{e}");
        let die = WorkerCommand::new("sh", vec!["-c".into(), "cat >/dev/null; echo boom >&2; kill -SEGV $$".into()]);
        let e = extract_isolated(&die, "bad.pdf", b"%PDF-", &ExtractConfig::default()).unwrap_err();
        assert!(
            matches!(&e, Error::Failed { name, reason } if name == "bad.pdf" && reason.contains("signal 11") && reason.contains("boom")),
            "{e}"
        );
        let missing = WorkerCommand::new("/no/such/worker", Vec::new());
        let e = extract_isolated(&missing, "a.pdf", b"%PDF-", &ExtractConfig::default()).unwrap_err();
        assert!(matches!(&e, Error::Failed { reason, .. } if reason.contains("cannot start")), "{e}");
    }
}
