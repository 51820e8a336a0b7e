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

use crate::model::expect::Sandbox;
use crate::model::{Case, Suite};
use crate::resolve::world::filters::argument_specs;

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

    /// Answers one line; `None` for a notification.
    pub fn handle(&mut self, line: &str) -> Option<String> {
        let message: Json = match serde_json::from_str(line) {
            Ok(m) => m,
            Err(e) => return Some(error(Json::Null, -32700, &format!("parse error: {e}"))),
        };
        let id = message.get("id").cloned();
        let method = message
            .get("method")
            .and_then(Json::as_str)
            .unwrap_or_default();
        let params = message.get("params").cloned().unwrap_or(json!({}));
        let answer = self.dispatch(method, &params);
        let id = id?;
        Some(match answer {
            Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }).to_string(),
            Err((code, text)) => error(id, code, &text),
        })
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

fn error(id: Json, code: i64, message: &str) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } }).to_string()
}
