//! Sandbox initialisation: golden files, the JSON Schema, the master's independence
//! from worlds, and the bookkeeping of world diagnostics.
//!
//! Golden layout: `tests/sandbox/<name>/` is a suite folder; `tests/sandbox/<name>.expected/`
//! holds the files `casec sandbox` writes for it. Run with `UPDATE_GOLDEN=1` to rewrite
//! them, then review the diff.

use std::fs;
use std::path::{Path, PathBuf};

use casec::lower::sandbox::sandbox_files;
use casec::lower::stats::suite_stats;
use casec::{Compilation, Sources};
use libtest_mimic::{Arguments, Failed, Trial};

fn main() {
    let args = Arguments::from_args();
    let mut trials = vec![
        Trial::test(
            "arbitrary_world_statements_never_panic",
            arbitrary_world_statements_never_panic,
        ),
        Trial::test(
            "tujora_sandboxes_follow_the_schema",
            tujora_sandboxes_follow_the_schema,
        ),
        Trial::test(
            "worlds_never_reach_the_master",
            worlds_never_reach_the_master,
        ),
        Trial::test(
            "sandbox_bytes_are_deterministic",
            sandbox_bytes_are_deterministic,
        ),
        Trial::test(
            "stats_count_how_checks_are_decided",
            stats_count_how_checks_are_decided,
        ),
    ];
    for suite in golden_suites() {
        let name = format!("golden::{}", file_name(&suite));
        trials.push(Trial::test(name, move || golden(&suite)));
    }
    libtest_mimic::run(&args, trials).exit();
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn compile(suite: &Path) -> Result<Compilation, Failed> {
    let compilation = Compilation::new(Sources::Folder(suite));
    if compilation.has_errors() {
        return Err(format!(
            "{} does not compile: {:?}",
            suite.display(),
            compilation.diagnostics
        )
        .into());
    }
    Ok(compilation)
}

fn tujora() -> PathBuf {
    root().join("cases/tujora")
}

fn golden_suites() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(root().join("tests/sandbox"))
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.retain(|p| p.join("suite.case").is_file());
    out.sort();
    out
}

fn golden(suite: &Path) -> Result<(), Failed> {
    let compilation = compile(suite)?;
    let model = compilation.suite.as_ref().ok_or("no suite")?;
    let expected_dir = suite.with_extension("expected");
    let files = sandbox_files(model);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        let _ = fs::remove_dir_all(&expected_dir);
        fs::create_dir_all(&expected_dir).map_err(|e| e.to_string())?;
        for (name, text) in &files {
            fs::write(expected_dir.join(name), text).map_err(|e| e.to_string())?;
        }
        return Ok(());
    }
    let mut expected: Vec<String> = fs::read_dir(&expected_dir)
        .map_err(|e| format!("{}: {e}", expected_dir.display()))?
        .flatten()
        .map(|e| file_name(&e.path()))
        .collect();
    expected.sort();
    let written: Vec<String> = files.iter().map(|(n, _)| n.clone()).collect();
    if expected != written {
        return Err(format!("expected files {expected:?}, casec writes {written:?}").into());
    }
    for (name, text) in &files {
        let want = fs::read_to_string(expected_dir.join(name)).map_err(|e| e.to_string())?;
        if &want != text {
            let diff = similar::TextDiff::from_lines(&want, text);
            return Err(format!(
                "{name} differs:\n{}",
                diff.unified_diff().header("expected", "actual")
            )
            .into());
        }
    }
    Ok(())
}

