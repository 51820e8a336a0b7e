//! Writing outputs without harming what sits at the output path.
//!
//! A regular file is replaced atomically: written under a temporary name beside it
//! (`.NAME.casec-tmp-PID`), then renamed over it, so a reader sees the old file or the
//! new one, never a part. What the rename would destroy is kept instead:
//!
//! * a symbolic link is followed: its target is written, the link stays a link;
//! * a file that is not regular (a FIFO, a device such as `/dev/full`) is written
//!   straight into, since it cannot be replaced — renaming over it would put a regular
//!   file in its place;
//! * the mode of a replaced file is kept (a master readable by its owner only stays
//!   so), and the temporary file is never more readable than the file it replaces;
//! * `-` is standard output.
//!
//! Temporary files of a run that was killed are removed the next time casec writes in
//! their folder, once their process is gone (and they have been untouched for a
//! minute; on Linux, where `/proc` tells). An output that is one of the run's inputs
//! (`build S -o S/suite.case`) is refused before anything is written.

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::diag::{codes, Diagnostic};
use crate::load;
use crate::source::{DiskId, Origin, SourceDb};
use crate::temp_files::{remove_stale_temps, temp_name};

/// How many symbolic links are followed before a path counts as a loop (Linux's limit).
const MAX_LINKS: usize = 40;

/// Whether a path names standard output.
pub fn is_stdout(path: &Path) -> bool {
    path == Path::new("-")
}

/// Writes `bytes` to standard output. A reader that stopped early (`casec stats |
/// head`) is not an error; any other failure (a full device) is.
pub fn print(bytes: &[u8]) -> io::Result<()> {
    let mut out = io::stdout().lock();
    ignore_broken_pipe(out.write_all(bytes).and_then(|()| out.flush()))
}

pub(crate) fn ignore_broken_pipe(result: io::Result<()>) -> io::Result<()> {
    match result {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// The diagnostic for an output that could not be written.
pub fn write_error(path: Option<&Path>, e: &io::Error) -> Diagnostic {
    match path.filter(|p| !is_stdout(p)) {
        Some(path) => Diagnostic::new(codes::IO, format!("cannot write output: {e}"))
            .at_path(load::display(path))
            .help("check that the folder exists and is writable and that the device has space"),
        None => Diagnostic::new(codes::IO, format!("cannot write standard output: {e}"))
            .at_path("<stdout>")
            .help("the output is incomplete: send standard output to a file or device with space"),
    }
}

/// The path a write to `path` lands on: the end of its chain of symbolic links (which
/// need not exist yet), else `path` itself.
pub fn resolve(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = fs::read_link(&current)?;
                current = load::parent_or_dot(&current).join(link);
            }
            _ => return Ok(current),
        }
    }
    Err(io::Error::other(format!(
        "more than {MAX_LINKS} symbolic links: a loop"
    )))
}

/// A file being written for an output: under a temporary name beside its target until
/// [`Pending::commit`] renames it into place, or (for a target that is not a regular
/// file) already written straight into it. Dropped uncommitted, its temporary file is
/// removed and the target is left as it was.
pub struct Pending {
    target: PathBuf,
    tmp: Option<PathBuf>,
}

impl Pending {
    /// Renames the temporary file over the target.
    pub fn commit(mut self) -> io::Result<()> {
        match self.tmp.take() {
            Some(tmp) => fs::rename(&tmp, &self.target).inspect_err(|_| {
                let _ = fs::remove_file(&tmp);
            }),
            None => Ok(()),
        }
    }

    /// Renames the temporary file over the target like [`Pending::commit`], keeping the
    /// file it replaces open, so that [`Replaced::undo`] can put its text back: the first
    /// of two outputs that must appear together.
    pub fn commit_keeping_previous(mut self) -> io::Result<Replaced> {
        let Some(tmp) = self.tmp.take() else {
            return Ok(Replaced {
                target: self.target.clone(),
                previous: Previous::WrittenThrough,
            });
        };
        // Opened before the rename, the replaced file stays readable after it.
        let previous = match fs::symlink_metadata(&self.target) {
            Ok(meta) if meta.is_file() => File::open(&self.target).map(Previous::Open),
            _ => Ok(Previous::Absent),
        };
        let renamed = previous.and_then(|previous| {
            fs::rename(&tmp, &self.target)?;
            Ok(previous)
        });
        match renamed {
            Ok(previous) => Ok(Replaced {
                target: self.target.clone(),
                previous,
            }),
            Err(e) => {
                let _ = fs::remove_file(&tmp);
                Err(e)
            }
        }
    }

