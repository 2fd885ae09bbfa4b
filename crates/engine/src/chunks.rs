//! A long suspect searched chunk by chunk, so that a check's memory is bounded.
//!
//! A search holds the suspect's fingerprints, its stage-1 look-ups and candidates, and
//! each part's preparation for alignment: about 56 bytes per byte of text (1.35 GB for a
//! 24 MB text), while extraction admits documents of 256 MiB. A text longer than
//! [`EngineOptions::chunk_bytes`](crate::EngineOptions::chunk_bytes) is cut into chunks of about that many bytes at line
//! ends (at a space when a line runs on, at any character in a text without either);
//! each chunk is fingerprinted over itself and a margin of a quarter chunk on each side,
//! only when its turn comes, searched as a suspect of its own, and keeps the blocks that
//! start in it. The revisions of the chunks are joined into one, in the whole text's
//! coordinates. A passage across a cut is found whole by the chunk it starts in, when it
//! ends within the margin (a quarter chunk: 1 MiB of text by default). The collections
//! of one check share each chunk's fingerprints ([`SharedChunks`]) while each goes at its
//! own pace.

use std::ops::Range;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use tessera_search::{Block, Query, Revision, SourceMatch};

/// One chunk: the bytes it owns, and the bytes it is fingerprinted and searched over (its
/// own and the margins), with the number of chars before those.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TextChunk {
    pub(crate) own: Range<usize>,
    pub(crate) over: Range<usize>,
    pub(crate) chars_before: usize,
}

/// The chunks of `text` when it is longer than `chunk_bytes` (`None` otherwise, or when
/// `chunk_bytes` is 0): owned ranges that cover the text once, in order.
pub(crate) fn plan(text: &str, chunk_bytes: usize) -> Option<Vec<TextChunk>> {
    if chunk_bytes == 0 || text.len() <= chunk_bytes {
        return None;
    }
    let margin = chunk_bytes / 4;
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = cut_at_or_after(text, start + chunk_bytes, chunk_bytes);
        // The rest joins this chunk when it would make a chunk shorter than a margin.
        if text.len() - end < margin.max(1) {
            end = text.len();
        }
        let over = cut_at_or_before(text, start.saturating_sub(margin), chunk_bytes)
            ..cut_at_or_after(text, end + margin, chunk_bytes);
        chunks.push(TextChunk { own: start..end, over, chars_before: 0 });
        start = end;
    }
    // Chars before each chunk's `over`, counted in one pass over the text.
    let (mut at, mut chars) = (0, 0);
    for chunk in &mut chunks {
        chars += text[at..chunk.over.start].chars().count();
        at = chunk.over.start;
        chunk.chars_before = chars;
    }
    Some(chunks)
}

/// The first cut at or after byte `at`: just after a line end, else after a space, looked
/// for over the next `reach / 8` bytes; else the first char boundary (the text's end at
/// the latest).
fn cut_at_or_after(text: &str, at: usize, reach: usize) -> usize {
    if at >= text.len() {
        return text.len();
    }
    let window = &text.as_bytes()[at..(at + reach / 8).min(text.len())];
    if let Some(i) = window.iter().position(|&b| b == b'\n').or_else(|| window.iter().position(|&b| b == b' ')) {
        return at + i + 1;
    }
    (at..=text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(text.len())
}

/// The last cut at or before byte `at`, looked for over the `reach / 8` bytes before it
/// as [`cut_at_or_after`] does.
fn cut_at_or_before(text: &str, at: usize, reach: usize) -> usize {
    if at == 0 {
        return 0;
    }
    let from = at.saturating_sub(reach / 8);
    let window = &text.as_bytes()[from..at];
    if let Some(i) = window.iter().rposition(|&b| b == b'\n').or_else(|| window.iter().rposition(|&b| b == b' ')) {
        return from + i + 1;
    }
    (0..=at).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0)
}

