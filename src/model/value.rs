//! Typed values of world records, conditions and tool arguments, and their JSON form.

use std::collections::HashMap;

use chrono::{NaiveDate, NaiveTime};
use serde_json::Value as Json;

use super::time::{self, Recurrence, ZonedDateTime};

#[derive(Clone, Debug, PartialEq)]
pub enum FieldValue {
    Text(String),
    Date(NaiveDate),
    Time(NaiveTime),
    DateTime(ZonedDateTime),
    /// Minutes.
    Duration(u64),
    Recurrence(Recurrence),
    Bool(bool),
    Number(serde_json::Number),
    Enum(String),
    /// A record id.
    Ref(String),
    List(Vec<FieldValue>),
}

impl FieldValue {
    /// The sandbox form: RFC 3339 datetimes, `HH:MM` times, ISO 8601 durations, RRULEs.
    pub fn to_json(&self) -> Json {
        match self {
            FieldValue::Text(s) | FieldValue::Enum(s) | FieldValue::Ref(s) => {
                Json::String(s.clone())
            }
            FieldValue::Date(d) => Json::String(d.format("%Y-%m-%d").to_string()),
            FieldValue::Time(t) => Json::String(time::render_time(*t)),
            FieldValue::DateTime(dt) => Json::String(dt.render()),
            FieldValue::Duration(m) => Json::String(time::render_duration(*m)),
            FieldValue::Recurrence(r) => Json::String(time::render_recurrence(r)),
            FieldValue::Bool(b) => Json::Bool(*b),
            FieldValue::Number(n) => Json::Number(n.clone()),
            FieldValue::List(items) => Json::Array(items.iter().map(FieldValue::to_json).collect()),
        }
    }
}

/// Record ids known in a case (its world and the ids it declares new), with their
/// collection.
pub type IdIndex = HashMap<String, String>;
