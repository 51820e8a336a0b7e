//! Tools run by an external program speaking the adapter protocol (docs/tools.md):
//! one JSON object per line on its standard input and output, one request and one
//! answer per call, for as long as the session lasts.
//!
//! casec sends the call and the state it needs: the tool, its (validated) arguments,
//! the case clock, and the records of the collections the adapter `reads`. The program
//! answers with the result and the record changes it wants: creates, updates, deletes
//! of collections it `writes`. casec keeps the state, the trace, the overrides and the
//! evaluation: it checks every change against the schema and applies all of them or
//! none. A program that cannot start, exits, answers garbage, changes what it may not,
//! or takes longer than [`ANSWER_TIMEOUT`] fails the call with `ADAPTER_ERROR`.
//! Replays are deterministic when the program is.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write as _};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use serde_json::{json, Map, Value as Json};

use crate::model::tool::{Adapter, Tool};
use crate::model::value::FieldValue;

use super::services::records::{create_record, typed_fields};
use super::{Outcome, Runtime};

/// The protocol revision casec speaks, sent with every request.
pub const PROTOCOL: &str = "casec-adapter/1";

/// How long casec waits for an answer to one call.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// The adapter programs of a session, started on their tool's first call.
#[derive(Default)]
pub struct Adapters {
    running: HashMap<String, Process>,
}

struct Process {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn run(rt: &mut Runtime, tool: &Tool, spec: &Adapter, arguments: &Json) -> Outcome {
    let request = request(rt, tool, spec, arguments);
    let answer = match exchange(rt, tool, spec, &request) {
        Ok(answer) => answer,
        Err(why) => {
            // A program that failed once is not trusted with the next call: restart it.
            rt.adapters.running.remove(tool.name.as_str());
            return adapter_error(tool, why);
        }
    };
    apply(rt, tool, spec, answer).unwrap_or_else(|why| adapter_error(tool, why))
}

fn adapter_error(tool: &Tool, why: String) -> Outcome {
    Outcome::error(
        "ADAPTER_ERROR",
        format!("the adapter of `{}` failed: {why}", tool.name.as_str()),
    )
}

fn request(rt: &Runtime, tool: &Tool, spec: &Adapter, arguments: &Json) -> Json {
    let collections: Map<String, Json> = rt
        .sandbox
        .schema
        .collections
        .iter()
        .filter(|c| {
            spec.reads
                .as_ref()
                .is_none_or(|r| r.iter().any(|n| n.as_str() == c.name.as_str()))
        })
        .map(|c| {
            let records = rt
                .state
                .in_collection(c.name.as_str())
                .map(|r| r.to_json())
                .collect();
            (c.name.as_str().to_string(), Json::Array(records))
        })
        .collect();
    json!({
        "protocol": PROTOCOL,
        "case_id": rt.case.id.as_str(),
        "tool": tool.name.as_str(),
        "arguments": arguments,
        "clock": { "current_time": rt.case.clock_text(), "timezone": rt.case.timezone_text() },
        "collections": collections,
    })
}

/// Sends one request line and waits for one answer line.
fn exchange(rt: &mut Runtime, tool: &Tool, spec: &Adapter, request: &Json) -> Result<Json, String> {
    let root = rt.root.clone();
    let name = tool.name.as_str().to_string();
    if !rt.adapters.running.contains_key(&name) {
        let process = start(spec, root.as_deref())?;
        rt.adapters.running.insert(name.clone(), process);
    }
    let Some(process) = rt.adapters.running.get_mut(&name) else {
        return Err("it is not running".into());
    };
    writeln!(process.stdin, "{request}")
        .and_then(|()| process.stdin.flush())
        .map_err(|e| format!("cannot write to it: {e}"))?;
    let line = process.lines.recv_timeout(ANSWER_TIMEOUT).map_err(|_| {
        format!(
            "no answer within {} s (or it exited)",
            ANSWER_TIMEOUT.as_secs()
        )
    })?;
    serde_json::from_str(&line).map_err(|e| format!("its answer is not JSON: {e}"))
}

fn start(spec: &Adapter, root: Option<&Path>) -> Result<Process, String> {
    let Some((program, args)) = spec.command.split_first() else {
        return Err("no command".into());
    };
    let mut command = Command::new(program.as_str());
    command
        .args(args.iter().map(|a| a.as_str()))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    if let Some(root) = root {
        command.current_dir(root);
    }
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", program.as_str()))?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        return Err("no standard input or output".into());
    };
    let (sender, lines) = mpsc::channel();
    // The reader thread ends when the program closes its output (it exits or is killed).
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    Ok(Process {
        child,
        stdin,
        lines,
    })
}

