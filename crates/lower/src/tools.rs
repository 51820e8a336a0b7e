//! What outputs say about a tool: the prose contract's argument list, and the JSON
//! Schema of a call's arguments (MCP `inputSchema`, bundle contracts), both derived
//! from the tool's one typed declaration.

use std::borrow::Cow;

use serde_json::{json, Map, Value as Json};

use crate::model::tool::{ArgType, Argument, Binding, Bound, BoundService, Tool};
use crate::model::world::{FieldType, WorldSchema};

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
/// (typed, described by its [`argument_description`]), `required` listing the required
/// ones, and no other properties allowed. Record references carry the pattern of their
/// ids.
pub fn input_schema(tool: &Tool, schema: Option<&WorldSchema>) -> Json {
    object_schema(&tool.arguments, schema)
}

/// What a model is told an argument is: its `doc`, else what its type says
/// ([`type_description`]). Some harnesses (Inspect AI) refuse a tool with a parameter
/// that has no description, so every argument gets one.
pub fn argument_description(argument: &Argument) -> Cow<'_, str> {
    match &argument.doc {
        // A blank doc (itself an `empty_text` warning) would be no description at all.
        Some(doc) if !doc.as_str().trim().is_empty() => Cow::Borrowed(doc.as_str()),
        _ => Cow::Owned(type_description(&argument.ty)),
    }
}

/// A value of `ty` in words, as the description of an argument without a `doc`. The
/// one place these words are made: the schema's descriptions and the help of
/// `undocumented_argument` both use it.
pub fn type_description(ty: &ArgType) -> String {
    match ty {
        ArgType::Field(field) => field_description(field),
        ArgType::Collection => "the name of a collection".into(),
        ArgType::Id => "the id of a record, or a request id".into(),
        ArgType::Fields(of) => format!("the fields of a record of the collection `{of}` names"),
        ArgType::Object(members) if members.is_empty() => "an object".into(),
        ArgType::Object(members) => {
            let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
            format!("an object with members: {}", names.join(", "))
        }
    }
}

fn field_description(ty: &FieldType) -> String {
    match ty {
        FieldType::Text => "free text".into(),
        FieldType::Date => "a date: YYYY-MM-DD".into(),
        FieldType::Time => "a time: HH:MM, 24-hour".into(),
        FieldType::DateTime => {
            "a date and time: RFC 3339 with offset, or YYYY-MM-DD HH:MM local to the case".into()
        }
        FieldType::Duration => "a duration: ISO 8601 (PT30M) or 30m, 1h30m".into(),
        FieldType::Recurrence => {
            "a recurrence: an RRULE, or daily, weekdays, \"weekly tuesday\", \"monthly 15\"".into()
        }
        FieldType::Bool => "true or false".into(),
        FieldType::Number => "a number".into(),
        FieldType::Integer => "a whole number".into(),
        FieldType::Enum(values) => format!("one of: {}", values.join(", ")),
        FieldType::Ref(targets) => format!("the id of a record of {}", either(targets)),
        FieldType::List(item) => format!("a list, each item {}", field_description(item)),
        FieldType::Bytes => "a file's content: text, or {\"base64\": \"…\"} for other bytes".into(),
    }
}

