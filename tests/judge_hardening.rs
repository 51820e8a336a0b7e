//! `casec judge --cache DIR` against what another user of the machine or a hostile
//! endpoint can do: a shared or foreign cache folder is refused; a poisoned entry (an
//! edited verdict, another item's entry, garbage, a FIFO, an oversized file, a link) is
//! ignored, asked again and replaced, never written through; temporary files of dead
//! runs are removed; a redirect is no verdict; an answer that echoes the request's
//! `Authorization` header leaves the key in no record, cache entry or message.
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, SystemTime};

use serde_json::{json, Value as Json};

use crate::fake_judge::{self, FakeJudge, Reply};
use crate::judge_output::{approving, golden_record};
use crate::support::cli::{ok, path};

/// The API key the tests' `casec judge` sends (never a real one).
const KEY: &str = "casec-test-key-5d41402abc4b2a76";

/// Longer than any sound run takes: a run still going then is hanging.
const HANG: Duration = Duration::from_secs(120);

/// `casec judge RECORD --suite cases/tujora --endpoint URL --model fake-judge
/// --api-key-env CASEC_TEST_JUDGE_KEY -o OUT MORE…`, with the key set; killed (and the
/// test failed) if it runs longer than [`HANG`].
fn judge(record: &Path, fake: &FakeJudge, out: &Path, more: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_casec"))
        .args(fake.judge_args(&[record], out))
        .args(["--api-key-env", "CASEC_TEST_JUDGE_KEY"])
        .args(more)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env("CASEC_TEST_JUDGE_KEY", KEY)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("casec runs");
    let pid = child.id();
    let stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let read = |mut from: Box<dyn std::io::Read + Send>| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                let _ = from.read_to_end(&mut bytes);
                bytes
            })
        };
        let (out, err) = (read(Box::new(stdout)), read(Box::new(stderr)));
        let status = child.wait().expect("casec ends");
        let _ = done.send(Output {
            status,
            stdout: out.join().unwrap_or_default(),
            stderr: err.join().unwrap_or_default(),
        });
    });
    match finished.recv_timeout(HANG) {
        Ok(output) => output,
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("`casec judge` still ran after {HANG:?}: it hangs");
        }
    }
}

fn read(path: &Path) -> Json {
    serde_json::from_str(&fs::read_to_string(path).expect("a judged file")).expect("JSON")
}

/// The judgements of the judged record in `out`.
fn judgements(out: &Path) -> Vec<Json> {
    read(&out.join("TUJ-021.json"))["judgements"]["items"]
        .as_array()
        .expect("judged items")
        .clone()
}

/// The cache's entries (not its temporary files), by name.
fn entries(cache: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(cache)
        .expect("the cache folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    found.sort();
    found
}

/// Every file under `dir`, as text.
fn texts_under(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).expect("a folder").flatten() {
        let p = entry.path();
        if p.is_dir() {
            out.extend(texts_under(&p));
        } else {
            out.push((p.clone(), fs::read_to_string(&p).unwrap_or_default()));
        }
    }
    out
}

/// Standard error, its lines joined again where the renderer wrapped them.
fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr)
        .split(|c: char| c.is_whitespace() || c == '│')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// What each poison does to the entry `i` of `sound` (path and sound text), beside
/// files it may keep in `aside`.
type Poison = fn(&[(PathBuf, String)], usize, &Path);

fn edited_verdict(sound: &[(PathBuf, String)], i: usize, _: &Path) {
    let mut entry: Json = serde_json::from_str(&sound[i].1).unwrap();
    let met = entry["verdict"]["met"].as_bool().unwrap();
    entry["verdict"]["met"] = json!(!met);
    fs::write(&sound[i].0, entry.to_string()).unwrap();
}

fn another_items_entry(sound: &[(PathBuf, String)], i: usize, _: &Path) {
    fs::write(&sound[i].0, &sound[(i + 1) % sound.len()].1).unwrap();
}

fn garbage(sound: &[(PathBuf, String)], i: usize, _: &Path) {
    fs::write(&sound[i].0, "{\"key\": trunc").unwrap();
}

