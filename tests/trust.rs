//! The trust model for a suite's programs (docs/security.md), against a hostile adapter
//! (tests/adapters/hostile/hostile.py) that leaves evidence in the suite folder when it runs:
//! without consent (`--trust`) every command that would run it refuses, with exit code
//! 2, before anything runs; with consent it sees no key, its background child dies with
//! the session, and a program or path outside the suite folder needs `--trust-outside`;
//! the commands that never run suite code (`check`, `build`, `bundle`, `sandbox`, `fmt`,
//! `lsp`, `export`, `stats`, `schema`) never start it; the runtime refuses on its own
//! without consent, caps answers and memory.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use casec::runtime::trust::Trust;
use casec::runtime::Runtime;
use casec::{Compilation, Sources};
use serde_json::{json, Value};

use crate::support::cli::path;
use crate::support::files::{copy_dir, Scratch};

/// What the hostile program leaves in its working folder when it starts.
const MARKER: &str = "ran.marker";

/// The judge's key, in every command's environment: no program may see it.
const KEY: (&str, &str) = ("OPENAI_API_KEY", "sk-must-not-reach-the-program");

/// The hostile suite's folder in the repository: the program, the suite's template,
/// the case and its golden trace (shared with python/tests/test_trust.py).
fn hostile_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/adapters/hostile")
}

/// A suite whose tools `tools` each run `adapter` (a whole `adapter …` statement).
fn suite_text(adapter: &str, tools: &[&str]) -> String {
    let declared: String = tools
        .iter()
        .map(|t| {
            format!(
                "  tool {t} {{\n    behavior \"A program of the suite.\"\n    {adapter}\n  }}\n"
            )
        })
        .collect();
    fs::read_to_string(hostile_dir().join("suite.case.template"))
        .expect("the suite's template")
        .replace("@TOOLS@", &tools.join(" "))
        .replace("@DECLARED@", &declared)
}

/// A scratch folder holding the suite folder `suite/` (the hostile program beside its
/// `suite.case`, HO-1 and its golden trace) and a folder `outside/` with another copy
/// of the program.
fn hostile(name: &str, adapter: &str, tools: &[&str]) -> (Scratch, PathBuf) {
    let scratch = Scratch::new("trust", name);
    let suite = scratch.0.join("suite");
    copy_dir(&hostile_dir(), &suite);
    fs::remove_file(suite.join("suite.case.template")).expect("the template copied");
    fs::write(suite.join("suite.case"), suite_text(adapter, tools)).expect("suite.case");
    let outside = scratch.0.join("outside");
    fs::create_dir_all(&outside).expect("a folder");
    fs::copy(hostile_dir().join("hostile.py"), outside.join("hostile.py")).expect("the program");
    (scratch, suite)
}

const PYTHON: &str = r#"adapter "python3" "hostile.py" { writes notes; env "CASEC_TEST_PASSED" }"#;

/// The `PATH` casec is given: a folder whose `python3` is the interpreter itself, first,
/// so that what the program sees is not a launcher's (pyenv's shims add variables of
/// their own), then the test's `PATH`.
fn search_path() -> &'static str {
    static FOUND: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    FOUND.get_or_init(|| {
        let asked = Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3 runs");
        let interpreter = String::from_utf8(asked.stdout).expect("a path");
        let bin = Path::new(env!("CARGO_TARGET_TMPDIR")).join("trust-bin");
        fs::create_dir_all(&bin).expect("a folder");
        // Made beside and renamed into place: another test process may be using it.
        let made = bin.join(format!("python3.{}", std::process::id()));
        let _ = fs::remove_file(&made);
        link(Path::new(interpreter.trim()), &made);
        fs::rename(&made, bin.join("python3")).expect("the link in place");
        let rest = std::env::var("PATH").unwrap_or_default();
        format!("{}:{rest}", bin.display())
    })
}

