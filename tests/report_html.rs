//! `casec report --html`: the page a person reads, over records made the way a harness
//! makes them (`casec replay` of golden and do-nothing traces, `casec judge` against a
//! local fake endpoint); and `casec report` given two records of one case.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value as Json;

use crate::fake_judge;
use crate::support::cli::{casec, ok, path};

/// The path of a case's golden trace in `suite`.
fn golden_trace(suite: &Path, id: &str) -> PathBuf {
    for category in fs::read_dir(suite).unwrap().flatten() {
        let trace = category.path().join(format!("{id}.trace.jsonl"));
        if trace.is_file() {
            return trace;
        }
    }
    panic!("no golden trace for {id}");
}

/// Replays `trace` for case `id` of `suite` into `out`.
fn replay(suite: &Path, id: &str, trace: &Path, out: &Path) -> PathBuf {
    ok(&casec(&[
        "replay",
        id,
        "--trace",
        path(trace),
        path(suite),
        "-o",
        path(out),
    ]));
    out.to_path_buf()
}

fn tujora() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("cases/tujora")
}

fn read_json(p: &Path) -> Json {
    serde_json::from_str(&fs::read_to_string(p).unwrap()).unwrap()
}

/// A golden run of TUJ-011 (undecided), do-nothing runs of TUJ-038 and TUJ-066 (failed,
/// with critical failures) and judged golden runs of TUJ-021 (passed) and TUJ-022 (R1
/// not met, with a reason that holds markup).
fn records(dir: &Path) -> Vec<PathBuf> {
    let suite = tujora();
    let idle = dir.join("idle.trace.jsonl");
    fs::write(&idle, "").unwrap();
    let runs = dir.join("runs");
    fs::create_dir_all(&runs).unwrap();
    let mut out = vec![
        replay(
            &suite,
            "TUJ-011",
            &golden_trace(&suite, "TUJ-011"),
            &runs.join("TUJ-011.json"),
        ),
        replay(&suite, "TUJ-038", &idle, &runs.join("TUJ-038.json")),
        replay(&suite, "TUJ-066", &idle, &runs.join("TUJ-066.json")),
    ];
    let to_judge: Vec<PathBuf> = ["TUJ-021", "TUJ-022"]
        .iter()
        .map(|id| {
            replay(
                &suite,
                id,
                &golden_trace(&suite, id),
                &dir.join(format!("{id}.json")),
            )
        })
        .collect();
    let fake = fake_judge::start(|header| {
        let check = header["kind"] == "check";
        if header["case"] == "TUJ-022" && header["item"] == "R1" {
            (
                false,
                "<script>alert('reason')</script> the reply misses the point".into(),
            )
        } else {
            (check, "as a golden run".into())
        }
    });
    let judged = dir.join("judged");
    let to_judge: Vec<&Path> = to_judge.iter().map(PathBuf::as_path).collect();
    ok(&casec(&fake.judge_args(&to_judge, &judged)));
    assert!(fake.requests() > 0);
    out.extend(["TUJ-021.json", "TUJ-022.json"].map(|f| judged.join(f)));
    out
}

fn report(records: &[PathBuf], more: &[&str]) -> Output {
    let mut args = vec!["report", "--suite", "cases/tujora"];
    args.extend(records.iter().map(|p| path(p)));
    args.extend_from_slice(more);
    casec(&args)
}

/// The text of the element with `id`, markup stripped (enough for the page's plain
/// elements).
fn text_of(html: &str, id: &str) -> String {
    let start = html
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no element #{id}"));
    let open = start + html[start..].find('>').unwrap() + 1;
    let close = open + html[open..].find('<').unwrap();
    html[open..close].to_string()
}