fn tujora_sandboxes_follow_the_schema() -> Result<(), Failed> {
    let schema_text = fs::read_to_string(root().join("schemas/sandbox.schema.json"))
        .map_err(|e| e.to_string())?;
    let schema: serde_json::Value =
        serde_json::from_str(&schema_text).map_err(|e| e.to_string())?;
    let validator = jsonschema::draft202012::new(&schema).map_err(|e| e.to_string())?;
    let mut suites = vec![tujora()];
    suites.extend(golden_suites());
    let mut checked = 0;
    let mut first: Option<serde_json::Value> = None;
    for suite in suites {
        let compilation = compile(&suite)?;
        let model = compilation.suite.as_ref().ok_or("no suite")?;
        let files = sandbox_files(model);
        if suite == tujora() && files.len() != model.cases.len() {
            return Err(format!(
                "{} Tujora sandbox files for {} cases",
                files.len(),
                model.cases.len()
            )
            .into());
        }
        for (name, text) in files {
            let instance: serde_json::Value =
                serde_json::from_str(&text).map_err(|e| e.to_string())?;
            let errors: Vec<String> = validator
                .iter_errors(&instance)
                .map(|e| format!("{} at {}", e, e.instance_path))
                .collect();
            if !errors.is_empty() {
                return Err(
                    format!("{name} does not follow the schema:\n{}", errors.join("\n")).into(),
                );
            }
            checked += 1;
            first.get_or_insert(instance);
        }
    }
    let mut broken = first.ok_or("no sandbox file was written")?;
    if let Some(case) = broken.as_object_mut() {
        case.remove("clock");
    }
    if validator.is_valid(&broken) {
        return Err("the schema accepts a sandbox file without its clock".into());
    }
    if checked < 2 {
        return Err(format!("only {checked} sandbox file(s) were checked").into());
    }
    Ok(())
}

/// World data is the sandbox's alone: the master is the same bytes with or without it.
fn worlds_never_reach_the_master() -> Result<(), Failed> {
    let compilation = compile(&tujora())?;
    let master = compilation.master_json().ok_or("no master")?;
    let golden = fs::read_to_string(root().join("tests/data/tujora-benchmark-1.0.1.json"))
        .map_err(|e| e.to_string())?;
    let modelled = compilation.suite.as_ref().map_or(0, |s| {
        s.cases.iter().filter(|c| c.sandbox.is_some()).count()
    });
    if modelled == 0 {
        return Err("no Tujora case has a world, so this test proves nothing".into());
    }
    if master != golden {
        return Err(
            "the master JSON built from cases/tujora differs from the golden master".into(),
        );
    }
    Ok(())
}

fn sandbox_bytes_are_deterministic() -> Result<(), Failed> {
    let files = |_: ()| -> Result<Vec<(String, String)>, Failed> {
        let compilation = compile(&tujora())?;
        Ok(sandbox_files(compilation.suite.as_ref().ok_or("no suite")?))
    };
    if files(())? != files(())? {
        return Err("two compilations of the same sources gave different sandbox files".into());
    }
    Ok(())
}

fn stats_count_how_checks_are_decided() -> Result<(), Failed> {
    let compilation = compile(&root().join("tests/sandbox/every_construct"))?;
    let stats = suite_stats(compilation.suite.as_ref().ok_or("no suite")?);
    let t = &stats.total;
    // R1, A1, A2, S1 and C1; F1 and F2 (see the case): A1, S1 machine; A2 and C1 both;
    // R1 review. F1 machine, F2 both.
    let found = (
        t.cases,
        t.modelled,
        t.checks.machine,
        t.checks.both,
        t.checks.review,
    );
    if found != (1, 1, 2, 2, 1) {
        return Err(format!("checks: (cases, modelled, machine, both, review) = {found:?}").into());
    }
    if (
        t.criticals.machine,
        t.criticals.both,
        t.criticals.unmodelled,
    ) != (1, 1, 0)
    {
        return Err(format!("critical failures tallied as {:?}", t.criticals).into());
    }
    let tujora = compile(&tujora())?;
    let all = suite_stats(tujora.suite.as_ref().ok_or("no suite")?).total;
    // 300 critical failures of the cases, and the suite's 4 in each of the 100 cases
    // (a reader judges those).
    if all.checks.total() != 573 || all.criticals.total() != 700 {
        return Err(format!(
            "Tujora has 573 checks and 300 + 4 × 100 critical failures, stats count {all:?}"
        )
        .into());
    }
    Ok(())
}

