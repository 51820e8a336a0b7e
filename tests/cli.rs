//! `casec check` as a user, CI or a pre-commit hook runs it: exit codes, the three
//! output formats and `--deny warnings`.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn casec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_casec"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .expect("casec runs")
}

/// What `casec check` reports: on standard error, like every command's diagnostics.
fn reported(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("UTF-8 output")
}

fn json_lines(output: &Output) -> Vec<serde_json::Value> {
    reported(output)
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect()
}

/// A fresh folder under the system's temporary folder, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("casec-cli-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("temporary folder");
        Scratch(dir)
    }

    /// A one-file suite folder `name` holding the UI test input `ui` as its suite.case.
    fn suite_from_ui(&self, name: &str, ui: &str) -> String {
        let dir = self.0.join(name);
        fs::create_dir_all(&dir).expect("suite folder");
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/ui/{ui}.case"));
        fs::copy(source, dir.join("suite.case")).expect("copy the suite");
        dir.to_string_lossy().into_owned()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

#[test]
fn the_tujora_suite_checks_clean() {
    let output = casec(&["check", "cases/tujora", "--format", "json"]);
    assert_eq!(output.status.code(), Some(0), "{}", reported(&output));
    let lines = json_lines(&output);
    assert_eq!(
        lines,
        [serde_json::json!({ "summary": { "errors": 0, "warnings": 0, "files": 101 } })]
    );
}

#[test]
fn ten_mistakes_in_ten_files_are_all_reported_in_one_run() {
    let output = casec(&["check", "tests/ui/ten_mistakes", "--format", "json"]);
    assert_eq!(output.status.code(), Some(1));
    let lines = json_lines(&output);
    let (summary, diagnostics) = lines.split_last().expect("a summary line");
    let codes: BTreeSet<&str> = diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    let files: BTreeSet<&str> = diagnostics
        .iter()
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    assert_eq!(diagnostics.len(), 10, "{}", reported(&output));
    assert_eq!(codes.len(), 10, "ten different mistakes: {codes:?}");
    assert_eq!(files.len(), 10, "one per file: {files:?}");
    assert_eq!(
        summary["summary"],
        serde_json::json!({ "errors": 8, "warnings": 2, "files": 11 })
    );
}

#[test]
fn warnings_pass_unless_denied() {
    let scratch = Scratch::new("deny");
    let suite = scratch.suite_from_ui("suite", "weekday_mismatch");
    let allowed = casec(&["check", &suite]);
    assert_eq!(allowed.status.code(), Some(0));
    assert!(reported(&allowed).contains("weekday_mismatch"));
    let denied = casec(&["check", &suite, "--deny", "warnings"]);
    assert_eq!(denied.status.code(), Some(1));
}

#[test]
fn errors_exit_1_and_io_or_usage_problems_exit_2() {
    let scratch = Scratch::new("errors");
    let suite = scratch.suite_from_ui("suite", "leak");
    assert_eq!(casec(&["check", &suite]).status.code(), Some(1));
    let missing = casec(&["check", "no/such/folder", "--format", "json"]);
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(json_lines(&missing)[0]["code"], "io");
    assert_eq!(casec(&["check", "--format", "xml"]).status.code(), Some(2));
}

#[test]
fn human_output_shows_code_location_source_labels_and_help() {
    let output = casec(&["check", "tests/ui/ten_mistakes"]);
    let text = reported(&output);
    assert!(text.contains("weekday_mismatch"));
    assert!(text.contains("[tests/ui/ten_mistakes/08_weekday.case:6:48]"));
    assert!(text.contains("this should be Thursday"));
    assert!(text.contains("help: write `Thursday`"));
    assert!(
        text.ends_with("casec check: 11 file(s), 8 errors, 2 warnings\n"),
        "{text}"
    );
    assert!(
        output.stdout.is_empty(),
        "diagnostics go to standard error only"
    );
}

#[test]
fn github_annotations_escape_properties_and_data() {
    let scratch = Scratch::new("github");
    let suite = scratch.suite_from_ui("odd,name:here", "weekday_mismatch");
    let output = casec(&["check", &suite, "--format", "github"]);
    let text = reported(&output);
    let line = text.lines().next().expect("one annotation");
    assert!(line.starts_with("::warning file="), "{line}");
    assert!(
        line.contains("odd%2Cname%3Ahere/suite.case,line="),
        "{line}"
    );
    assert!(line.contains(",title=weekday_mismatch::"), "{line}");
    assert!(
        line.contains("not a Friday%0Ahelp: write `Thursday`"),
        "{line}"
    );
    assert_eq!(text.lines().count(), 1);
}

#[test]
fn diagnostics_of_several_suites_are_sorted_by_file_across_the_run() {
    let output = casec(&[
        "check",
        "tests/ui/ten_mistakes",
        "no/such/path",
        "tests/ui/io_not_utf8",
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(2), "an io error wins");
    let lines = json_lines(&output);
    let files: Vec<&str> = lines[..lines.len() - 1]
        .iter()
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(files, sorted);
    assert_eq!(files.first(), Some(&"no/such/path"));
    assert!(files.contains(&"tests/ui/io_not_utf8/notes.case"));
    assert_eq!(files.len(), 12);
}

#[test]
fn a_file_outside_any_suite_folder_that_declares_a_suite_is_checked_as_one() {
    let run = casec(&["check", "tests/build/minimal.case"]);
    assert_eq!(run.status.code(), Some(0), "{}", reported(&run));
}

/// A ten-million-character token is named in a few hundred bytes, not printed whole in
/// every diagnostic (and its "did you mean" costs nothing).
#[test]
fn a_huge_token_gives_short_diagnostics() {
    let scratch = Scratch::new("huge");
    let suite = scratch.suite_from_ui("suite", "case_count_mismatch");
    let token = "x".repeat(10_000_000);
    let case = format!("case UI-2 \"t\" {{\n  {token} 1\n  category {token}\n}}\n");
    fs::write(Path::new(&suite).join("huge.case"), case).unwrap();
    for format in ["human", "json", "github"] {
        let output = casec(&["check", &suite, "--format", format]);
        assert_eq!(output.status.code(), Some(1));
        let text = reported(&output);
        assert!(text.len() < 30_000, "{format}: {} bytes", text.len());
        assert!(text.contains("more characters)"), "{format}: {text}");
    }
}
