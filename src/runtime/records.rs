//! `read_records`, `write_record` and `verify_record`.
//!
//! A free-text query matches a record when one of its terms occurs in the record's
//! text (see [`searchable`]); a search that runs and matches nothing returns
//! `status: ok` with no records, which is a different answer from a service failure
//! (`status: error`). Writes are checked against the schema: unknown, read-only and
//! tool-managed collections, unknown fields, wrong types, missing required fields and
//! dangling references are refused with an error naming the collection's fields.

use serde_json::{json, Map, Value as Json};

use crate::model::value::FieldValue;
use crate::model::world::{Collection, FieldType};

use super::state::{sort_like_schema, Rec};
use super::values::{from_json, normalize};
use super::{Outcome, Runtime};

/// Words too common to select records.
const STOPWORDS: &[&str] = &[
    "a", "about", "all", "an", "and", "any", "at", "by", "for", "from", "in", "is", "me", "my",
    "of", "on", "or", "the", "to", "what", "when", "where", "with",
];

fn argument<'j>(arguments: &'j Json, name: &str) -> Option<&'j str> {
    arguments
        .get(name)
        .and_then(Json::as_str)
        .filter(|s| !s.trim().is_empty())
}

pub fn read_records(rt: &mut Runtime, arguments: &Json) -> Outcome {
    let collection = argument(arguments, "collection");
    if let Some(name) = collection {
        if rt.sandbox.schema.collection(name).is_none() {
            return unknown_collection(rt, name);
        }
    }
    let query = argument(arguments, "query").unwrap_or_default();
    let terms = query_terms(query);
    let matching: Vec<&Rec> = rt
        .state
        .records
        .iter()
        .filter(|r| collection.is_none_or(|c| r.collection == c))
        .filter(|r| {
            terms.is_empty() || terms.iter().any(|t| searchable(rt, r).contains(t.as_str()))
        })
        .collect();
    let ids = matching.iter().map(|r| r.id.clone()).collect();
    let records: Vec<Json> = matching.iter().map(|r| r.to_json()).collect();
    Outcome::ok(
        json!({ "collection": collection, "query": query, "records": records }),
        ids,
        Vec::new(),
    )
}

