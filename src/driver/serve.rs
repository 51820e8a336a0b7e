//! `casec serve [SUITE] --case ID`: a case's sandbox over stdio JSON-RPC (MCP tools plus
//! casec's conversation methods, see `runtime::serve` and docs/traces.md). When the
//! session ends (`sandbox/end` or end of input) it writes the trace and the result
//! record where asked.

use std::io::{self, BufRead, Write};
use std::path::Path;

use crate::diag::{codes, Diagnostic};
use crate::load;
use crate::runtime::serve::Session;
use crate::source::SourceDb;
use crate::Depth;

use super::{compile_suite, report, write_atomically, Report, EXIT_ERRORS, EXIT_OK};

/// Where a session's records go when it ends.
pub struct ServeOutputs<'a> {
    pub trace: Option<&'a Path>,
    pub result: Option<&'a Path>,
}

pub fn serve(suite: &Path, case_id: &str, outputs: ServeOutputs, options: Report) -> u8 {
    let compilation = match compile_suite(suite, Depth::Check, options) {
        Ok(compilation) => compilation,
        Err(code) => return code,
    };
    let Some(model) = compilation.suite.as_ref() else {
        return EXIT_ERRORS;
    };
    let found = model.cases.iter().find(|c| c.id.as_str() == case_id);
    let Some((case, sandbox)) = found.and_then(|c| Some((c, c.sandbox.as_ref()?))) else {
        let d = Diagnostic::error(
            codes::IO,
            format!("no case `{case_id}` with a world in this suite"),
        )
        .at_path(load::display(suite))
        .help("give the id of a case that has a `world`");
        return report(&SourceDb::new(), &[d], 0, options);
    };
    let mut session = Session::new(model, case, sandbox);
    let mut stdout = io::stdout().lock();
    for line in io::stdin().lock().lines() {
        let Ok(line) = line else {
            break;
        };
        if line.trim().is_empty() {
            continue;
        }
        if let Some(answer) = session.handle(&line) {
            if writeln!(stdout, "{answer}")
                .and_then(|()| stdout.flush())
                .is_err()
            {
                break;
            }
        }
        if session.ended {
            break;
        }
    }
    write_records(&session, outputs, options)
}

fn write_records(session: &Session, outputs: ServeOutputs, options: Report) -> u8 {
    let trace: String = session
        .events
        .iter()
        .map(|e| format!("{}\n", e.to_json()))
        .collect();
    let mut record = serde_json::to_string_pretty(&session.result_record()).unwrap_or_default();
    record.push('\n');
    for (path, text) in [(outputs.trace, trace), (outputs.result, record)] {
        let Some(path) = path else {
            continue;
        };
        if let Err(e) = write_atomically(path, text.as_bytes()) {
            let d = Diagnostic::error(codes::IO, format!("cannot write the session's record: {e}"))
                .at_path(load::display(path))
                .help("check that the folder exists and is writable");
            return report(&SourceDb::new(), &[d], 0, options);
        }
    }
    EXIT_OK
}
