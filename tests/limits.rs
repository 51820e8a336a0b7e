//! What casec reads and how much: a suite from someone else is data, read within limits.
//!
//! Loading: nothing outside the suite folder (a symbolic link out of it is refused and
//! never quoted), regular files only (a FIFO, `/dev/stdin`, `/dev/zero`: refused, never
//! a blocked or endless read, in `casec check` and in `casec lsp`). Limits: a file past
//! `MAX_FILE_BYTES`, a suite past `MAX_SUITE_BYTES` (both as sparse files, refused before
//! a byte is read), a suite past `MAX_CASES` (a located error, before any case is
//! resolved). Work: a world of 100,000 records checks in linear time.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use casec::load::{MAX_FILE_BYTES, MAX_SUITE_BYTES};
use casec::resolve::MAX_CASES;
use serde_json::{json, Value};

use crate::support::cli::path;
use crate::support::files::{copy_dir, Scratch};

/// Longer than any of these commands takes: past it, casec is taken to hang.
const HANG: Duration = Duration::from_secs(60);

/// A small suite that checks clean (4 files), copied to `to`.
fn copy_suite(to: &Path) {
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lsp/suite"),
        to,
    );
}

/// `casec ARGS…` in `dir`, with `stdin`, failing instead of hanging.
fn casec_in(dir: &Path, args: &[&str], stdin: Stdio) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_casec"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("casec runs");
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().expect("stdout");
    let stderr = child.stderr.take().expect("stderr");
    std::thread::spawn(move || {
        let read_all = |mut from: Box<dyn Read>| {
            let mut bytes = Vec::new();
            let _ = from.read_to_end(&mut bytes);
            bytes
        };
        let err = std::thread::spawn(move || read_all(Box::new(stderr)));
        let out = read_all(Box::new(stdout));
        let _ = tx.send((out, err.join().unwrap_or_default()));
    });
    let Ok((stdout, stderr)) = rx.recv_timeout(HANG) else {
        let _ = child.kill();
        panic!("casec {args:?} (pid {pid}) hangs");
    };
    let status = child.wait().expect("casec ends");
    Output {
        status,
        stdout,
        stderr,
    }
}

/// The JSON diagnostics of `--format json` (the summary line left out).
fn diagnostics(output: &Output) -> Vec<Value> {
    let text = String::from_utf8_lossy(&output.stderr);
    let mut lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("a JSON line: {l}")))
        .collect();
    assert!(
        lines.pop().is_some_and(|l| l.get("summary").is_some()),
        "{text}"
    );
    lines
}

/// The one diagnostic of a run, with its code and file.
fn only(output: &Output, code: &str, file: &str) -> Value {
    let found = diagnostics(output);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0]["code"], code, "{:#}", found[0]);
    assert_eq!(found[0]["file"], file, "{:#}", found[0]);
    found[0].clone()
}

/// A file of `size` bytes that takes no room on disk.
fn sparse(at: &Path, size: u64) {
    fs::File::create(at)
        .and_then(|f| f.set_len(size))
        .expect("a sparse file");
}

#[cfg(unix)]
mod special_files {
    use super::*;
    use std::os::unix::fs::symlink;

    fn mkfifo(at: &Path) {
        let made = Command::new("mkfifo")
            .arg(at)
            .status()
            .expect("mkfifo runs");
        assert!(made.success(), "mkfifo {}", at.display());
    }

    /// The secret of a file outside the suite: a syntax error, so that a file read by
    /// mistake would be quoted in its diagnostic.
    const SECRET: &str = "sk-THE-SECRET-OUTSIDE-THE-SUITE {";

    #[test]
    fn a_link_to_a_file_outside_the_suite_is_refused_and_never_quoted() {
        let dir = Scratch::new("limits", "outside-file");
        let suite = dir.0.join("suite");
        copy_suite(&suite);
        fs::write(dir.0.join("secret.case"), SECRET).unwrap();
        symlink("../secret.case", suite.join("extra.case")).unwrap();
        for format in ["json", "human"] {
            let output = casec_in(&suite, &["check", "--format", format], Stdio::null());
            assert_eq!(output.status.code(), Some(2), "{format}");
            let shown = String::from_utf8_lossy(&output.stderr);
            assert!(!shown.contains("THE-SECRET"), "{format}: {shown}");
            assert!(
                shown.contains("symbolic link to a file outside the suite folder: not read"),
                "{format}: {shown}"
            );
        }
        let output = casec_in(&suite, &["check", "--format", "json"], Stdio::null());
        only(&output, "io", "extra.case");
    }

