//! `casec check --cache DIR` gives, byte for byte, what `casec check` gives: cold, warm,
//! after edits of a case, of the suite file and of a profile, after files come and go,
//! and whatever happened to the cache files.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use casec::source::{Origin, SourceDb};

use crate::support::files::{copy_dir, edit, Scratch};

fn run(suite: &Path, cache: Option<&Path>, format: &str) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_casec"));
    command
        .arg("check")
        .arg(suite)
        .args(["--format", format])
        .env("NO_COLOR", "1")
        .env_remove("CASEC_CACHE");
    if let Some(cache) = cache {
        command.arg("--cache").arg(cache);
    }
    command.output().expect("casec runs")
}

/// Checks `suite` through `cache` twice (the second run reuses what the first wrote)
/// and in both formats, and asserts every run gives what a check without a cache does.
fn assert_same(suite: &Path, cache: &Path, what: &str) {
    for format in ["human", "json"] {
        let expected = run(suite, None, format);
        for attempt in ["first", "second"] {
            let got = run(suite, Some(cache), format);
            let show = |o: &Output| String::from_utf8_lossy(&o.stderr).into_owned();
            assert_eq!(
                got.status.code(),
                expected.status.code(),
                "{what}, {attempt} run, {format}"
            );
            assert_eq!(
                show(&got),
                show(&expected),
                "{what}, {attempt} run, {format}"
            );
            assert_eq!(
                got.stdout, expected.stdout,
                "{what}, {attempt} run, {format}"
            );
        }
    }
}

/// Every file of the cache folder overwritten by `damage`.
fn damage_cache(cache: &Path, damage: impl Fn(Vec<u8>) -> Vec<u8>) {
    for entry in fs::read_dir(cache).expect("the cache folder") {
        let path = entry.expect("an entry").path();
        let bytes = fs::read(&path).expect("a cache file");
        fs::write(&path, damage(bytes)).expect("writable");
    }
}

fn damage_every_way(suite: &Path, cache: &Path) {
    damage_cache(cache, |b| b[..b.len() / 2].to_vec());
    assert_same(suite, cache, "a truncated cache");
    damage_cache(cache, |b| {
        b.iter().map(|x| x.wrapping_mul(31) ^ 0x5a).collect()
    });
    assert_same(suite, cache, "a garbage cache");
    // Another version's index: its magic names another format.
    damage_cache(cache, |mut b| {
        b[7] = 0x7f;
        b
    });
    assert_same(suite, cache, "a cache of another version");
    damage_cache(cache, |_| Vec::new());
    assert_same(suite, cache, "an empty cache");
}

/// Tujora with mistakes in several files: an unknown tag (an error: the case drops
/// out, so the counts are not checked), stray spaces (warnings).
#[test]
fn a_tujora_copy_with_mistakes_checks_the_same_through_the_cache() {
    let scratch = Scratch::new("cache", "tujora");
    let suite = scratch.0.join("tujora");
    let cache = scratch.0.join("cache");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/tujora"),
        &suite,
    );
    assert_same(&suite, &cache, "a clean suite");
    let medication = suite.join("medication");
    edit(
        &medication.join("TUJ-011.case"),
        "tags tool_failure_or_ambiguous_result",
        "tags tool_failure",
    );
    edit(&medication.join("TUJ-012.case"), "user \"", "user \" ");
    edit(
        &suite.join("appointments/TUJ-034.case"),
        "need \"",
        "need \"two  spaces ",
    );
    assert_same(&suite, &cache, "mistakes in three files");

    // Prose edits of a case: the cached suite-wide results hold.
    edit(&medication.join("TUJ-012.case"), "user \" ", "user \"  ");
    assert_same(&suite, &cache, "a prose edit");
    // Same size, same mtime as before: the stamp's ctime still tells.
    let path = medication.join("TUJ-013.case");
    let modified = fs::metadata(&path)
        .and_then(|m| m.modified())
        .expect("mtime");
    let text = fs::read_to_string(&path).expect("a case");
    let at = text.find("user \"").expect("a user message") + 6;
    let mut bytes = text.into_bytes();
    bytes[at] = if bytes[at] == b' ' { b'x' } else { b' ' };
    fs::write(&path, &bytes).expect("writable");
    fs::File::options()
        .write(true)
        .open(&path)
        .and_then(|f| f.set_modified(modified))
        .expect("mtime restored");
    assert_same(&suite, &cache, "an edit that keeps size and mtime");

    // The error fixed: the counts are checked again.
    edit(
        &medication.join("TUJ-011.case"),
        "tags tool_failure",
        "tags tool_failure_or_ambiguous_result",
    );
    assert_same(&suite, &cache, "the error fixed");
    // The suite file every case inherits from.
    edit(&suite.join("suite.case"), "case_count 100", "case_count 99");
    assert_same(&suite, &cache, "an edit of suite.case");
    edit(&suite.join("suite.case"), "case_count 99", "case_count 100");
    // Files that go and come.
    fs::remove_file(medication.join("TUJ-014.case")).expect("removable");
    assert_same(&suite, &cache, "a deleted case file");
    let added = fs::read_to_string(medication.join("TUJ-015.case"))
        .expect("a case")
        .replacen("case TUJ-015 ", "case TUJ-015b ", 1);
    fs::write(medication.join("TUJ-015b.case"), added).expect("writable");
    assert_same(&suite, &cache, "an added case file");
    // A case with the id of another, in a file of its own.
    let twin = fs::read_to_string(medication.join("TUJ-016.case")).expect("a case");
    fs::write(medication.join("TUJ-016-twin.case"), &twin).expect("writable");
    assert_same(&suite, &cache, "two cases with one id");
    edit(
        &medication.join("TUJ-016-twin.case"),
        "user \"",
        "user \"again ",
    );
    assert_same(
        &suite,
        &cache,
        "a prose edit of the second of two cases with one id",
    );

    damage_every_way(&suite, &cache);
}

