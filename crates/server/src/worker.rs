//! The worker pool: each worker takes the next check id, extracts the upload, searches
//! every collection concurrently with its own timeout, and stores the report.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use tessera_engine::memory::Work;
use tessera_engine::{IndexView, Report, Revision, Submission, Submitted, Suspect};

use crate::error::ApiError;
use crate::state::{AppState, blocking};
use crate::store::{CheckRecord, Progress, Stage, Status};

/// Starts `n` workers.
pub(crate) fn start(state: &Arc<AppState>, n: usize) {
    for _ in 0..n.max(1) {
        let state = Arc::clone(state);
        tokio::spawn(async move {
            while let Some(id) = state.queue.pop().await {
                state.running.fetch_add(1, Ordering::SeqCst);
                if let Err(e) = run(&state, &id).await {
                    tracing::error!(check = %id, "check failed: {}", e.message);
                    let message = e.message.clone();
                    let _ = state
                        .update(&id, move |_, r| {
                            r.status = Status::Failed;
                            r.stage = Stage::Finished;
                            r.error = Some(message);
                            Ok(())
                        })
                        .await;
                }
                state.running.fetch_sub(1, Ordering::SeqCst);
            }
        });
    }
}

/// The suspect, ready to search, and the view of the index every collection of the check
/// is searched in.
struct Prepared {
    suspect: Suspect,
    view: IndexView,
    /// Where the document is kept once checked, if anywhere.
    submission: Option<Submission>,
}

/// A collection's answer: its revision, or why it has none.
type Joined = (String, tessera_engine::Result<Revision>);

/// The error of a check whose searches ended without answering every collection: the
/// engine's searching thread stopped (it answers every collection, a panicking search
/// included, so only a panic outside the searches gets here).
fn stopped(searching: Result<(), tokio::task::JoinError>) -> ApiError {
    match searching {
        Err(e) => ApiError::internal(&e),
        Ok(()) => ApiError::internal(&"the search ended without answering every collection"),
    }
}

/// What the searches gave so far.
#[derive(Default)]
struct Answers {
    revisions: Vec<Revision>,
    /// Collections that failed, with the error.
    failed: BTreeMap<String, String>,
    /// Collections not answered yet (past their timeout).
    missing: BTreeSet<String>,
    /// Collections that answered after their timeout.
    late: BTreeSet<String>,
    done: u32,
}

impl Answers {
    fn take(&mut self, (name, result): Joined) {
        if self.missing.remove(&name) {
            self.late.insert(name.clone());
        }
        match result {
            Ok(revision) => {
                self.revisions.push(revision);
                self.done += 1;
            }
            Err(e) => {
                self.failed.insert(name, e.to_string());
            }
        }
    }

    /// Collections the report lacks.
    fn absent(&self) -> impl Iterator<Item = &String> {
        self.missing.iter().chain(self.failed.keys())
    }
}

