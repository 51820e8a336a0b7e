//! A live session over JSON-RPC 2.0 (one message per line), so a harness can drive a
//! model against a case's sandbox. The tool methods are MCP's (`initialize`,
//! `tools/list`, `tools/call`); the conversation events MCP has no words for are
//! casec's own: `sandbox/ask` (the assistant asks the scripted follow-up; the result is
//! the user's reply), `sandbox/question`, `sandbox/reply`, `sandbox/user`,
//! `sandbox/person` and `sandbox/person_turn` (the simulated person's request, and its
//! turn from a person model), `sandbox/end_conversation` and `sandbox/end` (the result is
//! the result record). A harness that speaks only MCP calls the same as tools:
//! `sandbox.ask`, `sandbox.question`, `sandbox.reply`, `sandbox.user`,
//! `sandbox.person_turn` and `sandbox.end` (their arguments are the methods' params;
//! the answer is in `structuredContent` and as text). `tools/list` lists them only for a
//! client that declared the capability `casec/harness` at `initialize` (in `experimental` or, as
//! the MCP Python SDK's `extensions=` sends it, `extensions`), each marked
//! harness-only in `_meta` and with an input and output schema, so an MCP client can
//! validate their results; a client that did not declare it (a harness that passes
//! `tools/list` to its model) is never shown them, so the model is never offered them.
//! No case tool can have such a name (tool names have no dot).
//!
//! Errors: a well-formed `tools/call` (a string `name`, an object of `arguments`, or
//! none: absent or `null`) answers a tool result whatever the call asks (an unknown
//! tool, a bad argument, a session that has ended: `isError` with a JSON error text), so
//! an MCP client never raises for it; the `sandbox/*` methods answer JSON-RPC errors
//! (`-32602` bad params, `-32000` after `sandbox/end`). See
//! docs/tools.md#the-harness-tools.
//!
//! The session keeps the events as a trace, so what was served can be replayed byte for
//! byte: the sandbox is deterministic, so the live runtime is in the state a replay of
//! that trace reaches, and each call costs the same however long the session.

use serde_json::{json, Value as Json};

use crate::lower::record_schema::Record;
use crate::model::expect::Sandbox;
use crate::model::{Case, Suite};

use super::framing;
use super::replay::{findings, result_record};
use super::trace::TraceEvent;
use super::Runtime;

/// The JSON-RPC error of a `sandbox/*` event sent after `sandbox/end` (in the range
/// JSON-RPC leaves to servers).
const SESSION_ENDED: i64 = -32000;

/// What an event sent after `sandbox/end` is told.
const ENDED: &str = "the session has ended (`sandbox/end`): nothing more is recorded; start a new session (a new `casec serve`) for another run";

/// casec's harness tools: the capability a client declares at `initialize` (in
/// `capabilities.experimental` or `capabilities.extensions`) to have them listed, and
/// the `_meta` key that marks each listed one as harness-only.
pub const HARNESS: &str = "casec/harness";

/// The MCP protocol revision this server speaks.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// A session's refusal of an event sent after [`Session::end`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ended;

/// The JSON-RPC error of a `sandbox/*` method sent after the end.
fn ended(_: Ended) -> (i64, String) {
    (SESSION_ENDED, ENDED.into())
}

/// A live session of one case: typed events ([`Session::call_tool`], [`Session::ask`],
/// [`Session::reply`], [`Session::user`], [`Session::end`]), which `casec serve`'s
/// JSON-RPC ([`Session::handle`]) and the Python binding both call.
pub struct Session<'a> {
    suite: &'a Suite,
    runtime: Runtime<'a>,
    pub events: Vec<TraceEvent>,
    pub ended: bool,
    /// The client declared [`HARNESS`] at `initialize`: `tools/list` lists the harness
    /// tools after the case's.
    harness_listed: bool,
    /// Who plays the simulated person for `sandbox/person_turn`, when the server was
    /// given a person model.
    person_model: Option<PersonModel>,
}

/// A model that plays the simulated person: its name and seed for the request
/// ([`super::person::request`]), and what answers a request body with a
/// chat-completions response body (an endpoint the driver reaches; a test's script).
pub struct PersonModel {
    pub model: String,
    pub seed: u64,
    pub complete: Box<AnswerRequest>,
}

/// Answers a chat-completions request body with the response body, or why not.
pub type AnswerRequest = dyn FnMut(&Json) -> Result<String, String> + Send;

/// The JSON-RPC error of a `sandbox/person_turn` that has no person to play or whose
/// person model gave no turn (in the range JSON-RPC leaves to servers).
const NO_PERSON_TURN: i64 = -32001;

