//! Coverage: the counts a suite declares against the cases it holds.
//!
//! The suite's case count (its field of kind `case_count`, when its shape has one) must
//! equal the number of cases, and each `category NAME COUNT` must equal the number of
//! cases in that category. Each mismatch
//! is reported at the declared number, saying which count is off and by how much.
//!
//! Guarantee: run only on a complete suite (no earlier error: every file parsed, every
//! case resolved), since a case left out by an error would put every count off by one. One
//! pass over the cases; one hash lookup per case.

use std::collections::HashMap;

use crate::diag::{codes, Diagnostic};
use crate::model::shape::Kind;
use crate::model::{Number, Suite};

pub fn check(suite: &Suite, out: &mut Vec<Diagnostic>) {
    let present = suite.cases.len();
    let key = suite
        .shape
        .suite_field(Kind::CaseCount)
        .map_or("case_count", |f| suite.shape.suite_fields[f].key.as_str());
    let declared = suite.case_count.as_ref();
    if let Some((count, d)) = declared.and_then(|c| Some((c, mismatch(c, present, "the suite")?))) {
        out.push(
            Diagnostic::new(codes::CASE_COUNT_MISMATCH, d.message)
                .primary(count.span, d.label)
                .help(format!(
                    "set `{key} {present}`, or add or remove cases until there are {}",
                    count.value
                )),
        );
    }
    let mut per_category: HashMap<&str, usize> = HashMap::new();
    for category in suite.cases.iter().filter_map(|c| c.category.as_ref()) {
        *per_category.entry(category.as_str()).or_default() += 1;
    }
    for category in &suite.categories {
        let name = category.name.as_str();
        let present = per_category.get(name).copied().unwrap_or(0);
        let whose = format!("category `{name}`");
        if let Some(d) = mismatch(&category.count, present, &whose) {
            out.push(
                Diagnostic::new(codes::CATEGORY_COUNT_MISMATCH, d.message)
                    .primary(category.count.span, d.label)
                    .secondary(category.name.span, "in this category")
                    .help(format!(
                        "set `category {name} {present}`, or add or remove `category {name}` cases until there are {}",
                        category.count.value
                    )),
            );
        }
    }
}

struct Mismatch {
    message: String,
    label: String,
}

/// The message and label when `declared` is not `present`; `None` when they agree.
fn mismatch(declared: &Number, present: usize, whose: &str) -> Option<Mismatch> {
    let Some(count) = declared.value.as_u64() else {
        return Some(Mismatch {
            message: format!(
                "{whose} declares `{}` cases, which is not a count",
                declared.value
            ),
            label: format!("not a whole number; {present} case(s) present"),
        });
    };
    let count = usize::try_from(count).unwrap_or(usize::MAX);
    if count == present {
        return None;
    }
    let difference = if count > present {
        format!("{} missing", count - present)
    } else {
        format!("{} too many", present - count)
    };
    Some(Mismatch {
        message: format!(
            "{whose} declares {} but has {present} ({difference})",
            crate::diag::count(count, "case")
        ),
        label: format!("declared {count}, found {present}"),
    })
}
