//! Progress bars on stderr (hidden when quiet or not a terminal).

use indicatif::{ProgressBar, ProgressStyle};

/// A bar counting files.
pub fn files_bar(quiet: bool, message: &'static str) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{msg} {bar:40} {pos}/{len} files ({per_sec}, eta {eta})")
            .expect("static template is valid"),
    );
    bar.set_message(message);
    bar
}

/// A counter of records read from inputs of unknown length (streams, compressed files).
pub fn records_bar(quiet: bool, message: &'static str) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{msg} {spinner} {human_pos} records ({per_sec})")
            .expect("static template is valid"),
    );
    bar.set_message(message);
    bar
}

/// A spinner for one long operation made of steps (a check): the step in words and the
/// time so far, redrawn ten times a second so that a long step still shows life.
pub fn check_bar(quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    bar.set_style(ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("static template is valid"));
    bar.enable_steady_tick(std::time::Duration::from_millis(100));
    bar
}
