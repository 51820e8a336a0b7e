//! Finding and reading sources: suite folders on disk, in-memory sources, and the
//! embedded stdlib.
//!
//! A suite is a folder with a `suite.case`; every `.case` file below it (hidden
//! folders excepted) belongs to it. Files are read in sorted path order, so nothing
//! downstream depends on the file system's listing order. Read failures become `io`
//! diagnostics naming the path.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::diag::{codes, Diagnostic};
use crate::source::{lexical, Role};
use crate::source::{DiskId, Origin, SourceDb};

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
    /// Shared, as the [`SourceDb`] keeps it: made where the
    /// file is read (on any core), not copied again when the file is added.
    pub text: Arc<str>,
    pub role: Role,
    /// The file it was read from, when it was read from disk.
    pub disk: Option<DiskId>,
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
            text: text.into(),
            role: if declares_suite {
                Role::SuiteFile
            } else {
                Role::Member
            },
            disk: None,
        }
    }
}

/// The stdlib files as sources.
pub fn stdlib_sources() -> Vec<Source> {
    STDLIB
        .iter()
        .map(|(name, text)| Source {
            name: format!("<stdlib>/{name}"),
            text: (*text).into(),
            role: Role::Stdlib,
            disk: None,
        })
        .collect()
}

/// Every `.case` file under `dir`, sorted, hidden entries skipped, each file once.
///
/// Symbolic links are followed, but a folder or file is read by one path only: a link
/// back to a folder being read (`ln -s . x`, a loop that would never end) or to one read
/// already, and a second link to a file read already, are reported as `io` errors naming
/// the link and skipped. Links are followed after the real folders, in path order, so
/// which path wins does not depend on the order the file system lists entries in.
pub fn case_files(dir: &Path, diags: &mut Vec<Diagnostic>) -> Vec<PathBuf> {
    let mut walk = Walk::default();
    match fs::canonicalize(dir) {
        Ok(canonical) => walk.enter(dir, canonical, diags),
        Err(e) => diags.push(io_error(dir, "cannot read folder", &e)),
    }
    walk.follow_links(diags);
    sort_paths(&mut walk.files);
    walk.files
}

/// Sorts paths in [`Path`] order. The walk's paths are normalised (joined one name at a
/// time), so comparing their bytes with the separator below every other byte gives the
/// order of comparing their components, without parsing components at every
/// comparison (which was a tenth of a warm `casec check --cache` of 100,000 files).
fn sort_paths(paths: &mut [PathBuf]) {
    sort_paths_by(paths, |p| p);
}

/// Sorts `items` by their paths `path_of` (normalised as the walk's are), in the
/// order of [`case_files`].
pub fn sort_paths_by<T>(items: &mut [T], path_of: impl Fn(&T) -> &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        items.sort_by_cached_key(|item| {
            let bytes = path_of(item).as_os_str().as_bytes().iter();
            bytes.map(|&b| walk_byte(b)).collect::<Vec<u8>>()
        });
    }
    #[cfg(not(unix))]
    items.sort_by(|a, b| path_of(a).cmp(path_of(b)));
}

/// The order of [`case_files`] between two normalised `/`-separated paths: by
/// components, which is by bytes with the separator below every other byte.
pub fn walk_order(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    let key = |b: &u8| walk_byte(*b);
    a.iter().map(key).cmp(b.iter().map(key))
}

fn walk_byte(b: u8) -> u8 {
    if b == b'/' {
        0
    } else {
        b
    }
}

/// The state of one folder walk: what was read, by which path.
#[derive(Default)]
struct Walk {
    files: Vec<PathBuf>,
    /// Canonical folder → the path it was read by.
    dirs: HashMap<PathBuf, PathBuf>,
    /// Canonical file → the path it was read by. Keyed by the path's bytes, which for a
    /// canonical path (no `.`, `..` or doubled separator) compare as the path does:
    /// every file of a suite is looked up here, and a `PathBuf` hashes component by
    /// component.
    seen_files: HashMap<std::ffi::OsString, PathBuf, foldhash::fast::FixedState>,
    /// Symbolic links to folders, followed once the real folders are read.
    links: BTreeSet<PathBuf>,
    /// Symbolic links to `.case` files, read once every folder is.
    file_links: BTreeSet<PathBuf>,
}

