//! Running a tool whose behaviour is declared over the world (`model::tool::Behavior`).
//!
//! In order: a repeated request id (`idempotent ARG`) returns the first result; the
//! first refusal whose conditions hold answers its error; then every effect runs in
//! the order declared — reads into `records`, creates into `created`, updates into
//! `updated`, deletes into `deleted` — and stops at the first that fails (a write that
//! cannot happen is refused, nothing after it runs); finally the first response that
//! answers the call merges its data (or shows its record) into the result.

use std::cmp::Ordering;

use serde_json::{json, Map, Value as Json};

use crate::model::expect::Op;
use crate::model::tool::{
    Answer, ArgType, Behavior, Create, Effect, Filter, Read, RecordRef, Response, Set, SetValue,
    Tool,
};
use crate::model::value::FieldValue;
use crate::model::world::{Collection, FieldType};
use crate::model::Name;

use super::computed;
use super::conditions::{call_matches, call_path};
use super::services::records::{create_record, existing_refs, matches_query, query_terms};
use super::state::Rec;
use super::values::{self, from_json, satisfies};
use super::{CallResult, Runtime};

pub fn run(rt: &mut Runtime, tool: &Tool, behavior: &Behavior, arguments: &Json) -> CallResult {
    let request = behavior
        .idempotent
        .as_ref()
        .and_then(|a| arguments.get(a.as_str()))
        .and_then(Json::as_str)
        .map(str::to_string);
    rt.idempotent(request.as_deref(), |rt| {
        answer(rt, tool, behavior, arguments)
    })
}

fn answer(rt: &mut Runtime, tool: &Tool, behavior: &Behavior, arguments: &Json) -> CallResult {
    if let Some(missing) = missing_record(rt, tool, arguments) {
        return missing;
    }
    if let Some(refusal) = behavior
        .refusals
        .iter()
        .find(|r| call_matches(&r.conditions, tool, arguments, rt.cx()))
    {
        return CallResult::error(refusal.code.as_str(), refusal.message.as_str());
    }
    let mut result = Map::new();
    let (mut returned, mut changed) = (Vec::new(), Vec::new());
    // A call's effects take place together or not at all: when one fails, the world is
    // as it was before the call (the result says `changed: []`, and so does the world).
    // A failing effect changes nothing itself, so only a call of several effects keeps a
    // copy to go back to.
    let before = (behavior.effects.len() > 1).then(|| rt.state.clone());
    for effect in &behavior.effects {
        let done = match effect {
            Effect::Read(read) => Ok(run_read(rt, read, arguments)),
            Effect::Create(create) => run_create(rt, tool, create, arguments),
            Effect::Update(update) => run_update(rt, tool, update, arguments),
            Effect::Delete(delete) => {
                run_delete(rt, delete.collection.as_str(), &delete.record, arguments)
            }
        };
        let done = match done {
            Ok(done) => done,
            Err(refusal) => {
                if let Some(before) = before {
                    rt.state = before;
                }
                return refusal;
            }
        };
        let key = match effect {
            Effect::Read(_) => "records",
            Effect::Create(_) => "created",
            Effect::Update(_) => "updated",
            Effect::Delete(_) => "deleted",
        };
        let shown = result.entry(key).or_insert_with(|| json!([]));
        if let (Json::Array(list), Json::Array(more)) = (shown, done.items) {
            list.extend(more);
        }
        returned.extend(done.returned);
        changed.extend(done.changed);
    }
    let response = pick_response(rt, tool, behavior, arguments);
    if let Some(response) = response.and_then(|r| respond(rt, r, arguments)) {
        match response {
            Responded::Data(data) => result.extend(data),
            Responded::Record(record) => {
                returned.push(record.id.clone());
                result.insert("record".into(), record.to_json());
            }
        }
    }
    CallResult::ok(Json::Object(result), returned, changed)
}

