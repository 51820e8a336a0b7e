//! The language server in-process: every request and notification through
//! `Server::handle`, on the fixture suite `tests/lsp/suite`.

use crate::lsp_client as client;

use std::path::PathBuf;

use casec::lsp::{Options, Server};
use client::{apply, at, err1_with_mistake, open, range, read, uri};
use lsp_server::{Message, Notification, Request, RequestId};
use serde_json::{json, Value};

struct Session {
    server: Server,
    next_id: i32,
    cache_dir: PathBuf,
}

impl Session {
    /// An initialized server whose stdlib cache is a fresh folder.
    fn new(name: &str) -> Session {
        let cache_dir =
            std::env::temp_dir().join(format!("casec-lsp-{name}-{}", std::process::id()));
        let mut session = Session {
            server: Server::new(Options {
                cache_dir: cache_dir.clone(),
            }),
            next_id: 0,
            cache_dir,
        };
        session.request("initialize", json!({ "capabilities": {} }));
        session.notify("initialized", json!({}));
        session
    }

    /// The response to a request, as JSON.
    fn respond(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let request = Request::new(RequestId::from(self.next_id), method.to_string(), params);
        let replies = self.server.handle(Message::Request(request));
        assert_eq!(replies.len(), 1, "one response to {method}");
        serde_json::to_value(&replies[0]).unwrap()
    }

    /// The result of a request that must succeed.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let response = self.respond(method, params);
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }

    /// The messages a notification makes the server send, as JSON.
    fn notify(&mut self, method: &str, params: Value) -> Vec<Value> {
        let notification = Notification::new(method.to_string(), params);
        let replies = self.server.handle(Message::Notification(notification));
        replies
            .iter()
            .map(|m| serde_json::to_value(m).unwrap())
            .collect()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // The stdlib copy is read-only; the folder it is in is not.
        let _ = std::fs::remove_dir_all(&self.cache_dir);
    }
}

/// The diagnostics published for `uri` among `messages`, if any were.
fn published<'a>(messages: &'a [Value], uri: &str) -> Option<&'a Vec<Value>> {
    messages
        .iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics")
        .find(|m| m["params"]["uri"] == uri)
        .and_then(|m| m["params"]["diagnostics"].as_array())
}

fn codes(diagnostics: &[Value]) -> Vec<&str> {
    diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect()
}

fn labels(items: &Value) -> Vec<&str> {
    items
        .as_array()
        .expect("a list")
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect()
}

fn hover_text(session: &mut Session, uri: &str, line: u32, character: u32) -> String {
    let hover = session.request("textDocument/hover", at(uri, line, character));
    hover["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_mistake_after_non_ascii_text_is_located_in_utf16_and_its_quick_fix_clears_it() {
    let mut session = Session::new("fix");
    let err1 = uri("errands/ERR-1.case");
    let text = err1_with_mistake();
    let messages = session.notify("textDocument/didOpen", open(&err1, &text));
    let diagnostics = published(&messages, &err1).expect("published on open");
    assert_eq!(codes(diagnostics), ["unknown_category"]);
    let diagnostic = &diagnostics[0];
    assert_eq!(diagnostic["range"], range(2, 54, 60));
    assert_eq!(diagnostic["severity"], 1);
    assert_eq!(diagnostic["source"], "casec");
    let message = diagnostic["message"].as_str().unwrap();
    assert!(
        message.starts_with("unknown category `errnds`"),
        "{message}"
    );
    assert!(
        message.ends_with("help: did you mean `errands`?"),
        "{message}"
    );

    let actions = session.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": err1 }, "range": range(2, 56, 56), "context": { "diagnostics": [] } }),
    );
    let action = &actions[0];
    assert_eq!(actions.as_array().unwrap().len(), 1);
    assert_eq!(action["title"], "replace with `errands`");
    assert_eq!(action["kind"], "quickfix");
    assert_eq!(action["diagnostics"][0]["code"], "unknown_category");
    let edits = &action["edit"]["changes"][&err1];
    let fixed = apply(&text, edits);
    assert!(fixed.contains("📦 can I pick up my parcel?\"; category errands\n"));

    let changes: Vec<Value> = edits
        .as_array()
        .unwrap()
        .iter()
        .map(|e| json!({ "range": e["range"], "text": e["newText"] }))
        .collect();
    let change = json!({
        "textDocument": { "uri": err1, "version": 2 },
        "contentChanges": changes,
    });
    let messages = session.notify("textDocument/didChange", change);
    assert_eq!(published(&messages, &err1), Some(&Vec::new()));
    let nothing_left = session.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": err1 }, "range": range(2, 56, 56), "context": { "diagnostics": [] } }),
    );
    assert_eq!(nothing_left, json!([]));
}