    /// The path the output lands on.
    pub fn target(&self) -> &Path {
        &self.target
    }
}

/// A file [`Pending::commit_keeping_previous`] put in place, and what it replaced.
/// Dropped, the replaced file is gone for good.
pub struct Replaced {
    target: PathBuf,
    previous: Previous,
}

enum Previous {
    /// The replaced file, still open (its text readable though its name is gone).
    Open(File),
    /// There was no file.
    Absent,
    /// The output was written straight into a FIFO or a device.
    WrittenThrough,
}

impl Replaced {
    /// Puts the replaced file's text back (atomically, with its mode), or removes the
    /// new file where there was none.
    pub fn undo(self) -> io::Result<()> {
        match self.previous {
            Previous::Open(mut file) => {
                write_atomically_with(&self.target, |w| io::copy(&mut file, w).map(|_| ()))
            }
            Previous::Absent => fs::remove_file(&self.target),
            Previous::WrittenThrough => Err(io::Error::other(
                "it was written straight into a FIFO or a device and cannot be taken back",
            )),
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            let _ = fs::remove_file(tmp);
        }
    }
}

/// Runs `write` into a new output for `path` (see [`Pending`]).
pub fn stage(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<Pending> {
    let target = resolve(path)?;
    let existing = match fs::metadata(&target) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    match existing {
        Some(meta) if meta.is_dir() => Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "the output is a folder",
        )),
        Some(meta) if !meta.is_file() => {
            // A FIFO or a device: opened as it is, never truncated or replaced.
            let file = OpenOptions::new().write(true).open(&target)?;
            write_through(file, write)?;
            Ok(Pending { target, tmp: None })
        }
        existing => {
            parent_exists(&target)?;
            let tmp = temp_beside(&target)?;
            let file = create_temp(&tmp, existing.as_ref())?;
            let pending = Pending {
                target,
                tmp: Some(tmp),
            };
            write_through(file, write)?;
            Ok(pending)
        }
    }
}

/// How much of an output file is gathered before each write to it.
const OUTPUT_BUFFER_BYTES: usize = 1 << 20;

fn write_through(
    file: File,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    // A master is tens of megabytes: written a megabyte at a time, not 8 KiB.
    let mut out = io::BufWriter::with_capacity(OUTPUT_BUFFER_BYTES, file);
    write(&mut out)?;
    out.flush()
}

/// Writes `bytes` as the file `path` (see [`stage`]).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomically_with(path, |w| w.write_all(bytes))
}

/// Runs `write` into the file `path`: atomically for a regular file; on any error a
/// regular file is left as it was.
pub fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    stage(path, write)?.commit()
}

/// Writes `files` (relative path, bytes) as the folder `dir`, atomically: into a
/// temporary sibling folder first, renamed to `dir` at the end. `dir` (or the folder a
/// link at `dir` leads to) must be absent or empty.
pub fn write_folder_atomically(dir: &Path, files: &[(String, Vec<u8>)]) -> io::Result<()> {
    stage_folder(dir, files)?.commit()
}

/// A folder being written for an output: under a temporary name beside its target
/// until [`PendingFolder::commit`] renames it into place. Dropped uncommitted, the
/// temporary folder is removed and the target is left as it was.
pub struct PendingFolder {
    target: PathBuf,
    tmp: Option<PathBuf>,
}

impl PendingFolder {
    /// Renames the temporary folder to the target, which must still be absent or empty.
    pub fn commit(mut self) -> io::Result<()> {
        let Some(tmp) = self.tmp.take() else {
            return Ok(());
        };
        let put = || -> io::Result<()> {
            if self.target.exists() {
                fs::remove_dir(&self.target)?;
            }
            fs::rename(&tmp, &self.target)
        };
        put().inspect_err(|_| {
            let _ = fs::remove_dir_all(&tmp);
        })
    }
}

impl Drop for PendingFolder {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            let _ = fs::remove_dir_all(tmp);
        }
    }
}

