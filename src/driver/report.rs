//! `casec report RESULT… [--suite DIR]`: the suite's required reporting over result
//! records, as one JSON document; and `casec schema [SUITE]`, the JSON Schema of those
//! records.

use std::path::{Path, PathBuf};

use crate::lower::record_schema::{record_schema as schema_of, Record};
use crate::runtime::report::{duplicates, read_records, report as aggregate};

use super::{clean_suite, read_given, report_to_stderr, write_output, Report, EXIT_OK};

pub fn report_results(
    results: &[PathBuf],
    suite: &Path,
    output: Option<&Path>,
    options: Report,
) -> u8 {
    let (mut db, model, mut diagnostics) = match clean_suite(suite, options) {
        Ok(clean) => clean,
        Err(code) => return code,
    };
    let mut records = Vec::new();
    for path in results {
        let Some((file, text)) = read_given(
            path,
            "the result record",
            "give the paths of result records written by `casec replay`",
            &mut db,
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
    let code = report_to_stderr(&db, &diagnostics, options);
    if code != EXIT_OK {
        return code;
    }
    let mut text = serde_json::to_string_pretty(&aggregate(&model, &records)).unwrap_or_default();
    text.push('\n');
    let inputs: Vec<&Path> = results.iter().map(PathBuf::as_path).collect();
    write_output(
        output,
        (&db, &inputs),
        |w| w.write_all(text.as_bytes()),
        options,
    )
}

/// `casec schema [SUITE] [--record result|judged] [-o FILE]`.
pub fn record_schema(suite: &Path, record: Record, output: Option<&Path>, options: Report) -> u8 {
    let (db, model, diagnostics) = match clean_suite(suite, options) {
        Ok(clean) => clean,
        Err(code) => return code,
    };
    let code = report_to_stderr(&db, &diagnostics, options);
    let mut text = serde_json::to_string_pretty(&schema_of(&model, record)).unwrap_or_default();
    text.push('\n');
    let written = write_output(
        output,
        (&db, &[]),
        |out| out.write_all(text.as_bytes()),
        options,
    );
    code.max(written)
}
