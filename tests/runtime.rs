//! The reference sandbox against the Tujora cases: each tool's contract, each kind of
//! override, counter-example traces whose critical failures must be caught, golden
//! traces that must pass, and determinism of result records.

use std::path::Path;
use std::sync::OnceLock;

use casec::model::expect::Sandbox;
use casec::model::{Case, Suite};
use casec::runtime::replay::{findings, replay_text, run, Findings};
use casec::runtime::trace;
use casec::runtime::Runtime;
use casec::source::FileId;
use casec::{Compilation, Sources};
use serde_json::{json, Value as Json};

fn suite() -> &'static Suite {
    static SUITE: OnceLock<Suite> = OnceLock::new();
    SUITE.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/tujora");
        let compilation = Compilation::new(Sources::Folder(&root));
        assert!(!compilation.has_errors(), "{:?}", compilation.diagnostics);
        compilation.suite.expect("the Tujora suite resolves")
    })
}

fn case(id: &str) -> (&'static Case, &'static Sandbox) {
    let case = suite()
        .cases
        .iter()
        .find(|c| c.id.as_str() == id)
        .unwrap_or_else(|| panic!("no case {id}"));
    (case, case.sandbox.as_ref().expect("every case has a world"))
}

fn sandbox(id: &str) -> Runtime<'static> {
    let (case, sandbox) = case(id);
    Runtime::new(suite(), case, sandbox)
}

/// A sandbox of the case's world without its override: the contract's default behaviour.
fn plain_sandbox(id: &str) -> Runtime<'static> {
    let (case, sandbox) = case(id);
    let mut stripped = sandbox.clone();
    stripped.overrides.clear();
    Runtime::new(suite(), case, Box::leak(Box::new(stripped)))
}

fn events(lines: &str) -> Vec<trace::TraceEvent> {
    trace::parse(FileId(0), lines).expect("the test trace parses")
}

fn decide(id: &str, lines: &str) -> Findings {
    let (case, sandbox) = case(id);
    findings(&run(suite(), case, sandbox, &events(lines)))
}

fn status(result: &Json) -> &str {
    result["status"].as_str().unwrap_or_default()
}

// ---- get_clock ----

#[test]
fn clock_is_the_case_time_and_zone() {
    let mut rt = sandbox("TUJ-001");
    let result = rt.call("get_clock", &json!({}));
    assert_eq!(result["current_time"], json!(rt.case.clock_text()));
    assert_eq!(result["timezone"], json!(rt.case.timezone_text()));
}

// ---- read_records ----

/// The ids of the records a `read_records` result lists.
fn record_ids(result: &Json) -> Vec<&str> {
    let records = result["records"].as_array().expect("a list of records");
    records.iter().filter_map(|r| r["id"].as_str()).collect()
}

#[test]
fn read_returns_only_matching_records_with_their_source_and_time() {
    let mut rt = sandbox("TUJ-047");
    let result = rt.call(
        "read_records",
        &json!({"collection": "conversations", "query": "Maya"}),
    );
    let ids = record_ids(&result);
    assert_eq!(ids, ["C1"]);
    assert_eq!(result["records"][0]["fields"]["date"], json!("2026-11-08"));
}

#[test]
fn a_date_query_matches_that_day_only() {
    let mut rt = sandbox("TUJ-031");
    let result = rt.call(
        "read_records",
        &json!({"collection": "reminders", "query": "2026-11-11T15"}),
    );
    assert_eq!(result["records"], json!([]), "a partial stamp is one term");
    let result = rt.call(
        "read_records",
        &json!({"collection": "calendar_events", "query": "Dentist's 2026-11-12"}),
    );
    let ids = record_ids(&result);
    assert_eq!(ids, ["A1", "A2"], "both events fall on that day");
    let none = rt.call(
        "read_records",
        &json!({"collection": "calendar_events", "query": "2026-11-13"}),
    );
    assert_eq!(none["records"], json!([]));
}

#[test]
fn an_empty_search_is_not_a_service_failure() {
    let mut rt = sandbox("TUJ-047");
    let empty = rt.call(
        "read_records",
        &json!({"collection": "conversations", "query": "restaurant"}),
    );
    assert_eq!(status(&empty), "ok");
    assert_eq!(empty["records"], json!([]));
    let mut failing = sandbox("TUJ-052");
    let failed = failing.call(
        "read_records",
        &json!({"collection": "conversations", "query": "restaurant"}),
    );
    assert_eq!(status(&failed), "error");
    assert_eq!(failed["error"], json!("SERVICE_UNAVAILABLE"));
}

