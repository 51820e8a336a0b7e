//! `casec lsp` end to end: the binary, spoken to in JSON-RPC over its standard input
//! and output, through initialize → didOpen → codeAction → didChange → completion →
//! hover → definition → formatting → shutdown → exit. The whole conversation is
//! compared with `tests/lsp/session.golden` (paths of the fixture suite written as
//! `file:///SUITE`); run with `UPDATE_GOLDEN=1` to rewrite it, then review the diff.

use crate::lsp_client as client;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use client::{apply, at, err1_with_mistake, file_uri, open, position, range, read, suite_dir, uri};
use serde_json::{json, Value};

/// A server that has not answered by then is stuck: the test kills it and fails.
const DEADLINE: Duration = Duration::from_secs(60);

struct Client {
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: i64,
    received: Vec<Value>,
    transcript: String,
}

impl Client {
    fn send(&mut self, message: Value) {
        let label = match (&message["method"], &message["id"]) {
            (Value::String(method), Value::Null) => method.clone(),
            (Value::String(method), id) => format!("{method} #{id}"),
            _ => "?".to_string(),
        };
        self.transcript.push_str(&format!("--> {label}\n"));
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
        self.stdin.flush().expect("flush");
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request and reads every message up to its response; returns the result.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let message = self.receive();
            if message["id"] == id && message.get("method").is_none() {
                assert!(message.get("error").is_none(), "{method}: {message}");
                return message["result"].clone();
            }
        }
    }

    fn receive(&mut self) -> Value {
        let mut length = None;
        loop {
            let mut line = String::new();
            let read = self.stdout.read_line(&mut line).expect("read a header");
            assert!(read > 0, "the server closed its output");
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(value) = line.strip_prefix("Content-Length: ") {
                length = Some(value.parse::<usize>().expect("a length"));
            }
        }
        let mut body = vec![0; length.expect("Content-Length")];
        self.stdout.read_exact(&mut body).expect("read a body");
        let message: Value = serde_json::from_slice(&body).expect("JSON");
        let shown = serde_json::to_string_pretty(&message).unwrap();
        self.transcript.push_str(&format!("<-- {shown}\n"));
        self.received.push(message.clone());
        message
    }
}

/// Kills the server if the test has not finished by the deadline.
fn watchdog(child: Arc<Mutex<Child>>, finished: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        let start = Instant::now();
        while !finished.load(Ordering::SeqCst) {
            if start.elapsed() > DEADLINE {
                let _ = child.lock().map(|mut c| c.kill());
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    });
}

fn diagnostics_for<'a>(transcript: &'a [Value], uri: &str) -> Vec<&'a Value> {
    transcript
        .iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri)
        .collect()
}