/// `a`, `a or b`, `a, b or c`.
fn either(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn object_schema(arguments: &[Argument], schema: Option<&WorldSchema>) -> Json {
    let properties: Map<String, Json> = arguments
        .iter()
        .map(|a| {
            let mut property = argument_schema(&a.ty, schema);
            if let Json::Object(m) = &mut property {
                m.insert("description".into(), json!(argument_description(a)));
                if let Some(default) = &a.default {
                    m.insert("default".into(), default.clone());
                }
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

/// The schema of a value of `ty`, without the property's description (which is the
/// argument's: [`argument_description`]).
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
        ArgType::Fields(_) => match schema {
            Some(schema) => fields_schema(schema),
            None => json!({ "type": "object" }),
        },
        ArgType::Object(members) => object_schema(members, schema),
    }
}

/// The record fields a `fields` argument may hold, closed: the collection is the call's
/// own argument, so the properties are the fields of every collection of the schema
/// (the sandbox refuses a field the chosen one lacks, `UNKNOWN_FIELD`). A field has the
/// schema the collections that have it agree on (else the JSON type they share, else
/// none), and takes `null` (which clears it) where one has it optional.
fn fields_schema(schema: &WorldSchema) -> Json {
    let mut properties = Map::new();
    let fields = schema.collections.iter().flat_map(|c| &c.fields);
    for field in fields.clone() {
        let name = field.name.as_str();
        if properties.contains_key(name) {
            continue;
        }
        let same: Vec<_> = fields.clone().filter(|f| f.name.as_str() == name).collect();
        let mut schemas = same.iter().map(|f| field_schema(&f.ty, Some(schema)));
        let first = schemas.next().unwrap_or_else(|| json!({}));
        let rest: Vec<Json> = schemas.collect();
        let shared = first
            .get("type")
            .filter(|ty| rest.iter().all(|s| s.get("type") == Some(ty)));
        let mut property = match (rest.iter().all(|s| *s == first), shared) {
            (true, _) => first,
            (false, Some(ty)) => json!({ "type": ty }),
            (false, None) => json!({}),
        };
        if !same.iter().all(|f| f.required) {
            property = nullable(property);
        }
        // Described by type, as an argument without a doc is (a harness may refuse an
        // undescribed property at any level); where collections give the field
        // different types, each collection's, since the call's collection picks one.
        let by_collection: Vec<(&str, String)> = schema
            .collections
            .iter()
            .filter_map(|c| Some((c.name.as_str(), field_description(&c.field(name)?.ty))))
            .collect();
        let description = match by_collection.as_slice() {
            [(_, first), rest @ ..] if rest.iter().all(|(_, d)| d == first) => first.clone(),
            _ => {
                let each: Vec<String> = by_collection
                    .iter()
                    .map(|(c, d)| format!("{c}: {d}"))
                    .collect();
                format!("depends on the collection; {}", each.join("; "))
            }
        };
        if let Json::Object(m) = &mut property {
            m.insert("description".into(), json!(description));
        }
        properties.insert(name.to_string(), property);
    }
    json!({ "type": "object", "properties": properties, "additionalProperties": false })
}

/// `schema` that also takes `null`.
fn nullable(mut schema: Json) -> Json {
    if let Some(Json::String(ty)) = schema.get("type").cloned() {
        schema["type"] = json!([ty, "null"]);
    }
    if let Some(Json::Array(values)) = schema.get_mut("enum") {
        values.push(Json::Null);
    }
    schema
}

fn field_schema(ty: &FieldType, schema: Option<&WorldSchema>) -> Json {
    match ty {
        FieldType::Text
        | FieldType::Date
        | FieldType::Time
        | FieldType::DateTime
        | FieldType::Duration
        | FieldType::Recurrence => json!({ "type": "string" }),
        FieldType::Bytes => json!({
            "anyOf": [
                { "type": "string" },
                {
                    "type": "object",
                    "properties": { "base64": { "type": "string" } },
                    "required": ["base64"],
                    "additionalProperties": false
                }
            ]
        }),
        FieldType::Bool => json!({ "type": "boolean" }),
        FieldType::Number => json!({ "type": "number" }),
        FieldType::Integer => json!({ "type": "integer" }),
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
        // A list's items are described too: a model reads an item's format there.
        FieldType::List(item) => {
            let mut items = field_schema(item, schema);
            if let Json::Object(m) = &mut items {
                m.insert("description".into(), json!(field_description(item)));
            }
            json!({ "type": "array", "items": items })
        }
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
        Binding::Service(bound) => service_json(bound),
        Binding::Declared(behavior) => {
            json!({ "declared": super::sandbox::behavior_json(behavior) })
        }
        Binding::Adapter(adapter) => json!({
            "adapter": adapter.command.iter().map(|c| c.as_str()).collect::<Vec<_>>(),
            "reads": adapter.reads.as_ref().map(|r| r.iter().map(|c| c.as_str()).collect::<Vec<_>>()),
            "writes": adapter.writes.iter().map(|c| c.as_str()).collect::<Vec<_>>(),
            "env": adapter.env.iter().map(|v| v.as_str()).collect::<Vec<_>>(),
            "timeout_seconds": adapter.timeout.as_secs(),
        }),
        Binding::None => Json::Null,
    }
}

/// A service binding: the service and each parameter with the name it is bound to.
fn service_json(bound: &BoundService) -> Json {
    let parameters: Map<String, Json> = bound
        .parameters
        .iter()
        .map(|(param, to)| {
            let value = match to {
                Bound::Absent => Json::Null,
                Bound::Name(name) => json!(name.as_str()),
                Bound::Names(names) => json!(names.iter().map(|n| n.as_str()).collect::<Vec<_>>()),
                Bound::Number(n) => json!(n),
                Bound::Text(t) => json!(t.as_str()),
            };
            (param.to_string(), value)
        })
        .collect();
    json!({ "service": bound.name, "parameters": parameters })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Name, Text};
    use crate::source::{FileId, Span};

    const NOWHERE: Span = Span {
        file: FileId(0),
        start: 0,
        end: 0,
    };

    fn field(ty: FieldType) -> String {
        type_description(&ArgType::Field(ty))
    }

    fn argument(name: &str, ty: ArgType, doc: Option<&str>) -> Argument {
        Argument {
            name: Name::new(name, NOWHERE),
            ty,
            required: true,
            doc: doc.map(|d| Text::new(d, NOWHERE)),
            default: None,
        }
    }

    #[test]
    fn text() {
        assert_eq!(field(FieldType::Text), "free text");
    }

    #[test]
    fn date_and_time_types_say_how_to_write_the_value() {
        assert_eq!(field(FieldType::Date), "a date: YYYY-MM-DD");
        assert_eq!(field(FieldType::Time), "a time: HH:MM, 24-hour");
        assert_eq!(
            field(FieldType::DateTime),
            "a date and time: RFC 3339 with offset, or YYYY-MM-DD HH:MM local to the case"
        );
        assert_eq!(
            field(FieldType::Duration),
            "a duration: ISO 8601 (PT30M) or 30m, 1h30m"
        );
        assert_eq!(
            field(FieldType::Recurrence),
            "a recurrence: an RRULE, or daily, weekdays, \"weekly tuesday\", \"monthly 15\""
        );
    }

    #[test]
    fn number() {
        assert_eq!(field(FieldType::Number), "a number");
    }

    #[test]
    fn bool() {
        assert_eq!(field(FieldType::Bool), "true or false");
    }

    #[test]
    fn an_enum_lists_its_values() {
        let values = vec!["active".to_string(), "sold".into(), "withdrawn".into()];
        assert_eq!(
            field(FieldType::Enum(values)),
            "one of: active, sold, withdrawn"
        );
    }

    #[test]
    fn a_ref_names_its_collections() {
        let one = vec!["events".to_string()];
        assert_eq!(field(FieldType::Ref(one)), "the id of a record of events");
        let two = vec!["contacts".to_string(), "bookings".into()];
        assert_eq!(
            field(FieldType::Ref(two)),
            "the id of a record of contacts or bookings"
        );
        let three = vec!["a".to_string(), "b".into(), "c".into()];
        assert_eq!(
            field(FieldType::Ref(three)),
            "the id of a record of a, b or c"
        );
    }

    #[test]
    fn a_list_describes_its_items() {
        let list = FieldType::List(Box::new(FieldType::Number));
        assert_eq!(field(list), "a list, each item a number");
        let nested = FieldType::List(Box::new(FieldType::List(Box::new(FieldType::Date))));
        assert_eq!(
            field(nested),
            "a list, each item a list, each item a date: YYYY-MM-DD"
        );
    }

    #[test]
    fn collection() {
        assert_eq!(
            type_description(&ArgType::Collection),
            "the name of a collection"
        );
    }

    #[test]
    fn id() {
        assert_eq!(
            type_description(&ArgType::Id),
            "the id of a record, or a request id"
        );
    }

    #[test]
    fn fields() {
        assert_eq!(
            type_description(&ArgType::Fields("collection".into())),
            "the fields of a record of the collection `collection` names"
        );
    }

    #[test]
    fn an_object_names_its_members() {
        assert_eq!(type_description(&ArgType::Object(Vec::new())), "an object");
        let members = vec![
            argument("street", ArgType::Field(FieldType::Text), None),
            argument("lift", ArgType::Field(FieldType::Bool), None),
        ];
        assert_eq!(
            type_description(&ArgType::Object(members)),
            "an object with members: street, lift"
        );
    }

    #[test]
    fn a_doc_wins_over_the_type_and_a_blank_one_does_not() {
        let documented = argument("at", ArgType::Field(FieldType::Date), Some("The day."));
        assert_eq!(argument_description(&documented), "The day.");
        let blank = argument("at", ArgType::Field(FieldType::Date), Some("  "));
        assert_eq!(argument_description(&blank), "a date: YYYY-MM-DD");
    }

    /// Every property has a description, nested members and list items included, and
    /// a documented one keeps the place it had before descriptions were derived.
    #[test]
    fn every_property_of_a_schema_is_described() {
        let members = vec![argument("lift", ArgType::Field(FieldType::Bool), None)];
        let tool = Tool {
            name: Name::new("t", NOWHERE),
            behavior: Text::new("Do it.", NOWHERE),
            arguments: vec![
                argument("home", ArgType::Object(members), None),
                argument(
                    "days",
                    ArgType::Field(FieldType::List(Box::new(FieldType::Date))),
                    None,
                ),
                argument(
                    "to",
                    ArgType::Field(FieldType::Ref(vec!["c".into()])),
                    Some("Who."),
                ),
            ],
            binding: Binding::None,
            span: NOWHERE,
        };
        let schema = input_schema(&tool, None);
        let p = &schema["properties"];
        assert_eq!(
            p["home"]["description"],
            json!("an object with members: lift")
        );
        assert_eq!(
            p["home"]["properties"]["lift"]["description"],
            json!("true or false")
        );
        assert_eq!(
            p["days"]["description"],
            json!("a list, each item a date: YYYY-MM-DD")
        );
        assert_eq!(
            p["days"]["items"]["description"],
            json!("a date: YYYY-MM-DD")
        );
        assert_eq!(
            serde_json::to_string(&p["to"]).unwrap(),
            r#"{"type":"string","description":"Who."}"#
        );
    }
}