/// The generated corpus breaks rules in every case, and keeps its shared text in
/// profiles: an edit of a profile reaches every case that applies it.
#[test]
fn a_rule_breaking_suite_checks_the_same_through_the_cache() {
    let scratch = Scratch::new("cache", "generated");
    let suite = scratch.0.join("generated");
    let cache = scratch.0.join("cache");
    let mut db = SourceDb::new();
    let master = casec_corpus::generate_master(60, 11);
    let file = db.add("master.json", master, Origin::User);
    let files = casec::import::import(&db, file).expect("the generated master imports");
    let files: Vec<(String, Vec<u8>)> = files
        .into_iter()
        .map(|(p, t)| (p, t.into_bytes()))
        .collect();
    casec::driver::write_folder_atomically(&suite, &files).expect("a suite folder");
    let expected = run(&suite, None, "json");
    let lines = String::from_utf8_lossy(&expected.stderr).lines().count();
    assert!(
        lines > 20,
        "the corpus breaks rules in many files: {lines} lines"
    );
    assert_same(&suite, &cache, "a rule-breaking suite");

    let cases: Vec<PathBuf> = files
        .iter()
        .map(|(p, _)| suite.join(p))
        .filter(|p| {
            fs::read_to_string(p).is_ok_and(|t| t.starts_with("case ") || t.contains("\ncase "))
        })
        .filter(|p| !p.ends_with("suite.case"))
        .collect();
    let first = cases.first().expect("case files");
    let text = fs::read_to_string(first).expect("a case");
    let quote = text.find('"').expect("a string");
    fs::write(
        first,
        format!("{}\"edited {}", &text[..quote], &text[quote + 1..]),
    )
    .expect("writable");
    assert_same(&suite, &cache, "a prose edit of a case");

    let profile = files.iter().map(|(p, _)| suite.join(p)).find(|p| {
        fs::read_to_string(p).is_ok_and(|t| t.contains("profile ")) && !p.ends_with("suite.case")
    });
    let edited = profile
        .as_ref()
        .unwrap_or(&suite.join("suite.case"))
        .clone();
    let text = fs::read_to_string(&edited).expect("a profile file");
    let quote = text.find('"').expect("a string");
    fs::write(
        &edited,
        format!("{}\" {}", &text[..quote], &text[quote + 1..]),
    )
    .expect("writable");
    assert_same(&suite, &cache, "an edit of what cases inherit");

    damage_every_way(&suite, &cache);
}

/// Two runs at once through one cache each leave a whole index that the next run can
/// use or ignore: none gives another answer.
#[test]
fn concurrent_runs_through_one_cache_agree() {
    let scratch = Scratch::new("cache", "concurrent");
    let suite = scratch.0.join("tujora");
    let cache = scratch.0.join("cache");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/tujora"),
        &suite,
    );
    edit(
        &suite.join("medication/TUJ-012.case"),
        "user \"",
        "user \" ",
    );
    let expected = run(&suite, None, "json");
    std::thread::scope(|scope| {
        let runs: Vec<_> = (0..4)
            .map(|_| scope.spawn(|| run(&suite, Some(&cache), "json")))
            .collect();
        for got in runs {
            let got = got.join().expect("a run");
            assert_eq!(got.stderr, expected.stderr);
            assert_eq!(got.status.code(), expected.status.code());
        }
    });
    assert_same(&suite, &cache, "after concurrent runs");
}
