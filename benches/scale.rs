//! Scale benchmark: `casec check` and `casec build` of suites of 1,000, 10,000 and
//! (opt-in) 100,000 cases, next to a serde_json parse and re-serialization of the same
//! master and to jrsonnet evaluating a Jsonnet file of it, on all cores and on one; the
//! peak memory of each; and a warm `casec check --cache` after a one-file edit, of the
//! working tree and (the suite made a git repository, when git is installed) of the
//! staged files after `git add` of the edit (`--staged`).
//!
//! Run with `cargo bench --bench scale` (1,000 and 10,000 cases; add `-- 10000` for one
//! size, `-- 100000` or `CASEC_BENCH_LARGE=1` for the 100,000-case suites;
//! `-- --make-tujora FOLDER COPIES` only writes a scaled Tujora suite, its master and
//! Jsonnet files beside it). Two corpora:
//!
//! * `generated`: masters from the test corpus generator (every overridable field
//!   deviating somewhere, no worlds), imported into a suite folder;
//! * `tujora`: `cases/tujora` copied N/100 times with renamed case ids (worlds,
//!   expectations and all), its master built by casec from that folder.
//!
//! Every task is a process, timed from spawn to exit and measured by `wait4` (peak
//! resident memory, `ru_maxrss`) in a small wrapper process (this binary with `--run`): `casec build DIR -o FILE`, `casec check DIR`, this
//! binary with `--serde MASTER OUT` (read, parse into a `serde_json::Value`, write
//! compact JSON), and `jrsonnet FILE.jsonnet -o OUT` when jrsonnet is found (`$JRSONNET`,
//! the `PATH`, or `~/.cargo/bin`), on two Jsonnet files that evaluate to the master,
//! each checked once to give the same JSON: `text`, its shared text factored out (every
//! string that occurs more than once is a top-level `local`, as issue 14 describes the
//! comparison), and `values`, every repeated value factored out (objects and lists
//! too: the most compact Jsonnet a tool could write, and far less for jrsonnet to
//! evaluate, since a shared object is evaluated once). "One core" runs every process under `taskset -c 0` with
//! `CASEC_THREADS=1`. A round runs every task once, in turn, and figures are medians
//! over rounds, so a slow moment of a shared machine slows all tasks alike.
//!
//! Targets (issue 14), at 10,000 Tujora cases: a build ≥3× faster than jrsonnet and
//! within 2× the serde_json round trip, ahead of jrsonnet on one core, with at most a
//! third of jrsonnet's peak memory; 100,000 cases within 10.5× the time and memory of
//! 10,000; a warm incremental check of 100,000 cases after one edit under 100 ms.

use casec_corpus as generate;

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use casec::source::{Origin, SourceDb};
use casec::{Compilation, Sources};
use serde_json::Value;

