//! `now` in a condition: the case's clock, moved by a duration (`now`, `"now - 24h"`),
//! compared with a datetime by `before` or `after`. A tool's refusal reads each case's
//! own clock, so "cancellable within 24 hours of booking" is declared, not scripted.

use std::sync::OnceLock;

use casec::model::Suite;
use casec::runtime::Runtime;
use serde_json::json;

use crate::support::suite::{assert_reported, compiled_once};

const SUITE: &str = r#"suite "Trips" {
  system_prompt "Help with trips."
  clock "2026-11-09T10:30:00-05:00"; timezone "America/New_York"
  unscripted_reply "I do not know."
  tools cancel_trip
  world_schema trips_world
}
schema trips_world {
  collection reservations {
    id_prefix R
    field booked_at datetime
    field status enum booked cancelled
  }
  tool cancel_trip {
    behavior "Cancel a reservation made less than a day ago."
    argument reservation ref reservations { doc "The reservation." }
    refuse TOO_LATE "only a reservation made in the last 24 hours can be cancelled" {
      reservation.booked_at before "now - 24h"
    }
    update reservations { record reservation; set status cancelled }
  }
}
case C-1 "Recent booking" {
  user "Cancel R1."
  goal "R1 is cancelled."
  critical "Cancels R2."
  world {
    reservations R1 { booked_at "2026-11-08 12:00"; status booked }
    reservations R2 { booked_at "2026-11-07 12:00"; status booked }
  }
  expect G1 { record R1 { status cancelled } }
  forbid F1 { count reservations 1 { status cancelled; booked_at before now } }
}
case C-2 "A day later" {
  clock "2026-11-10T18:00:00-05:00"
  user "Cancel R1."
  goal "R1 is not cancelled: it was booked more than a day ago."
  critical "Cancels R1."
  world {
    reservations R1 { booked_at "2026-11-08 12:00"; status booked }
  }
  expect G1 { record R1 { status booked } }
  forbid F1 { record R1 { status cancelled } }
}
"#;

static COMPILED: OnceLock<Suite> = OnceLock::new();

/// The error of cancelling `id` in case `case` (`None`: it was cancelled).
fn cancel(case: usize, id: &str) -> Option<String> {
    let suite = compiled_once(&COMPILED, SUITE);
    let case = &suite.cases[case];
    let mut rt = Runtime::new(suite, case, case.sandbox.as_ref().unwrap());
    let result = rt.call("cancel_trip", &json!({ "reservation": id }));
    result["error"].as_str().map(str::to_string)
}

#[test]
fn a_refusal_reads_each_case_s_clock() {
    assert_eq!(cancel(0, "R1"), None);
    assert_eq!(cancel(0, "R2").as_deref(), Some("TOO_LATE"));
    // The same booking, a day and a half later.
    assert_eq!(cancel(1, "R1").as_deref(), Some("TOO_LATE"));
}

#[test]
fn the_sandbox_json_writes_now_with_its_offset() {
    let suite = compiled_once(&COMPILED, SUITE);
    let tool = casec::lower::tools::tool_json(&suite.tools[0], suite.world_schema.as_deref());
    let text = tool.to_string();
    assert!(text.contains(r#""value":"now-PT1440M""#), "{text}");
}

#[test]
fn now_is_compared_by_before_or_after_with_a_duration() {
    let cases = [
        (
            "before \"now - 24h\"",
            "\"now - 24h\"",
            "is compared with `before` or `after`",
        ),
        // `now - NAME` is a computed value (docs/expressions.md): NAME must be a path.
        (
            "before \"now - 24h\"",
            "before \"now - tomorrow\"",
            "takes no argument `tomorrow`",
        ),
        (
            "before \"now - 24h\"",
            "before \"now - 24x\"",
            "a duration is written with d, h and m",
        ),
        (
            "before \"now - 24h\"",
            "before \"nowish\"",
            "is not `now` moved by a duration",
        ),
    ];
    for (written, wrong, expected) in cases {
        let text = SUITE.replacen(written, wrong, 1);
        assert_reported(&text, expected, wrong);
    }
}
