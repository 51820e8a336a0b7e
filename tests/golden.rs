//! Golden tests: one test per input file, expected outputs beside it.
//!
//! Layout: `tests/<area>/<name>.case` (a one-file suite, compiled as its suite.case),
//! `tests/<area>/<name>/` (a suite folder) or, in area `ui`, `tests/ui/<name>.master.json`
//! (a master JSON to import), `tests/ui/<name>.trace.jsonl` (a trace to parse, as
//! `casec replay` does) or `tests/ui/<name>.result.json` (result records of the Tujora
//! suite, read as `casec report` does), `tests/ui/<name>.overrides.jsonl` (judge
//! overrides, read against the Tujora suite as `casec judge` does) or
//! `tests/ui/<name>.unjudged.json` (result records of the Tujora suite judged by a judge
//! that never answers) or `tests/ui/<name>.calibration.json` (a calibration report, read
//! to gate a judge of model `test`), with expected outputs next to it:
//!
//! * `<name>.err`: every diagnostic, rendered for humans without colour at width 100
//!   (absent when the input is clean): those of compiling and, for a suite that
//!   compiles, those that stop its bundles and its shape's exports, and the refusals
//!   of the commands that would run its programs without the user's consent;
//! * `<name>.diag.jsonl` (area `ui`): what `casec check --format json` prints, one
//!   diagnostic object per line and the summary line; every line must also validate
//!   against `schemas/diagnostics.schema.json`;
//! * `<name>.json` (area `build`): the master JSON;
//! * `<name>.bundle.jsonl` (area `build`): the blinded model bundles as JSON Lines;
//! * `<name>.fmt.case` (area `fmt`): the input after `casec fmt` (absent when the
//!   formatter refuses the input; its `.err` then holds the formatter's diagnostics,
//!   not the compiler's).
//!
//! A one-file input with the line `# casec: no-check` is only resolved, not checked (as
//! `casec build --no-check`): the bundles' blinding proof then runs on its own.
//!
//! A UI test must produce at least one diagnostic. Run with `UPDATE_GOLDEN=1` to write
//! the expected files from the current output, then review the diff.

use std::fs;
use std::path::{Path, PathBuf};

use casec::diag::render::{self, HumanStyle};
use casec::diag::Diagnostic;
use casec::source::{Origin, SourceDb};
use casec::{Compilation, Config, Depth, Sources};
use libtest_mimic::{Arguments, Failed, Trial};

const AREAS: &[&str] = &["ui", "build", "fmt"];

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut trials = Vec::new();
    for area in AREAS {
        for input in inputs(&root.join(area)) {
            let name = format!("{area}::{}", stem(&input));
            let area = area.to_string();
            trials.push(Trial::test(name, move || run(&area, &input)));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

/// `.case` files and `.master.json` imports (not expected outputs) and suite folders of
/// an area, sorted.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.retain(|p| {
        let name = p.to_string_lossy();
        p.is_dir()
            || (name.ends_with(".case") && !name.ends_with(".fmt.case"))
            || name.ends_with(".master.json")
            || name.ends_with(TRACE)
            || name.ends_with(RESULTS)
            || name.ends_with(OVERRIDES)
            || name.ends_with(UNJUDGED)
            || name.ends_with(CALIBRATION)
    });
    out.sort();
    out
}

/// The expected-output file `<base>.<extension>`.
fn expected(base: &Path, extension: &str) -> PathBuf {
    let mut name = base.as_os_str().to_os_string();
    name.push(".");
    name.push(extension);
    PathBuf::from(name)
}

/// Trace inputs: parsed, not compiled.
const TRACE: &str = ".trace.jsonl";
/// Result record inputs: read against the Tujora suite.
const RESULTS: &str = ".result.json";
/// Judge overrides: read against the Tujora suite.
const OVERRIDES: &str = ".overrides.jsonl";
/// Result records judged by a judge that never answers.
const UNJUDGED: &str = ".unjudged.json";
/// Calibration reports: read to gate a judge of model `test`.
const CALIBRATION: &str = ".calibration.json";

fn is_trace(input: &Path) -> bool {
    input.to_string_lossy().ends_with(TRACE)
}

