//! Observed conversations as rows: a `turns` export lays out each turn of a suite's
//! observed conversations (the trace files of its `observed/` folder) as one JSON
//! object, keyed as the shape declares (a dataset's traces config); `casec import`
//! reads such rows back into trace files. Both directions are here so that one is
//! the other's inverse: an import succeeds only when its traces export the very same
//! rows again (docs/people.md#observed-conversations).
//!
//! A turn begins at a `user` event and runs to the next one: the person's message
//! and thought, the assistant's calls (with the results observed), its messages, a
//! failed turn's `error`, and the `end` of the conversation on the turn it ended in.
//! The `episode` line, first, names the conversation and keeps who the person was.

use serde_json::{Map, Value as Json};

use crate::model::shape::{CallPart, TurnEntry, TurnSource};
use crate::model::Name;

use super::person::Ending;
use super::trace::{Episode, ObservedResult, TraceEvent};

/// One turn of an observed conversation, as its events hold it.
struct Turn<'e> {
    number: usize,
    message: &'e str,
    thought: Option<&'e str>,
    cited_by: &'e [String],
    calls: Vec<Call<'e>>,
    replies: Vec<&'e str>,
    errors: Vec<&'e str>,
    end: Option<&'e Ending>,
}

/// A call of a turn: the tool, its arguments, and its result as observed.
struct Call<'e> {
    tool: &'e str,
    arguments: &'e Json,
    observed: Option<&'e ObservedResult>,
}

/// The rows of one conversation, one JSON Lines line each, or why its events do not
/// make rows.
pub fn rows(entries: &[TurnEntry], events: &[TraceEvent]) -> Result<String, String> {
    let Some(TraceEvent::Episode(episode)) = events.first() else {
        return Err("an observed conversation begins with an `episode` line".into());
    };
    let mut out = String::new();
    for turn in turns(&events[1..])? {
        let row: Map<String, Json> = entries
            .iter()
            .map(|e| {
                let value = source_value(e, episode, &turn);
                let value = match (e.json_text, value) {
                    (true, Json::Null) => Json::Null,
                    (true, value) => Json::String(value.to_string()),
                    (false, value) => value,
                };
                (e.key.as_str().to_string(), value)
            })
            .collect();
        out.push_str(&Json::Object(row).to_string());
        out.push('\n');
    }
    Ok(out)
}

fn turns(events: &[TraceEvent]) -> Result<Vec<Turn<'_>>, String> {
    let mut turns: Vec<Turn> = Vec::new();
    for event in events {
        if let TraceEvent::User {
            content,
            thought,
            cited_by,
        } = event
        {
            turns.push(Turn {
                number: turns.len() + 1,
                message: content,
                thought: thought.as_deref(),
                cited_by,
                calls: Vec::new(),
                replies: Vec::new(),
                errors: Vec::new(),
                end: None,
            });
            continue;
        }
        let Some(turn) = turns.last_mut() else {
            return Err(
                "an event before the person's first message belongs to no turn: an observed conversation's turns begin with a `user` line".into(),
            );
        };
        match event {
            TraceEvent::Call {
                tool,
                arguments,
                observed,
            } => turn.calls.push(Call {
                tool,
                arguments,
                observed: observed.as_deref(),
            }),
            TraceEvent::Reply(text) | TraceEvent::Asked { question: text, .. } => {
                turn.replies.push(text)
            }
            TraceEvent::AgentError(message) => turn.errors.push(message),
            TraceEvent::End(ending) if turn.end.is_none() => turn.end = Some(ending),
            TraceEvent::End(_) => {
                return Err(format!("turn {} ends the conversation twice", turn.number))
            }
            TraceEvent::Episode(_) => return Err("a second `episode` line".into()),
            // Began a turn above.
            TraceEvent::User { .. } => {}
        }
    }
    if let Some(ended) = turns.iter().position(|t| t.end.is_some()) {
        if ended + 1 < turns.len() {
            return Err(format!(
                "the conversation ends in turn {}, but turn {} follows",
                ended + 1,
                ended + 2
            ));
        }
    }
    Ok(turns)
}

