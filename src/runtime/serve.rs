//! A live session over JSON-RPC 2.0 (one message per line), so a harness can drive a
//! model against a case's sandbox. The tool methods are MCP's (`initialize`,
//! `tools/list`, `tools/call`); the conversation events MCP has no words for are
//! casec's own: `sandbox/ask` (the assistant asks the scripted follow-up; the result is
//! the user's reply), `sandbox/question`, `sandbox/reply`, `sandbox/user` and
//! `sandbox/end` (the result is the result record). A harness that speaks only MCP calls
//! the same as tools: `sandbox.ask`, `sandbox.question`, `sandbox.reply`, `sandbox.user`
//! and `sandbox.end` (their arguments are the methods' params; the answer is in
//! `structuredContent` and as text). `tools/list` never lists them, so the model is
//! never offered them, and no case tool can have such a name (tool names have no dot).
//! The session keeps the events as a trace, so what was served can be replayed byte for
//! byte: the sandbox is deterministic, so the live runtime is in the state a replay of
//! that trace reaches, and each call costs the same however long the session.

use serde_json::{json, Value as Json};

use crate::model::expect::Sandbox;
use crate::model::{Case, Suite};

use super::framing;
use super::replay::{findings, result_record};
use super::trace::TraceEvent;
use super::Runtime;

/// The JSON-RPC error of an event sent after `sandbox/end` (in the range JSON-RPC leaves
/// to servers).
const SESSION_ENDED: i64 = -32000;

/// The MCP protocol revision this server speaks.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

pub struct Session<'a> {
    suite: &'a Suite,
    runtime: Runtime<'a>,
    pub events: Vec<TraceEvent>,
    pub ended: bool,
}

