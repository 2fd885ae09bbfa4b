//! One warm fingerprinter per thread.

use std::cell::RefCell;

use thread_local::ThreadLocal;

use crate::Fingerprinter;

/// One warm [`Fingerprinter`] per thread, kept for the life of this value.
///
/// The normalizer's word cache is what makes normalization cheap: a word is
/// canonicalised and stemmed once, then costs one hash-map probe. A fresh clone per
/// parallel job (rayon's `map_init` calls its init once per split, dozens of times per
/// batch) starts cold every time and stems every word again; this keeps one
/// fingerprinter per worker thread across jobs, batches and calls.
///
/// `F` is the fingerprinter kept: a [`Fingerprinter`], or a type wrapping one (the
/// engine's, which also makes search queries).
#[derive(Debug)]
pub struct Fingerprinters<F: Send = Fingerprinter> {
    template: F,
    per_thread: ThreadLocal<RefCell<F>>,
}

impl<F: Clone + Send> Fingerprinters<F> {
    /// Per-thread copies of `template`, made on first use in each thread.
    pub fn new(template: F) -> Self {
        Self { template, per_thread: ThreadLocal::new() }
    }

    /// A cold copy of the template (its cache starts empty).
    pub fn template(&self) -> &F {
        &self.template
    }

    /// Runs `f` with this thread's fingerprinter. Re-entrant: if the thread's copy is
    /// already in use further up the stack (a nested parallel job stolen by the same
    /// thread), `f` gets a cold clone instead.
    pub fn with<R>(&self, f: impl FnOnce(&mut F) -> R) -> R {
        let cell = self.per_thread.get_or(|| RefCell::new(self.template.clone()));
        match cell.try_borrow_mut() {
            Ok(mut fp) => f(&mut fp),
            Err(_) => f(&mut self.template.clone()),
        }
    }
}

impl<F: Clone + Send> Clone for Fingerprinters<F> {
    /// A new set of per-thread copies of the same template (caches start empty).
    fn clone(&self) -> Self {
        Self::new(self.template.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ShingleConfig;
    use tessera_normalize::NormalizerConfig;

    #[test]
    fn per_thread_fingerprinters_give_what_a_fresh_one_gives_and_nest() {
        use rayon::prelude::*;
        let template = Fingerprinter::new(NormalizerConfig::default(), ShingleConfig::default()).unwrap();
        let texts: Vec<String> = (0..64)
            .map(|i| {
                format!("Students copied {i} essays from the internet; teachers compared the essays word by word.")
            })
            .collect();
        let expected: Vec<Vec<u64>> = texts.iter().map(|t| template.clone().fingerprint(t).hashes).collect();
        let pool = Fingerprinters::new(template);
        for _ in 0..3 {
            let got: Vec<Vec<u64>> = texts.par_iter().map(|t| pool.with(|fp| fp.fingerprint(t).hashes)).collect();
            assert_eq!(got, expected);
        }
        // A nested call on the same thread gets its own fingerprinter instead of a
        // second borrow of the busy one.
        let nested = pool.with(|outer| {
            let inner = pool.with(|inner| inner.fingerprint(&texts[1]).hashes);
            (outer.fingerprint(&texts[0]).hashes, inner)
        });
        assert_eq!(nested, (expected[0].clone(), expected[1].clone()));
    }
}
