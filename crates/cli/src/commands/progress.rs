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

/// A bar counting bytes of one input file.
pub fn bytes_bar(quiet: bool, message: &'static str, total: u64) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{msg} {bar:40} {bytes}/{total_bytes} ({bytes_per_sec}, eta {eta})")
            .expect("static template is valid"),
    );
    bar.set_message(message);
    bar
}