/// Suite sizes and how many timed rounds each gets (fewer for the larger ones, so the
/// default run stays within a few minutes on two cores).
const SIZES: &[(usize, usize)] = &[(1_000, 5), (10_000, 3)];
/// The opt-in size: one round (a cold 100,000-case check is a minute on two cores).
const LARGE: (usize, usize) = (100_000, 1);
const SEED: u64 = 1;
const SERDE_FLAG: &str = "--serde";
const RUN_FLAG: &str = "--run";
/// `--make-tujora FOLDER COPIES`: only writes a scaled copy of `cases/tujora`, and beside
/// it its master and the two Jsonnet files of that master (for measuring by hand, as
/// docs/performance.md does).
const MAKE_TUJORA_FLAG: &str = "--make-tujora";
const CASEC: &str = env!("CARGO_BIN_EXE_casec");

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).is_some_and(|a| a == RUN_FLAG) {
        run_and_report(&args[2], &args[3..]);
        return;
    }
    if let Some(at) = args.iter().position(|a| a == SERDE_FLAG) {
        serde_round_trip(Path::new(&args[at + 1]), Path::new(&args[at + 2]));
        return;
    }
    if let Some(at) = args.iter().position(|a| a == MAKE_TUJORA_FLAG) {
        let (Some(folder), Some(copies)) = (args.get(at + 1), args.get(at + 2)) else {
            panic!("usage: {MAKE_TUJORA_FLAG} FOLDER COPIES");
        };
        let copies: usize = copies.parse().expect("COPIES: a whole number");
        let (suite, master) = Corpus::Tujora.make_at(Path::new(folder), copies * 100);
        let beside = |name: &str| PathBuf::from(format!("{}-{name}", suite.display()));
        fs::write(beside("master.json"), &master).expect("writable master");
        let value: Value = serde_json::from_str(&master).expect("the master parses");
        for factoring in FACTORINGS {
            let name = format!("{}.jsonnet", factoring.name());
            fs::write(beside(&name), jsonnet_of(&value, factoring)).expect("writable jsonnet");
        }
        println!(
            "{folder}: cases/tujora copied {copies} times; beside it {folder}-master.json and \
             the Jsonnet files of that master, {folder}-text.jsonnet and {folder}-values.jsonnet"
        );
        return;
    }
    let asked: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let large = std::env::var_os("CASEC_BENCH_LARGE").is_some_and(|v| v == "1");
    let sizes: Vec<(usize, usize)> = SIZES
        .iter()
        .copied()
        .chain(std::iter::once(LARGE))
        .filter(|(n, _)| match asked.is_empty() {
            true => *n != LARGE.0 || large,
            false => asked.contains(n),
        })
        .collect();
    let jrsonnet = find_jrsonnet();
    if jrsonnet.is_none() {
        println!("jrsonnet not found (set JRSONNET, or `cargo install jrsonnet --version 0.5.0-pre98`): its columns are empty");
    }
    let taskset = Command::new("taskset").arg("-V").output().is_ok();
    let work = tempfile::tempdir().expect("a temp dir");
    println!(
        "{:>9} {:>7} {:>5} {:>8} | {:>9} {:>9} {:>9} {:>9} {:>9} | {:>7} {:>7} {:>7} | {:>9} {:>9} | {:>8} {:>8} {:>8} {:>8} {:>8}",
        "corpus", "cases", "cores", "master", "serde", "jr text", "jr values", "check", "build",
        "b/serde", "jt/b", "jv/b", "warm chk", "staged", "peak:srd", "jr text", "jr value", "check", "build"
    );
    for corpus in [Corpus::Generated, Corpus::Tujora] {
        for &(cases, runs) in &sizes {
            let (suite, master) = corpus.make(work.path(), cases);
            let files = Files::new(work.path(), &suite, &master, jrsonnet.as_deref());
            let one_core: &[bool] = if taskset { &[false, true] } else { &[false] };
            for &one in one_core {
                let row = measure(&files, corpus, jrsonnet.as_deref(), one, runs);
                print_row(corpus.name(), cases, one, master.len(), &row);
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Corpus {
    Generated,
    Tujora,
}

impl Corpus {
    fn name(self) -> &'static str {
        match self {
            Corpus::Generated => "generated",
            Corpus::Tujora => "tujora",
        }
    }

    /// A suite folder of `cases` cases under `work`, and its master.
    fn make(self, work: &Path, cases: usize) -> (PathBuf, String) {
        self.make_at(&work.join(format!("{}-{cases}", self.name())), cases)
    }

    /// The suite folder `suite` of `cases` cases, and its master.
    fn make_at(self, suite: &Path, cases: usize) -> (PathBuf, String) {
        let suite = suite.to_path_buf();
        match self {
            Corpus::Generated => {
                let master = generate::generate_master(cases, SEED);
                import_into(&master, &suite);
                (suite, master)
            }
            Corpus::Tujora => {
                scaled_tujora(cases.div_ceil(100), &suite);
                let compilation = Compilation::new(Sources::Folder(&suite));
                assert!(!compilation.has_errors(), "the scaled suite checks clean");
                let model = compilation.suite.as_ref().expect("the suite resolves");
                (suite, casec::lower::master::master_json(model))
            }
        }
    }
}

/// `cases/tujora` copied `copies` times into `suite`: case `TUJ-034` becomes
/// `TUJ-034-0`, `TUJ-034-1`, …, and the suite's counts grow to match.
fn scaled_tujora(copies: usize, suite: &Path) {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/tujora");
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let suite_text = fs::read_to_string(source.join("suite.case")).expect("cases/tujora");
    let suite_text: Vec<String> = suite_text
        .lines()
        .map(|line| scale_count(line, copies))
        .collect();
    files.push((
        "suite.case".into(),
        (suite_text.join("\n") + "\n").into_bytes(),
    ));
    for category in fs::read_dir(&source).expect("cases/tujora") {
        let category = category.expect("a folder entry").path();
        if !category.is_dir() {
            continue;
        }
        let folder = category
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .to_string();
        for file in fs::read_dir(&category).expect("a category folder") {
            let path = file.expect("a folder entry").path();
            if path.extension().is_none_or(|e| e != "case") {
                continue;
            }
            let text = fs::read_to_string(&path).expect("a case file");
            let stem = path
                .file_stem()
                .expect("a name")
                .to_string_lossy()
                .to_string();
            for copy in 0..copies {
                let renamed =
                    text.replacen(&format!("case {stem} "), &format!("case {stem}-{copy} "), 1);
                files.push((format!("{folder}/{stem}-{copy}.case"), renamed.into_bytes()));
            }
        }
    }
    casec::driver::write_folder_atomically(suite, &files).expect("writable suite folder");
}

/// A line of suite.case with its case counts multiplied by `copies`.
fn scale_count(line: &str, copies: usize) -> String {
    let words: Vec<&str> = line.split(' ').collect();
    match words.as_slice() {
        ["", "", "case_count", n] => {
            format!("  case_count {}", n.parse::<usize>().unwrap_or(0) * copies)
        }
        ["category", name, n, "{"] => {
            format!(
                "category {name} {} {{",
                n.parse::<usize>().unwrap_or(0) * copies
            )
        }
        _ => line.to_string(),
    }
}

fn import_into(master: &str, suite: &Path) {
    let mut db = SourceDb::new();
    let file = db.add("master.json", master, Origin::User);
    let files = casec::import::import(&db, file).unwrap_or_else(|d| panic!("{d:?}"));
    let files: Vec<(String, Vec<u8>)> = files
        .into_iter()
        .map(|(p, t)| (p, t.into_bytes()))
        .collect();
    casec::driver::write_folder_atomically(suite, &files).expect("writable suite folder");
}

/// The files of one measurement.
struct Files {
    suite: PathBuf,
    master: PathBuf,
    /// The Jsonnet file of each [`Factoring`].
    jsonnet: [PathBuf; 2],
    out: PathBuf,
    cache: PathBuf,
    staged_cache: PathBuf,
    /// The case file the warm check edits.
    edited: PathBuf,
    /// The suite is a git repository of its own, its files committed.
    git: bool,
}

impl Files {
    fn new(work: &Path, suite: &Path, master: &str, jrsonnet: Option<&Path>) -> Files {
        let files = Files {
            suite: suite.to_path_buf(),
            master: work.join("master.json"),
            jsonnet: FACTORINGS.map(|f| work.join(format!("master-{}.jsonnet", f.name()))),
            out: work.join("out.json"),
            cache: work.join("cache"),
            staged_cache: work.join("staged-cache"),
            edited: first_case_file(suite),
            git: commit_all(suite),
        };
        fs::write(&files.master, master).expect("writable master");
        let value: Value = serde_json::from_str(master).expect("the master parses");
        for (factoring, jsonnet) in FACTORINGS.iter().zip(&files.jsonnet) {
            let Some(jrsonnet) = jrsonnet else {
                break;
            };
            fs::write(jsonnet, jsonnet_of(&value, *factoring)).expect("writable jsonnet");
            let run = Command::new(jrsonnet)
                .arg(jsonnet)
                .arg("-o")
                .arg(&files.out)
                .output()
                .expect("jrsonnet runs");
            let stderr = String::from_utf8_lossy(&run.stderr);
            assert!(run.status.success(), "jrsonnet fails: {stderr}");
            let out: Value = serde_json::from_slice(&fs::read(&files.out).expect("its output"))
                .expect("jrsonnet writes JSON");
            assert!(same_json(&out, &value), "jrsonnet's output is the master");
        }
        let _ = fs::remove_dir_all(&files.cache);
        let _ = fs::remove_dir_all(&files.staged_cache);
        files
    }
}

/// Makes `suite` a git repository of its own with every file committed; false when
/// git cannot (not installed): the staged check is then not measured.
fn commit_all(suite: &Path) -> bool {
    let _ = fs::remove_dir_all(suite.join(".git"));
    let commands: [&[&str]; 3] = [
        &["init", "-q"],
        &["add", "-A"],
        &["commit", "-q", "--no-verify", "-m", "corpus"],
    ];
    commands.iter().all(|args| git(suite, args))
}

/// `git args` in `dir`, without the user's configuration: whether it succeeded.
fn git(dir: &Path, args: &[&str]) -> bool {
    Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@example.com",
        ])
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The first case file of the suite (in path order), not suite.case.
fn first_case_file(suite: &Path) -> PathBuf {
    let mut diags = Vec::new();
    casec::load::case_files(suite, &mut diags)
        .into_iter()
        .find(|p| !p.ends_with("suite.case"))
        .expect("a case file")
}

#[derive(Default)]
struct Row {
    serde: Option<(Duration, u64)>,
    jr_text: Option<(Duration, u64)>,
    jr_values: Option<(Duration, u64)>,
    check: Option<(Duration, u64)>,
    build: Option<(Duration, u64)>,
    warm: Option<(Duration, u64)>,
    warm_staged: Option<(Duration, u64)>,
}

fn measure(
    files: &Files,
    corpus: Corpus,
    jrsonnet: Option<&Path>,
    one_core: bool,
    runs: usize,
) -> Row {
    let process = |program: &Path, args: &[&dyn AsRef<std::ffi::OsStr>]| {
        let mut command = if one_core {
            let mut c = Command::new("taskset");
            c.args(["-c", "0"]).arg(program).env("CASEC_THREADS", "1");
            c
        } else {
            let mut c = Command::new(program);
            c.env_remove("CASEC_THREADS");
            c
        };
        for a in args {
            command.arg(a);
        }
        command.env_remove("CASEC_CACHE");
        command
    };
    let bench = std::env::current_exe().expect("the bench binary");
    let casec = Path::new(CASEC);
    let serde = || process(&bench, &[&SERDE_FLAG, &files.master, &files.out]);
    let jrsonnet_run = |j: &Path, f: usize| process(j, &[&files.jsonnet[f], &"-o", &files.out]);
    let check = || process(casec, &[&"check", &files.suite]);
    // The generated corpus breaks semantic rules on purpose, and `casec build` writes
    // no master over errors: it is built with `--no-check` (parse, resolve, lower),
    // and its checks are timed by `check`. The Tujora corpus is clean: every check runs.
    let build = || match corpus {
        Corpus::Generated => process(
            casec,
            &[&"build", &files.suite, &"--no-check", &"-o", &files.out],
        ),
        Corpus::Tujora => process(casec, &[&"build", &files.suite, &"-o", &files.out]),
    };
    let warm = || process(casec, &[&"check", &files.suite, &"--cache", &files.cache]);
    let staged_cache = &files.staged_cache;
    let warm_staged = || {
        process(
            casec,
            &[
                &"check",
                &"--staged",
                &files.suite,
                &"--cache",
                staged_cache,
            ],
        )
    };

    // The warm check: one cold run fills the cache, one more settles the entries the
    // cold run found racily clean (files written less than 2 s before it); each timed
    // run follows an edit of one case file's prose, undone before the next round.
    let _ = fs::remove_dir_all(&files.cache);
    timed(&mut warm());
    timed(&mut warm());
    if files.git {
        let _ = fs::remove_dir_all(&files.staged_cache);
        timed(&mut warm_staged());
    }
    let original = fs::read_to_string(&files.edited).expect("the edited case");
    let mut edits = 0;
    let mut edit = || {
        edits += 1;
        let quote = original.find('"').expect("a string in the case");
        let text = format!(
            "{}\"edit {edits} {}",
            &original[..quote],
            &original[quote + 1..]
        );
        fs::write(&files.edited, text).expect("writable case");
    };

    let mut times: HashMap<&str, Vec<(Duration, u64)>> = HashMap::new();
    for _ in 0..runs.max(1) {
        let mut round: Vec<(&str, Command)> =
            vec![("serde", serde()), ("check", check()), ("build", build())];
        if let Some(j) = jrsonnet {
            round.insert(1, ("jr text", jrsonnet_run(j, 0)));
            round.insert(2, ("jr values", jrsonnet_run(j, 1)));
        }
        for (name, mut command) in round {
            times.entry(name).or_default().push(timed(&mut command));
        }
        edit();
        times.entry("warm").or_default().push(timed(&mut warm()));
        let edited = files.edited.as_os_str().to_str().expect("a UTF-8 path");
        if files.git && git(&files.suite, &["add", edited]) {
            let staged = timed(&mut warm_staged());
            times.entry("warm staged").or_default().push(staged);
        }
        // The next round builds the corpus's master again.
        fs::write(&files.edited, &original).expect("writable case");
    }
    let built = fs::read_to_string(&files.out).expect("the built master");
    assert!(
        built == fs::read_to_string(&files.master).expect("the master"),
        "the build is the master"
    );
    let mut median = |name: &str| {
        let mut t = times.remove(name)?;
        t.sort();
        Some(t[t.len() / 2])
    };
    Row {
        serde: median("serde"),
        jr_text: median("jr text"),
        jr_values: median("jr values"),
        check: median("check"),
        build: median("build"),
        warm: median("warm"),
        warm_staged: median("warm staged"),
    }
}

/// Runs `command` to its end: its wall time and peak resident memory (bytes), as
/// measured by a fresh process of this binary ([`run_and_report`]): a child's peak
/// counts the memory of the process that spawned it, and this one holds masters.
fn timed(command: &mut Command) -> (Duration, u64) {
    let mut wrapper = Command::new(std::env::current_exe().expect("the bench binary"));
    wrapper
        .arg(RUN_FLAG)
        .arg(command.get_program())
        .args(command.get_args());
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => wrapper.env(key, value),
            None => wrapper.env_remove(key),
        };
    }
    let output = wrapper
        .stderr(Stdio::inherit())
        .output()
        .expect("the wrapper runs");
    let report = String::from_utf8_lossy(&output.stdout);
    let mut numbers = report.split_whitespace().map(|n| n.parse::<u64>().ok());
    match (
        output.status.success(),
        numbers.next().flatten(),
        numbers.next().flatten(),
    ) {
        (true, Some(ns), Some(bytes)) => (Duration::from_nanos(ns), bytes),
        _ => panic!("{command:?} failed: {report}"),
    }
}

