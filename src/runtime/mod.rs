//! The reference sandbox: executes a case's tool calls as the suite's contracts say.
//!
//! [`Runtime`] loads a case's typed sandbox ([`crate::world::Sandbox`]: world records,
//! machine override) with its clock and follow-up, and answers calls of the tools the
//! case offers ([`records`]: `read_records`, `write_record`, `verify_record`;
//! [`services`]: `get_clock`, `provider_booking`, `tracker`). The case's override is
//! applied first, exactly as declared (`when`, `times`, `error`, `request`, `commits`).
//! Every call, its result, the records it returned and the records it changed go into
//! the trace, which [`eval`] reads with the final state to decide the case's
//! expectations; [`replay`] runs a trace file ([`trace`]) and builds the result record;
//! [`report`] aggregates result records into the suite's required reporting.
//! The rules are documented in docs/traces.md.

pub mod conditions;
pub mod eval;
pub mod framing;
pub mod records;
pub mod replay;
pub mod report;
pub mod serve;
pub mod services;
pub mod state;
pub mod trace;
pub mod values;

use chrono_tz::Tz;
use serde_json::{json, Map, Value as Json};

use crate::model::{Case, Suite};
use crate::world::overrides::MachineOverride;
use crate::world::Sandbox;

use conditions::{call_matches, Cx};
use state::State;

/// What a tool call did: its result, the records it showed, the records it changed.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub result: Json,
    pub returned: Vec<String>,
    pub changed: Vec<String>,
}

impl Outcome {
    pub fn ok(fields: Json, returned: Vec<String>, changed: Vec<String>) -> Outcome {
        let mut result = Map::new();
        result.insert("status".into(), json!("ok"));
        if let Json::Object(fields) = fields {
            result.extend(fields);
        }
        Outcome {
            result: Json::Object(result),
            returned,
            changed,
        }
    }

    /// A refused or failed call: nothing changed, nothing shown.
    pub fn error(code: &str, message: impl Into<String>) -> Outcome {
        Outcome {
            result: json!({ "status": "error", "error": code, "message": message.into() }),
            returned: Vec::new(),
            changed: Vec::new(),
        }
    }

    pub fn not_found(what: &str) -> Outcome {
        Outcome {
            result: json!({ "status": "not_found", "message": format!("no record or write for `{what}`") }),
            returned: Vec::new(),
            changed: Vec::new(),
        }
    }
}

/// One event of a run, in order.
#[derive(Clone, Debug)]
pub enum Event {
    Call {
        tool: String,
        arguments: Json,
        outcome: Outcome,
        /// Whether the case's override answered this call.
        intercepted: bool,
    },
    /// The assistant asked the scripted follow-up question; the user's reply.
    Asked {
        question: String,
        reply: String,
    },
    Reply(String),
    User(String),
}

/// A write that happened under a request id: the record it wrote and what it returned.
#[derive(Clone, Debug)]
struct Request {
    id: String,
    record: Option<String>,
    result: Json,
}

/// The sandbox of one case while it runs.
pub struct Runtime<'a> {
    pub case: &'a Case,
    pub sandbox: &'a Sandbox,
    pub zone: Tz,
    pub initial: State,
    pub state: State,
    pub events: Vec<Event>,
    intercepted: u64,
    requests: Vec<Request>,
    contracts: Vec<String>,
}

