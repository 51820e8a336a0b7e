//! The command line's contract: exit codes (0 clean, 1 errors, 2 usage or I/O), no
//! partial output on error, and output that does not depend on file names or on the
//! order in which files were written.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const GOLDEN: &str = include_str!("data/tujora-benchmark-1.0.1.json");

fn tujora() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/tujora")
}

fn casec(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_casec"));
    for arg in args {
        command.arg(arg);
    }
    command.output().expect("casec runs")
}

fn code(output: &Output) -> Option<i32> {
    output.status.code()
}

/// The Tujora sources as `(relative path, text)`, in sorted order.
fn tujora_sources() -> Vec<(String, String)> {
    casec::load::case_files(&tujora(), &mut Vec::new())
        .into_iter()
        .map(|path| {
            let relative = path.strip_prefix(tujora()).expect("below the suite");
            let text = fs::read_to_string(&path).expect("readable");
            (relative.to_string_lossy().into_owned(), text)
        })
        .collect()
}

fn write_suite(dir: &Path, files: &[(String, String)]) {
    for (relative, text) in files {
        let path = dir.join(relative);
        fs::create_dir_all(path.parent().expect("a parent")).expect("creatable");
        fs::write(path, text).expect("writable");
    }
}

/// The Tujora suite with one case broken (an unknown category and an unknown tool).
fn broken_suite(dir: &Path) -> PathBuf {
    let suite = dir.join("broken");
    let mut files = tujora_sources();
    for (path, text) in files.iter_mut() {
        if path.ends_with("TUJ-034.case") {
            *text = text
                .replace("category appointments", "category appointmens")
                .replace("override provider_booking", "override provider_bookng");
        }
    }
    write_suite(&suite, &files);
    suite
}

/// Every entry of a folder tree with its bytes, to prove a folder is untouched.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).expect("readable folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.push((path.clone(), Vec::new()));
                stack.push(path);
            } else {
                out.push((path.clone(), fs::read(&path).expect("readable")));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn clean_suites_exit_0() {
    let check = casec(&[&"check", &tujora()]);
    assert_eq!(
        code(&check),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    let build = casec(&[&"build", &tujora()]);
    assert_eq!(code(&build), Some(0));
    assert!(
        build.stdout == GOLDEN.as_bytes(),
        "stdout is not the golden master"
    );
}

#[test]
fn errors_exit_1_and_are_reported() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let suite = broken_suite(dir.path());
    let check = casec(&[&"check", &suite, &"--format", &"json"]);
    assert_eq!(code(&check), Some(1));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&check.stderr)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    let codes: Vec<&str> = lines.iter().filter_map(|l| l["code"].as_str()).collect();
    assert_eq!(codes, ["unknown_category", "unknown_tool"], "{lines:?}");
    assert_eq!(code(&casec(&[&"build", &suite])), Some(1));
}

#[test]
fn missing_paths_and_bad_usage_exit_2() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let missing = dir.path().join("missing");
    assert_eq!(code(&casec(&[&"check", &missing])), Some(2));
    assert_eq!(code(&casec(&[&"build", &missing])), Some(2));
    // A folder that is not a suite: the command was pointed at the wrong place.
    assert_eq!(code(&casec(&[&"build", &dir.path()])), Some(2));
    let out = dir.path().join("out");
    assert_eq!(code(&casec(&[&"import", &missing, &"-o", &out])), Some(2));
    assert!(!out.exists());
    assert_eq!(code(&casec(&[&"frobnicate"])), Some(2));
    assert_eq!(
        code(&casec(&[&"build", &tujora(), &"--format", &"xml"])),
        Some(2)
    );
}

#[test]
fn a_failed_build_leaves_no_file_behind() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let suite = broken_suite(dir.path());
    let out_dir = dir.path().join("out");
    fs::create_dir(&out_dir).expect("creatable");
    let fresh = out_dir.join("master.json");
    assert_eq!(code(&casec(&[&"build", &suite, &"-o", &fresh])), Some(1));
    assert!(snapshot(&out_dir).is_empty(), "{:?}", snapshot(&out_dir));

    let existing = out_dir.join("existing.json");
    fs::write(&existing, "previous build").expect("writable");
    assert_eq!(code(&casec(&[&"build", &suite, &"-o", &existing])), Some(1));
    assert_eq!(
        fs::read_to_string(&existing).expect("kept"),
        "previous build"
    );
    assert_eq!(snapshot(&out_dir).len(), 1);

    let nowhere = dir.path().join("no/such/folder/master.json");
    assert_eq!(
        code(&casec(&[&"build", &tujora(), &"-o", &nowhere])),
        Some(2)
    );
    assert!(!dir.path().join("no").exists());
}