#[test]
fn the_html_report_shows_the_json_reports_numbers_the_failures_the_reasons_and_the_traces() {
    let dir = tempfile::tempdir().unwrap();
    let records = records(dir.path());
    let page = dir.path().join("report.html");
    let json = dir.path().join("report.json");
    ok(&report(
        &records,
        &["--html", path(&page), "-o", path(&json)],
    ));
    let html = fs::read_to_string(&page).unwrap();
    let summary = read_json(&json);

    // The same numbers as the JSON report.
    let overall = &summary["overall"];
    assert_eq!(overall["PASS"], 1, "{overall}");
    assert_eq!(overall["FAIL"], 3, "{overall}");
    let rate = overall["pass_rate"].as_f64().unwrap();
    assert_eq!(text_of(&html, "overall-pass-rate"), format!("{rate:.1}%"));
    for (name, category) in summary["categories"].as_object().unwrap() {
        let rate = format!("{:.1}%", category["pass_rate"].as_f64().unwrap());
        let row = &html[html
            .find(&format!("<th scope=\"row\">{name}</th>"))
            .unwrap()..];
        assert!(row[..row.find("</tr>").unwrap()].contains(&rate), "{name}");
    }
    assert!(html.contains("<svg"), "charts are inline SVG");

    // The critical failures with their texts, and the cases that triggered them.
    let suite = casec::Compilation::new(casec::Sources::Folder(&tujora()))
        .suite
        .unwrap();
    for id in ["TUJ-038", "TUJ-066"] {
        let record = read_json(&dir.path().join(format!("runs/{id}.json")));
        let case = suite.cases.iter().find(|c| c.id.as_str() == id).unwrap();
        for failure in record["critical_failures_triggered"].as_array().unwrap() {
            let text = suite
                .criticals(case)
                .into_iter()
                .find(|c| c.id == failure.as_str().unwrap())
                .unwrap()
                .text
                .as_str()
                .to_string();
            assert!(html.contains(&escape(&text)), "{id} {failure}: {text}");
        }
        assert!(html.contains(&format!("href=\"#case-{id}\"")), "{id}");
        // Each failed check with its text.
        for (check, status) in record["checks"].as_object().unwrap() {
            if status == "fail" {
                let text = case
                    .checks
                    .iter()
                    .find(|c| c.id.as_str() == check)
                    .unwrap()
                    .requirement
                    .as_str();
                assert!(html.contains(&escape(text)), "{id} {check}");
            }
        }
    }

    // The judge's reasons, escaped: the page holds no script at all.
    assert!(
        html.contains("&lt;script&gt;alert('reason')&lt;/script&gt; the reply misses the point")
    );
    assert!(!html.to_lowercase().contains("<script"));
    assert!(html.contains("fake-judge"));

    // Every case links to its trace, shown inline.
    for id in ["TUJ-011", "TUJ-038", "TUJ-066", "TUJ-021", "TUJ-022"] {
        assert!(html.contains(&format!("href=\"#trace-{id}\"")), "{id}");
        assert!(html.contains(&format!("id=\"trace-{id}\"")), "{id}");
    }
    assert!(html.contains("get_clock"), "TUJ-011's trace events");

    // Self-contained: nothing is loaded from elsewhere.
    for outside in ["src=", "<link", "@import", "url("] {
        assert!(!html.contains(outside), "{outside}");
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[test]
fn the_html_report_is_the_same_bytes_for_the_same_records_in_any_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut records = records(dir.path());
    let first = dir.path().join("first.html");
    ok(&report(&records, &["--html", path(&first)]));
    records.reverse();
    let second = dir.path().join("second.html");
    let run = report(&records, &["--html", path(&second)]);
    ok(&run);
    assert!(
        run.stdout.is_empty(),
        "with --html alone, no JSON on stdout"
    );
    assert_eq!(fs::read(&first).unwrap(), fs::read(&second).unwrap());
}

#[test]
fn a_check_text_with_markup_is_shown_not_run() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite");
    copy_tree(&tujora(), &suite);
    let case = suite.join("medication/TUJ-011.case");
    let text = fs::read_to_string(&case).unwrap();
    let original =
        "check \"Report that notifications are not enabled and no reminder was created\"";
    assert!(text.contains(original));
    fs::write(
        &case,
        text.replace(
            original,
            "check \"Report that <script>alert(\\\"x\\\")</script> & <b>nothing</b> was created\"",
        ),
    )
    .unwrap();
    let record = replay(
        &suite,
        "TUJ-011",
        &golden_trace(&suite, "TUJ-011"),
        &dir.path().join("TUJ-011.json"),
    );
    let page = dir.path().join("report.html");
    ok(&casec(&[
        "report",
        path(&record),
        "--suite",
        path(&suite),
        "--html",
        path(&page),
    ]));
    let html = fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("Report that &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;nothing&lt;/b&gt; was created"),
        "the check text, escaped"
    );
    assert!(!html.contains("<script"));
    assert!(!html.contains("<b>"));
}