impl<'a> Session<'a> {
    pub fn new(suite: &'a Suite, case: &'a Case, sandbox: &'a Sandbox) -> Session<'a> {
        Session {
            suite,
            runtime: Runtime::new(suite, case, sandbox),
            events: Vec::new(),
            ended: false,
            harness_listed: false,
            person_model: None,
        }
    }

    /// This session with `model` playing the simulated person (`sandbox/person_turn`).
    pub fn with_person_model(mut self, model: PersonModel) -> Session<'a> {
        self.person_model = Some(model);
        self
    }

    /// The simulated person's next turn, from the person model: their message is
    /// recorded as a `user` event (with their thought), their ending as an `end`.
    /// The answer is the message and the ending, never the thought (the harness passes
    /// the message on to the assistant). Without a person model or a person, or when
    /// the model's answer is no turn, nothing is recorded and the error says why.
    pub fn person_turn(&mut self) -> Result<Json, (i64, String)> {
        self.open().map_err(ended)?;
        if self.runtime.ending().is_some() {
            return Err((
                NO_PERSON_TURN,
                "the conversation has ended (`end`): the person has no more turns".into(),
            ));
        }
        if !super::person::has_person(self.suite, self.runtime.case) {
            return Err((
                NO_PERSON_TURN,
                "the case has no simulated person: its shape gives it no `person` field".into(),
            ));
        }
        let Some(mut person) = self.person_model.take() else {
            return Err((
                NO_PERSON_TURN,
                "no person model: start `casec serve` with --person-endpoint and --person-model"
                    .into(),
            ));
        };
        let request = self.person_request(&person.model, person.seed);
        let answered = (person.complete)(&request);
        self.person_model = Some(person);
        let body = answered.map_err(|why| (NO_PERSON_TURN, why))?;
        let (_, turn) =
            super::person::turn_from_response(&body).map_err(|why| (NO_PERSON_TURN, why))?;
        if let Some(message) = &turn.message {
            self.user(message.clone(), turn.thought.clone())
                .map_err(ended)?;
        }
        if let Some(ending) = &turn.end {
            self.end_conversation(ending.clone()).map_err(ended)?;
        }
        Ok(json!({
            "message": turn.message,
            "end": turn.end.as_ref().map(super::person::Ending::to_json),
        }))
    }

    /// Runs the session's workspace commands with `executor` from now on (see
    /// [`Runtime::set_executor`]).
    pub fn set_executor(&mut self, executor: Box<dyn super::commands::Executor>) {
        self.runtime.set_executor(executor);
    }

