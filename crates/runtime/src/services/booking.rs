//! `booking`: bookings made only in explicitly offered slots.
//!
//! A slot is named by its id or by a time equal to its start; it can be booked when no
//! confirmed booking holds it, and only with the provider that offered it. A
//! reschedule changes the booking only when the new slot can be had, so a failure keeps
//! the old booking (atomic); a cancel sets the cancelled status. A lookup finds bookings
//! by request id, booking id or provider. No operation touches any other collection.

use serde_json::{json, Value as Json};

use crate::model::tool::{Booking, BookingOp};
use crate::model::value::FieldValue;
use crate::model::world::FieldType;

use super::super::state::{sort_like_schema, Rec};
use super::super::values::from_json;
use super::super::{CallResult, Runtime};
use super::argument;

pub fn run(rt: &mut Runtime, b: &Booking, arguments: &Json) -> CallResult {
    let operation = argument(arguments, Some(&b.operation_argument)).unwrap_or_default();
    let request = argument(arguments, b.request_argument.as_ref()).map(str::to_string);
    match operation.parse::<BookingOp>().ok() {
        Some(BookingOp::Create) => rt.idempotent(request.as_deref(), |rt| create(rt, b, arguments)),
        Some(BookingOp::Reschedule) => {
            rt.idempotent(request.as_deref(), |rt| reschedule(rt, b, arguments))
        }
        Some(BookingOp::Cancel) => rt.idempotent(request.as_deref(), |rt| cancel(rt, b, arguments)),
        // A lookup's request id is what it looks for, not a write to deduplicate.
        Some(BookingOp::Lookup) => lookup(rt, b, arguments),
        None => CallResult::error(
            "UNKNOWN_OPERATION",
            format!("`{operation}` is not an operation"),
        ),
    }
}

/// The offered slot a call names, if it can be booked.
fn bookable_slot(rt: &Runtime, b: &Booking, arguments: &Json) -> Result<Rec, CallResult> {
    let wanted = argument(arguments, Some(&b.slot_argument)).unwrap_or_default();
    let at = from_json(&json!(wanted), &FieldType::DateTime, rt.zone).ok();
    let start = b.start_field.as_str();
    let slot = rt.state.in_collection(b.slots_collection.as_str()).find(|s| {
        s.id == wanted
            || matches!((s.field(start), &at), (Some(FieldValue::DateTime(a)), Some(FieldValue::DateTime(b))) if a.instant == b.instant)
    });
    let Some(slot) = slot else {
        let offered: Vec<String> = rt
            .state
            .in_collection(b.slots_collection.as_str())
            .map(|s| {
                let when = s
                    .field(start)
                    .map(|v| v.to_json().to_string())
                    .unwrap_or_default();
                format!("{} ({when})", s.id)
            })
            .collect();
        let listed = if offered.is_empty() {
            "none".to_string()
        } else {
            offered.join(", ")
        };
        return Err(CallResult::error(
            "SLOT_NOT_OFFERED",
            format!("`{wanted}` is not an offered slot; offered: {listed}"),
        ));
    };
    // A provider named by id must be the slot's: a slot is offered by one provider.
    let provider = b.provider_field.as_str();
    let providers = provider_collections(rt, b);
    let named = argument(arguments, Some(&b.target_argument)).filter(|id| {
        rt.state
            .get(id)
            .is_some_and(|r| providers.contains(&r.collection.as_str()))
    });
    if let Some(named) =
        named.filter(|p| slot.field(provider) != Some(&FieldValue::Ref(p.to_string())))
    {
        return Err(CallResult::error(
            "SLOT_NOT_OFFERED",
            format!("{} is not offered by {named}", slot.id),
        ));
    }
    let taken = rt
        .state
        .in_collection(b.bookings_collection.as_str())
        .any(|booking| {
            booking.field(b.slot_field.as_str()) == Some(&FieldValue::Ref(slot.id.clone()))
                && is_status(booking, b, &b.confirmed_value)
        });
    if taken {
        return Err(CallResult::error(
            "SLOT_NO_LONGER_AVAILABLE",
            format!("{} is already booked", slot.id),
        ));
    }
    Ok(slot.clone())
}

/// The collections the slots' provider field refers to.
fn provider_collections<'r>(rt: &'r Runtime, b: &Booking) -> Vec<&'r str> {
    let field = rt
        .sandbox
        .schema
        .collection(b.slots_collection.as_str())
        .and_then(|c| c.field(b.provider_field.as_str()));
    match field.map(|f| &f.ty) {
        Some(FieldType::Ref(targets)) => targets.iter().map(String::as_str).collect(),
        _ => Vec::new(),
    }
}

fn is_status(booking: &Rec, b: &Booking, value: &str) -> bool {
    booking.field(b.status_field.as_str()) == Some(&FieldValue::Enum(value.to_string()))
}