impl Walk {
    /// Reads the folder `dir`, whose canonical path is `canonical`.
    fn enter(&mut self, dir: &Path, canonical: PathBuf, diags: &mut Vec<Diagnostic>) {
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) => {
                diags.push(io_error(dir, "cannot read folder", &e));
                return;
            }
        };
        self.dirs.insert(canonical.clone(), dir.to_path_buf());
        for entry in entries.flatten() {
            let name = entry.file_name();
            if name.to_string_lossy().starts_with('.') {
                continue;
            }
            let path = entry.path();
            // The entry's own type costs no system call; only a symbolic link needs
            // more, to see where it leads.
            match entry.file_type() {
                Ok(kind) if kind.is_symlink() => self.link(path),
                Ok(kind) if kind.is_dir() => self.enter(&path, canonical.join(&name), diags),
                Ok(_) if is_case_file(&path) => self.file(path, canonical.join(&name), diags),
                Ok(_) => {}
                Err(_) if path.is_dir() => match fs::canonicalize(&path) {
                    Ok(target) => self.enter(&path, target, diags),
                    Err(e) => diags.push(io_error(&path, "cannot read folder", &e)),
                },
                Err(_) if is_case_file(&path) => self.file(path.clone(), path, diags),
                Err(_) => {}
            }
        }
    }

    /// A symbolic link, set aside: the real files and folders go first.
    fn link(&mut self, path: PathBuf) {
        if path.is_dir() {
            self.links.insert(path);
        } else if is_case_file(&path) {
            self.file_links.insert(path);
        }
    }

    fn file(&mut self, path: PathBuf, canonical: PathBuf, diags: &mut Vec<Diagnostic>) {
        match self.seen_files.entry(canonical.into_os_string()) {
            std::collections::hash_map::Entry::Occupied(first) => {
                diags.push(already_read(&path, first.get(), "file"))
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(path.clone());
                self.files.push(path);
            }
        }
    }

    /// Follows the links to folders, smallest path first, until none is left; then
    /// the links to files.
    fn follow_links(&mut self, diags: &mut Vec<Diagnostic>) {
        while let Some(link) = self.links.pop_first() {
            let canonical = match fs::canonicalize(&link) {
                Ok(canonical) => canonical,
                Err(e) => {
                    diags.push(io_error(&link, "cannot read folder", &e));
                    continue;
                }
            };
            match self.dirs.get(&canonical) {
                Some(first) => diags.push(already_read(&link, first, "folder")),
                None => self.enter(&link, canonical, diags),
            }
        }
        for link in std::mem::take(&mut self.file_links) {
            // A dangling link is read like a file, so that reading it reports it.
            let canonical = fs::canonicalize(&link).unwrap_or_else(|_| link.clone());
            self.file(link, canonical, diags);
        }
    }
}

fn is_case_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "case")
}

/// A second path to a file or folder already read: a loop or an alias.
fn already_read(link: &Path, first: &Path, what: &str) -> Diagnostic {
    let first = match display(first) {
        shown if shown.is_empty() || shown == "." => "the current folder".to_string(),
        shown => format!("`{shown}`"),
    };
    Diagnostic::error(
        codes::IO,
        format!("symbolic link to a {what} already read, as {first}: skipped"),
    )
    .at_path(display(link))
    .help(format!(
        "remove the link, or point it outside the suite: each {what} is read once, by one path"
    ))
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
    match read_with_identity(path) {
        Ok((bytes, disk)) => match String::from_utf8(bytes) {
            Ok(text) => Ok(Source {
                name: display(path),
                text: text.into(),
                role,
                disk,
            }),
            Err(e) => Err(not_utf8(&display(path), &e)),
        },
        Err(e) => Err(io_error(path, "cannot read file", &e)),
    }
}

/// The file `name` (as shown) is not UTF-8: it is left out of the check.
pub fn not_utf8(name: &str, error: &std::string::FromUtf8Error) -> Diagnostic {
    let at = error.utf8_error().valid_up_to();
    Diagnostic::error(codes::IO, format!("not valid UTF-8 at byte {at}"))
        .at_path(name)
        .help("save the file as UTF-8")
}

/// A file's bytes and which file it is, as `fs::read` reads them: the size for the
/// buffer and the identity come from one `fstat` of the open file.
fn read_with_identity(path: &Path) -> std::io::Result<(Vec<u8>, Option<DiskId>)> {
    use std::io::Read;
    let mut file = fs::File::open(path)?;
    let metadata = file.metadata()?;
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    // Through `take`: `File::read_to_end` would `fstat` the file again to size the
    // buffer that is sized already.
    (&mut file).take(u64::MAX).read_to_end(&mut bytes)?;
    Ok((bytes, DiskId::of(&metadata)))
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
///
/// A relative path is searched as written first ("cases/tujora" for
/// `cases/tujora/medication/TUJ-011.case`), so displayed paths keep the user's spelling;
/// when the suite lies above the current folder (pre-commit passes
/// `medication/TUJ-011.case` from the suite's root; an editor's `casec check .` from a
/// category folder), the search goes on above the current folder and gives the root
/// relative to it (`.`, `..`). The result is never the empty path.
pub fn suite_root_of(path: &Path) -> Option<PathBuf> {
    if !path.exists() {
        return None;
    }
    let start = if path.is_dir() {
        path
    } else {
        parent_or_dot(path)
    };
    let written = start
        .ancestors()
        .filter(|d| !d.as_os_str().is_empty())
        .find(|d| holds_suite(d));
    if let Some(root) = written {
        return Some(root.to_path_buf());
    }
    if path.is_absolute() {
        return None;
    }
    let cwd = std::env::current_dir().ok()?;
    let root = lexical(&cwd.join(start))
        .ancestors()
        .find(|d| holds_suite(d))?
        .to_path_buf();
    Some(relative_to(&root, &cwd))
}

/// The folder of a file path, `.` for a bare file name.
pub fn parent_or_dot(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

fn holds_suite(dir: &Path) -> bool {
    dir.join(SUITE_FILE).is_file()
}

/// `dir` as seen from `cwd`: `.`, `..`, `../..` when it is the current folder or above
/// it, else `dir` itself.
fn relative_to(dir: &Path, cwd: &Path) -> PathBuf {
    match cwd.strip_prefix(dir) {
        Ok(below) if below.as_os_str().is_empty() => PathBuf::from("."),
        Ok(below) => below.components().map(|_| Component::ParentDir).collect(),
        Err(_) => dir.to_path_buf(),
    }
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
            (db.add_read(s.name, s.text, origin, s.disk), s.role)
        })
        .collect()
}
