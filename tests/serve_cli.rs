//! `casec serve` end to end: a scripted client plays a golden trace over stdio JSON-RPC
//! and the session's records match what `casec replay` gives for the same trace.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The JSON-RPC request that plays one trace event, if it is a request.
fn request(id: usize, event: &Value) -> Value {
    let (method, params) = match event["type"].as_str() {
        Some("call") => (
            "tools/call",
            json!({"name": event["tool"], "arguments": event["arguments"]}),
        ),
        Some("asked") => match event.get("followup") {
            Some(n) => (
                "sandbox/ask",
                json!({"question": event["content"], "followup": n}),
            ),
            None => ("sandbox/ask", json!({"question": event["content"]})),
        },
        Some("reply") => ("sandbox/reply", json!({"content": event["content"]})),
        Some("end") => ("sandbox/end_conversation", event.clone()),
        _ => (
            "sandbox/user",
            json!({"content": event["content"], "thought": event["thought"]}),
        ),
    };
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn play(case: &str, trace_file: &str) {
    play_in("cases/tujora", case, trace_file);
}

/// Plays the golden trace of a case of `suite` through `casec serve`: every call and
/// turn is answered without a protocol error, every tool is listed with a closed,
/// typed input schema, and the session's records are what `casec replay` gives.
fn play_in(suite: &str, case: &str, trace_file: &str) {
    let tmp = std::env::temp_dir().join(format!("casec-serve-{}-{case}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let (trace_out, result_out) = (tmp.join("trace.jsonl"), tmp.join("result.json"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_casec"))
        .args([
            "serve",
            suite,
            "--case",
            case,
            "--trace-out",
            trace_out.to_str().unwrap(),
            "--result-out",
            result_out.to_str().unwrap(),
        ])
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("casec serve starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut exchange = |message: Value| -> Option<Value> {
        writeln!(stdin, "{message}").unwrap();
        message.get("id")?;
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        Some(serde_json::from_str(&line).expect("a JSON-RPC answer"))
    };
    let init =
        exchange(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}})).unwrap();
    assert_eq!(init["result"]["serverInfo"]["name"], "casec");
    assert!(exchange(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).is_none());
    let tools = exchange(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})).unwrap();
    let listed = tools["result"]["tools"].as_array().unwrap();
    assert!(!listed.is_empty(), "{tools}");
    for tool in listed {
        let schema = &tool["inputSchema"];
        assert_eq!(schema["type"], "object", "{tool}");
        assert_eq!(schema["additionalProperties"], false, "{tool}");
        assert!(schema["required"].is_array(), "{tool}");
    }
    let trace = std::fs::read_to_string(root().join(trace_file)).unwrap();
    for called in trace
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
    {
        if let Some(tool) = called["tool"].as_str() {
            assert!(
                listed.iter().any(|t| t["name"] == tool),
                "the golden trace calls `{tool}`, which tools/list does not offer"
            );
        }
    }
    for (i, line) in trace.lines().enumerate() {
        let event: Value = serde_json::from_str(line).unwrap();
        let answer = exchange(request(i + 2, &event)).unwrap();
        assert!(answer.get("error").is_none(), "{answer}");
    }
    let end = exchange(json!({"jsonrpc": "2.0", "id": 999, "method": "sandbox/end"})).unwrap();
    // The record is written at the end; the server still answers (an MCP client lists
    // the tools again) but refuses any further event, until its input ends.
    let written_at_end = std::fs::read_to_string(&result_out).unwrap();
    // A tool call is answered with a tool error (an MCP client returns it rather than
    // raising); a `sandbox/*` method with the JSON-RPC error.
    let after = exchange(json!({"jsonrpc": "2.0", "id": 1000, "method": "tools/call", "params": {"name": "get_clock", "arguments": {}}})).unwrap();
    assert_eq!(after["result"]["isError"], true, "{after}");
    let text: Value =
        serde_json::from_str(after["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text["error"], "SESSION_ENDED", "{after}");
    let asked_after = exchange(
        json!({"jsonrpc": "2.0", "id": 1002, "method": "sandbox/ask", "params": {"question": "?"}}),
    )
    .unwrap();
    assert_eq!(asked_after["error"]["code"], -32000, "{asked_after}");
    let relisted = exchange(json!({"jsonrpc": "2.0", "id": 1001, "method": "tools/list"})).unwrap();
    assert_eq!(relisted["result"], tools["result"]);
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert_eq!(
        std::fs::read_to_string(&result_out).unwrap(),
        written_at_end
    );
    let replayed = Command::new(env!("CARGO_BIN_EXE_casec"))
        .args(["replay", case, "--trace", trace_file, suite])
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(&result_out).unwrap(),
        String::from_utf8(replayed.stdout).unwrap()
    );
    let served: Vec<Value> = std::fs::read_to_string(&trace_out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // `"followup": 1` is the default a trace may leave out.
    let golden: Vec<Value> = trace
        .lines()
        .map(|l| {
            let mut event: Value = serde_json::from_str(l).unwrap();
            if event["followup"] == 1 {
                event.as_object_mut().unwrap().remove("followup");
            }
            event
        })
        .collect();
    assert_eq!(served, golden, "the session's trace is the trace it played");
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&result_out).unwrap()).unwrap();
    assert_eq!(
        end["result"], written,
        "sandbox/end answers the record it wrote"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn serve_plays_a_golden_trace_with_a_timeout_override() {
    play("TUJ-034", "cases/tujora/appointments/TUJ-034.trace.jsonl");
}

#[test]
fn serve_plays_a_clarification_case() {
    play(
        "TUJ-099",
        "cases/tujora/dates_and_plans/TUJ-099.trace.jsonl",
    );
}

/// Every golden trace of a suite beside its case file, as (case id, trace path).
fn golden_traces(suite: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut dirs = vec![root().join(suite)];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            // Observed conversations are no case's golden traces.
            if path.is_dir() && name != casec::runtime::trace_files::OBSERVED_FOLDER {
                dirs.push(path);
            } else if let Some(id) = name.strip_suffix(".trace.jsonl") {
                if !id.contains(".counter-") {
                    let relative = path.strip_prefix(root()).unwrap();
                    out.push((id.to_string(), relative.to_string_lossy().to_string()));
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn serve_plays_every_donnabench_golden_trace() {
    let traces = golden_traces("cases/donnabench");
    assert!(traces.len() >= 10, "{traces:?}");
    for (case, trace) in traces {
        play_in("cases/donnabench", &case, &trace);
    }
}

#[test]
fn serve_plays_every_dumate_golden_trace() {
    let traces = golden_traces("cases/dumate");
    assert!(traces.len() >= 5, "{traces:?}");
    for (case, trace) in traces {
        play_in("cases/dumate", &case, &trace);
    }
}

#[test]
fn serve_answers_bad_messages_with_errors() {
    let output = Command::new(env!("CARGO_BIN_EXE_casec"))
        .args(["serve", "cases/tujora", "--case", "TUJ-001"])
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            let mut stdin = child.stdin.take().unwrap();
            writeln!(stdin, "not json")?;
            writeln!(
                stdin,
                "{}",
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/frobnicate"})
            )?;
            writeln!(
                stdin,
                "{}",
                json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": 5}})
            )?;
            drop(stdin);
            child.wait_with_output()
        })
        .expect("casec serve runs");
    let codes: Vec<i64> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["error"]["code"]
                .as_i64()
                .unwrap()
        })
        .collect();
    assert_eq!(codes, [-32700, -32601, -32602]);
    assert!(output.status.success());
}

