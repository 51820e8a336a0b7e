//! `casec check --staged` gives, byte for byte, what `casec check` gives on the files
//! git's index holds (written out by `git checkout-index`), with and without a cache,
//! through edits staged and not, files added, removed and renamed, commits, and a
//! damaged cache; and says why when the index cannot be checked.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::files::{copy_dir, edit, Scratch};

const SUITE: &str = "cases/tujora";

/// Git's variables that a test run inside a hook would pass on.
const GIT_VARS: [&str; 4] = ["GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_PREFIX"];

/// `git args` in `dir`, with no user or system configuration; it must succeed.
fn git(dir: &Path, args: &[&str]) {
    let out = git_output(dir, args);
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn git_output(dir: &Path, args: &[&str]) -> Output {
    let mut command = Command::new("git");
    command
        .current_dir(dir)
        .args([
            "-c",
            "user.name=casec",
            "-c",
            "user.email=casec@example.com",
        ])
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1");
    for var in GIT_VARS {
        command.env_remove(var);
    }
    command.output().expect("git runs")
}

fn casec(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_casec"));
    command
        .current_dir(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("CASEC_CACHE");
    for var in GIT_VARS {
        command.env_remove(var);
    }
    command.envs(env.iter().copied());
    command.output().expect("casec runs")
}

/// A git repository holding the Tujora suite at `cases/tujora`, committed.
fn tujora_repo(scratch: &Scratch) -> PathBuf {
    let repo = scratch.0.join("repo");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(SUITE),
        &repo.join(SUITE),
    );
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "--no-verify", "-m", "Tujora"]);
    repo
}

/// A way to run a check: what it is called, its arguments, its environment.
type Run<'a> = (&'a str, &'a [&'a str], &'a [(&'a str, &'a str)]);

/// Asserts that `casec check --staged` in `repo` (without a cache, then twice through
/// `cache`, and once as a hook runs it, with a relative `GIT_DIR`) gives what
/// `casec check` gives on the index written out to a folder.
fn assert_staged_same(repo: &Path, cache: &Path, what: &str) {
    let export = repo.with_file_name("export");
    let _ = fs::remove_dir_all(&export);
    let prefix = format!("{}/", export.display());
    git(
        repo,
        &["checkout-index", "-a", &format!("--prefix={prefix}")],
    );
    let cache = cache.to_str().expect("a UTF-8 path");
    for format in ["human", "json"] {
        let expected = casec(&export, &["check", SUITE, "--format", format], &[]);
        let staged = ["check", "--staged", SUITE, "--format", format];
        let cached = [&staged[..], &["--cache", cache]].concat();
        let runs: [Run; 4] = [
            ("without a cache", &staged, &[]),
            ("into the cache", &cached, &[]),
            ("from the cache", &cached, &[]),
            ("as a hook", &cached, &[("GIT_DIR", ".git")]),
        ];
        for (how, args, env) in runs {
            let got = casec(repo, args, env);
            let context = format!("{what}, {how}, {format}");
            let show = |o: &Output| String::from_utf8_lossy(&o.stderr).into_owned();
            assert_eq!(got.status.code(), expected.status.code(), "{context}");
            assert_eq!(show(&got), show(&expected), "{context}");
            assert_eq!(got.stdout, expected.stdout, "{context}");
        }
    }
}

