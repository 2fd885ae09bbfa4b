//! The submissions repository: a check may add its suspect to a named collection once it
//! is checked (`tessera check --submit-to`, the server's `submit_to`), so later checks
//! find it, as Turnitin and Antiplagiat keep an institution's submissions.
//!
//! The rules, in one place:
//! - a submission is a document of kind source whose text is kept, with its title, the
//!   check's time (`added_at`) and the check's id (`check_id`) in its metadata; the
//!   collection is made on first use (a collection of fingerprints only starts keeping
//!   texts; one of kind citation is refused);
//! - a check never finds its own submission: the documents its id submitted are left out
//!   of the view it searches ([`Engine::check_view`]), so a check run again (a server
//!   restarted mid-check) neither reports itself nor submits twice;
//! - another check of the same text (the same thesis handed in twice, by one student or
//!   two) does find the earlier submission: the report names it with its check and date
//!   and marks it `identical` when the texts are the same character for character;
//! - a reviewer removes a submission by deleting the document (`tessera delete`,
//!   `DELETE /api/documents/{id}`); the next merge purges it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use tessera_extract::Extracted;
use tessera_index::{CollectionConfig, DocId, FullTerms, IndexReader, NewDocument};

use crate::{CheckProgress, CollectionKind, Engine, IndexView, Report, Result, Suspect};

/// A check's request to keep its suspect in a submissions collection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission {
    /// The submissions collection (made on first use).
    pub collection: String,
    /// The check's id: the server's, or one made by [`Submission::new`].
    pub check_id: String,
    /// The submission's title (default: the suspect's).
    pub title: Option<String>,
    /// When the check was made, in seconds since the Unix epoch.
    pub submitted_at: u64,
}

impl Submission {
    /// A submission to `collection` made now, under a new check id (32 hex digits, from
    /// the time, the process and a counter: unique on one machine).
    #[must_use]
    pub fn new(collection: impl Into<String>, title: Option<String>) -> Self {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        let seed = [
            now.as_nanos().to_le_bytes().as_slice(),
            &std::process::id().to_le_bytes(),
            &COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes(),
        ]
        .concat();
        Self {
            collection: collection.into(),
            check_id: format!("{:032x}", xxhash_rust::xxh3::xxh3_128(&seed)),
            title,
            submitted_at: now.as_secs(),
        }
    }
}

/// What [`Engine::submit`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Submitted {
    /// Added under this id.
    Added {
        /// The submission's document.
        doc: DocId,
    },
    /// This check had submitted it before (it ran again): nothing added.
    Already {
        /// The submission's document.
        doc: DocId,
    },
}

impl Submitted {
    /// The submission's document.
    #[must_use]
    pub fn doc(self) -> DocId {
        match self {
            Self::Added { doc } | Self::Already { doc } => doc,
        }
    }
}

impl IndexView {
    /// This view without `docs`: searches never find them.
    #[must_use]
    pub fn without(&self, docs: &[DocId]) -> IndexView {
        match self.index() {
            Ok(reader) => IndexView::new(reader.without(docs)),
            // A view of shards takes no submissions (`Engine::check_view` makes none).
            Err(_) => self.clone(),
        }
    }
}

/// The live documents of `collection` that check `check_id` submitted.
fn submitted_by(reader: &IndexReader, collection: &str, check_id: &str) -> Result<Vec<DocId>> {
    let Some(c) = reader.collection(collection) else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    for doc in c.live_docs() {
        if reader.meta(doc)?.check_id.as_deref() == Some(check_id) {
            out.push(doc);
        }
    }
    Ok(out)
}

impl Engine {
    /// The view a check searches: the last commit, without the documents this check
    /// submitted before (when it runs again), so a check never reports itself.
    pub fn check_view(&self, submission: Option<&Submission>) -> Result<IndexView> {
        let view = self.view()?;
        let Some(s) = submission else { return Ok(view) };
        let own = submitted_by(view.index()?, &s.collection, &s.check_id)?;
        Ok(if own.is_empty() { view } else { view.without(&own) })
    }

    /// Adds `suspect` to the submissions collection (made on first use: kind source,
    /// texts kept) with the submission's title, time and check id, and commits. A check
    /// that submitted before (it ran again) adds nothing.
    pub fn submit(&self, suspect: &Suspect, submission: &Submission) -> Result<Submitted> {
        let config =
            CollectionConfig { name: submission.collection.clone(), kind: CollectionKind::Source, keep_texts: true };
        let info = suspect.info();
        self.check_text_len(&info.name, info.text.len())?;
        let mut writer = self.writer()?;
        // Under the writer: nothing is committed between this look and the add.
        let reader = self.reader()?;
        if let Some(existing) = reader.collection(&config.name) {
            crate::add::check_compatible(existing.config(), &config)?;
        } else if !tessera_core::valid_collection_name(&config.name) {
            return Err(tessera_index::Error::InvalidName(config.name).into());
        }
        if let Some(&doc) = submitted_by(&reader, &config.name, &submission.check_id)?.first() {
            return Ok(Submitted::Already { doc });
        }
        let title = submission.title.clone().filter(|t| !t.trim().is_empty()).unwrap_or_else(|| info.title.clone());
        let prepared = self.prepare(info.name.clone(), Extracted::from_text(info.text.clone(), Some(title)));
        let mut meta = crate::add::document_meta(&prepared);
        meta.added_at = submission.submitted_at;
        meta.check_id = Some(submission.check_id.clone());
        writer.ensure_collection(config.clone())?;
        let snapshot = crate::fingerprinter::snapshot(&prepared.fingerprint);
        let shingles = self.settings().shingles;
        self.place_next_id(&mut writer);
        let doc = writer.add_with_terms(
            &config.name,
            NewDocument { meta, snapshot: &snapshot, text: Some(&prepared.extracted.text) },
            FullTerms { terms: &prepared.fingerprint.terms, shingles },
        )?;
        writer.commit()?;
        self.merge_after_commit(&mut writer)?;
        Ok(Submitted::Added { doc })
    }

    /// Checks `suspect` against every collection ([`Engine::check`]) and then, when
    /// `submission` is given, adds it to the submissions collection ([`Engine::submit`]).
    /// An index with no collection yet gives an empty report when there is a submission
    /// to make (the first of a repository).
    pub fn check_and_submit(
        &self,
        suspect: &Suspect,
        submission: Option<&Submission>,
    ) -> Result<(Report, Option<Submitted>)> {
        self.check_and_submit_observed(suspect, submission, &|_| {})
    }

    /// [`Engine::check_and_submit`] telling `observe` how far it has come.
    pub fn check_and_submit_observed(
        &self,
        suspect: &Suspect,
        submission: Option<&Submission>,
        observe: &(dyn Fn(CheckProgress<'_>) + Sync),
    ) -> Result<(Report, Option<Submitted>)> {
        let view = self.check_view(submission)?;
        let report = if submission.is_some() && view.collection_names().is_empty() {
            self.report(&view, suspect, &[], &[])?
        } else {
            let revisions = self.search_all_observed(&view, suspect, observe)?;
            observe(CheckProgress::Reporting);
            self.report(&view, suspect, &revisions, &[])?
        };
        let submitted = submission.map(|s| self.submit(suspect, s)).transpose()?;
        Ok((report, submitted))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_ids_differ() {
        let (a, b) = (Submission::new("s", None), Submission::new("s", None));
        assert_ne!(a.check_id, b.check_id);
        assert_eq!(a.check_id.len(), 32);
    }
}