#[test]
fn every_did_you_mean_name_gets_a_quick_fix() {
    let mut session = Session::new("fixes");
    let err2 = uri("errands/ERR-2.case");
    let with_override = |tool: &str| {
        let line = format!("  override {tool} \"locate\" {{ result \"hallway\" }}\n  user ");
        read("errands/ERR-2.case").replace("  user ", &line)
    };
    let text = with_override("trackr")
        .replace("tags uncertainty", "tags uncertanty")
        .replace("profile with_tracker", "profile with_trackr")
        .replace("  need ", "  nede ");
    session.notify("textDocument/didOpen", open(&err2, &text));
    let whole_file =
        json!({ "start": { "line": 0, "character": 0 }, "end": { "line": 99, "character": 0 } });
    let actions = session.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": err2 }, "range": whole_file, "context": { "diagnostics": [] } }),
    );
    let titles: Vec<&str> = actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "replace with `uncertainty`",
            "replace with `with_tracker`",
            "replace with `tracker`",
            "replace with `need`"
        ]
    );
    let edits: Vec<Value> = actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["edit"]["changes"][&err2][0].clone())
        .collect();
    assert_eq!(apply(&text, &Value::Array(edits)), with_override("tracker"));
}

#[test]
fn the_whole_suite_is_checked_and_other_files_are_published_and_cleared() {
    let mut session = Session::new("suite");
    let suite = uri("suite.case");
    let profiles = uri("profiles.case");
    let text = read("suite.case");
    let messages = session.notify("textDocument/didOpen", open(&suite, &text));
    assert_eq!(published(&messages, &suite), Some(&Vec::new()));
    assert_eq!(
        published(&messages, &profiles),
        None,
        "clean files stay quiet"
    );

    // Without the tracker tool, the profile that lends it (not open) is wrong.
    let without_tracker = text.replace("tool tracker {", "tool trackers {");
    let change = json!({
        "textDocument": { "uri": suite, "version": 2 },
        "contentChanges": [{ "text": without_tracker }],
    });
    let messages = session.notify("textDocument/didChange", change);
    let diagnostics = published(&messages, &profiles).expect("the profile's file");
    assert_eq!(codes(diagnostics), ["unknown_tool"]);
    assert_eq!(diagnostics[0]["range"], range(2, 31, 38));

    let change = json!({
        "textDocument": { "uri": suite, "version": 3 },
        "contentChanges": [{ "text": text }],
    });
    let messages = session.notify("textDocument/didChange", change);
    assert_eq!(published(&messages, &profiles), Some(&Vec::new()));
}

#[test]
fn a_duplicate_case_across_files_points_at_the_first_one() {
    let mut session = Session::new("duplicate");
    let err2 = uri("errands/ERR-2.case");
    let text = read("errands/ERR-2.case").replace("case ERR-2", "case ERR-1");
    let messages = session.notify("textDocument/didOpen", open(&err2, &text));
    let diagnostics = published(&messages, &err2).expect("published");
    assert_eq!(codes(diagnostics), ["duplicate_case"]);
    let related = &diagnostics[0]["relatedInformation"][0];
    assert_eq!(related["location"]["uri"], uri("errands/ERR-1.case"));
    assert_eq!(related["location"]["range"], range(0, 5, 10));
    assert_eq!(related["message"], "first used here");
}

#[test]
fn closing_a_document_checks_its_suite_from_disk_again() {
    let mut session = Session::new("close");
    let err1 = uri("errands/ERR-1.case");
    session.notify("textDocument/didOpen", open(&err1, &err1_with_mistake()));
    let messages = session.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": err1 } }),
    );
    assert_eq!(published(&messages, &err1), Some(&Vec::new()));
}

