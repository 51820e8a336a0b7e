//! `casec fmt`: canonical formatting in place, as a check, or from stdin to stdout.
//!
//! Files are formatted one by one; a file that does not parse is reported and left
//! untouched while the others are still formatted. Only files whose text changes are
//! rewritten, each atomically. With `--check` nothing is written: the unified diff of
//! every file that would change goes to stdout (as `a/PATH` → `b/PATH`, so it applies
//! with `git apply`) and the exit code is 1. A diff costs time that grows with the
//! product of the file's length and the number of changed lines (Myers); one not found
//! within [`DIFF_TIME_LIMIT`] is replaced by a line saying the file would be
//! reformatted, which `git apply` skips.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{output, write_atomically, Format, Reporter, EXIT_ERRORS, EXIT_OK};
use crate::diag::{codes, Diagnostic};
use crate::fmt::format_source;
use crate::load;
use crate::source::{Origin, SourceDb};

/// What `casec fmt` does with text that is not in canonical form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FmtMode {
    /// Rewrite it (in place, or to stdout for stdin).
    Write,
    /// Print the diff and fail.
    Check,
}

/// `casec fmt [--check] [PATH…]`: every `.case` file under the paths (default: `.`).
pub fn fmt_paths(paths: &[PathBuf], mode: FmtMode, reporter: &Reporter) -> u8 {
    let mut db = SourceDb::new();
    let mut diagnostics = Vec::new();
    let files = files_under(paths, &mut diagnostics);
    let mut changed = 0;
    let mut unwritten = 0;
    for path in &files {
        let Some(source) = load::read(path, crate::source::Role::Member, &mut diagnostics) else {
            continue;
        };
        let id = db.add(source.name.clone(), Arc::clone(&source.text), Origin::User);
        let formatted = match format_source(id, &source.text) {
            Ok(formatted) if *formatted != *source.text => formatted,
            Ok(_) => continue,
            Err(diags) => {
                diagnostics.extend(diags);
                continue;
            }
        };
        let written = match mode {
            FmtMode::Check => print_diff(&source.name, &source.text, &formatted)
                .map_err(|e| output::write_error(None, &e)),
            FmtMode::Write => write_atomically(path, formatted.as_bytes())
                .map_err(|e| load::io_error(path, "cannot write file", &e)),
        };
        match written {
            Ok(()) => changed += 1,
            Err(d) => {
                unwritten += 1;
                diagnostics.push(d);
            }
        }
    }
    let code = reporter.report(&db, &diagnostics, files.len());
    if reporter.options.format == Format::Human {
        let verb = match mode {
            FmtMode::Check => "would reformat",
            FmtMode::Write => "reformatted",
        };
        let failed = match unwritten {
            0 => String::new(),
            n => format!(", {n} not written"),
        };
        let _ = writeln!(
            io::stderr(),
            "casec fmt: {} file(s), {verb} {changed}{failed}",
            files.len()
        );
    }
    if mode == FmtMode::Check && changed > 0 {
        code.max(EXIT_ERRORS)
    } else {
        code
    }
}

/// `casec fmt --stdin [--check]`: standard input to standard output.
pub fn fmt_stdin(mode: FmtMode, reporter: &Reporter) -> u8 {
    const NAME: &str = "<stdin>";
    // A source, so within a source file's cap.
    let read = load::read_capped(io::stdin().lock(), 0, load::MAX_FILE_BYTES);
    let text = match read.map(String::from_utf8) {
        Ok(Ok(text)) => text,
        Ok(Err(e)) => return reporter.report(&SourceDb::new(), &[load::not_utf8(NAME, &e)], 0),
        Err(load::Unread::Io(e)) => {
            let d = Diagnostic::new(codes::IO, format!("cannot read standard input: {e}"))
                .at_path(NAME)
                .help("pipe UTF-8 text into `casec fmt --stdin`");
            return reporter.report(&SourceDb::new(), &[d], 0);
        }
        Err(unread) => {
            return reporter.report(&SourceDb::new(), &[unread.diagnostic(Path::new(NAME))], 0)
        }
    };
    let mut db = SourceDb::new();
    let id = db.add(NAME, text.as_str(), Origin::User);
    let printed = match (format_source(id, &text), mode) {
        (Err(diags), _) => return reporter.report(&db, &diags, 1),
        (Ok(formatted), FmtMode::Write) => output::print(formatted.as_bytes()).map(|()| EXIT_OK),
        (Ok(formatted), FmtMode::Check) if formatted == text => Ok(EXIT_OK),
        (Ok(formatted), FmtMode::Check) => {
            print_diff(NAME, &text, &formatted).map(|()| EXIT_ERRORS)
        }
    };
    printed.unwrap_or_else(|e| reporter.report(&db, &[output::write_error(None, &e)], 1))
}

/// The files named, and the `.case` files below the folders named, sorted; missing
/// paths become diagnostics.
fn files_under(paths: &[PathBuf], diagnostics: &mut Vec<Diagnostic>) -> Vec<PathBuf> {
    let default = [PathBuf::from(".")];
    let paths = if paths.is_empty() {
        &default[..]
    } else {
        paths
    };
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            files.extend(load::case_files(path, diagnostics));
        } else if path.exists() {
            files.push(path.clone());
        } else {
            diagnostics.push(missing(path));
        }
    }
    files.sort();
    files.dedup();
    files
}

fn missing(path: &Path) -> Diagnostic {
    Diagnostic::new(codes::IO, "no such file or folder")
        .at_path(load::display(path))
        .help("check the path")
}

/// How long `--check` may spend finding one file's diff. A file of megabytes whose
/// every line changes (a suite re-indented) would take minutes; well within the limit,
/// a diff of a file of some thousand lines takes milliseconds.
const DIFF_TIME_LIMIT: Duration = Duration::from_secs(1);

fn print_diff(name: &str, old: &str, new: &str) -> io::Result<()> {
    let deadline = Instant::now() + DIFF_TIME_LIMIT;
    let diff = similar::TextDiff::configure()
        .deadline(deadline)
        .diff_lines(old, new);
    // Past the deadline similar gives up and approximates: a diff that still applies but
    // may replace far more than changed, so none is shown.
    let text = if Instant::now() < deadline {
        diff.unified_diff()
            .context_radius(3)
            .header(&format!("a/{name}"), &format!("b/{name}"))
            .to_string()
    } else {
        format!(
            "would reformat {name} (no diff: not found within {} s; `casec fmt` rewrites the file)\n",
            DIFF_TIME_LIMIT.as_secs()
        )
    };
    output::print(text.as_bytes())
}
