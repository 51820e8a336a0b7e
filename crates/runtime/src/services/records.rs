//! `records.search`, `records.get` and `records.write`: the generic record services.
//!
//! A free-text query matches a record when one of its terms occurs in the record's text
//! (see [`searchable`]); a search that runs and matches nothing returns `status: ok`
//! with no records, which is a different answer from a service failure (`status:
//! error`). Writes are checked against the schema: read-only collections, collections
//! another tool manages, unknown fields, wrong types, missing required fields and
//! dangling references are refused with an error naming the collection's fields.

use serde_json::{json, Map, Value as Json};

use crate::model::tool::{Get, Search, Tool, Write, WriteOp};
use crate::model::value::FieldValue;
use crate::model::world::{Collection, FieldType};

use super::super::state::{sort_like_schema, Rec};
use super::super::values::{from_json, normalize};
use super::super::{CallResult, Runtime};
use super::argument;

/// Words too common to select records.
const STOPWORDS: &[&str] = &[
    "a", "about", "all", "an", "and", "any", "at", "by", "for", "from", "in", "is", "me", "my",
    "of", "on", "or", "the", "to", "what", "when", "where", "with",
];

pub fn search(rt: &mut Runtime, s: &Search, arguments: &Json) -> CallResult {
    let collection = argument(arguments, s.collection_argument.as_ref());
    let terms = query_terms(argument(arguments, s.query_argument.as_ref()).unwrap_or_default());
    let matching: Vec<&Rec> = rt
        .state
        .records()
        .iter()
        .filter(|r| collection.is_none_or(|c| r.collection == c))
        .filter(|r| matches_query(rt, r, &terms))
        .collect();
    let ids = matching.iter().map(|r| r.id.clone()).collect();
    let records: Vec<Json> = matching.iter().map(|r| r.to_json()).collect();
    CallResult::ok(json!({ "records": records }), ids, Vec::new())
}

/// Whether `record` matches a query's terms (no terms: every record does).
pub fn matches_query(rt: &Runtime, record: &Rec, terms: &[String]) -> bool {
    if terms.is_empty() {
        return true;
    }
    let text = searchable(rt, record);
    terms.iter().any(|t| text.contains(t.as_str()))
}

/// The query's terms: words separated by white space or commas, lower case, without
/// surrounding punctuation or a possessive `'s`, so a date (`2026-11-12`) or a time
/// (`14:00`) stays one term. Stop words are dropped, and a plural `s` is stripped from
/// alphabetic words longer than three letters so "bookings" finds a booking. An
/// empty query (or only stop words) matches every record.
pub fn query_terms(query: &str) -> Vec<String> {
    query
        .split(|c: char| c.is_whitespace() || c == ',')
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .map(|w| w.strip_suffix("'s").map_or(w.clone(), str::to_string))
        .filter(|w| !w.is_empty() && !STOPWORDS.contains(&w.as_str()))
        .map(|w| match w.strip_suffix('s') {
            Some(stem) if stem.len() >= 3 && stem.chars().all(char::is_alphabetic) => {
                stem.to_string()
            }
            _ => w,
        })
        .collect()
}

/// What a query searches in a record: its id, its collection's name, its values (as
/// the sandbox file writes them) and the values of the records it references.
fn searchable(rt: &Runtime, record: &Rec) -> String {
    let mut text = format!("{} {} ", record.id, record.collection.replace('_', " "));
    let mut add = |r: &Rec| {
        for (_, value) in &r.fields {
            text.push_str(&value_text(value));
            text.push(' ');
        }
    };
    add(record);
    for (_, value) in &record.fields {
        if let FieldValue::Ref(id) = value {
            if let Some(target) = rt.state.get(id) {
                add(target);
            }
        }
    }
    normalize(&text)
}

fn value_text(value: &FieldValue) -> String {
    match value.to_json() {
        Json::String(s) => s,
        other => other.to_string(),
    }
}

pub fn get(rt: &mut Runtime, g: &Get, arguments: &Json) -> CallResult {
    let Some(wanted) = argument(arguments, Some(&g.id_argument)) else {
        return CallResult::not_found("");
    };
    let id = rt.request_record(wanted).unwrap_or(wanted).to_string();
    let collection = argument(arguments, g.collection_argument.as_ref());
    match rt
        .state
        .get(&id)
        .filter(|r| collection.is_none_or(|c| r.collection == c))
    {
        Some(record) => CallResult::ok(
            json!({ "found": true, "record": record.to_json() }),
            vec![id],
            Vec::new(),
        ),
        None => CallResult::not_found(wanted),
    }
}

