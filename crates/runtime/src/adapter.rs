//! Tools run by an external program speaking the adapter protocol (docs/tools.md):
//! one JSON object per line on its standard input and output, one request and one
//! answer per call, for as long as the session lasts.
//!
//! casec sends the call and the state it needs: the tool, its (validated) arguments,
//! the run's clock, and the records of the collections the adapter `reads`. The program
//! answers with the result and the record changes it wants: creates, updates, deletes
//! of collections it `writes`. casec keeps the state, the trace, the overrides and the
//! evaluation: it checks every change against the schema and applies all of them or
//! none. A program that cannot start, exits, answers garbage or more than
//! [`MAX_ANSWER`] bytes, changes what it may not, or takes longer than its adapter's
//! `timeout_seconds` ([`Adapter::DEFAULT_TIMEOUT`] unless it says) fails the call with
//! `ADAPTER_ERROR`. Replays are deterministic
//! when the program is.
//!
//! A program is someone else's code, so it starts only with the user's consent
//! ([`super::trust`]), from the suite folder, with an environment holding only `PATH`
//! and the variables its adapter declares (`env`, never a credential's), in a process
//! group of its own that is killed as a whole when the session ends or the program is
//! restarted, under a memory limit ([`MEMORY_LIMIT`]), its standard error passed on up
//! to [`MAX_STDERR`] bytes (docs/security.md).

use std::collections::HashMap;
use std::io::{self, BufReader, Read, Write as _};
use std::path::Path;
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};

use serde_json::{json, Map, Value as Json};

use crate::capped_lines::{self, Line};
use crate::model::tool::{secret_variable, Adapter, Binding, Tool};
use crate::model::value::FieldValue;

use super::process;
use super::services::records::{create_record, typed_fields};
use super::trust::{self, Refused, Trust};
use super::{CallResult, Runtime};

/// The protocol revision casec speaks, sent with every request.
pub const PROTOCOL: &str = "casec-adapter/1";

/// The longest answer line casec reads (16 MiB, its line break included): a longer one
/// fails the call, so a program cannot make casec's memory grow without end.
pub const MAX_ANSWER: usize = 16 << 20;

/// The address space a program may use (`RLIMIT_AS`, 2 GiB; on Unix).
pub const MEMORY_LIMIT: u64 = 2 << 30;

/// How much of a program's standard error casec passes on to its own, per start
/// (64 KiB); the rest is read and dropped, so the program never blocks on it.
pub const MAX_STDERR: usize = 64 << 10;

/// The adapter programs of a session, started on their tool's first call.
#[derive(Default)]
pub struct Adapters {
    running: HashMap<String, Process>,
}

/// What the reader of a program's output hands over: an answer line, or why none
/// can be read.
type Answer = Result<String, String>;

struct Process {
    child: Child,
    stdin: ChildStdin,
    answers: Receiver<Answer>,
}

impl Drop for Process {
    fn drop(&mut self) {
        process::stop(&mut self.child);
    }
}

pub fn run(rt: &mut Runtime, tool: &Tool, spec: &Adapter, arguments: &Json) -> CallResult {
    let request = request(rt, tool, spec, arguments);
    match exchange(rt, tool, spec, &request).and_then(|line| parse(&line)) {
        Ok(answer) => apply(rt, tool, spec, answer).unwrap_or_else(|why| adapter_error(tool, why)),
        Err(why) => {
            // A program that failed once is not trusted with the next call: restart it.
            rt.adapters.running.remove(tool.name.as_str());
            adapter_error(tool, why)
        }
    }
}

/// What one answer line of `tool`'s adapter does to the sandbox: the call's outcome,
/// as [`run`] gives it once the line is read. Any line gives an outcome, never a
/// panic (the fuzz target `adapter_answer` feeds it arbitrary lines).
pub fn answer(rt: &mut Runtime, tool: &Tool, line: &str) -> CallResult {
    let Binding::Adapter(spec) = &tool.binding else {
        return adapter_error(tool, "the tool has no adapter".into());
    };
    match parse(line) {
        Ok(answer) => apply(rt, tool, spec, answer).unwrap_or_else(|why| adapter_error(tool, why)),
        Err(why) => adapter_error(tool, why),
    }
}

