//! Golden tests: one test per input file, expected outputs beside it.
//!
//! Layout: `tests/<area>/<name>.case` (a one-file suite, compiled as its suite.case) or
//! `tests/<area>/<name>/` (a suite folder), with expected outputs next to it:
//!
//! * `<name>.err`: every diagnostic, rendered for humans without colour at width 100
//!   (absent when the input is clean): those of compiling and, for a suite that
//!   compiles, those that stop its bundles;
//! * `<name>.json` (area `build`): the master JSON;
//! * `<name>.bundle.jsonl` (area `build`): the blinded model bundles as JSON Lines;
//! * `<name>.fmt.case` (area `fmt`): the input after `casec fmt` (absent when the
//!   formatter refuses the input; its `.err` then holds the formatter's diagnostics,
//!   not the compiler's).
//!
//! Run with `UPDATE_GOLDEN=1` to write the expected files from the current output,
//! then review the diff.

use std::fs;
use std::path::{Path, PathBuf};

use casec::diag::render::{self, HumanStyle};
use casec::diag::Diagnostic;
use casec::source::{Origin, SourceDb};
use casec::Compilation;
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

/// `.case` files (not expected outputs) and suite folders of an area, sorted.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.retain(|p| {
        p.is_dir()
            || (p.extension().is_some_and(|e| e == "case")
                && !p.to_string_lossy().ends_with(".fmt.case"))
    });
    out.sort();
    out
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Paths in diagnostics relative to the repository, with `/` separators.
fn relative(path: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

pub fn compile(input: &Path) -> Compilation {
    if input.is_dir() {
        Compilation::from_dir(Path::new(&relative(input)))
    } else {
        let text = fs::read_to_string(input).expect("readable test input");
        let name = relative(input);
        Compilation::from_single_file(&name, &text)
    }
}

fn run(area: &str, input: &Path) -> Result<(), Failed> {
    // Folder inputs are read relative to the repository root, as a user would run casec.
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).map_err(|e| e.to_string())?;
    let base = input.with_extension("");
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
    let compilation = compile(input);
    let bundles = compilation.bundles();
    let mut diagnostics = compilation.diagnostics.clone();
    if let Some(Err(stopped)) = &bundles {
        diagnostics.extend(stopped.iter().cloned());
    }
    let rendered = render_all(&diagnostics, &compilation.db);
    compare(&base.with_extension("err"), rendered, failures);
    if area == "build" {
        compare(
            &base.with_extension("json"),
            compilation.master_json(),
            failures,
        );
        compare(
            &base.with_extension("bundle.jsonl"),
            bundles.and_then(Result::ok).map(|set| set.jsonl()),
            failures,
        );
    }
    if area == "ui" && diagnostics.is_empty() {
        failures.push("a UI test must produce at least one diagnostic".to_string());
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
        &base.with_extension("err"),
        render_all(&diagnostics, &db),
        failures,
    );
    compare(&base.with_extension("fmt.case"), formatted, failures);
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
