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

/// Replays every golden trace into a folder of result records, as a harness would.
fn golden_results(name: &str) -> (PathBuf, usize) {
    let dir = std::env::temp_dir().join(format!("casec-report-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("cases/tujora");
    let mut count = 0;
    for category in std::fs::read_dir(&root)
        .expect("the suite")
        .flatten()
        .filter(|e| e.path().is_dir())
    {
        for trace in std::fs::read_dir(category.path())
            .expect("a category")
            .flatten()
            .map(|e| e.path())
        {
            let name = trace.file_name().unwrap().to_string_lossy().into_owned();
            // Counter-examples are wrong runs with labels, not a harness's runs.
            let Some(id) = name
                .strip_suffix(".trace.jsonl")
                .filter(|id| !id.contains(".counter-"))
            else {
                continue;
            };
            let out = dir.join(format!("{id}.json"));
            let run = casec(&[
                "replay",
                id,
                "--trace",
                trace.to_str().unwrap(),
                "cases/tujora",
                "-o",
                out.to_str().unwrap(),
            ]);
            assert_eq!(run.status.code(), Some(0), "{id}");
            count += 1;
        }
    }
    (dir, count)
}

#[test]
fn report_over_golden_results_counts_every_case_once() {
    let (dir, count) = golden_results("ok");
    let mut args = vec![
        "report".to_string(),
        "--suite".into(),
        "cases/tujora".into(),
    ];
    args.extend(
        std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path().to_string_lossy().into_owned()),
    );
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = casec(&refs);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("a JSON report");
    assert_eq!(report["overall"]["attempted"], count);
    assert_eq!(report["overall"]["cases"], 100);
    assert_eq!(report["overall"]["FAIL"], 0, "golden traces do not fail");
    // Each of the suite's report lines, with what its aggregation computed.
    let line = |text: &str| {
        report["required_reporting"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["line"] == text)
            .cloned()
            .unwrap_or_else(|| panic!("no report line {text:?}: {report:#}"))
    };
    assert_eq!(
        report["outcomes"],
        serde_json::json!(["PASS", "FAIL", "NOT_TESTED"])
    );
    assert_eq!(
        line("Critical failure count and IDs")["critical_failures"]["count"],
        0
    );
    let tool_failures = line("Tool failures handled correctly");
    assert_eq!(tool_failures["tag"], "tool_failure_or_ambiguous_result");
    assert_eq!(tool_failures["outcomes"]["cases"], 8);
    assert_eq!(
        tool_failures["outcomes"]["attempted"], 8,
        "every override case has a golden trace"
    );
    let overall = line("Overall and per-category outcomes");
    assert_eq!(overall["overall"], report["overall"]);
    let per_category: u64 = overall["categories"]
        .as_object()
        .unwrap()
        .values()
        .map(|c| c["attempted"].as_u64().unwrap())
        .sum();
    assert_eq!(per_category as usize, count);
    let final_state = line("Final-state check success");
    assert_eq!(final_state["dimension"], "final_state");
    assert!(final_state["checks"]["pass"].as_u64().unwrap() > 0);
}

#[test]
fn report_refuses_two_records_of_one_case() {
    let record = "{\"case_id\": \"TUJ-001\", \"outcome\": \"FAIL\", \"checks\": {}, \"critical_failures_triggered\": [\"F3\"]}\n";
    let file = scratch_file("twice.jsonl", &record.repeat(2));
    let output = casec(&["report", file.to_str().unwrap(), "--suite", "cases/tujora"]);
    let _ = std::fs::remove_file(&file);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("a second record of TUJ-001"));
}

