//! What outputs say about a tool: the prose contract's argument list, and the JSON
//! Schema of a call's arguments (MCP `inputSchema`, bundle contracts), both derived
//! from the tool's one typed declaration.

use serde_json::{json, Map, Value as Json};

use crate::model::tool::{ArgType, Argument, Binding, FileOp, Service, Tool};
use crate::model::world::{FieldType, WorldSchema};
use crate::model::Name;

/// The contract strings of a tool's arguments, as a prose contract lists them: the
/// name, and for an enum its values after a colon (`operation:create|update`).
pub fn argument_list(tool: &Tool) -> Vec<String> {
    tool.arguments
        .iter()
        .map(|a| match &a.ty {
            ArgType::Field(FieldType::Enum(values)) => {
                format!("{}:{}", a.name.as_str(), values.join("|"))
            }
            _ => a.name.as_str().to_string(),
        })
        .collect()
}

/// The JSON Schema of a call's arguments: an object with a property per argument
/// (typed, described by its doc), `required` listing the required ones, and no other
/// properties allowed. Record references carry the pattern of their ids.
pub fn input_schema(tool: &Tool, schema: Option<&WorldSchema>) -> Json {
    object_schema(&tool.arguments, schema)
}

fn object_schema(arguments: &[Argument], schema: Option<&WorldSchema>) -> Json {
    let properties: Map<String, Json> = arguments
        .iter()
        .map(|a| {
            let mut property = argument_schema(&a.ty, schema);
            if let (Some(doc), Json::Object(m)) = (&a.doc, &mut property) {
                m.insert("description".into(), json!(doc.as_str()));
            }
            (a.name.as_str().to_string(), property)
        })
        .collect();
    let required: Vec<&str> = arguments
        .iter()
        .filter(|a| a.required)
        .map(|a| a.name.as_str())
        .collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

fn argument_schema(ty: &ArgType, schema: Option<&WorldSchema>) -> Json {
    match ty {
        ArgType::Field(field) => field_schema(field, schema),
        ArgType::Collection => {
            let names: Vec<&str> = schema
                .map(|s| s.collections.iter().map(|c| c.name.as_str()).collect())
                .unwrap_or_default();
            json!({ "type": "string", "enum": names })
        }
        ArgType::Id => match schema.map(all_prefixes) {
            Some(prefixes) if !prefixes.is_empty() => {
                json!({ "type": "string", "pattern": id_pattern(&prefixes) })
            }
            _ => json!({ "type": "string" }),
        },
        ArgType::Fields(of) => json!({
            "type": "object",
            "description": format!("the fields of a record of the collection `{of}` names"),
        }),
        ArgType::Object(members) => object_schema(members, schema),
    }
}

fn field_schema(ty: &FieldType, schema: Option<&WorldSchema>) -> Json {
    match ty {
        FieldType::Text => json!({ "type": "string" }),
        FieldType::Date => json!({ "type": "string", "description": "a date: YYYY-MM-DD" }),
        FieldType::Time => json!({ "type": "string", "description": "a time: HH:MM, 24-hour" }),
        FieldType::DateTime => json!({
            "type": "string",
            "description": "a date and time: RFC 3339 with offset, or YYYY-MM-DD HH:MM local to the case",
        }),
        FieldType::Duration => {
            json!({ "type": "string", "description": "a duration: ISO 8601 (PT30M) or 30m, 1h30m" })
        }
        FieldType::Recurrence => json!({
            "type": "string",
            "description": "a recurrence: an RRULE, or daily, weekdays, \"weekly tuesday\", \"monthly 15\"",
        }),
        FieldType::Bool => json!({ "type": "boolean" }),
        FieldType::Number => json!({ "type": "number" }),
        FieldType::Enum(values) => json!({ "type": "string", "enum": values }),
        FieldType::Ref(targets) => {
            let prefixes: Vec<&str> = schema
                .map(|s| {
                    targets
                        .iter()
                        .filter_map(|t| s.collection(t))
                        .map(|c| c.id_prefix.as_str())
                        .collect()
                })
                .unwrap_or_default();
            match prefixes.is_empty() {
                true => json!({ "type": "string" }),
                false => json!({ "type": "string", "pattern": id_pattern(&prefixes) }),
            }
        }
        FieldType::List(item) => json!({ "type": "array", "items": field_schema(item, schema) }),
    }
}

/// Every id prefix of a schema, records and requests, without repeats, sorted.
fn all_prefixes(schema: &WorldSchema) -> Vec<&str> {
    let mut prefixes: Vec<&str> = schema
        .collections
        .iter()
        .map(|c| c.id_prefix.as_str())
        .chain(schema.request_prefix.as_ref().map(|p| p.as_str()))
        .collect();
    prefixes.sort_unstable();
    prefixes.dedup();
    prefixes
}

/// `^(A|B)[0-9]+$`: ids of collections with these prefixes.
fn id_pattern(prefixes: &[&str]) -> String {
    let mut sorted = prefixes.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    format!("^({})[0-9]+$", sorted.join("|"))
}

/// A tool as the sandbox file describes it: its contract, typed arguments, the JSON
/// Schema of its calls, and how the sandbox runs them.
pub fn tool_json(tool: &Tool, schema: Option<&WorldSchema>) -> Json {
    json!({
        "name": tool.name.as_str(),
        "behavior": tool.behavior.as_str(),
        "arguments": tool.arguments.iter().map(argument_json).collect::<Vec<_>>(),
        "input_schema": input_schema(tool, schema),
        "binding": binding_json(&tool.binding),
    })
}

fn argument_json(argument: &Argument) -> Json {
    json!({
        "name": argument.name.as_str(),
        "type": arg_type_json(&argument.ty),
        "required": argument.required,
        "doc": argument.doc.as_ref().map(|d| d.as_str()),
    })
}

fn arg_type_json(ty: &ArgType) -> Json {
    match ty {
        ArgType::Field(field) => super::sandbox::field_type(field),
        ArgType::Collection => json!({ "kind": "collection" }),
        ArgType::Id => json!({ "kind": "id" }),
        ArgType::Fields(of) => json!({ "kind": "fields", "of": of }),
        ArgType::Object(members) => json!({
            "kind": "object",
            "members": members.iter().map(argument_json).collect::<Vec<_>>(),
        }),
    }
}

fn binding_json(binding: &Binding) -> Json {
    match binding {
        Binding::Service(service) => service_json(service),
        Binding::Declared(behavior) => {
            json!({ "declared": super::sandbox::behavior_json(behavior) })
        }
        Binding::Adapter(adapter) => json!({
            "adapter": adapter.command.iter().map(|c| c.as_str()).collect::<Vec<_>>(),
            "reads": adapter.reads.as_ref().map(|r| r.iter().map(|c| c.as_str()).collect::<Vec<_>>()),
            "writes": adapter.writes.iter().map(|c| c.as_str()).collect::<Vec<_>>(),
        }),
        Binding::None => Json::Null,
    }
}

/// A service binding: the service and each parameter with the name it is bound to.
fn service_json(service: &Service) -> Json {
    let name = |n: &Name| json!(n.as_str());
    let maybe = |n: &Option<Name>| n.as_ref().map_or(Json::Null, |n| json!(n.as_str()));
    let names = |ns: &[Name]| json!(ns.iter().map(|n| n.as_str()).collect::<Vec<_>>());
    let (service, params) = match service {
        Service::Clock => ("clock", json!({})),
        Service::Search(s) => (
            "records.search",
            json!({
                "collection_argument": maybe(&s.collection),
                "query_argument": maybe(&s.query),
            }),
        ),
        Service::Get(g) => (
            "records.get",
            json!({
                "collection_argument": maybe(&g.collection),
                "id_argument": name(&g.id),
            }),
        ),
        Service::Write(w) => (
            "records.write",
            json!({
                "collection_argument": name(&w.collection),
                "operation_argument": name(&w.operation),
                "record_argument": maybe(&w.record),
                "fields_argument": name(&w.fields),
                "request_argument": maybe(&w.request),
            }),
        ),
        Service::Booking(b) => (
            "booking",
            json!({
                "slots_collection": name(&b.slots),
                "bookings_collection": name(&b.bookings),
                "operation_argument": name(&b.operation),
                "target_argument": name(&b.target),
                "slot_argument": name(&b.slot),
                "request_argument": maybe(&b.request),
                "slot_field": name(&b.slot_field),
                "provider_field": name(&b.provider_field),
                "start_field": name(&b.start_field),
                "status_field": name(&b.status_field),
                "confirmed_value": b.confirmed,
                "cancelled_value": b.cancelled,
                "copied_fields": names(&b.copy),
            }),
        ),
        Service::Tracker(t) => (
            "device_tracker",
            json!({
                "trackers_collection": name(&t.trackers),
                "operation_argument": name(&t.operation),
                "id_argument": name(&t.id),
                "status_field": name(&t.status_field),
                "offline_value": t.offline,
                "supports_field": maybe(&t.supports_field),
                "reported_fields": names(&t.report),
            }),
        ),
        Service::Files(f) => (
            match f.op {
                FileOp::Read => "files.read",
                FileOp::Write => "files.write",
                FileOp::List => "files.list",
            },
            json!({
                "files_collection": name(&f.files),
                "path_field": name(&f.path_field),
                "content_field": name(&f.content_field),
                "path_argument": maybe(&f.path),
                "content_argument": maybe(&f.content),
            }),
        ),
        Service::Http(h) => (
            "http",
            json!({
                "endpoints_collection": name(&h.endpoints),
                "url_field": name(&h.url_field),
                "method_field": maybe(&h.method_field),
                "status_field": name(&h.status_field),
                "body_field": name(&h.body_field),
                "url_argument": name(&h.url),
                "method_argument": maybe(&h.method),
            }),
        ),
    };
    json!({ "service": service, "parameters": params })
}
