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

/// Reads a counter-example of the case `id` written in `case_file`: a label naming
/// another case (as an observed conversation's may) is an error in it.
pub fn read_counter_of(
    db: &mut SourceDb,
    path: &Path,
    case_file: &Path,
    id: &str,
) -> Result<(Vec<TraceEvent>, Vec<Violation>), Vec<Diagnostic>> {
    let (events, labels) = read_counter(db, path, Found::BesideCase(case_file))?;
    let elsewhere: Vec<Diagnostic> = labels
        .iter()
        .filter_map(|l| Some((l, l.case.as_deref().filter(|c| *c != id)?)))
        .map(|(l, other)| {
            Diagnostic::new(codes::TRACE_LINE, "this label names another case")
                .primary(
                    l.span,
                    format!("a counter-example of {id} labelled for {other}"),
                )
                .help("remove `case`: a counter-example's labels are for its own case")
        })
        .collect();
    match elsewhere.is_empty() {
        true => Ok((events, labels)),
        false => Err(elsewhere),
    }
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

/// The folder of a suite's observed conversations: trace files of conversations
/// observed elsewhere (`casec import` of a dataset's turns), named by their episode.
pub const OBSERVED_FOLDER: &str = "observed";

/// An observed conversation of a suite, as read: its name (the file's stem), the file,
/// its events, and the verdicts a reviewer confirmed (`violates` labels, each naming
/// the case it grades the conversation as).
pub struct ObservedTrace {
    pub name: String,
    pub file: FileId,
    pub events: Vec<TraceEvent>,
    pub labels: Vec<Violation>,
}

/// The observed conversations of the suite in the folder `root`: each `*.trace.jsonl`
/// of its `observed/` folder (none without one), by file name stem, in natural order
/// (`2` before `10`), or the diagnostics of every file that cannot be read (and of the
/// folder, when it is there but cannot be listed).
pub fn observed(db: &mut SourceDb, root: &Path) -> Result<Vec<ObservedTrace>, Vec<Diagnostic>> {
    let folder = root.join(OBSERVED_FOLDER);
    let entries = match fs::read_dir(&folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(vec![load::io_error(
                &folder,
                "cannot list the observed conversations",
                &e,
            )])
        }
    };
    let suite_file = root.join(load::SUITE_FILE);
    let mut paths: Vec<(String, PathBuf)> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let stem = name.strip_suffix(TRACE_SUFFIX)?;
            (!stem.is_empty()).then(|| (stem.to_string(), entry.path()))
        })
        .collect();
    paths.sort_by(|a, b| super::observed::natural_order(&a.0, &b.0));
    let mut out = Vec::new();
    let mut diags = Vec::new();
    for (name, path) in paths {
        let parse = |file, text: &str| trace::parse_counter(file, text).map(|read| (file, read));
        match read_with(db, &path, Found::BesideCase(&suite_file), parse) {
            Ok((file, (events, labels))) => {
                diags.extend(labels.iter().filter(|l| l.case.is_none()).map(|l| {
                    Diagnostic::new(codes::TRACE_LINE, "this label names no case")
                        .primary(l.span, "an observed conversation's label grades it as one case")
                        .help("name the case whose items it violates: {\"type\": \"violates\", \"case\": \"CASE-ID\", \"items\": [\"R1\"], \"why\": \"…\"}")
                }));
                out.push(ObservedTrace {
                    name,
                    file,
                    events,
                    labels,
                });
            }
            Err(d) => diags.extend(d),
        }
    }
    if diags.is_empty() {
        Ok(out)
    } else {
        Err(diags)
    }
}

/// What ties an observed conversation to cases that are not the suite's: a turn
/// `cited_by` an id no case has (once per id), a label naming one. `casec verify` and a
/// `turns` export report them alike.
pub fn unknown_cases(suite: &crate::model::Suite, observed: &ObservedTrace) -> Vec<Diagnostic> {
    let is_case = |id: &str| suite.cases.iter().any(|c| c.id.as_str() == id);
    let mut cited: Vec<&str> = Vec::new();
    for event in &observed.events {
        if let TraceEvent::User { cited_by, .. } = event {
            for id in cited_by.iter().filter(|id| !is_case(id)) {
                if !cited.contains(&id.as_str()) {
                    cited.push(id);
                }
            }
        }
    }
    let file = crate::source::Span::new(observed.file, 0..0);
    let mut out: Vec<Diagnostic> = cited
        .into_iter()
        .map(|id| {
            Diagnostic::new(
                codes::TRACE_LINE,
                format!("observed conversation `{}`: a turn is cited by `{id}`, which is no case of the suite", observed.name),
            )
            .primary(file, "in this trace")
            .help("name the cases whose evidence a turn is in `cited_by`")
        })
        .collect();
    for label in &observed.labels {
        if let Some(id) = label.case.as_deref().filter(|id| !is_case(id)) {
            out.push(
                Diagnostic::new(
                    codes::TRACE_LINE,
                    format!("this label names `{id}`, which is no case of the suite"),
                )
                .primary(
                    label.span,
                    "a reviewer's label grades the conversation as a case",
                )
                .help("name a case of the suite in `case`"),
            );
        }
    }
    out
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
