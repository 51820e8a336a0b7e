//! Finding and reading sources: suite folders on disk, in-memory sources, and the
//! embedded stdlib.
//!
//! A suite is a folder with a `suite.case`; every `.case` file below it (hidden
//! folders excepted) belongs to it. Files are read in sorted path order, so nothing
//! downstream depends on the file system's listing order. A suite may be anyone's, so
//! it is read as data: nothing outside its folder, regular files only, within
//! [`MAX_FILE_BYTES`] a file and [`MAX_SUITE_BYTES`] in all (docs/language.md, "Loading
//! a suite"). Read failures and refusals become `io` (or `limit`) diagnostics naming
//! the path.

// Module headers link to the private items of their crate: they are read by
// contributors, with `cargo doc --document-private-items`.
#![allow(rustdoc::private_intra_doc_links)]

// The layers below, under the names the modules of this crate use for them.
use casec_base::{diag, parallel, source};
use casec_syntax as syntax;

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::diag::{codes, Diagnostic};
use crate::source::{lexical, Role};
use crate::source::{DiskId, Origin, SourceDb};

/// The stdlib, embedded so that casec works from any directory.
pub const STDLIB: &[(&str, &str)] = &[
    ("casec.case", include_str!("../../../stdlib/casec.case")),
    (
        "everyday_assistance.case",
        include_str!("../../../stdlib/everyday_assistance.case"),
    ),
    (
        "everyday_world.case",
        include_str!("../../../stdlib/everyday_world.case"),
    ),
    ("tujora.case", include_str!("../../../stdlib/tujora.case")),
    (
        "donnabench.case",
        include_str!("../../../stdlib/donnabench.case"),
    ),
    ("dumate.case", include_str!("../../../stdlib/dumate.case")),
    (
        "personal_world.case",
        include_str!("../../../stdlib/personal_world.case"),
    ),
    (
        "workspace_world.case",
        include_str!("../../../stdlib/workspace_world.case"),
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
/// Nothing outside `dir` is read: a symbolic link whose real path lies outside it (a
/// `.case` file, or a folder) is reported as an `io` error naming the link and skipped,
/// and so is a `.case` entry that is not a regular file (a FIFO, a socket, a device),
/// which would block or never end if read. Symbolic links inside `dir` are followed,
/// but a folder or file is read by one path only: a link back to a folder being read
/// (`ln -s . x`, a loop that would never end) or to one read already, and a second link
/// to a file read already, are reported as `io` errors naming the link and skipped.
/// Links are followed after the real folders, in path order, so which path wins does
/// not depend on the order the file system lists entries in.
pub fn case_files(dir: &Path, diags: &mut Vec<Diagnostic>) -> Vec<PathBuf> {
    let mut walk = Walk::default();
    let mut found = Vec::new();
    match fs::canonicalize(dir) {
        Ok(canonical) => {
            walk.root = canonical.clone();
            walk.enter(dir, canonical, &mut found);
        }
        Err(e) => found.push(io_error(dir, "cannot read folder", &e)),
    }
    walk.follow_links(&mut found);
    sort_paths(&mut walk.files);
    // In the order of the paths they name, not the order the file system listed them.
    let path = |d: &Diagnostic| d.path.as_deref().unwrap_or_default().as_bytes().to_vec();
    found.sort_by(|a, b| walk_order(&path(a), &path(b)));
    diags.extend(found);
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
    /// The canonical path of the folder walked: nothing outside it is read.
    root: PathBuf,
    files: Vec<PathBuf>,
    /// Canonical folder → the path it was read by.
    dirs: HashMap<PathBuf, PathBuf>,
    /// Canonical file → the path it was read by. Keyed by the path's bytes, which for a
    /// canonical path (no `.`, `..` or doubled separator) compare as the path does:
    /// every file of a suite is looked up here, and a `PathBuf` hashes component by
    /// component.
    seen_files: HashMap<std::ffi::OsString, PathBuf, foldhash::fast::FixedState>,
    /// Symbolic links to folders inside the root, with their real paths, followed once
    /// the real folders are read.
    links: BTreeMap<PathBuf, PathBuf>,
    /// Symbolic links to `.case` files, with their real paths (none for a dangling
    /// link), read once every folder is.
    file_links: BTreeMap<PathBuf, Option<PathBuf>>,
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
                Ok(kind) if kind.is_symlink() => self.link(path, diags),
                Ok(kind) if kind.is_dir() => self.enter(&path, canonical.join(&name), diags),
                Ok(kind) if is_case_file(&path) && kind.is_file() => {
                    self.file(path, canonical.join(&name), diags)
                }
                Ok(kind) if is_case_file(&path) => diags.push(not_regular(&path, kind)),
                Ok(_) => {}
                Err(_) => match fs::symlink_metadata(&path) {
                    Ok(metadata) if metadata.is_symlink() => self.link(path, diags),
                    Ok(metadata) if metadata.is_dir() => {
                        self.enter(&path, canonical.join(&name), diags)
                    }
                    Ok(metadata) if is_case_file(&path) && metadata.is_file() => {
                        self.file(path, canonical.join(&name), diags)
                    }
                    Ok(metadata) if is_case_file(&path) => {
                        diags.push(not_regular(&path, metadata.file_type()))
                    }
                    Ok(_) => {}
                    Err(e) if is_case_file(&path) => {
                        diags.push(io_error(&path, "cannot read file", &e))
                    }
                    Err(_) => {}
                },
            }
        }
    }

    /// A symbolic link, set aside: the real files and folders go first. A link whose
    /// real path is outside the root, or that leads to something other than a folder
    /// or a regular file, is reported; a dangling `.case` link is kept, so that reading
    /// it reports it.
    fn link(&mut self, path: PathBuf, diags: &mut Vec<Diagnostic>) {
        let Ok(target) = fs::canonicalize(&path) else {
            if is_case_file(&path) {
                self.file_links.insert(path, None);
            }
            return;
        };
        let Ok(metadata) = fs::metadata(&target) else {
            if is_case_file(&path) {
                self.file_links.insert(path, None);
            }
            return;
        };
        if !metadata.is_dir() && !is_case_file(&path) {
            return;
        }
        if !target.starts_with(&self.root) {
            diags.push(outside_root(&path, metadata.is_dir()));
        } else if metadata.is_dir() {
            self.links.insert(path, target);
        } else if metadata.is_file() {
            self.file_links.insert(path, Some(target));
        } else {
            diags.push(not_regular(&path, metadata.file_type()));
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
        while let Some((link, canonical)) = self.links.pop_first() {
            match self.dirs.get(&canonical) {
                Some(first) => diags.push(already_read(&link, first, "folder")),
                None => self.enter(&link, canonical, diags),
            }
        }
        for (link, canonical) in std::mem::take(&mut self.file_links) {
            // A dangling link is read like a file, so that reading it reports it.
            let canonical = canonical.unwrap_or_else(|| link.clone());
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
    Diagnostic::new(
        codes::IO,
        format!("symbolic link to a {what} already read, as {first}: skipped"),
    )
    .at_path(display(link))
    .help(format!(
        "remove the link: each {what} of the suite is read once, by one path"
    ))
}

/// Suites with fewer files than this are read on the calling thread.
const PARALLEL_FROM_FILES: usize = 256;

/// The largest source file casec reads: 256 MiB.
///
/// The largest suite the benchmarks build, 100,000 cases, is 161 MB in 100,001 files of
/// at most 12 KB; a one-file suite of 256 MiB would hold some 160,000 Tujora cases. A
/// file beyond the cap is refused before it is read (a `/dev/zero` is refused as a
/// device), so a 1 GB string cannot reach the parser; one string at the cap takes about
/// ten times its size to check (2.6 GB; its words are indexed for the leak rule).
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// The most a suite's files may hold in all: 1 GiB, six times the 161 MB of the largest
/// benchmark suite (which `casec check` holds in 1 GB). A suite beyond it is refused
/// before a byte of it is read. A master holds a whole suite in one file: `casec
/// import` reads one of up to this size too ([`read_master`]; the master of the
/// 100,000-case suite is 398 MB).
pub const MAX_SUITE_BYTES: u64 = 1 << 30;

/// Reads the files of the suite at `root`.
pub fn suite_sources(root: &Path, diags: &mut Vec<Diagnostic>) -> Vec<Source> {
    suite_files(root, diags)
        .into_iter()
        .map(|(_, source)| source)
        .collect()
}

/// Reads the files of the suite at `root`, each with its path; none when together
/// they hold more than [`MAX_SUITE_BYTES`] (one `limit` error, naming the file at which
/// they pass it, says so).
pub fn suite_files(root: &Path, diags: &mut Vec<Diagnostic>) -> Vec<(PathBuf, Source)> {
    let suite_file = root.join(SUITE_FILE);
    let paths = case_files(root, diags);
    let parallel = paths.len() >= PARALLEL_FROM_FILES;
    // Every file is looked at before any is read: a suite past the cap is refused
    // without a byte of it read.
    let looked = crate::parallel::map(&paths, parallel, |path| look(path, MAX_FILE_BYTES));
    let sizes = looked.iter().map(|l| *l.as_ref().unwrap_or(&0));
    if let Some(refused) = past_suite_cap(&paths, sizes) {
        diags.push(refused);
        return Vec::new();
    }
    let looked: Vec<(&PathBuf, Result<u64, Unread>)> = paths.iter().zip(looked).collect();
    let read = crate::parallel::map(&looked, parallel, |(path, looked)| {
        let role = if **path == suite_file {
            Role::SuiteFile
        } else {
            Role::Member
        };
        match looked {
            Ok(_) => match read_looked(path, MAX_FILE_BYTES, Links::Follow) {
                Ok((bytes, disk)) => source_of(path, role, bytes, disk),
                Err(unread) => Err(unread.diagnostic(path)),
            },
            Err(unread) => Err(unread.diagnostic(path)),
        }
    });
    drop(looked);
    // Files that grew since they were looked at: what was read decides again.
    let sizes = read
        .iter()
        .map(|r| r.as_ref().map_or(0, |s| s.text.len() as u64));
    if let Some(refused) = past_suite_cap(&paths, sizes) {
        diags.push(refused);
        return Vec::new();
    }
    paths
        .into_iter()
        .zip(read)
        .filter_map(|(path, read)| read.map_err(|d| diags.push(d)).ok().map(|s| (path, s)))
        .collect()
}

/// The `limit` error of a suite whose files, of `sizes` in the order of `paths`, hold
/// more than [`MAX_SUITE_BYTES`]: at the file where they pass it.
fn past_suite_cap(paths: &[PathBuf], sizes: impl Iterator<Item = u64>) -> Option<Diagnostic> {
    let mut total = 0u64;
    let mut passed_at = None;
    for (path, size) in paths.iter().zip(sizes) {
        total += size;
        if total > MAX_SUITE_BYTES && passed_at.is_none() {
            passed_at = Some(path);
        }
    }
    passed_at.map(|path| suite_too_large(path, total))
}

/// Reads one source file, as [`read_bytes`] does.
pub fn read(path: &Path, role: Role, diags: &mut Vec<Diagnostic>) -> Option<Source> {
    read_source(path, role, MAX_FILE_BYTES)
        .map_err(|d| diags.push(d))
        .ok()
}

/// Reads a master JSON (or JSON Lines) file to import: a whole suite in one file, so
/// within [`MAX_SUITE_BYTES`] rather than [`MAX_FILE_BYTES`].
pub fn read_master(path: &Path, diags: &mut Vec<Diagnostic>) -> Option<Source> {
    read_source(path, Role::Member, MAX_SUITE_BYTES)
        .map_err(|d| diags.push(d))
        .ok()
}

fn read_source(path: &Path, role: Role, cap: u64) -> Result<Source, Diagnostic> {
    let read = read_regular(path, cap, Links::Follow);
    match read {
        Ok((bytes, disk)) => source_of(path, role, bytes, disk),
        Err(unread) => Err(unread.diagnostic(path)),
    }
}

fn source_of(
    path: &Path,
    role: Role,
    bytes: Vec<u8>,
    disk: Option<DiskId>,
) -> Result<Source, Diagnostic> {
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Source {
            name: display(path),
            text: text.into(),
            role,
            disk,
        }),
        Err(e) => Err(not_utf8(&display(path), &e)),
    }
}

