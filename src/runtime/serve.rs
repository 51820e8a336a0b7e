//! A live session over JSON-RPC 2.0 (one message per line), so a harness can drive a
//! model against a case's sandbox. The tool methods are MCP's (`initialize`,
//! `tools/list`, `tools/call`); the conversation events MCP has no words for are
//! casec's own: `sandbox/ask` (the assistant asks the scripted follow-up; the result is
//! the user's reply), `sandbox/reply`, `sandbox/user` and `sandbox/end` (the result is
//! the result record). The session keeps the events as a trace, so what was served can
//! be replayed byte for byte: the sandbox is deterministic, so the live runtime is in
//! the state a replay of that trace reaches, and each call costs the same however long
//! the session.

use serde_json::{json, Map, Value as Json};

use crate::model::{Case, Suite};
use crate::world::filters::argument_specs;
use crate::world::Sandbox;

use super::framing;
use super::replay::{result_record, verdict};
use super::trace::TraceEvent;
use super::Runtime;

/// The MCP protocol revision this server speaks.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

pub struct Session<'a> {
    suite: &'a Suite,
    case: &'a Case,
    runtime: Runtime<'a>,
    pub events: Vec<TraceEvent>,
    pub ended: bool,
}

impl<'a> Session<'a> {
    pub fn new(suite: &'a Suite, case: &'a Case, sandbox: &'a Sandbox) -> Session<'a> {
        Session {
            suite,
            case,
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
                let result = self.runtime.call(&tool, &arguments);
                self.events.push(TraceEvent::Call { tool, arguments });
                let failed = result["status"] != json!("ok");
                Ok(json!({
                    "content": [{ "type": "text", "text": result.to_string() }],
                    "structuredContent": result,
                    "isError": failed,
                }))
            }
            "sandbox/ask" => {
                let question = text("question")?;
                let reply = self.runtime.ask(&question);
                self.events.push(TraceEvent::Asked { question });
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

    pub fn result_record(&self) -> Json {
        result_record(self.suite, &self.runtime, &verdict(&self.runtime))
    }

    /// The case's tools in MCP form, with their contracts as descriptions.
    fn tools(&self) -> Vec<Json> {
        self.case
            .tools
            .iter()
            .filter_map(|name| {
                self.suite
                    .tools
                    .iter()
                    .find(|t| t.name.as_str() == name.as_str())
            })
            .map(|contract| {
                let properties: Map<String, Json> = argument_specs(contract)
                    .into_iter()
                    .map(|(name, options)| {
                        let schema = match name.as_str() {
                            "fields" => json!({ "type": "object" }),
                            _ if !options.is_empty() => {
                                json!({ "type": "string", "enum": options })
                            }
                            _ => json!({ "type": "string" }),
                        };
                        (name, schema)
                    })
                    .collect();
                json!({
                    "name": contract.name.as_str(),
                    "description": contract.behavior.as_str(),
                    "inputSchema": { "type": "object", "properties": properties },
                })
            })
            .collect()
    }
}