/// A server for TUJ-011 with its records in `dir`, and a way to talk to it line by line.
struct Server {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    stdout: BufReader<std::process::ChildStdout>,
}

impl Server {
    fn start(dir: &std::path::Path) -> Server {
        let mut child = serve_command(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("casec serve starts");
        Server {
            stdin: child.stdin.take(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn answer(&mut self) -> String {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        line.trim_end().to_string()
    }

    fn call(&mut self, id: u64) -> Value {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "read_records", "arguments": {"collection": "reminders", "query": ""}}});
        self.send(call.to_string().as_bytes());
        serde_json::from_str(&self.answer()).unwrap()
    }

    fn signal(&self, signal: &str) {
        let sent = Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
    }
}

fn serve_command(dir: &std::path::Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_casec"));
    command
        .args(["serve", "cases/tujora", "--case", "TUJ-011", "--trace-out"])
        .arg(dir.join("trace.jsonl"))
        .arg("--result-out")
        .arg(dir.join("result.json"))
        .current_dir(root());
    command
}

#[test]
fn malformed_frames_get_answers_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    server.send(b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\", \"x\": \"\xff\xfe\"}");
    let answer: Value = serde_json::from_str(&server.answer()).unwrap();
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    assert_eq!(answer["id"], Value::Null);
    for text in ["42", "null", "\"str\"", "{}"] {
        server.send(text.as_bytes());
        let answer: Value = serde_json::from_str(&server.answer()).unwrap();
        assert_eq!(answer["error"]["code"], -32600, "{text}: {answer}");
    }
    server.send(br#"[{"jsonrpc": "2.0", "id": "a", "method": "ping"}, 7, {"jsonrpc": "2.0", "method": "notifications/initialized"}]"#);
    let batch: Value = serde_json::from_str(&server.answer()).unwrap();
    assert_eq!(batch[0]["id"], "a");
    assert_eq!(batch[0]["result"], json!({}));
    assert_eq!(batch[1]["error"]["code"], -32600);
    assert_eq!(
        batch.as_array().unwrap().len(),
        2,
        "no answer to a notification"
    );
    server.send(br#"[]"#);
    let empty: Value = serde_json::from_str(&server.answer()).unwrap();
    assert_eq!(empty["error"]["code"], -32600);
    // A client's response is not answered: the next answer is the ping's.
    server.send(br#"{"jsonrpc": "2.0", "id": 5, "result": {}}"#);
    server.send(br#"{"jsonrpc": "2.0", "id": 5, "error": {"code": 1, "message": "no"}}"#);
    server.send(br#"{"jsonrpc": "2.0", "id": 123456789012345678901234567890, "method": "ping"}"#);
    assert_eq!(
        server.answer(),
        r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}"#
    );
    assert_eq!(server.call(8)["id"], 8, "tools still work");
    drop(server.stdin.take());
    let status = server.child.wait().unwrap();
    assert!(status.success());
    let trace = std::fs::read_to_string(dir.path().join("trace.jsonl")).unwrap();
    assert_eq!(trace.lines().count(), 1, "{trace}");
}

#[test]
fn sigterm_ends_the_session_with_its_records() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    server.call(1);
    server.call(2);
    server.signal("-TERM");
    let status = server.child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let trace = std::fs::read_to_string(dir.path().join("trace.jsonl")).unwrap();
    assert_eq!(trace.lines().count(), 2, "{trace}");
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("result.json")).unwrap())
            .expect("a result record");
    assert_eq!(record["case_id"], "TUJ-011");
    assert_eq!(record["tool_trace"].as_array().unwrap().len(), 2);
}

#[test]
fn a_killed_server_keeps_every_event_it_answered() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    for id in 1..=3 {
        server.call(id);
    }
    server.signal("-KILL");
    let _ = server.child.wait();
    let trace = std::fs::read_to_string(dir.path().join("trace.jsonl")).unwrap();
    assert_eq!(trace.lines().count(), 3, "{trace}");
}

