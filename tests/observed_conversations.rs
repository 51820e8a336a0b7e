//! Observed conversations (docs/people.md#observed-conversations): `casec export
//! --format donnabench_traces` lays out each turn of a suite's `observed/` traces as a
//! row of DonnaBench's traces config, `casec import` reads such rows back into traces,
//! byte for byte, and an imported trace replays against the task that cites it.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::cli::casec;

use serde_json::{json, Value};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("casec-observed-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// The standard output of a command that exited 0.
fn ok(run: &Output) -> String {
    crate::support::cli::ok(run);
    String::from_utf8(run.stdout.clone()).unwrap()
}

/// `casec export SUITE --format donnabench_traces`.
fn export_traces(suite: &str) -> Output {
    casec(&["export", suite, "--format", "donnabench_traces"])
}

/// `casec import ROWS -o OUT`.
fn import_rows(rows: &Path, out: &Path) -> Output {
    casec(&[
        "import",
        rows.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ])
}

fn rows(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("each row is JSON"))
        .collect()
}

/// The fields of the data card's `traces` table (a cell may name several fields).
fn card_trace_fields() -> Vec<String> {
    let card = fs::read_to_string(root().join("../shared/reference/donnabench-tasks-card.txt"))
        .expect("the DonnaBench data card beside the repository");
    let traces = card.split("\ntraces\n").nth(1).expect("a traces section");
    let table = traces.split("\nLoading").next().unwrap();
    table
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .flat_map(|(fields, _)| fields.split(", ").map(|f| f.trim().to_string()))
        .filter(|field| field != "field")
        .collect()
}

/// A suite of one DonnaBench task, with the observed conversations given.
fn donnabench_suite(name: &str, observed: &[(&str, Vec<Value>)]) -> PathBuf {
    let dir = scratch(name);
    let task =
        fs::read_to_string(root().join("cases/donnabench/clarification/task-004.case")).unwrap();
    fs::write(
        dir.join("suite.case"),
        fs::read_to_string(root().join("cases/donnabench/suite.case"))
            .unwrap()
            .replace("category personalization 2", "category personalization 0")
            .replace("category clarification 3", "category clarification 1")
            .replace("category permission 5", "category permission 0")
            .replace("category recovery 2", "category recovery 0")
            .replace("category proactivity 3", "category proactivity 0"),
    )
    .unwrap();
    fs::write(dir.join("task-004.case"), task).unwrap();
    fs::create_dir_all(dir.join("observed")).unwrap();
    for (file, events) in observed {
        let text: String = events.iter().map(|e| format!("{e}\n")).collect();
        fs::write(
            dir.join("observed").join(format!("{file}.trace.jsonl")),
            text,
        )
        .unwrap();
    }
    dir
}

fn conversation(id: Value, cited_turn: usize) -> Vec<Value> {
    let mut events = vec![
        json!({"type": "episode", "id": id, "person": "Daniel Okafor",
        "persona": "A consultant.", "goals": ["send the deck"]}),
    ];
    for turn in 1..=2 {
        let mut user =
            json!({"type": "user", "content": format!("message {turn}"), "thought": "hm"});
        if turn == cited_turn {
            user["cited_by"] = json!(["task-004"]);
        }
        events.push(user);
        events.push(
            json!({"type": "call", "tool": "contacts_search", "arguments": {"query": "Chris"},
            "result": {"status": "ok", "contacts": []}, "failed": false}),
        );
        events.push(json!({"type": "reply", "content": format!("reply {turn}")}));
    }
    events.push(json!({"type": "end", "reason": "gave_up", "satisfaction": 2, "verdict": "Slow."}));
    events
}