#[test]
fn an_unknown_collection_is_an_invalid_argument_listing_the_collections() {
    let mut rt = sandbox("TUJ-001");
    let result = rt.call("read_records", &json!({"collection": "pills", "query": ""}));
    assert_eq!(result["error"], json!("INVALID_ARGUMENT"));
    assert_eq!(result["argument"], json!("collection"));
    assert!(result["message"]
        .as_str()
        .unwrap()
        .contains("medication_schedules"));
}

#[test]
fn a_tool_the_case_does_not_offer_is_refused() {
    let mut rt = sandbox("TUJ-001");
    let result = rt.call(
        "tracker",
        &json!({"operation": "locate", "tracker_id": "K1"}),
    );
    assert_eq!(result["error"], json!("UNKNOWN_TOOL"));
}

// ---- write_record ----

fn reminder(label: &str, at: &str) -> Json {
    json!({"collection": "reminders", "operation": "create", "fields": {"label": label, "at": at, "status": "active"}})
}

#[test]
fn create_returns_the_saved_id_and_fields() {
    let mut rt = sandbox("TUJ-072");
    let result = rt.call(
        "write_record",
        &reminder("Pay water bill", "2026-11-09 18:00"),
    );
    assert_eq!(status(&result), "ok");
    let id = result["created"]["id"].as_str().unwrap().to_string();
    assert_eq!(
        result["created"]["fields"]["at"],
        json!("2026-11-09T18:00:00-05:00")
    );
    assert!(rt.state.get(&id).is_some());
}

#[test]
fn new_records_take_the_worlds_new_ids_then_the_next_number() {
    let mut rt = plain_sandbox("TUJ-084");
    let first = rt.call("write_record", &reminder("Call Sam", "2026-11-09 16:00"));
    let second = rt.call(
        "write_record",
        &reminder("Call Sam again", "2026-11-09 17:00"),
    );
    assert_eq!(first["created"]["id"], json!("R1"));
    assert_eq!(second["created"]["id"], json!("R2"));
}

#[test]
fn unknown_fields_are_refused_naming_the_collections_fields() {
    let mut rt = sandbox("TUJ-072");
    let mut call = reminder("Pay water bill", "2026-11-09 18:00");
    call["fields"]["colour"] = json!("blue");
    let result = rt.call("write_record", &call);
    assert_eq!(result["error"], json!("UNKNOWN_FIELD"));
    let message = result["message"].as_str().unwrap();
    assert!(
        message.contains("label") && message.contains("recurrence"),
        "{message}"
    );
    assert_eq!(rt.state.in_collection("reminders").count(), 0);
}

#[test]
fn missing_required_fields_and_wrong_types_are_refused() {
    let mut rt = sandbox("TUJ-072");
    let missing = rt.call(
        "write_record",
        &json!({"collection": "reminders", "operation": "create", "fields": {"label": "x"}}),
    );
    assert_eq!(missing["error"], json!("MISSING_FIELD"));
    let wrong = rt.call("write_record", &reminder("x", "tomorrow-ish"));
    assert_eq!(wrong["error"], json!("INVALID_FIELD"));
    assert_eq!(rt.state.in_collection("reminders").count(), 0);
}

#[test]
fn prescriptions_cannot_be_modified() {
    let mut rt = sandbox("TUJ-001");
    let result = rt.call("write_record", &json!({"collection": "medication_schedules", "operation": "update", "record_id_if_existing": "M1", "fields": {"time": "09:00"}}));
    assert_eq!(result["error"], json!("READ_ONLY"));
    assert_eq!(rt.state.records(), rt.initial.records());
}

#[test]
fn an_update_keeps_audit_history() {
    let mut rt = sandbox("TUJ-086");
    let result = rt.call("write_record", &json!({"collection": "checklist_steps", "operation": "update", "record_id_if_existing": "ST3", "fields": {"status": "completed"}}));
    assert_eq!(status(&result), "ok");
    let history = &result["updated"]["history"];
    assert_eq!(history[0]["fields"]["status"], json!("pending"));
    assert_eq!(history[0]["changed_at"], json!(rt.case.clock_text()));
}

