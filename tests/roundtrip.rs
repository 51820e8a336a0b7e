//! Import → build round trips, byte for byte: the Tujora suite and golden master, and
//! a generated master of 1,000 cases that deviates from the shared defaults in every
//! field a case can override.

use crate::support::machine_parts;
use casec_corpus as generate;

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use casec::lower::json_style::to_master_string;
use casec::source::{Origin, SourceDb};
use casec::{Compilation, Config, Depth, Sources};
use serde_json::Value;

const GOLDEN: &str = include_str!("data/tujora-benchmark-1.0.1.json");
const CASES: usize = 1000;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn casec() -> Command {
    Command::new(env!("CARGO_BIN_EXE_casec"))
}

/// The generated master of the round-trip tests, made once per test binary.
fn generated() -> &'static str {
    static MASTER: OnceLock<String> = OnceLock::new();
    MASTER.get_or_init(|| generate::generate_master(CASES, 2026))
}

fn import(master: &str) -> casec::import::SuiteFiles {
    let mut db = SourceDb::new();
    let file = db.add("master.json", master, Origin::User);
    casec::import::import(&db, file).unwrap_or_else(|diags| panic!("{diags:#?}"))
}

/// Builds imported sources as `casec build --no-check` does: a generated master
/// deviates in ways that break semantic rules (check lists, tags, coverage) yet must
/// round-trip exactly.
fn build(files: &casec::import::SuiteFiles) -> Option<String> {
    resolve(files).master_json()
}

/// The imported `files`, resolved but not checked.
fn resolve(files: &casec::import::SuiteFiles) -> Compilation {
    Compilation::new(Config {
        sources: Sources::in_memory(files.iter().map(|(p, t)| (p.as_str(), t.as_str()))),
        depth: Depth::Resolve,
        recheck: None,
    })
}

/// The generator writes masters with the library's formatter; this pins that
/// formatter to the golden file's bytes, independently of casec's lowering.
#[test]
fn the_master_style_reproduces_the_golden_file() {
    let value: Value = serde_json::from_str(GOLDEN).expect("the golden master parses");
    assert!(to_master_string(&value) == GOLDEN);
}

#[test]
fn the_generated_master_round_trips_through_the_library() {
    let master = generated();
    let files = import(master);
    assert_eq!(files.len(), CASES + 1);
    assert!(build(&files).as_deref() == Some(master));
}

/// The master writer renders a large suite's cases on every core (`casec build`'s
/// path); the bytes are those of rendering them in turn (`master_json`).
#[test]
fn the_streamed_master_is_the_rendered_one() {
    let files = import(generated());
    let compilation = resolve(&files);
    let suite = compilation.suite.as_ref().expect("the suite resolves");
    assert!(suite.cases.len() >= 256, "enough cases to render ahead");
    let mut streamed = Vec::new();
    casec::lower::master::write_master_json(suite, &mut streamed).expect("written");
    assert!(streamed == casec::lower::master::master_json(suite).into_bytes());
    assert!(streamed == generated().as_bytes());
}

/// Checking a suite's cases in chunks on several threads (what cases share, each
/// case's own checks) reports what checking them in turn does, byte for byte: the
/// generated suite breaks rules in every part of it.
#[test]
fn a_check_on_any_number_of_threads_reports_the_same() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let suite = dir.path().join("suite");
    let files: Vec<(String, Vec<u8>)> = import(generated())
        .into_iter()
        .map(|(p, t)| (p, t.into_bytes()))
        .collect();
    casec::driver::write_folder_atomically(&suite, &files).expect("writable");
    let check = |threads: &str| {
        let output = casec()
            .args(["check", "--format", "json"])
            .arg(&suite)
            .env("CASEC_THREADS", threads)
            .output()
            .expect("casec runs");
        (output.status.code(), output.stdout, output.stderr)
    };
    let in_turn = check("1");
    assert_eq!(in_turn.0, Some(1), "the generated suite breaks rules");
    assert!(in_turn.2.len() > 10_000, "many diagnostics");
    for threads in ["2", "3", "7"] {
        assert!(check(threads) == in_turn, "{threads} threads");
    }
}

