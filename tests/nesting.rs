//! Deeply nested blocks and lists: up to the limit every phase works (on a test
//! thread's 2 MB stack, unoptimized); beyond it the file is refused with a located
//! syntax error, in the library, on the command line and in the language server,
//! instead of overflowing the stack and aborting the process.
use casec::diag::codes;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

use casec::lsp::{Options, Server};
use casec::source::FileId;
use casec::syntax::nesting::MAX_DEPTH;
use casec::{Compilation, Sources};
use lsp_server::{Message, Notification, Request, RequestId};
use serde_json::{json, Value};

const MINIMAL: &str = include_str!("build/minimal.case");

/// The minimal suite with a design reference nested `depth` levels deep in all: the
/// suite block, the reference's block, then blocks and lists, half each.
fn nested_suite(depth: usize) -> String {
    let inner = depth - 2;
    let (blocks, lists) = (inner / 2, inner - inner / 2);
    let data = format!(
        "design_reference {{ {}v {}1{}{} }}",
        "k { ".repeat(blocks),
        "[".repeat(lists),
        "]".repeat(lists),
        " }".repeat(blocks)
    );
    MINIMAL.replace("design_reference {}", &data)
}

/// Blocks nested `depth` deep, as a fuzzer or a broken generator writes them.
fn deep_blocks(depth: usize) -> String {
    "a {\n".repeat(depth) + &"}\n".repeat(depth)
}

