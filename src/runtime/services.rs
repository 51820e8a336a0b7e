//! `get_clock`, `provider_booking` and `tracker`.
//!
//! Bookings are made only in offered slots (an `offered_slots` id, or a time equal to
//! an offered slot's start) that no confirmed booking holds; a reschedule changes the
//! booking only when the new slot can be had, so a failure keeps the old booking; no
//! operation touches the calendar. A tracker reports only the status and sighting the
//! world supplies.

use chrono::{Datelike, Duration, Months};
use chrono_tz::Tz;
use serde_json::{json, Value as Json};

use crate::model::time::{Frequency, Recurrence, ZonedDateTime};
use crate::model::value::FieldValue;

use super::state::Rec;
use super::values::from_json;
use super::{Outcome, Runtime};
use crate::model::world::FieldType;

fn argument<'j>(arguments: &'j Json, name: &str) -> Option<&'j str> {
    arguments
        .get(name)
        .and_then(Json::as_str)
        .filter(|s| !s.trim().is_empty())
}

pub fn get_clock(rt: &mut Runtime) -> Outcome {
    Outcome::ok(
        json!({ "current_time": rt.case.clock.as_str(), "timezone": rt.case.timezone.as_str() }),
        Vec::new(),
        Vec::new(),
    )
}

pub fn provider_booking(rt: &mut Runtime, arguments: &Json) -> Outcome {
    match argument(arguments, "operation") {
        Some("create") => create(rt, arguments),
        Some("reschedule") => reschedule(rt, arguments),
        Some("cancel") => cancel(rt, arguments),
        Some("lookup") => lookup(rt, arguments),
        _ => Outcome::error(
            "UNKNOWN_OPERATION",
            "operation is one of: create, reschedule, cancel, lookup",
        ),
    }
}

/// The offered slot a call names, if it can be booked.
fn bookable_slot(rt: &Runtime, arguments: &Json) -> Result<Rec, Outcome> {
    let wanted = argument(arguments, "offered_slot_if_needed").unwrap_or_default();
    let at = from_json(&json!(wanted), &FieldType::DateTime, rt.zone).ok();
    let slot = rt.state.in_collection("offered_slots").find(|s| {
        s.id == wanted || matches!((s.field("start"), &at), (Some(FieldValue::DateTime(a)), Some(FieldValue::DateTime(b))) if a.instant == b.instant)
    });
    let Some(slot) = slot else {
        let offered: Vec<String> = rt
            .state
            .in_collection("offered_slots")
            .map(|s| {
                format!(
                    "{} ({})",
                    s.id,
                    s.field("start")
                        .map(|v| v.to_json().to_string())
                        .unwrap_or_default()
                )
            })
            .collect();
        let listed = if offered.is_empty() {
            "none".to_string()
        } else {
            offered.join(", ")
        };
        return Err(Outcome::error(
            "SLOT_NOT_OFFERED",
            format!("`{wanted}` is not an offered slot; offered: {listed}"),
        ));
    };
    // A provider named by contact id must be the slot's: a slot is offered by one provider.
    let named = argument(arguments, "provider_or_booking_id")
        .filter(|id| rt.state.get(id).is_some_and(|r| r.collection == "contacts"));
    if let Some(provider) =
        named.filter(|p| slot.field("provider") != Some(&FieldValue::Ref(p.to_string())))
    {
        return Err(Outcome::error(
            "SLOT_NOT_OFFERED",
            format!("{} is not offered by {provider}", slot.id),
        ));
    }
    let taken = rt.state.in_collection("provider_bookings").any(|b| {
        b.field("slot") == Some(&FieldValue::Ref(slot.id.clone()))
            && b.field("status") == Some(&FieldValue::Enum("confirmed".into()))
    });
    if taken {
        return Err(Outcome::error(
            "SLOT_NO_LONGER_AVAILABLE",
            format!("{} is already booked", slot.id),
        ));
    }
    Ok(slot.clone())
}

