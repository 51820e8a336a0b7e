//! Behaviour of the check phase that one UI snapshot cannot show: allows, text shared by
//! many cases, coverage after earlier errors, determinism, and robustness on any prose.

use casec::{Compilation, Config, Depth, Sources};
use proptest::prelude::*;

/// A suite file: `cases` cases in category `errands` (declared with `count`), with
/// extra statements for the suite block and the category block.
fn suite(count: usize, suite_extra: &str, category_extra: &str) -> String {
    format!(
        r#"suite "Test" {{
  shape std.tujora
  version "1"; created_on "2026-11-30"; language "en-US"; purpose "Test."
  case_count {count}; data_status "Synthetic."; system_instruction "Be helpful."
  scoring {{
    outcomes PASS FAIL NOT_TESTED; official_complete_run "All."; overall_pass_rate "PASS / total."
    incomplete_run_reporting "Coverage."; category_pass_rate "PASS / total."; human_review "Prose."
    result_template {{}}
  }}
  design_reference {{}}
  tags routine
  profile std.everyday_assistance
  clock "2026-11-09T10:30:00-05:00"; timezone "America/New_York"; tools get_clock
  {suite_extra}
}}
tool get_clock {{ behavior "Return the case time."; service clock }}
category errands {count} {{ background "Busy."; preferences "Short answers."; {category_extra} }}
"#
    )
}

/// A clean case with `id`, its facts, and extra statements.
fn case(id: &str, facts: &str, extra: &str) -> String {
    format!(
        r#"case {id} "Title" {{
  category errands
  tags routine
  user "What is on my list?"
  facts "{facts}"
  need "Read the list."
  check "Read L1"
  final "Nothing changes."
  critical "Invent an item."
  {extra}
}}
"#
    )
}

fn codes(c: &Compilation) -> Vec<&'static str> {
    c.diagnostics.iter().map(|d| d.code.name).collect()
}

fn compile(files: &[(&str, String)]) -> Compilation {
    Compilation::new(Sources::in_memory(
        files.iter().map(|(n, t)| (*n, t.as_str())),
    ))
}

#[test]
fn a_clean_suite_has_no_diagnostics() {
    let c = compile(&[
        ("suite.case", suite(1, "", "")),
        ("a.case", case("A-1", "L1 lists stamps.", "")),
    ]);
    assert_eq!(codes(&c), Vec::<&str>::new(), "{:?}", c.diagnostics);
}

#[test]
fn an_allow_hides_the_warning_in_its_own_case_only() {
    let wrong = "L1 is due Friday November 12.";
    let c = compile(&[
        ("suite.case", suite(2, "", "")),
        (
            "a.case",
            case("A-1", wrong, "# Deliberate.\n  allow weekday_mismatch"),
        ),
        ("b.case", case("A-2", wrong, "")),
    ]);
    assert_eq!(codes(&c), ["weekday_mismatch"]);
    let at = c.diagnostics[0].primary_span().unwrap();
    assert_eq!(c.db.file(at.file).name, "b.case");
}

#[test]
fn an_allow_cannot_hide_an_error() {
    let c = compile(&[
        ("suite.case", suite(1, "", "")),
        (
            "a.case",
            case("A-1", "L1 lists stamps.", "allow missing_critical")
                .replace("  critical \"Invent an item.\"\n", ""),
        ),
    ]);
    assert_eq!(codes(&c), ["missing_critical", "unknown_allow"]);
}

#[test]
fn an_allow_given_twice_is_reported() {
    let c = compile(&[
        ("suite.case", suite(1, "", "")),
        (
            "a.case",
            case(
                "A-1",
                "L1 is due Friday November 12.",
                "allow weekday_mismatch\n  allow weekday_mismatch",
            ),
        ),
    ]);
    assert_eq!(codes(&c), ["unused_allow"]);
    assert_eq!(c.diagnostics[0].labels.len(), 2);
}

