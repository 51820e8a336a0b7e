//! What the language server tests share: the fixture suite, documents as a client
//! sends them, and applying the server's text edits the way a client does (its own
//! UTF-16 arithmetic, independent of the server's).

#![allow(dead_code)] // Each test binary uses part of it.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// The fixture suite: `suite.case`, `profiles.case`, `errands/ERR-1.case`, `ERR-2.case`.
pub fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lsp/suite")
}

/// The URI of a file of the fixture suite, percent-encoded as clients send it.
pub fn uri(relative: &str) -> String {
    file_uri(&suite_dir().join(relative))
}

pub fn file_uri(path: &Path) -> String {
    lsp_types::Url::from_file_path(path)
        .expect("an absolute path")
        .to_string()
}

pub fn read(relative: &str) -> String {
    std::fs::read_to_string(suite_dir().join(relative)).expect(relative)
}

/// ERR-1 with a mistake: the category moved onto the user's line, after an em dash
/// and an emoji, and misspelt. `errnds` is at UTF-16 columns 54..60 of line 2 (bytes
/// 58..64, characters 53..59).
pub fn err1_with_mistake() -> String {
    read("errands/ERR-1.case")
        .replace("  category errands\n", "")
        .replace(
            "user \"When can I pick up my parcel?\"",
            "user \"When — 📦 can I pick up my parcel?\"; category errnds",
        )
}

pub fn position(line: u32, character: u32) -> Value {
    json!({ "line": line, "character": character })
}

pub fn range(line: u32, start: u32, end: u32) -> Value {
    json!({ "start": position(line, start), "end": position(line, end) })
}

pub fn at(uri: &str, line: u32, character: u32) -> Value {
    json!({ "textDocument": { "uri": uri }, "position": position(line, character) })
}

pub fn open(uri: &str, text: &str) -> Value {
    json!({ "textDocument": { "uri": uri, "languageId": "case", "version": 1, "text": text } })
}

/// The byte offset of a protocol position, counting UTF-16 units along the line.
fn offset(text: &str, position: &Value) -> usize {
    let line = position["line"].as_u64().expect("line") as usize;
    let character = position["character"].as_u64().expect("character") as usize;
    let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
    let mut units = 0;
    for (i, c) in text[start..].char_indices() {
        if units >= character || c == '\n' {
            return start + i;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// `text` with protocol text edits applied (ranges in the original text).
pub fn apply(text: &str, edits: &Value) -> String {
    let mut edits: Vec<(usize, usize, &str)> = edits
        .as_array()
        .expect("a list of edits")
        .iter()
        .map(|e| {
            let start = offset(text, &e["range"]["start"]);
            let end = offset(text, &e["range"]["end"]);
            (start, end, e["newText"].as_str().expect("newText"))
        })
        .collect();
    edits.sort_by_key(|(start, _, _)| std::cmp::Reverse(*start));
    let mut out = text.to_string();
    for (start, end, new) in edits {
        out.replace_range(start..end, new);
    }
    out
}