#[test]
fn a_session_with_the_binary_matches_the_golden_transcript() {
    let cache = std::env::temp_dir().join(format!("casec-lsp-e2e-{}", std::process::id()));
    let mut child = Command::new(env!("CARGO_BIN_EXE_casec"))
        .arg("lsp")
        .env("CASEC_CACHE_DIR", &cache)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start casec lsp");
    let mut client = Client {
        stdin: child.stdin.take().expect("stdin"),
        stdout: BufReader::new(child.stdout.take().expect("stdout")),
        next_id: 0,
        received: Vec::new(),
        transcript: String::new(),
    };
    let child = Arc::new(Mutex::new(child));
    let finished = Arc::new(AtomicBool::new(false));
    watchdog(Arc::clone(&child), Arc::clone(&finished));

    let err1 = uri("errands/ERR-1.case");
    let err2 = uri("errands/ERR-2.case");
    let initialize = client.request(
        "initialize",
        json!({ "processId": null, "capabilities": {} }),
    );
    assert_eq!(initialize["serverInfo"]["name"], "casec");
    client.notify("initialized", json!({}));

    // A misspelt category after an em dash and an emoji: found at UTF-16 columns.
    let text = err1_with_mistake();
    client.notify("textDocument/didOpen", open(&err1, &text));
    let actions = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": err1 }, "range": range(2, 54, 60), "context": { "diagnostics": [] } }),
    );
    let fix = &actions[0]["edit"]["changes"][&err1][0];
    assert_eq!(fix["range"], range(2, 54, 60));

    // Apply the fix, and start a `tools` line to complete.
    let changes = json!([
        { "range": fix["range"], "text": fix["newText"] },
        { "range": { "start": position(2, 0), "end": position(2, 0) }, "text": "  tools get_clock \n" },
    ]);
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": err1, "version": 2 }, "contentChanges": changes }),
    );
    let tools = client.request("textDocument/completion", at(&err1, 2, 18));
    let tags = client.request("textDocument/completion", at(&err1, 1, 7));
    let categories = client.request("textDocument/completion", at(&err1, 3, 54));
    let hover = client.request("textDocument/hover", at(&err1, 2, 10));

    client.notify(
        "textDocument/didOpen",
        open(&err2, &read("errands/ERR-2.case")),
    );
    let definition = client.request("textDocument/definition", at(&err2, 3, 12));
    let edits = client.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": err1 }, "options": { "tabSize": 2, "insertSpaces": true } }),
    );
    assert_eq!(client.request("shutdown", Value::Null), Value::Null);
    client.notify("exit", Value::Null);
    drop(client.stdin);
    let status = child
        .lock()
        .expect("the child")
        .wait()
        .expect("exit status");
    finished.store(true, Ordering::SeqCst);
    let _ = std::fs::remove_dir_all(&cache);
    assert_eq!(status.code(), Some(0), "exit after shutdown");

    // The acceptance points, before the whole transcript.
    let published = diagnostics_for(&client.received, &err1);
    assert_eq!(published.len(), 2, "on open and after the fix");
    let mistake = &published[0]["params"]["diagnostics"][0];
    assert_eq!(
        (&mistake["code"], &mistake["range"]),
        (&json!("unknown_category"), &range(2, 54, 60))
    );
    assert_eq!(published[1]["params"]["diagnostics"], json!([]));
    let labels = |items: &Value| -> Vec<String> {
        items
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["label"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(labels(&tools), ["get_clock", "read_records", "tracker"]);
    assert_eq!(
        labels(&tags),
        ["routine", "uncertainty", "tool_failure_or_ambiguous_result"]
    );
    assert_eq!(labels(&categories), ["errands", "belongings"]);
    let contract = hover["contents"]["value"].as_str().unwrap();
    assert!(contract.contains("get_clock()") && contract.contains("never the real date"));
    assert_eq!(
        definition,
        json!({ "uri": uri("profiles.case"), "range": range(1, 8, 20) })
    );
    let fixed = apply(
        &text,
        &json!([{ "range": fix["range"], "newText": fix["newText"] }]),
    );
    let formatted = apply(
        &fixed.replacen("  user ", "  tools get_clock \n  user ", 1),
        &edits,
    );
    assert!(formatted.contains(
        "  tools get_clock\n  user \"When — 📦 can I pick up my parcel?\"\n  category errands\n"
    ));

    let root = file_uri(&suite_dir());
    let transcript = client.transcript.replace(&root, "file:///SUITE");
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lsp/session.golden");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &transcript).expect("write the golden transcript");
    }
    let expected = std::fs::read_to_string(&golden).unwrap_or_default();
    assert!(
        transcript == expected,
        "the transcript differs from tests/lsp/session.golden (UPDATE_GOLDEN=1 rewrites it):\n{}",
        similar::TextDiff::from_lines(&expected, &transcript).unified_diff()
    );
}

/// Runs `casec lsp` on `input` (written from a thread, so a server that answers while it
/// reads cannot block on its output); its exit code and output.
fn lsp_on(input: Vec<u8>) -> (Option<i32>, String) {
    let cache = std::env::temp_dir().join(format!("casec-lsp-e2e-caps-{}", std::process::id()));
    let mut child = Command::new(env!("CARGO_BIN_EXE_casec"))
        .arg("lsp")
        .env("CASEC_CACHE_DIR", &cache)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start casec lsp");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().expect("casec lsp runs");
    writer.join().expect("the input is written");
    let _ = std::fs::remove_dir_all(&cache);
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

fn frame(body: &str) -> String {
    format!("Content-Length: {}\r\n\r\n{body}", body.len())
}

/// `casec lsp`: a header line over the 8 KiB cap is answered with a parse error and its
/// frame skipped, and the session goes on; an endless one (16 MiB, no line break) ends
/// the session as input that ends without `exit` does (exit 1), not with an abort.
#[test]
fn header_lines_over_the_cap_are_answered_or_end_the_session_cleanly() {
    let mut input = format!("X-Long: {}\r\n", "a".repeat(10_000));
    input.push_str(&frame(r#"{"jsonrpc":"2.0","id":7,"method":"shutdown"}"#));
    for body in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#,
        r#"{"jsonrpc":"2.0","method":"exit"}"#,
    ] {
        input.push_str(&frame(body));
    }
    let (code, output) = lsp_on(input.into_bytes());
    assert_eq!(code, Some(0), "{output}");
    let first = output.split("\r\n\r\n").nth(1).expect("an answer");
    let first = &first[..first.find("Content-Length").unwrap_or(first.len())];
    let first: Value = serde_json::from_str(first).expect("a JSON answer");
    assert_eq!(first["id"], Value::Null, "{first}");
    assert_eq!(first["error"]["code"], -32700, "{first}");
    assert_eq!(
        first["error"]["message"],
        "a header line longer than 8 KiB: the frame was skipped"
    );
    assert!(
        !output.contains(r#""id":7"#),
        "the skipped frame was answered: {output}"
    );

    let (code, output) = lsp_on(vec![b'a'; 16 << 20]);
    assert_eq!((code, output.as_str()), (Some(1), ""));
}
