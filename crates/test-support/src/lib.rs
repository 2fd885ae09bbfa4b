//! What Tessera's tests, benches and examples share, so that each helper is written once:
//!
//! - [`child`]: the crash harness, a test binary that runs one of its own `#[ignore]`d
//!   tests as a child process, lets it work, kills it with SIGKILL at a chosen moment and
//!   reads what it reported;
//! - [`words`]: made-up words and texts, the same for the same seed on every run;
//! - [`SplitMix64`] and [`mix64`]: the workspace's one seeded generator (`tessera-near`'s,
//!   re-exported), for deterministic hashes and bytes;
//! - `pdfium` (feature `pdfium`): whether the tests that extract PDFs can run.
//!
//! A dev-dependency only: no library or binary of the workspace may depend on it, and it
//! never holds what a product needs (a helper a library needs belongs to that library).

pub mod child;
#[cfg(feature = "pdfium")]
pub mod pdfium;
pub mod words;

pub use tessera_near::{SplitMix64, mix64};

/// The first value of [`SplitMix64`] seeded with `x`: a cheap, well-mixed deterministic
/// "random" `u64` from a counter.
pub fn splitmix(x: u64) -> u64 {
    SplitMix64::new(x).next_u64()
}
