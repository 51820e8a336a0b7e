//! The JSON Schemas in `schemas/` against what casec writes and reads.
//!
//! * Every output built from `cases/tujora` (the master, each bundle, the index, each
//!   JSON Lines line) validates against its schema, as does the published master.
//! * The master schema agrees with the importer: a table of edits to a small master,
//!   each either accepted by both or rejected by both.
//! * The bundle schema's shared definitions are the master schema's own.

use std::path::Path;

use casec::source::{Origin, SourceDb};
use casec::{Compilation, Sources};
use jsonschema::Validator;
use serde_json::{json, Value};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read_json(relative: &str) -> Value {
    let text = std::fs::read_to_string(root().join(relative)).expect("readable JSON file");
    serde_json::from_str(&text).expect("valid JSON")
}

fn schema(name: &str) -> Value {
    let schema = read_json(&format!("schemas/{name}"));
    if let Err(e) = jsonschema::draft202012::meta::validate(&schema) {
        panic!("{name} is not a valid draft 2020-12 schema: {e}");
    }
    schema
}

fn validator(name: &str) -> Validator {
    jsonschema::draft202012::new(&schema(name)).expect("the schema compiles")
}

fn assert_valid(validator: &Validator, instance: &Value, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:#?}");
}

#[test]
fn every_output_built_from_tujora_validates() {
    let compilation = Compilation::new(Sources::Folder(&root().join("cases/tujora")));
    let master: Value =
        serde_json::from_str(&compilation.master_json().expect("a master")).expect("master JSON");
    assert_valid(&validator("master.schema.json"), &master, "built master");
    let set = compilation.bundles().expect("compiled").expect("blind");
    let bundle = validator("bundle.schema.json");
    for b in &set.bundles {
        let value: Value = serde_json::from_str(&b.json).expect("bundle JSON");
        assert_valid(&bundle, &value, &b.file_name);
    }
    let jsonl = set.jsonl();
    for (i, line) in jsonl.lines().enumerate() {
        let value: Value = serde_json::from_str(line).expect("one JSON value per line");
        assert_valid(&bundle, &value, &format!("JSON Lines line {}", i + 1));
    }
    let index: Value = serde_json::from_str(&set.index_json).expect("index JSON");
    assert_valid(&validator("bundle-index.schema.json"), &index, "index.json");
}

#[test]
fn the_published_master_validates() {
    let master = read_json("tests/data/tujora-benchmark-1.0.1.json");
    assert_valid(
        &validator("master.schema.json"),
        &master,
        "published master",
    );
}

#[test]
fn the_bundle_schema_shares_the_master_schema_definitions() {
    let (master, bundle) = (schema("master.schema.json"), schema("bundle.schema.json"));
    let index = schema("bundle-index.schema.json");
    for def in ["name", "texts", "tool_contracts", "model_input"] {
        assert_eq!(bundle["$defs"][def], master["$defs"][def], "$defs.{def}");
    }
    assert_eq!(index["$defs"]["name"], master["$defs"]["name"]);
}

#[test]
fn schemas_reject_what_bundles_must_not_hold() {
    let bundle = validator("bundle.schema.json");
    let index = validator("bundle-index.schema.json");
    let set = Compilation::new(Sources::Folder(&root().join("cases/tujora")))
        .bundles()
        .expect("compiled")
        .expect("blind");
    let mut leaky: Value = serde_json::from_str(&set.bundles[0].json).unwrap();
    leaky["harness_only"] = json!({});
    assert!(!bundle.is_valid(&leaky));
    let mut titled: Value = serde_json::from_str(&set.index_json).unwrap();
    titled["bundles"][0]["title"] = json!("Reminder delivery failure");
    assert!(!index.is_valid(&titled));
}

/// Whether `casec import` accepts a master.
fn importer_accepts(master: &Value) -> bool {
    let mut db = SourceDb::new();
    let file = db.add("master.json", master.to_string(), Origin::User);
    casec::import::import(&db, file).is_ok()
}

type Edit = fn(&mut Value);

