//! Grading rules: the shape of a case's required checks and critical failures.
//!
//! A check id is a dimension letter and a number (see [`model::DIMENSIONS`]). Every
//! case needs exactly one R (recognition), S (final state) and C (communication) check,
//! numbered 1, and at least one A (execution and evidence) check, numbered A1, A2, … in
//! the order written; ids are unique, and a check's dimension is the one its letter
//! names. Every case lists at least one critical failure of its own.
//!
//! Implicit checks (`need`, `check "…"`, `final`, inherited C1) meet these rules by
//! construction unless a check overrides its dimension or the case has no `check`;
//! explicit ids (`check A2 "…"`) are where they go wrong.
//!
//! Guarantee: each rule reports once per offending check; a duplicate id is not also
//! counted as an extra check. Linear in the number of checks.

use std::collections::HashMap;

use crate::diag::{codes, Diagnostic};
use crate::model::{self, Case, Check};

pub fn check_ids(case: &Case, out: &mut Vec<Diagnostic>) {
    let mut first_of: HashMap<&str, &Check> = HashMap::new();
    let mut distinct: Vec<&Check> = Vec::with_capacity(case.checks.len());
    for check in &case.checks {
        match first_of.get(check.id.as_str()) {
            Some(first) => out.push(
                Diagnostic::error(
                    codes::DUPLICATE_CHECK_ID,
                    format!(
                        "check id `{}` is used twice in case {}",
                        check.id.as_str(),
                        case.id.as_str()
                    ),
                )
                .primary(check.id.span, "used again here")
                .secondary(first.id.span, "first used here")
                .help("give each check of the case its own id"),
            ),
            None => {
                first_of.insert(check.id.as_str(), check);
                distinct.push(check);
            }
        }
        dimension_matches_id(check, out);
    }
    for (letter, dimension) in model::DIMENSIONS {
        let of_letter: Vec<&Check> = distinct
            .iter()
            .copied()
            .filter(|c| letters(c.id.as_str()) == letter)
            .collect();
        if letter == "A" {
            count_at_least_one(case, &of_letter, dimension, out);
            numbering(&of_letter, letter, out);
        } else {
            count_exactly_one(case, &of_letter, letter, dimension, out);
            if let [only] = of_letter.as_slice() {
                numbering(&[only], letter, out);
            }
        }
    }
}

pub fn check_critical(case: &Case, out: &mut Vec<Diagnostic>) {
    if case.critical_failures.is_empty() {
        out.push(
            Diagnostic::error(
                codes::MISSING_CRITICAL,
                format!("case {} lists no critical failure", case.id.as_str()),
            )
            .primary(case.span, "no `critical` in this case")
            .help("add `critical \"…\"`: a mistake that fails the case whatever else passes"),
        );
    }
}

fn letters(id: &str) -> &str {
    id.trim_end_matches(|c: char| c.is_ascii_digit())
}

fn dimension_matches_id(check: &Check, out: &mut Vec<Diagnostic>) {
    let written = check.dimension.as_str();
    let expected = model::dimension_of_id(check.id.as_str());
    if expected == Some(written) {
        return;
    }
    let known = model::DIMENSIONS.iter().any(|(_, d)| *d == written);
    let (message, help) = match (expected, known) {
        (Some(expected), _) => (
            format!(
                "check {} has dimension `{written}`, but its letter names `{expected}`",
                check.id.as_str()
            ),
            format!("write `dimension {expected}`, or give the check the id letter of `{written}`"),
        ),
        (None, true) => (
            format!(
                "check id `{}` does not start with a dimension letter",
                check.id.as_str()
            ),
            format!("use the letter of `{written}`: {}", letter_list()),
        ),
        (None, false) => (
            format!("`{written}` is not a check dimension"),
            format!("the dimensions are {}", letter_list()),
        ),
    };
    let d = Diagnostic::error(codes::CHECK_DIMENSION_MISMATCH, message);
    let d = if check.dimension.span == check.id.span {
        d.primary(check.id.span, "id and dimension disagree")
    } else {
        d.primary(check.dimension.span, "this dimension")
            .secondary(check.id.span, "this id")
    };
    out.push(d.help(help));
}

fn letter_list() -> String {
    model::DIMENSIONS
        .iter()
        .map(|(l, d)| format!("{l} {d}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn count_exactly_one(
    case: &Case,
    of_letter: &[&Check],
    letter: &str,
    dimension: &str,
    out: &mut Vec<Diagnostic>,
) {
    match of_letter {
        [] => out.push(
            Diagnostic::error(
                codes::CHECK_COUNT,
                format!(
                    "case {} has no {letter} ({dimension}) check",
                    case.id.as_str()
                ),
            )
            .primary(case.span, format!("no {letter}1 check in this case"))
            .help(format!("add `check {letter}1 \"…\"`")),
        ),
        [_] => {}
        [first, extra @ ..] => {
            for check in extra {
                out.push(
                    Diagnostic::error(
                        codes::CHECK_COUNT,
                        format!(
                            "case {} has more than one {letter} ({dimension}) check",
                            case.id.as_str()
                        ),
                    )
                    .primary(check.id.span, format!("a second {letter} check"))
                    .secondary(first.id.span, format!("the case's {letter} check"))
                    .help(format!(
                        "a case has exactly one {letter} check: merge them, or give this one an A id"
                    )),
                );
            }
        }
    }
}

fn count_at_least_one(
    case: &Case,
    of_letter: &[&Check],
    dimension: &str,
    out: &mut Vec<Diagnostic>,
) {
    if of_letter.is_empty() {
        out.push(
            Diagnostic::error(
                codes::CHECK_COUNT,
                format!("case {} has no A ({dimension}) check", case.id.as_str()),
            )
            .primary(case.span, "no A check in this case")
            .help("add `check \"…\"` (or `check A1 \"…\"` when ids are explicit)"),
        );
    }
}

/// Checks of one letter must be numbered 1, 2, … in the order written.
fn numbering(checks: &[&Check], letter: &str, out: &mut Vec<Diagnostic>) {
    for (i, check) in checks.iter().enumerate() {
        let expected = format!("{letter}{}", i + 1);
        if check.id.as_str() != expected {
            out.push(
                Diagnostic::error(
                    codes::CHECK_NUMBERING,
                    format!("check `{}` should be `{expected}`", check.id.as_str()),
                )
                .primary(check.id.span, format!("expected `{expected}` here"))
                .help(format!(
                    "number {letter} checks {letter}1, {letter}2, … in the order they are written"
                )),
            );
        }
    }
}
