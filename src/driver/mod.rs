//! The command implementations behind `casec`'s command line.
//!
//! Each command gathers sources, runs the library, renders diagnostics in the chosen
//! format and returns the exit code of the brief's contract: 0 clean or warnings only,
//! 1 errors (or warnings under `--deny warnings`), 2 usage or I/O errors. Outputs are
//! written atomically: to a temporary file or folder beside the target, renamed into
//! place only when everything succeeded. A command is the last thing the process does:
//! the large things it built are left to the exit rather than freed (`leave_to_exit`).

mod bundle;
pub mod cache;
mod export;
mod fmt;
mod judge;
pub mod output;
mod replay;
mod report;
mod sandbox;
mod serve;
mod staged;
mod trust;

use std::borrow::Borrow;
use std::cell::RefCell;
use std::fs;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

use crate::diag::render::{self, HumanStyle};
use crate::diag::{codes, Diagnostic};
use crate::load;
use crate::source::{Origin, SourceDb};
use crate::{Compilation, Config, Depth, Sources};

pub use self::bundle::{bundle, Outputs};
pub use self::export::export_suite;
pub use self::fmt::{fmt_paths, fmt_stdin, FmtMode};
pub use self::judge::{calibrate, judge_results, JudgeArgs, JudgeInputs};
pub use self::output::{write_atomically, write_atomically_with, write_folder_atomically};
pub use self::replay::{replay, verify, CounterExampleRecord, ReplayArgs, VerifyRecord};
pub use self::report::{record_schema, report_results};
pub use self::sandbox::{sandbox, stats};
pub use self::serve::{serve, ServeOutputs};
pub use crate::runtime::trace_files::TRACE_SUFFIX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Github,
}

/// Options shared by every command that reports diagnostics.
#[derive(Clone, Copy, Debug)]
pub struct DiagnosticOptions {
    pub format: Format,
    pub deny_warnings: bool,
    pub color: bool,
}

pub const EXIT_OK: u8 = 0;
pub const EXIT_ERRORS: u8 = 1;
pub const EXIT_USAGE: u8 = 2;

fn render_one(d: &Diagnostic, db: &SourceDb, options: DiagnosticOptions) -> String {
    match options.format {
        Format::Human => render::human(
            d,
            db,
            HumanStyle {
                color: options.color,
                width: 100,
            },
        ),
        Format::Json => render::json_line(d, db) + "\n",
        Format::Github => render::github(d, db) + "\n",
    }
}

/// The diagnostics of one run of a command: how they are printed ([`DiagnosticOptions`]) and what
/// was reported so far. The command line makes one per run and passes it to the
/// command. Every diagnostic goes to standard error as it is reported; the one summary
/// of the run follows at its end ([`Reporter::finish`]), however many times the command
/// reported.
#[derive(Debug)]
pub struct Reporter {
    pub options: DiagnosticOptions,
    /// Counted through a shared reference: a command reports from several places.
    reported: RefCell<Reported>,
}

/// What a [`Reporter`] has reported so far.
#[derive(Debug, Default)]
struct Reported {
    /// Whether the command reported at all (even no diagnostic): only then is there a
    /// summary.
    any: bool,
    errors: usize,
    warnings: usize,
    files: usize,
    /// `casec check` always prints its human summary, with the files it read.
    check_summary: bool,
    /// Standard error could not be written: the run cannot say what it found.
    lost: bool,
}

impl Reporter {
    pub fn new(options: DiagnosticOptions) -> Reporter {
        Reporter {
            options,
            reported: RefCell::default(),
        }
    }

    /// Prints diagnostics on standard error (the one stream of diagnostics of every
    /// command) and counts them for the run's summary, with the `files` read; returns
    /// the exit code they call for.
    pub(crate) fn report(&self, db: &SourceDb, diagnostics: &[Diagnostic], files: usize) -> u8 {
        self.emit(diagnostics.iter().map(|d| (d, db)), files);
        exit_code(diagnostics, self.options)
    }

    /// Reports diagnostics of a compilation (its own, plus any a command found), which
    /// read the user files of `db`.
    pub(crate) fn report_compiled(&self, db: &SourceDb, diagnostics: &[Diagnostic]) -> u8 {
        self.report(db, diagnostics, user_files(db))
    }