#[test]
fn completion_offers_keys_categories_tags_tools_profiles_and_record_ids() {
    let mut session = Session::new("completion");
    let err2 = uri("errands/ERR-2.case");
    let text = read("errands/ERR-2.case").replace("  user ", "  tools get_clock \n  \n  user ");
    session.notify("textDocument/didOpen", open(&err2, &text));
    let complete = |session: &mut Session, line, character| {
        session.request("textDocument/completion", at(&err2, line, character))
    };

    let categories = complete(&mut session, 1, 11);
    assert_eq!(labels(&categories), ["errands", "belongings"]);
    assert_eq!(categories[0]["textEdit"]["range"], range(1, 11, 11));
    assert_eq!(
        labels(&complete(&mut session, 2, 7)),
        ["routine", "uncertainty", "tool_failure_or_ambiguous_result"]
    );
    let tools = complete(&mut session, 4, 18);
    assert_eq!(labels(&tools), ["get_clock", "read_records", "tracker"]);
    assert_eq!(tools[2]["detail"], "tracker(item)");
    let profiles = complete(&mut session, 3, 12);
    assert_eq!(
        labels(&profiles),
        ["std.everyday_assistance", "with_tracker"]
    );
    // The partly typed name is replaced whole, dots included.
    assert_eq!(profiles[0]["textEdit"]["range"], range(3, 10, 12));

    let keys = labels(&complete(&mut session, 5, 2)).join(" ");
    assert!(keys.contains("override") && keys.contains("check") && keys.contains("clock"));
    for given in ["category", "user", "facts", "need", "final", "tags"] {
        assert!(
            !keys.split(' ').any(|k| k == given),
            "{given} is given once"
        );
    }
    // Inside a string of the case: the records its facts mention.
    assert_eq!(labels(&complete(&mut session, 9, 17)), ["K1", "T1"]);
    assert_eq!(
        complete(&mut session, 0, 14),
        json!([]),
        "a string outside a case block"
    );
}

/// In a condition, the first value may be an operator: completion lists them, each
/// with what it asks, and hover explains the one written.
#[test]
fn completion_offers_the_operators_of_a_condition() {
    let mut session = Session::new("operators");
    let err2 = uri("errands/ERR-2.case");
    let text = read("errands/ERR-2.case").replace(
        "  critical \"Claim the keys are lost for good.\"\n",
        "  critical \"Claim the keys are lost for good.\"\n  expect A1 { record K1 { label h } }\n",
    );
    session.notify("textDocument/didOpen", open(&err2, &text));
    let items = session.request("textDocument/completion", at(&err2, 10, 33));
    assert_eq!(
        labels(&items),
        [
            "not",
            "contains",
            "lacks",
            "before",
            "after",
            "in",
            "is",
            "has_word",
            "matches",
            "has_number"
        ]
    );
    let has_word = &items.as_array().unwrap()[7];
    assert!(
        has_word["documentation"]["value"]
            .as_str()
            .is_some_and(|d| d.contains("whole words")),
        "{has_word}"
    );
    assert_eq!(has_word["textEdit"]["range"], range(10, 32, 33));
    let text = text.replace("{ label h }", "{ label has_word \"car\" }");
    let whole = json!({
        "textDocument": { "uri": err2, "version": 2 },
        "contentChanges": [{ "text": text }],
    });
    session.notify("textDocument/didChange", whole);
    let hover = session.request("textDocument/hover", at(&err2, 10, 35));
    assert!(
        hover["contents"]["value"]
            .as_str()
            .is_some_and(|v| v.starts_with("**`has_word`** · condition operator")),
        "{hover}"
    );
}

/// An `expect` block completes the aggregates beside the other assertions, each with
/// its form; a world block its own statements (`from`, `without`, `new`).
#[test]
fn completion_offers_aggregates_and_the_statements_of_a_world() {
    let mut session = Session::new("aggregates");
    let err2 = uri("errands/ERR-2.case");
    let text = read("errands/ERR-2.case").replace(
        "  critical \"Claim the keys are lost for good.\"\n",
        "  critical \"Claim the keys are lost for good.\"\n  expect A1 { last }\n  world { fr }\n",
    );
    session.notify("textDocument/didOpen", open(&err2, &text));
    let assertions = session.request("textDocument/completion", at(&err2, 10, 18));
    let labels_found = labels(&assertions);
    for aggregate in ["sum", "min", "max", "first", "last"] {
        assert!(labels_found.contains(&aggregate), "{labels_found:?}");
    }
    let hover = hover_text(&mut session, &err2, 10, 15);
    assert!(
        hover.starts_with("**`last`**") && hover.contains("the most recent"),
        "{hover}"
    );
    let world = session.request("textDocument/completion", at(&err2, 11, 12));
    assert_eq!(labels(&world), ["from", "without", "new"]);
}

