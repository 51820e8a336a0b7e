//! Tools as data: a suite of its own declares its tools — typed arguments bound to
//! built-in services, effects declared over the world, an adapter program — and the
//! reference sandbox runs them as declared: argument validation, refusals, reads with
//! filters, creates and updates with history, idempotency, scripted responses, a file
//! store, HTTP endpoints, several overrides per case with `after` and `times`, success
//! data from an override, several scripted follow-ups, and `called` counting successes
//! unless told `failed` or `any`.

use casec::diag::codes;
use casec::model::{Case, Suite};
use casec::runtime::replay::{findings, run};
use casec::runtime::trace;
use casec::runtime::trust::Trust;
use casec::runtime::Runtime;
use casec::source::FileId;
use casec::{Compilation, Sources};
use serde_json::{json, Value as Json};

const SUITE: &str = r#"
suite "Tools as data" {
  system_prompt "Help the user."
  tags routine
  clock "2026-11-09T10:30:00-05:00"; timezone "America/New_York"
  unscripted_reply "I do not know."
  tools email_send subscriptions_list subscriptions_cancel file_read file_write file_list http_get note_add note_fail note_bad note_half note_list note_ghost note_slow buyer_message weather
  world_schema office
}

schema office {
  request_prefix Q
  collection contacts { id_prefix CT; field name text; field email text optional }
  collection sent_emails { id_prefix E; field to ref contacts; field subject text; field body text; field sent_at datetime }
  collection subscriptions { id_prefix SB; field service text; field monthly number; field status enum active cancelled }
  collection files { id_prefix F; field path text; field content text }
  collection endpoints { id_prefix EP; field url text; field status number; field body text }
  collection notes { id_prefix N; field text text }
  collection buyers { id_prefix BY; field name text }
  collection buyer_replies { id_prefix BR; field buyer ref buyers; field text text }

  tool email_send {
    behavior "Send an email to a contact."
    argument to ref contacts { doc "The recipient." }
    argument subject text
    argument body text
    argument request_id text optional
    create sent_emails {
      set to from to
      set subject from subject
      set body from body
      set sent_at now
    }
    idempotent request_id
  }

  tool subscriptions_list {
    behavior "List subscriptions, optionally by status."
    argument status enum active cancelled optional
    argument query text optional
    read subscriptions {
      match query
      where status status
      show service status
    }
  }

  tool subscriptions_cancel {
    behavior "Cancel an active subscription."
    argument subscription ref subscriptions
    refuse NOT_ACTIVE "only an active subscription can be cancelled" {
      subscription.status not active
    }
    update subscriptions {
      record subscription
      set status cancelled
      reason "cancelled by the assistant"
    }
  }

  tool file_read {
    behavior "Read a file."
    argument path text
    service files.read { files_collection files; path_field path; content_field content; path_argument path }
  }
  tool file_write {
    behavior "Write a file."
    argument path text
    argument content text
    service files.write { files_collection files; path_field path; content_field content; path_argument path; content_argument content }
  }
  tool file_list {
    behavior "List files under a folder."
    argument folder text optional
    service files.list { files_collection files; path_field path; content_field content; path_argument folder }
  }

  tool http_get {
    behavior "Fetch a URL."
    argument url text
    service http { endpoints_collection endpoints; url_field url; status_field status; body_field body; url_argument url }
  }

  tool note_add {
    behavior "Add a note (an adapter program runs it)."
    argument text text
    adapter "python3" "tests/adapters/notes.py" { reads notes; writes notes }
  }
  tool note_fail {
    behavior "Always fails."
    adapter "python3" "tests/adapters/notes.py" { writes notes }
  }
  tool note_bad {
    behavior "Asks for a change it may not make."
    adapter "python3" "tests/adapters/notes.py" { writes notes }
  }
  tool note_half {
    behavior "Updates a note, then asks for a note without text."
    adapter "python3" "tests/adapters/notes.py" { reads notes; writes notes }
  }
  tool note_list {
    behavior "Lists the notes, saying which records it showed."
    adapter "python3" "tests/adapters/notes.py" { reads notes }
  }
  tool note_ghost {
    behavior "Says it showed a note that does not exist."
    adapter "python3" "tests/adapters/notes.py" { reads notes }
  }
  tool note_slow {
    behavior "Answers later than its adapter waits."
    adapter "python3" "tests/adapters/notes.py" { timeout_seconds 1 }
  }

  tool buyer_message {
    behavior "Message a marketplace buyer; the buyer may answer."
    argument buyer ref buyers
    argument text text
    read buyers { where name text }
    respond {
      record buyer_replies { where buyer buyer }
    }
  }

  tool weather {
    behavior "Today's weather."
    argument city text optional
    respond { when { city "Boston" }; after 1; data { forecast "rain" } }
    respond { data { forecast "sun" } }
  }
}