fn parse(line: &str) -> Result<Json, String> {
    serde_json::from_str(line).map_err(|e| format!("its answer is not JSON: {e}"))
}

fn adapter_error(tool: &Tool, why: String) -> CallResult {
    CallResult::error(
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
        "clock": { "current_time": rt.now_text(), "timezone": rt.case.timezone_text() },
        "collections": collections,
    })
}

/// Sends one request line and waits for one answer line.
fn exchange(
    rt: &mut Runtime,
    tool: &Tool,
    spec: &Adapter,
    request: &Json,
) -> Result<String, String> {
    let name = tool.name.as_str();
    if !rt.adapters.running.contains_key(name) {
        let process = start(spec, rt.root.as_deref(), rt.trust())?;
        rt.adapters.running.insert(name.to_string(), process);
    }
    let Some(process) = rt.adapters.running.get_mut(name) else {
        return Err("it is not running".into());
    };
    writeln!(process.stdin, "{request}")
        .and_then(|()| process.stdin.flush())
        .map_err(|e| format!("cannot write to it: {e}"))?;
    match process.answers.recv_timeout(spec.timeout) {
        Ok(answer) => answer,
        Err(RecvTimeoutError::Timeout) => {
            Err(format!("no answer within {} s", spec.timeout.as_secs()))
        }
        Err(RecvTimeoutError::Disconnected) => Err("it exited without answering".into()),
    }
}

/// Why a program the user has not allowed did not start.
fn refused(spec: &Adapter, why: Refused) -> String {
    let command = trust::shown(spec);
    match why {
        Refused::NoConsent => format!(
            "`{command}` did not start: a suite's programs run only with the user's consent (`--trust` on the command line, `trust=True` in Python; docs/security.md)"
        ),
        Refused::Outside { word, leads } => format!(
            "`{command}` did not start: `{word}` is outside the suite folder ({leads}), which only `--trust-outside` (`trust_outside=True` in Python) allows"
        ),
    }
}

fn start(spec: &Adapter, root: Option<&Path>, trust: Trust) -> Result<Process, String> {
    let launch = trust::launch(spec, root, trust).map_err(|why| refused(spec, why))?;
    let mut command = Command::new(&launch.program);
    command
        .args(&launch.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_clear();
    if let Some(path) = std::env::var_os("PATH") {
        command.env("PATH", path);
    }
    // The resolver refuses a credential's name; a model built another way is held to
    // the same rule here.
    for name in spec.env.iter().map(|n| n.as_str()) {
        match std::env::var_os(name) {
            Some(value) if !secret_variable(name) => {
                command.env(name, value);
            }
            _ => {}
        }
    }
    if let Some(root) = root {
        command.current_dir(root);
    }
    process::confine(&mut command, MEMORY_LIMIT);
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", trust::shown(spec)))?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        process::stop(&mut child);
        return Err("no standard input or output".into());
    };
    // One answer waits at most: a program that writes without being asked blocks on
    // its full pipe rather than filling casec's memory.
    let (sender, answers) = mpsc::sync_channel(1);
    std::thread::spawn(move || read_answers(stdout, &sender));
    let shown = trust::shown(spec);
    std::thread::spawn(move || pass_on_errors(stderr, &shown));
    Ok(Process {
        child,
        stdin,
        answers,
    })
}