/// The file `name` (as shown) is not UTF-8: it is left out of the check.
pub fn not_utf8(name: &str, error: &std::string::FromUtf8Error) -> Diagnostic {
    let at = error.utf8_error().valid_up_to();
    Diagnostic::new(codes::IO, format!("not valid UTF-8 at byte {at}"))
        .at_path(name)
        .help("save the file as UTF-8")
}

/// Why a file was not read.
#[derive(Debug)]
pub enum Unread {
    Io(std::io::Error),
    /// A FIFO, a socket or a device: reading it could block, or never end.
    NotRegular(fs::FileType),
    /// More than the cap (the second number): the size, or as much as was read before
    /// the cap.
    TooLarge(u64, u64),
}

impl Unread {
    /// The diagnostic of a file at `path` left unread.
    pub fn diagnostic(&self, path: &Path) -> Diagnostic {
        match self {
            Unread::Io(e) => io_error(path, "cannot read file", e),
            Unread::NotRegular(kind) => not_regular(path, *kind),
            Unread::TooLarge(size, cap) => file_too_large(path, *size, *cap),
        }
    }
}

/// A file's bytes and which file it is, when it is a regular file of at most
/// [`MAX_FILE_BYTES`]: [`read_regular`] following links.
pub fn read_bytes(path: &Path) -> Result<(Vec<u8>, Option<DiskId>), Unread> {
    read_regular(path, MAX_FILE_BYTES, Links::Follow)
}

