//! The output records that are serde types (a diagnostic line, a `verify` line, the
//! bundle index, a report) against their committed JSON Schemas: the
//! schema schemars derives from each type describes the same objects as the one in
//! `schemas/` (the same properties, the same required ones, the same JSON types of each
//! property, of its array items and of its map values), so a field added to a type, or
//! to a schema, without the other fails here. The committed schemas stay the contract:
//! they say more than a type can (patterns, descriptions, `additionalProperties:
//! false`), which these tests do not compare; the outputs' bytes are the golden tests'.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use casec::diag::record::{DiagnosticRecord, SummaryRecord};
use casec::driver::VerifyRecord;
use casec::lower::bundle::BundleIndex;
use casec::runtime::report::ReportRecord;
use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::Value;

/// An object a schema describes, at a path (`labels[]`, `fix`): its properties with the
/// JSON types each may take (empty: any), and which are required.
#[derive(Debug, Default, PartialEq)]
struct Object {
    properties: BTreeMap<String, BTreeSet<String>>,
    required: BTreeSet<String>,
}

/// The objects of `node` (a schema inside the document `doc`), by path from `at`.
/// References are followed; the alternatives of `oneOf`, `anyOf` and `allOf` describe
/// the same place, so their objects are merged.
fn objects(doc: &Value, node: &Value, at: &str, out: &mut BTreeMap<String, Object>) {
    let node = resolve(doc, node);
    for key in ["oneOf", "anyOf", "allOf"] {
        for alternative in node[key].as_array().into_iter().flatten() {
            objects(doc, alternative, at, out);
        }
    }
    if let Some(properties) = node["properties"].as_object() {
        let object = out.entry(at.to_string()).or_default();
        for (name, property) in properties {
            let types = json_types(doc, property);
            object
                .properties
                .entry(name.clone())
                .or_default()
                .extend(types);
            // The types of its array items and of its map values, as pseudo-properties.
            for (key, suffix) in [("items", "[]"), ("additionalProperties", ".*")] {
                let types: BTreeSet<String> = beneath(doc, property, key)
                    .into_iter()
                    .flat_map(|sub| json_types(doc, sub))
                    .collect();
                if !types.is_empty() {
                    object
                        .properties
                        .entry(format!("{name}{suffix}"))
                        .or_default()
                        .extend(types);
                }
            }
        }
        let values: BTreeSet<String> = beneath(doc, node, "additionalProperties")
            .into_iter()
            .flat_map(|sub| json_types(doc, sub))
            .collect();
        if !values.is_empty() {
            object
                .properties
                .entry("*".into())
                .or_default()
                .extend(values);
        }
        let required = node["required"].as_array().into_iter().flatten();
        object
            .required
            .extend(required.filter_map(Value::as_str).map(str::to_string));
        for (name, property) in properties {
            let path = if at.is_empty() {
                name.clone()
            } else {
                format!("{at}.{name}")
            };
            objects(doc, property, &path, out);
        }
    }
    if let Some(items) = node.get("items") {
        objects(doc, items, &format!("{at}[]"), out);
    }
    if let Some(values) = node.get("additionalProperties").filter(|v| v.is_object()) {
        objects(doc, values, &format!("{at}.*"), out);
    }
}

/// The subschemas under `key` (`items`, `additionalProperties`) of `node` and of its
/// `oneOf`/`anyOf` alternatives (an `Option` is an alternative with `null`).
fn beneath<'a>(doc: &'a Value, node: &'a Value, key: &str) -> Vec<&'a Value> {
    let node = resolve(doc, node);
    let mut out: Vec<&Value> = node
        .get(key)
        .filter(|v| v.is_object())
        .into_iter()
        .collect();
    for alternatives in ["oneOf", "anyOf"] {
        for alternative in node[alternatives].as_array().into_iter().flatten() {
            out.extend(beneath(doc, alternative, key));
        }
    }
    out
}

/// The schema a local `$ref` names, or `node` itself.
fn resolve<'a>(doc: &'a Value, node: &'a Value) -> &'a Value {
    match node["$ref"].as_str().and_then(|r| r.strip_prefix('#')) {
        Some(pointer) => resolve(doc, doc.pointer(pointer).expect("a local reference")),
        None => node,
    }
}

/// The JSON types a schema allows (`type`, or those of its alternatives); empty when it
/// does not say. `integer` counts as `number`, which a schema may write for either.
fn json_types(doc: &Value, node: &Value) -> BTreeSet<String> {
    let node = resolve(doc, node);
    let mut types: BTreeSet<String> = match &node["type"] {
        Value::String(one) => [one.clone()].into(),
        Value::Array(many) => many
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => BTreeSet::new(),
    };
    for key in ["oneOf", "anyOf"] {
        for alternative in node[key].as_array().into_iter().flatten() {
            types.extend(json_types(doc, alternative));
        }
    }
    for value in node["enum"].as_array().into_iter().flatten() {
        types.insert(
            match value {
                Value::String(_) => "string",
                Value::Null => "null",
                _ => "other",
            }
            .to_string(),
        );
    }
    types
        .into_iter()
        .map(|t| if t == "integer" { "number".into() } else { t })
        .collect()
}