#[test]
fn the_traces_export_has_exactly_the_cards_keys() {
    let text = ok(&export_traces("cases/donnabench"));
    let rows = rows(&text);
    let card = card_trace_fields();
    assert_eq!(card.len(), 14, "{card:?}");
    let episodes: BTreeSet<String> = rows.iter().map(|r| r["episode_id"].to_string()).collect();
    assert!(episodes.len() >= 20, "{} episodes", episodes.len());
    for row in &rows {
        let keys: Vec<&String> = row.as_object().unwrap().keys().collect();
        assert_eq!(keys, card.iter().collect::<Vec<_>>(), "{row}");
        let calls: Value = serde_json::from_str(row["tool_calls"].as_str().unwrap()).unwrap();
        for call in calls.as_array().unwrap() {
            let keys: Vec<&String> = call.as_object().unwrap().keys().collect();
            assert_eq!(keys, ["name", "args", "result", "is_error"]);
        }
    }
}

/// Every evidence object of the tasks names a turn of an observed conversation whose
/// `cited_by` names the task, and its quote is said in that turn.
#[test]
fn every_evidence_names_a_turn_that_cites_its_task() {
    let tasks = rows(&ok(&casec(&[
        "export",
        "cases/donnabench",
        "--format",
        "donnabench",
    ])));
    let turns = rows(&ok(&export_traces("cases/donnabench")));
    let mut seen = 0;
    for task in &tasks {
        for evidence in task["evidence"].as_array().unwrap() {
            let keys: Vec<&String> = evidence.as_object().unwrap().keys().collect();
            assert_eq!(keys, ["episode", "turn", "quote", "reason"]);
            let turn = turns
                .iter()
                .find(|t| t["episode_id"] == evidence["episode"] && t["turn"] == evidence["turn"])
                .unwrap_or_else(|| panic!("no observed turn for {evidence}"));
            assert!(
                turn["cited_by"]
                    .as_array()
                    .unwrap()
                    .contains(&task["task_id"]),
                "{} is not cited by {}",
                task["task_id"],
                turn
            );
            let quote = evidence["quote"].as_str().unwrap();
            let said = [&turn["user_message"], &turn["assistant_reply"]];
            assert!(
                said.iter()
                    .any(|s| s.as_str().is_some_and(|s| s.contains(quote))),
                "{quote:?} is not said in {turn}"
            );
            seen += 1;
        }
    }
    assert!(seen >= 15, "{seen} evidence objects");
}

/// Import then export gives the very rows again, and the imported traces are the
/// suite's own, event for event (a reviewer's labels are the suite's, not the rows').
#[test]
fn the_suites_traces_round_trip_through_import() {
    let exported = ok(&export_traces("cases/donnabench"));
    let dir = scratch("round-trip");
    let rows_file = dir.join("traces.jsonl");
    fs::write(&rows_file, &exported).unwrap();
    let out = dir.join("observed");
    ok(&import_rows(&rows_file, &out));
    let ours = root().join("cases/donnabench/observed");
    let mut names: Vec<_> = fs::read_dir(&ours)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    let mut imported: Vec<_> = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    imported.sort();
    assert_eq!(names, imported);
    for name in &names {
        let events = |path: &Path| -> Vec<Value> {
            let mut events = rows(&fs::read_to_string(path).unwrap());
            events.retain(|e| e["type"] != "violates");
            events
        };
        assert_eq!(
            events(&ours.join(name)),
            events(&out.join(name)),
            "{name:?}"
        );
    }
}

