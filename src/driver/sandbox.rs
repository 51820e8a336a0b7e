//! `casec sandbox` (sandbox initialisation files) and `casec stats` (how much of a suite
//! a machine can decide).

use std::io::{self, Write};
use std::path::Path;

use crate::diag::{codes, Diagnostic};
use crate::load;
use crate::lower::sandbox::sandbox_files;
use crate::world::stats::{suite_stats, Row, Stats, Tally};
use crate::Compilation;

use super::{report, user_files, write_folder_atomically, Format, Report, EXIT_ERRORS, EXIT_OK};

/// `casec sandbox [SUITE] -o DIR`: `DIR/<case_id>.json` for every case with a world.
pub fn sandbox(suite: &Path, output: &Path, options: Report) -> u8 {
    let compilation = Compilation::from_dir(suite);
    let code = report(
        &compilation.db,
        &compilation.diagnostics,
        user_files(&compilation.db),
        options,
        &mut io::stderr(),
    );
    if code != EXIT_OK {
        return code;
    }
    let Some(model) = compilation.suite.as_ref() else {
        return EXIT_ERRORS;
    };
    let files: Vec<(String, Vec<u8>)> = sandbox_files(model)
        .into_iter()
        .map(|(name, text)| (name, text.into_bytes()))
        .collect();
    if let Err(e) = write_folder_atomically(output, &files) {
        let d = Diagnostic::error(codes::IO, format!("cannot write the sandbox folder: {e}"))
            .at_path(load::display(output))
            .help("choose a new or empty output folder");
        return report(&compilation.db, &[d], 0, options, &mut io::stderr());
    }
    if options.format == Format::Human {
        let unmodelled = model.cases.len() - files.len();
        let _ = writeln!(
            io::stderr(),
            "casec sandbox: wrote {} file(s) to {}; {unmodelled} case(s) have no world yet",
            files.len(),
            load::display(output)
        );
    }
    EXIT_OK
}

/// `casec stats [SUITE]`: a table on stdout (`--format json`: one JSON object).
pub fn stats(suite: &Path, options: Report) -> u8 {
    let compilation = Compilation::from_dir(suite);
    let code = report(
        &compilation.db,
        &compilation.diagnostics,
        user_files(&compilation.db),
        options,
        &mut io::stderr(),
    );
    let Some(model) = compilation
        .suite
        .as_ref()
        .filter(|_| !compilation.has_errors())
    else {
        return code.max(EXIT_ERRORS);
    };
    let stats = suite_stats(model);
    let text = match options.format {
        Format::Json => format!("{}\n", stats.to_json()),
        _ => render_table(&stats),
    };
    let _ = io::stdout().lock().write_all(text.as_bytes());
    code
}

const COLUMNS: &str = "machine  both  review  unclassified  no world";

fn render_table(stats: &Stats) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "{:<22} {:>5} {:>6}   checks: {COLUMNS}   critical failures: {COLUMNS}\n",
        "category", "cases", "worlds"
    ));
    for row in stats.categories.iter().chain(std::iter::once(&stats.total)) {
        out.push_str(&format!(
            "{:<22} {:>5} {:>6}   {}   {}\n",
            row.name,
            row.cases,
            row.modelled,
            tally_cells("checks: ", &row.checks),
            tally_cells("critical failures: ", &row.criticals)
        ));
    }
    out.push_str("\nchecks by dimension:\n");
    for row in &stats.dimensions {
        out.push_str(&dimension_line(row));
    }
    out
}

/// The five counts, aligned under the column names after `label`.
fn tally_cells(label: &str, t: &Tally) -> String {
    format!(
        "{:width$}{:>7}  {:>4}  {:>6}  {:>12}  {:>8}",
        "",
        t.machine,
        t.both,
        t.review,
        t.unclassified,
        t.unmodelled,
        width = label.len()
    )
}

fn dimension_line(row: &Row) -> String {
    let t = &row.checks;
    let share = if t.total() == 0 {
        0.0
    } else {
        100.0 * t.with_predicate() as f64 / t.total() as f64
    };
    format!(
        "  {:<24} {:>4} checks, {:>4} with a machine predicate ({share:.0} %)\n",
        row.name,
        t.total(),
        t.with_predicate()
    )
}