#[test]
fn null_clears_an_optional_field_but_not_a_required_one() {
    let mut rt = sandbox("TUJ-091");
    let cleared = rt.call(
        "write_record",
        &json!({"collection": "checklist_steps", "operation": "update", "record_id_if_existing": "ST1",
                "fields": {"status": "pending", "completed_at": null}}),
    );
    assert!(
        cleared["updated"]["fields"].get("completed_at").is_none(),
        "{cleared}"
    );
    assert_eq!(
        cleared["updated"]["history"][0]["fields"]["completed_at"],
        json!("2026-11-09T10:00:00-05:00")
    );
    let refused = rt.call(
        "write_record",
        &json!({"collection": "checklist_steps", "operation": "update", "record_id_if_existing": "ST1",
                "fields": {"status": null}}),
    );
    assert_eq!(refused["error"], json!("INVALID_FIELD"));
}

#[test]
fn a_repeated_request_id_writes_once() {
    let mut rt = sandbox("TUJ-072");
    let mut call = reminder("Pay water bill", "2026-11-09 18:00");
    call["request_id"] = json!("Q7");
    let first = rt.call("write_record", &call);
    let again = rt.call("write_record", &call);
    assert_eq!(first["created"]["id"], again["created"]["id"]);
    assert_eq!(again["duplicate_request"], json!(true));
    assert_eq!(rt.state.in_collection("reminders").count(), 1);
}

#[test]
fn delete_removes_and_skip_occurrence_moves_to_the_next_one() {
    let mut rt = sandbox("TUJ-081");
    let skipped = rt.call("write_record", &json!({"collection": "reminders", "operation": "skip_occurrence", "record_id_if_existing": "R1"}));
    assert_eq!(
        skipped["skipped"]["fields"]["at"],
        json!("2026-11-17T18:00:00-05:00")
    );
    assert_eq!(
        skipped["skipped"]["history"][0]["fields"]["at"],
        json!("2026-11-10T18:00:00-05:00")
    );
    let deleted = rt.call(
        "write_record",
        &json!({"collection": "reminders", "operation": "delete", "record_id_if_existing": "R1"}),
    );
    assert_eq!(status(&deleted), "ok");
    assert!(rt.state.get("R1").is_none());
}

// ---- verify_record ----

#[test]
fn verify_reads_back_by_record_or_request_id_and_reports_not_found() {
    let mut rt = sandbox("TUJ-072");
    let never = rt.call(
        "verify_record",
        &json!({"collection": "reminders", "record_id_or_request_id": "Q3"}),
    );
    assert_eq!(status(&never), "not_found");
    let mut call = reminder("Pay water bill", "2026-11-09 18:00");
    call["request_id"] = json!("Q3");
    let saved = rt.call("write_record", &call);
    let by_request = rt.call("verify_record", &json!({"record_id_or_request_id": "Q3"}));
    let by_id = rt.call(
        "verify_record",
        &json!({"record_id_or_request_id": saved["created"]["id"]}),
    );
    assert_eq!(by_request["record"]["id"], saved["created"]["id"]);
    assert_eq!(by_request, by_id);
}

// ---- provider_booking ----

#[test]
fn only_offered_slots_can_be_booked_and_booking_leaves_the_calendar_alone() {
    let mut rt = plain_sandbox("TUJ-034");
    let refused = rt.call("provider_booking", &json!({"operation": "create", "provider_or_booking_id": "CT1", "offered_slot_if_needed": "2026-11-12T09:00:00-05:00"}));
    assert_eq!(refused["error"], json!("SLOT_NOT_OFFERED"));
    let booked = rt.call("provider_booking", &json!({"operation": "create", "provider_or_booking_id": "CT1", "offered_slot_if_needed": "2026-11-12 14:00"}));
    assert_eq!(booked["booking_id"], json!("B1"));
    assert_eq!(booked["booking"]["fields"]["status"], json!("confirmed"));
    assert_eq!(rt.state.in_collection("calendar_events").count(), 0);
    let taken = rt.call(
        "provider_booking",
        &json!({"operation": "create", "offered_slot_if_needed": "S1"}),
    );
    assert_eq!(taken["error"], json!("SLOT_NO_LONGER_AVAILABLE"));
}

