//! A condition may compare two paths of one call (or one record): "bags never fewer
//! than now" is `bags before reservation.bags`, "the new flight differs from the
//! current one" `flight reservation.flight`, declared rather than scripted.

use std::sync::OnceLock;

use casec::model::Suite;
use serde_json::json;

use crate::support::suite::{assert_reported, compiled_once, first_case_runtime};

const SUITE: &str = r#"suite "Airline" {
  system_prompt "Help with reservations."
  clock "2026-11-09T10:30:00-05:00"; timezone "America/New_York"
  unscripted_reply "I do not know."
  tools change_reservation
  world_schema airline_world
}
schema airline_world {
  collection flights {
    id_prefix FL
    field departs datetime
  }
  collection reservations {
    id_prefix R
    field flight ref flights
    field bags integer
  }
  tool change_reservation {
    behavior "Move a reservation to another flight with its bags."
    argument reservation ref reservations { doc "The reservation." }
    argument flight ref flights { doc "The new flight." }
    argument bags integer { doc "How many bags." }
    refuse FEWER_BAGS "bags can be added, never removed" {
      bags before reservation.bags
    }
    refuse SAME_FLIGHT "the new flight is the current one" {
      flight reservation.flight
    }
    update reservations { record reservation; set flight from flight; set bags from bags }
  }
}
case A-1 "Later flight" {
  user "Move R1 to FL2 with three bags."
  goal "R1 is on FL2 with three bags."
  critical "Removes a bag."
  world {
    flights FL1 { departs "2026-11-12 09:00" }
    flights FL2 { departs "2026-11-13 09:00" }
    reservations R1 { flight FL1; bags 2 }
  }
  expect G1 { record R1 { flight FL2; bags 3 } }
  forbid F1 { count reservations 1 { bags before 2 } }
}
"#;

static COMPILED: OnceLock<Suite> = OnceLock::new();

fn change(flight: &str, bags: u32) -> Option<String> {
    let suite = compiled_once(&COMPILED, SUITE);
    let mut rt = first_case_runtime(suite);
    let call = json!({ "reservation": "R1", "flight": flight, "bags": bags });
    rt.call("change_reservation", &call)["error"]
        .as_str()
        .map(str::to_string)
}

#[test]
fn a_refusal_compares_an_argument_with_the_record_it_names() {
    assert_eq!(change("FL2", 1).as_deref(), Some("FEWER_BAGS"));
    assert_eq!(change("FL1", 3).as_deref(), Some("SAME_FLIGHT"));
    assert_eq!(change("FL2", 2), None);
    assert_eq!(change("FL2", 3), None);
}

#[test]
fn two_paths_compare_when_their_types_do() {
    let text = SUITE.replace(
        "bags before reservation.bags",
        "bags before reservation.flight",
    );
    assert_reported(
        &text,
        "`bags` cannot be compared with `reservation.flight` by `before`",
        "the suite",
    );
}

#[test]
fn the_sandbox_json_names_the_other_path() {
    let suite = compiled_once(&COMPILED, SUITE);
    let tool = casec::lower::tools::tool_json(&suite.tools[0], suite.world_schema.as_deref());
    let text = tool.to_string();
    assert!(
        text.contains(r#""value":{"path":"reservation.bags"}"#),
        "{text}"
    );
}
