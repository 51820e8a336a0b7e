//! Computed values (docs/expressions.md): arithmetic and aggregates of lists in
//! conditions and in declared effects, and the aggregate assertions `min`, `max`,
//! `first`, `last`, each evaluated by the sandbox and written into its JSON.

use std::sync::OnceLock;

use casec::model::Suite;
use casec::runtime::eval;
use serde_json::json;

use crate::support::suite::{compiled_once, first_case_runtime};

const SUITE: &str = r#"suite "Shop" {
  system_prompt "Help with orders."
  clock "2026-11-09T10:30:00-05:00"; timezone "America/New_York"
  unscripted_reply "I do not know."
  tools refund extend
  world_schema shop_world
}
schema shop_world {
  collection products {
    id_prefix P
    field price number
  }
  collection orders {
    id_prefix O
    field items list ref products
    field paid number
    field refunded number
    field due datetime
    field seats integer
  }
  collection refunds {
    id_prefix RF
    field order ref orders
    field amount number
  }
  tool refund {
    behavior "Refund part of an order."
    argument order ref orders { doc "The order." }
    argument amount number { doc "The amount." }
    argument fee number optional { doc "A fee kept back." }
    refuse BUDGET "refunds are at most 40 in all" {
      amount after "40 - sum(orders.refunded where seats >= 1)"
    }
    refuse TOO_MUCH "more than was paid and not refunded" {
      amount after "order.paid - order.refunded"
    }
    create refunds { set order from order; set amount from amount }
    update orders { record order; set refunded "order.refunded + amount - fee" }
  }
  tool extend {
    behavior "Move an order's due time later."
    argument order ref orders { doc "The order." }
    argument by duration { doc "How much later." }
    update orders { record order; set due "order.due + by"; set seats "order.seats * 2" }
  }
}
case S-1 "Refund" {
  user "Refund O1 partly."
  goal "O1 is refunded."
  world {
    products P1 { price 20 }
    products P2 { price 15.5 }
    orders O1 { items [P1, P2]; paid 35.5; refunded 10; due "2026-11-10 09:00"; seats 2 }
    orders O2 { items [P2]; paid 15.5; refunded 0; due "2026-11-11 09:00"; seats 1 }
  }
  expect G1 {
    count orders 1 { paid "sum(items.price)"; refunded 0 }
    record O1 { items.price contains 15.5; paid "max(items.price) + min(items.price)" }
    max orders paid 35.5
    min orders paid 15.5 { refunded before 1 }
    first orders due O1
    last orders due O2 { seats after 0 }
  }
}
"#;

static COMPILED: OnceLock<Suite> = OnceLock::new();

fn suite() -> &'static Suite {
    compiled_once(&COMPILED, SUITE)
}

#[test]
fn a_refusal_compares_with_a_value_computed_from_the_records_a_call_names() {
    let mut rt = first_case_runtime(suite());
    // 35.5 paid, 10 refunded: at most 25.5 more.
    let over = rt.call("refund", &json!({ "order": "O1", "amount": 26, "fee": 0 }));
    assert_eq!(over["error"], "TOO_MUCH", "{over}");
    let within = rt.call(
        "refund",
        &json!({ "order": "O1", "amount": 25.5, "fee": 0.5 }),
    );
    assert_eq!(within["status"], "ok", "{within}");
    assert_eq!(within["updated"][0]["fields"]["refunded"], json!(35.0));
}

#[test]
fn an_aggregate_over_a_collection_reads_the_records_as_they_are_now() {
    let mut rt = first_case_runtime(suite());
    // 10 refunded so far: 30 left.
    let over = rt.call("refund", &json!({ "order": "O1", "amount": 31, "fee": 0 }));
    assert_eq!(over["error"], "BUDGET", "{over}");
    assert_eq!(
        rt.call("refund", &json!({ "order": "O1", "amount": 25, "fee": 0 }))["status"],
        "ok"
    );
    // 35 refunded: 5 left.
    let over = rt.call("refund", &json!({ "order": "O2", "amount": 6, "fee": 0 }));
    assert_eq!(over["error"], "BUDGET", "{over}");
    assert_eq!(
        rt.call("refund", &json!({ "order": "O2", "amount": 5, "fee": 0 }))["status"],
        "ok"
    );
}

#[test]
fn a_set_that_cannot_be_computed_changes_nothing() {
    let mut rt = first_case_runtime(suite());
    // `fee` left out: `order.refunded + amount - fee` has no value.
    let result = rt.call("refund", &json!({ "order": "O1", "amount": 5 }));
    assert_eq!(result["error"], "INVALID_ARGUMENT", "{result}");
    assert!(
        result["message"]
            .as_str()
            .is_some_and(|m| m.contains("`refunded` cannot be computed")),
        "{result}"
    );
    assert_eq!(
        rt.call("refund", &json!({ "order": "O1", "amount": 5, "fee": 0 }))["status"],
        "ok"
    );
}

#[test]
fn durations_move_datetimes_and_whole_numbers_stay_whole() {
    let mut rt = first_case_runtime(suite());
    let result = rt.call("extend", &json!({ "order": "O1", "by": "PT1H30M" }));
    let fields = &result["updated"][0]["fields"];
    assert_eq!(fields["due"], "2026-11-10T10:30:00-05:00", "{result}");
    assert_eq!(fields["seats"], json!(4), "{result}");
}

#[test]
fn record_conditions_and_aggregates_decide_the_expectation() {
    let suite = suite();
    let rt = first_case_runtime(suite);
    let sandbox = suite.cases[0].sandbox.as_ref().expect("a world");
    for assertion in &sandbox.expectations[0].assertions {
        assert_eq!(eval::miss(assertion, &rt), None, "{assertion:?}");
    }
}

#[test]
fn a_failed_aggregate_says_what_it_found() {
    let suite = suite();
    let mut rt = first_case_runtime(suite);
    // Two days later, O1 is due after O2: the order of `due` turns round.
    rt.call("extend", &json!({ "order": "O1", "by": "2d" }));
    let sandbox = suite.cases[0].sandbox.as_ref().expect("a world");
    let misses: Vec<String> = sandbox.expectations[0]
        .assertions
        .iter()
        .filter_map(|a| eval::miss(a, &rt))
        .collect();
    assert_eq!(
        misses,
        [
            "the first matching record of `orders` by `due` is `O2` (\"2026-11-11T09:00:00-05:00\"), expected `O1`",
            "the last matching record of `orders` by `due` is `O1` (\"2026-11-12T09:00:00-05:00\"), expected `O2`",
        ]
    );
}

#[test]
fn the_sandbox_json_writes_computed_values_as_trees() {
    let suite = suite();
    let tool = casec::lower::tools::tool_json(&suite.tools[0], suite.world_schema.as_deref());
    let text = tool.to_string();
    assert!(
        text.contains(r#""value":{"arith":"-","left":40,"right":{"aggregate":"sum","collection":"orders","field":"refunded","where":[{"path":"seats","compare":">=","value":1}]}}"#),
        "{text}"
    );
    assert!(
        text.contains(r#""value":{"arith":"-","left":{"path":"order.paid"},"right":{"path":"order.refunded"}}"#),
        "{text}"
    );
    assert!(
        text.contains(r#""from":{"computed":{"arith":"-","left":{"arith":"+","left":{"path":"order.refunded"},"right":{"path":"amount"}},"right":{"path":"fee"}}}"#),
        "{text}"
    );
}
