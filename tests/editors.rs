//! The editor support stays in step with the language: both highlighters know every
//! key the resolver accepts, and the samples they are tested on are valid, canonical
//! suites.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use casec::resolve::blocks::block_specs;
use casec::resolve::keys::{CHECK, FOLLOWUP, OVERRIDE, TOP_LEVEL};
use casec::resolve::stdlib_shapes;
use casec::resolve::tools::TOOL_KEYS;
use casec::source::FileId;
use casec::{Compilation, Sources};

const SAMPLES: &[&str] = &["editors/vscode/sample.case", "editors/vim/sample.case"];
/// Conversation turns are keyed by role; `assistant` is the one no other block uses.
const ROLES: &[&str] = &["assistant"];

fn read(path: &str) -> String {
    fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).expect(path)
}

/// Every key of every block below the top level — the language's own, and each part of
/// the field keys of every stdlib shape — and the conversation roles.
fn field_keys() -> BTreeSet<String> {
    let mut keys: BTreeSet<String> = [TOOL_KEYS, OVERRIDE, FOLLOWUP, CHECK]
        .iter()
        .flat_map(|t| t.iter())
        .map(|s| s.key.to_string())
        .collect();
    for place in [&["suite"][..], &["case"], &["profile"]] {
        let specs = block_specs(place, None).expect("a block of the language");
        keys.extend(specs.iter().map(|s| s.key.to_string()));
    }
    for shape in stdlib_shapes() {
        for field in shape.suite_fields.iter().chain(&shape.case_fields) {
            keys.extend(field.key.as_str().split('.').map(str::to_string));
        }
    }
    keys.extend(ROLES.iter().map(|r| r.to_string()));
    keys
}

/// The check dimensions of every stdlib shape.
fn dimensions() -> BTreeSet<String> {
    stdlib_shapes()
        .iter()
        .flat_map(|s| {
            s.grading
                .dimensions
                .iter()
                .map(|d| d.name.as_str().to_string())
        })
        .collect()
}

/// The alternatives of the innermost group of `text` that holds `word`, the group
/// written as `open` … `close` with alternatives separated by `bar`.
fn alternatives(text: &str, word: &str, open: &str, bar: &str, close: &str) -> BTreeSet<String> {
    let at = text.find(word).expect(word);
    let start = text[..at].rfind(open).expect("group start") + open.len();
    let end = at + text[at..].find(close).expect("group end");
    text[start..end].split(bar).map(str::to_string).collect()
}

#[test]
fn the_textmate_grammar_knows_every_key_dimension_and_declaration() {
    let grammar = read("editors/vscode/syntaxes/case.tmLanguage.json");
    let json: serde_json::Value = serde_json::from_str(&grammar).expect("valid JSON");
    let patterns = json["repository"]["statement-key"]["patterns"].to_string();
    assert_eq!(
        alternatives(&patterns, "official_complete_run", "(", "|", ")"),
        field_keys()
    );
    let values = json["repository"]["values"].to_string();
    assert_eq!(
        alternatives(&values, "execution_and_evidence", "(?:", "|", ")"),
        dimensions()
    );
    let declarations = json["repository"]["declaration"].to_string();
    for spec in TOP_LEVEL {
        assert!(
            declarations.contains(&format!("^\\\\s*({})", spec.key)),
            "{}",
            spec.key
        );
    }
}

#[test]
fn the_vim_syntax_knows_every_key_dimension_and_declaration() {
    let syntax = read("editors/vim/syntax/case.vim");
    // `profile` and `category` have a pattern of their own, for the name that follows.
    let mut keys = alternatives(&syntax, "official_complete_run", "\\%(", "\\|", "\\)");
    keys.extend(alternatives(
        &syntax,
        "profile\\|category",
        "\\%(",
        "\\|",
        "\\)",
    ));
    assert_eq!(keys, field_keys());
    assert_eq!(
        alternatives(&syntax, "execution_and_evidence", "\\%(", "\\|", "\\)"),
        dimensions()
    );
    let top: BTreeSet<String> = TOP_LEVEL.iter().map(|s| s.key.to_string()).collect();
    assert_eq!(
        alternatives(&syntax, "\\|tool\\|", "^\\%(", "\\|", "\\)"),
        top
    );
}

#[test]
fn the_samples_are_canonical_suites_that_compile_cleanly() {
    for path in SAMPLES {
        let text = read(path);
        let formatted = casec::fmt::format_source(FileId(0), &text).ok();
        assert_eq!(
            formatted.as_deref(),
            Some(text.as_str()),
            "{path} is not in canonical form"
        );
        let compilation = Compilation::new(Sources::lone(path, &text));
        assert!(
            compilation.diagnostics.is_empty(),
            "{path}: {:#?}",
            compilation.diagnostics
        );
        assert!(compilation.master_json().is_some(), "{path}");
    }
}

/// The VS Code extension never lets a workspace choose the program it runs: the
/// executable setting is machine-scoped (user or remote settings only) and declared a
/// restricted configuration of Restricted Mode, where the extension is supported.
#[test]
fn the_vscode_executable_is_chosen_by_the_user_never_by_a_workspace() {
    let manifest: serde_json::Value =
        serde_json::from_str(&read("editors/vscode/package.json")).expect("valid JSON");
    let path = &manifest["contributes"]["configuration"]["properties"]["casec.path"];
    assert_eq!(path["scope"], "machine");
    let untrusted = &manifest["capabilities"]["untrustedWorkspaces"];
    assert_eq!(untrusted["supported"], "limited");
    assert!(untrusted["description"].is_string());
    assert_eq!(
        untrusted["restrictedConfigurations"],
        serde_json::json!(["casec.path"])
    );
    // Every other setting is harmless from a workspace: none names a program.
    let properties = manifest["contributes"]["configuration"]["properties"]
        .as_object()
        .expect("settings");
    let names: Vec<&str> = properties.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        ["casec.path", "casec.server.enable", "casec.trace.server"]
    );
}
