//! Conditions evaluated against records and tool calls (the typed conditions of
//! `model::expect`).
//!
//! On a record, a path is a field, then `.FIELD` through a reference (resolved in the
//! state being examined) or `.date`/`.time` of a datetime. On a call, a path starts
//! with an argument and is typed by the tool's declaration: into an object's members,
//! into a `fields` argument's record (typed by the collection the call names), through
//! a reference, into a datetime. A value that cannot be read satisfies nothing but
//! `not` and `lacks`.

use chrono::{DateTime, FixedOffset};
use chrono_tz::Tz;
use serde_json::Value as Json;

use crate::model::expect::{Condition, Op, Operand};
use crate::model::time::ZonedDateTime;
use crate::model::tool::{ArgType, Argument, Tool};
use crate::model::value::FieldValue;
use crate::model::world::WorldSchema;

use super::computed;
use super::state::{Rec, State};
use super::values::{datetime_part, from_json, normalize, satisfies, text_holds};

/// What conditions read: the schema, the case zone and the records references reach.
#[derive(Clone, Copy)]
pub struct Cx<'a> {
    pub schema: &'a WorldSchema,
    pub zone: Tz,
    pub state: &'a State,
    /// The run's clock (the case's, moved on by its `clock_step`), which `now` in a condition reads (`None`: a case without one).
    pub now: Option<DateTime<FixedOffset>>,
}

pub fn record_matches(conditions: &[Condition], record: &Rec, cx: Cx) -> bool {
    first_unmet(conditions, record, cx).is_none()
}

/// The first of `conditions` the record does not meet.
pub fn first_unmet<'c>(conditions: &'c [Condition], record: &Rec, cx: Cx) -> Option<&'c Condition> {
    let place = |path: &str| record_path(record, path, cx);
    conditions.iter().find(|c| match c {
        Condition::Any(inner) => !inner
            .iter()
            .any(|c| record_matches(std::slice::from_ref(c), record, cx)),
        test => !holds(test, &place, cx),
    })
}

/// Whether a test (`Test` or `Compare`) holds at a place, a record or a call, whose
/// paths `place` reads. A side that cannot be read satisfies nothing (but `not` and
/// `lacks` of a value written as such).
fn holds(condition: &Condition, place: &dyn Fn(&str) -> Option<FieldValue>, cx: Cx) -> bool {
    let reads = computed::AtPlace { place, cx };
    let (actual, op, value) = match condition {
        Condition::Test { path, op, value } => (place(path), *op, value),
        Condition::Compare { left, op, value } => (computed::eval(left, &reads), *op, value),
        Condition::Any(_) => return false,
    };
    let other = match value {
        Operand::Path(other) => place(other),
        Operand::Computed(expr) => computed::eval(expr, &reads),
        value => return test(actual.as_ref(), op, value, cx),
    };
    match (actual, other) {
        (Some(actual), Some(other)) => satisfies(Some(&actual), op, &other),
        _ => false,
    }
}

/// Why the record does not meet `condition`: what it holds at the condition's path, and
/// what the condition asks, as the language writes it.
pub fn unmet_reason(condition: &Condition, record: &Rec, cx: Cx) -> String {
    let found =
        |v: Option<FieldValue>| v.map_or_else(|| "absent".to_string(), |v| v.to_json().to_string());
    match condition {
        Condition::Any(inner) => {
            let asked: Vec<String> = inner.iter().map(written).collect();
            format!("none of {} holds", asked.join(" | "))
        }
        Condition::Test { path, .. } => {
            let found = found(record_path(record, path, cx));
            format!("`{path}` is {found}, expected {}", written(condition))
        }
        Condition::Compare { left, .. } => {
            let place = |path: &str| record_path(record, path, cx);
            let found = found(computed::eval(
                left,
                &computed::AtPlace { place: &place, cx },
            ));
            format!(
                "`{}` is {found}, expected {}",
                left.written(),
                written(condition)
            )
        }
    }
}

/// A condition as the language writes it: `PATH [OP] VALUE`, alternatives in `any`.
pub fn written(condition: &Condition) -> String {
    let (left, op, value) = match condition {
        Condition::Any(inner) => {
            let alternatives: Vec<String> = inner.iter().map(written).collect();
            return format!("any {{ {} }}", alternatives.join("; "));
        }
        Condition::Test { path, op, value } => (path.clone(), op, value),
        Condition::Compare { left, op, value } => (format!("\"{}\"", left.written()), op, value),
    };
    let value = match value {
        Operand::Computed(expr) => format!("\"{}\"", expr.written()),
        value => value.to_json().to_string(),
    };
    match op {
        Op::Eq => format!("{left} {value}"),
        op => format!("{left} {} {value}", op.as_str()),
    }
}

