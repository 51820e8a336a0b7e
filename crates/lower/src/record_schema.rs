//! JSON Schemas of a suite's run records, lowered from its shape: the result record
//! (`layout result`, in the order of the suite's result template) and the judged record
//! (the same, with the `judgements` key `casec judge` adds).
//!
//! A record's keys are the shape's, so its schema is the suite's: `casec schema SUITE
//! --record result|judged` prints it, and the tests validate what replay, serve and the
//! judge write against it. Each built-in source has one type (the outcome one of the
//! suite's outcome names, a check result `pass`, `fail` or `needs_review`, a trace event
//! one of replay's event objects); a key the result template adds may hold anything.

use serde_json::{json, Map, Value as Json};

use crate::model::shape::{Builtin, Layout, LayoutSource, Slot};
use crate::model::Suite;

/// Which record a schema describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Record {
    Result,
    Judged,
}

/// The key the judge adds to a record.
pub const JUDGEMENTS: &str = "judgements";

/// The JSON Schema of `suite`'s records of the kind `record`.
pub fn record_schema(suite: &Suite, record: Record) -> Json {
    let layout = &suite.shape.result;
    let Json::Object(mut schema) = object_schema(suite, layout) else {
        return json!({});
    };
    let template = match suite.result_template.as_ref().map(|t| &t.value) {
        Some(Json::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    if let (Some(Json::Object(properties)), Some(Json::Array(required))) = (
        schema.get_mut("properties").map(std::mem::take),
        schema.get("required").cloned(),
    ) {
        let mut ordered = Map::new();
        let mut keys: Vec<Json> = Vec::new();
        for key in template.keys() {
            ordered.insert(
                key.clone(),
                properties.get(key).cloned().unwrap_or(json!({})),
            );
            keys.push(json!(key));
        }
        for (key, value) in properties {
            if !ordered.contains_key(&key) {
                ordered.insert(key.clone(), value);
            }
        }
        for key in required {
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        if record == Record::Judged {
            ordered.insert(JUDGEMENTS.into(), judgements_schema());
            keys.push(json!(JUDGEMENTS));
        }
        schema.insert("properties".into(), Json::Object(ordered));
        schema.insert("required".into(), Json::Array(keys));
    }
    let (title, what) = match record {
        Record::Result => ("result record", "What `casec replay`, `casec serve` and a harness following the suite's shape write for one run of a case: the shape's `layout result`, its keys in the order of the suite's result template."),
        Record::Judged => ("judged result record", "What `casec judge` writes: a result record with the judge's verdicts written in, its outcome recomputed, and how each review item was decided under `judgements`."),
    };
    let mut out = Map::new();
    out.insert(
        "$schema".into(),
        json!("https://json-schema.org/draft/2020-12/schema"),
    );
    out.insert(
        "title".into(),
        json!(format!("{} of {}", title, suite.name.as_str())),
    );
    out.insert("description".into(), json!(what));
    out.extend(schema);
    Json::Object(out)
}

fn object_schema(suite: &Suite, layout: &Layout) -> Json {
    let mut properties = Map::new();
    for entry in &layout.entries {
        let value = match &entry.value {
            Slot::Object(inner) => object_schema(suite, inner),
            Slot::Source {
                source: LayoutSource::Builtin(b),
                items: None,
            } => builtin_schema(suite, *b),
            Slot::Source { items: Some(_), .. } => json!({ "type": "array" }),
            Slot::Source { .. } => json!({}),
        };
        properties.insert(entry.key.as_str().to_string(), value);
    }
    let required: Vec<&String> = properties.keys().collect();
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": required,
        "properties": properties,
    })
}

fn strings() -> Json {
    json!({ "type": "array", "items": { "type": "string" }, "uniqueItems": true })
}

fn builtin_schema(suite: &Suite, builtin: Builtin) -> Json {
    match builtin {
        Builtin::CaseId => json!({
            "type": "string",
            "enum": suite.cases.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
        }),
        Builtin::Outcome => json!({ "type": "string", "enum": suite.outcome_names() }),
        Builtin::CheckResults => json!({
            "type": "object",
            "additionalProperties": { "enum": ["pass", "fail", "needs_review"] },
        }),
        Builtin::FailedAssertions => json!({
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": false,
                "required": ["check", "assertion", "found"],
                "properties": {
                    "check": { "type": "string" },
                    "assertion": { "type": "object", "required": ["kind"] },
                    "found": { "type": "string" },
                },
            },
        }),
        Builtin::Triggered | Builtin::PendingReview => strings(),
        Builtin::Trace => json!({ "type": "array", "items": event_schema() }),
        Builtin::FinalState => json!({ "type": "object" }),
        Builtin::Replies | Builtin::Model | Builtin::RunId => json!({ "type": "string" }),
        Builtin::Ending => json!({
            "oneOf": [
                { "type": "null" },
                {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["reason", "satisfaction", "verdict"],
                    "properties": {
                        "reason": { "enum": crate::model::shape::END_REASONS },
                        "satisfaction": { "type": ["integer", "null"], "minimum": 1, "maximum": 5 },
                        "verdict": { "type": ["string", "null"] },
                    },
                },
            ]
        }),
        Builtin::CaseTitle => json!({ "type": "string" }),
        Builtin::WebFaults => json!({ "type": "array", "items": { "type": "object" } }),
        Builtin::AllChecks
        | Builtin::Tools
        | Builtin::SuiteName
        | Builtin::Categories
        | Builtin::Cases
        | Builtin::Outcomes => json!({}),
    }
}

