//! A declared read in order, limited: `order_by FIELD [descending]` and `limit N`, so
//! "the most recent transfer to this IBAN" is a declared tool, not an adapter; a read
//! of one record by its id (`where id ARG`); an update of the one account whatever
//! the call says (`record A1`), leaving a field as it was for an empty value
//! (`unless_empty`).

use std::sync::OnceLock;

use casec::model::Suite;
use serde_json::json;

use crate::support::suite::{assert_reported, compiled_once, first_case_runtime};

const SUITE: &str = r#"suite "Bank" {
  system_prompt "Help with the account."
  clock "2026-11-09T10:30:00-05:00"; timezone "America/New_York"
  unscripted_reply "I do not know."
  tools latest_transfer transfer set_nickname
  world_schema bank_world
}
schema bank_world {
  collection accounts {
    id_prefix A
    field nickname text optional
  }
  collection transactions {
    id_prefix T
    field iban text
    field amount number
    field at datetime optional
  }
  tool latest_transfer {
    behavior "The most recent transfer to an IBAN."
    argument iban text { doc "The IBAN." }
    read transactions {
      where iban iban
      order_by at descending
      limit 1
    }
  }
  tool set_nickname {
    behavior "Name the user's account."
    argument nickname text { doc "The new name." }
    update accounts { record A1; set nickname from nickname unless_empty }
  }
  tool transfer {
    behavior "One transfer, by its id."
    argument transaction id { doc "The transfer's id." }
    read transactions { where id transaction }
  }
}
case K-1 "Last transfer" {
  user "What did I last send to DE02?"
  goal "The assistant reads the latest transfer to DE02."
  check "The transfers to that IBAN add up to 65."
  check "Within a few cents."
  critical "Reports an older transfer."
  world {
    accounts A1 { nickname "main" }
    transactions T1 { iban "DE02"; amount 10; at "2026-11-01 09:00" }
    transactions T2 { iban "DE02"; amount 30; at "2026-11-08 09:00" }
    transactions T3 { iban "FR76"; amount 99; at "2026-11-09 09:00" }
    transactions T4 { iban "DE02"; amount 20; at "2026-11-05 09:00" }
    transactions T5 { iban "DE02"; amount 5 }
  }
  expect G1 { retrieved T2 }
  expect A1 { sum transactions amount 65 { iban "DE02" } }
  expect A2 { sum transactions amount 65.04 within 0.05 { iban "DE02" } }
  forbid F1 { retrieved T1 }
}
"#;

static COMPILED: OnceLock<Suite> = OnceLock::new();

/// The ids of the records a read's result shows, in order.
fn record_ids(result: &serde_json::Value) -> Vec<&str> {
    let records = result["records"].as_array().expect("records");
    records.iter().filter_map(|r| r["id"].as_str()).collect()
}

#[test]
fn the_latest_record_comes_first_and_alone() {
    let suite = compiled_once(&COMPILED, SUITE);
    let mut rt = first_case_runtime(suite);
    let result = rt.call("latest_transfer", &json!({ "iban": "DE02" }));
    let ids = record_ids(&result);
    assert_eq!(ids, ["T2"], "{result}");
    let found = casec::runtime::replay::findings(&rt);
    assert_eq!(found.checks[0].1.as_str(), "pass");
    assert!(found.triggered.is_empty());
}

#[test]
fn ascending_order_puts_records_without_the_field_last() {
    let text = SUITE.replace("order_by at descending\n      limit 1", "order_by at");
    let suite = compiled_once(&ASCENDING, &text);
    let mut rt = first_case_runtime(suite);
    let result = rt.call("latest_transfer", &json!({ "iban": "DE02" }));
    let ids = record_ids(&result);
    assert_eq!(ids, ["T1", "T4", "T2", "T5"], "{result}");
}

static ASCENDING: OnceLock<Suite> = OnceLock::new();

#[test]
fn the_language_server_offers_the_keys_of_declared_effects() {
    let keys = |place: &[&str]| -> Vec<&'static str> {
        let specs = casec::resolve::blocks::block_specs(place, None).expect("a block");
        specs.iter().map(|s| s.key).collect()
    };
    assert_eq!(
        keys(&["schema", "tool", "read"]),
        ["match", "where", "show", "order_by", "limit"]
    );
    assert_eq!(
        keys(&["tool", "update"]),
        ["record", "set", "reason", "show"]
    );
    assert_eq!(
        keys(&["tool", "respond"]),
        ["when", "after", "data", "record"]
    );
}

#[test]
fn order_and_limit_are_checked() {
    let cases = [
        ("limit 1", "limit 0", "`limit` is not a number of records"),
        (
            "order_by at descending",
            "order_by at downwards",
            "`order_by` is not written as expected",
        ),
        ("order_by at descending", "order_by when", "`when`"),
    ];
    for (written, wrong, expected) in cases {
        let text = SUITE.replacen(written, wrong, 1);
        assert_reported(&text, expected, wrong);
    }
}

#[test]
fn a_read_by_id_shows_that_record_alone() {
    let suite = compiled_once(&COMPILED, SUITE);
    let mut rt = first_case_runtime(suite);
    let result = rt.call("transfer", &json!({ "transaction": "T4" }));
    let ids = record_ids(&result);
    assert_eq!(ids, ["T4"], "{result}");
    let text = SUITE.replace("where id transaction", "where id after transaction");
    assert_reported(&text, "`where id` compares a record's id", "the suite");
}

#[test]
fn an_update_may_change_one_fixed_record() {
    let suite = compiled_once(&COMPILED, SUITE);
    let mut rt = first_case_runtime(suite);
    let result = rt.call("set_nickname", &json!({ "nickname": "savings" }));
    assert_eq!(result["updated"][0]["id"], "A1", "{result}");
    assert_eq!(
        result["updated"][0]["fields"]["nickname"], "savings",
        "{result}"
    );
    // An empty name leaves the field as it was (`unless_empty`).
    let result = rt.call("set_nickname", &json!({ "nickname": "" }));
    assert_eq!(
        result["updated"][0]["fields"]["nickname"], "savings",
        "{result}"
    );
    // A word that is neither an argument nor an id of the collection is reported.
    let text = SUITE.replace("record A1;", "record account;");
    assert_reported(&text, "takes no argument `account`", "the suite");
}

#[test]
fn a_sum_adds_up_a_number_field_over_the_matching_records() {
    let suite = compiled_once(&COMPILED, SUITE);
    let rt = first_case_runtime(suite);
    let found = casec::runtime::replay::findings(&rt);
    let status = |id: &str| {
        let (_, s) = found.checks.iter().find(|(c, _)| c == id).unwrap();
        s.as_str().to_string()
    };
    assert_eq!((status("A1"), status("A2")), ("pass".into(), "pass".into()));
    // Another total fails, and says what the records added up to.
    let text = SUITE.replace(
        "sum transactions amount 65 {",
        "sum transactions amount 64 {",
    );
    let suite = compiled_once(&SUM_OFF, &text);
    let found = casec::runtime::replay::findings(&first_case_runtime(suite));
    let miss = found
        .misses
        .iter()
        .find(|m| m.check == "A1")
        .expect("A1 fails");
    assert!(miss.found.contains("adds up to 65"), "{}", miss.found);
    let text = SUITE.replace("sum transactions amount 65 {", "sum transactions iban 65 {");
    assert_reported(&text, "`iban` is not a number to add up", "the suite");
}

static SUM_OFF: OnceLock<Suite> = OnceLock::new();