#[test]
fn the_master_schema_accepts_exactly_what_the_importer_accepts() {
    let master_schema = validator("master.schema.json");
    let base = read_json("tests/build/minimal.json");
    let edits: &[(&str, bool, Edit)] = &[
        ("unchanged", true, |_| {}),
        ("unknown top-level key", false, |m| m["extra"] = json!(1)),
        ("missing fixture facts", false, |m| {
            harness(m).remove("fixture_facts");
        }),
        ("override with required keys", true, |m| {
            harness(m)["tool_behavior_override"] =
                json!({ "tool": "get_clock", "match": "any call", "result": "TIMEOUT" })
        }),
        ("override with optional keys", true, |m| {
            harness(m)["tool_behavior_override"] = json!({
                "tool": "get_clock", "match": "any call", "result": "TIMEOUT",
                "side_effect": "none", "subsequent_verification": "not_found"
            })
        }),
        ("override with an unknown key", false, |m| {
            harness(m)["tool_behavior_override"] =
                json!({ "tool": "get_clock", "match": "any", "result": "x", "note": "y" })
        }),
        ("override as a string", false, |m| {
            harness(m)["tool_behavior_override"] = json!("none")
        }),
        ("follow-up", true, |m| {
            harness(m)["scripted_user_followup"] =
                json!({ "when_asked": "Which clock?", "reply": "The kitchen one." })
        }),
        ("follow-up without reply", false, |m| {
            harness(m)["scripted_user_followup"] = json!({ "when_asked": "Which clock?" })
        }),
        ("case id not a name", false, |m| {
            m["cases"][0]["case_id"] = json!("1 bad")
        }),
        ("unknown model input key", false, |m| {
            m["cases"][0]["model_input"]["hint"] = json!("x")
        }),
        ("check without evidence", false, |m| {
            m["cases"][0]["evaluator_only"]["required_checks"][0]
                .as_object_mut()
                .unwrap()
                .remove("evidence");
        }),
        ("case count as text", false, |m| {
            m["case_count"] = json!("1")
        }),
    ];
    for (name, expected, edit) in edits {
        let mut master = base.clone();
        edit(&mut master);
        assert_eq!(master_schema.is_valid(&master), *expected, "schema: {name}");
        assert_eq!(importer_accepts(&master), *expected, "importer: {name}");
    }
}

fn harness(master: &mut Value) -> &mut serde_json::Map<String, Value> {
    master["cases"][0]["harness_only"]
        .as_object_mut()
        .expect("harness_only is an object")
}

/// Every golden trace line follows the trace schema, and the schema refuses what the
/// trace reader refuses.
#[test]
fn golden_traces_follow_the_trace_schema() {
    let validator = validator("trace.schema.json");
    let mut seen = 0;
    let suites = ["cases/tujora", "cases/donnabench", "cases/dumate"];
    let categories = suites.iter().flat_map(|suite| {
        std::fs::read_dir(root().join(suite))
            .expect("the suite folder")
            .map(|c| c.expect("an entry").path())
    });
    for category in categories {
        let Ok(files) = std::fs::read_dir(category) else {
            continue;
        };
        for file in files.flatten().map(|f| f.path()) {
            if !file.to_string_lossy().ends_with(".trace.jsonl") {
                continue;
            }
            let text = std::fs::read_to_string(&file).expect("a readable trace");
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let value: Value = serde_json::from_str(line).expect("a JSON line");
                assert_valid(&validator, &value, &file.display().to_string());
                seen += 1;
            }
        }
    }
    assert!(seen > 0, "no golden trace was found");
    for accepted in [
        json!({"type": "asked", "content": "Which one?", "followup": 2}),
        json!({"type": "question", "content": "Shall I also tell Maya?"}),
        json!({"type": "episode", "id": 8, "person": "Daniel", "goals": ["reply to Chris"]}),
        json!({"type": "user", "content": "Hi", "thought": null, "cited_by": ["task-004"]}),
        json!({"type": "call", "tool": "get_clock", "result": {"status": "ok"}, "failed": false}),
        json!({"type": "error", "message": "model timeout"}),
    ] {
        assert_valid(&validator, &accepted, "an event casec writes");
        let line = accepted.to_string();
        assert!(
            casec::runtime::trace::parse(casec::source::FileId(0), &line).is_ok(),
            "reader refused {line}"
        );
    }
    for refused in [
        json!({"type": "asked", "content": "Which one?", "followup": 0}),
        json!({"type": "say", "content": "Done."}),
        json!({"type": "reply", "content": "Done.", "tone": "warm"}),
        json!({"type": "call", "tool": "get_clock", "arguments": "none"}),
        json!({"type": "episode", "id": true}),
        json!({"type": "user", "content": "Hi", "cited_by": [4]}),
        json!({"type": "call", "tool": "get_clock", "failed": "no"}),
        json!({"type": "error"}),
    ] {
        assert!(!validator.is_valid(&refused), "accepted {refused}");
        let line = refused.to_string();
        assert!(
            casec::runtime::trace::parse(casec::source::FileId(0), &line).is_err(),
            "reader accepted {line}"
        );
    }
}