    /// This session with its workspace commands isolated as the user says (see
    /// [`Runtime::isolating`]).
    pub fn isolating(mut self, isolation: super::commands::isolation::Isolation) -> Session<'a> {
        self.runtime = self.runtime.isolating(isolation);
        self
    }

    /// This session with the user's consent to run the suite's programs (see
    /// [`Runtime::trusting`]).
    pub fn trusting(mut self, trust: super::trust::Trust) -> Session<'a> {
        self.runtime = self.runtime.trusting(trust);
        self
    }

    /// Calls the case's tool `tool` (an object of `arguments`): the tool's answer, as
    /// the sandbox gives it (an unknown tool or a bad argument is an error answer, not a
    /// refusal of the session). The call is an event of the trace.
    pub fn call_tool(&mut self, tool: String, arguments: Json) -> Result<Json, Ended> {
        self.open()?;
        let result = self.runtime.call(&tool, &arguments);
        self.events.push(TraceEvent::Call {
            tool,
            arguments,
            observed: None,
        });
        Ok(result)
    }

    /// The assistant asks the user `question`: the scripted follow-up `followup` (from
    /// 1), or with `None` an unscripted question. The user's reply.
    pub fn ask(&mut self, question: String, followup: Option<usize>) -> Result<String, Ended> {
        self.open()?;
        let reply = self.runtime.ask(&question, followup);
        self.events.push(TraceEvent::Asked { question, followup });
        Ok(reply)
    }

    /// The assistant's reply to the user.
    pub fn reply(&mut self, content: String) -> Result<(), Ended> {
        self.open()?;
        self.runtime.reply(&content);
        self.events.push(TraceEvent::Reply(content));
        Ok(())
    }

    /// A user turn, with what the person privately thinks (a simulated person's).
    pub fn user(&mut self, content: String, thought: Option<String>) -> Result<(), Ended> {
        self.open()?;
        self.runtime.user(&content, thought.as_deref());
        self.events.push(TraceEvent::User {
            content,
            thought,
            cited_by: Vec::new(),
        });
        Ok(())
    }

    /// The conversation ended (the person ended it, or the harness at its turn limit).
    pub fn end_conversation(&mut self, ending: super::person::Ending) -> Result<(), Ended> {
        self.open()?;
        self.runtime.end_conversation(ending.clone());
        self.events.push(TraceEvent::End(ending));
        Ok(())
    }

    /// The request for the simulated person's next turn (see [`super::person::request`]):
    /// the case's opening message, then the replies and the person's messages so far.
    pub fn person_request(&self, model: &str, seed: u64) -> Json {
        use super::person::Speaker;
        let mut conversation: Vec<(Speaker, String)> = self
            .runtime
            .case
            .conversation
            .iter()
            .map(|turn| {
                let speaker = match turn.role.as_str() {
                    "assistant" => Speaker::Assistant,
                    _ => Speaker::Person,
                };
                (speaker, turn.content.as_str().to_string())
            })
            .collect();
        for event in &self.events {
            match event {
                TraceEvent::User { content, .. } => {
                    conversation.push((Speaker::Person, content.clone()))
                }
                TraceEvent::Reply(content) => {
                    conversation.push((Speaker::Assistant, content.clone()))
                }
                _ => {}
            }
        }
        super::person::request(self.suite, self.runtime.case, &conversation, model, seed)
    }

    /// Ends the session: its result record. Nothing more is recorded after it.
    pub fn end(&mut self) -> Result<Json, Ended> {
        self.open()?;
        self.ended = true;
        Ok(self.result_record())
    }

    fn open(&self) -> Result<(), Ended> {
        match self.ended {
            true => Err(Ended),
            false => Ok(()),
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
            framing::Message::Unreadable { reason } => Some(framing::parse_error(&reason)),
            framing::Message::Response => None,
        }
    }

    fn dispatch(&mut self, method: &str, params: &Json) -> Result<Json, (i64, String)> {
        if self.ended && method.starts_with("sandbox/") {
            return Err((SESSION_ENDED, ENDED.into()));
        }
        let text = |key: &str| {
            params
                .get(key)
                .and_then(Json::as_str)
                .map(str::to_string)
                .ok_or((-32602, format!("`{key}` must be a string")))
        };
        match method {
            "initialize" => {
                self.harness_listed = declares_harness(params);
                // The capability is echoed to a client that declared it, so it knows
                // the harness tools are listed; to any other the answer is as before.
                let capabilities = match self.harness_listed {
                    true => json!({ "tools": {}, "experimental": { HARNESS: {} } }),
                    false => json!({ "tools": {} }),
                };
                Ok(json!({
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": capabilities,
                    "serverInfo": { "name": "casec", "version": env!("CARGO_PKG_VERSION") },
                }))
            }
            "notifications/initialized" | "ping" => Ok(json!({})),
            "tools/list" => Ok(json!({ "tools": self.listed_tools() })),
            "tools/call" => {
                let tool = text("name")?;
                // Absent or `null` (which clients send for a tool without arguments):
                // no arguments.
                let arguments = match params.get("arguments") {
                    None | Some(Json::Null) => json!({}),
                    Some(given) => given.clone(),
                };
                if !arguments.is_object() {
                    return Err((-32602, "`arguments` must be an object".into()));
                }
                // A tool result, not a JSON-RPC error: an MCP client returns it to its
                // caller rather than raising.
                if self.ended {
                    return Ok(tool_error("SESSION_ENDED", ENDED));
                }
                if let Some(harness) = HARNESS_TOOLS.iter().find(|t| t.name == tool) {
                    return Ok(self.harness_tool(harness, &arguments));
                }
                let Ok(result) = self.call_tool(tool, arguments) else {
                    return Ok(tool_error("SESSION_ENDED", ENDED));
                };
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
                let reply = self.ask(question, Some(followup)).map_err(ended)?;
                Ok(json!({ "reply": reply }))
            }
            "sandbox/question" => {
                let reply = self.ask(text("question")?, None).map_err(ended)?;
                Ok(json!({ "reply": reply }))
            }
            "sandbox/reply" => {
                self.reply(text("content")?).map_err(ended)?;
                Ok(json!({}))
            }
            "sandbox/user" => {
                let thought = match params.get("thought") {
                    None | Some(Json::Null) => None,
                    Some(Json::String(t)) => Some(t.clone()),
                    Some(_) => return Err((-32602, "`thought` must be a string".to_string())),
                };
                self.user(text("content")?, thought).map_err(ended)?;
                Ok(json!({}))
            }
            "sandbox/person" => {
                let model = params
                    .get("model")
                    .and_then(Json::as_str)
                    .unwrap_or("person");
                let seed = params.get("seed").and_then(Json::as_u64).unwrap_or(0);
                Ok(json!({ "request": self.person_request(model, seed) }))
            }
            "sandbox/person_turn" => self.person_turn(),
            "sandbox/end_conversation" => {
                let ending = match params {
                    Json::Object(map) => super::person::Ending::from_json(map),
                    _ => Err("the params must be an object".to_string()),
                }
                .map_err(|why| (-32602, why))?;
                self.end_conversation(ending).map_err(ended)?;
                Ok(json!({}))
            }
            "sandbox/end" => self.end().map_err(ended),
            other => Err((-32601, format!("no method `{other}`"))),
        }
    }

    /// A harness tool (`sandbox.end`, …): its method's answer as an MCP tool result (in
    /// `structuredContent`, which its output schema describes, and as text), or a tool
    /// error for an argument its input schema does not have or its method refuses.
    fn harness_tool(&mut self, tool: &HarnessTool, arguments: &Json) -> Json {
        let unknown = arguments
            .as_object()
            .and_then(|given| given.keys().find(|k| !tool.takes(k)));
        if let Some(unknown) = unknown {
            let takes: Vec<&str> = tool.arguments.iter().map(|a| a.name).collect();
            let message = match takes.is_empty() {
                true => format!("`{}` takes no arguments (given `{unknown}`)", tool.name),
                false => format!(
                    "`{}` takes no argument `{unknown}`; it takes: {}",
                    tool.name,
                    takes.join(", ")
                ),
            };
            return tool_error("UNKNOWN_ARGUMENT", &message);
        }
        match self.dispatch(tool.method, arguments) {
            Ok(result) => json!({
                "content": [{ "type": "text", "text": result.to_string() }],
                "structuredContent": result,
                "isError": false,
            }),
            Err((NO_PERSON_TURN, message)) => tool_error("NO_PERSON_TURN", &message),
            Err((_, message)) => tool_error("INVALID_ARGUMENT", &message),
        }
    }

    /// Names who makes this run (the model, the harness's run id), for the result
    /// record's `model` and `run_id` built-ins.
    pub fn label(&mut self, label: crate::lower::layout::RunLabel) {
        self.runtime.label = label;
    }

    pub fn result_record(&self) -> Json {
        result_record(self.suite, &self.runtime, &findings(&self.runtime))
    }

    /// The tools `tools/list` lists: the case's, then the harness tools for a client
    /// that declared [`HARNESS`].
    pub fn listed_tools(&self) -> Vec<Json> {
        let mut tools = self.tools();
        if self.harness_listed {
            tools.extend(HARNESS_TOOLS.iter().map(|t| t.listed(self.suite)));
        }
        tools
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

/// A tool error as `tools/call` answers it: the `status`/`error`/`message` object every
/// tool error has, as text.
fn tool_error(code: &str, message: &str) -> Json {
    let error = json!({ "status": "error", "error": code, "message": message });
    json!({
        "content": [{ "type": "text", "text": error.to_string() }],
        "isError": true,
    })
}

/// Whether an `initialize` request declares [`HARNESS`]: an object under
/// `capabilities.experimental` (MCP's place for non-standard capabilities) or
/// `capabilities.extensions` (where the MCP Python SDK's `ClientSession(extensions=…)`
/// puts it; its `experimental` is not settable).
fn declares_harness(params: &Json) -> bool {
    ["experimental", "extensions"]
        .iter()
        .any(|place| params["capabilities"][place][HARNESS].is_object())
}

/// A conversation method a harness may call as an MCP tool: `sandbox.NAME` is the
/// method `sandbox/NAME`.
struct HarnessTool {
    name: &'static str,
    method: &'static str,
    title: &'static str,
    description: &'static str,
    arguments: &'static [HarnessArgument],
    answer: HarnessAnswer,
}

struct HarnessArgument {
    name: &'static str,
    /// `string`, or `integer` (a number from 1).
    ty: &'static str,
    required: bool,
    description: &'static str,
}

/// What a harness tool's `structuredContent` holds.
enum HarnessAnswer {
    /// `{"reply": TEXT}`.
    Reply,
    /// `{}`.
    Nothing,
    /// The suite's result record.
    Record,
    /// `{"message": TEXT or null, "end": ENDING or null}`.
    PersonTurn,
}

const QUESTION: HarnessArgument = HarnessArgument {
    name: "question",
    ty: "string",
    required: true,
    description: "the question the model asked, as it asked it",
};

const CONTENT: HarnessArgument = HarnessArgument {
    name: "content",
    ty: "string",
    required: true,
    description: "the text of the turn",
};

const HARNESS_ONLY: &str = "casec harness only: never offer this tool to the model under test.";

const HARNESS_TOOLS: [HarnessTool; 6] = [
    HarnessTool {
        name: "sandbox.ask",
        method: "sandbox/ask",
        title: "Harness: the model asked a scripted follow-up",
        description: "The harness judged that the model asked the case's Nth scripted follow-up question: records an `asked` event and answers the scripted reply (a case without that follow-up answers its unscripted reply).",
        arguments: &[
            QUESTION,
            HarnessArgument {
                name: "followup",
                ty: "integer",
                required: false,
                description: "which scripted follow-up, numbered from 1 in the order the case writes them (default 1)",
            },
        ],
        answer: HarnessAnswer::Reply,
    },
    HarnessTool {
        name: "sandbox.question",
        method: "sandbox/question",
        title: "Harness: the model asked another question",
        description: "The model asked a question that is none of the case's scripted follow-ups: records a `question` event and answers the case's unscripted reply.",
        arguments: &[QUESTION],
        answer: HarnessAnswer::Reply,
    },
    HarnessTool {
        name: "sandbox.reply",
        method: "sandbox/reply",
        title: "Harness: the model replied to the user",
        description: "Records the model's reply to the user (a `reply` event).",
        arguments: &[CONTENT],
        answer: HarnessAnswer::Nothing,
    },
    HarnessTool {
        name: "sandbox.user",
        method: "sandbox/user",
        title: "Harness: a user turn",
        description: "Records a user turn (a `user` event); it is not answered.",
        arguments: &[CONTENT],
        answer: HarnessAnswer::Nothing,
    },
    HarnessTool {
        name: "sandbox.person_turn",
        method: "sandbox/person_turn",
        title: "Harness: the simulated person's next turn",
        description: "Asks the person model the server was started with (--person-endpoint) for the simulated person's next turn, records it (a `user` event with the person's thought, or the `end`), and answers the person's message and ending; the thought stays private.",
        arguments: &[],
        answer: HarnessAnswer::PersonTurn,
    },
    HarnessTool {
        name: "sandbox.end",
        method: "sandbox/end",
        title: "Harness: end the session",
        description: "Ends the session and answers its result record (also written to --result-out); no event is recorded after it.",
        arguments: &[],
        answer: HarnessAnswer::Record,
    },
];

impl HarnessTool {
    fn takes(&self, argument: &str) -> bool {
        self.arguments.iter().any(|a| a.name == argument)
    }

    /// The tool as `tools/list` gives it to a client that declared [`HARNESS`].
    fn listed(&self, suite: &Suite) -> Json {
        let properties: serde_json::Map<String, Json> = self
            .arguments
            .iter()
            .map(|a| {
                let mut property = json!({ "type": a.ty, "description": a.description });
                if a.ty == "integer" {
                    property["minimum"] = json!(1);
                }
                (a.name.to_string(), property)
            })
            .collect();
        let required: Vec<&str> = self
            .arguments
            .iter()
            .filter(|a| a.required)
            .map(|a| a.name)
            .collect();
        let output = match self.answer {
            HarnessAnswer::Reply => json!({
                "type": "object",
                "properties": { "reply": { "type": "string" } },
                "required": ["reply"],
                "additionalProperties": false,
            }),
            HarnessAnswer::Nothing => json!({
                "type": "object",
                "properties": {},
                "additionalProperties": false,
            }),
            HarnessAnswer::Record => {
                crate::lower::record_schema::record_schema(suite, Record::Result)
            }
            HarnessAnswer::PersonTurn => json!({
                "type": "object",
                "properties": {
                    "message": { "type": ["string", "null"] },
                    "end": {
                        "type": ["object", "null"],
                        "properties": {
                            "reason": { "enum": crate::model::shape::END_REASONS },
                            "satisfaction": { "type": ["integer", "null"] },
                            "verdict": { "type": ["string", "null"] },
                        },
                    },
                },
                "required": ["message", "end"],
                "additionalProperties": false,
            }),
        };
        json!({
            "name": self.name,
            "title": self.title,
            "description": format!("{HARNESS_ONLY} {}", self.description),
            "inputSchema": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": false,
            },
            "outputSchema": output,
            "_meta": { HARNESS: { "harnessOnly": true, "method": self.method } },
        })
    }
}