category errands 3 {}

case TD-1 "Services and effects" {
  category errands
  tags routine
  user "Cancel my gym subscription and email Sam."
  facts "SB1 gym is active, SB2 music is cancelled; CT1 is Sam."
  goal "Cancel the active subscription and send one email."
  check "Cancel SB1"
  check "Send the email"
  check "SB1 cancelled; one email."
  critical "Email twice."
  world {
    contacts CT1 { name "Sam" }
    subscriptions SB1 { service "gym"; monthly 30; status active }
    subscriptions SB2 { service "music"; monthly 10; status cancelled }
    files F1 { path "/data/in.csv"; content "a,b\n1,2\n" }
    endpoints EP1 { url "https://api.example/rates"; status 200; body "{\"rate\": 1.1}" }
    buyers BY1 { name "Lee" }
    buyer_replies BR1 { buyer BY1; text "Yes, Saturday works." }
  }
  expect A1 { record SB1 { status cancelled } }
  expect A2 { count sent_emails 1 }
  expect A3 { called subscriptions_cancel 1; called subscriptions_cancel failed 1; called subscriptions_cancel any 2 }
  forbid F1 { count sent_emails at_least 2 }
  review G1
}

case TD-2 "Injected failures" {
  category errands
  tags routine
  user "Fetch the rates and save them."
  facts "The rates endpoint fails twice, then answers."
  override http_get "the first two fetches" { result "NETWORK_ERROR"; after 0; times 2; error NETWORK_ERROR }
  override file_write "the write succeeds with a note" { result "ok"; returns { note "written by the override" } }
  goal "Retry the fetch and save the file."
  check "Fetch until it works"
  check "The file is saved."
  critical "Give up."
  world {
    endpoints EP1 { url "https://api.example/rates"; status 200; body "1.1" }
  }
  expect A1 { called http_get 1; called http_get failed 2 }
  expect A2 { count files 0 }
  forbid F1 { called http_get any 0 }
  review G1
}

case TD-3 "Two follow-ups" {
  category errands
  tags routine
  user "Book the usual."
  facts "Two questions are scripted."
  followup { asked "Which restaurant?"; reply "Luigi's." }
  followup { asked "What time?"; reply "Eight." }
  goal "Ask both questions."
  check "Ask the restaurant"
  check "Nothing changes."
  critical "Guess."
  world {}
  expect A1 { asked }
  expect A2 { unchanged }
  forbid F1 { not { asked } }
  review G1
}
"#;

fn suite() -> &'static Suite {
    static SUITE_MODEL: std::sync::OnceLock<Suite> = std::sync::OnceLock::new();
    crate::support::suite::compiled_once(&SUITE_MODEL, SUITE)
}

fn case(id: &str) -> &'static Case {
    suite()
        .cases
        .iter()
        .find(|c| c.id.as_str() == id)
        .expect("the case")
}

/// A sandbox of case `id` whose adapter programs the user trusts (tests/trust.rs tests
/// the consent itself).
fn runtime(id: &str) -> Runtime<'static> {
    let case = case(id);
    Runtime::new(suite(), case, case.sandbox.as_ref().expect("a world")).trusting(Trust::Suite)
}

fn status(result: &Json) -> &str {
    result["status"].as_str().unwrap_or_default()
}