/// A reference argument naming no record of its collections: the effects work on
/// records, so the call is answered `NOT_FOUND` before anything else.
fn missing_record(rt: &Runtime, tool: &Tool, arguments: &Json) -> Option<CallResult> {
    tool.arguments.iter().find_map(|argument| {
        let ArgType::Field(FieldType::Ref(targets)) = &argument.ty else {
            return None;
        };
        let id = arguments.get(argument.name.as_str())?.as_str()?;
        let exists = rt
            .state
            .get(id)
            .is_some_and(|r| targets.contains(&r.collection));
        (!exists).then(|| {
            let mut refusal = CallResult::error(
                "NOT_FOUND",
                format!("`{id}` is not a record of {}", targets.join(" or ")),
            );
            if let Json::Object(m) = &mut refusal.result {
                m.insert("argument".into(), json!(argument.name.as_str()));
            }
            refusal
        })
    })
}

/// What one effect showed and did.
struct Done {
    items: Json,
    returned: Vec<String>,
    changed: Vec<String>,
}

fn run_read(rt: &Runtime, read: &Read, arguments: &Json) -> Done {
    let terms = read
        .query
        .as_ref()
        .and_then(|q| arguments.get(q.as_str()))
        .and_then(Json::as_str)
        .map(query_terms)
        .unwrap_or_default();
    let shown: Option<Vec<&str>> = read
        .show
        .as_ref()
        .map(|s| s.iter().map(|f| f.as_str()).collect());
    let collection = rt.sandbox.schema.collection(read.collection.as_str());
    let mut matching: Vec<&Rec> = rt
        .state
        .in_collection(read.collection.as_str())
        .filter(|r| matches_query(rt, r, &terms))
        .filter(|r| collection.is_some_and(|c| filters_hold(rt, &read.filters, c, r, arguments)))
        .collect();
    if let Some((field, descending)) = &read.order_by {
        // A stable sort: records that tie stay in world order.
        matching.sort_by(|a, b| {
            sort_order(
                a.field(field.as_str()),
                b.field(field.as_str()),
                *descending,
            )
        });
    }
    if let Some(limit) = read.limit {
        matching.truncate(limit);
    }
    Done {
        items: Json::Array(
            matching
                .iter()
                .map(|r| r.to_json_showing(shown.as_deref()))
                .collect(),
        ),
        returned: matching.iter().map(|r| r.id.clone()).collect(),
        changed: Vec::new(),
    }
}

/// How two records' values of the field a read orders by compare: by value (text as
/// written), reversed when `descending`; a record without the value comes last either
/// way.
fn sort_order(a: Option<&FieldValue>, b: Option<&FieldValue>, descending: bool) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => {
            let by_value = match (a, b) {
                (FieldValue::Text(x), FieldValue::Text(y)) => Some(x.cmp(y)),
                _ => values::order(a, b),
            };
            let ordering = by_value.unwrap_or(Ordering::Equal);
            if descending {
                ordering.reverse()
            } else {
                ordering
            }
        }
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// Every filter whose argument the call gives holds on `record`.
fn filters_hold(
    rt: &Runtime,
    filters: &[Filter],
    collection: &Collection,
    record: &Rec,
    arguments: &Json,
) -> bool {
    filters.iter().all(|f| {
        let Some(given) = arguments.get(f.argument.as_str()).filter(|v| !v.is_null()) else {
            return true;
        };
        let Some(spec) = collection.field(f.field.as_str()) else {
            // `where id ARG`: the record's own id (the reader allows nothing else).
            let same = given.as_str() == Some(record.id.as_str());
            return f.field.as_str() == "id" && (same == (f.op == Op::Eq));
        };
        let compared = match (f.op, &spec.ty) {
            (Op::Contains | Op::Lacks, FieldType::List(item)) => item.as_ref().clone(),
            (Op::In, ty) => FieldType::List(Box::new(ty.clone())),
            (_, FieldType::Enum(_)) => FieldType::Text,
            (_, ty) => ty.clone(),
        };
        let Ok(expected) = from_json(given, &compared, rt.zone) else {
            return false;
        };
        let actual = record.field(f.field.as_str()).map(|v| match v {
            // An enum compares with the text a call gives for it.
            FieldValue::Enum(e) if matches!(spec.ty, FieldType::Enum(_)) => {
                FieldValue::Text(e.clone())
            }
            other => other.clone(),
        });
        satisfies(actual.as_ref(), f.op, &expected)
    })
}