/// Copies a folder tree (the suite and its golden traces).
fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn verify_fails_on_a_golden_trace_that_misses_its_checks() {
    let dir = std::env::temp_dir().join(format!("casec-verify-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy_tree(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("cases/tujora"),
        &dir,
    );
    // A "golden" trace that books twice: it misses A1 and commits F1.
    let create = "{\"type\": \"call\", \"tool\": \"provider_booking\", \"arguments\": {\"operation\": \"create\", \"offered_slot_if_needed\": \"S1\"}}\n";
    std::fs::write(
        dir.join("appointments/TUJ-034.trace.jsonl"),
        create.repeat(2),
    )
    .unwrap();
    std::fs::remove_file(dir.join("medication/TUJ-001.trace.jsonl")).unwrap();
    let output = casec(&["verify", dir.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.contains("TUJ-034    golden FAIL       ERROR"),
        "{text}"
    );
    assert!(text.contains("triggers critical failures: F1"), "{text}");
    assert!(
        text.contains("  note: A1: 2 matching calls of `provider_booking`, expected exactly 1\n"),
        "each failed assertion says what the run left: {text}"
    );
    assert!(
        text.contains("no golden trace"),
        "a missing trace is reported: {text}"
    );
}

/// The suites in the style of DonnaBench and DuMateBench check clean under `--deny
/// warnings` (a workspace task has no persona and needs none), every golden trace
/// passes the machine checks, and every counter-example trace is caught or labelled
/// with the review items it violates (and then not caught only when a reader must
/// catch it).
#[test]
fn the_other_suites_check_clean_and_verify_with_every_counter_example_caught() {
    for (suite, cases, counters) in [("cases/donnabench", 15, 20), ("cases/dumate", 9, 28)] {
        // cases/dumate's golden traces run their scripts in isolated workspaces.
        if suite == "cases/dumate"
            && !crate::support::isolation::available("verifying cases/dumate")
        {
            continue;
        }
        let check = casec(&["check", suite, "--deny", "warnings"]);
        assert_eq!(
            check.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&check.stderr)
        );
        let json = casec(&["verify", suite, "--format", "json"]);
        assert_eq!(json.status.code(), Some(0), "{suite}");
        let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&json.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), cases, "{suite}");
        let mut caught = 0;
        for line in &lines {
            assert_ne!(line["golden_outcome"], "fail", "{line}");
            assert_eq!(line["errors"], serde_json::json!([]), "{line}");
            for counter in line["counter_examples"].as_array().unwrap() {
                let labelled = !counter["violates"].as_array().unwrap().is_empty();
                assert!(
                    counter["caught"] == true || labelled,
                    "{} {counter}",
                    line["case_id"]
                );
                caught += usize::from(counter["caught"] == true);
            }
        }
        assert!(caught >= counters, "{suite}: {caught} counter-examples");
    }
}