    /// A golden trace or a counter-example is found beside its case, so it is read as
    /// the case is: a link out of the suite is refused, and what it leads to never
    /// quoted.
    #[test]
    fn a_trace_beside_a_case_linking_out_of_the_suite_is_refused_and_never_quoted() {
        let dir = Scratch::new("limits", "outside-trace");
        let suite = dir.0.join("suite");
        copy_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/tujora"),
            &suite,
        );
        fs::write(dir.0.join("secret.jsonl"), SECRET).unwrap();
        let golden = suite.join("appointments/TUJ-021.trace.jsonl");
        fs::remove_file(&golden).unwrap();
        symlink("../../secret.jsonl", &golden).unwrap();
        symlink(
            "../../secret.jsonl",
            suite.join("appointments/TUJ-021.counter-leak.trace.jsonl"),
        )
        .unwrap();
        let output = casec_in(&suite, &["verify", "--format", "json"], Stdio::null());
        let shown = String::from_utf8_lossy(&output.stderr);
        assert!(!shown.contains("THE-SECRET"), "{shown}");
        let found = diagnostics(&output);
        let files: Vec<&str> = found.iter().map(|d| d["file"].as_str().unwrap()).collect();
        assert_eq!(
            files,
            [
                "appointments/TUJ-021.trace.jsonl",
                "appointments/TUJ-021.counter-leak.trace.jsonl"
            ],
            "{found:#?}"
        );
        for d in &found {
            assert_eq!(
                d["message"], "symbolic link to a file outside the suite folder: not read",
                "{d:#}"
            );
        }
    }

    #[test]
    fn a_link_to_a_file_inside_the_suite_is_read() {
        let dir = Scratch::new("limits", "inside-file");
        let suite = dir.0.join("suite");
        copy_suite(&suite);
        // A hidden folder is not walked: the file is read once, by the link.
        fs::create_dir(suite.join(".store")).unwrap();
        fs::rename(
            suite.join("errands/ERR-2.case"),
            suite.join(".store/ERR-2.case"),
        )
        .unwrap();
        symlink("../.store/ERR-2.case", suite.join("errands/ERR-2.case")).unwrap();
        let output = casec_in(&suite, &["check", "--format", "json"], Stdio::null());
        assert_eq!(output.status.code(), Some(0), "{:?}", diagnostics(&output));
    }

    #[test]
    fn a_fifo_in_a_suite_or_given_is_refused_without_blocking() {
        let dir = Scratch::new("limits", "fifo");
        let suite = dir.0.join("suite");
        copy_suite(&suite);
        mkfifo(&suite.join("pipe.case"));
        mkfifo(&dir.0.join("loose.case"));
        symlink("pipe.case", suite.join("to-pipe.case")).unwrap();
        for args in [
            &["check", "--format", "json"][..],
            &["fmt", "--check", ".", "--format", "json"],
        ] {
            let output = casec_in(&suite, args, Stdio::null());
            assert_eq!(output.status.code(), Some(2), "{args:?}");
            let found = diagnostics(&output);
            let files: Vec<&str> = found.iter().map(|d| d["file"].as_str().unwrap()).collect();
            assert_eq!(files, ["pipe.case", "to-pipe.case"], "{args:?}: {found:#?}");
            for d in &found {
                assert_eq!(d["code"], "io");
                let message = d["message"].as_str().unwrap();
                assert!(
                    message.contains("a FIFO (named pipe), not a regular file"),
                    "{message}"
                );
            }
        }
        let loose = dir.0.join("loose.case");
        for command in ["check", "fmt"] {
            let output = casec_in(
                &dir.0,
                &[command, path(&loose), "--format", "json"],
                Stdio::null(),
            );
            assert_eq!(output.status.code(), Some(2), "{command}");
            only(&output, "io", path(&loose));
        }
    }

    /// `casec check /dev/stdin`, with a standard input that never ends: refused at once.
    #[test]
    fn dev_stdin_given_or_linked_is_refused_without_blocking() {
        let dir = Scratch::new("limits", "stdin");
        let suite = dir.0.join("suite");
        copy_suite(&suite);
        // The writing end stays open (held by this test) until casec has answered.
        let given = casec_in(
            &dir.0,
            &["check", "/dev/stdin", "--format", "json"],
            Stdio::piped(),
        );
        assert_eq!(given.status.code(), Some(2));
        let refused = only(&given, "io", "/dev/stdin");
        assert!(refused["message"]
            .as_str()
            .unwrap()
            .contains("not a regular file"));

        symlink("/dev/stdin", suite.join("input.case")).unwrap();
        let linked = casec_in(&suite, &["check", "--format", "json"], Stdio::piped());
        assert_eq!(linked.status.code(), Some(2));
        only(&linked, "io", "input.case");
    }

    #[test]
    fn dev_zero_given_or_linked_is_refused_unread() {
        let dir = Scratch::new("limits", "zero");
        let suite = dir.0.join("suite");
        copy_suite(&suite);
        let given = casec_in(
            &dir.0,
            &["check", "/dev/zero", "--format", "json"],
            Stdio::null(),
        );
        assert_eq!(given.status.code(), Some(2));
        let refused = only(&given, "io", "/dev/zero");
        assert!(refused["message"]
            .as_str()
            .unwrap()
            .contains("a device, not a regular file"));

        symlink("/dev/zero", suite.join("zero.case")).unwrap();
        let linked = casec_in(&suite, &["build", "--format", "json"], Stdio::null());
        assert_eq!(linked.status.code(), Some(2));
        assert!(linked.stdout.is_empty(), "no master is written");
        only(&linked, "io", "zero.case");
    }

    /// `casec lsp` reads a suite's files from disk: a link to `/dev/stdin` there would
    /// have been its own JSON-RPC input, read as a source until the client hung up.
    #[test]
    fn the_language_server_never_reads_its_own_input_as_a_source() {
        let dir = Scratch::new("limits", "lsp");
        let suite = dir.0.join("suite");
        copy_suite(&suite);
        symlink("/dev/stdin", suite.join("input.case")).unwrap();
        let document = suite.join("errands/ERR-1.case");
        let uri = lsp_types::Url::from_file_path(&document)
            .unwrap()
            .to_string();
        let text = fs::read_to_string(&document).unwrap();

        let mut child = Command::new(env!("CARGO_BIN_EXE_casec"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("casec lsp runs");
        let mut input = child.stdin.take().unwrap();
        let (tx, rx) = mpsc::channel();
        let output = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            let mut output = BufReader::new(output);
            while let Some(message) = read_message(&mut output) {
                if tx.send(message).is_err() {
                    return;
                }
            }
        });
        let mut send = move |message: Value| {
            let body = message.to_string();
            write!(input, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
            input.flush().unwrap();
        };
        send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"processId": null, "rootUri": null, "capabilities": {}}}));
        send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
        send(
            json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": uri, "languageId": "case", "version": 1, "text": text}}}),
        );
        send(json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": null}));

        let start = Instant::now();
        let mut refused = None;
        let mut shut_down = false;
        while !shut_down {
            let left = HANG.saturating_sub(start.elapsed());
            let Ok(message) = rx.recv_timeout(left) else {
                let _ = child.kill();
                panic!("the language server hangs");
            };
            shut_down = message["id"] == 2;
            if message["method"] == "textDocument/publishDiagnostics" {
                let diagnostics = message["params"]["diagnostics"].as_array().unwrap();
                let on_input = message["params"]["uri"]
                    .as_str()
                    .unwrap()
                    .ends_with("/input.case");
                if on_input && !diagnostics.is_empty() {
                    refused = Some(diagnostics[0].clone());
                }
            }
        }
        send(json!({"jsonrpc": "2.0", "method": "exit", "params": null}));
        drop(send); // Its input closed, the server ends.
        let _ = child.wait();
        let refused = refused.expect("the link is reported");
        assert_eq!(refused["code"], "io", "{refused:#}");
        let message = refused["message"].as_str().unwrap();
        assert!(message.contains("not read"), "{message}");
    }

    fn read_message(from: &mut impl BufRead) -> Option<Value> {
        let mut length = None;
        loop {
            let mut line = String::new();
            if from.read_line(&mut line).ok()? == 0 {
                return None;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(value) = line.strip_prefix("Content-Length: ") {
                length = value.parse::<usize>().ok();
            }
        }
        let mut body = vec![0; length?];
        from.read_exact(&mut body).ok()?;
        serde_json::from_slice(&body).ok()
    }
}

