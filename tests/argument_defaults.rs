//! `default VALUE` on an optional tool argument: a call that leaves it out (or gives
//! `null`) runs, and is recorded, with the default; the input schema shows it; a
//! default must be a value of the argument's type, on an optional argument.

use std::sync::OnceLock;

use casec::model::Suite;
use serde_json::json;

use crate::support::suite::{compiled_once, diagnostics_of, first_case_runtime};

const SUITE: &str = r#"suite "Bags" {
  system_prompt "Help with bags."
  clock "2026-11-09T10:30:00-05:00"; timezone "America/New_York"
  unscripted_reply "I do not know."
  tools add_bags
  world_schema bags_world
}
schema bags_world {
  collection reservations {
    id_prefix R
    field bags integer
    field cabin enum economy business
  }
  tool add_bags {
    behavior "Set the bags and cabin of a reservation."
    argument reservation ref reservations { doc "The reservation." }
    argument bags integer optional {
      doc "How many bags."
      default 1
    }
    argument cabin enum economy business optional {
      doc "The cabin."
      default economy
    }
    update reservations { record reservation; set bags from bags; set cabin from cabin }
  }
}
case B-1 "One bag" {
  user "Add a bag to R1."
  goal "R1 has one bag in economy."
  critical "Moves R1 to business."
  world { reservations R1 { bags 0; cabin business } }
  expect G1 {
    record R1 { bags 1; cabin economy }
    called add_bags { bags 1 }
  }
  forbid F1 { record R1 { cabin business } }
}
"#;

static COMPILED: OnceLock<Suite> = OnceLock::new();

#[test]
fn a_call_that_leaves_an_argument_out_runs_with_its_default() {
    let suite = compiled_once(&COMPILED, SUITE);
    let mut rt = first_case_runtime(suite);
    let result = rt.call("add_bags", &json!({ "reservation": "R1", "cabin": null }));
    assert_eq!(result["status"], "ok", "{result}");
    let found = casec::runtime::replay::findings(&rt);
    assert_eq!(found.checks[0].1.as_str(), "pass", "{:?}", found.misses);
    assert!(found.triggered.is_empty());
}

#[test]
fn the_input_schema_shows_the_defaults() {
    let suite = compiled_once(&COMPILED, SUITE);
    let tool = casec::lower::tools::tool_json(&suite.tools[0], suite.world_schema.as_deref());
    let properties = &tool["input_schema"]["properties"];
    assert_eq!(properties["bags"]["default"], 1, "{tool}");
    assert_eq!(properties["cabin"]["default"], "economy", "{tool}");
    assert!(properties["reservation"].get("default").is_none());
}

#[test]
fn the_language_server_offers_the_keys_of_an_argument_block() {
    for place in [&["tool", "argument"][..], &["schema", "tool", "argument"]] {
        let specs = casec::resolve::blocks::block_specs(place, None).expect("an argument block");
        let keys: Vec<&str> = specs.iter().map(|s| s.key).collect();
        assert_eq!(keys, ["doc", "argument", "default"], "{place:?}");
    }
}

#[test]
fn a_default_is_a_value_of_the_type_on_an_optional_argument() {
    let cases = [
        ("default 1", "default 1.5", "not a whole number"),
        (
            "argument bags integer optional {",
            "argument bags integer {",
            "is required: it has no default",
        ),
        ("default economy", "default first", "first"),
    ];
    for (written, wrong, expected) in cases {
        let text = SUITE.replacen(written, wrong, 1);
        let found: Vec<String> = diagnostics_of(&text)
            .iter()
            .map(|d| {
                format!(
                    "{}: {} {:?}",
                    d.code.name,
                    d.message,
                    d.labels.iter().map(|l| &l.message).collect::<Vec<_>>()
                )
            })
            .collect();
        assert!(
            found.iter().any(|d| d.contains(expected)),
            "{wrong}: {found:?}"
        );
    }
}
