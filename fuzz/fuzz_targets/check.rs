//! `casec check` on any input: as a file on its own, and as a member file of the
//! Tujora suite. Never a panic or an abort; every diagnostic located and rendered.
#![no_main]

#[path = "common.rs"]
mod common;

use casec::{Compilation, Sources};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let alone = Compilation::new(Sources::lone("input.case", text));
    common::assert_sound(&alone.diagnostics, &alone.db);
    let in_suite = Compilation::new(Sources::in_memory([
        ("suite.case", common::tujora_suite_file()),
        ("member/input.case", text),
    ]));
    common::assert_sound(&in_suite.diagnostics, &in_suite.db);
    if let Some(Err(stopped)) = in_suite.bundles() {
        common::assert_sound(&stopped, &in_suite.db);
    }
    let _ = in_suite.master_json();
});