pub fn write(rt: &mut Runtime, tool: &Tool, w: &Write, arguments: &Json) -> CallResult {
    // Validation has checked that the collection argument names a collection.
    let name = argument(arguments, Some(&w.collection_argument)).unwrap_or_default();
    let schema = rt.sandbox.schema.clone();
    let Some(collection) = schema.collection(name) else {
        return CallResult::error("UNKNOWN_COLLECTION", format!("no collection `{name}`"));
    };
    if collection.read_only {
        return CallResult::error("READ_ONLY", format!("{name} cannot be modified"));
    }
    if let Some(manager) = rt.manager_of(name, tool.name.as_str()) {
        return CallResult::error(
            "MANAGED_BY_TOOL",
            format!("{name} is changed only through `{}`", manager.name.as_str()),
        );
    }
    let operation = argument(arguments, Some(&w.operation_argument)).unwrap_or_default();
    let Ok(op) = operation.parse::<WriteOp>() else {
        return CallResult::error(
            "UNKNOWN_OPERATION",
            format!("`{operation}` is not an operation"),
        );
    };
    let given_fields = arguments.get(w.fields_argument.as_str());
    if op == WriteOp::Create {
        return create(rt, collection, given_fields);
    }
    let record_name = w.record_argument.as_ref().map_or("", |r| r.as_str());
    let Some(id) = argument(arguments, w.record_argument.as_ref())
        .filter(|id| rt.state.get(id).is_some_and(|r| r.collection == name))
        .map(str::to_string)
    else {
        return CallResult::error(
            "NOT_FOUND",
            format!("{operation} needs `{record_name}`, the id of a record of {name}"),
        );
    };
    match op {
        WriteOp::Update => update(rt, collection, &id, given_fields, operation),
        WriteOp::Delete => delete(rt, &id),
        WriteOp::SkipOccurrence | WriteOp::Create => {
            skip_occurrence(rt, collection, &id, operation)
        }
    }
}

fn create(rt: &mut Runtime, collection: &Collection, given: Option<&Json>) -> CallResult {
    let fields = match typed_fields(rt, collection, given) {
        Ok(fields) => fields,
        Err(refusal) => return refusal,
    };
    // A create has no earlier value to clear: a null field is simply not given.
    let fields: Vec<(String, FieldValue)> = fields
        .into_iter()
        .filter_map(|(name, value)| Some((name, value?)))
        .collect();
    create_record(rt, collection, fields)
}

/// Creates a record of `collection` with `fields` (typed, references checked), or
/// refuses when a required field is missing.
pub fn create_record(
    rt: &mut Runtime,
    collection: &Collection,
    mut fields: Vec<(String, FieldValue)>,
) -> CallResult {
    let missing: Vec<&str> = collection
        .fields
        .iter()
        .filter(|f| f.required && !fields.iter().any(|(n, _)| n == f.name.as_str()))
        .map(|f| f.name.as_str())
        .collect();
    if !missing.is_empty() {
        return CallResult::error(
            "MISSING_FIELD",
            format!(
                "{} requires: {}; {}",
                collection.name.as_str(),
                missing.join(", "),
                field_list(collection)
            ),
        );
    }
    let id = rt.state.next_id(collection);
    sort_like_schema(&mut fields, collection);
    let record = Rec {
        collection: collection.name.as_str().to_string(),
        id: id.clone(),
        fields,
        history: Vec::new(),
    };
    let shown = saved(&record, WriteOp::Create);
    rt.state.insert(record);
    CallResult::ok(shown, vec![id.clone()], vec![id])
}

fn update(
    rt: &mut Runtime,
    collection: &Collection,
    id: &str,
    given: Option<&Json>,
    operation: &str,
) -> CallResult {
    let fields = match typed_fields(rt, collection, given) {
        Ok(fields) => fields,
        Err(refusal) => return refusal,
    };
    let now = rt.now_text().to_string();
    let Some(record) = rt.state.get_mut(id) else {
        return CallResult::not_found(id);
    };
    let changed = record.apply(fields, &now, Some(operation), collection);
    let shown = saved(record, WriteOp::Update);
    let changed = if changed {
        vec![id.to_string()]
    } else {
        Vec::new()
    };
    CallResult::ok(shown, vec![id.to_string()], changed)
}

fn delete(rt: &mut Runtime, id: &str) -> CallResult {
    match rt.state.remove(id) {
        Some(record) => CallResult::ok(
            json!({ "deleted": record.id }),
            Vec::new(),
            vec![id.to_string()],
        ),
        None => CallResult::not_found(id),
    }
}