fn source_value(entry: &TurnEntry, episode: &Episode, turn: &Turn) -> Json {
    let joined = |texts: &[&str]| match texts {
        [] => Json::Null,
        texts => Json::String(texts.join("\n\n")),
    };
    let ending = turn.end.map(Ending::to_json).unwrap_or_default();
    match entry.source {
        TurnSource::Episode => episode.id.clone(),
        TurnSource::Turn => turn.number.into(),
        TurnSource::Person => episode.person.clone(),
        TurnSource::Persona => episode.persona.clone(),
        TurnSource::Goals => episode.goals.clone(),
        TurnSource::Message => turn.message.into(),
        TurnSource::Thought => turn.thought.into(),
        TurnSource::Calls => Json::Array(
            turn.calls
                .iter()
                .map(|c| call(&entry.call_parts, c))
                .collect(),
        ),
        TurnSource::Reply => joined(&turn.replies),
        TurnSource::AgentError => joined(&turn.errors),
        TurnSource::EndReason => ending["reason"].clone(),
        TurnSource::Satisfaction => ending["satisfaction"].clone(),
        TurnSource::Verdict => ending["verdict"].clone(),
        TurnSource::CitedBy => turn.cited_by.into(),
    }
}

fn call(parts: &[(Name, CallPart)], call: &Call) -> Json {
    let observed = call.observed;
    Json::Object(
        parts
            .iter()
            .map(|(key, part)| {
                let value = match part {
                    CallPart::Tool => call.tool.into(),
                    CallPart::Arguments => call.arguments.clone(),
                    CallPart::Result => observed.map(|o| o.result.clone()).unwrap_or_default(),
                    CallPart::Failed => observed.and_then(|o| o.failed).into(),
                };
                (key.as_str().to_string(), value)
            })
            .collect(),
    )
}

/// A conversation read from rows: its file name stem (`<stem>.trace.jsonl`) and events.
#[derive(Debug)]
pub struct Conversation {
    pub name: String,
    pub events: Vec<TraceEvent>,
}

/// The conversations the rows hold, in their order, or what is wrong with each row
/// that could not be read (by its 0-based index among `rows`).
pub fn conversations(
    entries: &[TurnEntry],
    rows: &[Json],
) -> Result<Vec<Conversation>, Vec<(usize, String)>> {
    let mut read: Vec<Reading> = Vec::new();
    let mut errors = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        if let Err(e) = read_row(entries, row, &mut read) {
            errors.push((i, e));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(read
        .into_iter()
        .map(|r| Conversation {
            name: r.name,
            events: std::iter::once(TraceEvent::Episode(Box::new(r.episode)))
                .chain(r.turns)
                .collect(),
        })
        .collect())
}

/// A conversation as its rows are read: its episode, and the events of its turns.
struct Reading {
    name: String,
    episode: Episode,
    turns: Vec<TraceEvent>,
}

/// A row's value of each source, with the call parts of `calls` (JSON texts decoded).
type RowValues<'l> = Vec<(TurnSource, &'l [(Name, CallPart)], Json)>;

/// A row's values by source, every key of `entries` present.
fn values_by_source<'l>(entries: &'l [TurnEntry], row: &Json) -> Result<RowValues<'l>, String> {
    let Json::Object(object) = row else {
        return Err("not a JSON object".into());
    };
    if let Some(extra) = object
        .keys()
        .find(|k| !entries.iter().any(|e| e.key.as_str() == k.as_str()))
    {
        return Err(format!("`{extra}` is not a key of this export"));
    }
    entries
        .iter()
        .map(|e| {
            let key = e.key.as_str();
            let value = object.get(key).ok_or_else(|| format!("no `{key}`"))?;
            let value = match (e.json_text, value) {
                (true, Json::String(text)) => serde_json::from_str(text)
                    .map_err(|err| format!("`{key}` is not a JSON text: {err}"))?,
                (true, Json::Null) | (false, _) => value.clone(),
                (true, _) => return Err(format!("`{key}` is not a string holding JSON")),
            };
            Ok((e.source, e.call_parts.as_slice(), value))
        })
        .collect()
}

