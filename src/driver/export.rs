//! `casec export SUITE --format NAME -o OUT`: another benchmark's format, as the
//! suite's shape declares it (`export NAME jsonl|folders { … }`).

use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;

use crate::diag::{codes, Diagnostic};
use crate::load;
use crate::lower::export::{export, export_names, Exported};
use crate::model::shape::{ExportFormat, FileContent, TurnEntry};
use crate::model::Suite;
use crate::runtime::observed::{file_name, rows};
use crate::runtime::trace::TraceEvent;
use crate::runtime::trace_files::{observed, unknown_cases};
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

/// The rows of a `turns` export: each turn of the suite's observed conversations
/// (`observed/*.trace.jsonl`), laid out by `entries`. A conversation whose file is not
/// named by its episode (the name an import gives it), or a turn citing a case the
/// suite does not have, is an `export` error: the rows would not import back, or would
/// link a turn to no task.
fn observed_rows(
    model: &Suite,
    entries: &[TurnEntry],
    suite: &Path,
    db: &mut SourceDb,
) -> Result<Exported, Vec<Diagnostic>> {
    let root = model
        .root
        .clone()
        .or_else(|| load::suite_root_of(suite))
        .unwrap_or_else(|| suite.to_path_buf());
    let conversations = observed(db, &root)?;
    let mut text = String::new();
    let mut diags = Vec::new();
    for observed in &conversations {
        let name = &observed.name;
        let error = |message: String, help: &str| {
            Diagnostic::new(
                codes::EXPORT,
                format!("observed conversation `{name}`: {message}"),
            )
            .primary(
                crate::source::Span::new(observed.file, 0..0),
                "in this trace",
            )
            .help(help.to_string())
        };
        if let Some(TraceEvent::Episode(episode)) = observed.events.first() {
            match file_name(&episode.id) {
                Ok(named) if &named == name => {}
                Ok(named) => diags.push(error(
                    format!(
                        "its episode {} is written `{named}.trace.jsonl`",
                        episode.id
                    ),
                    "name the file by its episode id, as `casec import` does",
                )),
                Err(why) => diags.push(error(why, "give the episode an id that can name its file")),
            }
        }
        match rows(entries, &observed.events) {
            Ok(rows) => text.push_str(&rows),
            Err(why) => diags.push(error(why, "see docs/people.md#observed-conversations")),
        }
        diags.extend(unknown_cases(model, observed));
    }
    if diags.is_empty() {
        Ok(Exported::Lines(text))
    } else {
        Err(diags)
    }
}

/// Writes the export `format` of the suite at `suite`: JSON Lines to `output` (a file;
/// standard output without one), folders into `output` (a new or empty folder).
pub fn export_suite(suite: &Path, format: &str, output: Option<&Path>, reporter: &Reporter) -> u8 {
    let mut compilation = match compile_suite(suite, Depth::Check, reporter) {
        Ok(compilation) => compilation,
        Err(code) => return code,
    };
    let Some(model) = compilation.suite.as_ref() else {
        return EXIT_USAGE;
    };
    let turns = model.shape.exports.iter().find_map(|e| match &e.format {
        ExportFormat::Turns(entries) if e.name.as_str() == format => Some(entries),
        _ => None,
    });
    let files = evaluator_files(model, format, suite, &compilation.db);
    let result = match turns {
        Some(entries) => Some(observed_rows(model, entries, suite, &mut compilation.db)),
        None => export(model, format, &files),
    };
    let Some(result) = result else {
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
