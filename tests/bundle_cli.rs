//! `casec bundle` as a user runs it: what it writes, and that a failed run leaves
//! nothing behind.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use casec::{Compilation, Sources};

use crate::support::files::copy_dir;

fn casec(args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_casec"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("casec runs")
}

fn tujora() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/tujora")
}

/// A fresh, empty folder for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("casec-bundle-cli-{}-{test}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("readable folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn arg(s: &str) -> &Path {
    Path::new(s)
}

/// `casec bundle cases/tujora -o OUT --jsonl JSONL`.
fn bundle_tujora(out: &Path, jsonl: &Path) -> Output {
    casec(&[
        arg("bundle"),
        &tujora(),
        arg("-o"),
        out,
        arg("--jsonl"),
        jsonl,
    ])
}

#[test]
fn writes_100_bundles_an_index_and_the_same_lines_as_jsonl() {
    let dir = scratch("tujora");
    let (out, jsonl) = (dir.join("bundles"), dir.join("bundles.jsonl"));
    let run = bundle_tujora(&out, &jsonl);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let files = names_in(&out);
    assert_eq!(files.len(), 101);
    assert!(files.contains(&"index.json".to_string()));
    let lines = fs::read_to_string(&jsonl).expect("jsonl written");
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(lines.len(), 100);
    let expected = Compilation::new(Sources::Folder(&tujora()))
        .bundles()
        .unwrap()
        .unwrap();
    for (bundle, line) in expected.bundles.iter().zip(lines) {
        let file = fs::read_to_string(out.join(&bundle.file_name)).expect("bundle file");
        assert_eq!(file, bundle.json);
        assert_eq!(line, bundle.json);
    }
    assert_eq!(names_in(&dir), ["bundles", "bundles.jsonl"]);
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_fixture_sentence_copied_into_a_user_message_stops_every_output() {
    let dir = scratch("leak");
    let suite = dir.join("suite");
    copy_dir(&tujora(), &suite);
    // A sentence of TUJ-011's facts in its own user message: `casec check`'s leak rule,
    // which `casec bundle` runs first, is the blinding proof's rule.
    let case = suite.join("medication/TUJ-011.case");
    let text = fs::read_to_string(&case).expect("TUJ-011");
    let original = "user \"Set a reminder for my evening medicine at eight every night.\"";
    assert!(text.contains(original));
    let leaked = "user \"Set a reminder for my evening medicine. M2 schedule is 20:00 daily.\"";
    fs::write(&case, text.replace(original, leaked)).expect("edited case");
    let (out, jsonl) = (dir.join("bundles"), dir.join("bundles.jsonl"));
    let run = casec(&[
        arg("bundle"),
        &suite,
        arg("-o"),
        &out,
        arg("--jsonl"),
        &jsonl,
        arg("--format"),
        arg("json"),
    ]);
    assert_eq!(run.status.code(), Some(1));
    let report = String::from_utf8_lossy(&run.stderr);
    assert!(report.contains("\"code\":\"leak\""), "{report}");
    assert!(
        report.contains("the `user` of case TUJ-011 repeats 6 words of the hidden `facts`"),
        "{report}"
    );
    assert_eq!(
        names_in(&dir),
        ["suite"],
        "a failed build left files behind"
    );
    fs::remove_dir_all(&dir).ok();
}

/// The same sentence in another case's user message is no leak: TUJ-012's model is not
/// tested on TUJ-011's facts. `casec check` and `casec bundle` agree.
#[test]
fn another_case_s_fixture_sentence_is_not_a_leak() {
    let dir = scratch("other-case");
    let suite = dir.join("suite");
    copy_dir(&tujora(), &suite);
    let case = suite.join("medication/TUJ-012.case");
    let text = fs::read_to_string(&case).expect("TUJ-012");
    let original = "user \"It says I cleared the alert. Does that mean I took the medicine?\"";
    assert!(text.contains(original));
    let copied = "user \"It says I cleared the alert. M2 schedule is 20:00 daily.\"";
    fs::write(&case, text.replace(original, copied)).expect("edited case");
    assert_eq!(casec(&[arg("check"), &suite]).status.code(), Some(0));
    let run = casec(&[arg("bundle"), &suite, arg("--jsonl"), arg("-")]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_non_empty_output_folder_is_kept_and_nothing_else_is_written() {
    let dir = scratch("occupied");
    let (out, jsonl) = (dir.join("bundles"), dir.join("bundles.jsonl"));
    fs::create_dir_all(&out).unwrap();
    fs::write(out.join("mine.txt"), "keep me").unwrap();
    let run = bundle_tujora(&out, &jsonl);
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(names_in(&out), ["mine.txt"]);
    assert_eq!(names_in(&dir), ["bundles"]);
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_jsonl_path_that_is_a_folder_stops_both_outputs() {
    let dir = scratch("rollback");
    let (out, jsonl) = (dir.join("bundles"), dir.join("taken"));
    // A folder where the JSON Lines file should go: refused before the folder of
    // bundles is put in place. (A failure of the last rename is injected in the unit
    // tests of `driver::bundle`.)
    fs::create_dir_all(jsonl.join("inside")).unwrap();
    let run = bundle_tujora(&out, &jsonl);
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(names_in(&dir), ["taken"]);
    fs::remove_dir_all(&dir).ok();
}

/// `casec bundle -o DIR --jsonl FILE` over an existing FILE: the file is replaced, and
/// the copy of it kept until the folder was in place is gone.
#[test]
fn an_existing_jsonl_is_replaced_and_nothing_else_is_left() {
    let dir = scratch("replaced");
    let (out, jsonl) = (dir.join("bundles"), dir.join("bundles.jsonl"));
    fs::write(&jsonl, "an earlier run\n").unwrap();
    let run = bundle_tujora(&out, &jsonl);
    assert_eq!(run.status.code(), Some(0));
    assert_eq!(names_in(&dir), ["bundles", "bundles.jsonl"]);
    let lines = fs::read_to_string(&jsonl).expect("jsonl written");
    assert_eq!(lines.lines().count(), 100);
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_empty_output_folder_is_filled() {
    let dir = scratch("empty");
    let out = dir.join("bundles");
    fs::create_dir_all(&out).unwrap();
    let run = casec(&[arg("bundle"), &tujora(), arg("-o"), &out]);
    assert_eq!(run.status.code(), Some(0));
    assert_eq!(names_in(&out).len(), 101);
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn jsonl_to_standard_output_alone() {
    let run = casec(&[arg("bundle"), &tujora(), arg("--jsonl"), arg("-")]);
    assert_eq!(run.status.code(), Some(0));
    let stdout = String::from_utf8(run.stdout).expect("UTF-8 lines");
    assert_eq!(stdout.lines().count(), 100);
    assert!(stdout
        .lines()
        .all(|l| l.starts_with("{ \"case_id\": \"TUJ-")));
}

#[test]
fn an_output_is_required() {
    let run = casec(&[arg("bundle"), &tujora()]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("--output"));
}