/// Chunk queries shared by the collections one check searches at once: the first
/// collection to reach a chunk fingerprints it, the others take that query, and it is
/// dropped when every collection has searched the chunk. Collections go at their own
/// pace (a slow collection holds back no other, which the server's per-collection
/// deadlines need), so at most [`MAX_SHARED_CHUNKS`] queries are kept for others at once:
/// a collection running further ahead fingerprints its chunk for itself. Memory is then
/// bounded by that many chunks plus one per collection, whatever the text's length.
pub(crate) struct SharedChunks {
    state: Mutex<SharedState>,
    ready: Condvar,
}

/// Queries kept for other collections at most (each about 10 bytes per byte of a chunk).
pub(crate) const MAX_SHARED_CHUNKS: usize = 2;

struct SharedState {
    slots: Vec<Slot>,
    /// Slots holding or making a shared query.
    live: usize,
}

struct Slot {
    /// Collections that have yet to search this chunk.
    left: usize,
    query: SlotQuery,
}

enum SlotQuery {
    None,
    Making,
    Ready(Arc<Query>),
}

impl SharedChunks {
    /// Shares the queries of `chunks` chunks among `searchers` collections.
    pub(crate) fn new(chunks: usize, searchers: usize) -> Self {
        let slots = (0..chunks).map(|_| Slot { left: searchers, query: SlotQuery::None }).collect();
        Self { state: Mutex::new(SharedState { slots, live: 0 }), ready: Condvar::new() }
    }

    fn lock(&self) -> MutexGuard<'_, SharedState> {
        // A searcher that panicked left the state consistent (every change is one
        // assignment under the lock), so a poisoned lock is still good.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Chunk `i`'s query: the one another collection made, else `make()`'s (kept for the
    /// others when they will need it and fewer than [`MAX_SHARED_CHUNKS`] are kept).
    pub(crate) fn query(&self, i: usize, make: impl FnOnce() -> Query) -> Arc<Query> {
        let mut state = self.lock();
        loop {
            match &state.slots[i].query {
                SlotQuery::Ready(query) => return Arc::clone(query),
                SlotQuery::Making => state = self.ready.wait(state).unwrap_or_else(PoisonError::into_inner),
                SlotQuery::None => break,
            }
        }
        let share = state.slots[i].left > 1 && state.live < MAX_SHARED_CHUNKS;
        if !share {
            drop(state);
            return Arc::new(make());
        }
        state.slots[i].query = SlotQuery::Making;
        state.live += 1;
        drop(state);
        // Should `make` unwind, the slot is freed and the waiters make their own.
        let mut making = Making { shared: self, i, done: false };
        let query = Arc::new(make());
        making.done = true;
        self.lock().slots[i].query = SlotQuery::Ready(Arc::clone(&query));
        self.ready.notify_all();
        query
    }

    /// One collection is done with chunks `from..` (searched, or given up on an error):
    /// a chunk every collection is done with drops its query.
    pub(crate) fn leave(&self, from: usize, to: usize) {
        let mut state = self.lock();
        for i in from..to {
            let slot = &mut state.slots[i];
            slot.left = slot.left.saturating_sub(1);
            if slot.left == 0 && matches!(slot.query, SlotQuery::Ready(_)) {
                slot.query = SlotQuery::None;
                state.live -= 1;
            }
        }
    }
}

/// Frees a slot whose query was being made when its maker unwinds.
struct Making<'a> {
    shared: &'a SharedChunks,
    i: usize,
    done: bool,
}

impl Drop for Making<'_> {
    fn drop(&mut self) {
        if !self.done {
            let mut state = self.shared.lock();
            state.slots[self.i].query = SlotQuery::None;
            state.live -= 1;
            drop(state);
            self.shared.ready.notify_all();
        }
    }
}

/// The revisions of a suspect's chunks joined into one revision of the whole text.
#[derive(Debug, Default)]
pub(crate) struct JoinedRevision {
    revision: Option<Revision>,
    /// The whole text's tokens before the next chunk's own bytes.
    tokens_before: usize,
}