/// `casec ARGS…` from the repository root, with the judge's key and two more variables
/// in its environment (one the suite declares, one it does not), and `input` on its
/// standard input.
fn casec(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_casec"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("PATH", search_path())
        .env("NO_COLOR", "1")
        .env(KEY.0, KEY.1)
        .env("CASEC_TEST_PASSED", "yes")
        .env("CASEC_TEST_WITHHELD", "no")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("casec runs");
    let mut stdin = child.stdin.take().expect("its input");
    stdin.write_all(input.as_bytes()).expect("the input");
    drop(stdin);
    child.wait_with_output().expect("casec ends")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A command that would run the suite's programs, with its arguments (`SUITE` and
/// `OUT` are replaced by the suite folder and a file beside it).
const RUNNING: [&[&str]; 4] = [
    &["verify", "SUITE"],
    &[
        "replay",
        "HO-1",
        "--trace",
        "SUITE/HO-1.trace.jsonl",
        "SUITE",
    ],
    &["serve", "SUITE", "--case", "HO-1", "--result-out", "OUT"],
    &[
        "calibrate",
        "SUITE",
        "--endpoint",
        "http://127.0.0.1:9/v1",
        "--model",
        "m",
    ],
];

fn with_paths(args: &[&str], suite: &Path, out: &Path) -> Vec<String> {
    args.iter()
        .map(|a| a.replace("SUITE", path(suite)).replace("OUT", path(out)))
        .collect()
}

#[test]
fn without_consent_every_running_command_refuses_before_anything_runs() {
    let (scratch, suite) = hostile("refused", PYTHON, &["leak"]);
    let out = scratch.0.join("record.json");
    for command in RUNNING {
        let args = with_paths(command, &suite, &out);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = casec(&args, "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/call\", \"params\": {\"name\": \"leak\", \"arguments\": {}}}\n");
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(2), "casec {}: {err}", command[0]);
        for expected in [
            "untrusted_adapter",
            "tool `leak`",
            "python3 hostile.py",
            "--trust",
        ] {
            assert!(
                err.contains(expected),
                "casec {}: {expected:?} in {err}",
                command[0]
            );
        }
        assert!(
            run.stdout.is_empty(),
            "casec {}: nothing is output",
            command[0]
        );
        assert!(
            !suite.join(MARKER).exists(),
            "casec {} ran the program",
            command[0]
        );
        assert!(!out.exists(), "casec {} wrote a record", command[0]);
    }
}

#[test]
fn the_refusal_in_json_names_the_adapter_statement() {
    let (_scratch, suite) = hostile("refused-json", PYTHON, &["leak"]);
    let run = casec(&["verify", path(&suite), "--format", "json"], "");
    assert_eq!(run.status.code(), Some(2), "{}", stderr(&run));
    let first: Value = serde_json::from_str(stderr(&run).lines().next().expect("a line"))
        .expect("a JSON diagnostic");
    assert_eq!(first["code"], json!("untrusted_adapter"));
    assert_eq!(first["severity"], json!("error"));
    let text = fs::read_to_string(suite.join("suite.case")).expect("suite.case");
    let line = 1 + text
        .lines()
        .position(|l| l.trim() == PYTHON)
        .expect("the statement");
    assert_eq!(first["line"], json!(line), "{first}");
}

/// Whether the process `pid` still runs (a zombie waiting to be reaped does not).
#[cfg(target_os = "linux")]
fn alive(pid: &str) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat.rsplit(')').next().unwrap_or_default().trim_start();
        !state.starts_with('Z')
    })
}

