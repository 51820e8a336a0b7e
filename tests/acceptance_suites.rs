//! Two suites written as a new user would, with declared tools only (no adapter), whose
//! golden traces pass and whose counter-examples are caught by machine: an airline
//! policy in the style of τ²-bench (`tests/suites/airline`) and a banking suite over a
//! shared world (`tests/suites/banking`). Each counter-example is also replayed to show
//! that the rule meant to catch it is the one that did (the refusal the policy writes).

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// `casec verify tests/suites/NAME --format json`: one line per case.
fn verify(name: &str) -> Vec<Value> {
    let output = Command::new(env!("CARGO_BIN_EXE_casec"))
        .args([
            "verify",
            &format!("tests/suites/{name}"),
            "--format",
            "json",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("casec runs");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .filter(|line: &Value| line.get("case_id").is_some())
        .collect()
}

/// Asserts every golden trace passes with no warning, and the counter-examples caught are
/// exactly `expected` (case, label).
fn assert_decided(name: &str, expected: &[(&str, &str)]) {
    let mut caught = Vec::new();
    for case in verify(name) {
        let id = case["case_id"].as_str().unwrap_or_default().to_string();
        assert_eq!(case["golden_outcome"], "pass", "{case}");
        assert_eq!(case["errors"], serde_json::json!([]), "{case}");
        assert_eq!(case["warnings"], serde_json::json!([]), "{case}");
        for counter in case["counter_examples"].as_array().into_iter().flatten() {
            assert_eq!(counter["caught"], true, "{id}: {counter}");
            caught.push((
                id.clone(),
                counter["label"].as_str().unwrap_or_default().to_string(),
            ));
        }
    }
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(c, l)| (c.to_string(), l.to_string()))
        .collect();
    assert_eq!(caught, expected);
}

/// The error codes of the calls a counter-example's replay records, in order.
fn replayed_errors(suite: &str, case: &str, label: &str) -> Vec<Option<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/suites")
        .join(suite);
    let case_file = root.join(format!("cases/{case}.case"));
    let trace = root.join(format!("cases/{case}.counter-{label}.trace.jsonl"));
    let output = Command::new(env!("CARGO_BIN_EXE_casec"))
        .arg("replay")
        .arg(&case_file)
        .arg("--trace")
        .arg(&trace)
        .arg(&root)
        .output()
        .expect("casec runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let record: Value = serde_json::from_slice(&output.stdout).expect("a result record");
    record["trace"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|event| event["type"] == "call")
        .map(|event| event["error"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn the_airline_policy_is_decided_by_machine() {
    assert_decided(
        "airline",
        &[
            ("AIR-1", "refuses"),
            ("AIR-2", "wrong-reservation"),
            ("AIR-3", "dearer-flight"),
            ("AIR-3", "other-users-card"),
            ("AIR-4", "over-cap"),
            ("AIR-5", "tries-anyway"),
            ("AIR-6", "tries"),
        ],
    );
}

#[test]
fn each_airline_rule_refuses_what_it_should() {
    let code = |c: &str| Some(c.to_string());
    // Booked a week ago without insurance: refused; the insured one is cancelled.
    assert_eq!(
        replayed_errors("airline", "AIR-2", "wrong-reservation"),
        [code("NOT_CANCELLABLE"), None]
    );
    // A fare difference of (500 - 300) × 2 = 400 over a balance of 300.
    assert_eq!(
        replayed_errors("airline", "AIR-3", "dearer-flight"),
        [code("INSUFFICIENT_BALANCE")]
    );
    assert_eq!(
        replayed_errors("airline", "AIR-3", "other-users-card"),
        [code("NOT_OWNER")]
    );
    // $400 over the cap of $100 × 3 passengers.
    assert_eq!(
        replayed_errors("airline", "AIR-4", "over-cap"),
        [code("OVER_CAP")]
    );
    assert_eq!(
        replayed_errors("airline", "AIR-5", "tries-anyway"),
        [code("FEWER_BAGS")]
    );
    // Insured, booked this morning, but its flight has flown.
    assert_eq!(
        replayed_errors("airline", "AIR-6", "tries"),
        [code("FLOWN")]
    );
}

#[test]
fn the_daily_limits_aggregate_the_transfers_of_the_last_day() {
    let code = |c: &str| Some(c.to_string());
    assert_eq!(
        replayed_errors("banking", "BANK-1", "whole-amount"),
        [code("DAILY_LIMIT")]
    );
    // Three transfers to one IBAN in a day are let through, the fourth is not.
    assert_eq!(
        replayed_errors("banking", "BANK-2", "four-refunds"),
        [None, None, None, code("TOO_MANY_TODAY")]
    );
}

#[test]
fn the_banking_suite_is_decided_by_machine() {
    assert_decided(
        "banking",
        &[
            ("BANK-1", "whole-amount"),
            ("BANK-2", "four-refunds"),
            ("BANK-2", "wrong-recipient"),
            ("BANK-3", "lower-case"),
            ("BANK-4", "wrong-order"),
        ],
    );
}