/// In the wrapper: runs the command given and prints its wall time (ns) and peak
/// resident memory (bytes). The child is reaped with `wait4`, the one call that gives
/// one child's own peak.
fn run_and_report(program: &str, args: &[String]) {
    let start = Instant::now();
    let child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the task starts");
    let mut status = 0;
    // SAFETY: `rusage` is plain data, filled by the kernel; the pid is our child's,
    // reaped here and never waited on again (the `Child` is forgotten).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    std::mem::forget(child);
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let elapsed = start.elapsed();
    assert_eq!(reaped, pid, "the task is reaped");
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    // `casec check` of the generated corpus reports its rule breaking: exit 1.
    assert!(
        matches!(code, Some(0 | 1)),
        "{program} {args:?} failed: {status}"
    );
    println!("{} {}", elapsed.as_nanos(), usage.ru_maxrss as u64 * 1024);
}

/// In the child: what a JSON tool does with the master, from disk to disk.
fn serde_round_trip(master: &Path, out: &Path) {
    let text = fs::read_to_string(master).expect("readable master");
    let value: Value = serde_json::from_str(&text).expect("the master parses");
    let written = serde_json::to_string(&value).expect("serializable");
    fs::write(out, written).expect("writable output");
    // As `casec` does: what was built is left to the process exit.
    std::mem::forget((text, value));
}