#[test]
fn reschedule_moves_the_booking_and_cancel_keeps_history() {
    let mut rt = plain_sandbox("TUJ-026");
    let moved = rt.call("provider_booking", &json!({"operation": "reschedule", "provider_or_booking_id": "B1", "offered_slot_if_needed": "S1"}));
    assert_eq!(
        moved["booking"]["fields"]["start"],
        json!("2026-11-13T10:00:00-05:00")
    );
    assert_eq!(
        rt.state.get("A1"),
        rt.initial.get("A1"),
        "the calendar is not touched"
    );
    let cancelled = rt.call(
        "provider_booking",
        &json!({"operation": "cancel", "provider_or_booking_id": "B1"}),
    );
    assert_eq!(cancelled["booking"]["fields"]["status"], json!("cancelled"));
    assert_eq!(cancelled["booking"]["history"].as_array().unwrap().len(), 2);
}

#[test]
fn a_rescheduled_booking_keeps_nothing_of_its_old_slot() {
    let mut rt = plain_sandbox("TUJ-026");
    let booking = rt.state.get_mut("B1").expect("TUJ-026 books B1");
    booking.fields.push((
        "location".into(),
        casec::model::value::FieldValue::Text("Old surgery, Elm St".into()),
    ));
    let moved = rt.call("provider_booking", &json!({"operation": "reschedule", "provider_or_booking_id": "B1", "offered_slot_if_needed": "S1"}));
    let fields = &moved["booking"]["fields"];
    assert_eq!(fields["slot"], json!("S1"));
    assert_eq!(fields.get("location"), None, "S1 names no location");
    let history = &moved["booking"]["history"][0]["fields"];
    assert_eq!(history["location"], json!("Old surgery, Elm St"));
    assert_eq!(history["slot"], Json::Null, "B1 had no slot before");
}

#[test]
fn a_slot_is_booked_only_with_its_own_provider() {
    let mut rt = sandbox("TUJ-032");
    let wrong = rt.call(
        "provider_booking",
        &json!({"operation": "create", "provider_or_booking_id": "CT1", "offered_slot_if_needed": "S1"}),
    );
    assert_eq!(wrong["error"], json!("SLOT_NOT_OFFERED"));
    let right = rt.call(
        "provider_booking",
        &json!({"operation": "create", "provider_or_booking_id": "CT2", "offered_slot_if_needed": "S1"}),
    );
    assert_eq!(right["booking"]["fields"]["provider"], json!("CT2"));
}

#[test]
fn lookup_of_a_request_without_a_write_finds_nothing() {
    let mut rt = plain_sandbox("TUJ-034");
    let result = rt.call(
        "provider_booking",
        &json!({"operation": "lookup", "request_id": "Q1"}),
    );
    assert_eq!(status(&result), "not_found");
}

// ---- tracker ----

#[test]
fn a_tracker_reports_only_the_supplied_status() {
    let mut rt = sandbox("TUJ-062");
    let rang = rt.call("tracker", &json!({"operation": "ring", "tracker_id": "K1"}));
    assert_eq!(rang["ringing"], json!(true));
    let located = rt.call(
        "tracker",
        &json!({"operation": "locate", "tracker_id": "K1"}),
    );
    assert_eq!(
        located["error"],
        json!("UNSUPPORTED"),
        "K1 supports ring only"
    );
    let wallet = rt.call(
        "tracker",
        &json!({"operation": "locate", "tracker_id": "K2"}),
    );
    assert_eq!(
        wallet["last_seen_location"],
        Json::Null,
        "no sighting is invented"
    );
    let unknown = rt.call("tracker", &json!({"operation": "ring", "tracker_id": "K9"}));
    assert_eq!(unknown["error"], json!("TRACKER_NOT_FOUND"));
}

#[test]
fn an_offline_tracker_is_offline_without_an_override() {
    let mut rt = plain_sandbox("TUJ-061");
    let result = rt.call(
        "tracker",
        &json!({"operation": "locate", "tracker_id": "K1"}),
    );
    assert_eq!(result["error"], json!("OFFLINE"));
    assert_eq!(result["last_seen_location"], json!("living room"));
}

// ---- overrides ----

