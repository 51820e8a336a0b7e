//! Trace files: JSON Lines, one event per line, in the order they happened
//! (docs/traces.md, schemas/trace.schema.json):
//!
//! ```text
//! {"type": "call", "tool": "read_records", "arguments": {"collection": "reminders", "query": "bins"}}
//! {"type": "asked", "content": "Which day should it move to?"}
//! {"type": "user", "content": "Thanks."}
//! {"type": "reply", "content": "Done: the reminder is now on Wednesday at 18:00."}
//! ```
//!
//! Results are not part of the input: the sandbox computes them. Blank lines are
//! skipped; any other line that is not such an event is reported at its line.

use serde_json::{Map, Value as Json};

use crate::diag::{codes, Diagnostic};
use crate::source::{FileId, Span};

#[derive(Clone, Debug, PartialEq)]
pub enum TraceEvent {
    Call {
        tool: String,
        arguments: Json,
    },
    /// The assistant asked the case's scripted follow-up question.
    Asked {
        question: String,
    },
    Reply(String),
    User(String),
}

/// The events of a trace file, or the diagnostics of every malformed line.
pub fn parse(file: FileId, text: &str) -> Result<Vec<TraceEvent>, Vec<Diagnostic>> {
    let mut events = Vec::new();
    let mut diags = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let span = Span::new(file, offset..offset + line.trim_end().len());
        offset += line.len();
        if line.trim().is_empty() {
            continue;
        }
        match event(line) {
            Ok(e) => events.push(e),
            Err((label, help)) => diags.push(
                Diagnostic::error(codes::TRACE_LINE, "this line is not a trace event")
                    .primary(span, label)
                    .help(help),
            ),
        }
    }
    if diags.is_empty() {
        Ok(events)
    } else {
        Err(diags)
    }
}

const SHAPES: &str = "write one JSON object per line: {\"type\": \"call\", \"tool\": NAME, \"arguments\": {…}}, {\"type\": \"asked\", \"content\": TEXT}, {\"type\": \"reply\", \"content\": TEXT} or {\"type\": \"user\", \"content\": TEXT}";

fn event(line: &str) -> Result<TraceEvent, (String, String)> {
    let json: Json =
        serde_json::from_str(line).map_err(|e| (format!("not JSON: {e}"), SHAPES.to_string()))?;
    let Json::Object(object) = json else {
        return Err(("a JSON value that is not an object".into(), SHAPES.into()));
    };
    let kind = object
        .get("type")
        .and_then(Json::as_str)
        .unwrap_or_default();
    let allowed: &[&str] = match kind {
        "call" => &["type", "tool", "arguments"],
        "asked" | "reply" | "user" => &["type", "content"],
        _ => {
            return Err((
                "no `type` of call, asked, reply or user".into(),
                SHAPES.into(),
            ))
        }
    };
    if let Some(extra) = object.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err((
            format!("`{extra}` is not a key of a `{kind}` event"),
            format!("a `{kind}` event has: {}", allowed.join(", ")),
        ));
    }
    match kind {
        "call" => call(&object),
        _ => {
            let content = text(&object, "content")?;
            Ok(match kind {
                "asked" => TraceEvent::Asked { question: content },
                "reply" => TraceEvent::Reply(content),
                _ => TraceEvent::User(content),
            })
        }
    }
}

fn call(object: &Map<String, Json>) -> Result<TraceEvent, (String, String)> {
    let tool = text(object, "tool")?;
    let arguments = match object.get("arguments") {
        None => Json::Object(Map::new()),
        Some(Json::Object(m)) => Json::Object(m.clone()),
        Some(_) => return Err(("`arguments` is not an object".into(), "give the call's arguments as an object keyed by argument name: {\"collection\": \"reminders\"}".into())),
    };
    Ok(TraceEvent::Call { tool, arguments })
}

fn text(object: &Map<String, Json>, key: &str) -> Result<String, (String, String)> {
    object
        .get(key)
        .and_then(Json::as_str)
        .map(str::to_string)
        .ok_or_else(|| (format!("no string `{key}`"), SHAPES.to_string()))
}

impl TraceEvent {
    /// The event as a line of a trace file.
    pub fn to_json(&self) -> Json {
        match self {
            TraceEvent::Call { tool, arguments } => {
                serde_json::json!({ "type": "call", "tool": tool, "arguments": arguments })
            }
            TraceEvent::Asked { question } => {
                serde_json::json!({ "type": "asked", "content": question })
            }
            TraceEvent::Reply(content) => {
                serde_json::json!({ "type": "reply", "content": content })
            }
            TraceEvent::User(content) => serde_json::json!({ "type": "user", "content": content }),
        }
    }
}