/// Lists nested `depth` deep.
fn deep_lists(depth: usize) -> String {
    format!("a {}{}\n", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn a_suite_nested_to_the_limit_compiles_lowers_and_formats() {
    let text = nested_suite(MAX_DEPTH);
    let compilation = Compilation::new(Sources::lone("suite.case", &text));
    assert!(!compilation.has_errors(), "{:?}", compilation.diagnostics);
    let master = compilation.master_json().expect("a master");
    assert!(
        master.contains(r#""v": [ [ [ ["#),
        "the nesting reaches the master"
    );
    let formatted = casec::fmt::format_source(FileId(0), &text).expect("formats");
    let again = casec::fmt::format_source(FileId(0), &formatted).expect("formats again");
    assert_eq!(formatted, again);
}

#[test]
fn one_level_more_is_a_located_syntax_error() {
    let text = nested_suite(MAX_DEPTH + 1);
    let compilation = Compilation::new(Sources::lone("suite.case", &text));
    let [d] = &compilation.diagnostics[..] else {
        panic!("one diagnostic: {:?}", compilation.diagnostics);
    };
    assert_eq!(d.code, codes::SYNTAX);
    assert!(
        d.message.contains("nest more than 256 levels"),
        "{}",
        d.message
    );
    let at = d.labels[0].span.range();
    assert_eq!(&text[at.clone()], "[");
    let opened = text[..at.start].matches(['{', '[']).count();
    let closed = text[..at.start].matches(['}', ']']).count();
    assert_eq!(opened - closed, MAX_DEPTH, "the level too many is marked");
}

#[test]
fn files_nested_thousands_deep_are_refused_not_overflowed() {
    for text in [
        deep_blocks(10_000),
        deep_blocks(100_000),
        deep_lists(20_000),
        deep_lists(100_000),
    ] {
        let compilation = Compilation::new(Sources::lone("deep.case", &text));
        assert_eq!(compilation.diagnostics.len(), 1);
        assert!(compilation.diagnostics[0]
            .message
            .contains("nest more than"));
        let refused = casec::fmt::format_source(FileId(0), &text).expect_err("refused");
        assert_eq!(refused[0].code, codes::SYNTAX);
    }
}

#[test]
fn the_command_line_reports_deep_files() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let suite = dir.path().join("suite");
    std::fs::create_dir(&suite).unwrap();
    std::fs::write(suite.join("suite.case"), MINIMAL).unwrap();
    std::fs::write(suite.join("deep.case"), deep_blocks(30_000)).unwrap();
    std::fs::write(suite.join("lists.case"), deep_lists(50_000)).unwrap();
    let suite = suite.to_str().unwrap();
    for args in [
        &["check", suite][..],
        &["build", suite],
        &["fmt", "--check", suite],
        &["fmt", suite],
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_casec"))
            .args(args)
            .output()
            .expect("casec runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert_eq!(
            stderr.matches("nest more than 256 levels").count(),
            2,
            "{args:?}: {stderr}"
        );
    }
}

fn lsp_request(server: &mut Server, id: i32, method: &str, params: Value) -> Value {
    let request = Request::new(RequestId::from(id), method.to_string(), params);
    let replies = server.handle(Message::Request(request));
    serde_json::to_value(&replies[0]).unwrap()
}

#[test]
fn the_language_server_serves_deep_documents() {
    let cache = tempfile::tempdir().expect("a temp dir");
    let mut server = Server::new(Options {
        cache_dir: cache.path().to_path_buf(),
    });
    lsp_request(&mut server, 1, "initialize", json!({ "capabilities": {} }));
    let dir = tempfile::tempdir().expect("a temp dir");
    for (i, text) in [
        nested_suite(MAX_DEPTH),
        deep_blocks(50_000),
        deep_lists(50_000),
    ]
    .into_iter()
    .enumerate()
    {
        let path = dir.path().join(format!("doc{i}.case"));
        let uri = lsp_types::Url::from_file_path(&path).unwrap().to_string();
        let open = json!({ "textDocument": { "uri": uri, "languageId": "case", "version": 1, "text": text } });
        let published = server.handle(Message::Notification(Notification::new(
            "textDocument/didOpen".into(),
            open,
        )));
        assert!(!published.is_empty(), "diagnostics are published");
        let middle = text.lines().count() as u32 / 2;
        let at = json!({ "textDocument": { "uri": uri }, "position": { "line": middle, "character": 2 } });
        for (id, method, params) in [
            (2, "textDocument/hover", at.clone()),
            (3, "textDocument/completion", at.clone()),
            (4, "textDocument/definition", at),
            (
                5,
                "textDocument/documentSymbol",
                json!({ "textDocument": { "uri": uri } }),
            ),
            (
                6,
                "textDocument/formatting",
                json!({ "textDocument": { "uri": uri }, "options": { "tabSize": 2, "insertSpaces": true } }),
            ),
        ] {
            let response = lsp_request(&mut server, id, method, params);
            assert!(response.get("error").is_none(), "{method}: {response}");
        }
    }
}

/// `didOpen` of a deep document killed the server; now it publishes the error and
/// goes on answering.
#[test]
fn the_language_server_binary_survives_a_deep_document() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_casec"))
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("casec lsp starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let dir = tempfile::tempdir().expect("a temp dir");
    let uri = lsp_types::Url::from_file_path(dir.path().join("deep.case"))
        .unwrap()
        .to_string();
    let text = deep_blocks(100_000);
    let messages = [
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "capabilities": {} } }),
        json!({ "jsonrpc": "2.0", "method": "initialized", "params": {} }),
        json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen", "params": { "textDocument": { "uri": uri, "languageId": "case", "version": 1, "text": text } } }),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "shutdown" }),
    ];
    for message in messages {
        let body = message.to_string();
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
    }
    stdin.flush().unwrap();
    let mut seen = Vec::new();
    while !seen.iter().any(|m: &Value| m["id"] == 2) {
        let mut length = 0;
        loop {
            let mut line = String::new();
            assert!(stdout.read_line(&mut line).unwrap() > 0, "the server died");
            match line.trim_end().strip_prefix("Content-Length: ") {
                Some(n) => length = n.parse().unwrap(),
                None if line.trim_end().is_empty() => break,
                None => {}
            }
        }
        let mut body = vec![0; length];
        stdout.read_exact(&mut body).unwrap();
        seen.push(serde_json::from_slice(&body).unwrap());
    }
    let published = seen
        .iter()
        .find(|m| m["method"] == "textDocument/publishDiagnostics")
        .expect("diagnostics for the deep document");
    let message = published["params"]["diagnostics"][0]["message"]
        .as_str()
        .unwrap();
    assert!(message.contains("nest more than 256 levels"), "{message}");
    let exit = json!({ "jsonrpc": "2.0", "method": "exit" }).to_string();
    write!(stdin, "Content-Length: {}\r\n\r\n{exit}", exit.len()).unwrap();
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(0));
}
