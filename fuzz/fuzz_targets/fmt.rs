//! `casec fmt` on any input: formatting never panics, is idempotent, and keeps the
//! tree (the same statements, values and string styles) and every token and comment
//! in its place.
#![no_main]

#[path = "../../tests/support/tree.rs"]
mod tree;

use casec::fmt::format_source;
use casec::source::FileId;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(formatted) = format_source(FileId(0), text) else {
        return;
    };
    let again = format_source(FileId(0), &formatted).expect("formatted text formats");
    assert_eq!(again, formatted, "not idempotent");
    assert_eq!(
        tree::shape(text),
        tree::shape(&formatted),
        "the tree changed"
    );
    assert_eq!(
        tree::tokens(text),
        tree::tokens(&formatted),
        "a token or comment moved"
    );
});