/// The booking fields that come from its slot, besides the slot itself.
const FROM_SLOT: [&str; 6] = [
    "provider", "service", "start", "duration", "location", "format",
];

/// The booking fields a slot gives: where and when, from the slot itself.
fn slot_fields(slot: &Rec) -> Vec<(String, FieldValue)> {
    slot_updates(slot)
        .into_iter()
        .filter_map(|(name, value)| Some((name, value?)))
        .collect()
}

/// Every slot-given field of a booking as it is for `slot`: `None` for those the slot
/// lacks, so that a rescheduled booking keeps nothing of its old slot.
fn slot_updates(slot: &Rec) -> Vec<(String, Option<FieldValue>)> {
    let mut fields = vec![("slot".to_string(), Some(FieldValue::Ref(slot.id.clone())))];
    fields.extend(
        FROM_SLOT
            .iter()
            .map(|name| (name.to_string(), slot.field(name).cloned())),
    );
    fields
}

fn create(rt: &mut Runtime, arguments: &Json) -> Outcome {
    let slot = match bookable_slot(rt, arguments) {
        Ok(slot) => slot,
        Err(refusal) => return refusal,
    };
    let schema = rt.sandbox.schema.clone();
    let Some(collection) = schema.collection("provider_bookings") else {
        return Outcome::error("UNAVAILABLE", "this sandbox holds no bookings");
    };
    let mut fields = slot_fields(&slot);
    fields.push(("status".to_string(), FieldValue::Enum("confirmed".into())));
    super::state::sort_like_schema(&mut fields, collection);
    let id = rt.state.next_id(collection);
    let booking = Rec {
        collection: "provider_bookings".into(),
        id: id.clone(),
        fields,
        history: Vec::new(),
    };
    let shown = confirmed(&booking);
    rt.state.records.push(booking);
    Outcome::ok(shown, vec![id.clone()], vec![id])
}

fn confirmed(booking: &Rec) -> Json {
    json!({ "booking_id": booking.id, "booking": booking.to_json() })
}

/// The confirmed booking a call names by id.
fn named_booking(rt: &Runtime, arguments: &Json) -> Result<String, Outcome> {
    let id = argument(arguments, "provider_or_booking_id").unwrap_or_default();
    match rt.state.get(id) {
        Some(b)
            if b.collection == "provider_bookings"
                && b.field("status") == Some(&FieldValue::Enum("confirmed".into())) =>
        {
            Ok(b.id.clone())
        }
        _ => Err(Outcome::error(
            "BOOKING_NOT_FOUND",
            format!("`{id}` is not a confirmed booking"),
        )),
    }
}

fn reschedule(rt: &mut Runtime, arguments: &Json) -> Outcome {
    let booking = match named_booking(rt, arguments) {
        Ok(id) => id,
        Err(refusal) => return refusal,
    };
    let slot = match bookable_slot(rt, arguments) {
        Ok(slot) => slot,
        Err(refusal) => return refusal,
    };
    change_booking(rt, &booking, slot_updates(&slot), "reschedule")
}

fn cancel(rt: &mut Runtime, arguments: &Json) -> Outcome {
    match named_booking(rt, arguments) {
        Ok(id) => change_booking(
            rt,
            &id,
            vec![("status".into(), Some(FieldValue::Enum("cancelled".into())))],
            "cancel",
        ),
        Err(refusal) => refusal,
    }
}

fn change_booking(
    rt: &mut Runtime,
    id: &str,
    fields: Vec<(String, Option<FieldValue>)>,
    reason: &str,
) -> Outcome {
    let schema = rt.sandbox.schema.clone();
    let now = rt.case.clock.as_str().to_string();
    let (Some(collection), Some(booking)) =
        (schema.collection("provider_bookings"), rt.state.get_mut(id))
    else {
        return Outcome::not_found(id);
    };
    booking.apply(fields, &now, Some(reason), collection);
    let shown = confirmed(booking);
    Outcome::ok(shown, vec![id.to_string()], vec![id.to_string()])
}

