//! `casec replay` and `casec verify` as a harness engineer runs them.

use std::path::PathBuf;
use std::process::{Command, Output};

fn casec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_casec"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .expect("casec runs")
}

fn scratch_file(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("casec-replay-{}-{name}", std::process::id()));
    std::fs::write(&path, text).expect("a writable temporary file");
    path
}

#[test]
fn replay_by_file_and_by_id_print_the_same_record() {
    let trace = "cases/tujora/future_intentions/TUJ-084.trace.jsonl";
    let by_file = casec(&[
        "replay",
        "cases/tujora/future_intentions/TUJ-084.case",
        "--trace",
        trace,
    ]);
    let by_id = casec(&["replay", "TUJ-084", "--trace", trace, "cases/tujora"]);
    assert_eq!(
        by_file.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&by_file.stderr)
    );
    assert_eq!(by_file.stdout, by_id.stdout);
    let record: serde_json::Value = serde_json::from_slice(&by_file.stdout).expect("a JSON record");
    assert_eq!(record["case_id"], "TUJ-084");
}

#[test]
fn a_malformed_trace_line_is_reported_at_its_line() {
    let trace = scratch_file(
        "bad.jsonl",
        "{\"type\": \"call\", \"tool\": \"get_clock\"}\n{\"type\": \"call\", \"tool\": 5}\n",
    );
    let output = casec(&[
        "replay",
        "TUJ-084",
        "--trace",
        trace.to_str().unwrap(),
        "cases/tujora",
        "--format",
        "json",
    ]);
    let _ = std::fs::remove_file(&trace);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty(), "no record for a broken trace");
    let first: serde_json::Value = serde_json::from_str(
        String::from_utf8_lossy(&output.stderr)
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(first["code"], "trace_line");
    assert_eq!(first["labels"][0]["line"], 2, "{first}");
}

#[test]
fn replay_of_an_unknown_case_is_a_usage_error() {
    let output = casec(&[
        "replay",
        "TUJ-999",
        "--trace",
        "cases/tujora/future_intentions/TUJ-084.trace.jsonl",
        "cases/tujora",
    ]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn verify_of_the_tujora_suite_passes() {
    let output = casec(&["verify", "cases/tujora"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(text.contains("TUJ-034    golden NOT_TESTED ok"), "{text}");
    let json = casec(&["verify", "cases/tujora", "--format", "json"]);
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&json.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 100);
}