/// Statements assembled from the world vocabulary, well formed or not, compile to
/// diagnostics, never to a panic.
fn arbitrary_world_statements_never_panic() -> Result<(), Failed> {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};

    const WORDS: &[&str] = &[
        "world",
        "expect",
        "forbid",
        "review",
        "new",
        "history",
        "reminders",
        "tasks",
        "calendar_events",
        "R1",
        "R2",
        "T1",
        "A1",
        "S1",
        "F1",
        "Q1",
        "count",
        "called",
        "record",
        "exists",
        "absent",
        "unchanged",
        "changed",
        "except",
        "retrieved",
        "verified",
        "in_order",
        "only_after",
        "asked",
        "any",
        "not",
        "at",
        "at.time",
        "at.date",
        "label",
        "status",
        "subject",
        "subject.status",
        "active",
        "pending",
        "at_least",
        "at_most",
        "before",
        "after",
        "contains",
        "lacks",
        "in",
        "write_record",
        "read_records",
        "collection",
        "operation",
        "create",
        "fields.at",
        "fields.nope",
        "when",
        "error",
        "times",
        "request",
        "commits",
        "TIMEOUT",
        "0",
        "1",
        "-3",
        "2.5",
        "\"2026-11-09 20:00\"",
        "\"2026-11-09T20:00:00-04:00\"",
        "\"20:00\"",
        "\"30m\"",
        "\"weekly tuesday\"",
        "\"x\"",
        "\"[Nowhere/Zone]\"",
        "daily",
        "[R1, T1]",
        "[]",
        "{",
        "}",
        ";",
        "\n",
    ];
    let base = fs::read_to_string(root().join("tests/sandbox/every_construct/suite.case"))
        .map_err(|e| e.to_string())?;
    let end = base.rfind('}').ok_or("no case end")?;
    let mut runner = TestRunner::new(Config {
        cases: 400,
        ..Config::default()
    });
    // Statements shaped like the grammar's (key, values, optional block, two levels deep),
    // so they get past the parser and into the world's readers.
    let word = || proptest::sample::select(WORDS);
    let inner = (word(), proptest::collection::vec(word(), 0..4));
    let statement = (
        word(),
        proptest::collection::vec(word(), 0..4),
        proptest::option::of(proptest::collection::vec(
            (
                inner.clone(),
                proptest::option::of(proptest::collection::vec(inner, 0..4)),
            ),
            0..5,
        )),
    );
    let statements = proptest::collection::vec(statement, 0..6);
    runner
        .run(&statements, |statements| {
            let line = |key: &str, values: &[&str]| {
                format!("{key} {}", values.join(" ")).replace(['{', '}', ';', '\n'], "")
            };
            let mut body = String::new();
            for (key, values, block) in &statements {
                body.push_str(&line(key, values));
                if let Some(block) = block {
                    body.push_str(" {\n");
                    for ((k, v), nested) in block {
                        body.push_str(&line(k, v));
                        if let Some(nested) = nested {
                            let inner: Vec<String> =
                                nested.iter().map(|(k, v)| line(k, v)).collect();
                            body.push_str(&format!(" {{ {} }}", inner.join("; ")));
                        }
                        body.push('\n');
                    }
                    body.push('}');
                }
                body.push('\n');
            }
            let text = format!("{}\n{body}}}\n", &base[..end]);
            let compilation = Compilation::new(Sources::in_memory([("suite.case", text.as_str())]));
            prop_assert!(compilation
                .diagnostics
                .iter()
                .all(|d| !d.message.is_empty()));
            Ok(())
        })
        .map_err(|e| Failed::from(e.to_string()))
}