/// What a read does with a symbolic link at the path it is given.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Links {
    /// Reads what the link leads to (a suite's links were vetted by the walk).
    Follow,
    /// Refuses the link: a file in a folder others may have written (the judge cache).
    Refuse,
}

/// A file's bytes and which file it is, when it is a regular file of at most `cap`
/// bytes.
///
/// The path's type is looked at before it is opened (a device is never opened), the
/// file is opened without blocking (a FIFO put in its place meanwhile does not block
/// the open; with [`Links::Refuse`], nor does a link) and its type and size are taken
/// again from the open file, which is read through [`read_capped`] (a file growing as
/// it is read, or one that does not know its size, cannot fill memory). The identity
/// comes from that `fstat`.
pub fn read_regular(
    path: &Path,
    cap: u64,
    links: Links,
) -> Result<(Vec<u8>, Option<DiskId>), Unread> {
    let metadata = match links {
        Links::Follow => fs::metadata(path),
        Links::Refuse => fs::symlink_metadata(path),
    };
    regular_within_cap(&metadata.map_err(Unread::Io)?, cap)?;
    read_looked(path, cap, links)
}

/// The size of the file at `path`, when it is a regular file of at most `cap` bytes.
fn look(path: &Path, cap: u64) -> Result<u64, Unread> {
    let metadata = fs::metadata(path).map_err(Unread::Io)?;
    regular_within_cap(&metadata, cap)?;
    Ok(metadata.len())
}

