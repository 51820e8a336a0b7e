//! The reference sandbox: executes a case's tool calls as the suite declares them.
//!
//! [`Runtime`] loads a case's typed sandbox (world records, machine overrides) with
//! its clock and follow-up, and answers calls of the tools the case offers. A call is
//! first checked against the tool's typed arguments ([`arguments`]); then the case's
//! overrides, in the order written, may answer it (`when`, `after`, `times`, an error
//! or success data, `request`, `commits`); otherwise the tool's binding runs it: a
//! built-in service ([`services`]), declared effects ([`declared`]) or an adapter
//! program ([`adapter`]), which runs only with the user's consent ([`trust`]). Dispatch
//! is an exhaustive match over the binding: nothing here knows a suite's tool,
//! collection or argument names.
//!
//! Every call goes into the trace with what [`eval`] needs to decide expectations —
//! its arguments, whether it failed, the records it returned and changed — but not its
//! full result, so memory and time per call stay flat however long a session runs.
//! [`replay`] runs a trace file ([`trace`], found by [`trace_files`]) and builds the result record,
//! over a workspace on disk when one is given ([`workspace`]); [`report`]
//! aggregates result records into the suite's required reporting. The rules are
//! documented in docs/traces.md and docs/tools.md.

// Module headers link to the private items of their crate: they are read by
// contributors, with `cargo doc --document-private-items`.
#![allow(rustdoc::private_intra_doc_links)]

// The layers below, under the names the modules of this crate use for them.
use casec_base::{capped_lines, diag, source, unicode};
use casec_load as load;
use casec_lower as lower;
use casec_model as model;

pub mod adapter;
pub mod arguments;
pub mod artifacts;
pub mod commands;
pub mod computed;
pub mod conditions;
pub mod declared;
pub mod eval;
pub mod framing;
pub mod observed;
pub mod person;
pub mod process;
pub mod replay;
pub mod report;
pub mod reward;
pub mod serve;
pub mod services;
pub mod state;
pub mod trace;
pub mod trace_files;
pub mod trust;
pub mod values;
pub mod web;
pub mod workspace;

use std::collections::HashMap;

use chrono_tz::Tz;
use serde_json::{json, Map, Value as Json};

use crate::model::expect::{MachineOverride, OverrideAnswer, Sandbox};
use crate::model::tool::{Binding, Tool};
use crate::model::{Case, Suite};

use conditions::{call_matches, Cx};
use state::State;

/// What a tool call did: its result, the records it showed, the records it changed.
#[derive(Clone, Debug)]
pub struct CallResult {
    pub result: Json,
    pub returned: Vec<String>,
    pub changed: Vec<String>,
}

impl CallResult {
    pub fn ok(fields: Json, returned: Vec<String>, changed: Vec<String>) -> CallResult {
        let mut result = Map::new();
        result.insert("status".into(), json!("ok"));
        if let Json::Object(fields) = fields {
            result.extend(fields);
        }
        CallResult {
            result: Json::Object(result),
            returned,
            changed,
        }
    }

    /// A refused or failed call: nothing changed, nothing shown.
    pub fn error(code: &str, message: impl Into<String>) -> CallResult {
        CallResult {
            result: json!({ "status": "error", "error": code, "message": message.into() }),
            returned: Vec::new(),
            changed: Vec::new(),
        }
    }

    /// A lookup that ran and found nothing: a normal answer, not a failure.
    pub fn not_found(what: &str) -> CallResult {
        CallResult {
            result: json!({ "status": "not_found", "message": format!("no record or write for `{what}`") }),
            returned: Vec::new(),
            changed: Vec::new(),
        }
    }

    /// Whether the call failed: refused, invalid, or an injected error.
    pub fn failed(&self) -> bool {
        failed(&self.result)
    }
}

/// Whether a result is a failure (`status: error`); `not_found` is a normal answer.
pub fn failed(result: &Json) -> bool {
    result.get("status").and_then(Json::as_str) == Some("error")
}

/// What the trace keeps of a call: enough to decide every assertion and to show the
/// call in a result record, without the full result.
#[derive(Clone, Debug)]
pub struct CallRecord {
    pub tool: String,
    pub arguments: Json,
    pub failed: bool,
    /// The error code of a failed call.
    pub error: Option<String>,
    /// Whether one of the case's overrides answered the call.
    pub intercepted: bool,
    pub returned: Vec<String>,
    pub changed: Vec<String>,
    /// Made by a program of this workspace command rather than by the assistant: a
    /// request to an endpoint (see [`commands`]).
    pub by_command: Option<String>,
    /// What the trace keeps of a workspace command's result: its exit code and output
    /// ([`commands::kept`]); nothing for other calls.
    pub output: Option<Box<Json>>,
}