fn fifo(sound: &[(PathBuf, String)], i: usize, _: &Path) {
    fs::remove_file(&sound[i].0).unwrap();
    let made = Command::new("mkfifo").arg(&sound[i].0).status().unwrap();
    assert!(made.success());
}

/// The sound entry, padded to over 1 MiB with spaces (still the same JSON).
fn oversized(sound: &[(PathBuf, String)], i: usize, _: &Path) {
    let padded = format!("{}{}", sound[i].1, " ".repeat(2 << 20));
    fs::write(&sound[i].0, padded).unwrap();
}

/// The sound entry moved aside, and a link to it in its place.
fn link_to_a_sound_entry(sound: &[(PathBuf, String)], i: usize, aside: &Path) {
    let moved = aside.join(format!("entry-{i}.json"));
    fs::rename(&sound[i].0, &moved).unwrap();
    symlink(&moved, &sound[i].0).unwrap();
}

fn link_to_dev_zero(sound: &[(PathBuf, String)], i: usize, _: &Path) {
    fs::remove_file(&sound[i].0).unwrap();
    symlink("/dev/zero", &sound[i].0).unwrap();
}

#[test]
fn judge_ignores_a_poisoned_cache_entry_asks_again_and_replaces_it_never_through_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let record = golden_record(dir.path());
    let cache = dir.path().join("cache");
    let aside = dir.path().join("aside");
    fs::create_dir(&aside).unwrap();
    let fake = approving();
    ok(&judge(
        &record,
        &fake,
        &dir.path().join("first"),
        &["--cache", path(&cache)],
    ));
    let items = fake.requests();
    let sound: Vec<(PathBuf, String)> = entries(&cache)
        .into_iter()
        .map(|p| (p.clone(), fs::read_to_string(&p).unwrap()))
        .collect();
    assert_eq!(sound.len(), items, "one entry per item");
    assert!(items >= 2, "a record with several review items");

    let poisons: [(&str, Poison); 7] = [
        ("an edited verdict", edited_verdict),
        ("another item's entry", another_items_entry),
        ("garbage", garbage),
        ("a FIFO", fifo),
        ("an oversized entry", oversized),
        ("a link to a sound entry", link_to_a_sound_entry),
        ("a link to /dev/zero", link_to_dev_zero),
    ];
    for (name, poison) in poisons {
        for i in 0..sound.len() {
            poison(&sound, i, &aside);
        }
        let before = fake.requests();
        let out = dir.path().join(name.replace(' ', "-"));
        let run = judge(&record, &fake, &out, &["--cache", path(&cache)]);
        ok(&run);
        assert_eq!(
            fake.requests() - before,
            items,
            "{name}: every item is asked again"
        );
        for j in judgements(&out) {
            assert_eq!(j["source"], "judge", "{name}: {j}");
            assert_eq!(j["met"], j["kind"] == "check", "{name}: {j}");
        }
        for (entry, text) in &sound {
            let kind = fs::symlink_metadata(entry).unwrap().file_type();
            assert!(kind.is_file(), "{name}: the entry is a file again");
            assert_eq!(&fs::read_to_string(entry).unwrap(), text, "{name}");
        }
    }
    // The files the links pointed at were not written through.
    for (i, (_, text)) in sound.iter().enumerate() {
        let moved = aside.join(format!("entry-{i}.json"));
        assert_eq!(&fs::read_to_string(moved).unwrap(), text);
    }
    // And the cache, sound again, answers everything.
    let before = fake.requests();
    ok(&judge(
        &record,
        &fake,
        &dir.path().join("last"),
        &["--cache", path(&cache)],
    ));
    assert_eq!(fake.requests(), before);
}