#[test]
fn a_second_server_for_the_same_records_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = Server::start(dir.path());
    first.call(1);
    let second = serve_command(dir.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(second.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&second.stderr).contains("the file exists"));
    first.call(2);
    drop(first.stdin.take());
    assert!(first.child.wait().unwrap().success());
    let trace = std::fs::read_to_string(dir.path().join("trace.jsonl")).unwrap();
    assert_eq!(
        trace.lines().count(),
        2,
        "the first session's trace is whole"
    );
}

/// One summary per run: `serve` reported the compilation and then its own finding,
/// each with a summary line.
#[test]
fn json_diagnostics_end_with_one_summary() {
    let output = Command::new(env!("CARGO_BIN_EXE_casec"))
        .args([
            "serve",
            "cases/tujora",
            "--case",
            "NOPE-1",
            "--format",
            "json",
        ])
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let lines: Vec<Value> = String::from_utf8(output.stderr)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON lines only"))
        .collect();
    let summaries = lines.iter().filter(|l| l.get("summary").is_some()).count();
    assert_eq!(summaries, 1, "{lines:?}");
    assert_eq!(lines.last().unwrap()["summary"]["errors"], 1);
    assert_eq!(lines[0]["code"], "io");
}

impl Server {
    /// Sends a request and reads its answer.
    fn request(&mut self, message: Value) -> Value {
        self.send(message.to_string().as_bytes());
        serde_json::from_str(&self.answer()).unwrap()
    }

