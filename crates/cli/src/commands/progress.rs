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