#[test]
fn judge_refuses_a_cache_folder_others_can_write_or_own_or_a_link_before_asking_anything() {
    let dir = tempfile::tempdir().unwrap();
    let record = golden_record(dir.path());
    let fake = approving();
    let folder = |name: &str, mode: u32| {
        let made = dir.path().join(name);
        fs::create_dir(&made).unwrap();
        fs::set_permissions(&made, fs::Permissions::from_mode(mode)).unwrap();
        made
    };
    let mut refused = vec![
        (
            folder("shared", 0o777),
            "written by other users (mode 0777)",
        ),
        (folder("group", 0o770), "written by other users (mode 0770)"),
        (PathBuf::from("/tmp"), "other user"),
    ];
    let private = folder("private", 0o700);
    let link = dir.path().join("link");
    symlink(&private, &link).unwrap();
    refused.push((link, "is a symbolic link"));
    let file = dir.path().join("file");
    fs::write(&file, "").unwrap();
    refused.push((file, "it is not a folder"));
    let foreign = folder("foreign", 0o700);
    // Only root can give a folder away; elsewhere `/tmp` is the foreign folder.
    if std::os::unix::fs::chown(&foreign, Some(65534), Some(65534)).is_ok() {
        refused.push((foreign, "belongs to another user (uid 65534"));
    }
    for (cache, why) in refused {
        let out = dir.path().join("out");
        let run = judge(&record, &fake, &out, &["--cache", path(&cache)]);
        let said = stderr(&run);
        assert_eq!(run.status.code(), Some(2), "{}: {said}", cache.display());
        assert!(said.contains("cannot open the judge cache"), "{said}");
        assert!(said.contains(why), "{}: {said}", cache.display());
        assert!(!out.exists(), "nothing is written");
        assert_eq!(fake.requests(), 0, "nothing is asked");
    }
    assert_eq!(fs::read_dir(private).unwrap().count(), 0);

    // A folder of the user's own that others can read, not write, is used.
    let readable = folder("readable", 0o755);
    ok(&judge(
        &record,
        &fake,
        &dir.path().join("used"),
        &["--cache", path(&readable)],
    ));
    assert!(!entries(&readable).is_empty());
    // One casec creates is the user's alone.
    let created = dir.path().join("created");
    ok(&judge(
        &record,
        &fake,
        &dir.path().join("created-out"),
        &["--cache", path(&created)],
    ));
    let mode = fs::metadata(&created).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o700);
    for entry in entries(&created) {
        let mode = fs::metadata(entry).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o600);
    }
}

/// Sets the modification time of `file` to `age` ago.
fn age(file: &Path, age: Duration) {
    let when = SystemTime::now() - age;
    let handle = fs::File::options().write(true).open(file).unwrap();
    handle.set_modified(when).unwrap();
}

#[cfg(target_os = "linux")]
#[test]
fn judge_removes_temporary_cache_files_of_dead_runs_and_keeps_those_of_live_ones() {
    let dir = tempfile::tempdir().unwrap();
    let record = golden_record(dir.path());
    let cache = dir.path().join("cache");
    fs::create_dir(&cache).unwrap();
    fs::set_permissions(&cache, fs::Permissions::from_mode(0o700)).unwrap();
    let mut gone = Command::new("true").spawn().unwrap();
    gone.wait().unwrap();
    let dead = gone.id();
    let temp = |tag: &str, pid: u32| {
        let made = cache.join(format!(".ab12.json.{tag}.casec-tmp-{pid}"));
        fs::write(&made, "{\"key\": half").unwrap();
        made
    };
    let of_dead_run = temp("0123456789abcdef", dead);
    let of_live_run = temp("fedcba9876543210", std::process::id());
    let just_written = temp("00112233aabbccdd", dead);
    for old in [&of_dead_run, &of_live_run] {
        age(old, Duration::from_secs(600));
    }
    let fake = approving();
    ok(&judge(
        &record,
        &fake,
        &dir.path().join("out"),
        &["--cache", path(&cache)],
    ));
    assert!(
        !of_dead_run.exists(),
        "a dead run's temporary file is removed"
    );
    assert!(of_live_run.exists(), "a live run's is kept");
    assert!(
        just_written.exists(),
        "one touched within the minute is kept"
    );
    assert!(!entries(&cache).is_empty());
}