fn committed(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("schemas")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).expect("readable")).expect("JSON")
}

/// The objects of `T`'s derived schema, and of the committed schema `name` at `pointer`.
fn both<T: JsonSchema>(
    name: &str,
    pointer: &str,
) -> (BTreeMap<String, Object>, BTreeMap<String, Object>) {
    // What serde writes, not what it would read: a field skipped when absent is
    // optional, an `Option` always written is required and nullable.
    let generator = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    let derived = serde_json::to_value(generator.into_root_schema_for::<T>()).expect("JSON");
    let mut from_type = BTreeMap::new();
    objects(&derived, &derived, "", &mut from_type);
    let doc = committed(name);
    let mut from_file = BTreeMap::new();
    objects(
        &doc,
        doc.pointer(pointer).expect("the pointer names a schema"),
        "",
        &mut from_file,
    );
    (from_type, from_file)
}

fn assert_same<T: JsonSchema>(name: &str, pointer: &str) {
    let (from_type, from_file) = both::<T>(name, pointer);
    assert!(
        !from_type.is_empty(),
        "{name}: the type describes no object"
    );
    let mut differences = Vec::new();
    let from_type: BTreeMap<String, Object> = from_type
        .into_iter()
        .map(|(path, o)| (format!("/{path}"), o))
        .collect();
    let from_file: BTreeMap<String, Object> = from_file
        .into_iter()
        .map(|(path, o)| (format!("/{path}"), o))
        .collect();
    for path in from_type
        .keys()
        .chain(from_file.keys())
        .collect::<BTreeSet<_>>()
    {
        let (t, f) = (from_type.get(path), from_file.get(path));
        let (Some(t), Some(f)) = (t, f) else {
            differences.push(format!(
                "`{path}`: only in the {}",
                if t.is_some() { "type" } else { "file" }
            ));
            continue;
        };
        if t.required != f.required {
            differences.push(format!(
                "`{path}` requires {:?} in the type, {:?} in the file",
                t.required, f.required
            ));
        }
        for property in t
            .properties
            .keys()
            .chain(f.properties.keys())
            .collect::<BTreeSet<_>>()
        {
            match (t.properties.get(property), f.properties.get(property)) {
                (Some(a), Some(b)) if a.is_empty() || b.is_empty() || a == b => {}
                (Some(a), Some(b)) => differences.push(format!(
                    "`{property}` of `{path}`: {a:?} in the type, {b:?} in the file"
                )),
                (a, _) => differences.push(format!(
                    "`{property}` of `{path}`: only in the {}",
                    if a.is_some() { "type" } else { "file" }
                )),
            }
        }
    }
    assert!(
        differences.is_empty(),
        "schemas/{name}{pointer} and the type's derived schema differ:\n{}",
        differences.join("\n")
    );
}

#[test]
fn a_diagnostic_line_is_its_committed_schema() {
    assert_same::<DiagnosticRecord>("diagnostics.schema.json", "/$defs/diagnostic");
    assert_same::<SummaryRecord>("diagnostics.schema.json", "/$defs/summary");
}

#[test]
fn a_verify_line_is_its_committed_schema() {
    assert_same::<VerifyRecord>("verify.schema.json", "");
}

#[test]
fn the_bundle_index_is_its_committed_schema() {
    assert_same::<BundleIndex>("bundle-index.schema.json", "");
}

#[test]
fn a_report_is_its_committed_schema() {
    assert_same::<ReportRecord>("report.schema.json", "");
}

#[test]
fn the_comparison_sees_a_missing_property_a_type_and_a_requirement() {
    let doc: Value = serde_json::json!({
        "type": "object",
        "required": ["a"],
        "properties": {
            "a": { "type": "integer" },
            "list": { "type": "array", "items": { "$ref": "#/$defs/item" } },
            "maybe": { "oneOf": [{ "type": "null" }, { "type": "string" }] }
        },
        "$defs": { "item": { "type": "object", "properties": { "x": { "type": "string" } } } }
    });
    let mut found = BTreeMap::new();
    objects(&doc, &doc, "", &mut found);
    assert_eq!(found.keys().collect::<Vec<_>>(), ["", "list[]"]);
    assert_eq!(found[""].required, BTreeSet::from(["a".to_string()]));
    assert_eq!(
        found[""].properties["a"],
        BTreeSet::from(["number".to_string()])
    );
    assert_eq!(
        found[""].properties["maybe"],
        BTreeSet::from(["null".to_string(), "string".to_string()])
    );
    assert!(found["list[]"].properties.contains_key("x"));
    assert_eq!(
        found[""].properties["list[]"],
        BTreeSet::from(["object".to_string()])
    );
}
