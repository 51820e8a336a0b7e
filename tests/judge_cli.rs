//! `casec judge` and `casec calibrate` against a local fake OpenAI-compatible endpoint:
//! what a harness engineer sees when the judge says met, not met, nonsense or nothing,
//! with a cache, with people's overrides, and over the suite's labelled runs.

use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value as Json};

/// What the fake endpoint answers to one request.
#[derive(Clone)]
enum Answer {
    /// A chat completion whose message content is this text.
    Content(String),
    /// This HTTP status and body.
    Raw(u16, String),
}

/// A fake chat-completions endpoint on a free local port, answering every request with
/// `answer(header, body)` (`header`: the request's `casec judge request` line).
struct FakeJudge {
    url: String,
    requests: Arc<AtomicUsize>,
    /// The `Authorization` header of each request.
    authorizations: Arc<Mutex<Vec<String>>>,
}

type Answerer = dyn Fn(&Json, &Json) -> Answer + Send + Sync;

fn fake_judge(answer: impl Fn(&Json, &Json) -> Answer + Send + Sync + 'static) -> FakeJudge {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a local port");
    let url = format!("http://{}/v1", listener.local_addr().expect("an address"));
    let requests = Arc::new(AtomicUsize::new(0));
    let authorizations = Arc::new(Mutex::new(Vec::new()));
    let answer: Arc<Answerer> = Arc::new(answer);
    let (count, auth) = (requests.clone(), authorizations.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (answer, count, auth) = (answer.clone(), count.clone(), auth.clone());
            std::thread::spawn(move || serve(stream, &*answer, &count, &auth));
        }
    });
    FakeJudge {
        url,
        requests,
        authorizations,
    }
}

/// Answers the requests of one connection (HTTP/1.1, kept alive) until it closes.
fn serve(stream: TcpStream, answer: &Answerer, count: &AtomicUsize, auth: &Mutex<Vec<String>>) {
    let mut writer = stream.try_clone().expect("a second handle");
    let mut reader = BufReader::new(stream);
    loop {
        let mut length = 0;
        let mut authorization = String::new();
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                match name.to_ascii_lowercase().as_str() {
                    "content-length" => length = value.trim().parse().unwrap_or(0),
                    "authorization" => authorization = value.trim().to_string(),
                    _ => {}
                }
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        count.fetch_add(1, Ordering::SeqCst);
        auth.lock().unwrap().push(authorization);
        let body: Json = serde_json::from_slice(&body).expect("the request is JSON");
        let user = body["messages"][1]["content"].as_str().unwrap_or_default();
        let header: Json = user
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("casec judge request "))
            .and_then(|h| serde_json::from_str(h).ok())
            .expect("the request opens with its header line");
        let (status, text) = match answer(&header, &body) {
            Answer::Content(content) => (
                200,
                json!({ "choices": [{ "index": 0, "message": { "role": "assistant", "content": content }, "finish_reason": "stop" }] }).to_string(),
            ),
            Answer::Raw(status, text) => (status, text),
        };
        let response = format!(
            "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{text}",
            text.len()
        );
        if writer.write_all(response.as_bytes()).is_err() {
            return;
        }
    }
}

fn verdict(met: bool, reason: &str) -> Answer {
    Answer::Content(json!({ "met": met, "reason": reason }).to_string())
}

/// A judge that finds every check met and no critical failure committed.
fn approving(header: &Json, _: &Json) -> Answer {
    verdict(header["kind"] == "check", "as a golden run")
}

fn casec(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_casec"));
    command
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env_remove("OPENAI_API_KEY");
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("casec runs")
}

