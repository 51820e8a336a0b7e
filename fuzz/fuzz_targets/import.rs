//! `casec import` on any input: a master JSON (or not) becomes a suite folder or
//! located diagnostics, and so do JSON Lines (an export's cases, or a `turns` export's
//! rows, which become trace files); an imported suite resolves without a panic.
#![no_main]

#[path = "common.rs"]
mod common;

use casec::source::{Origin, SourceDb};
use casec::{Compilation, Config, Depth, Sources};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut db = SourceDb::new();
    let file = db.add("master.json", text, Origin::User);
    match casec::import::import(&db, file) {
        Ok(files) => {
            let imported = Compilation::new(Config {
                sources: Sources::in_memory(files),
                depth: Depth::Resolve,
                recheck: None,
            });
            common::assert_sound(&imported.diagnostics, &imported.db);
            let _ = imported.master_json();
        }
        Err(diagnostics) => common::assert_sound(&diagnostics, &db),
    }
    if let Err(diagnostics) = casec::import::import_lines(&db, file, None, "lines") {
        common::assert_sound(&diagnostics, &db);
    }
});