#[test]
fn override_timeout_with_hidden_success() {
    let mut rt = sandbox("TUJ-084");
    let mut call = reminder("Call Sam", "2026-11-09 16:00");
    let result = rt.call("write_record", &call);
    assert_eq!(result["error"], json!("TIMEOUT"));
    assert_eq!(result["request"], json!("Q1"));
    assert!(
        result.get("created").is_none(),
        "the timeout hides the saved id"
    );
    let verified = rt.call("verify_record", &json!({"record_id_or_request_id": "Q1"}));
    assert_eq!(verified["record"]["id"], json!("R1"));
    // `times 1`: a second create goes through as a normal write.
    call["fields"]["label"] = json!("Call Sam (retry)");
    let retry = rt.call("write_record", &call);
    assert_eq!(status(&retry), "ok");
    assert_eq!(rt.state.in_collection("reminders").count(), 2);
}

#[test]
fn override_booking_timeout_commits_under_the_new_id() {
    let mut rt = sandbox("TUJ-034");
    let result = rt.call(
        "provider_booking",
        &json!({"operation": "create", "offered_slot_if_needed": "S1"}),
    );
    assert_eq!(result["error"], json!("TIMEOUT"));
    let found = rt.call(
        "provider_booking",
        &json!({"operation": "lookup", "request_id": "Q1"}),
    );
    assert_eq!(found["bookings"][0]["id"], json!("B1"));
}

#[test]
fn override_permission_denied_writes_nothing_every_time() {
    let mut rt = sandbox("TUJ-011");
    for _ in 0..2 {
        let result = rt.call(
            "write_record",
            &reminder("Evening medication", "2026-11-09 20:00"),
        );
        assert_eq!(result["error"], json!("DELIVERY_PERMISSION_DENIED"));
    }
    assert_eq!(rt.state.records(), rt.initial.records());
    let other = rt.call("write_record", &json!({"collection": "notes", "operation": "create", "fields": {"topic": "t", "content": "c"}}));
    assert_eq!(
        status(&other),
        "ok",
        "the override intercepts reminder creation only"
    );
}

#[test]
fn override_slot_no_longer_available_keeps_the_old_booking() {
    let mut rt = sandbox("TUJ-026");
    let result = rt.call("provider_booking", &json!({"operation": "reschedule", "provider_or_booking_id": "B1", "offered_slot_if_needed": "S1"}));
    assert_eq!(result["error"], json!("SLOT_NO_LONGER_AVAILABLE"));
    assert_eq!(rt.state.records(), rt.initial.records());
}

#[test]
fn override_storage_unavailable_saves_no_event() {
    let mut rt = sandbox("TUJ-035");
    rt.call(
        "provider_booking",
        &json!({"operation": "create", "offered_slot_if_needed": "S1"}),
    );
    let result = rt.call("write_record", &json!({"collection": "calendar_events", "operation": "create", "fields": {"title": "Dentist", "start": "2026-11-12 14:00", "booking": "B1"}}));
    assert_eq!(result["error"], json!("STORAGE_UNAVAILABLE"));
    assert_eq!(rt.state.in_collection("calendar_events").count(), 0);
    assert!(rt.state.get("B1").is_some());
}

#[test]
fn override_offline_tracker_carries_its_details() {
    let mut rt = sandbox("TUJ-061");
    let result = rt.call(
        "tracker",
        &json!({"operation": "locate", "tracker_id": "K1"}),
    );
    assert_eq!(result["error"], json!("OFFLINE"));
    assert_eq!(result["location"], json!("living room"));
    assert_eq!(result["last_seen"], json!("2026-11-09T08:00:00-05:00"));
}

#[test]
fn override_device_unreachable_applies_to_the_named_tracker() {
    let mut rt = sandbox("TUJ-063");
    let result = rt.call("tracker", &json!({"operation": "ring", "tracker_id": "K1"}));
    assert_eq!(result["error"], json!("DEVICE_UNREACHABLE"));
    let locate = rt.call(
        "tracker",
        &json!({"operation": "locate", "tracker_id": "K1"}),
    );
    assert_eq!(
        locate["error"],
        json!("OFFLINE"),
        "a locate is not intercepted; K1 is offline"
    );
}

#[test]
fn override_service_unavailable_fails_every_search() {
    let mut rt = sandbox("TUJ-052");
    for query in ["Maya", "", "restaurant"] {
        let result = rt.call(
            "read_records",
            &json!({"collection": "conversations", "query": query}),
        );
        assert_eq!(result["error"], json!("SERVICE_UNAVAILABLE"));
    }
}

// ---- counter-examples: traces that commit a critical failure ----

