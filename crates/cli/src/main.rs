//! `tessera`: find borrowed text and near-duplicates.
//!
//! What it owns: the command line — parsing flags into the engine's settings once, at the
//! edge (`commands`), progress bars, output formats and exit codes (README, "Exit codes").
//! What it must never do: hold a rule of its own. A default, a threshold or a pipeline
//! step the command line needs comes from the engine (or the server, the crawler), so
//! the CLI, the server, Python and the Spark job answer alike.

mod commands;

use std::process::ExitCode;

use clap::Parser;

// Fingerprinting allocates and frees large token and hash vectors per document; the
// system allocator returns them to the kernel each time (mmap/munmap: 13 % of a
// fingerprinting run went to page faults), mimalloc keeps and reuses them.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Exit status of a program whose output pipe closed (128 + SIGPIPE), as a shell reports it.
const CLOSED_PIPE: i32 = 141;

fn main() -> ExitCode {
    quiet_on_closed_stdout();
    let cli = commands::Cli::parse();
    match commands::run(cli) {
        Ok(code) => code,
        Err(e) if closed_pipe(&e) => ExitCode::from(CLOSED_PIPE as u8),
        Err(e) => {
            // The whole chain: "cannot read x" alone would hide the system's reason.
            eprintln!("error: {}", tessera_engine::describe_error(e.as_ref()));
            ExitCode::from(1)
        }
    }
}

/// Whether an error is only the reader of standard output going away (a write that
/// failed with a broken pipe).
fn closed_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe))
    })
}

/// `tessera stats | head`: when the reader of standard output goes away, `println!` panics
/// with "failed printing to stdout: Broken pipe". That is not an error of ours: end quietly
/// with the shell's status for it instead of a panic message (every other panic keeps the
/// default report).
fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(CLOSED_PIPE);
        }
        default(info);
    }));
}
