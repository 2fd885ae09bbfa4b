//! `tessera serve`: the HTTP API and the web page over an index.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;
use tessera_server::{
    DEFAULT_BODY_READ_TIMEOUT, DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_MAX_CHECKS_BYTES, DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_UPLOAD_BYTES, DEFAULT_UPLOAD_TIMEOUT, Server, ServerConfig,
};

use super::{IndexDir, SearchArgs};

/// Threads of the server's blocking pool.
const SERVE_BLOCKING_THREADS: usize = 16;

/// Arguments of `tessera serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    index: IndexDir,
    /// Address to listen on. Anything but loopback needs --token.
    #[arg(long, env = "TESSERA_ADDR", default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Bearer token that writes (uploads, edits, adds) must present.
    #[arg(long, env = "TESSERA_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Where the check queue lives (default: INDEX/server).
    #[arg(long, value_name = "DIR")]
    data: Option<PathBuf>,
    /// Checks run at the same time (default: one per core, at most 8).
    #[arg(long)]
    workers: Option<usize>,
    /// Largest upload, in bytes.
    #[arg(long, default_value_t = DEFAULT_MAX_UPLOAD_BYTES)]
    max_upload_bytes: u64,
    /// Checks kept under the data folder (uploads and reports), in MiB: past it the
    /// oldest finished checks are dropped.
    #[arg(long, value_name = "MIB", default_value_t = DEFAULT_MAX_CHECKS_BYTES >> 20)]
    max_checks_mb: u64,
    /// Requests handled at the same time; one more is answered 503 busy with Retry-After.
    #[arg(long, default_value_t = 64)]
    max_requests: usize,
    /// Connections open at the same time (kept under the open-file limit); more wait in
    /// the backlog.
    #[arg(long, default_value_t = DEFAULT_MAX_CONNECTIONS)]
    max_connections: usize,
    /// Seconds a client has to send a request's head; an idle kept-alive connection is
    /// closed after as long.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_HEADER_READ_TIMEOUT.as_secs_f64())]
    header_timeout: f64,
    /// Seconds a request body may pause before the request is answered 408.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_BODY_READ_TIMEOUT.as_secs_f64())]
    body_timeout: f64,
    /// Seconds a whole request body may take before the request is answered 408.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_UPLOAD_TIMEOUT.as_secs_f64())]
    upload_timeout: f64,
    /// Memory the checks in progress may be expected to take together, in MiB: a check
    /// starts (and an archive is unpacked) only when its expected cost fits.
    #[arg(long, value_name = "MIB", default_value_t = tessera_engine::memory::DEFAULT_MEMORY_LIMIT >> 20)]
    memory_mb: u64,
    /// Seconds a check waits for each collection before its report goes out partial.
    #[arg(long, default_value_t = 30.0)]
    collection_timeout: f64,
    /// A collection's own timeout in seconds, as NAME=SECONDS (repeatable).
    #[arg(long = "timeout-for", value_name = "NAME=SECONDS", value_parser = parse_timeout)]
    timeouts: Vec<(String, Duration)>,
    /// Keep every checked document in this collection of submissions (made on first
    /// use; texts kept), so later checks find it; a check's `submit_to` overrides it
    /// (`""`: not kept).
    #[arg(long, value_name = "COLLECTION")]
    submissions: Option<String>,
    #[command(flatten)]
    search: SearchArgs,
}

fn parse_timeout(s: &str) -> std::result::Result<(String, Duration), String> {
    let (name, secs) = s.split_once('=').ok_or("expected NAME=SECONDS")?;
    Ok((name.to_owned(), seconds(secs)?))
}

fn seconds(s: &str) -> std::result::Result<Duration, String> {
    let v: f64 = s.trim().parse().map_err(|_| format!("{s:?} is not a number of seconds"))?;
    Duration::try_from_secs_f64(v).map_err(|_| format!("{s:?} is not a usable number of seconds"))
}

fn positive_seconds(flag: &str, value: f64) -> Result<Duration> {
    match Duration::try_from_secs_f64(value) {
        Ok(d) if !d.is_zero() => Ok(d),
        _ => bail!("{flag} must be a positive number of seconds, not {value}"),
    }
}

/// Runs `tessera serve` until Ctrl-C or SIGTERM.
pub fn run(args: &ServeArgs) -> Result<ExitCode> {
    let mut config = ServerConfig::new(&args.index.dir);
    config.addr = args.addr;
    config.token = args.token.clone();
    config.data_dir = args.data.clone();
    if let Some(w) = args.workers {
        if w == 0 {
            bail!("--workers must be at least 1");
        }
        config.workers = w;
    }
    config.max_upload_bytes = args.max_upload_bytes;
    if args.max_checks_mb == 0 {
        bail!("--max-checks-mb must be at least 1");
    }
    config.max_checks_bytes = args.max_checks_mb.saturating_mul(1 << 20);
    if args.max_requests == 0 {
        bail!("--max-requests must be at least 1");
    }
    config.max_concurrent_requests = args.max_requests;
    if args.max_connections == 0 {
        bail!("--max-connections must be at least 1");
    }
    config.max_connections = args.max_connections;
    config.header_read_timeout = positive_seconds("--header-timeout", args.header_timeout)?;
    config.body_read_timeout = positive_seconds("--body-timeout", args.body_timeout)?;
    config.upload_timeout = positive_seconds("--upload-timeout", args.upload_timeout)?;
    config.collection_timeout = seconds(&args.collection_timeout.to_string()).map_err(anyhow::Error::msg)?;
    config.collection_timeouts = args.timeouts.iter().cloned().collect();
    if let Some(name) = &args.submissions {
        if !tessera_engine::valid_collection_name(name) {
            bail!("--submissions {name:?} is not a collection name (1 to 64 of A-Z a-z 0-9 _ . -)");
        }
        config.submissions = Some(name.clone());
    }
    // Info shows one line per request (method, path, status, duration) and the
    // workers' events; TESSERA_LOG=debug shows more, TESSERA_LOG=warn less.
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("TESSERA_LOG")
                .unwrap_or_else(|_| "info,tower_http=warn".into()),
        )
        .try_init();
    if args.memory_mb == 0 {
        bail!("--memory-mb must be at least 1");
    }
    let options = tessera_engine::EngineOptions { memory_limit: args.memory_mb << 20, ..args.search.options() };
    let server = Server::build(config, options)
        .with_context(|| format!("starting the server on the index at {}", args.index.dir.display()))?;
    // Blocking work (acceptances with their fsyncs, searches, reports) runs on at most
    // 16 threads: with one thread per upload in flight, each kept its allocator heap and
    // 200 uploads at once cost 1.2 GB instead of 0.5 (docs/performance.md).
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .max_blocking_threads(SERVE_BLOCKING_THREADS)
        .enable_all()
        .build()
        .context("starting the runtime")?;
    runtime.block_on(async {
        let listener =
            tokio::net::TcpListener::bind(args.addr).await.with_context(|| format!("listening on {}", args.addr))?;
        let local = listener.local_addr().context("reading the bound address")?;
        // The first line on stdout is the address, so scripts that bind port 0 find it.
        println!("listening on http://{local}");
        if server.requeued() > 0 {
            eprintln!("{} unfinished check(s) from the last run queued again", server.requeued());
        }
        server.serve(listener, shutdown_signal()).await.context("serving")
    })?;
    Ok(ExitCode::SUCCESS)
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(s) => s,
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
                return;
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