#[test]
fn completion_works_in_a_file_that_does_not_parse() {
    let mut session = Session::new("broken");
    let err1 = uri("errands/ERR-1.case");
    let text = read("errands/ERR-1.case")
        .replace("  tags routine\n", "  tags routine \"open\n  category \n");
    session.notify("textDocument/didOpen", open(&err1, &text));
    let items = session.request("textDocument/completion", at(&err1, 3, 11));
    assert_eq!(labels(&items), ["errands", "belongings"]);
}

#[test]
fn hover_explains_keys_tools_profiles_categories_tags_cases_and_records() {
    let mut session = Session::new("hover");
    let err2 = uri("errands/ERR-2.case");
    let suite = uri("suite.case");
    let profiles = uri("profiles.case");
    session.notify(
        "textDocument/didOpen",
        open(&err2, &read("errands/ERR-2.case")),
    );
    session.notify("textDocument/didOpen", open(&suite, &read("suite.case")));
    session.notify(
        "textDocument/didOpen",
        open(&profiles, &read("profiles.case")),
    );

    let tool = hover_text(&mut session, &profiles, 2, 32);
    assert!(
        tool.contains("tracker(item)") && tool.contains("Locate a tagged item."),
        "{tool}"
    );
    let key = hover_text(&mut session, &err2, 5, 4);
    assert!(
        key.starts_with("**`facts`** · required") && key.contains("Fixture facts"),
        "{key}"
    );
    let profile = hover_text(&mut session, &err2, 3, 12);
    assert!(profile.contains("profile with_tracker {") && profile.contains("*profiles.case*"));
    let stdlib = hover_text(&mut session, &suite, 24, 14);
    assert!(
        stdlib.starts_with("**stdlib part `std.everyday_assistance`**"),
        "{stdlib}"
    );
    assert!(stdlib.contains("profile everyday_assistance {"));
    let category = hover_text(&mut session, &err2, 1, 12);
    assert!(
        category.contains("**category `belongings`** · 1 case(s) declared")
            && category.contains("Misplaces everyday items.")
    );
    assert!(hover_text(&mut session, &err2, 2, 8).contains("used by 1 case(s)"));
    assert!(hover_text(&mut session, &suite, 22, 12).contains("**case `ERR-2`** “Lost keys”"));
    let record = hover_text(&mut session, &err2, 7, 17);
    assert!(
        record.starts_with("**record `K1`**, mentioned in the `facts` of ERR-2"),
        "{record}"
    );
    assert_eq!(
        session.request("textDocument/hover", at(&err2, 4, 9)),
        Value::Null
    );
}

#[test]
fn definition_goes_to_profiles_stdlib_parts_tools_cases_and_records() {
    let mut session = Session::new("definition");
    let err2 = uri("errands/ERR-2.case");
    let suite = uri("suite.case");
    session.notify(
        "textDocument/didOpen",
        open(&err2, &read("errands/ERR-2.case")),
    );
    session.notify("textDocument/didOpen", open(&suite, &read("suite.case")));
    let definition = |session: &mut Session, uri: &str, line, character| {
        session.request("textDocument/definition", at(uri, line, character))
    };

    let profile = definition(&mut session, &err2, 3, 12);
    assert_eq!(
        profile,
        json!({ "uri": uri("profiles.case"), "range": range(1, 8, 20) })
    );
    let category = definition(&mut session, &err2, 1, 12);
    assert_eq!(category, json!({ "uri": suite, "range": range(59, 9, 19) }));
    let tool = definition(&mut session, &suite, 27, 20);
    assert_eq!(tool, json!({ "uri": suite, "range": range(35, 5, 17) }));
    let case = definition(&mut session, &suite, 22, 12);
    assert_eq!(case, json!({ "uri": err2, "range": range(0, 5, 10) }));
    let record = definition(&mut session, &err2, 7, 17);
    assert_eq!(record, json!({ "uri": err2, "range": range(5, 14, 16) }));

    // A stdlib part lands in its read-only copy in the cache.
    let stdlib = definition(&mut session, &suite, 24, 14);
    let url = lsp_types::Url::parse(stdlib["uri"].as_str().unwrap()).unwrap();
    let path = url.to_file_path().unwrap();
    assert!(path.starts_with(&session.cache_dir), "{path:?}");
    let text = std::fs::read_to_string(&path).unwrap();
    let everyday = casec::load::STDLIB
        .iter()
        .find(|(name, _)| *name == "everyday_assistance.case")
        .expect("the stdlib profile");
    assert_eq!(text, everyday.1);
    assert!(std::fs::metadata(&path).unwrap().permissions().readonly());
    let line = stdlib["range"]["start"]["line"].as_u64().unwrap() as usize;
    assert!(text
        .lines()
        .nth(line)
        .unwrap()
        .starts_with("profile everyday_assistance"));
}