/// Import and build through the command line, writing real folders and files.
#[test]
fn the_generated_master_round_trips_through_the_cli() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let master = dir.path().join("master.json");
    let suite = dir.path().join("suite");
    let rebuilt = dir.path().join("rebuilt.json");
    std::fs::write(&master, generated()).expect("writable");
    let import = casec()
        .arg("import")
        .arg(&master)
        .arg("-o")
        .arg(&suite)
        .output();
    assert_eq!(import.expect("casec runs").status.code(), Some(0));
    let build = casec()
        .arg("build")
        .arg("--no-check")
        .arg(&suite)
        .arg("-o")
        .arg(&rebuilt)
        .output();
    assert_eq!(build.expect("casec runs").status.code(), Some(0));
    assert!(std::fs::read(&rebuilt).expect("the output exists") == generated().as_bytes());
}

#[test]
fn several_seeds_round_trip() {
    for seed in 0..8 {
        let master = generate::generate_master(120, seed);
        assert!(
            build(&import(&master)).as_deref() == Some(master.as_str()),
            "seed {seed}"
        );
    }
}

#[test]
fn the_tujora_sources_build_the_golden_master() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let out = dir.path().join("tujora.json");
    let status = casec()
        .arg("build")
        .arg(root().join("cases/tujora"))
        .arg("-o")
        .arg(&out)
        .status()
        .expect("casec runs");
    assert_eq!(status.code(), Some(0));
    assert!(std::fs::read(&out).expect("the output exists") == GOLDEN.as_bytes());
}

#[test]
fn importing_the_golden_master_rebuilds_it() {
    assert!(build(&import(GOLDEN)).as_deref() == Some(GOLDEN));
}

/// Shared text is written once: the sources the master is built from stay far below
/// the master's 407 KB. Typed worlds and expectations (docs/worlds.md) are machine data
/// the master never holds, so they do not count: the stdlib's world schema and each
/// case's world, `expect`, `forbid`, `review` and override machine statements.
#[test]
fn the_tujora_sources_and_stdlib_fit_in_100_kb() {
    let mut total = 0;
    for dir in ["cases/tujora", "stdlib"] {
        for file in casec::load::case_files(&root().join(dir), &mut Vec::new()) {
            let text = std::fs::read_to_string(&file).expect("readable");
            // World schemas and shapes declare formats, not the benchmark's content.
            let declares_only_formats = casec::syntax::parse(casec::source::FileId(0), &text)
                .file
                .is_some_and(|f| {
                    f.statements
                        .iter()
                        .all(|s| matches!(s.name(), "schema" | "shape"))
                });
            if !declares_only_formats {
                total += machine_parts::without_machine_parts(&text).len();
            }
        }
    }
    assert!(total > 50_000, "the sources were not found ({total} bytes)");
    assert!(total <= 100 * 1024, "{total} bytes of source");
}

// --- The generated corpus is what the round trip claims to cover. ---

fn cases(master: &Value) -> &Vec<Value> {
    master["cases"].as_array().expect("cases")
}

/// How many cases differ from the most common value of their category at `path`.
fn deviating(master: &Value, path: &[&str]) -> usize {
    let at = |case: &Value| path.iter().fold(case, |v, k| &v[*k]).to_string();
    let mut by_category: HashMap<String, Vec<String>> = HashMap::new();
    for case in cases(master) {
        by_category
            .entry(case["category"].to_string())
            .or_default()
            .push(at(case));
    }
    by_category
        .values()
        .map(|values| {
            let mut counts: HashMap<&String, usize> = HashMap::new();
            for v in values {
                *counts.entry(v).or_default() += 1;
            }
            values.len() - counts.values().max().copied().unwrap_or(0)
        })
        .sum()
}

fn checks(case: &Value) -> &Vec<Value> {
    case["evaluator_only"]["required_checks"]
        .as_array()
        .expect("checks")
}

fn count(master: &Value, predicate: impl Fn(&Value) -> bool) -> usize {
    cases(master).iter().filter(|c| predicate(c)).count()
}

fn all_strings<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| all_strings(v, out)),
        Value::Object(map) => map.iter().for_each(|(k, v)| {
            out.push(k);
            all_strings(v, out)
        }),
        _ => {}
    }
}

