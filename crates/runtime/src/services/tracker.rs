//! `device_tracker`: item trackers that report only what the world supplies.
//!
//! Only trackers of the world can be used: an unknown id (or a case with none) is an
//! error. An offline tracker answers with its supplied last sighting; an operation
//! outside its supported list is refused; a ring does not mean the item was found.

use serde_json::{json, Map, Value as Json};

use crate::model::tool::{Tracker, TrackerOp};
use crate::model::value::FieldValue;

use super::super::{CallResult, Runtime};
use super::argument;

pub fn run(rt: &mut Runtime, t: &Tracker, arguments: &Json) -> CallResult {
    let operation = argument(arguments, Some(&t.operation_argument)).unwrap_or_default();
    let Ok(op) = operation.parse::<TrackerOp>() else {
        return CallResult::error(
            "UNKNOWN_OPERATION",
            format!("`{operation}` is not an operation"),
        );
    };
    let id = argument(arguments, Some(&t.id_argument)).unwrap_or_default();
    let Some(tracker) = rt
        .state
        .get(id)
        .filter(|r| r.collection == t.trackers_collection.as_str())
    else {
        let known: Vec<&str> = rt
            .state
            .in_collection(t.trackers_collection.as_str())
            .map(|r| r.id.as_str())
            .collect();
        if known.is_empty() {
            return CallResult::error("NO_TRACKER", "this case supplies no tracker");
        }
        return CallResult::error(
            "TRACKER_NOT_FOUND",
            format!("`{id}` is not a tracker; trackers: {}", known.join(", ")),
        );
    };
    let supported = match t
        .supports_field
        .as_ref()
        .and_then(|f| tracker.field(f.as_str()))
    {
        Some(FieldValue::List(ops)) => ops.contains(&FieldValue::Enum(operation.into())),
        _ => true,
    };
    if !supported {
        return CallResult::error("UNSUPPORTED", format!("{id} cannot {operation}"));
    }
    let mut sighting = Map::new();
    sighting.insert("id".into(), json!(tracker.id));
    for field in &t.reported_fields {
        let value = tracker.field(field.as_str()).map(FieldValue::to_json);
        sighting.insert(field.as_str().to_string(), value.unwrap_or(Json::Null));
    }
    if tracker.field(t.status_field.as_str()) == Some(&FieldValue::Enum(t.offline_value.clone())) {
        let mut refusal = CallResult::error("OFFLINE", format!("{id} is offline"));
        if let Json::Object(result) = &mut refusal.result {
            result.extend(sighting);
        }
        return refusal;
    }
    let returned = vec![tracker.id.clone()];
    match op {
        TrackerOp::Ring => CallResult::ok(
            json!({ "id": id, "ringing": true, "note": "a ring does not show that the item was found" }),
            returned,
            Vec::new(),
        ),
        TrackerOp::Locate => CallResult::ok(Json::Object(sighting), returned, Vec::new()),
    }
}
