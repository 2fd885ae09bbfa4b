//! `tessera`: find borrowed text and near-duplicates.

mod commands;

use std::process::ExitCode;

use clap::Parser;

// Fingerprinting allocates and frees large token and hash vectors per document; the
// system allocator returns them to the kernel each time (mmap/munmap: 13 % of a
// fingerprinting run went to page faults), mimalloc keeps and reuses them.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = commands::Cli::parse();
    match commands::run(cli) {
        Ok(code) => code,
        Err(e) => {
            // The whole chain: "cannot read x" alone would hide the system's reason.
            eprintln!("error: {}", tessera_engine::describe_error(e.as_ref()));
            ExitCode::from(1)
        }
    }
}