/// Waits (up to a generous deadline: SIGKILL is delivered asynchronously) for the
/// program's background child to be gone.
#[cfg(target_os = "linux")]
fn child_gone(suite: &Path) -> bool {
    let pid = fs::read_to_string(suite.join("child.pid")).expect("the program started its child");
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(pid.trim()) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// The environment the program was given: `PATH`, the variable its adapter declares,
/// and nothing else of casec's (Python adds its own `LC_CTYPE` in the C locale).
fn assert_cleared_environment(suite: &Path) {
    let given: Value =
        serde_json::from_str(&fs::read_to_string(suite.join("env.json")).expect("env.json"))
            .expect("JSON");
    let names: Vec<&str> = given
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .filter(|n| *n != "LC_CTYPE")
        .collect();
    assert_eq!(names, ["CASEC_TEST_PASSED", "PATH"], "{given}");
    assert_eq!(given["CASEC_TEST_PASSED"], json!("yes"));
    assert_eq!(given["PATH"], json!(search_path()));
}

#[test]
#[cfg(target_os = "linux")]
fn with_consent_verify_runs_the_program_without_the_key_and_leaves_nothing_running() {
    let (_scratch, suite) = hostile("verify", PYTHON, &["leak"]);
    let run = casec(&["verify", path(&suite), "--trust"], "");
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert!(
        String::from_utf8_lossy(&run.stdout).contains("1 golden trace(s) pass"),
        "{}",
        String::from_utf8_lossy(&run.stdout)
    );
    assert!(suite.join(MARKER).exists(), "the program ran");
    assert_cleared_environment(&suite);
    assert!(
        child_gone(&suite),
        "the program's background child outlived verify"
    );
    let err = stderr(&run);
    assert!(
        err.len() < 80 << 10 && err.contains("the rest is not shown"),
        "the program's 120 kB of standard error is capped: {} bytes",
        err.len()
    );
}

#[test]
#[cfg(target_os = "linux")]
fn with_consent_serve_answers_from_the_program_and_kills_its_group_at_the_end() {
    let (scratch, suite) = hostile("serve", PYTHON, &["leak"]);
    let record = scratch.0.join("record.json");
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "leak", "arguments": {}}});
    let run = casec(
        &[
            "serve",
            path(&suite),
            "--case",
            "HO-1",
            "--trust",
            "--result-out",
            path(&record),
        ],
        &format!("{call}\n"),
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let answer: Value = serde_json::from_slice(&run.stdout).expect("one JSON-RPC answer");
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .expect("a text");
    let result: Value = serde_json::from_str(text).expect("the tool result");
    assert_eq!(result["status"], json!("ok"), "{result}");
    assert_eq!(result["sees_key"], json!(false), "{result}");
    assert_cleared_environment(&suite);
    assert!(
        child_gone(&suite),
        "the program's background child outlived serve"
    );
}

