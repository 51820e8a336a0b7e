//! `commands.run` for real: a command runs in a fresh workspace isolated by bubblewrap
//! (docs/security.md) — it cannot write outside the workspace, reach an address the
//! case does not declare, or outlive its time and memory limits — and the world's
//! endpoints are real HTTP servers to its programs, with their declared faults, each
//! request in the trace. The files a command leaves are the store's.
//!
//! These tests need bubblewrap: see `support::isolation` for a machine without it.

use std::path::PathBuf;
use std::sync::OnceLock;

use serde_json::{json, Value};

use casec::model::Suite;
use casec::runtime::commands::isolation::{Isolation, Workspace};
use casec::runtime::{Event, Runtime};

use crate::support::suite::compiled_once;

const SUITE: &str = r#"suite "Commands" {
  system_prompt "Work in /workspace."
  world_schema std.workspace_world
  tools read_file write_file http_get run_command
}
case C-1 "Run commands" {
  user "Make /outputs/n.txt."
  goal "It is made."
  world {
    files F1 {
      path "/workspace/in.txt"
      content "a\nb\nc\n"
    }
    files F2 {
      path "/workspace/seed.bin"
      content from "seed.bin"
    }
    endpoints EP1 {
      url "http://rates.test/today"
      status 200
      body "{\"EUR\": 1.08}"
      failures 1
    }
    endpoints EP2 {
      url "http://slow.test/"
      status 200
      body "late"
      failures 1
      failure timeout
    }
    endpoints EP3 {
      url "http://busy.test/"
      status 200
      body "ok"
      failures 2
      failure status
      failure_status 429
    }
  }
  expect G1 {
    file "/outputs/n.txt" {
      contains "3"
    }
  }
}
"#;

fn suite() -> &'static Suite {
    static SUITE_CELL: OnceLock<Suite> = OnceLock::new();
    compiled_once(&SUITE_CELL, SUITE)
}

fn isolation_available() -> bool {
    crate::support::isolation::available("a workspace command test")
}

fn program() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_casec"))
}

/// A fresh sandbox of the case whose commands run in an isolated workspace.
fn runtime(suite: &Suite) -> Runtime<'_> {
    let case = &suite.cases[0];
    let mut rt = Runtime::new(suite, case, case.sandbox.as_ref().unwrap());
    let workspace = Workspace::create(Isolation::Namespaces, program()).unwrap();
    rt.set_executor(Box::new(workspace));
    rt
}

fn run(rt: &mut Runtime, command: &str) -> Value {
    let tool = rt
        .offered()
        .iter()
        .find(|t| t.name.as_str().starts_with("run_"))
        .unwrap()
        .name
        .clone();
    rt.call(tool.as_str(), &json!({ "command": command }))
}

fn stdout(result: &Value) -> &str {
    result["stdout"].as_str().unwrap_or_default()
}

#[test]
fn a_command_works_on_the_seeded_files_and_what_it_writes_is_graded() {
    if !isolation_available() {
        return;
    }
    let mut rt = runtime(suite());
    let made = run(
        &mut rt,
        "mkdir -p /outputs && wc -l < /workspace/in.txt > /outputs/n.txt",
    );
    assert_eq!(made["status"], "ok", "{made}");
    let read = rt.call("read_file", &json!({ "path": "/outputs/n.txt" }));
    assert_eq!(read["content"], "3\n", "{read}");
    // A file a tool writes is there for the next command; one it removes is gone.
    rt.call(
        "write_file",
        &json!({ "path": "/workspace/more.txt", "content": "d\n" }),
    );
    let seen = run(&mut rt, "cat /workspace/in.txt /workspace/more.txt | wc -l");
    assert_eq!(stdout(&seen).trim(), "4", "{seen}");
    // The trace keeps what each command did: its exit code and output.
    let Some(Event::Call(last)) = rt.events.last() else {
        panic!("no call recorded");
    };
    assert_eq!(
        last.output.as_deref(),
        Some(&json!({ "exit_code": 0, "timed_out": false, "stdout": "4\n", "stderr": "" }))
    );
    let record = casec::runtime::replay::findings(&rt);
    assert!(
        record.machine_failures().is_empty(),
        "{:?}",
        record.machine_failures()
    );
}

#[test]
fn a_command_cannot_write_outside_the_workspace_nor_see_the_machine() {
    if !isolation_available() {
        return;
    }
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "machine").unwrap();
    let mut rt = runtime(suite());
    let attempts = format!(
        "touch /usr/escape; echo x > {0}/planted; cat {0}/secret; ls /work /home 2>&1 | head -1",
        outside.path().display()
    );
    let result = run(&mut rt, &attempts);
    assert!(
        result["stderr"]
            .as_str()
            .unwrap()
            .contains("Read-only file system"),
        "{result}"
    );
    assert!(!stdout(&result).contains("machine"), "{result}");
    assert!(!outside.path().join("planted").exists());
    assert!(!std::path::Path::new("/usr/escape").exists());
}

