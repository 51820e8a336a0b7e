//! Typed values of world records, conditions and tool arguments, and their JSON form.

use std::collections::HashMap;
use std::sync::Arc;

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;

use chrono::{NaiveDate, NaiveTime};
use serde_json::Value as Json;

use super::time::{self, Recurrence, ZonedDateTime};
use super::Text;

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
    Number(NumberValue),
    Enum(String),
    /// A record id.
    Ref(String),
    List(Vec<FieldValue>),
    /// A `bytes` field's content (a file's): exactly these bytes.
    Bytes(Bytes),
}

/// The content of a `bytes` field: the bytes, and, for a file the suite includes
/// (`content from "seed/sales.xlsx"`), the path inside the suite folder it is read from
/// (the bytes are empty until a compilation of the folder reads them).
#[derive(Clone, Debug)]
pub struct Bytes {
    pub data: Arc<[u8]>,
    pub from: Option<Text>,
}

impl PartialEq for Bytes {
    fn eq(&self, other: &Bytes) -> bool {
        self.data == other.data
    }
}

impl Bytes {
    pub fn new(data: impl Into<Arc<[u8]>>) -> Bytes {
        Bytes {
            data: data.into(),
            from: None,
        }
    }

    /// The content as text, when it is UTF-8.
    pub fn text(&self) -> Option<&str> {
        std::str::from_utf8(&self.data).ok()
    }

    /// The JSON form: the text for UTF-8 content, else `{"base64": "…"}`.
    pub fn to_json(&self) -> Json {
        match self.text() {
            Some(text) => Json::String(text.to_string()),
            None => serde_json::json!({ "base64": BASE64.encode(&self.data) }),
        }
    }

    /// The content from its JSON form (a text, or `{"base64": "…"}`).
    pub fn from_json(json: &Json) -> Result<Bytes, String> {
        match json {
            Json::String(text) => Ok(Bytes::new(text.as_bytes())),
            Json::Object(m) if m.len() == 1 => match m.get("base64").and_then(Json::as_str) {
                Some(encoded) => BASE64
                    .decode(encoded)
                    .map(Bytes::new)
                    .map_err(|e| format!("not base64: {e}")),
                None => Err("expected a text or {\"base64\": \"…\"}".into()),
            },
            _ => Err("expected a text or {\"base64\": \"…\"}".into()),
        }
    }

    /// The content's digest, as the sandbox JSON writes it (BLAKE3, hex).
    pub fn digest(&self) -> String {
        blake3::hash(&self.data).to_hex().to_string()
    }
}

/// A number as written (`1100` stays `1100`, `1100.0` stays `1100.0` in every output),
/// equal to another by value: setting `1100` over a stored `1100.0` changes nothing.
#[derive(Clone, Debug)]
pub struct NumberValue(pub serde_json::Number);

impl PartialEq for NumberValue {
    fn eq(&self, other: &NumberValue) -> bool {
        let (a, b) = (&self.0, &other.0);
        match a.is_f64() || b.is_f64() {
            // Integers beyond 2^53 compare exactly; a float compares as a float.
            false => a == b,
            true => a.as_f64() == b.as_f64(),
        }
    }
}

impl NumberValue {
    /// The value as a double, for ordering (any finite JSON number has one).
    pub fn as_f64(&self) -> Option<f64> {
        self.0.as_f64()
    }

    /// Whether a JSON number is whole: an integer, or a float without a fraction
    /// (`3.0`, since numbers compare by value): what an `integer` field takes.
    pub fn is_whole(n: &serde_json::Number) -> bool {
        n.is_i64()
            || n.is_u64()
            || n.as_f64()
                .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
    }
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
            FieldValue::Number(n) => Json::Number(n.0.clone()),
            FieldValue::List(items) => Json::Array(items.iter().map(FieldValue::to_json).collect()),
            FieldValue::Bytes(bytes) => bytes.to_json(),
        }
    }
}

/// Record ids known in a case (its world and the ids it declares new), with their
/// collection.
pub type IdIndex = HashMap<String, String>;