#[test]
fn a_staged_check_is_a_check_of_what_the_index_holds() {
    let scratch = Scratch::new("staged", "tujora");
    let repo = tujora_repo(&scratch);
    let cache = scratch.0.join("cache");
    let suite = repo.join(SUITE);
    assert_staged_same(&repo, &cache, "as committed");

    // Prose edits that bring warnings, staged: the quick path's replaced diagnostics.
    let medication = suite.join("medication");
    edit(&medication.join("TUJ-012.case"), "user \"", "user \" ");
    edit(
        &suite.join("appointments/TUJ-034.case"),
        "need \"",
        "need \"two  spaces ",
    );
    git(&repo, &["add", "-A"]);
    assert_staged_same(&repo, &cache, "warnings staged in two files");
    edit(&medication.join("TUJ-012.case"), "user \" ", "user \"  ");
    git(&repo, &["add", "-A"]);
    assert_staged_same(&repo, &cache, "a prose edit of a file with warnings");
    edit(&medication.join("TUJ-012.case"), "user \"  ", "user \"");
    git(&repo, &["add", "-A"]);
    assert_staged_same(&repo, &cache, "one fixed");
    // More files changed than the quick path takes: the survey.
    for n in 11..=20 {
        edit(
            &medication.join(format!("TUJ-0{n}.case")),
            "user \"",
            "user \"Well. ",
        );
    }
    git(&repo, &["add", "-A"]);
    assert_staged_same(&repo, &cache, "ten prose edits staged");

    let medication = medication.join("TUJ-011.case");
    edit(&medication, "case TUJ-011", "case TUJ-011\nmystery 1\n");
    assert_staged_same(&repo, &cache, "an error in the working tree only");
    git(&repo, &["add", "-A"]);
    assert_staged_same(&repo, &cache, "the error staged");

    let appointments = fs::read_dir(suite.join("appointments"))
        .expect("a category folder")
        .map(|e| e.expect("an entry").path())
        .find(|p| p.extension().is_some_and(|e| e == "case"))
        .expect("a case file");
    let text = fs::read_to_string(&appointments).expect("a case file");
    let prose = text.find("user \"").expect("a user line") + "user \"".len();
    let edited = format!("{}Now then. {}", &text[..prose], &text[prose..]);
    fs::write(&appointments, edited).expect("writable");
    git(&repo, &["add", "-A"]);
    edit(&appointments, "Now then.", "Now  then. ");
    assert_staged_same(&repo, &cache, "a prose edit staged, another not");

    fs::copy(&appointments, suite.join("appointments/copy.case")).expect("a copy");
    git(&repo, &["add", "-A"]);
    assert_staged_same(&repo, &cache, "a file added with a duplicate id");
    git(
        &repo,
        &[
            "rm",
            "-q",
            "--cached",
            "cases/tujora/appointments/copy.case",
        ],
    );
    assert_staged_same(&repo, &cache, "the file unstaged, left in the working tree");

    git(&repo, &["commit", "-q", "--no-verify", "-m", "edits"]);
    assert_staged_same(&repo, &cache, "after a commit");
    fs::write(suite.join(".hidden.case"), "not a case").expect("writable");
    fs::create_dir_all(suite.join("notes")).expect("a folder");
    fs::write(suite.join("notes/readme.md"), "notes").expect("writable");
    git(&repo, &["add", "-A"]);
    assert_staged_same(&repo, &cache, "hidden and other files staged");
    let latin1 = suite.join("appointments/latin1.case");
    fs::write(&latin1, b"# caf\xe9\n").expect("writable");
    git(&repo, &["add", "-A"]);
    assert_staged_same(&repo, &cache, "a staged file that is not UTF-8");
    fs::remove_file(&latin1).expect("removable");
    git(&repo, &["add", "-A"]);

    let moved = suite.join("medication/moved.case");
    let from = "cases/tujora/medication/TUJ-011.case";
    git(&repo, &["mv", from, "cases/tujora/medication/moved.case"]);
    edit(&moved, "mystery 1\n", "");
    git(&repo, &["add", "-A"]);
    assert_staged_same(&repo, &cache, "a file renamed and fixed");

    edit(&suite.join("suite.case"), "suite ", "suite \n");
    git(&repo, &["add", "-A"]);
    assert_staged_same(&repo, &cache, "suite.case edited");

    for entry in fs::read_dir(&cache).expect("the cache folder") {
        let path = entry.expect("an entry").path();
        let bytes = fs::read(&path).expect("a cache file");
        fs::write(&path, &bytes[..bytes.len() / 2]).expect("writable");
    }
    assert_staged_same(&repo, &cache, "a truncated cache");
}