/// One event of a run, in order.
#[derive(Clone, Debug)]
pub enum Event {
    Call(CallRecord),
    /// The assistant asked a clarifying question; the user's reply, and which scripted
    /// follow-up it answered (none: the unscripted reply).
    Asked {
        question: String,
        reply: String,
        followup: Option<usize>,
    },
    Reply(String),
    User {
        content: String,
        thought: Option<String>,
    },
    End(person::Ending),
    /// The assistant's turn failed (an observed conversation's `error`).
    AgentError(String),
}

/// A write that happened under a request id: the record it wrote and what it returned.
#[derive(Clone, Debug)]
struct Request {
    record: Option<String>,
    result: Json,
}

/// The sandbox of one case while it runs.
pub struct Runtime<'a> {
    pub suite: &'a Suite,
    pub case: &'a Case,
    pub sandbox: &'a Sandbox,
    pub zone: Tz,
    pub initial: State,
    pub state: State,
    pub events: Vec<Event>,
    /// The tools the case offers, with their declarations.
    tools: Vec<&'a Tool>,
    /// How many calls each override matched so far, by its position.
    matched: Vec<u64>,
    requests: HashMap<String, Request>,
    /// How many calls met each declared response's conditions, by tool and position.
    responses: HashMap<(String, usize), u64>,
    adapters: adapter::Adapters,
    /// The suite folder adapter programs run in, when the suite was read from disk.
    pub root: Option<std::path::PathBuf>,
    /// What the user allows the suite's programs: none runs without consent.
    trust: trust::Trust,
    /// Who makes the run, for the result record (`model`, `run_id` in a result layout).
    pub label: crate::lower::layout::RunLabel,
    /// The most tool calls the run may make (the case's step limit), and how many it
    /// made: a call past the limit is refused.
    step_limit: Option<u64>,
    calls: u64,
    /// The run's clock: the case's, moved on by the case's `clock_step` at each of the
    /// person's messages; what `now` reads, in a condition and in a declared `set
    /// FIELD now`.
    pub clock: Option<crate::model::time::ZonedDateTime>,
    /// The clock as services stamp it (`get_clock`, histories); the case's clock text
    /// until the clock first moves.
    now: String,
    /// The endpoints' request counts, shared by tools and commands ([`web`]).
    web: web::Web,
    /// Where the session's commands run: set by an embedder, or casec's own isolated
    /// workspace, made by the first command as `isolation` says.
    executor: Option<Box<dyn commands::Executor>>,
    isolation: commands::isolation::Isolation,
    /// The requests the running command's programs made, recorded after its call.
    command_requests: Vec<CallRecord>,
}

impl<'a> Runtime<'a> {
    /// A fresh sandbox for `case`, which must have one (a case with a world).
    pub fn new(suite: &'a Suite, case: &'a Case, sandbox: &'a Sandbox) -> Runtime<'a> {
        let state = State::from_world(&sandbox.world);
        let tools = case
            .tools
            .iter()
            .filter_map(|t| suite.tools.iter().find(|c| c.name.as_str() == t.as_str()))
            .collect();
        // `casec check` refuses an unknown zone, so the fallback (UTC) only guards an
        // unchecked model.
        let zone = case.timezone_text().parse().unwrap_or(Tz::UTC);
        Runtime {
            suite,
            case,
            sandbox,
            zone,
            initial: state.clone(),
            state,
            events: Vec::new(),
            tools,
            matched: vec![0; sandbox.overrides.len()],
            requests: HashMap::new(),
            responses: HashMap::new(),
            adapters: adapter::Adapters::default(),
            root: suite.root.clone(),
            trust: trust::Trust::default(),
            label: Default::default(),
            step_limit: suite.step_limit(case),
            calls: 0,
            clock: case.clock.as_ref().and_then(|_| {
                let text = serde_json::json!(case.clock_text());
                match values::from_json(&text, &crate::model::world::FieldType::DateTime, zone) {
                    Ok(crate::model::value::FieldValue::DateTime(clock)) => Some(clock),
                    _ => None,
                }
            }),
            now: case.clock_text().to_string(),
            web: web::Web::default(),
            executor: None,
            isolation: commands::isolation::Isolation::default(),
            command_requests: Vec::new(),
        }
    }

    /// This sandbox with commands isolated as the user says (`--unisolated-commands`:
    /// [`commands::isolation::Isolation::Host`]).
    pub fn isolating(mut self, isolation: commands::isolation::Isolation) -> Runtime<'a> {
        self.isolation = isolation;
        self
    }