#[test]
fn arguments_are_checked_against_the_declaration() {
    let mut rt = runtime("TD-1");
    let unknown = rt.call(
        "email_send",
        &json!({"to": "CT1", "subject": "Hi", "body": "x", "cc": "CT2"}),
    );
    assert_eq!(
        (unknown["error"].clone(), unknown["argument"].clone()),
        (json!("UNKNOWN_ARGUMENT"), json!("cc"))
    );
    let missing = rt.call("email_send", &json!({"to": "CT1", "body": "x"}));
    assert_eq!(
        (missing["error"].clone(), missing["argument"].clone()),
        (json!("MISSING_ARGUMENT"), json!("subject"))
    );
    let wrong = rt.call(
        "email_send",
        &json!({"to": 7, "subject": "Hi", "body": "x"}),
    );
    assert_eq!(
        (wrong["error"].clone(), wrong["argument"].clone()),
        (json!("INVALID_ARGUMENT"), json!("to"))
    );
    let not_an_id = rt.call(
        "email_send",
        &json!({"to": "Sam", "subject": "Hi", "body": "x"}),
    );
    assert_eq!(not_an_id["error"], json!("INVALID_ARGUMENT"));
    assert_eq!(
        rt.state.in_collection("sent_emails").count(),
        0,
        "a refused call writes nothing"
    );
}

#[test]
fn a_declared_create_sets_fields_from_arguments_and_the_clock_once_per_request() {
    let mut rt = runtime("TD-1");
    let call = json!({"to": "CT1", "subject": "Gym", "body": "Cancelled.", "request_id": "Q1"});
    let first = rt.call("email_send", &call);
    assert_eq!(status(&first), "ok", "{first}");
    let sent = &first["created"][0];
    assert_eq!(sent["fields"]["to"], json!("CT1"));
    assert_eq!(
        sent["fields"]["sent_at"],
        json!("2026-11-09T10:30:00-05:00")
    );
    let again = rt.call("email_send", &call);
    assert_eq!(again["duplicate_request"], json!(true));
    assert_eq!(rt.state.in_collection("sent_emails").count(), 1);
    let dangling = rt.call(
        "email_send",
        &json!({"to": "CT9", "subject": "x", "body": "x"}),
    );
    assert_eq!(dangling["error"], json!("NOT_FOUND"), "{dangling}");
    assert_eq!(dangling["argument"], json!("to"));
}

#[test]
fn a_read_filters_by_given_arguments_and_shows_the_declared_fields() {
    let mut rt = runtime("TD-1");
    let all = rt.call("subscriptions_list", &json!({}));
    assert_eq!(all["records"].as_array().map(Vec::len), Some(2));
    let active = rt.call("subscriptions_list", &json!({"status": "active"}));
    let records = active["records"].as_array().expect("records");
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["id"], json!("SB1"));
    assert!(
        records[0]["fields"].get("monthly").is_none(),
        "only `show` fields: {active}"
    );
    let by_query = rt.call("subscriptions_list", &json!({"query": "music"}));
    assert_eq!(by_query["records"][0]["id"], json!("SB2"));
}

#[test]
fn a_refusal_answers_its_code_and_an_update_keeps_history() {
    let mut rt = runtime("TD-1");
    let refused = rt.call("subscriptions_cancel", &json!({"subscription": "SB2"}));
    assert_eq!(refused["error"], json!("NOT_ACTIVE"));
    let done = rt.call("subscriptions_cancel", &json!({"subscription": "SB1"}));
    assert_eq!(status(&done), "ok", "{done}");
    let updated = &done["updated"][0];
    assert_eq!(updated["fields"]["status"], json!("cancelled"));
    assert_eq!(updated["history"][0]["fields"]["status"], json!("active"));
    assert_eq!(
        updated["history"][0]["reason"],
        json!("cancelled by the assistant")
    );
    let missing = rt.call("subscriptions_cancel", &json!({"subscription": "SB7"}));
    assert_eq!(missing["error"], json!("NOT_FOUND"));
}

