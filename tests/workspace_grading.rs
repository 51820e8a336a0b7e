//! `casec replay --workspace DIR`: the files a real run left in DIR are the run's file
//! store, read as docs/traces.md says — links not followed, bytes that are not UTF-8
//! still a file, a seeded file rewritten or removed a change — and a folder that cannot
//! stand for a run is an `io` error without a record.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::support::cli::{casec, path};
use crate::support::files::Scratch;

const SUITE: &str = r#"suite "Workspace" {
  system_prompt "Work in /workspace; write artifacts under /outputs."
  world_schema std.workspace_world
  tools list_files read_file write_file
}
case W-1 "Copy the notes" {
  user "Copy /workspace/notes.txt to /outputs/notes.txt."
  goal "The copy is written."
  check "The copy holds the notes."
  critical "Changes the input."
  world {
    files F1 {
      path "/workspace/notes.txt"
      content "buy stamps"
    }
  }
  expect G1 {
    file "/outputs/notes.txt" {
      contains "buy stamps"
    }
  }
  expect A1 {
    file "/outputs/raw.bin"
  }
  forbid F1 {
    changed F1
  }
}
"#;

/// The suite in `dir/suite`, an empty trace, and a run folder with the input seeded.
fn setup(dir: &Path) -> (String, String, std::path::PathBuf) {
    let suite = dir.join("suite");
    fs::create_dir_all(&suite).unwrap();
    fs::write(suite.join("suite.case"), SUITE).unwrap();
    let trace = dir.join("run.trace.jsonl");
    fs::write(&trace, "").unwrap();
    let run = dir.join("run");
    fs::create_dir_all(run.join("workspace")).unwrap();
    fs::create_dir_all(run.join("outputs")).unwrap();
    fs::write(run.join("workspace/notes.txt"), "buy stamps").unwrap();
    (path(&suite).to_string(), path(&trace).to_string(), run)
}

fn graded(suite: &str, trace: &str, run: &Path) -> Value {
    let out = casec(&[
        "replay",
        "W-1",
        "--trace",
        trace,
        suite,
        "--workspace",
        path(run),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_files_a_run_left_decide_its_checks() {
    let dir = Scratch::new("workspace", "left");
    let (suite, trace, run) = setup(&dir.0);
    fs::write(run.join("outputs/notes.txt"), "Buy  stamps\n").unwrap();
    // A workbook or an image: not text, still a file at its path.
    fs::write(
        run.join("outputs/raw.bin"),
        [0x50, 0x4b, 0x03, 0x04, 0xff, 0xfe],
    )
    .unwrap();
    let record = graded(&suite, &trace, &run);
    assert_eq!(record["checks"]["G1"], "pass", "{record}");
    assert_eq!(record["checks"]["A1"], "pass", "{record}");
    assert_eq!(record["critical_failures_triggered"], serde_json::json!([]));
}

#[cfg(unix)]
#[test]
fn a_link_is_not_followed_out_of_the_workspace() {
    let dir = Scratch::new("workspace", "link");
    let (suite, trace, run) = setup(&dir.0);
    let outside = dir.0.join("outside.txt");
    fs::write(&outside, "buy stamps").unwrap();
    std::os::unix::fs::symlink(&outside, run.join("outputs/notes.txt")).unwrap();
    let record = graded(&suite, &trace, &run);
    assert_eq!(record["checks"]["G1"], "fail", "{record}");
    let misses = record["failed_assertions"].to_string();
    assert!(misses.contains("no file `/outputs/notes.txt`"), "{misses}");
}

#[test]
fn an_input_rewritten_or_removed_in_place_is_a_change() {
    let dir = Scratch::new("workspace", "changed");
    let (suite, trace, run) = setup(&dir.0);
    fs::write(run.join("workspace/notes.txt"), "buy stamps and milk").unwrap();
    assert_eq!(
        graded(&suite, &trace, &run)["critical_failures_triggered"],
        serde_json::json!(["F1"])
    );
    fs::remove_file(run.join("workspace/notes.txt")).unwrap();
    assert_eq!(
        graded(&suite, &trace, &run)["critical_failures_triggered"],
        serde_json::json!(["F1"])
    );
}

#[test]
fn a_folder_that_cannot_stand_for_a_run_is_an_io_error_without_a_record() {
    let dir = Scratch::new("workspace", "missing");
    let (suite, trace, _) = setup(&dir.0);
    let missing = dir.0.join("nowhere");
    let out = casec(&[
        "replay",
        "W-1",
        "--trace",
        &trace,
        &suite,
        "--workspace",
        path(&missing),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot grade the workspace") && stderr.contains("is not a folder"),
        "{stderr}"
    );
}
