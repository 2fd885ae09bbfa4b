//! What every fuzz target shares: its `fuzz_target!`.
//!
//! With the default feature `libfuzzer` (what `cargo fuzz` builds) it is libFuzzer's, from
//! `libfuzzer-sys`. With the feature `replay` (and no default features) it makes the
//! target a plain program, built by a stable compiler with the workspace's dependencies,
//! that runs the target's function once on every file it is given (directories are
//! walked) and fails on the first input that panics: `fuzz/replay` runs each target over
//! its seeds, the fixtures it was seeded from and the committed crash inputs, in CI.
//! With `TESSERA_FUZZ_SECONDS=N` it then fuzzes for N seconds without libFuzzer: inputs
//! made from those by seeded mutations (bytes flipped, set to edge values, inserted,
//! removed, slices repeated, truncations, two inputs spliced), each run like a file; one
//! that panics is written to `TESSERA_FUZZ_CRASHES` (default `fuzz/crashes/TARGET/`) and
//! fails the run, so it can be committed as a seed. No coverage guides it: it is the
//! stable compiler's short fuzzing in CI, and `cargo fuzz` the long one.

#[cfg(all(feature = "libfuzzer", not(feature = "replay")))]
pub use libfuzzer_sys::fuzz_target;

/// The target's function, run by [`replay`] from a plain `main`.
#[cfg(feature = "replay")]
#[macro_export]
macro_rules! fuzz_target {
    (|$data:ident: &[u8]| $body:block) => {
        fn main() {
            $crate::replay(|$data: &[u8]| $body);
        }
    };
}

/// Runs `target` once on every file named on the command line or found below a
/// directory named there (in name order), then says how many; exits with status 1 after
/// the first input that panics (its name on stderr, after the panic's message), and
/// with status 2 when there was no input at all (a wrong path is not a pass).
#[cfg(feature = "replay")]
pub fn replay(target: impl Fn(&[u8])) {
    use std::panic::{AssertUnwindSafe, catch_unwind};
    use std::path::PathBuf;

    let mut inputs: Vec<PathBuf> = Vec::new();
    for arg in std::env::args_os().skip(1) {
        collect(PathBuf::from(arg), &mut inputs);
    }
    if inputs.is_empty() {
        eprintln!("no inputs: give the files or directories to replay");
        std::process::exit(2);
    }
    for path in &inputs {
        let data = match std::fs::read(path) {
            Ok(data) => data,
            Err(e) => {
                eprintln!("{}: {e}", path.display());
                std::process::exit(2);
            }
        };
        if catch_unwind(AssertUnwindSafe(|| target(&data))).is_err() {
            eprintln!("input {} panicked", path.display());
            std::process::exit(1);
        }
    }
    print!("{} inputs, no panic", inputs.len());
    let seconds: u64 = std::env::var("TESSERA_FUZZ_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    if seconds > 0 {
        let corpus: Vec<Vec<u8>> = inputs.iter().filter_map(|p| std::fs::read(p).ok()).collect();
        let runs = mutate(&target, &corpus, std::time::Duration::from_secs(seconds));
        print!("; {runs} mutated inputs in {seconds} s, no panic");
    }
    println!();
}