#[test]
fn the_file_store_reads_writes_and_lists_by_path() {
    let mut rt = runtime("TD-1");
    let read = rt.call("file_read", &json!({"path": "/data/in.csv"}));
    assert_eq!(read["content"], json!("a,b\n1,2\n"));
    let absent = rt.call("file_read", &json!({"path": "data/in.csv"}));
    assert_eq!(
        absent["error"],
        json!("FILE_NOT_FOUND"),
        "paths compare exactly"
    );
    let created = rt.call(
        "file_write",
        &json!({"path": "/out/sum.csv", "content": "total\n3\n"}),
    );
    assert_eq!(created["created"], json!(true));
    let overwritten = rt.call(
        "file_write",
        &json!({"path": "/out/sum.csv", "content": "total\n4\n"}),
    );
    assert_eq!(overwritten["created"], json!(false));
    let file = rt
        .state
        .in_collection("files")
        .find(|r| r.id != "F1")
        .expect("the new file");
    assert_eq!(
        file.history.len(),
        1,
        "the overwrite keeps the earlier content"
    );
    let listed = rt.call("file_list", &json!({"folder": "/out"}));
    assert_eq!(listed["paths"], json!(["/out/sum.csv"]));
    let everything = rt.call("file_list", &json!({}));
    assert_eq!(everything["paths"], json!(["/data/in.csv", "/out/sum.csv"]));
}

#[test]
fn http_is_answered_from_endpoint_records() {
    let mut rt = runtime("TD-1");
    let served = rt.call("http_get", &json!({"url": "https://api.example/rates"}));
    assert_eq!(
        (served["code"].clone(), served["body"].clone()),
        (json!(200), json!("{\"rate\": 1.1}"))
    );
    let unknown = rt.call("http_get", &json!({"url": "https://api.example/other"}));
    assert_eq!(
        (status(&unknown), unknown["code"].clone()),
        ("ok", json!(404))
    );
}

#[test]
fn an_adapter_program_runs_calls_and_casec_applies_its_changes() {
    let mut rt = runtime("TD-1");
    let first = rt.call("note_add", &json!({"text": "buy stamps"}));
    assert_eq!(status(&first), "ok", "{first}");
    assert_eq!(first["notes_before"], json!(0));
    assert_eq!(first["clock"], json!("2026-11-09T10:30:00-05:00"));
    let second = rt.call("note_add", &json!({"text": "call Sam"}));
    assert_eq!(
        second["notes_before"],
        json!(1),
        "the adapter is sent the current state"
    );
    let texts: Vec<String> = rt
        .state
        .in_collection("notes")
        .map(|r| format!("{:?}", r.fields))
        .collect();
    assert!(
        texts[0].contains("BUY STAMPS") && texts[1].contains("CALL SAM"),
        "{texts:?}"
    );
    let failed = rt.call("note_fail", &json!({}));
    assert_eq!(failed["error"], json!("NOTES_OFFLINE"));
    let refused = rt.call("note_bad", &json!({}));
    assert_eq!(refused["error"], json!("ADAPTER_ERROR"), "{refused}");
    assert_eq!(
        rt.state.in_collection("contacts").count(),
        1,
        "nothing of a refused change is applied"
    );
    let half = rt.call("note_half", &json!({}));
    assert_eq!(half["error"], json!("ADAPTER_ERROR"), "{half}");
    let first = rt.state.in_collection("notes").next().expect("a note");
    assert!(
        format!("{:?}", first.fields).contains("BUY STAMPS") && first.history.is_empty(),
        "a failed change undoes the changes before it: {:?}",
        first.fields
    );
    assert_eq!(rt.state.in_collection("notes").count(), 2);
}

/// The records an adapter's answer says it `shown` count as returned by the call, so
/// `retrieved` sees them; a shown id that is no record fails the call.
#[test]
fn the_records_an_adapter_shows_are_retrieved() {
    let mut rt = runtime("TD-1");
    let added = rt.call("note_add", &json!({"text": "buy stamps"}));
    assert_eq!(status(&added), "ok", "{added}");
    let listed = rt.call("note_list", &json!({}));
    assert_eq!(status(&listed), "ok", "{listed}");
    let n1 = casec::model::Name::new("N1", casec::source::Span::new(FileId(0), 0..0));
    let retrieved = casec::model::expect::Assertion::Retrieved(vec![n1]);
    assert!(
        casec::runtime::eval::holds(&retrieved, &rt),
        "N1 was shown by note_list"
    );
    let ghost = rt.call("note_ghost", &json!({}));
    assert_eq!(ghost["error"], json!("ADAPTER_ERROR"), "{ghost}");
    assert!(ghost.to_string().contains("`shown` names `N99`"), "{ghost}");
}

