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
        Some("asked") => ("sandbox/ask", json!({"question": event["content"]})),
        Some("reply") => ("sandbox/reply", json!({"content": event["content"]})),
        _ => ("sandbox/user", json!({"content": event["content"]})),
    };
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn play(case: &str, trace_file: &str) {
    let tmp = std::env::temp_dir().join(format!("casec-serve-{}-{case}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let (trace_out, result_out) = (tmp.join("trace.jsonl"), tmp.join("result.json"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_casec"))
        .args([
            "serve",
            "cases/tujora",
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
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"get_clock"), "{names:?}");
    let trace = std::fs::read_to_string(root().join(trace_file)).unwrap();
    for (i, line) in trace.lines().enumerate() {
        let event: Value = serde_json::from_str(line).unwrap();
        let answer = exchange(request(i + 2, &event)).unwrap();
        assert!(answer.get("error").is_none(), "{answer}");
    }
    let end = exchange(json!({"jsonrpc": "2.0", "id": 999, "method": "sandbox/end"})).unwrap();
    assert!(child.wait().unwrap().success());
    let replayed = Command::new(env!("CARGO_BIN_EXE_casec"))
        .args(["replay", case, "--trace", trace_file, "cases/tujora"])
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
    let golden: Vec<Value> = trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(served, golden, "the session's trace is the trace it played");
    assert_eq!(end["result"]["case_id"], case);
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