impl<'a> Session<'a> {
    pub fn new(suite: &'a Suite, case: &'a Case, sandbox: &'a Sandbox) -> Session<'a> {
        Session {
            suite,
            runtime: Runtime::new(suite, case, sandbox),
            events: Vec::new(),
            ended: false,
        }
    }

    /// Answers one line of input (one JSON-RPC message or batch); `None` when nothing
    /// is to be answered (notifications, a client's responses). See [`framing`] for
    /// how malformed input is answered.
    pub fn handle(&mut self, line: &str) -> Option<String> {
        match framing::parse(line) {
            Ok(framing::Input::One(message)) => self.answer(message),
            Ok(framing::Input::Batch(messages)) => {
                let answers: Vec<String> = messages
                    .into_iter()
                    .filter_map(|m| self.answer(m))
                    .collect();
                (!answers.is_empty()).then(|| format!("[{}]", answers.join(",")))
            }
            Err(answer) => Some(answer),
        }
    }

    /// Answers one message of the input.
    fn answer(&mut self, message: framing::Message) -> Option<String> {
        match message {
            framing::Message::Request { id, method, params } => {
                let answer = self.dispatch(&method, &params);
                let id = id?;
                Some(match answer {
                    Ok(result) => framing::result(id, &result),
                    Err((code, text)) => framing::error(Some(id), code, &text),
                })
            }
            framing::Message::Invalid { id, reason } => {
                Some(framing::error(id, framing::INVALID_REQUEST, &reason))
            }
            framing::Message::Response => None,
        }
    }

    fn dispatch(&mut self, method: &str, params: &Json) -> Result<Json, (i64, String)> {
        if self.ended && (method == "tools/call" || method.starts_with("sandbox/")) {
            return Err((
                SESSION_ENDED,
                "the session has ended (`sandbox/end`): start a new session for another run".into(),
            ));
        }
        let text = |key: &str| {
            params
                .get(key)
                .and_then(Json::as_str)
                .map(str::to_string)
                .ok_or((-32602, format!("`{key}` must be a string")))
        };
        match method {
            "initialize" => Ok(json!({
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": { "tools": {} },
                "serverInfo": { "name": "casec", "version": env!("CARGO_PKG_VERSION") },
            })),
            "notifications/initialized" | "ping" => Ok(json!({})),
            "tools/list" => Ok(json!({ "tools": self.tools() })),
            "tools/call" => {
                let tool = text("name")?;
                let arguments = params.get("arguments").cloned().unwrap_or(json!({}));
                if !arguments.is_object() {
                    return Err((-32602, "`arguments` must be an object".into()));
                }
                if let Some(method) = harness_method(&tool) {
                    return self.harness_tool(method, &arguments);
                }
                let result = self.runtime.call(&tool, &arguments);
                self.events.push(TraceEvent::Call { tool, arguments });
                // One copy of the result, as text: the tools declare no output schema
                // (MCP's `structuredContent` goes with one). A search that finds nothing
                // or a lookup of nothing is an answer, not an error.
                Ok(json!({
                    "content": [{ "type": "text", "text": result.to_string() }],
                    "isError": super::failed(&result),
                }))
            }
            "sandbox/ask" => {
                let question = text("question")?;
                let followup = match params.get("followup") {
                    None => 1,
                    Some(n) => n
                        .as_u64()
                        .filter(|n| *n >= 1)
                        .and_then(|n| usize::try_from(n).ok())
                        .ok_or((
                            -32602,
                            "`followup` must be a follow-up number, from 1".to_string(),
                        ))?,
                };
                let reply = self.runtime.ask(&question, Some(followup));
                self.events.push(TraceEvent::Asked {
                    question,
                    followup: Some(followup),
                });
                Ok(json!({ "reply": reply }))
            }
            "sandbox/question" => {
                let question = text("question")?;
                let reply = self.runtime.ask(&question, None);
                self.events.push(TraceEvent::Asked {
                    question,
                    followup: None,
                });
                Ok(json!({ "reply": reply }))
            }
            "sandbox/reply" => {
                let content = text("content")?;
                self.runtime.reply(&content);
                self.events.push(TraceEvent::Reply(content));
                Ok(json!({}))
            }
            "sandbox/user" => {
                let content = text("content")?;
                self.runtime.user(&content);
                self.events.push(TraceEvent::User(content));
                Ok(json!({}))
            }
            "sandbox/end" => {
                self.ended = true;
                Ok(self.result_record())
            }
            other => Err((-32601, format!("no method `{other}`"))),
        }
    }

    /// A harness tool (`sandbox.end`, …): its method's answer as an MCP tool result, or
    /// the method's error as a tool error the client can read.
    fn harness_tool(&mut self, method: &str, arguments: &Json) -> Result<Json, (i64, String)> {
        Ok(match self.dispatch(method, arguments) {
            Ok(result) => json!({
                "content": [{ "type": "text", "text": result.to_string() }],
                "structuredContent": result,
                "isError": false,
            }),
            Err((_, message)) => json!({
                "content": [{ "type": "text", "text": message }],
                "isError": true,
            }),
        })
    }

    pub fn result_record(&self) -> Json {
        result_record(self.suite, &self.runtime, &findings(&self.runtime))
    }

    /// The case's tools in MCP form: the contract as description, the typed arguments
    /// as `inputSchema`.
    fn tools(&self) -> Vec<Json> {
        let schema = Some(&*self.runtime.sandbox.schema);
        self.runtime
            .offered()
            .iter()
            .map(|tool| {
                json!({
                    "name": tool.name.as_str(),
                    "description": tool.behavior.as_str(),
                    "inputSchema": crate::lower::tools::input_schema(tool, schema),
                })
            })
            .collect()
    }
}

/// The conversation methods a harness may call as MCP tools: `sandbox.NAME` is the
/// method `sandbox/NAME`.
const HARNESS_TOOLS: [(&str, &str); 5] = [
    ("sandbox.ask", "sandbox/ask"),
    ("sandbox.question", "sandbox/question"),
    ("sandbox.reply", "sandbox/reply"),
    ("sandbox.user", "sandbox/user"),
    ("sandbox.end", "sandbox/end"),
];

fn harness_method(tool: &str) -> Option<&'static str> {
    HARNESS_TOOLS
        .iter()
        .find(|(name, _)| *name == tool)
        .map(|(_, method)| *method)
}