impl<'a> Runtime<'a> {
    /// A fresh sandbox for `case`, which must have one (a case with a world).
    pub fn new(suite: &Suite, case: &'a Case, sandbox: &'a Sandbox) -> Runtime<'a> {
        let state = State::from_world(&sandbox.world);
        let contracts = case
            .tools
            .iter()
            .filter(|t| suite.tools.iter().any(|c| c.name.as_str() == t.as_str()))
            .map(|t| t.as_str().to_string())
            .collect();
        Runtime {
            case,
            sandbox,
            // `casec check` refuses an unknown zone, so the fallback (the suite
            // instructions' default zone) only guards an unchecked model.
            zone: case
                .timezone
                .as_str()
                .parse()
                .unwrap_or(Tz::America__New_York),
            initial: state.clone(),
            state,
            events: Vec::new(),
            intercepted: 0,
            requests: Vec::new(),
            contracts,
        }
    }

    pub fn cx(&self) -> Cx<'_> {
        Cx {
            schema: &self.sandbox.schema,
            zone: self.zone,
            state: &self.state,
        }
    }

    /// Runs one tool call, records it in the trace and returns its result.
    pub fn call(&mut self, tool: &str, arguments: &Json) -> Json {
        let (outcome, intercepted) = if !self.contracts.iter().any(|t| t == tool) {
            let offered = self.contracts.join(", ");
            (
                Outcome::error("UNKNOWN_TOOL", format!("this case offers: {offered}")),
                false,
            )
        } else if let Some(rule) = self.interceptor(tool, arguments) {
            (self.intercept(&rule, tool, arguments), true)
        } else {
            (self.dispatch(tool, arguments), false)
        };
        let result = outcome.result.clone();
        self.events.push(Event::Call {
            tool: tool.to_string(),
            arguments: arguments.clone(),
            outcome,
            intercepted,
        });
        result
    }

    /// The assistant asks the scripted follow-up: the user answers with its reply (or,
    /// in a case without one, the unscripted reply).
    pub fn ask(&mut self, question: &str) -> String {
        let reply = self
            .case
            .followup
            .as_ref()
            .map_or(self.case.unscripted_reply.as_str(), |f| f.reply.as_str());
        self.events.push(Event::Asked {
            question: question.to_string(),
            reply: reply.to_string(),
        });
        reply.to_string()
    }

    pub fn reply(&mut self, content: &str) {
        self.events.push(Event::Reply(content.to_string()));
    }

    pub fn user(&mut self, content: &str) {
        self.events.push(Event::User(content.to_string()));
    }

    fn dispatch(&mut self, tool: &str, arguments: &Json) -> Outcome {
        match tool {
            "get_clock" => services::get_clock(self),
            "read_records" => records::read_records(self, arguments),
            "write_record" => self.idempotent(arguments, records::write_record),
            "verify_record" => records::verify_record(self, arguments),
            // A lookup's request id is what it looks for, not a write to deduplicate.
            "provider_booking" if arguments.get("operation") == Some(&json!("lookup")) => {
                services::provider_booking(self, arguments)
            }
            "provider_booking" => self.idempotent(arguments, services::provider_booking),
            "tracker" => services::tracker(self, arguments),
            other => Outcome::error("UNKNOWN_TOOL", format!("this sandbox cannot run `{other}`")),
        }
    }

    /// Runs a write; a request id seen before returns the first result and writes nothing.
    fn idempotent(
        &mut self,
        arguments: &Json,
        write: fn(&mut Runtime, &Json) -> Outcome,
    ) -> Outcome {
        let request = arguments
            .get("request_id")
            .and_then(Json::as_str)
            .filter(|r| !r.is_empty());
        if let Some(earlier) = request.and_then(|r| self.requests.iter().find(|q| q.id == r)) {
            let mut result = earlier.result.clone();
            if let Json::Object(m) = &mut result {
                m.insert("duplicate_request".into(), json!(true));
            }
            let returned = earlier.record.iter().cloned().collect();
            return Outcome {
                result,
                returned,
                changed: Vec::new(),
            };
        }
        let outcome = write(self, arguments);
        if let Some(request) = request.filter(|_| !outcome.changed.is_empty()) {
            self.remember(request, &outcome);
        }
        outcome
    }

    fn remember(&mut self, request: &str, outcome: &Outcome) {
        if self.requests.iter().any(|q| q.id == request) {
            return;
        }
        self.requests.push(Request {
            id: request.to_string(),
            record: outcome.changed.first().cloned(),
            result: outcome.result.clone(),
        });
    }

    /// The record written under a request id; `None` when no write happened under it.
    pub fn request_record(&self, request: &str) -> Option<&str> {
        self.requests
            .iter()
            .find(|q| q.id == request)?
            .record
            .as_deref()
    }

    /// The override rule that answers this call, if the case's override matches it.
    fn interceptor(&self, tool: &str, arguments: &Json) -> Option<MachineOverride> {
        let rule = self.sandbox.machine_override.as_ref()?;
        let applies = rule.tool.as_str() == tool
            && rule.times.is_none_or(|t| self.intercepted < t)
            && call_matches(&rule.when, arguments, self.cx());
        applies.then(|| rule.clone())
    }

    /// The override's answer; with `commits`, the write happens all the same.
    fn intercept(&mut self, rule: &MachineOverride, tool: &str, arguments: &Json) -> Outcome {
        self.intercepted += 1;
        let mut result = Map::new();
        result.insert("status".into(), json!("error"));
        result.insert("error".into(), json!(rule.error.as_str()));
        if let Some(Json::Object(details)) = &rule.details {
            result.extend(details.clone());
        }
        if let Some(request) = &rule.request {
            result.insert("request_id".into(), json!(request.as_str()));
        }
        let changed = if rule.commits {
            let done = self.dispatch(tool, arguments);
            let requests = rule.request.iter().map(|r| r.as_str().to_string());
            let carried = arguments
                .get("request_id")
                .and_then(Json::as_str)
                .map(str::to_string);
            for request in requests.chain(carried).filter(|_| !done.changed.is_empty()) {
                self.remember(&request, &done);
            }
            done.changed
        } else {
            Vec::new()
        };
        Outcome {
            result: Json::Object(result),
            returned: Vec::new(),
            changed,
        }
    }
}
