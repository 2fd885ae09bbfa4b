//! `extract_documents` (archives: ZIP and 7z members, nested) must never
//! panic, and its memory must stay bounded by the budgets while it unpacks:
//! the total unpack budget is the default 1 GiB (the 8 MiB budget this
//! target once had hid the 7z decoder's growth), and a counting allocator
//! checks the peak of live heap bytes against what the budgets allow: one
//! member of at most `max_bytes` per nesting level, each read into a buffer
//! that may double once, plus room for the text.
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run extract_documents -- -max_len=1048576`
//! (from the repository root); seed the corpus with
//! `crates/extract/testdata/archive/*`.

#![cfg_attr(not(feature = "replay"), no_main)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use tessera_extract::{ExtractConfig, Extractor};
use tessera_fuzz::fuzz_target;

/// Live heap bytes and their peak since the last reset.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The largest member (`ExtractConfig::max_bytes`) in this target.
const MAX_BYTES: u64 = 32 << 20;

/// Most heap one input may use beyond what was live before it.
const MAX_HEAP: usize = 4 * 2 * (MAX_BYTES as usize) + (64 << 20);

fuzz_target!(|data: &[u8]| {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let extractor = Extractor::new(ExtractConfig { max_bytes: MAX_BYTES, ..ExtractConfig::default() });
    let documents = extractor.extract_documents("fuzz.zip", data);
    assert!(!documents.is_empty());
    for doc in documents {
        assert!(doc.name.starts_with("fuzz.zip"));
        if let Ok(extracted) = doc.result {
            assert!(!extracted.text.trim().is_empty());
        }
    }
    let peak = PEAK.load(Ordering::Relaxed) - before;
    assert!(peak <= MAX_HEAP, "{peak} bytes of heap for an input of {} bytes", data.len());
});