#[test]
fn a_program_or_path_outside_the_suite_runs_only_with_trust_outside() {
    let python = which("python3");
    for (name, adapter) in [
        (
            "climbs",
            r#"adapter "python3" "../outside/hostile.py""#.to_string(),
        ),
        (
            "absolute",
            r#"adapter "/usr/bin/env" "python3" "hostile.py""#.to_string(),
        ),
        ("symlink", r#"adapter "./python" "hostile.py""#.to_string()),
        (
            "argument",
            format!(
                r#"adapter "python3" "hostile.py" "--config={}""#,
                python.display()
            ),
        ),
    ] {
        let (_scratch, suite) = hostile(name, &adapter, &["leak"]);
        link(&python, &suite.join("python"));
        let refused = casec(&["verify", path(&suite), "--trust"], "");
        let err = stderr(&refused);
        assert_eq!(refused.status.code(), Some(2), "{name}: {err}");
        assert!(
            err.contains("untrusted_adapter") && err.contains("--trust-outside"),
            "{name}: {err}"
        );
        assert!(!suite.join(MARKER).exists(), "{name}: the program ran");
        let allowed = casec(&["verify", path(&suite), "--trust", "--trust-outside"], "");
        assert_eq!(
            allowed.status.code(),
            Some(0),
            "{name}: {}",
            stderr(&allowed)
        );
        assert!(suite.join(MARKER).exists(), "{name}: the program ran");
    }
}

#[test]
fn a_program_or_path_that_resolves_inside_the_suite_runs_with_trust_alone() {
    for (name, adapter) in [
        ("program", r#"adapter "./hostile.py""#),
        ("back-in", r#"adapter "python3" "../suite/hostile.py""#),
    ] {
        let (_scratch, suite) = hostile(name, adapter, &["leak"]);
        executable(&suite.join("hostile.py"));
        let run = casec(&["verify", path(&suite), "--trust"], "");
        assert_eq!(run.status.code(), Some(0), "{name}: {}", stderr(&run));
        assert!(suite.join(MARKER).exists(), "{name}: the program ran");
    }
}

#[test]
fn trust_outside_alone_is_a_usage_error() {
    let (_scratch, suite) = hostile("outside-alone", PYTHON, &["leak"]);
    let run = casec(&["verify", path(&suite), "--trust-outside"], "");
    assert_eq!(run.status.code(), Some(2));
    assert!(stderr(&run).contains("--trust"), "{}", stderr(&run));
    assert!(!suite.join(MARKER).exists());
}

#[test]
fn calibrate_refuses_a_program_that_asks_for_the_judges_key() {
    let adapter = r#"adapter "python3" "hostile.py" { env "JUDGE_VAR" }"#;
    let (_scratch, suite) = hostile("judge-key", adapter, &["leak"]);
    let run = casec(
        &[
            "calibrate",
            path(&suite),
            "--endpoint",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--api-key-env",
            "JUDGE_VAR",
            "--trust",
        ],
        "",
    );
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(err.contains("holds the judge's key"), "{err}");
    assert!(!suite.join(MARKER).exists());
}

/// The commands that never run suite code, on a copy of the DuMate suite with a tool
/// whose adapter is the hostile program.
#[test]
fn commands_that_run_no_suite_code_never_start_its_programs() {
    let scratch = Scratch::new("trust", "never");
    let suite = scratch.0.join("suite");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/dumate"),
        &suite,
    );
    fs::copy(hostile_dir().join("hostile.py"), suite.join("hostile.py")).expect("the program");
    edit_to(
        &suite,
        "  tools list_files read_file write_file http_get run_command\n",
        "  tools list_files read_file write_file http_get run_command probe\n",
    );
    let mut text = fs::read_to_string(suite.join("suite.case")).expect("suite.case");
    text.push_str("\ntool probe {\n  behavior \"A program of the suite.\"\n  adapter \"python3\" \"hostile.py\"\n}\n");
    fs::write(suite.join("suite.case"), text).expect("suite.case");
    let out = |name: &str| scratch.0.join(name);
    let commands: Vec<Vec<String>> = vec![
        vec!["check".into(), path(&suite).into()],
        vec!["build".into(), path(&suite).into()],
        vec![
            "bundle".into(),
            path(&suite).into(),
            "-o".into(),
            path(&out("bundles")).into(),
        ],
        vec![
            "sandbox".into(),
            path(&suite).into(),
            "-o".into(),
            path(&out("sandbox")).into(),
        ],
        vec!["fmt".into(), "--check".into(), path(&suite).into()],
        vec!["fmt".into(), path(&suite).into()],
        vec![
            "export".into(),
            path(&suite).into(),
            "--format".into(),
            "dumate".into(),
            "-o".into(),
            path(&out("export")).into(),
        ],
        vec!["stats".into(), path(&suite).into()],
        vec!["schema".into(), path(&suite).into()],
    ];
    for args in &commands {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = casec(&args, "");
        assert_eq!(
            run.status.code(),
            Some(0),
            "casec {args:?}: {}",
            stderr(&run)
        );
        assert!(
            !suite.join(MARKER).exists(),
            "casec {args:?} ran the program"
        );
    }
    let verify = casec(&["verify", path(&suite)], "");
    assert!(
        verify.status.code() == Some(2) && stderr(&verify).contains("tool `probe`"),
        "the suite's program is one verify would run: {}",
        stderr(&verify)
    );
    lsp_opens(&suite.join("suite.case"));
    assert!(!suite.join(MARKER).exists(), "casec lsp ran the program");
}

/// `casec lsp`: initialize, open `file`, wait for its diagnostics, shut down.
fn lsp_opens(file: &Path) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_casec"))
        .arg("lsp")
        .env(KEY.0, KEY.1)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("casec lsp runs");
    let mut stdin = child.stdin.take().expect("its input");
    let mut send = |message: Value| {
        let body = message.to_string();
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
        stdin.flush().expect("flush");
    };
    let uri = crate::lsp_client::file_uri(file);
    let text = fs::read_to_string(file).expect("the file");
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}),
    );
    send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": crate::lsp_client::open(&uri, &text)}),
    );
    let messages = read_messages(child.stdout.take().expect("its output"));
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let message = messages
            .recv_timeout(left)
            .expect("the server answers in time");
        if message["method"] == "textDocument/publishDiagnostics" && message["params"]["uri"] == uri
        {
            break;
        }
    }
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}));
    send(json!({"jsonrpc": "2.0", "method": "exit"}));
    drop(stdin);
    let status = child.wait().expect("the server ends");
    assert!(status.success(), "casec lsp: {status}");
}

