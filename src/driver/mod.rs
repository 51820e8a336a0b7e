//! The command implementations behind `casec`'s command line.
//!
//! Each command gathers sources, runs the library, renders diagnostics in the chosen
//! format and returns the exit code of the brief's contract: 0 clean or warnings only,
//! 1 errors (or warnings under `--deny warnings`), 2 usage or I/O errors. Outputs are
//! written atomically: to a temporary file or folder beside the target, renamed into
//! place only when everything succeeded. A command is the last thing the process does:
//! the large things it built are left to the exit rather than freed (`leave_to_exit`).

mod bundle;
mod export;
mod fmt;
mod replay;
mod report;
mod sandbox;
mod serve;

use std::borrow::Borrow;
use std::fs;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

use crate::diag::render::{self, HumanStyle};
use crate::diag::{codes, Diagnostic};
use crate::load;
use crate::source::{Origin, SourceDb};
use crate::{Compilation, Depth};

pub use self::bundle::{bundle, Outputs};
pub use self::export::export_suite;
pub use self::fmt::{fmt_paths, fmt_stdin, FmtMode};
pub use self::replay::{replay, verify, ReplayArgs, TRACE_SUFFIX};
pub use self::report::report_results;
pub use self::sandbox::{sandbox, stats};
pub use self::serve::{serve, ServeOutputs};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Github,
}

/// Options shared by every command that reports diagnostics.
#[derive(Clone, Copy, Debug)]
pub struct Report {
    pub format: Format,
    pub deny_warnings: bool,
    pub color: bool,
}

pub const EXIT_OK: u8 = 0;
pub const EXIT_ERRORS: u8 = 1;
pub const EXIT_USAGE: u8 = 2;