fn read_row(entries: &[TurnEntry], row: &Json, out: &mut Vec<Reading>) -> Result<(), String> {
    let values = values_by_source(entries, row)?;
    let get = |source: TurnSource| {
        values
            .iter()
            .find(|(s, _, _)| *s == source)
            .map_or(Json::Null, |(_, _, v)| v.clone())
    };
    let episode = Episode {
        id: match get(TurnSource::Episode) {
            id @ (Json::String(_) | Json::Number(_)) => id,
            _ => return Err("no episode id that is a string or a number".into()),
        },
        person: get(TurnSource::Person),
        persona: get(TurnSource::Persona),
        goals: get(TurnSource::Goals),
    };
    // The conversation this row continues, or a new one.
    let at = match out.last() {
        Some(last) if last.episode.id == episode.id => out.len() - 1,
        _ => {
            let name = file_name(&episode.id)?;
            if out.iter().any(|c| c.name == name) {
                return Err(format!(
                    "episode {name} was met before: the rows of an episode come together, in turn order"
                ));
            }
            out.push(Reading {
                name,
                episode: episode.clone(),
                turns: Vec::new(),
            });
            out.len() - 1
        }
    };
    let conversation = &mut out[at];
    let first = &conversation.episode;
    for (what, ours, theirs) in [
        ("person", &episode.person, &first.person),
        ("persona", &episode.persona, &first.persona),
        ("goals", &episode.goals, &first.goals),
    ] {
        if ours != theirs {
            return Err(format!("the {what} differs from the episode's first row"));
        }
    }
    let turn = conversation
        .turns
        .iter()
        .filter(|e| matches!(e, TraceEvent::User { .. }))
        .count()
        + 1;
    if conversation
        .turns
        .iter()
        .any(|e| matches!(e, TraceEvent::End(_)))
    {
        return Err(format!(
            "the conversation ended in turn {}, but this row is turn {turn}",
            turn - 1
        ));
    }
    let numbered =
        !entries.iter().any(|e| e.source == TurnSource::Turn) || get(TurnSource::Turn) == turn;
    // A misnumbered row still counts as its turn, so the rows after it are not
    // reported too.
    conversation.turns.extend(turn_events(&get, &values)?);
    match numbered {
        true => Ok(()),
        false => Err(format!(
            "expected turn {turn}: the turns of an episode are numbered from 1, in order"
        )),
    }
}

