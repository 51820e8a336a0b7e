//! The consent of the commands that run a suite's programs (`verify`, `replay`,
//! `serve`, `calibrate`): `--trust`, and `--trust-outside` for programs and paths
//! outside the suite folder (docs/security.md).

use crate::diag::{codes, Diagnostic};
use crate::model::{Case, Suite};
use crate::runtime::trust::{adapters, refusals, Trust, COMMAND_LINE};
use crate::source::SourceDb;

use super::Reporter;

/// Refuses, before any work, to run the programs of `cases` that `trust` does not
/// allow: `Err` with the exit code (2, a usage error) once the refusals are reported
/// after `earlier` (the compilation's warnings, which the command has not reported).
pub(crate) fn require<'a>(
    db: &SourceDb,
    earlier: &[Diagnostic],
    suite: &'a Suite,
    cases: impl IntoIterator<Item = &'a Case>,
    trust: Trust,
    reporter: &Reporter,
) -> Result<(), u8> {
    let refused = refusals(suite, cases, trust);
    if refused.is_empty() {
        return Ok(());
    }
    let diagnostics: Vec<Diagnostic> = earlier
        .iter()
        .cloned()
        .chain(refused.iter().map(|r| r.diagnostic(&COMMAND_LINE)))
        .collect();
    Err(reporter.report_compiled(db, &diagnostics))
}

/// Refuses, before any work, to run a program of `cases` whose adapter asks for
/// `variable`, the one that holds the key of `whose` endpoint (the judge's, given with
/// `--api-key-env`; the person model's, `--person-api-key-env`: the `flag`): the key
/// never passes to a suite's program, whatever the variable is called.
pub(crate) fn withhold<'a>(
    db: &SourceDb,
    suite: &'a Suite,
    cases: impl IntoIterator<Item = &'a Case>,
    (variable, whose, flag): (&str, &str, &str),
    reporter: &Reporter,
) -> Result<(), u8> {
    let diagnostics: Vec<Diagnostic> = adapters(suite, cases)
        .into_iter()
        .filter(|(_, adapter)| adapter.env.iter().any(|n| n.as_str() == variable))
        .map(|(tool, adapter)| {
            Diagnostic::new(
                codes::UNTRUSTED_ADAPTER,
                format!(
                    "the tool `{}` asks for `{variable}`, the variable that holds the {whose}'s key",
                    tool.name.as_str()
                ),
            )
            .primary(adapter.span, "its adapter's `env` names it")
            .help(format!("the {whose}'s key never passes to a suite's program: remove the name from the adapter's `env`, or give the key in another variable ({flag})"))
        })
        .collect();
    match diagnostics.is_empty() {
        true => Ok(()),
        false => Err(reporter.report_compiled(db, &diagnostics)),
    }
}
