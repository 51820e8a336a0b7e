//! A judge endpoint's answer, whatever it is: reading it never panics, and a verdict
//! read from it is one that reads back the same from its own canonical form.
#![no_main]

use casec::judge::verdict::{from_content, from_response, ItemVerdict};
use libfuzzer_sys::fuzz_target;

fn reads_back(verdict: &ItemVerdict) {
    let canonical = serde_json::json!({ "met": verdict.met, "reason": verdict.reason });
    assert_eq!(from_content(&canonical.to_string()).as_ref(), Ok(verdict));
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(verdict) = from_response(text) {
        reads_back(&verdict);
    }
    if let Ok(verdict) = from_content(text) {
        reads_back(&verdict);
    }
});