#[test]
fn a_command_reaches_no_address_but_the_declared_endpoints() {
    if !isolation_available() {
        return;
    }
    let mut rt = runtime(suite());
    let script = r#"python3 - <<'EOF'
import socket, urllib.request
try:
    socket.create_connection(("1.1.1.1", 80), timeout=2); print("reached")
except OSError as e:
    print("unreachable", e.errno)
print(urllib.request.urlopen("http://elsewhere.test/").status)
EOF"#;
    let result = run(&mut rt, script);
    let out = stdout(&result);
    assert!(out.starts_with("unreachable"), "{result}");
    // Through the proxy an undeclared URL is a 404 from casec's server, not the web.
    assert!(
        result["stderr"].as_str().unwrap().contains("404"),
        "{result}"
    );
}

#[test]
fn a_command_is_killed_at_its_time_limit_and_held_to_its_memory() {
    if !isolation_available() {
        return;
    }
    const LIMITED: &str = r#"suite "Limits" {
  system_prompt "Work."
  world_schema std.workspace_world
  tools read_file run_briefly
}
case L-1 "Limits" {
  user "Go."
  goal "Done."
  world {
    files F1 {
      path "/workspace/a.txt"
      content "a"
    }
  }
  review G1
}
tool run_briefly {
  behavior "Run a command."
  argument command text
  service commands.run {
    command_argument command
    timeout_seconds 1
    memory_mib 256
  }
}
"#;
    static CELL: OnceLock<Suite> = OnceLock::new();
    let suite = compiled_once(&CELL, LIMITED);
    let mut rt = runtime(suite);
    let started = std::time::Instant::now();
    let slept = run(&mut rt, "sleep 30 & sleep 30; echo never");
    assert_eq!(slept["error"], "TIMEOUT", "{slept}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    let grew = run(
        &mut rt,
        "python3 -c 'x = bytearray(1 << 30); print(len(x))'",
    );
    assert_eq!(grew["error"], "COMMAND_FAILED", "{grew}");
    assert!(
        grew["stderr"].as_str().unwrap().contains("MemoryError"),
        "{grew}"
    );
}

#[test]
fn endpoints_fail_as_declared_and_every_request_is_in_the_trace() {
    if !isolation_available() {
        return;
    }
    let mut rt = runtime(suite());
    let script = r#"python3 - <<'EOF'
import urllib.request, urllib.error
def get(url, timeout=5):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, ""
    except Exception as e:
        return "failed", type(e).__name__
for url, timeout in [("http://rates.test/today", 5), ("http://rates.test/today", 5),
                     ("http://slow.test/", 1), ("http://slow.test/", 5),
                     ("http://busy.test/", 5), ("http://busy.test/", 5), ("http://busy.test/", 5)]:
    print(url, *get(url, timeout))
EOF"#;
    let result = run(&mut rt, script);
    let lines: Vec<&str> = stdout(&result).lines().collect();
    assert_eq!(
        lines,
        [
            "http://rates.test/today failed RemoteDisconnected",
            "http://rates.test/today 200 {\"EUR\": 1.08}",
            "http://slow.test/ failed TimeoutError",
            "http://slow.test/ 200 late",
            "http://busy.test/ 429 ",
            "http://busy.test/ 429 ",
            "http://busy.test/ 200 ok",
        ],
        "{result}"
    );
    // The tool shares the counts: the endpoint has failed its one time already.
    let fetched = rt.call("http_get", &json!({ "url": "http://rates.test/today" }));
    assert_eq!(fetched["code"], 200, "{fetched}");
    let requests: Vec<(&str, bool, Option<&str>)> = rt
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Call(call) if call.by_command.is_some() => Some((
                call.arguments["url"].as_str().unwrap(),
                call.failed,
                call.error.as_deref(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(requests.len(), 7, "{requests:?}");
    assert_eq!(
        requests[0],
        ("http://rates.test/today", true, Some("NETWORK_ERROR"))
    );
    assert_eq!(requests[2], ("http://slow.test/", true, Some("TIMEOUT")));
    assert_eq!(requests[4], ("http://busy.test/", false, None));
}

#[test]
fn a_binary_seed_arrives_intact_and_a_binary_output_is_kept_exactly() {
    if !isolation_available() {
        return;
    }
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(folder.path().join("suite.case"), SUITE).unwrap();
    let seed: Vec<u8> = (0..=255u8).rev().collect();
    std::fs::write(folder.path().join("seed.bin"), &seed).unwrap();
    let compilation = casec::Compilation::new(casec::Sources::Folder(folder.path()));
    assert!(!compilation.has_errors(), "{:#?}", compilation.diagnostics);
    let suite = compilation.suite.unwrap();
    let mut rt = runtime(&suite);
    let digest = run(&mut rt, "od -An -tx1 -N3 /workspace/seed.bin; head -c 2 /workspace/seed.bin > /outputs.bin; mkdir -p /outputs; mv /outputs.bin /outputs/two.bin");
    assert_eq!(
        stdout(&digest).split_whitespace().collect::<Vec<_>>(),
        ["ff", "fe", "fd"],
        "{digest}"
    );
    let read = rt.call("read_file", &json!({ "path": "/outputs/two.bin" }));
    assert_eq!(read["content"], json!({ "base64": "//4=" }), "{read}");
}

/// A suite folder with the one case and its trace of `commands`, replayed by the
/// `casec` binary with `PATH` holding no bubblewrap; the record's call events.
fn replayed_without_bubblewrap(commands: &[&str], flags: &[&str]) -> Vec<Value> {
    let no_tools = tempfile::tempdir().unwrap();
    replayed_by_cli(
        commands,
        flags,
        &[("PATH", no_tools.path().to_str().unwrap())],
    )
}

/// The record's call events of `commands` replayed by the `casec` binary with `env`.
fn replayed_by_cli(commands: &[&str], flags: &[&str], env: &[(&str, &str)]) -> Vec<Value> {
    let folder = tempfile::tempdir().unwrap();
    let suite = SUITE.replace("content from \"seed.bin\"", "content \"x\"");
    std::fs::write(folder.path().join("suite.case"), suite).unwrap();
    let trace: String = commands
        .iter()
        .map(|c| {
            format!(
                "{}\n",
                json!({ "type": "call", "tool": "run_command", "arguments": { "command": c } })
            )
        })
        .collect();
    let trace_file = folder.path().join("run.trace.jsonl");
    std::fs::write(&trace_file, trace).unwrap();
    let output = std::process::Command::new(program())
        .arg("replay")
        .arg("C-1")
        .arg("--trace")
        .arg(&trace_file)
        .arg(folder.path())
        .args(flags)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let record: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&output.stderr)));
    record["trace"].as_array().unwrap().clone()
}

