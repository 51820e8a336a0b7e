//! A one-file suite written in a test, compiled once per test module.

use std::sync::OnceLock;

use casec::diag::Diagnostic;
use casec::model::Suite;
use casec::runtime::Runtime;
use casec::{Compilation, Sources};

/// The suite `text` (a `suite.case` of its own) compiles to, made once in `cell`. The
/// text must compile without errors: a test of the sandbox needs a suite that builds.
pub fn compiled_once(cell: &'static OnceLock<Suite>, text: &str) -> &'static Suite {
    cell.get_or_init(|| {
        let compilation = Compilation::new(Sources::in_memory([("suite.case", text)]));
        assert!(!compilation.has_errors(), "{:#?}", compilation.diagnostics);
        compilation.suite.expect("the suite resolves")
    })
}

/// The diagnostics of the one-file suite `text`, which may have errors.
pub fn diagnostics_of(text: &str) -> Vec<Diagnostic> {
    Compilation::new(Sources::in_memory([("suite.case", text)])).diagnostics
}

/// A fresh sandbox of the suite's first case, which must have a world.
pub fn first_case_runtime(suite: &Suite) -> Runtime<'_> {
    let case = &suite.cases[0];
    Runtime::new(suite, case, case.sandbox.as_ref().expect("a world"))
}

/// Asserts that the one-file suite `text` is reported with a diagnostic whose message
/// holds `expected`; `what` names the variant in the failure.
pub fn assert_reported(text: &str, expected: &str, what: &str) {
    let messages: Vec<String> = diagnostics_of(text)
        .into_iter()
        .map(|d| d.message)
        .collect();
    assert!(
        messages.iter().any(|m| m.contains(expected)),
        "{what}: no diagnostic holds {expected:?}: {messages:?}"
    );
}
