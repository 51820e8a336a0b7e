//! `casec replay` on any trace: against each Tujora case with a world (the first byte
//! picks it), parsing never panics and a trace that parses replays to a result record.
#![no_main]

#[path = "common.rs"]
mod common;

use casec::runtime::replay::replay_text;
use casec::runtime::trace;
use casec::source::{Origin, SourceDb};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((pick, text)) = common::pick_and_text(data) else {
        return;
    };
    let mut db = SourceDb::new();
    let file = db.add("trace.jsonl", text, Origin::User);
    let events = match trace::parse(file, text) {
        Ok(events) => events,
        Err(diagnostics) => return common::assert_sound(&diagnostics, &db),
    };
    let suite = common::tujora().suite.as_ref().expect("Tujora resolves");
    let (case, sandbox) = common::tujora_world(pick);
    let record = replay_text(suite, case, sandbox, &events);
    let _: serde_json::Value = serde_json::from_str(&record).expect("a JSON result record");
});
