//! Building the shards of an index on one machine: each document gets the id one index
//! would give it (the next after every shard's last) and goes to the shard owning it.

use std::path::{Path, PathBuf};

use tessera_core::{CollectionConfig, DocId, shard_of};
use tessera_extract::Extracted;

use super::shard_dir;
use crate::{
    AddMode, AddProgress, AddSession, AddSummary, Engine, EngineOptions, Error, FailedDocument, FingerprintSettings,
    Prepared, Result, describe_error,
};

/// Adds documents to the shards of an index, in order.
struct ShardWriter<'e> {
    engines: &'e [Engine],
    sessions: Vec<AddSession<'e>>,
    next: u64,
}

impl<'e> ShardWriter<'e> {
    fn new(engines: &'e [Engine], collection: &CollectionConfig) -> Result<Self> {
        let sessions = engines.iter().map(|e| e.add_session(collection, AddMode::All)).collect::<Result<Vec<_>>>()?;
        let next = engines.iter().map(Engine::next_doc_id).collect::<Result<Vec<u64>>>()?.into_iter().max();
        Ok(Self { engines, sessions, next: next.unwrap_or(0) })
    }

    fn add(&mut self, docs: &[Prepared], summary: &mut AddSummary) -> Result<()> {
        let shards = self.engines.len();
        for doc in docs {
            let shard = shard_of(DocId(self.next), shards);
            let id = self.sessions[shard].add_as(doc, self.next)?;
            self.next = id.0 + 1;
            summary.added += 1;
            summary.bytes += doc.extracted.text.len() as u64;
        }
        Ok(())
    }

    fn commit(mut self, summary: &mut AddSummary) -> Result<()> {
        for session in &mut self.sessions {
            summary.documents.extend(session.commit()?);
        }
        summary.documents.sort_by_key(|&(_, d)| d);
        Ok(())
    }
}

/// The engines of the `shards` shards under `dir`, made with `settings` where missing.
fn open_shards(
    dir: &Path,
    shards: usize,
    settings: &FingerprintSettings,
    options: &EngineOptions,
) -> Result<Vec<Engine>> {
    if shards == 0 {
        return Err(Error::Settings("an index has at least one shard".to_owned()));
    }
    super::check_shard_count(dir, shards)?;
    fs_err::create_dir_all(dir).map_err(|e| Error::Io { path: dir.to_path_buf(), source: e })?;
    (0..shards).map(|s| Engine::open_or_create(&shard_dir(dir, s, shards), settings, options.clone())).collect()
}

/// Adds texts `(origin, title, text)` to collection `collection` of the index of `shards`
/// shards under `dir` (made with `settings` where missing): each text under the id one
/// index holding the same documents would give it, in the shard owning that id.
/// Fingerprinted in parallel batches; each shard commits at the end. A text over the cap
/// for one document fails by name, as in [`Engine::add_texts`].
pub fn build<I>(
    dir: &Path,
    shards: usize,
    settings: &FingerprintSettings,
    options: EngineOptions,
    collection: &CollectionConfig,
    texts: I,
) -> Result<AddSummary>
where
    I: IntoIterator<Item = (String, String, String)>,
{
    let started = std::time::Instant::now();
    let engines = open_shards(dir, shards, settings, &options)?;
    let first = &engines[0];
    let mut writer = ShardWriter::new(&engines, collection)?;
    let mut summary = AddSummary::default();
    let mut iter = texts.into_iter().peekable();
    while iter.peek().is_some() {
        let mut batch: Vec<(String, String, String)> = iter.by_ref().take(first.options().batch_size.max(1)).collect();
        batch.retain(|(origin, _, text)| match first.check_text_len(origin, text.len()) {
            Ok(()) => true,
            Err(e) => {
                summary.failed.push(FailedDocument { origin: origin.clone(), reason: describe_error(&e) });
                false
            }
        });
        let prepared = first.prepare_all(
            batch.into_iter().map(|(origin, title, text)| (origin, Extracted::from_text(text, Some(title)))).collect(),
        );
        writer.add(&prepared, &mut summary)?;
    }
    writer.commit(&mut summary)?;
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// [`build`] from files and folders, read as [`Engine::add_paths`] reads them (in sorted
/// order, archives giving one document per member, files that fail listed and skipped).
pub fn build_paths(
    dir: &Path,
    shards: usize,
    settings: &FingerprintSettings,
    options: EngineOptions,
    collection: &CollectionConfig,
    paths: &[PathBuf],
    progress: &(dyn Fn(AddProgress) + Sync),
) -> Result<AddSummary> {
    let started = std::time::Instant::now();
    let engines = open_shards(dir, shards, settings, &options)?;
    let first = &engines[0];
    let files = crate::list_files(paths)?;
    let total = files.len() as u64;
    let mut writer = ShardWriter::new(&engines, collection)?;
    let mut summary = AddSummary::default();
    let mut done = 0u64;
    for chunk in first.batches_within_memory(&files) {
        let docs = first.prepare_batch(chunk, &mut summary);
        done += chunk.len() as u64;
        writer.add(&docs, &mut summary)?;
        progress(AddProgress { done, total });
    }
    writer.commit(&mut summary)?;
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}
