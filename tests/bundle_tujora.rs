//! The Tujora suite's bundles: one per case plus an index, each holding exactly what
//! the suite's use instructions let the model see, and none of the master's harness or
//! evaluator text.
//!
//! The master used here is the published file in `tests/data` (tests may read it; casec
//! never does), so these checks do not depend on casec's own master lowering.

use std::path::Path;

use casec::lower::bundle::BundleSet;
use casec::{Compilation, Sources};
use serde_json::{Map, Value};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn published_master() -> Value {
    let path = root().join("tests/data/tujora-benchmark-1.0.1.json");
    let text = std::fs::read_to_string(path).expect("the published master is readable");
    serde_json::from_str(&text).expect("the published master parses")
}

fn tujora_bundles() -> BundleSet {
    let compilation = Compilation::new(Sources::Folder(&root().join("cases/tujora")));
    assert!(!compilation.has_errors(), "{:?}", compilation.diagnostics);
    match compilation.bundles() {
        Some(Ok(set)) => set,
        Some(Err(diagnostics)) => panic!("Tujora must bundle cleanly: {diagnostics:#?}"),
        None => panic!("Tujora did not compile"),
    }
}

fn parse(json: &str) -> Value {
    serde_json::from_str(json).expect("a bundle is JSON")
}

fn cases(master: &Value) -> &Vec<Value> {
    master["cases"].as_array().expect("cases is an array")
}

#[test]
fn one_bundle_per_case_in_master_order_and_an_index_of_ids_and_files_only() {
    let master = published_master();
    let set = tujora_bundles();
    let ids: Vec<&str> = cases(&master)
        .iter()
        .map(|c| c["case_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 100);
    let bundle_ids: Vec<&str> = set.bundles.iter().map(|b| b.case_id.as_str()).collect();
    assert_eq!(bundle_ids, ids);
    let index = parse(&set.index_json);
    let entries = index["bundles"].as_array().expect("index lists bundles");
    assert_eq!(index.as_object().map(Map::len), Some(1));
    for (entry, id) in entries.iter().zip(&ids) {
        let keys: Vec<&String> = entry.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["case_id", "file"]);
        assert_eq!(entry["case_id"], *id);
        assert_eq!(entry["file"], format!("{id}.json"));
    }
    assert_eq!(entries.len(), 100);
    let files: Vec<String> = set.files().into_iter().map(|(name, _)| name).collect();
    assert_eq!(files.len(), 101);
    assert_eq!(files[0], "index.json");
}

#[test]
fn each_bundle_holds_the_system_instruction_model_input_and_offered_contracts() {
    let master = published_master();
    let set = tujora_bundles();
    let contracts = master["tool_contracts"].as_object().unwrap();
    for (bundle, case) in set.bundles.iter().zip(cases(&master)) {
        let b = parse(&bundle.json);
        let keys: Vec<&String> = b.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "case_id",
                "assistant_system_instruction",
                "model_input",
                "tool_contracts"
            ]
        );
        assert_eq!(b["case_id"], case["case_id"]);
        assert_eq!(
            b["assistant_system_instruction"],
            master["assistant_system_instruction"]
        );
        assert_eq!(b["model_input"], case["model_input"], "{}", bundle.case_id);
        let offered: Vec<&str> = case["model_input"]["available_tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        let expected: Map<String, Value> = contracts
            .iter()
            .filter(|(name, _)| offered.contains(&name.as_str()))
            .map(|(name, c)| (name.clone(), c.clone()))
            .collect();
        assert_eq!(
            b["tool_contracts"],
            Value::Object(expected),
            "{}",
            bundle.case_id
        );
    }
}

#[test]
fn tracker_and_provider_booking_contracts_reach_only_the_cases_that_offer_them() {
    let set = tujora_bundles();
    let with = |tool: &str| {
        set.bundles
            .iter()
            .filter(|b| parse(&b.json)["tool_contracts"].get(tool).is_some())
            .count()
    };
    assert_eq!(with("tracker"), 4);
    assert_eq!(with("provider_booking"), 20);
    let offering = |tool: &str| {
        set.bundles
            .iter()
            .filter(|b| {
                parse(&b.json)["model_input"]["available_tools"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|t| t == tool)
            })
            .count()
    };
    assert_eq!(offering("tracker"), 4);
    assert_eq!(offering("provider_booking"), 20);
}