#[test]
fn a_file_past_the_size_cap_is_refused_unread() {
    let dir = Scratch::new("limits", "big-file");
    let suite = dir.0.join("suite");
    copy_suite(&suite);
    let size = MAX_FILE_BYTES + (88 << 20);
    assert_eq!(MAX_FILE_BYTES, 256 << 20, "the message below names the cap");
    sparse(&suite.join("big.case"), size);
    sparse(&dir.0.join("loose.case"), size);
    let cache = dir.0.join("cache");
    for args in [
        &["check", "--format", "json"][..],
        &["check", "--cache", path(&cache), "--format", "json"],
    ] {
        let in_suite = casec_in(&suite, args, Stdio::null());
        assert_eq!(in_suite.status.code(), Some(1), "{args:?}");
        let refused = only(&in_suite, "limit", "big.case");
        assert_eq!(
            refused["message"],
            "this file holds 344 MiB, more than the 256 MiB casec reads of one file: not read"
        );
    }
    for command in ["check", "fmt"] {
        let loose = casec_in(
            &dir.0,
            &[command, "loose.case", "--format", "json"],
            Stdio::null(),
        );
        assert_eq!(loose.status.code(), Some(1), "{command}");
        only(&loose, "limit", "loose.case");
    }
}

/// What a command is given to read as a whole has a cap too: standard input to `fmt
/// --stdin` (a source file's), a result record file to `report` (a suite's).
#[test]
fn a_given_input_past_its_cap_is_refused_unread() {
    let dir = Scratch::new("limits", "big-input");
    let big_source = dir.0.join("big.case");
    sparse(&big_source, MAX_FILE_BYTES + 1);
    let stdin = Stdio::from(fs::File::open(&big_source).unwrap());
    let output = casec_in(&dir.0, &["fmt", "--stdin", "--format", "json"], stdin);
    assert_eq!(output.status.code(), Some(1));
    let refused = only(&output, "limit", "<stdin>");
    assert_eq!(
        refused["message"],
        "this file holds more than the 256 MiB casec reads of one file: not read"
    );
    let records = dir.0.join("results.jsonl");
    sparse(&records, MAX_SUITE_BYTES + 1);
    let suite = dir.0.join("suite");
    copy_suite(&suite);
    let output = casec_in(
        &dir.0,
        &[
            "report",
            "results.jsonl",
            "--suite",
            "suite",
            "--format",
            "json",
        ],
        Stdio::null(),
    );
    assert_eq!(output.status.code(), Some(1));
    only(&output, "limit", "results.jsonl");
}

