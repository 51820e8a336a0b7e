//! Trace files: JSON Lines, one event per line, in the order they happened
//! (docs/traces.md, schemas/trace.schema.json):
//!
//! ```text
//! {"type": "call", "tool": "search_notes", "arguments": {"text": "bins"}}
//! {"type": "asked", "content": "Which day should it move to?"}
//! {"type": "question", "content": "Shall I also tell Maya?"}
//! {"type": "user", "content": "Thanks.", "thought": "Finally."}
//! {"type": "reply", "content": "Done: the reminder is now on Wednesday at 18:00."}
//! {"type": "end", "reason": "goal_met", "satisfaction": 5, "verdict": "It got it done."}
//! ```
//!
//! Results are not part of the input: the sandbox computes them. Blank lines are
//! skipped; any other line that is not such an event is reported at its line.
//!
//! A conversation observed elsewhere (`casec import` of a dataset's turns,
//! docs/people.md#observed-conversations) keeps what was observed beside the events:
//! an `episode` line first (its id, and who the person was), a call's `result` and
//! whether it `failed`, a user turn's `cited_by` (the cases whose evidence it is), and
//! `error` lines (the assistant's turn failed). Replay keeps none of it but the
//! errors: the sandbox computes its own results.
//!
//! A counter-example may also carry labels for the judge: `{"type": "violates",
//! "items": ["R1", "F2"], "why": "…"}` names the review items the wrong run violates
//! (a check it does not meet, a critical failure it commits). A label is no event:
//! [`parse_counter`] returns it beside the events, and [`parse`] refuses it, so a run's
//! trace cannot carry its own grading.

use serde_json::{Map, Value as Json};

use crate::diag::{codes, Diagnostic};
use crate::source::{nonblank_lines, FileId, Span};

#[derive(Clone, Debug, PartialEq)]
pub enum TraceEvent {
    Call {
        tool: String,
        arguments: Json,
        /// What the call got when it was observed; never used by a replay.
        observed: Option<Box<ObservedResult>>,
    },
    /// The assistant asked a clarifying question: one of the case's scripted
    /// follow-ups (`asked`, numbered from 1 by `followup`, default 1), or another
    /// question (`question`: `followup` is `None`), answered with the unscripted reply.
    Asked {
        question: String,
        followup: Option<usize>,
    },
    Reply(String),
    /// A message of the person: what they say, and what they privately think (a
    /// simulated person's; never shown to the assistant).
    User {
        content: String,
        thought: Option<String>,
        /// The cases whose evidence this turn is (an observed conversation's).
        cited_by: Vec<String>,
    },
    /// The person ended the conversation (or the harness did, at its turn limit).
    End(super::person::Ending),
    /// Which observed conversation this is, and who the person was, as observed.
    Episode(Box<Episode>),
    /// The assistant's turn failed (the harness's message).
    AgentError(String),
}

/// A call's result as observed: kept for the record, never replayed.
#[derive(Clone, Debug, PartialEq)]
pub struct ObservedResult {
    /// The result (null when not kept).
    pub result: Json,
    pub failed: Option<bool>,
}

/// The first line of an observed conversation. The person's fields are kept as the
/// dataset holds them (text, a list, null).
#[derive(Clone, Debug, PartialEq)]
pub struct Episode {
    /// A string or a number.
    pub id: Json,
    pub person: Json,
    pub persona: Json,
    pub goals: Json,
}

const EPISODE_KEYS: [&str; 3] = ["person", "persona", "goals"];

/// A counter-example's label: review items the wrong run violates, and why. In an
/// observed conversation, a reviewer's confirmed verdict names the case it grades the
/// conversation as (`case`).
#[derive(Clone, Debug, PartialEq)]
pub struct Violation {
    /// Check ids (not met) and critical-failure ids (committed).
    pub items: Vec<String>,
    pub why: Option<String>,
    /// The case the items are of (an observed conversation's label; a
    /// counter-example's labels are for its own case).
    pub case: Option<String>,
    /// The label's line.
    pub span: Span,
}