/// One event of a record's trace, as replay writes it.
fn event_schema() -> Json {
    let text = |kind: &str| {
        json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["type", "content"],
            "properties": { "type": { "const": kind }, "content": { "type": "string" } },
        })
    };
    let asked = |kind: &str, followup: bool| {
        let mut properties = json!({
            "type": { "const": kind },
            "content": { "type": "string" },
            "reply": { "type": "string" },
        });
        let mut required = vec!["type", "content", "reply"];
        if followup {
            properties["followup"] = json!({ "type": "integer", "minimum": 1 });
            required.push("followup");
        }
        json!({ "type": "object", "additionalProperties": false, "required": required, "properties": properties })
    };
    json!({
        "oneOf": [
            {
                "type": "object",
                "additionalProperties": false,
                "required": ["type", "tool", "arguments", "failed", "error", "intercepted", "returned", "changed"],
                "properties": {
                    "type": { "const": "call" },
                    "tool": { "type": "string" },
                    "arguments": { "type": "object" },
                    "failed": { "type": "boolean" },
                    "error": { "type": ["string", "null"] },
                    "intercepted": { "type": "boolean" },
                    "returned": { "type": "array", "items": { "type": "string" } },
                    "changed": { "type": "array", "items": { "type": "string" } },
                    "by_command": { "type": "string", "description": "The workspace command whose program made this request (absent: the assistant made the call)." },
                    "output": {
                        "type": "object",
                        "description": "A workspace command's exit code (null when a signal ended it) and the first bytes of its output.",
                        "additionalProperties": false,
                        "required": ["exit_code", "timed_out", "stdout", "stderr"],
                        "properties": {
                            "exit_code": { "type": ["integer", "null"] },
                            "timed_out": { "type": "boolean" },
                            "stdout": { "type": "string" },
                            "stderr": { "type": "string" },
                        },
                    },
                },
            },
            asked("asked", true),
            asked("question", false),
            text("reply"),
            {
                "type": "object",
                "additionalProperties": false,
                "required": ["type", "content"],
                "properties": {
                    "type": { "const": "user" },
                    "content": { "type": "string" },
                    "thought": { "type": "string", "description": "What a simulated person privately thought (never shown to the assistant)." },
                },
            },
            {
                "type": "object",
                "additionalProperties": false,
                "required": ["type", "reason", "satisfaction", "verdict"],
                "properties": {
                    "type": { "const": "end" },
                    "reason": { "enum": crate::model::shape::END_REASONS },
                    "satisfaction": { "type": ["integer", "null"], "minimum": 1, "maximum": 5 },
                    "verdict": { "type": ["string", "null"] },
                },
            },
            {
                "type": "object",
                "additionalProperties": false,
                "required": ["type", "message"],
                "properties": {
                    "type": { "const": "error" },
                    "message": { "type": "string", "description": "Why the assistant's turn failed (an observed conversation's agent error)." },
                },
            },
        ]
    })
}

/// The `judgements` of a judged record.
fn judgements_schema() -> Json {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["settings", "items"],
        "properties": {
            "settings": {
                "type": "object",
                "additionalProperties": false,
                "required": ["model", "prompt_version", "temperature", "seed"],
                "properties": {
                    "model": { "type": "string" },
                    "prompt_version": { "type": "string" },
                    "temperature": { "const": 0 },
                    "seed": { "type": "integer", "minimum": 0 },
                },
            },
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["kind", "item", "met", "reason", "source", "evidence_digest"],
                    "properties": {
                        "kind": { "enum": ["check", "critical_failure"] },
                        "item": { "type": "string" },
                        "met": { "type": ["boolean", "null"], "description": "A check met, or a critical failure committed; null: no verdict (the item stays for review)." },
                        "reason": { "type": "string" },
                        "source": { "enum": ["judge", "cache", "human", null] },
                        "author": { "type": "string", "description": "Who decided it, for a person's verdict." },
                        "evidence_digest": { "type": "string", "pattern": "^blake3:[0-9a-f]{64}$" },
                    },
                    "if": { "properties": { "source": { "const": "human" } } },
                    "then": { "required": ["author"] },
                },
            },
        },
    })
}
