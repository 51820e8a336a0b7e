//! `casec sandbox` (sandbox initialisation files) and `casec stats` (how much of a suite
//! a machine can decide).

use std::io::{self, Write};
use std::path::Path;

use crate::diag::{codes, Diagnostic};
use crate::load;
use crate::lower::sandbox::sandbox_files;
use crate::lower::stats::{suite_stats, Row, Stats, Tally};

use super::{
    compile_suite, output, write_folder_atomically, Format, Reporter, EXIT_ERRORS, EXIT_OK,
};
use crate::Depth;

/// `casec sandbox [SUITE] -o DIR`: `DIR/<case_id>.json` for every case with a world.
pub fn sandbox(suite: &Path, output: &Path, reporter: &Reporter) -> u8 {
    let compilation = match compile_suite(suite, Depth::Check, reporter) {
        Ok(compilation) => compilation,
        Err(code) => return code,
    };
    let Some(model) = compilation.suite.as_ref() else {
        return EXIT_ERRORS;
    };
    let files: Vec<(String, Vec<u8>)> = sandbox_files(model)
        .into_iter()
        .map(|(name, text)| (name, text.into_bytes()))
        .collect();
    if let Err(e) = write_folder_atomically(output, &files) {
        let d = Diagnostic::new(codes::IO, format!("cannot write the sandbox folder: {e}"))
            .at_path(load::display(output))
            .help("choose a new or empty output folder");
        return reporter.report(&compilation.db, &[d], 0);
    }
    if reporter.options.format == Format::Human {
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
pub fn stats(suite: &Path, reporter: &Reporter) -> u8 {
    let compilation = match compile_suite(suite, Depth::Check, reporter) {
        Ok(compilation) => compilation,
        Err(code) => return code,
    };
    let Some(model) = compilation.suite.as_ref() else {
        return EXIT_ERRORS;
    };
    let stats = suite_stats(model);
    let text = match reporter.options.format {
        Format::Json => format!("{}\n", stats.to_json()),
        _ => render_table(&stats),
    };
    match output::print(text.as_bytes()) {
        Ok(()) => EXIT_OK,
        Err(e) => reporter.report(&compilation.db, &[output::write_error(None, &e)], 0),
    }
}

fn render_table(stats: &Stats) -> String {
    let mut out = String::new();
    for (title, tally) in [
        ("checks", (|r: &Row| r.checks) as fn(&Row) -> Tally),
        ("critical failures", |r: &Row| r.criticals),
    ] {
        out.push_str(&format!(
            "{title:<22} {:>5} {:>6} {:>8} {:>5} {:>7} {:>13} {:>9}\n",
            "cases", "worlds", "machine", "both", "review", "unclassified", "no world"
        ));
        for row in stats.categories.iter().chain(std::iter::once(&stats.total)) {
            let t = tally(row);
            out.push_str(&format!(
                "  {:<20} {:>5} {:>6} {:>8} {:>5} {:>7} {:>13} {:>9}\n",
                row.name,
                row.cases,
                row.modelled,
                t.machine,
                t.both,
                t.review,
                t.unclassified,
                t.unmodelled
            ));
        }
        out.push('\n');
    }
    out.push_str("checks by dimension\n");
    for row in &stats.dimensions {
        out.push_str(&dimension_line(row));
    }
    out
}

fn dimension_line(row: &Row) -> String {
    let t = &row.checks;
    let modelled = t.total() - t.unmodelled;
    let share = if modelled == 0 {
        0.0
    } else {
        100.0 * t.with_predicate() as f64 / modelled as f64
    };
    format!(
        "  {:<24} {:>4} checks; {:>4} of the {:>4} in cases with a world have a machine predicate ({share:.0} %)\n",
        row.name,
        t.total(),
        t.with_predicate(),
        modelled
    )
}