/// A change the program asked for, checked against the schema before any is applied.
enum Change {
    Create(String, Vec<(String, FieldValue)>),
    Update(String, Vec<(String, Option<FieldValue>)>),
    Delete(String),
}

fn apply(rt: &mut Runtime, tool: &Tool, spec: &Adapter, answer: Json) -> Result<Outcome, String> {
    if let Some(code) = answer.get("error").and_then(Json::as_str) {
        let message = answer
            .get("message")
            .and_then(Json::as_str)
            .unwrap_or_default();
        return Ok(Outcome::error(code, message));
    }
    let result = match answer.get("result") {
        Some(Json::Object(m)) => m.clone(),
        None => Map::new(),
        Some(_) => return Err("`result` is not an object".into()),
    };
    let changes = match answer.get("changes") {
        None | Some(Json::Null) => Vec::new(),
        Some(Json::Array(items)) => items
            .iter()
            .map(|c| change(rt, spec, c))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("`changes` is not a list".into()),
    };
    // All or none: a change that fails (a create without a required field) restores
    // the state the call found.
    let before = rt.state.clone();
    let applied = apply_changes(rt, tool, changes);
    if applied.is_err() {
        rt.state = before;
    }
    let (returned, changed, created) = applied?;
    let mut result = result;
    if !created.is_empty() {
        result.insert("created".into(), json!(created));
    }
    Ok(Outcome::ok(Json::Object(result), returned, changed))
}

/// Ids returned, changed and created by a call's changes.
type Applied = (Vec<String>, Vec<String>, Vec<String>);

/// Applies checked changes in order; stops at the first that fails.
fn apply_changes(rt: &mut Runtime, tool: &Tool, changes: Vec<Change>) -> Result<Applied, String> {
    let (mut returned, mut changed, mut created) = (Vec::new(), Vec::new(), Vec::new());
    let now = rt.case.clock_text().to_string();
    let schema = rt.sandbox.schema.clone();
    for c in changes {
        match c {
            Change::Create(collection, fields) => {
                let Some(collection) = schema.collection(&collection) else {
                    continue;
                };
                let done = create_record(rt, collection, fields);
                if done.failed() {
                    return Err(done.result["message"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string());
                }
                created.extend(done.changed.iter().cloned());
                returned.extend(done.returned);
                changed.extend(done.changed);
            }
            Change::Update(id, fields) => {
                let collection = rt
                    .state
                    .get(&id)
                    .map(|r| r.collection.clone())
                    .unwrap_or_default();
                let Some(collection) = schema.collection(&collection) else {
                    continue;
                };
                if let Some(record) = rt.state.get_mut(&id) {
                    if record.apply(fields, &now, Some(tool.name.as_str()), collection) {
                        changed.push(id.clone());
                    }
                    returned.push(id);
                }
            }
            Change::Delete(id) => {
                rt.state.remove(&id);
                changed.push(id);
            }
        }
    }
    Ok((returned, changed, created))
}

/// Reads and checks one change: `{"create": COLLECTION, "fields": {…}}`,
/// `{"update": ID, "fields": {…}}` or `{"delete": ID}`, of a collection it `writes`.
fn change(rt: &Runtime, spec: &Adapter, c: &Json) -> Result<Change, String> {
    let may_write = |collection: &str| -> Result<(), String> {
        if spec.writes.iter().any(|w| w.as_str() == collection) {
            Ok(())
        } else {
            Err(format!("it may not write {collection}"))
        }
    };
    let schema = &rt.sandbox.schema;
    let typed = |collection: &str, fields: Option<&Json>| {
        let spec = schema
            .collection(collection)
            .ok_or(format!("no collection `{collection}`"))?;
        typed_fields(rt, spec, fields).map_err(|refusal| {
            refusal.result["message"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
    };
    if let Some(collection) = c.get("create").and_then(Json::as_str) {
        may_write(collection)?;
        let fields = typed(collection, c.get("fields"))?
            .into_iter()
            .filter_map(|(n, v)| Some((n, v?)))
            .collect();
        return Ok(Change::Create(collection.to_string(), fields));
    }
    let existing = |key: &str| -> Result<Option<(String, String)>, String> {
        let Some(id) = c.get(key).and_then(Json::as_str) else {
            return Ok(None);
        };
        let record = rt.state.get(id).ok_or(format!("no record `{id}`"))?;
        may_write(&record.collection)?;
        Ok(Some((id.to_string(), record.collection.clone())))
    };
    if let Some((id, collection)) = existing("update")? {
        return Ok(Change::Update(id, typed(&collection, c.get("fields"))?));
    }
    if let Some((id, _)) = existing("delete")? {
        return Ok(Change::Delete(id));
    }
    Err(format!(
        "`{c}` is not a change: give `create`, `update` or `delete`"
    ))
}