/// Moves a recurring record's next occurrence (its first datetime field, such as `at`
/// or `start`) to the one after, by its recurrence.
fn skip_occurrence(
    rt: &mut Runtime,
    collection: &Collection,
    id: &str,
    operation: &str,
) -> CallResult {
    let now = rt.now_text().to_string();
    let zone = rt.zone;
    let Some(record) = rt.state.get_mut(id) else {
        return CallResult::not_found(id);
    };
    let rule = record.fields.iter().find_map(|(_, v)| match v {
        FieldValue::Recurrence(rule) => Some(rule.clone()),
        _ => None,
    });
    let next = rule.and_then(|rule| {
        collection
            .fields
            .iter()
            .filter(|f| f.ty == FieldType::DateTime)
            .find_map(|f| match record.field(f.name.as_str()) {
                Some(FieldValue::DateTime(current)) => {
                    super::super::values::next_occurrence(current, &rule, zone)
                        .map(|n| (f.name.as_str().to_string(), FieldValue::DateTime(n)))
                }
                _ => None,
            })
    });
    let Some((field, value)) = next else {
        return CallResult::error(
            "NOT_RECURRING",
            format!("{id} has no recurrence and next occurrence to skip"),
        );
    };
    record.apply(
        vec![(field, Some(value))],
        &now,
        Some(operation),
        collection,
    );
    let shown = saved(record, WriteOp::SkipOccurrence);
    CallResult::ok(shown, vec![id.to_string()], vec![id.to_string()])
}

/// A written record under what was done to it: `created`, `updated`, `skipped`.
fn saved(record: &Rec, done: WriteOp) -> Json {
    let key = match done {
        WriteOp::Create => "created",
        WriteOp::Update => "updated",
        WriteOp::Delete => "deleted",
        WriteOp::SkipOccurrence => "skipped",
    };
    json!({ key: record.to_json() })
}

pub fn field_list(collection: &Collection) -> String {
    let fields: Vec<String> = collection
        .fields
        .iter()
        .map(|f| {
            format!(
                "{} ({}{})",
                f.name.as_str(),
                f.ty.describe(),
                if f.required { "" } else { ", optional" }
            )
        })
        .collect();
    format!(
        "{} has fields: {}",
        collection.name.as_str(),
        fields.join(", ")
    )
}

/// A call's record fields, typed by the collection; a refusal naming the fields
/// otherwise. `None` values clear an optional field.
pub fn typed_fields(
    rt: &Runtime,
    collection: &Collection,
    given: Option<&Json>,
) -> Result<Vec<(String, Option<FieldValue>)>, CallResult> {
    let empty = Map::new();
    let given = match given {
        None | Some(Json::Null) => &empty,
        Some(Json::Object(m)) => m,
        Some(_) => {
            return Err(CallResult::error(
                "INVALID_FIELD",
                format!("the fields are an object; {}", field_list(collection)),
            ))
        }
    };
    let mut out = Vec::new();
    for (name, json) in given {
        let Some(spec) = collection.field(name) else {
            return Err(CallResult::error(
                "UNKNOWN_FIELD",
                format!("no field `{name}`; {}", field_list(collection)),
            ));
        };
        let refusal = |why: String| {
            CallResult::error(
                "INVALID_FIELD",
                format!("field `{name}`: {why}; {}", field_list(collection)),
            )
        };
        // `null` clears an optional field (a correction may take a value back).
        if json.is_null() {
            if spec.required {
                return Err(refusal("is required and cannot be cleared".into()));
            }
            out.push((name.clone(), None));
            continue;
        }
        let value = from_json(json, &spec.ty, rt.zone)
            .and_then(|v| existing_refs(rt, &spec.ty, v))
            .map_err(refusal)?;
        out.push((name.clone(), Some(value)));
    }
    Ok(out)
}

/// A reference must name a record of one of the field's collections.
pub fn existing_refs(
    rt: &Runtime,
    ty: &FieldType,
    value: FieldValue,
) -> Result<FieldValue, String> {
    let ok = |id: &str, targets: &[String]| {
        rt.state
            .get(id)
            .is_some_and(|r| targets.contains(&r.collection))
    };
    match (ty, &value) {
        (FieldType::Ref(targets), FieldValue::Ref(id)) if !ok(id, targets) => Err(format!(
            "`{id}` is not a record of {}",
            targets.join(" or ")
        )),
        (FieldType::List(item), FieldValue::List(items)) => {
            for i in items {
                existing_refs(rt, item, i.clone())?;
            }
            Ok(value)
        }
        _ => Ok(value),
    }
}