/// Writes `files` (relative path, bytes) into a new temporary folder beside `dir` (see
/// [`PendingFolder`]); `dir` (or the folder a link at `dir` leads to) must be absent or
/// empty.
pub fn stage_folder(dir: &Path, files: &[(String, Vec<u8>)]) -> io::Result<PendingFolder> {
    let dir = resolve(dir)?;
    if dir.exists() {
        let empty = dir.is_dir() && fs::read_dir(&dir)?.next().is_none();
        if !empty {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "the output folder exists and is not empty",
            ));
        }
    }
    parent_exists(&dir)?;
    let tmp = temp_beside(&dir)?;
    fs::create_dir(&tmp)?;
    let pending = PendingFolder {
        target: dir,
        tmp: Some(tmp.clone()),
    };
    for (path, bytes) in files {
        let target = tmp.join(path);
        if let Some(p) = target.parent() {
            fs::create_dir_all(p)?;
        }
        fs::write(target, bytes)?;
    }
    Ok(pending)
}

/// An output goes into an existing folder: casec creates no folders above it, so that
/// a mistyped path leaves nothing behind.
fn parent_exists(target: &Path) -> io::Result<()> {
    let parent = load::parent_or_dot(target);
    if parent.is_dir() {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::NotFound,
        format!(
            "the folder {} does not exist (create it first)",
            parent.display()
        ),
    ))
}

/// A hidden temporary path beside `target`, where an output is written before it is
/// renamed into place (a rename within one folder is atomic). Stale temporary files in
/// that folder are removed first.
pub(crate) fn temp_beside(target: &Path) -> io::Result<PathBuf> {
    let dir = load::parent_or_dot(target);
    let name = target
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file or folder path"))?
        .to_string_lossy();
    remove_stale_temps(dir);
    Ok(dir.join(temp_name(prefix(&name, MAX_TEMP_STEM))))
}

/// The longest part of a target's name a temporary name repeats, so that the
/// temporary name of a file with a name of the longest length a file system allows
/// (255 bytes) is not too long itself.
const MAX_TEMP_STEM: usize = 200;

/// The longest prefix of `s` of at most `max` bytes.
fn prefix(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Creates the temporary file: with the mode of the file it will replace, else with
/// the usual mode of a new file.
fn create_temp(tmp: &Path, replaces: Option<&Metadata>) -> io::Result<File> {
    let open = || {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        private_while_written(&mut options, replaces);
        options.open(tmp)
    };
    let file = match open() {
        // Left by an earlier process that had this PID: no live writer owns it.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            fs::remove_file(tmp)?;
            open()?
        }
        other => other?,
    };
    if let Some(meta) = replaces {
        file.set_permissions(meta.permissions())?;
    }
    Ok(file)
}

/// A temporary file that will replace another is readable by its owner only until it
/// gets that file's mode.
#[cfg(unix)]
fn private_while_written(options: &mut OpenOptions, replaces: Option<&Metadata>) {
    use std::os::unix::fs::OpenOptionsExt;
    if replaces.is_some() {
        options.mode(0o600);
    }
}

#[cfg(not(unix))]
fn private_while_written(_: &mut OpenOptions, _: Option<&Metadata>) {}

/// Refuses an output path that is one of the run's inputs: the user files of `db`
/// (the suite's sources, a trace, result records) or `more`. Only an existing output
/// can be an input, so nothing is looked up for a new one.
pub fn refuse_input(output: &Path, db: &SourceDb, more: &[&Path]) -> Result<(), Diagnostic> {
    if is_stdout(output) {
        return Ok(());
    }
    let Ok(written) = fs::metadata(output) else {
        return Ok(());
    };
    let written_id = DiskId::of(&written);
    // An input read from disk is known by the identity taken as it was read; the
    // others are looked up by path.
    let is_written = |input: &(PathBuf, Option<DiskId>)| match (input.1, written_id) {
        (Some(read), Some(written)) => read == written,
        _ => fs::metadata(&input.0).is_ok_and(|read| same_file(&written, &read)),
    };
    let inputs = db
        .files()
        .filter(|(_, f)| f.origin == Origin::User)
        .map(|(_, f)| (PathBuf::from(&f.name), f.disk))
        .chain(more.iter().map(|p| (p.to_path_buf(), None)));
    for input in inputs {
        if is_written(&input) {
            let input = input.0;
            return Err(Diagnostic::new(
                codes::IO,
                format!(
                    "the output is an input of this run (`{}`): writing it would destroy it",
                    load::display(&input)
                ),
            )
            .at_path(load::display(output))
            .help("choose an output path outside the suite's sources and inputs"));
        }
    }
    Ok(())
}

#[cfg(unix)]
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    DiskId::of(a) == DiskId::of(b)
}

#[cfg(not(unix))]
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok()
}
