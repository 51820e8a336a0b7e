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
    for code in codes::ALL.iter().map(|c| c.code) {
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
        if codes::declared(code).is_none() {
            problems.push(format!("`{code}` is documented but casec has no such code"));
        }
    }
    assert!(problems.is_empty(), "docs/diagnostics.md: {problems:#?}");
}

/// Codes that report a casec bug: no input reaches them, so no UI test can show them.
/// `import_round_trip` is the importer's last line of defence; the round-trip and
/// robustness tests (tests/roundtrip.rs, tests/robustness.rs) assert it never fires.
const INTERNAL: &[&str] = &[codes::IMPORT_ROUND_TRIP];

/// Codes whose inputs no UI test can hold (a file of more than 256 MiB, a suite of
/// more than 500,000 cases): `tests/limits.rs` shows them from the command line.
const TOO_LARGE_FOR_UI: &[&str] = &[codes::LIMIT];

#[test]
fn every_code_has_a_ui_test() {
    let shown = ui_codes();
    let missing: Vec<&str> = codes::ALL
        .iter()
        .map(|c| c.code)
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
/// its code is declared with; a docs entry opens with **Warning.** or **Warning,
/// allowable.** exactly as declared, and every allowable code is listed under
/// "Allowing a warning".
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
    for (code, body) in doc_entries() {
        let Some(declared) = codes::declared(&code) else {
            continue;
        };
        let says_warning = body.contains("**Warning");
        if says_warning != (declared.severity == casec::diag::Severity::Warning) {
            problems.push(format!(
                "docs: `{code}` is a {} but its entry {} say **Warning…**",
                declared.severity.as_str(),
                if says_warning { "does" } else { "does not" }
            ));
        }
        if body.contains("**Warning, allowable") != declared.allowable {
            problems.push(format!(
                "docs: `{code}` is {}allowable but its entry does not say so",
                if declared.allowable { "" } else { "not " }
            ));
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
