//! Where each value cases inherit goes: the stdlib profile, the suite, a category, or
//! the case.
//!
//! The values placed are those of the fields the shape declares `inherited`, one slot
//! per field (per dimension for an evidence field). A value is placed at the highest
//! level that shares it: the stdlib profile the shape's import names if it already
//! says the same, else the suite when cases of two or more categories agree, else the
//! category when two or more of its cases agree, else the case itself.

use std::collections::HashMap;

use crate::model::plain::Form;
use crate::model::shape::{FieldId, Kind, Shape};
use crate::model::{Case, Name, Suite, Text, Value};
use crate::resolve::defaults::Defaults;
use crate::resolve::fields::Given;

/// One inherited value: a field, or one dimension of an evidence field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Slot {
    pub(super) field: FieldId,
    pub(super) dimension: Option<String>,
}

/// A slot's value as the source writes it: a text, or names joined by spaces.
pub(super) type Written = String;

/// The value a case has for `slot`, if it has one to express.
pub(super) fn case_value(case: &Case, shape: &Shape, slot: &Slot) -> Option<Written> {
    let field = &shape.case_fields[slot.field];
    let text = |t: &Option<Text>| t.as_ref().map(|t| t.as_str().to_string());
    match field.kind {
        Kind::Clock => text(&case.clock),
        Kind::Timezone => text(&case.timezone),
        Kind::UserMessage => text(&case.user),
        Kind::UnscriptedReply => text(&case.unscripted_reply),
        Kind::Tools => Some(names(&case.tools)),
        Kind::Tags => Some(names(&case.tags)),
        Kind::Evidence => uniform_evidence(case, slot.dimension.as_deref()?),
        _ => slot_text(case.value(slot.field)?),
    }
}

/// A plain value as a slot writes it (`slot_statement`): a text, or names joined by
/// spaces; any other value is no slot's (the slots of [`slots`] are of these forms).
fn slot_text(value: &Value) -> Option<Written> {
    match value {
        Value::Text(t) => Some(t.as_str().to_string()),
        Value::Names(ns) => Some(names(ns)),
        _ => None,
    }
}

fn names(ns: &[Name]) -> Written {
    ns.iter().map(|n| n.as_str()).collect::<Vec<_>>().join(" ")
}

/// The evidence every check of `dimension` has, when they agree.
fn uniform_evidence(case: &Case, dimension: &str) -> Option<Written> {
    let mut values = case
        .checks
        .iter()
        .filter(|c| c.dimension.as_str() == dimension)
        .map(|c| c.evidence.as_ref().map(|t| t.as_str()));
    let first = values.next()??;
    values.all(|v| v == Some(first)).then(|| first.to_string())
}

