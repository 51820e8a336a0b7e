//! Where each shared value goes: the stdlib, the suite, a category, or the case.
//!
//! A value is placed at the highest level that shares it: the stdlib profile if it
//! already says the same, else the suite when cases of two or more categories agree,
//! else the category when two or more of its cases agree, else the case itself.

use std::collections::HashMap;

use crate::model::{self, Case, Check, Suite, Text};
use crate::resolve::defaults::{Defaults, TextField};

use super::STDLIB_PROFILE;

/// A defaultable field of a case.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Field {
    Text(TextField),
    Tools,
    Evidence(String),
}

impl Field {
    pub(super) fn key(&self) -> String {
        match self {
            Field::Text(f) => f.key().to_string(),
            Field::Tools => "tools".to_string(),
            Field::Evidence(d) => format!("evidence {d}"),
        }
    }
}

/// The value a case needs for `field`, if it has one to express.
pub(super) fn case_value(case: &Case, field: &Field) -> Option<String> {
    let text = |t: &Text| Some(t.as_str().to_string());
    match field {
        Field::Text(f) => match f {
            TextField::Clock => text(&case.clock),
            TextField::Timezone => text(&case.timezone),
            TextField::Background => text(&case.background),
            TextField::Preferences => text(&case.preferences),
            TextField::Permissions => text(&case.permissions),
            TextField::RecordAccess => text(&case.record_access),
            TextField::ToolBehavior => text(&case.tool_behavior),
            TextField::UnscriptedReply => text(&case.unscripted_reply),
            TextField::GroundTruthPolicy => text(&case.ground_truth_policy),
            TextField::PassRule => text(&case.pass_rule),
            TextField::Communication => short_form(case)
                .then(|| {
                    case.checks
                        .last()
                        .map(|c| c.requirement.as_str().to_string())
                })
                .flatten(),
        },
        Field::Tools => Some(
            case.tools
                .iter()
                .map(|t| t.as_str())
                .collect::<Vec<_>>()
                .join(" "),
        ),
        Field::Evidence(dimension) => uniform_evidence(case, dimension),
    }
}

fn uniform_evidence(case: &Case, dimension: &str) -> Option<String> {
    let mut values = case
        .checks
        .iter()
        .filter(|c| c.dimension.as_str() == dimension)
        .map(|c| c.evidence.as_str());
    let first = values.next()?;
    values.all(|v| v == first).then(|| first.to_string())
}

fn stdlib_value(stdlib: &Option<Defaults>, field: &Field) -> Option<String> {
    let d = stdlib.as_ref()?;
    match field {
        Field::Text(f) => d.get(*f).map(|t| t.as_str().to_string()),
        Field::Tools => d.tools.as_ref().map(|(names, _)| {
            names
                .iter()
                .map(|n| n.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        }),
        Field::Evidence(dim) => d.evidence(dim).map(|t| t.as_str().to_string()),
    }
}

/// Whether a case's checks are R1 (need), A1…An, S1 (final), C1.
pub(super) fn short_form(case: &Case) -> bool {
    let c = &case.checks;
    let n = c.len();
    let is = |check: &Check, id: &str, dim: &str| {
        check.id.as_str() == id && check.dimension.as_str() == dim
    };
    n >= 3
        && is(&c[0], "R1", model::DIMENSIONS[0].1)
        && c[0].requirement == case.need
        && is(&c[n - 2], "S1", model::DIMENSIONS[2].1)
        && c[n - 2].requirement == case.final_state
        && is(&c[n - 1], "C1", model::DIMENSIONS[3].1)
        && c[1..n - 2]
            .iter()
            .enumerate()
            .all(|(i, check)| is(check, &format!("A{}", i + 1), model::DIMENSIONS[1].1))
}

/// The most common value with at least two occurrences; ties go to the first seen.
fn shared<'a>(values: impl Iterator<Item = &'a String>) -> Option<String> {
    let mut counts: Vec<(&String, usize)> = Vec::new();
    let mut index: HashMap<&String, usize> = HashMap::new();
    for v in values {
        match index.get(v) {
            Some(&i) => counts[i].1 += 1,
            None => {
                index.insert(v, counts.len());
                counts.push((v, 1));
            }
        }
    }
    let top = counts.iter().map(|(_, n)| *n).max().filter(|&n| n >= 2)?;
    counts
        .iter()
        .find(|(_, n)| *n == top)
        .map(|(v, _)| (*v).clone())
}

/// Where each field's value is written.
pub(super) struct Plan {
    pub(super) fields: Vec<Field>,
    /// Per field: the suite's own value (None: inherited from the stdlib or absent).
    pub(super) suite: Vec<Option<String>>,
    /// Per category name, per field: the category's own value.
    pub(super) categories: HashMap<String, Vec<Option<String>>>,
    /// Per field: the value a case of each category inherits.
    pub(super) inherited: HashMap<String, Vec<Option<String>>>,
}

pub(super) fn plan(suite: &Suite) -> Plan {
    let stdlib = crate::resolve::stdlib_defaults(STDLIB_PROFILE);
    let mut fields: Vec<Field> = TextField::ALL.iter().map(|f| Field::Text(*f)).collect();
    fields.push(Field::Tools);
    let mut dimensions: Vec<String> = model::DIMENSIONS
        .iter()
        .map(|(_, d)| d.to_string())
        .collect();
    for case in &suite.cases {
        for check in &case.checks {
            if !dimensions.iter().any(|d| d == check.dimension.as_str()) {
                dimensions.push(check.dimension.as_str().to_string());
            }
        }
    }
    fields.extend(dimensions.into_iter().map(Field::Evidence));

    let values: Vec<Vec<Option<String>>> = suite
        .cases
        .iter()
        .map(|c| fields.iter().map(|f| case_value(c, f)).collect())
        .collect();
    let mut suite_own = Vec::new();
    let mut suite_effective = Vec::new();
    for (i, field) in fields.iter().enumerate() {
        // A value only one category uses belongs to that category, not the suite.
        let mode = shared(values.iter().filter_map(|v| v[i].as_ref())).filter(|m| {
            let mut users = suite
                .cases
                .iter()
                .zip(&values)
                .filter(|(_, v)| v[i].as_ref() == Some(m))
                .map(|(c, _)| c.category.as_str());
            let first = users.next();
            suite.categories.len() <= 1 || users.any(|c| Some(c) != first)
        });
        let std = stdlib_value(&stdlib, field);
        let own = mode.clone().filter(|m| Some(m) != std.as_ref());
        suite_effective.push(mode.or(std));
        suite_own.push(own);
    }
    let mut categories = HashMap::new();
    let mut inherited = HashMap::new();
    for category in &suite.categories {
        let name = category.name.as_str();
        let members: Vec<&Vec<Option<String>>> = suite
            .cases
            .iter()
            .zip(&values)
            .filter(|(c, _)| c.category.as_str() == name)
            .map(|(_, v)| v)
            .collect();
        let mut own = Vec::new();
        let mut effective = Vec::new();
        for i in 0..fields.len() {
            let mode = shared(members.iter().filter_map(|v| v[i].as_ref()))
                .filter(|m| Some(m) != suite_effective[i].as_ref());
            effective.push(mode.clone().or_else(|| suite_effective[i].clone()));
            own.push(mode);
        }
        categories.insert(name.to_string(), own);
        inherited.insert(name.to_string(), effective);
    }
    Plan {
        fields,
        suite: suite_own,
        categories,
        inherited,
    }
}