/// A case without a golden trace still has its counter-examples replayed.
#[test]
fn counter_examples_are_verified_without_a_golden_trace() {
    let dir = std::env::temp_dir().join(format!("casec-verify-counters-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy_tree(std::path::Path::new("cases/donnabench"), &dir);
    std::fs::remove_file(dir.join("permission/task-005.trace.jsonl")).unwrap();
    let json = casec(&["verify", dir.to_str().unwrap(), "--format", "json"]);
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&json.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let task = lines
        .iter()
        .find(|l| l["case_id"] == "task-005")
        .expect("task-005 is verified");
    assert!(task["golden_outcome"].is_null(), "{task}");
    let counters = task["counter_examples"].as_array().unwrap();
    assert!(!counters.is_empty(), "{task}");
    assert!(
        counters
            .iter()
            .all(|c| c["caught"] == true || c["violates"] != serde_json::json!([])),
        "{task}"
    );
    assert!(counters.iter().any(|c| c["caught"] == true), "{task}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A counter-example that is not caught is its case's error, and the golden trace of
/// that case still counts as passing in the summary.
#[test]
fn an_uncaught_counter_example_does_not_count_against_the_golden_trace() {
    let dir = std::env::temp_dir().join(format!("casec-verify-uncaught-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy_tree(std::path::Path::new("cases/donnabench"), &dir);
    // The golden run itself, as an unlabelled counter-example: nothing catches it.
    std::fs::copy(
        dir.join("permission/task-005.trace.jsonl"),
        dir.join("permission/task-005.counter-same-as-golden.trace.jsonl"),
    )
    .unwrap();
    let run = casec(&["verify", dir.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains("15 golden trace(s) pass") && stdout.contains("1 case(s) with errors"),
        "{stdout}"
    );
    assert!(
        stdout.contains("`same-as-golden` is not caught"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `casec replay` takes every trace file `casec verify` takes: a labelled
/// counter-example replays (its `violates` lines grade nothing) to the record of the
/// same events without the labels.
#[test]
fn replay_takes_a_labelled_counter_example() {
    let counter = "cases/tujora/medication/TUJ-011.counter-claims-reminder-set.trace.jsonl";
    let text = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(counter))
        .expect("the counter-example");
    assert!(
        text.lines().any(|l| l.contains("\"violates\"")),
        "the counter-example is labelled"
    );
    let replayed = casec(&[
        "replay",
        "cases/tujora/medication/TUJ-011.case",
        "--trace",
        counter,
    ]);
    assert_eq!(
        replayed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&replayed.stderr)
    );
    let unlabelled: String = text
        .lines()
        .filter(|l| !l.contains("\"violates\""))
        .map(|l| format!("{l}\n"))
        .collect();
    let events = scratch_file("unlabelled.jsonl", &unlabelled);
    let plain = casec(&[
        "replay",
        "TUJ-011",
        "--trace",
        events.to_str().unwrap(),
        "cases/tujora",
    ]);
    let _ = std::fs::remove_file(&events);
    assert_eq!(plain.status.code(), Some(0));
    assert_eq!(replayed.stdout, plain.stdout);
}

/// Every counter-example of Tujora that `casec verify` reads replays.
#[test]
fn replay_takes_every_counter_example_verify_takes() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("cases/tujora");
    let mut counters = Vec::new();
    for category in std::fs::read_dir(&root).unwrap().flatten() {
        for file in std::fs::read_dir(category.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let name = file.file_name().into_string().unwrap();
            if let Some((id, _)) = name.split_once(".counter-") {
                counters.push((id.to_string(), file.path()));
            }
        }
    }
    counters.sort();
    assert!(counters.len() >= 50, "{} counter-examples", counters.len());
    // A batch of replays at a time: each replay compiles the suite.
    for batch in counters.chunks(16) {
        let running: Vec<_> = batch
            .iter()
            .map(|(id, path)| {
                let child = Command::new(env!("CARGO_BIN_EXE_casec"))
                    .args(["replay", id, "--trace"])
                    .arg(path)
                    .arg("cases/tujora")
                    .current_dir(env!("CARGO_MANIFEST_DIR"))
                    .env("NO_COLOR", "1")
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .expect("casec runs");
                (path, child)
            })
            .collect();
        for (path, child) in running {
            let output = child.wait_with_output().unwrap();
            assert_eq!(
                output.status.code(),
                Some(0),
                "{}: {}",
                path.display(),
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
}

/// A golden trace is what a competent assistant does: a call the case refuses (a tool
/// it does not offer, an argument its contract does not have) is an error of the
/// golden trace even when every check holds.
#[test]
fn a_golden_trace_that_calls_a_tool_the_case_refuses_is_an_error() {
    let dir = std::env::temp_dir().join(format!("casec-verify-refused-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy_tree(std::path::Path::new("cases/donnabench"), &dir);
    let golden = dir.join("personalization/task-001.trace.jsonl");
    let mut text = std::fs::read_to_string(&golden).unwrap();
    text.insert_str(
        0,
        "{\"type\": \"call\", \"tool\": \"fetch_url\", \"arguments\": {}}\n",
    );
    std::fs::write(&golden, text).unwrap();
    let json = casec(&["verify", dir.to_str().unwrap(), "--format", "json"]);
    assert_ne!(json.status.code(), Some(0));
    let report: serde_json::Value = String::from_utf8_lossy(&json.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|l| l["case_id"] == "task-001")
        .expect("task-001's line");
    assert_eq!(
        report["errors"],
        serde_json::json!([
            "the golden trace makes calls the case refuses: `fetch_url` (UNKNOWN_TOOL)"
        ]),
        "{report}"
    );
    assert_eq!(
        report["failed_calls"],
        serde_json::json!(["event 1: `fetch_url` failed with UNKNOWN_TOOL"])
    );
    let _ = std::fs::remove_dir_all(&dir);
}
