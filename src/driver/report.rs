//! `casec report RESULT… [--suite DIR] [--html FILE]`: the suite's required reporting
//! over result records, as one JSON document, and as a page for people ([`html`]); and
//! `casec schema [SUITE]`, the JSON Schema of those records.

mod html;

use std::path::{Path, PathBuf};

use crate::diag::{codes, Diagnostic};
use crate::load;
use crate::lower::record_schema::{record_schema as schema_of, Record};
use crate::runtime::report::{duplicates_in, read_record_values, report as aggregate};
use crate::source::{FileId, SourceDb};

use super::{clean_suite, read_given, write_output, Reporter, EXIT_OK};

/// `casec report RESULT… [--suite DIR] [-o FILE] [--html FILE]`: the JSON report to
/// `output` (standard output when neither `output` nor `html` is given), the HTML page
/// to `html`; each written atomically.
pub fn report_results(
    results: &[PathBuf],
    suite: &Path,
    output: Option<&Path>,
    html: Option<&Path>,
    reporter: &Reporter,
) -> u8 {
    let (mut db, model, mut diagnostics) = match clean_suite(suite, reporter) {
        Ok(clean) => clean,
        Err(code) => return code,
    };
    let mut read = Vec::new();
    for path in results {
        let Some((file, text)) = read_result_file(
            path,
            "give the paths of result records written by `casec replay`",
            &mut db,
            &mut diagnostics,
        ) else {
            continue;
        };
        match read_record_values(file, &text, &model) {
            Ok(found) => read.extend(found),
            Err(found) => diagnostics.extend(found),
        }
    }
    let records: Vec<_> = read.iter().map(|(r, _)| r.clone()).collect();
    diagnostics.extend(duplicates_in(&records, &db));
    let code = reporter.report_compiled(&db, &diagnostics);
    if code != EXIT_OK {
        return code;
    }
    let summary = aggregate(&model, &records);
    let inputs: Vec<&Path> = results.iter().map(PathBuf::as_path).collect();
    if let Some(path) = html {
        let runs: Vec<html::Run> = read
            .iter()
            .map(|(record, json)| html::Run {
                record,
                json,
                file: db.file(record.span.file).name.as_str(),
            })
            .collect();
        let page = html::page(&model, &summary, &runs);
        let written = write_output(
            Some(path),
            (&db, &inputs),
            |w| w.write_all(page.as_bytes()),
            reporter,
        );
        if written != EXIT_OK || output.is_none() {
            return written;
        }
    }
    let mut text = serde_json::to_string_pretty(&summary).unwrap_or_default();
    text.push('\n');
    write_output(
        output,
        (&db, &inputs),
        |w| w.write_all(text.as_bytes()),
        reporter,
    )
}

/// Reads a file of result records given to `casec report` or `casec judge` (`help`
/// says which to give). A file with no text at all is refused rather than read as no
/// records: it is what `casec serve` leaves at `--result-out` when it is killed
/// before its session ends (it claims the file empty as it starts).
pub(super) fn read_result_file(
    path: &Path,
    help: &str,
    db: &mut SourceDb,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<(FileId, String)> {
    let (file, text) = read_given(path, "the result record", help, db, diagnostics)?;
    if !text.trim().is_empty() {
        return Some((file, text));
    }
    diagnostics.push(
        Diagnostic::new(codes::RESULT_RECORD, "the file is empty: it holds no result record")
            .at_path(load::display(path))
            .help("a `casec serve` killed before its session ended leaves its --result-out empty: run `casec replay` on the session's trace to get the record, or run the session again"),
    );
    None
}

/// `casec schema [SUITE] [--record result|judged] [-o FILE]`.
pub fn record_schema(
    suite: &Path,
    record: Record,
    output: Option<&Path>,
    reporter: &Reporter,
) -> u8 {
    let (db, model, diagnostics) = match clean_suite(suite, reporter) {
        Ok(clean) => clean,
        Err(code) => return code,
    };
    let code = reporter.report_compiled(&db, &diagnostics);
    let mut text = serde_json::to_string_pretty(&schema_of(&model, record)).unwrap_or_default();
    text.push('\n');
    let written = write_output(
        output,
        (&db, &[]),
        |out| out.write_all(text.as_bytes()),
        reporter,
    );
    code.max(written)
}
