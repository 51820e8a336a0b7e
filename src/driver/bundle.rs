//! `casec bundle [SUITE] -o DIR [--jsonl FILE]`: the blinded model bundles.
//!
//! Both outputs may be asked for in one run; they are then written all or nothing, as
//! far as two renames can be: both are written under temporary names beside their
//! targets, then the JSON Lines file is renamed into place (the file it replaces kept
//! open), and the folder last. If the folder cannot be put in place, the replaced
//! file's text is put back. The folder comes last because it is the output a reader
//! can tell is new (it was absent or empty): whatever happens, even a kill between the
//! renames, once the run's folder is in place its JSON Lines file is too. `--jsonl -`
//! writes the lines to standard output.

use std::io::{self, Write};
use std::path::Path;

use super::output::{Pending, PendingFolder};
use super::{output, Format, Reporter, EXIT_ERRORS, EXIT_OK};
use crate::diag::{codes, Diagnostic};
use crate::load;
use crate::lower::bundle::BundleSet;
use crate::source::SourceDb;
use crate::{Compilation, Sources};

/// Where the bundles go: a folder, a JSON Lines file (`-` for stdout), or both.
#[derive(Clone, Copy, Debug)]
pub struct Outputs<'a> {
    pub folder: Option<&'a Path>,
    pub jsonl: Option<&'a Path>,
}

pub fn bundle(suite: &Path, outputs: Outputs, reporter: &Reporter) -> u8 {
    let compilation = Compilation::new(Sources::Folder(&super::suite_folder(suite)));
    let mut diagnostics = compilation.diagnostics.clone();
    let built = compilation.bundles();
    if let Some(Err(stopped)) = &built {
        diagnostics.extend(stopped.iter().cloned());
    }
    let code = reporter.report_compiled(&compilation.db, &diagnostics);
    let code = match &built {
        Some(Ok(set)) if code == EXIT_OK => write(set, outputs, &compilation.db, reporter),
        _ => code.max(EXIT_ERRORS),
    };
    super::leave_to_exit((built, compilation));
    code
}

fn write(set: &BundleSet, outputs: Outputs, db: &SourceDb, reporter: &Reporter) -> u8 {
    match write_all(set, outputs, db) {
        Ok(()) => {
            if reporter.options.format == Format::Human {
                let targets: Vec<String> = [outputs.folder, outputs.jsonl]
                    .into_iter()
                    .flatten()
                    .map(|p| {
                        if output::is_stdout(p) {
                            "standard output".to_string()
                        } else {
                            load::display(p)
                        }
                    })
                    .collect();
                let _ = writeln!(
                    io::stderr(),
                    "casec bundle: wrote {} bundles to {}",
                    set.bundles.len(),
                    targets.join(" and ")
                );
            }
            EXIT_OK
        }
        Err((path, e)) if output::is_stdout(path) => {
            reporter.report(&SourceDb::new(), &[output::write_error(None, &e)], 0)
        }
        Err((path, e)) => {
            let d = Diagnostic::new(codes::IO, format!("cannot write the bundles: {e}"))
                .at_path(load::display(path))
                .help("choose a new or empty output folder and a writable JSON Lines path; nothing was written");
            reporter.report(&SourceDb::new(), &[d], 0)
        }
    }
}

