//! The `fields` argument of a record-writing tool (Tujora's `write_record`) is a closed
//! object in `casec serve`'s `inputSchema`: its properties are the record fields of the
//! world schema's collections, `additionalProperties` is `false`, and every call of
//! every golden trace and counter-example validates against the tool's schema.

use std::path::{Path, PathBuf};

use casec::lower::tools::input_schema;
use casec::model::tool::ArgType;
use casec::runtime::trace::TraceEvent;
use casec::runtime::trace_files::{self, counter_examples, golden_path, read_counter};
use serde_json::json;

fn tujora() -> casec::Compilation {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("cases/tujora");
    let compilation = casec::Compilation::new(casec::Sources::Folder(&root));
    assert!(!compilation.has_errors(), "{:?}", compilation.diagnostics);
    compilation
}

#[test]
fn fields_are_closed_to_the_schemas_record_fields() {
    let compilation = tujora();
    let suite = compilation.suite.as_ref().unwrap();
    let case = suite
        .cases
        .iter()
        .find(|c| c.id.as_str() == "TUJ-011")
        .unwrap();
    let world = &*case.sandbox.as_ref().unwrap().schema;
    let tool = suite
        .tools
        .iter()
        .find(|t| {
            t.arguments
                .iter()
                .any(|a| matches!(a.ty, ArgType::Fields(_)))
        })
        .expect("a tool with a fields argument");
    let argument = tool
        .arguments
        .iter()
        .find(|a| matches!(a.ty, ArgType::Fields(_)))
        .unwrap();
    let schema = input_schema(tool, Some(world));
    let fields = &schema["properties"][argument.name.as_str()];
    assert_eq!(fields["type"], "object", "{fields}");
    assert_eq!(fields["additionalProperties"], false, "{fields}");
    let properties = fields["properties"].as_object().unwrap();
    for collection in &world.collections {
        for field in &collection.fields {
            assert!(
                properties.contains_key(field.name.as_str()),
                "`{}` of `{}` is not a property: {fields}",
                field.name.as_str(),
                collection.name.as_str()
            );
        }
    }
    assert_eq!(
        properties.len(),
        {
            let mut names: Vec<&str> = world
                .collections
                .iter()
                .flat_map(|c| c.fields.iter().map(|f| f.name.as_str()))
                .collect();
            names.sort_unstable();
            names.dedup();
            names.len()
        },
        "no property that is no field"
    );
    // An invented field is refused by the schema, as the sandbox refuses it.
    let validator = jsonschema::draft202012::new(&schema).expect("the schema compiles");
    let call = json!({"collection": "reminders", "operation": "create",
        "fields": {"label": "x", "at": "2026-11-09T20:00:00-05:00", "status": "active", "colour": "blue"}});
    assert!(!validator.is_valid(&call), "an unknown field is refused");
    // `null` clears an optional field, as the tool's doc says.
    let clear = json!({"collection": "reminders", "operation": "update",
        "record_id_if_existing": "R1", "fields": {"recurrence": null}});
    assert!(validator.is_valid(&clear), "null clears an optional field");
}

/// Each call of every golden trace and counter-example of Tujora follows the schema its
/// tool is listed with.
#[test]
fn every_trace_call_validates_against_its_tools_schema() {
    let mut compilation = tujora();
    let suite = compilation.suite.take().unwrap();
    let mut checked = 0;
    for case in &suite.cases {
        let Some(sandbox) = &case.sandbox else {
            continue;
        };
        let file = PathBuf::from(&compilation.db.file(case.span.file).name);
        let mut traces: Vec<PathBuf> = counter_examples(&file, case.id.as_str())
            .into_iter()
            .map(|(_, path)| path)
            .collect();
        traces.push(golden_path(&file, case.id.as_str()));
        for trace in traces.iter().filter(|p| Path::new(p).is_file()) {
            let (events, _) = read_counter(&mut compilation.db, trace, trace_files::Found::Named)
                .expect("the trace reads");
            for event in events {
                let TraceEvent::Call {
                    tool, arguments, ..
                } = event
                else {
                    continue;
                };
                let Some(declared) = suite.tools.iter().find(|t| t.name.as_str() == tool) else {
                    continue;
                };
                let schema = input_schema(declared, Some(&sandbox.schema));
                let validator = jsonschema::draft202012::new(&schema).unwrap();
                let errors: Vec<String> = validator
                    .iter_errors(&arguments)
                    .map(|e| format!("{e} at {}", e.instance_path))
                    .collect();
                assert!(
                    errors.is_empty(),
                    "{}: `{tool}` {arguments}: {errors:?}",
                    trace.display()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 500, "{checked} calls");
}
