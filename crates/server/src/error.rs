//! Errors: the library's [`Error`] and the JSON error answers of the HTTP API.

use std::path::PathBuf;

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// Starting the server or keeping its check queue failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing a file of the check queue failed. The cause names the file
    /// and the system's reason (it comes from `fs_err`), so the message is the cause's.
    #[error("{source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause, naming the file.
        source: std::io::Error,
    },
    /// A file of the check queue holds something unreadable.
    #[error("{}: {reason}", file.display())]
    Corrupt {
        /// The file.
        file: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The engine failed (opening the index, extraction, search).
    #[error(transparent)]
    Engine(#[from] tessera_engine::Error),
    /// The settings cannot work (e.g. a public address without a token).
    #[error("invalid server settings: {0}")]
    Config(String),
    /// The operating system gave no random bytes for check ids.
    #[error("no random bytes for ids: {0}")]
    Random(String),
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) trait IoContext<T> {
    fn at(self, path: &std::path::Path) -> Result<T>;
}

impl<T> IoContext<T> for std::io::Result<T> {
    fn at(self, path: &std::path::Path) -> Result<T> {
        self.map_err(|source| Error::Io { path: path.to_path_buf(), source })
    }
}

pub use tessera_engine::wire::{ErrorBody, ErrorDetail};

/// An HTTP error answer: a status code and an [`ErrorBody`].
#[derive(Debug)]
pub struct ApiError {
    /// The status code.
    pub status: StatusCode,
    /// Stable code.
    pub code: &'static str,
    /// Sentence for a person.
    pub message: String,
}

impl ApiError {
    /// An error with a status, a code and a message.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self { status, code, message: message.into() }
    }

    pub(crate) fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    pub(crate) fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    pub(crate) fn internal(e: &dyn std::fmt::Display) -> Self {
        tracing::error!("internal error: {e}");
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string())
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        match e {
            Error::Engine(e) => engine_error(e),
            other => ApiError::internal(&other),
        }
    }
}

/// Maps an engine error to a status: bad input is the client's fault, the rest ours.
pub(crate) fn engine_error(e: tessera_engine::Error) -> ApiError {
    use tessera_engine::ErrorKind as K;
    let (status, code) = match e.kind() {
        K::Unsupported => (StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_format"),
        K::TooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "too_large"),
        K::Unreadable | K::Empty | K::Archive => (StatusCode::UNPROCESSABLE_ENTITY, "unreadable_document"),
        K::Invalid => (StatusCode::BAD_REQUEST, "bad_request"),
        K::UnknownCollection | K::UnknownDocument => (StatusCode::NOT_FOUND, "not_found"),
        K::EmptyIndex => (StatusCode::CONFLICT, "empty_index"),
        K::Locked => (StatusCode::CONFLICT, "index_locked"),
        _ => return ApiError::internal(&e),
    };
    ApiError::new(status, code, e.to_string())
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody { error: ErrorDetail { code: self.code.to_owned(), message: self.message } };
        (self.status, Json(body)).into_response()
    }
}
