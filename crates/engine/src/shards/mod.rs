//! A sharded index: the documents of one index split by id over `n` ordinary indexes
//! (shards), searched as one.
//!
//! Shard `s` of `n` holds the documents whose id `shard_of(id, n)` gives `s`
//! ([`tessera_core::shard_of`]); it adds documents only under ids it owns, so ids never
//! meet across shards and equal those one index holding the same documents in the same
//! order would give ([`build`]). A check runs the engine's one check path on a view of
//! the shards ([`Engine::sharded_view`]): every look-up goes to every shard and the
//! answers are merged by the index's own rule, documents come from the shard owning
//! their id, and the search and the report are the same code as for one index, so the
//! report equals that of one index holding the same documents (tests/shards.rs proves it
//! for 1, 2 and 5 shards).
//!
//! What carries a request to a shard is a [`ShardSet`]: [`LocalShards`] calls the shards'
//! indexes in this process; the Python package's shard client calls them on other
//! machines (Ray). A shard answers a request's bytes with
//! [`IndexView::answer_shard_request`]; the messages are in [`wire`].
//!
//! On disk, the shards of an index are folders `shard-S-of-N` (`S` from 0, both written
//! with at least three digits) in one folder ([`shard_dirs`]); each is an ordinary index.
//!
//! # Example
//! ```
//! use std::sync::Arc;
//! use tessera_engine::{CollectionConfig, CollectionKind, EngineOptions, FingerprintSettings};
//! use tessera_engine::shards::{self, LocalShards};
//! let dir = tempfile::tempdir()?;
//! // A citation collection reports matches of any length.
//! let quotes = CollectionConfig { name: "quotes".into(), kind: CollectionKind::Citation, keep_texts: true };
//! let texts = [
//!     "The purpose of this work is to study the problem and to propose a solution.",
//!     "The results obtained confirm the hypothesis put forward in the introduction.",
//!     "Further research is needed to establish the limits of the method described here.",
//! ];
//! let texts = texts.iter().enumerate().map(|(i, t)| (format!("q{i}"), String::new(), t.to_string()));
//! shards::build(dir.path(), 2, &FingerprintSettings::default(), EngineOptions::default(), &quotes, texts)?;
//! let set = LocalShards::open(dir.path(), EngineOptions::default())?;
//! let engine = set.checker()?;
//! let view = engine.sharded_view(Arc::new(set))?;
//! let suspect = engine.suspect_plain("s.txt", "s", "In short, the results obtained confirm the hypothesis \
//!     put forward in the introduction, as the tables show.");
//! let report = engine.check_in(&view, &suspect, &|_| {})?;
//! assert_eq!(report.sources[0].origin, "q1");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod answer;
mod build;
mod view;
pub mod wire;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use build::{build, build_paths};
pub(crate) use view::{ShardSources, ShardedView};

use crate::{Engine, EngineOptions, Error, IndexView, Result};

/// What carries a sharded check's requests to its shards.
pub trait ShardSet: Send + Sync {
    /// How many shards the index has.
    fn shards(&self) -> usize;

    /// Sends `request` (the bytes of a [`wire::Request`]) to shard `shard` and gives its
    /// answer's bytes, or why it could not (the shard is down, the call timed out). Called
    /// from several threads at once.
    fn call(&self, shard: usize, request: &[u8]) -> std::result::Result<Vec<u8>, String>;
}

/// The folder of shard `shard` of `shards` under `dir`.
pub fn shard_dir(dir: &Path, shard: usize, shards: usize) -> PathBuf {
    dir.join(format!("shard-{shard:03}-of-{shards:03}"))
}

/// `(shard, shards)` when `dir`'s name is `shard-S-of-N` with `S < N`.
pub fn shard_of_dir(dir: &Path) -> Option<(usize, usize)> {
    parse_shard_name(dir.file_name()?.to_str()?)
}

fn parse_shard_name(name: &str) -> Option<(usize, usize)> {
    let (s, n) = name.strip_prefix("shard-")?.split_once("-of-")?;
    let (s, n) = (s.parse::<usize>().ok()?, n.parse::<usize>().ok()?);
    (s < n).then_some((s, n))
}