/// The fields `sets` give, typed by `collection`; arguments the call leaves out set
/// nothing. Computed values read the call and the world as they were before any of the
/// sets.
fn set_fields(
    rt: &Runtime,
    tool: &Tool,
    collection: &Collection,
    sets: &[Set],
    arguments: &Json,
) -> Result<Vec<(String, FieldValue)>, CallResult> {
    let mut out = Vec::new();
    for set in sets {
        let Some(spec) = collection.field(set.field.as_str()) else {
            continue;
        };
        let value = match &set.value {
            SetValue::Value(v) => v.clone(),
            SetValue::Now => now(rt, &spec.ty),
            SetValue::Computed(expr) => {
                let cx = rt.cx();
                let place = |path: &str| call_path(tool, arguments, path, cx);
                let reads = computed::AtPlace { place: &place, cx };
                computed::eval(expr, &reads).ok_or_else(|| {
                    CallResult::error(
                        "INVALID_ARGUMENT",
                        format!(
                            "`{}` cannot be computed for this call: `{}` has no value",
                            set.field.as_str(),
                            expr.written()
                        ),
                    )
                })?
            }
            SetValue::Argument {
                name: argument,
                unless_empty,
            } => {
                let Some(given) = arguments.get(argument.as_str()).filter(|v| !v.is_null()) else {
                    continue;
                };
                let empty = matches!(given, Json::Bool(false))
                    || given.as_str() == Some("")
                    || given.as_array().is_some_and(Vec::is_empty);
                if *unless_empty && empty {
                    continue;
                }
                from_json(given, &spec.ty, rt.zone)
                    .and_then(|v| existing_refs(rt, &spec.ty, v))
                    .map_err(|why| {
                        let mut refusal = CallResult::error(
                            "INVALID_ARGUMENT",
                            format!("`{}`: {why}", argument.as_str()),
                        );
                        if let Json::Object(m) = &mut refusal.result {
                            m.insert("argument".into(), json!(argument.as_str()));
                        }
                        refusal
                    })?
            }
        };
        out.push((set.field.as_str().to_string(), value));
    }
    Ok(out)
}

/// The run's clock as a value of a datetime or date field.
fn now(rt: &Runtime, ty: &FieldType) -> FieldValue {
    match (ty, &rt.clock) {
        (FieldType::Date, Some(clock)) => {
            FieldValue::Date(clock.instant.with_timezone(&rt.zone).date_naive())
        }
        (_, Some(clock)) => FieldValue::DateTime(clock.clone()),
        (_, None) => FieldValue::Text(rt.now_text().to_string()),
    }
}

fn collection(
    rt: &Runtime,
    name: &str,
) -> Result<std::sync::Arc<crate::model::world::WorldSchema>, CallResult> {
    let schema = rt.sandbox.schema.clone();
    if schema.collection(name).is_none() {
        return Err(CallResult::error(
            "UNAVAILABLE",
            format!("this sandbox holds no {name}"),
        ));
    }
    Ok(schema)
}

fn run_create(
    rt: &mut Runtime,
    tool: &Tool,
    create: &Create,
    arguments: &Json,
) -> Result<Done, CallResult> {
    let (name, sets) = (create.collection.as_str(), &create.sets);
    let schema = collection(rt, name)?;
    let Some(spec) = schema.collection(name) else {
        return Err(CallResult::error(
            "UNAVAILABLE",
            format!("this sandbox holds no {name}"),
        ));
    };
    let fields = set_fields(rt, tool, spec, sets, arguments)?;
    let created = create_record(rt, spec, fields);
    if created.failed() {
        return Err(created);
    }
    let items = created
        .changed
        .iter()
        .filter_map(|id| rt.state.get(id))
        .map(|record| showing(record, create.show.as_deref()))
        .collect();
    Ok(Done {
        items: Json::Array(items),
        returned: created.returned,
        changed: created.changed,
    })
}

