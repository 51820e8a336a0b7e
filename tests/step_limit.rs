//! A case's step limit (a shape's `step_limit` field, std.dumate's `max_steps`): the
//! sandbox refuses every tool call past it, whoever drives the run, and the refused
//! calls stay in the trace.

use std::sync::OnceLock;

use casec::model::Suite;
use casec::runtime::Runtime;

use crate::support::suite::{assert_reported, compiled_once};

const SUITE_BLOCK: &str = r#"suite "Steps" {
  shape std.dumate
  system_prompt "Work in /workspace."
  language "en"
  max_steps 2
  tools list_files read_file write_file
  world_schema std.workspace_world
}
category data_processing 2 {}
"#;

/// A case that reads a file; `limit` is its own step limit statement, if any.
fn case(id: &str, title: &str, limit: &str) -> String {
    format!(
        r#"case {id} "{title}" {{
  domain data_processing
  capabilities file_organization
  {limit}
  instruction "Read /workspace/a.txt."
  goal "The file is read."
  artifact "Nothing is written."
  critical "Writes a file."
  world {{
    files F1 {{ path "/workspace/a.txt"; content "a" }}
  }}
  expect G1 {{ called read_file }}
  expect A1 {{ not {{ called write_file }} }}
  forbid F1 {{ called write_file }}
}}
"#
    )
}

/// Two cases: task_1 with the suite's limit of 2, task_2 with its own of 3.
fn suite_text() -> String {
    let first = case("task_1", "Read twice", "");
    let second = case("task_2", "More room", "max_steps 3");
    format!("{SUITE_BLOCK}{first}{second}")
}

static COMPILED: OnceLock<Suite> = OnceLock::new();

fn suite() -> &'static Suite {
    compiled_once(&COMPILED, &suite_text())
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
        let text = suite_text().replace("max_steps 2", &format!("max_steps {bad}"));
        assert_reported(&text, "`max_steps` is not a step limit", bad);
    }
}