fn run_casec(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_casec"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("casec runs")
}

/// Every golden trace of a suite, as (case id, trace path relative to the root).
fn golden_traces_of(suite: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for category in std::fs::read_dir(root().join(suite)).expect("the suite folder") {
        let category = category.expect("an entry").path();
        // Observed conversations are no case's golden traces.
        if category.ends_with(casec::runtime::trace_files::OBSERVED_FOLDER) {
            continue;
        }
        let Ok(files) = std::fs::read_dir(category) else {
            continue;
        };
        for file in files.flatten().map(|f| f.path()) {
            let name = file
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string();
            if let Some(id) = name.strip_suffix(".trace.jsonl") {
                if !id.contains(".counter-") {
                    let relative = file.strip_prefix(root()).expect("inside the root");
                    out.push((id.to_string(), relative.to_string_lossy().to_string()));
                }
            }
        }
    }
    out.sort();
    out
}

/// `casec verify --format json` and `casec report` over the golden results follow their
/// schemas, for each example suite (each with its own outcomes and report lines).
#[test]
fn verify_and_report_follow_their_schemas() {
    let verify = validator("verify.schema.json");
    let report = validator("report.schema.json");
    for suite in ["cases/tujora", "cases/donnabench", "cases/dumate"] {
        if suite == "cases/dumate"
            && !crate::support::isolation::available("verifying cases/dumate")
        {
            continue;
        }
        let run = run_casec(&["verify", suite, "--format", "json"]);
        assert_eq!(run.status.code(), Some(0), "{suite}");
        let text = String::from_utf8(run.stdout).expect("UTF-8");
        for line in text.lines() {
            let value: Value = serde_json::from_str(line).expect("a JSON line");
            assert_valid(&verify, &value, &format!("verify {suite}"));
        }
        let dir = std::env::temp_dir().join(format!(
            "casec-schemas-report-{}-{}",
            std::process::id(),
            suite.replace('/', "-")
        ));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        let mut records = Vec::new();
        for (id, trace) in golden_traces_of(suite) {
            let record = dir.join(format!("{id}.json"));
            let replayed = run_casec(&[
                "replay",
                &id,
                "--trace",
                &trace,
                suite,
                "-o",
                record.to_str().expect("UTF-8 path"),
            ]);
            assert!(replayed.status.success(), "{id}");
            records.push(record.to_string_lossy().to_string());
        }
        let mut args = vec!["report", "--suite", suite];
        args.extend(records.iter().map(String::as_str));
        let reported = run_casec(&args);
        assert!(
            reported.status.success(),
            "{}",
            String::from_utf8_lossy(&reported.stderr)
        );
        let value: Value = serde_json::from_slice(&reported.stdout).expect("a JSON report");
        assert_valid(&report, &value, &format!("report {suite}"));
        let _ = std::fs::remove_dir_all(&dir);
    }
    for refused in [
        json!({"case_id": "X", "golden_outcome": 1, "errors": [], "warnings": [], "failed_calls": [], "counter_examples": []}),
        json!({"case_id": "X", "golden_outcome": null, "errors": [], "warnings": [], "failed_calls": [], "counter_examples": [{"label": "a"}]}),
    ] {
        assert!(!verify.is_valid(&refused), "accepted {refused}");
    }
}

/// A judge that finds every check met and no critical failure committed.
struct Approving;

