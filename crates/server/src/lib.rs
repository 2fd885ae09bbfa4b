//! Tessera's HTTP server and web page: upload a document, follow the check, read and
//! edit the report.
//!
//! What it owns: `tessera serve`'s HTTP API, its durable check queue, per-collection
//! timeouts and the web page. It must never hold a rule of adding, checking or reporting:
//! it calls the engine's (`search_each`, `report`, `AddSession`) and speaks the core's
//! wire types.
//!
//! # Overview
//!
//! [`Server::build`] opens an index (through the engine) and the *check queue*, a
//! directory on disk ([`CheckStore`]; the format is in docs/design.md). A check is
//! accepted by storing the upload durably and answering `202` with an id; a bounded
//! pool of workers ([`ServerConfig::workers`]) takes checks in order, extracts the text,
//! searches every collection concurrently, each with its own timeout
//! ([`ServerConfig::timeout_for`]), and stores the report. A collection that misses its
//! timeout leaves the report *partial*, naming it; the report completes when the
//! collection answers. Checks that a killed server had accepted run again at the next
//! start, so every accepted check completes.
//!
//! The API (JSON, described at `/openapi.json` by [`ApiDoc`]):
//!
//! | Method and path | What |
//! |---|---|
//! | `POST /api/checks` | multipart `file` (any supported format; an archive gives one check per member) or JSON `{"text"}` -> `202 {"id"}` |
//! | `GET /api/checks/{id}` | status, progress, warnings and, when ready, the report |
//! | `PATCH /api/checks/{id}/report` | `{"sources":[{"id","enabled"}],"blocks":[{"id","kind"}]}` -> recomputed report |
//! | `GET /api/checks/{id}/report.json`, `.html` | downloads |
//! | `POST /api/documents` | add texts or files to a collection, optionally only if new |
//! | `DELETE /api/documents/{id}` | delete a document from the index |
//! | `GET /api/collections`, `GET /api/health` | names, kinds, sizes; queue and workers |
//!
//! Writes need `Authorization: Bearer TOKEN` when a token is set; a server on an address
//! that is not loopback refuses to start without one. Errors are
//! `{"error": {"code", "message"}}` with a meaningful status.
//!
//! # Example
//!
//! ```no_run
//! use tessera_engine::EngineOptions;
//! use tessera_server::{Server, ServerConfig};
//! # async fn run() -> tessera_server::Result<()> {
//! let config = ServerConfig::new("lib");
//! let server = Server::build(config, EngineOptions::default())?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await.expect("port");
//! server.serve(listener, async { let _ = tokio::signal::ctrl_c().await; }).await
//! # }
//! ```
//!
//! # When to use this
//!
//! To give people a web page and programs an HTTP API over one index on one machine.
//! For batch checks from a script, the CLI (`tessera check --format json`) is simpler.
#![deny(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod api;
mod assets;
mod config;
mod connections;
mod error;
mod queue;
mod server;
mod state;
mod store;
mod worker;

pub use api::{
    Accepted, AcceptedMember, AddDocuments, AddedDocument, AddedDocuments, ApiDoc, BlockEdit, CheckList, CheckSummary,
    CheckView, CollectionView, EditRequest, Health, NewText, ShareTotals, SkippedDocument, SkippedMember, SourceEdit,
    TextCheck,
};
pub use config::{
    DEFAULT_BODY_READ_TIMEOUT, DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_MAX_CHECKS_BYTES, DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_UPLOAD_BYTES, DEFAULT_UPLOAD_TIMEOUT, ServerConfig,
};
pub use error::{ApiError, Error, ErrorBody, ErrorDetail, Result};
pub use server::Server;
pub use store::{CheckRecord, CheckStore, Edit, Progress, RECORD_VERSION, Stage, Status};