    /// Runs this sandbox's commands with `executor` (an Inspect sandbox, for the Python
    /// package) rather than in casec's own isolated workspace.
    pub fn set_executor(&mut self, executor: Box<dyn commands::Executor>) {
        self.executor = Some(executor);
    }

    /// Where the session's commands run: casec's own workspace is made on first use.
    fn executor(&mut self) -> Result<&mut Box<dyn commands::Executor>, String> {
        if self.executor.is_none() {
            let program = commands::isolation::job_program()?;
            let workspace =
                commands::isolation::Workspace::create(self.isolation.clone(), program)?;
            self.executor = Some(Box::new(workspace));
        }
        self.executor
            .as_mut()
            .ok_or_else(|| "no executor".to_string())
    }

    /// The run's endpoints as the world holds them now, with their request counts.
    pub fn web(&mut self, h: &crate::model::tool::Http) -> &mut web::Web {
        let counts = std::mem::take(&mut self.web.counts);
        self.web = web::Web::from_state(&self.state, h);
        self.web.counts = counts;
        &mut self.web
    }

    /// This sandbox with the user's consent to run the suite's programs (its tools'
    /// adapters); without it, an adapter call fails with `ADAPTER_ERROR`.
    pub fn trusting(mut self, trust: trust::Trust) -> Runtime<'a> {
        self.trust = trust;
        self
    }

    /// What the user allows the suite's programs.
    pub fn trust(&self) -> trust::Trust {
        self.trust
    }

    pub fn cx(&self) -> Cx<'_> {
        Cx {
            schema: &self.sandbox.schema,
            zone: self.zone,
            state: &self.state,
            now: self.clock.as_ref().map(|c| c.instant),
        }
    }

    /// The declaration of a tool the case offers.
    pub fn tool(&self, name: &str) -> Option<&'a Tool> {
        self.tools.iter().copied().find(|t| t.name.as_str() == name)
    }

    /// The tools this case offers, in the case's order.
    pub fn offered(&self) -> &[&'a Tool] {
        &self.tools
    }

    /// The tool other than `except` whose own binding changes `collection`, if any.
    pub fn manager_of(&self, collection: &str, except: &str) -> Option<&'a Tool> {
        self.suite
            .tools
            .iter()
            .find(|t| t.name.as_str() != except && t.managed_collections().contains(&collection))
    }

    /// Runs one tool call, records it in the trace and returns its result. A call past
    /// the case's step limit runs nothing: it is recorded, failed with `STEP_LIMIT`.
    pub fn call(&mut self, tool: &str, arguments: &Json) -> Json {
        let limit = self.step_limit.filter(|&limit| self.calls >= limit);
        self.calls += 1;
        let declared = self.tool(tool);
        let arguments = match declared {
            Some(declared) => arguments::with_defaults(declared, arguments),
            None => std::borrow::Cow::Borrowed(arguments),
        };
        let arguments = arguments.as_ref();
        let (outcome, intercepted) = match limit {
            Some(limit) => {
                let message = format!("this run has made its {limit} tool calls: no more run");
                (CallResult::error("STEP_LIMIT", message), false)
            }
            None => self.dispatch(declared, arguments),
        };
        let failed = outcome.failed();
        let error = failed
            .then(|| outcome.result.get("error").and_then(Json::as_str))
            .flatten()
            .map(str::to_string);
        self.events.push(Event::Call(CallRecord {
            tool: tool.to_string(),
            arguments: arguments.clone(),
            failed,
            error,
            intercepted,
            returned: outcome.returned,
            changed: outcome.changed,
            by_command: None,
            output: commands::kept(declared, &outcome.result),
        }));
        // The requests a command's programs made follow the command.
        let requests = std::mem::take(&mut self.command_requests);
        self.events.extend(requests.into_iter().map(Event::Call));
        outcome.result
    }

    /// The assistant asks a clarifying question. The user answers with the reply of
    /// the scripted follow-up the harness says it is (`followup`, from 1), or, for an
    /// unscripted question (or a case without follow-ups), the unscripted reply.
    pub fn ask(&mut self, question: &str, followup: Option<usize>) -> String {
        let scripted = followup
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| self.case.followups.get(i).map(|f| (i, f.reply.as_str())));
        let (followup, reply) = match scripted {
            Some((i, reply)) => (Some(i + 1), reply),
            None => (None, self.case.unscripted_reply_text()),
        };
        self.events.push(Event::Asked {
            question: question.to_string(),
            reply: reply.to_string(),
            followup,
        });
        self.advance_clock();
        reply.to_string()
    }

    /// The time now, as services stamp it (RFC 3339 with offset).
    pub fn now_text(&self) -> &str {
        &self.now
    }

    /// The person answered: the clock moves on by the case's `clock_step` (`casec
    /// check` keeps it within a week), written as the case writes its clock (`Z` for
    /// UTC when it does).
    fn advance_clock(&mut self) {
        let minutes = self.suite.clock_step_minutes(self.case);
        let step = i64::try_from(minutes)
            .ok()
            .and_then(chrono::TimeDelta::try_minutes);
        let (Some(clock), Some(step)) = (self.clock.as_mut(), step.filter(|_| minutes > 0)) else {
            return;
        };
        let Some(moved) = clock.instant.checked_add_signed(step) else {
            return;
        };
        clock.instant = moved.with_timezone(&self.zone).fixed_offset();
        let utc_as_z = self.case.clock_text().ends_with('Z');
        self.now = clock
            .instant
            .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, utc_as_z);
    }

    pub fn reply(&mut self, content: &str) {
        self.events.push(Event::Reply(content.to_string()));
    }

    /// A message of the person, with what they privately think (a simulated person's).
    pub fn user(&mut self, content: &str, thought: Option<&str>) {
        self.events.push(Event::User {
            content: content.to_string(),
            thought: thought.map(str::to_string),
        });
        // The person's opening message (an observed conversation's first turn) is at
        // the case's clock; each answer after the assistant spoke moves it.
        let answered = self.events.iter().any(|e| !matches!(e, Event::User { .. }));
        if answered {
            self.advance_clock();
        }
    }

    /// The assistant's turn failed, as the harness said.
    pub fn agent_error(&mut self, message: &str) {
        self.events.push(Event::AgentError(message.to_string()));
    }

    /// The conversation ended (see [`person::Ending`]).
    pub fn end_conversation(&mut self, ending: person::Ending) {
        self.events.push(Event::End(ending));
    }

    /// How the conversation ended, if it did.
    pub fn ending(&self) -> Option<&person::Ending> {
        self.events.iter().rev().find_map(|e| match e {
            Event::End(ending) => Some(ending),
            _ => None,
        })
    }

    /// A call of `tool` (when the case offers it): refused for its arguments, answered
    /// by an override, or run; with whether an override answered it.
    fn dispatch(&mut self, tool: Option<&'a Tool>, arguments: &Json) -> (CallResult, bool) {
        match tool {
            None => {
                let offered: Vec<&str> = self.tools.iter().map(|t| t.name.as_str()).collect();
                let message = match offered.as_slice() {
                    [] => "this case offers no tools".to_string(),
                    _ => format!("this case offers: {}", offered.join(", ")),
                };
                (CallResult::error("UNKNOWN_TOOL", message), false)
            }
            Some(declared) => match arguments::validate(declared, arguments, self) {
                Err(refusal) => (refusal, false),
                Ok(()) => match self.interceptor(declared, arguments) {
                    Some(rule) => (self.intercept(rule, declared, arguments), true),
                    None => (self.run(declared, arguments), false),
                },
            },
        }
    }

    /// Runs a validated call through the tool's binding.
    fn run(&mut self, tool: &Tool, arguments: &Json) -> CallResult {
        match &tool.binding {
            Binding::Service(bound) => services::run(self, tool, &bound.service, arguments),
            Binding::Declared(behavior) => declared::run(self, tool, behavior, arguments),
            Binding::Adapter(spec) => adapter::run(self, tool, spec, arguments),
            Binding::None => CallResult::error(
                "NOT_RUNNABLE",
                format!(
                    "`{}` has a contract but no behaviour in this sandbox",
                    tool.name.as_str()
                ),
            ),
        }
    }

    /// Runs a write under `request`: a request id seen before returns the first result
    /// and writes nothing; a write that changed something is remembered under it.
    pub fn idempotent(
        &mut self,
        request: Option<&str>,
        write: impl FnOnce(&mut Runtime<'a>) -> CallResult,
    ) -> CallResult {
        let request = request.filter(|r| !r.is_empty());
        if let Some(earlier) = request.and_then(|r| self.requests.get(r)) {
            let mut result = earlier.result.clone();
            if let Json::Object(m) = &mut result {
                m.insert("duplicate_request".into(), json!(true));
            }
            return CallResult {
                result,
                returned: earlier.record.iter().cloned().collect(),
                changed: Vec::new(),
            };
        }
        let outcome = write(self);
        if let Some(request) = request.filter(|_| !outcome.changed.is_empty()) {
            self.remember(request, &outcome);
        }
        outcome
    }

    fn remember(&mut self, request: &str, outcome: &CallResult) {
        self.requests
            .entry(request.to_string())
            .or_insert_with(|| Request {
                record: outcome.changed.first().cloned(),
                result: outcome.result.clone(),
            });
    }

    /// How many earlier calls met the conditions of response `index` of `tool`; counts
    /// this one.
    pub fn count_response_match(&mut self, tool: &str, index: usize) -> u64 {
        let count = self.responses.entry((tool.to_string(), index)).or_insert(0);
        *count += 1;
        *count - 1
    }

    /// The record written under a request id; `None` when no write happened under it.
    pub fn request_record(&self, request: &str) -> Option<&str> {
        self.requests.get(request)?.record.as_deref()
    }

    /// The first override that answers this call: of the tool, its `when` conditions
    /// met, past its `after` count and within its `times`. Every override a call
    /// matches counts the call, whether or not it answers it.
    fn interceptor(&mut self, tool: &Tool, arguments: &Json) -> Option<&'a MachineOverride> {
        let sandbox = self.sandbox;
        let mut answering = None;
        for (i, rule) in sandbox.overrides.iter().enumerate() {
            let matches = rule.tool.as_str() == tool.name.as_str()
                && call_matches(&rule.when, tool, arguments, self.cx());
            if !matches {
                continue;
            }
            self.matched[i] += 1;
            let nth = self.matched[i];
            let after = rule.after.unwrap_or(0);
            let within = nth > after && rule.times.is_none_or(|t| nth <= after + t);
            if within && answering.is_none() {
                answering = Some(rule);
            }
        }
        answering
    }

    /// The override's answer; with `commits`, the call happens all the same.
    fn intercept(&mut self, rule: &MachineOverride, tool: &Tool, arguments: &Json) -> CallResult {
        let done = rule.commits.then(|| self.run(tool, arguments));
        let changed = done.as_ref().map(|d| d.changed.clone()).unwrap_or_default();
        if let Some(done) = done.as_ref().filter(|d| !d.changed.is_empty()) {
            let carried = tool_request(tool, arguments);
            for request in rule
                .request
                .iter()
                .map(|r| r.as_str())
                .chain(carried.as_deref())
            {
                self.remember(request, done);
            }
        }
        let mut result = Map::new();
        let returned = match &rule.answer {
            OverrideAnswer::Error { code, details } => {
                result.insert("status".into(), json!("error"));
                result.insert("error".into(), json!(code.as_str()));
                if let Some(Json::Object(details)) = details {
                    result.extend(details.clone());
                }
                Vec::new()
            }
            OverrideAnswer::Returns(data) => {
                // Success data: the call's own answer (when it ran) under the override's.
                if let Some(Json::Object(own)) = done.as_ref().map(|d| &d.result) {
                    result.extend(own.clone());
                }
                result.insert("status".into(), json!("ok"));
                if let Json::Object(data) = data {
                    result.extend(data.clone());
                }
                done.map(|d| d.returned).unwrap_or_default()
            }
        };
        if let Some(request) = &rule.request {
            result.insert("request".into(), json!(request.as_str()));
        }
        CallResult {
            result: Json::Object(result),
            returned,
            changed,
        }
    }
}

/// The request id a call carries, by the argument its tool's binding reads it from.
fn tool_request(tool: &Tool, arguments: &Json) -> Option<String> {
    let argument = match &tool.binding {
        Binding::Service(bound) => services::request_argument(&bound.service),
        Binding::Declared(behavior) => behavior.idempotent.as_ref(),
        Binding::Adapter(_) | Binding::None => None,
    }?;
    arguments
        .get(argument.as_str())
        .and_then(Json::as_str)
        .map(str::to_string)
}