#[test]
fn document_symbols_outline_the_file_with_check_ids() {
    let mut session = Session::new("symbols");
    let err1 = uri("errands/ERR-1.case");
    session.notify(
        "textDocument/didOpen",
        open(&err1, &read("errands/ERR-1.case")),
    );
    let symbols = session.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": err1 } }),
    );
    let case = &symbols[0];
    assert_eq!(case["name"], "case ERR-1");
    assert_eq!(case["detail"], "Parcel pickup time");
    assert_eq!(
        case["range"],
        json!({ "start": { "line": 0, "character": 0 }, "end": { "line": 9, "character": 1 } })
    );
    let children: Vec<&str> = case["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        children,
        ["category", "tags", "user", "facts", "R1 need", "A1 check", "S1 final", "critical"]
    );
    assert_eq!(case["children"][6]["detail"], "Nothing changes.");
}

#[test]
fn formatting_rewrites_only_the_lines_that_change() {
    let mut session = Session::new("format");
    let err1 = uri("errands/ERR-1.case");
    let canonical = read("errands/ERR-1.case");
    let messy = canonical
        .replace("  tags routine\n", "      tags   routine\n")
        .replace(
            "  final \"Nothing changes.\"\n",
            "  final \"Nothing changes.\"   \n",
        );
    session.notify("textDocument/didOpen", open(&err1, &messy));
    let params = json!({ "textDocument": { "uri": err1 }, "options": { "tabSize": 2, "insertSpaces": true } });
    let edits = session.request("textDocument/formatting", params.clone());
    assert_eq!(edits.as_array().unwrap().len(), 2);
    assert_eq!(apply(&messy, &edits), canonical);

    let broken = json!({ "textDocument": { "uri": err1, "version": 2 }, "contentChanges": [{ "text": "case {" }] });
    session.notify("textDocument/didChange", broken);
    assert_eq!(
        session.request("textDocument/formatting", params),
        Value::Null
    );
}

#[test]
fn a_document_outside_any_suite_is_checked_alone() {
    let mut session = Session::new("lone");
    let untitled = "untitled:Untitled-1";
    let messages = session.notify("textDocument/didOpen", open(untitled, "case X \"t\" {}\n"));
    assert_eq!(
        codes(published(&messages, untitled).unwrap()),
        ["missing_suite"]
    );
    let keys = session.request("textDocument/completion", at(untitled, 1, 0));
    assert!(labels(&keys).contains(&"profile"));
    let messages = session.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": untitled } }),
    );
    assert_eq!(published(&messages, untitled), Some(&Vec::new()));
}

#[test]
fn the_protocol_is_kept_whatever_the_client_sends() {
    let mut fresh = Server::new(Options {
        cache_dir: std::env::temp_dir(),
    });
    let early = Request::new(
        RequestId::from(1),
        "textDocument/hover".to_string(),
        json!({}),
    );
    let reply = serde_json::to_value(&fresh.handle(Message::Request(early))[0]).unwrap();
    assert_eq!(reply["error"]["code"], -32002);

    let mut session = Session::new("protocol");
    assert_eq!(
        session.respond("initialize", json!({ "capabilities": {} }))["error"]["code"],
        -32600
    );
    assert_eq!(
        session.respond("textDocument/rename", json!({}))["error"]["code"],
        -32601
    );
    assert_eq!(
        session.respond("textDocument/hover", json!({ "nonsense": 1 }))["error"]["code"],
        -32602
    );
    let not_open = at(&uri("errands/ERR-1.case"), 0, 0);
    assert_eq!(
        session.request("textDocument/hover", not_open.clone()),
        Value::Null
    );
    let far = at(&uri("errands/ERR-1.case"), 4_000_000, 4_000_000);
    session.notify(
        "textDocument/didOpen",
        open(&uri("errands/ERR-1.case"), "é😀"),
    );
    assert!(session.respond("textDocument/completion", far)["error"].is_null());

    let logged = session.notify("textDocument/didOpen", json!({ "textDocument": 7 }));
    assert_eq!(logged[0]["method"], "window/logMessage");

    assert_eq!(session.request("shutdown", Value::Null), Value::Null);
    assert_eq!(
        session.respond("textDocument/hover", not_open)["error"]["code"],
        -32600
    );
    assert_eq!(session.server.exit_code(), None);
    session.notify("exit", Value::Null);
    assert_eq!(session.server.exit_code(), Some(0));

    fresh.handle(Message::Notification(Notification::new(
        "exit".to_string(),
        Value::Null,
    )));
    assert_eq!(fresh.exit_code(), Some(1), "exit without shutdown");
}