    /// Prints and counts diagnostics, each rendered against its own sources.
    fn emit<'a>(
        &self,
        diagnostics: impl Iterator<Item = (&'a Diagnostic, &'a SourceDb)>,
        files: usize,
    ) {
        let mut out = io::stderr().lock();
        let mut state = self.reported.borrow_mut();
        state.any = true;
        state.files = state.files.max(files);
        for (d, db) in diagnostics {
            if d.is_error() {
                state.errors += 1;
            } else {
                state.warnings += 1;
            }
            if out
                .write_all(render_one(d, db, self.options).as_bytes())
                .is_err()
            {
                state.lost = true;
            }
        }
    }

    /// The run's summary line: in JSON always, for humans when something was reported
    /// or for `casec check`; none when the command reported nothing.
    fn summary(&self) -> Option<String> {
        let state = self.reported.borrow();
        if !state.any {
            return None;
        }
        match self.options.format {
            Format::Json => Some(render::json_summary(
                state.errors,
                state.warnings,
                state.files,
            )),
            Format::Human if state.check_summary => Some(format!(
                "casec check: {} file(s), {}",
                state.files,
                summary_line(state.errors, state.warnings)
            )),
            Format::Human if state.errors + state.warnings > 0 => {
                Some(summary_line(state.errors, state.warnings))
            }
            _ => None,
        }
    }

    /// Ends the run: prints its summary and returns the exit code, 2 if the
    /// diagnostics could not be written.
    pub fn finish(self, code: u8) -> u8 {
        let mut lost = self.reported.borrow().lost;
        if let Some(line) = self.summary() {
            lost |= writeln!(io::stderr(), "{line}").is_err();
        }
        if lost {
            code.max(EXIT_USAGE)
        } else {
            code
        }
    }
}

/// A suite that compiled without errors, for the commands that grade its runs: its
/// sources, its model and its diagnostics (warnings at most).
pub(crate) type CleanSuite = (SourceDb, crate::model::Suite, Vec<Diagnostic>);

/// The suite `path` is in, compiled: a [`CleanSuite`], or the exit code once its
/// errors are reported.
pub(crate) fn clean_suite(path: &Path, reporter: &Reporter) -> Result<CleanSuite, u8> {
    let Compilation {
        db,
        suite,
        diagnostics,
    } = Compilation::new(Sources::Folder(&suite_folder(path)));
    match suite.filter(|_| !diagnostics.iter().any(Diagnostic::is_error)) {
        Some(model) => Ok((db, model, diagnostics)),
        None => Err(reporter.report_compiled(&db, &diagnostics).max(EXIT_ERRORS)),
    }
}

fn summary_line(errors: usize, warnings: usize) -> String {
    format!(
        "{}, {}",
        crate::diag::count(errors, "error"),
        crate::diag::count(warnings, "warning")
    )
}

fn exit_code<D: Borrow<Diagnostic>>(diagnostics: &[D], options: DiagnosticOptions) -> u8 {
    if diagnostics.iter().any(|d| d.borrow().is_usage_error()) {
        EXIT_USAGE
    } else if diagnostics.iter().any(|d| d.borrow().is_error())
        || (options.deny_warnings && !diagnostics.is_empty())
    {
        EXIT_ERRORS
    } else {
        EXIT_OK
    }
}

pub(crate) fn user_files(db: &SourceDb) -> usize {
    db.files().filter(|(_, f)| f.origin == Origin::User).count()
}