async fn run(state: &Arc<AppState>, id: &str) -> Result<(), ApiError> {
    let (record, ()) = state
        .update(id, |_, r| {
            r.status = Status::Running;
            r.stage = Stage::Extracting;
            r.attempts += 1;
            r.error = None;
            r.warnings.clear();
            r.late_collections.clear();
            r.progress = Progress::default();
            Ok(())
        })
        .await?;

    // Memory first: the check starts only when what it is expected to cost fits the
    // limit, and holds it to its report (issue 52).
    let expected = {
        let state = Arc::clone(state);
        let record = record.clone();
        blocking(move || Ok(expected_cost(&state, &record))).await?
    };
    let mut memory = state.admit(expected).await;
    let prepared = {
        let state = Arc::clone(state);
        let record = record.clone();
        blocking(move || Ok(prepare(&state, &record))).await?
    };
    let prepared = match prepared {
        Ok(p) => p,
        Err(message) => {
            state
                .update(id, move |_, r| {
                    r.status = Status::Failed;
                    r.stage = Stage::Finished;
                    r.error = Some(message);
                    Ok(())
                })
                .await?;
            return Ok(());
        }
    };
    // The text is known: hold what it costs, not the guess.
    state.resize(&mut memory, state.engine.document_cost(Work::Check, prepared.suspect.info().text.len() as u64));
    let names = prepared.view.collection_names();
    let total = u32::try_from(names.len()).unwrap_or(u32::MAX);
    let warnings = prepared.suspect.warnings();
    state
        .update(id, move |_, r| {
            r.stage = Stage::Searching;
            r.progress.collections_total = total;
            r.warnings = warnings;
            Ok(())
        })
        .await?;

    // The engine searches every collection on its own thread (sharing a long text's
    // chunk fingerprints) and answers each as it is done; each collection is held here to
    // its own deadline.
    let started = Instant::now();
    let deadlines: BTreeMap<String, Instant> =
        names.iter().map(|name| (name.clone(), started + state.config.timeout_for(name))).collect();
    let (send, mut answered) = tokio::sync::mpsc::unbounded_channel::<Joined>();
    let searching = {
        let engine = Arc::clone(&state.engine);
        let view = prepared.view.clone();
        let suspect = prepared.suspect.clone();
        tokio::task::spawn_blocking(move || {
            engine.search_each(&view, &suspect, &names, &|_| {}, &|name, result| {
                // The receiver is gone only when the check gave up waiting.
                let _ = send.send((name.to_owned(), result));
            });
        })
    };
    let mut answers = Answers::default();
    let mut waiting: BTreeSet<String> = deadlines.keys().cloned().collect();
    loop {
        let now = Instant::now();
        waiting.retain(|n| {
            let on_time = deadlines.get(n).is_some_and(|d| *d > now);
            if !on_time {
                answers.missing.insert(n.clone());
            }
            on_time
        });
        let Some(next) = waiting.iter().filter_map(|n| deadlines.get(n)).min().copied() else { break };
        tokio::select! {
            joined = answered.recv() => match joined {
                Some(joined) => {
                    waiting.remove(&joined.0);
                    answers.take(joined);
                    let done = answers.done;
                    state.update(id, move |_, r| { r.progress.collections_done = done; Ok(()) }).await?;
                }
                None => return Err(stopped(searching.await)),
            },
            () = tokio::time::sleep_until(next.into()) => {}
        }
    }

    let prepared = Arc::new(prepared);
    if answers.missing.is_empty() {
        let late = answers.late.iter().cloned().collect();
        // Kept before the check is done: a client that sees it done sees its submission.
        submit(state, id, &prepared).await?;
        return finish(state, id, &prepared, &answers, Status::Done, late).await;
    }
    // Some collections missed their timeout: the reader gets a partial report now, the
    // full one when they answer.
    finish(state, id, &prepared, &answers, Status::Partial, Vec::new()).await?;
    let state = Arc::clone(state);
    let id = id.to_owned();
    tokio::spawn(async move {
        // The searches go on: so does their memory.
        let _memory = memory;
        let limit = tokio::time::sleep(state.config.late_answer_limit);
        tokio::pin!(limit);
        loop {
            tokio::select! {
                joined = answered.recv() => match joined {
                    Some(joined) => answers.take(joined),
                    None => break,
                },
                () = &mut limit => break,
            }
            if answers.missing.is_empty() {
                break;
            }
        }
        let late: Vec<String> = answers.late.iter().cloned().collect();
        if let Err(e) = submit(&state, &id, &prepared).await {
            tracing::error!(check = %id, "keeping the submission failed: {}", e.message);
        }
        if let Err(e) = finish(&state, &id, &prepared, &answers, Status::Done, late).await {
            tracing::error!(check = %id, "storing the completed report failed: {}", e.message);
        }
    });
    Ok(())
}

/// What a check is expected to cost before its upload is extracted
/// ([`tessera_engine::Engine::expected_cost`]).
fn expected_cost(state: &AppState, record: &CheckRecord) -> u64 {
    let engine = &state.engine;
    if !record.is_file {
        return engine.document_cost(Work::Check, record.upload_bytes);
    }
    let head = state.store.upload_head(&record.id, tessera_engine::HEAD_LEN).unwrap_or_default();
    engine.expected_cost(Work::Check, &record.name, &head, record.upload_bytes)
}

