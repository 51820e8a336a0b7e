//! Grading rules: the shape of a case's required checks and critical failures.
//!
//! A check id is a dimension letter and a number; the shape's grading declares the
//! dimensions, their letters and how many checks of each a case needs (Tujora: exactly
//! one R, S and C, at least one A), numbered 1, 2, … in the order written; ids are
//! unique, and a check's dimension is the one its letter names. Repeated fields the
//! shape requires `at_least N` of (a case's critical failures) hold that many.
//!
//! Implicit checks (`need`, `check "…"`, `final`, inherited C1) meet these rules by
//! construction unless a check overrides its dimension or the case has no `check`;
//! explicit ids (`check A2 "…"`) are where they go wrong.
//!
//! Guarantee: each rule reports once per offending check; a duplicate id is not also
//! counted as an extra check. Linear in the number of checks.

use std::collections::HashMap;

use crate::diag::{codes, Diagnostic};
use crate::model::shape::{CheckCount, Dimension, Grading, Kind, Shape};
use crate::model::{Case, Check};

pub fn check_ids(case: &Case, shape: &Shape, out: &mut Vec<Diagnostic>) {
    let grading = &shape.grading;
    let checks = shape
        .case_field(Kind::Checks)
        .map_or("check", |f| shape.case_fields[f].key.as_str());
    let mut first_of: HashMap<&str, &Check> = HashMap::new();
    let mut distinct: Vec<&Check> = Vec::with_capacity(case.checks.len());
    for check in &case.checks {
        match first_of.get(check.id.as_str()) {
            Some(first) => out.push(
                Diagnostic::new(
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
        dimension_matches_id(check, grading, out);
    }
    for dimension in &grading.dimensions {
        let letter = dimension.letter.as_str();
        let of_letter: Vec<&Check> = distinct
            .iter()
            .copied()
            .filter(|c| letters(c.id.as_str()) == letter)
            .collect();
        match dimension.count {
            CheckCount::Exactly(n) => {
                let statement = checks_statement(shape, dimension);
                count_exactly(case, &of_letter, dimension, statement, n, out)
            }
            CheckCount::AtLeast(n) => count_at_least(case, &of_letter, dimension, n, checks, out),
        }
        numbering(&of_letter, letter, out);
    }
}

/// Whether the checks of field `id` go to a dimension that requires checks itself: a
/// case without any gets that dimension's `check_count`, not a second report.
fn counted_by_dimension(shape: &Shape, id: usize) -> bool {
    shape.grading.derivations.iter().any(|d| {
        d.field == id
            && shape.grading.dimension(d.dimension.as_str()).is_some_and(
                |dim| matches!(dim.count, CheckCount::Exactly(n) | CheckCount::AtLeast(n) if n > 0),
            )
    })
}

/// Repeated fields with `at_least N` hold at least N statements; a case's critical
/// failures are what `missing_critical` is about.
pub fn check_counts(case: &Case, shape: &Shape, out: &mut Vec<Diagnostic>) {
    for (id, field) in shape
        .case_fields
        .iter()
        .enumerate()
        .filter(|(_, f)| f.at_least > 0)
    {
        let count = match field.kind {
            Kind::CriticalFailures => case.critical_failures.len(),
            Kind::Override => case.overrides.len(),
            Kind::Followup => case.followups.len(),
            Kind::Checks => case.checks.iter().filter(|c| c.source == Some(id)).count(),
            crate::model::plain_kinds!() => case.value(id).map_or(0, |v| v.pieces().len()),
            _ => continue,
        };
        if count >= field.at_least || (count == 0 && counted_by_dimension(shape, id)) {
            continue;
        }
        let key = field.key.as_str();
        let (code, message) = match field.kind {
            Kind::CriticalFailures if count == 0 => (
                codes::MISSING_CRITICAL,
                format!("case {} lists no critical failure", case.id.as_str()),
            ),
            _ => (
                codes::MISSING_FIELD,
                format!(
                    "case {} has {count} `{key}`; at least {} needed",
                    case.id.as_str(),
                    field.at_least
                ),
            ),
        };
        out.push(
            Diagnostic::new(code, message)
                .primary(case.span, format!("not enough `{key}` in this case"))
                .help(match field.kind {
                    Kind::CriticalFailures => format!(
                        "add `{key} \"…\"`: a mistake that fails the case whatever else passes"
                    ),
                    _ => format!("add `{key}` statements until there are {}", field.at_least),
                }),
        );
    }
}

fn letters(id: &str) -> &str {
    id.trim_end_matches(|c: char| c.is_ascii_digit())
}

fn dimension_matches_id(check: &Check, grading: &Grading, out: &mut Vec<Diagnostic>) {
    let written = check.dimension.as_str();
    let expected = grading
        .dimension_of_id(check.id.as_str())
        .map(|d| d.name.as_str());
    if expected == Some(written) {
        return;
    }
    let known = grading.dimension(written).is_some();
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
            format!("use the letter of `{written}`: {}", letter_list(grading)),
        ),
        (None, false) => (
            format!("`{written}` is not a check dimension"),
            format!("the dimensions are {}", letter_list(grading)),
        ),
    };
    let d = Diagnostic::new(codes::CHECK_DIMENSION_MISMATCH, message);
    let d = if check.dimension.span == check.id.span {
        d.primary(check.id.span, "id and dimension disagree")
    } else {
        d.primary(check.dimension.span, "this dimension")
            .secondary(check.id.span, "this id")
    };
    out.push(d.help(help));
}

fn letter_list(grading: &Grading) -> String {
    grading
        .dimensions
        .iter()
        .map(|d| format!("{} {}", d.letter.as_str(), d.name.as_str()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A count in words, as messages say it ("exactly one R check").
fn number(n: usize) -> String {
    const WORDS: [&str; 11] = [
        "no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    WORDS
        .get(n)
        .map_or_else(|| n.to_string(), |w| w.to_string())
}

/// The statement that writes a check of `dimension` with an explicit id: the key of the
/// checks field derived into it, else the first checks field.
fn checks_statement<'s>(shape: &'s Shape, dimension: &Dimension) -> &'s str {
    let derived = shape
        .grading
        .derivations
        .iter()
        .filter(|d| d.dimension.as_str() == dimension.name.as_str())
        .map(|d| d.field)
        .chain(0..shape.case_fields.len())
        .find(|&id| shape.case_fields[id].kind == Kind::Checks);
    derived.map_or("check", |id| shape.case_fields[id].key.as_str())
}

fn count_exactly(
    case: &Case,
    of_letter: &[&Check],
    dimension: &Dimension,
    statement: &str,
    n: usize,
    out: &mut Vec<Diagnostic>,
) {
    let (letter, name) = (dimension.letter.as_str(), dimension.name.as_str());
    if of_letter.len() < n {
        out.push(
            Diagnostic::new(
                codes::CHECK_COUNT,
                format!("case {} has no {letter} ({name}) check", case.id.as_str()),
            )
            .primary(
                case.span,
                format!("no {letter}{} check in this case", of_letter.len() + 1),
            )
            .help(format!(
                "add `{statement} {letter}{} \"…\"`",
                of_letter.len() + 1
            )),
        );
        return;
    }
    let Some(first) = of_letter.first() else {
        return;
    };
    for check in &of_letter[n..] {
        out.push(
            Diagnostic::new(
                codes::CHECK_COUNT,
                format!("case {} has more than {} {letter} ({name}) check", case.id.as_str(), number(n)),
            )
            .primary(check.id.span, format!("one {letter} check too many"))
            .secondary(first.id.span, format!("the case's {letter} check"))
            .help(format!(
                "a case has exactly {} {letter} check: merge them, or give this one another dimension's id",
                number(n)
            )),
        );
    }
}

fn count_at_least(
    case: &Case,
    of_letter: &[&Check],
    dimension: &Dimension,
    n: usize,
    checks: &str,
    out: &mut Vec<Diagnostic>,
) {
    if of_letter.len() < n {
        let (letter, name) = (dimension.letter.as_str(), dimension.name.as_str());
        out.push(
            Diagnostic::new(
                codes::CHECK_COUNT,
                format!("case {} has no {letter} ({name}) check", case.id.as_str()),
            )
            .primary(case.span, format!("no {letter} check in this case"))
            .help(format!(
                "add `{checks} \"…\"` (or `{checks} {letter}1 \"…\"` when ids are explicit)"
            )),
        );
    }
}

/// Checks of one letter must be numbered 1, 2, … in the order written.
/// Whether `id` is `letter` then `n` (`A3`), written as [`numbering`] expects: without
/// formatting the id it should be (every check of every case is compared).
fn is_numbered(id: &str, letter: &str, n: usize) -> bool {
    id.strip_prefix(letter).is_some_and(|digits| {
        !digits.starts_with('0')
            && digits.bytes().all(|b| b.is_ascii_digit())
            && digits.parse::<usize>() == Ok(n)
    })
}

fn numbering(checks: &[&Check], letter: &str, out: &mut Vec<Diagnostic>) {
    for (i, check) in checks.iter().enumerate() {
        if !is_numbered(check.id.as_str(), letter, i + 1) {
            let expected = format!("{letter}{}", i + 1);
            out.push(
                Diagnostic::new(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_is_numbered_as_its_formatted_id_reads() {
        for id in ["A1", "A2", "A01", "A", "A+1", "B1", "A10", "AB1", "A1x"] {
            for n in [1, 2, 10] {
                assert_eq!(is_numbered(id, "A", n), id == format!("A{n}"), "{id} {n}");
            }
        }
    }
}