#[test]
fn import_refuses_a_non_empty_folder_and_leaves_it_untouched() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let master = dir.path().join("master.json");
    fs::write(&master, GOLDEN).expect("writable");
    let target = dir.path().join("target");
    fs::create_dir_all(target.join("sub")).expect("creatable");
    fs::write(target.join("notes.txt"), "mine").expect("writable");
    fs::write(target.join("sub/suite.case"), "# mine too").expect("writable");
    let before = snapshot(dir.path());
    let refused = casec(&[&"import", &master, &"-o", &target, &"--format", &"json"]);
    assert_eq!(code(&refused), Some(2));
    let first_line = String::from_utf8_lossy(&refused.stderr)
        .lines()
        .next()
        .map(String::from);
    let report: serde_json::Value =
        serde_json::from_str(&first_line.unwrap_or_default()).expect("a JSON diagnostic");
    assert!(
        report["message"]
            .as_str()
            .is_some_and(|m| m.contains("not empty")),
        "{report}"
    );
    assert!(snapshot(dir.path()) == before, "the import changed files");

    let empty = dir.path().join("empty");
    fs::create_dir(&empty).expect("creatable");
    assert_eq!(code(&casec(&[&"import", &master, &"-o", &empty])), Some(0));
    assert!(empty.join("suite.case").is_file());
}

#[test]
fn a_failed_import_creates_nothing() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let master = dir.path().join("master.json");
    fs::write(
        &master,
        GOLDEN.replacen("\"cases\": [", "\"cases\": 7, \"x\": [", 1),
    )
    .expect("writable");
    let before = snapshot(dir.path());
    let target = dir.path().join("suite");
    let failed = casec(&[&"import", &master, &"-o", &target]);
    assert_eq!(code(&failed), Some(1));
    assert!(
        snapshot(dir.path()) == before,
        "the import left files behind"
    );
    // The master is one line of 400 KB: diagnostics locate it rather than quote it.
    let report = String::from_utf8_lossy(&failed.stderr);
    assert!(
        report.len() < 2_000,
        "{} bytes of diagnostics",
        report.len()
    );
    assert!(
        report.contains("master.json:1:1: cases: expected an array"),
        "{report}"
    );
}

/// The same sources under other names, written in another order, build the same
/// bytes; so do two runs on the same folder.
#[test]
fn output_does_not_depend_on_file_names_or_order() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut renamed: Vec<(String, String)> = tujora_sources()
        .into_iter()
        .enumerate()
        .map(|(i, (path, text))| match path.as_str() {
            "suite.case" => (path, text),
            _ => (format!("z/{}/{:03}.case", 7 - i % 7, 500 - i), text),
        })
        .collect();
    renamed.reverse();
    let suite = dir.path().join("renamed");
    write_suite(&suite, &renamed);
    for _ in 0..2 {
        let build = casec(&[&"build", &suite]);
        assert_eq!(code(&build), Some(0));
        assert!(build.stdout == GOLDEN.as_bytes(), "a different master");
    }
}

/// Diagnostics come out in the same order whatever order the files were written in.
#[test]
fn diagnostics_do_not_depend_on_file_order() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut files = tujora_sources();
    for (i, (_, text)) in files.iter_mut().enumerate().filter(|(i, _)| i % 10 == 1) {
        *text = text.replacen("category ", &format!("category x{i}"), 1);
    }
    let forward = dir.path().join("a");
    write_suite(&forward, &files);
    files.reverse();
    let backward = dir.path().join("b");
    write_suite(&backward, &files);
    let report = |suite: &Path| {
        let output = casec(&[&"check", &suite, &"--format", &"json"]);
        assert_eq!(code(&output), Some(1));
        String::from_utf8_lossy(&output.stderr).replace(&suite.display().to_string(), "SUITE")
    };
    let first = report(&forward);
    assert!(first.lines().count() > 10, "{first}");
    assert_eq!(first, report(&backward));
}

/// `casec explain CODE` prints the code's docs entry, the one docs/diagnostics.md holds;
/// a name that is no code is a usage error naming the closest code.
#[test]
fn casec_explain_prints_the_docs_entry_of_a_code() {
    let explained = casec(&[&"explain", &"weekday_mismatch"]);
    assert_eq!(code(&explained), Some(0));
    let entry = String::from_utf8(explained.stdout).expect("UTF-8");
    assert!(
        entry.starts_with("### `weekday_mismatch`\n\n**Warning, allowable.** "),
        "{entry}"
    );
    let docs =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/diagnostics.md"))
            .expect("docs/diagnostics.md");
    assert!(docs.contains(&entry), "the entry is the page's");
    let misspelt = casec(&[&"explain", &"weekday_mismach"]);
    assert_eq!(code(&misspelt), Some(2));
    assert!(misspelt.stdout.is_empty());
    let error = String::from_utf8_lossy(&misspelt.stderr);
    assert!(error.contains("'weekday_mismatch'"), "{error}");
}
