//! PDFium, which PDF extraction and the rendering of pages for OCR go through: where its
//! library file is looked for, binding it once per process behind the lock that
//! serialises all use of it, and its errors as sentences. Knows nothing of documents.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use pdfium_render::prelude::*;

use crate::{Error, Result};

/// The environment variable naming the PDFium library file.
pub const PDFIUM_ENV: &str = "TESSERA_PDFIUM";

/// Where the build fetched the PDFium library (crates/extract/build.rs), or
/// `None` when it could not (no network, Python or curl; or
/// `TESSERA_PDFIUM_FETCH=0`).
#[must_use]
pub fn pdfium_fetched_by_build() -> Option<&'static Path> {
    Some(env!("TESSERA_BUILD_PDFIUM")).filter(|p| !p.is_empty()).map(Path::new)
}

/// Where the PDFium library is looked for, in order: `configured`
/// ([`ExtractConfig::pdfium`]), the file named by the environment variable
/// `TESSERA_PDFIUM`, `~/.local/lib/tessera/libpdfium.so` (where
/// `scripts/setup-pdfium.sh` puts it), the one the build fetched
/// ([`pdfium_fetched_by_build`]), `libpdfium.so` next to the running
/// executable. The first that exists is used; when none does, the system's
/// library search path is tried.
///
/// (The one place this crate reads the environment: the library is a
/// machine's installation detail, like `PATH` for `tesseract`.)
#[must_use]
pub fn pdfium_library(configured: Option<&Path>) -> Vec<PathBuf> {
    let mut candidates = Vec::new();
    candidates.extend(configured.map(Path::to_path_buf));
    candidates.extend(std::env::var_os(PDFIUM_ENV).filter(|v| !v.is_empty()).map(PathBuf::from));
    if let Some(home) = std::env::var_os("HOME").filter(|v| !v.is_empty()) {
        candidates.push(PathBuf::from(home).join(".local/lib/tessera").join(Pdfium::pdfium_platform_library_name()));
    }
    candidates.extend(pdfium_fetched_by_build().map(Path::to_path_buf));
    if let Some(dir) = std::env::current_exe().ok().and_then(|exe| exe.parent().map(Path::to_path_buf)) {
        candidates.push(Pdfium::pdfium_platform_library_name_at_path(&dir));
    }
    candidates
}

/// PDFium, bound once per process; the lock also serialises all use of it.
static PDFIUM: Mutex<Option<Pdfium>> = Mutex::new(None);

fn bind(name: &str, configured: Option<&Path>) -> Result<Pdfium> {
    let candidates = pdfium_library(configured);
    let mut tried = Vec::new();
    for path in candidates.iter().filter(|p| p.is_file()) {
        match Pdfium::bind_to_library(path) {
            Ok(bindings) => return Ok(Pdfium::new(bindings)),
            Err(e) => tried.push(format!("{}: {}", path.display(), pdfium_reason(&e))),
        }
    }
    if let Ok(bindings) = Pdfium::bind_to_system_library() {
        return Ok(Pdfium::new(bindings));
    }
    let looked: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
    let fix = format!(
        "the build could not fetch it (see its warning; it needs network and python3 with pip, or curl): \
         install it with scripts/setup-pdfium.sh, or set {PDFIUM_ENV} to the path of libpdfium.so"
    );
    let reason = if tried.is_empty() {
        format!(
            "the PDFium library is needed to extract PDF and was not found (looked at {} and the system library \
             path); {fix}",
            looked.join(", ")
        )
    } else {
        format!("the PDFium library could not be loaded ({}); {fix}", tried.join("; "))
    };
    Err(Error::Failed { name: name.into(), reason })
}

/// Runs `f` with PDFium, bound on first use (`configured`, else where
/// [`pdfium_library`] says), behind the process-wide lock. `name` is the document at
/// hand, named in the error when the library cannot be bound.
pub(crate) fn with_pdfium<T>(name: &str, configured: Option<&Path>, f: impl FnOnce(&Pdfium) -> Result<T>) -> Result<T> {
    let mut guard = PDFIUM.lock().unwrap_or_else(PoisonError::into_inner);
    let pdfium = match &mut *guard {
        Some(pdfium) => pdfium,
        unbound => unbound.insert(bind(name, configured)?),
    };
    f(pdfium)
}

/// A PDFium error as a sentence: the library's `Display` is its `Debug`.
pub(crate) fn pdfium_reason(error: &PdfiumError) -> String {
    match error {
        PdfiumError::LoadLibraryError(e) => format!("the library cannot be loaded: {e}"),
        PdfiumError::IoError(e) => e.to_string(),
        PdfiumError::PdfiumLibraryInternalError(internal) => match internal {
            PdfiumInternalError::FileError => "the file cannot be read".into(),
            PdfiumInternalError::FormatError => "not a readable PDF".into(),
            PdfiumInternalError::PasswordError | PdfiumInternalError::SecurityError => "the PDF is encrypted".into(),
            PdfiumInternalError::PageError => "a page cannot be read".into(),
            PdfiumInternalError::Unknown => "an unknown PDFium error".into(),
        },
        _ => "a PDFium error".into(),
    }
}