/// Reads the program's answer lines until its output ends: each line, or why it is
/// not one. A line over the cap is refused as soon as it passes it (the program may
/// never end it), and nothing more is read: the call fails and the program is stopped.
fn read_answers(stdout: ChildStdout, answers: &SyncSender<Answer>) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    let beyond_cap = u64::try_from(MAX_ANSWER)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    loop {
        let mut within = (&mut reader).take(beyond_cap);
        let answer = match capped_lines::read_line(&mut within, MAX_ANSWER, &mut line) {
            Ok(Line::Read) => String::from_utf8(line.trim_ascii_end().to_vec())
                .map_err(|e| format!("its answer is not UTF-8: {e}")),
            Ok(Line::TooLong) => Err(format!(
                "its answer is longer than {} MiB, the most casec reads",
                MAX_ANSWER >> 20
            )),
            Ok(Line::End) | Err(_) => return,
        };
        let refused = answer.is_err();
        if answers.send(answer).is_err() || refused {
            return;
        }
    }
}

/// Passes the program's standard error on to casec's, up to [`MAX_STDERR`] bytes, and
/// drops the rest.
fn pass_on_errors(mut stderr: ChildStderr, command: &str) {
    let mut passed = 0;
    let mut buffer = [0u8; 8192];
    loop {
        let read = match stderr.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(read) => read,
        };
        let shown = read.min(MAX_STDERR - passed);
        if shown == 0 {
            continue;
        }
        let mut out = io::stderr().lock();
        let _ = out.write_all(&buffer[..shown]);
        passed += shown;
        if passed == MAX_STDERR {
            let _ = writeln!(
                out,
                "\ncasec: `{command}` wrote more than {} KiB to standard error; the rest is not shown",
                MAX_STDERR >> 10
            );
        }
    }
}

/// A change the program asked for, checked against the schema before any is applied.
enum Change {
    Create(String, Vec<(String, FieldValue)>),
    Update(String, Vec<(String, Option<FieldValue>)>),
    Delete(String),
}

fn apply(
    rt: &mut Runtime,
    tool: &Tool,
    spec: &Adapter,
    answer: Json,
) -> Result<CallResult, String> {
    if let Some(code) = answer.get("error").and_then(Json::as_str) {
        let message = answer
            .get("message")
            .and_then(Json::as_str)
            .unwrap_or_default();
        return Ok(CallResult::error(code, message));
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
    let shown = shown_ids(&answer)?;
    // All or none: a change that fails (a create without a required field) restores
    // the state the call found.
    let before = rt.state.clone();
    let applied = apply_changes(rt, tool, changes).and_then(|a| with_shown(rt, a, shown));
    if applied.is_err() {
        rt.state = before;
    }
    let (returned, changed, created) = applied?;
    let mut result = result;
    if !created.is_empty() {
        result.insert("created".into(), json!(created));
    }
    Ok(CallResult::ok(Json::Object(result), returned, changed))
}

/// `shown`: the ids of the records the answer's result shows, which count as returned
/// by the call (so `retrieved` and `verified` see them).
fn shown_ids(answer: &Json) -> Result<Vec<String>, String> {
    let not_ids = || "`shown` is not a list of record ids".to_string();
    match answer.get("shown") {
        None | Some(Json::Null) => Ok(Vec::new()),
        Some(Json::Array(items)) => items
            .iter()
            .map(|i| i.as_str().map(str::to_string).ok_or_else(not_ids))
            .collect(),
        Some(_) => Err(not_ids()),
    }
}

/// The ids a call returned, with those its answer says it `shown`, each a record of
/// the state after the call's changes.
fn with_shown(rt: &Runtime, applied: Applied, shown: Vec<String>) -> Result<Applied, String> {
    let (mut returned, changed, created) = applied;
    for id in shown {
        if rt.state.get(&id).is_none() {
            return Err(format!("`shown` names `{id}`, which is no record"));
        }
        if !returned.contains(&id) {
            returned.push(id);
        }
    }
    Ok((returned, changed, created))
}

/// Ids returned, changed and created by a call's changes.
type Applied = (Vec<String>, Vec<String>, Vec<String>);

/// Applies checked changes in order; stops at the first that fails.
fn apply_changes(rt: &mut Runtime, tool: &Tool, changes: Vec<Change>) -> Result<Applied, String> {
    let (mut returned, mut changed, mut created) = (Vec::new(), Vec::new(), Vec::new());
    let now = rt.now_text().to_string();
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