fn is_import(input: &Path) -> bool {
    input.to_string_lossy().ends_with(".master.json")
}

fn stem(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    [
        ".master.json",
        TRACE,
        RESULTS,
        OVERRIDES,
        UNJUDGED,
        CALIBRATION,
        ".case",
    ]
    .iter()
    .find_map(|ext| name.strip_suffix(ext))
    .unwrap_or(&name)
    .to_string()
}

/// Paths in diagnostics relative to the repository, with `/` separators.
fn relative(path: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Compiles an input. A one-file input whose text holds the line
/// `# casec: no-check` stops after resolution (as `casec build --no-check`), so that
/// what only the bundles' blinding proof reports can be shown on its own.
pub fn compile(input: &Path) -> Compilation {
    if input.is_dir() {
        Compilation::new(Sources::Folder(Path::new(&relative(input))))
    } else {
        let text = fs::read_to_string(input).expect("readable test input");
        let name = relative(input);
        let depth = if text.lines().any(|l| l.trim() == NO_CHECK) {
            Depth::Resolve
        } else {
            Depth::Check
        };
        Compilation::new(Config {
            sources: Sources::lone(&name, &text),
            depth,
            recheck: None,
        })
    }
}

const NO_CHECK: &str = "# casec: no-check";

/// Imports a master JSON, as `casec import` does, keeping its diagnostics.
fn import(input: &Path) -> (SourceDb, Vec<Diagnostic>) {
    let mut db = SourceDb::new();
    let text = fs::read_to_string(input).expect("readable test input");
    let file = db.add(relative(input), text, Origin::User);
    let diagnostics = casec::import::import(&db, file).err().unwrap_or_default();
    (db, diagnostics)
}

/// Parses a trace, as `casec replay` does, keeping its diagnostics.
fn parse_trace(input: &Path) -> (SourceDb, Vec<Diagnostic>) {
    let mut db = SourceDb::new();
    let text = fs::read_to_string(input).expect("readable test input");
    let file = db.add(relative(input), text.as_str(), Origin::User);
    let diagnostics = casec::runtime::trace::parse(file, &text)
        .err()
        .unwrap_or_default();
    (db, diagnostics)
}

/// Reads result records against the Tujora suite, as `casec report` does.
fn read_results(input: &Path) -> (SourceDb, Vec<Diagnostic>) {
    let mut compilation = Compilation::new(Sources::Folder(Path::new("cases/tujora")));
    let suite = compilation.suite.take().expect("the Tujora suite resolves");
    let mut db = SourceDb::new();
    let text = fs::read_to_string(input).expect("readable test input");
    let file = db.add(relative(input), text.as_str(), Origin::User);
    let mut diagnostics = match casec::runtime::report::read_records(file, &text, &suite) {
        Ok(records) => casec::runtime::report::duplicates(&records),
        Err(diagnostics) => diagnostics,
    };
    casec::diag::sort(&mut diagnostics, &db);
    (db, diagnostics)
}

/// Reads judge overrides against the Tujora suite, as `casec judge` does.
fn read_overrides(input: &Path) -> (SourceDb, Vec<Diagnostic>) {
    let mut compilation = Compilation::new(Sources::Folder(Path::new("cases/tujora")));
    let suite = compilation.suite.take().expect("the Tujora suite resolves");
    let mut db = SourceDb::new();
    let text = fs::read_to_string(input).expect("readable test input");
    let file = db.add(relative(input), text.as_str(), Origin::User);
    let diagnostics = casec::judge::overrides::read(file, &text, &suite)
        .err()
        .unwrap_or_default();
    (db, diagnostics)
}

/// A judge endpoint that never answers.
struct Silent;

impl casec::judge::endpoint::Complete for Silent {
    fn complete(&self, _: &serde_json::Value) -> Result<String, String> {
        Err("cannot reach the judge at http://127.0.0.1:9/v1/chat/completions".into())
    }
}

/// Judges result records of the Tujora suite with [`Silent`], as `casec judge` does,
/// keeping the warnings of the items left without a verdict.
fn judge_silently(input: &Path) -> (SourceDb, Vec<Diagnostic>) {
    let mut compilation = Compilation::new(Sources::Folder(Path::new("cases/tujora")));
    let suite = compilation.suite.take().expect("the Tujora suite resolves");
    let mut db = SourceDb::new();
    let text = fs::read_to_string(input).expect("readable test input");
    let file = db.add(relative(input), text.as_str(), Origin::User);
    let records = casec::runtime::report::read_record_values(file, &text, &suite)
        .expect("result records of the Tujora suite");
    let people = casec::judge::overrides::Overrides::default();
    let judge = casec::judge::Judge {
        settings: casec::judge::Settings {
            model: "test".into(),
            seed: 0,
        },
        endpoint: &Silent,
        cache: None,
        overrides: &people,
    };
    let mut diagnostics = Vec::new();
    for (read, record) in &records {
        let case = suite
            .cases
            .iter()
            .find(|c| c.id.as_str() == read.case_id)
            .expect("a case of the suite");
        let judgements: Vec<_> = casec::judge::review_items(&suite, case, record)
            .iter()
            .map(|item| judge.judge(&suite, case, item, record).0)
            .collect();
        let span = read.span.first_line(&text);
        diagnostics.extend(casec::judge::record::unjudged(
            span,
            &suite,
            record,
            &judgements,
        ));
    }
    (db, diagnostics)
}

/// What `casec check --format json` prints for these diagnostics.
fn json_lines(db: &SourceDb, diagnostics: &[Diagnostic]) -> String {
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let files = db.files().filter(|(_, f)| f.origin == Origin::User).count();
    let mut out = String::new();
    for d in diagnostics {
        out.push_str(&render::json_line(d, db));
        out.push('\n');
    }
    out.push_str(&render::json_summary(
        errors,
        diagnostics.len() - errors,
        files,
    ));
    out.push('\n');
    out
}

/// Validates each line of JSON output against the documented schema.
fn validate_json_lines(lines: &str, failures: &mut Vec<String>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let schema = fs::read_to_string(root.join("schemas/diagnostics.schema.json"))
        .expect("readable diagnostics schema");
    let schema: serde_json::Value = serde_json::from_str(&schema).expect("schema is JSON");
    let validator = match jsonschema::draft202012::new(&schema) {
        Ok(v) => v,
        Err(e) => return failures.push(format!("invalid diagnostics schema: {e}")),
    };
    for line in lines.lines() {
        let value: serde_json::Value = match serde_json::from_str(line) {
            Ok(value) => value,
            Err(e) => return failures.push(format!("not JSON ({e}): {line}")),
        };
        for error in validator.iter_errors(&value) {
            failures.push(format!(
                "does not follow the schema at {}: {error}\n{line}",
                error.instance_path
            ));
        }
    }
}

fn run(area: &str, input: &Path) -> Result<(), Failed> {
    // Folder inputs are read relative to the repository root, as a user would run casec.
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).map_err(|e| e.to_string())?;
    let base = input.parent().unwrap_or(Path::new(".")).join(stem(input));
    let mut failures = Vec::new();
    if area == "fmt" {
        run_fmt(input, &base, &mut failures);
    } else {
        run_compile(area, input, &base, &mut failures);
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n\n").into())
    }
}