fn find_jrsonnet() -> Option<PathBuf> {
    let works = |p: &Path| {
        Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let named = std::env::var_os("JRSONNET").map(PathBuf::from);
    let home = std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo/bin/jrsonnet"));
    [named, Some(PathBuf::from("jrsonnet")), home]
        .into_iter()
        .flatten()
        .find(|p| works(p))
}

/// What a Jsonnet file of a master binds once as a `local`.
#[derive(Clone, Copy)]
enum Factoring {
    /// Every string that occurs more than once.
    Text,
    /// Every string, object or list that occurs more than once.
    Values,
}

const FACTORINGS: [Factoring; 2] = [Factoring::Text, Factoring::Values];

impl Factoring {
    fn name(self) -> &'static str {
        match self {
            Factoring::Text => "text",
            Factoring::Values => "values",
        }
    }
}

/// A Jsonnet program that evaluates to `master`, its repeats factored out: each string
/// (and, by `factoring`, object or list) that occurs more than once and is not tiny is
/// a `local`, written once and named wherever it occurs.
fn jsonnet_of(master: &Value, factoring: Factoring) -> String {
    let mut counts: HashMap<String, usize> = HashMap::new();
    count_repeats(master, &mut counts);
    let values = matches!(factoring, Factoring::Values);
    let shared = |v: &Value, text: &str| {
        let big = match v {
            Value::String(s) => s.len() >= 12,
            Value::Object(m) => values && !m.is_empty() && text.len() >= 24,
            Value::Array(a) => values && !a.is_empty() && text.len() >= 24,
            _ => false,
        };
        big && counts.get(text).copied().unwrap_or(0) > 1
    };
    let mut locals: Vec<String> = Vec::new();
    let mut names: HashMap<String, String> = HashMap::new();
    let body = emit(master, &shared, &mut locals, &mut names, true);
    // One `local` with every binding: a chain of thousands of `local`s nests as deep,
    // and overflows jrsonnet's stack.
    let mut out = String::with_capacity(body.len() * 2);
    if !locals.is_empty() {
        out.push_str("local\n");
        out.push_str(&locals.join(",\n"));
        out.push_str(";\n");
    }
    out.push_str(&body);
    out.push('\n');
    out
}