/// Extracts the upload and fingerprints it with the engine's one check path (the
/// same suspect, notices included, as `tessera check` makes); `Err` is a message for the
/// reader.
fn prepare(state: &AppState, record: &CheckRecord) -> Result<Prepared, String> {
    let engine = &state.engine;
    let bytes = state.store.upload(&record.id).map_err(|e| e.to_string())?;
    let suspect = if record.is_file {
        engine.suspect_bytes(&record.name, record.title.clone(), &bytes).map_err(|e| e.to_string())?
    } else {
        let text = String::from_utf8(bytes).map_err(|_| "the text is not UTF-8".to_owned())?;
        engine.check_text_len(&record.name, text.len()).map_err(|e| e.to_string())?;
        engine.suspect_text(&record.name, record.title.clone(), text)
    };
    let submission = record.submit_to.as_ref().map(|collection| Submission {
        collection: collection.clone(),
        check_id: record.id.clone(),
        title: record.title.clone(),
        submitted_at: record.created_ms / 1000,
    });
    // Without this check's own submission, should it run again (a restart).
    let view = engine.check_view(submission.as_ref()).map_err(|e| e.to_string())?;
    // The first check of a submissions repository may meet an empty index.
    if view.collection_names().is_empty() && submission.is_none() {
        return Err("the index holds no collections yet; add documents first".to_owned());
    }
    Ok(Prepared { suspect, view, submission })
}

/// Once every collection answered (or the late ones gave up), before the check is
/// marked done: keeps the document in its collection of submissions (the
/// index's one writer at a time), and records its id. A failure is a warning of the
/// check, not its failure: the report stands.
async fn submit(state: &Arc<AppState>, id: &str, prepared: &Arc<Prepared>) -> Result<(), ApiError> {
    let Some(submission) = prepared.submission.clone() else { return Ok(()) };
    let submitted = {
        let _writer = state.writer.lock().await;
        let engine = Arc::clone(&state.engine);
        let prepared = Arc::clone(prepared);
        blocking(move || Ok(engine.submit(&prepared.suspect, &submission).map_err(|e| e.to_string()))).await?
    };
    if let Ok(Submitted::Added { doc }) = &submitted {
        tracing::info!(check = %id, doc = doc.0, "kept as a submission");
    }
    state
        .update(id, move |_, r| {
            match submitted {
                Ok(done) => r.submitted = Some(done.doc().0),
                Err(e) => r.warnings.push(format!("the document could not be kept as a submission: {e}")),
            }
            Ok(())
        })
        .await
        .map(|_| ())
}

/// Builds the report from the answers, replays the reviewer's edits and stores both.
async fn finish(
    state: &Arc<AppState>,
    id: &str,
    prepared: &Arc<Prepared>,
    answers: &Answers,
    status: Status,
    late: Vec<String>,
) -> Result<(), ApiError> {
    let revisions = answers.revisions.clone();
    let absent: Vec<String> = answers.absent().cloned().collect();
    let failed: Vec<String> = answers.failed.iter().map(|(c, e)| format!("collection {c:?} failed: {e}")).collect();
    let done = answers.done;
    let prepared = Arc::clone(prepared);
    state
        .update(id, move |state, r| {
            let mut report: Report = state
                .engine
                .report(&prepared.view, &prepared.suspect, &revisions, &absent)
                .map_err(crate::error::engine_error)?;
            for edit in &r.edits {
                edit.apply(&mut report);
            }
            state.store.save_report(&r.id, &report)?;
            r.status = status;
            r.stage = if status == Status::Partial { Stage::Waiting } else { Stage::Finished };
            r.progress.collections_done = done;
            r.late_collections = late;
            for w in failed {
                if !r.warnings.contains(&w) {
                    r.warnings.push(w);
                }
            }
            Ok(())
        })
        .await
        .map(|_| ())
}
