//! An adapter program's answer line, whatever it is (`fuzz/data/adapter.case`): the
//! runtime turns it into the call's outcome without a panic, applies its changes all or
//! none, and never lets it write a collection the adapter may not write.
#![no_main]

use std::sync::OnceLock;

use casec::model::Suite;
use casec::runtime::adapter::answer;
use casec::runtime::trust::Trust;
use casec::runtime::Runtime;
use casec::{Compilation, Sources};
use libfuzzer_sys::fuzz_target;

fn suite() -> &'static Suite {
    static SUITE: OnceLock<Suite> = OnceLock::new();
    SUITE.get_or_init(|| {
        let compilation = Compilation::new(Sources::in_memory([(
            "suite.case",
            include_str!("../data/adapter.case"),
        )]));
        assert!(!compilation.has_errors(), "{:#?}", compilation.diagnostics);
        compilation.suite.expect("the suite resolves")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    let suite = suite();
    let case = &suite.cases[0];
    let sandbox = case.sandbox.as_ref().expect("a world");
    let tool = suite
        .tools
        .iter()
        .find(|t| t.name.as_str() == "note_add")
        .expect("note_add");
    let mut rt = Runtime::new(suite, case, sandbox).trusting(Trust::Suite);
    let contacts_before: Vec<_> = rt
        .state
        .in_collection("contacts")
        .map(|r| r.to_json())
        .collect();
    let notes_before: Vec<_> = rt
        .state
        .in_collection("notes")
        .map(|r| r.to_json())
        .collect();
    let outcome = answer(&mut rt, tool, line);
    let contacts_after: Vec<_> = rt
        .state
        .in_collection("contacts")
        .map(|r| r.to_json())
        .collect();
    assert_eq!(
        contacts_before, contacts_after,
        "contacts are read-only to the adapter"
    );
    if outcome.failed() {
        let notes_after: Vec<_> = rt
            .state
            .in_collection("notes")
            .map(|r| r.to_json())
            .collect();
        assert_eq!(notes_before, notes_after, "a failed answer changes nothing");
    }
});