/// Whether a call of `tool` with `arguments` meets every condition.
pub fn call_matches(conditions: &[Condition], tool: &Tool, arguments: &Json, cx: Cx) -> bool {
    let place = |path: &str| call_path(tool, arguments, path, cx);
    conditions.iter().all(|c| match c {
        Condition::Any(inner) => inner
            .iter()
            .any(|c| call_matches(std::slice::from_ref(c), tool, arguments, cx)),
        test => holds(test, &place, cx),
    })
}

/// What the path (an argument, then members, fields or references) holds in a call.
pub fn call_path(tool: &Tool, arguments: &Json, path: &str, cx: Cx) -> Option<FieldValue> {
    let mut segments = path.split('.');
    let first = segments.next().unwrap_or_default();
    let rest: Vec<&str> = segments.collect();
    let argument = tool.argument(first)?;
    argument_value(argument, arguments, arguments.get(first)?, &rest, cx)
}

/// What an argument path holds in a call: a typed value, or a name as text.
fn argument_value(
    argument: &Argument,
    call: &Json,
    given: &Json,
    rest: &[&str],
    cx: Cx,
) -> Option<FieldValue> {
    match (&argument.ty, rest) {
        (ArgType::Field(ty), rest) => follow(
            from_json(given, ty, cx.zone).ok()?,
            rest.iter().copied(),
            cx,
        ),
        (ArgType::Collection | ArgType::Id, []) => {
            given.as_str().map(|s| FieldValue::Text(s.to_string()))
        }
        (ArgType::Object(members), [member, rest @ ..]) => {
            let member = members.iter().find(|m| m.name.as_str() == *member)?;
            argument_value(member, given, given.get(member.name.as_str())?, rest, cx)
        }
        (ArgType::Fields(of), [field, rest @ ..]) => {
            let collection = cx.schema.collection(call.get(of.as_str())?.as_str()?)?;
            let spec = collection.field(field)?;
            let value = from_json(given.get(*field)?, &spec.ty, cx.zone).ok()?;
            follow(value, rest.iter().copied(), cx)
        }
        _ => None,
    }
}

fn test(actual: Option<&FieldValue>, op: Op, value: &Operand, cx: Cx) -> bool {
    match value {
        Operand::Typed(expected) => satisfies(actual, op, expected),
        Operand::Now { minutes } => {
            let Some(now) = cx.now else {
                return false;
            };
            let at = now + chrono::Duration::minutes(*minutes);
            let expected = FieldValue::DateTime(ZonedDateTime {
                instant: at,
                zone: None,
            });
            satisfies(actual, op, &expected)
        }
        // Read by the callers, which know the record or call the paths are of.
        Operand::Path(_) | Operand::Computed(_) => false,
        Operand::Plain(text) => {
            let actual = actual.map(|v| json_text(v.to_json()));
            plain(actual.as_deref(), op, text)
        }
    }
}

fn json_text(value: Json) -> String {
    match value {
        Json::String(s) => s,
        other => other.to_string(),
    }
}

fn plain(actual: Option<&str>, op: Op, expected: &str) -> bool {
    let Some(actual) = actual else {
        return matches!(op, Op::Not | Op::Lacks);
    };
    // The text operators read the text as written, the others folded.
    if op.text_only() {
        return text_holds(op, actual, expected);
    }
    let (a, b) = (normalize(actual), normalize(expected));
    match op {
        Op::Eq | Op::In => a == b,
        Op::Not => a != b,
        Op::Contains => a.contains(&b),
        Op::Lacks => !a.contains(&b),
        Op::Before => a < b,
        Op::After => a > b,
        Op::Is | Op::HasWord | Op::Matches | Op::HasNumber => text_holds(op, actual, expected),
    }
}

/// The value at `path` of a record, following references through `cx.state`.
pub fn record_path(record: &Rec, path: &str, cx: Cx) -> Option<FieldValue> {
    let mut segments = path.split('.');
    let value = record.field(segments.next()?)?.clone();
    follow(value, segments, cx)
}

fn follow<'p>(
    mut value: FieldValue,
    segments: impl Iterator<Item = &'p str>,
    cx: Cx,
) -> Option<FieldValue> {
    for segment in segments {
        value = step(&value, segment, cx)?;
    }
    Some(value)
}

/// One segment of a path from `value`: into a datetime, through a reference, or through
/// each reference of a list (`reservation.flights.status`: the list of the flights'
/// statuses, without the ones a dangling reference or an absent field leaves out).
fn step(value: &FieldValue, segment: &str, cx: Cx) -> Option<FieldValue> {
    match value {
        FieldValue::DateTime(_) => datetime_part(value, segment, cx.zone),
        FieldValue::Ref(id) => cx.state.get(id)?.field(segment).cloned(),
        FieldValue::List(items) => Some(FieldValue::List(
            items
                .iter()
                .filter_map(|item| step(item, segment, cx))
                .collect(),
        )),
        _ => None,
    }
}
