//! `casec serve --person-endpoint URL --person-model NAME`: `sandbox/person_turn` asks
//! the model for the simulated person's next turn (a fake OpenAI-compatible endpoint
//! here), records it, fails closed on an answer that is no turn, and reuses a cached
//! turn.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};

use crate::fake_judge::{start_with, Reply};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("casec-person-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A chat completion whose message content is `content`.
fn completion(content: &str) -> Reply {
    Reply {
        status: 200,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}).to_string(),
    }
}

/// The answers of `casec serve` (task-011 of cases/donnabench) to `methods`, in order,
/// with `extra` arguments; the session's trace as written.
fn serve(extra: &[&str], methods: &[(&str, Value)], trace: &Path) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_casec"))
        .args([
            "serve",
            "cases/donnabench",
            "--case",
            "task-011",
            "--trace-out",
        ])
        .arg(trace)
        .args(extra)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for (id, (method, params)) in methods.iter().enumerate() {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{request}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The arguments that make the fake endpoint at `url` play the person.
fn person(url: &str) -> [&str; 4] {
    ["--person-endpoint", url, "--person-model", "fake-person"]
}

fn events(trace: &Path) -> Vec<Value> {
    std::fs::read_to_string(trace)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_person_model_plays_each_turn_and_the_session_records_it() {
    let asked = Arc::new(AtomicUsize::new(0));
    let count = asked.clone();
    let endpoint = start_with(move |exchange| {
        let body: Value = serde_json::from_slice(&exchange.body).unwrap();
        let transcript = body["messages"][1]["content"].as_str().unwrap_or_default();
        assert!(
            !transcript.contains("check"),
            "an evaluator word reached the person"
        );
        match count.fetch_add(1, Ordering::SeqCst) {
            0 => completion(
                r#"{"message": "No, I said the blue one.", "thought": "Not again.", "end": null}"#,
            ),
            _ => completion(
                r#"{"message": null, "thought": "Done.", "end": {"reason": "goal_met", "satisfaction": 4, "verdict": "Fine in the end."}}"#,
            ),
        }
    });
    let dir = scratch("turns");
    let trace = dir.join("run.trace.jsonl");
    let answers = serve(
        &person(&endpoint.url),
        &[
            ("sandbox/reply", json!({"content": "I can't do that."})),
            ("sandbox/person_turn", json!({})),
            (
                "sandbox/reply",
                json!({"content": "Understood, the blue one."}),
            ),
            ("sandbox/person_turn", json!({})),
            // The person has ended the conversation: no request, nothing recorded.
            ("sandbox/person_turn", json!({})),
        ],
        &trace,
    );
    assert_eq!(
        answers[1]["result"],
        json!({"message": "No, I said the blue one.", "end": null})
    );
    assert_eq!(answers[3]["result"]["message"], Value::Null);
    assert_eq!(answers[3]["result"]["end"]["reason"], "goal_met");
    assert_eq!(answers[4]["error"]["code"], -32001, "{answers:?}");
    let recorded = events(&trace);
    let kinds: Vec<&str> = recorded
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["reply", "user", "reply", "end"]);
    assert_eq!(recorded[1]["thought"], "Not again.");
    assert_eq!(asked.load(Ordering::SeqCst), 2);
}

#[test]
fn an_answer_that_is_no_turn_is_an_error_and_records_nothing() {
    let endpoint = start_with(|_| completion("Sure! Here is what I would say: hello"));
    let dir = scratch("garbage");
    let trace = dir.join("run.trace.jsonl");
    let answers = serve(
        &person(&endpoint.url),
        &[("sandbox/person_turn", json!({}))],
        &trace,
    );
    assert_eq!(answers[0]["error"]["code"], -32001, "{answers:?}");
    let message = answers[0]["error"]["message"].as_str().unwrap();
    assert!(message.contains("not one JSON object"), "{message}");
    assert!(events(&trace).is_empty());

    let without = serve(
        &[],
        &[("sandbox/person_turn", json!({}))],
        &dir.join("none.jsonl"),
    );
    let message = without[0]["error"]["message"].as_str().unwrap();
    assert!(message.contains("--person-endpoint"), "{message}");
}

#[test]
fn a_cached_turn_is_not_asked_again() {
    let endpoint = start_with(|_| {
        completion(r#"{"message": "Fine, go ahead.", "thought": "ok", "end": null}"#)
    });
    let dir = scratch("cache");
    let cache = dir.join("cache");
    let args = [
        "--person-endpoint",
        &endpoint.url,
        "--person-model",
        "fake-person",
        "--person-cache",
        cache.to_str().unwrap(),
    ];
    let methods = [("sandbox/person_turn", json!({}))];
    let first = serve(&args, &methods, &dir.join("one.jsonl"));
    let second = serve(&args, &methods, &dir.join("two.jsonl"));
    assert_eq!(first[0]["result"], second[0]["result"]);
    assert_eq!(first[0]["result"]["message"], "Fine, go ahead.");
    assert_eq!(endpoint.requests(), 1);
}

/// An MCP-only harness asks for the person's turn with the harness tool
/// `sandbox.person_turn`: the same turn, in `structuredContent`.
#[test]
fn the_harness_tool_gives_the_persons_turn() {
    let endpoint = start_with(|_| {
        completion(r#"{"message": "Thursday, please.", "thought": "finally", "end": null}"#)
    });
    let dir = scratch("harness-tool");
    let answers = serve(
        &person(&endpoint.url),
        &[
            (
                "initialize",
                json!({"capabilities": {"experimental": {"casec/harness": {}}}}),
            ),
            (
                "tools/call",
                json!({"name": "sandbox.person_turn", "arguments": {}}),
            ),
        ],
        &dir.join("run.jsonl"),
    );
    let result = &answers[1]["result"];
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(
        result["structuredContent"],
        json!({"message": "Thursday, please.", "end": null})
    );
}