#[test]
fn every_overridable_field_deviates_in_the_generated_master() {
    let master: Value = serde_json::from_str(generated()).expect("generated JSON parses");
    let fields: [&[&str]; 11] = [
        &["model_input", "current_time"],
        &["model_input", "timezone"],
        &["model_input", "person_background_and_past_history"],
        &["model_input", "common_patterns_and_preferences"],
        &["model_input", "permissions"],
        &["model_input", "available_tools"],
        &["model_input", "record_access"],
        &["harness_only", "default_tool_behavior"],
        &["harness_only", "unscripted_user_reply"],
        &["harness_only", "hidden_ground_truth_policy"],
        &["evaluator_only", "pass_rule"],
    ];
    for path in fields {
        let n = deviating(&master, path);
        assert!(n >= CASES / 50, "{path:?}: only {n} cases deviate");
    }
    let requirement_of = |id: &'static str| {
        move |c: &Value| {
            checks(c)
                .iter()
                .find(|k| k["id"] == id)
                .map(|k| k["requirement"].clone())
        }
    };
    let c1_texts: std::collections::HashSet<String> = cases(&master)
        .iter()
        .filter_map(requirement_of("C1"))
        .map(|v| v.to_string())
        .collect();
    assert!(c1_texts.len() > 3, "C1 text never deviates");
    for dimension in [
        "recognition",
        "execution_and_evidence",
        "final_state",
        "communication",
    ] {
        let evidence: std::collections::HashSet<String> = cases(&master)
            .iter()
            .flat_map(checks)
            .filter(|k| k["dimension"] == dimension)
            .map(|k| k["evidence"].to_string())
            .collect();
        assert!(evidence.len() > 3, "{dimension} evidence never deviates");
    }
    let mixed_evidence = count(&master, |c| {
        let actions: Vec<&Value> = checks(c)
            .iter()
            .filter(|k| k["dimension"] == "execution_and_evidence")
            .map(|k| &k["evidence"])
            .collect();
        actions.windows(2).any(|w| w[0] != w[1])
    });
    assert!(mixed_evidence > 5, "evidence never differs per check");
}

/// A property some generated case must have.
type Shape<'a> = Box<dyn Fn(&Value) -> bool + 'a>;