impl JoinedRevision {
    /// Adds the revision of `chunk`, searched over `chunk.over` whose tokens start at the
    /// byte offsets (in the chunk) `token_starts`: its blocks that start in the chunk's
    /// own bytes, moved to the whole text's bytes, chars and tokens. A source found in
    /// several chunks is one source with the blocks of each (its stage-1 scores added).
    pub(crate) fn add(&mut self, chunk: &TextChunk, revision: Revision, token_starts: impl Fn(usize) -> usize) {
        let own = (chunk.own.start - chunk.over.start)..(chunk.own.end - chunk.over.start);
        let first_own_token = token_starts(own.start);
        let own_tokens = token_starts(own.end) - first_own_token;
        let joined = self.revision.get_or_insert_with(|| Revision {
            collection: revision.collection.clone(),
            kind: revision.kind,
            sources: Vec::new(),
        });
        for mut source in revision.sources {
            source.blocks.retain(|b| own.contains(&b.suspect.bytes.start));
            if source.blocks.is_empty() {
                continue;
            }
            for block in &mut source.blocks {
                move_block(block, chunk, first_own_token, self.tokens_before);
            }
            match joined.sources.iter_mut().find(|s| s.doc == source.doc && s.copy_of == source.copy_of) {
                Some(s) => {
                    s.shared_hashes = s.shared_hashes.saturating_add(source.shared_hashes);
                    s.blocks.append(&mut source.blocks);
                }
                None => joined.sources.push(source),
            }
        }
        self.tokens_before += own_tokens;
    }

    /// The joined revision: sources in the order they were first found, then the copies
    /// (as one search gives them).
    pub(crate) fn finish(self) -> Option<Revision> {
        let mut revision = self.revision?;
        // A stable sort: sources keep their order, copies come after them.
        revision.sources.sort_by_key(|s: &SourceMatch| s.copy_of.is_some());
        Some(revision)
    }
}

