//! Errors as Python exceptions: the engine's message, always.

use pyo3::PyErr;
use pyo3::exceptions::{PyException, PyValueError};
use tessera_engine::{ErrorKind, describe_error};

pyo3::create_exception!(
    tessera,
    TesseraError,
    PyException,
    "An operation of Tessera's engine failed (an index, a file, a sketch store): the message is the engine's, naming the file and the reason."
);

pyo3::create_exception!(
    tessera,
    ShardUnavailableError,
    TesseraError,
    "A shard of a sharded index did not answer (it is down, or the call to it timed out): the check cannot be complete; it may succeed when tried again. The message names the shard."
);

/// An engine error: a setting or name the caller gave is refused (`ValueError`), anything
/// else is a [`TesseraError`]; both carry the engine's message with its causes.
pub(crate) fn engine(e: tessera_engine::Error) -> PyErr {
    let message = describe_error(&e);
    match e.kind() {
        ErrorKind::Invalid | ErrorKind::TooLarge => PyValueError::new_err(message),
        ErrorKind::Unavailable => ShardUnavailableError::new_err(message),
        _ => TesseraError::new_err(message),
    }
}

/// A setting the sketches' constructors refuse (out of range): `ValueError`.
pub(crate) fn setting(e: impl std::error::Error + 'static) -> PyErr {
    PyValueError::new_err(describe_error(&e))
}

/// A file of a sketch store that cannot be read or written, or is damaged: the message
/// names the file.
pub(crate) fn store(e: impl std::error::Error + 'static) -> PyErr {
    TesseraError::new_err(describe_error(&e))
}
