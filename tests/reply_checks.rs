//! Checks on the reply: a task whose answer is in the assistant's final reply (a number,
//! a word, a pattern) is decided by machine, and a miss says what the reply held.

use casec::model::Suite;
use casec::runtime::replay::{findings, run, Findings};
use casec::runtime::trace;
use casec::source::FileId;
use serde_json::json;

const SUITE: &str = r#"
suite "Reply checks" {
  system_prompt "Help the user."
  tags routine
  clock "2026-11-09T10:30:00-05:00"; timezone "America/New_York"
  unscripted_reply "I do not know."
  tools list_transfers
  world_schema bank
}

schema bank {
  collection transfers { id_prefix TR; field iban text; field amount number }
  tool list_transfers {
    behavior "List the transfers."
    read transfers { show iban amount }
  }
}

category questions 1 {}

case RC-1 "Transfer total" {
  category questions
  tags routine
  user "How much did I send to GB29NWBK60161331926819 in all?"
  facts "TR1 and TR2 went to that IBAN: 1,000.00 and 250.50."
  goal "Answer 1,250.50."
  check "The total"
  check "The IBAN named"
  check "No apology"
  critical "A wrong total."
  world {
    transfers TR1 { iban "GB29NWBK60161331926819"; amount 1000 }
    transfers TR2 { iban "GB29NWBK60161331926819"; amount 250.5 }
  }
  expect A1 { reply number 1250.5 within 0.01 }
  expect A2 { reply matches "GB\\d{2}[A-Z]{4}\\d{14}" }
  expect A3 { reply lacks "sorry"; reply has_word "total" }
  forbid F1 { not { reply number 1250.5 within 0.01 } }
  review G1
}
"#;

fn suite() -> &'static Suite {
    static SUITE_MODEL: std::sync::OnceLock<Suite> = std::sync::OnceLock::new();
    crate::support::suite::compiled_once(&SUITE_MODEL, SUITE)
}

fn decide(replies: &[&str]) -> Findings {
    let case = &suite().cases[0];
    let lines: String = replies
        .iter()
        .map(|r| format!("{}\n", json!({"type": "reply", "content": r})))
        .collect();
    let events = trace::parse(FileId(0), &lines).expect("the trace parses");
    findings(&run(
        suite(),
        case,
        case.sandbox.as_ref().expect("a world"),
        &events,
    ))
}

fn status<'a>(findings: &'a Findings, id: &str) -> &'a str {
    findings
        .checks
        .iter()
        .find(|(c, _)| c == id)
        .map_or("", |(_, s)| s.as_str())
}

#[test]
fn a_number_in_the_final_reply_decides_the_check() {
    let right = decide(&["The total sent to GB29NWBK60161331926819 is $1,250.50."]);
    for id in ["A1", "A2", "A3"] {
        assert_eq!(status(&right, id), "pass", "{id}: {:?}", right.misses);
    }
    assert!(right.triggered.is_empty());
    let wrong = decide(&["Sorry, the total sent to GB29NWBK60161331926819 is $1,000."]);
    assert_eq!(status(&wrong, "A1"), "fail");
    assert_eq!(status(&wrong, "A3"), "fail", "it apologises");
    assert_eq!(wrong.triggered, ["F1"]);
    let said: Vec<&str> = wrong.misses.iter().map(|m| m.found.as_str()).collect();
    assert!(
        said.contains(
            &"the final reply holds 29, 60161331926819, 1000, none within 0.01 of 1250.5"
        ),
        "{said:?}"
    );
}

#[test]
fn only_the_final_reply_counts() {
    let changed = decide(&[
        "The total sent to GB29NWBK60161331926819 is $1,250.50.",
        "Anything else?",
    ]);
    assert_eq!(status(&changed, "A1"), "fail");
    let silent = decide(&[]);
    let said: Vec<&str> = silent.misses.iter().map(|m| m.found.as_str()).collect();
    assert!(said.contains(&"the assistant never replied"), "{said:?}");
}