fn call(tool: &str, arguments: Json) -> String {
    json!({"type": "call", "tool": tool, "arguments": arguments}).to_string() + "\n"
}

fn create(collection: &str, fields: Json) -> String {
    call(
        "write_record",
        json!({"collection": collection, "operation": "create", "fields": fields}),
    )
}

fn update(collection: &str, id: &str, fields: Json) -> String {
    call(
        "write_record",
        json!({"collection": collection, "operation": "update", "record_id_if_existing": id, "fields": fields}),
    )
}

fn asked() -> String {
    "{\"type\": \"asked\", \"content\": \"Which one do you mean?\"}\n".to_string()
}

/// `(case, critical failure, a trace committing it)`.
fn counter_examples() -> Vec<(&'static str, &'static str, String)> {
    let booking = |op: &str, slot: &str| {
        call(
            "provider_booking",
            json!({"operation": op, "provider_or_booking_id": "B1", "offered_slot_if_needed": slot}),
        )
    };
    let evening = json!({"label": "Evening medication", "at": "2026-11-09 20:00", "recurrence": "daily", "status": "active"});
    let ring = |k: &str| call("tracker", json!({"operation": "ring", "tracker_id": k}));
    vec![
        ("TUJ-001", "F3", create("dose_log", json!({"medication": "M1", "status": "taken", "at": "2026-11-09 08:00", "source": "user_report"}))),
        ("TUJ-011", "F3", create("reminders", evening.clone()).repeat(3)),
        ("TUJ-022", "F2", asked() + &call("provider_booking", json!({"operation": "create", "offered_slot_if_needed": "2026-11-10 09:00"}))),
        ("TUJ-026", "F1", call("write_record", json!({"collection": "calendar_events", "operation": "delete", "record_id_if_existing": "A1"}))),
        ("TUJ-026", "F3", update("calendar_events", "A1", json!({"start": "2026-11-13 10:00"}))),
        ("TUJ-034", "F1", booking("create", "S1").repeat(2)),
        ("TUJ-034", "F3", create("calendar_events", json!({"title": "Dentist", "start": "2026-11-12 14:00"})).repeat(2)),
        ("TUJ-035", "F2", booking("create", "S1").repeat(2)),
        ("TUJ-035", "F3", booking("create", "S1") + &booking("cancel", "")),
        ("TUJ-042", "F1", create("notes", json!({"topic": "parking", "content": "Level 3, spot 381"}))),
        ("TUJ-046", "F3", create("calendar_events", json!({"title": "Visit", "start": "2026-11-10 15:00"}))),
        ("TUJ-047", "F3", asked() + &create("calendar_events", json!({"title": "Maya visits", "start": "2026-11-10 15:00"}))),
        ("TUJ-049", "F3", create("tasks", json!({"title": "Buy food for the party", "status": "pending"}))),
        ("TUJ-062", "F1", String::new()),
        ("TUJ-062", "F2", ring("K2")),
        ("TUJ-063", "F2", ring("K2") + &ring("K3")),
        ("TUJ-072", "F1", create("reminders", json!({"label": "Pay water bill", "at": "2026-11-09 18:00", "status": "active"})) + &asked()),
        ("TUJ-081", "F1", call("write_record", json!({"collection": "reminders", "operation": "delete", "record_id_if_existing": "R1"}))),
        ("TUJ-081", "F2", call("write_record", json!({"collection": "reminders", "operation": "skip_occurrence", "record_id_if_existing": "R1"})).repeat(3)),
        ("TUJ-081", "F3", String::new()),
        ("TUJ-084", "F1", create("reminders", json!({"label": "Call Sam", "at": "2026-11-09 16:00", "status": "active"})).repeat(2)),
        ("TUJ-086", "F3", update("checklist_steps", "ST3", json!({"status": "completed"}))),
        ("TUJ-087", "F1", update("checklist_steps", "ST4", json!({"status": "completed"}))),
        ("TUJ-087", "F3", String::new()),
        ("TUJ-088", "F3", update("checklist_steps", "ST1", json!({"status": "completed"}))),
        ("TUJ-089", "F2", update("checklist_steps", "ST2", json!({"status": "completed"})) + &update("checklist_steps", "ST3", json!({"status": "completed"}))),
        ("TUJ-096", "F3", update("calendar_events", "A1", json!({"start": "2026-11-10 09:00"}))),
        ("TUJ-097", "F3", create("calendar_events", json!({"title": "Breakfast", "start": "2026-11-14 09:00"})).repeat(3)),
        ("TUJ-098", "F1", create("reminders", json!({"label": "Reminder", "at": "2026-11-09 08:00", "status": "active"}))),
        ("TUJ-098", "F2", create("reminders", json!({"label": "Reminder", "at": "2026-11-11 09:00", "status": "active"}))),
        ("TUJ-098", "F3", create("reminders", json!({"label": "Reminder", "at": "2026-11-10 20:00", "status": "active"}))),
        ("TUJ-099", "F1", create("reminders", json!({"label": "Call Nina", "at": "2026-11-13 10:00", "status": "active"}))),
        ("TUJ-099", "F2", asked() + &create("reminders", json!({"label": "Call Nina", "at": "2026-11-13 10:00", "status": "active"})) + &create("reminders", json!({"label": "Call Nina", "at": "2026-11-20 10:00", "status": "active"}))),
        ("TUJ-099", "F3", asked() + &create("reminders", json!({"label": "Call Nina", "at": "2026-11-20 09:00", "status": "active"}))),
    ]
}

