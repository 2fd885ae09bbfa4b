//! What every fuzz target shares: its `fuzz_target!`.
//!
//! With the default feature `libfuzzer` (what `cargo fuzz` builds) it is libFuzzer's, from
//! `libfuzzer-sys`. With the feature `replay` (and no default features) it makes the
//! target a plain program, built by a stable compiler with the workspace's dependencies,
//! that runs the target's function once on every file it is given (directories are
//! walked) and fails on the first input that panics: `fuzz/replay` runs each target over
//! its seeds, the fixtures it was seeded from and the committed crash inputs, in CI.

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
    println!("{} inputs, no panic", inputs.len());
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