/// The events of one row: the person's message, the calls, the assistant's message,
/// its error, and the conversation's end.
fn turn_events(
    get: &dyn Fn(TurnSource) -> Json,
    values: &RowValues,
) -> Result<Vec<TraceEvent>, String> {
    let optional_text = |source: TurnSource, what: &str| match get(source) {
        Json::Null => Ok(None),
        Json::String(s) => Ok(Some(s)),
        _ => Err(format!("the {what} is not a string")),
    };
    let cited_by = match get(TurnSource::CitedBy) {
        Json::Array(ids) => ids
            .iter()
            .map(|id| id.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or("a `cited_by` id is not a string")?,
        Json::Null if !values.iter().any(|(s, _, _)| *s == TurnSource::CitedBy) => Vec::new(),
        _ => return Err("the citing cases are not a list of ids".into()),
    };
    let mut events = vec![TraceEvent::User {
        content: optional_text(TurnSource::Message, "person's message")?
            .ok_or("no message of the person: a turn begins with one")?,
        thought: optional_text(TurnSource::Thought, "private thought")?,
        cited_by,
    }];
    if let Some((_, parts, calls)) = values.iter().find(|(s, _, _)| *s == TurnSource::Calls) {
        let Json::Array(calls) = calls else {
            return Err("the tool calls are not a list".into());
        };
        for (i, c) in calls.iter().enumerate() {
            events.push(read_call(parts, c).map_err(|e| format!("tool call {}: {e}", i + 1))?);
        }
    }
    if let Some(reply) = optional_text(TurnSource::Reply, "assistant's reply")? {
        events.push(TraceEvent::Reply(reply));
    }
    if let Some(error) = optional_text(TurnSource::AgentError, "agent error")? {
        events.push(TraceEvent::AgentError(error));
    }
    let ending = [
        ("reason", TurnSource::EndReason),
        ("satisfaction", TurnSource::Satisfaction),
        ("verdict", TurnSource::Verdict),
    ]
    .map(|(key, source)| (key.to_string(), get(source)));
    if ending.iter().any(|(_, v)| !v.is_null()) {
        let ending = Ending::from_json(&ending.into_iter().collect())
            .map_err(|e| format!("the conversation's end: {e}"))?;
        events.push(TraceEvent::End(ending));
    }
    Ok(events)
}

fn read_call(parts: &[(Name, CallPart)], call: &Json) -> Result<TraceEvent, String> {
    let Json::Object(object) = call else {
        return Err("not an object".into());
    };
    if let Some(extra) = object
        .keys()
        .find(|k| !parts.iter().any(|(key, _)| key.as_str() == k.as_str()))
    {
        return Err(format!("`{extra}` is not a key of a call"));
    }
    let part = |wanted: CallPart| -> Result<Option<&Json>, String> {
        match parts.iter().find(|(_, p)| *p == wanted) {
            Some((key, _)) => object
                .get(key.as_str())
                .map(Some)
                .ok_or_else(|| format!("no `{}`", key.as_str())),
            None => Ok(None),
        }
    };
    let tool = match part(CallPart::Tool)? {
        Some(Json::String(tool)) => tool.clone(),
        _ => return Err("no tool name that is a string".into()),
    };
    let arguments = match part(CallPart::Arguments)? {
        Some(arguments @ Json::Object(_)) => arguments.clone(),
        None => Json::Object(Map::new()),
        Some(_) => return Err("the arguments are not an object".into()),
    };
    let failed = match part(CallPart::Failed)? {
        None | Some(Json::Null) => None,
        Some(Json::Bool(b)) => Some(*b),
        Some(_) => return Err("whether it failed is not true, false or null".into()),
    };
    let result = part(CallPart::Result)?.cloned().unwrap_or_default();
    let observed = (!result.is_null() || failed.is_some())
        .then(|| Box::new(ObservedResult { result, failed }));
    Ok(TraceEvent::Call {
        tool,
        arguments,
        observed,
    })
}

/// The trace file name (without `.trace.jsonl`) of an episode: its id, when that is a
/// safe file name.
pub fn file_name(id: &Json) -> Result<String, String> {
    let name = match id {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    };
    let safe = !name.is_empty()
        && !name.starts_with('.')
        && name.len() <= 100
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if safe {
        Ok(name)
    } else {
        Err(format!(
            "episode id {id} cannot name a file: use letters, digits, `-`, `_` and `.`"
        ))
    }
}

/// The order a `turns` export writes conversations in: by file name, digit runs
/// compared as numbers (`2` before `10`).
pub fn natural_order(a: &str, b: &str) -> std::cmp::Ordering {
    fn chunks(s: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        let bytes = s.as_bytes();
        for i in 1..=bytes.len() {
            if i == bytes.len() || bytes[i].is_ascii_digit() != bytes[start].is_ascii_digit() {
                out.push((bytes[start].is_ascii_digit(), &s[start..i]));
                start = i;
            }
        }
        out
    }
    fn key((digits, text): (bool, &str)) -> (bool, usize, &str) {
        let trimmed = text.trim_start_matches('0');
        (
            !digits,
            if digits { trimmed.len() } else { 0 },
            if digits { trimmed } else { text },
        )
    }
    chunks(a)
        .into_iter()
        .map(key)
        .cmp(chunks(b).into_iter().map(key))
        .then_with(|| a.cmp(b))
}
