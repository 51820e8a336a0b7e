//! Every diagnostic code is documented in `docs/diagnostics.md` and shown by a UI test.
//!
//! A code's docs entry is generated from its declaration in `crates/base/src/diag/codes.rs` (its
//! doc comment, [`codes::Code::docs_entry`]): the page's `## Codes` section past the
//! generated-entries mark must be exactly those entries, with a failing example (a
//! fenced block) and a **Fix.** paragraph each; `UPDATE_GOLDEN=1` rewrites it. A code's
//! UI test is a `tests/ui/*.err` snapshot holding the code on a line of its own, as
//! miette prints it above the message.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use casec::diag::codes;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The line after which docs/diagnostics.md holds the generated entries.
const GENERATED: &str = "<!-- The entries below are generated from the declarations in crates/base/src/diag/codes.rs: edit them there, then run `UPDATE_GOLDEN=1 cargo test --test integration diagnostic_docs`. -->\n";

/// The generated part of docs/diagnostics.md: every code's entry, in declaration order.
fn generated_entries() -> String {
    let entries: Vec<String> = codes::ALL.iter().map(|c| c.docs_entry()).collect();
    entries.join("\n")
}

#[test]
fn the_docs_entries_are_generated_from_the_declarations() {
    let path = root().join("docs/diagnostics.md");
    let docs = fs::read_to_string(&path).expect("docs/diagnostics.md");
    let (written, entries) = docs
        .split_once(GENERATED)
        .expect("docs/diagnostics.md holds the generated-entries mark");
    let expected = format!("\n{}", generated_entries());
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        fs::write(&path, format!("{written}{GENERATED}{expected}")).expect("writable docs");
        return;
    }
    if entries != expected {
        let diff = similar::TextDiff::from_lines(entries, &expected);
        panic!(
            "docs/diagnostics.md is not generated from crates/base/src/diag/codes.rs (rerun with UPDATE_GOLDEN=1):\n{}",
            diff.unified_diff().header("docs/diagnostics.md", "generated")
        );
    }
    assert!(
        written.contains("\n## Codes\n"),
        "the mark is in the Codes section"
    );
}

#[test]
fn every_code_has_a_docs_entry_with_an_example_and_a_fix() {
    let mut problems = Vec::new();
    for code in codes::ALL {
        let entry = code.docs_entry();
        if !entry.contains("```") {
            problems.push(format!("`{code}` has no example"));
        }
        if !entry.contains("**Fix.**") {
            problems.push(format!("`{code}` has no fix"));
        }
    }
    assert!(
        problems.is_empty(),
        "crates/base/src/diag/codes.rs: {problems:#?}"
    );
}

/// Codes shown by the UI snapshots.
fn ui_codes() -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for entry in fs::read_dir(root().join("tests/ui"))
        .expect("tests/ui")
        .flatten()
    {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "err") {
            let text = fs::read_to_string(&path).expect("readable snapshot");
            found.extend(text.lines().map(|l| l.trim().to_string()));
        }
    }
    found
}

/// Codes that report a casec bug: no input reaches them, so no UI test can show them.
/// `import_round_trip` is the importer's last line of defence; the round-trip and
/// robustness tests (tests/roundtrip.rs, tests/robustness.rs) assert it never fires.
const INTERNAL: &[&str] = &[codes::IMPORT_ROUND_TRIP.name];

/// Codes whose inputs no UI test can hold (a file of more than 256 MiB, a suite of
/// more than 500,000 cases): `tests/limits.rs` shows them from the command line.
const TOO_LARGE_FOR_UI: &[&str] = &[codes::LIMIT.name];

#[test]
fn every_code_has_a_ui_test() {
    let shown = ui_codes();
    let missing: Vec<&str> = codes::ALL
        .iter()
        .map(|c| c.name)
        .filter(|code| {
            !shown.contains(*code) && !INTERNAL.contains(code) && !TOO_LARGE_FOR_UI.contains(code)
        })
        .collect();
    assert!(
        missing.is_empty(),
        "codes without a tests/ui snapshot: {missing:?}"
    );
}

/// Every diagnostic of every JSON snapshot (`tests/ui/**/*.diag.jsonl`) has the severity
/// its code is declared with (a snapshot not regenerated since a code changed would
/// not), and every allowable code is listed under "Allowing a warning".
#[test]
fn severities_and_allowable_codes_are_as_declared() {
    let mut problems = Vec::new();
    let mut dirs = vec![root().join("tests/ui")];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).expect("tests/ui") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if !path.to_string_lossy().ends_with(".diag.jsonl") {
                continue;
            }
            for line in fs::read_to_string(&path).expect("snapshot").lines() {
                let d: serde_json::Value = serde_json::from_str(line).expect("JSON line");
                let (Some(code), Some(severity)) = (d["code"].as_str(), d["severity"].as_str())
                else {
                    continue;
                };
                let declared = codes::declared(code).map(|c| c.severity.as_str());
                if declared != Some(severity) {
                    problems.push(format!(
                        "{}: `{code}` is {severity}, declared {declared:?}",
                        path.display()
                    ));
                }
            }
        }
    }
    let docs = fs::read_to_string(root().join("docs/diagnostics.md")).expect("docs");
    let allowing = docs
        .split_once("\n## Allowing a warning\n")
        .and_then(|(_, rest)| rest.split("\n## ").next())
        .unwrap_or_default();
    for code in codes::allowable() {
        if !allowing.contains(&format!("`{code}`")) {
            problems.push(format!(
                "docs: allowable `{code}` is not listed under Allowing a warning"
            ));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}
