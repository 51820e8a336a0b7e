//! Shared worlds: `world NAME { … }` in suite.case, which a case's world starts from
//! with `from NAME`, writing records again (replaced whole), removing some (`without`)
//! and adding its own; a mistake in a shared world is reported once, not per case.

use casec::diag::codes;
use casec::model::Suite;
use casec::{Compilation, Sources};

const SUITE: &str = r#"suite "Lists" {
  system_prompt "Help with lists."
  clock "2026-11-09T10:30:00-05:00"; timezone "America/New_York"
  unscripted_reply "I do not know."
  tools read_records
  world_schema std.everyday_world
}
world home {
  lists L1 { name "Groceries"; items ["milk"] }
  lists L2 { name "Chores"; items ["laundry"] }
  lists L3 { name "Books"; items ["Dune"] }
}
case A-1 "Read the lists" {
  user "What is on my lists?"
  goal "The lists are read."
  critical "Invent an item."
  world {
    from home
    lists L2 { name "Chores"; items ["dishes"] }
    lists L4 { name "Gifts"; items ["scarf"] }
    without L3
  }
  expect G1 { retrieved L1 L2 L4 }
  forbid F1 { changed L1 }
}
case A-2 "Read the lists again" {
  user "And now?"
  goal "The lists are read."
  critical "Invent an item."
  world { from home }
  expect G1 { retrieved L1 L2 L3 }
  forbid F1 { changed lists }
}
"#;

fn compile(text: &str) -> Compilation {
    Compilation::new(Sources::in_memory([("suite.case", text)]))
}

/// The lists of a case's world: (id, items), in order.
fn lists(suite: &Suite, case: usize) -> Vec<(String, String)> {
    let world = &suite.cases[case].sandbox.as_ref().unwrap().world;
    world
        .records
        .iter()
        .map(|r| {
            let items = r.fields.iter().find(|(n, _)| n.as_str() == "items");
            let items = items
                .map(|(_, v)| v.to_json().to_string())
                .unwrap_or_default();
            (r.id.as_str().to_string(), items)
        })
        .collect()
}

#[test]
fn cases_start_from_the_shared_world_and_change_it_for_themselves() {
    let compilation = compile(SUITE);
    assert!(
        compilation.diagnostics.is_empty(),
        "{:#?}",
        compilation.diagnostics
    );
    let suite = compilation.suite.as_ref().unwrap();
    let ids = |case| {
        lists(suite, case)
            .into_iter()
            .map(|(id, _)| id)
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(0), ["L1", "L2", "L4"]);
    assert_eq!(lists(suite, 0)[1].1, r#"["dishes"]"#);
    assert_eq!(ids(1), ["L1", "L2", "L3"]);
    assert_eq!(lists(suite, 1)[1].1, r#"["laundry"]"#);
}

#[test]
fn a_mistake_in_a_shared_world_is_reported_once() {
    let text = SUITE.replace(
        r#"lists L1 { name "Groceries"; items ["milk"] }"#,
        r#"lists L1 { titel "Groceries"; items ["milk"] }"#,
    );
    let compilation = compile(&text);
    let in_world: Vec<_> = compilation
        .diagnostics
        .iter()
        .filter(|d| d.code == codes::UNKNOWN_RECORD_FIELD)
        .collect();
    // Both cases start from L1: one report however many cases read it.
    assert_eq!(in_world.len(), 1, "{:#?}", compilation.diagnostics);
}

#[test]
fn from_and_without_name_what_the_suite_has() {
    let cases = [
        (
            "from home",
            "from hom",
            codes::UNKNOWN_WORLD,
            "did you mean `home`?",
        ),
        (
            "without L3",
            "without L9",
            codes::UNKNOWN_RECORD,
            "did you mean `L1`?",
        ),
    ];
    for (written, wrong, code, help) in cases {
        let compilation = compile(&SUITE.replacen(written, wrong, 1));
        let found = compilation.diagnostics.iter().find(|d| d.code == code);
        let found = found.unwrap_or_else(|| panic!("{wrong}: {:#?}", compilation.diagnostics));
        assert_eq!(found.help.as_deref(), Some(help), "{wrong}");
    }
    let text = SUITE.replacen("    from home\n", "", 1);
    let compilation = compile(&text);
    assert!(
        compilation
            .diagnostics
            .iter()
            .any(|d| d.message == "`without` removes records of a shared world"),
        "{:#?}",
        compilation.diagnostics
    );
}