/// Every slot-given field of a booking as it is for `slot`: `None` for those the slot
/// lacks, so that a rescheduled booking keeps nothing of its old slot.
fn slot_updates(slot: &Rec, b: &Booking) -> Vec<(String, Option<FieldValue>)> {
    let mut fields = vec![(
        b.slot_field.as_str().to_string(),
        Some(FieldValue::Ref(slot.id.clone())),
    )];
    fields.extend(b.copied_fields.iter().map(|name| {
        (
            name.as_str().to_string(),
            slot.field(name.as_str()).cloned(),
        )
    }));
    fields
}

fn create(rt: &mut Runtime, b: &Booking, arguments: &Json) -> CallResult {
    let slot = match bookable_slot(rt, b, arguments) {
        Ok(slot) => slot,
        Err(refusal) => return refusal,
    };
    let schema = rt.sandbox.schema.clone();
    let Some(collection) = schema.collection(b.bookings_collection.as_str()) else {
        return CallResult::error("UNAVAILABLE", "this sandbox holds no bookings");
    };
    let mut fields: Vec<(String, FieldValue)> = slot_updates(&slot, b)
        .into_iter()
        .filter_map(|(name, value)| Some((name, value?)))
        .collect();
    fields.push((
        b.status_field.as_str().to_string(),
        FieldValue::Enum(b.confirmed_value.clone()),
    ));
    sort_like_schema(&mut fields, collection);
    let id = rt.state.next_id(collection);
    let booking = Rec {
        collection: b.bookings_collection.as_str().to_string(),
        id: id.clone(),
        fields,
        history: Vec::new(),
    };
    let shown = confirmed(&booking);
    rt.state.insert(booking);
    CallResult::ok(shown, vec![id.clone()], vec![id])
}

fn confirmed(booking: &Rec) -> Json {
    json!({ "booking_id": booking.id, "booking": booking.to_json() })
}

/// The confirmed booking a call names by id.
fn named_booking(rt: &Runtime, b: &Booking, arguments: &Json) -> Result<String, CallResult> {
    let id = argument(arguments, Some(&b.target_argument)).unwrap_or_default();
    match rt.state.get(id) {
        Some(booking)
            if booking.collection == b.bookings_collection.as_str()
                && is_status(booking, b, &b.confirmed_value) =>
        {
            Ok(booking.id.clone())
        }
        _ => Err(CallResult::error(
            "BOOKING_NOT_FOUND",
            format!("`{id}` is not a confirmed booking"),
        )),
    }
}

fn reschedule(rt: &mut Runtime, b: &Booking, arguments: &Json) -> CallResult {
    let booking = match named_booking(rt, b, arguments) {
        Ok(id) => id,
        Err(refusal) => return refusal,
    };
    let slot = match bookable_slot(rt, b, arguments) {
        Ok(slot) => slot,
        Err(refusal) => return refusal,
    };
    change_booking(rt, b, &booking, slot_updates(&slot, b), "reschedule")
}

fn cancel(rt: &mut Runtime, b: &Booking, arguments: &Json) -> CallResult {
    match named_booking(rt, b, arguments) {
        Ok(id) => {
            let status = (
                b.status_field.as_str().to_string(),
                Some(FieldValue::Enum(b.cancelled_value.clone())),
            );
            change_booking(rt, b, &id, vec![status], "cancel")
        }
        Err(refusal) => refusal,
    }
}

fn change_booking(
    rt: &mut Runtime,
    b: &Booking,
    id: &str,
    fields: Vec<(String, Option<FieldValue>)>,
    reason: &str,
) -> CallResult {
    let schema = rt.sandbox.schema.clone();
    let now = rt.now_text().to_string();
    let (Some(collection), Some(booking)) = (
        schema.collection(b.bookings_collection.as_str()),
        rt.state.get_mut(id),
    ) else {
        return CallResult::not_found(id);
    };
    booking.apply(fields, &now, Some(reason), collection);
    let shown = confirmed(booking);
    CallResult::ok(shown, vec![id.to_string()], vec![id.to_string()])
}

/// By request id (the write made under it), booking id, or provider id; none: all.
fn lookup(rt: &mut Runtime, b: &Booking, arguments: &Json) -> CallResult {
    let key = argument(arguments, b.request_argument.as_ref())
        .or(argument(arguments, Some(&b.target_argument)));
    let provider = b.provider_field.as_str();
    let found: Vec<&Rec> = match key {
        Some(key) => {
            let id = rt.request_record(key).unwrap_or(key).to_string();
            rt.state
                .in_collection(b.bookings_collection.as_str())
                .filter(|r| r.id == id || r.field(provider) == Some(&FieldValue::Ref(id.clone())))
                .collect()
        }
        None => rt
            .state
            .in_collection(b.bookings_collection.as_str())
            .collect(),
    };
    if found.is_empty() {
        return CallResult::not_found(key.unwrap_or(b.bookings_collection.as_str()));
    }
    let ids = found.iter().map(|r| r.id.clone()).collect();
    let bookings: Vec<Json> = found.iter().map(|r| r.to_json()).collect();
    CallResult::ok(json!({ "bookings": bookings }), ids, Vec::new())
}
