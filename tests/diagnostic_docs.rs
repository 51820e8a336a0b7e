//! Every diagnostic code is documented in `docs/diagnostics.md` and shown by a UI test.
//!
//! A code's docs entry is a `### `code`` heading under `## Codes` with a failing example
//! (a fenced block) and a **Fix.** paragraph; its UI test is a `tests/ui/*.err` snapshot holding the code
//! on a line of its own, as miette prints it above the message.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use casec::diag::codes;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `code → section text` of every `### `code`` entry in the docs' `## Codes` section.
fn doc_entries() -> Vec<(String, String)> {
    let docs = fs::read_to_string(root().join("docs/diagnostics.md")).expect("docs/diagnostics.md");
    let codes = docs
        .split_once("\n## Codes\n")
        .map_or("", |(_, codes)| codes);
    codes
        .split("\n### `")
        .skip(1)
        .filter_map(|section| {
            let (code, rest) = section.split_once('`')?;
            let body = rest.split("\n## ").next().unwrap_or(rest);
            Some((code.to_string(), body.to_string()))
        })
        .collect()
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

#[test]
fn every_code_has_a_docs_entry_with_an_example_and_a_fix() {
    let entries = doc_entries();
    let mut problems = Vec::new();
    for (code, _) in codes::ALL {
        match entries.iter().find(|(c, _)| c == code) {
            None => problems.push(format!("`{code}` has no entry")),
            Some((_, body)) => {
                if !body.contains("```") {
                    problems.push(format!("`{code}` has no example"));
                }
                if !body.contains("**Fix.**") {
                    problems.push(format!("`{code}` has no fix"));
                }
            }
        }
    }
    for (code, _) in &entries {
        if !codes::ALL.iter().any(|(c, _)| c == code) {
            problems.push(format!("`{code}` is documented but casec has no such code"));
        }
    }
    assert!(problems.is_empty(), "docs/diagnostics.md: {problems:#?}");
}

/// Codes that report a casec bug: no input reaches them, so no UI test can show them.
/// `import_round_trip` is the importer's last line of defence; the round-trip and
/// robustness tests (tests/roundtrip.rs, tests/robustness.rs) assert it never fires.
const INTERNAL: &[&str] = &[codes::IMPORT_ROUND_TRIP];

#[test]
fn every_code_has_a_ui_test() {
    let shown = ui_codes();
    let missing: Vec<&str> = codes::ALL
        .iter()
        .map(|(code, _)| *code)
        .filter(|code| !shown.contains(*code) && !INTERNAL.contains(code))
        .collect();
    assert!(
        missing.is_empty(),
        "codes without a tests/ui snapshot: {missing:?}"
    );
}