#[test]
fn a_suite_past_the_total_cap_is_refused_unread() {
    let dir = Scratch::new("limits", "big-suite");
    let suite = dir.0.join("suite");
    copy_suite(&suite);
    // Five files within the file cap, past the suite's at the fifth.
    let each = MAX_SUITE_BYTES / 4 - (6 << 20);
    assert!(each <= MAX_FILE_BYTES && 4 * each <= MAX_SUITE_BYTES && 5 * each > MAX_SUITE_BYTES);
    for name in ["a.case", "b.case", "c.case", "d.case", "e.case"] {
        sparse(&suite.join(name), each);
    }
    let started = Instant::now();
    let output = casec_in(&suite, &["check", "--format", "json"], Stdio::null());
    assert_eq!(output.status.code(), Some(1));
    let refused = only(&output, "limit", "e.case");
    let message = refused["message"].as_str().unwrap();
    assert!(
        message.contains("more than the 1 GiB casec reads of one suite: none was read"),
        "{message}"
    );
    // 1.2 GB of zeros, read, would take seconds and as much memory.
    assert!(started.elapsed() < HANG);
}

/// A master holds a whole suite: `casec import` reads one up to the suite's cap, not
/// past it.
#[test]
fn a_master_past_the_suite_cap_is_refused_unread() {
    let dir = Scratch::new("limits", "big-master");
    sparse(&dir.0.join("master.json"), MAX_SUITE_BYTES + 1);
    let output = casec_in(
        &dir.0,
        &["import", "master.json", "-o", "out", "--format", "json"],
        Stdio::null(),
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(!dir.0.join("out").exists(), "nothing is written");
    let refused = only(&output, "limit", "master.json");
    let message = refused["message"].as_str().unwrap();
    assert!(
        message.contains("more than the 1 GiB casec reads of one file"),
        "{message}"
    );
}

/// Just past the case cap (each case a line, in several files read and parsed in
/// parallel): a located error at the first case beyond it, and no case resolved.
#[test]
fn a_suite_past_the_case_cap_is_a_located_error() {
    let dir = Scratch::new("limits", "cases");
    let suite = dir.0.join("suite");
    copy_suite(&suite);
    const FILES: usize = 8;
    let per_file = MAX_CASES.div_ceil(FILES);
    for file in 0..FILES {
        let mut text = String::with_capacity(per_file * 20);
        for i in file * per_file..(file + 1) * per_file {
            text.push_str(&format!("case C{i} \"t\" {{}}\n"));
        }
        fs::write(suite.join(format!("many-{file}.case")), text).unwrap();
    }
    let output = casec_in(&suite, &["check", "--format", "json"], Stdio::null());
    assert_eq!(output.status.code(), Some(1));
    let found = diagnostics(&output);
    assert_eq!(found.len(), 1, "no case was resolved: {:#?}", &found[..2]);
    let refused = &found[0];
    assert_eq!(refused["code"], "limit");
    let message = refused["message"].as_str().unwrap();
    assert!(
        message.contains("cases, more than the 500,000 casec reads in one suite"),
        "{message}"
    );
    // The cases of `errands/` come first, then those of the generated files in order.
    let label = &refused["labels"][0];
    assert_eq!(label["message"], "case 500,001 of the suite");
    assert!(refused["file"].as_str().unwrap().starts_with("many-7.case"));
}

/// Record ids and file paths are claimed in hash maps: 100,000 records check in a
/// second in a release build (measured: see the report of issue 30); the quadratic scan
/// they replace took 14 s. Debug builds are far slower, hence the generous bound.
#[test]
fn a_world_of_100_000_records_checks_in_linear_time() {
    let dir = Scratch::new("limits", "records");
    let source = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui/world_file_path.case"),
    )
    .unwrap();
    let suite_block = &source[source.find("suite \"").unwrap()..source.find("  world {").unwrap()];
    let mut text = format!("{suite_block}  world {{\n");
    for i in 1..=100_000 {
        text.push_str(&format!(
            "    files F{i} {{ path \"/workspace/f{i}.txt\"; content \"x\" }}\n"
        ));
    }
    // One duplicate id and one duplicate path at the end, reported in order.
    text.push_str("    files F7 { path \"/workspace/g.txt\"; content \"x\" }\n");
    text.push_str("    files F100001 { path \"/workspace/f9.txt\"; content \"x\" }\n");
    text.push_str("  }\n}\n");
    let suite: PathBuf = dir.0.join("suite");
    fs::create_dir(&suite).unwrap();
    fs::write(suite.join("suite.case"), text).unwrap();
    let started = Instant::now();
    let output = casec_in(&suite, &["check", "--format", "json"], Stdio::null());
    let took = started.elapsed();
    let found = diagnostics(&output);
    let codes: Vec<&str> = found.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["duplicate_record", "world_file_path"], "{found:#?}");
    let first_line = |d: &Value| {
        let labels = d["labels"].as_array().unwrap();
        labels.iter().find(|l| l["primary"] == false).unwrap()["line"].clone()
    };
    assert_eq!(found[0]["line"], 100_021, "{:#}", found[0]);
    assert_eq!(first_line(&found[0]), 27, "the first F7 is labelled");
    assert_eq!(found[1]["line"], 100_022, "{:#}", found[1]);
    assert_eq!(first_line(&found[1]), 29, "the first f9.txt is labelled");
    assert!(took < Duration::from_secs(30), "{took:?}");
}
