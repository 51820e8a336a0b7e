//! `file "PATH" { json { … } }`: an artifact read as JSON, each value found at an RFC
//! 6901 pointer compared as the sandbox compares (numbers within a tolerance, text
//! folded, `true`/`false`/`null` exactly, `count` of a list or object), and every
//! failure saying what the file held instead.

use std::sync::OnceLock;

use casec::model::Suite;
use casec::runtime::eval;
use serde_json::json;

use crate::support::suite::{assert_reported, compiled_once, first_case_runtime};

const SUITE: &str = r#"suite "Workspace" {
  system_prompt "Work in /workspace; write artifacts under /outputs."
  world_schema std.workspace_world
  tools write_file
}
case W-1 "Summarise the sales" {
  user "Write the regional totals to /outputs/summary.json."
  goal "The summary holds the totals."
  world {
    files F1 { path "/workspace/sales.csv"; content "region,total" }
  }
  expect G1 {
    file "/outputs/summary.json" {
      json {
        "/totals/north" 801 within 0.01
        "/totals/south" 1200
        "/regions" count 2
        "/regions/0" "north"
        "/complete" true
        "/note" null
      }
    }
  }
}
"#;

static COMPILED: OnceLock<Suite> = OnceLock::new();

/// What the first assertion of the case decides after a write of `content`.
fn verdict(content: &str) -> Option<String> {
    let suite = compiled_once(&COMPILED, SUITE);
    let mut rt = first_case_runtime(suite);
    let written = rt.call(
        "write_file",
        &json!({ "path": "/outputs/summary.json", "content": content }),
    );
    assert_eq!(written["status"], "ok", "{written}");
    let sandbox = suite.cases[0].sandbox.as_ref().expect("a world");
    eval::miss(&sandbox.expectations[0].assertions[0], &rt)
}

const GOOD: &str = r#"{"totals": {"north": 800.999, "south": 1200.0}, "regions": ["North ", "south"], "complete": true, "note": null}"#;

#[test]
fn the_values_at_the_pointers_decide() {
    assert_eq!(verdict(GOOD), None);
}

#[test]
fn each_failure_says_what_the_file_held() {
    let cases = [
        (
            GOOD.replace("800.999", "799"),
            "at `/totals/north` is 799, expected 801 within 0.01",
        ),
        (
            GOOD.replace(r#", "south"]"#, "]"),
            "at `/regions` is 1 items, expected count 2",
        ),
        (
            GOOD.replace("true", "\"yes\""),
            "at `/complete` is \"yes\", expected true",
        ),
        (
            GOOD.replace(r#""south": 1200.0"#, r#""east": 1200"#),
            "holds no value at `/totals/south`",
        ),
        (
            "region,total\nnorth,801".to_string(),
            "is not JSON: expected value at line 1 column 1",
        ),
    ];
    for (content, expected) in cases {
        let found = verdict(&content).unwrap_or_default();
        assert!(found.contains(expected), "{content}: {found}");
    }
}

#[test]
fn a_pointer_is_quoted_and_a_value_is_one_json_value() {
    for (from, to, expected) in [
        (
            r#""/regions" count 2"#,
            r#"regions count 2"#,
            "`regions` is not a JSON pointer",
        ),
        (
            r#""/note" null"#,
            r#""/note" nothing"#,
            "`/note` is not written as expected",
        ),
        (
            r#""/regions" count 2"#,
            r#""/regions" count -1"#,
            "`/regions` is not written as expected",
        ),
    ] {
        assert_reported(&SUITE.replace(from, to), expected, to);
    }
}