/// [`read_regular`] of a file whose path was looked at already, within `cap`.
fn read_looked(path: &Path, cap: u64, links: Links) -> Result<(Vec<u8>, Option<DiskId>), Unread> {
    let file = open_without_blocking(path, links).map_err(Unread::Io)?;
    let metadata = file.metadata().map_err(Unread::Io)?;
    regular_within_cap(&metadata, cap)?;
    let bytes = read_capped(file, metadata.len(), cap)?;
    Ok((bytes, DiskId::of(&metadata)))
}

/// Everything `reader` gives, when that is at most `cap` bytes: the one way casec reads
/// an input whose size it does not control (a file, standard input, a named pipe the
/// user gives). `expected` is the size a file says it has (0 when unknown): past the
/// cap, nothing is read; else it sizes the buffer.
pub fn read_capped(reader: impl std::io::Read, expected: u64, cap: u64) -> Result<Vec<u8>, Unread> {
    use std::io::Read;
    if expected > cap {
        return Err(Unread::TooLarge(expected, cap));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(expected.min(cap)).unwrap_or(0));
    // Through `take`: the cap; and `File::read_to_end` would `fstat` the file again to
    // size a buffer that is sized already.
    reader
        .take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Unread::Io)?;
    if bytes.len() as u64 > cap {
        return Err(Unread::TooLarge(bytes.len() as u64, cap));
    }
    Ok(bytes)
}

fn regular_within_cap(metadata: &fs::Metadata, cap: u64) -> Result<(), Unread> {
    if !metadata.is_file() {
        Err(Unread::NotRegular(metadata.file_type()))
    } else if metadata.len() > cap {
        Err(Unread::TooLarge(metadata.len(), cap))
    } else {
        Ok(())
    }
}

/// Opens `path` for reading with `O_NONBLOCK`, which only changes how a FIFO or a
/// device opens: at once, instead of waiting for a writer; with [`Links::Refuse`],
/// `O_NOFOLLOW` too (a link put in the file's place fails the open).
#[cfg(unix)]
fn open_without_blocking(path: &Path, links: Links) -> std::io::Result<fs::File> {
    use rustix::fs::{Mode, OFlags};
    let mut flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC;
    if links == Links::Refuse {
        flags |= OFlags::NOFOLLOW;
    }
    Ok(fs::File::from(rustix::fs::open(
        path,
        flags,
        Mode::empty(),
    )?))
}