/// `casec check [PATH…] [--cache DIR] [--staged]`: diagnostics of every suite and
/// file, sorted by file and position across the whole run, then the summary. With a
/// cache folder, suites are checked through it ([`cache`]), with the same result; with
/// `--staged`, as git's index holds them ([`staged`]).
pub fn check(
    paths: &[PathBuf],
    cache: Option<&Path>,
    snapshot: cache::Snapshot,
    reporter: &Reporter,
) -> u8 {
    let groups = Groups::of(paths);
    let mut checked: Vec<cache::Checked> = groups
        .roots
        .iter()
        .map(|r| cache::check_suite(r, cache, snapshot))
        .collect();
    let compilations = match snapshot {
        cache::Snapshot::WorkingTree => groups.rest(),
        cache::Snapshot::Staged => groups.rest_staged(),
    };
    checked.extend(compilations.into_iter().map(|c| {
        // The model is left to the exit, as the command's last act.
        leave_to_exit(c.suite);
        cache::Checked {
            files: user_files(&c.db),
            db: c.db,
            diagnostics: c.diagnostics,
        }
    }));
    let mut ordered: Vec<(&Diagnostic, &SourceDb)> = checked
        .iter()
        .flat_map(|c| c.diagnostics.iter().map(move |d| (d, &c.db)))
        .collect();
    ordered.sort_by(|(a, a_db), (b, b_db)| {
        crate::diag::sort_key(a, a_db).cmp(&crate::diag::sort_key(b, b_db))
    });
    let files = checked.iter().map(|c| c.files).sum::<usize>();
    reporter.reported.borrow_mut().check_summary = true;
    reporter.emit(ordered.iter().copied(), files);
    let all: Vec<&Diagnostic> = ordered.into_iter().map(|(d, _)| d).collect();
    let code = exit_code(&all, reporter.options);
    leave_to_exit(checked);
    code
}

/// The paths of a command, grouped: suite folders, loose files, and paths that do
/// not exist.
struct Groups {
    roots: Vec<PathBuf>,
    loose: Vec<PathBuf>,
    missing: Vec<Diagnostic>,
}

impl Groups {
    fn of(paths: &[PathBuf]) -> Groups {
        let default = [PathBuf::from(".")];
        let paths = if paths.is_empty() {
            &default[..]
        } else {
            paths
        };
        let mut roots: Vec<PathBuf> = Vec::new();
        let mut loose: Vec<PathBuf> = Vec::new();
        let mut missing: Vec<Diagnostic> = Vec::new();
        for path in paths {
            if !path.exists() {
                missing.push(
                    Diagnostic::new(codes::IO, "no such file or folder")
                        .at_path(load::display(path))
                        .help("check the path"),
                );
                continue;
            }
            if let Some(root) = load::suite_root_of(path) {
                roots.push(root);
                continue;
            }
            if path.is_dir() {
                let mut diags = Vec::new();
                for file in load::case_files(path, &mut diags) {
                    match load::suite_root_of(&file) {
                        Some(root) => roots.push(root),
                        None => loose.push(file),
                    }
                }
                missing.extend(diags);
            } else {
                loose.push(path.clone());
            }
        }
        roots.sort();
        roots.dedup();
        loose.sort();
        loose.dedup();
        Groups {
            roots,
            loose,
            missing,
        }
    }

    /// The groups other than suite folders, compiled from git's index: loose files as
    /// staged (an error for one the index does not hold), and missing paths.
    fn rest_staged(mut self) -> Vec<Compilation> {
        let mut out = Vec::new();
        let mut members = Vec::new();
        for path in &self.loose {
            match staged::read_file(path) {
                Ok(text) => match load::Source::lone(&load::display(path), &text) {
                    lone if lone.role == crate::source::Role::SuiteFile => {
                        out.push(Compilation::new(Sources::Read(vec![lone], Vec::new())));
                    }
                    member => members.push(member),
                },
                Err(diagnostic) => self.missing.push(diagnostic),
            }
        }
        load::sort_paths_by(&mut members, |s| Path::new(&s.name));
        let members =
            (!members.is_empty()).then(|| Compilation::new(Sources::Read(members, Vec::new())));
        with_the_rest(out, members, self.missing)
    }

    /// The groups other than suite folders, compiled: loose files and missing paths.
    fn rest(self) -> Vec<Compilation> {
        let mut out = Vec::new();
        // A loose file that declares its own suite is a one-file suite; the other loose
        // files (profiles, stray cases) are checked together.
        let mut members: Vec<&Path> = Vec::new();
        for path in &self.loose {
            match one_file_suite(path) {
                Some(text) => {
                    out.push(Compilation::new(Sources::lone(&load::display(path), &text)))
                }
                None => members.push(path),
            }
        }
        let members = (!members.is_empty()).then(|| Compilation::new(Sources::Files(&members)));
        with_the_rest(out, members, self.missing)
    }
}

