//! The `integer` type: a whole number in a world field or a tool argument (`3.0` is
//! one: numbers compare by value), anything with a fraction refused where it is
//! written, and `{"type": "integer"}` in the tool's input schema.

use std::sync::OnceLock;

use casec::model::Suite;
use serde_json::json;

use crate::support::suite::{compiled_once, diagnostics_of, first_case_runtime};

const SUITE: &str = r#"suite "Bags" {
  system_prompt "Help with bags."
  clock "2026-11-09T10:30:00-05:00"; timezone "America/New_York"
  unscripted_reply "I do not know."
  tools set_bags
  world_schema bags_world
}
schema bags_world {
  collection reservations {
    id_prefix R
    field bags integer
  }
  tool set_bags {
    behavior "Set how many bags a reservation has."
    argument reservation ref reservations { doc "The reservation." }
    argument bags integer { doc "How many bags." }
    update reservations { record reservation; set bags from bags }
  }
}
case B-1 "More bags" {
  user "Add a bag to R1."
  goal "R1 has three bags."
  critical "Removes a bag."
  world { reservations R1 { bags 2 } }
  expect G1 { record R1 { bags 3 } }
  forbid F1 { record R1 { bags 1 } }
}
"#;

static COMPILED: OnceLock<Suite> = OnceLock::new();

#[test]
fn a_call_gives_a_whole_number_or_is_refused() {
    let suite = compiled_once(&COMPILED, SUITE);
    let mut rt = first_case_runtime(suite);
    let refused = rt.call("set_bags", &json!({ "reservation": "R1", "bags": 2.5 }));
    assert_eq!(refused["error"], "INVALID_ARGUMENT", "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("expected a whole number"),
        "{refused}"
    );
    let set = rt.call("set_bags", &json!({ "reservation": "R1", "bags": 3.0 }));
    assert_eq!(set["status"], "ok", "{set}");
    let found = casec::runtime::replay::findings(&rt);
    assert_eq!(found.checks[0].1.as_str(), "pass");
}

#[test]
fn the_input_schema_says_integer() {
    let suite = compiled_once(&COMPILED, SUITE);
    let tool = casec::lower::tools::tool_json(&suite.tools[0], suite.world_schema.as_deref());
    let bags = &tool["input_schema"]["properties"]["bags"];
    assert_eq!(bags["type"], "integer", "{tool}");
}

#[test]
fn a_world_value_with_a_fraction_is_refused() {
    let text = SUITE.replace("reservations R1 { bags 2 }", "reservations R1 { bags 2.5 }");
    let found: Vec<String> = diagnostics_of(&text)
        .iter()
        .map(|d| format!("{} {:?}", d.code.name, d.help))
        .collect();
    assert!(
        found
            .iter()
            .any(|d| d.starts_with("record_field_type") && d.contains("write a whole number")),
        "{found:?}"
    );
}