/// By request id (the write made under it), booking id, or provider id; none: all.
fn lookup(rt: &mut Runtime, arguments: &Json) -> Outcome {
    let key = argument(arguments, "request_id").or(argument(arguments, "provider_or_booking_id"));
    let found: Vec<&Rec> = match key {
        Some(key) => {
            let id = rt.request_record(key).unwrap_or(key).to_string();
            rt.state
                .in_collection("provider_bookings")
                .filter(|b| b.id == id || b.field("provider") == Some(&FieldValue::Ref(id.clone())))
                .collect()
        }
        None => rt.state.in_collection("provider_bookings").collect(),
    };
    if found.is_empty() {
        return Outcome::not_found(key.unwrap_or("bookings"));
    }
    let ids = found.iter().map(|b| b.id.clone()).collect();
    let bookings: Vec<Json> = found.iter().map(|b| b.to_json()).collect();
    Outcome::ok(json!({ "bookings": bookings }), ids, Vec::new())
}

pub fn tracker(rt: &mut Runtime, arguments: &Json) -> Outcome {
    let operation = argument(arguments, "operation").unwrap_or_default();
    if !matches!(operation, "locate" | "ring") {
        return Outcome::error("UNKNOWN_OPERATION", "operation is one of: locate, ring");
    }
    let id = argument(arguments, "tracker_id").unwrap_or_default();
    let Some(tracker) = rt.state.get(id).filter(|t| t.collection == "trackers") else {
        let known: Vec<&str> = rt
            .state
            .in_collection("trackers")
            .map(|t| t.id.as_str())
            .collect();
        if known.is_empty() {
            return Outcome::error("NO_TRACKER", "this case supplies no tracker");
        }
        return Outcome::error(
            "TRACKER_NOT_FOUND",
            format!("`{id}` is not a tracker; trackers: {}", known.join(", ")),
        );
    };
    let supported = match tracker.field("supports") {
        Some(FieldValue::List(ops)) => ops.contains(&FieldValue::Enum(operation.into())),
        _ => true,
    };
    if !supported {
        return Outcome::error("UNSUPPORTED", format!("{id} cannot {operation}"));
    }
    let sighting = json!({
        "tracker_id": tracker.id,
        "item": tracker.field("item").map(FieldValue::to_json),
        "last_seen_at": tracker.field("last_seen_at").map(FieldValue::to_json),
        "last_seen_location": tracker.field("last_seen_location").map(FieldValue::to_json),
    });
    if tracker.field("status") == Some(&FieldValue::Enum("offline".into())) {
        let mut refusal = Outcome::error("OFFLINE", format!("{id} is offline"));
        if let (Json::Object(result), Json::Object(seen)) = (&mut refusal.result, sighting) {
            result.extend(seen);
        }
        return refusal;
    }
    let returned = vec![tracker.id.clone()];
    match operation {
        "ring" => Outcome::ok(
            json!({ "tracker_id": id, "ringing": true, "note": "a ring does not show that the item was found" }),
            returned,
            Vec::new(),
        ),
        _ => Outcome::ok(sighting, returned, Vec::new()),
    }
}

/// The occurrence after `current` under `rule`, in the case zone.
pub fn next_occurrence(
    current: &ZonedDateTime,
    rule: &Recurrence,
    zone: Tz,
) -> Option<ZonedDateTime> {
    let local = current.instant.with_timezone(&zone);
    let next = match &rule.frequency {
        Frequency::Daily => local.checked_add_signed(Duration::days(1))?,
        Frequency::Weekly(days) => (1..=7)
            .filter_map(|n| local.checked_add_signed(Duration::days(n)))
            .find(|d| days.contains(&d.weekday()))?,
        Frequency::Monthly(_) => local.checked_add_months(Months::new(1))?,
    };
    Some(ZonedDateTime {
        instant: next.fixed_offset(),
        zone: current.zone.clone(),
    })
}