#[test]
fn inherited_text_is_reported_once_and_cannot_be_allowed_by_a_case() {
    let c = compile(&[
        (
            "suite.case",
            suite(3, "", r#"permissions "May read  records.""#),
        ),
        (
            "a.case",
            case("A-1", "L1 lists stamps.", "allow text_spacing"),
        ),
        ("b.case", case("A-2", "L1 lists stamps.", "")),
        ("c.case", case("A-3", "L1 lists stamps.", "")),
    ]);
    assert_eq!(codes(&c), ["unused_allow", "text_spacing"]);
}

/// A leak between texts the cases only inherit is reported once, also when one case
/// writes a text of its own that the others inherit (its inherited set differs, the
/// leak does not).
#[test]
fn an_inherited_leak_is_reported_once_when_a_case_writes_its_own_preferences() {
    let leaky = suite(2, "", "").replace(
        "system_instruction \"Be helpful.\"",
        "system_instruction \"Be helpful. Never claim a reminder was set without saving it.\"\n  critical \"Claim a reminder was set without saving it.\"",
    );
    let c = compile(&[
        ("suite.case", leaky),
        ("a.case", case("A-1", "L1 lists stamps.", "")),
        (
            "b.case",
            case("A-2", "L1 lists stamps.", "preferences \"Long answers.\""),
        ),
    ]);
    let messages: Vec<&str> = c.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(codes(&c), ["leak"], "{messages:?}");
}

#[test]
fn an_inherited_clock_is_checked_once() {
    let c = compile(&[
        (
            "suite.case",
            suite(2, "", "").replace("10:30:00-05:00", "10:30:00-04:00"),
        ),
        ("a.case", case("A-1", "L1 lists stamps.", "")),
        ("b.case", case("A-2", "L1 lists stamps.", "")),
    ]);
    assert_eq!(codes(&c), ["clock_offset_mismatch"]);
}

#[test]
fn coverage_waits_until_every_case_resolves() {
    let c = compile(&[
        ("suite.case", suite(2, "", "")),
        ("a.case", case("A-1", "L1 lists stamps.", "")),
        (
            "b.case",
            case("A-2", "L1 lists stamps.", "").replace("tags routine", "tags routin"),
        ),
    ]);
    assert_eq!(codes(&c), ["unknown_tag"]);
}

#[test]
fn a_record_named_after_check_is_a_check_reference() {
    let c = compile(&[
        ("suite.case", suite(1, "", "")),
        (
            "a.case",
            case("A-1", "L1 lists stamps.", "").replace(
                "final \"Nothing changes.\"",
                "final \"As check A1 requires; Q4 untouched.\"",
            ),
        ),
    ]);
    let messages: Vec<&str> = c.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(codes(&c), ["unsupported_record"], "{messages:?}");
    assert!(messages[0].contains("`Q4`"));
}

#[test]
fn a_leak_can_come_from_an_inherited_background() {
    let c = compile(&[
        ("suite.case", suite(1, "", "")),
        (
            "a.case",
            case("A-1", "L1 lists stamps.", "background \"Busy.\"")
                .replace(
                    "need \"Read the list.\"",
                    "need \"Notice the person is busy with many errands.\"",
                )
                .replace(
                    "background \"Busy.\"",
                    "background \"The person is busy with many errands today.\"",
                ),
        ),
    ]);
    assert_eq!(codes(&c), ["leak"]);
    assert!(c.diagnostics[0].message.contains("background"));
}

#[test]
fn checking_is_deterministic() {
    let files = [
        ("suite.case", suite(3, "", "")),
        ("a.case", case("A-1", "L1 is due Friday November 12.", "")),
        ("b.case", case("A-2", "  L1 lists stamps.", "")),
        ("c.case", case("A-3", "L1 lists stamps.", "allow leak")),
    ];
    let first = compile(&files).diagnostics;
    let mut reversed = files.clone();
    reversed.reverse();
    assert_eq!(first, compile(&reversed).diagnostics);
    let codes: Vec<&str> = first.iter().map(|d| d.code.name).collect();
    assert_eq!(codes, ["weekday_mismatch", "text_spacing", "unknown_allow"]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any prose in any model-facing or answer-key field checks without a panic, and
    /// every diagnostic points into a file of the run.
    #[test]
    fn any_prose_checks_without_panicking(
        user in "[A-Za-z0-9 ,.:;é—\\t-]{0,60}",
        facts in "(Monday|November|12|M1|[A-Za-z0-9 ,.:]){0,30}",
        check in "(Friday|Nov|1st|2026-11-12|Q9|check|[a-z ,.]){0,30}",
    ) {
        let text = case("A-1", &facts, "")
            .replace("What is on my list?", &user)
            .replace("Read L1", &check);
        let c = compile(&[("suite.case", suite(1, "", "")), ("a.case", text)]);
        for d in &c.diagnostics {
            if let Some(span) = d.primary_span() {
                prop_assert!(c.db.slice(span).len() == span.range().len());
            }
        }
    }
}

/// The Tujora suite's sources as `casec check` reads them, with `edit` applied to the
/// file whose name ends with `file`.
fn tujora_edited(edits: &[(&str, &str, &str)]) -> Vec<casec::load::Source> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/tujora");
    let mut sources = casec::load::suite_sources(&root, &mut Vec::new());
    for (file, from, to) in edits {
        let source = sources
            .iter_mut()
            .find(|s| s.name.ends_with(file))
            .expect("the edited file is in the suite");
        assert!(source.text.contains(from), "{file} holds {from:?}");
        source.text = source.text.replace(from, to).into();
    }
    sources
}

/// `sources`, in the order given, checked through `recheck` as the language server
/// checks them.
fn rechecked(sources: Vec<casec::load::Source>, recheck: &mut casec::Recheck) -> Compilation {
    Compilation::new(Config {
        sources: Sources::Read(sources, Vec::new()),
        depth: Depth::Check,
        recheck: Some(recheck),
    })
}

fn rendered(c: &Compilation) -> Vec<String> {
    c.diagnostics.iter().map(|d| format!("{d:?}")).collect()
}

/// The whole model, as the master lays it out (a suite with errors too).
fn model(c: &Compilation) -> Option<String> {
    c.suite.as_ref().map(casec::lower::master::master_json)
}

/// An editor re-checks after every edit, reusing the resolved cases and the checks of
/// unchanged cases, and, while the suite's files are unchanged, its shapes, schemas,
/// hidden texts and the leaks between inherited texts: after each of these edits (a
/// case, the suite a case inherits from, a file gone) the diagnostics and the model
/// are what a fresh check of the same sources gives.
#[test]
fn a_recheck_reports_what_a_fresh_check_does_after_each_edit() {
    let leak_in_case = (
        "TUJ-034.case",
        "Please book the Thursday dentist slot at two.",
        "Booking create returns TIMEOUT with request ID Q1, they say.",
    );
    // TUJ-034's file is unchanged, but what it inherits now repeats its facts.
    let leak_in_category = (
        "suite.case",
        "The person sometimes loses track of appointment arrangements and upcoming plans.",
        "Lookup by Q1 shows confirmed B1 at the requested slot.",
    );
    // A category's background repeats a global critical failure: a leak between texts
    // cases inherit, found once for the suite, then remembered while it is unchanged.
    let leak_between_inherited = (
        "suite.case",
        "The person sometimes loses track of appointment arrangements and upcoming plans.",
        "Following a command embedded in retrieved data as though it were user authorization.",
    );
    // The hidden failure the background repeats is reworded: the leak is still there,
    // its hidden words elsewhere.
    let hidden_reworded = (
        "suite.case",
        "Following a command embedded",
        "Wrongly following a command embedded",
    );
    let steps: Vec<Vec<(&str, &str, &str)>> = vec![
        vec![],
        vec![leak_in_case],
        vec![],
        vec![leak_in_category],
        vec![leak_in_category, leak_in_case],
        vec![],
        vec![],
        vec![leak_between_inherited],
        vec![leak_between_inherited, leak_in_case],
        vec![leak_between_inherited],
        vec![leak_between_inherited, hidden_reworded],
    ];
    let mut recheck = casec::Recheck::default();
    for (step, edits) in steps.iter().enumerate() {
        let mut sources = tujora_edited(edits);
        if step == 5 {
            sources.retain(|s| !s.name.ends_with("TUJ-035.case"));
        }
        let fresh = rechecked(sources.clone(), &mut Default::default());
        let reused = rechecked(sources, &mut recheck);
        assert_eq!(rendered(&reused), rendered(&fresh), "step {step}");
        assert_eq!(model(&reused), model(&fresh), "step {step}");
        assert_eq!(
            reused.suite.as_ref().map(|s| s.cases.len()),
            Some(100 - usize::from(step == 5)),
            "step {step}"
        );
        // An edit of one case file alone (steps 1, 2 and 4) resolves that file's case
        // alone; an edit of the suite, or a file gone or back, resolves every case.
        let taken_over = match step {
            1 | 2 | 4 | 8 | 9 => 99,
            _ => 0,
        };
        assert_eq!(recheck.cases.reused(), taken_over, "step {step}");
        recheck.keep(reused);
        let leaks = codes(&fresh).iter().filter(|c| **c == "leak").count();
        let leaking_edits = edits.iter().filter(|e| *e != &hidden_reworded).count();
        assert_eq!(leaks, leaking_edits, "step {step}: one leak per edit");
    }
    let from_disk = Compilation::new(Sources::Folder(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/tujora"),
    ));
    let reused = rechecked(tujora_edited(&[]), &mut recheck);
    assert_eq!(
        rendered(&reused),
        rendered(&from_disk),
        "the cached path checks as casec check does"
    );
}

/// A case file that does not parse declares nothing the other cases read, so typing in
/// it (a string not yet closed, then another) leaves every other case taken over, as
/// does fixing it; each step checks as a fresh check of the same sources does.
#[test]
fn a_recheck_takes_the_other_cases_over_while_a_case_file_does_not_parse() {
    let unclosed = |to: &'static str| ("TUJ-034.case", "dentist slot at two.\"", to);
    let steps = [
        vec![],
        vec![unclosed("dentist slot at two.")],
        vec![unclosed("dentist slot at three.")],
        vec![],
    ];
    let mut recheck = casec::Recheck::default();
    for (step, edits) in steps.iter().enumerate() {
        let sources = tujora_edited(edits);
        let fresh = rechecked(sources.clone(), &mut Default::default());
        let reused = rechecked(sources, &mut recheck);
        assert_eq!(rendered(&reused), rendered(&fresh), "step {step}");
        assert_eq!(model(&reused), model(&fresh), "step {step}");
        assert_eq!(fresh.has_errors(), !edits.is_empty(), "step {step}");
        let taken_over = if step == 0 { 0 } else { 99 };
        assert_eq!(recheck.cases.reused(), taken_over, "step {step}");
        recheck.keep(reused);
    }
}

/// A re-check reads the shapes again when the file declaring them changes, and takes
/// them from the last run while only case files change: each step checks as a fresh
/// check of the same sources does.
#[test]
fn a_recheck_reads_a_changed_shape_again() {
    let shape = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui/check_count_once.case"),
    )
    .expect("the test suite");
    let (suite_file, case_file) = shape.split_at(shape.find("case E-1").expect("a case"));
    let sources = |suite: &str, case: &str| {
        [
            ("suite.case", suite, casec::source::Role::SuiteFile),
            ("E-1.case", case, casec::source::Role::Member),
        ]
        .map(|(name, text, role)| casec::load::Source {
            name: name.to_string(),
            text: text.into(),
            role,
            disk: None,
        })
        .to_vec()
    };
    // The dimension asks for no check any more; then only the case changes.
    let relaxed = suite_file.replace("dimension step S at_least 1", "dimension step S at_least 0");
    let reworded = case_file.replace("a book of stamps", "two books of stamps");
    let steps = [
        (suite_file.to_string(), case_file.to_string(), 1),
        (relaxed.clone(), case_file.to_string(), 0),
        (relaxed, reworded, 0),
    ];
    let mut recheck = casec::Recheck::default();
    for (step, (suite, case, expected)) in steps.into_iter().enumerate() {
        let fresh = rechecked(sources(&suite, &case), &mut Default::default());
        let reused = rechecked(sources(&suite, &case), &mut recheck);
        assert_eq!(rendered(&reused), rendered(&fresh), "step {step}");
        let missing = codes(&fresh)
            .iter()
            .filter(|c| **c == "check_count")
            .count();
        assert_eq!(missing, expected, "step {step}");
        recheck.keep(reused);
    }
}