fn run_compile(area: &str, input: &Path, base: &Path, failures: &mut Vec<String>) {
    let (db, diagnostics, master, bundles) = if is_import(input) {
        let (db, diagnostics) = import(input);
        (db, diagnostics, None, None)
    } else if is_trace(input) {
        let (db, diagnostics) = parse_trace(input);
        (db, diagnostics, None, None)
    } else if input.to_string_lossy().ends_with(OVERRIDES) {
        let (db, diagnostics) = read_overrides(input);
        (db, diagnostics, None, None)
    } else if input.to_string_lossy().ends_with(CALIBRATION) {
        let mut db = SourceDb::new();
        let text = fs::read_to_string(input).expect("readable test input");
        let file = db.add(relative(input), text.as_str(), Origin::User);
        let diagnostics = casec::judge::calibrate::read_gate(file, &text, "test", 0.8)
            .err()
            .into_iter()
            .collect();
        (db, diagnostics, None, None)
    } else if input.to_string_lossy().ends_with(UNJUDGED) {
        let (db, diagnostics) = judge_silently(input);
        (db, diagnostics, None, None)
    } else if input.to_string_lossy().ends_with(RESULTS) {
        let (db, diagnostics) = read_results(input);
        (db, diagnostics, None, None)
    } else {
        let compilation = compile(input);
        let master = compilation.master_json();
        let mut diagnostics = compilation.diagnostics.clone();
        let bundles = match compilation.bundles() {
            Some(Ok(set)) => Some(set.jsonl()),
            Some(Err(stopped)) => {
                diagnostics.extend(stopped);
                None
            }
            None => None,
        };
        // What stops the exports the suite's shape declares, and the commands that would
        // run its programs without the user's consent.
        if let Some(suite) = compilation
            .suite
            .as_ref()
            .filter(|_| !compilation.has_errors())
        {
            for name in casec::lower::export::export_names(suite) {
                if let Some(Err(stopped)) = casec::lower::export::export(suite, name, &[]) {
                    diagnostics.extend(stopped);
                }
            }
            use casec::runtime::trust::{refusals, Trust, COMMAND_LINE};
            let refused = refusals(suite, &suite.cases, Trust::Untrusted);
            diagnostics.extend(refused.iter().map(|r| r.diagnostic(&COMMAND_LINE)));
        }
        (compilation.db, diagnostics, master, bundles)
    };
    compare(
        &expected(base, "err"),
        render_all(&diagnostics, &db),
        failures,
    );
    if area == "build" {
        compare(&expected(base, "json"), master, failures);
        compare(&expected(base, "bundle.jsonl"), bundles, failures);
    }
    if area == "ui" {
        let lines = json_lines(&db, &diagnostics);
        validate_json_lines(&lines, failures);
        compare(&expected(base, "diag.jsonl"), Some(lines), failures);
        if diagnostics.is_empty() {
            failures.push("a UI test must produce at least one diagnostic".to_string());
        }
    }
}

