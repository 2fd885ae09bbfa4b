//! Connections: the accept loop and what bounds a slow or idle client.
//!
//! `axum::serve` accepts every connection and waits for it forever, so clients that send
//! half a request and stop (slowloris) pile up until the process runs out of file
//! descriptors and `/api/health` stops answering. This loop, written on hyper's connection
//! builder as production servers are, bounds them:
//!
//! - **open connections** are counted before any handler runs
//!   ([`ServerConfig::max_connections`]): at the cap the loop stops accepting and new
//!   clients wait in the kernel's backlog until a connection closes;
//! - **request heads** must arrive whole within [`ServerConfig::header_read_timeout`],
//!   counted from the connection's start or, on a kept-alive connection, from the end of
//!   the previous answer (hyper's timer), so an idle or dripping client is closed;
//! - **request bodies** ([`SlowBody`]) must keep coming: no wait for the next piece longer
//!   than [`ServerConfig::body_read_timeout`], and the whole body within
//!   [`ServerConfig::upload_timeout`]; past either, the read fails and the API answers
//!   `408 slow_upload`.
//!
//! At start the process raises its soft open-file limit to the hard one and keeps the
//! connection cap under it, so the cap, not the descriptor table, is what a flood meets.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::time::{Instant, Sleep};

use crate::config::ServerConfig;

/// File descriptors kept free of connections for the index's segments, the check queue's
/// files and extraction workers.
const RESERVED_FDS: u64 = 256;

/// Serves `app` on `listener` until `shutdown` completes, with the connection limits of
/// `config`; then lets the requests in progress finish (for at most [`SHUTDOWN_GRACE`]).
pub(crate) async fn serve(
    listener: TcpListener,
    app: axum::Router,
    config: &ServerConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let cap = connection_cap(config.max_connections);
    let permits = Arc::new(Semaphore::new(cap));
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(config.header_read_timeout).keep_alive(true);
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        // Counted before the connection is accepted: at the cap, clients wait in the backlog.
        let permit = tokio::select! {
            permit = Arc::clone(&permits).acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // A connection that died in the backlog concerns that client only; a
                    // full descriptor table passes when connections close.
                    if !is_connection_error(&e) {
                        tracing::warn!("accepting a connection: {e}");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        let connection = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!("connection closed: {e}");
            }
            drop(permit);
        });
    }
    drop(listener);
    // Idle connections close at once; a request in progress may finish, within a bound: a
    // client dripping an upload must not hold the shutdown for its whole upload timeout.
    if tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown()).await.is_err() {
        tracing::warn!("requests still in progress after {SHUTDOWN_GRACE:?} of shutdown: closed");
    }
}

/// How long requests in progress may take to finish once the server stops.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

/// The connection cap actually used: `wanted`, kept [`RESERVED_FDS`] under the open-file
/// limit (raised to its hard limit first).
fn connection_cap(wanted: usize) -> usize {
    let limit = rlimit::increase_nofile_limit(u64::MAX).unwrap_or(1024);
    let room = usize::try_from(limit.saturating_sub(RESERVED_FDS)).unwrap_or(usize::MAX).max(16);
    if room < wanted {
        tracing::warn!(
            "the open-file limit is {limit}: at most {room} connections at once (not {wanted}); raise `ulimit -n` for more"
        );
    }
    wanted.min(room).max(1)
}

/// Errors of one connection being accepted, which say nothing about the listener.
fn is_connection_error(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::ConnectionRefused
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::ConnectionReset
    )
}

const SLOW_UPLOAD: &str = "the request body arrived too slowly";

/// Why a request body was cut off: it arrived too slowly.
#[derive(Debug, thiserror::Error)]
#[error("{msg} (nothing for {idle:?}, or not all of it within {total:?})", msg = SLOW_UPLOAD)]
pub struct SlowUpload {
    idle: Duration,
    total: Duration,
}

pin_project_lite::pin_project! {
    /// A request body that fails with [`SlowUpload`] when its next piece takes longer
    /// than `idle`, or the whole of it longer than `total`.
    pub(crate) struct SlowBody<B> {
        #[pin]
        inner: B,
        #[pin]
        next_piece: Sleep,
        #[pin]
        whole: Sleep,
        idle: Duration,
        total: Duration,
    }
}

impl<B> SlowBody<B> {
    pub(crate) fn new(inner: B, idle: Duration, total: Duration) -> Self {
        let now = Instant::now();
        Self {
            inner,
            next_piece: tokio::time::sleep_until(now + idle),
            whole: tokio::time::sleep_until(now + total),
            idle,
            total,
        }
    }
}

impl<B> Body for SlowBody<B>
where
    B: Body<Data = Bytes>,
    B::Error: Into<axum::BoxError>,
{
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let mut this = self.project();
        match this.inner.poll_frame(cx) {
            Poll::Ready(frame) => {
                this.next_piece.as_mut().reset(Instant::now() + *this.idle);
                Poll::Ready(frame.map(|f| f.map_err(Into::into)))
            }
            Poll::Pending => {
                if this.next_piece.poll(cx).is_ready() || this.whole.poll(cx).is_ready() {
                    return Poll::Ready(Some(Err(Box::new(SlowUpload { idle: *this.idle, total: *this.total }))));
                }
                Poll::Pending
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Whether `error` (or one of its causes) is a [`SlowUpload`].
pub(crate) fn is_slow_upload(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(c) = cause {
        // Some layers keep only the message of the error they wrap.
        if c.is::<SlowUpload>() || c.to_string().contains(SLOW_UPLOAD) {
            return true;
        }
        cause = c.source();
    }
    false
}
