//! Why a check failed: every assertion that does not hold says what the run left
//! instead (in `Findings::misses` and the result record's `failed_assertions`), and
//! numbers compare by value, so setting `1100` over a stored `1100.0` changes nothing.

use casec::model::Suite;
use casec::runtime::replay::{findings, result_record, run, Findings};
use casec::runtime::trace;
use casec::source::FileId;
use serde_json::json;

const SUITE: &str = r#"
suite "Why checks fail" {
  system_prompt "Help the user."
  tags routine
  clock "2026-11-09T10:30:00-05:00"; timezone "America/New_York"
  unscripted_reply "I do not know."
  tools set_monthly list_subscriptions
  world_schema billing
}

schema billing {
  request_prefix Q
  collection subscriptions { id_prefix SB; field service text; field monthly number; field status enum active cancelled }

  tool set_monthly {
    behavior "Set a subscription's monthly price."
    argument subscription ref subscriptions { doc "The subscription." }
    argument monthly number { doc "The new monthly price." }
    update subscriptions {
      record subscription
      set monthly from monthly
    }
  }

  tool list_subscriptions {
    behavior "List the subscriptions."
    read subscriptions { show service monthly status }
  }
}

category billing 1 {}

case W-1 "Keep the price" {
  category billing
  tags routine
  user "Make sure my gym price stays 1100."
  facts "SB1 gym costs 1100.0 a month."
  goal "Leave the price as it is."
  check "Nothing changes"
  check "The subscription is cancelled"
  check "Two subscriptions"
  critical "Change the price."
  world {
    subscriptions SB1 { service "gym"; monthly 1100.0; status active }
  }
  expect A1 { unchanged }
  expect A2 { record SB1 { status cancelled; monthly 1100 } }
  expect A3 { count subscriptions 2; called list_subscriptions at_least 1 }
  forbid F1 { changed subscriptions }
  review G1
}
"#;

fn suite() -> &'static Suite {
    static SUITE_MODEL: std::sync::OnceLock<Suite> = std::sync::OnceLock::new();
    crate::support::suite::compiled_once(&SUITE_MODEL, SUITE)
}

/// The findings of a run of W-1 that sets the monthly price to `monthly`.
fn decide_setting(monthly: &str) -> (Findings, serde_json::Value) {
    let suite = suite();
    let case = &suite.cases[0];
    let sandbox = case.sandbox.as_ref().expect("a world");
    let line = format!(
        "{{\"type\": \"call\", \"tool\": \"set_monthly\", \"arguments\": {{\"subscription\": \"SB1\", \"monthly\": {monthly}}}}}\n"
    );
    let events = trace::parse(FileId(0), &line).expect("the trace parses");
    let rt = run(suite, case, sandbox, &events);
    let decided = findings(&rt);
    let record = result_record(suite, &rt, &decided);
    (decided, record)
}

fn found(findings: &Findings, check: &str) -> Vec<String> {
    findings
        .misses
        .iter()
        .filter(|m| m.check == check)
        .map(|m| m.found.clone())
        .collect()
}

#[test]
fn the_same_number_written_without_a_decimal_is_no_change() {
    let (decided, _) = decide_setting("1100");
    assert_eq!(found(&decided, "A1"), Vec::<String>::new());
    assert!(decided.triggered.is_empty(), "{:?}", decided.triggered);
    let statuses: Vec<(&str, &str)> = decided
        .checks
        .iter()
        .map(|(id, s)| (id.as_str(), s.as_str()))
        .collect();
    assert!(statuses.contains(&("A1", "pass")), "{statuses:?}");
}

#[test]
fn each_failed_assertion_says_what_the_run_left() {
    let (decided, _) = decide_setting("900");
    assert_eq!(
        found(&decided, "A1"),
        ["record `SB1` changed: `monthly` was 1100.0, is 900"]
    );
    assert_eq!(
        found(&decided, "A2"),
        ["record `SB1`: `status` is \"active\", expected status \"cancelled\""]
    );
    assert_eq!(
        found(&decided, "A3"),
        [
            "1 matching records of `subscriptions`, expected exactly 2",
            "0 matching calls of `list_subscriptions`, expected at_least 1",
        ]
    );
    assert_eq!(decided.triggered, ["F1"]);
    assert!(
        decided.misses.iter().all(|m| m.check != "F1"),
        "critical failures that fire are not misses"
    );
}

#[test]
fn the_result_record_carries_each_miss_with_its_assertion() {
    let (_, record) = decide_setting("900");
    let misses = record["failed_assertions"].as_array().expect("a list");
    assert_eq!(misses.len(), 4, "{misses:?}");
    assert_eq!(
        misses[1],
        json!({
            "check": "A2",
            "assertion": {
                "kind": "record",
                "record": "SB1",
                "where": [
                    { "path": "status", "op": "eq", "value": "cancelled" },
                    { "path": "monthly", "op": "eq", "value": 1100 },
                ],
            },
            "found": "record `SB1`: `status` is \"active\", expected status \"cancelled\"",
        })
    );
    let (_, passing) = decide_setting("1100");
    assert_eq!(
        passing["failed_assertions"].as_array().map(Vec::len),
        Some(3)
    );
}