/// The events of a trace file, or the diagnostics of every malformed line (a label
/// among them: only counter-examples carry labels).
pub fn parse(file: FileId, text: &str) -> Result<Vec<TraceEvent>, Vec<Diagnostic>> {
    let (events, labels, mut diags) = read_lines(file, text);
    diags.extend(labels.iter().map(|l| {
        line_error(
            l.span,
            "a `violates` label in a run's trace".into(),
            "labels belong in counter-examples (`<ID>.counter-<LABEL>.trace.jsonl`); remove the line".into(),
        )
    }));
    if diags.is_empty() {
        Ok(events)
    } else {
        diags.sort_by_key(|d| d.primary_span().map(|s| s.start));
        Err(diags)
    }
}

/// The events and labels of a counter-example, or the diagnostics of every malformed
/// line.
pub fn parse_counter(
    file: FileId,
    text: &str,
) -> Result<(Vec<TraceEvent>, Vec<Violation>), Vec<Diagnostic>> {
    let (events, labels, diags) = read_lines(file, text);
    if diags.is_empty() {
        Ok((events, labels))
    } else {
        Err(diags)
    }
}

/// Every line read: the events, the labels and the diagnostics of malformed lines.
fn read_lines(file: FileId, text: &str) -> (Vec<TraceEvent>, Vec<Violation>, Vec<Diagnostic>) {
    let mut events = Vec::new();
    let mut labels = Vec::new();
    let mut diags = Vec::new();
    for (span, line) in nonblank_lines(file, text) {
        match event(line) {
            Ok(Line::Event(e)) => events.push(e),
            Ok(Line::Violates { items, why, case }) => labels.push(Violation {
                items,
                why,
                case,
                span,
            }),
            Err((label, help)) => diags.push(line_error(span, label, help)),
        }
    }
    (events, labels, diags)
}

fn line_error(span: Span, label: String, help: String) -> Diagnostic {
    Diagnostic::new(codes::TRACE_LINE, "this line is not a trace event")
        .primary(span, label)
        .help(help)
}

/// One line of a trace file.
enum Line {
    Event(TraceEvent),
    Violates {
        items: Vec<String>,
        why: Option<String>,
        case: Option<String>,
    },
}

const SHAPES: &str = "write one JSON object per line: {\"type\": \"call\", \"tool\": NAME, \"arguments\": {…}} (observed: may add \"result\" and \"failed\"), {\"type\": \"asked\", \"content\": TEXT} (a scripted follow-up; add \"followup\": N for the Nth), {\"type\": \"question\", \"content\": TEXT} (any other question), {\"type\": \"reply\", \"content\": TEXT}, {\"type\": \"user\", \"content\": TEXT} (the person; may add \"thought\": TEXT and \"cited_by\": [CASE-ID, …]), {\"type\": \"episode\", \"id\": ID, \"person\": …, \"persona\": …, \"goals\": …} (first line of an observed conversation), {\"type\": \"error\", \"message\": TEXT} (the assistant's turn failed) or {\"type\": \"end\", \"reason\": REASON, \"satisfaction\": 1-5, \"verdict\": TEXT} (a counter-example may add {\"type\": \"violates\", \"items\": [ID, …], \"why\": TEXT})";