fn ok(output: &Output) {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The result record of a case's golden trace, written to `dir/<ID>.json`.
fn golden_record(dir: &Path, case_file: &str) -> PathBuf {
    let trace = case_file.replace(".case", ".trace.jsonl");
    let id = Path::new(case_file)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let out = dir.join(format!("{id}.json"));
    let run = casec(
        &[
            "replay",
            case_file,
            "--trace",
            &trace,
            "-o",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ok(&run);
    out
}

fn judge(record: &Path, judge: &FakeJudge, out: &Path, more: &[&str]) -> Output {
    let mut args = vec![
        "judge",
        record.to_str().unwrap(),
        "--suite",
        "cases/tujora",
        "--endpoint",
        &judge.url,
        "--model",
        "fake-judge",
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(more);
    casec(&args, &[])
}

fn read(path: &Path) -> Json {
    serde_json::from_str(&fs::read_to_string(path).expect("a judged file")).expect("JSON")
}

const CASE: &str = "cases/tujora/appointments/TUJ-021.case";

#[test]
fn met_passes_unmet_fails_and_garbage_stays_not_tested() {
    let dir = tempfile::tempdir().unwrap();
    let record = golden_record(dir.path(), CASE);
    assert_eq!(read(&record)["outcome"], "NOT_TESTED");

    let approve = fake_judge(approving);
    let run = judge(&record, &approve, &dir.path().join("met"), &[]);
    ok(&run);
    let judged = read(&dir.path().join("met/TUJ-021.json"));
    assert_eq!(judged["outcome"], "PASS");
    assert!(judged["checks"]
        .as_object()
        .unwrap()
        .values()
        .all(|s| s == "pass"));
    assert_eq!(judged["critical_failures_pending_review"], json!([]));
    let items = judged["judgements"]["items"].as_array().unwrap();
    assert_eq!(items.len(), approve.requests.load(Ordering::SeqCst));
    assert!(items.iter().all(|i| i["source"] == "judge"));
    assert_eq!(judged["judgements"]["settings"]["model"], "fake-judge");
    assert_eq!(judged["judgements"]["settings"]["temperature"], 0);

    let unmet = fake_judge(|h, _| verdict(h["kind"] != "check", "not met"));
    ok(&judge(&record, &unmet, &dir.path().join("unmet"), &[]));
    let judged = read(&dir.path().join("unmet/TUJ-021.json"));
    assert_eq!(judged["outcome"], "FAIL");
    assert_eq!(judged["checks"]["R1"], "fail");
    assert!(!judged["critical_failures_triggered"]
        .as_array()
        .unwrap()
        .is_empty());

    for (name, answer) in [
        ("prose", Answer::Content("Yes, it is met.".into())),
        ("half", Answer::Content(r#"{"met": true}"#.into())),
        (
            "twice",
            Answer::Content(r#"{"met": true, "met": false, "reason": "?"}"#.into()),
        ),
        (
            "status",
            Answer::Raw(400, r#"{"error": "bad model"}"#.into()),
        ),
        ("empty", Answer::Raw(200, r#"{"choices": []}"#.into())),
    ] {
        let garbage = fake_judge(move |_, _| answer.clone());
        let out = dir.path().join(name);
        let run = judge(&record, &garbage, &out, &[]);
        ok(&run);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(stderr.contains("unjudged"), "{name}: {stderr}");
        let judged = read(&out.join("TUJ-021.json"));
        assert_eq!(judged["outcome"], "NOT_TESTED", "{name}");
        assert_eq!(judged["checks"]["R1"], "needs_review", "{name}");
        assert!(
            judged["judgements"]["items"]
                .as_array()
                .unwrap()
                .iter()
                .all(|i| i["met"].is_null() && i["source"].is_null() && i["reason"] != ""),
            "{name}"
        );
        // Under --deny warnings, an item left for review fails the run.
        let denied = judge(
            &record,
            &garbage,
            &dir.path().join(format!("{name}-deny")),
            &["--deny", "warnings"],
        );
        assert_eq!(denied.status.code(), Some(1), "{name}");
    }
}

#[test]
fn a_second_run_with_the_cache_makes_no_request_and_a_broken_entry_is_asked_again() {
    let dir = tempfile::tempdir().unwrap();
    let record = golden_record(dir.path(), CASE);
    let cache = dir.path().join("cache");
    let cache_arg = cache.to_str().unwrap().to_string();
    let fake = fake_judge(approving);
    ok(&judge(
        &record,
        &fake,
        &dir.path().join("first"),
        &["--cache", &cache_arg],
    ));
    let asked = fake.requests.load(Ordering::SeqCst);
    assert!(asked > 0);
    ok(&judge(
        &record,
        &fake,
        &dir.path().join("second"),
        &["--cache", &cache_arg],
    ));
    assert_eq!(
        fake.requests.load(Ordering::SeqCst),
        asked,
        "the cache answers everything"
    );
    let second = read(&dir.path().join("second/TUJ-021.json"));
    assert!(second["judgements"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["source"] == "cache"));
    assert_eq!(second["outcome"], "PASS");

    // Another judge model or another seed is another key.
    ok(&judge(
        &record,
        &fake,
        &dir.path().join("seed"),
        &["--cache", &cache_arg, "--seed", "7"],
    ));
    assert_eq!(fake.requests.load(Ordering::SeqCst), 2 * asked);

    // Corrupt every entry: each is asked again, with the same verdicts.
    for entry in fs::read_dir(&cache).unwrap().flatten() {
        fs::write(entry.path(), "{\"key\": trunc").unwrap();
    }
    ok(&judge(
        &record,
        &fake,
        &dir.path().join("third"),
        &["--cache", &cache_arg, "--seed", "7"],
    ));
    assert_eq!(fake.requests.load(Ordering::SeqCst), 3 * asked);
    let first = read(&dir.path().join("first/TUJ-021.json"));
    let third = read(&dir.path().join("third/TUJ-021.json"));
    assert_eq!(first["checks"], third["checks"]);
    assert_eq!(first["outcome"], third["outcome"]);
}

#[test]
fn people_overrides_take_precedence_and_keep_their_author() {
    let dir = tempfile::tempdir().unwrap();
    let record = golden_record(dir.path(), CASE);
    let overrides = dir.path().join("overrides.jsonl");
    fs::write(
        &overrides,
        "{\"case\": \"TUJ-021\", \"item\": \"R1\", \"met\": false, \"author\": \"ana\", \"reason\": \"the reply never says why 09:00 was refused\"}\n",
    )
    .unwrap();
    let fake = fake_judge(approving);
    ok(&judge(
        &record,
        &fake,
        &dir.path().join("out"),
        &["--overrides", overrides.to_str().unwrap()],
    ));
    let judged = read(&dir.path().join("out/TUJ-021.json"));
    assert_eq!(judged["outcome"], "FAIL");
    assert_eq!(judged["checks"]["R1"], "fail");
    let r1 = judged["judgements"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["item"] == "R1")
        .unwrap()
        .clone();
    assert_eq!(r1["source"], "human");
    assert_eq!(r1["author"], "ana");
    // R1 was not asked of the judge.
    let items = judged["judgements"]["items"].as_array().unwrap().len();
    assert_eq!(fake.requests.load(Ordering::SeqCst), items - 1);

    fs::write(&overrides, "{\"case\": \"TUJ-021\", \"item\": \"Q7\", \"met\": true, \"author\": \"ana\", \"reason\": \"x\"}\n").unwrap();
    let bad = judge(
        &record,
        &fake,
        &dir.path().join("bad"),
        &["--overrides", overrides.to_str().unwrap()],
    );
    assert_eq!(bad.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(
        stderr.contains("judge_override") && stderr.contains("Q7"),
        "{stderr}"
    );
    assert!(
        !dir.path().join("bad").exists(),
        "nothing is written on an error"
    );
}

#[test]
fn the_api_key_comes_from_the_environment_and_several_records_stay_json_lines() {
    let dir = tempfile::tempdir().unwrap();
    let a = golden_record(dir.path(), CASE);
    let b = golden_record(dir.path(), "cases/tujora/appointments/TUJ-022.case");
    let lines = dir.path().join("run.jsonl");
    let compact = |p: &Path| read(p).to_string();
    fs::write(&lines, format!("{}\n{}\n", compact(&a), compact(&b))).unwrap();
    let fake = fake_judge(approving);
    let out = dir.path().join("out");
    let run = casec(
        &[
            "judge",
            lines.to_str().unwrap(),
            "--suite",
            "cases/tujora",
            "--endpoint",
            &fake.url,
            "--model",
            "m",
            "--api-key-env",
            "MY_JUDGE_KEY",
            "-o",
            out.to_str().unwrap(),
        ],
        &[("MY_JUDGE_KEY", "sk-test-123")],
    );
    ok(&run);
    assert!(fake
        .authorizations
        .lock()
        .unwrap()
        .iter()
        .all(|a| a == "Bearer sk-test-123"));
    let text = fs::read_to_string(out.join("run.jsonl")).unwrap();
    let outcomes: Vec<Json> = text
        .lines()
        .map(|l| serde_json::from_str::<Json>(l).unwrap()["outcome"].clone())
        .collect();
    assert_eq!(outcomes, [json!("PASS"), json!("PASS")]);
    // `casec report` reads judged records.
    let report = casec(
        &[
            "report",
            out.join("run.jsonl").to_str().unwrap(),
            "--suite",
            "cases/tujora",
        ],
        &[],
    );
    ok(&report);
}

/// The compact JSON of each case's golden tool trace: what a perfect scripted judge
/// recognises a golden run by (every Tujora item reads the trace).
fn golden_traces(dir: &Path) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for category in fs::read_dir("cases/tujora").unwrap().flatten() {
        for entry in fs::read_dir(category.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = entry.path();
            let name = path.to_string_lossy().into_owned();
            if name.ends_with(".case") && path.with_extension("trace.jsonl").exists() {
                let record = read(&golden_record(dir, &name));
                out.insert(
                    record["case_id"].as_str().unwrap().to_string(),
                    record["tool_trace"].to_string(),
                );
            }
        }
    }
    out
}

fn calibrate(fake: &FakeJudge) -> Json {
    let run = casec(
        &[
            "calibrate",
            "cases/tujora",
            "--endpoint",
            &fake.url,
            "--model",
            "m",
            "--format",
            "json",
        ],
        &[],
    );
    ok(&run);
    serde_json::from_slice(&run.stdout).expect("a JSON report")
}

/// With a calibration, the judge decides only the items it is calibrated on.
fn judge_gated(dir: &Path, report: &Json, model: &str) -> Output {
    let calibration = dir.join("calibration.json");
    fs::write(&calibration, report.to_string()).unwrap();
    let record = golden_record(dir, CASE);
    let approve = fake_judge(approving);
    casec(
        &[
            "judge",
            record.to_str().unwrap(),
            "--suite",
            "cases/tujora",
            "--endpoint",
            &approve.url,
            "--model",
            model,
            "--calibration",
            calibration.to_str().unwrap(),
            "-o",
            dir.join(format!("gated-{model}")).to_str().unwrap(),
        ],
        &[],
    )
}

#[test]
fn calibrate_reports_agreement_and_shows_an_always_met_judge_failing_the_negatives() {
    let dir = tempfile::tempdir().unwrap();
    let golden = Arc::new(golden_traces(dir.path()));
    assert_eq!(golden.len(), 100);
    // A perfect scripted judge: a golden run meets everything, any other run violates.
    let scripted = fake_judge(move |h, body| {
        let user = body["messages"][1]["content"].as_str().unwrap_or_default();
        let trace = user
            .split("### The tool calls, in order (JSON)\n")
            .nth(1)
            // Compact JSON: one line.
            .and_then(|t| t.lines().next())
            .unwrap_or_default();
        let is_golden = golden
            .get(h["case"].as_str().unwrap_or_default())
            .map(String::as_str)
            == Some(trace);
        verdict((h["kind"] == "check") == is_golden, "scripted")
    });
    let report = calibrate(&scripted);
    assert_eq!(
        report["overall"]["accuracy"], 1.0,
        "{:#}",
        report["disagreements"]
    );
    assert_eq!(report["overall"]["kappa"], 1.0);
    assert_eq!(report["disagreements"], json!([]));
    assert_eq!(
        report["cases_without_negative"],
        json!([]),
        "every case has a labelled negative"
    );
    assert!(report["per_item"]["R1"]["samples"].as_u64().unwrap() >= 100);
    assert!(report["per_group"]["critical"]["negatives"]
        .as_u64()
        .is_some());

    // Gated by that calibration: R1 (calibrated, κ 1) is decided; an item without a
    // labelled negative stays for review, with what the judge said.
    let gated = judge_gated(dir.path(), &report, "m");
    ok(&gated);
    let judged = read(&dir.path().join("gated-m/TUJ-021.json"));
    assert_eq!(judged["checks"]["R1"], "pass");
    let without_negative: Vec<&str> = report["per_item"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, a)| a["negatives"] == 0)
        .map(|(k, _)| k.as_str())
        .collect();
    let left: Vec<&Json> = judged["judgements"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["met"].is_null())
        .collect();
    assert!(!left.is_empty() && !without_negative.is_empty());
    for item in &left {
        assert!(
            without_negative.contains(&item["item"].as_str().unwrap()),
            "{item}"
        );
        assert!(
            item["reason"].as_str().unwrap().contains("not calibrated"),
            "{item}"
        );
    }
    assert_eq!(judged["outcome"], "NOT_TESTED");
    // A calibration of another model gates nothing: it is refused.
    let other = judge_gated(dir.path(), &report, "another-model");
    assert_eq!(other.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&other.stderr).contains("calibration"));

    let always = fake_judge(|_, _| verdict(true, "looks fine"));
    let report = calibrate(&always);
    let overall = &report["overall"];
    assert!(overall["negatives"].as_u64().unwrap() >= 100);
    assert!(overall["accuracy"].as_f64().unwrap() < 1.0);
    assert!(
        overall["kappa"].as_f64().unwrap() <= 0.0,
        "no better than chance: {overall}"
    );
    let disagreements = report["disagreements"].as_array().unwrap();
    assert!(disagreements
        .iter()
        .any(|d| d["run"] != "golden" && d["expected_met"] == false));
}

/// `casec judge` and `casec report` refuse an empty result file (what a `casec serve`
/// killed mid-session leaves at `--result-out`) with an error naming it, rather than
/// reading it as no records; nothing is asked or written.
#[test]
fn an_empty_result_file_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("killed.json");
    fs::write(&empty, "").unwrap();
    let fake = fake_judge(approving);
    let out = dir.path().join("judged");
    let runs = [
        judge(&empty, &fake, &out, &[]),
        casec(
            &["report", empty.to_str().unwrap(), "--suite", "cases/tujora"],
            &[],
        ),
    ];
    for run in runs {
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("result_record"), "{stderr}");
        assert!(stderr.contains("the file is empty"), "{stderr}");
        assert!(stderr.contains("killed.json"), "{stderr}");
        assert!(
            stderr.contains("killed before its session ended"),
            "{stderr}"
        );
        assert_eq!(String::from_utf8_lossy(&run.stdout), "");
    }
    assert_eq!(fake.requests.load(Ordering::SeqCst), 0);
    assert!(!out.exists());
}
