//! `casec report RESULT… [--suite DIR]`: the suite's required reporting over result
//! records, as one JSON document; and `casec schema [SUITE]`, the JSON Schema of those
//! records.

use std::path::{Path, PathBuf};

use crate::lower::record_schema::{record_schema as schema_of, Record};
use crate::runtime::report::{duplicates, read_records, report as aggregate};
use crate::Compilation;

use super::{
    read_given, report_to_stderr, suite_folder, write_output, Report, EXIT_ERRORS, EXIT_OK,
};

pub fn report_results(
    results: &[PathBuf],
    suite: &Path,
    output: Option<&Path>,
    options: Report,
) -> u8 {
    let mut compilation = Compilation::from_dir(&suite_folder(suite));
    let mut diagnostics = compilation.diagnostics.clone();
    let Some(model) = compilation
        .suite
        .take()
        .filter(|_| !compilation.has_errors())
    else {
        return report_to_stderr(&compilation.db, &diagnostics, options).max(EXIT_ERRORS);
    };
    let mut records = Vec::new();
    for path in results {
        let Some((file, text)) = read_given(
            path,
            "the result record",
            "give the paths of result records written by `casec replay`",
            &mut compilation.db,
            &mut diagnostics,
        ) else {
            continue;
        };
        match read_records(file, &text, &model) {
            Ok(found) => records.extend(found),
            Err(found) => diagnostics.extend(found),
        }
    }
    diagnostics.extend(duplicates(&records));
    let code = report_to_stderr(&compilation.db, &diagnostics, options);
    if code != EXIT_OK {
        return code;
    }
    let mut text = serde_json::to_string_pretty(&aggregate(&model, &records)).unwrap_or_default();
    text.push('\n');
    let inputs: Vec<&Path> = results.iter().map(PathBuf::as_path).collect();
    write_output(
        output,
        (&compilation.db, &inputs),
        |w| w.write_all(text.as_bytes()),
        options,
    )
}

/// `casec schema [SUITE] [--record result|judged] [-o FILE]`.
pub fn record_schema(suite: &Path, record: Record, output: Option<&Path>, options: Report) -> u8 {
    let compilation = Compilation::from_dir(&suite_folder(suite));
    let Some(model) = compilation
        .suite
        .as_ref()
        .filter(|_| !compilation.has_errors())
    else {
        return report_to_stderr(&compilation.db, &compilation.diagnostics, options)
            .max(EXIT_ERRORS);
    };
    let code = report_to_stderr(&compilation.db, &compilation.diagnostics, options);
    let mut text = serde_json::to_string_pretty(&schema_of(model, record)).unwrap_or_default();
    text.push('\n');
    let written = write_output(
        output,
        (&compilation.db, &[]),
        |out| out.write_all(text.as_bytes()),
        options,
    );
    code.max(written)
}