/// The value the stdlib profile gives `slot`.
fn profile_value(profile: Option<&Defaults>, slot: &Slot) -> Option<Written> {
    match profile?.get(slot.field)? {
        Given::Plain(value) => slot_text(value),
        Given::Text(t) => Some(t.as_str().to_string()),
        Given::Name(n) => Some(n.as_str().to_string()),
        Given::Names(ns) => Some(names(ns)),
        Given::Evidence(all) => {
            let dimension = slot.dimension.as_deref()?;
            all.iter()
                .find(|(d, _)| d == dimension)
                .map(|(_, t)| t.as_str().to_string())
        }
        _ => None,
    }
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

/// Where each slot's value is written.
pub(super) struct Plan {
    pub(super) slots: Vec<Slot>,
    /// Per slot: the suite's own value (None: from the profile, or absent).
    pub(super) suite: Vec<Option<Written>>,
    /// Per category name, per slot: the category's own value.
    pub(super) categories: HashMap<String, Vec<Option<Written>>>,
    /// Per category name (`""` for cases without one), per slot: what a case inherits.
    pub(super) inherited: HashMap<String, Vec<Option<Written>>>,
}

impl Plan {
    /// The value a case of `category` inherits for `slot`.
    pub(super) fn inherited(&self, category: Option<&Name>, slot: usize) -> Option<&Written> {
        let key = category.map_or("", |t| t.as_str());
        self.inherited.get(key)?.get(slot)?.as_ref()
    }
}

/// The slots of a shape: its inherited fields the input gave, an evidence field once
/// per dimension of the grading and of the checks.
fn slots(suite: &Suite, known: &[bool]) -> Vec<Slot> {
    let shape = &suite.shape;
    let mut dimensions: Vec<String> = shape
        .grading
        .dimensions
        .iter()
        .map(|d| d.name.as_str().to_string())
        .collect();
    for check in suite.cases.iter().flat_map(|c| &c.checks) {
        if !dimensions.iter().any(|d| d == check.dimension.as_str()) {
            dimensions.push(check.dimension.as_str().to_string());
        }
    }
    let mut out = Vec::new();
    let given = |f: usize| known.get(f).copied().unwrap_or(false);
    for (field, decl) in shape
        .case_fields
        .iter()
        .enumerate()
        .filter(|(f, d)| d.inherited && given(*f))
    {
        match decl.kind {
            Kind::Evidence => out.extend(dimensions.iter().map(|d| Slot {
                field,
                dimension: Some(d.clone()),
            })),
            Kind::Category => {}
            // A slot is written as a text or a line of names (`slot_statement`); other
            // values stay each case's own.
            kind if kind
                .form()
                .is_some_and(|f| !matches!(f, Form::Text | Form::Names)) => {}
            _ => out.push(Slot {
                field,
                dimension: None,
            }),
        }
    }
    out
}

pub(super) fn plan(suite: &Suite, profile: Option<&Defaults>, known: &[bool]) -> Plan {
    let shape = &suite.shape;
    let slots = slots(suite, known);
    let category = |c: &Case| c.category.as_ref().map_or("", |t| t.as_str()).to_string();
    let values: Vec<Vec<Option<Written>>> = suite
        .cases
        .iter()
        .map(|c| slots.iter().map(|s| case_value(c, shape, s)).collect())
        .collect();
    let mut suite_own = Vec::new();
    let mut suite_effective = Vec::new();
    for (i, slot) in slots.iter().enumerate() {
        // A value only one category uses belongs to that category, not the suite.
        let mode = shared(values.iter().filter_map(|v| v[i].as_ref())).filter(|m| {
            let mut users = suite
                .cases
                .iter()
                .zip(&values)
                .filter(|(_, v)| v[i].as_ref() == Some(m))
                .map(|(c, _)| category(c));
            let first = users.next();
            suite.categories.len() <= 1 || users.any(|c| Some(c) != first)
        });
        let from_profile = profile_value(profile, slot);
        let own = mode.clone().filter(|m| Some(m) != from_profile.as_ref());
        suite_effective.push(mode.or(from_profile));
        suite_own.push(own);
    }
    let mut categories = HashMap::new();
    let mut inherited = HashMap::new();
    inherited.insert(String::new(), suite_effective.clone());
    for c in &suite.categories {
        let name = c.name.as_str();
        let members: Vec<&Vec<Option<Written>>> = suite
            .cases
            .iter()
            .zip(&values)
            .filter(|(case, _)| category(case) == name)
            .map(|(_, v)| v)
            .collect();
        let mut own = Vec::new();
        let mut effective = Vec::new();
        for i in 0..slots.len() {
            let mode = shared(members.iter().filter_map(|v| v[i].as_ref()))
                .filter(|m| Some(m) != suite_effective[i].as_ref());
            effective.push(mode.clone().or_else(|| suite_effective[i].clone()));
            own.push(mode);
        }
        categories.insert(name.to_string(), own);
        inherited.insert(name.to_string(), effective);
    }
    Plan {
        slots,
        suite: suite_own,
        categories,
        inherited,
    }
}
