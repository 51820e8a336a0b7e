//! `casec bundle [SUITE] -o DIR [--jsonl FILE]`: the blinded model bundles.
//!
//! Both outputs may be asked for in one run; they are then written all or nothing:
//! the JSON Lines file is staged beside its target, the folder is written atomically,
//! and only then is the staged file renamed into place. If a step fails, what this
//! run already wrote is removed. `--jsonl -` writes the lines to standard output.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use super::{
    output, report, report_to_stderr, write_folder_atomically, Format, Report, EXIT_ERRORS, EXIT_OK,
};
use crate::diag::{codes, Diagnostic};
use crate::load;
use crate::lower::bundle::BundleSet;
use crate::source::SourceDb;
use crate::Compilation;

/// Where the bundles go: a folder, a JSON Lines file (`-` for stdout), or both.
#[derive(Clone, Copy, Debug)]
pub struct Outputs<'a> {
    pub folder: Option<&'a Path>,
    pub jsonl: Option<&'a Path>,
}

pub fn bundle(suite: &Path, outputs: Outputs, options: Report) -> u8 {
    let compilation = Compilation::from_dir(&super::suite_folder(suite));
    let mut diagnostics = compilation.diagnostics.clone();
    let built = compilation.bundles();
    if let Some(Err(stopped)) = &built {
        diagnostics.extend(stopped.iter().cloned());
    }
    let code = report_to_stderr(&compilation.db, &diagnostics, options);
    let code = match &built {
        Some(Ok(set)) if code == EXIT_OK => write(set, outputs, &compilation.db, options),
        _ => code.max(EXIT_ERRORS),
    };
    super::leave_to_exit((built, compilation));
    code
}

fn write(set: &BundleSet, outputs: Outputs, db: &SourceDb, options: Report) -> u8 {
    match write_all(set, outputs, db) {
        Ok(()) => {
            if options.format == Format::Human {
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
        Err((path, e)) if output::is_stdout(path) => report(
            &SourceDb::new(),
            &[output::write_error(None, &e)],
            0,
            options,
        ),
        Err((path, e)) => {
            let d = Diagnostic::error(codes::IO, format!("cannot write the bundles: {e}"))
                .at_path(load::display(path))
                .help("choose a new or empty output folder and a writable JSON Lines path; nothing was written");
            report(&SourceDb::new(), &[d], 0, options)
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
    let staged = match file {
        Some(path) => {
            Some(output::stage(path, |w| w.write_all(jsonl.as_bytes())).map_err(|e| (path, e))?)
        }
        None => None,
    };
    if let Some(folder) = outputs.folder {
        let existed = folder.is_dir();
        write_folder_atomically(folder, &set.files()).map_err(|e| (folder, e))?;
        if let (Some(staged), Some(path)) = (staged, file) {
            staged.commit().map_err(|e| {
                remove_written_folder(folder, existed);
                (path, e)
            })?;
        }
    } else if let (Some(staged), Some(path)) = (staged, file) {
        staged.commit().map_err(|e| (path, e))?;
    }
    match outputs.jsonl.filter(|p| output::is_stdout(p)) {
        Some(path) => output::print(jsonl.as_bytes()).map_err(|e| (path, e)),
        None => Ok(()),
    }
}

/// Undoes a folder this run created: it was absent or empty before.
fn remove_written_folder(folder: &Path, existed: bool) {
    let _ = fs::remove_dir_all(folder);
    if existed {
        let _ = fs::create_dir(folder);
    }
}
