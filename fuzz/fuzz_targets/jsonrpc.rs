//! `casec serve`'s JSON-RPC on any input: a session of a Tujora case with a world (the
//! first byte picks it) answers every line, in order, with JSON-RPC that parses (or
//! with nothing, for notifications and responses), and its result record stays JSON.
#![no_main]

#[path = "common.rs"]
mod common;

use std::collections::HashMap;

use casec::runtime::serve::Session;
use libfuzzer_sys::fuzz_target;
use serde_json::value::RawValue;
use serde_json::Value as Json;

fuzz_target!(|data: &[u8]| {
    let Some((pick, text)) = common::pick_and_text(data) else {
        return;
    };
    let suite = common::tujora().suite.as_ref().expect("Tujora resolves");
    let (case, sandbox) = common::tujora_world(pick);
    let mut session = Session::new(suite, case, sandbox);
    for line in text.lines() {
        if let Some(answer) = session.handle(line) {
            // Members read as raw JSON: an id is echoed exactly as the client wrote it,
            // which may be a number no double holds (`1e400`), valid JSON all the same.
            type Answer = HashMap<String, Box<RawValue>>;
            let answers: Vec<Answer> = match answer.starts_with('[') {
                true => serde_json::from_str(&answer).expect("a batch answer is JSON"),
                false => vec![serde_json::from_str(&answer).expect("an answer is JSON")],
            };
            for a in &answers {
                assert_eq!(
                    a["jsonrpc"].get(),
                    "\"2.0\"",
                    "a JSON-RPC 2.0 answer: {answer}"
                );
                assert!(
                    a.contains_key("result") != a.contains_key("error"),
                    "a result or an error: {answer}"
                );
            }
        }
    }
    let _: Json = serde_json::from_str(&session.result_record().to_string()).expect("a record");
});