/// The query's terms: words separated by white space or commas, lower case, without
/// surrounding punctuation or a possessive `'s`, so a date (`2026-11-12`) or a time
/// (`14:00`) stays one term. Stop words are dropped, and a plural `s` is stripped from
/// alphabetic words longer than three letters so "reminders" finds a reminder. An
/// empty query (or only stop words) matches every record.
fn query_terms(query: &str) -> Vec<String> {
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

fn unknown_collection(rt: &Runtime, name: &str) -> Outcome {
    let names: Vec<&str> = rt
        .sandbox
        .schema
        .collections
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    Outcome::error(
        "UNKNOWN_COLLECTION",
        format!("no collection `{name}`; collections: {}", names.join(", ")),
    )
}

pub fn write_record(rt: &mut Runtime, arguments: &Json) -> Outcome {
    let Some(name) = argument(arguments, "collection") else {
        return Outcome::error("MISSING_ARGUMENT", "write_record needs `collection`");
    };
    let schema = rt.sandbox.schema.clone();
    let Some(collection) = schema.collection(name) else {
        return unknown_collection(rt, name);
    };
    if collection.read_only {
        return Outcome::error(
            "READ_ONLY",
            format!("{name} cannot be modified (prescriptions are kept by the prescriber)"),
        );
    }
    if let Some(tool) = collection.tools.first() {
        return Outcome::error(
            "MANAGED_BY_TOOL",
            format!("{name} is changed only through `{}`", tool.as_str()),
        );
    }
    let record_id = argument(arguments, "record_id_if_existing");
    match argument(arguments, "operation") {
        Some("create") => create(rt, collection, arguments),
        Some(op @ ("update" | "delete" | "skip_occurrence")) => {
            let Some(id) =
                record_id.filter(|id| rt.state.get(id).is_some_and(|r| r.collection == name))
            else {
                return Outcome::error(
                    "NOT_FOUND",
                    format!("{op} needs `record_id_if_existing`, the id of a record of {name}"),
                );
            };
            match op {
                "update" => update(rt, collection, id, arguments),
                "delete" => delete(rt, id),
                _ => skip_occurrence(rt, collection, id),
            }
        }
        _ => Outcome::error(
            "UNKNOWN_OPERATION",
            "operation is one of: create, update, delete, skip_occurrence",
        ),
    }
}

fn create(rt: &mut Runtime, collection: &Collection, arguments: &Json) -> Outcome {
    let fields = match typed_fields(rt, collection, arguments) {
        Ok(fields) => fields,
        Err(refusal) => return refusal,
    };
    // A create has no earlier value to clear: a null field is simply not given.
    let fields: Vec<(String, FieldValue)> = fields
        .into_iter()
        .filter_map(|(name, value)| Some((name, value?)))
        .collect();
    let missing: Vec<&str> = collection
        .fields
        .iter()
        .filter(|f| f.required && !fields.iter().any(|(n, _)| n == f.name.as_str()))
        .map(|f| f.name.as_str())
        .collect();
    if !missing.is_empty() {
        return Outcome::error(
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
    let mut fields = fields;
    sort_like_schema(&mut fields, collection);
    let record = Rec {
        collection: collection.name.as_str().to_string(),
        id: id.clone(),
        fields,
        history: Vec::new(),
    };
    let shown = saved(&record, "create");
    rt.state.records.push(record);
    Outcome::ok(shown, vec![id.clone()], vec![id])
}

fn update(rt: &mut Runtime, collection: &Collection, id: &str, arguments: &Json) -> Outcome {
    let fields = match typed_fields(rt, collection, arguments) {
        Ok(fields) => fields,
        Err(refusal) => return refusal,
    };
    let now = rt.case.clock.as_str().to_string();
    let Some(record) = rt.state.get_mut(id) else {
        return Outcome::not_found(id);
    };
    let changed = record.apply(fields, &now, Some("update"), collection);
    let shown = saved(record, "update");
    let changed = if changed {
        vec![id.to_string()]
    } else {
        Vec::new()
    };
    Outcome::ok(shown, vec![id.to_string()], changed)
}

fn delete(rt: &mut Runtime, id: &str) -> Outcome {
    match rt.state.remove(id) {
        Some(record) => Outcome::ok(
            json!({ "operation": "delete", "record_id": record.id }),
            Vec::new(),
            vec![id.to_string()],
        ),
        None => Outcome::not_found(id),
    }
}

/// Moves a recurring record's next occurrence (`at` or `start`) to the one after.
fn skip_occurrence(rt: &mut Runtime, collection: &Collection, id: &str) -> Outcome {
    let now = rt.case.clock.as_str().to_string();
    let zone = rt.zone;
    let Some(record) = rt.state.get_mut(id) else {
        return Outcome::not_found(id);
    };
    let next = ["at", "start"].iter().find_map(|field| {
        let Some(FieldValue::Recurrence(rule)) = record.field("recurrence") else {
            return None;
        };
        let Some(FieldValue::DateTime(current)) = record.field(field) else {
            return None;
        };
        super::services::next_occurrence(current, rule, zone)
            .map(|n| (field.to_string(), FieldValue::DateTime(n)))
    });
    let Some(next) = next else {
        return Outcome::error(
            "NOT_RECURRING",
            format!("{id} has no recurrence and next occurrence to skip"),
        );
    };
    let (field, value) = next;
    record.apply(
        vec![(field, Some(value))],
        &now,
        Some("skip_occurrence"),
        collection,
    );
    let shown = saved(record, "skip_occurrence");
    Outcome::ok(shown, vec![id.to_string()], vec![id.to_string()])
}

fn saved(record: &Rec, operation: &str) -> Json {
    json!({
        "operation": operation,
        "record_id": record.id,
        "collection": record.collection,
        "fields": record.fields_json(),
        "history": record.history,
    })
}

fn field_list(collection: &Collection) -> String {
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

/// The call's `fields`, typed by the collection; a refusal naming the fields otherwise.
fn typed_fields(
    rt: &Runtime,
    collection: &Collection,
    arguments: &Json,
) -> Result<Vec<(String, Option<FieldValue>)>, Outcome> {
    let empty = Map::new();
    let given = match arguments.get("fields") {
        None | Some(Json::Null) => &empty,
        Some(Json::Object(m)) => m,
        Some(_) => {
            return Err(Outcome::error(
                "INVALID_FIELD",
                format!("`fields` is an object; {}", field_list(collection)),
            ))
        }
    };
    let mut out = Vec::new();
    for (name, json) in given {
        let Some(spec) = collection.field(name) else {
            return Err(Outcome::error(
                "UNKNOWN_FIELD",
                format!("no field `{name}`; {}", field_list(collection)),
            ));
        };
        let refusal = |why: String| {
            Outcome::error(
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
fn existing_refs(rt: &Runtime, ty: &FieldType, value: FieldValue) -> Result<FieldValue, String> {
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

pub fn verify_record(rt: &mut Runtime, arguments: &Json) -> Outcome {
    let Some(wanted) = argument(arguments, "record_id_or_request_id") else {
        return Outcome::error(
            "MISSING_ARGUMENT",
            "verify_record needs `record_id_or_request_id`",
        );
    };
    let id = rt.request_record(wanted).unwrap_or(wanted).to_string();
    let collection = argument(arguments, "collection");
    match rt
        .state
        .get(&id)
        .filter(|r| collection.is_none_or(|c| r.collection == c))
    {
        Some(record) => Outcome::ok(
            json!({ "found": true, "record": record.to_json() }),
            vec![id],
            Vec::new(),
        ),
        None => Outcome::not_found(wanted),
    }
}