#[test]
fn the_server_asks_to_watch_case_files_when_the_client_can() {
    let mut server = Server::new(Options {
        cache_dir: std::env::temp_dir(),
    });
    let capabilities = json!({ "capabilities": { "workspace": { "didChangeWatchedFiles": { "dynamicRegistration": true } } } });
    let initialize = Request::new(RequestId::from(1), "initialize".to_string(), capabilities);
    server.handle(Message::Request(initialize));
    let replies = server.handle(Message::Notification(Notification::new(
        "initialized".to_string(),
        json!({}),
    )));
    let request = serde_json::to_value(&replies[0]).unwrap();
    assert_eq!(request["method"], "client/registerCapability");
    assert_eq!(
        request["params"]["registrations"][0]["registerOptions"]["watchers"][0]["globPattern"],
        "**/*.case"
    );
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    /// Text made of the pieces that matter to the lexer and the positions.
    fn text() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(vec![
            "case", "tags", "category", "profile", "tools", "check", "facts", "override", "suite",
            "M1", "std.x", "{", "}", "[", "]", ",", ";", "\"", "\"\"\"", "#", "\\", " ", "  ",
            "\n", "\r\n", "\r", "—", "😀", "é", "x", "1",
        ]);
        prop::collection::vec(piece, 0..60).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn any_text_and_any_position_get_an_answer(
            text in text(),
            line in 0u32..8,
            character in 0u32..40,
        ) {
            let mut session = Session::new("proptest");
            let doc = "untitled:proptest";
            session.notify("textDocument/didOpen", open(doc, &text));
            for method in ["textDocument/completion", "textDocument/hover", "textDocument/definition"] {
                session.request(method, at(doc, line, character));
            }
            let whole = json!({ "textDocument": { "uri": doc } });
            session.request("textDocument/documentSymbol", whole.clone());
            let formatting = json!({ "textDocument": { "uri": doc }, "options": { "tabSize": 2, "insertSpaces": true } });
            session.request("textDocument/formatting", formatting);
            let actions = json!({ "textDocument": { "uri": doc }, "range": range(line, 0, character), "context": { "diagnostics": [] } });
            session.request("textDocument/codeAction", actions);
            let edit = json!({
                "textDocument": { "uri": doc, "version": 2 },
                "contentChanges": [{ "range": range(line, character, character / 2), "text": "é😀\n" }],
            });
            session.notify("textDocument/didChange", edit);
        }
    }
}

/// A copy of the fixture suite that a test may change on disk.
struct ScratchSuite {
    root: PathBuf,
}

impl ScratchSuite {
    fn new(name: &str) -> ScratchSuite {
        let root = std::env::temp_dir().join(format!("casec-lsp-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for file in [
            "suite.case",
            "profiles.case",
            "errands/ERR-1.case",
            "errands/ERR-2.case",
        ] {
            let target = root.join(file);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(target, read(file)).unwrap();
        }
        ScratchSuite { root }
    }

    fn uri(&self, file: &str) -> String {
        client::file_uri(&self.root.join(file))
    }
}

impl Drop for ScratchSuite {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

#[test]
fn files_changed_on_disk_are_checked_and_cleared_when_they_go() {
    let suite = ScratchSuite::new("a folder with spaces");
    let mut session = Session::new("disk");
    let err1 = suite.uri("errands/ERR-1.case");
    let err3 = suite.uri("errands/ERR-3.case");
    session.notify(
        "textDocument/didOpen",
        open(&err1, &read("errands/ERR-1.case")),
    );

    let copy = read("errands/ERR-1.case");
    std::fs::write(suite.root.join("errands/ERR-3.case"), copy).unwrap();
    let created = json!({ "changes": [{ "uri": err3, "type": 1 }] });
    let messages = session.notify("workspace/didChangeWatchedFiles", created);
    assert_eq!(
        codes(published(&messages, &err3).expect("the new file")),
        ["duplicate_case"]
    );

    std::fs::remove_file(suite.root.join("errands/ERR-3.case")).unwrap();
    let deleted = json!({ "changes": [{ "uri": err3, "type": 3 }] });
    let messages = session.notify("workspace/didChangeWatchedFiles", deleted);
    assert_eq!(published(&messages, &err3), Some(&Vec::new()));
}
