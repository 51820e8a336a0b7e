//! Files are bytes: a `bytes` field holds any content, a world includes a file of the
//! suite folder (`content from "seed/sales.xlsx"`), the sandbox JSON carries the exact
//! bytes with their size and digest, a tool reads them back as base64, a task folder
//! seeds them as they are, and a check that reads text says a binary file is not text.

use std::fs;
use std::path::Path;

use base64::Engine;
use casec::{Compilation, Sources};
use serde_json::{json, Value};

use crate::support::cli::{casec, ok, path};
use crate::support::files::{copy_dir, edit, Scratch};

/// An xlsx's first bytes (a zip), with a byte that is not UTF-8.
const WORKBOOK: &[u8] = b"PK\x03\x04\x14\x00\x06\x00\xff\xfe sheet1";

const SUITE: &str = r#"suite "Workspace" {
  system_prompt "Work in /workspace; write artifacts under /outputs."
  world_schema std.workspace_world
  tools read_file write_file
}
case W-1 "Copy the workbook" {
  user "Is /workspace/sales.xlsx a workbook?"
  goal "The reply says it is."
  world {
    files F1 { path "/workspace/sales.xlsx"; content from "seed/sales.xlsx" }
    files F2 { path "/workspace/notes.txt"; content "plain text" }
  }
  expect G1 { file "/workspace/sales.xlsx" }
  expect G1 { not { file "/workspace/sales.xlsx" { contains "sheet1" } } }
}
"#;

fn suite_folder(dir: &Path) -> std::path::PathBuf {
    let suite = dir.join("suite");
    fs::create_dir_all(suite.join("seed")).unwrap();
    fs::write(suite.join("suite.case"), SUITE).unwrap();
    fs::write(suite.join("seed/sales.xlsx"), WORKBOOK).unwrap();
    suite
}

#[test]
fn the_sandbox_json_carries_the_bytes_their_size_and_digest() {
    let dir = Scratch::new("bytes", "sandbox");
    let suite = suite_folder(&dir.0);
    let out = dir.0.join("sandbox");
    ok(&casec(&["sandbox", path(&suite), "-o", path(&out)]));
    let sandbox: Value =
        serde_json::from_str(&fs::read_to_string(out.join("W-1.json")).unwrap()).unwrap();
    let files = &sandbox["collections"]["files"]["records"];
    let encoded = base64::engine::general_purpose::STANDARD.encode(WORKBOOK);
    assert_eq!(files[0]["fields"]["content"], json!({ "base64": encoded }));
    assert_eq!(
        files[0]["bytes"]["content"],
        json!({
            "size": WORKBOOK.len(),
            "blake3": blake3::hash(WORKBOOK).to_hex().to_string(),
            "from": "seed/sales.xlsx",
        })
    );
    // A text file keeps its text in `fields`, beside its size and digest.
    assert_eq!(files[1]["fields"]["content"], "plain text");
    assert_eq!(files[1]["bytes"]["content"]["from"], Value::Null);
}

#[test]
fn a_tool_reads_binary_content_as_base64_and_checks_say_it_is_not_text() {
    let dir = Scratch::new("bytes", "runtime");
    let suite = suite_folder(&dir.0);
    let compilation = Compilation::new(Sources::Folder(&suite));
    assert!(!compilation.has_errors(), "{:#?}", compilation.diagnostics);
    let suite = compilation.suite.as_ref().unwrap();
    let case = &suite.cases[0];
    let sandbox = case.sandbox.as_ref().unwrap();
    let mut rt = casec::runtime::Runtime::new(suite, case, sandbox);
    let read = rt.call("read_file", &json!({ "path": "/workspace/sales.xlsx" }));
    let encoded = base64::engine::general_purpose::STANDARD.encode(WORKBOOK);
    assert_eq!(read["content"], json!({ "base64": encoded }), "{read}");
    let text = rt.call("read_file", &json!({ "path": "/workspace/notes.txt" }));
    assert_eq!(text["content"], "plain text");
    let [exists, not_text] = &sandbox.expectations[..] else {
        panic!("two expectations");
    };
    assert_eq!(casec::runtime::eval::miss(&exists.assertions[0], &rt), None);
    let Some(casec::model::expect::Assertion::Not(inner)) = not_text.assertions.first() else {
        panic!("a `not` assertion");
    };
    let why = format!(
        "`/workspace/sales.xlsx` is not text ({} bytes)",
        WORKBOOK.len()
    );
    assert_eq!(casec::runtime::eval::miss(&inner[0], &rt), Some(why));
}

#[test]
fn a_task_folder_seeds_the_exact_bytes() {
    let dir = Scratch::new("bytes", "export");
    let suite = dir.0.join("dumate");
    copy_dir(Path::new("cases/dumate"), &suite);
    fs::create_dir_all(suite.join("seed")).unwrap();
    fs::write(suite.join("seed/sales.xlsx"), WORKBOOK).unwrap();
    let task = suite.join("file_organization/task_3.case");
    edit(
        &task,
        "  world {\n",
        "  world {\n    files F99 { path \"/workspace/notes/sales.xlsx\"; content from \"seed/sales.xlsx\" }\n",
    );
    let out = dir.0.join("tasks");
    ok(&casec(&[
        "export",
        path(&suite),
        "--format",
        "dumate",
        "-o",
        path(&out),
    ]));
    let seeded = fs::read(out.join("task_3/workspace_seed/notes/sales.xlsx")).unwrap();
    assert_eq!(seeded, WORKBOOK);
}