/// Every string under `value`, keys included.
fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.iter().for_each(|(k, v)| {
            out.push(k.clone());
            strings(v, out)
        }),
        _ => {}
    }
}

/// Every harness or evaluator string of the master with four or more words.
fn hidden_strings(master: &Value) -> Vec<String> {
    let mut all = Vec::new();
    for case in cases(master) {
        all.push(case["title"].as_str().unwrap().to_string());
        strings(&case["harness_only"], &mut all);
        strings(&case["evaluator_only"], &mut all);
    }
    strings(&master["scoring"], &mut all);
    strings(&master["global_critical_failures"], &mut all);
    all.retain(|s| s.split_whitespace().count() >= 4);
    all.sort();
    all.dedup();
    all
}

#[test]
fn no_hidden_string_of_four_or_more_words_appears_in_any_bundle() {
    let master = published_master();
    let hidden = hidden_strings(&master);
    assert!(hidden.len() > 500, "only {} hidden strings", hidden.len());
    let set = tujora_bundles();
    let texts: Vec<(String, String)> = set
        .bundles
        .iter()
        .map(|b| {
            let mut s = Vec::new();
            strings(&parse(&b.json), &mut s);
            (b.case_id.clone(), s.join("\n"))
        })
        .chain([("index".to_string(), set.index_json.clone())])
        .collect();
    for h in &hidden {
        for (name, text) in &texts {
            assert!(!text.contains(h.as_str()), "{name} holds {h:?}");
        }
    }
}

#[test]
fn the_index_names_no_title_category_or_tag() {
    let master = published_master();
    let index = tujora_bundles().index_json;
    for case in cases(&master) {
        let mut revealing = vec![case["title"].clone(), case["category"].clone()];
        revealing.extend(case["tags"].as_array().unwrap().iter().cloned());
        for value in revealing {
            let text = value.as_str().unwrap();
            assert!(!index.contains(text), "the index holds {text:?}");
        }
    }
}

#[test]
fn the_jsonl_lines_are_the_bundle_files() {
    let set = tujora_bundles();
    let jsonl = set.jsonl();
    let lines: Vec<&str> = jsonl.lines().collect();
    assert_eq!(lines.len(), 100);
    for (line, bundle) in lines.iter().zip(&set.bundles) {
        assert_eq!(*line, bundle.json);
    }
    assert!(jsonl.ends_with('\n'));
}

/// Leaks are located through `model_facing_texts`: it must know every string a bundle
/// holds, or a leak would be reported without the place the model sees it.
#[test]
fn every_bundle_string_is_a_located_model_facing_text() {
    let compilation = Compilation::new(Sources::Folder(&root().join("cases/tujora")));
    let suite = compilation.suite.as_ref().expect("a suite");
    for case in &suite.cases {
        let located = casec::lower::bundle::model_facing_texts(suite, case);
        let mut held = Vec::new();
        strings(&casec::lower::bundle::bundle_value(suite, case), &mut held);
        for s in held {
            let is_key = KEYS.contains(&s.as_str());
            let found = located.iter().any(|(_, t)| t.as_str() == s);
            assert!(
                is_key || found,
                "{}: {s:?} is not located",
                case.id.as_str()
            );
        }
    }
}

/// The fixed field names of a bundle (object keys, not text).
const KEYS: &[&str] = &[
    "case_id",
    "assistant_system_instruction",
    "model_input",
    "current_time",
    "timezone",
    "person_background_and_past_history",
    "common_patterns_and_preferences",
    "current_situation",
    "conversation",
    "role",
    "content",
    "permissions",
    "available_tools",
    "record_access",
    "tool_contracts",
    "arguments",
    "behavior",
];