fn event(line: &str) -> Result<Line, (String, String)> {
    let json: Json =
        serde_json::from_str(line).map_err(|e| (format!("not JSON: {e}"), SHAPES.to_string()))?;
    let Json::Object(object) = json else {
        return Err(("a JSON value that is not an object".into(), SHAPES.into()));
    };
    let kind = object
        .get("type")
        .and_then(Json::as_str)
        .unwrap_or_default();
    let allowed: &[&str] =
        match kind {
            "call" => &["type", "tool", "arguments", "result", "failed"],
            "asked" => &["type", "content", "followup"],
            "question" | "reply" => &["type", "content"],
            "user" => &["type", "content", "thought", "cited_by"],
            "end" => &["type", "reason", "satisfaction", "verdict"],
            "episode" => &["type", "id", "person", "persona", "goals"],
            "error" => &["type", "message"],
            "violates" => &["type", "items", "why", "case"],
            _ => return Err((
                "no `type` of call, asked, question, reply, user, end, episode, error or violates"
                    .into(),
                SHAPES.into(),
            )),
        };
    if let Some(extra) = object.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err((
            format!("`{extra}` is not a key of a `{kind}` event"),
            format!("a `{kind}` event has: {}", allowed.join(", ")),
        ));
    }
    match kind {
        "call" => call(&object).map(Line::Event),
        "violates" => violates(&object),
        "episode" => episode(&object).map(|e| Line::Event(TraceEvent::Episode(Box::new(e)))),
        "error" => text(&object, "message").map(|m| Line::Event(TraceEvent::AgentError(m))),
        "end" => super::person::Ending::from_json(&object)
            .map(|ending| Line::Event(TraceEvent::End(ending)))
            .map_err(|why| (why, "end a conversation with {\"type\": \"end\", \"reason\": \"goal_met\", \"satisfaction\": 4, \"verdict\": \"…\"}".into())),
        _ => {
            let content = text(&object, "content")?;
            Ok(Line::Event(match kind {
                "asked" => TraceEvent::Asked {
                    question: content,
                    followup: Some(followup_number(&object)?),
                },
                "question" => TraceEvent::Asked {
                    question: content,
                    followup: None,
                },
                "reply" => TraceEvent::Reply(content),
                _ => TraceEvent::User {
                    content,
                    thought: match object.get("thought") {
                        None | Some(Json::Null) => None,
                        Some(Json::String(t)) => Some(t.clone()),
                        Some(_) => return Err(("`thought` is not a string".into(), SHAPES.into())),
                    },
                    cited_by: cited_by(&object)?,
                },
            }))
        }
    }
}