/// A block of a chunk's search moved to the whole text: its suspect spans (and those of
/// its sentence pairs) by the chunk's place, its tokens by the tokens before the chunk.
fn move_block(block: &mut Block, chunk: &TextChunk, first_own_token: usize, tokens_before: usize) {
    let shift = |span: &mut tessera_search::TextSpan| {
        span.bytes.start += chunk.over.start;
        span.bytes.end += chunk.over.start;
        span.chars.start += chunk.chars_before;
        span.chars.end += chunk.chars_before;
    };
    shift(&mut block.suspect);
    for pair in &mut block.pairs {
        shift(&mut pair.suspect);
    }
    let token = |t: usize| (tokens_before + t).saturating_sub(first_own_token);
    block.suspect_tokens.start = token(block.suspect_tokens.start);
    block.suspect_tokens.end = token(block.suspect_tokens.end);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts `make` calls: a chunk's query made once per sharing.
    fn counting(made: &std::cell::Cell<usize>) -> impl Fn() -> Query + '_ {
        move || {
            made.set(made.get() + 1);
            Query::default()
        }
    }

    #[test]
    fn collections_in_step_fingerprint_each_chunk_once() {
        let shared = SharedChunks::new(3, 2);
        let made = std::cell::Cell::new(0);
        for i in 0..3 {
            let a = shared.query(i, counting(&made));
            let b = shared.query(i, counting(&made));
            assert!(Arc::ptr_eq(&a, &b), "chunk {i} is shared");
            shared.leave(i, i + 1);
            shared.leave(i, i + 1);
        }
        assert_eq!(made.get(), 3);
        let state = shared.lock();
        assert_eq!(state.live, 0, "every query dropped once both collections passed");
        assert!(state.slots.iter().all(|s| matches!(s.query, SlotQuery::None) && s.left == 0));
    }

    #[test]
    fn a_collection_running_ahead_keeps_at_most_the_shared_limit() {
        let shared = SharedChunks::new(4, 2);
        let made = std::cell::Cell::new(0);
        // One collection searches every chunk before the other starts.
        for i in 0..4 {
            shared.query(i, counting(&made));
            shared.leave(i, i + 1);
        }
        assert_eq!(made.get(), 4);
        assert_eq!(shared.lock().live, MAX_SHARED_CHUNKS);
        // The other finds the first MAX_SHARED_CHUNKS made and makes the rest again.
        for i in 0..4 {
            shared.query(i, counting(&made));
            shared.leave(i, i + 1);
        }
        assert_eq!(made.get(), 4 + 4 - MAX_SHARED_CHUNKS);
        assert_eq!(shared.lock().live, 0);
    }

    #[test]
    fn a_collection_that_fails_leaves_every_chunk_after_it() {
        let shared = SharedChunks::new(3, 2);
        let made = std::cell::Cell::new(0);
        shared.query(0, counting(&made));
        shared.leave(0, 3); // failed on chunk 0: done with all
        shared.query(0, counting(&made));
        shared.leave(0, 1);
        assert_eq!(made.get(), 1);
        assert_eq!(shared.lock().live, 0);
        // The one left alone makes the rest for itself and keeps none.
        shared.query(1, counting(&made));
        assert_eq!(shared.lock().live, 0);
    }

    #[test]
    fn a_query_whose_making_panics_is_made_again() {
        let shared = SharedChunks::new(1, 2);
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            shared.query(0, || panic!("fingerprinting failed"));
        }));
        assert!(panicked.is_err());
        assert_eq!(shared.lock().live, 0);
        let made = std::cell::Cell::new(0);
        shared.query(0, counting(&made));
        assert_eq!(made.get(), 1);
    }

    #[test]
    fn collections_on_threads_share_what_they_reach_together() {
        let shared = SharedChunks::new(8, 3);
        let made = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..3 {
                scope.spawn(|| {
                    for i in 0..8 {
                        shared.query(i, || {
                            made.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                            std::thread::sleep(std::time::Duration::from_millis(2));
                            Query::default()
                        });
                        shared.leave(i, i + 1);
                    }
                });
            }
        });
        // No deadlock, each chunk made at least once, and nothing kept after.
        assert!(made.into_inner() >= 8);
        let state = shared.lock();
        assert_eq!(state.live, 0);
        assert!(state.slots.iter().all(|s| s.left == 0));
    }

    #[test]
    fn chunks_own_every_byte_once_and_are_cut_at_line_ends() {
        let line = "Ёжик шёл домой through the fog, and then further on.\n";
        let text = line.repeat(200);
        assert!(plan(&text, 0).is_none());
        assert!(plan(&text, text.len()).is_none());
        for size in [500, 777, 1000, 2500] {
            let chunks = plan(&text, size).unwrap();
            let mut next = 0;
            for c in &chunks {
                assert_eq!(c.own.start, next, "{size}");
                assert!(c.own.end > c.own.start);
                assert!(c.over.start <= c.own.start && c.over.end >= c.own.end);
                for cut in [c.own.start, c.own.end, c.over.start, c.over.end] {
                    assert!(cut == 0 || cut == text.len() || text.as_bytes()[cut - 1] == b'\n', "{size}: {cut}");
                }
                assert_eq!(c.chars_before, text[..c.over.start].chars().count());
                next = c.own.end;
            }
            assert_eq!(next, text.len());
        }
    }

    #[test]
    fn a_text_without_line_ends_or_spaces_is_cut_at_char_boundaries() {
        let text = "ё".repeat(1000);
        for size in [7, 64, 301] {
            let chunks = plan(&text, size).unwrap();
            assert_eq!(chunks.last().unwrap().own.end, text.len());
            for c in &chunks {
                for cut in [c.own.start, c.own.end, c.over.start, c.over.end] {
                    assert!(text.is_char_boundary(cut), "{size}: {cut}");
                }
                assert_eq!(c.chars_before, c.over.start / 2);
            }
        }
    }
}
