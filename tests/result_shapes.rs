//! What a declared write answers: the record it created or changed, whole, or the fields
//! its `show` names; `respond { data { message "…" } }` adds a message.

use std::sync::OnceLock;

use casec::model::Suite;
use serde_json::json;

use crate::support::suite::{assert_reported, compiled_once, first_case_runtime};

const SUITE: &str = r#"suite "Orders" {
  system_prompt "Help with orders."
  clock "2026-11-09T10:30:00-05:00"; timezone "America/New_York"
  unscripted_reply "I do not know."
  tools cancel_order add_note
  world_schema shop_world
}
schema shop_world {
  collection orders {
    id_prefix O
    field status enum open cancelled
    field secret_margin number
  }
  collection notes {
    id_prefix N
    field order ref orders
    field text text
  }
  tool cancel_order {
    behavior "Cancel an order."
    argument order ref orders { doc "The order." }
    update orders { record order; set status cancelled; show status }
    respond { data { message "The order is cancelled." } }
  }
  tool add_note {
    behavior "Add a note to an order."
    argument order ref orders { doc "The order." }
    argument text text { doc "The note." }
    create notes { set order from order; set text from text }
  }
}
case O-1 "Cancel" {
  user "Cancel O1."
  goal "O1 is cancelled."
  world {
    orders O1 { status open; secret_margin 12.5 }
    new notes N1
  }
  expect G1 { record O1 { status cancelled } }
}
"#;

static COMPILED: OnceLock<Suite> = OnceLock::new();

#[test]
fn show_keeps_the_fields_a_write_answers_with() {
    let suite = compiled_once(&COMPILED, SUITE);
    let mut rt = first_case_runtime(suite);
    let result = rt.call("cancel_order", &json!({ "order": "O1" }));
    assert_eq!(
        result["updated"][0]["fields"],
        json!({ "status": "cancelled" }),
        "{result}"
    );
    assert_eq!(result["message"], "The order is cancelled.", "{result}");
    // Without `show`, the whole record.
    let note = rt.call(
        "add_note",
        &json!({ "order": "O1", "text": "asked by phone" }),
    );
    assert_eq!(
        note["created"][0]["fields"],
        json!({ "order": "O1", "text": "asked by phone" }),
        "{note}"
    );
}

#[test]
fn the_sandbox_json_writes_show_only_when_declared() {
    let suite = compiled_once(&COMPILED, SUITE);
    let schema = suite.world_schema.as_deref();
    let cancel = casec::lower::tools::tool_json(&suite.tools[0], schema).to_string();
    assert!(cancel.contains(r#""show":["status"]"#), "{cancel}");
    let note = casec::lower::tools::tool_json(&suite.tools[1], schema).to_string();
    assert!(!note.contains(r#""show""#), "{note}");
}

#[test]
fn a_delete_shows_nothing_and_show_names_fields() {
    let deleting = SUITE.replace(
        "update orders { record order; set status cancelled; show status }",
        "delete orders { record order; show status }",
    );
    assert_reported(&deleting, "a delete shows no record", "show on a delete");
    let unknown = SUITE.replace("show status }", "show state }");
    assert_reported(&unknown, "orders has no field `state`", "an unknown field");
}