fn render_one(d: &Diagnostic, db: &SourceDb, options: Report) -> String {
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

/// Prints diagnostics and, when there are any (or in JSON), a summary; returns the
/// exit code they call for.
pub(crate) fn report(
    db: &SourceDb,
    diagnostics: &[Diagnostic],
    files: usize,
    options: Report,
    out: &mut dyn Write,
) -> u8 {
    for d in diagnostics {
        let _ = out.write_all(render_one(d, db, options).as_bytes());
    }
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = diagnostics.len() - errors;
    match options.format {
        Format::Json => {
            let _ = writeln!(out, "{}", render::json_summary(errors, warnings, files));
        }
        Format::Human if !diagnostics.is_empty() => {
            let _ = writeln!(out, "{}", summary_line(errors, warnings));
        }
        _ => {}
    }
    exit_code(diagnostics, options)
}

/// Reports diagnostics of a compilation (its own, plus any a command found) on stderr.
pub(crate) fn report_to_stderr(db: &SourceDb, diagnostics: &[Diagnostic], options: Report) -> u8 {
    report(db, diagnostics, user_files(db), options, &mut io::stderr())
}

fn summary_line(errors: usize, warnings: usize) -> String {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    format!(
        "{}, {}",
        plural(errors, "error"),
        plural(warnings, "warning")
    )
}

fn exit_code<D: Borrow<Diagnostic>>(diagnostics: &[D], options: Report) -> u8 {
    let usage = |d: &D| {
        let d = d.borrow();
        d.code == codes::IO || (d.code == codes::MISSING_SUITE && d.labels.is_empty())
    };
    if diagnostics.iter().any(usage) {
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

/// `casec check [PATH…]`: diagnostics of every suite and file on stdout, sorted by
/// file and position across the whole run; the human summary on stderr.
pub fn check(paths: &[PathBuf], options: Report) -> u8 {
    let compilations = compile_paths(paths);
    let mut stdout = io::stdout().lock();
    let mut ordered: Vec<(&Diagnostic, &SourceDb)> = compilations
        .iter()
        .flat_map(|c| c.diagnostics.iter().map(move |d| (d, &c.db)))
        .collect();
    ordered.sort_by(|(a, a_db), (b, b_db)| {
        crate::diag::sort_key(a, a_db).cmp(&crate::diag::sort_key(b, b_db))
    });
    for (d, db) in &ordered {
        let _ = stdout.write_all(render_one(d, db, options).as_bytes());
    }
    let files = compilations
        .iter()
        .map(|c| user_files(&c.db))
        .sum::<usize>();
    let all: Vec<&Diagnostic> = ordered.into_iter().map(|(d, _)| d).collect();
    let errors = all.iter().filter(|d| d.is_error()).count();
    let warnings = all.len() - errors;
    let code = exit_code(&all, options);
    match options.format {
        Format::Json => {
            let _ = writeln!(stdout, "{}", render::json_summary(errors, warnings, files));
        }
        Format::Human => {
            let _ = writeln!(
                io::stderr(),
                "casec check: {files} file(s), {}",
                summary_line(errors, warnings)
            );
        }
        Format::Github => {}
    }
    leave_to_exit(compilations);
    code
}

/// Groups paths into suites (by the nearest folder holding suite.case) and loose files,
/// and compiles each group once.
pub fn compile_paths(paths: &[PathBuf]) -> Vec<Compilation> {
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
                Diagnostic::error(codes::IO, "no such file or folder")
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
    let mut out: Vec<Compilation> = roots.iter().map(|r| Compilation::from_dir(r)).collect();
    // A loose file that declares its own suite is a one-file suite; the other loose
    // files (profiles, stray cases) are checked together.
    let mut members: Vec<&Path> = Vec::new();
    for path in &loose {
        match one_file_suite(path) {
            Some(text) => out.push(Compilation::from_single_file(&load::display(path), &text)),
            None => members.push(path),
        }
    }
    if !members.is_empty() {
        out.push(Compilation::from_files(&members));
    }
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
pub(crate) fn compile_suite(path: &Path, depth: Depth, options: Report) -> Result<Compilation, u8> {
    let compilation = Compilation::from_dir_to(&suite_folder(path), depth);
    let code = report_to_stderr(&compilation.db, &compilation.diagnostics, options);
    match code {
        EXIT_OK if compilation.suite.is_some() => Ok(compilation),
        EXIT_OK => Err(EXIT_ERRORS),
        code => Err(code),
    }
}

/// The text of a file outside any suite folder that declares a `suite` itself.
fn one_file_suite(path: &Path) -> Option<String> {
    let text = fs::read_to_string(path).ok()?;
    let parsed = crate::syntax::parse(crate::source::FileId(0), &text);
    let declares = parsed.file?.statements.iter().any(|s| s.name() == "suite");
    declares.then_some(text)
}

/// `casec build [SUITE] [-o FILE] [--no-check]`
pub fn build(suite: &Path, output: Option<&Path>, depth: Depth, options: Report) -> u8 {
    let compilation = match compile_suite(suite, depth, options) {
        Ok(compilation) => compilation,
        Err(code) => return code,
    };
    let Some(suite) = compilation.suite.as_ref() else {
        return EXIT_ERRORS;
    };
    // Streamed: a large master is never held in memory as a whole.
    let code = write_output(
        output,
        |w| crate::lower::master::write_master_json(suite, w),
        options,
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

/// The suite folder a command was pointed at: the folder itself, or the folder of a
/// `suite.case` file given by mistake.
pub fn suite_folder(path: &Path) -> PathBuf {
    if path.is_file() && path.file_name().is_some_and(|n| n == load::SUITE_FILE) {
        return path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
    }
    path.to_path_buf()
}

/// Runs `write` into `path` atomically, or into stdout without a path.
pub(crate) fn write_output(
    path: Option<&Path>,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    options: Report,
) -> u8 {
    let result = match path {
        Some(path) => write_atomically_with(path, write),
        None => {
            let mut out = io::BufWriter::new(io::stdout().lock());
            write(&mut out).and_then(|()| out.flush())
        }
    };
    match result {
        Ok(()) => EXIT_OK,
        // A reader that stops early (`casec build | head`) is not an error.
        Err(e) if path.is_none() && e.kind() == io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            let target = path.map_or("<stdout>".to_string(), load::display);
            let d = Diagnostic::error(codes::IO, format!("cannot write output: {e}"))
                .at_path(target)
                .help("check that the folder exists and is writable");
            report(&SourceDb::new(), &[d], 0, options, &mut io::stderr())
        }
    }
}

/// Writes a temporary file beside `path`, then renames it over `path`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomically_with(path, |w| w.write_all(bytes))
}

/// Runs `write` into a temporary file beside `path`, then renames it over `path`; on
/// any error the temporary file is removed and `path` is left as it was.
pub fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let tmp = temp_beside(path)?;
    let result = fs::File::create(&tmp)
        .and_then(|file| {
            let mut out = io::BufWriter::new(file);
            write(&mut out)?;
            out.flush()
        })
        .and_then(|()| fs::rename(&tmp, path));
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Writes `files` (relative path, text) as the folder `dir`, atomically: into a
/// temporary sibling folder first, renamed to `dir` at the end. `dir` must be absent
/// or empty.
pub fn write_folder_atomically(dir: &Path, files: &[(String, Vec<u8>)]) -> io::Result<()> {
    if dir.exists() {
        let empty = dir.is_dir() && fs::read_dir(dir)?.next().is_none();
        if !empty {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "the output folder exists and is not empty",
            ));
        }
    }
    let tmp = temp_beside(dir)?;
    let write = || -> io::Result<()> {
        fs::create_dir_all(&tmp)?;
        for (path, bytes) in files {
            let target = tmp.join(path);
            if let Some(p) = target.parent() {
                fs::create_dir_all(p)?;
            }
            fs::write(target, bytes)?;
        }
        if dir.exists() {
            fs::remove_dir(dir)?;
        }
        fs::rename(&tmp, dir)
    };
    let result = write();
    if result.is_err() {
        let _ = fs::remove_dir_all(&tmp);
    }
    result
}

/// `casec import MASTER.json -o DIR [--shape NAME]`, or `casec import TASKS.jsonl …`
/// for the lines an export writes.
pub fn import(master: &Path, output: &Path, shape: Option<&str>, options: Report) -> u8 {
    let mut db = SourceDb::new();
    let mut diags = Vec::new();
    let Some(source) = load::read(master, crate::resolve::Role::Member, &mut diags) else {
        return report(&db, &diags, 0, options, &mut io::stderr());
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
                    if options.format == Format::Human {
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
                        Diagnostic::error(codes::IO, format!("cannot write the suite folder: {e}"))
                            .at_path(load::display(output))
                            .help("choose a new or empty output folder");
                    report(&db, &[d], 1, options, &mut io::stderr())
                }
            }
        }
        Err(diags) => report(&db, &diags, 1, options, &mut io::stderr()),
    }
}

/// Whether stderr is a terminal that should get colour.
pub fn stderr_is_terminal() -> bool {
    io::stderr().is_terminal()
}

/// A hidden temporary path beside `target`, where an output is written before it is
/// renamed into place (a rename within one folder is atomic).
pub(crate) fn temp_beside(target: &Path) -> io::Result<PathBuf> {
    let dir = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file or folder path"))?;
    Ok(dir.join(format!(
        ".{}.casec-tmp-{}",
        name.to_string_lossy(),
        std::process::id()
    )))
}