/// The server's messages, read on a thread of their own.
fn read_messages(stdout: impl Read + Send + 'static) -> mpsc::Receiver<Value> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        loop {
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                match line.trim_end() {
                    "" => break,
                    header => {
                        if let Some(n) = header.strip_prefix("Content-Length: ") {
                            length = n.parse().unwrap_or(0);
                        }
                    }
                }
            }
            let mut body = vec![0; length];
            if reader.read_exact(&mut body).is_err() {
                return;
            }
            let Ok(message) = serde_json::from_slice(&body) else {
                return;
            };
            if tx.send(message).is_err() {
                return;
            }
        }
    });
    rx
}

/// The suite compiled from its folder, as `casec verify` compiles it.
fn compiled(suite: &Path) -> casec::model::Suite {
    let compilation = Compilation::new(Sources::Folder(suite));
    assert!(!compilation.has_errors(), "{:#?}", compilation.diagnostics);
    compilation.suite.expect("the suite resolves")
}

#[test]
fn the_runtime_starts_no_program_without_consent() {
    let (_scratch, suite) = hostile("runtime", PYTHON, &["leak"]);
    let model = compiled(&suite);
    let case = &model.cases[0];
    let mut rt = Runtime::new(&model, case, case.sandbox.as_ref().expect("a world"));
    let result = rt.call("leak", &json!({}));
    assert_eq!(result["error"], json!("ADAPTER_ERROR"), "{result}");
    let message = result["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("python3 hostile.py") && message.contains("consent"),
        "{message}"
    );
    assert!(!suite.join(MARKER).exists());
}

#[test]
fn an_answer_longer_than_the_cap_fails_the_call_and_the_program_is_restarted() {
    let (_scratch, suite) = hostile("flood", PYTHON, &["leak", "flood", "flood_end"]);
    let model = compiled(&suite);
    let case = &model.cases[0];
    let sandbox = case.sandbox.as_ref().expect("a world");
    let mut rt = Runtime::new(&model, case, sandbox).trusting(Trust::Suite);
    for tool in ["flood", "flood_end"] {
        let result = rt.call(tool, &json!({}));
        assert_eq!(result["error"], json!("ADAPTER_ERROR"), "{tool}: {result}");
        assert!(
            result["message"]
                .as_str()
                .is_some_and(|m| m.contains("longer than 16 MiB")),
            "{tool}: {result}"
        );
    }
    assert_eq!(
        rt.call("flood", &json!({}))["error"],
        json!("ADAPTER_ERROR")
    );
    assert_eq!(rt.call("leak", &json!({}))["status"], json!("ok"));
}

#[test]
#[cfg(target_os = "linux")]
fn a_program_cannot_take_more_than_the_memory_limit() {
    let (_scratch, suite) = hostile("memory", PYTHON, &["leak", "hog"]);
    let model = compiled(&suite);
    let case = &model.cases[0];
    let sandbox = case.sandbox.as_ref().expect("a world");
    let mut rt = Runtime::new(&model, case, sandbox).trusting(Trust::Suite);
    let result = rt.call("hog", &json!({}));
    assert_eq!(result["status"], json!("ok"), "{result}");
    assert_eq!(
        result["allocated"],
        json!(false),
        "3 GiB is over the limit: {result}"
    );
}

/// The absolute path of `program` on `PATH`, its links resolved.
fn which(program: &str) -> PathBuf {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
        .and_then(|p| fs::canonicalize(p).ok())
        .expect("the program on PATH")
}

fn link(target: &Path, at: &Path) {
    #[cfg(unix)]
    std::os::unix::fs::symlink(target, at).expect("a symbolic link");
    #[cfg(not(unix))]
    fs::copy(target, at).expect("a copy");
}

fn executable(file: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(file, fs::Permissions::from_mode(0o755)).expect("a mode");
    }
}

fn edit_to(suite: &Path, from: &str, to: &str) {
    crate::support::files::edit(&suite.join("suite.case"), from, to);
}

#[test]
fn the_language_server_offers_the_keys_of_an_adapter_block() {
    for place in [&["tool", "adapter"][..], &["schema", "tool", "adapter"]] {
        let specs = casec::resolve::blocks::block_specs(place, None).expect("an adapter block");
        let keys: Vec<&str> = specs.iter().map(|s| s.key).collect();
        assert_eq!(
            keys,
            ["reads", "writes", "env", "timeout_seconds"],
            "{place:?}"
        );
    }
}
