//! Pairwise alignment without an index (the PAN text alignment task, `tessera align`):
//! both texts fingerprinted with the same settings, then aligned as `check` aligns a
//! suspect with a source.

use tessera_search::{Block, SearchConfig, Searcher};

use crate::{FingerprintSettings, Fingerprinter, Fingerprinters, Result};

/// Aligns a suspect with one source. Holds one warm fingerprinter per thread: share one
/// aligner across a parallel loop.
#[derive(Debug)]
pub struct PairAligner {
    fingerprinters: Fingerprinters,
    searcher: Searcher,
}

impl PairAligner {
    /// An aligner with these fingerprint and search settings.
    pub fn new(settings: &FingerprintSettings, search: SearchConfig) -> Result<Self> {
        Ok(Self { fingerprinters: Fingerprinters::new(Fingerprinter::new(settings)?), searcher: Searcher::new(search) })
    }

    /// The blocks `suspect` borrows from `source`, in suspect order (none when they
    /// cover less than the search settings' minimum).
    pub fn align(&self, suspect: &str, source: &str) -> Vec<Block> {
        let (suspect, source) = self
            .fingerprinters
            .with(|fp| (crate::fingerprinter::query(fp, suspect), crate::fingerprinter::source_query(fp, source)));
        self.searcher.align_pair(&suspect, &source)
    }
}
