//! Whether the tests that extract PDFs can run: the PDFium library the build of
//! `tessera-extract` fetches (its `build.rs`) or an installed one.

use tessera_extract::{pdfium_fetched_by_build, pdfium_library};

/// Whether PDFium can be found. Panics when the build fetched it and it is gone, or when
/// `TESSERA_REQUIRE_PDFIUM=1` (CI) and it is missing; otherwise says on stderr that the
/// test is skipped.
pub fn pdfium() -> bool {
    let found = pdfium_library(None).iter().any(|p| p.is_file());
    if let Some(fetched) = pdfium_fetched_by_build() {
        assert!(
            found,
            "the build fetched PDFium to {} and it is gone: cargo clean -p tessera-extract",
            fetched.display()
        );
    }
    if !found {
        assert!(
            std::env::var("TESSERA_REQUIRE_PDFIUM").as_deref() != Ok("1"),
            "TESSERA_REQUIRE_PDFIUM=1 but the build did not fetch libpdfium.so (see its warning) and it is not \
             installed"
        );
        eprintln!("skipped: the build could not fetch libpdfium.so and it is not installed (scripts/setup-pdfium.sh)");
    }
    found
}
