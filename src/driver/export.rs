//! `casec export SUITE --format NAME -o OUT`: another benchmark's format, as the
//! suite's shape declares it (`export NAME jsonl|folders { … }`).

use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;

use crate::diag::{codes, Diagnostic};
use crate::load;
use crate::lower::export::{export, export_names, Exported};
use crate::model::shape::{ExportFormat, FileContent};
use crate::model::Suite;
use crate::source::{Origin, SourceDb};
use crate::Depth;

use super::{
    compile_suite, write_folder_atomically, write_output, Format, Reporter, EXIT_OK, EXIT_USAGE,
};

/// The suite's files, by their path in its folder, when the export `format` writes an
/// evaluator (which carries them); none otherwise. They are the texts the compilation
/// read, so the evaluator grades with exactly the suite that was exported.
fn evaluator_files(
    model: &Suite,
    format: &str,
    root: &Path,
    db: &SourceDb,
) -> Vec<(String, Arc<str>)> {
    let writes_evaluator = model.shape.exports.iter().any(|e| {
        e.name.as_str() == format
            && matches!(&e.format, ExportFormat::Folders(files)
                if files.iter().any(|f| matches!(f.content, FileContent::Evaluator { .. })))
    });
    if !writes_evaluator {
        return Vec::new();
    }
    // A suite file is named by its path as `load::display` writes it: the root's, then
    // its path in the folder (the root `.` is not written).
    let root = load::display(root);
    let root = root.trim_end_matches('/');
    let prefix = if root == "." || root.is_empty() {
        String::new()
    } else {
        format!("{root}/")
    };
    db.files()
        .filter(|(_, file)| file.origin == Origin::User)
        .filter_map(|(_, file)| {
            let relative = file.name.strip_prefix(prefix.as_str())?;
            Some((relative.to_string(), Arc::clone(&file.text)))
        })
        .collect()
}

/// Writes the export `format` of the suite at `suite`: JSON Lines to `output` (a file;
/// standard output without one), folders into `output` (a new or empty folder).
pub fn export_suite(suite: &Path, format: &str, output: Option<&Path>, reporter: &Reporter) -> u8 {
    let compilation = match compile_suite(suite, Depth::Check, reporter) {
        Ok(compilation) => compilation,
        Err(code) => return code,
    };
    let Some(model) = compilation.suite.as_ref() else {
        return EXIT_USAGE;
    };
    let files = evaluator_files(model, format, suite, &compilation.db);
    let Some(result) = export(model, format, &files) else {
        let names = export_names(model);
        let known = if names.is_empty() {
            format!(
                "its shape `{}` declares no export",
                model.shape.name.as_str()
            )
        } else {
            format!(
                "its shape `{}` declares: {}",
                model.shape.name.as_str(),
                names.join(", ")
            )
        };
        let _ = writeln!(
            io::stderr(),
            "casec export: the suite has no export `{format}`: {known}"
        );
        return EXIT_USAGE;
    };
    let exported = match result {
        Ok(exported) => exported,
        Err(diags) => return reporter.report_compiled(&compilation.db, &diags),
    };
    let (written, code) = match &exported {
        Exported::Lines(text) => {
            let code = write_output(
                output,
                (&compilation.db, &[]),
                |w| w.write_all(text.as_bytes()),
                reporter,
            );
            (text.lines().count(), code)
        }
        Exported::Folders(files) => {
            let Some(output) = output else {
                let _ = writeln!(io::stderr(), "casec export: `{format}` writes folders: give the folder to create with -o DIR");
                return EXIT_USAGE;
            };
            if let Err(e) = write_folder_atomically(output, files) {
                let d = Diagnostic::new(codes::IO, format!("cannot write the export folder: {e}"))
                    .at_path(load::display(output))
                    .help("choose a new or empty output folder");
                return reporter.report(&compilation.db, &[d], 0);
            }
            (model.cases.len(), EXIT_OK)
        }
    };
    if code == EXIT_OK && reporter.options.format == Format::Human {
        if let Some(output) = output {
            let unit = match exported {
                Exported::Lines(_) => "line(s)",
                Exported::Folders(_) => "task folder(s)",
            };
            let _ = writeln!(
                io::stderr(),
                "casec export: wrote {written} {unit} of `{format}` to {}",
                load::display(output)
            );
        }
    }
    code
}
