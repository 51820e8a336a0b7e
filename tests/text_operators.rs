//! The text operators: `is` (text exactly as written), `has_word` (whole words, case
//! ignored) and `matches` (a regular expression), against `eq` and `contains`, which
//! fold case and spaces: in expectations, in a declared read's `where` and in a tool's
//! refusal.

use casec::model::{Case, Suite};
use casec::runtime::replay::{findings, run};
use casec::runtime::trace;
use casec::runtime::Runtime;
use casec::source::FileId;
use serde_json::json;

const SUITE: &str = r#"
suite "Text operators" {
  system_prompt "Help the user."
  tags routine
  clock "2026-11-09T10:30:00-05:00"; timezone "America/New_York"
  unscripted_reply "I do not know."
  tools set_password find_orders
  world_schema bank
}

schema bank {
  collection accounts { id_prefix AC; field password text; field note text }
  collection orders { id_prefix OR; field item text }

  tool set_password {
    behavior "Set the account's password."
    argument account ref accounts { doc "The account." }
    argument password text { doc "The new password." }
    refuse WEAK "a password is letters, digits and underscores, at least 8" {
      password not ""
      any { password lacks "_"; password matches "^.{0,7}$" }
    }
    update accounts { record account; set password from password }
  }

  tool find_orders {
    behavior "Find orders naming a word."
    argument word text { doc "One word the item names." }
    read orders { where item has_word word }
  }
}

category security 1 {}

case TX-1 "Change the password" {
  category security
  tags routine
  user "Set my password to NEW_PASSWORD."
  facts "AC1's password is old_password."
  goal "The password is NEW_PASSWORD, exactly."
  check "Exact password"
  check "Note kept"
  check "Pattern"
  critical "Weaken it."
  world {
    accounts AC1 { password "old_password"; note "Pizza! on Fridays" }
    orders OR1 { item "Two pizzas" }
    orders OR2 { item "Pizza, large" }
  }
  expect A1 { record AC1 { password is "NEW_PASSWORD" } }
  expect A2 { record AC1 { note has_word "pizza"; note has_word "on fridays" } }
  expect A3 { record AC1 { password matches "^[A-Z_]{8,}$" } }
  forbid F1 { record AC1 { password is "new_password" } }
  review G1
}
"#;

fn suite() -> &'static Suite {
    static SUITE_MODEL: std::sync::OnceLock<Suite> = std::sync::OnceLock::new();
    crate::support::suite::compiled_once(&SUITE_MODEL, SUITE)
}

fn case() -> &'static Case {
    &suite().cases[0]
}

fn statuses_after_setting(password: &str) -> (Vec<(String, String)>, Vec<String>) {
    let line = json!({"type": "call", "tool": "set_password", "arguments": {"account": "AC1", "password": password}});
    let events = trace::parse(FileId(0), &format!("{line}\n")).expect("the trace parses");
    let sandbox = case().sandbox.as_ref().expect("a world");
    let decided = findings(&run(suite(), case(), sandbox, &events));
    let checks = decided
        .checks
        .iter()
        .map(|(id, s)| (id.clone(), s.as_str().to_string()))
        .collect();
    (checks, decided.triggered)
}

fn status<'a>(checks: &'a [(String, String)], id: &str) -> &'a str {
    checks
        .iter()
        .find(|(c, _)| c == id)
        .map_or("", |(_, s)| s.as_str())
}

#[test]
fn is_compares_the_text_as_written_where_eq_folds_case() {
    let (exact, triggered) = statuses_after_setting("NEW_PASSWORD");
    assert_eq!(status(&exact, "A1"), "pass");
    assert_eq!(status(&exact, "A3"), "pass");
    assert!(triggered.is_empty(), "{triggered:?}");
    let (folded, triggered) = statuses_after_setting("new_password");
    assert_eq!(status(&folded, "A1"), "fail", "`is` tells the case apart");
    assert_eq!(
        status(&folded, "A3"),
        "fail",
        "the pattern asks for capitals"
    );
    assert_eq!(triggered, ["F1"]);
}

#[test]
fn has_word_matches_whole_words_and_phrases_ignoring_case() {
    let (checks, _) = statuses_after_setting("NEW_PASSWORD");
    assert_eq!(status(&checks, "A2"), "pass", "\"Pizza! on Fridays\"");
    let mut rt = Runtime::new(suite(), case(), case().sandbox.as_ref().expect("a world"));
    let found = rt.call("find_orders", &json!({"word": "pizza"}));
    let ids: Vec<&str> = found["records"]
        .as_array()
        .expect("records")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(
        ids,
        ["OR2"],
        "\"Two pizzas\" does not hold the word pizza: {found}"
    );
}

#[test]
fn a_refusal_reads_a_pattern_on_an_argument() {
    let mut rt = Runtime::new(suite(), case(), case().sandbox.as_ref().expect("a world"));
    let short = rt.call(
        "set_password",
        &json!({"account": "AC1", "password": "AB_C"}),
    );
    assert_eq!(short["error"], json!("WEAK"), "{short}");
    let fine = rt.call(
        "set_password",
        &json!({"account": "AC1", "password": "LONGER_ONE"}),
    );
    assert_eq!(fine["status"], json!("ok"), "{fine}");
}

/// `has_number` reads the numbers a text writes, as `reply number` does: a message a
/// tool sends is checked by machine like the reply.
#[test]
fn has_number_reads_the_numbers_a_message_writes() {
    use casec::model::expect::Op;
    use casec::runtime::values::text_holds;
    assert!(text_holds(
        Op::HasNumber,
        "I sent $1,250.00 to Ana.",
        "1250"
    ));
    assert!(text_holds(Op::HasNumber, "Refund of 9.99 EUR", "9.99"));
    assert!(!text_holds(Op::HasNumber, "Refund of 9.99 EUR", "9.9"));
    assert!(!text_holds(Op::HasNumber, "on 2026-11-09", "-11"));
    assert!(!text_holds(Op::HasNumber, "no amount", "0"));
}