impl casec::judge::endpoint::Complete for Approving {
    fn complete(&self, body: &Value) -> Result<String, String> {
        let user = body["messages"][1]["content"].as_str().unwrap_or_default();
        let met = user
            .lines()
            .next()
            .unwrap_or_default()
            .contains("\"kind\":\"check\"");
        let content = json!({ "met": met, "reason": "as a golden run" }).to_string();
        Ok(json!({ "choices": [{ "message": { "content": content } }] }).to_string())
    }
}

/// A judge that never answers.
struct Silent;

impl casec::judge::endpoint::Complete for Silent {
    fn complete(&self, _: &Value) -> Result<String, String> {
        Err("no answer".into())
    }
}

/// The result record of every golden trace of each example suite follows the schema
/// `casec schema` lowers from its shape, and so does the record judged from it (by a
/// judge that answers, and by one that does not).
#[test]
fn result_and_judged_records_follow_their_suites_schemas() {
    use casec::lower::record_schema::{record_schema, Record};
    use casec::runtime::replay::{findings, result_record, run};
    for suite in ["cases/tujora", "cases/donnabench", "cases/dumate"] {
        let compilation = Compilation::new(Sources::Folder(&root().join(suite)));
        let model = compilation.suite.as_ref().expect("the suite resolves");
        let compile = |record: Record| {
            let schema = record_schema(model, record);
            jsonschema::draft202012::meta::validate(&schema).expect("a draft 2020-12 schema");
            jsonschema::draft202012::new(&schema).expect("the schema compiles")
        };
        let (result, judged) = (compile(Record::Result), compile(Record::Judged));
        let people = casec::judge::overrides::Overrides::default();
        let mut seen = 0;
        for (id, trace) in golden_traces_of(suite) {
            let case = model
                .cases
                .iter()
                .find(|c| c.id.as_str() == id)
                .expect("a case");
            let text = std::fs::read_to_string(root().join(&trace)).expect("a trace");
            let events =
                casec::runtime::trace::parse(casec::source::FileId(0), &text).expect("a trace");
            let sandbox = case.sandbox.as_ref().expect("a world");
            let rt = run(model, case, sandbox, &events);
            let record = result_record(model, &rt, &findings(&rt));
            assert_valid(&result, &record, &format!("{id} result"));
            assert!(
                !judged.is_valid(&record),
                "a result record is no judged record"
            );
            for endpoint in [&Approving as &dyn casec::judge::endpoint::Complete, &Silent] {
                let judge = casec::judge::Judge {
                    settings: casec::judge::Settings {
                        model: "m".into(),
                        seed: 0,
                    },
                    endpoint,
                    cache: None,
                    overrides: &people,
                };
                let judgements: Vec<_> = casec::judge::review_items(model, case, &record)
                    .iter()
                    .map(|item| judge.judge(model, case, item, &record).0)
                    .collect();
                let out =
                    casec::judge::record::judged(model, &record, &judgements, &judge.settings);
                assert_valid(&judged, &out, &format!("{id} judged"));
            }
            seen += 1;
        }
        assert!(seen > 0, "{suite} has golden traces");
        // An observed conversation replayed against each case that cites it.
        let mut db = casec::source::SourceDb::new();
        let observed = casec::runtime::trace_files::observed(&mut db, &root().join(suite))
            .expect("the observed conversations read");
        for conversation in &observed {
            for event in &conversation.events {
                let casec::runtime::trace::TraceEvent::User { cited_by, .. } = event else {
                    continue;
                };
                for id in cited_by {
                    let case = model
                        .cases
                        .iter()
                        .find(|c| c.id.as_str() == id)
                        .expect("a case");
                    let rt = run(
                        model,
                        case,
                        case.sandbox.as_ref().expect("a world"),
                        &conversation.events,
                    );
                    let record = result_record(model, &rt, &findings(&rt));
                    assert_valid(
                        &result,
                        &record,
                        &format!("observed {} as {id}", conversation.name),
                    );
                }
            }
        }
        let first = &model.cases[0];
        let idle = run(model, first, first.sandbox.as_ref().expect("a world"), &[]);
        let mut wrong = result_record(model, &idle, &findings(&idle));
        let outcome = casec::judge::key(model, casec::model::shape::Builtin::Outcome).to_string();
        wrong[&outcome] = json!("passed");
        assert!(
            !result.is_valid(&wrong),
            "{suite}: an outcome the suite does not name"
        );
    }
}