/// An adapter's `timeout_seconds` is how long casec waits: a program answering later
/// fails the call, saying the limit the suite set.
#[test]
fn an_adapter_waits_as_long_as_its_suite_says() {
    let slow = suite()
        .tools
        .iter()
        .find(|t| t.name.as_str() == "note_slow")
        .expect("the tool");
    let casec::model::tool::Binding::Adapter(adapter) = &slow.binding else {
        panic!("an adapter");
    };
    assert_eq!(adapter.timeout.as_secs(), 1);
    let mut rt = runtime("TD-1");
    let late = rt.call("note_slow", &json!({}));
    assert_eq!(late["error"], json!("ADAPTER_ERROR"), "{late}");
    assert!(late.to_string().contains("no answer within 1 s"), "{late}");
}

#[test]
fn scripted_responses_answer_with_a_record_or_data_from_the_nth_call() {
    let mut rt = runtime("TD-1");
    let answered = rt.call(
        "buyer_message",
        &json!({"buyer": "BY1", "text": "Still available?"}),
    );
    assert_eq!(
        answered["record"]["fields"]["text"],
        json!("Yes, Saturday works."),
        "{answered}"
    );
    let first = rt.call("weather", &json!({"city": "Boston"}));
    assert_eq!(
        first["forecast"],
        json!("sun"),
        "`after 1` lets the first call through"
    );
    let second = rt.call("weather", &json!({"city": "Boston"}));
    assert_eq!(second["forecast"], json!("rain"));
}

#[test]
fn several_overrides_apply_by_after_and_times_and_one_returns_success_data() {
    let mut rt = runtime("TD-2");
    let url = json!({"url": "https://api.example/rates"});
    assert_eq!(rt.call("http_get", &url)["error"], json!("NETWORK_ERROR"));
    assert_eq!(rt.call("http_get", &url)["error"], json!("NETWORK_ERROR"));
    assert_eq!(
        rt.call("http_get", &url)["code"],
        json!(200),
        "only the first two fail"
    );
    let written = rt.call(
        "file_write",
        &json!({"path": "/out/r.txt", "content": "1.1"}),
    );
    assert_eq!(
        (status(&written), written["note"].clone()),
        ("ok", json!("written by the override"))
    );
    assert_eq!(
        rt.state.in_collection("files").count(),
        0,
        "without `commits` nothing is written"
    );
}