/// Runs `target` on inputs mutated from `corpus` until `time` has passed; returns how
/// many. The mutations follow a fixed seed, so a run is repeatable.
#[cfg(feature = "replay")]
fn mutate(target: &impl Fn(&[u8]), corpus: &[Vec<u8>], time: std::time::Duration) -> u64 {
    use std::panic::{AssertUnwindSafe, catch_unwind};

    // Large fixtures (PDFs) would make every run slow: mutants start from at most 64 KiB.
    const MAX_START: usize = 64 << 10;
    let mut rng = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let deadline = std::time::Instant::now() + time;
    let mut runs = 0u64;
    // A watchdog: an input that runs for 10 s is written out and named, as a panic is.
    let current = std::sync::Arc::new(std::sync::RwLock::new(Vec::<u8>::new()));
    let done = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    {
        let (current, done) = (std::sync::Arc::clone(&current), std::sync::Arc::clone(&done));
        std::thread::spawn(move || {
            let mut last = (u64::MAX, std::time::Instant::now());
            loop {
                std::thread::sleep(std::time::Duration::from_millis(500));
                let now = done.load(std::sync::atomic::Ordering::Relaxed);
                if now != last.0 {
                    last = (now, std::time::Instant::now());
                } else if last.1.elapsed() > std::time::Duration::from_secs(10) {
                    let data = current.read().unwrap_or_else(std::sync::PoisonError::into_inner);
                    let file = keep_crash("slow", now + 1, &data);
                    eprintln!("\nmutated input {} ran over 10 s ({} bytes, written to {file})", now + 1, data.len());
                    std::process::exit(1);
                }
            }
        });
    }
    // Panics are expected to be rare; each found one is reported below, not by the hook.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    while std::time::Instant::now() < deadline {
        let base = &corpus[(next() % corpus.len() as u64) as usize];
        let mut data = base[..base.len().min(MAX_START)].to_vec();
        for _ in 0..=(next() % 4) {
            let at = if data.is_empty() { 0 } else { (next() % data.len() as u64) as usize };
            match next() % 7 {
                0 if !data.is_empty() => data[at] ^= 1 << (next() % 8),
                1 if !data.is_empty() => data[at] = [0, 0xFF, 0x7F, 0x80, b'<', b'"', b'\\'][(next() % 7) as usize],
                2 => data.insert(at, next() as u8),
                3 if !data.is_empty() => {
                    data.remove(at);
                }
                4 if !data.is_empty() => {
                    let len = ((next() % 64) as usize).min(data.len() - at);
                    let slice = data[at..at + len].to_vec();
                    data.splice(at..at, slice.iter().copied().cycle().take(len * (1 + (next() % 8) as usize)));
                }
                5 => data.truncate(at),
                _ => {
                    let other = &corpus[(next() % corpus.len() as u64) as usize];
                    let from = if other.is_empty() { 0 } else { (next() % other.len() as u64) as usize };
                    data.truncate(at);
                    data.extend_from_slice(&other[from..other.len().min(from + MAX_START)]);
                }
            }
        }
        runs += 1;
        *current.write().unwrap_or_else(std::sync::PoisonError::into_inner) = data;
        let data = current.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        if catch_unwind(AssertUnwindSafe(|| target(&data))).is_err() {
            std::panic::set_hook(hook);
            let file = keep_crash("crash", runs, &data);
            eprintln!("\nmutated input {runs} panicked ({} bytes, written to {file})", data.len());
            // Run it again with the hook back, so its message is in the log.
            let _ = catch_unwind(AssertUnwindSafe(|| target(&data)));
            std::process::exit(1);
        }
        drop(data);
        done.store(runs, std::sync::atomic::Ordering::Relaxed);
    }
    std::panic::set_hook(hook);
    runs
}

/// Writes an input that failed to `TESSERA_FUZZ_CRASHES` (default `crashes/TARGET/`) as
/// `KIND-N`; returns the file's path.
#[cfg(feature = "replay")]
fn keep_crash(kind: &str, n: u64, data: &[u8]) -> String {
    let name = std::env::args_os()
        .next()
        .map(std::path::PathBuf::from)
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "target".to_owned());
    let dir = std::env::var_os("TESSERA_FUZZ_CRASHES")
        .map_or_else(|| std::path::PathBuf::from("crashes").join(&name), std::path::PathBuf::from);
    let file = dir.join(format!("{kind}-{n}"));
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(&file, data);
    file.display().to_string()
}

/// `path` if it is a file, every file below it (sorted) if it is a directory.
#[cfg(feature = "replay")]
fn collect(path: std::path::PathBuf, into: &mut Vec<std::path::PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<_> = match std::fs::read_dir(&path) {
            Ok(dir) => dir.filter_map(|e| e.ok().map(|e| e.path())).collect(),
            Err(e) => {
                eprintln!("{}: {e}", path.display());
                std::process::exit(2);
            }
        };
        entries.sort();
        for entry in entries {
            collect(entry, into);
        }
    } else {
        into.push(path);
    }
}