#[test]
fn judge_follows_no_redirect_a_redirect_gives_no_verdict_and_nothing_is_cached() {
    let dir = tempfile::tempdir().unwrap();
    let record = golden_record(dir.path());
    let elsewhere = approving();
    // Another origin: another host name and port.
    let location = format!(
        "{}/chat/completions",
        elsewhere.url.replace("127.0.0.1", "localhost")
    );
    for status in [302, 307] {
        let to = location.clone();
        let redirecting = fake_judge::start_with(move |_| Reply {
            status,
            headers: vec![("Location".into(), to.clone())],
            body: String::new(),
        });
        let cache = dir.path().join(format!("cache-{status}"));
        let out = dir.path().join(format!("out-{status}"));
        let run = judge(&record, &redirecting, &out, &["--cache", path(&cache)]);
        ok(&run);
        let said = stderr(&run);
        let why = format!(
            "the judge answered HTTP {status}, a redirect to {location}; casec does not follow redirects"
        );
        assert!(said.contains(&why), "{said}");
        assert_eq!(elsewhere.requests(), 0, "the redirect is not followed");
        let judged = judgements(&out);
        assert_eq!(
            redirecting.requests(),
            judged.len(),
            "each item asked once: a redirect is not tried again"
        );
        for j in judged {
            assert_eq!(j["met"], Json::Null, "{j}");
            assert!(j["reason"].as_str().unwrap().contains(&why), "{j}");
        }
        assert!(entries(&cache).is_empty(), "nothing is cached");
    }
}

/// How an echoing endpoint answers: from the request's `Authorization` header and its
/// `casec judge request` header line.
type Echo = fn(&str, &Json) -> Reply;

/// A fake that answers every request with `reply(authorization, header)`.
fn echoing(reply: Echo) -> FakeJudge {
    fake_judge::start_with(move |exchange| {
        let authorization = exchange.header("authorization").unwrap_or_default();
        assert_eq!(authorization, format!("Bearer {KEY}"), "the key is sent");
        reply(authorization, &exchange.judge_header())
    })
}

fn error_echoing_the_header(authorization: &str, _: &Json) -> Reply {
    Reply {
        status: 401,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: json!({ "error": "invalid key", "headers": { "Authorization": authorization } })
            .to_string(),
    }
}

fn verdict_echoing_the_header(authorization: &str, header: &Json) -> Reply {
    fake_judge::verdict(
        header["kind"] == "check",
        &format!("judged with Authorization: {authorization}"),
    )
}

fn no_verdict_echoing_the_key(authorization: &str, _: &Json) -> Reply {
    let key = authorization.trim_start_matches("Bearer ");
    let content = json!({ "met": key, "reason": "x" }).to_string();
    Reply {
        status: 200,
        headers: vec![],
        body:
            json!({ "choices": [{ "message": { "content": content }, "finish_reason": "stop" }] })
                .to_string(),
    }
}

#[test]
fn judge_redacts_the_key_an_endpoint_echoes_from_records_cache_and_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let record = golden_record(dir.path());
    let answers: [(&str, Echo, bool); 3] = [
        ("an error body", error_echoing_the_header, false),
        ("a verdict's reason", verdict_echoing_the_header, true),
        ("what is no verdict", no_verdict_echoing_the_key, false),
    ];
    for (name, reply, decided) in answers {
        let fake = echoing(reply);
        let out = dir.path().join(name.replace(' ', "-"));
        let cache = dir.path().join(format!("{}-cache", name.replace(' ', "-")));
        for format in ["human", "json"] {
            let out = out.join(format);
            let run = judge(
                &record,
                &fake,
                &out,
                &["--cache", path(&cache), "--format", format],
            );
            ok(&run);
            let said = stderr(&run);
            assert!(!said.contains(KEY), "{name}, {format}: {said}");
            if !decided {
                assert!(said.contains("[redacted]"), "{name}, {format}: {said}");
            }
            let judged = judgements(&out);
            assert!(!judged.is_empty());
            for j in &judged {
                assert_eq!(j["met"].is_boolean(), decided, "{name}: {j}");
                assert!(
                    j["reason"].as_str().unwrap().contains("[redacted]"),
                    "{name}: {j}"
                );
            }
        }
        for (file, text) in texts_under(&out).into_iter().chain(texts_under(&cache)) {
            assert!(!text.contains(KEY), "{name}: {}", file.display());
        }
    }
}
