//! Times in a tool's rules: a schema belongs to no case, so a datetime there is written
//! with its offset (or its zone in brackets) and compared as an instant; a local time
//! is refused with a help that names the forms that work, and only once.

use casec::model::Suite;
use casec::runtime::Runtime;
use casec::{Compilation, Sources};
use serde_json::json;

const SUITE: &str = r#"
suite "Airline" {
  system_prompt "Help the user."
  tags routine
  clock "2026-11-09T10:30:00-05:00"; timezone "America/New_York"
  unscripted_reply "I do not know."
  tools cancel_reservation
  world_schema airline
}

schema airline {
  collection reservations { id_prefix RS; field booked_at datetime; field status enum active cancelled }

  tool cancel_reservation {
    behavior "Cancel a reservation."
    argument reservation ref reservations { doc "The reservation." }
    refuse TOO_LATE "only a reservation booked in the last 24 hours can be cancelled" {
      reservation.booked_at before "2026-11-08T10:30:00-05:00"
    }
    update reservations { record reservation; set status cancelled }
  }
}

category trips 1 {}

case AIR-1 "Cancel my trip" {
  category trips
  tags routine
  user "Cancel RS1."
  facts "RS1 was booked yesterday morning."
  goal "Cancel RS1."
  check "RS1 cancelled"
  check "Nothing else"
  critical "Cancel another."
  world {
    reservations RS1 { booked_at "2026-11-09T08:00:00-05:00"; status active }
    reservations RS2 { booked_at "2026-11-07 09:00"; status active }
  }
  expect A1 { record RS1 { status cancelled } }
  expect A2 { record RS2 { status active } }
  forbid F1 { count reservations at_least 2 { status cancelled } }
  review G1
}
"#;

fn suite() -> &'static Suite {
    static SUITE_MODEL: std::sync::OnceLock<Suite> = std::sync::OnceLock::new();
    crate::support::suite::compiled_once(&SUITE_MODEL, SUITE)
}

#[test]
fn a_refusal_compares_a_datetime_written_with_its_offset() {
    let case = &suite().cases[0];
    let mut rt = Runtime::new(suite(), case, case.sandbox.as_ref().expect("a world"));
    let recent = rt.call("cancel_reservation", &json!({"reservation": "RS1"}));
    assert_eq!(recent["status"], json!("ok"), "{recent}");
    let old = rt.call("cancel_reservation", &json!({"reservation": "RS2"}));
    assert_eq!(old["error"], json!("TOO_LATE"), "{old}");
}

#[test]
fn a_local_time_in_a_tool_rule_is_refused_once_with_the_forms_that_work() {
    let local = SUITE.replace("\"2026-11-08T10:30:00-05:00\"", "\"2026-11-08 10:30\"");
    let compilation = Compilation::new(Sources::in_memory([("suite.case", local.as_str())]));
    let errors: Vec<_> = compilation
        .diagnostics
        .iter()
        .filter(|d| d.severity() == casec::diag::Severity::Error)
        .collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].code.name, "record_field_type");
    let help = errors[0].help.as_deref().unwrap_or_default();
    assert!(help.contains("2026-11-09T10:30:00-05:00"), "{help}");
}