#[test]
fn a_failed_report_leaves_the_html_file_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let suite = tujora();
    let record = replay(
        &suite,
        "TUJ-011",
        &golden_trace(&suite, "TUJ-011"),
        &dir.path().join("a.json"),
    );
    let copy = dir.path().join("b.json");
    fs::copy(&record, &copy).unwrap();
    let page = dir.path().join("report.html");
    fs::write(&page, "the old report").unwrap();
    let run = report(&[record, copy], &["--html", path(&page)]);
    assert_eq!(run.status.code(), Some(1));
    assert_eq!(fs::read_to_string(&page).unwrap(), "the old report");
    // An output folder that does not exist: an I/O error, nothing written.
    let missing = dir.path().join("no/such/report.html");
    let run = report(&[dir.path().join("a.json")], &["--html", path(&missing)]);
    assert_eq!(run.status.code(), Some(2));
    assert!(!missing.exists());
}

/// Copies a folder tree (a suite and its golden traces).
fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn two_records_of_one_case_name_their_files_without_quoting_the_records() {
    let dir = tempfile::tempdir().unwrap();
    let suite = tujora();
    let a = replay(
        &suite,
        "TUJ-011",
        &golden_trace(&suite, "TUJ-011"),
        &dir.path().join("a.json"),
    );
    // Twelve copies of a long, pretty-printed record: eleven in one JSON Lines file,
    // one more in a file of its own.
    let record = read_json(&a);
    let lines = dir.path().join("many.jsonl");
    fs::write(&lines, format!("{record}\n").repeat(11)).unwrap();
    let run = report(&[a.clone(), lines.clone()], &[]);
    assert_eq!(run.status.code(), Some(1));
    assert!(run.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        !stderr.contains("tool_trace"),
        "no record is quoted: {stderr}"
    );
    assert!(stderr.lines().count() < 12, "{stderr}");
    let run = report(&[a.clone(), lines.clone()], &["--format", "json"]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains(&format!(
            "12 result records for case TUJ-011 (files {}, line 1; {}, lines 1–11)",
            path(&a),
            path(&lines)
        )),
        "{stderr}"
    );

    let b = dir.path().join("b.json");
    fs::copy(&a, &b).unwrap();
    let run = report(&[a.clone(), b.clone()], &["--format", "json"]);
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains(&format!(
            "two result records for case TUJ-011 (files {} and {})",
            path(&a),
            path(&b)
        )),
        "{stderr}"
    );
    assert_eq!(
        stderr.lines().count(),
        2,
        "one diagnostic and the summary: {stderr}"
    );

    let twice = dir.path().join("twice.jsonl");
    fs::write(&twice, format!("{record}\n{record}\n")).unwrap();
    let run = report(std::slice::from_ref(&twice), &["--format", "json"]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains(&format!(
            "two result records for case TUJ-011 (file {}, lines 1 and 2)",
            path(&twice)
        )),
        "{stderr}"
    );
}