    fn initialize(&mut self, capabilities: Value) -> Value {
        self.request(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": capabilities,
                "clientInfo": {"name": "test", "version": "0"}}}))
    }

    fn tools(&mut self) -> Vec<Value> {
        let listed = self.request(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
        listed["result"]["tools"].as_array().unwrap().clone()
    }

    fn tool(&mut self, id: u64, name: &str, arguments: Value) -> Value {
        let answer = self.request(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}));
        assert!(answer.get("error").is_none(), "{answer}");
        answer["result"].clone()
    }
}

const HARNESS_TOOLS: [&str; 6] = [
    "sandbox.ask",
    "sandbox.question",
    "sandbox.reply",
    "sandbox.user",
    "sandbox.person_turn",
    "sandbox.end",
];

/// A client that does not declare `casec/harness` (a harness passing `tools/list` to its
/// model) is never shown the harness tools, and its `initialize` answer is as it was.
#[test]
fn harness_tools_are_not_listed_without_the_capability() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    let init = server.initialize(json!({"experimental": {"other/thing": {}}}));
    assert_eq!(
        init["result"]["capabilities"],
        json!({"tools": {}}),
        "{init}"
    );
    let names: Vec<Value> = server.tools().iter().map(|t| t["name"].clone()).collect();
    assert_eq!(
        names,
        ["get_clock", "read_records", "verify_record", "write_record"]
    );
}

/// A client that declares `casec/harness` (in `experimental`, or in `extensions` as the
/// MCP Python SDK sends it) gets the case's tools unchanged, then the harness tools,
/// each marked harness-only in `_meta`, with closed input schemas and output schemas
/// their results follow.
#[test]
fn harness_tools_are_listed_for_a_client_that_declares_them() {
    let plain = {
        let dir = tempfile::tempdir().unwrap();
        let mut server = Server::start(dir.path());
        server.initialize(json!({}));
        server.tools()
    };
    for place in ["experimental", "extensions"] {
        let dir = tempfile::tempdir().unwrap();
        let mut server = Server::start(dir.path());
        let init = server.initialize(json!({ place: {"casec/harness": {}} }));
        assert_eq!(
            init["result"]["capabilities"]["experimental"]["casec/harness"],
            json!({}),
            "{init}"
        );
        let listed = server.tools();
        assert_eq!(
            listed[..plain.len()],
            plain[..],
            "the case's tools as before"
        );
        let harness = &listed[plain.len()..];
        let names: Vec<&str> = harness
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, HARNESS_TOOLS, "{place}");
        for tool in harness {
            let name = tool["name"].as_str().unwrap();
            assert_eq!(
                tool["_meta"]["casec/harness"]["method"],
                name.replace('.', "/"),
                "{tool}"
            );
            assert_eq!(tool["_meta"]["casec/harness"]["harnessOnly"], true);
            assert!(tool["description"]
                .as_str()
                .unwrap()
                .contains("never offer this tool to the model"));
            assert_eq!(tool["inputSchema"]["additionalProperties"], false, "{tool}");
            assert_eq!(tool["outputSchema"]["type"], "object", "{tool}");
            jsonschema::draft202012::new(&tool["inputSchema"]).expect("an input schema");
        }
        // Each answer's `structuredContent` follows its tool's output schema.
        let schema = |name: &str| {
            let tool = harness.iter().find(|t| t["name"] == name).unwrap();
            jsonschema::draft202012::new(&tool["outputSchema"]).expect("an output schema")
        };
        let calls = [
            (
                "sandbox.ask",
                json!({"question": "Which one?", "followup": 1}),
            ),
            ("sandbox.question", json!({"question": "Anything else?"})),
            ("sandbox.user", json!({"content": "Thanks."})),
            ("sandbox.reply", json!({"content": "Done."})),
            ("sandbox.end", json!({})),
        ];
        for (id, (name, arguments)) in calls.into_iter().enumerate() {
            let result = server.tool(10 + id as u64, name, arguments);
            assert_eq!(result["isError"], false, "{name}: {result}");
            let content = &result["structuredContent"];
            let errors: Vec<String> = schema(name)
                .iter_errors(content)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{name}: {errors:?}");
        }
        // After the end, every tool call is a tool error saying so, not a JSON-RPC error.
        for name in ["sandbox.reply", "get_clock"] {
            let result = server.tool(20, name, json!({"content": "late"}));
            assert_eq!(result["isError"], true, "{result}");
            let text = result["content"][0]["text"].as_str().unwrap();
            assert!(
                text.contains("SESSION_ENDED") && text.contains("new session"),
                "{text}"
            );
        }
    }
}

