//! JSON values written as block-style YAML, for export files such as `task.yaml`.
//!
//! Only writing is needed, and only of JSON values, so no YAML library: every string is
//! a double-quoted scalar with JSON's escapes (which YAML's double-quoted style shares),
//! every key too, so no value is ever read back as another type (`no`, `1.0`, `~`).
//! Objects and arrays are block collections; empty ones are `{}` and `[]`.

use serde_json::Value as Json;

/// The YAML document of `value`, ending in a newline.
pub fn to_yaml(value: &Json) -> String {
    let mut out = String::new();
    match value {
        Json::Object(m) if !m.is_empty() => mapping(value, 0, &mut out),
        Json::Array(a) if !a.is_empty() => sequence(value, 0, &mut out),
        scalar => {
            out.push_str(&inline(scalar));
            out.push('\n');
        }
    }
    out
}

fn inline(value: &Json) -> String {
    match value {
        Json::Object(m) if m.is_empty() => "{}".into(),
        Json::Array(a) if a.is_empty() => "[]".into(),
        // Strings, numbers, booleans and null are valid YAML flow scalars as JSON
        // writes them.
        other => other.to_string(),
    }
}

fn is_block(value: &Json) -> bool {
    matches!(value, Json::Object(m) if !m.is_empty())
        || matches!(value, Json::Array(a) if !a.is_empty())
}

fn mapping(value: &Json, indent: usize, out: &mut String) {
    let Json::Object(m) = value else { return };
    for (key, item) in m {
        out.push_str(&"  ".repeat(indent));
        out.push_str(&Json::String(key.clone()).to_string());
        out.push(':');
        item_after_marker(item, indent, out);
    }
}

fn sequence(value: &Json, indent: usize, out: &mut String) {
    let Json::Array(items) = value else { return };
    for item in items {
        out.push_str(&"  ".repeat(indent));
        out.push('-');
        item_after_marker(item, indent, out);
    }
}

/// What follows a key's `:` or an item's `-`: a nested block on the next lines, or an
/// inline value on the same line.
fn item_after_marker(item: &Json, indent: usize, out: &mut String) {
    if is_block(item) {
        out.push('\n');
        block(item, indent + 1, out);
    } else {
        out.push(' ');
        out.push_str(&inline(item));
        out.push('\n');
    }
}

fn block(value: &Json, indent: usize, out: &mut String) {
    match value {
        Json::Object(_) => mapping(value, indent, out),
        _ => sequence(value, indent, out),
    }
}

#[cfg(test)]
mod tests {
    use super::to_yaml;
    use serde_json::json;

    #[test]
    fn strings_are_quoted_and_collections_are_blocks() {
        let value = json!({
            "id": "task-1",
            "steps": 20,
            "tags": ["no", "1.0"],
            "env": { "network": true, "notes": "line\nbreak" },
            "empty": [],
        });
        assert_eq!(
            to_yaml(&value),
            "\"id\": \"task-1\"\n\"steps\": 20\n\"tags\":\n  - \"no\"\n  - \"1.0\"\n\"env\":\n  \"network\": true\n  \"notes\": \"line\\nbreak\"\n\"empty\": []\n"
        );
    }
}