#[test]
fn files_in_no_suite_are_checked_as_staged() {
    let scratch = Scratch::new("staged", "loose");
    let repo = scratch.0.join("repo");
    fs::create_dir_all(&repo).expect("a folder");
    git(&repo, &["init", "-q"]);
    let profiles = repo.join("profiles.case");
    let valid = "profile calm {\n  unscripted_reply \"Nothing more.\"\n}\n";
    fs::write(&profiles, valid).expect("writable");
    git(&repo, &["add", "-A"]);
    // Broken after `git add`: the staged text is checked, not this one.
    fs::write(&profiles, "profile calm {\n  mystery 1\n}\n").expect("writable");
    let staged = casec(&repo, &["check", "--staged", "profiles.case"], &[]);
    let tree = casec(&repo, &["check", "profiles.case"], &[]);
    assert_eq!(staged.status.code(), Some(0), "{staged:?}");
    assert_eq!(tree.status.code(), Some(1), "{tree:?}");
    // Staged broken, fixed in the working tree: the other way round.
    git(&repo, &["add", "-A"]);
    fs::write(&profiles, valid).expect("writable");
    let staged = casec(&repo, &["check", "--staged", "profiles.case"], &[]);
    assert_eq!(staged.status.code(), Some(1), "{staged:?}");
    let said = String::from_utf8_lossy(&staged.stderr);
    assert!(said.contains("profiles.case"), "{said}");
}

#[test]
fn a_staged_check_says_why_it_cannot_read_the_index() {
    let scratch = Scratch::new("staged", "refusals");
    let stderr = |dir: &Path, args: &[&str]| {
        let out = casec(dir, args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };

    let outside = scratch.0.join("outside");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(SUITE),
        &outside.join("tujora"),
    );
    let said = stderr(&outside, &["check", "--staged", "tujora"]);
    assert!(said.contains("not a git repository"), "{said}");

    let repo = tujora_repo(&scratch);
    fs::write(repo.join("loose.case"), "profile p {}\n").expect("writable");
    let said = stderr(&repo, &["check", "--staged", "loose.case"]);
    assert!(said.contains("loose.case"), "{said}");
    assert!(said.contains("not in the index"), "{said}");

    let suite = repo.join(SUITE);
    git(&repo, &["rm", "-q", "--cached", "cases/tujora/suite.case"]);
    let said = stderr(&repo, &["check", "--staged", SUITE]);
    assert!(said.contains("no suite.case staged"), "{said}");
    git(&repo, &["add", "-A"]);

    let medication = suite.join("medication/TUJ-011.case");
    git(&repo, &["checkout", "-q", "-b", "other"]);
    edit(&medication, "case TUJ-011", "case TUJ-011\nmystery 1\n");
    git(&repo, &["commit", "-q", "--no-verify", "-am", "one side"]);
    git(&repo, &["checkout", "-q", "-"]);
    edit(&medication, "case TUJ-011", "case TUJ-011\nmystery 2\n");
    git(&repo, &["commit", "-q", "--no-verify", "-am", "the other"]);
    assert!(!git_output(&repo, &["merge", "-q", "other"])
        .status
        .success());
    let said = stderr(&repo, &["check", "--staged", SUITE]);
    assert!(said.contains("medication/TUJ-011.case"), "{said}");
    assert!(said.contains("unresolved merge conflicts"), "{said}");
    git(&repo, &["merge", "--abort"]);

    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("medication", suite.join("pills")).expect("a link");
        git(&repo, &["add", "-A"]);
        let said = stderr(&repo, &["check", "--staged", SUITE]);
        assert!(said.contains("cases/tujora/pills"), "{said}");
        assert!(said.contains("a symbolic link"), "{said}");
        // Committed, the link is found in HEAD's tree rather than in the diff.
        git(&repo, &["commit", "-q", "--no-verify", "-m", "link"]);
        let said = stderr(&repo, &["check", "--staged", SUITE]);
        assert!(said.contains("a symbolic link"), "{said}");
    }
}