#[test]
fn rows_follow_turns_and_episodes_in_natural_order() {
    let suite = donnabench_suite(
        "order",
        &[
            ("10", conversation(json!(10), 2)),
            ("2", conversation(json!(2), 1)),
        ],
    );
    let text = ok(&export_traces(suite.to_str().unwrap()));
    let rows = rows(&text);
    let ids: Vec<(i64, i64)> = rows
        .iter()
        .map(|r| {
            (
                r["episode_id"].as_i64().unwrap(),
                r["turn"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(ids, [(2, 1), (2, 2), (10, 1), (10, 2)]);
    assert_eq!(rows[0]["cited_by"], json!(["task-004"]));
    assert_eq!(rows[1]["cited_by"], json!([]));
    assert_eq!(rows[0]["end_reason"], Value::Null);
    assert_eq!(rows[1]["end_reason"], "gave_up");
    assert_eq!(rows[1]["satisfaction"], 2);
    assert_eq!(rows[0]["persona"], "A consultant.");
    assert_eq!(rows[0]["goals"], json!(["send the deck"]));
    assert_eq!(
        rows[0]["tool_calls"],
        r#"[{"name":"contacts_search","args":{"query":"Chris"},"result":{"status":"ok","contacts":[]},"is_error":false}]"#
    );

    // The rows import back, and the imported trace replays against the task citing it.
    let rows_file = suite.join("rows.jsonl");
    fs::write(&rows_file, &text).unwrap();
    let out = suite.join("imported");
    ok(&import_rows(&rows_file, &out));
    let record: Value = serde_json::from_str(&ok(&casec(&[
        "replay",
        "task-004",
        "--trace",
        out.join("2.trace.jsonl").to_str().unwrap(),
        suite.to_str().unwrap(),
    ])))
    .unwrap();
    assert_eq!(record["task_id"], "task-004");
    assert_eq!(record["ending"]["reason"], "gave_up");
    let calls = record["trace"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "call")
        .count();
    assert_eq!(calls, 2);
}

#[test]
fn an_export_refuses_a_conversation_it_cannot_lay_out() {
    let mut unknown_case = conversation(json!(1), 1);
    unknown_case[1]["cited_by"] = json!(["task-999"]);
    let mut no_episode = conversation(json!(2), 1);
    no_episode.remove(0);
    let mut ended_early = conversation(json!(3), 1);
    let end = ended_early.pop().unwrap();
    ended_early.insert(3, end);
    let suite = donnabench_suite(
        "refused",
        &[
            ("1", unknown_case),
            ("2", no_episode),
            ("3", ended_early),
            ("4", conversation(json!(40), 1)),
        ],
    );
    let run = export_traces(suite.to_str().unwrap());
    assert_eq!(run.status.code(), Some(1));
    assert!(run.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&run.stderr);
    for expected in [
        "observed conversation `1`: a turn is cited by `task-999`, which is no case of the suite",
        "observed conversation `2`: an observed conversation begins with an `episode` line",
        "observed conversation `3`: the conversation ends in turn 1, but turn 2 follows",
        "observed conversation `4`: its episode 40 is written `40.trace.jsonl`",
    ] {
        assert!(stderr.contains(expected), "{expected:?} not in {stderr}");
    }
}

#[test]
fn an_import_refuses_rows_that_would_not_round_trip() {
    let suite = donnabench_suite("good", &[("1", conversation(json!(1), 1))]);
    let good = ok(&export_traces(suite.to_str().unwrap()));
    let good = rows(&good);
    let edit = |f: &dyn Fn(&mut Vec<Value>)| {
        let mut rows = good.clone();
        f(&mut rows);
        rows
    };
    let cases: Vec<(&str, Vec<Value>, &str)> = vec![
        (
            "turn",
            edit(&|r| r[1]["turn"] = json!(3)),
            "line 2: expected turn 2",
        ),
        (
            "end",
            edit(&|r| r[0]["end_reason"] = json!("goal_met")),
            "line 2: the conversation ended in turn 1, but this row is turn 2",
        ),
        (
            "calls",
            edit(&|r| r[0]["tool_calls"] = json!([])),
            "line 1: `tool_calls` is not a string holding JSON",
        ),
        (
            "persona",
            edit(&|r| r[1]["persona"] = json!("Someone else.")),
            "line 2: the persona differs from the episode's first row",
        ),
        (
            "id",
            edit(&|r| {
                for row in r.iter_mut() {
                    row["episode_id"] = json!("../up");
                }
            }),
            "line 1: episode id \"../up\" cannot name a file",
        ),
        (
            "apart",
            edit(&|r| {
                let mut other = r[0].clone();
                other["episode_id"] = json!(5);
                r.insert(1, other);
            }),
            "line 3: episode 1 was met before",
        ),
        (
            "missing",
            edit(&|r| {
                for row in r.iter_mut() {
                    row.as_object_mut().unwrap().remove("cited_by");
                }
            }),
            "nearly std.donnabench's `donnabench_traces` export",
        ),
        (
            "reason",
            edit(&|r| r[1]["end_reason"] = json!("bored")),
            "line 2: the conversation's end: `bored` is no end reason",
        ),
    ];
    for (name, rows, expected) in cases {
        let dir = scratch(&format!("refused-{name}"));
        let file = dir.join("rows.jsonl");
        let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
        fs::write(&file, text).unwrap();
        let out = dir.join("out");
        let run = import_rows(&file, &out);
        assert_eq!(run.status.code(), Some(1), "{name}");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(
            stderr.contains(expected),
            "{name}: {expected:?} not in {stderr}"
        );
        assert!(!out.exists(), "{name}: an import that failed wrote {out:?}");
    }
}

/// std.donnabench's `clock_step`: each message of the person after the opening one moves
/// the clock on, and `get_clock` reads the moved clock.
#[test]
fn the_clock_moves_at_each_message_of_the_person() {
    let suite = donnabench_suite("clock", &[]);
    let served = serve_clock_times(&suite);
    assert_eq!(
        served,
        [
            "2026-11-09T10:30:00-05:00",
            "2026-11-09T10:33:00-05:00",
            "2026-11-09T10:36:00-05:00"
        ]
    );
}

/// `get_clock` through `casec serve`, around two messages of the person.
fn serve_clock_times(suite: &Path) -> Vec<String> {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_casec"))
        .args(["serve", suite.to_str().unwrap(), "--case", "task-004"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        // The opening message, as an observed conversation records it: at the case's clock.
        json!({"jsonrpc": "2.0", "id": 7, "method": "sandbox/user", "params": {"content": "Send Chris the deck."}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "get_clock", "arguments": {}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "sandbox/question", "params": {"question": "Which Chris?"}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "get_clock", "arguments": {}}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "sandbox/user", "params": {"content": "Chris Nolan."}}),
        json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "get_clock", "arguments": {}}}),
    ];
    let mut stdin = child.stdin.take().unwrap();
    for request in &requests {
        writeln!(stdin, "{request}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| [2, 4, 6].contains(&r["id"].as_i64().unwrap_or(0)))
        .map(|r| {
            let content = r["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default();
            let result: Value = serde_json::from_str(content).unwrap_or_default();
            result["current_time"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

/// An observed conversation a reviewer labelled (a `violates` line naming the case it
/// grades the conversation as) is a labelled run of `casec calibrate`; a label without
/// a case is refused.
#[test]
fn calibration_uses_the_observed_conversations_a_reviewer_labelled() {
    let mut labelled = conversation(json!(1), 1);
    labelled.push(
        json!({"type": "violates", "case": "task-004", "items": ["N2"],
        "why": "Confirmed by the reviewer: the email promised a meeting."}),
    );
    let suite = donnabench_suite("calibrate", &[("1", labelled)]);
    let always_met = crate::fake_judge::start(|_| (true, "met".into()));
    let calibrate = |suite: &Path| {
        casec(&[
            "calibrate",
            suite.to_str().unwrap(),
            "--endpoint",
            &always_met.url,
            "--model",
            "m",
            "--format",
            "json",
        ])
    };
    let run = calibrate(&suite);
    let report: Value = serde_json::from_str(&ok(&run)).unwrap();
    let observed: Vec<&Value> = report["disagreements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["run"] == "observed-1")
        .collect();
    assert_eq!(observed.len(), 1, "{:#}", report["disagreements"]);
    assert_eq!(observed[0]["item"], "N2");
    assert_eq!(observed[0]["expected_met"], false);

    let mut unnamed = conversation(json!(1), 1);
    unnamed.push(json!({"type": "violates", "items": ["N2"]}));
    let suite = donnabench_suite("calibrate-unnamed", &[("1", unnamed)]);
    let run = calibrate(&suite);
    assert_eq!(run.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&run.stderr).contains("this label names no case"));
}

/// Rows another JSON writer made (keys in another order, a JSON text with spaces and
/// escapes) import, and the traces export the same values.
#[test]
fn rows_from_another_writer_import_as_values() {
    let suite = donnabench_suite("writer", &[("1", conversation(json!(1), 1))]);
    let exported = ok(&export_traces(suite.to_str().unwrap()));
    let other: String = rows(&exported)
        .into_iter()
        .map(|row| {
            let calls: Value = serde_json::from_str(row["tool_calls"].as_str().unwrap()).unwrap();
            let mut reordered = serde_json::Map::new();
            for (key, value) in row.as_object().unwrap().iter().rev() {
                let value = match key.as_str() {
                    "tool_calls" => Value::String(serde_json::to_string_pretty(&calls).unwrap()),
                    _ => value.clone(),
                };
                reordered.insert(key.clone(), value);
            }
            format!("{}\n", Value::Object(reordered))
        })
        .collect();
    assert_ne!(other, exported);
    let file = suite.join("other.jsonl");
    fs::write(&file, other).unwrap();
    let out = suite.join("imported");
    ok(&import_rows(&file, &out));
    assert_eq!(
        rows(&fs::read_to_string(out.join("1.trace.jsonl")).unwrap()),
        conversation(json!(1), 1)
    );
}

/// The keys of std.donnabench's traces export, each with values a row may hold: right
/// and wrong types, a JSON text and a text that is none.
fn any_row() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let value = prop_oneof![
        Just(Value::Null),
        (0i64..4).prop_map(Value::from),
        Just(json!(true)),
        "[a-z0-9./]{0,6}".prop_map(Value::from),
        Just(json!("goal_met")),
        Just(json!([])),
        Just(json!(["task-004"])),
        Just(json!(
            r#"[{"name":"get_clock","args":{},"result":null,"is_error":false}]"#
        )),
        Just(json!(r#"[{"name":1}]"#)),
        Just(json!({"k": [1, null]})),
    ];
    let keys = [
        "episode_id",
        "turn",
        "persona",
        "person_name",
        "goals",
        "user_message",
        "private_thought",
        "tool_calls",
        "assistant_reply",
        "agent_error",
        "end_reason",
        "satisfaction",
        "verdict",
        "cited_by",
    ];
    proptest::collection::vec(value, keys.len()).prop_map(move |values| {
        Value::Object(keys.iter().map(|k| k.to_string()).zip(values).collect())
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Any rows with the export's keys import to traces that export the same rows, or
    /// to located diagnostics; never a panic.
    #[test]
    fn any_rows_import_or_say_why(rows in proptest::collection::vec(any_row(), 1..6)) {
        use casec::source::{Origin, SourceDb};
        let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
        let mut db = SourceDb::new();
        let file = db.add("traces.jsonl", text.as_str(), Origin::User);
        match casec::import::import_lines(&db, file, None, "traces") {
            Ok(files) => proptest::prop_assert!(files.iter().all(|(p, _)| p.ends_with(".trace.jsonl"))),
            Err(diags) => proptest::prop_assert!(diags.iter().all(|d| d.primary_span().is_some())),
        }
    }
}

/// `casec verify` reads the observed conversations too: a turn cited by no case of the
/// suite, or a label naming one, is an error there before any export or calibration.
#[test]
fn verify_reads_the_observed_conversations() {
    let mut wrong = conversation(json!(1), 1);
    wrong[1]["cited_by"] = json!(["task-999"]);
    wrong.push(json!({"type": "violates", "case": "task-44", "items": ["P1"]}));
    let suite = donnabench_suite("verify", &[("1", wrong)]);
    fs::copy(
        root().join("cases/donnabench/clarification/task-004.trace.jsonl"),
        suite.join("task-004.trace.jsonl"),
    )
    .unwrap();
    let run = casec(&["verify", suite.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr);
    for expected in [
        "a turn is cited by `task-999`, which is no case of the suite",
        "this label names `task-44`, which is no case of the suite",
    ] {
        assert!(stderr.contains(expected), "{expected:?} not in {stderr}");
    }
}