/// Writes every asked-for output, or none; the error names the path that failed.
fn write_all<'a>(
    set: &BundleSet,
    outputs: Outputs<'a>,
    db: &SourceDb,
) -> Result<(), (&'a Path, io::Error)> {
    let jsonl = set.jsonl();
    let file = outputs.jsonl.filter(|p| !output::is_stdout(p));
    if let Some(path) = file {
        output::refuse_input(path, db, &[]).map_err(|d| (path, io::Error::other(d.message)))?;
    }
    let staged_file = match file {
        Some(path) => Some((
            path,
            output::stage(path, |w| w.write_all(jsonl.as_bytes())).map_err(|e| (path, e))?,
        )),
        None => None,
    };
    let staged_folder = match outputs.folder {
        Some(folder) => Some((
            folder,
            output::stage_folder(folder, &set.files()).map_err(|e| (folder, e))?,
        )),
        None => None,
    };
    match (staged_file, staged_folder) {
        (Some((path, file)), Some((folder, staged))) => {
            commit_pair(file, staged).map_err(|(output, e)| match output {
                Which::File => (path, e),
                Which::Folder => (folder, e),
            })?;
        }
        (Some((path, file)), None) => file.commit().map_err(|e| (path, e))?,
        (None, Some((folder, staged))) => staged.commit().map_err(|e| (folder, e))?,
        (None, None) => {}
    }
    match outputs.jsonl.filter(|p| output::is_stdout(p)) {
        Some(path) => output::print(jsonl.as_bytes()).map_err(|e| (path, e)),
        None => Ok(()),
    }
}

/// Which of the two outputs failed.
#[derive(Debug, PartialEq, Eq)]
enum Which {
    File,
    Folder,
}

/// Puts the staged JSON Lines file and then the staged folder in place; if the folder
/// cannot be, the file is put back as it was (see the module's comment).
fn commit_pair(file: Pending, folder: PendingFolder) -> Result<(), (Which, io::Error)> {
    let replaced = file
        .commit_keeping_previous()
        .map_err(|e| (Which::File, e))?;
    folder.commit().map_err(|e| {
        let e = match replaced.undo() {
            Ok(()) => e,
            Err(undo) => io::Error::new(
                e.kind(),
                format!(
                    "{e}; and the JSON Lines file this run wrote could not be taken back: {undo}"
                ),
            ),
        };
        (Which::Folder, e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// The names in `dir`, sorted (temporary files included).
    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// A JSON Lines file and a folder staged in `dir`, the file over `previous` (none:
    /// no file before).
    fn staged(dir: &Path, previous: Option<&str>) -> (Pending, PendingFolder) {
        if let Some(previous) = previous {
            fs::write(dir.join("bundles.jsonl"), previous).unwrap();
        }
        let file = output::stage(&dir.join("bundles.jsonl"), |w| w.write_all(b"new\n")).unwrap();
        let files = [("A.json".to_string(), b"{}".to_vec())];
        let folder = output::stage_folder(&dir.join("bundles"), &files).unwrap();
        (file, folder)
    }

    #[test]
    fn the_pair_is_put_in_place_and_nothing_else_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let (file, folder) = staged(dir.path(), Some("old\n"));
        commit_pair(file, folder).unwrap();
        assert_eq!(names(dir.path()), ["bundles", "bundles.jsonl"]);
        assert_eq!(names(&dir.path().join("bundles")), ["A.json"]);
        let jsonl = fs::read_to_string(dir.path().join("bundles.jsonl")).unwrap();
        assert_eq!(jsonl, "new\n");
    }

    /// An injected failure of the last rename: the folder is taken by another writer
    /// after it was staged. The JSON Lines file is put back as it was.
    #[test]
    fn a_folder_that_cannot_be_put_in_place_puts_the_replaced_file_back() {
        for previous in [Some("old\n"), None] {
            let dir = tempfile::tempdir().unwrap();
            let (file, folder) = staged(dir.path(), previous);
            fs::create_dir(dir.path().join("bundles")).unwrap();
            fs::write(dir.path().join("bundles/theirs.txt"), "theirs").unwrap();
            let (failed, _) = commit_pair(file, folder).unwrap_err();
            assert_eq!(failed, Which::Folder);
            let jsonl = fs::read_to_string(dir.path().join("bundles.jsonl")).ok();
            assert_eq!(jsonl.as_deref(), previous);
            let expected: &[&str] = match previous {
                Some(_) => &["bundles", "bundles.jsonl"],
                None => &["bundles"],
            };
            assert_eq!(names(dir.path()), expected);
            assert_eq!(names(&dir.path().join("bundles")), ["theirs.txt"]);
        }
    }
}
