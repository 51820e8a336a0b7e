//! `casec export` writes the layouts other benchmarks ship, from the suites in casec:
//! DonnaBench's JSON Lines with exactly the keys of its data card, DuMateBench's task
//! folders whose evaluator grades a run with a copy of the suite; and an
//! exported file imports back into the suite it came from.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn casec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_casec"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("casec runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("casec-export-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// The fields of the data card's `tasks` table: the lines between the `tasks` heading
/// and the `traces` heading, after the tab-separated `field meaning` header.
fn card_task_fields() -> BTreeSet<String> {
    let card = fs::read_to_string(root().join("../shared/reference/donnabench-tasks-card.txt"))
        .expect("the DonnaBench data card beside the repository");
    let tasks = card.split("\ntasks\n").nth(1).expect("a tasks section");
    let table = tasks.split("\ntraces\n").next().unwrap();
    table
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .map(|(field, _)| field.trim().to_string())
        .filter(|field| field != "field")
        .collect()
}

#[test]
fn donnabench_rows_have_exactly_the_cards_keys_and_every_capability() {
    let run = casec(&["export", "cases/donnabench", "--format", "donnabench"]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = String::from_utf8(run.stdout).unwrap();
    let rows: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert!(rows.len() >= 5, "{} rows", rows.len());
    let fields = card_task_fields();
    assert_eq!(fields.len(), 13, "{fields:?}");
    let mut capabilities = BTreeSet::new();
    for row in &rows {
        let keys: BTreeSet<String> = row.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, fields, "{}", row["task_id"]);
        capabilities.insert(row["capability"].as_str().unwrap().to_string());
        assert!(matches!(
            row["check_on"].as_str(),
            Some("state" | "reply" | "both")
        ));
        assert!(row["recurrence"].is_u64());
        for list in ["check_positive", "check_negative", "evidence"] {
            assert!(row[list].is_array(), "{list} of {}", row["task_id"]);
        }
    }
    let expected: BTreeSet<String> = [
        "personalization",
        "clarification",
        "permission",
        "recovery",
        "proactivity",
    ]
    .map(String::from)
    .into();
    assert_eq!(capabilities, expected);
}