/// The compilations `out` of one-file suites, then the loose `members` compiled
/// together, then the diagnostics of paths that do not exist.
fn with_the_rest(
    mut out: Vec<Compilation>,
    members: Option<Compilation>,
    missing: Vec<Diagnostic>,
) -> Vec<Compilation> {
    out.extend(members);
    if !missing.is_empty() {
        out.push(Compilation {
            db: SourceDb::new(),
            suite: None,
            diagnostics: missing,
        });
    }
    out
}

/// Compiles the suite a command was pointed at (to `depth`) and reports its
/// diagnostics on stderr: the compilation when it allows the command to go on, else
/// the exit code.
pub(crate) fn compile_suite(
    path: &Path,
    depth: Depth,
    reporter: &Reporter,
) -> Result<Compilation, u8> {
    let compilation = Compilation::new(Config {
        sources: Sources::Folder(&suite_folder(path)),
        depth,
        recheck: None,
    });
    let code = reporter.report_compiled(&compilation.db, &compilation.diagnostics);
    match code {
        EXIT_OK if compilation.suite.is_some() => Ok(compilation),
        EXIT_OK => Err(EXIT_ERRORS),
        code => Err(code),
    }
}

/// The text of a file outside any suite folder that declares a `suite` itself. Read
/// as sources are ([`load::read_bytes`]): a FIFO, a device or an oversized file is left
/// to the compilation of loose files, whose reading reports it.
fn one_file_suite(path: &Path) -> Option<String> {
    let text = String::from_utf8(load::read_bytes(path).ok()?.0).ok()?;
    let parsed = crate::syntax::parse(crate::source::FileId(0), &text);
    let declares = parsed.file?.statements.iter().any(|s| s.name() == "suite");
    declares.then_some(text)
}

/// `casec build [SUITE] [-o FILE] [--no-check]`
pub fn build(suite: &Path, output: Option<&Path>, depth: Depth, reporter: &Reporter) -> u8 {
    let compilation = match compile_suite(suite, depth, reporter) {
        Ok(compilation) => compilation,
        Err(code) => return code,
    };
    let Some(suite) = compilation.suite.as_ref() else {
        return EXIT_ERRORS;
    };
    // Streamed: a large master is never held in memory as a whole.
    let code = write_output(
        output,
        (&compilation.db, &[]),
        |w| crate::lower::master::write_master_json(suite, w),
        reporter,
    );
    leave_to_exit(compilation);
    code
}

/// Leaves `value` to the end of the process instead of freeing it: a command is the
/// last thing `casec` does, and freeing a large suite's model one allocation at a time
/// (an eighth of a 10,000-case build) would only delay the exit.
pub(crate) fn leave_to_exit<T>(value: T) {
    std::mem::forget(value);
}

/// The suite folder a command was pointed at: the folder holding `suite.case` at or
/// above the path (a suite folder, its `suite.case`, or a folder or file inside it), or
/// the path itself when there is none, so that the diagnostic names what was given.
pub fn suite_folder(path: &Path) -> PathBuf {
    load::suite_root_of(path).unwrap_or_else(|| path.to_path_buf())
}

