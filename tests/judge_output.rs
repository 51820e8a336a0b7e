//! What `casec judge` and `casec calibrate` do around the judging: the judged records'
//! folder (missing folders above it are created; a taken one is refused before anything
//! is asked) and the progress bar (drawn only on a terminal: the output to a pipe is as
//! it always was).

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::fake_judge::{self, FakeJudge};
use crate::support::cli::{casec, ok, path};

const CASE: &str = "cases/tujora/appointments/TUJ-021.case";
const TRACE: &str = "cases/tujora/appointments/TUJ-021.trace.jsonl";

/// The record `casec replay` writes of TUJ-021's golden trace, in `dir`.
pub(crate) fn golden_record(dir: &Path) -> std::path::PathBuf {
    let out = dir.join("TUJ-021.json");
    ok(&casec(&[
        "replay",
        CASE,
        "--trace",
        TRACE,
        "-o",
        path(&out),
    ]));
    out
}

/// A judge that finds every check met and no critical failure committed.
pub(crate) fn approving() -> FakeJudge {
    fake_judge::start(|header| (header["kind"] == "check", "as a golden run".into()))
}

#[test]
fn judge_creates_the_missing_folders_above_its_output() {
    let dir = tempfile::tempdir().unwrap();
    let record = golden_record(dir.path());
    let fake = approving();
    let out = dir.path().join("a/b/judged");
    ok(&casec(&fake.judge_args(&[&record], &out)));
    let judged: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("TUJ-021.json")).unwrap()).unwrap();
    assert_eq!(judged["outcome"], "PASS");
}

#[test]
fn judge_refuses_a_taken_output_folder_before_asking_anything() {
    let dir = tempfile::tempdir().unwrap();
    let record = golden_record(dir.path());
    let fake = approving();
    let out = dir.path().join("judged");
    fs::create_dir(&out).unwrap();
    fs::write(out.join("keep.txt"), "mine").unwrap();
    let run = casec(&fake.judge_args(&[&record], &out));
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("not empty"), "{stderr}");
    assert_eq!(fake.requests(), 0, "nothing was asked");
    assert_eq!(fs::read_to_string(out.join("keep.txt")).unwrap(), "mine");

    // A file where a folder above the output should be: nothing is left behind.
    fs::write(dir.path().join("file"), "x").unwrap();
    let below_a_file = dir.path().join("new/file/judged");
    let blocked = dir.path().join("new");
    fs::create_dir(&blocked).unwrap();
    fs::write(blocked.join("file"), "x").unwrap();
    let run = casec(&fake.judge_args(&[&record], &below_a_file));
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(fs::read_dir(&blocked).unwrap().count(), 1);
}

/// Without a terminal (here: pipes), `casec judge` prints what it always printed on
/// standard error, its one summary line, and no progress bar.
#[test]
fn without_a_terminal_judge_prints_its_summary_and_no_progress() {
    let dir = tempfile::tempdir().unwrap();
    let record = golden_record(dir.path());
    let fake = approving();
    let out = dir.path().join("judged");
    let run = casec(&fake.judge_args(&[&record], &out));
    ok(&run);
    assert!(run.stdout.is_empty());
    let asked = fake.requests();
    let expected = format!(
        "casec judge: 1 record(s), {asked} review item(s): {asked} asked of {}/chat/completions, 0 from the cache, 0 decided by people, 0 left for review; wrote {}\n",
        fake.url,
        path(&out)
    );
    assert_eq!(String::from_utf8_lossy(&run.stderr), expected);
}

#[test]
fn without_a_terminal_calibrate_prints_its_report_and_no_progress() {
    let dir = tempfile::tempdir().unwrap();
    let fake = approving();
    let json = dir.path().join("calibration.json");
    let run = casec(&[
        "calibrate",
        "cases/dumate",
        "--endpoint",
        &fake.url,
        "--model",
        "fake-judge",
        "-o",
        path(&json),
    ]);
    ok(&run);
    assert!(fake.requests() > 0);
    let stderr = String::from_utf8_lossy(&run.stderr);
    // The human report, as before: a table and its last line, no bar.
    assert!(stderr.starts_with(' '), "{stderr}");
    assert!(stderr.contains("casec calibrate: "), "{stderr}");
    assert!(
        !stderr.contains('\r') && !stderr.contains('\u{1b}'),
        "{stderr:?}"
    );
    assert!(!stderr.contains("calibrating"), "{stderr}");
}

/// On a terminal the bar is drawn, then cleared before the summary (`script` gives
/// the command a pseudo-terminal; util-linux ships it wherever casec's CI runs).
#[test]
fn on_a_terminal_judge_draws_a_progress_bar() {
    if !Path::new("/usr/bin/script").exists() {
        eprintln!("no /usr/bin/script: the terminal test is left out");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let record = golden_record(dir.path());
    let fake = approving();
    let out = dir.path().join("judged");
    let line = fake
        .judge_args(&[&record], &out)
        .iter()
        .map(|a| format!("'{a}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let run = Command::new("/usr/bin/script")
        .args([
            "-qec",
            &format!("'{}' {line}", env!("CARGO_BIN_EXE_casec")),
            "/dev/null",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("OPENAI_API_KEY")
        .output()
        .expect("script runs");
    ok(&run);
    let screen = String::from_utf8_lossy(&run.stdout);
    let asked = fake.requests();
    assert!(
        screen.contains("judging") && screen.contains(&format!("/{asked} items")),
        "{screen:?}"
    );
    assert!(screen.contains("casec judge: 1 record(s)"), "{screen:?}");
}