fn violates(object: &Map<String, Json>) -> Result<Line, (String, String)> {
    let help = || {
        "name the review items the run violates, as ids of the case: {\"type\": \"violates\", \"items\": [\"R1\", \"F2\"], \"why\": \"…\"}".to_string()
    };
    let items: Vec<String> = match object.get("items") {
        Some(Json::Array(items)) if !items.is_empty() => items
            .iter()
            .map(|i| i.as_str().map(str::to_string))
            .collect::<Option<_>>()
            .ok_or_else(|| ("an item that is not a string".to_string(), help()))?,
        _ => return Err(("no non-empty list `items`".into(), help())),
    };
    let text = |key: &str| match object.get(key) {
        None => Ok(None),
        Some(Json::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err((format!("`{key}` is not a string"), help())),
    };
    Ok(Line::Violates {
        items,
        why: text("why")?,
        case: text("case")?,
    })
}

fn call(object: &Map<String, Json>) -> Result<TraceEvent, (String, String)> {
    let tool = text(object, "tool")?;
    let arguments = match object.get("arguments") {
        None => Json::Object(Map::new()),
        Some(Json::Object(m)) => Json::Object(m.clone()),
        Some(_) => return Err((
            "`arguments` is not an object".into(),
            "give the call's arguments as an object keyed by argument name: {\"name\": \"value\"}"
                .into(),
        )),
    };
    let observed = match (object.get("result"), object.get("failed")) {
        (None, None) => None,
        (result, failed) => Some(Box::new(ObservedResult {
            result: result.cloned().unwrap_or_default(),
            failed: match failed {
                None | Some(Json::Null) => None,
                Some(Json::Bool(b)) => Some(*b),
                Some(_) => {
                    return Err((
                        "`failed` is not true or false".into(),
                        "say whether the observed result was an error: \"failed\": true".into(),
                    ))
                }
            },
        })),
    };
    Ok(TraceEvent::Call {
        tool,
        arguments,
        observed,
    })
}

/// The case ids a user turn is the evidence of (none without `cited_by`).
fn cited_by(object: &Map<String, Json>) -> Result<Vec<String>, (String, String)> {
    match object.get("cited_by") {
        None | Some(Json::Null) => Ok(Vec::new()),
        Some(Json::Array(ids)) => ids
            .iter()
            .map(|id| id.as_str().map(str::to_string))
            .collect::<Option<_>>()
            .ok_or_else(|| {
                (
                    "a `cited_by` item that is not a string".into(),
                    "name the cases whose evidence this turn is: \"cited_by\": [\"CASE-ID\"]"
                        .into(),
                )
            }),
        Some(_) => Err((
            "`cited_by` is not a list".into(),
            "name the cases whose evidence this turn is: \"cited_by\": [\"CASE-ID\"]".into(),
        )),
    }
}

fn episode(object: &Map<String, Json>) -> Result<Episode, (String, String)> {
    let id = match object.get("id") {
        Some(id @ (Json::String(_) | Json::Number(_))) => id.clone(),
        _ => return Err((
            "no `id` that is a string or a number".into(),
            "name the observed conversation: {\"type\": \"episode\", \"id\": 8, \"person\": \"…\"}"
                .into(),
        )),
    };
    let [person, persona, goals] = EPISODE_KEYS.map(|k| object.get(k).cloned().unwrap_or_default());
    Ok(Episode {
        id,
        person,
        persona,
        goals,
    })
}

/// Which scripted follow-up an `asked` event answers: `followup`, from 1 (default 1).
fn followup_number(object: &Map<String, Json>) -> Result<usize, (String, String)> {
    match object.get("followup") {
        None => Ok(1),
        Some(n) => n
            .as_u64()
            .filter(|n| *n >= 1)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| {
                (
                    "`followup` is not a follow-up number".into(),
                    "number the case's follow-ups from 1, in the order they are written: \"followup\": 2".into(),
                )
            }),
    }
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
            TraceEvent::Call {
                tool,
                arguments,
                observed,
            } => {
                let mut line =
                    serde_json::json!({ "type": "call", "tool": tool, "arguments": arguments });
                if let Some(observed) = observed {
                    if !observed.result.is_null() {
                        line["result"] = observed.result.clone();
                    }
                    if let Some(failed) = observed.failed {
                        line["failed"] = failed.into();
                    }
                }
                line
            }
            TraceEvent::Asked {
                question,
                followup: None,
            } => serde_json::json!({ "type": "question", "content": question }),
            TraceEvent::Asked {
                question,
                followup: Some(1),
            } => serde_json::json!({ "type": "asked", "content": question }),
            TraceEvent::Asked {
                question,
                followup: Some(n),
            } => serde_json::json!({ "type": "asked", "content": question, "followup": n }),
            TraceEvent::Reply(content) => {
                serde_json::json!({ "type": "reply", "content": content })
            }
            TraceEvent::User {
                content,
                thought,
                cited_by,
            } => {
                let mut line = serde_json::json!({ "type": "user", "content": content });
                if let Some(thought) = thought {
                    line["thought"] = thought.as_str().into();
                }
                if !cited_by.is_empty() {
                    line["cited_by"] = cited_by.clone().into();
                }
                line
            }
            TraceEvent::Episode(episode) => {
                let mut line = serde_json::json!({ "type": "episode", "id": episode.id });
                for (key, value) in
                    EPISODE_KEYS
                        .iter()
                        .zip([&episode.person, &episode.persona, &episode.goals])
                {
                    if !value.is_null() {
                        line[*key] = value.clone();
                    }
                }
                line
            }
            TraceEvent::AgentError(message) => {
                serde_json::json!({ "type": "error", "message": message })
            }
            TraceEvent::End(ending) => {
                let mut line = serde_json::json!({ "type": "end" });
                if let (Json::Object(line), Json::Object(ending)) = (&mut line, ending.to_json()) {
                    line.extend(ending);
                }
                line
            }
        }
    }
}