/// A harness tool refuses an argument its input schema does not have, as a tool error.
#[test]
fn a_harness_tool_refuses_unknown_and_mistyped_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    server.initialize(json!({"experimental": {"casec/harness": {}}}));
    let unknown = server.tool(1, "sandbox.reply", json!({"content": "x", "tone": "warm"}));
    assert_eq!(unknown["isError"], true, "{unknown}");
    let text = unknown["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("UNKNOWN_ARGUMENT") && text.contains("tone"),
        "{text}"
    );
    let mistyped = server.tool(2, "sandbox.ask", json!({"question": 3}));
    assert_eq!(mistyped["isError"], true, "{mistyped}");
    assert!(mistyped["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("INVALID_ARGUMENT"));
    drop(server.stdin.take());
    assert!(server.child.wait().unwrap().success());
    let trace = std::fs::read_to_string(dir.path().join("trace.jsonl")).unwrap();
    assert_eq!(trace, "", "a refused harness call records nothing");
}

/// `casec serve`: a line longer than the 64 MiB cap is answered with an invalid request
/// (id `null`) and skipped as it arrives, and the session goes on.
#[test]
fn a_line_over_the_cap_is_answered_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    server.send(&vec![b'x'; (64 << 20) + 1]);
    let answer: Value = serde_json::from_str(&server.answer()).unwrap();
    assert_eq!(answer["id"], Value::Null, "{answer}");
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("a line of more than 64 MiB"),
        "{message}"
    );
    assert_eq!(server.call(2)["id"], 2, "tools still work");
    drop(server.stdin.take());
    assert!(server.child.wait().unwrap().success());
}

/// `casec serve`: input that ends in a line over the cap with no line break is answered,
/// and the session ends as at any end of input, its result record written.
#[test]
fn an_endless_last_line_is_answered_and_the_records_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    server.call(1);
    let stdin = server.stdin.as_mut().unwrap();
    stdin.write_all(&vec![b'{'; (64 << 20) + 1]).unwrap();
    drop(server.stdin.take());
    let answer: Value = serde_json::from_str(&server.answer()).unwrap();
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    assert!(server.child.wait().unwrap().success());
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("result.json")).unwrap())
            .expect("a result record");
    assert_eq!(record["tool_trace"].as_array().unwrap().len(), 1);
}

/// `casec serve`: JSON that cannot be read as data gets a parse error with id `null`
/// that itself parses, never an echo of an id no JSON parser reads, nor "a JSON-RPC
/// message is an object"; `"arguments": null` is a call without arguments.
#[test]
fn unreadable_json_rpc_gets_parse_errors_and_null_arguments_are_none() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"ping","params":{{"a":{}{}}}}}"#,
        "[".repeat(500),
        "]".repeat(500)
    );
    for (line, says) in [
        (
            r#"{"jsonrpc":"2.0","id":"\ud800","method":"ping"}"#,
            "parse error: the id holds a `\\u` escape of half a UTF-16 surrogate pair",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
            "parse error: duplicate field `id`",
        ),
        (
            deep.as_str(),
            "parse error: arrays or objects nested more than 128 deep",
        ),
    ] {
        server.send(line.as_bytes());
        let answer: Value = serde_json::from_str(&server.answer()).expect("an answer that parses");
        assert_eq!(answer["id"], Value::Null, "{answer}");
        assert_eq!(answer["error"]["code"], -32700, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.starts_with(says), "{message}");
    }
    server.send(br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_clock","arguments":null}}"#);
    let answer: Value = serde_json::from_str(&server.answer()).unwrap();
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    drop(server.stdin.take());
    assert!(server.child.wait().unwrap().success());
    let trace = std::fs::read_to_string(dir.path().join("trace.jsonl")).unwrap();
    let event: Value = serde_json::from_str(trace.trim()).unwrap();
    assert_eq!(event["arguments"], json!({}), "{trace}");
}