#[cfg(not(unix))]
fn open_without_blocking(path: &Path, _links: Links) -> std::io::Result<fs::File> {
    fs::File::open(path)
}

/// What a file that is not a regular one is, in words.
fn kind_of(kind: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO (named pipe)";
        } else if kind.is_socket() {
            return "a socket";
        } else if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
    }
    if kind.is_dir() {
        "a folder"
    } else {
        "something else"
    }
}

/// A `.case` entry (or what a link leads to) that is not a regular file.
fn not_regular(path: &Path, kind: fs::FileType) -> Diagnostic {
    Diagnostic::new(
        codes::IO,
        format!("{}, not a regular file: not read", kind_of(kind)),
    )
    .at_path(display(path))
    .help("sources are regular files: reading a FIFO or a device could block or never end")
}

/// Whether `path`, found in the folder of `case_file` (a file of a suite), is in that
/// suite: not a symbolic link, or one whose real path lies under the suite's root (the
/// rule of the folder walk). A dangling link is in: reading it reports it.
pub fn inside_suite_of(case_file: &Path, path: &Path) -> bool {
    if !fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return true;
    }
    let Ok(real) = fs::canonicalize(path) else {
        return true;
    };
    suite_root_of(case_file)
        .and_then(|root| fs::canonicalize(root).ok())
        .is_some_and(|root| real.starts_with(root))
}

/// A symbolic link in a suite whose real path lies outside the suite folder.
pub fn outside_root(link: &Path, to_folder: bool) -> Diagnostic {
    let what = if to_folder { "folder" } else { "file" };
    Diagnostic::new(
        codes::IO,
        format!("symbolic link to a {what} outside the suite folder: not read"),
    )
    .at_path(display(link))
    .help(format!(
        "casec reads only what lies inside the folder it checks: copy the {what} into the suite, or check it where it lies"
    ))
}

fn file_too_large(path: &Path, size: u64, cap: u64) -> Diagnostic {
    let help = match cap {
        MAX_FILE_BYTES => {
            "split it into several files of the suite (cases go in files of their own)"
        }
        _ => "split the suite it holds into several suites",
    };
    // A size just past the cap is only as much as a capped read took.
    let holds = match size > cap.saturating_add(1) {
        true => format!("holds {}, more than", bytes_in_words(size)),
        false => "holds more than".to_string(),
    };
    Diagnostic::new(
        codes::LIMIT,
        format!(
            "this file {holds} the {} casec reads of one file: not read",
            bytes_in_words(cap)
        ),
    )
    .at_path(display(path))
    .help(help)
}

/// The suite's files hold `total` bytes, more than [`MAX_SUITE_BYTES`]; `path` is the
/// file at which they pass it.
fn suite_too_large(path: &Path, total: u64) -> Diagnostic {
    Diagnostic::new(
        codes::LIMIT,
        format!(
            "the suite's files hold {}, more than the {} casec reads of one suite: none was read",
            bytes_in_words(total),
            bytes_in_words(MAX_SUITE_BYTES)
        ),
    )
    .at_path(display(path))
    .help("the suite passes the limit at this file: split the suite into several suites")
}

/// A size as people read it: `12 bytes`, `3.5 MiB`, `1 GiB`.
fn bytes_in_words(bytes: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (unit, name) in UNITS {
        if bytes >= unit {
            let value = bytes as f64 / unit as f64;
            return match bytes % unit {
                0 => format!("{} {name}", bytes / unit),
                _ => format!("{value:.1} {name}"),
            };
        }
    }
    format!("{bytes} bytes")
}

pub fn io_error(path: &Path, what: &str, error: &std::io::Error) -> Diagnostic {
    Diagnostic::new(codes::IO, format!("{what}: {error}"))
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

/// In-memory `(name, text)` pairs as sources, sorted by name; `suite.case` is the
/// suite file.
pub fn named_sources<N: AsRef<str>, T: AsRef<str>>(
    sources: impl IntoIterator<Item = (N, T)>,
) -> Vec<Source> {
    let mut sources: Vec<Source> = sources
        .into_iter()
        .map(|(name, text)| {
            let name = name.as_ref().to_string();
            let role = if name == SUITE_FILE {
                Role::SuiteFile
            } else {
                Role::Member
            };
            Source {
                name,
                text: text.as_ref().into(),
                role,
                disk: None,
            }
        })
        .collect();
    sources.sort_by(|a, b| a.name.cmp(&b.name));
    sources
}
