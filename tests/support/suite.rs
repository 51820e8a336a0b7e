//! A one-file suite written in a test, compiled once per test module.

use std::sync::OnceLock;

use casec::model::Suite;
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