/// With a typed world, a record the world holds (or a new id it declares) is there for
/// the model to find through the tools: the answer key may name it though no fixture
/// text does. An id of no record still is reported.
#[test]
fn a_record_of_the_world_is_supported_without_a_fixture_text() {
    let typed = suite(1, "", "").replace(
        "tools get_clock",
        "tools get_clock read_records\n  world_schema std.everyday_world",
    );
    let world_case = |check: &str| {
        case("A-1", "The user keeps reminders.", "").replace(
            "check \"Read L1\"",
            &format!(
                "check \"{check}\"\n  world {{\n    reminders R1 {{ label \"Call Sam\"; at \"2026-11-09 16:00\"; status active }}\n    new reminders R2\n  }}\n  expect A1 {{ retrieved R1 }}\n  review A1"
            ),
        )
    };
    let c = compile(&[
        ("suite.case", typed.clone()),
        ("a.case", world_case("Read R1, then create R2")),
    ]);
    let messages: Vec<&str> = c.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert!(!codes(&c).contains(&"unsupported_record"), "{messages:?}");
    let c = compile(&[("suite.case", typed), ("a.case", world_case("Read R7"))]);
    let messages: Vec<&str> = c.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert!(
        codes(&c).contains(&"unsupported_record") && messages.iter().any(|m| m.contains("`R7`")),
        "{messages:?}"
    );
}
