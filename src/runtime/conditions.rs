//! Conditions evaluated against records and tool calls (the typed conditions of
//! `world::filters`).
//!
//! On a record, a path is a field, then `.FIELD` through a reference (resolved in the
//! state being examined) or `.date`/`.time` of a datetime. On a call, a path is an
//! argument compared as text, or `fields.PATH`: a field of the record the call carries,
//! typed by the collection the call names. A value that cannot be read satisfies
//! nothing but `not` and `lacks`.

use chrono_tz::Tz;
use serde_json::Value as Json;

use crate::model::expect::{Condition, Op, Operand};
use crate::model::value::FieldValue;
use crate::model::world::WorldSchema;

use super::state::{Rec, State};
use super::values::{datetime_part, from_json, normalize, satisfies};

/// What conditions read: the schema, the case zone and the records references reach.
#[derive(Clone, Copy)]
pub struct Cx<'a> {
    pub schema: &'a WorldSchema,
    pub zone: Tz,
    pub state: &'a State,
}

pub fn record_matches(conditions: &[Condition], record: &Rec, cx: Cx) -> bool {
    conditions.iter().all(|c| match c {
        Condition::Any(inner) => inner
            .iter()
            .any(|c| record_matches(std::slice::from_ref(c), record, cx)),
        Condition::Test { path, op, value } => {
            let actual = record_path(record, path, cx);
            test(actual.as_ref(), *op, value)
        }
    })
}

pub fn call_matches(conditions: &[Condition], arguments: &Json, cx: Cx) -> bool {
    conditions.iter().all(|c| match c {
        Condition::Any(inner) => inner
            .iter()
            .any(|c| call_matches(std::slice::from_ref(c), arguments, cx)),
        Condition::Test { path, op, value } => match path.strip_prefix("fields.") {
            Some(field_path) => {
                let actual = carried_field(arguments, field_path, cx);
                test(actual.as_ref(), *op, value)
            }
            None => {
                let expected = match value {
                    Operand::Plain(text) => text.clone(),
                    Operand::Typed(v) => json_text(v.to_json()),
                };
                plain(
                    argument_text(arguments.get(path.as_str())).as_deref(),
                    *op,
                    &expected,
                )
            }
        },
    })
}

fn test(actual: Option<&FieldValue>, op: Op, value: &Operand) -> bool {
    match value {
        Operand::Typed(expected) => satisfies(actual, op, expected),
        Operand::Plain(text) => {
            let actual = actual.map(|v| json_text(v.to_json()));
            plain(actual.as_deref(), op, text)
        }
    }
}

/// An argument as text: strings as written, numbers and the rest as JSON.
pub fn argument_text(value: Option<&Json>) -> Option<String> {
    match value? {
        Json::Null => None,
        Json::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
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
    let (a, b) = (normalize(actual), normalize(expected));
    match op {
        Op::Eq | Op::In => a == b,
        Op::Not => a != b,
        Op::Contains => a.contains(&b),
        Op::Lacks => !a.contains(&b),
        Op::Before => a < b,
        Op::After => a > b,
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
        value = match &value {
            FieldValue::DateTime(_) => datetime_part(&value, segment, cx.zone)?,
            FieldValue::Ref(id) => cx.state.get(id)?.field(segment)?.clone(),
            _ => return None,
        };
    }
    Some(value)
}

/// `fields.PATH` of a call: the carried field, typed by the call's collection.
fn carried_field(arguments: &Json, path: &str, cx: Cx) -> Option<FieldValue> {
    let collection = cx
        .schema
        .collection(arguments.get("collection")?.as_str()?)?;
    let mut segments = path.split('.');
    let name = segments.next()?;
    let spec = collection.field(name)?;
    let value = from_json(arguments.get("fields")?.get(name)?, &spec.ty, cx.zone).ok()?;
    follow(value, segments, cx)
}
