//! Finding and reading sources: suite folders on disk, in-memory sources, and the
//! embedded stdlib.
//!
//! A suite is a folder with a `suite.case`; every `.case` file below it (hidden
//! folders excepted) belongs to it. Files are read in sorted path order, so nothing
//! downstream depends on the file system's listing order. Read failures become `io`
//! diagnostics naming the path.

use std::fs;
use std::path::{Path, PathBuf};

use crate::diag::{codes, Diagnostic};
use crate::resolve::Role;
use crate::source::{Origin, SourceDb};

/// The stdlib, embedded so that casec works from any directory.
pub const STDLIB: &[(&str, &str)] = &[
    ("casec.case", include_str!("../stdlib/casec.case")),
    (
        "everyday_assistance.case",
        include_str!("../stdlib/everyday_assistance.case"),
    ),
    (
        "everyday_world.case",
        include_str!("../stdlib/everyday_world.case"),
    ),
    ("tujora.case", include_str!("../stdlib/tujora.case")),
    ("donnabench.case", include_str!("../stdlib/donnabench.case")),
    ("dumate.case", include_str!("../stdlib/dumate.case")),
    (
        "personal_world.case",
        include_str!("../stdlib/personal_world.case"),
    ),
    (
        "workspace_world.case",
        include_str!("../stdlib/workspace_world.case"),
    ),
];

pub const SUITE_FILE: &str = "suite.case";

/// A source file to compile and its role.
#[derive(Clone, Debug)]
pub struct Source {
    pub name: String,
    pub text: String,
    pub role: Role,
}

impl Source {
    /// A file compiled on its own: the suite file of a one-file suite when it declares
    /// a `suite`, else a file of profiles and cases outside any suite.
    pub fn lone(name: &str, text: &str) -> Source {
        let declares_suite = crate::syntax::parse(crate::source::FileId(0), text)
            .file
            .is_some_and(|f| f.statements.iter().any(|s| s.name() == "suite"));
        Source {
            name: name.to_string(),
            text: text.to_string(),
            role: if declares_suite {
                Role::SuiteFile
            } else {
                Role::Member
            },
        }
    }
}

/// The stdlib files as sources.
pub fn stdlib_sources() -> Vec<Source> {
    STDLIB
        .iter()
        .map(|(name, text)| Source {
            name: format!("<stdlib>/{name}"),
            text: text.to_string(),
            role: Role::Stdlib,
        })
        .collect()
}

/// Every `.case` file under `dir`, sorted, hidden entries skipped.
pub fn case_files(dir: &Path, diags: &mut Vec<Diagnostic>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(dir, &mut out, diags);
    out.sort();
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>, diags: &mut Vec<Diagnostic>) {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            diags.push(io_error(dir, "cannot read folder", &e));
            return;
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        // The entry's own type costs no system call; only a symbolic link needs one to
        // see whether it leads to a folder.
        let is_dir = match entry.file_type() {
            Ok(kind) if kind.is_symlink() => path.is_dir(),
            Ok(kind) => kind.is_dir(),
            Err(_) => path.is_dir(),
        };
        if is_dir {
            walk(&path, out, diags);
        } else if path.extension().is_some_and(|e| e == "case") {
            out.push(path);
        }
    }
}

/// Suites with fewer files than this are read on the calling thread.
const PARALLEL_FROM_FILES: usize = 256;

/// Reads the files of the suite at `root`.
pub fn suite_sources(root: &Path, diags: &mut Vec<Diagnostic>) -> Vec<Source> {
    let suite_file = root.join(SUITE_FILE);
    let paths = case_files(root, diags);
    let read = crate::parallel::map(&paths, paths.len() >= PARALLEL_FROM_FILES, |path| {
        let role = if *path == suite_file {
            Role::SuiteFile
        } else {
            Role::Member
        };
        read_source(path, role)
    });
    read.into_iter()
        .filter_map(|result| result.map_err(|d| diags.push(d)).ok())
        .collect()
}

pub fn read(path: &Path, role: Role, diags: &mut Vec<Diagnostic>) -> Option<Source> {
    read_source(path, role).map_err(|d| diags.push(d)).ok()
}

fn read_source(path: &Path, role: Role) -> Result<Source, Diagnostic> {
    match fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Ok(Source {
                name: display(path),
                text,
                role,
            }),
            Err(e) => Err(Diagnostic::error(
                codes::IO,
                format!("not valid UTF-8 at byte {}", e.utf8_error().valid_up_to()),
            )
            .at_path(display(path))
            .help("save the file as UTF-8")),
        },
        Err(e) => Err(io_error(path, "cannot read file", &e)),
    }
}

pub fn io_error(path: &Path, what: &str, error: &std::io::Error) -> Diagnostic {
    Diagnostic::error(codes::IO, format!("{what}: {error}"))
        .at_path(display(path))
        .help("check that the path exists and is readable")
}

/// A path as shown in diagnostics: forward slashes, no leading `./`.
pub fn display(path: &Path) -> String {
    let s = path.to_string_lossy().replace('\\', "/");
    s.strip_prefix("./").map(str::to_string).unwrap_or(s)
}

/// The nearest folder at or above `path` holding a suite.case.
pub fn suite_root_of(path: &Path) -> Option<PathBuf> {
    let start = if path.is_dir() {
        path
    } else {
        path.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
    };
    let mut dir = Some(start);
    while let Some(d) = dir {
        if d.join(SUITE_FILE).is_file() {
            return Some(d.to_path_buf());
        }
        dir = d.parent().filter(|p| !p.as_os_str().is_empty());
    }
    None
}

/// Adds sources to `db`, returning each one's id with its role.
pub fn add_all(db: &mut SourceDb, sources: Vec<Source>) -> Vec<(crate::source::FileId, Role)> {
    sources
        .into_iter()
        .map(|s| {
            let origin = if s.role == Role::Stdlib {
                Origin::Stdlib
            } else {
                Origin::User
            };
            (db.add(s.name, s.text, origin), s.role)
        })
        .collect()
}
