//! `casec fmt` on the command line: the check passes on the repository's suite and
//! stdlib, catches mangled spacing and indentation with a diff, restores the files
//! byte for byte, formats stdin, and leaves files that do not parse untouched.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::files::copy_dir;

const TUJORA_MASTER: &str = "tests/data/tujora-benchmark-1.0.1.json";
/// The files mangled in the round-trip test: the suite, and two cases with text blocks.
const MANGLED: &[&str] = &[
    "suite.case",
    "medication/TUJ-001.case",
    "appointments/TUJ-021.case",
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn casec(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_casec"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("casec runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A fresh, empty scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fmt_cli-{name}"));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// The same source with other indentation on every line, extra spaces after keys,
/// trailing spaces and blank lines after opening braces. Text-block lines and comments
/// only get new indentation, which cannot change their value or text.
fn mangle(text: &str) -> String {
    let indents = ["", "\t", "     ", "  \t "];
    let mut out = String::new();
    let mut in_text_block = false;
    for (i, line) in text.lines().enumerate() {
        let content = line.trim_start();
        out.push_str(indents[i % indents.len()]);
        if in_text_block || content.starts_with('#') {
            out.push_str(content);
        } else {
            out.push_str(&content.replacen(' ', "   ", 1));
            out.push_str("  ");
        }
        out.push('\n');
        if !in_text_block && content.ends_with('{') {
            out.push('\n');
        }
        if content.matches("\"\"\"").count() % 2 == 1 {
            in_text_block = !in_text_block;
        }
    }
    out
}

#[test]
fn the_check_passes_on_the_suite_and_the_stdlib() {
    let output = casec(&["fmt", "--check", "cases/tujora", "stdlib"], root());
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(stdout(&output), "");
}

#[test]
fn mangled_files_fail_the_check_and_are_restored_byte_for_byte() {
    let dir = scratch("mangled");
    let suite = dir.join("tujora");
    copy_dir(&root().join("cases/tujora"), &suite);
    for name in MANGLED {
        let path = suite.join(name);
        let original = fs::read_to_string(&path).expect("readable");
        let mangled = mangle(&original);
        assert_ne!(mangled, original, "{name} was not mangled");
        fs::write(&path, mangled).expect("writable");
    }
    let before_check = fs::read_to_string(suite.join(MANGLED[0])).expect("readable");

    let check = casec(&["fmt", "--check", "tujora"], &dir);
    assert_eq!(check.status.code(), Some(1));
    let diff = stdout(&check);
    let changed: Vec<&str> = diff
        .lines()
        .filter_map(|l| l.strip_prefix("--- a/tujora/"))
        .collect();
    assert_eq!(
        changed,
        [
            "appointments/TUJ-021.case",
            "medication/TUJ-001.case",
            "suite.case"
        ]
    );
    assert!(diff.lines().any(|l| l.starts_with("@@ ")), "{diff}");
    let after_check = fs::read_to_string(suite.join(MANGLED[0])).expect("readable");
    assert_eq!(after_check, before_check, "--check changed a file");

    let fix = casec(&["fmt", "tujora"], &dir);
    assert_eq!(
        fix.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&fix.stderr)
    );
    for name in MANGLED {
        let restored = fs::read(suite.join(name)).expect("readable");
        let original = fs::read(root().join("cases/tujora").join(name)).expect("readable");
        assert!(
            restored == original,
            "{name} was not restored byte for byte"
        );
    }
    let build = casec(&["build", "tujora"], &dir);
    let master = fs::read(root().join(TUJORA_MASTER)).expect("master");
    assert!(build.stdout == master, "the rebuilt master differs");
}

#[test]
fn stdin_is_formatted_to_stdout() {
    let original =
        fs::read_to_string(root().join("cases/tujora/medication/TUJ-001.case")).expect("readable");
    let run = |args: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_casec"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("casec runs");
        let mut input = child.stdin.take().expect("stdin");
        input
            .write_all(mangle(&original).as_bytes())
            .expect("written");
        drop(input);
        child.wait_with_output().expect("finished")
    };
    let formatted = run(&["fmt", "--stdin"]);
    assert_eq!(formatted.status.code(), Some(0));
    assert_eq!(stdout(&formatted), original);
    let checked = run(&["fmt", "--stdin", "--check"]);
    assert_eq!(checked.status.code(), Some(1));
    assert!(stdout(&checked).starts_with("--- a/<stdin>\n+++ b/<stdin>\n"));
}

#[test]
fn a_file_that_does_not_parse_is_refused_and_left_untouched() {
    let dir = scratch("refused");
    let broken = "case X \"t\" {\n   user \"open\n}\n";
    fs::write(dir.join("broken.case"), broken).expect("writable");
    fs::write(dir.join("fine.case"), "a   1\n").expect("writable");
    let output = casec(&["fmt", "."], &dir);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unterminated string"));
    assert_eq!(
        fs::read_to_string(dir.join("broken.case")).ok().as_deref(),
        Some(broken)
    );
    assert_eq!(
        fs::read_to_string(dir.join("fine.case")).ok().as_deref(),
        Some("a 1\n")
    );
}

#[test]
fn a_missing_path_is_a_usage_error() {
    let output = casec(&["fmt", "--check", "no/such/folder"], root());
    assert_eq!(output.status.code(), Some(2));
}

/// A case of about `bytes` bytes whose world holds records written without indentation,
/// so that formatting changes nearly every line.
fn unindented_case(bytes: usize) -> String {
    let mut text = String::from("case T-1 \"Big\" {\ncategory medication\nworld {\n");
    for i in 0.. {
        if text.len() >= bytes {
            break;
        }
        text.push_str(&format!(
            "medication_schedules M{i} {{\nlabel \"Morning medication {i}\"\ntime \"08:00\"\n}}\n"
        ));
    }
    text.push_str("}\n}\n");
    text
}

/// `casec fmt --check` of 8 MB whose every line changes: the minimal diff would take
/// minutes (Myers' time grows with the lines times the changes), so after a second the
/// file is reported as one that would be reformatted, without a diff. The release build
/// takes about a second; the debug build, more (formatting itself is slower there).
#[test]
fn a_diff_not_found_in_time_gives_way_to_a_would_reformat_line() {
    let dir = scratch("huge");
    fs::write(dir.join("big.case"), unindented_case(8 << 20)).expect("writable");
    let started = Instant::now();
    let check = casec(&["fmt", "--check", "big.case"], &dir);
    let took = started.elapsed();
    assert_eq!(check.status.code(), Some(1));
    assert_eq!(
        stdout(&check),
        "would reformat big.case (no diff: not found within 1 s; `casec fmt` rewrites the file)\n"
    );
    assert!(took < Duration::from_secs(30), "took {took:?}");
    let _ = fs::remove_dir_all(&dir);
}

/// `casec fmt --check` of a smaller file with the same changes still prints its diff.
#[test]
fn a_diff_found_in_time_is_printed_whole() {
    let dir = scratch("diffed");
    fs::write(dir.join("small.case"), unindented_case(2_000)).expect("writable");
    let check = casec(&["fmt", "--check", "small.case"], &dir);
    assert_eq!(check.status.code(), Some(1));
    let diff = stdout(&check);
    assert!(
        diff.starts_with("--- a/small.case\n+++ b/small.case\n@@ "),
        "{diff}"
    );
    assert!(
        diff.contains("\n+    medication_schedules M0 {\n"),
        "{diff}"
    );
    let _ = fs::remove_dir_all(&dir);
}