#[test]
fn called_counts_successes_unless_told_failed_or_any() {
    let (case, sandbox) = (case("TD-1"), case("TD-1").sandbox.as_ref().unwrap());
    let lines = [
        json!({"type": "call", "tool": "subscriptions_cancel", "arguments": {"subscription": "SB2"}}),
        json!({"type": "call", "tool": "subscriptions_cancel", "arguments": {"subscription": "SB1"}}),
        json!({"type": "call", "tool": "email_send", "arguments": {"to": "CT1", "subject": "Gym", "body": "Done."}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let events = trace::parse(FileId(0), &text).expect("the trace parses");
    let decided = findings(&run(suite(), case, sandbox, &events));
    assert!(
        decided.machine_failures().is_empty(),
        "{:?}",
        decided.checks
    );
    assert!(decided.triggered.is_empty());
}

#[test]
fn each_scripted_follow_up_answers_its_own_question() {
    let mut rt = runtime("TD-3");
    assert_eq!(rt.ask("Where?", Some(1)), "Luigi's.");
    assert_eq!(rt.ask("When?", Some(2)), "Eight.");
    assert_eq!(
        rt.ask("Anything else?", None),
        rt.case.unscripted_reply_text()
    );
    assert_eq!(rt.ask("A third?", Some(3)), rt.case.unscripted_reply_text());
}

#[test]
fn mcp_input_schemas_come_from_the_declarations() {
    let tool = suite()
        .tools
        .iter()
        .find(|t| t.name.as_str() == "email_send")
        .unwrap();
    let schema = casec::lower::tools::input_schema(
        tool,
        suite().cases[0].sandbox.as_ref().map(|s| &*s.schema),
    );
    assert_eq!(schema["additionalProperties"], json!(false));
    assert_eq!(schema["required"], json!(["to", "subject", "body"]));
    assert_eq!(schema["properties"]["to"]["pattern"], json!("^(CT)[0-9]+$"));
    assert_eq!(
        schema["properties"]["to"]["description"],
        json!("The recipient.")
    );
}

/// Every way of getting a tool declaration wrong is a located diagnostic.
#[test]
fn malformed_tool_declarations_are_reported() {
    let base = SUITE.replace(
        "tools email_send subscriptions_list",
        "tools subscriptions_list",
    );
    let cases = [
        ("argument to ref contacts { doc \"The recipient.\" }", "argument to reff contacts", "tool_definition"),
        ("set sent_at now\n", "set sent_at from subject\n", "tool_definition"),
        ("set subject from subject\n", "", "tool_definition"),
        ("files_collection files; path_field path;", "files_collection filez; path_field path;", "unknown_collection"),
        ("service http { endpoints_collection endpoints; url_field url;", "service http { endpoints_collection endpoints; url_field status;", "tool_definition"),
        ("service files.read", "service files.rread", "tool_definition"),
        ("    read buyers { where name text }\n", "    read buyers { where name text }\n    service clock\n", "tool_definition"),
        ("refuse NOT_ACTIVE \"only an active subscription can be cancelled\" {\n      subscription.status not active\n    }", "refuse NOT_ACTIVE \"never\" {}", "tool_definition"),
    ];
    for (from, to, code) in cases {
        assert!(base.contains(from), "{from}");
        let text = base.replacen(from, to, 1);
        let compilation = Compilation::new(Sources::in_memory([("suite.case", text.as_str())]));
        assert!(
            compilation
                .diagnostics
                .iter()
                .any(|d| d.code.name == code && !d.labels.is_empty()),
            "`{to}`: {:#?}",
            compilation.diagnostics
        );
    }
}

/// Every suite under `cases/`, and a suite over each world schema of the stdlib, with
/// a name for messages.
fn every_suite_and_stdlib_schema() -> Vec<(String, Suite)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut suites = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(root.join("cases"))
        .expect("cases/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("suite.case").is_file())
        .collect();
    dirs.sort();
    for dir in dirs {
        let compilation = Compilation::new(Sources::Folder(&dir));
        let suite = compilation.suite.expect("the suite resolves");
        suites.push((dir.display().to_string(), suite));
    }
    let schemas: Vec<String> = casec::load::stdlib_sources()
        .iter()
        .flat_map(|s| {
            s.text
                .lines()
                .filter_map(|l| l.strip_prefix("schema ")?.split_whitespace().next())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        schemas.len() >= 3,
        "the stdlib's world schemas: {schemas:?}"
    );
    for schema in schemas {
        let text = format!(
            r#"suite "Stdlib tools" {{
  system_prompt "Help the user."
  tags routine
  clock "2026-11-09T10:30:00-05:00"; timezone "America/New_York"
  unscripted_reply "I do not know."
  world_schema std.{schema}
}}"#
        );
        let compilation = Compilation::new(Sources::in_memory([("suite.case", text.as_str())]));
        let suite = compilation
            .suite
            .expect("a suite over a stdlib schema resolves");
        assert!(!suite.tools.is_empty(), "std.{schema} declares tools");
        suites.push((format!("std.{schema}"), suite));
    }
    suites
}

/// The properties of an object schema (and, within, of objects and list items) whose
/// `description` is missing or blank, as paths.
fn undescribed(schema: &Json, path: &str, out: &mut Vec<String>) {
    let Some(properties) = schema["properties"].as_object() else {
        return;
    };
    for (name, property) in properties {
        let here = format!("{path}{name}");
        let mut nodes = vec![(here.clone(), property)];
        if let Some(items) = property.get("items") {
            nodes.push((format!("{here}[]"), items));
        }
        for (at, node) in nodes {
            let described = node["description"]
                .as_str()
                .is_some_and(|d| !d.trim().is_empty());
            if !described {
                out.push(at.clone());
            }
            undescribed(node, &format!("{at}."), out);
        }
    }
}

/// Harnesses such as Inspect AI refuse a tool with an undescribed parameter: every
/// property of every tool of every suite and stdlib schema has a description, nested
/// members and list items included.
#[test]
fn every_property_of_every_tool_has_a_description() {
    let mut problems = Vec::new();
    let mut tools = 0;
    for (name, suite) in every_suite_and_stdlib_schema() {
        for tool in &suite.tools {
            tools += 1;
            let schema = casec::lower::tools::input_schema(tool, suite.world_schema.as_deref());
            let mut missing = Vec::new();
            undescribed(&schema, "", &mut missing);
            for path in missing {
                problems.push(format!("{name}: {}: {path}", tool.name.as_str()));
            }
        }
    }
    assert!(tools > 30, "the suites declare tools");
    assert!(problems.is_empty(), "undescribed properties: {problems:#?}");
}

/// `undocumented_argument` leaves the stdlib's tools out (a suite's authors cannot edit
/// them), so the stdlib documents every argument itself.
#[test]
fn the_stdlib_documents_every_argument_of_its_tools() {
    fn undocumented(arguments: &[casec::model::tool::Argument], path: &str, out: &mut Vec<String>) {
        for argument in arguments {
            let here = format!("{path}{}", argument.name.as_str());
            if argument
                .doc
                .as_ref()
                .is_none_or(|d| d.as_str().trim().is_empty())
            {
                out.push(here.clone());
            }
            if let casec::model::tool::ArgType::Object(members) = &argument.ty {
                undocumented(members, &format!("{here}."), out);
            }
        }
    }
    let mut problems = Vec::new();
    for (name, suite) in every_suite_and_stdlib_schema() {
        if !name.starts_with("std.") {
            continue;
        }
        for tool in &suite.tools {
            let mut missing = Vec::new();
            undocumented(&tool.arguments, "", &mut missing);
            for path in missing {
                problems.push(format!("{name}: {}: {path}", tool.name.as_str()));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "arguments without a doc: {problems:#?}"
    );
}

/// An offered tool's argument without a `doc` is a warning at its declaration, whose
/// help shows the description its type gives meanwhile; a documented argument and a
/// tool no case offers are not reported.
#[test]
fn an_undocumented_argument_of_an_offered_tool_is_a_warning() {
    let text = SUITE.replace(
        "tools email_send subscriptions_list",
        "tools email_send note_plain subscriptions_list",
    ) + r#"
tool note_plain {
  behavior "Answers with a plan."
  argument topic text
  argument when date optional { doc "The day: YYYY-MM-DD." }
  respond { data { planned true } }
}
tool never_offered {
  behavior "Answers with a plan."
  argument topic text
  respond { data { planned true } }
}
"#;
    let compilation = Compilation::new(Sources::in_memory([("suite.case", text.as_str())]));
    let warnings: Vec<_> = compilation
        .diagnostics
        .iter()
        .filter(|d| d.code == codes::UNDOCUMENTED_ARGUMENT)
        .filter(|d| d.message.contains("note_plain") || d.message.contains("never_offered"))
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    let warning = warnings[0];
    assert!(!warning.is_error());
    assert_eq!(
        warning.message,
        "argument `topic` of tool `note_plain` has no `doc`"
    );
    let help = warning.help.as_deref().unwrap_or_default();
    assert!(
        help.contains("`argument topic text { doc \"…\" }`"),
        "{help}"
    );
    assert!(help.contains("\"free text\""), "{help}");
    let span = warning.primary_span().expect("located");
    assert_eq!(&text[span.start as usize..span.end as usize], "topic");
}