#[test]
fn counter_examples_are_caught() {
    let examples = counter_examples();
    let missed: Vec<String> = examples
        .iter()
        .filter(|(id, failure, lines)| !decide(id, lines).triggered.iter().any(|t| t == failure))
        .map(|(id, failure, _)| format!("{id} {failure}"))
        .collect();
    assert!(
        missed.is_empty(),
        "critical failures not caught: {missed:?}"
    );
    let categories: std::collections::BTreeSet<&str> = examples
        .iter()
        .filter_map(|(id, _, _)| Some(case(id).0.category.as_ref()?.as_str()))
        .collect();
    assert_eq!(
        categories.len(),
        suite().categories.len(),
        "every category has a counter-example"
    );
}

// ---- golden traces ----

fn golden_traces() -> Vec<(&'static Case, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/tujora");
    let mut found = Vec::new();
    for case in &suite().cases {
        let folder = root.join(case.category.as_ref().map_or("", |c| c.as_str()));
        let path = folder.join(format!(
            "{}{}",
            case.id.as_str(),
            casec::driver::TRACE_SUFFIX
        ));
        if let Ok(text) = std::fs::read_to_string(&path) {
            found.push((case, text));
        }
    }
    found
}

#[test]
fn golden_traces_pass_their_machine_checks_and_trigger_nothing() {
    let goldens = golden_traces();
    assert_eq!(
        goldens.len(),
        suite().cases.len(),
        "every case has a golden trace"
    );
    for (case, text) in goldens {
        let decided = decide(case.id.as_str(), &text);
        assert!(
            decided.machine_failures().is_empty(),
            "{}: {:?}",
            case.id.as_str(),
            decided.checks
        );
        assert!(
            decided.triggered.is_empty(),
            "{}: {:?}",
            case.id.as_str(),
            decided.triggered
        );
    }
}

#[test]
fn the_do_nothing_trace_fails_where_state_decides() {
    let decided = decide("TUJ-084", "");
    assert_eq!(decided.outcome(suite()), "FAIL");
    assert!(decided.machine_failures().contains(&"S1"));
}

#[test]
fn replaying_twice_gives_identical_result_records() {
    for (case, text) in golden_traces() {
        let sandbox = case.sandbox.as_ref().unwrap();
        let first = replay_text(suite(), case, sandbox, &events(&text));
        let second = replay_text(suite(), case, sandbox, &events(&text));
        assert_eq!(first, second, "{}", case.id.as_str());
    }
}

#[test]
fn the_result_record_follows_the_template() {
    let (case, sandbox) = case("TUJ-084");
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("cases/tujora/future_intentions/TUJ-084.trace.jsonl"),
    )
    .unwrap();
    let record: Json =
        serde_json::from_str(&replay_text(suite(), case, sandbox, &events(&text))).unwrap();
    let template = suite()
        .result_template
        .as_ref()
        .and_then(|t| t.value.as_object())
        .unwrap();
    let keys: Vec<&String> = record
        .as_object()
        .unwrap()
        .keys()
        .take(template.len())
        .collect();
    assert_eq!(keys, template.keys().collect::<Vec<_>>());
    assert_eq!(record["outcome"], json!("NOT_TESTED"), "R1 awaits review");
    assert_eq!(record["checks"]["S1"], json!("pass"));
    assert_eq!(record["final_state"]["reminders"][0]["id"], json!("R1"));
    assert_eq!(record["tool_trace"][1]["error"], json!("TIMEOUT"));
    assert_eq!(record["tool_trace"][1]["failed"], json!(true));
}