fn count_repeats(v: &Value, counts: &mut HashMap<String, usize>) {
    *counts.entry(v.to_string()).or_default() += 1;
    match v {
        Value::Object(m) => m.values().for_each(|x| count_repeats(x, counts)),
        Value::Array(a) => a.iter().for_each(|x| count_repeats(x, counts)),
        _ => {}
    }
}

/// `v` as Jsonnet; shared parts become locals (their own parts factored too), defined
/// before their first use.
fn emit(
    v: &Value,
    shared: &dyn Fn(&Value, &str) -> bool,
    locals: &mut Vec<String>,
    names: &mut HashMap<String, String>,
    top: bool,
) -> String {
    let text = v.to_string();
    if !top {
        if let Some(name) = names.get(&text) {
            return name.clone();
        }
    }
    let written = match v {
        Value::Object(m) => {
            let fields: Vec<String> = m
                .iter()
                .map(|(k, x)| {
                    format!(
                        "{}: {}",
                        Value::String(k.clone()),
                        emit(x, shared, locals, names, false)
                    )
                })
                .collect();
            format!("{{{}}}", fields.join(", "))
        }
        Value::Array(a) => {
            let items: Vec<String> = a
                .iter()
                .map(|x| emit(x, shared, locals, names, false))
                .collect();
            format!("[{}]", items.join(", "))
        }
        _ => text.clone(),
    };
    if top || !shared(v, &text) {
        return written;
    }
    let name = format!("s{}", names.len());
    locals.push(format!("  {name} = {written}"));
    names.insert(text, name.clone());
    name
}

