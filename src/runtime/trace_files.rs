//! Where a case's traces live, and reading them: its golden trace `<ID>.trace.jsonl`
//! and its counter-examples `<ID>.counter-<LABEL>.trace.jsonl`, beside its `.case` file
//! (docs/traces.md). A trace read is added to the caller's `SourceDb`, so its
//! diagnostics show the line.

use std::fs;
use std::path::{Path, PathBuf};

use crate::diag::{codes, Diagnostic};
use crate::load;
use crate::source::{FileId, Origin, SourceDb};

use super::trace::{self, TraceEvent, Violation};

/// The golden trace of a case: `<ID>.trace.jsonl` beside its `.case` file.
pub const TRACE_SUFFIX: &str = ".trace.jsonl";

/// A counter-example of a case: `<ID>.counter-<LABEL>.trace.jsonl` beside its `.case`
/// file, a wrong run its machine checks must catch or its labels name.
pub const COUNTER_INFIX: &str = ".counter-";

/// The path of the golden trace of case `id` written in `case_file`.
pub fn golden_path(case_file: &Path, id: &str) -> PathBuf {
    case_file.with_file_name(format!("{id}{TRACE_SUFFIX}"))
}

/// How a trace to read was come by.
#[derive(Clone, Copy, Debug)]
pub enum Found<'a> {
    /// A path the user named: read wherever it leads.
    Named,
    /// Beside this case file ([`golden_path`], [`counter_examples`]): read only when
    /// its real path lies in the case's suite, as a suite's sources are (a link out of
    /// the suite would quote someone else's file in diagnostics).
    BesideCase(&'a Path),
}

/// Reads and parses a golden trace (or a run's trace that must carry no labels), added
/// to `db` so its diagnostics show the line: a `violates` label is an error in it.
pub fn read_trace(
    db: &mut SourceDb,
    path: &Path,
    found: Found,
) -> Result<Vec<TraceEvent>, Vec<Diagnostic>> {
    read_with(db, path, found, trace::parse)
}

/// Reads and parses any trace file: its events, and its `violates` labels (a
/// counter-example's; a run's or a golden trace has none). `casec replay` reads every
/// trace with it, so it replays whatever `casec verify` reads, counter-examples
/// included (their labels grade nothing in a result record).
pub fn read_counter(
    db: &mut SourceDb,
    path: &Path,
    found: Found,
) -> Result<(Vec<TraceEvent>, Vec<Violation>), Vec<Diagnostic>> {
    read_with(db, path, found, trace::parse_counter)
}

fn read_with<T>(
    db: &mut SourceDb,
    path: &Path,
    found: Found,
    parse: impl Fn(FileId, &str) -> Result<T, Vec<Diagnostic>>,
) -> Result<T, Vec<Diagnostic>> {
    if let Found::BesideCase(case_file) = found {
        if !load::inside_suite_of(case_file, path) {
            return Err(vec![load::outside_root(path, false)]);
        }
    }
    // Read as a source is: a regular file within the size cap (a FIFO or a device
    // named like a trace would block or never end).
    let bytes = match load::read_bytes(path) {
        Ok((bytes, _)) => bytes,
        Err(load::Unread::Io(e)) => {
            return Err(vec![Diagnostic::new(
                codes::IO,
                format!("cannot read the trace: {e}"),
            )
            .at_path(load::display(path))
            .help("give the path of a JSON Lines trace (docs/traces.md)")])
        }
        Err(unread) => return Err(vec![unread.diagnostic(path)]),
    };
    let text =
        String::from_utf8(bytes).map_err(|e| vec![load::not_utf8(&load::display(path), &e)])?;
    let file = db.add(load::display(path), text.as_str(), Origin::User);
    parse(file, &text)
}

/// The counter-examples beside a case file, by label, in label order.
pub fn counter_examples(case_file: &Path, id: &str) -> Vec<(String, PathBuf)> {
    let folder = case_file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let prefix = format!("{id}{COUNTER_INFIX}");
    let mut found: Vec<(String, PathBuf)> = fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let label = name.strip_prefix(&prefix)?.strip_suffix(TRACE_SUFFIX)?;
            (!label.is_empty()).then(|| (label.to_string(), entry.path()))
        })
        .collect();
    found.sort();
    found
}
