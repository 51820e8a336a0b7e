//! The progress bar of a command that works through many items for a while (`casec
//! judge` and `casec calibrate`: a request per review item, minutes in all).
//!
//! Drawn on standard error only when it is a terminal and diagnostics are for people
//! (`--format human`), and cleared when the work is done; elsewhere (a pipe, a file, CI,
//! the tests, `--format json`) the bar is hidden and the command's output is the same
//! byte for byte as without it. indicatif draws it at most a few times a second,
//! whichever thread finished an item.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::super::{DiagnosticOptions, Format};

/// A bar over `len` items, prefixed with what is being done (`judging`); hidden unless
/// standard error is a terminal and diagnostics are for people.
pub(super) fn bar(len: usize, doing: &str, options: DiagnosticOptions) -> ProgressBar {
    let visible = options.format == Format::Human && std::io::stderr().is_terminal();
    if !visible || len == 0 {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template(
        "{prefix} {wide_bar} {pos}/{len} items ({elapsed}, about {eta} left)",
    )
    .map_or_else(
        |_| ProgressStyle::default_bar(),
        |s| s.progress_chars("█▌ "),
    );
    ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr())
        .with_style(style)
        .with_prefix(doing.to_string())
}