#[test]
fn without_bubblewrap_a_command_is_unavailable_unless_the_user_runs_it_unisolated() {
    let refused = replayed_without_bubblewrap(&["true"], &[]);
    assert_eq!(refused[0]["error"], "UNAVAILABLE", "{refused:?}");
    // Unisolated, the workspace folder is the working directory's root: relative
    // paths reach the workspace (absolute ones would be the machine's).
    let command = "mkdir -p outputs && wc -l < workspace/in.txt > outputs/n.txt";
    let ran = replayed_without_bubblewrap(&[command], &["--unisolated-commands"]);
    assert_eq!(ran[0]["failed"], false, "{ran:?}");
    assert_eq!(ran[0]["changed"].as_array().unwrap().len(), 1, "{ran:?}");
}

#[test]
fn a_command_sees_no_environment_of_casec_and_leaves_nothing_in_system_folders() {
    if !isolation_available() {
        return;
    }
    let path = std::env::var("PATH").unwrap_or_default();
    let calls = replayed_by_cli(
        &[
            "env; cat /proc/$PPID/environ; echo planted > /etc/marker; ls /run",
            "cat /etc/marker || echo gone",
        ],
        &[],
        &[("CASEC_TEST_SECRET", "hunter2"), ("PATH", &path)],
    );
    let first = calls[0]["output"].to_string();
    assert!(!first.contains("hunter2"), "{first}");
    assert!(
        first.contains("Permission denied") || first.contains("No such"),
        "{first}"
    );
    assert_eq!(calls[1]["output"]["stdout"], "gone\n", "{:?}", calls[1]);
}

#[test]
fn verify_says_why_a_golden_command_failed() {
    if !isolation_available() {
        return;
    }
    let folder = tempfile::tempdir().unwrap();
    let suite = SUITE.replace("content from \"seed.bin\"", "content \"x\"");
    std::fs::write(folder.path().join("suite.case"), suite).unwrap();
    let failing = json!({ "type": "call", "tool": "run_command", "arguments": { "command": "echo boom >&2; exit 3" } });
    std::fs::write(
        folder.path().join("C-1.trace.jsonl"),
        format!("{failing}\n"),
    )
    .unwrap();
    let output = std::process::Command::new(program())
        .args(["verify", "--format", "json"])
        .arg(folder.path())
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&output.stderr)));
    assert_eq!(
        report["failed_calls"],
        json!(["event 1: `run_command` failed with COMMAND_FAILED (exit code 3: boom)"]),
        "{report}"
    );
}