fn run_fmt(input: &Path, base: &Path, failures: &mut Vec<String>) {
    let text = fs::read_to_string(input).expect("readable test input");
    let mut db = SourceDb::new();
    let id = db.add(relative(input), text.as_str(), Origin::User);
    let (formatted, diagnostics) = match casec::fmt::format_source(id, &text) {
        Ok(formatted) => (Some(formatted), Vec::new()),
        Err(diagnostics) => (None, diagnostics),
    };
    compare(
        &expected(base, "err"),
        render_all(&diagnostics, &db),
        failures,
    );
    compare(&expected(base, "fmt.case"), formatted, failures);
}

/// Every diagnostic rendered for humans, or `None` when there are none.
fn render_all(diagnostics: &[Diagnostic], db: &SourceDb) -> Option<String> {
    let rendered: String = diagnostics
        .iter()
        .map(|d| render::human(d, db, HumanStyle::PLAIN))
        .collect();
    (!rendered.is_empty()).then_some(rendered)
}

/// Compares `actual` with the file at `expected` (absent file = no output expected).
fn compare(expected: &Path, actual: Option<String>, failures: &mut Vec<String>) {
    let updating = std::env::var_os("UPDATE_GOLDEN").is_some();
    let existing = fs::read_to_string(expected).ok();
    if existing == actual {
        return;
    }
    if updating {
        match &actual {
            Some(text) => fs::write(expected, text).expect("writable expected file"),
            None => {
                let _ = fs::remove_file(expected);
            }
        }
        return;
    }
    let name = relative(expected);
    match (existing, actual) {
        (None, Some(actual)) => {
            failures.push(format!("{name} is missing; the output was:\n{actual}"))
        }
        (Some(_), None) => failures.push(format!(
            "{name} exists but the input produced no such output"
        )),
        (Some(existing), Some(actual)) => {
            let diff = similar::TextDiff::from_lines(&existing, &actual);
            failures.push(format!(
                "{name} differs:\n{}",
                diff.unified_diff().header("expected", "actual")
            ));
        }
        (None, None) => {}
    }
}