#[test]
fn the_generated_master_has_every_shape_of_case() {
    let master: Value = serde_json::from_str(generated()).expect("generated JSON parses");
    let ids = |c: &Value| -> Vec<String> {
        checks(c)
            .iter()
            .map(|k| k["id"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    let conversation = |c: &Value| {
        c["model_input"]["conversation"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    let harness = |c: &Value, key: &str| c["harness_only"][key].clone();
    let shapes: Vec<(&str, Shape)> = vec![
        (
            "R1 A… S1 C1",
            Box::new(|c| {
                ids(c).first().is_some_and(|i| i == "R1")
                    && ids(c).last().is_some_and(|i| i == "C1")
            }),
        ),
        (
            "no R check",
            Box::new(|c| !ids(c).iter().any(|i| i.starts_with('R'))),
        ),
        (
            "an extra R2",
            Box::new(|c| ids(c).iter().any(|i| i == "R2")),
        ),
        (
            "a custom dimension",
            Box::new(|c| checks(c).iter().any(|k| k["id"] == "X1")),
        ),
        (
            "ids of no dimension",
            Box::new(|c| ids(c).iter().any(|i| i == "Q1")),
        ),
        (
            "reordered checks",
            Box::new(|c| ids(c).first().is_some_and(|i| i != "R1" && i != "Q1")),
        ),
        (
            "no A checks",
            Box::new(|c| !ids(c).iter().any(|i| i.starts_with('A'))),
        ),
        (
            "an A check of another dimension",
            Box::new(|c| {
                checks(c)
                    .iter()
                    .any(|k| k["id"] == "A1" && k["dimension"] != "execution_and_evidence")
            }),
        ),
        (
            "several turns",
            Box::new(move |c| conversation(c).len() > 1),
        ),
        ("no turns", Box::new(move |c| conversation(c).is_empty())),
        (
            "one turn unlike the situation",
            Box::new(move |c| {
                conversation(c).len() == 1
                    && conversation(c)[0]["content"] != c["model_input"]["current_situation"]
            }),
        ),
        (
            "an unusual role",
            Box::new(move |c| {
                conversation(c)
                    .iter()
                    .any(|t| t["role"] != "user" && t["role"] != "assistant")
            }),
        ),
        (
            "no override",
            Box::new(move |c| harness(c, "tool_behavior_override").is_null()),
        ),
        (
            "an override without optional parts",
            Box::new(move |c| {
                harness(c, "tool_behavior_override")
                    .as_object()
                    .is_some_and(|o| o.len() == 3)
            }),
        ),
        (
            "an override with side_effect only",
            Box::new(move |c| {
                harness(c, "tool_behavior_override")
                    .as_object()
                    .is_some_and(|o| {
                        o.contains_key("side_effect") && !o.contains_key("subsequent_verification")
                    })
            }),
        ),
        (
            "an override with verification only",
            Box::new(move |c| {
                harness(c, "tool_behavior_override")
                    .as_object()
                    .is_some_and(|o| {
                        !o.contains_key("side_effect") && o.contains_key("subsequent_verification")
                    })
            }),
        ),
        (
            "an override with both",
            Box::new(move |c| {
                harness(c, "tool_behavior_override")
                    .as_object()
                    .is_some_and(|o| o.len() == 5)
            }),
        ),
        (
            "a follow-up",
            Box::new(move |c| harness(c, "scripted_user_followup").is_object()),
        ),
        (
            "no tags",
            Box::new(|c| c["tags"].as_array().is_some_and(Vec::is_empty)),
        ),
        (
            "no critical failures",
            Box::new(|c| {
                c["evaluator_only"]["critical_failures"]
                    .as_array()
                    .is_some_and(Vec::is_empty)
            }),
        ),
        (
            "no tools",
            Box::new(|c| {
                c["model_input"]["available_tools"]
                    .as_array()
                    .is_some_and(Vec::is_empty)
            }),
        ),
    ];
    for (shape, has) in &shapes {
        assert!(count(&master, has) > 0, "no case has {shape}");
    }
    let mut strings = Vec::new();
    all_strings(&master, &mut strings);
    for awkward in generate::AWKWARD {
        assert!(
            strings.iter().any(|s| if awkward.is_empty() {
                s.is_empty()
            } else {
                s.contains(awkward)
            }),
            "no string holds {awkward:?}"
        );
    }
}

#[test]
fn the_generated_suite_varies_at_suite_level() {
    let master: Value = serde_json::from_str(generated()).expect("generated JSON parses");
    let coverage = master["coverage"].as_object().expect("coverage");
    let total: u64 = coverage.values().filter_map(Value::as_u64).sum();
    assert_eq!(total, CASES as u64);
    assert_eq!(master["case_count"], CASES);
    assert!(
        coverage.values().any(|n| n == 0),
        "no category without cases"
    );
    for case in cases(&master) {
        let category = case["category"].as_str().expect("category");
        assert_eq!(
            coverage[category].as_u64(),
            Some(count(&master, |c| c["category"] == category) as u64)
        );
    }
    let mut names: Vec<&String> = coverage.keys().collect();
    names.sort();
    assert!(
        names != coverage.keys().collect::<Vec<_>>(),
        "coverage is sorted"
    );
    let ids: Vec<&str> = cases(&master)
        .iter()
        .filter_map(|c| c["case_id"].as_str())
        .collect();
    assert!(
        ids.windows(2)
            .any(|w| casec::resolve::natural_cmp(w[0], w[1]).is_gt()),
        "cases are in id order"
    );
    let notes = master["revision_notes"].as_array().expect("revision notes");
    assert!(!notes.is_empty());
    for note in notes {
        assert!(ids.contains(&note["case_id"].as_str().unwrap_or_default()));
    }
}

/// The imported sources express each deviation where it belongs: per case, per
/// category, or once in the suite.
#[test]
fn imported_sources_override_every_field_per_case() {
    let files = import(generated());
    let case_files: Vec<&str> = files
        .iter()
        .filter(|(path, _)| path != "suite.case")
        .map(|(_, text)| text.as_str())
        .collect();
    let statements = [
        "clock",
        "timezone",
        "background",
        "preferences",
        "permissions",
        "tools",
        "record_access",
        "tool_behavior",
        "unscripted_reply",
        "ground_truth_policy",
        "pass_rule",
        "communication",
        "evidence",
        "conversation {",
        "conversation {}",
        "override",
        "followup {",
        "check R2",
        "dimension",
        "\"\"\"",
    ];
    for statement in statements {
        let written = case_files
            .iter()
            .filter(|text| text.lines().any(|l| l.trim_start().starts_with(statement)))
            .count();
        assert!(written > 0, "no case writes `{statement}`");
    }
    let suite = &files[0].1;
    for statement in [
        "order ",
        "revision ",
        "category unused_category 0",
        "tool send_message",
    ] {
        assert!(suite.contains(statement), "suite.case has no `{statement}`");
    }
}
