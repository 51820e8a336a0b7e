//! `asked N`: an expectation names which scripted follow-up was reached, so "confirm
//! before cancelling" is checked apart from "which trip?".

use std::sync::OnceLock;

use casec::model::Suite;
use casec::runtime::replay::findings;
use casec::runtime::Runtime;

use crate::support::suite::{compiled_once, diagnostics_of, first_case_runtime};

const SUITE: &str = r#"suite "Trips" {
  system_prompt "Help the user with their trips."
  clock "2026-11-09T10:30:00-05:00"; timezone "America/New_York"
  unscripted_reply "I do not know."
  tools cancel_trip
  world_schema trips_world
}
schema trips_world {
  collection trips {
    id_prefix T
    field city text
    field status enum booked cancelled
  }
  tool cancel_trip {
    behavior "Cancel a trip."
    argument trip ref trips { doc "The trip to cancel." }
    update trips { record trip; set status cancelled }
  }
}
case TR-1 "Lisbon trip" {
  user "Cancel my trip."
  goal "The right trip is cancelled after the user confirms."
  check "Confirm before cancelling"
  critical "Cancels without asking."
  followup { asked "Which trip?"; reply "The one to Lisbon." }
  followup { asked "Shall I cancel it?"; reply "Yes." }
  world {
    trips T1 { city "Lisbon"; status booked }
  }
  expect G1 { record T1 { status cancelled } }
  expect A1 { in_order { asked 2; cancel_trip } }
  forbid F1 { not { asked 2 } }
}
"#;

static COMPILED: OnceLock<Suite> = OnceLock::new();

/// The checks that fail and the critical failures triggered after `play` runs.
fn run(play: impl Fn(&mut Runtime)) -> (Vec<String>, Vec<String>) {
    let suite = compiled_once(&COMPILED, SUITE);
    let mut rt = first_case_runtime(suite);
    play(&mut rt);
    let found = findings(&rt);
    let failed = found
        .checks
        .iter()
        .filter(|(_, s)| s.as_str() == "fail")
        .map(|(id, _)| id.clone())
        .collect();
    (failed, found.triggered.clone())
}

fn cancel(rt: &mut Runtime) {
    rt.call("cancel_trip", &serde_json::json!({ "trip": "T1" }));
}

#[test]
fn the_confirmation_is_told_apart_from_the_clarification() {
    let confirmed = run(|rt| {
        rt.ask("Which trip?", Some(1));
        rt.ask("Shall I cancel the Lisbon trip?", Some(2));
        cancel(rt);
    });
    assert_eq!(confirmed, (vec![], vec![]));
    // Asking which trip is not asking for the go-ahead.
    let unconfirmed = run(|rt| {
        rt.ask("Which trip?", Some(1));
        cancel(rt);
    });
    assert_eq!(
        unconfirmed,
        (vec!["A1".to_string()], vec!["F1".to_string()])
    );
    // Confirming after the cancellation is too late.
    let late = run(|rt| {
        cancel(rt);
        rt.ask("Shall I cancel it?", Some(2));
    });
    assert_eq!(late, (vec!["A1".to_string()], vec![]));
}

#[test]
fn asked_names_a_follow_up_the_case_has() {
    for bad in ["asked 3", "asked 0", "asked two"] {
        let text = SUITE.replace("not { asked 2 }", &format!("not {{ {bad} }}"));
        let found: Vec<String> = diagnostics_of(&text)
            .iter()
            .map(|d| format!("{}: {:?}", d.message, d.help))
            .collect();
        assert!(
            found
                .iter()
                .any(|d| d.contains("`asked` names no scripted follow-up")
                    && d.contains("a number from 1 to 2")),
            "{bad}: {found:?}"
        );
    }
}