/// The record an update or delete names, if it is one of `collection`'s.
fn named_record(
    rt: &Runtime,
    name: &str,
    record: &RecordRef,
    arguments: &Json,
) -> Result<String, CallResult> {
    let (id, argument) = match record {
        RecordRef::Argument(argument) => {
            let id = arguments.get(argument.as_str()).and_then(Json::as_str);
            (id.unwrap_or_default(), Some(argument.as_str()))
        }
        RecordRef::Fixed(id) => (id.as_str(), None),
    };
    match rt.state.get(id) {
        Some(record) if record.collection == name => Ok(record.id.clone()),
        _ => {
            let mut refusal =
                CallResult::error("NOT_FOUND", format!("`{id}` is not a record of {name}"));
            if let (Json::Object(m), Some(argument)) = (&mut refusal.result, argument) {
                m.insert("argument".into(), json!(argument));
            }
            Err(refusal)
        }
    }
}

fn run_update(
    rt: &mut Runtime,
    tool: &Tool,
    update: &crate::model::tool::Update,
    arguments: &Json,
) -> Result<Done, CallResult> {
    let name = update.collection.as_str();
    let schema = collection(rt, name)?;
    let Some(spec) = schema.collection(name) else {
        return Err(CallResult::error(
            "UNAVAILABLE",
            format!("this sandbox holds no {name}"),
        ));
    };
    let id = named_record(rt, name, &update.record, arguments)?;
    let fields = set_fields(rt, tool, spec, &update.sets, arguments)?;
    let now = rt.now_text().to_string();
    let reason = update.reason.as_ref().map(|r| r.as_str());
    let Some(record) = rt.state.get_mut(&id) else {
        return Err(CallResult::not_found(&id));
    };
    let updates = fields.into_iter().map(|(n, v)| (n, Some(v))).collect();
    let changed = record.apply(updates, &now, reason, spec);
    Ok(Done {
        items: json!([showing(record, update.show.as_deref())]),
        returned: vec![id.clone()],
        changed: if changed { vec![id] } else { Vec::new() },
    })
}

/// A record as a create or update result shows it: the fields `show` names, or all.
fn showing(record: &Rec, show: Option<&[Name]>) -> Json {
    let shown: Option<Vec<&str>> = show.map(|fields| fields.iter().map(Name::as_str).collect());
    record.to_json_showing(shown.as_deref())
}

fn run_delete(
    rt: &mut Runtime,
    name: &str,
    record: &RecordRef,
    arguments: &Json,
) -> Result<Done, CallResult> {
    let id = named_record(rt, name, record, arguments)?;
    rt.state.remove(&id);
    Ok(Done {
        items: json!([id]),
        returned: Vec::new(),
        changed: vec![id],
    })
}

enum Responded<'r> {
    Data(Map<String, Json>),
    Record(&'r Rec),
}

/// The first response that answers this call: its conditions hold and, with `after N`,
/// at least N earlier calls met them. Every response whose conditions hold counts the
/// call, whether or not it answers it.
fn pick_response<'b>(
    rt: &mut Runtime,
    tool: &Tool,
    behavior: &'b Behavior,
    arguments: &Json,
) -> Option<&'b Response> {
    let mut picked = None;
    for (i, response) in behavior.responses.iter().enumerate() {
        if !call_matches(&response.when, tool, arguments, rt.cx()) {
            continue;
        }
        let earlier = rt.count_response_match(tool.name.as_str(), i);
        let answers = response.after.is_none_or(|after| earlier >= after);
        if answers && picked.is_none() {
            picked = Some(response);
        }
    }
    picked
}

/// What a response answers: its data, or the first record its filters find.
fn respond<'r>(rt: &'r Runtime, response: &'r Response, arguments: &Json) -> Option<Responded<'r>> {
    match &response.answer {
        Answer::Data(Json::Object(data)) => Some(Responded::Data(data.clone())),
        Answer::Data(_) => None,
        Answer::Record {
            collection,
            filters,
        } => {
            let spec = rt.sandbox.schema.collection(collection.as_str())?;
            rt.state
                .in_collection(collection.as_str())
                .find(|r| filters_hold(rt, filters, spec, r, arguments))
                .map(Responded::Record)
        }
    }
}