/// JSON equality, numbers compared by value (Jsonnet has one number type).
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

fn print_row(corpus: &str, cases: usize, one_core: bool, master: usize, row: &Row) {
    let ms = |t: Option<(Duration, u64)>| {
        t.map_or("-".into(), |(d, _)| format!("{:.1}", d.as_secs_f64() * 1e3))
    };
    let mb = |t: Option<(Duration, u64)>| {
        t.map_or("-".into(), |(_, b)| format!("{:.1}", b as f64 / 1e6))
    };
    let ratio = |a: Option<(Duration, u64)>, b: Option<(Duration, u64)>| match (a, b) {
        (Some((a, _)), Some((b, _))) => format!("{:.2}x", a.as_secs_f64() / b.as_secs_f64()),
        _ => "-".into(),
    };
    println!(
        "{:>9} {:>7} {:>5} {:>6.1}MB | {:>9} {:>9} {:>9} {:>9} {:>9} | {:>7} {:>7} {:>7} | {:>9} {:>9} | {:>8} {:>8} {:>8} {:>8} {:>8}",
        corpus,
        cases,
        if one_core { "1" } else { "all" },
        master as f64 / 1e6,
        ms(row.serde),
        ms(row.jr_text),
        ms(row.jr_values),
        ms(row.check),
        ms(row.build),
        ratio(row.build, row.serde),
        ratio(row.jr_text, row.build),
        ratio(row.jr_values, row.build),
        ms(row.warm),
        ms(row.warm_staged),
        mb(row.serde),
        mb(row.jr_text),
        mb(row.jr_values),
        mb(row.check),
        mb(row.build),
    );
}