/// Refuses to make or add to `shards` shards under `dir` when it holds shards of another
/// count (all of them, or some when a build stopped).
pub fn check_shard_count(dir: &Path, shards: usize) -> Result<()> {
    if let Some(other) = shard_names(dir)?.into_iter().flatten().map(|(_, n)| n).find(|&n| n != shards) {
        return Err(Error::Shards(format!(
            "{} holds shards of an index of {other} shards, not {shards}: an index keeps its number of shards",
            dir.display()
        )));
    }
    Ok(())
}

/// The `(shard, shards)` of every shard folder under `dir`; `None` when there is none.
pub(crate) fn shard_names(dir: &Path) -> Result<Option<Vec<(usize, usize)>>> {
    let entries = match fs_err::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::Io { path: dir.to_path_buf(), source: e }),
    };
    let mut found: Vec<(usize, usize)> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::Io { path: dir.to_path_buf(), source: e })?;
        if let Some(found_one) = entry.file_name().to_str().and_then(parse_shard_name) {
            found.push(found_one);
        }
    }
    if found.is_empty() {
        return Ok(None);
    }
    Ok(Some(found))
}

/// The shards' folders under `dir`, in shard order: every `shard-S-of-N` for one `N`,
/// all `S` from 0 to `N - 1`. `Ok(None)` when `dir` holds no shard folder (an ordinary
/// index, or nothing).
pub fn shard_dirs(dir: &Path) -> Result<Option<Vec<PathBuf>>> {
    let Some(mut found) = shard_names(dir)? else { return Ok(None) };
    found.sort_unstable();
    let shards = found[0].1;
    let expected: Vec<(usize, usize)> = (0..shards).map(|s| (s, shards)).collect();
    if found != expected {
        return Err(Error::Shards(format!(
            "{} holds shard folders {} where shard-000-of-{shards:03} to shard-{:03}-of-{shards:03} were expected",
            dir.display(),
            found.iter().map(|&(s, n)| format!("shard-{s:03}-of-{n:03}")).collect::<Vec<_>>().join(", "),
            shards.saturating_sub(1),
        )));
    }
    Ok(Some((0..shards).map(|s| shard_dir(dir, s, shards)).collect()))
}

/// The shards of an index opened in this process: each call answered by the shard's
/// engine on a fresh view of its last commit.
#[derive(Debug)]
pub struct LocalShards {
    engines: Vec<Engine>,
}

impl LocalShards {
    /// Opens the shards under `dir` ([`shard_dirs`]).
    pub fn open(dir: &Path, options: EngineOptions) -> Result<Self> {
        let dirs = shard_dirs(dir)?
            .ok_or_else(|| Error::Shards(format!("{} holds no shard folders (shard-S-of-N)", dir.display())))?;
        let engines = dirs.iter().map(|d| Engine::open(d, options.clone())).collect::<Result<_>>()?;
        Ok(Self { engines })
    }

    /// The shards' engines, in shard order.
    pub fn engines(&self) -> &[Engine] {
        &self.engines
    }

    /// An engine that checks against these shards: the first shard's, whose settings
    /// (the same in every shard) fingerprint suspects as the shards were.
    pub fn checker(&self) -> Result<Engine> {
        let first = self.engines.first().ok_or_else(|| Error::Shards("no shards".to_owned()))?;
        Engine::open(first.dir(), first.options().clone())
    }
}

impl ShardSet for LocalShards {
    fn shards(&self) -> usize {
        self.engines.len()
    }

    fn call(&self, shard: usize, request: &[u8]) -> std::result::Result<Vec<u8>, String> {
        let engine = self.engines.get(shard).ok_or_else(|| format!("no shard {shard}"))?;
        let view = engine.view().map_err(|e| e.to_string())?;
        Ok(view.answer_shard_request(request))
    }
}

impl Engine {
    /// A view of the shards `set` carries requests to, for one check: the search and the
    /// report run on it as on [`Engine::view`]. The shards must have this engine's
    /// fingerprint settings and agree on their collections.
    pub fn sharded_view(&self, set: Arc<dyn ShardSet>) -> Result<IndexView> {
        Ok(IndexView::sharded(ShardedView::open(set, self.settings())?))
    }
}