#[test]
fn donnabench_lines_import_back_into_the_same_lines() {
    let dir = scratch("donnabench-round-trip");
    let lines = dir.join("tasks.jsonl");
    let run = casec(&[
        "export",
        "cases/donnabench",
        "--format",
        "donnabench",
        "-o",
        lines.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let suite = dir.join("suite");
    let run = casec(&[
        "import",
        lines.to_str().unwrap(),
        "-o",
        suite.to_str().unwrap(),
        "--shape",
        "std.donnabench",
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let again = casec(&["export", suite.to_str().unwrap(), "--format", "donnabench"]);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(
        String::from_utf8(again.stdout).unwrap(),
        fs::read_to_string(&lines).unwrap(),
        "export → import → export gives the same lines"
    );
    let _ = fs::remove_dir_all(&dir);
}

/// The folders the DuMateBench card lists in every task, and what the evaluator needs:
/// its program, the task it grades and the suite it grades with.
const TASK_FILES: [&str; 8] = [
    "instruction.md",
    "task.yaml",
    "task_type_feature.json",
    "workspace_seed",
    "web_reference/endpoints.json",
    "evaluator/evaluate.py",
    "evaluator/task.json",
    "evaluator/suite/suite.case",
];

/// Each task folder carries a copy of the suite that checks clean, and the run the
/// evaluator grades (its program runs `casec replay --workspace`'s code through the
/// Python package: python/tests/test_dumate_evaluator.py runs it) passes on the golden
/// run's workspace and fails on an empty one.
#[test]
fn dumate_task_folders_are_complete_and_carry_the_suite_they_are_graded_with() {
    let dir = scratch("dumate");
    let out = dir.join("tasks");
    export_dumate("cases/dumate", &out);
    let mut tasks: Vec<PathBuf> = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    tasks.sort();
    assert!(tasks.len() >= 3, "{tasks:?}");
    for task in &tasks {
        for file in TASK_FILES {
            assert!(task.join(file).exists(), "{} has no {file}", task.display());
        }
        let id = task.file_name().unwrap().to_string_lossy().to_string();
        let spec: Value =
            serde_json::from_str(&fs::read_to_string(task.join("evaluator/task.json")).unwrap())
                .unwrap();
        assert_eq!(spec["case_id"], id.as_str());
        assert_eq!(spec["export"], "dumate");
        let copy = task.join("evaluator/suite");
        let checked = casec(&["check", copy.to_str().unwrap()]);
        assert!(
            checked.status.success(),
            "{}",
            String::from_utf8_lossy(&checked.stderr)
        );
        let Some(golden) = golden_trace("cases/dumate", &id) else {
            panic!("no golden trace for {id}");
        };
        // Grading re-runs the golden trace's commands in an isolated workspace.
        if !crate::support::isolation::available("grading cases/dumate's exported tasks") {
            continue;
        }
        // The golden run's workspace: every file the run leaves (the seed, what its
        // tools write and what its commands write), as a harness would collect it.
        let workspace = dir.join(format!("golden-{id}"));
        write_files_left(&copy, &id, &golden, &workspace);
        let graded = grade(&copy, &id, &golden, &workspace);
        assert_ne!(
            graded["outcome"], "fail",
            "{id} on its golden workspace: {graded}"
        );
        let empty = dir.join(format!("empty-{id}"));
        fs::create_dir_all(&empty).unwrap();
        let graded = grade(&copy, &id, &golden, &empty);
        assert_eq!(
            graded["outcome"], "fail",
            "{id} on an empty workspace: {graded}"
        );
    }
    // However the suite folder is written, the evaluator carries the suite's files.
    let again = dir.join("again");
    export_dumate("cases/dumate/", &again);
    for task in &tasks {
        let name = task.file_name().unwrap();
        assert!(
            again
                .join(name)
                .join("evaluator/suite/suite.case")
                .is_file(),
            "{name:?}"
        );
    }
    let _ = fs::remove_dir_all(&dir);
}

/// `casec export SUITE --format dumate -o OUT`, which must succeed.
fn export_dumate(suite: &str, out: &Path) {
    let run = casec(&[
        "export",
        suite,
        "--format",
        "dumate",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

/// The result record of `trace` replayed over `workspace`.
fn grade(suite: &Path, id: &str, trace: &Path, workspace: &Path) -> Value {
    replayed(
        suite,
        id,
        trace,
        &["--workspace", workspace.to_str().unwrap()],
    )
}

/// The result record `casec replay` gives `trace` with `flags`.
fn replayed(suite: &Path, id: &str, trace: &Path, flags: &[&str]) -> Value {
    let mut args = vec![
        "replay",
        id,
        "--trace",
        trace.to_str().unwrap(),
        suite.to_str().unwrap(),
    ];
    args.extend_from_slice(flags);
    let run = casec(&args);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_slice(&run.stdout).unwrap()
}

fn golden_trace(suite: &str, id: &str) -> Option<PathBuf> {
    let mut dirs = vec![root().join(suite)];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).ok()? {
            let path = entry.ok()?.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.file_name()? == format!("{id}.trace.jsonl").as_str() {
                return Some(path);
            }
        }
    }
    None
}

/// Writes under `root` the files the run of `trace` leaves (an absolute path
/// `/outputs/x` is `root/outputs/x`): its record's final file store.
fn write_files_left(suite: &Path, id: &str, trace: &Path, root: &Path) {
    let record = replayed(suite, id, trace, &[]);
    for file in record["final_state"]["files"].as_array().unwrap() {
        let path = file["fields"]["path"].as_str().unwrap();
        let content = match &file["fields"]["content"] {
            Value::String(text) => text.clone().into_bytes(),
            other => base64_decode(other["base64"].as_str().unwrap()),
        };
        let target = root.join(path.trim_start_matches('/'));
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        fs::write(target, content).unwrap();
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap()
}

/// task.yaml lays out each injected failure twice over: in words (which calls, what they
/// answer) and as the machine part a harness applies; an override without one has no
/// `fault`. The faults an endpoint declares are its `network_faults`.
#[test]
fn dumate_task_yaml_carries_the_faults_a_harness_injects() {
    let dir = scratch("dumate-faults");
    export_dumate("cases/dumate", &dir);
    let yaml = fs::read_to_string(dir.join("task_9/task.yaml")).unwrap();
    for line in [
        "    \"tool\": \"run_command\"",
        "    \"applies_to\": \"LibreOffice is not installed\"",
        "    \"fault\":",
        "          \"value\": \"soffice|libreoffice|lowriter\"",
        "      \"error\": \"COMMAND_FAILED\"",
        "        \"exit_code\": 127",
        "\"network_faults\": []",
    ] {
        assert!(yaml.lines().any(|l| l == line), "no {line:?} in:\n{yaml}");
    }
    let web = fs::read_to_string(dir.join("task_1/task.yaml")).unwrap();
    for line in [
        "\"network_faults\":",
        "    \"url\": \"http://treasury.example.com/api/rates?date=2026-03-31\"",
        "    \"failures\": 1",
    ] {
        assert!(web.lines().any(|l| l == line), "no {line:?} in:\n{web}");
    }
    let without = fs::read_to_string(dir.join("task_3/task.yaml")).unwrap();
    assert!(without.contains("\"injected_failures\": []"), "{without}");
    let _ = fs::remove_dir_all(&dir);
}