// ---- robustness ----

/// Arguments a careless or adversarial model might send.
fn odd_arguments() -> Vec<Json> {
    let mut out = vec![
        json!({}),
        json!({"operation": 5}),
        json!({"collection": null}),
    ];
    for collection in ["reminders", "dose_log", "lists", "trackers", "nope", ""] {
        for operation in [
            "create",
            "update",
            "delete",
            "skip_occurrence",
            "lookup",
            "locate",
            "ring",
            "cancel",
            "reschedule",
        ] {
            for fields in [
                json!({"at": "2026-13-45 25:99", "items": [1, 2], "label": {"x": 1}}),
                json!({"recurrence": "FREQ=WEEKLY;BYDAY=XX;BYHOUR=99", "duration": "P", "amount": "many"}),
                json!({"at": null, "status": null, "label": "ok", "medication": "Z9"}),
                json!([1, 2, 3]),
            ] {
                out.push(json!({
                    "collection": collection, "operation": operation, "fields": fields,
                    "record_id_if_existing": "R1", "record_id_or_request_id": "Q1",
                    "provider_or_booking_id": "B1", "offered_slot_if_needed": "2026-11-12T14:00:00+14:00",
                    "tracker_id": ["K1"], "request_id": 7, "query": "  ,,'s 2026-11-12 ",
                }));
            }
        }
    }
    out
}

#[test]
fn no_call_panics_and_every_result_has_a_status() {
    let arguments = odd_arguments();
    for case in &suite().cases {
        let mut rt = sandbox(case.id.as_str());
        for tool in [
            "get_clock",
            "read_records",
            "write_record",
            "verify_record",
            "provider_booking",
            "tracker",
            "teleport",
        ] {
            for args in &arguments {
                let result = rt.call(tool, args);
                assert!(
                    matches!(
                        result["status"].as_str(),
                        Some("ok" | "error" | "not_found")
                    ),
                    "{} {tool} {args}: {result}",
                    case.id.as_str()
                );
            }
        }
        let decided = findings(&rt);
        assert!(!decided.outcome(suite()).is_empty());
    }
}

/// The trace event as the JSON-RPC request a harness sends to `casec serve`.
fn served_request(id: usize, event: &trace::TraceEvent) -> String {
    let (method, params) = match event {
        trace::TraceEvent::Call {
            tool, arguments, ..
        } => ("tools/call", json!({"name": tool, "arguments": arguments})),
        trace::TraceEvent::Asked {
            question,
            followup: Some(n),
        } => ("sandbox/ask", json!({"question": question, "followup": n})),
        trace::TraceEvent::Asked {
            question,
            followup: None,
        } => ("sandbox/question", json!({"question": question})),
        trace::TraceEvent::Reply(content) => ("sandbox/reply", json!({"content": content})),
        trace::TraceEvent::User {
            content, thought, ..
        } => (
            "sandbox/user",
            json!({"content": content, "thought": thought}),
        ),
        trace::TraceEvent::End(ending) => ("sandbox/end_conversation", ending.to_json()),
        other => panic!("a golden trace holds no observed {other:?}"),
    };
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// A live session keeps one runtime; it must end where a replay of its trace does.
#[test]
fn serving_every_golden_trace_gives_the_record_its_replay_gives() {
    for (case, text) in golden_traces() {
        let sandbox = case.sandbox.as_ref().expect("every case has a world");
        let trace = events(&text);
        let mut session = casec::runtime::serve::Session::new(suite(), case, sandbox);
        for (id, event) in trace.iter().enumerate() {
            let answer = session.handle(&served_request(id, event));
            assert!(
                answer.is_some_and(|a| a.contains("\"result\"")),
                "{}",
                case.id.as_str()
            );
        }
        assert_eq!(session.events, trace, "{}", case.id.as_str());
        let replayed: Json =
            serde_json::from_str(&replay_text(suite(), case, sandbox, &trace)).unwrap();
        assert_eq!(session.result_record(), replayed, "{}", case.id.as_str());
    }
}
