//! A case's step limit (a shape's `step_limit` field, std.dumate's `max_steps`): the
//! sandbox refuses every tool call past it, whoever drives the run, and the refused
//! calls stay in the trace.

use std::sync::OnceLock;

use casec::model::Suite;
use casec::runtime::Runtime;

use crate::support::suite::compiled_once;

const SUITE: &str = r#"suite "Steps" {
  shape std.dumate
  system_prompt "Work in /workspace."
  language "en"
  max_steps 2
  tools list_files read_file write_file
  world_schema std.workspace_world
}
category data_processing 2 {}
case task_1 "Read twice" {
  domain data_processing
  capabilities file_organization
  instruction "Read /workspace/a.txt."
  goal "The file is read."
  artifact "Nothing is written."
  critical "Writes a file."
  world {
    files F1 { path "/workspace/a.txt"; content "a" }
  }
  expect G1 { called read_file }
  expect A1 { not { called write_file } }
  forbid F1 { called write_file }
}
case task_2 "More room" {
  domain data_processing
  capabilities file_organization
  max_steps 3
  instruction "Read /workspace/a.txt."
  goal "The file is read."
  artifact "Nothing is written."
  critical "Writes a file."
  world {
    files F1 { path "/workspace/a.txt"; content "a" }
  }
  expect G1 { called read_file }
  expect A1 { not { called write_file } }
  forbid F1 { called write_file }
}
"#;

static COMPILED: OnceLock<Suite> = OnceLock::new();

fn suite() -> &'static Suite {
    compiled_once(&COMPILED, SUITE)
}

/// The error codes of four reads in a row in case `id` (`None` for a call that ran).
fn four_reads(id: &str) -> Vec<Option<String>> {
    let suite = suite();
    let case = suite.cases.iter().find(|c| c.id.as_str() == id).unwrap();
    let mut rt = Runtime::new(suite, case, case.sandbox.as_ref().unwrap());
    let read = serde_json::json!({ "path": "/workspace/a.txt" });
    (0..4)
        .map(|_| {
            let result = rt.call("read_file", &read);
            result["error"].as_str().map(str::to_string)
        })
        .collect()
}

#[test]
fn calls_past_the_limit_are_refused_and_recorded() {
    let limit = Some("STEP_LIMIT".to_string());
    assert_eq!(
        four_reads("task_1"),
        [None, None, limit.clone(), limit.clone()]
    );
    // A case sets its own limit over the suite's.
    assert_eq!(four_reads("task_2"), [None, None, None, limit]);
}

#[test]
fn the_sandbox_json_carries_the_limit() {
    let suite = suite();
    let case = &suite.cases[0];
    let json = casec::lower::sandbox::sandbox_value(suite, case, case.sandbox.as_ref().unwrap());
    assert_eq!(json["step_limit"], 2);
}

#[test]
fn a_step_limit_is_a_whole_number_from_one() {
    for bad in ["0", "2.5", "-1"] {
        let text = SUITE.replace("max_steps 2", &format!("max_steps {bad}"));
        let compilation =
            casec::Compilation::new(casec::Sources::in_memory([("suite.case", text.as_str())]));
        let messages: Vec<&str> = compilation
            .diagnostics
            .iter()
            .map(|d| d.message.as_str())
            .collect();
        assert!(
            messages.contains(&"`max_steps` is not a step limit"),
            "{bad}: {messages:?}"
        );
    }
}
