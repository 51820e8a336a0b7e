//! How commands find the suite a path belongs to, from wherever they run: relative
//! paths inside a suite (as pre-commit passes them), the suite's `suite.case` itself,
//! missing paths, folders that symbolic links make loop, and links out of the suite.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use crate::support::files::copy_dir;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Runs casec in `dir` (relative to the repository).
fn casec_in(dir: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_casec"))
        .args(args)
        .current_dir(Path::new(ROOT).join(dir))
        .env("NO_COLOR", "1")
        .output()
        .expect("casec runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn json_lines(output: &Output) -> Vec<serde_json::Value> {
    stderr(output)
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect()
}

#[test]
fn a_case_file_given_relative_to_the_suite_root_checks_its_suite() {
    let output = casec_in(
        "cases/tujora",
        &["check", "medication/TUJ-011.case", "--format", "json"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(json_lines(&output)[0]["summary"]["files"], 101);
}

#[test]
fn the_current_folder_inside_a_suite_checks_its_suite() {
    for args in [
        &["check", "."][..],
        &["check"],
        &["check", "TUJ-011.case"],
        &["check", "../medication/TUJ-011.case", "TUJ-012.case"],
    ] {
        let output = casec_in("cases/tujora/medication", args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains("casec check: 101 file(s), 0 errors"),
            "{args:?}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn diagnostics_name_files_relative_to_the_current_folder() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let suite = dir.path().join("suite");
    copy_tujora(&suite);
    let case = suite.join("medication/TUJ-011.case");
    let text = fs::read_to_string(&case).unwrap();
    fs::write(
        &case,
        text.replace("category medication", "category medicaton"),
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_casec"))
        .args(["check", ".", "--format", "json"])
        .current_dir(suite.join("medication"))
        .output()
        .expect("casec runs");
    assert_eq!(output.status.code(), Some(1));
    let first = &json_lines(&output)[0];
    assert_eq!(first["code"], "unknown_category", "{first}");
    assert_eq!(first["file"], "../medication/TUJ-011.case");
}

#[test]
fn replay_finds_the_suite_of_a_case_path_relative_to_its_root() {
    let output = casec_in(
        "cases/tujora",
        &[
            "replay",
            "medication/TUJ-011.case",
            "--trace",
            "medication/TUJ-011.trace.jsonl",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let record: serde_json::Value = serde_json::from_slice(&output.stdout).expect("a record");
    assert_eq!(record["case_id"], "TUJ-011");
}

#[test]
fn every_command_takes_the_suite_file_and_a_path_inside_the_suite() {
    let dir = tempfile::tempdir().expect("a temp dir");
    for (i, suite) in ["cases/tujora/suite.case", "cases/tujora/medication"]
        .iter()
        .enumerate()
    {
        let bundles = dir.path().join(format!("bundles-{i}"));
        let runs = [
            vec!["build", suite],
            vec!["stats", suite],
            vec!["verify", suite],
            vec!["bundle", suite, "-o", bundles.to_str().unwrap()],
        ];
        for args in runs {
            let output = casec_in(".", &args);
            assert_eq!(
                output.status.code(),
                Some(0),
                "{args:?}: {}",
                stderr(&output)
            );
        }
    }
}

#[test]
fn a_missing_path_exits_2_for_every_command() {
    for args in [
        &["check", "/nope"][..],
        &["build", "/nope"],
        &["bundle", "/nope", "--jsonl", "-"],
        &["stats", "/nope"],
        &["verify", "/nope"],
        &["replay", "/nope/X.case", "--trace", "/nope/X.trace.jsonl"],
        &["report", "/nope/r.json", "--suite", "/nope"],
        &["serve", "/nope", "--case", "X"],
        &["sandbox", "/nope", "-o", "/nope/out"],
        &["import", "/nope/master.json", "-o", "/nope/out"],
        &["fmt", "/nope"],
    ] {
        let output = casec_in(".", args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(stderr(&output).contains("/nope"), "{args:?}");
    }
}

/// `cases/tujora` copied to `to`.
fn copy_tujora(to: &Path) {
    copy_dir(&Path::new(ROOT).join("cases/tujora"), to);
}

#[cfg(unix)]
mod links {
    use super::*;
    use std::os::unix::fs::symlink;
    use std::sync::mpsc;
    use std::time::Duration;

    /// Runs casec in `dir`, failing instead of hanging.
    fn casec_bounded(dir: &Path, args: &[&str]) -> Output {
        let (tx, rx) = mpsc::channel();
        let mut command = Command::new(env!("CARGO_BIN_EXE_casec"));
        command.args(args).current_dir(dir).env("NO_COLOR", "1");
        std::thread::spawn(move || {
            let _ = tx.send(command.output().expect("casec runs"));
        });
        rx.recv_timeout(Duration::from_secs(60))
            .expect("casec ends: symbolic link loops are not followed")
    }

    #[test]
    fn two_self_links_are_reported_and_every_file_is_read_once() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let suite = dir.path().join("suite");
        copy_tujora(&suite);
        symlink(".", suite.join("x")).unwrap();
        symlink(".", suite.join("y")).unwrap();
        for args in [
            &["check", ".", "--format", "json"][..],
            &["build", ".", "--format", "json"],
            &["fmt", "--check", ".", "--format", "json"],
        ] {
            let output = casec_bounded(&suite, args);
            assert_eq!(
                output.status.code(),
                Some(2),
                "{args:?}: {}",
                stderr(&output)
            );
            let lines = json_lines(&output);
            let (summary, diagnostics) = lines.split_last().unwrap();
            let links: Vec<&str> = diagnostics
                .iter()
                .map(|d| {
                    assert_eq!(d["code"], "io", "{args:?}: only the links: {d}");
                    d["file"].as_str().unwrap()
                })
                .collect();
            assert_eq!(links, ["x", "y"], "{args:?}");
            assert!(diagnostics[0]["message"]
                .as_str()
                .unwrap()
                .contains("symbolic link to a folder already read, as the current folder"));
            assert_eq!(summary["summary"]["files"], 101, "{args:?}: each file once");
        }
    }

    #[test]
    fn a_link_to_a_file_already_read_is_reported_not_a_duplicate_case() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let suite = dir.path().join("suite");
        copy_tujora(&suite);
        symlink("medication/TUJ-011.case", suite.join("again.case")).unwrap();
        let output = casec_bounded(&suite, &["check", "--format", "json"]);
        let lines = json_lines(&output);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines[0]["code"], "io");
        assert_eq!(lines[0]["file"], "again.case");
        assert!(lines[0]["message"]
            .as_str()
            .unwrap()
            .contains("a file already read, as `medication/TUJ-011.case`"));
    }

    /// A suite is read as data: a folder outside it, linked in, is not read (its files
    /// could be anyone's), and the cases it held are missing.
    #[test]
    fn a_link_to_a_folder_outside_the_suite_is_refused() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let suite = dir.path().join("suite");
        copy_tujora(&suite);
        fs::rename(suite.join("medication"), dir.path().join("shared")).unwrap();
        symlink(dir.path().join("shared"), suite.join("medication")).unwrap();
        for args in [
            &["check", "--format", "json"][..],
            &["fmt", "--check", ".", "--format", "json"],
        ] {
            let output = casec_bounded(&suite, args);
            assert_eq!(
                output.status.code(),
                Some(2),
                "{args:?}: {}",
                stderr(&output)
            );
            let lines = json_lines(&output);
            let refused = &lines[0];
            assert_eq!(refused["code"], "io", "{refused}");
            assert_eq!(refused["file"], "medication", "{refused}");
            assert_eq!(
                refused["message"],
                "symbolic link to a folder outside the suite folder: not read"
            );
        }
    }

    /// A link between two folders of the suite is followed as before.
    #[test]
    fn a_link_to_a_folder_inside_the_suite_is_followed() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let suite = dir.path().join("suite");
        copy_tujora(&suite);
        fs::create_dir(suite.join(".store")).unwrap();
        fs::rename(suite.join("medication"), suite.join(".store/medication")).unwrap();
        symlink(".store/medication", suite.join("medication")).unwrap();
        let output = casec_bounded(&suite, &["check", "--format", "json"]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert_eq!(json_lines(&output)[0]["summary"]["files"], 101);
    }
}

/// The pre-commit hook that checks suites runs once, given no file names: pre-commit
/// splits a long list of names into runs of at most 128 KiB of command line (even
/// under `require_serial`), and each run would check the same suites again and print
/// their diagnostics again.
#[test]
fn the_check_hook_runs_once_without_file_names() {
    let hooks = fs::read_to_string(Path::new(ROOT).join(".pre-commit-hooks.yaml")).unwrap();
    let check: Vec<&str> = hooks
        .split("\n- id: ")
        .find(|hook| hook.starts_with("casec-check\n"))
        .expect("a casec-check hook")
        .lines()
        .map(str::trim)
        .collect();
    assert!(check.contains(&"require_serial: true"), "{check:?}");
    assert!(check.contains(&"entry: casec check"), "{check:?}");
    assert!(check.contains(&"pass_filenames: false"), "{check:?}");
}

/// What the hook runs: `casec check` in the repository's root, without file names,
/// checks each suite below it once and names files from the root.
#[test]
fn the_hook_checks_every_suite_under_the_root_once() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let suite = dir.path().join("cases/tujora");
    copy_tujora(&suite);
    let case = suite.join("medication/TUJ-011.case");
    let text = fs::read_to_string(&case).unwrap();
    fs::write(
        &case,
        text.replace("category medication", "category medicaton"),
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_casec"))
        .args(["check", "--format", "json"])
        .current_dir(dir.path())
        .output()
        .expect("casec runs");
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let lines = json_lines(&output);
    assert_eq!(lines.len(), 2, "one diagnostic, one summary: {lines:?}");
    assert_eq!(lines[0]["file"], "cases/tujora/medication/TUJ-011.case");
    assert_eq!(lines[1]["summary"]["files"], 101);
}

/// What pre-commit runs in a repository whose suite.case is at its root: the changed
/// files, relative to the root; each suite's diagnostics are printed once.
#[test]
fn changed_files_of_one_suite_report_it_once() {
    let dir = tempfile::tempdir().expect("a temp dir");
    copy_tujora(dir.path());
    let case = dir.path().join("medication/TUJ-011.case");
    let text = fs::read_to_string(&case).unwrap();
    fs::write(
        &case,
        text.replace("category medication", "category medicaton"),
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_casec"))
        .args([
            "check",
            "medication/TUJ-011.case",
            "medication/TUJ-012.case",
            "suite.case",
            "--format",
            "json",
        ])
        .current_dir(dir.path())
        .output()
        .expect("casec runs");
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let lines = json_lines(&output);
    assert_eq!(lines.len(), 2, "one diagnostic, one summary: {lines:?}");
    assert_eq!(lines[0]["file"], "medication/TUJ-011.case");
    assert_eq!(lines[1]["summary"]["files"], 101);
}