/// Reads a file a command is given into `db`, so its diagnostics show its lines: its
/// id and text, or an error naming `what` it should be, with `help`.
///
/// The user named the file, so it may be a pipe (`casec report <(…)`); what it gives
/// is capped at [`load::MAX_SUITE_BYTES`], as a master to import is.
pub(crate) fn read_given(
    path: &Path,
    what: &str,
    help: &str,
    db: &mut SourceDb,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<(crate::source::FileId, String)> {
    let read = fs::File::open(path)
        .map_err(load::Unread::Io)
        .and_then(|file| {
            let expected = file.metadata().map_or(0, |m| m.len());
            load::read_capped(file, expected, load::MAX_SUITE_BYTES)
        });
    let text = match read.map(String::from_utf8) {
        Ok(Ok(text)) => text,
        Ok(Err(e)) => {
            diagnostics.push(load::not_utf8(&load::display(path), &e));
            return None;
        }
        Err(unread) => {
            diagnostics.push(given_unread(path, what, help, &unread));
            return None;
        }
    };
    Some((
        db.add(load::display(path), text.as_str(), Origin::User),
        text,
    ))
}

/// Why a file a command was given was not read.
fn given_unread(path: &Path, what: &str, help: &str, unread: &load::Unread) -> Diagnostic {
    match unread {
        load::Unread::Io(e) => Diagnostic::new(codes::IO, format!("cannot read {what}: {e}"))
            .at_path(load::display(path))
            .help(help),
        unread => unread.diagnostic(path),
    }
}

/// Runs `write` into the output `path` (see [`output`]), or into stdout without a
/// path or for `-`; an output that is one of the run's inputs (a user file of `db`,
/// or one of `more`) is refused first.
pub(crate) fn write_output(
    path: Option<&Path>,
    inputs: (&SourceDb, &[&Path]),
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    reporter: &Reporter,
) -> u8 {
    let path = path.filter(|p| !output::is_stdout(p));
    if let Some(path) = path {
        if let Err(d) = output::refuse_input(path, inputs.0, inputs.1) {
            return reporter.report(&SourceDb::new(), &[d], 0);
        }
    }
    let result = match path {
        Some(path) => write_atomically_with(path, write),
        None => {
            let mut out = io::BufWriter::new(io::stdout().lock());
            output::ignore_broken_pipe(write(&mut out).and_then(|()| out.flush()))
        }
    };
    match result {
        Ok(()) => EXIT_OK,
        Err(e) => {
            let d = output::write_error(path, &e);
            reporter.report(&SourceDb::new(), &[d], 0)
        }
    }
}

/// `casec import MASTER.json -o DIR [--shape NAME]`, or `casec import TASKS.jsonl …`
/// for the lines an export writes.
pub fn import(master: &Path, output: &Path, shape: Option<&str>, reporter: &Reporter) -> u8 {
    let mut db = SourceDb::new();
    let mut diags = Vec::new();
    let Some(source) = load::read_master(master, &mut diags) else {
        return reporter.report(&db, &diags, 0);
    };
    let file = db.add(source.name, source.text, Origin::User);
    let lines = master.extension().is_some_and(|e| e == "jsonl");
    let imported = if lines {
        let name = master
            .file_stem()
            .map_or("imported".into(), |s| s.to_string_lossy());
        crate::import::import_lines(&db, file, shape, &name)
    } else {
        crate::import::import_as(&db, file, shape)
    };
    match imported {
        Ok(files) => {
            let files: Vec<(String, Vec<u8>)> = files
                .into_iter()
                .map(|(p, t)| (p, t.into_bytes()))
                .collect();
            match write_folder_atomically(output, &files) {
                Ok(()) => {
                    if reporter.options.format == Format::Human {
                        let _ = writeln!(
                            io::stderr(),
                            "casec import: wrote {} files to {}",
                            files.len(),
                            load::display(output)
                        );
                    }
                    EXIT_OK
                }
                Err(e) => {
                    let d =
                        Diagnostic::new(codes::IO, format!("cannot write the imported files: {e}"))
                            .at_path(load::display(output))
                            .help("choose a new or empty output folder");
                    reporter.report(&db, &[d], 1)
                }
            }
        }
        Err(diags) => reporter.report(&db, &diags, 1),
    }
}

/// Whether stderr is a terminal that should get colour.
pub fn stderr_is_terminal() -> bool {
    io::stderr().is_terminal()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each run counts its own diagnostics: two reporters in one process (two commands
    /// run by a program that embeds casec, or tests in parallel) do not add up into one
    /// summary, as a process-wide count would.
    #[test]
    fn two_reporters_count_independently() {
        let options = DiagnosticOptions {
            format: Format::Human,
            deny_warnings: false,
            color: false,
        };
        let (first, second) = (Reporter::new(options), Reporter::new(options));
        let db = SourceDb::new();
        let error = Diagnostic::new(codes::IO, "cannot read").at_path("a.case");
        let warning = Diagnostic::new(codes::EMPTY_TEXT, "an empty string").at_path("b.case");
        assert_eq!(first.report(&db, &[error], 0), EXIT_USAGE);
        assert_eq!(second.report(&db, &[warning.clone(), warning], 0), EXIT_OK);
        assert_eq!(first.summary().as_deref(), Some("1 error, 0 warnings"));
        assert_eq!(second.summary().as_deref(), Some("0 errors, 2 warnings"));
        assert_eq!(Reporter::new(options).summary(), None);
    }
}
